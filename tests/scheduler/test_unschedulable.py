"""What the cluster sees of a pod that fits nowhere (docs/scheduler.md, "What the cluster
sees"): the PodScheduled=False/Unschedulable condition cluster-autoscaler looks for, a
FailedScheduling event, then Scheduled once a node that fits is added; and the queue's
priority order.

Run with tightpack and with the real kube-scheduler (v1.37.2) with z2jh's user-scheduler
configuration. The engine follows v1.37.2 (docs/conformance.md), so both must write the same
message, and it must equal what `tightpack predict` says on the same cluster: the in-cluster
scheduler, the sidebar's engine and kube-scheduler agree to the letter.
"""

from __future__ import annotations

import json
import subprocess
import time

import pytest
from harness import (
    FLAVOURS,
    TIGHTPACK,
    ca_is_unschedulable,
    condition,
    create_priority_class,
    node_of,
    pod_manifest,
    taint,
    wait_for,
)


def predicted_message(tmp_path, cluster, pod: dict, flavour: str) -> str:
    snapshot = cluster.snapshot_list()
    snapshot["items"] = [i for i in snapshot["items"]
                         if not (i["kind"] == "Pod" and i["metadata"]["name"] == pod["metadata"]["name"])]
    (tmp_path / "cluster.json").write_text(json.dumps(snapshot))
    (tmp_path / "pod.json").write_text(json.dumps(pod))
    f = FLAVOURS[flavour]
    r = subprocess.run([str(TIGHTPACK), "predict", "--cluster", str(tmp_path / "cluster.json"),
                        "--pod", str(tmp_path / "pod.json"), "--replicas", "1", "--config", str(f["config"]),
                        "--scheduler-name", f["scheduler_name"], "--output", "json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 3, f"predict should find no room (exit 3), exit {r.returncode}: {r.stdout}{r.stderr}"
    return json.loads(r.stdout)["unschedulable"]["message"]


@pytest.mark.parametrize("flavour", ["kube-z2jh", "tightpack"])
def test_unschedulable_condition_and_events_then_scheduled(cluster, schedulers, flavour, tmp_path):
    name = FLAVOURS[flavour]["scheduler_name"]
    ns = cluster.ns
    cluster.node("n-small", cpu="4", memory="16Gi")
    cluster.node("n-tainted", cpu="32", memory="64Gi", taints=[taint("dedicated", "gpu")])
    cluster.node("n-cordoned", cpu="32", memory="64Gi", unschedulable=True)
    schedulers.flavour(flavour)
    manifest = pod_manifest("big", cpu="16", memory="4Gi", scheduler_name=name)
    cluster.api.post(f"/api/v1/namespaces/{ns}/pods", manifest)

    pod = cluster.wait_pod("big", lambda p: condition(p, "PodScheduled"), 30, "a PodScheduled condition")
    cond = condition(pod, "PodScheduled")
    assert not node_of(pod)
    assert cond["status"] == "False" and cond["reason"] == "Unschedulable", cond
    message = cond["message"]
    print(f"\n{flavour}: PodScheduled message: {message}")
    # The small node is smaller than the pod: NodeResourcesFit's verdict there is
    # UnschedulableAndUnresolvable (kubernetes#131345), so preemption does not try it.
    assert message == ("0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s), "
                       "1 node(s) were unschedulable. preemption: 0/3 nodes are available: "
                       "3 Preemption is not helpful for scheduling."), message
    # cluster-autoscaler scales up for exactly these pods (harness.ca_is_unschedulable cites it).
    assert ca_is_unschedulable(pod)
    assert message == predicted_message(tmp_path, cluster, manifest, flavour)

    failed = cluster.wait_event("FailedScheduling", "big")
    e = failed[0]
    assert e["type"] == "Warning"
    assert e["note"] == message
    assert e["reportingController"] == name
    assert e["regarding"]["kind"] == "Pod" and e["regarding"]["uid"] == pod["metadata"]["uid"]

    cluster.node("n-big", cpu="32", memory="64Gi")
    bound = cluster.wait_bound(["big"], timeout=40)[0]
    assert node_of(bound) == "n-big"
    scheduled = cluster.wait_event("Scheduled", "big")
    assert len(scheduled) == 1, scheduled
    s = scheduled[0]
    assert s["type"] == "Normal"
    assert s["note"] == f"Successfully assigned {ns}/big to n-big"
    assert s["reportingController"] == name
    after = cluster.get_pod("big")
    assert condition(after, "PodScheduled")["status"] == "True"
    assert not ca_is_unschedulable(after)


@pytest.mark.parametrize("flavour", ["kube-z2jh", "tightpack"])
def test_queue_takes_the_higher_priority_pod_first(cluster, schedulers, flavour):
    """Queue order: priority first. The node is held by a high-priority pod (no preemption);
    a low- and then a high-priority pod wait; when the room frees, the high one takes it."""
    name = FLAVOURS[flavour]["scheduler_name"]
    create_priority_class(cluster.api, "tightpack-test-high", 1000)
    create_priority_class(cluster.api, "tightpack-test-mid", 100)
    cluster.node("q-node", cpu="2", memory="8Gi")
    schedulers.flavour(flavour)
    cluster.pod("holder", cpu="2", memory="1Gi", scheduler_name=name, priority_class="tightpack-test-high")
    cluster.wait_bound(["holder"], timeout=30)
    cluster.pod("low", cpu="2", memory="1Gi", scheduler_name=name)
    cluster.pod("mid", cpu="2", memory="1Gi", scheduler_name=name, priority_class="tightpack-test-mid")
    for p in ("low", "mid"):
        cluster.wait_pod(p, ca_is_unschedulable, 30, "PodScheduled=False/Unschedulable")
    # Past both pods' backoff (1 s after their last attempt, 2 s after a second), so that
    # the deletion makes both ready at once and only the queue's order decides.
    time.sleep(3)
    cluster.delete_pod("holder")
    cluster.wait_bound(["mid"], timeout=40)
    wait_for(lambda: ca_is_unschedulable(cluster.get_pod("low")), 15,
             "low to stay unschedulable (the room went to mid)")
    assert not node_of(cluster.get_pod("low"))


@pytest.mark.parametrize("flavour", ["kube-z2jh", "tightpack"])
def test_gated_pod_waits_until_its_gates_are_removed(cluster, schedulers, flavour):
    """spec.schedulingGates (Kueue and friends hold pods this way): no scheduler may bind the
    pod, and the binding API would refuse it; once the gates go, it is scheduled."""
    name = FLAVOURS[flavour]["scheduler_name"]
    cluster.node("gate-node", cpu="4", memory="16Gi")
    schedulers.flavour(flavour)
    manifest = pod_manifest("gated", cpu="1", scheduler_name=name)
    manifest["spec"]["schedulingGates"] = [{"name": "example.com/quota"}]
    cluster.api.post(f"/api/v1/namespaces/{cluster.ns}/pods", manifest)
    cluster.pod("ungated", cpu="1", scheduler_name=name)
    cluster.wait_bound(["ungated"], timeout=30)
    time.sleep(2)
    pod = cluster.get_pod("gated")
    assert not node_of(pod), f"a gated pod was bound to {node_of(pod)}"
    assert not cluster.events(reason="FailedScheduling", name="gated"), "a gated pod was tried"
    cluster.api.patch(f"/api/v1/namespaces/{cluster.ns}/pods/gated", {"spec": {"schedulingGates": []}})
    assert node_of(cluster.wait_bound(["gated"], timeout=30)[0]) == "gate-node"
