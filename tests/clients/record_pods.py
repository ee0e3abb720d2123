"""The pods the real clients make, recorded for core's test of what scheduling reads
(core/tests/scheduling_fields_test.cpp, which runs without Python): KubeSpawner's notebook
pods for the DaskHub profiles (the API server's admission of one bound to a node), the
dask-kubernetes operator's scheduler and worker pods (its Deployments' pods, with the
annotations and tolerations a user adds), and dask-gateway-server's scheduler and worker
pods. test_recorded_pods.py holds the file to what the pinned clients make today.

    PYTHONHASHSEED=0 build/clients-venv/bin/python tests/clients/record_pods.py \\
        > core/tests/data/client_pods.json
"""

from __future__ import annotations

import copy
import json
import os
import sys
import tempfile

import clients
import cluster
import z2jh

NS = "jhub"
FILE = "core/tests/data/client_pods.json"


def pods() -> list:
    out = []
    config = z2jh.kubespawner_config(namespace=NS,
                                     profile_list=[cluster.CPU_PROFILE, cluster.GPU_PROFILE])
    for user, profile in (("alice", None), ("bob", "gpu")):
        pod, _ = clients.notebook(user, config, profile)
        out.append(pod)
    out.append(cluster.bound(cluster.admit_pod(copy.deepcopy(out[0])), "user-a-0"))
    made = clients.operator_cluster(
        "alice-cluster", NS, 2, resources={"requests": {"cpu": "1", "memory": "3.5Gi"}},
        worker_annotations={"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"},
        worker_tolerations=[{"key": "k8s.dask.org/dedicated", "operator": "Exists"}])
    for deployment in (made["scheduler"], *made["workers"]):
        out.append(clients.replicaset_and_pod(deployment)[1])
    gateway = clients.gateway_cluster(clients.gateway_config(namespace=NS), "alice",
                                      {"worker_cores": 2, "worker_memory": 7.5}, 2, namespace=NS)
    out += [gateway["scheduler"], *gateway["workers"]]
    for pod in out:
        pod.setdefault("apiVersion", "v1")
        pod.setdefault("kind", "Pod")
    return out


def document() -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": pods()}, indent=1,
                      sort_keys=True) + "\n"


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as home:
        kubeconfig = os.path.join(home, "config")
        with open(kubeconfig, "w", encoding="utf-8") as f:
            f.write(z2jh.NOWHERE_KUBECONFIG)
        os.environ["KUBECONFIG"] = kubeconfig
        sys.stdout.write(document())
