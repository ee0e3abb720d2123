"""Move, don't evict, for a dask-gateway cluster (`tightpack schedule --move-dask-workers`,
docs/packing.md): its worker count lives in its Dask scheduler, so tightpack's leader makes
and breaks a move through the cluster's tightpack-dask preload (tightpack_dask/gateway.py)
instead of writing any object: it answers the node to empty with `"replace": k` on
/dask/v1/nodes, places the k workers the gateway then makes on the nodes its plan chose (never
on the node being emptied), names the node `emptying` once they run, withdraws `replace` once
the preload says the node drained (the preload lowers the count; dask-gateway's heartbeat
retires the drained workers), and ends the move when the node has none left.

The worker pods are dask-gateway-server's own (its KubeController.make_pod, from PyPI, as
tests/clients builds them). What runs no real code here, and is played by the test: the
gateway's controller (it creates the pods make_pod makes and deletes the retired ones), the
kubelet (a status write makes a pod Running), and alice's Dask scheduler with its preload (the
test asks /dask/v1/nodes with her token and says what the preload would: `raised=`,
`drained=`, `refused=`, `adaptive=`). The preload's side, with dask-gateway's real scheduler
service and distributed's real Scheduler and Workers, is tightpack-dask/tests/
test_gateway_moves.py."""

from __future__ import annotations

import json
import subprocess
import time

import pytest
from dask_operator import CLIENTS_PYTHON
from harness import ROOT, create_pod, node_of, pod_manifest, wait_for
from test_dask_nodes import allow_listing_pods
from test_moves import POOL, POOLS
from test_secure_port import service_account_token

# dask-gateway-server's own pods for alice's cluster (1 core, 1 GiB workers), with the worker
# settings an administrator gives the gateway (gateway.backend.worker.extraPodConfig and
# KubeClusterConfig.worker_extra_pod_labels): tightpack's scheduler, the worker pool, moves on.
MAKE_PODS = """
import json, sys
sys.path.insert(0, sys.argv[1])
import clients
a = json.loads(sys.argv[2])
c = clients.gateway_config(namespace=a["ns"], worker_extra_pod_config={
    "schedulerName": "tightpack", "nodeSelector": {a["pool"]: "workers"}})
c.KubeClusterConfig.worker_extra_pod_labels = {"tightpack.io/move": "true"}
made = clients.gateway_cluster(c, "alice", {"worker_cores": 1, "worker_memory": 1}, a["n"], namespace=a["ns"])
print(json.dumps(made))
"""


def gateway_pods(ns: str, n: int) -> dict:
    r = subprocess.run([str(CLIENTS_PYTHON), "-c", MAKE_PODS, str(ROOT / "tests" / "clients"),
                        json.dumps({"ns": ns, "n": n, "pool": POOL})],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout)


class Gateway:
    """alice's dask-gateway cluster: its scheduler pod, and worker pods as the gateway's
    controller makes them (handle_scale_up: owned by the scheduler pod)."""

    def __init__(self, cluster):
        self.cluster = cluster
        made = gateway_pods(cluster.ns, 6)
        self.name = made["daskcluster"]["metadata"]["name"]
        self.template = made["workers"][0]
        scheduler = made["scheduler"]
        for key in ("uid", "ownerReferences"):
            scheduler["metadata"].pop(key, None)
        scheduler["spec"]["nodeName"] = "mv-core"
        self.scheduler = create_pod(cluster.api, cluster.ns, scheduler)
        self.made = 0

    def make_worker(self, node: str | None = None) -> str:
        pod = json.loads(json.dumps(self.template))
        meta = pod["metadata"]
        meta["name"] = f"dask-worker-{self.name}-{self.made:05d}"
        meta.pop("uid", None)
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": self.scheduler["metadata"]["name"],
                                    "uid": self.scheduler["metadata"]["uid"]}]
        if node:
            pod["spec"]["nodeName"] = node
        self.made += 1
        create_pod(self.cluster.api, self.cluster.ns, pod)
        return meta["name"]

    def workers(self) -> list:
        return [p for p in self.cluster.pods(f"gateway.dask.org/cluster={self.name},"
                                             "app.kubernetes.io/component=dask-worker")
                if not p["metadata"].get("deletionTimestamp")]

    def run(self):
        """What the kubelet would write once the containers start."""
        for p in self.workers():
            if node_of(p) and p.get("status", {}).get("phase") != "Running":
                self.cluster.api.patch(f"/api/v1/namespaces/{self.cluster.ns}/pods/{p['metadata']['name']}/status",
                                       {"status": {"phase": "Running"}})


@pytest.fixture
def alice(cluster, schedulers, tmp_path):
    """alice's 2 gateway workers alone on mv-b; bob's pod fills half of mv-a; tightpack with moves;
    her preload's token."""
    api, ns = cluster.api, cluster.ns
    cluster.node("mv-core", cpu="8", memory="32Gi", labels={POOL: "core"})
    for n in ("mv-a", "mv-b"):
        cluster.node(n, cpu="4", memory="16Gi", labels={POOL: "workers"})
    pools = tmp_path / "pools.yaml"
    pools.write_text(POOLS)
    tp = schedulers.tightpack(identity="mover", extra_args=[
        "--pools", str(pools), "--move-dask-workers", "--move-interval", "2s"])
    tp.wait_ready()
    bob = pod_manifest("bob", cpu="2", memory="1Gi")
    bob["spec"]["nodeName"] = "mv-a"
    create_pod(api, ns, bob)
    gateway = Gateway(cluster)
    for _ in range(2):
        gateway.make_worker("mv-b")
    gateway.run()
    token = service_account_token(api, ns, "alice-gateway")
    allow_listing_pods(api, ns, "alice-gateway")
    return tp, gateway, token


