"""Move, don't evict, on the control plane (`tightpack schedule --move-dask-workers`,
docs/packing.md): the real dask-kubernetes operator (its kopf controller from PyPI) and the real
kube-controller-manager make the pods; tightpack's leader plans a move with core's planner and
carries it out through the operator. alice's two workers sit alone on one node, bob's two fill
half of the other: the mover raises alice's worker group from 2 to 4, places the two new workers
beside bob's (never on the node being emptied), names that node `emptying` to alice's Dask
scheduler once they run, and lowers the group back to 2 once the scheduler says the node's
workers drained. Every failure path leaves the size alice asked for.

No kubelet runs here, and no Dask scheduler: the test plays both, and says where. A pod is made
Running by a status write, as a kubelet would; alice's tightpack-dask preload is played by asking
/dask/v1/nodes with her scheduler's service account token, as the preload does (drained= once the
answer names the node emptying). The operator's retirement then calls a Dask scheduler that does
not exist here, so the break's last step (the Deployments on the emptied node deleted) is
tightpack-dask's, tested with real distributed in tightpack-dask/tests/test_moves.py."""

from __future__ import annotations

import json

import pytest
from dask_operator import daskcluster, delete_all, install_crds
from harness import create_pod, node_of, pod_manifest, wait_for
from test_dask_nodes import allow_listing_pods
from test_secure_port import service_account_token

POOL = "cloud.google.com/gke-nodepool"
DASK = "/apis/kubernetes.dask.org/v1"
POOLS = """apiVersion: tightpack.io/v1alpha1
kind: NodePools
pools:
  - name: core
    minSize: 1
  - name: workers
    minSize: 0
    maxSize: 10
"""


@pytest.fixture
def dask_objects(cluster):
    yield
    delete_all(cluster.api, cluster.ns)


def workers_of(cluster, name: str) -> list:
    return [p for p in cluster.pods(f"dask.org/cluster-name={name},dask.org/component=worker")
            if not p["metadata"].get("deletionTimestamp")]


def run_as_kubelet(cluster, pods: list):
    """What a kubelet would write once the containers start: this control plane has none."""
    for p in pods:
        if node_of(p) and p.get("status", {}).get("phase") != "Running":
            cluster.api.patch(f"/api/v1/namespaces/{cluster.ns}/pods/{p['metadata']['name']}/status",
                              {"status": {"phase": "Running"}})


def replicas(cluster, group: str) -> int:
    return cluster.api.get(f"{DASK}/namespaces/{cluster.ns}/daskworkergroups/{group}")["spec"]["worker"]["replicas"]


def user_cluster(cluster, name: str, movable: bool) -> dict:
    spec = daskcluster(name, 2, {"requests": {"cpu": "1", "memory": "1Gi"}},
                       {"schedulerName": "tightpack", "nodeSelector": {POOL: "workers"}})
    spec["spec"]["scheduler"]["spec"]["nodeSelector"] = {POOL: "core"}
    if movable:
        # The operator copies the DaskCluster's labels to its worker group, and the group's to
        # every worker it makes (tightpack_dask.kubernetes.allow_moves sets the same label).
        spec["metadata"].setdefault("labels", {})["tightpack.io/move"] = "true"
    cluster.api.post(f"{DASK}/namespaces/{cluster.ns}/daskclusters", spec)
    return spec


def hold(cluster, name: str, node: str, cpu: str):
    """A pod bound by name, no scheduler involved: it keeps room on `node` while the operator's
    workers are placed, so that they land where the test needs them."""
    m = pod_manifest(name, cpu=cpu, memory="64Mi")
    m["spec"]["nodeName"] = node
    create_pod(cluster.api, cluster.ns, m)


