"""A DaskHub on GKE as the scheduler sees it, to schedule the real clients' objects into.

Nodes, classes, CSI objects and bound volumes are written here, as the API server stores
them once GKE, the PD CSI driver and the controllers have run (no client code makes them).
The scenario format applies no admission of its own (../shared/corpus/README.md), so the
API server's admission of what the clients send is applied here: a pod's by `tightpack admit
--extended-resource-toleration` (GKE enables that plugin), the engine's admission, which
tests/scheduler/test_admission.py holds against kube-apiserver's; a claim's
DefaultStorageClass (the default class when it names none) by admit_claim.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path

TIGHTPACK = Path(os.environ.get("TIGHTPACK", Path(__file__).resolve().parents[2] / "build/release/scheduler/tightpack"))

ZONES = ("us-central1-a", "us-central1-b")
ZONE_KEY = "topology.kubernetes.io/zone"
CSI_ZONE_KEY = "topology.gke.io/zone"
DRIVER = "pd.csi.storage.gke.io"
HOME_CLASS = "standard-rwo"
USER_TAINT = {"key": "hub.jupyter.org_dedicated", "value": "user", "effect": "NoSchedule"}
WORKER_TAINT = {"key": "k8s.dask.org_dedicated", "value": "worker", "effect": "NoSchedule"}
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
# dask-gateway's worker extraPodConfig on such a hub: the worker pool's taint and label.
GATEWAY_WORKER_POD_CONFIG = {
    "tolerations": [{"key": "k8s.dask.org_dedicated", "operator": "Equal", "value": "worker",
                     "effect": "NoSchedule"}],
    "nodeSelector": {"k8s.dask.org/node-purpose": "worker"},
}
GATEWAY_SCHEDULER_POD_CONFIG = {
    "tolerations": [{"key": "hub.jupyter.org_dedicated", "operator": "Equal", "value": "user",
                     "effect": "NoSchedule"}],
    "nodeSelector": {"hub.jupyter.org/node-purpose": "user"},
}
GPU_PROFILE = {
    "display_name": "GPU (T4)", "slug": "gpu",
    "kubespawner_override": {
        "node_selector": {"cloud.google.com/gke-nodepool": "gpu-t4"},
        "extra_resource_limits": {"nvidia.com/gpu": "1"},
        "cpu_guarantee": 3, "mem_guarantee": "12G",
    },
}
CPU_PROFILE = {"display_name": "Small", "slug": "small", "default": True,
               "kubespawner_override": {"cpu_guarantee": 0.5, "mem_guarantee": "2G"}}


def node(name: str, pool: str, zone: str, cpu: str, memory: str, *, labels=None, taints=(),
         gpu: int = 0, attach_limit: int = 127) -> tuple[dict, dict]:
    """A GKE node of `pool` and its CSINode (the PD driver's attach limit)."""
    capacity = {"cpu": cpu, "memory": memory, "pods": "110", "ephemeral-storage": "100Gi"}
    if gpu:
        capacity["nvidia.com/gpu"] = str(gpu)
    n = {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": name, "labels": {
             "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
             "kubernetes.io/arch": "amd64", ZONE_KEY: zone, CSI_ZONE_KEY: zone,
             "topology.kubernetes.io/region": "us-central1",
             "cloud.google.com/gke-nodepool": pool, **(labels or {})}},
         "spec": {"taints": [dict(t) for t in taints]} if taints else {},
         "status": {"capacity": capacity, "allocatable": dict(capacity),
                    "conditions": [{"type": "Ready", "status": "True"}]}}
    csinode = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
               "metadata": {"name": name},
               "spec": {"drivers": [{"name": DRIVER, "nodeID": f"projects/hub/zones/{zone}/instances/{name}",
                                     "topologyKeys": [CSI_ZONE_KEY],
                                     "allocatable": {"count": attach_limit}}]}}
    return n, csinode


def daskhub_nodes(*, user_attach_limit_first: int = 127) -> tuple[list, list]:
    """core, user (two in zone a, one in b), Dask workers (a, b) and one T4 node (b)."""
    a, b = ZONES
    specs = [
        ("core-a-0", "core-pool", a, "4", "16Gi", {"hub.jupyter.org/node-purpose": "core"}, (), 0),
        ("user-a-0", "user-pool", a, "4", "26Gi", {"hub.jupyter.org/node-purpose": "user"},
         (USER_TAINT,), 0),
        ("user-a-1", "user-pool", a, "4", "26Gi", {"hub.jupyter.org/node-purpose": "user"},
         (USER_TAINT,), 0),
        ("user-b-0", "user-pool", b, "4", "26Gi", {"hub.jupyter.org/node-purpose": "user"},
         (USER_TAINT,), 0),
        ("worker-a-0", "dask-worker", a, "8", "52Gi", {"k8s.dask.org/node-purpose": "worker"},
         (WORKER_TAINT,), 0),
        ("worker-b-0", "dask-worker", b, "8", "52Gi", {"k8s.dask.org/node-purpose": "worker"},
         (WORKER_TAINT,), 0),
        ("gpu-b-0", "gpu-t4", b, "8", "30Gi", {"hub.jupyter.org/node-purpose": "user"},
         (USER_TAINT, GPU_TAINT), 1),
    ]
    nodes, csinodes = [], []
    for name, pool, zone, cpu, memory, labels, taints, gpu in specs:
        limit = user_attach_limit_first if name == "user-a-0" else 127
        n, c = node(name, pool, zone, cpu, memory, labels=labels, taints=taints, gpu=gpu,
                    attach_limit=limit)
        nodes.append(n)
        csinodes.append(c)
    return nodes, csinodes


