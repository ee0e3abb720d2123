"""Which of the real clients' Dask workers cluster-autoscaler may evict to remove a node.

A DaskHub's worker pool after a day's work, its pods made by the dask-kubernetes operator's
and dask-gateway-server's own code (clients.py), judged by `tightpack autoscale` and by
cluster-autoscaler's own loop (`cluster-autoscaler-reference`, tests/conformance); the two
must agree on what tests/conformance/autoscale_judge.py compares, and the reference's answer
must show the three cases the sidebar's advice is about: an operator worker (ReplicaSet-owned)
is movable, so its node is removable and the worker would be killed; the same with
`cluster-autoscaler.kubernetes.io/safe-to-evict: "false"` blocks; a gateway worker (owned by
its scheduler pod, without `controller: true`) is not replicated and blocks."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import autoscale_judge
import clients
import cluster
from conftest import TIGHTPACK
from test_scheduling import NS, gateway_pods

WORKER_TOLERATION = {"key": "k8s.dask.org_dedicated", "operator": "Equal", "value": "worker",
                     "effect": "NoSchedule"}
ONE = {"requests": {"cpu": "1", "memory": "4Gi"}, "limits": {"cpu": "1", "memory": "4Gi"}}


def worker_pool() -> tuple[list, dict]:
    nodes = []
    for name, zone in (("worker-a-0", 0), ("worker-a-1", 0), ("worker-b-0", 1), ("worker-b-1", 1)):
        n, _ = cluster.node(name, "dask-worker", cluster.ZONES[zone], "8", "52Gi",
                            labels={"k8s.dask.org/node-purpose": "worker"},
                            taints=(cluster.WORKER_TAINT,))
        nodes.append(n)
    template = copy.deepcopy(nodes[0])
    template["metadata"]["name"] = "dask-worker-template"
    group = {"name": "dask-worker", "minSize": 0, "maxSize": 20, "targetSize": len(nodes),
             "nodes": [n["metadata"]["name"] for n in nodes], "template": template,
             "machineType": "n2-highmem-8"}
    return nodes, group


def operator_workers(name: str, n: int, resources: dict = ONE, **kw) -> tuple[list, list]:
    made = clients.operator_cluster(name, NS, n, resources=resources,
                                    worker_tolerations=[WORKER_TOLERATION], **kw)
    replicasets, pods = [], []
    for deployment in made["workers"]:
        rs, pod = clients.replicaset_and_pod(deployment)
        replicasets.append(rs)
        pods.append(pod)
    return pods, replicasets


def test_which_dask_workers_block_scale_down(ca_reference, tmp_path: Path):
    nodes, group = worker_pool()
    alone, rs_alone = operator_workers("alice-dask", 1)
    busy, rs_busy = operator_workers("bob-dask", 6)
    protected, rs_protected = operator_workers(
        "carol-dask", 1,
        worker_annotations={"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"})
    gateway = gateway_pods("dave", 1, {"worker_cores": 2, "worker_memory": 8})[1:]
    pods = ([cluster.bound(alone[0], "worker-a-0"), cluster.bound(protected[0], "worker-a-1"),
             cluster.bound(gateway[0], "worker-b-0")]
            + [cluster.bound(p, "worker-b-1") for p in busy])
    scenario = {"nodes": nodes, "pods": pods, "nodeGroups": [group], "pending": [],
                "expander": "least-waste", "scaleDown": True,
                "replicaSets": rs_alone + rs_busy + rs_protected}
    path = tmp_path / "dask-workers-scale-down.jsonl"
    path.write_text(json.dumps({"scenario": scenario, "meta": {"id": "dask-workers"}}) + "\n")

    def run(*cmd):
        out = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        return json.loads(out.stdout.splitlines()[0])

    ours = run(TIGHTPACK, "autoscale", "--jsonl", path)
    theirs = run(ca_reference, "--jsonl", path)
    difference = autoscale_judge.first_difference(autoscale_judge.view(theirs),
                                                  autoscale_judge.view(ours))
    assert difference is None, f"{difference} (replay: tightpack autoscale --jsonl {path})"

    down = theirs["scaleDown"]
    assert "worker-a-0" in down["removable"], down  # the operator worker would be evicted
    assert down["blocked"]["worker-a-1"] == "BlockedByPod/NotSafeToEvictAnnotation", down
    assert down["blocked"]["worker-b-0"] == "BlockedByPod/NotReplicated", down
    assert down["blocked"]["worker-b-1"] == "NotUnderutilized", down
