"""Move, don't evict, on the control plane (`tightpack schedule --move-dask-workers`,
docs/packing.md): the real dask-kubernetes operator (its kopf controller from PyPI) and the real
kube-controller-manager make the pods; tightpack's leader plans a move with core's planner and
carries it out through the operator. alice's two workers sit alone on one node, bob's two fill
half of the other: the mover raises alice's worker group from 2 to 4, places the two new workers
beside bob's (never on the node being emptied), names that node `emptying` to alice's Dask
scheduler once they run, and lowers the group back to 2 once the scheduler says the node's
workers drained; the operator retires the two the scheduler names and deletes their
Deployments. Every failure path leaves the size alice asked for.

No kubelet runs here, so no container either; the test says where it stands in. A pod is made
Running by a status write, as a kubelet would. In the first test alice's Dask side is
distributed's real Scheduler with tightpack-dask's preload and real Workers named as the
operator names them, on their pods' nodes, in a process of their own (dask_side.py), and the
operator reaches that scheduler through a double of cluster DNS (dask_operator.py). In the
failure tests alice's preload is played by asking /dask/v1/nodes with her scheduler's service
account token, as the preload does."""

from __future__ import annotations

import json
import os
import subprocess
import threading

import pytest
from dask_operator import CLIENTS_PYTHON, daskcluster, delete_all, install_crds
from harness import ROOT, create_pod, node_of, pod_manifest, pod_summary, wait_for
from test_dask_nodes import allow_listing_pods
from test_jupyterhub import _serving_certificate
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


def setup(cluster, schedulers, tmp_path, extra=(), tls=(), addresses=None):
    """alice's 2 workers alone on mv-b, bob's 2 on mv-a (half of it); tightpack with moves."""
    api, ns = cluster.api, cluster.ns
    install_crds(api)
    cluster.node("mv-core", cpu="8", memory="32Gi", labels={POOL: "core"})
    for n in ("mv-a", "mv-b"):
        cluster.node(n, cpu="4", memory="16Gi", labels={POOL: "workers"})
    pools = tmp_path / "pools.yaml"
    pools.write_text(POOLS)
    schedulers.controller_manager()
    operator = schedulers.dask_operator(addresses)
    tp = schedulers.tightpack(identity="mover", extra_args=[
        "--pools", str(pools), "--move-dask-workers", "--move-interval", "2s", *tls, *extra])
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


def worker_name(pod: dict) -> str:
    """The name the operator gives the worker (its Deployment's, DASK_WORKER_NAME)."""
    env = pod["spec"]["containers"][0].get("env") or []
    return next(e["value"] for e in env if e["name"] == "DASK_WORKER_NAME")


class DaskSide:
    """alice's Dask scheduler and workers (dask_side.py), kept in step with her running pods."""

    def __init__(self, cluster, directory, tp, token: str, ca):
        self.cluster, self.dir = cluster, directory
        directory.mkdir()
        (directory / "token").write_text(token)
        (directory / "config.json").write_text(json.dumps({
            "namespace": cluster.ns, "cluster": "alice", "caFile": str(ca), "tokenFile": str(directory / "token"),
            "hintsUrl": f"{tp.base}/dask/v1/nodes?namespace={cluster.ns}&cluster=alice"}))
        self.log = open(directory / "dask-side.log", "w")
        self.proc = subprocess.Popen([str(CLIENTS_PYTHON), str(ROOT / "tests" / "scheduler" / "dask_side.py"),
                                      str(directory)], stdout=self.log, stderr=subprocess.STDOUT,
                                     env={**os.environ, "PYTHONPATH": str(ROOT / "tightpack-dask" / "src")})
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._sync, daemon=True)
        self.thread.start()

    def _sync(self):
        while not self.stopping.wait(0.5):
            try:
                running = {worker_name(p): node_of(p) for p in workers_of(self.cluster, "alice")
                           if node_of(p) and p.get("status", {}).get("phase") == "Running"}
            except Exception:  # noqa: BLE001 - the API restarting; the next round reads again
                continue
            tmp = self.dir / "workers.tmp"
            tmp.write_text(json.dumps(running))
            tmp.replace(self.dir / "workers.json")

    def state(self) -> dict:
        try:
            return json.loads((self.dir / "state.json").read_text())
        except (OSError, ValueError):
            return {}

    def compute(self, placement: dict):
        (self.dir / "compute.json").write_text(json.dumps(placement))

    def log_tail(self, n: int = 40) -> str:
        self.log.flush()
        return "\n".join((self.dir / "dask-side.log").read_text().splitlines()[-n:])

    def stop(self):
        self.stopping.set()
        self.thread.join(5)
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def ask(tp, ns: str, token: str, drained: str = "") -> dict:
    """alice's preload's question (tightpack_dask.hints)."""
    path = f"/dask/v1/nodes?namespace={ns}&cluster=alice" + (f"&drained={drained}" if drained else "")
    status, body = tp.get(path, token=token)
    assert status == 200, (status, body)
    return {n["name"]: n for n in json.loads(body)["nodes"]}


