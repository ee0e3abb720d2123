"""The real clients' pods scheduled by tightpack and by kube-scheduler's own framework.

Each scenario is a DaskHub on GKE (cluster.py) with objects made by KubeSpawner, the
dask-kubernetes operator and dask-gateway-server (clients.py). `tightpack replay` and
kube-scheduler-reference (v1.37.2's framework, tests/conformance/reference) decide every
pod under the three profiles, and zero-to-jupyterhub's profile also as v1.30.14 (the
kube-scheduler its released charts run) decides it; differential.compare() must find no
difference. The checks
after it read the reference's answer, so that a scenario that stopped showing what it is
for (a pinned zone, an attach limit, a pool behind a taint) fails instead of agreeing
trivially."""

from __future__ import annotations

import json
import subprocess

import clients
import cluster
import pytest
import z2jh
from conftest import ROOT
from differential import compare

NS = "jhub"
KNOWN_DEFECTS = (ROOT / "tests/conformance/known/defects").read_text().strip()
# "@v1.30": the profile as kube-scheduler v1.30.14 runs it, judged by its own framework.
PROFILES = ["most-allocated", "most-allocated@v1.30", "default", "tightpack"]


def profile_spec(profile: str):
    name, _, release = profile.partition("@")
    return {"name": name, "release": release} if release else name


def decide(binaries, scenario: dict, tmp_path, name: str) -> dict:
    """The reference's decisions, once tightpack's are found equal to them (or equal once the
    v1.37.2 defects the engine does not copy are corrected: tests/conformance/known)."""
    tightpack, references = binaries
    release = scenario["profile"].get("release", "v1.37") if isinstance(scenario["profile"], dict) else "v1.37"
    reference = references[release]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"scenario": scenario, "meta": {"id": name}}))
    run = lambda *cmd: json.loads(subprocess.run(  # noqa: E731
        [str(c) for c in cmd], capture_output=True, text=True, check=True, timeout=120).stdout)
    ours, theirs = run(tightpack, "replay", path), run(reference, path)
    assert "error" not in theirs, theirs["error"]
    difference = compare(ours, theirs)
    if difference is not None and release != "v1.30":  # the defects came after v1.30
        corrected = run(reference, "--compat", KNOWN_DEFECTS, path)
        assert compare(ours, corrected) is None, \
            f"{name}: {difference} (replay: tests/conformance/explain.py {path})"
        theirs = corrected
    assert difference is None or release != "v1.30", f"{name}: {difference}"
    return {r["pod"]: r for r in theirs["results"]}


def operator_objects(name: str, n_workers: int, **kw):
    """(pods in creation order, Services, ReplicaSets) of one operator DaskCluster."""
    made = clients.operator_cluster(name, NS, n_workers, **kw)
    pods, replicasets = [], []
    for deployment in [made["scheduler"], *made["workers"]]:
        rs, pod = clients.replicaset_and_pod(deployment)
        replicasets.append(rs)
        pods.append(pod)
    return pods, [made["service"]], replicasets


def gateway_pods(user: str, n_workers: int, options: dict) -> list:
    config = clients.gateway_config(namespace=NS,
                                    worker_extra_pod_config=cluster.GATEWAY_WORKER_POD_CONFIG,
                                    scheduler_extra_pod_config=cluster.GATEWAY_SCHEDULER_POD_CONFIG)
    made = clients.gateway_cluster(config, user, options, n_workers, namespace=NS)
    return [made["scheduler"], *made["workers"]]


def key(pod: dict) -> str:
    return f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"


def dynamic_home_hub() -> tuple[dict, dict]:
    """zero-to-jupyterhub's defaults: a dynamic WaitForFirstConsumer home claim per user."""
    config = z2jh.kubespawner_config(namespace=NS,
                                     profile_list=[cluster.CPU_PROFILE, cluster.GPU_PROFILE])
    nodes, csinodes = cluster.daskhub_nodes(user_attach_limit_first=1)
    claims, pvs, bound, incoming = [], [], [], []

    # bob runs on user-a-0 with his home disk attached: that node is at its attach limit.
    bob, bob_claim = clients.notebook("bob", config)
    bob_claim, bob_pv = cluster.provisioned(bob_claim, cluster.ZONES[0])
    bound.append(cluster.bound(bob, "user-a-0"))
    claims.append(bob_claim)
    pvs.append(bob_pv)
    # carol spawned before in zone b: her disk pins her new notebook there.
    carol, carol_claim = clients.notebook("carol", config)
    carol_claim, carol_pv = cluster.provisioned(carol_claim, cluster.ZONES[1])
    claims.append(carol_claim)
    pvs.append(carol_pv)
    # alice spawns for the first time: her claim waits for its first consumer.
    alice, alice_claim = clients.notebook("alice", config)
    claims.append(cluster.admit_claim(alice_claim))
    # dave asks for the GPU profile, also for the first time.
    dave, dave_claim = clients.notebook("dave", config, profile="gpu")
    claims.append(cluster.admit_claim(dave_claim))
    incoming += [alice, carol, dave]

    op_pods, services, replicasets = operator_objects(
        "alice-dask", 3, resources={"requests": {"cpu": "1", "memory": "4Gi"},
                                    "limits": {"cpu": "1", "memory": "4Gi"}})
    incoming += op_pods
    incoming += gateway_pods("bob", 3, {"worker_cores": 2, "worker_memory": 8})

    scenario = {"nodes": nodes, "pods": bound, "incoming": [cluster.admit_pod(p) for p in incoming],
                "persistentVolumeClaims": claims, "persistentVolumes": pvs,
                "storageClasses": cluster.storage_classes(), "csiNodes": csinodes,
                "services": services, "replicaSets": replicasets}
    return scenario, {"alice": alice, "carol": carol, "dave": dave, "operator": op_pods}