def storage_classes() -> list:
    return [{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
             "metadata": {"name": HOME_CLASS, "annotations": {
                 "storageclass.kubernetes.io/is-default-class": "true"}},
             "provisioner": DRIVER, "parameters": {"type": "pd-balanced"},
             "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer",
             "allowVolumeExpansion": True}]


def admit_claim(claim: dict) -> dict:
    """DefaultStorageClass admission, and the fields the API server defaults."""
    c = copy.deepcopy(claim)
    c["spec"].setdefault("storageClassName", HOME_CLASS)
    c["spec"].setdefault("volumeMode", "Filesystem")
    c["metadata"].setdefault("uid", "claim-" + c["metadata"]["name"])
    c.setdefault("status", {"phase": "Pending"})
    return c


def admit_pod(pod: dict) -> dict:
    """The pod as the API server stores it: defaulting, DefaultTolerationSeconds and
    ExtendedResourceToleration (a toleration per extended resource requested)."""
    r = subprocess.run([str(TIGHTPACK), "admit", "--extended-resource-toleration", "-"],
                       input=json.dumps(pod), capture_output=True, text=True, timeout=30, check=True)
    return json.loads(r.stdout)["pod"]


def provisioned(claim: dict, zone: str) -> tuple[dict, dict]:
    """The claim after the PD CSI driver provisioned it in `zone` and the PV controller bound
    it: (bound claim, its PV with the driver's zone affinity)."""
    c = admit_claim(claim)
    pv_name = "pvc-" + c["metadata"]["uid"]
    size = c["spec"]["resources"]["requests"]["storage"]
    c["metadata"]["annotations"] = dict(c["metadata"].get("annotations") or {}, **{
        "pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes",
        "volume.kubernetes.io/storage-provisioner": DRIVER})
    c["spec"]["volumeName"] = pv_name
    c["status"] = {"phase": "Bound", "accessModes": list(c["spec"]["accessModes"]),
                   "capacity": {"storage": size}}
    pv = {"apiVersion": "v1", "kind": "PersistentVolume",
          "metadata": {"name": pv_name, "annotations": {"pv.kubernetes.io/provisioned-by": DRIVER}},
          "spec": {"capacity": {"storage": size}, "accessModes": list(c["spec"]["accessModes"]),
                   "claimRef": {"kind": "PersistentVolumeClaim", "apiVersion": "v1",
                                "namespace": c["metadata"]["namespace"],
                                "name": c["metadata"]["name"], "uid": c["metadata"]["uid"]},
                   "persistentVolumeReclaimPolicy": "Delete",
                   "storageClassName": c["spec"]["storageClassName"], "volumeMode": "Filesystem",
                   "csi": {"driver": DRIVER, "fsType": "ext4",
                           "volumeHandle": f"projects/hub/zones/{zone}/disks/{pv_name}"},
                   "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                       {"key": CSI_ZONE_KEY, "operator": "In", "values": [zone]}]}]}}},
          "status": {"phase": "Bound"}}
    return c, pv


def nfs_home(namespace: str, name: str = "home-nfs") -> tuple[dict, dict]:
    """A static NFS home claim, as 2i2c's basehub makes it: an RWX PV without node affinity,
    bound to the claim every user's pod mounts."""
    pv = {"apiVersion": "v1", "kind": "PersistentVolume",
          "metadata": {"name": f"{namespace}-{name}"},
          "spec": {"capacity": {"storage": "1Mi"}, "accessModes": ["ReadWriteMany"],
                   "nfs": {"server": "10.0.0.2", "path": "/homes/"},
                   "mountOptions": ["soft", "noatime", "vers=4.2"],
                   "claimRef": {"kind": "PersistentVolumeClaim", "namespace": namespace,
                                "name": name, "uid": f"claim-{name}"},
                   "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "",
                   "volumeMode": "Filesystem"},
          "status": {"phase": "Bound"}}
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": name, "namespace": namespace, "uid": f"claim-{name}",
                          "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
             "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "",
                      "volumeName": pv["metadata"]["name"], "volumeMode": "Filesystem",
                      "resources": {"requests": {"storage": "1Mi"}}},
             "status": {"phase": "Bound", "accessModes": ["ReadWriteMany"],
                        "capacity": {"storage": "1Mi"}}}
    return claim, pv


def bound(pod: dict, node_name: str) -> dict:
    p = copy.deepcopy(pod)
    p["spec"]["nodeName"] = node_name
    p["status"] = {"phase": "Running"}
    return p