def setup(cluster, schedulers, tmp_path, extra=()):
    """alice's 2 workers alone on mv-b, bob's 2 on mv-a (half of it); tightpack with moves."""
    api, ns = cluster.api, cluster.ns
    install_crds(api)
    cluster.node("mv-core", cpu="8", memory="32Gi", labels={POOL: "core"})
    for n in ("mv-a", "mv-b"):
        cluster.node(n, cpu="4", memory="16Gi", labels={POOL: "workers"})
    pools = tmp_path / "pools.yaml"
    pools.write_text(POOLS)
    schedulers.controller_manager()
    operator = schedulers.dask_operator()
    tp = schedulers.tightpack(identity="mover", extra_args=[
        "--pools", str(pools), "--move-dask-workers", "--move-interval", "2s", *extra])
    tp.wait_ready()
    hold(cluster, "hold-b", "mv-b", "3500m")
    user_cluster(cluster, "bob", movable=False)
    wait_for(lambda: len(workers_of(cluster, "bob")) == 2 and
             all(node_of(p) == "mv-a" for p in workers_of(cluster, "bob")), 90,
             "bob's 2 workers on mv-a")
    cluster.delete_pod("hold-b")
    hold(cluster, "hold-a", "mv-a", "1500m")
    user_cluster(cluster, "alice", movable=True)
    wait_for(lambda: len(workers_of(cluster, "alice")) == 2 and
             all(node_of(p) == "mv-b" for p in workers_of(cluster, "alice")), 90,
             "alice's 2 workers on mv-b")
    for p in workers_of(cluster, "alice"):
        assert p["metadata"]["labels"].get("tightpack.io/move") == "true", p["metadata"]["labels"]
    run_as_kubelet(cluster, workers_of(cluster, "alice") + workers_of(cluster, "bob"))
    token = service_account_token(api, ns, "alice-scheduler")
    allow_listing_pods(api, ns, "alice-scheduler")
    return tp, operator, token


def ask(tp, ns: str, token: str, drained: str = "") -> dict:
    """alice's preload's question (tightpack_dask.hints)."""
    path = f"/dask/v1/nodes?namespace={ns}&cluster=alice" + (f"&drained={drained}" if drained else "")
    status, body = tp.get(path, token=token)
    assert status == 200, (status, body)
    return {n["name"]: n for n in json.loads(body)["nodes"]}


def test_a_move_raises_places_drains_and_lowers_alices_workers(cluster, schedulers, dask_objects, tmp_path):
    api, ns = cluster.api, cluster.ns
    tp, operator, token = setup(cluster, schedulers, tmp_path)
    ask(tp, ns, token)
    # Nothing moves while mv-a is kept full by hold-a; once it goes, mv-b can empty.
    cluster.delete_pod("hold-a")
    try:
        wait_for(lambda: replicas(cluster, "alice-default") == 4, 30,
                 "the mover to raise alice-default from 2 to 4")
        state = json.loads(api.get(f"{DASK}/namespaces/{ns}/daskclusters/alice")["metadata"]["annotations"]
                           ["tightpack.io/move-state"])
        assert (state["node"], state["from"], state["to"], state["phase"]) == ("mv-b", 2, 4, "making"), state
        new = wait_for(lambda: (lambda w: w if len(w) == 4 and all(node_of(p) for p in w) else None)(
            workers_of(cluster, "alice")), 90, "the operator's 2 new workers bound")
    except BaseException:
        print(tp.log_tail(40), operator.describe(40))
        raise
    where = sorted(node_of(p) for p in new)
    assert where == ["mv-a", "mv-a", "mv-b", "mv-b"], where  # the replacements beside bob's
    assert replicas(cluster, "bob-default") == 2
    # Not emptying until the replacements run.
    assert "emptying" not in ask(tp, ns, token)["mv-b"]
    run_as_kubelet(cluster, new)
    wait_for(lambda: ask(tp, ns, token)["mv-b"].get("emptying") is True, 20,
             "mv-b answered as emptying to alice's scheduler")
    assert "emptying" not in ask(tp, ns, token)["mv-a"]
    # bob's scheduler is told nothing of alice's move.
    # alice's preload drained mv-b's workers: the group goes back to the size she asked for.
    ask(tp, ns, token, drained="mv-b")
    wait_for(lambda: replicas(cluster, "alice-default") == 2, 20, "alice-default lowered back to 2")
    state = json.loads(api.get(f"{DASK}/namespaces/{ns}/daskclusters/alice")["metadata"]["annotations"]
                       ["tightpack.io/move-state"])
    assert state["phase"] == "breaking", state
    metrics = tp.metrics()
    assert metrics.value("tightpack_moves_started_total") == 1
    assert metrics.value("tightpack_moves_in_flight") == 1
    # While mv-b empties, no pod this scheduler places goes there: mv-a is full (bob's 2 workers
    # and alice's 2 new ones), so a late pod waits, told why as a cordon would tell it.
    m = pod_manifest("late", cpu="100m", memory="64Mi", scheduler_name="tightpack")
    m["spec"]["nodeSelector"] = {POOL: "workers"}
    create_pod(api, ns, m)

    def refused():
        conditions = cluster.get_pod("late").get("status", {}).get("conditions") or []
        return next((c["message"] for c in conditions if c.get("reason") == "Unschedulable"), None)
    message = wait_for(refused, 20, "late to be refused")
    assert "1 node(s) were unschedulable" in message and "1 Insufficient cpu" in message, message
    assert not node_of(cluster.get_pod("late"))


