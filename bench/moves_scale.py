#!/usr/bin/env python3
"""What planning moves costs as a pool grows: `tightpack moves` (the planner the daemon will
run once a minute) on a worker pool of N nodes of 8 cpus, each holding 1 to 6 one-cpu workers
of opted-in Dask clusters (`tightpack.io/move: "true"`, protected), at most 4 moves. Prints a
Markdown table: nodes, pods, candidates (nodes at most three quarters used), moves planned,
wall seconds (best of --runs, decoding included) and the process's peak resident MiB.

    python3 bench/moves_scale.py [--tightpack build/release/scheduler/tightpack] [--nodes 100,500,1000,2000]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def worker(name: str, cluster: str, node: str, cpu: int = 1) -> dict:
    return {
        "metadata": {
            "name": name, "namespace": "jhub",
            "labels": {"dask.org/component": "worker", "dask.org/cluster-name": cluster,
                       "tightpack.io/move": "true"},
            "annotations": {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"rs-{name}",
                                 "controller": True}],
        },
        "spec": {"nodeName": node, "containers": [
            {"name": "worker", "resources": {"requests": {"cpu": str(cpu), "memory": f"{4 * cpu}Gi"}}}]},
    }


def pool(nodes: int, fill: tuple[int, int], cpu: int = 1, seed: int = 1) -> dict:
    r = random.Random(seed)
    names = [f"worker-{i}" for i in range(nodes)]
    pods, replicasets = [], []
    for i, node in enumerate(names):
        for k in range(r.randint(*fill)):
            name = f"w-{i}-{k}"
            pods.append(worker(name, f"c{r.randint(0, nodes // 4)}", node, cpu))
            replicasets.append({"metadata": {"name": f"rs-{name}", "namespace": "jhub"}})
    return {
        "nodes": [{"metadata": {"name": n, "labels": {"cloud.google.com/gke-nodepool": "dask-workers"}},
                   "status": {"allocatable": {"cpu": "7910m", "memory": "57Gi", "pods": "110"}}}
                  for n in names],
        "pods": pods, "replicaSets": replicasets,
        "nodeGroups": [{"name": "dask-workers", "minSize": 0, "maxSize": 2 * nodes, "nodes": names}],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tightpack", default=str(ROOT / "build/release/scheduler/tightpack"))
    ap.add_argument("--nodes", default="100,500,1000,2000")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print("| pool | nodes | pods | candidates | moves | seconds (best of %d) | peak MiB |" % args.runs)
    print("|---|---:|---:|---:|---:|---:|---:|")
    # Roomy: 1 to 6 one-cpu workers a node, the first candidates' workers fit elsewhere. Four
    # cpus: one 4-cpu worker a node (the DaskHub day's shape that does not tile 7.91 cpus), so
    # every node is a candidate whose worker fits nowhere else: each costs the planner a trial.
    for label, fill, cpu in (("roomy", (1, 6), 1), ("4-cpu workers", (1, 1), 4)):
        for n in (int(x) for x in args.nodes.split(",")):
            measure(args, label, n, pool(n, fill, cpu))
    return 0


def measure(args, label: str, n: int, doc: dict) -> None:
    cpu = {p["spec"]["nodeName"]: 0 for p in doc["pods"]}
    for p in doc["pods"]:
        cpu[p["spec"]["nodeName"]] += int(p["spec"]["containers"][0]["resources"]["requests"]["cpu"]) * 1000
    candidates = sum(1 for used in cpu.values() if used * 100 <= 75 * 7910)
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(doc, f)
        f.flush()
        best, answer, peak = None, None, 0.0
        for _ in range(args.runs):
            start = time.perf_counter()
            # GNU time's %M: the process's own peak (a child's rusage would count the forked
            # Python too).
            run = subprocess.run(["/usr/bin/time", "-f", "%M", args.tightpack, "moves", f.name], check=True,
                                 capture_output=True, text=True)
            elapsed = time.perf_counter() - start
            best = elapsed if best is None else min(best, elapsed)
            peak = max(peak, int(run.stderr.strip().splitlines()[-1]) / 1024)
            answer = json.loads(run.stdout)
    print(f"| {label} | {n} | {len(doc['pods'])} | {candidates} | {len(answer['moves'])} | {best:.2f} "
          f"| {peak:.0f} |")

if __name__ == "__main__":
    raise SystemExit(main())
