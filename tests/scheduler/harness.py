"""End-to-end harness for `tightpack schedule` (docs/scheduler.md) on the test control plane.

Standard library only (plus pytest for failing clearly):

- ControlPlane: etcd + kube-apiserver from tests/controlplane/controlplane.sh run as a command
  (start / restart-apiserver / stop), its env file parsed.
- Api: a small JSON client for the Kubernetes API (bearer token, the control plane's CA,
  keep-alive connections, one per thread) and Watch, a watch stream read in a thread.
- Builders for Nodes (status written through /status), Pods, PriorityClasses and
  PodDisruptionBudgets; wait_for() with a timeout and a failure message that carries the
  running schedulers' log tails.
- TightpackScheduler and KubeScheduler: the two schedulers as subprocesses with a temporary
  copy of a config/ file (kubeconfig of the control plane, leader election as asked).
- ControllerManager and ZonalProvisioner: the real kube-controller-manager with the controllers
  a test needs, and the zonal provisioner of tests/controlplane/provisioner.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import re
import shlex
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONTROLPLANE_SH = ROOT / "tests" / "controlplane" / "controlplane.sh"
CP_BIN = Path(os.environ.get("CP_BIN", ROOT / "build" / "controlplane"))
TIGHTPACK = Path(os.environ.get("TIGHTPACK", ROOT / "build" / "release" / "scheduler" / "tightpack"))
CONFIG_DIR = ROOT / "config"


def address_sanitized(binary: Path) -> bool:
    """Whether `binary` was built with AddressSanitizer (its runtime's entry point is linked in).
    Resident memory of such a build is not the program's: freed blocks wait in ASan's
    quarantine (256 MiB by default) before they are reused, so RSS climbs by design."""
    import mmap
    try:
        with open(binary, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return m.find(b"__asan_init") >= 0
    except (OSError, ValueError):
        return False

TEST_NAMESPACE_LABEL = "tightpack-test"
PAUSE_IMAGE = "registry.k8s.io/pause:3.10"

# The schedulers the tests run: tightpack and the real kube-scheduler as the reference.
FLAVOURS = {
    "tightpack": {"kind": "tightpack", "config": CONFIG_DIR / "tightpack.yaml",
                  "scheduler_name": "tightpack"},
    "kube-z2jh": {"kind": "kube", "config": CONFIG_DIR / "z2jh-user-scheduler.yaml",
                  "scheduler_name": "jupyterhub-user-scheduler"},
    "kube-default": {"kind": "kube", "config": CONFIG_DIR / "default-scheduler.yaml",
                     "scheduler_name": "default-scheduler"},
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def closed_port() -> int:
    """A loopback port nothing listens on (bound and released: refused until reused)."""
    return free_port()


def slug(text: str, limit: int = 40) -> str:
    s = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")
    return s[:limit].strip("-") or "x"


def parse_quantity(q: Any) -> float:
    """A Kubernetes quantity as a float (cpu in cores, memory in bytes)."""
    if isinstance(q, (int, float)):
        return float(q)
    s = str(q).strip()
    suffixes = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
                "n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9,
                "T": 1e12, "P": 1e15, "E": 1e18}
    for suffix in sorted(suffixes, key=len, reverse=True):
        if s.endswith(suffix):
            return float(s[: -len(suffix)]) * suffixes[suffix]
    return float(s)


# --------------------------------------------------------------------------- running processes

class _Registry:
    """Schedulers currently running, so that a timeout can show their logs."""

    def __init__(self):
        self.lock = threading.Lock()
        self.procs: list = []

    def add(self, proc):
        with self.lock:
            self.procs.append(proc)

    def remove(self, proc):
        with self.lock:
            if proc in self.procs:
                self.procs.remove(proc)

    def tails(self, lines: int = 25) -> str:
        with self.lock:
            procs = list(self.procs)
        return "".join(p.describe(lines) for p in procs)


RUNNING = _Registry()


# --------------------------------------------------------------------------- API client

class ApiError(Exception):
    def __init__(self, method: str, path: str, status: int, body: Any):
        self.method, self.path, self.status, self.body = method, path, status, body
        message = body.get("message") if isinstance(body, dict) else str(body)[:500]
        self.reason = body.get("reason") if isinstance(body, dict) else None
        super().__init__(f"{method} {path}: HTTP {status}: {message}")


_TRANSIENT = (ConnectionError, http.client.HTTPException, ssl.SSLError, socket.timeout, OSError)


class Api:
    """JSON over HTTPS with a bearer token; one keep-alive connection per thread."""

    def __init__(self, url: str, token: str, ca: str, timeout: float = 30.0):
        parsed = urllib.parse.urlsplit(url)
        self.url, self.host, self.port = url, parsed.hostname, parsed.port or 443
        self.token, self.ca, self.timeout = token, ca, timeout
        self.context = ssl.create_default_context(cafile=ca)
        self._local = threading.local()

    def _connection(self) -> http.client.HTTPSConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPSConnection(self.host, self.port, context=self.context,
                                               timeout=self.timeout)
            self._local.conn = conn
        return conn

    def _drop_connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
        self._local.conn = None

    def request(self, method: str, path: str, body: Any = None, params: Optional[dict] = None,
                content_type: str = "application/json", retry_seconds: float = 0.0) -> Any:
        """The decoded JSON answer; ApiError on an HTTP error. Connection failures are retried
        once at once (a stale keep-alive connection), then for retry_seconds."""
        if params:
            path = path + ("&" if "?" in path else "?") + urllib.parse.urlencode(params)
        data = None if body is None else (body if isinstance(body, (bytes, str)) else json.dumps(body))
        if isinstance(data, str):
            data = data.encode()
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = content_type
        deadline = time.monotonic() + retry_seconds
        attempt = 0
        while True:
            attempt += 1
            try:
                conn = self._connection()
                conn.request(method, path, body=data, headers=headers)
                resp = conn.getresponse()
                raw = resp.read()
                status = resp.status
                break
            except _TRANSIENT:
                self._drop_connection()
                if attempt == 1:
                    continue
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.3)
        try:
            decoded = json.loads(raw) if raw else None
        except ValueError:
            decoded = raw.decode(errors="replace")
        if status >= 300:
            raise ApiError(method, path, status, decoded)
        return decoded

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body, **kw):
        return self.request("POST", path, body, **kw)

    def put(self, path, body, **kw):
        return self.request("PUT", path, body, **kw)

    def patch(self, path, body, patch_type="merge", **kw):
        ct = {"merge": "application/merge-patch+json", "strategic": "application/strategic-merge-patch+json",
              "json": "application/json-patch+json"}[patch_type]
        return self.request("PATCH", path, body, content_type=ct, **kw)

    def delete(self, path, params=None, missing_ok=True, **kw):
        try:
            return self.request("DELETE", path, params=params, **kw)
        except ApiError as e:
            if e.status == 404 and missing_ok:
                return None
            raise

    def list(self, path, **params) -> list:
        return self.get(path, params=params or None)["items"]


class Watch:
    """Reads a watch stream in a thread; .events is [(monotonic time, type, object)].
    Reconnects from the last resource version when the stream ends or fails (an API server
    restart); .gaps counts the reconnections that had to start over from a new list."""

    def __init__(self, api: Api, path: str, params: Optional[dict] = None):
        self.api, self.path, self.params = api, path, dict(params or {})
        self.events: list = []
        self.gaps = 0
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._conn: Optional[http.client.HTTPSConnection] = None
        listing = api.get(path, params=self.params or None)
        self.initial = listing["items"]
        self.resource_version = listing["metadata"]["resourceVersion"]
        self.thread = threading.Thread(target=self._run, daemon=True, name=f"watch {path}")
        self.thread.start()

    def _run(self):
        while not self._stop.is_set():
            params = dict(self.params, watch="1", resourceVersion=self.resource_version,
                          allowWatchBookmarks="true", timeoutSeconds="300")
            query = self.path + "?" + urllib.parse.urlencode(params)
            try:
                conn = http.client.HTTPSConnection(self.api.host, self.api.port,
                                                   context=self.api.context, timeout=None)
                self._conn = conn
                conn.request("GET", query, headers={"Authorization": f"Bearer {self.api.token}"})
                resp = conn.getresponse()
                if resp.status != 200:
                    resp.read()
                    time.sleep(0.5)
                    continue
                while not self._stop.is_set():
                    line = resp.readline()
                    if not line:
                        break
                    event = json.loads(line)
                    obj = event.get("object", {})
                    if event["type"] == "ERROR":
                        if obj.get("code") == 410:  # too old: start over from a list
                            self.gaps += 1
                            listing = self.api.get(self.path, params=self.params or None)
                            self.resource_version = listing["metadata"]["resourceVersion"]
                        break
                    self.resource_version = obj.get("metadata", {}).get("resourceVersion", self.resource_version)
                    if event["type"] == "BOOKMARK":
                        continue
                    with self.lock:
                        self.events.append((time.monotonic(), event["type"], obj))
            except Exception:  # noqa: BLE001 - reconnect on anything (server restarts)
                if self._stop.is_set():
                    return
                time.sleep(0.3)
            finally:
                if self._conn is not None:
                    self._conn.close()

    def snapshot(self) -> list:
        with self.lock:
            return list(self.events)

    def stop(self):
        self._stop.set()
        conn = self._conn
        if conn is not None and conn.sock is not None:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.thread.join(timeout=5)


# --------------------------------------------------------------------------- waiting

def wait_for(fn: Callable[[], Any], timeout: float, what: str,
             diagnostics: Optional[Callable[[], str]] = None, interval: float = 0.2) -> Any:
    """Calls fn until it returns something truthy, which is returned. On timeout: an
    AssertionError naming what was awaited, the last value or error, the diagnostics and
    the log tails of the schedulers that run."""
    deadline = time.monotonic() + timeout
    last, last_error = None, None
    while True:
        try:
            last = fn()
            last_error = None
            if last:
                return last
        except (ApiError, *_TRANSIENT) as e:  # the API may be restarting
            last_error = e
        if time.monotonic() >= deadline:
            break
        time.sleep(interval)
    parts = [f"timed out after {timeout:g} s waiting for {what}"]
    if last_error is not None:
        parts.append(f"last error: {last_error!r}")
    elif last not in (None, False):
        parts.append(f"last value: {str(last)[:800]}")
    if diagnostics is not None:
        try:
            parts.append(diagnostics())
        except Exception as e:  # noqa: BLE001
            parts.append(f"(diagnostics failed: {e!r})")
    tails = RUNNING.tails()
    if tails:
        parts.append(tails)
    raise AssertionError("\n".join(parts))


# --------------------------------------------------------------------------- object builders

def resources(cpu=None, memory=None, pods=None, gpu=None, extra: Optional[dict] = None) -> dict:
    out = {}
    if cpu is not None:
        out["cpu"] = str(cpu)
    if memory is not None:
        out["memory"] = str(memory)
    if pods is not None:
        out["pods"] = str(pods)
    if gpu:
        out["nvidia.com/gpu"] = str(gpu)
    out.update({k: str(v) for k, v in (extra or {}).items()})
    return out


def node_manifest(name: str, labels: Optional[dict] = None, taints: Optional[list] = None,
                  unschedulable: bool = False) -> dict:
    meta_labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
    meta_labels.update(labels or {})
    spec: dict = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": meta_labels},
            "spec": spec}


def node_status(cpu="8", memory="64Gi", pods=110, gpu=0, extra: Optional[dict] = None) -> dict:
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    res = resources(cpu=cpu, memory=memory, pods=pods, gpu=gpu, extra=extra)
    return {"capacity": res, "allocatable": res,
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                            "message": "test node (no kubelet)", "lastHeartbeatTime": now,
                            "lastTransitionTime": now}],
            "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}]}


def create_node(api: Api, name: str, cpu="8", memory="64Gi", pods=110, gpu=0,
                labels: Optional[dict] = None, taints: Optional[list] = None,
                unschedulable: bool = False, extra_resources: Optional[dict] = None) -> dict:
    """POST the Node, then PUT its status (capacity, allocatable, Ready) to /status."""
    created = api.post("/api/v1/nodes", node_manifest(name, labels, taints, unschedulable))
    created["status"] = node_status(cpu, memory, pods, gpu, extra_resources)
    return api.put(f"/api/v1/nodes/{name}/status", created)


def taint(key: str, value: str = "", effect: str = "NoSchedule") -> dict:
    t = {"key": key, "effect": effect}
    if value:
        t["value"] = value
    return t


def pod_manifest(name: str, cpu="1", memory="1Gi", gpu=0, scheduler_name: Optional[str] = None,
                 priority_class: Optional[str] = None, tolerations: Optional[list] = None,
                 node_selector: Optional[dict] = None, labels: Optional[dict] = None,
                 annotations: Optional[dict] = None, image: str = PAUSE_IMAGE,
                 grace_seconds: int = 0, preemption_policy: Optional[str] = None,
                 env: Optional[dict] = None) -> dict:
    """A one-container pod. terminationGracePeriodSeconds 0 by default: no kubelet runs, so
    a bound pod deleted with a grace period would stay Terminating for ever."""
    requests = resources(cpu=cpu, memory=memory, gpu=gpu)
    container: dict = {"name": "main", "image": image, "resources": {"requests": requests}}
    if gpu:
        container["resources"]["limits"] = {"nvidia.com/gpu": str(gpu)}
    if env:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    spec: dict = {"containers": [container], "terminationGracePeriodSeconds": grace_seconds}
    if scheduler_name:
        spec["schedulerName"] = scheduler_name
    if priority_class:
        spec["priorityClassName"] = priority_class
    if tolerations:
        spec["tolerations"] = tolerations
    if node_selector:
        spec["nodeSelector"] = node_selector
    if preemption_policy:
        spec["preemptionPolicy"] = preemption_policy
    metadata: dict = {"name": name}
    if labels:
        metadata["labels"] = labels
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def create_pod(api: Api, namespace: str, manifest: dict, retry_seconds: float = 0.0) -> dict:
    return api.post(f"/api/v1/namespaces/{namespace}/pods", manifest, retry_seconds=retry_seconds)


def delete_pod(api: Api, namespace: str, name: str, grace: Optional[int] = 0):
    params = None if grace is None else {"gracePeriodSeconds": str(grace)}
    return api.delete(f"/api/v1/namespaces/{namespace}/pods/{name}", params=params)


def create_priority_class(api: Api, name: str, value: int, description: str = "",
                          preemption_policy: Optional[str] = None) -> dict:
    body = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value, "globalDefault": False,
            "description": description or f"test priority class {value}"}
    if preemption_policy:
        body["preemptionPolicy"] = preemption_policy
    try:
        return api.post("/apis/scheduling.k8s.io/v1/priorityclasses", body)
    except ApiError as e:
        if e.status != 409:
            raise
        existing = api.get(f"/apis/scheduling.k8s.io/v1/priorityclasses/{name}")
        assert existing["value"] == value, f"PriorityClass {name} exists with value {existing['value']}"
        return existing


def create_pdb(api: Api, namespace: str, name: str, match_labels: dict,
               min_available: Any = None, max_unavailable: Any = None,
               disruptions_allowed: Optional[int] = None) -> dict:
    """A policy/v1 PodDisruptionBudget. No disruption controller runs, so its status stays
    empty (disruptionsAllowed 0) unless disruptions_allowed writes one to /status."""
    spec: dict = {"selector": {"matchLabels": match_labels}}
    if min_available is not None:
        spec["minAvailable"] = min_available
    if max_unavailable is not None:
        spec["maxUnavailable"] = max_unavailable
    path = f"/apis/policy/v1/namespaces/{namespace}/poddisruptionbudgets"
    pdb = api.post(path, {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                          "metadata": {"name": name}, "spec": spec})
    if disruptions_allowed is not None:
        pdb["status"] = {"disruptionsAllowed": disruptions_allowed, "currentHealthy": 0,
                         "desiredHealthy": 0, "expectedPods": 0,
                         "observedGeneration": pdb["metadata"].get("generation", 1)}
        pdb = api.put(f"{path}/{name}/status", pdb)
    return pdb


def create_namespace(api: Api, name: str) -> dict:
    try:
        return api.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                               "metadata": {"name": name,
                                                            "labels": {TEST_NAMESPACE_LABEL: "1"}}})
    except ApiError as e:
        if e.status != 409:
            raise
        return api.get(f"/api/v1/namespaces/{name}")


# --------------------------------------------------------------------------- reading state

def condition(obj: dict, ctype: str) -> Optional[dict]:
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return None


def node_of(pod: dict) -> str:
    return (pod.get("spec") or {}).get("nodeName") or ""


def pod_summary(pod: dict) -> str:
    cond = condition(pod, "PodScheduled")
    cond_text = f"{cond.get('status')}/{cond.get('reason')}: {cond.get('message', '')[:160]}" if cond else "-"
    nominated = (pod.get("status") or {}).get("nominatedNodeName")
    return (f"{pod['metadata'].get('namespace')}/{pod['metadata']['name']} node={node_of(pod) or '-'}"
            f"{' nominated=' + nominated if nominated else ''} PodScheduled={cond_text}")


def ca_is_unschedulable(pod: dict) -> bool:
    """cluster-autoscaler's predicate for a pod it tries to scale up for.

    kubernetes/autoscaler, cluster-autoscaler/utils/kubernetes/listers.go, isUnschedulable():
    not scheduled (spec.nodeName == ""), not being deleted (no deletionTimestamp), and the
    PodScheduled condition present with Status False and Reason Unschedulable
    (apiv1.PodReasonUnschedulable). Its pod lister also leaves out Succeeded and Failed pods
    (AllPodLister; older releases' UnschedulablePodLister: field selector
    spec.nodeName=="",status.phase!=Succeeded,status.phase!=Failed).
    """
    if node_of(pod) or pod["metadata"].get("deletionTimestamp"):
        return False
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return False
    cond = condition(pod, "PodScheduled")
    return cond is not None and cond.get("status") == "False" and cond.get("reason") == "Unschedulable"


# --------------------------------------------------------------------------- the control plane

class ControlPlane:
    """etcd + kube-apiserver started with `controlplane.sh start DIR`."""

    def __init__(self, directory: Path, node_conditions: bool = False):
        self.dir = Path(directory)
        self.env: dict = {}
        # TaintNodesByCondition on (controlplane.sh, CP_NODE_CONDITIONS): only for callers
        # whose nodes have heartbeats and who run the node lifecycle controller.
        self.node_conditions = node_conditions

    @staticmethod
    def ensure_built():
        if all((CP_BIN / b).exists() for b in ("etcd", "kube-apiserver", "kube-scheduler",
                                               "kube-controller-manager", "test-provisioner")):
            return
        r = subprocess.run(["bash", str(ROOT / "tests/controlplane/build.sh")], capture_output=True, text=True)
        if r.returncode != 0:
            pytest.fail(f"tests/controlplane/build.sh failed:\n{r.stdout[-2000:]}{r.stderr[-2000:]}",
                        pytrace=False)

    def _run(self, *args, timeout=120):
        env = {**os.environ, "CP_NODE_CONDITIONS": "1" if self.node_conditions else ""}
        r = subprocess.run(["bash", str(CONTROLPLANE_SH), *args], capture_output=True, text=True,
                           timeout=timeout, stdin=subprocess.DEVNULL, env=env)
        if r.returncode != 0:
            raise RuntimeError(f"controlplane.sh {' '.join(args)} failed ({r.returncode}):\n"
                               f"{r.stdout}{r.stderr}")
        self._load_env()
        return r

    def _load_env(self):
        env = {}
        for line in (self.dir / "env").read_text().splitlines():
            key, _, value = line.partition("=")
            parts = shlex.split(value)
            env[key] = parts[0] if parts else ""
        self.env = env

    def start(self) -> "ControlPlane":
        self.ensure_built()
        self._run("start", str(self.dir))
        return self

    def restart_apiserver(self, graceful: bool = False):
        self._run("restart-apiserver", str(self.dir), *(["--graceful"] if graceful else []))

    def stop(self):
        if (self.dir / "env").exists():
            subprocess.run(["bash", str(CONTROLPLANE_SH), "stop", str(self.dir)],
                           capture_output=True, timeout=60)

    url = property(lambda self: self.env["CP_URL"])
    token = property(lambda self: self.env["CP_TOKEN"])
    ca = property(lambda self: self.env["CP_CA"])
    kubeconfig = property(lambda self: self.env["CP_KUBECONFIG"])
    nobody_kubeconfig = property(lambda self: self.env["CP_NOBODY_KUBECONFIG"])
    apiserver_pid = property(lambda self: int(self.env["CP_APISERVER_PID"]))

    def api(self) -> Api:
        return Api(self.url, self.token, self.ca)

    def write_kubeconfig(self, path: Path, server: Optional[str] = None, token: Optional[str] = None) -> Path:
        path.write_text(
            "apiVersion: v1\nkind: Config\n"
            f"clusters: [{{name: test, cluster: {{server: \"{server or self.url}\", "
            f"certificate-authority: \"{self.ca}\"}}}}]\n"
            f"users: [{{name: u, user: {{token: \"{token or self.token}\"}}}}]\n"
            "contexts: [{name: test, context: {cluster: test, user: u}}]\ncurrent-context: test\n")
        return path


class Cluster:
    """One test's view of the shared control plane: its namespace, and cleanup of every
    Node and every test namespace's pods before and after (the scheduler sees the whole
    cluster, so a test starts from no nodes and no pods)."""

    def __init__(self, control_plane: ControlPlane, test_name: str):
        self.cp = control_plane
        self.api = control_plane.api()
        self.ns = f"t-{slug(test_name, 48)}-{os.urandom(2).hex()}"

    def reset(self):
        api = self.api
        namespaces = api.list("/api/v1/namespaces", labelSelector=f"{TEST_NAMESPACE_LABEL}=1")
        for ns in namespaces:
            name = ns["metadata"]["name"]
            api.delete(f"/api/v1/namespaces/{name}/pods", params={"gracePeriodSeconds": "0"},
                       retry_seconds=30)
        api.delete("/api/v1/nodes", retry_seconds=30)
        names = {ns["metadata"]["name"] for ns in namespaces}
        wait_for(lambda: not api.list("/api/v1/nodes") and not [
            p for p in api.list("/api/v1/pods") if p["metadata"]["namespace"] in names],
            60, "the previous test's nodes and pods to be gone")

    def setup(self):
        self.reset()
        create_namespace(self.api, self.ns)

    # shorthands in this test's namespace
    def node(self, name, **kw):
        return create_node(self.api, name, **kw)

    def pod(self, name, retry_seconds=0.0, **kw):
        return create_pod(self.api, self.ns, pod_manifest(name, **kw), retry_seconds=retry_seconds)

    def pods(self, label_selector: Optional[str] = None, namespace: Optional[str] = None) -> list:
        params = {"labelSelector": label_selector} if label_selector else {}
        return self.api.list(f"/api/v1/namespaces/{namespace or self.ns}/pods", **params)

    def get_pod(self, name: str, namespace: Optional[str] = None) -> dict:
        return self.api.get(f"/api/v1/namespaces/{namespace or self.ns}/pods/{name}")

    def delete_pod(self, name: str, grace: Optional[int] = 0):
        return delete_pod(self.api, self.ns, name, grace)

    def nodes(self) -> list:
        return self.api.list("/api/v1/nodes")

    def events(self, reason: Optional[str] = None, name: Optional[str] = None) -> list:
        items = self.api.list(f"/apis/events.k8s.io/v1/namespaces/{self.ns}/events")
        return [e for e in items if (reason is None or e.get("reason") == reason)
                and (name is None or (e.get("regarding") or {}).get("name") == name)]

    def describe_pods(self, limit: int = 40) -> str:
        try:
            pods = self.pods()
        except Exception as e:  # noqa: BLE001
            return f"(pods unavailable: {e!r})"
        lines = [pod_summary(p) for p in pods]
        pending = [ln for ln in lines if " node=- " in ln]
        head = f"{len(pods)} pods in {self.ns}, {len(pending)} without a node"
        return "\n".join([head] + (pending or lines)[:limit])

    def wait_bound(self, names: Optional[Iterable[str]] = None, count: Optional[int] = None,
                   timeout: float = 60, label_selector: Optional[str] = None) -> list:
        """Waits until the named pods (or all pods of the namespace, at least `count`) have a
        node; returns the pods."""
        wanted = set(names) if names is not None else None

        def check():
            pods = self.pods(label_selector)
            if wanted is not None:
                pods = [p for p in pods if p["metadata"]["name"] in wanted]
                if len(pods) < len(wanted):
                    return None
            if count is not None and len(pods) < count:
                return None
            return pods if all(node_of(p) for p in pods) else None

        what = f"{len(wanted) if wanted is not None else count or 'all'} pods in {self.ns} to be bound"
        return wait_for(check, timeout, what, diagnostics=self.describe_pods)

    def wait_pod(self, name: str, predicate: Callable[[dict], bool], timeout: float, what: str) -> dict:
        def check():
            pod = self.get_pod(name)
            return pod if predicate(pod) else None
        return wait_for(check, timeout, f"pod {self.ns}/{name}: {what}",
                        diagnostics=lambda: pod_summary(self.get_pod(name)))

    def wait_event(self, reason: str, name: str, timeout: float = 30) -> list:
        return wait_for(lambda: self.events(reason, name), timeout,
                        f"a {reason} event for {self.ns}/{name}",
                        diagnostics=lambda: "events: " + json.dumps(
                            [(e.get("reason"), (e.get("regarding") or {}).get("name"), e.get("note"))
                             for e in self.events()])[:1500])

    def snapshot_list(self) -> dict:
        """`kubectl get nodes,pods -A -o json`: a v1 List of every Node and Pod."""
        items = [dict(n, apiVersion="v1", kind="Node") for n in self.api.list("/api/v1/nodes")]
        items += [dict(p, apiVersion="v1", kind="Pod") for p in self.api.list("/api/v1/pods")]
        return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def nodes_in_use(pods: Iterable[dict]) -> int:
    return len({node_of(p) for p in pods if node_of(p)})


def per_node_counts(pods: Iterable[dict]) -> dict:
    out: dict = {}
    for p in pods:
        if node_of(p):
            out[node_of(p)] = out.get(node_of(p), 0) + 1
    return dict(sorted(out.items()))


# --------------------------------------------------------------------------- configuration files

def override_top_level(yaml_text: str, overrides: dict) -> str:
    """The YAML document with each top-level key of `overrides` replaced (its block removed,
    `key: <JSON>` appended; JSON is YAML). Enough for config/*.yaml, with no YAML library."""
    out, skipping = [], False
    for line in yaml_text.splitlines():
        m = re.match(r"^([A-Za-z_][\w.-]*)\s*:", line)
        if m:
            skipping = m.group(1) in overrides
        elif skipping and (not line.strip() or line[0] in " \t-#"):
            continue
        if not skipping:
            out.append(line)
    for key, value in overrides.items():
        if value is not None:
            out.append(f"{key}: {json.dumps(value)}")
    return "\n".join(out) + "\n"


def scheduler_config(source: Path, dest: Path, kubeconfig: str, leader_election: Optional[dict],
                     qps: Optional[float] = None, burst: Optional[int] = None,
                     extra: Optional[dict] = None) -> Path:
    client = {"kubeconfig": str(kubeconfig)}
    if qps is not None:
        client["qps"] = qps
    if burst is not None:
        client["burst"] = burst
    overrides = {"clientConnection": client,
                 "leaderElection": leader_election or {"leaderElect": False}}
    overrides.update(extra or {})
    dest.write_text(override_top_level(Path(source).read_text(), overrides))
    return dest


# --------------------------------------------------------------------------- scheduler processes

class SchedulerProcess:
    name = "scheduler"

    def __init__(self, argv: list, log_path: Path, scheduler_name: str, label: str):
        self.argv, self.log_path = [str(a) for a in argv], Path(log_path)
        self.scheduler_name, self.label = scheduler_name, label
        self.env: Optional[dict] = None  # the process's environment; None: the test's
        self.proc: Optional[subprocess.Popen] = None
        self.peak_rss_kib = 0
        self._log = None

    def start(self):
        self._log = open(self.log_path, "ab")
        self._log.write(f"$ {shlex.join(self.argv)}\n".encode())
        self._log.flush()
        self.proc = subprocess.Popen(self.argv, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True, cwd=ROOT, env=self.env)
        RUNNING.add(self)
        return self

    def start_alive(self, settle: float):
        """start(), then a clear failure if the process exits within `settle` seconds."""
        SchedulerProcess.start(self)
        time.sleep(settle)
        if not self.alive():
            raise AssertionError(f"{self.label} exited {self.proc.returncode} at start:{self.describe(40)}")
        return self

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def describe(self, lines: int = 25) -> str:
        state = "running" if self.alive() else f"exited {self.proc.returncode if self.proc else '-'}"
        return f"\n--- {self.label} ({state}), last {lines} lines of {self.log_path}:\n{self.log_tail(lines)}\n"

    def sample_rss(self) -> int:
        """VmHWM (peak resident set, KiB) from /proc while the process runs."""
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    self.peak_rss_kib = max(self.peak_rss_kib, int(line.split()[1]))
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass
        return self.peak_rss_kib

    def signal(self, sig: int):
        if self.alive():
            os.kill(self.pid, sig)

    def wait(self, timeout: float) -> Optional[int]:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill9(self):
        if self.alive():
            self.sample_rss()
            os.kill(self.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        self._closed()

    def stop(self, timeout: float = 15) -> Optional[int]:
        """SIGTERM, then SIGKILL after timeout; the exit status (negative: a signal)."""
        if self.proc is None:
            return None
        if self.alive():
            self.sample_rss()
            self.proc.send_signal(signal.SIGTERM)
            if self.wait(timeout) is None:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._closed()
        return self.proc.returncode

    def _closed(self):
        RUNNING.remove(self)
        if self._log is not None:
            self._log.close()
            self._log = None


_SCHEDULE_COMMAND: Optional[str] = None


def require_schedule_command():
    """Fails the test (does not skip it) while build/release/scheduler/tightpack has no
    `schedule` command."""
    global _SCHEDULE_COMMAND
    if _SCHEDULE_COMMAND == "ok":
        return
    if not TIGHTPACK.exists():
        pytest.fail(f"{TIGHTPACK} does not exist: build the release preset (scripts/build.sh release)",
                    pytrace=False)
    try:
        r = subprocess.run([str(TIGHTPACK), "schedule", "--help"], capture_output=True, text=True,
                           timeout=30, stdin=subprocess.DEVNULL)
    except OSError as e:
        pytest.fail(f"cannot run {TIGHTPACK} ({e}); is it being rebuilt?", pytrace=False)
    out = r.stdout + r.stderr
    if r.returncode != 0 and "unknown command" in out:
        pytest.fail(f"{TIGHTPACK} has no `schedule` command yet (docs/scheduler.md), so this test "
                    f"cannot run; it answered `tightpack schedule --help` with exit {r.returncode}: "
                    f"{out.strip().splitlines()[0] if out.strip() else ''}", pytrace=False)
    _SCHEDULE_COMMAND = "ok"


# `tightpack schedule` serves a self-signed certificate unless given one, as kube-scheduler does.
UNVERIFIED_TLS = ssl._create_unverified_context()


def connect(port: int, tls: bool = True, timeout: float = 5) -> socket.socket:
    """A raw connection to a scheduler's port on loopback, with a small receive buffer (so that
    a slow reader is slow), TLS handshake done unless `tls` is False: for clients that idle,
    drip or read slowly."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return UNVERIFIED_TLS.wrap_socket(s, server_hostname="127.0.0.1") if tls else s


def http_request(url: str, timeout: float = 5.0, token: Optional[str] = None,
                 headers: Optional[dict] = None, source: Optional[str] = None) -> tuple:
    """(status, headers, body text) of a GET (HTTPS without verifying the certificate); status 0
    when nothing answers. `source` is the local address to ask from (any of 127.0.0.0/8 on
    loopback), as another pod would: the daemon paces its costly answers per client address."""
    h = dict(headers or {})
    if token:
        h["Authorization"] = f"Bearer {token}"
    if source:
        parts = urllib.parse.urlsplit(url)
        cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        kw = {"context": UNVERIFIED_TLS} if parts.scheme == "https" else {}
        conn = cls(parts.hostname, parts.port, timeout=timeout, source_address=(source, 0), **kw)
        try:
            conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""), headers=h)
            resp = conn.getresponse()
            return resp.status, dict(resp.headers), resp.read().decode(errors="replace")
        except (ConnectionError, socket.timeout, OSError, http.client.HTTPException):
            return 0, {}, ""
        finally:
            conn.close()
    req = urllib.request.Request(url, headers=h)
    context = UNVERIFIED_TLS if url.startswith("https:") else None
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=context) as resp:
            return resp.status, dict(resp.headers), resp.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode(errors="replace")
    except (urllib.error.URLError, ConnectionError, socket.timeout, OSError):
        return 0, {}, ""


def http_get(url: str, timeout: float = 5.0, token: Optional[str] = None) -> tuple:
    """(status, body text) of a GET; status 0 when nothing answers."""
    status, _, body = http_request(url, timeout, token)
    return status, body


class TightpackScheduler(SchedulerProcess):
    """`tightpack schedule` with a temporary copy of a config/ file."""

    def __init__(self, cp: Optional[ControlPlane], workdir: Path, config: Path = CONFIG_DIR / "tightpack.yaml",
                 scheduler_name: str = "tightpack", identity: Optional[str] = None,
                 leader_election: Optional[dict] = None, kubeconfig: Optional[str] = None,
                 kubeconfig_flag: Optional[str] = None, qps: Optional[float] = None,
                 burst: Optional[int] = None, extra_args: Iterable[str] = (), port: Optional[int] = None,
                 raw_config: Optional[Path] = None, config_extra: Optional[dict] = None):
        self.identity = identity or f"tightpack-test-{os.urandom(3).hex()}"
        self.port = port or free_port()
        # The control plane's admin token: the API server vouches for it (TokenReview) and
        # system:masters may get /metrics and /snapshot (SubjectAccessReview).
        self.token = cp.token if cp is not None else None
        workdir.mkdir(parents=True, exist_ok=True)
        if raw_config is not None:
            config_path = raw_config
        else:
            config_path = scheduler_config(config, workdir / f"{self.identity}.yaml",
                                           kubeconfig or cp.kubeconfig, leader_election, qps, burst, config_extra)
        self.config_path = config_path
        argv = [TIGHTPACK, "schedule", "--config", config_path, "--listen", f"127.0.0.1:{self.port}",
                "--identity", self.identity]
        if kubeconfig_flag:
            argv += ["--kubeconfig", kubeconfig_flag]
        argv += list(extra_args)
        super().__init__(argv, workdir / f"{self.identity}.log", scheduler_name, f"tightpack schedule {self.identity}")

    @property
    def base(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def start(self, wait_healthy: bool = True, timeout: float = 20):
        require_schedule_command()
        super().start()
        if wait_healthy:
            wait_for(lambda: self._healthy_or_dead(), timeout,
                     f"{self.label} to answer /healthz on {self.base}")
            if not self.alive():
                raise AssertionError(f"{self.label} exited {self.proc.returncode} at start:{self.describe(40)}")
        return self

    def _healthy_or_dead(self):
        return not self.alive() or self.get("/healthz")[0] == 200

    def get(self, path: str, timeout: float = 10.0, token: Optional[str] = "admin") -> tuple:
        """(status, body); `token` "admin" is the control plane's, None or "" sends none."""
        return http_get(self.base + path, timeout, self.token if token == "admin" else token)

    def wait_ready(self, timeout: float = 30):
        return wait_for(lambda: self.get("/readyz")[0] == 200, timeout, f"{self.label} /readyz to answer 200")

    def metrics(self) -> "Metrics":
        status, text = self.get("/metrics")
        assert status == 200, f"/metrics answered {status}: {text[:300]}"
        return Metrics(text)

    def snapshot(self, pods: str = "") -> dict:
        """/snapshot; pods="grouped" as the sidebar asks (PodGroups, docs/scheduler.md)."""
        status, text = self.get("/snapshot" + (f"?pods={pods}" if pods else ""), timeout=30)
        assert status == 200, f"/snapshot answered {status}: {text[:300]}"
        return json.loads(text)


class KubeScheduler(SchedulerProcess):
    """The real kube-scheduler (build/controlplane) with a copy of a config/ file: the control
    plane's kubeconfig, leader election off unless asked, no serving port."""

    def __init__(self, cp: ControlPlane, workdir: Path, config: Path = CONFIG_DIR / "default-scheduler.yaml",
                 scheduler_name: str = "default-scheduler", leader_election: Optional[dict] = None,
                 kubeconfig: Optional[str] = None, qps: Optional[float] = None, burst: Optional[int] = None,
                 verbosity: int = 2, label: Optional[str] = None, config_extra: Optional[dict] = None):
        workdir.mkdir(parents=True, exist_ok=True)
        tag = f"kube-scheduler-{Path(config).stem}-{os.urandom(2).hex()}"
        kc = kubeconfig or cp.kubeconfig
        self.config_path = scheduler_config(config, workdir / f"{tag}.yaml", kc, leader_election, qps, burst,
                                            config_extra)
        argv = [CP_BIN / "kube-scheduler", "--config", self.config_path,
                "--authentication-kubeconfig", kc, "--authorization-kubeconfig", kc,
                "--secure-port", "0", f"-v={verbosity}"]
        super().__init__(argv, workdir / f"{tag}.log", scheduler_name, label or f"kube-scheduler ({Path(config).name})")

    def start(self, **_):
        return self.start_alive(0.3)


class ControllerManager(SchedulerProcess):
    """The real kube-controller-manager (build/controlplane, the control plane's module set)
    with only the controllers named: no kubelet runs here, so the node lifecycle controller
    (which would taint every node not-ready) and the pod garbage collector stay off. No
    serving port, no leader election, the admin kubeconfig."""

    # The PV controller (binds claims and volumes, hands claims that wait for their first
    # consumer to their provisioner once a scheduler has selected a node), and what makes
    # owners real: Deployments, ReplicaSets, StatefulSets and the garbage collector.
    DEFAULT = ("persistentvolume-binder-controller", "deployment-controller", "replicaset-controller",
               "statefulset-controller", "garbage-collector-controller")

    def __init__(self, cp: ControlPlane, workdir: Path, controllers: Iterable[str] = DEFAULT,
                 extra_args: Iterable[str] = ()):
        workdir.mkdir(parents=True, exist_ok=True)
        tag = f"kube-controller-manager-{os.urandom(2).hex()}"
        argv = [CP_BIN / "kube-controller-manager", "--kubeconfig", cp.kubeconfig,
                "--controllers", ",".join(controllers), "--leader-elect=false", "--secure-port=0",
                "--use-service-account-credentials=false", "--concurrent-deployment-syncs=2", "-v=2",
                *extra_args]
        super().__init__(argv, workdir / f"{tag}.log", "", "kube-controller-manager")

    def start(self, **_):
        # Its informers sync before a controller acts; a Deployment made sooner waits for them.
        return self.start_alive(0.5)


class ZonalProvisioner(SchedulerProcess):
    """tests/controlplane/provisioner: a zonal dynamic provisioner on
    sig-storage-lib-external-provisioner that makes PVs and no storage."""

    def __init__(self, cp: ControlPlane, workdir: Path, name: str, topology_key: str,
                 delay: float = 0.0, refuse: bool = False):
        workdir.mkdir(parents=True, exist_ok=True)
        tag = f"test-provisioner-{os.urandom(2).hex()}"
        argv = [CP_BIN / "test-provisioner", "--kubeconfig", cp.kubeconfig, "--name", name,
                "--topology-key", topology_key, f"--delay={delay}s", f"--refuse={str(refuse).lower()}", "-v=2"]
        super().__init__(argv, workdir / f"{tag}.log", "", f"test-provisioner {name}")

    def start(self, **_):
        return self.start_alive(0.3)


def start_flavour(flavour: str, cp: ControlPlane, workdir: Path, **kw) -> SchedulerProcess:
    f = FLAVOURS[flavour]
    if f["kind"] == "tightpack":
        return TightpackScheduler(cp, workdir, config=f["config"], scheduler_name=f["scheduler_name"], **kw).start()
    return KubeScheduler(cp, workdir, config=f["config"], scheduler_name=f["scheduler_name"], **kw).start()


# --------------------------------------------------------------------------- Prometheus text

class Metrics:
    """Prometheus text format: samples as (name, labels dict, value)."""

    _line = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)')
    _label = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')

    def __init__(self, text: str):
        self.text = text
        self.samples = []
        for line in text.splitlines():
            if not line or line.startswith("#"):
                continue
            m = self._line.match(line)
            if not m:
                continue
            labels = dict(self._label.findall(m.group(3) or ""))
            try:
                value = float(m.group(4))
            except ValueError:
                continue
            self.samples.append((m.group(1), labels, value))

    def names(self) -> set:
        return {n for n, _, _ in self.samples}

    def has(self, family: str) -> bool:
        """A family is present as itself or as a histogram/summary (_bucket, _sum, _count)."""
        names = self.names()
        return any(n == family or n in (family + "_bucket", family + "_sum", family + "_count") for n in names)

    def get(self, name: str, **labels) -> list:
        return [(lab, v) for n, lab, v in self.samples if n == name
                and all(lab.get(k) == str(val) for k, val in labels.items())]

    def value(self, name: str, **labels) -> Optional[float]:
        found = self.get(name, **labels)
        return sum(v for _, v in found) if found else None


def ceil_div(a: float, b: float) -> int:
    return int(math.ceil(a / b))
