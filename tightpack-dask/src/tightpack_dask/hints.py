"""What else keeps each node: hints from tightpack's scheduler, refreshed in the background.

`workers_to_close` runs on the scheduler's event loop and must not wait on the network, so
the hints are fetched every `tightpack.retire.hints-interval` and the choice reads the last
answer; an answer older than `tightpack.retire.hints-max-age` counts as missing.

The endpoint answers `{"nodes": [{"name": ..., "kept": true|false}, ...]}` for the nodes
where this Dask cluster's pods run: `kept` when something besides them (another user's
pod, a pool at its minimum size) keeps the node. Nothing about other users' pods is sent.
A node may also say `"emptying": true`: tightpack's scheduler is moving this cluster's
workers off it (make before break, drain.py), their replacements already made. The next
question then names the nodes whose workers have drained (`&drained=a,b`), so that the
scheduler knows it may shrink the cluster back.

On a dask-gateway cluster, whose worker count lives in this Dask scheduler, a node may also say
`"replace": k`: make k replacements for this cluster's workers there (gateway.py raises the
count by k while the node says so). The question then says what this scheduler did:
`&raised=node` while it holds such a raise, `&refused=node` when it would not make one, and
`&adaptive=true` while `cluster.adapt()` sets its count.
"""

from __future__ import annotations

import json
import logging
import os
import ssl
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import dask.config
from dask.utils import parse_timedelta
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.ioloop import PeriodicCallback

logger = logging.getLogger("tightpack_dask")

SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token"
SERVICE_ACCOUNT_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"


def cluster_identity() -> tuple[str | None, str | None]:
    """This Dask cluster's namespace and name, as its pods are labelled: the configuration
    (`tightpack.retire.namespace`, `tightpack.retire.cluster`), else the environment
    operator_env() sets from the downward API, else dask-gateway's own variable."""
    ns = dask.config.get("tightpack.retire.namespace", default=None) or os.environ.get("TIGHTPACK_DASK_NAMESPACE")
    name = dask.config.get("tightpack.retire.cluster", default=None) or os.environ.get("TIGHTPACK_DASK_CLUSTER")
    gateway = os.environ.get("DASK_GATEWAY_CLUSTER_NAME", "")  # "<namespace>.<name>"
    if gateway and "." in gateway:
        gateway_ns, gateway_name = gateway.split(".", 1)
        ns, name = ns or gateway_ns, name or gateway_name
    if not ns and Path(SERVICE_ACCOUNT_NAMESPACE).exists():
        ns = Path(SERVICE_ACCOUNT_NAMESPACE).read_text().strip()
    return ns or None, name or None


class HintsError(ValueError):
    pass


@dataclass(frozen=True)
class NodeHints:
    kept: frozenset[str]  # nodes something besides this cluster's workers keeps
    emptying: frozenset[str]  # nodes tightpack's scheduler is emptying by a move
    replace: tuple[tuple[str, int], ...] = ()  # (node, workers to replace there): a move's make


