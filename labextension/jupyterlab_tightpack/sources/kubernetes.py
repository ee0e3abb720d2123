"""Source 2: the Kubernetes API, with the notebook pod's service account.

Lists nodes and the pods that are not finished, and, when RBAC permits, DaemonSets (the
pods a new node starts with) and PodDisruptionBudgets (what blocks scale-down). Pods are
cut down to what kube-scheduler and cluster-autoscaler read, so that a 50,000-pod
cluster stays a few tens of megabytes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional
from urllib.parse import urlencode

from ..envelope import Snapshot
from ..errors import SourceError, SourceUnusable
from ..fetch import HTTPStatusError, get_json

PAGE_SIZE = 500
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# Running and Pending pods (and Unknown): finished pods hold no resources.
UNFINISHED = "status.phase!=Succeeded,status.phase!=Failed"

# What the engine's decoders read of a Pod and of a DaemonSet, as `tightpack strip --fields`
# prints it (core/include/tightpack/scheduling_fields.hpp): a field that is true is kept
# whole, one that is an object keeps those of its members (of each element of an array).
# The engine's tests hold the file to its decoders.
FIELDS = json.loads((Path(__file__).parent / "scheduling_fields.json").read_text("utf-8"))


def api_base(host: str) -> str:
    host = host.strip().rstrip("/")
    if "://" not in host:
        host = f"https://{host}"
    return host


def read_token(path: str) -> Optional[str]:
    """The token, read on every request (projected tokens rotate); None without one."""
    try:
        with open(path, encoding="utf-8") as f:
            token = f.read().strip()
    except OSError:
        return None
    return token or None


def keep(value: Any, fields: Any) -> Any:
    """``value`` with only ``fields``; a value of another shape than they expect is kept as
    it is, so that the engine finds the same error in it."""
    if fields is True:
        return value
    if isinstance(value, list):
        return [keep(item, fields) for item in value]
    if not isinstance(value, dict):
        return value
    return {key: keep(value[key], sub) for key, sub in fields.items() if key in value}


def strip_pod(pod: dict) -> dict:
    """A Pod with only what scheduling and cluster-autoscaler read."""
    return keep({**pod, "apiVersion": "v1", "kind": "Pod"}, FIELDS["Pod"])


def strip_daemonset(ds: dict) -> dict:
    """A DaemonSet with only what the pods it starts on a new node are made of."""
    return keep({**ds, "apiVersion": "apps/v1", "kind": "DaemonSet"}, FIELDS["DaemonSet"])


def strip_node(node: dict) -> dict:
    """A Node as listed, without managedFields and kubectl's last-applied copy."""
    out = dict(node)
    out["apiVersion"], out["kind"] = "v1", "Node"
    meta = node.get("metadata")
    if isinstance(meta, dict):
        meta = {k: v for k, v in meta.items() if k != "managedFields"}
        annotations = meta.get("annotations")
        if isinstance(annotations, dict) and LAST_APPLIED in annotations:
            meta["annotations"] = {k: v for k, v in annotations.items() if k != LAST_APPLIED}
        out["metadata"] = meta
    return out


# The drain rules read the spec and the status; the metadata names the budget.
PDB_METADATA = {"name": True, "namespace": True, "uid": True, "labels": True}


def strip_pdb(pdb: dict) -> dict:
    out = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": keep(pdb.get("metadata"), PDB_METADATA)}
    for key in ("spec", "status"):
        if isinstance(pdb.get(key), dict):
            out[key] = pdb[key]
    return out


class _Client:
    def __init__(self, base: str, token: str, ca_file: str, timeout: float):
        self.base = base
        self.headers = {"Authorization": f"Bearer {token}"}
        self.ca_file = ca_file
        self.timeout = timeout

    async def list(self, path: str, what: str, strip, params: Optional[dict] = None) -> list:
        """Every item of a list, page by page (limit/continue), each stripped."""
        items: list = []
        token = ""
        while True:
            query = {"limit": str(PAGE_SIZE), **(params or {})}
            if token:
                query["continue"] = token
            url = f"{self.base}{path}?{urlencode(query)}"
            page = await get_json(url, what=f"Kubernetes API ({what})", timeout=self.timeout,
                                  headers=self.headers, ca_file=self.ca_file)
            if not isinstance(page, dict) or not isinstance(page.get("items"), list):
                raise SourceError(f"Kubernetes API {url}: the answer is not a list (no items)")
            items.extend(strip(item) for item in page["items"] if isinstance(item, dict))
            meta = page.get("metadata") if isinstance(page.get("metadata"), dict) else {}
            token = meta.get("continue") or ""
            if not token:
                return items


async def fetch(host: str, token: str, ca_file: str, timeout: float) -> Snapshot:
    """The cluster as the service account sees it.

    SourceUnusable when the API answers 401 or 403 for nodes or pods (RBAC); SourceError
    for anything else that fails.
    """
    base = api_base(host)
    client = _Client(base, token, ca_file, timeout)
    required = (("/api/v1/nodes", "nodes", strip_node, None),
                ("/api/v1/pods", "pods", strip_pod, {"fieldSelector": UNFINISHED}))
    listed: dict = {}
    for path, what, strip, params in required:
        try:
            listed[what] = await client.list(path, what, strip, params)
        except HTTPStatusError as exc:
            if exc.code in (401, 403):
                verb = "not authenticated" if exc.code == 401 else "forbidden"
                raise SourceUnusable(
                    f"Kubernetes API {base}: listing {what} is {verb} for the notebook's "
                    f"service account (HTTP {exc.code}); it needs list on nodes and pods "
                    "(docs/sidebar-server.md): using the next source"
                ) from None
            raise
    notes: list = []
    optional = (("/apis/apps/v1/daemonsets", "daemonsets", strip_daemonset,
                 "new nodes of a pool are assumed to start without DaemonSet pods"),
                ("/apis/policy/v1/poddisruptionbudgets", "poddisruptionbudgets", strip_pdb,
                 "scale-down forecasts ignore PodDisruptionBudgets"))
    for path, what, strip, consequence in optional:
        try:
            listed[what] = await client.list(path, what, strip)
        except HTTPStatusError as exc:
            listed[what] = []
            reason = {401: "not authenticated", 403: "forbidden", 404: "not served"}.get(
                exc.code, f"HTTP {exc.code}")
            notes.append(f"Kubernetes API {base}: listing {what} is {reason}: {consequence}")
        except SourceError as exc:
            listed[what] = []
            notes.append(f"{exc}: {consequence}")
    items = (listed["nodes"] + listed["pods"] + listed["daemonsets"]
             + listed["poddisruptionbudgets"])
    cluster = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
               "items": items}
    return Snapshot(cluster=cluster, notes=notes)


def token_present(path: str) -> bool:
    return os.path.isfile(path)