@pytest.mark.parametrize("profile", PROFILES)
def test_dynamic_home_claims_and_both_dask_clients(binaries, tmp_path, profile):
    scenario, pods = dynamic_home_hub()
    scenario["profile"] = profile_spec(profile)
    results = decide(binaries, scenario, tmp_path, f"dynamic-home-{profile}")

    alice = results[key(pods["alice"])]
    assert "exceed max volume count" in " ".join(alice["filter"]["user-a-0"]), alice["filter"]
    assert alice["filterPlugin"]["user-a-0"] == "NodeVolumeLimits"
    assert alice["chosen"] in ("user-a-1", "user-b-0")
    carol = results[key(pods["carol"])]
    assert carol["chosen"] == "user-b-0", carol  # her volume's zone
    assert carol["filterPlugin"]["user-a-1"] == "VolumeBinding"
    assert results[key(pods["dave"])]["chosen"] == "gpu-b-0"
    gateway = [r for k, r in results.items() if "/dask-worker-" in k]
    assert len(gateway) == 3 and all(r["chosen"].startswith("worker-") for r in gateway), gateway
    operator = [results[key(p)] for p in pods["operator"]]
    # No toleration in make_cluster_spec's pods: only the untainted core node takes them,
    # and the fourth 4Gi pod does not fit beside the hub's other three.
    assert [r.get("chosen") for r in operator[:3]] == ["core-a-0"] * 3, operator
    assert "message" in operator[3] or operator[3].get("chosen") == "core-a-0"
    if profile != "default":
        return
    # The system default spread applies to the operator's pods (a Service and their
    # ReplicaSet select them) and to no other pod here.
    assert any("PodTopologySpread" in s for s in operator[0]["scores"].values()), operator[0]
    assert not any("PodTopologySpread" in s for s in alice["scores"].values())


def test_kubespawner_quantities_are_read_as_the_api_server_reads_them(binaries, tmp_path):
    """KubeSpawner writes mem_guarantee as a JSON number of bytes (1073741824), not a string:
    the API server accepts that as a quantity, and so must every decoder in the way."""
    pod, _ = clients.notebook("erin", z2jh.kubespawner_config(namespace=NS, storage="none"))
    memory = pod["spec"]["containers"][0]["resources"]["requests"]["memory"]
    assert memory == 1073741824 and isinstance(memory, int)
    nodes, _ = cluster.daskhub_nodes()
    results = decide(binaries, {"profile": "most-allocated", "nodes": nodes, "pods": [],
                                "incoming": [pod]}, tmp_path, "number-quantity")
    assert results[key(pod)]["chosen"].startswith("user-")


@pytest.mark.parametrize("profile", PROFILES)
def test_static_nfs_home_shared_by_every_user(binaries, tmp_path, profile):
    """2i2c's usual hub: one static NFS claim for all homes, node purpose required."""
    config = z2jh.kubespawner_config(namespace=NS, storage="static", match_node_purpose="require")
    claim, pv = cluster.nfs_home(NS)
    nodes, csinodes = cluster.daskhub_nodes(user_attach_limit_first=1)
    bound, incoming = [], []
    for i, user in enumerate(["u0", "u1", "u2", "u3"]):
        pod, made_claim = clients.notebook(user, config)
        assert made_claim is None
        assert pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] == "home-nfs"
        if i < 2:
            bound.append(cluster.bound(pod, "user-a-0"))
        else:
            incoming.append(pod)
    scenario = {"profile": profile_spec(profile), "nodes": nodes, "pods": bound, "incoming": incoming,
                "persistentVolumeClaims": [claim], "persistentVolumes": [pv],
                "storageClasses": cluster.storage_classes(), "csiNodes": csinodes}
    results = decide(binaries, scenario, tmp_path, f"nfs-{profile}")
    for pod in incoming:
        r = results[key(pod)]
        # NFS is no attachable volume: the node at its PD limit still takes notebooks.
        assert r["filter"]["user-a-0"] == "ok", r["filter"]
        assert r["filter"]["core-a-0"] != "ok"  # node purpose required
