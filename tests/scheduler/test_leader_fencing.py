"""One leader, really (docs/scheduler.md, leader election): a leader whose Lease requests
stall while its other requests still pass must stop writing within renewDeadline of its
last confirmed renewal, before the standby can take the lease, and must not write again.

Replica A reaches the API server through a fault proxy (tests/scheduler/fault_proxy.py, a
test double for a network that delays some requests and not others); replica B directly.
While pods arrive at a steady rate, the proxy holds back A's Lease requests. Every request
A still sends goes through the proxy, which records when: no binding, status patch or
deletion from A may leave after its lease stopped being confirmed, and across the takeover
no pod is bound twice."""

from __future__ import annotations

import time

from fault_proxy import FaultProxy, control_plane_files
from harness import Watch, node_of, wait_for
from test_faults import PodStream, assert_bound_once, holder, lease_namespace

LEASE, RENEW, RETRY = 6, 4, 1  # s: leaseDuration, renewDeadline, retryPeriod

WRITES = ("POST", "PATCH", "PUT", "DELETE")


def is_lease(method: str, path: str) -> bool:
    return "/leases" in path


def test_a_leader_cut_off_from_its_lease_stops_writing_before_the_standby_leads(cluster, schedulers, tmp_path):
    api = cluster.api
    lease_ns = lease_namespace(cluster)
    for i in range(4):
        cluster.node(f"fence-{i}", cpu="32", memory="128Gi")
    le = {"leaderElect": True, "resourceNamespace": lease_ns, "resourceName": "tightpack",
          "leaseDuration": f"{LEASE}s", "renewDeadline": f"{RENEW}s", "retryPeriod": f"{RETRY}s"}
    proxy = FaultProxy(cluster.cp.url, *control_plane_files(cluster.cp))
    try:
        via_proxy = cluster.cp.write_kubeconfig(tmp_path / "via-proxy.kubeconfig", server=proxy.url)
        a = schedulers.tightpack(identity="fence-a", leader_election=le, kubeconfig=str(via_proxy))
        wait_for(lambda: holder(api, lease_ns) == "fence-a", LEASE + 10, "fence-a to take the lease first")
        b = schedulers.tightpack(identity="fence-b", leader_election=le)
        a.wait_ready()
        b.wait_ready()

        watch = Watch(api, f"/api/v1/namespaces/{cluster.ns}/pods")
        stream = PodStream(cluster, "fence", interval=0.05, cpu="100m", memory="128Mi", scheduler_name="tightpack")
        try:
            wait_for(lambda: sum(1 for p in cluster.pods() if node_of(p)) >= 10, 30,
                     "fence-a to bind 10 pods", diagnostics=cluster.describe_pods)
            bindings_before = len(proxy.requests(lambda f: f.path.endswith("/binding")))
            assert bindings_before >= 10, "fence-a's bindings did not go through the proxy"

            stalled_at = time.monotonic()
            proxy.stall(is_lease)
            wait_for(lambda: holder(api, lease_ns) == "fence-b", LEASE + RENEW + 10,
                     "fence-b to take the lease from the stalled fence-a")
            taken_at = time.monotonic()
            print(f"\nfence-b leads {taken_at - stalled_at:.1f} s after fence-a's Lease requests stalled")
            # A deposed leader exits (status 1) once it knows.
            wait_for(lambda: not a.alive(), 10, "fence-a to exit after losing the lease")
            assert a.proc.returncode == 1, a.describe(30)
            time.sleep(2)
            names = stream.stop()
        finally:
            stream.stop()
            proxy.stall(None)

        # The last renewal A saw confirmed started before the stall, so its lease was valid
        # until at most stalled_at + RENEW; a request leaves the client before its deadline and
        # reaches the proxy a moment later.
        fence = stalled_at + RENEW + 0.5
        late = proxy.requests(lambda f: f.method in WRITES and not is_lease(f.method, f.path) and f.at > fence)
        assert not late, f"fence-a wrote after its lease was no longer confirmed: {late[:5]}"
        assert taken_at > fence - 0.5, "fence-b took the lease while fence-a's could still be valid"
        assert "not confirmed" in a.log_text() or "lost the lease" in a.log_text(), a.describe(30)

        # Every pod is placed once, by one leader or the other.
        pods = cluster.wait_bound(count=len(names), timeout=60)
        existing = {n["metadata"]["name"] for n in cluster.nodes()}
        assert {node_of(p) for p in pods} <= existing
        assert_bound_once(cluster, watch, names)
        watch.stop()
    finally:
        proxy.close()
