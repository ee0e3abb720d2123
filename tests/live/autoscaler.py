"""The real cluster-autoscaler (tests/live/autoscaler: its own code, wired as its main does,
-tags kwok) with its kwok cloud provider: node groups from a templates ConfigMap (min and max
from their annotations), the provider's configuration from another, both in `namespace`
(POD_NAMESPACE), and test timings of seconds."""

from __future__ import annotations

import json
import os
from pathlib import Path

from harness import ROOT, Api, ControlPlane, SchedulerProcess, free_port

LIVE = ROOT / "build" / "live"
GROUP_LABEL = "cloud.google.com/gke-nodepool"  # a node's group, as GKE labels its pool
BOOT_SECONDS = "tightpack.io/boot-seconds"  # build.sh's node stages: a new node's boot time

# The status a kubelet registers its node with: Ready=False until the runtime reports. The kwok
# provider creates a node from its group's template, status and all, so each template carries
# it. A node created without a Ready condition would lose the not-ready taint the API server
# gave it (the node lifecycle controller maps conditions to taints, none to none) until kwok's
# node-booting stage posts Ready=False: a window in which a pod binds to a node still booting.
REGISTERING = ({"type": "Ready", "status": "False", "reason": "KubeletNotReady",
                "message": "container runtime status check may not have completed yet"},)


def registering_status(resources: dict, allocatable: dict | None = None) -> dict:
    """A template node's status: its resources and the conditions of a node just registered."""
    return {"capacity": resources, "allocatable": allocatable or resources,
            "conditions": [dict(c) for c in REGISTERING]}


def template_node(pool: str, min_size: int, max_size: int, cpu: str = "4", memory: str = "16Gi",
                  labels: dict | None = None, taints: list | None = None, boot_seconds: int = 0) -> dict:
    """A node group's template node, as the kwok provider reads it from its ConfigMap;
    `boot_seconds` is how long its new nodes take to become Ready (build.sh's stages)."""
    resources = {"cpu": cpu, "memory": memory, "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"{pool}-template",
                         "labels": {GROUP_LABEL: pool, "kubernetes.io/os": "linux", **(labels or {})},
                         "annotations": {"cluster-autoscaler.kwok.nodegroup/min-count": str(min_size),
                                         "cluster-autoscaler.kwok.nodegroup/max-count": str(max_size),
                                         **({BOOT_SECONDS: str(boot_seconds)} if boot_seconds else {})}},
            "spec": {"taints": taints or []},
            "status": registering_status(resources)}


def node_pools(templates: list, provisioning: str = "10s") -> dict:
    """The NodePools document a user would write for these node groups (docs/pools.md): each
    template node's labels, taints and resources, and its group's min and max, so that the
    engine's scale-up prediction sees the groups cluster-autoscaler sees."""
    pools = []
    for t in templates:
        a = t["metadata"]["annotations"]
        pools.append({"name": t["metadata"]["labels"][GROUP_LABEL],
                      "minSize": int(a["cluster-autoscaler.kwok.nodegroup/min-count"]),
                      "maxSize": int(a["cluster-autoscaler.kwok.nodegroup/max-count"]),
                      "provisioningTime": provisioning,
                      "template": {"labels": t["metadata"]["labels"], "taints": t["spec"].get("taints") or [],
                                   "capacity": t["status"]["capacity"], "allocatable": t["status"]["allocatable"]}})
    return {"apiVersion": "tightpack.io/v1alpha1", "kind": "NodePools", "pools": pools}


def install_provider_config(api: Api, namespace: str, templates: list) -> None:
    config = {"apiVersion": "v1alpha1", "readNodesFrom": "configmap",
              "nodegroups": {"fromNodeLabelKey": GROUP_LABEL},
              # the test's pods need not tolerate the provider's kwok-provider taint
              "nodes": {"skipTaint": True},
              "configmap": {"name": "kwok-provider-templates", "key": "templates"}}
    for name, key, value in (("kwok-provider-config", "config", config),
                             ("kwok-provider-templates", "templates",
                              {"apiVersion": "v1", "kind": "List", "items": templates})):
        api.post(f"/api/v1/namespaces/{namespace}/configmaps",
                 {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
                  "data": {key: json.dumps(value)}})


class ClusterAutoscaler(SchedulerProcess):
    def __init__(self, cp: ControlPlane, workdir: Path, namespace: str, scan_interval: str = "2s",
                 unneeded_time: str = "20s", delay_after_add: str = "10s", extra_args: tuple = ()):
        workdir.mkdir(parents=True, exist_ok=True)
        tag = f"cluster-autoscaler-{os.urandom(2).hex()}"
        kubeconfig = cp.write_kubeconfig(workdir / f"{tag}.kubeconfig")
        self.port = free_port()
        argv = [LIVE / "cluster-autoscaler", "--cloud-provider=kwok", f"--kubeconfig={kubeconfig}",
                f"--namespace={namespace}", f"--scan-interval={scan_interval}",
                f"--scale-down-unneeded-time={unneeded_time}", f"--scale-down-delay-after-add={delay_after_add}",
                "--scale-down-delay-after-delete=0s", "--scale-down-delay-after-failure=5s",
                # a node found unremovable (its pods bare) is looked at again in seconds, not 5 min
                "--unremovable-node-recheck-timeout=5s",
                f"--address=127.0.0.1:{self.port}", "--v=2", *extra_args]
        super().__init__(argv, workdir / f"{tag}.log", "", "cluster-autoscaler (kwok)")
        self.env = {**os.environ, "KWOK_PROVIDER_MODE": "local", "KUBECONFIG": str(kubeconfig),
                    "POD_NAMESPACE": namespace}

    def start(self, **_):
        return self.start_alive(1.0)
