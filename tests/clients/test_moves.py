"""Moves the in-cluster scheduler would plan, held against cluster-autoscaler's own loop.

A DaskHub's worker pool after a day's work, its workers made by the dask-kubernetes operator's
own code (clients.py) for users who opted in (`tightpack.io/move: "true"` on the DaskCluster,
which the operator copies to every worker) and protected from eviction (`safe-to-evict:
"false"`), beside what keeps a node: a worker of a user who did not opt in, a dask-gateway
worker, the scale-down-disabled annotation, the pool's min size. `tightpack moves` plans which
nodes to empty (make before break) and where each worker's replacement goes; the scenario once
the moves are made is then given to cluster-autoscaler's own loop
(`cluster-autoscaler-reference`, tests/conformance), which must find every node the plan empties
unneeded (so it would remove it), and to `tightpack autoscale`, which must agree with it. The
plan must never put a replacement on a node being emptied or overfill one (the reference's
utilization at most 1), and never add a node."""

from __future__ import annotations

import copy
import json
import random
import subprocess
from pathlib import Path

import autoscale_judge
import cluster
from conftest import TIGHTPACK
from test_autoscaling import operator_workers, worker_pool
from test_scheduling import gateway_pods

OPT_IN = {"tightpack.io/move": "true"}
PROTECTED = {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}
SHAPES = ({"requests": {"cpu": "1", "memory": "4Gi"}, "limits": {"cpu": "1", "memory": "4Gi"}},
          {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"cpu": "2", "memory": "8Gi"}})
SEEDS = range(1, 13)


def key(pod: dict) -> str:
    return f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"


def cpu_of(pod: dict) -> int:
    cpu = pod["spec"]["containers"][0]["resources"]["requests"]["cpu"]
    return round(float(cpu) * 1000)


def pool_after_a_day(seed: int) -> tuple[dict, set]:
    """A worker pool of 4 to 9 nodes (8 cpus each) with the workers of 3 to 6 users' clusters
    scattered as adapt() leaves them; returns the scenario and the nodes something keeps."""
    r = random.Random(seed)
    nodes, group = worker_pool()
    while len(nodes) < r.randint(4, 9):
        extra = copy.deepcopy(nodes[0])
        extra["metadata"]["name"] = f"worker-c-{len(nodes)}"
        extra["metadata"]["labels"]["kubernetes.io/hostname"] = extra["metadata"]["name"]
        nodes.append(extra)
    group["nodes"] = [n["metadata"]["name"] for n in nodes]
    group["targetSize"] = len(nodes)
    group["minSize"] = r.choice([0, 0, 1, len(nodes) - 2])
    free = {n["metadata"]["name"]: 8000 for n in nodes}
    pods, replicasets, kept = [], [], set()

    def bind(pod: dict) -> None:
        room = [n for n, f in free.items() if f >= cpu_of(pod)]
        node = r.choice(room)
        free[node] -= cpu_of(pod)
        pods.append(cluster.bound(pod, node))

    for i in range(r.randint(3, 6)):
        opted = r.random() < 0.8
        made, rss = operator_workers(
            f"user{i}-dask", r.randint(1, 6), resources=r.choice(SHAPES),
            worker_annotations=PROTECTED, **({"cluster_labels": OPT_IN} if opted else {}))
        replicasets += rss
        for p in made:
            bind(p)
            if not opted:
                kept.add(pods[-1]["spec"]["nodeName"])
    if r.random() < 0.5:
        worker = gateway_pods(f"gw{seed}", 1, {"worker_cores": 1, "worker_memory": 4})[1]
        bind(worker)
        kept.add(pods[-1]["spec"]["nodeName"])
    if r.random() < 0.5:
        n = r.choice(nodes)
        n["metadata"].setdefault("annotations", {})[
            "cluster-autoscaler.kubernetes.io/scale-down-disabled"] = "true"
        kept.add(n["metadata"]["name"])
    scenario = {"nodes": nodes, "pods": pods, "nodeGroups": [group], "pending": [],
                "expander": "least-waste", "scaleDown": True, "replicaSets": replicasets}
    return scenario, kept


def after(scenario: dict, moves: list) -> dict:
    """The scenario once the moves are made and broken: each replacement (the worker's spec,
    as its Deployment would make it again) bound where the plan says, the old worker gone."""
    to = {p["pod"]: p["to"] for m in moves for p in m["pods"]}
    out = copy.deepcopy(scenario)
    kept, made = [], []
    for pod in out["pods"]:
        if key(pod) not in to:
            kept.append(pod)
            continue
        replacement = copy.deepcopy(pod)
        replacement["metadata"]["name"] += "-moved"
        replacement["spec"]["nodeName"] = to[key(pod)]
        made.append(replacement)
    out["pods"] = kept + made
    return out