def test_a_move_raises_places_drains_and_lowers_alices_workers(cluster, schedulers, dask_objects, tmp_path):
    api, ns = cluster.api, cluster.ns
    ca, crt, key = _serving_certificate(tmp_path)
    addresses = tmp_path / "dask" / "addresses.json"
    tp, operator, token = setup(cluster, schedulers, tmp_path, addresses=addresses,
                                tls=["--tls-cert-file", str(crt), "--tls-private-key-file", str(key)])
    side = DaskSide(cluster, tmp_path / "dask", tp, token, ca)
    try:
        old = {worker_name(p): p["metadata"]["name"] for p in workers_of(cluster, "alice")}
        wait_for(lambda: set(side.state().get("workers", {})) == set(old), 60, "alice's 2 workers to join")
        # A megabyte computed on each: the data a move must not lose.
        side.compute({f"data-{i}": name for i, name in enumerate(sorted(old))})
        wait_for(lambda: side.state().get("states") == {"data-0": "memory", "data-1": "memory"}, 30,
                 "the data held on mv-b's workers")
        # Nothing moves while mv-a is kept full by hold-a; once it goes, mv-b can empty.
        cluster.delete_pod("hold-a")
        wait_for(lambda: replicas(cluster, "alice-default") == 4, 30, "the mover to raise alice-default to 4")
        state = json.loads(move_state(cluster))
        assert (state["node"], state["from"], state["to"], state["phase"]) == ("mv-b", 2, 4, "making"), state
        new = wait_for(lambda: (lambda w: w if len(w) == 4 and all(node_of(p) for p in w) else None)(
            workers_of(cluster, "alice")), 90, "the operator's 2 new workers bound")
        assert sorted(node_of(p) for p in new) == ["mv-a", "mv-a", "mv-b", "mv-b"]  # beside bob's
        assert "emptying" not in ask(tp, ns, token)["mv-b"]  # not until they run
        run_as_kubelet(cluster, new)
        # They join; mv-b is named emptying; the preload drains its idle workers and says so;
        # the group goes back to 2; the operator asks the scheduler to retire 2, and
        # tightpack-dask names the drained ones; their Deployments are deleted.
        wait_for(lambda: move_state(cluster) is None, 90, "the move to end")
        logged(tp, "moved off mv-b: the node has none of its workers")
    except BaseException:
        print(tp.log_tail(40), operator.describe(60), side.log_tail(60), sep="\n")
        raise
    finally:
        side.stop()
    assert replicas(cluster, "alice-default") == 2
    deployments = {d["metadata"]["name"] for d in api.list(f"/apis/apps/v1/namespaces/{ns}/deployments")
                   if d["metadata"]["labels"].get("dask.org/cluster-name") == "alice"
                   and d["metadata"]["labels"].get("dask.org/component") == "worker"}
    assert not deployments & set(old), f"the Deployments of mv-b's workers are left: {deployments}"
    assert len(deployments) == 2
    remaining = workers_of(cluster, "alice")
    assert sorted(node_of(p) for p in remaining) == ["mv-a", "mv-a"], [pod_summary(p) for p in remaining]
    # The data moved to the new workers, computed once.
    final = side.state()
    assert final["states"] == {"data-0": "memory", "data-1": "memory"}, final
    assert all(set(holders) <= {worker_name(p) for p in remaining} for holders in final["keys"].values()), final
    assert final["computed"] == {"data-0": 1, "data-1": 1}, final
    metrics = tp.metrics()
    assert metrics.value("tightpack_moves_ended_total", result="done") == 1
    assert metrics.value("tightpack_moves_in_flight") == 0
    assert replicas(cluster, "bob-default") == 2
    # mv-b is open again, and empty: cluster-autoscaler's to remove.
    assert not [p for p in cluster.pods() if node_of(p) == "mv-b" and not p["metadata"].get("deletionTimestamp")]


