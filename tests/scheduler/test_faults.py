"""`tightpack schedule` under faults (docs/scheduler.md: leader election, watch cache,
binding, SIGTERM): the leader killed, the API server restarted, a node deleted while pods
are bound to it, a pod deleted while queued, and a clean SIGTERM."""

from __future__ import annotations

import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from harness import ApiError, Watch, ca_is_unschedulable, create_namespace, node_of, pod_manifest, wait_for

LEASE_DURATION = 15  # s, docs/scheduler.md
LEASE_NAME = "tightpack"


def lease_namespace(cluster) -> str:
    name = ("lease-" + cluster.ns)[:63].rstrip("-")
    create_namespace(cluster.api, name)
    return name


def leader_election(namespace: str) -> dict:
    return {"leaderElect": True, "resourceNamespace": namespace, "resourceName": LEASE_NAME}


def lease(api, namespace: str) -> dict:
    return api.get(f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{LEASE_NAME}")


def holder(api, namespace: str) -> str:
    try:
        return lease(api, namespace)["spec"].get("holderIdentity") or ""
    except ApiError as e:
        if e.status == 404:
            return ""
        raise


class PodStream:
    """Creates a pod every `interval` seconds in a thread until stopped; an API outage only
    delays it (creations are retried)."""

    def __init__(self, cluster, prefix: str, interval: float = 0.1, **pod_kw):
        self.cluster, self.prefix, self.interval, self.pod_kw = cluster, prefix, interval, pod_kw
        self.created: list = []  # (name, monotonic time)
        self.errors: list = []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        i = 0
        while not self._stop.is_set():
            name = f"{self.prefix}-{i:04d}"
            try:
                self.cluster.api.post(f"/api/v1/namespaces/{self.cluster.ns}/pods",
                                      pod_manifest(name, **self.pod_kw), retry_seconds=30)
                self.created.append((name, time.monotonic()))
                i += 1
            except ApiError as e:
                if e.status == 409:  # created by a retried request
                    self.created.append((name, time.monotonic()))
                    i += 1
                else:
                    self.errors.append(e)
            except Exception as e:  # noqa: BLE001
                self.errors.append(e)
            self._stop.wait(self.interval)

    def stop(self) -> list:
        self._stop.set()
        self.thread.join(timeout=40)
        return [n for n, _ in self.created]


def scheduled_event_counts(cluster) -> dict:
    counts: dict = {}
    for e in cluster.events("Scheduled"):
        name = e["regarding"]["name"]
        counts[name] = counts.get(name, 0) + 1
    return counts


def assert_bound_once(cluster, watch: Watch, names: list):
    """Each pod shows a single node over the whole watch, and at most one Scheduled event."""
    nodes_seen: dict = {}
    for _, _, obj in watch.snapshot():
        if node_of(obj):
            nodes_seen.setdefault(obj["metadata"]["name"], set()).add(node_of(obj))
    twice = {n: s for n, s in nodes_seen.items() if len(s) > 1}
    assert not twice, f"pods seen on two nodes: {twice}"
    counts = scheduled_event_counts(cluster)
    doubles = {n: c for n, c in counts.items() if c > 1}
    assert not doubles, f"pods with more than one Scheduled event: {doubles}"
    missing = [n for n in names if n not in nodes_seen]
    assert not missing or watch.gaps, f"bound pods the watch never saw bound: {missing[:10]}"


def test_leader_killed_the_other_replica_takes_over(cluster, schedulers):
    api = cluster.api
    lease_ns = lease_namespace(cluster)
    for i in range(4):
        cluster.node(f"le-{i}", cpu="32", memory="128Gi")
    le = leader_election(lease_ns)
    a = schedulers.tightpack(identity="replica-a", leader_election=le)
    b = schedulers.tightpack(identity="replica-b", leader_election=le)
    leader_id = wait_for(lambda: holder(api, lease_ns) in ("replica-a", "replica-b") and holder(api, lease_ns),
                         LEASE_DURATION + 10, f"one replica to hold the lease {lease_ns}/{LEASE_NAME}")
    leader, follower = (a, b) if leader_id == a.identity else (b, a)
    # Every replica is ready (caches synced); only the leader says it leads.
    leader.wait_ready()
    follower.wait_ready()
    assert leader.metrics().value("leader_election_master_status") == 1
    assert follower.metrics().value("leader_election_master_status") == 0
    transitions = lease(api, lease_ns)["spec"].get("leaseTransitions", 0)

    watch = Watch(api, f"/api/v1/namespaces/{cluster.ns}/pods")
    stream = PodStream(cluster, "stream", interval=0.1, cpu="100m", memory="128Mi", scheduler_name="tightpack")
    try:
        wait_for(lambda: sum(1 for p in cluster.pods() if node_of(p)) >= 10, 30,
                 "the leader to bind 10 pods", diagnostics=cluster.describe_pods)
        killed_at = time.monotonic()
        leader.kill9()
        wait_for(lambda: holder(api, lease_ns) == follower.identity, LEASE_DURATION + 15,
                 f"{follower.identity} to take the lease after {leader.identity} was killed")
        takeover = time.monotonic() - killed_at
        print(f"\ntakeover {takeover:.1f} s after kill -9 of the leader")
        # The lease runs out 15 s after the last renewal; the follower retries every 2 s
        # (client-go adds up to 20 % jitter).
        assert takeover <= LEASE_DURATION + 7, f"takeover took {takeover:.1f} s"
        taken_at = time.monotonic()
        time.sleep(3)
        names = stream.stop()
        after = [n for n, t in stream.created if t > taken_at]
        assert after, "no pod was created after the takeover"
        pods = cluster.wait_bound(count=len(names), timeout=40)
        existing = {n["metadata"]["name"] for n in cluster.nodes()}
        assert {node_of(p) for p in pods} <= existing
        # The new leader emits the events of what it binds.
        wait_for(lambda: all(n in scheduled_event_counts(cluster) for n in after), 20,
                 "Scheduled events for the pods created after the takeover")
        assert follower.metrics().value("leader_election_master_status") == 1
        assert lease(api, lease_ns)["spec"].get("leaseTransitions", 0) > transitions
        assert_bound_once(cluster, watch, names)
    finally:
        stream.stop()
        watch.stop()


def test_apiserver_restart_mid_run(cluster, schedulers):
    for i in range(2):
        cluster.node(f"rs-{i}", cpu="32", memory="128Gi")
    tp = schedulers.tightpack()
    tp.wait_ready()
    before = [f"before-{i:02d}" for i in range(30)]
    for name in before:
        cluster.pod(name, cpu="500m", memory="256Mi", scheduler_name="tightpack")
    cluster.cp.restart_apiserver()  # kill -9 while the scheduler is binding, then start again
    after = [f"after-{i:02d}" for i in range(10)]
    for name in after:
        cluster.pod(name, cpu="500m", memory="256Mi", scheduler_name="tightpack", retry_seconds=30)
    pods = cluster.wait_bound(count=len(before) + len(after), timeout=60)
    assert {p["metadata"]["name"] for p in pods} == set(before) | set(after)
    assert tp.alive(), tp.describe(40)
    tp.wait_ready()
    doubles = {n: c for n, c in scheduled_event_counts(cluster).items() if c > 1}
    assert not doubles, f"pods with more than one Scheduled event: {doubles}"


def test_node_deleted_while_pods_are_bound_to_it(cluster, schedulers):
    api = cluster.api
    for i in range(3):
        cluster.node(f"dn-{i}", cpu="8", memory="64Gi")
    tp = schedulers.tightpack()
    tp.wait_ready()
    watch = Watch(api, f"/api/v1/namespaces/{cluster.ns}/pods")
    names = [f"w-{i:02d}" for i in range(30)]
    try:
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda n: cluster.pod(n, cpu="1", memory="1Gi", scheduler_name="tightpack"), names))
            first = wait_for(lambda: next((node_of(o) for _, _, o in watch.snapshot() if node_of(o)), None),
                             30, "a first binding")
        api.delete(f"/api/v1/nodes/{first}")
        deleted_at = time.monotonic()

        def settled():
            pods = cluster.pods()
            return pods if len(pods) == len(names) and all(node_of(p) or ca_is_unschedulable(p) for p in pods) else None

        pods = wait_for(settled, 60, "every pod bound or PodScheduled=False/Unschedulable",
                        diagnostics=cluster.describe_pods)
        bound_at: dict = {}
        for t, _, obj in watch.snapshot():
            if node_of(obj):
                bound_at.setdefault(obj["metadata"]["name"], t)
        late = {p["metadata"]["name"]: round(bound_at.get(p["metadata"]["name"], 0) - deleted_at, 2)
                for p in pods if node_of(p) == first
                and bound_at.get(p["metadata"]["name"], deleted_at + 99) > deleted_at + 2.0}
        assert not late, f"bound to the deleted node {first} more than 2 s after its deletion: {late}"
        per_node: dict = {}
        for p in pods:
            if node_of(p) and node_of(p) != first:
                per_node[node_of(p)] = per_node.get(node_of(p), 0) + 1
        assert all(c <= 8 for c in per_node.values()), f"over-committed nodes: {per_node}"
        print(f"\nnode {first} deleted: {sum(1 for p in pods if node_of(p) == first)} pods were bound to it, "
              f"{per_node} elsewhere, {sum(1 for p in pods if not node_of(p))} pending")
        # None lost: the pending pods bind once room appears.
        cluster.node("dn-new", cpu="16", memory="64Gi")
        cluster.wait_bound(count=len(names), timeout=40)
        assert tp.alive()
    finally:
        watch.stop()