def raised(cluster, tp, ns, token):
    ask(tp, ns, token)
    cluster.delete_pod("hold-a")
    wait_for(lambda: replicas(cluster, "alice-default") == 4, 30, "the mover to raise alice-default to 4")


def move_state(cluster):
    annotations = cluster.api.get(f"{DASK}/namespaces/{cluster.ns}/daskclusters/alice")["metadata"].get(
        "annotations") or {}
    return annotations.get("tightpack.io/move-state")


def test_replacements_that_never_run_are_undone(cluster, schedulers, dask_objects, tmp_path):
    tp, _, token = setup(cluster, schedulers, tmp_path, extra=["--move-make-timeout", "6s"])
    raised(cluster, tp, cluster.ns, token)
    # Bound, but never Running (no kubelet write this time): the raise is undone.
    wait_for(lambda: replicas(cluster, "alice-default") == 2, 30, "the raise undone after the make timeout")
    wait_for(lambda: move_state(cluster) is None, 10, "the move's state removed")
    assert "replacements did not run within 6 s" in tp.log_text()
    assert tp.metrics().value("tightpack_moves_ended_total", result="abandoned") == 1
    assert "emptying" not in ask(tp, cluster.ns, token).get("mv-b", {})


def test_the_size_alice_sets_mid_move_stands(cluster, schedulers, dask_objects, tmp_path):
    tp, _, token = setup(cluster, schedulers, tmp_path)
    raised(cluster, tp, cluster.ns, token)
    cluster.api.patch(f"{DASK}/namespaces/{cluster.ns}/daskworkergroups/alice-default/scale",
                      {"spec": {"replicas": 5}})  # what KubeCluster.scale(5) sends (kr8s' scale)
    wait_for(lambda: "its size was set to 5" in tp.log_text(), 20, "the move abandoned for alice's size")
    assert move_state(cluster) is None
    assert replicas(cluster, "alice-default") == 5
    # mv-b is open again: with mv-a full (bob's 2, alice's 2 new), her fifth worker goes there.
    placed = wait_for(lambda: (lambda w: w if len(w) == 5 else None)(
        [p for p in workers_of(cluster, "alice") if node_of(p)]), 60, "alice's 5 workers bound")
    assert sorted(node_of(p) for p in placed) == ["mv-a", "mv-a", "mv-b", "mv-b", "mv-b"]


def test_a_new_leader_undoes_a_move_the_old_one_began(cluster, schedulers, dask_objects, tmp_path):
    tp, _, token = setup(cluster, schedulers, tmp_path)
    raised(cluster, tp, cluster.ns, token)
    assert json.loads(move_state(cluster))["by"] == "mover"
    tp.kill9()
    tp2 = schedulers.tightpack(identity="mover-2", extra_args=[
        "--pools", str(tmp_path / "pools.yaml"), "--move-dask-workers", "--move-interval", "2s"])
    tp2.wait_ready()
    wait_for(lambda: replicas(cluster, "alice-default") == 2 and move_state(cluster) is None, 40,
             "the new leader to undo the raise")
    assert "undone, begun by mover (making)" in tp2.log_text()
