"""The dask-kubernetes operator itself (its kopf controller from PyPI) and the real
kube-controller-manager on the test control plane: a user's KubeCluster spec, made by
make_cluster_spec with schedulerName added as docs/deploy.md says, becomes the operator's
scheduler Deployment and Service, its DaskWorkerGroup and one one-replica Deployment per worker;
the Deployment and ReplicaSet controllers make the pods, owned as in a real cluster. Three
schedulers each place one user's cluster on three nodes of their own: tightpack (its profile),
the real kube-scheduler with zero-to-jupyterhub's user-scheduler profile, and with the default
profile. Packing is the point: tightpack and the user-scheduler put the 7 pods on 2 nodes, in
the same shape; the default profile spreads them over all 3 (LeastAllocated, and the system
default spread over each ReplicaSet's and the Service's pods). And a shrink: `tightpack forecast
--remove-deployments` on two worker Deployments (the operator deletes one per retired worker)
takes away exactly their pods as the API's owner chain gives them, reading the pods alone."""

from __future__ import annotations

import json
import subprocess

import pytest
from dask_operator import daskcluster, delete_all, install_crds
from harness import FLAVOURS, TIGHTPACK, node_of, wait_for

POOL = "tightpack.test/pool"
SUFFIX = {"tightpack": "tp", "kube-z2jh": "z2jh", "kube-default": "default"}


@pytest.fixture
def dask_objects(cluster):
    yield
    delete_all(cluster.api, cluster.ns)


def owner(obj: dict) -> tuple:
    refs = obj["metadata"].get("ownerReferences") or []
    assert len(refs) == 1, (obj["metadata"]["name"], refs)
    return refs[0]["kind"], refs[0]["name"]


def forecast_removing(cluster, deployments: list, workdir) -> list:
    """`tightpack forecast --remove-deployments` on the control plane's nodes and pods:
    the pods it takes away."""
    items = [{**n, "kind": "Node"} for n in cluster.nodes()] + \
        [{**p, "kind": "Pod"} for p in cluster.pods()]
    snapshot = workdir / "shrink-snapshot.json"
    snapshot.write_text(json.dumps({"kind": "List", "apiVersion": "v1", "items": items}))
    r = subprocess.run([str(TIGHTPACK), "forecast", "--cluster", str(snapshot),
                        "--remove-deployments", ",".join(deployments), "--output", "json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout).get("removedPods", [])


def test_operator_clusters_pack_as_kube_scheduler_packs_them(cluster, schedulers, dask_objects,
                                                              tmp_path):
    api, ns = cluster.api, cluster.ns
    install_crds(api)
    for suffix in SUFFIX.values():
        for i, zone in enumerate(("a", "a", "b")):
            cluster.node(f"w-{suffix}-{i}", cpu="4", memory="16Gi",
                         labels={POOL: suffix, "topology.kubernetes.io/zone": zone})
    schedulers.controller_manager()
    operator = schedulers.dask_operator()
    for flavour in SUFFIX:
        schedulers.flavour(flavour)
    for flavour, suffix in SUFFIX.items():
        spec = daskcluster(f"alice-{suffix}", 6, {"requests": {"cpu": "1", "memory": "2Gi"}},
                           {"schedulerName": FLAVOURS[flavour]["scheduler_name"], "nodeSelector": {POOL: suffix}})
        api.post(f"/apis/kubernetes.dask.org/v1/namespaces/{ns}/daskclusters", spec)

    def all_bound():
        pods = cluster.pods()
        by_cluster = {s: [p for p in pods if p["metadata"].get("labels", {}).get("dask.org/cluster-name") == f"alice-{s}"]
                      for s in SUFFIX.values()}
        return by_cluster if all(len(v) == 7 and all(node_of(p) for p in v) for v in by_cluster.values()) else None

    try:
        placed = wait_for(all_bound, 120, "the operator's 3 clusters of 7 pods to be made and bound")
    except BaseException:
        print(operator.describe(60))
        raise

    # The owners are real: worker pod <- ReplicaSet <- Deployment <- DaskWorkerGroup <- DaskCluster.
    deployments = {d["metadata"]["name"]: d for d in api.list(f"/apis/apps/v1/namespaces/{ns}/deployments")}
    replicasets = {r["metadata"]["name"]: r for r in api.list(f"/apis/apps/v1/namespaces/{ns}/replicasets")}
    for suffix, pods in placed.items():
        workers = [p for p in pods if p["metadata"]["labels"].get("dask.org/component") == "worker"]
        assert len(workers) == 6
        for pod in workers:
            kind, rs = owner(pod)
            assert kind == "ReplicaSet"
            kind, deployment = owner(replicasets[rs])
            assert kind == "Deployment" and deployments[deployment]["spec"]["replicas"] == 1
            assert owner(deployments[deployment]) == ("DaskWorkerGroup", f"alice-{suffix}-default")
        services = [s for s in api.list(f"/api/v1/namespaces/{ns}/services")
                    if s["metadata"]["name"] == f"alice-{suffix}-scheduler"]
        assert services, f"no scheduler Service of alice-{suffix}"

    # A shrink's forecast names the Deployments the operator deletes (one per retired worker):
    # from the pods alone, it finds the same pods the API's owner chain gives.
    workers_tp = sorted((p for p in placed["tp"]
                         if p["metadata"]["labels"].get("dask.org/component") == "worker"),
                        key=lambda p: p["metadata"]["name"])
    retired = sorted({owner(replicasets[owner(p)[1]])[1] for p in workers_tp[:2]})
    removed = forecast_removing(cluster, [f"{ns}/{d}" for d in retired], tmp_path)
    assert sorted(removed) == [f"{ns}/{p['metadata']['name']}" for p in workers_tp
                               if owner(replicasets[owner(p)[1]])[1] in retired]

    shapes = {}
    for suffix, pods in placed.items():
        counts = {}
        for pod in pods:
            counts[node_of(pod)] = counts.get(node_of(pod), 0) + 1
        shapes[suffix] = sorted(counts.values(), reverse=True) + [0] * (3 - len(counts))
    print(f"\npods per node: {shapes}")
    assert shapes["tp"] == shapes["z2jh"] == [4, 3, 0], shapes
    assert shapes["default"][2] > 0, f"the default profile packed: {shapes}"
