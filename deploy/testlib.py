"""A small Kubernetes API client and checks for deploy/test_chart.sh and deploy/test_image.sh.

Standard library and PyYAML (Debian's python3-yaml) only, so that the deploy tests need no
virtual environment. The control plane is tests/controlplane/controlplane.sh's (its DIR/env).

As a command:
    python3 deploy/testlib.py schedule-one CP_DIR --scheduler-name NAME --identity ID
        [--lease NAMESPACE/NAME] [--http http://127.0.0.1:PORT] [--timeout S]
creates a Node and a Pod for NAME in a fresh namespace and waits until the pod is bound, a
Scheduled event names NAME, the Lease (if given) is held by ID and /readyz answers 200;
exit 0 when all hold, 1 with what did not.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shlex
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Callable, Optional

PAUSE_IMAGE = "registry.k8s.io/pause:3.10"


class ApiError(Exception):
    def __init__(self, method: str, path: str, status: int, body: Any):
        self.status, self.body = status, body
        message = body.get("message") if isinstance(body, dict) else str(body)[:400]
        super().__init__(f"{method} {path}: HTTP {status}: {message}")


class Api:
    """JSON over HTTPS with a bearer token and the control plane's CA."""

    def __init__(self, url: str, token: str, ca: str, timeout: float = 30.0):
        parsed = urllib.parse.urlsplit(url)
        self.url, self.host, self.port = url, parsed.hostname, parsed.port or 443
        self.token, self.timeout = token, timeout
        self.context = ssl.create_default_context(cafile=ca)

    def request(self, method: str, path: str, body: Any = None, params: Optional[dict] = None,
                content_type: str = "application/json", ok_statuses=()) -> Any:
        if params:
            path += ("&" if "?" in path else "?") + urllib.parse.urlencode(params)
        data = None
        if body is not None:
            data = (body if isinstance(body, (str, bytes)) else json.dumps(body))
            data = data.encode() if isinstance(data, str) else data
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = content_type
        for attempt in range(3):
            conn = http.client.HTTPSConnection(self.host, self.port, context=self.context, timeout=self.timeout)
            try:
                conn.request(method, path, body=data, headers=headers)
                resp = conn.getresponse()
                raw, status = resp.read(), resp.status
                break
            except (ConnectionError, http.client.HTTPException, OSError):
                if attempt == 2:
                    raise
                time.sleep(0.5)
            finally:
                conn.close()
        try:
            decoded = json.loads(raw) if raw else None
        except ValueError:
            decoded = raw.decode(errors="replace")
        if status >= 300 and status not in ok_statuses:
            raise ApiError(method, path, status, decoded)
        return decoded

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body, **kw):
        return self.request("POST", path, body, **kw)

    def put(self, path, body, **kw):
        return self.request("PUT", path, body, **kw)

    def delete(self, path, params=None):
        return self.request("DELETE", path, params=params, ok_statuses=(404,))

    def list(self, path, **params) -> list:
        return self.get(path, params=params or None)["items"]

    # -- discovery: where objects of a kind live
    def resource_for(self, api_version: str, kind: str) -> Optional[tuple]:
        """(collection path prefix, plural, namespaced) for apiVersion/kind, or None when the
        API server does not serve it (a CRD that is not installed)."""
        base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        try:
            listing = self.get(base)
        except ApiError as e:
            if e.status == 404:
                return None
            raise
        for r in listing.get("resources", []):
            if r.get("kind") == kind and "/" not in r["name"]:
                return base, r["name"], bool(r.get("namespaced"))
        return None

    def object_path(self, obj: dict, namespace: Optional[str] = None, collection: bool = False) -> Optional[str]:
        found = self.resource_for(obj["apiVersion"], obj["kind"])
        if found is None:
            return None
        base, plural, namespaced = found
        ns = obj.get("metadata", {}).get("namespace") or namespace
        prefix = f"{base}/namespaces/{ns}/{plural}" if namespaced else f"{base}/{plural}"
        return prefix if collection else f"{prefix}/{obj['metadata']['name']}"


def load_env(cp_dir: str) -> dict:
    env = {}
    for line in (Path(cp_dir) / "env").read_text().splitlines():
        key, _, value = line.partition("=")
        parts = shlex.split(value)
        env[key] = parts[0] if parts else ""
    return env


def admin_api(cp_dir: str) -> Api:
    env = load_env(cp_dir)
    return Api(env["CP_URL"], env["CP_TOKEN"], env["CP_CA"])


def write_kubeconfig(path: Path, server: str, ca: str, token: str) -> Path:
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "test", "cluster": {"server": server, "certificate-authority": ca}}],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": "test", "context": {"cluster": "test", "user": "u"}}],
        "current-context": "test"}, indent=1))
    return path