def ask(tp, ns: str, gateway: Gateway, token: str, **said) -> dict:
    """alice's preload's question (tightpack_dask.hints), saying what it did."""
    path = f"/dask/v1/nodes?namespace={ns}&cluster={gateway.name}" + "".join(f"&{k}={v}" for k, v in said.items())
    status, body = tp.get(path, token=token)
    assert status == 200, (status, body)
    return {n["name"]: n for n in json.loads(body)["nodes"]}


def test_a_move_replaces_alices_gateway_workers_and_empties_the_node(cluster, alice):
    tp, gateway, token = alice
    ns = cluster.ns
    try:
        answer = wait_for(lambda: (lambda a: a if a["mv-b"].get("replace") else None)(ask(tp, ns, gateway, token)),
                          30, "the mover to ask alice's scheduler for replacements")
        assert answer["mv-b"]["replace"] == 2 and "emptying" not in answer["mv-b"]
        # Her preload raises the count; the gateway makes two workers; tightpack places them.
        ask(tp, ns, gateway, token, raised="mv-b")
        new = [gateway.make_worker() for _ in range(2)]
        wait_for(lambda: all(node_of(cluster.get_pod(n)) for n in new), 30, "the 2 new workers bound")
        assert [node_of(cluster.get_pod(n)) for n in new] == ["mv-a", "mv-a"]  # beside bob, not on mv-b
        assert "emptying" not in ask(tp, ns, gateway, token, raised="mv-b")["mv-b"]  # not until they run
        gateway.run()
        wait_for(lambda: ask(tp, ns, gateway, token, raised="mv-b")["mv-b"].get("emptying"), 20,
                 "mv-b named emptying once the replacements run")
        # Drained: `replace` withdrawn, the node still emptying while the heartbeat retires.
        answer = wait_for(lambda: (lambda a: a if "replace" not in a["mv-b"] else None)(
            ask(tp, ns, gateway, token, raised="mv-b", drained="mv-b")), 20, "replace withdrawn once drained")
        assert answer["mv-b"]["emptying"] is True
        # The preload lowers the count; the heartbeat retires mv-b's workers; the gateway deletes them.
        ask(tp, ns, gateway, token, drained="mv-b")
        for p in gateway.workers():
            if node_of(p) == "mv-b":
                cluster.delete_pod(p["metadata"]["name"])
        wait_for(lambda: "moved off mv-b: the node has none of its workers" in tp.log_text(), 20, "the move to end")
    except BaseException:
        print(tp.log_tail(40))
        raise
    assert sorted(node_of(p) for p in gateway.workers()) == ["mv-a", "mv-a"]
    assert "mv-b" not in ask(tp, ns, gateway, token)
    metrics = tp.metrics()
    assert metrics.value("tightpack_moves_ended_total", result="done") == 1
    assert metrics.value("tightpack_moves_in_flight") == 0


def replace_asked(tp, ns, gateway, token, **said):
    return wait_for(lambda: ask(tp, ns, gateway, token, **said)["mv-b"].get("replace"), 30,
                    "the mover to ask for replacements")


def test_a_preload_that_refuses_ends_the_move(cluster, alice):
    tp, gateway, token = alice
    replace_asked(tp, cluster.ns, gateway, token)
    ask(tp, cluster.ns, gateway, token, refused="mv-b")  # e.g. the cluster still scaling
    wait_for(lambda: "its Dask scheduler made no replacements" in tp.log_text(), 20, "the move abandoned")
    assert "replace" not in ask(tp, cluster.ns, gateway, token)["mv-b"]
    assert tp.metrics().value("tightpack_moves_ended_total", result="abandoned") == 1
    # mv-b is open again: a worker the gateway makes now may go there (mv-a has room for 1).
    late = gateway.make_worker()
    wait_for(lambda: node_of(cluster.get_pod(late)), 30, "the late worker bound")


def test_the_count_alice_sets_mid_move_ends_it(cluster, alice):
    tp, gateway, token = alice
    replace_asked(tp, cluster.ns, gateway, token)
    ask(tp, cluster.ns, gateway, token, raised="mv-b")
    time.sleep(3)  # the mover's next look (every 2 s) reads the raise; her preload asks every 15 s
    # cluster.scale(5): her preload forgets its raise and refuses the node (gateway.py).
    ask(tp, cluster.ns, gateway, token, refused="mv-b")
    wait_for(lambda: "its worker count was set meanwhile" in tp.log_text(), 20, "the move abandoned")
    assert "replace" not in ask(tp, cluster.ns, gateway, token)["mv-b"]


def test_an_adaptive_gateway_cluster_is_not_moved(cluster, alice):
    tp, gateway, token = alice
    for _ in range(4):  # over two plans (every 2 s), a question every 2 s as cluster.adapt() runs
        assert "replace" not in ask(tp, cluster.ns, gateway, token, adaptive="true")["mv-b"]
        time.sleep(2)
    assert tp.metrics().value("tightpack_moves_started_total") == 0
    assert replace_asked(tp, cluster.ns, gateway, token) == 2  # once it stops adapting, it moves
