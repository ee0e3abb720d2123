"""HTTP GETs with tornado's AsyncHTTPClient, or over kept connections (kept.py); every failure
names the URL."""

from __future__ import annotations

import http.client
import json
import os
from typing import Any, Optional

from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

from .errors import SourceError
from .kept import KeptConnections
from .parsing import DocumentError, load_json

# A scheduler snapshot of 5,000 nodes and 50,000 pods is well under this.
MAX_BODY_BYTES = 1024**3


class HTTPStatusError(SourceError):
    """The server answered with an HTTP error status."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


def _status_detail(body: bytes) -> str:
    """The message of a Kubernetes Status (or any JSON error), else the start of the body."""
    text = body.decode("utf-8", "replace").strip()
    if not text:
        return ""
    try:
        data = json.loads(text)
    except ValueError:
        return text[:200]
    if isinstance(data, dict):
        for key in ("message", "error", "reason"):
            if isinstance(data.get(key), str) and data[key]:
                return data[key][:300]
    return text[:200]


async def get_json(
    url: str,
    *,
    what: str,
    timeout: float,
    headers: Optional[dict] = None,
    ca_file: Optional[str] = None,
    verify: bool = True,
    follow_redirects: bool = True,
) -> Any:
    """GET ``url`` and decode its JSON body.

    Raises HTTPStatusError for an HTTP error status and SourceError for everything
    else (unreachable, timeout, TLS, not JSON); both messages start with ``what`` and
    the URL. With ``follow_redirects`` off a redirect is an HTTPStatusError: a request
    carrying a credential meant for one server must not be replayed to another.
    """
    document, _ = await get_json_unless(url, None, what=what, timeout=timeout, headers=headers,
                                        ca_file=ca_file, verify=verify,
                                        follow_redirects=follow_redirects)
    return document


async def get_json_unless(
    url: str,
    etag: Optional[str],
    *,
    what: str,
    timeout: float,
    headers: Optional[dict] = None,
    ca_file: Optional[str] = None,
    verify: bool = True,
    follow_redirects: bool = True,
    kept: Optional[KeptConnections] = None,
) -> tuple:
    """(document, its ETag), or (None, etag) when the server answers 304 Not Modified to
    ``If-None-Match: etag``: the document the caller holds is still current. Errors as
    get_json. With ``kept`` the request goes over a connection kept from an earlier one
    (kept.py), and a redirect is not followed."""
    if etag:
        headers = {**(headers or {}), "If-None-Match": etag}
    if kept is not None:
        try:
            answer = await kept.get(url, {"Accept": "application/json", **(headers or {})},
                                    timeout, ca_file if ca_file and os.path.exists(ca_file) else None,
                                    verify, MAX_BODY_BYTES)
        except (OSError, http.client.HTTPException) as exc:  # refused, DNS, TLS, timeout, too large
            raise SourceError(f"{what} {url} is unreachable: {type(exc).__name__}: {exc}") from None
        except Exception as exc:  # a malformed URL, an unsupported scheme
            raise SourceError(f"{what} {url}: {type(exc).__name__}: {exc}") from None
        return _document(answer.code, answer.reason, answer.headers, answer.body, url, etag, what,
                         follow_redirects=False)
    request = HTTPRequest(
        url,
        method="GET",
        headers={"Accept": "application/json", **(headers or {})},
        connect_timeout=timeout,
        request_timeout=timeout,
        ca_certs=ca_file if ca_file and os.path.exists(ca_file) else None,
        validate_cert=verify,
        follow_redirects=follow_redirects,
    )
    client = AsyncHTTPClient(
        force_instance=True, max_body_size=MAX_BODY_BYTES, max_buffer_size=MAX_BODY_BYTES
    )
    try:
        response = await client.fetch(request, raise_error=False)
    except (OSError, HTTPClientError) as exc:  # refused, no route, DNS, TLS, timeout (599)
        raise SourceError(f"{what} {url} is unreachable: {type(exc).__name__}: {exc}") from None
    except Exception as exc:  # a malformed URL, an unsupported scheme
        raise SourceError(f"{what} {url}: {type(exc).__name__}: {exc}") from None
    finally:
        client.close()
    if response.code == 599 or (response.error is not None and response.code < 300):
        error = response.error
        cause = f"{type(error).__name__}: {error}" if error is not None else "no response"
        raise SourceError(f"{what} {url} is unreachable: {cause}")
    return _document(response.code, response.reason, response.headers, response.body or b"", url,
                     etag, what, follow_redirects)


def _document(code: int, reason: str, headers: Any, body: bytes, url: str, etag: Optional[str],
              what: str, follow_redirects: bool) -> tuple:
    """get_json_unless's answer from an HTTP answer."""
    if code == 304 and etag:
        return None, etag
    if 300 <= code < 400 and not follow_redirects:
        target = headers.get("Location", "")
        raise HTTPStatusError(
            f"{what} {url} answered HTTP {code} {reason} (a redirect"
            f"{' to ' + target if target else ''}): not followed", code)
    if code >= 300 and code < 400:
        raise SourceError(f"{what} {url} is unreachable: HTTP {code} {reason}")
    if code >= 400:
        detail = _status_detail(body)
        message = f"{what} {url} answered HTTP {code} {reason}"
        raise HTTPStatusError(f"{message}: {detail}" if detail else message, code)
    try:
        document = load_json(body.decode("utf-8", "replace"), f"{what} {url}")
    except DocumentError as exc:
        raise SourceError(f"{exc} (the response is not JSON)") from None
    return document, headers.get("ETag")