def test_pod_deleted_while_queued(cluster, schedulers):
    cluster.node("dq-node", cpu="4", memory="16Gi")
    tp = schedulers.tightpack()
    tp.wait_ready()
    # Deleted while in the unschedulable set.
    cluster.pod("unfit", cpu="64", memory="1Gi", scheduler_name="tightpack")
    cluster.wait_pod("unfit", ca_is_unschedulable, 30, "PodScheduled=False/Unschedulable")
    cluster.delete_pod("unfit")
    # Deleted right after creation: in the active queue, being scored or being bound.
    for i in range(40):
        cluster.pod(f"gone-{i:02d}", cpu="1", memory="256Mi", scheduler_name="tightpack")
        cluster.delete_pod(f"gone-{i:02d}")
    time.sleep(3)
    errors_before = tp.metrics().value("scheduler_schedule_attempts_total", result="error") or 0
    lines_before = len(tp.log_text().splitlines())
    time.sleep(5)
    assert tp.alive(), tp.describe(40)
    errors_after = tp.metrics().value("scheduler_schedule_attempts_total", result="error") or 0
    new_lines = tp.log_text().splitlines()[lines_before:]
    assert errors_after == errors_before, f"scheduling errors keep coming: {errors_before} -> {errors_after}"
    assert len(new_lines) < 50, "the log keeps growing while nothing happens:\n" + "\n".join(new_lines[-20:])
    pending = tp.metrics().get("scheduler_pending_pods")
    assert sum(v for _, v in pending) == 0, f"deleted pods still queued: {pending}"
    for name in ("later-0", "later-1"):
        cluster.pod(name, cpu="1", memory="256Mi", scheduler_name="tightpack")
    cluster.wait_bound(["later-0", "later-1"], timeout=20)


