"""The seed scenario: users' Dask workers arrive and leave on 20 nodes of 8 CPU; how many
nodes do 2 users × 10 workers keep busy afterwards, under kube-scheduler's default
profile, zero-to-jupyterhub's user-scheduler and `tightpack schedule`?

100 users × 10 workers of 1 CPU are created in waves of 4 users (each wave bound before
the next), and after each wave users are deleted, picked at random with a fixed seed,
until 8 remain, so deletions leave holes all over the cluster; then every user left is
deleted (shuffled), and 2 users × 10 workers are created one by one. The cluster is then
empty but for those 20 pods, so the fewest nodes possible is ceil(20 / 8) = 3.

Each scheduler gets a fresh set of nodes and its own namespace on the session's control
plane, and runs alone. Each test asserts on its own run; the tightpack test also compares
with the others' counts when they ran in the same session.
"""

from __future__ import annotations

import json
import random
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from harness import CONFIG_DIR, FLAVOURS, TIGHTPACK, ceil_div, nodes_in_use, per_node_counts, pod_manifest, wait_for

SEED = 20260611
NODES, NODE_CPU, NODE_MEMORY = 20, 8, "64Gi"
USERS, WORKERS, WAVE, KEEP = 100, 10, 4, 8
FINAL_USERS = 2
WORKER_CPU, WORKER_MEMORY = "1", "1Gi"
MINIMUM = ceil_div(FINAL_USERS * WORKERS * int(WORKER_CPU), NODE_CPU)  # 3
# Client rate limits above the default (qps 50) so that the three runs fit the suite's
# time budget; placement does not depend on them.
QPS, BURST = 500, 1000

RESULTS: dict = {}


def user_name(i: int) -> str:
    return f"user-{i:03d}"


def worker(user: str, k: int, scheduler_name: str) -> dict:
    # dask-kubernetes labels a cluster's pods with dask.org/cluster-name: TightpackCohort's cohort.
    return pod_manifest(f"{user}-worker-{k}", cpu=WORKER_CPU, memory=WORKER_MEMORY,
                        scheduler_name=scheduler_name,
                        labels={"app": "dask-worker", "user": user, "dask.org/cluster-name": user})


def run_seed(cluster, sched, scheduler_name: str) -> dict:
    api, ns = cluster.api, cluster.ns
    for i in range(NODES):
        cluster.node(f"seed-{i:02d}", cpu=str(NODE_CPU), memory=NODE_MEMORY)
    rng = random.Random(SEED)
    active: list = []
    in_use_after_waves: list = []
    started = time.monotonic()

    def create(pod):
        api.post(f"/api/v1/namespaces/{ns}/pods", pod)

    with ThreadPoolExecutor(4) as pool:
        for wave in range(0, USERS, WAVE):
            users = [user_name(i) for i in range(wave, min(wave + WAVE, USERS))]
            list(pool.map(create, [worker(u, k, scheduler_name) for u in users for k in range(WORKERS)]))
            pods = cluster.wait_bound(count=(len(active) + len(users)) * WORKERS, timeout=90)
            in_use_after_waves.append(nodes_in_use(pods))
            active += users
            while len(active) > KEEP:
                victim = active.pop(rng.randrange(len(active)))
                api.delete(f"/api/v1/namespaces/{ns}/pods",
                           params={"labelSelector": f"user={victim}", "gracePeriodSeconds": "0"})
    rng.shuffle(active)
    for victim in active:
        api.delete(f"/api/v1/namespaces/{ns}/pods",
                   params={"labelSelector": f"user={victim}", "gracePeriodSeconds": "0"})
    wait_for(lambda: not cluster.pods(), 30, "every user's workers to be gone", diagnostics=cluster.describe_pods)
    # Let the scheduler's watch catch up with the deletions before the last users arrive.
    time.sleep(2)
    snapshot = cluster.snapshot_list()
    final = [worker(user_name(USERS + u), k, scheduler_name) for u in range(FINAL_USERS) for k in range(WORKERS)]
    for pod in final:  # one by one, in order
        api.post(f"/api/v1/namespaces/{ns}/pods", pod)
    pods = cluster.wait_bound(count=len(final), timeout=60)
    assert sched.alive(), f"{sched.label} exited during the run:{sched.describe(40)}"
    return {"nodes_in_use": nodes_in_use(pods), "per_node": per_node_counts(pods),
            "snapshot": snapshot, "pod": final[0], "seconds": time.monotonic() - started,
            "churn_mean": sum(in_use_after_waves) / len(in_use_after_waves)}