def wait_for(fn: Callable[[], Any], timeout: float, interval: float = 0.25) -> Any:
    """fn() until truthy (returned) or the timeout (the last value, falsy, returned)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = fn()
        except (ApiError, OSError):
            value = None
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


# `tightpack schedule` serves a self-signed certificate unless the chart gives it one.
UNVERIFIED_TLS = ssl._create_unverified_context()


def http_get(url: str, timeout: float = 3.0, token: Optional[str] = None) -> tuple:
    """(status, body) of a GET, with a bearer token if given; status 0 when nothing answers."""
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=timeout,
                                    context=UNVERIFIED_TLS if url.startswith("https:") else None) as resp:
            return resp.status, resp.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except (urllib.error.URLError, OSError):
        return 0, ""


# -- objects

def ensure_namespace(api: Api, name: str):
    api.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                               "metadata": {"name": name}}, ok_statuses=(409,))


def create_node(api: Api, name: str, cpu: str = "4", memory: str = "16Gi", labels: Optional[dict] = None) -> dict:
    """A Node as an API object (no kubelet): POST it, then PUT its status (allocatable, Ready)."""
    meta_labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
    meta_labels.update(labels or {})
    node = api.post("/api/v1/nodes", {"apiVersion": "v1", "kind": "Node",
                                      "metadata": {"name": name, "labels": meta_labels}})
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    res = {"cpu": cpu, "memory": memory, "pods": "110"}
    node["status"] = {"capacity": res, "allocatable": res,
                      "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                      "message": "test node (no kubelet)", "lastHeartbeatTime": now,
                                      "lastTransitionTime": now}]}
    return api.put(f"/api/v1/nodes/{name}/status", node)


def pod_manifest(name: str, scheduler_name: str, cpu: str = "1", memory: str = "1Gi",
                 priority_class: Optional[str] = None, node_selector: Optional[dict] = None) -> dict:
    """One pause container; terminationGracePeriodSeconds 0 (no kubelet: a pod deleted with a
    grace period would stay Terminating)."""
    spec = {"schedulerName": scheduler_name, "terminationGracePeriodSeconds": 0,
            "containers": [{"name": "main", "image": PAUSE_IMAGE,
                            "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}
    if priority_class:
        spec["priorityClassName"] = priority_class
    if node_selector:
        spec["nodeSelector"] = node_selector
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def pod_condition(pod: dict, ctype: str) -> Optional[dict]:
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return None


def scheduled_events(api: Api, namespace: str, pod: str) -> list:
    return [e for e in api.list(f"/apis/events.k8s.io/v1/namespaces/{namespace}/events")
            if e.get("reason") == "Scheduled" and (e.get("regarding") or {}).get("name") == pod]


def lease_holder(api: Api, namespace: str, name: str) -> str:
    try:
        lease = api.get(f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}")
    except ApiError as e:
        if e.status == 404:
            return ""
        raise
    return (lease.get("spec") or {}).get("holderIdentity") or ""


def schedule_one(cp_dir: str, scheduler_name: str, identity: str, lease: Optional[str], http_base: Optional[str],
                 timeout: float, namespace: str, node: str) -> list:
    """Creates a node and a pod for scheduler_name; the failures (empty: all good)."""
    api = admin_api(cp_dir)
    failures = []
    if http_base and not wait_for(lambda: http_get(http_base + "/readyz")[0] == 200, timeout):
        failures.append(f"{http_base}/readyz never answered 200")
    ensure_namespace(api, namespace)
    create_node(api, node)
    api.post(f"/api/v1/namespaces/{namespace}/pods", pod_manifest("one", scheduler_name))
    bound = wait_for(lambda: api.get(f"/api/v1/namespaces/{namespace}/pods/one")["spec"].get("nodeName"), timeout)
    if not bound:
        failures.append(f"pod {namespace}/one was not bound")
    else:
        print(f"  pod {namespace}/one bound to {bound}")
    events = wait_for(lambda: scheduled_events(api, namespace, "one"), 10 if bound else 0.1)
    if not events:
        failures.append(f"no Scheduled event for {namespace}/one")
    elif events[0].get("reportingController") != scheduler_name:
        failures.append(f"the Scheduled event's reportingController is {events[0].get('reportingController')!r}")
    else:
        print(f"  Scheduled event: {events[0].get('note')} (reportingController {scheduler_name})")
    if lease:
        ns, name = lease.split("/")
        holder = wait_for(lambda: lease_holder(api, ns, name) == identity, 5)
        if not holder:
            failures.append(f"Lease {lease} is held by {lease_holder(api, ns, name)!r}, not {identity!r}")
        else:
            print(f"  Lease {lease} held by {identity}")
    if http_base:
        status, text = http_get(http_base + "/metrics", token=load_env(cp_dir)["CP_TOKEN"])
        line = next((ln for ln in text.splitlines() if ln.startswith("scheduler_schedule_attempts_total")
                     and 'result="scheduled"' in ln), "")
        if status != 200 or not line:
            failures.append(f"/metrics ({status}) has no scheduled attempts")
        else:
            print(f"  /metrics: {line}")
    return failures


def main(argv: list) -> int:
    p = argparse.ArgumentParser(prog="testlib.py")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("schedule-one")
    s.add_argument("cp_dir")
    s.add_argument("--scheduler-name", required=True)
    s.add_argument("--identity", required=True)
    s.add_argument("--lease")
    s.add_argument("--http")
    s.add_argument("--timeout", type=float, default=30)
    s.add_argument("--namespace", default=f"deploy-test-{os.getpid()}")
    s.add_argument("--node", default=f"deploy-node-{os.getpid()}")
    args = p.parse_args(argv)
    failures = schedule_one(args.cp_dir, args.scheduler_name, args.identity, args.lease, args.http,
                            args.timeout, args.namespace, args.node)
    for f in failures:
        print(f"  FAILED: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
