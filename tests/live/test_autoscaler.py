"""The real cluster-autoscaler grows and shrinks a kwok node group while tightpack schedules
into it: six one-cpu pods with no node for them make cluster-autoscaler add the two 4-cpu
nodes its estimator asks for (kwok makes them Ready, tightpack binds and packs the pods onto
them); the pods of one node deleted, that node is removed after the unneeded time. Before the
pods are created, the sidebar's question is asked of the engine on tightpack's /snapshot
(`tightpack predict --pools`): the pool it says cluster-autoscaler grows, and by how many
nodes, is what cluster-autoscaler then does."""

from __future__ import annotations

import json
import subprocess

from autoscaler import BOOT_SECONDS, GROUP_LABEL, install_provider_config, node_pools, template_node
from harness import TIGHTPACK, node_manifest, node_of, pod_manifest, resources, wait_for
from kwok import FAKE


def predicted_scale_up(tmp_path, snapshot: dict, pools: dict, pod: dict, replicas: int) -> dict:
    for name, doc in (("cluster.json", snapshot["cluster"]), ("pools.json", pools), ("pod.json", pod)):
        (tmp_path / name).write_text(json.dumps(doc))
    r = subprocess.run([str(TIGHTPACK), "predict", "--cluster", str(tmp_path / "cluster.json"),
                        "--pools", str(tmp_path / "pools.json"), "--pod", str(tmp_path / "pod.json"),
                        "--replicas", str(replicas), "--scheduler-name", "tightpack", "--output", "json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode in (0, 3), r.stdout + r.stderr
    return {g["pool"]: g["nodesAdded"] for g in json.loads(r.stdout)["scaleUp"]["pools"]}


def test_cluster_autoscaler_grows_and_shrinks_the_group_tightpack_fills(cluster, parts, tmp_path):
    api, ns = cluster.api, cluster.ns
    templates = [template_node("workers", 0, 3)]
    install_provider_config(api, ns, templates)
    parts.kwok()
    # The hub's own node, in no group cluster-autoscaler manages, tainted for the hub's pods
    # only (a GKE system pool's CriticalAddonsOnly): the workers cannot go there.
    core = node_manifest("core-0", labels={GROUP_LABEL: "core"},
                         taints=[{"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}])
    core["metadata"]["annotations"] = dict(FAKE)
    res = resources(cpu="4", memory="16Gi", pods=110)
    core["status"] = {"capacity": res, "allocatable": res}
    api.post("/api/v1/nodes", core)
    tp = parts.tightpack()
    parts.autoscaler(ns)

    # What the sidebar would say beforehand, from the snapshot it reads.
    tp.wait_ready()
    # The core pool is left to inference (its node's label; no max), as a user leaves a pool
    # she does not name: its template keeps the CriticalAddonsOnly taint, as
    # cluster-autoscaler's keeps it, so it grows for none of the workers.
    predicted = predicted_scale_up(tmp_path, tp.snapshot(), node_pools(templates),
                                   pod_manifest("w", cpu="1", memory="1Gi", scheduler_name="tightpack"), 6)
    assert predicted == {"workers": 2}, predicted

    names = [f"w-{i}" for i in range(6)]
    for name in names:
        api.post(f"/api/v1/namespaces/{ns}/pods", pod_manifest(name, cpu="1", memory="1Gi", scheduler_name="tightpack"))

    def group_nodes():
        return [n for n in api.list("/api/v1/nodes") if n["metadata"].get("labels", {}).get(GROUP_LABEL) == "workers"]

    bound = cluster.wait_bound(names, timeout=120)
    nodes = group_nodes()
    assert len(nodes) == predicted["workers"], [n["metadata"]["name"] for n in nodes]
    assert all(n["metadata"]["annotations"].get("kwok.x-k8s.io/node") == "fake" for n in nodes)
    per_node = {}
    for p in bound:
        per_node.setdefault(node_of(p), []).append(p["metadata"]["name"])
    assert sorted(len(v) for v in per_node.values()) == [2, 4], per_node  # tightpack packs

    # Empty the node with two pods: cluster-autoscaler removes it after the unneeded time.
    light = min(per_node, key=lambda n: len(per_node[n]))
    for name in per_node[light]:
        api.delete(f"/api/v1/namespaces/{ns}/pods/{name}", params={"gracePeriodSeconds": "0"})
    wait_for(lambda: [n["metadata"]["name"] for n in group_nodes()] == [max(per_node, key=lambda n: len(per_node[n]))],
             120, f"cluster-autoscaler to remove {light}",
             diagnostics=lambda: str([n["metadata"]["name"] for n in group_nodes()]))


def test_a_pod_waits_for_its_new_node_to_boot(cluster, parts):
    """A GPU pool's node takes minutes to boot: its template's tightpack.io/boot-seconds (12
    here) keeps a new node Ready=False (KubeletNotReady, as a kubelet registers it) that long
    after its creation. Meanwhile the node is tainted node.kubernetes.io/not-ready
    (TaintNodesByCondition, then the node lifecycle controller), so the pod that made
    cluster-autoscaler add it waits, and is bound once the node lifecycle controller has seen
    the node Ready and lifted the taint, as in a cluster with kubelets."""
    import time

    api, ns = cluster.api, cluster.ns
    install_provider_config(api, ns, [template_node("slow", 0, 1, boot_seconds=12)])
    parts.kwok()
    parts.tightpack()
    parts.autoscaler(ns)
    api.post(f"/api/v1/namespaces/{ns}/pods", pod_manifest("p", cpu="1", memory="1Gi", scheduler_name="tightpack"))

    def slow_nodes():
        return [n for n in api.list("/api/v1/nodes") if n["metadata"].get("labels", {}).get(GROUP_LABEL) == "slow"]

    [node] = wait_for(slow_nodes, 60, "cluster-autoscaler to add a node to the slow pool", interval=0.25)
    seen = time.monotonic()
    assert node["metadata"]["annotations"][BOOT_SECONDS] == "12"
    # Registered as a kubelet registers: Ready=False from its creation, so the node lifecycle
    # controller never clears the API server's not-ready taint (autoscaler.py's REGISTERING).
    assert [(c["type"], c["status"]) for c in node["status"]["conditions"]] == [("Ready", "False")], node["status"]
    assert [(t["key"], t["effect"]) for t in node["spec"].get("taints", [])] == \
        [("node.kubernetes.io/not-ready", "NoSchedule")], node["spec"]

    def ready():
        conditions = (api.get(f"/api/v1/nodes/{node['metadata']['name']}").get("status") or {}).get("conditions") or []
        booted = any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)
        if not booted:
            assert not cluster.get_pod("p")["spec"].get("nodeName"), "bound to a node still booting"
        return booted

    wait_for(ready, 40, "kwok to boot the node", interval=0.25)
    assert time.monotonic() - seen >= 10, time.monotonic() - seen
    [bound] = cluster.wait_bound(["p"], timeout=30)
    assert node_of(bound) == node["metadata"]["name"]
