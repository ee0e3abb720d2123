"""Load benchmark of `tightpack schedule` against the real kube-scheduler (bench/scheduler_load.sh).

A fresh control plane (tests/controlplane), N nodes, then for each run: M pending pods of one
spec created while no scheduler runs (threads, keep-alive connections), the scheduler started,
and the time until every pod is bound measured from a watch; the scheduler's peak RSS is
VmHWM from /proc/PID/status, read while it runs and just before it is stopped. The pods are
deleted between runs, so each scheduler starts on the same empty nodes.

Runs: tightpack (config/tightpack.yaml) and kube-scheduler (config/z2jh-user-scheduler.yaml),
each at kube-scheduler's default client rate limits (qps 50, burst 100) and without a limit
(clientConnection qps -1: client-go builds no rate limiter for a negative qps, and
kube-scheduler 1.37 only validates that burst is not negative). tightpack-polled is
tightpack-unlimited with --pollers clients (20 by default) asking /snapshot in a loop with the
shared snapshot token, as the notebook servers' sidebar extensions would, without waiting
between requests and without If-None-Match: the cost of serving the sidebar while scheduling.
tightpack-polled-etag is the same with each client sending the ETag of the last snapshot it
read in If-None-Match, as the sidebar's server does (sources/scheduler.py), still without
waiting between requests. tightpack-polled-kept is tightpack-polled-etag with each client
keeping its connection between requests (HTTP/1.1 keep-alive, as the sidebar's server does
since kept.py): one TLS handshake per client instead of one per request.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "scheduler"))

from harness import (  # noqa: E402
    CONFIG_DIR,
    TIGHTPACK,
    UNVERIFIED_TLS,
    ApiError,
    ControlPlane,
    KubeScheduler,
    TightpackScheduler,
    create_namespace,
    http_request,
    node_manifest,
    node_status,
    pod_manifest,
)

RUNS = {  # kind, qps, burst, clients polling /snapshot, how they ask ("", "etag", "kept")
    "tightpack-default": ("tightpack", 50, 100, 0, ""),
    "tightpack-unlimited": ("tightpack", -1, 100, 0, ""),
    "tightpack-polled": ("tightpack", -1, 100, None, ""),  # None: --pollers
    "tightpack-polled-etag": ("tightpack", -1, 100, None, "etag"),
    "tightpack-polled-kept": ("tightpack", -1, 100, None, "kept"),
    "kube-scheduler-default": ("kube", 50, 100, 0, ""),
    "kube-scheduler-unlimited": ("kube", -1, 100, 0, ""),
}
DEFAULT_RUNS = ["tightpack-default", "tightpack-unlimited", "kube-scheduler-default", "kube-scheduler-unlimited"]


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time of a running process, from /proc/PID/stat."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
        return float("nan")


class Pollers:
    """`count` threads, each from its own loopback address, asking /snapshot again as soon as
    each answer is read; with `mode` "etag", each sends the ETag of the last snapshot it read in
    If-None-Match; with "kept", it also keeps its connection between requests."""

    def __init__(self, sched, count: int, token: str, mode: str = ""):
        self.sched, self.token, self.mode = sched, token, mode
        self.connections = 0  # opened by the clients
        self.answers = {}  # status -> count
        self.bytes = 0
        self.lock = threading.Lock()
        self.stop_flag = threading.Event()
        # each from an address of its own, as users' servers in their own pods are (the daemon
        # paces /snapshot per client address)
        self.threads = [threading.Thread(target=self.run, args=(f"127.0.1.{1 + i}",), daemon=True)
                        for i in range(count)]
        for t in self.threads:
            t.start()

    def run(self, source: str):
        etag = None
        kept = None
        while not self.stop_flag.is_set():
            headers = {"If-None-Match": etag} if self.mode and etag else None
            if self.mode == "kept":
                kept, opened, (status, answer_headers, body) = self.kept_get(kept, source, headers)
            else:
                opened = 1
                status, answer_headers, body = http_request(self.sched.base + "/snapshot", 30, self.token,
                                                            headers, source=source)
            if status == 200:
                etag = answer_headers.get("ETag") or etag
            with self.lock:
                self.answers[status] = self.answers.get(status, 0) + 1
                self.bytes += len(body)
                self.connections += opened
            if status == 0:
                time.sleep(0.1)  # not answering yet
        if kept is not None:
            kept.close()

    def kept_get(self, conn, source: str, headers):
        """(the connection to keep or None, connections opened, (status, headers, body))."""
        opened = 0
        if conn is None:
            conn = http.client.HTTPSConnection("127.0.0.1", self.sched.port, timeout=30,
                                               source_address=(source, 0), context=UNVERIFIED_TLS)
            opened = 1
        try:
            conn.request("GET", "/snapshot", headers={"Authorization": f"Bearer {self.token}", **(headers or {})})
            resp = conn.getresponse()
            answer = resp.status, dict(resp.headers), resp.read().decode(errors="replace")
        except (ConnectionError, socket.timeout, OSError, http.client.HTTPException):
            conn.close()
            return None, opened, (0, {}, "")
        if resp.will_close:
            conn.close()
            conn = None
        return conn, opened, answer

    def stop(self) -> dict:
        self.stop_flag.set()
        for t in self.threads:
            t.join(timeout=40)
        return dict(self.answers)


class BindWatch:
    """Counts the pods of a namespace that got a node, from a watch (no objects kept)."""

    def __init__(self, api, namespace: str):
        self.api, self.ns = api, namespace
        listing = api.get(f"/api/v1/namespaces/{namespace}/pods", params={"limit": "1"})
        self.rv = listing["metadata"]["resourceVersion"]
        self.bound: set = set()
        self.first = self.last = None
        self.stop_flag = threading.Event()
        self.conn = None
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop_flag.is_set():
            q = urllib.parse.urlencode({"watch": "1", "resourceVersion": self.rv, "allowWatchBookmarks": "true",
                                        "timeoutSeconds": "3600"})
            try:
                self.conn = http.client.HTTPSConnection(self.api.host, self.api.port, context=self.api.context)
                self.conn.request("GET", f"/api/v1/namespaces/{self.ns}/pods?{q}",
                                  headers={"Authorization": f"Bearer {self.api.token}"})
                resp = self.conn.getresponse()
                while not self.stop_flag.is_set():
                    line = resp.readline()
                    if not line:
                        break
                    ev = json.loads(line)
                    obj = ev["object"]
                    self.rv = obj.get("metadata", {}).get("resourceVersion", self.rv)
                    if ev["type"] in ("ADDED", "MODIFIED") and obj.get("spec", {}).get("nodeName"):
                        name = obj["metadata"]["name"]
                        if name not in self.bound:
                            now = time.monotonic()
                            self.bound.add(name)
                            self.first = self.first or now
                            self.last = now
            except Exception:  # noqa: BLE001
                if self.stop_flag.is_set():
                    return
                time.sleep(0.5)

    def stop(self):
        self.stop_flag.set()
        try:
            if self.conn and self.conn.sock:
                self.conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def parallel(threads: int, fn, items):
    with ThreadPoolExecutor(threads) as pool:
        for _ in pool.map(fn, items):
            pass


def create_nodes(api, count: int, cpu: str, memory: str, threads: int):
    def one(i):
        name = f"bench-node-{i:05d}"
        created = api.post("/api/v1/nodes", node_manifest(name, labels={"bench": "1"}), retry_seconds=30)
        created["status"] = node_status(cpu=cpu, memory=memory, pods=110)
        api.put(f"/api/v1/nodes/{name}/status", created, retry_seconds=30)
    parallel(threads, one, range(count))


def create_pods(api, ns: str, count: int, scheduler_name: str, cpu: str, memory: str, threads: int):
    def one(i):
        try:
            api.post(f"/api/v1/namespaces/{ns}/pods",
                     pod_manifest(f"load-{i:05d}", cpu=cpu, memory=memory, scheduler_name=scheduler_name,
                                  labels={"app": "load"}), retry_seconds=30)
        except ApiError as e:
            if e.status != 409:
                raise
    parallel(threads, one, range(count))


def delete_pods(api, ns: str):
    api.delete(f"/api/v1/namespaces/{ns}/pods", params={"gracePeriodSeconds": "0"}, retry_seconds=60)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if not api.get(f"/api/v1/namespaces/{ns}/pods", params={"limit": "1"})["items"]:
            return
        time.sleep(1)
    raise RuntimeError(f"pods of {ns} still there after 10 minutes")


def has_schedule_command() -> bool:
    import subprocess
    if not TIGHTPACK.exists():
        return False
    try:
        r = subprocess.run([str(TIGHTPACK), "schedule", "--help"], capture_output=True, text=True, timeout=30)
    except OSError:
        return False
    return "unknown command" not in r.stdout + r.stderr


def run_one(cp, api, label: str, kind: str, qps: float, burst: int, pollers: int, mode: str, args,
            workdir: Path) -> dict:
    ns = f"bench-{label}"
    create_namespace(api, ns)
    snapshot_token = os.urandom(16).hex()
    if kind == "tightpack":
        scheduler_name = "tightpack"
        token_file = workdir / f"snapshot-token-{label}"
        token_file.write_text(snapshot_token + "\n")
        sched = TightpackScheduler(cp, workdir, config=CONFIG_DIR / "tightpack.yaml", identity=f"bench-{label}",
                                   qps=qps, burst=burst, extra_args=["--snapshot-token-file", str(token_file)])
    else:
        scheduler_name = "jupyterhub-user-scheduler"
        sched = KubeScheduler(cp, workdir, config=CONFIG_DIR / "z2jh-user-scheduler.yaml",
                              scheduler_name=scheduler_name, qps=qps, burst=burst, verbosity=1,
                              label=f"kube-scheduler {label}")
    t = time.monotonic()
    create_pods(api, ns, args.pods, scheduler_name, args.pod_cpu, args.pod_memory, args.threads)
    bench_cpu = time.process_time()
    print(f"  {label}: {args.pods} pending pods created in {time.monotonic() - t:.1f} s", flush=True)
    watch = BindWatch(api, ns)
    started = time.monotonic()
    sched.start(wait_healthy=False) if kind == "tightpack" else sched.start()
    result = {"run": label, "qps": "unlimited" if qps < 0 else f"{qps:g}/{burst}", "pods": args.pods,
              "pollers": pollers}
    polling = Pollers(sched, pollers, snapshot_token, mode) if pollers else None
    try:
        deadline = started + args.timeout
        last_report = started
        while len(watch.bound) < args.pods and time.monotonic() < deadline:
            if not sched.alive():
                raise RuntimeError(f"{sched.label} exited:{sched.describe(30)}")
            sched.sample_rss()
            time.sleep(0.5)
            if time.monotonic() - last_report > 30:
                last_report = time.monotonic()
                print(f"  {label}: {len(watch.bound)}/{args.pods} bound after {last_report - started:.0f} s",
                      flush=True)
        sched.sample_rss()
        result["scheduler_cpu_s"] = process_cpu_seconds(sched.pid)
    finally:
        if polling:
            result["snapshot_answers"] = polling.stop()
            result["snapshot_mib"] = polling.bytes / 2**20
            result["snapshot_connections"] = polling.connections
        result["clients_cpu_s"] = time.process_time() - bench_cpu
        rc = sched.stop()
        watch.stop()
    bound = len(watch.bound)
    result.update({
        "bound": bound,
        "seconds": (watch.last - started) if watch.last else None,
        "first_bind_s": (watch.first - started) if watch.first else None,
        "peak_rss_mib": sched.peak_rss_kib / 1024,
        "exit": rc,
    })
    result["pods_per_s"] = bound / result["seconds"] if result["seconds"] else 0.0
    result["pods_per_s_after_first"] = (bound / (watch.last - watch.first)
                                        if watch.first and watch.last and watch.last > watch.first else 0.0)
    if bound < args.pods:
        result["note"] = f"timed out after {args.timeout} s"
    t = time.monotonic()
    delete_pods(api, ns)
    print(f"  {label}: {bound}/{args.pods} bound in {result['seconds'] or 0:.1f} s, peak RSS "
          f"{result['peak_rss_mib']:.0f} MiB; pods deleted in {time.monotonic() - t:.1f} s", flush=True)
    if polling:
        print(f"  {label}: /snapshot answers {result['snapshot_answers']}, "
              f"{result['snapshot_mib']:.0f} MiB served", flush=True)
    return result


def table(results: list, args) -> str:
    lines = [f"{args.nodes} nodes ({args.node_cpu} CPU, {args.node_memory}), {args.pods} pending pods "
             f"({args.pod_cpu} CPU, {args.pod_memory}) created before the scheduler starts",
             "",
             "| run | client qps/burst | /snapshot pollers | bound | start → all bound (s) | pods/s "
             "| pods/s after 1st bind | 1st bind (s) | peak RSS (MiB) | scheduler CPU (s) | this script's CPU (s) "
             "| /snapshot answers |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        if "skipped" in r:
            lines.append(f"| {r['run']} | – | – | skipped: {r['skipped']} | | | | | | | | |")
            continue
        f = lambda v, fmt: "–" if v is None else format(v, fmt)  # noqa: E731
        answers = ", ".join(f"{n}× {s}" for s, n in sorted(r.get("snapshot_answers", {}).items()))
        if r.get("snapshot_connections"):
            answers += f" over {r['snapshot_connections']} connections"
        lines.append(f"| {r['run']} | {r['qps']} | {r.get('pollers') or 0} "
                     f"| {r['bound']}/{r['pods']}{' (' + r['note'] + ')' if r.get('note') else ''} "
                     f"| {f(r['seconds'], '.1f')} | {f(r['pods_per_s'], '.0f')} | {f(r['pods_per_s_after_first'], '.0f')} "
                     f"| {f(r['first_bind_s'], '.1f')} | {f(r['peak_rss_mib'], '.0f')} "
                     f"| {f(r.get('scheduler_cpu_s'), '.1f')} | {f(r.get('clients_cpu_s'), '.1f')} | {answers or '–'} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--node-cpu", default="8")
    ap.add_argument("--node-memory", default="32Gi")
    ap.add_argument("--pod-cpu", default="1")
    ap.add_argument("--pod-memory", default="1Gi")
    ap.add_argument("--threads", type=int, default=8, help="concurrent creating connections")
    ap.add_argument("--timeout", type=float, default=1200, help="seconds per run until every pod is bound")
    ap.add_argument("--runs", default=",".join(DEFAULT_RUNS), help=f"comma-separated, of {', '.join(RUNS)}")
    ap.add_argument("--pollers", type=int, default=20, help="clients polling /snapshot in tightpack-polled")
    ap.add_argument("--workdir", default=str(ROOT / "build" / "scheduler-load"))
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    cp_dir = workdir / f"controlplane-{os.getpid()}"
    cp = ControlPlane(cp_dir)
    results = []
    try:
        t = time.monotonic()
        cp.start()
        api = cp.api()
        print(f"control plane at {cp.url} ({cp_dir}) in {time.monotonic() - t:.1f} s", flush=True)
        t = time.monotonic()
        create_nodes(api, args.nodes, args.node_cpu, args.node_memory, args.threads)
        print(f"{args.nodes} nodes created in {time.monotonic() - t:.1f} s", flush=True)
        tightpack_ok = has_schedule_command()
        for label in [r.strip() for r in args.runs.split(",") if r.strip()]:
            kind, qps, burst, pollers, mode = RUNS[label]
            pollers = args.pollers if pollers is None else pollers
            if kind == "tightpack" and not tightpack_ok:
                print(f"  {label}: skipped, {TIGHTPACK} has no `schedule` command", flush=True)
                results.append({"run": label, "skipped": "no `tightpack schedule`"})
                continue
            results.append(run_one(cp, api, label, kind, qps, burst, pollers, mode, args, workdir))
    finally:
        cp.stop()
    print()
    print(table(results, args))
    print("\nkube-scheduler scores a sample of the feasible nodes at this size (percentageOfNodesToScore "
          "adaptive: 50% - nodes/125, at least 5%, at least 100 nodes); logs and configs in " + str(workdir))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0 if all(r.get("bound", 0) == r.get("pods", 0) for r in results if "skipped" not in r) else 1


if __name__ == "__main__":
    sys.exit(main())
