"""GETs over connections kept between requests, for a server this one polls (the tightpack
scheduler's secure port): one TLS handshake per connection instead of one per refresh, on
both sides. tornado's simple_httpclient opens a connection per request and its curl client
needs pycurl, so this runs the standard library's http.client in the event loop's executor.
The scheduler keeps an idle connection for a minute (docs/scheduler.md); one kept longer
here, or closed there meanwhile, is replaced: a GET is safe to send again."""

from __future__ import annotations

import asyncio
import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlsplit

# Idle longer than this, a connection is not used again: the scheduler closes its side
# after 60 s, and a request must not race that close.
IDLE_SECONDS = 45.0
# Idle connections kept per server: refreshes of one server's users rarely overlap.
IDLE_PER_SERVER = 4
# What a connection closed by the server while idle raises on its next request.
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError,
          ssl.SSLEOFError, ssl.SSLZeroReturnError)


@dataclass
class Answer:
    code: int
    reason: str
    headers: http.client.HTTPMessage
    body: bytes


class BodyTooLarge(OSError):
    pass


class KeptConnections:
    """Connections kept by server (scheme, host, port and how its certificate is checked)."""

    def __init__(self) -> None:
        self._idle: dict = {}  # key -> [(connection, idle since)], most recent last
        self._lock = threading.Lock()

    async def get(self, url: str, headers: dict, timeout: float, ca_file: Optional[str],
                  verify: bool, max_body: int) -> Answer:
        """GET ``url``, redirects not followed. OSError (socket.timeout included) or
        http.client.HTTPException when there is no answer within ``timeout``."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, self._get, url, headers, timeout, ca_file, verify,
                                          max_body)

    def _get(self, url, headers, timeout, ca_file, verify, max_body) -> Answer:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        key = (parts.scheme, parts.hostname, parts.port, ca_file, verify)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        deadline = time.monotonic() + timeout
        reused = self._take(key)
        if reused is not None:
            try:
                return self._exchange(key, reused, target, headers, deadline, max_body)
            except _STALE:
                reused.close()  # closed by the server while idle: once more, on a new one
        connection = self._connect(parts, key, timeout)
        return self._exchange(key, connection, target, headers, deadline, max_body)

    def _take(self, key) -> Optional[http.client.HTTPConnection]:
        with self._lock:
            idle = self._idle.get(key, [])
            while idle:
                connection, since = idle.pop()
                if time.monotonic() - since < IDLE_SECONDS:
                    return connection
                connection.close()
        return None

    def _give_back(self, key, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            idle = self._idle.setdefault(key, [])
            idle.append((connection, time.monotonic()))
            while len(idle) > IDLE_PER_SERVER:
                idle.pop(0)[0].close()

    @staticmethod
    def _connect(parts, key, timeout: float) -> http.client.HTTPConnection:
        if parts.scheme == "http":
            return http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        _, _, _, ca_file, verify = key
        if verify:
            context = ssl.create_default_context(cafile=ca_file or None)
        else:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        return http.client.HTTPSConnection(parts.hostname, parts.port, timeout=timeout,
                                           context=context)

    def _exchange(self, key, connection, target, headers, deadline, max_body) -> Answer:
        try:
            connection.request("GET", target, headers=headers)
            response = connection.getresponse()
            body = bytearray()
            while True:
                if time.monotonic() > deadline:
                    raise socket.timeout("the answer did not come within the timeout")
                chunk = response.read(1 << 20)
                if not chunk:
                    break
                body += chunk
                if len(body) > max_body:
                    raise BodyTooLarge(f"the answer is larger than {max_body} bytes")
        except BaseException:
            connection.close()
            raise
        if response.will_close:
            connection.close()
        else:
            self._give_back(key, connection)
        return Answer(response.status, response.reason, response.headers, bytes(body))
