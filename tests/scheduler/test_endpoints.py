"""The HTTP endpoints of `tightpack schedule` (docs/scheduler.md, HTTP): /healthz, /readyz,
/metrics with kube-scheduler's metric names and plausible values, and /snapshot, the
envelope the sidebar reads, which must carry nodes and anonymous pods but nothing that
names or identifies the users' pods."""

from __future__ import annotations

import json
import subprocess

from harness import (
    CONFIG_DIR,
    TIGHTPACK,
    ca_is_unschedulable,
    create_namespace,
    node_of,
    parse_quantity,
    pod_manifest,
    taint,
    wait_for,
)

SPEC_METRICS = [
    "scheduler_schedule_attempts_total",
    "scheduler_scheduling_attempt_duration_seconds",
    "scheduler_pending_pods",
    "scheduler_preemption_attempts_total",
    "scheduler_preemption_victims",
    "leader_election_master_status",
]
SECRET = "secretive"  # in every name, image, label, annotation and env value of the test's pods


def cluster_objects(cluster: dict, kind: str) -> list:
    """Objects of one kind in a v1 List (or {"nodes": [...], "pods": [...]})."""
    if isinstance(cluster.get("items"), list):
        return [i for i in cluster["items"] if isinstance(i, dict) and i.get("kind") == kind]
    return list(cluster.get({"Node": "nodes", "Pod": "pods"}[kind]) or [])


def predict_counts(tmp_path, name: str, cluster_doc: dict, replicas: int = 6) -> dict:
    """Per node (None: nowhere), how many of `replicas` 1-CPU pods `tightpack predict` places."""
    (tmp_path / f"{name}.json").write_text(json.dumps(cluster_doc))
    (tmp_path / "probe.json").write_text(json.dumps(pod_manifest("probe", cpu="1", memory="1Gi",
                                                                  scheduler_name="tightpack")))
    r = subprocess.run([str(TIGHTPACK), "predict", "--cluster", str(tmp_path / f"{name}.json"),
                        "--pod", str(tmp_path / "probe.json"), "--replicas", str(replicas),
                        "--config", str(CONFIG_DIR / "tightpack.yaml"), "--scheduler-name", "tightpack",
                        "--output", "json"], capture_output=True, text=True, timeout=60)
    assert r.returncode in (0, 3), f"predict on the {name} exited {r.returncode}: {r.stdout[-800:]}{r.stderr[-800:]}"
    counts: dict = {}
    for p in json.loads(r.stdout)["placements"]:
        counts[p["node"]] = counts.get(p["node"], 0) + 1
    return counts


