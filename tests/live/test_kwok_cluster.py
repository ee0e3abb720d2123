"""The live cluster's first part: kwok as the kubelets of the nodes a cloud would give. Nodes
created as cluster-autoscaler's kwok provider creates them (annotated kwok.x-k8s.io/node=fake,
capacity in their status, no condition yet) become Ready by kwok's own stages; tightpack binds
pods to them and kwok runs them; a pod deleted with its grace period goes at once, as a kubelet
that stops its containers lets it go; a node kwok does not manage stays as it was made."""

from __future__ import annotations

import time

from harness import node_manifest, node_of, pod_manifest, resources, wait_for
from kwok import FAKE


def make_node(api, name: str, annotated: bool, cpu: str = "4", memory: str = "16Gi") -> None:
    """A node as cluster-autoscaler's kwok provider creates one: its status (capacity, no
    condition) in the create itself, which kwok may already be updating when it returns.
    An unannotated node is also tainted: with no kubelet it never posts a Ready condition,
    and the node lifecycle controller removes the not-ready taint the API server put on it
    (it taints by the conditions there are), so the pods below might otherwise land on it."""
    taints = None if annotated else [{"key": "example.com/no-kubelet", "effect": "NoSchedule"}]
    manifest = node_manifest(name, labels={"cloud.google.com/gke-nodepool": "workers"}, taints=taints)
    if annotated:
        manifest["metadata"]["annotations"] = dict(FAKE)
    res = resources(cpu=cpu, memory=memory, pods=110)
    manifest["status"] = {"capacity": res, "allocatable": res}
    created = api.post("/api/v1/nodes", manifest)
    assert created["status"].get("allocatable"), f"the API server dropped the status of {name}"


def ready(node: dict) -> bool:
    return any(c["type"] == "Ready" and c["status"] == "True" for c in (node.get("status") or {}).get("conditions") or [])


def taints(node: dict) -> list:
    return [f"{t['key']}:{t['effect']}" for t in (node.get("spec") or {}).get("taints") or []]


def settled(api, names: list, hold: float = 2.0) -> None:
    """Waits until the nodes are Ready and untainted, and stay so for `hold` seconds. The node
    lifecycle controller removes the not-ready taint after kwok posts Ready, and under load it
    may act on a stale view of a node a moment later (a NoSchedule or NoExecute not-ready taint
    on a node already Ready): a node that is not yet schedulable would make the packing below
    a race, not a test of tightpack."""
    def clean():
        nodes = [api.get(f"/api/v1/nodes/{n}") for n in names]
        return all(ready(n) and not taints(n) for n in nodes)

    since = None  # when the nodes were last seen turning clean

    def held():
        nonlocal since
        if not clean():
            since = None
            return False
        since = since or time.monotonic()
        return time.monotonic() - since >= hold

    wait_for(held, 60, f"{names} to stay Ready without taints for {hold} s", interval=0.1)


def placements(cluster, names: list) -> str:
    """Where each pod went, by its Scheduled event, and the nodes' taints now: what to read
    when the packing assertion fails."""
    lines = []
    for e in cluster.events():
        if (e.get("regarding") or {}).get("name") in names:
            lines.append(f"{e.get('eventTime') or e.get('deprecatedFirstTimestamp')} {e.get('reason')}: {e.get('note')}")
    for n in cluster.nodes():
        lines.append(f"node {n['metadata']['name']}: ready={ready(n)} taints={taints(n)}")
    return "\n".join(sorted(lines))


def test_kwok_runs_the_nodes_and_pods_tightpack_places(cluster, parts):
    api, ns = cluster.api, cluster.ns
    parts.kwok()
    scheduler = parts.tightpack()  # config/tightpack.yaml: the profile "tightpack"
    make_node(api, "kwok-0", annotated=True)
    make_node(api, "kwok-1", annotated=True)
    make_node(api, "unmanaged", annotated=False)

    settled(api, ["kwok-0", "kwok-1"])
    assert not ready(api.get("/api/v1/nodes/unmanaged")), "kwok manages only the annotated nodes"

    names = [f"w-{i}" for i in range(3)]
    for name in names:
        api.post(f"/api/v1/namespaces/{ns}/pods", pod_manifest(name, cpu="1", memory="1Gi", scheduler_name="tightpack"))
    bound = cluster.wait_bound(names, timeout=30)
    assert {node_of(p) for p in bound} <= {"kwok-0", "kwok-1"}
    # tightpack packs: all three on one node of the two.
    assert len({node_of(p) for p in bound}) == 1, (
        f"{[node_of(p) for p in bound]}\n{placements(cluster, names)}{scheduler.describe(20)}")

    def running():
        pods = {p["metadata"]["name"]: p for p in cluster.pods()}
        return all(pods[n]["status"].get("phase") == "Running" and pods[n]["status"].get("podIP")
                   for n in names if n in pods)

    wait_for(running, 30, "kwok to run the bound pods")

    started = time.monotonic()
    api.delete(f"/api/v1/namespaces/{ns}/pods/w-0")  # the default grace period, 30 s
    wait_for(lambda: "w-0" not in {p["metadata"]["name"] for p in cluster.pods()}, 20,
             "kwok to let the deleted pod go")
    assert time.monotonic() - started < 20

    # The heartbeat keeps the nodes Ready.
    time.sleep(1)
    assert all(ready(api.get(f"/api/v1/nodes/kwok-{i}")) for i in range(2))
