"""tightpack's admission (core/include/tightpack/admission.hpp; `tightpack admit`) against
kube-apiserver's own: each pod is created with a server-side dry run, which runs defaulting
and the admission chain (ExtendedResourceToleration on, as in GKE) and stores nothing, and
what scheduling reads of the result (every container's requests and limits, the
tolerations in order) must equal what `tightpack admit --extended-resource-toleration`
makes of the same pod. The pods come from the real clients where one makes them: KubeSpawner
with zero-to-jupyterhub's settings and a GPU profile, the dask-kubernetes operator's worker
Deployment with a GPU limit, dask-gateway's worker; the rest are edge cases of the rules."""

from __future__ import annotations

import copy
import json
import subprocess

import pytest
from dask_operator import CLIENTS_PYTHON
from harness import ROOT, TIGHTPACK, parse_quantity

CLIENT_PODS = r"""
import json, os, sys, tempfile
sys.path.insert(0, sys.argv[1])
import clients, cluster, z2jh
kubeconfig = os.path.join(tempfile.mkdtemp(), "config")
open(kubeconfig, "w").write(z2jh.NOWHERE_KUBECONFIG)
os.environ["KUBECONFIG"] = kubeconfig
config = z2jh.kubespawner_config(profile_list=[cluster.CPU_PROFILE, cluster.GPU_PROFILE])
pods = {}
pods["kubespawner-gpu"] = clients.notebook("dave", config, profile="gpu")[0]
pods["kubespawner-default"] = clients.notebook("erin", config)[0]
objs = clients.operator_cluster("gpu", "jhub", 1,
                                resources={"limits": {"nvidia.com/gpu": "1", "memory": "8Gi"}})
pods["operator-gpu-worker"] = clients.replicaset_and_pod(objs["workers"][0])[1]
gw = clients.gateway_cluster(clients.gateway_config(
    worker_extra_pod_config=cluster.GATEWAY_WORKER_POD_CONFIG), "frank",
    {"worker_cores": 2, "worker_memory": 8}, 1)
pods["gateway-worker"] = gw["workers"][0]
print(json.dumps(pods))
"""


def _container(resources: dict, name: str = "c") -> dict:
    return {"name": name, "image": "registry.k8s.io/pause:3.10", "resources": resources}


GPU_EXISTS = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
EDGE_CASES = {
    # A matching toleration with tolerationSeconds is replaced; an Equal one is kept.
    "replaced-toleration": {"containers": [_container({"requests": {"nvidia.com/gpu": "1"},
                                                       "limits": {"nvidia.com/gpu": "1"}})],
                            "tolerations": [dict(GPU_EXISTS, tolerationSeconds=30),
                                            {"key": "nvidia.com/gpu", "operator": "Equal",
                                             "value": "present", "effect": "NoSchedule"}]},
    "equal-toleration": {"containers": [_container({"limits": {"nvidia.com/gpu": "2"}})],
                         "tolerations": [dict(GPU_EXISTS)]},
    # Sorted, init containers too; hugepages and a kubernetes.io resource are not extended.
    "several-resources": {
        "containers": [_container({"limits": {"nvidia.com/gpu": "1", "example.com/Fpga_X": "1",
                                              "cpu": "1", "memory": "1Gi", "hugepages-2Mi": "2Mi"}})],
        "initContainers": [_container({"requests": {"amd.com/gpu": "1"},
                                       "limits": {"amd.com/gpu": "1"}}, "init")]},
    # The default toleration seconds: an empty key tolerates both taints ...
    "tolerates-everything": {"containers": [_container({})], "tolerations": [{"operator": "Exists"}]},
    # ... an empty effect tolerates NoExecute; a NoSchedule one does not.
    "tolerates-one": {"containers": [_container({})], "tolerations": [
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists"},
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"}]},
    "no-resources": {"containers": [_container({})]},
}


def _client_pods() -> dict:
    r = subprocess.run([str(CLIENTS_PYTHON), "-c", CLIENT_PODS, str(ROOT / "tests" / "clients")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


def _for_create(pod: dict, namespace: str, name: str) -> dict:
    p = copy.deepcopy(pod)
    meta = p.setdefault("metadata", {})
    for key in ("uid", "resourceVersion", "creationTimestamp", "ownerReferences", "generateName"):
        meta.pop(key, None)
    meta.update(name=name, namespace=namespace)
    p["spec"].pop("nodeName", None)
    p.pop("status", None)
    return p


def _scheduling_view(pod: dict) -> dict:
    """What of admission's work scheduling reads: resources by container (quantities as numbers:
    the API server writes them in canonical form) and the tolerations in order."""
    def resources(containers):
        return {c["name"]: {part: {k: parse_quantity(v) for k, v in (c.get("resources") or {}).get(part, {}).items()}
                            for part in ("requests", "limits")}
                for c in containers or []}
    return {"containers": resources(pod["spec"].get("containers")),
            "initContainers": resources(pod["spec"].get("initContainers")),
            "tolerations": pod["spec"].get("tolerations") or []}


def _tightpack_admit(pod: dict) -> dict:
    r = subprocess.run([str(TIGHTPACK), "admit", "--extended-resource-toleration", "-"],
                       input=json.dumps(pod), capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def client_pods():
    return _client_pods()


@pytest.mark.parametrize("case", ["kubespawner-gpu", "kubespawner-default", "operator-gpu-worker",
                                  "gateway-worker", *EDGE_CASES])
def test_tightpack_admits_as_kube_apiserver(cluster, client_pods, case):
    pod = client_pods[case] if case in client_pods else {"apiVersion": "v1", "kind": "Pod",
                                                          "spec": copy.deepcopy(EDGE_CASES[case])}
    manifest = _for_create(pod, cluster.ns, case)
    stored = cluster.api.post(f"/api/v1/namespaces/{cluster.ns}/pods", manifest, params={"dryRun": "All"})
    ours = _tightpack_admit(manifest)
    assert _scheduling_view(ours["pod"]) == _scheduling_view(stored)
    # The changes listed are the differences from what was sent, each once.
    added = [c["toleration"] for c in ours["admission"] if "toleration" in c]
    sent = manifest["spec"].get("tolerations") or []
    assert all(t in stored["spec"]["tolerations"] for t in added)
    assert all(t not in sent for t in added)
    if case in ("kubespawner-gpu", "operator-gpu-worker"):
        assert GPU_EXISTS in stored["spec"]["tolerations"], "the API server runs ExtendedResourceToleration"