def raised(cluster, tp, ns, token):
    ask(tp, ns, token)
    cluster.delete_pod("hold-a")
    wait_for(lambda: replicas(cluster, "alice-default") == 4, 30, "the mover to raise alice-default to 4")


def logged(tp, text, timeout=10):
    """Waits for the daemon to log text: it logs a move's end after the API writes a test
    waits for (the group's size, the state annotation), so the line may lag them."""
    wait_for(lambda: text in tp.log_text(), timeout, f"the daemon to log {text!r}")


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
    logged(tp, "replacements did not run within 6 s")
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
    logged(tp2, "undone, begun by mover (making)")


def test_a_pod_that_waits_for_room_undoes_the_raise(cluster, schedulers, dask_objects, tmp_path):
    api, ns = cluster.api, cluster.ns
    tp, _, token = setup(cluster, schedulers, tmp_path)
    raised(cluster, tp, ns, token)
    wait_for(lambda: len([p for p in workers_of(cluster, "alice") if node_of(p)]) == 4, 60,
             "the 2 new workers bound")
    # mv-a is full (bob's 2, alice's 2 new) and mv-b closed to placements: a late pod is refused,
    # told why as a cordon would tell it ...
    m = pod_manifest("late", cpu="100m", memory="64Mi", scheduler_name="tightpack")
    m["spec"]["nodeSelector"] = {POOL: "workers"}
    create_pod(api, ns, m)

    def refused():
        conditions = cluster.get_pod("late").get("status", {}).get("conditions") or []
        return next((c["message"] for c in conditions if c.get("reason") == "Unschedulable"), None)
    message = wait_for(refused, 20, "late to be refused")
    assert "1 node(s) were unschedulable" in message and "1 Insufficient cpu" in message, message
    # ... and the move gives the node back: the raise undone, the pod placed there.
    wait_for(lambda: replicas(cluster, "alice-default") == 2, 20, "the raise undone")
    logged(tp, "a pod waits for room that the node could give")
    assert wait_for(lambda: node_of(cluster.get_pod("late")), 30, "late to be bound") == "mv-b"


def test_an_adaptive_cluster_is_not_moved(cluster, schedulers, dask_objects, tmp_path):
    tp, _, token = setup(cluster, schedulers, tmp_path)
    # What alice's KubeCluster.adapt(minimum=2, maximum=4) creates (dask-kubernetes' _adapt):
    # the operator's autoscaler would set the group's size within seconds of a raise.
    cluster.api.post(f"{DASK}/namespaces/{cluster.ns}/daskautoscalers", {
        "apiVersion": "kubernetes.dask.org/v1", "kind": "DaskAutoscaler",
        "metadata": {"name": "alice"}, "spec": {"cluster": "alice", "minimum": 2, "maximum": 4}})
    ask(tp, cluster.ns, token)
    cluster.delete_pod("hold-a")
    wait_for(lambda: "alice not moved off mv-b: it has a DaskAutoscaler" in tp.log_text(), 30,
             "the mover to refuse the adaptive cluster")
    assert replicas(cluster, "alice-default") == 2
    assert move_state(cluster) is None
    assert tp.metrics().value("tightpack_moves_started_total") == 0
