"""The real cluster-autoscaler grows and shrinks a kwok node group while tightpack schedules
into it: six one-cpu pods with no node for them make cluster-autoscaler add the two 4-cpu
nodes its estimator asks for (kwok makes them Ready, tightpack binds and packs the pods onto
them); the pods of one node deleted, that node is removed after the unneeded time."""

from __future__ import annotations

from harness import node_of, pod_manifest, wait_for
from autoscaler import GROUP_LABEL, install_provider_config, template_node


def test_cluster_autoscaler_grows_and_shrinks_the_group_tightpack_fills(cluster, parts):
    api, ns = cluster.api, cluster.ns
    install_provider_config(api, ns, [template_node("workers", 0, 3)])
    parts.kwok()
    parts.tightpack()
    parts.autoscaler(ns)

    names = [f"w-{i}" for i in range(6)]
    for name in names:
        api.post(f"/api/v1/namespaces/{ns}/pods", pod_manifest(name, cpu="1", memory="1Gi", scheduler_name="tightpack"))

    def group_nodes():
        return [n for n in api.list("/api/v1/nodes") if n["metadata"].get("labels", {}).get(GROUP_LABEL) == "workers"]

    bound = cluster.wait_bound(names, timeout=120)
    nodes = group_nodes()
    assert len(nodes) == 2, [n["metadata"]["name"] for n in nodes]
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
