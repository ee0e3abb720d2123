"""The dask-kubernetes operator itself (its kopf controller from PyPI) and the real
kube-controller-manager on the test control plane: a user's KubeCluster spec, made by
make_cluster_spec with schedulerName added as docs/deploy.md says, becomes the operator's
scheduler Deployment and Service, its DaskWorkerGroup and one one-replica Deployment per worker;
the Deployment and ReplicaSet controllers make the pods, owned as in a real cluster. Three
schedulers each place one user's cluster on three nodes of their own: tightpack (its profile),
the real kube-scheduler with zero-to-jupyterhub's user-scheduler profile, and with the default
profile. Packing is the point: tightpack and the user-scheduler put the 7 pods on 2 nodes, in
the same shape; the default profile spreads them over all 3 (LeastAllocated, and the system
default spread over each ReplicaSet's and the Service's pods)."""

from __future__ import annotations

import pytest
from dask_operator import daskcluster, delete_all, install_crds
from harness import FLAVOURS, node_of, wait_for

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


def test_operator_clusters_pack_as_kube_scheduler_packs_them(cluster, schedulers, dask_objects):
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

    shapes = {}
    for suffix, pods in placed.items():
        counts = {}
        for pod in pods:
            counts[node_of(pod)] = counts.get(node_of(pod), 0) + 1
        shapes[suffix] = sorted(counts.values(), reverse=True) + [0] * (3 - len(counts))
    print(f"\npods per node: {shapes}")
    assert shapes["tp"] == shapes["z2jh"] == [4, 3, 0], shapes
    assert shapes["default"][2] > 0, f"the default profile packed: {shapes}"