def test_health_metrics_and_snapshot(cluster, schedulers, tmp_path):
    lease_ns = ("lease-" + cluster.ns)[:63].rstrip("-")
    create_namespace(cluster.api, lease_ns)
    cluster.node("ep-cpu-0", cpu="8", memory="32Gi", labels={"cloud.google.com/gke-nodepool": "cpu"})
    cluster.node("ep-cpu-1", cpu="8", memory="32Gi", labels={"cloud.google.com/gke-nodepool": "cpu"})
    cluster.node("ep-gpu", cpu="16", memory="64Gi", gpu=4,
                 labels={"cloud.google.com/gke-nodepool": "gpu", "cloud.google.com/gke-accelerator": "nvidia-tesla-t4"},
                 taints=[taint("nvidia.com/gpu", "present")])
    tp = schedulers.tightpack(identity="endpoints", leader_election={
        "leaderElect": True, "resourceNamespace": lease_ns, "resourceName": "tightpack"})
    tp.wait_ready()
    status, body = tp.get("/healthz")
    assert status == 200 and body.strip() == "ok", (status, body)
    status, body = tp.get("/readyz")
    assert status == 200 and body.strip() == "ok", (status, body)

    names = [f"{SECRET}-worker-{i:02d}" for i in range(12)]
    private = dict(image=f"registry.example.com/{SECRET}/image:1.2.3", labels={f"{SECRET}-label": f"{SECRET}-value"},
                   annotations={f"{SECRET}.example.com/owner": f"{SECRET}-annotation"},
                   env={f"{SECRET.upper()}_ENV": f"{SECRET}-env-value"}, scheduler_name="tightpack")
    for name in names:
        cluster.pod(name, cpu="1", memory="1Gi", **private)
    cluster.pod(f"{SECRET}-gpu", cpu="2", memory="4Gi", gpu=1,
                tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}], **private)
    cluster.pod(f"{SECRET}-unfit", cpu="64", memory="1Gi", **private)
    pods = cluster.wait_bound(names + [f"{SECRET}-gpu"], timeout=40)
    assert {node_of(p) for p in pods if p["metadata"]["name"] == f"{SECRET}-gpu"} == {"ep-gpu"}
    cluster.wait_pod(f"{SECRET}-unfit", ca_is_unschedulable, 30, "PodScheduled=False/Unschedulable")

    # /metrics
    def settled():
        m = tp.metrics()
        queues = {lab.get("queue"): v for lab, v in m.get("scheduler_pending_pods")}
        scheduled = m.value("scheduler_schedule_attempts_total", profile="tightpack", result="scheduled") or 0
        return m if scheduled >= 13 and queues.get("backoff", 0) + queues.get("unschedulable", 0) >= 1 else None

    m = wait_for(settled, 10, "/metrics to count 13 pods scheduled and the unfit one waiting",
                 diagnostics=lambda: tp.get("/metrics")[1][-3000:])
    missing = [n for n in SPEC_METRICS if not m.has(n)]
    assert not missing, f"/metrics lacks {missing}; it has {sorted(m.names())}"
    assert (m.value("scheduler_schedule_attempts_total", profile="tightpack", result="unschedulable") or 0) >= 1
    assert (m.value("scheduler_schedule_attempts_total", profile="tightpack", result="error") or 0) == 0
    count = m.value("scheduler_scheduling_attempt_duration_seconds_count", profile="tightpack")
    total = m.value("scheduler_scheduling_attempt_duration_seconds_sum", profile="tightpack")
    assert count is not None and count >= 14, f"attempt duration count {count}"
    assert total is not None and 0 < total / count < 5, f"mean attempt duration {total}/{count} s"
    queues = {lab.get("queue"): v for lab, v in m.get("scheduler_pending_pods")}
    assert {"active", "backoff", "unschedulable"} <= set(queues), queues
    assert queues["backoff"] + queues["unschedulable"] >= 1, f"the unfit pod is not counted: {queues}"
    assert m.value("leader_election_master_status") == 1
    assert (m.value("scheduler_preemption_attempts_total") or 0) >= 0

    # /snapshot
    snap = tp.snapshot()
    assert {"cluster", "pools", "schedulerConfiguration", "profiles"} <= set(snap), sorted(snap)
    assert isinstance(snap["profiles"], list)
    assert snap["pools"] is None or isinstance(snap["pools"], dict)
    config = snap["schedulerConfiguration"]
    assert isinstance(config, dict) and config.get("kind") == "KubeSchedulerConfiguration", config
    assert "tightpack" in [p.get("schedulerName") for p in config.get("profiles", [])]
    nodes = {n["metadata"]["name"]: n for n in cluster_objects(snap["cluster"], "Node")}
    assert {"ep-cpu-0", "ep-cpu-1", "ep-gpu"} <= set(nodes), sorted(nodes)
    alloc = nodes["ep-gpu"]["status"]["allocatable"]
    assert parse_quantity(alloc["cpu"]) == 16 and parse_quantity(alloc["nvidia.com/gpu"]) == 4, alloc
    assert parse_quantity(nodes["ep-cpu-0"]["status"]["allocatable"]["memory"]) == 32 * 2**30
    assert nodes["ep-gpu"]["metadata"]["labels"]["cloud.google.com/gke-nodepool"] == "gpu"
    assert [t["key"] for t in nodes["ep-gpu"]["spec"]["taints"]] == ["nvidia.com/gpu"]
    snap_pods = cluster_objects(snap["cluster"], "Pod")
    bound = [p for p in cluster.api.list("/api/v1/pods") if node_of(p)]
    assert len(snap_pods) == len(bound), f"{len(snap_pods)} pods in /snapshot, {len(bound)} bound"
    assert all(node_of(p) for p in snap_pods), "a pending pod in /snapshot"
    assert all(p["spec"]["containers"][0]["resources"]["requests"].get("cpu") for p in snap_pods)
    text = json.dumps(snap)
    assert SECRET not in text.lower(), "pod names, images, labels, annotations or env leak into /snapshot: " + \
        text[max(0, text.lower().find(SECRET) - 200):text.lower().find(SECRET) + 200]

    # The sidebar's prediction from /snapshot is the prediction from the API's own objects,
    # with every pod a Pod and as the sidebar asks for them, pods of one spec grouped.
    from_api = predict_counts(tmp_path, "api", cluster.snapshot_list())
    assert predict_counts(tmp_path, "snapshot", snap["cluster"]) == from_api
    grouped = tp.snapshot(pods="grouped")
    groups = [i for i in grouped["cluster"]["items"] if i.get("kind") == "PodGroup"]
    assert not cluster_objects(grouped["cluster"], "Pod")
    assert sum(len(g["pods"]) for g in groups) == len(bound)
    assert len(groups) < len(bound), f"{len(groups)} groups for {len(bound)} pods"
    assert predict_counts(tmp_path, "grouped", grouped["cluster"]) == from_api
    status, text = tp.get("/snapshot?pods=all", timeout=30)
    assert status == 400 and "pods=grouped" in text, (status, text)