def predict(tmp_path, snapshot: dict, pod: dict, replicas: int, config, scheduler_name: str) -> dict:
    cluster_file, pod_file = tmp_path / "snapshot.json", tmp_path / "pod.json"
    cluster_file.write_text(json.dumps(snapshot))
    pod_file.write_text(json.dumps(dict(pod, metadata=dict(pod["metadata"], namespace="seed"))))
    argv = [str(TIGHTPACK), "predict", "--cluster", str(cluster_file), "--pod", str(pod_file),
            "--replicas", str(replicas), "--config", str(config), "--scheduler-name", scheduler_name,
            "--output", "json"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"{' '.join(argv)} exited {r.returncode}:\n{r.stdout[-2000:]}{r.stderr[-2000:]}"
    out = json.loads(r.stdout)
    counts: dict = {}
    for p in out["placements"]:
        assert p["node"], f"predict left {p['pod']} unplaced: {out.get('unschedulable')}"
        counts[p["node"]] = counts.get(p["node"], 0) + 1
    return dict(sorted(counts.items()))


def report(label: str, result: dict):
    print(f"\nseed scenario, {label}: {result['nodes_in_use']} nodes in use for "
          f"{FINAL_USERS}×{WORKERS} workers (minimum {MINIMUM}); per node {result['per_node']}; "
          f"during the churn {result['churn_mean']:.1f} nodes in use after a wave on average; "
          f"run took {result['seconds']:.0f} s")


def test_seed_kube_scheduler_default(cluster, schedulers):
    sched = schedulers.flavour("kube-default", qps=QPS, burst=BURST)
    result = run_seed(cluster, sched, FLAVOURS["kube-default"]["scheduler_name"])
    RESULTS["kube-scheduler default"] = result["nodes_in_use"]
    report("kube-scheduler default profile", result)
    assert MINIMUM <= result["nodes_in_use"] <= NODES
    # LeastAllocated spreads: the scenario tells packing from spreading.
    assert result["nodes_in_use"] > MINIMUM, "the default profile packed: the scenario does not discriminate"


def test_seed_kube_scheduler_z2jh(cluster, schedulers, tmp_path):
    sched = schedulers.flavour("kube-z2jh", qps=QPS, burst=BURST)
    name = FLAVOURS["kube-z2jh"]["scheduler_name"]
    result = run_seed(cluster, sched, name)
    RESULTS["kube-scheduler z2jh"] = result["nodes_in_use"]
    report("kube-scheduler z2jh user-scheduler", result)
    assert MINIMUM <= result["nodes_in_use"] <= NODES
    if "kube-scheduler default" in RESULTS:
        assert result["nodes_in_use"] <= RESULTS["kube-scheduler default"]
    # kube-scheduler breaks ties at random, so only the shape of the prediction must match.
    predicted = predict(tmp_path, result["snapshot"], result["pod"], FINAL_USERS * WORKERS,
                        CONFIG_DIR / "z2jh-user-scheduler.yaml", name)
    print(f"tightpack predict (z2jh profile) on the snapshot: {predicted}")
    assert sorted(result["per_node"].values()) == sorted(predicted.values())


def test_seed_tightpack(cluster, schedulers, tmp_path):
    sched = schedulers.flavour("tightpack", qps=QPS, burst=BURST)
    result = run_seed(cluster, sched, "tightpack")
    RESULTS["tightpack"] = result["nodes_in_use"]
    report("tightpack schedule", result)
    print(f"seed scenario, nodes in use: {RESULTS}")
    assert result["nodes_in_use"] == MINIMUM
    for other, count in RESULTS.items():
        assert result["nodes_in_use"] <= count, f"tightpack used more nodes than {other}: {RESULTS}"
    # What the sidebar predicts is what the scheduler does: same engine, same snapshot.
    predicted = predict(tmp_path, result["snapshot"], result["pod"], FINAL_USERS * WORKERS,
                        CONFIG_DIR / "tightpack.yaml", "tightpack")
    assert result["per_node"] == predicted, (
        f"tightpack bound {result['per_node']}, tightpack predict said {predicted}")