def test_sigterm_exits_0_and_releases_the_lease(cluster, schedulers):
    api = cluster.api
    lease_ns = lease_namespace(cluster)
    cluster.node("st-node", cpu="32", memory="128Gi")
    le = leader_election(lease_ns)
    a = schedulers.tightpack(identity="sigterm-a", leader_election=le)
    wait_for(lambda: holder(api, lease_ns) == "sigterm-a", LEASE_DURATION + 10, "sigterm-a to hold the lease")
    watch = Watch(api, f"/api/v1/namespaces/{cluster.ns}/pods")
    names = [f"t-{i:02d}" for i in range(20)]
    try:
        for name in names:
            cluster.pod(name, cpu="500m", memory="256Mi", scheduler_name="tightpack")
        wait_for(lambda: any(node_of(p) for p in cluster.pods()), 20, "a first binding")
        sent = time.monotonic()
        a.signal(signal.SIGTERM)
        rc = a.wait(20)
        took = time.monotonic() - sent
        assert rc is not None, f"still running 20 s after SIGTERM:{a.describe(30)}"
        assert rc == 0, f"exit status {rc} after SIGTERM:{a.describe(30)}"
        assert took <= 12, f"took {took:.1f} s to exit (binds in flight: at most 10 s)"
        spec = lease(api, lease_ns)["spec"]
        assert not spec.get("holderIdentity") or spec.get("leaseDurationSeconds") == 1, \
            f"lease not released: {spec}"
        # Released, so another replica takes over at once rather than after 15 s.
        started = time.monotonic()
        schedulers.tightpack(identity="sigterm-b", leader_election=le)
        wait_for(lambda: holder(api, lease_ns) == "sigterm-b", 8, "sigterm-b to take the released lease")
        print(f"\nexit {took:.1f} s after SIGTERM; sigterm-b leads {time.monotonic() - started:.1f} s after start")
        cluster.wait_bound(names, timeout=30)
        assert_bound_once(cluster, watch, names)
    finally:
        watch.stop()