def parse_hints(text: str | bytes) -> NodeHints:
    """An answer's kept and emptying nodes; HintsError names what is wrong."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise HintsError(f"the answer is not JSON: {e}") from None
    nodes = doc.get("nodes") if isinstance(doc, dict) else None
    if not isinstance(nodes, list):
        raise HintsError('the answer has no "nodes" list')
    kept, emptying, replace = set(), set(), []
    for i, n in enumerate(nodes):
        if not isinstance(n, dict) or not isinstance(n.get("name"), str) or not isinstance(n.get("kept"), bool):
            raise HintsError(f'nodes[{i}] is not {{"name": string, "kept": boolean}}: {str(n)[:100]}')
        if not isinstance(n.get("emptying", False), bool):
            raise HintsError(f'nodes[{i}].emptying is not a boolean: {str(n["emptying"])[:100]}')
        count = n.get("replace", 0)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise HintsError(f'nodes[{i}].replace is not a whole number: {str(count)[:100]}')
        if n["kept"]:
            kept.add(n["name"])
        if n.get("emptying", False):
            emptying.add(n["name"])
        if count:
            replace.append((n["name"], count))
    return NodeHints(frozenset(kept), frozenset(emptying), tuple(sorted(replace)))


class Hints:
    def __init__(
        self,
        url: str,
        token_file: str | None = SERVICE_ACCOUNT_TOKEN,
        ca_file: str | None = None,
        interval: float = 15.0,
        max_age: float = 60.0,
    ):
        self.url, self.token_file, self.ca_file = url, token_file, ca_file
        self.interval, self.max_age = interval, max_age
        self._answer: NodeHints | None = None
        self._at = 0.0
        self.drained: set[str] = set()  # named in the next question (drain.py sets it)
        self.raised: set[str] = set()  # and these three by gateway.py
        self.refused: set[str] = set()
        self.adaptive = False
        self._callback: PeriodicCallback | None = None

    @classmethod
    def from_config(cls) -> Hints | None:
        url = dask.config.get("tightpack.retire.hints-url", default=None)
        if not url:
            return None
        if "?" not in url:
            ns, name = cluster_identity()
            if not ns or not name:
                logger.warning("tightpack: %s needs this cluster's namespace and name (tightpack.retire.namespace, "
                               "tightpack.retire.cluster); going without hints", url)
                return None
            url += "?" + urlencode({"namespace": ns, "cluster": name})
        return cls(
            url,
            token_file=dask.config.get("tightpack.retire.hints-token-file", default=SERVICE_ACCOUNT_TOKEN),
            ca_file=dask.config.get("tightpack.retire.hints-ca-file", default=None),
            interval=parse_timedelta(dask.config.get("tightpack.retire.hints-interval", default="15s")),
            max_age=parse_timedelta(dask.config.get("tightpack.retire.hints-max-age", default="60s")),
        )

    def answer(self) -> NodeHints | None:
        """The last answer, or None when it is missing or stale."""
        if self._answer is None or time.monotonic() - self._at > self.max_age:
            return None
        return self._answer

    def kept_nodes(self) -> set[str] | None:
        """The nodes something else keeps, or None when the last answer is missing or stale."""
        answer = self.answer()
        return None if answer is None else set(answer.kept)

    def emptying_nodes(self) -> set[str] | None:
        """The nodes being emptied by a move, or None when the last answer is missing or stale."""
        answer = self.answer()
        return None if answer is None else set(answer.emptying)

    def replacing_nodes(self) -> dict[str, int] | None:
        """node -> workers to replace there, or None when the last answer is missing or stale."""
        answer = self.answer()
        return None if answer is None else dict(answer.replace)

    def question(self) -> str:
        """The URL asked: with `drained=`, `raised=`, `refused=` and `adaptive=` only when
        there is something to say (a scheduler that sends no `emptying` and no `replace` is
        never asked about moves)."""
        said = {name: ",".join(sorted(nodes)) for name, nodes in
                (("drained", self.drained), ("raised", self.raised), ("refused", self.refused)) if nodes}
        if self.adaptive:
            said["adaptive"] = "true"
        if not said:
            return self.url
        return self.url + ("&" if "?" in self.url else "?") + urlencode(said)

    async def refresh(self) -> None:
        headers = {"Accept": "application/json"}
        if self.token_file and Path(self.token_file).exists():
            # Read each time: a projected service account token rotates.
            headers["Authorization"] = "Bearer " + Path(self.token_file).read_text().strip()
        context = ssl.create_default_context(cafile=self.ca_file) if self.ca_file else None
        request = HTTPRequest(self.question(), headers=headers, request_timeout=10, ssl_options=context)
        try:
            response = await AsyncHTTPClient().fetch(request, raise_error=False)
            if response.code != 200:
                body = (response.body or b"")[:200].decode(errors="replace").strip()
                raise HintsError(f"HTTP {response.code}: {body or response.reason}")
            self._answer = parse_hints(response.body)
            self._at = time.monotonic()
        except Exception as e:
            logger.warning("tightpack: cannot read the hints at %s: %s", self.url, e)

    async def start(self) -> None:
        await self.refresh()
        self._callback = PeriodicCallback(self.refresh, self.interval * 1000)
        self._callback.start()

    async def close(self) -> None:
        if self._callback:
            self._callback.stop()
