"""KubeSpawner's configuration as zero-to-jupyterhub 4.4.0 makes it from its default values.

The chart's hub runs jupyterhub/files/hub/jupyterhub_config.py, which turns the chart's
values (jupyterhub/values.yaml) into KubeSpawner traits. That file cannot run here (it
reads the chart's mounted Secret and ConfigMap), so this module sets the same traits for
the keys that shape a user pod's scheduling, from the defaults of 4.4.0's values.yaml.
Everything after that - the pod, the claim, the profile's overrides - is KubeSpawner's own
code (clients.notebook).

values.yaml (4.4.0)                           jupyterhub_config.py -> KubeSpawner trait
(the chart's name, version, release)          common_labels (app, release, chart, and their
                                                app.kubernetes.io/ names; NetworkPolicies
                                                select user pods by them)
singleuser.extraLabels network-access-hub     extra_labels
singleuser.memory.guarantee 1G                mem_guarantee
singleuser.uid 1000, fsGid 100                uid, fs_gid
singleuser.storage.type dynamic               storage_pvc_ensure, volumes, volume_mounts:
  capacity 10Gi, storageAccessModes [RWO],      "volume-{user_server}" -> claim "{pvc_name}"
  volumeNameTemplate volume-{user_server},      mounted at /home/jovyan
  homeMountPath /home/jovyan
singleuser.storage.type static, pvcName       one "home" volume on that claim, subPath {username}
singleuser.cloudMetadata.blockWithIptables    init_containers: "block-cloud-metadata"
scheduling.userScheduler.enabled true         scheduler_name "<release>-user-scheduler"
scheduling.userPods.tolerations               tolerations (dedicated=user, both spellings)
scheduling.userPods.nodeAffinity              node_affinity_preferred (weight 100,
  .matchNodePurpose prefer                      hub.jupyter.org/node-purpose In [user])
singleuser.profileList                        profile_list
"""

from __future__ import annotations

import copy

from traitlets.config import Config  # noqa: F401 (tests build bare configs)

# KubeSpawner loads a kubeconfig even when it builds pods without a cluster (its _mock mode):
# one that points nowhere serves.
NOWHERE_KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: nowhere, cluster: {server: "https://127.0.0.1:9"}}]
users: [{name: nobody, user: {token: unused}}]
contexts: [{name: nowhere, context: {cluster: nowhere, user: nobody}}]
current-context: nowhere
"""

RELEASE = "jhub"  # the Helm release name: get_name("user-scheduler") is "<release>-user-scheduler"
NODE_PURPOSE = {"matchExpressions": [{"key": "hub.jupyter.org/node-purpose",
                                      "operator": "In", "values": ["user"]}]}
USER_TOLERATIONS = [
    {"key": "hub.jupyter.org/dedicated", "operator": "Equal", "value": "user",
     "effect": "NoSchedule"},
    {"key": "hub.jupyter.org_dedicated", "operator": "Equal", "value": "user",
     "effect": "NoSchedule"},
]


def kubespawner_config(*, namespace: str = "jhub", storage: str = "dynamic",
                       static_claim: str = "home-nfs", storage_class: str | None = None,
                       match_node_purpose: str = "prefer", user_scheduler: bool = True,
                       profile_list: list | None = None) -> Config:
    """The KubeSpawner traits of a zero-to-jupyterhub 4.4.0 hub with default values, but for
    the few a hub commonly changes (the keyword arguments, named after the chart's values)."""
    c = Config()
    k = c.KubeSpawner
    k.namespace = namespace
    k.common_labels = {"app.kubernetes.io/name": "jupyterhub", "app": "jupyterhub",
                       "app.kubernetes.io/instance": RELEASE, "release": RELEASE,
                       "helm.sh/chart": "jupyterhub-4.4.0", "chart": "jupyterhub-4.4.0",
                       "app.kubernetes.io/managed-by": "kubespawner"}
    k.extra_labels = {"hub.jupyter.org/network-access-hub": "true"}
    k.mem_guarantee = "1G"
    k.uid = 1000
    k.fs_gid = 100
    k.image = "quay.io/jupyterhub/k8s-singleuser-sample:4.4.0"
    k.allow_privilege_escalation = False
    k.events_enabled = True
    k.start_timeout = 300
    if user_scheduler:
        k.scheduler_name = f"{RELEASE}-user-scheduler"
    if match_node_purpose == "prefer":
        k.node_affinity_preferred = [{"weight": 100, "preference": copy.deepcopy(NODE_PURPOSE)}]
    elif match_node_purpose == "require":
        k.node_affinity_required = [copy.deepcopy(NODE_PURPOSE)]
    k.tolerations = copy.deepcopy(USER_TOLERATIONS)
    if storage == "dynamic":
        k.storage_pvc_ensure = True
        if storage_class is not None:
            k.storage_class = storage_class
        k.storage_access_modes = ["ReadWriteOnce"]
        k.storage_capacity = "10Gi"
        k.volumes = {"volume-{user_server}": {"name": "volume-{user_server}",
                                              "persistentVolumeClaim": {"claimName": "{pvc_name}"}}}
        k.volume_mounts = {"volume-{user_server}": {"mountPath": "/home/jovyan",
                                                    "name": "volume-{user_server}"}}
    elif storage == "static":
        k.volumes = {"home": {"name": "home", "persistentVolumeClaim": {"claimName": static_claim}}}
        k.volume_mounts = {"home": {"mountPath": "/home/jovyan", "name": "home",
                                    "subPath": "{username}"}}
    k.init_containers = [{
        "name": "block-cloud-metadata",
        "image": "quay.io/jupyterhub/k8s-network-tools:4.4.0",
        "command": ["iptables", "--append", "OUTPUT", "--protocol", "tcp", "--destination",
                    "169.254.169.254", "--destination-port", "80", "--jump", "DROP"],
        "securityContext": {"privileged": True, "runAsUser": 0,
                            "capabilities": {"add": ["NET_ADMIN"]}},
        "resources": {},
    }]
    if profile_list:
        k.profile_list = profile_list
    return c