def run(*cmd, stdin: str) -> dict:
    out = subprocess.run([str(c) for c in cmd], input=stdin, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[0])


def test_every_node_a_plan_empties_is_one_cluster_autoscaler_would_remove(ca_reference, tmp_path: Path):
    emptied = 0
    for seed in SEEDS:
        scenario, kept = pool_after_a_day(seed)
        plan = run(TIGHTPACK, "moves", "-", stdin=json.dumps(scenario))
        assert "error" not in plan, plan
        names = {n["metadata"]["name"] for n in scenario["nodes"]}
        where = {key(p): p["spec"]["nodeName"] for p in scenario["pods"]}
        planned = [m["node"] for m in plan["moves"]]
        assert len(planned) == len(set(planned)) <= 4, plan
        for m in plan["moves"]:
            assert m["node"] not in kept, (seed, m)
            on_node = {k for k, n in where.items() if n == m["node"]}
            assert {p["pod"] for p in m["pods"]} == on_node, (seed, m)
            for p in m["pods"]:
                assert p["to"] in names and p["to"] not in planned, (seed, m)
        moved = after(scenario, plan["moves"])
        path = tmp_path / f"moves-{seed}.json"
        path.write_text(json.dumps(moved))
        theirs = run(ca_reference, "-", stdin=json.dumps(moved))
        down = theirs["scaleDown"]
        for node in planned:
            assert node in down["unneeded"], (
                f"seed {seed}: cluster-autoscaler keeps {node} after the moves: "
                f"{down['blocked'].get(node)} (replay: {ca_reference} {path})")
        for node, use in down["utilization"].items():
            assert max(use["cpu"], use["memory"]) <= 1.0, (seed, node, use)
        ours = run(TIGHTPACK, "autoscale", "-", stdin=json.dumps(moved))
        difference = autoscale_judge.first_difference(autoscale_judge.view(theirs),
                                                      autoscale_judge.view(ours))
        assert difference is None, f"seed {seed}: {difference} (replay: tightpack autoscale {path})"
        emptied += len(planned)
    assert emptied >= len(SEEDS) // 2, f"only {emptied} nodes emptied over {len(SEEDS)} pools"


def test_a_pool_at_its_min_size_is_not_emptied(ca_reference):
    """Two nodes each with one opted-in worker, a pool whose min size lets one go: the plan
    empties one (cluster-autoscaler's own rule, confirmed by the engine's scale-down)."""
    nodes, group = worker_pool()
    nodes, group["nodes"] = nodes[:3], group["nodes"][:3]
    group["minSize"], group["targetSize"] = 2, 3
    pods, replicasets = [], []
    for i, node in enumerate(("worker-a-0", "worker-a-1")):
        made, rss = operator_workers(f"solo{i}-dask", 1, worker_annotations=PROTECTED,
                                     cluster_labels=OPT_IN)
        pods.append(cluster.bound(made[0], node))
        replicasets += rss
    big, rss = operator_workers("big-dask", 4, worker_annotations=PROTECTED)
    pods += [cluster.bound(p, "worker-b-0") for p in big]
    replicasets += rss
    scenario = {"nodes": nodes, "pods": pods, "nodeGroups": [group], "pending": [],
                "expander": "least-waste", "scaleDown": True, "replicaSets": replicasets}
    plan = run(TIGHTPACK, "moves", "-", stdin=json.dumps(scenario))
    assert len(plan["moves"]) == 1, plan
    down = run(ca_reference, "-", stdin=json.dumps(after(scenario, plan["moves"])))["scaleDown"]
    assert plan["moves"][0]["node"] in down["unneeded"], down


def test_nothing_moves_while_a_pod_waits_or_for_users_who_did_not_opt_in():
    scenario, _ = pool_after_a_day(1)
    waiting = copy.deepcopy(scenario)
    made, _ = operator_workers("late-dask", 1)
    waiting["pending"] = [made[0]]
    plan = run(TIGHTPACK, "moves", "-", stdin=json.dumps(waiting))
    assert plan == {"moves": [], "pending": 1}, plan
    nobody = copy.deepcopy(scenario)
    for pod in nobody["pods"]:
        pod["metadata"].get("labels", {}).pop("tightpack.io/move", None)
    assert run(TIGHTPACK, "moves", "-", stdin=json.dumps(nobody))["moves"] == []
    everybody = dict(nobody, moves={"workers": "all"})
    assert run(TIGHTPACK, "moves", "-", stdin=json.dumps(everybody))["moves"] != []
