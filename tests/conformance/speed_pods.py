#!/usr/bin/env python3
"""The pods speed.sh times: a scenario from a `generate.py --big` cluster and
K pods of one kind (speed.sh --help lists them).

usage: speed_pods.py CLUSTER.jsonl PROFILE K KIND > SCENARIO.json
"""
import copy
import json
import sys

NOTEBOOK = {
    "metadata": {"name": "jupyter-user", "namespace": "jhub", "labels": {"component": "singleuser-server"}},
    "spec": {"containers": [{"name": "notebook", "image": "jupyter/scipy-notebook:2024-05-01",
                             "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}],
             "tolerations": [{"key": "hub.jupyter.org/dedicated", "operator": "Equal", "value": "user",
                              "effect": "NoSchedule"}],
             "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                 {"weight": 100, "preference": {"matchExpressions": [
                     {"key": "hub.jupyter.org/node-purpose", "operator": "In", "values": ["user"]}]}}]}}}}
WORKER_TOLERATIONS = [{"key": "k8s.dask.org/dedicated", "operator": "Equal", "value": "worker",
                       "effect": "NoSchedule"}]


def home_claims(scenario, k):
    """Notebooks of new users: each its own home claim, waiting for its first
    consumer on the cluster's default class."""
    claims = scenario.setdefault("persistentVolumeClaims", [])
    pods = []
    for i in range(k):
        p = copy.deepcopy(NOTEBOOK)
        p["metadata"]["name"] = f"jupyter-new{i}"
        p["spec"]["volumes"] = [{"name": "home", "persistentVolumeClaim": {"claimName": f"claim-new{i}"}}]
        claims.append({"metadata": {"name": f"claim-new{i}", "namespace": "jhub"},
                       "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}},
                                "storageClassName": "standard-rwo"},
                       "status": {"phase": "Pending"}})
        pods.append(p)
    return pods


def operator_workers(scenario, k):
    """dask-kubernetes operator workers: a one-replica Deployment each, so a
    ReplicaSet each that selects its own pod only."""
    rss = scenario.setdefault("replicaSets", [])
    pods = []
    for i in range(k):
        worker = f"dc0-default-worker-new{i:04d}"
        rs = f"{worker}-5f6d8"
        rss.append({"metadata": {"name": rs, "namespace": "dask"}, "spec": {"selector": {
            "matchLabels": {"dask.org/cluster-name": "dc0", "dask.org/worker-name": worker}}}})
        pods.append({"metadata": {
            "name": f"{rs}-q8z2w", "namespace": "dask",
            "labels": {"dask.org/cluster-name": "dc0", "dask.org/component": "worker",
                       "dask.org/workergroup-name": "default", "dask.org/worker-name": worker},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs,
                                 "uid": f"uid-new-{i}", "controller": True}]},
            "spec": {"containers": [{"name": "worker", "image": "ghcr.io/dask/dask:2024.5.0-py3.11",
                                     "resources": {"requests": {"cpu": "1", "memory": "4Gi"}}}],
                     "tolerations": WORKER_TOLERATIONS}})
    return pods


def node_placeholders(k):
    """2i2c's node-placeholder: one per node, evicted by any user pod."""
    labels = {"app": "node-placeholder", "component": "placeholder"}
    return [{"metadata": {"name": f"node-placeholder-{i}", "namespace": "jhub", "labels": dict(labels)},
             "spec": {"priority": -10,
                      "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.9",
                                      "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}],
                      "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                          {"labelSelector": {"matchLabels": dict(labels)},
                           "topologyKey": "kubernetes.io/hostname"}]}}}}
            for i in range(k)]


def spread_workers(k):
    """k replicas of one Dask worker template spread over zones (hard) and
    nodes (soft)."""
    app = {"app": "dask-worker-spread", "dask.org/cluster-name": "spread"}
    return [{"metadata": {"name": "spread-worker", "namespace": "dask", "labels": app}, "replicas": k,
             "spec": {"containers": [{"name": "worker", "image": "ghcr.io/dask/dask:2024.5.0-py3.11",
                                      "resources": {"requests": {"cpu": "250m", "memory": "1Gi"}}}],
                      "tolerations": WORKER_TOLERATIONS,
                      "topologySpreadConstraints": [
                          {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                           "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": app}},
                          {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                           "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": app}}]}}]


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    cluster, profile, k, kind = argv[0], argv[1], int(argv[2]), argv[3]
    scenario = dict(json.loads(open(cluster).read())["scenario"])
    scenario["profile"] = profile
    if kind == "notebook":
        incoming = [dict(NOTEBOOK, replicas=k)]
    elif kind == "home-claim":
        incoming = home_claims(scenario, k)
    elif kind == "operator-worker":
        incoming = operator_workers(scenario, k)
    elif kind == "anti-affinity":
        incoming = node_placeholders(k)
    elif kind == "spread":
        incoming = spread_workers(k)
    else:
        print(f"speed_pods.py: unknown kind {kind}", file=sys.stderr)
        return 2
    scenario["incoming"] = incoming
    json.dump(scenario, sys.stdout, separators=(",", ":"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
