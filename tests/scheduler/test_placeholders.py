"""zero-to-jupyterhub's user placeholders: low-priority pods that hold room for real users
and are preempted when a user needs it (docs/scheduler.md, Preemption).

Run with tightpack and, as the reference, the real kube-scheduler with z2jh's
user-scheduler configuration.
"""

from __future__ import annotations

import pytest
from harness import FLAVOURS, Watch, create_priority_class, node_of

PLACEHOLDER_CLASS = "user-placeholder-priority"


@pytest.mark.parametrize("flavour", ["kube-z2jh", "tightpack"])
def test_user_pod_preempts_only_the_placeholders_it_needs(cluster, schedulers, flavour):
    api, ns = cluster.api, cluster.ns
    name = FLAVOURS[flavour]["scheduler_name"]
    # As the chart's scheduling.podPriority: placeholders at -10, users at 0 (no class).
    create_priority_class(api, PLACEHOLDER_CLASS, -10,
                          "user placeholders: evicted first, still above the autoscaler's cutoff")
    cluster.node("ph-node", cpu="4", memory="16Gi")
    schedulers.flavour(flavour)
    watch = Watch(api, f"/api/v1/namespaces/{ns}/pods")
    try:
        placeholders = [f"user-placeholder-{i}" for i in range(4)]
        for p in placeholders:
            cluster.pod(p, cpu="1", memory="1Gi", scheduler_name=name, priority_class=PLACEHOLDER_CLASS,
                        labels={"component": "user-placeholder"})
        bound = cluster.wait_bound(placeholders, timeout=30)
        assert {node_of(p) for p in bound} == {"ph-node"}
        assert {p["spec"].get("priority") for p in bound} == {-10}

        # The node is full; alice needs 2 CPU, i.e. two placeholders' room.
        cluster.pod("jupyter-alice", cpu="2", memory="2Gi", scheduler_name=name,
                    labels={"component": "singleuser-server"})
        alice = cluster.wait_bound(["jupyter-alice"], timeout=60)[0]
        assert alice["spec"].get("priority", 0) == 0
        assert node_of(alice) == "ph-node"

        left = [p["metadata"]["name"] for p in cluster.pods("component=user-placeholder")]
        assert len(left) == 2, f"preemption should delete exactly 2 of 4 placeholders, left: {left}"
        assert all(node_of(p) == "ph-node" for p in cluster.pods("component=user-placeholder"))

        events = watch.snapshot()
        nominated = [(t, obj["status"]["nominatedNodeName"]) for t, typ, obj in events
                     if obj["metadata"]["name"] == "jupyter-alice"
                     and (obj.get("status") or {}).get("nominatedNodeName")]
        assert nominated, "jupyter-alice never got status.nominatedNodeName"
        assert {n for _, n in nominated} == {"ph-node"}
        deleted = [(t, obj["metadata"]["name"]) for t, typ, obj in events
                   if typ == "DELETED" and obj["metadata"]["name"] in placeholders]
        assert len(deleted) == 2, f"placeholders deleted: {deleted}"
        # The nomination is published before or while the victims go, not after the bind.
        bound_at = min(t for t, typ, obj in events
                       if obj["metadata"]["name"] == "jupyter-alice" and node_of(obj))
        assert nominated[0][0] <= bound_at
    finally:
        watch.stop()
