"""The sidebar's pods against the real clients' pods, for the same settings.

The sidebar's server extension (labextension/jupyterlab_tightpack) predicts the pod each
client will create from what a notebook can see: the Dask configuration for dask-kubernetes,
the gateway's cluster options for dask-gateway, a published profile for KubeSpawner. Here the
clients' own code makes the pod from the same settings, and what scheduling reads of the two
must be equal: each container's requests once the API server has defaulted them from limits
(as quantities: "8589934592" and 8589934592 and "8Gi" are one amount), node selector,
tolerations, affinity, scheduler name, priority class and claim volumes. For a profile on a
hub with home storage, the claim its pod mounts (the user's from the scheduler's /home, or the
one the first spawn creates, which must be get_pvc_manifest's) and KubeSpawner's names."""

from __future__ import annotations

import copy
import json
import subprocess
import tempfile
from decimal import Decimal

import clients
import cluster as cluster_module
import pytest
import z2jh
from conftest import TIGHTPACK
from jupyterlab_tightpack import dask_kubernetes as sidebar_operator
from jupyterlab_tightpack import gateway as sidebar_gateway
from jupyterlab_tightpack import home as sidebar_home
from jupyterlab_tightpack import kubespawner_names
from jupyterlab_tightpack import profiles as sidebar_profiles
from jupyterlab_tightpack.dask_config import DaskConfig

SUFFIX = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "m": Decimal("0.001"),
          "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def amount(q) -> Decimal:
    text = str(q)
    for suffix in sorted(SUFFIX, key=len, reverse=True):
        if suffix and text.endswith(suffix):
            return Decimal(text[: -len(suffix)]) * SUFFIX[suffix]
    return Decimal(text)


def scheduling_view(pod: dict) -> dict:
    spec = pod["spec"]

    def requests(container):
        resources = container.get("resources") or {}
        merged = dict(resources.get("limits") or {}) | dict(resources.get("requests") or {})
        return {k: amount(v) for k, v in merged.items()}

    return {
        "containers": [requests(c) for c in spec.get("containers", [])],
        "initContainers": [requests(c) for c in spec.get("initContainers") or []],
        "nodeSelector": spec.get("nodeSelector") or {},
        "tolerations": spec.get("tolerations") or [],
        "affinity": spec.get("affinity") or {},
        "schedulerName": spec.get("schedulerName") or "default-scheduler",
        "priorityClassName": spec.get("priorityClassName"),
        "claims": sorted(v["persistentVolumeClaim"]["claimName"] for v in spec.get("volumes") or []
                         if "persistentVolumeClaim" in v),
    }


def drain_view(pod: dict) -> dict:
    """What cluster-autoscaler's drain rules read of a pod (the engine's drain_of): its owners
    and which is the controller, its safe-to-evict annotations, its local volumes."""
    meta, spec = pod["metadata"], pod["spec"]
    return {
        "owners": sorted((r["apiVersion"], r["kind"], bool(r.get("controller")))
                         for r in meta.get("ownerReferences") or []),
        "annotations": {k: v for k, v in (meta.get("annotations") or {}).items()
                        if k.startswith("cluster-autoscaler.kubernetes.io/")},
        "localVolumes": sorted(v["name"] for v in spec.get("volumes") or []
                               if "emptyDir" in v or "hostPath" in v),
    }


@pytest.mark.parametrize("resources", [
    {},
    {"requests": {"cpu": "1", "memory": "4Gi"}, "limits": {"cpu": "1", "memory": "4Gi"}},
    {"limits": {"cpu": "2", "memory": "7.5G"}},
    {"requests": {"cpu": "250m", "memory": "1Gi"}},
])
def test_operator_worker_from_the_dask_config(resources):
    """KubeCluster(name, resources=...) from the Dask config's kubernetes section."""
    config = DaskConfig({"kubernetes": {"name": "alice-dask", "resources": resources,
                                        "count": {"start": 2}}}, ["test"], [])
    predicted, errors = sidebar_operator.template(config, "jhub")
    assert not errors
    made = clients.operator_cluster("alice-dask", "jhub", 2, resources=resources)
    _, pod = clients.replicaset_and_pod(made["workers"][0])
    assert scheduling_view(predicted["pod"]) == scheduling_view(pod)
    # The labels the sidebar's spread and eviction advice rely on are the operator's.
    for k, v in predicted["pod"]["metadata"]["labels"].items():
        assert pod["metadata"]["labels"][k] == v
    assert pod["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet"
    assert drain_view(predicted["pod"]) == drain_view(pod)


def test_operator_worker_from_a_custom_spec_with_worker_annotations():
    """make_cluster_spec edited with spec.worker.metadata.annotations: the operator puts them on
    every worker, and the sidebar's worker carries them (safe-to-evict: "false" keeps the
    workers from eviction)."""
    protected = {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}
    made = clients.operator_cluster("alice-dask", "jhub", 1, worker_annotations=protected)
    predicted = sidebar_operator.manifest_template(made["daskcluster"], "test", "jhub")
    _, pod = clients.replicaset_and_pod(made["workers"][0])
    assert drain_view(predicted["pod"]) == drain_view(pod)
    assert drain_view(pod)["annotations"] == protected


@pytest.mark.parametrize("options", [
    {"worker_cores": 1, "worker_memory": 4},
    {"worker_cores": 2, "worker_memory": 8.5},
    {"worker_cores": 16, "worker_memory": 32},
])
def test_gateway_worker_from_the_cluster_options(options):
    """DaskHub's options through the server's own handler and make_pod(), without a server-side
    extraPodConfig (which no client can see: the scheduler is to publish it)."""
    made = clients.gateway_cluster(clients.gateway_config(), "alice", options, 1)
    expected = made["workers"][0]
    # What the sidebar reads from GET /api/v1/options after the handler: the worker settings.
    handled = clients.daskhub_options().get_configuration(
        clients.daskhub_options().parse_options(options), None)
    predicted = sidebar_gateway.build_pod(
        {k: handled[k] for k in ("worker_cores", "worker_memory")}, "jhub")
    assert scheduling_view(predicted) == scheduling_view(expected)
    assert drain_view(predicted) == drain_view(expected)


@pytest.mark.parametrize("server", [
    {"extraPodConfig": {"tolerations": [{"key": "k8s.dask.org_dedicated", "operator": "Equal",
                                         "value": "worker", "effect": "NoSchedule"}],
                        "nodeSelector": {"k8s.dask.org/node-purpose": "worker"}}},
    {"extraPodConfig": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "cloud.google.com/gke-spot",
                                                     "operator": "In", "values": ["true"]}]}]}}},
                        "priorityClassName": "dask-workers"},
     "extraContainerConfig": {"resources": {"limits": {"memory": "12Gi"}}}},
], ids=["worker-pool", "spot-affinity-and-limit"])
def test_gateway_worker_with_the_published_server_settings(server):
    """With the gateway's own worker settings (what the tightpack scheduler publishes from the
    chart's publish.daskGateway), the sidebar's worker is the server's worker."""
    options = {"worker_cores": 2, "worker_memory": 8}
    config = clients.gateway_config(worker_extra_pod_config=server.get("extraPodConfig"))
    if "extraContainerConfig" in server:
        config.KubeClusterConfig.worker_extra_container_config = server["extraContainerConfig"]
    expected = clients.gateway_cluster(config, "alice", options, 1)["workers"][0]
    handled = clients.daskhub_options().get_configuration(
        clients.daskhub_options().parse_options(options), None)
    predicted = sidebar_gateway.build_pod(
        {k: handled[k] for k in ("worker_cores", "worker_memory")}, "jhub", server)
    assert scheduling_view(predicted) == scheduling_view(expected)


def test_gateway_rounds_cores_as_the_server_does():
    """dask-gateway-server writes cores with three decimals since 2024.1.0 (#766): a
    quarter-core worker requests 250m, not 200m."""
    predicted = sidebar_gateway.build_pod({"worker_cores": 0.25, "worker_memory": "1 G"}, "jhub")
    assert amount(predicted["spec"]["containers"][0]["resources"]["requests"]["cpu"]) == \
        Decimal("0.25")


PROFILES = [
    {"display_name": "Small", "kubespawner_override": {"cpu_guarantee": 0.5, "mem_guarantee": "2G",
                                                        "cpu_limit": 2, "mem_limit": "4G"}},
    {"display_name": "GPU (T4)", "slug": "gpu", "kubespawner_override": {
        "node_selector": {"cloud.google.com/gke-nodepool": "gpu-t4"},
        "extra_resource_limits": {"nvidia.com/gpu": "1"}, "cpu_guarantee": 3,
        "mem_guarantee": "12G",
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}},
    {"display_name": "Pinned", "kubespawner_override": {
        "node_affinity_required": [{"matchExpressions": [
            {"key": "topology.kubernetes.io/zone", "operator": "In",
             "values": ["us-central1-b"]}]}],
        "extra_pod_config": {"priorityClassName": "notebooks"}}},
    {"display_name": "Choice", "profile_options": {"size": {"display_name": "Size", "choices": {
        "s": {"display_name": "S", "kubespawner_override": {"mem_guarantee": "1G"}},
        "l": {"display_name": "L", "default": True,
              "kubespawner_override": {"mem_guarantee": "8G", "cpu_guarantee": 2}}}}}},
]


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p["display_name"])
def test_profile_on_a_hub_without_settings_of_its_own(profile):
    """A published profile alone: what the sidebar applies is what KubeSpawner applies."""
    predicted, errors = sidebar_profiles.template(copy.deepcopy(profile), 0, "jhub")
    assert not errors
    config = z2jh.Config()
    config.KubeSpawner.profile_list = [copy.deepcopy(profile)]
    pod, _ = clients.notebook("alice", config, profile=predicted["start"]["slug"])
    assert scheduling_view(predicted["pod"]) == scheduling_view(pod)


# What an operator publishes as kubespawnerDefaults for a zero-to-jupyterhub 4.4.0 hub with
# default values (the tightpack chart's publish.kubespawnerDefaults): the traits z2jh sets.
Z2JH_TRAITS = ("tolerations", "node_affinity_preferred", "node_affinity_required", "mem_guarantee",
               "scheduler_name", "extra_labels", "init_containers", "image")


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p["display_name"])
def test_profile_on_a_zero_to_jupyterhub_hub_with_its_settings_published(profile):
    """The hub's own settings under the profile: what KubeSpawner makes on a z2jh hub."""
    hub = z2jh.kubespawner_config(namespace="jhub", storage="none")
    defaults = {k: copy.deepcopy(hub.KubeSpawner[k]) for k in Z2JH_TRAITS if k in hub.KubeSpawner}
    assert defaults["tolerations"] and defaults["node_affinity_preferred"]
    predicted, errors = sidebar_profiles.template(copy.deepcopy(profile), 0, "jhub", defaults)
    assert not errors
    config = z2jh.kubespawner_config(namespace="jhub", storage="none", profile_list=[copy.deepcopy(profile)])
    pod, _ = clients.notebook("alice", config, profile=predicted["start"]["slug"])
    assert scheduling_view(predicted["pod"]) == scheduling_view(pod)
    # and without them the sidebar would have missed the hub's tolerations
    bare, _ = sidebar_profiles.template(copy.deepcopy(profile), 0, "jhub")
    assert scheduling_view(bare["pod"]) != scheduling_view(pod)


# ------------------------------------------------------------------ the home volume
# What the operator publishes of a hub's home storage (the tightpack chart's
# publish.kubespawnerDefaults): the storage traits, and the volumes cut down to their name and
# claim, a list, as the scheduler publishes them (kubespawner_volumes below).
STORAGE_TRAITS = ("storage_pvc_ensure", "storage_class", "storage_capacity",
                  "storage_access_modes", "common_labels")
HOME_USERS = ["alice", "Alice.Smith@example.org", "0day", "x" * 60]


def published(hub) -> dict:
    k = hub.KubeSpawner
    out = {t: copy.deepcopy(k[t]) for t in Z2JH_TRAITS + STORAGE_TRAITS if t in k}
    volumes = k["volumes"] if "volumes" in k else []
    if isinstance(volumes, dict):
        volumes = [volumes[key] for key in sorted(volumes)]
    out["volumes"] = [{"name": v["name"], "persistentVolumeClaim": {
        "claimName": v["persistentVolumeClaim"]["claimName"]}}
        for v in volumes if "persistentVolumeClaim" in v]
    return out


def claim_view(claim: dict) -> dict:
    """What a claim is to scheduling and to the hub: its name, namespace, spec, labels and
    the annotations the sidebar can know (not KubeSpawner's and JupyterHub's versions)."""
    meta = claim["metadata"]
    return {"name": meta["name"], "namespace": meta["namespace"], "spec": claim["spec"],
            "labels": meta.get("labels") or {},
            "annotations": {k: v for k, v in (meta.get("annotations") or {}).items()
                            if not k.endswith("-version")}}


def home_context(user, home_answer, items, namespace="jhub"):
    """What the sidebar resolves claims against: the cluster's classes (GKE's default
    standard-rwo), /home's answer and its items."""
    cluster = {"apiVersion": "v1", "kind": "List", "items": cluster_module.storage_classes()}
    cluster = sidebar_home.merge_items(cluster, items)
    return sidebar_home.HomeContext(user=user, home=home_answer, cluster=cluster,
                                    namespace=namespace)


GPU_PROFILE = PROFILES[1]


def engine_claims(cluster: dict, pod: dict) -> list:
    """What the engine says of the claims ``pod`` mounts in ``cluster`` (a placement's
    claims, from `tightpack predict`, on the DaskHub nodes): the panel words its notes from
    these."""
    nodes, csinodes = cluster_module.daskhub_nodes()
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(dict(cluster, items=nodes + csinodes + list(cluster["items"])), f)
        f.flush()
        r = subprocess.run([str(TIGHTPACK), "predict", "--cluster", f.name, "--pod", "-",
                            "--replicas", "1", "--output", "json"],
                           input=json.dumps(pod), capture_output=True, text=True, timeout=60)
    assert r.returncode in (0, 3), r.stderr  # 3: no node takes it
    return json.loads(r.stdout)["claims"]


@pytest.mark.parametrize("user", HOME_USERS)
def test_kubespawner_names_are_kubespawners(user):
    """The claim, pod and volume names the sidebar gives a user's default server."""
    templates = ["claim-{user_server}", "claim-{username}{servername}", "jupyter-{user_server}",
                 "volume-{user_server}", "{escaped_username}", "claim-{escaped_user_server}",
                 "{unescaped_username}-{safe_username}-{safe_user_server}"]
    config = z2jh.kubespawner_config(namespace="jhub")
    assert [kubespawner_names.expand(t, user, "jhub") for t in templates] == \
        clients.kubespawner_names(user, config, templates)


@pytest.mark.parametrize("storage_class", [None, "premium-rwo"])
@pytest.mark.parametrize("user", HOME_USERS)
def test_a_first_spawn_mounts_the_claim_kubespawner_creates(user, storage_class):
    """A user without a claim (/home lists none): the sidebar's pod mounts the claim
    get_pvc_manifest makes, and that claim is KubeSpawner's, class or no class."""
    config = z2jh.kubespawner_config(namespace="jhub", storage="dynamic",
                                     storage_class=storage_class,
                                     profile_list=[copy.deepcopy(GPU_PROFILE)])
    defaults = published(config)
    assert ("storage_class" in defaults) == (storage_class is not None)
    ctx = home_context(user, {"user": user, "claims": []}, [])
    claim, note = sidebar_home.first_spawn_claim(defaults, ctx)
    assert claim is not None and "your first spawn creates" in note
    ctx.cluster = sidebar_home.merge_items(ctx.cluster, [claim])
    predicted, errors = sidebar_profiles.template(copy.deepcopy(GPU_PROFILE), 0, "jhub",
                                                  defaults, ctx)
    assert not errors
    pod, made = clients.notebook(user, config, profile=predicted["start"]["slug"])
    assert scheduling_view(predicted["pod"]) == scheduling_view(pod)
    assert [v["name"] for v in predicted["pod"]["spec"]["volumes"]] == [
        v["name"] for v in pod["spec"]["volumes"] if "persistentVolumeClaim" in v]
    assert claim_view(claim) == claim_view(made)
    assert predicted["claims"] == [{"name": made["metadata"]["name"], "namespace": "jhub",
                                    "own": True, "firstSpawn": True, "homeKnown": True}]
    # The engine reads KubeSpawner's claim as the API server would: without a class it gets
    # the cluster's default one, which waits for the notebook's node; premium-rwo is not
    # in this cluster. The sidebar's pod mounts the same.
    (said,) = engine_claims(ctx.cluster, pod)
    assert (said["name"], said["storageClass"], said["defaultClass"], said["bindingMode"],
            said["bound"]) == (made["metadata"]["name"], storage_class or cluster_module.HOME_CLASS,
                               storage_class is None,
                               "WaitForFirstConsumer" if storage_class is None else None, False)
    assert engine_claims(ctx.cluster, predicted["pod"]) == [said]


@pytest.mark.parametrize("remembered", [None, "claim-alice-2023"])
def test_a_returning_user_mounts_her_claim(remembered):
    """A user whose claim /home lists, bound to a disk in zone b: the sidebar's pod mounts it,
    as KubeSpawner's does, also when KubeSpawner remembers a name the template no longer
    gives (pvc_name in the spawner's state)."""
    config = z2jh.kubespawner_config(namespace="jhub", storage="dynamic",
                                     profile_list=[copy.deepcopy(GPU_PROFILE)])
    state = {"pvc_name": remembered} if remembered else None
    pod, made = clients.notebook("alice", config, profile="gpu", state=state)
    if remembered:
        made["metadata"]["name"] = remembered
    bound, volume = cluster_module.provisioned(made, "us-central1-b")
    answer = {"user": "alice", "claims": [{"namespace": "jhub", "name": bound["metadata"]["name"],
                                           "server": "", "volume": volume["metadata"]["name"]}]}
    ctx = home_context("alice", answer, [bound, volume])
    defaults = published(config)
    assert sidebar_home.first_spawn_claim(defaults, ctx) == (None, None)
    predicted, errors = sidebar_profiles.template(copy.deepcopy(GPU_PROFILE), 0, "jhub",
                                                  defaults, ctx)
    assert not errors
    assert scheduling_view(predicted["pod"]) == scheduling_view(pod)
    assert scheduling_view(pod)["claims"] == [remembered or "claim-alice"]
    assert predicted["claims"] == [{"name": remembered or "claim-alice", "namespace": "jhub",
                                    "own": True, "firstSpawn": False, "homeKnown": True}]
    # Her disk is in zone b: the engine says so of KubeSpawner's pod and of the sidebar's.
    (said,) = engine_claims(ctx.cluster, pod)
    assert (said["bound"], said["volume"], said["zones"]) == (
        True, volume["metadata"]["name"], ["us-central1-b"])
    assert engine_claims(ctx.cluster, predicted["pod"]) == [said]


def test_a_static_shared_home_is_mounted_as_it_is():
    """singleuser.storage.type static: every user's pod mounts the one NFS claim."""
    config = z2jh.kubespawner_config(namespace="jhub", storage="static",
                                     profile_list=[copy.deepcopy(GPU_PROFILE)])
    nfs_claim, nfs_volume = cluster_module.nfs_home("jhub")
    ctx = home_context("alice", {"user": "alice", "claims": []}, [])
    ctx.cluster = sidebar_home.merge_items(ctx.cluster, [nfs_claim, nfs_volume])
    defaults = published(config)
    assert sidebar_home.first_spawn_claim(defaults, ctx) == (None, None)
    predicted, errors = sidebar_profiles.template(copy.deepcopy(GPU_PROFILE), 0, "jhub",
                                                  defaults, ctx)
    assert not errors
    pod, _ = clients.notebook("alice", config, profile="gpu")
    assert scheduling_view(predicted["pod"]) == scheduling_view(pod)
    assert predicted["claims"][0]["own"] is False
    # An NFS volume has no node affinity: any node mounts it.
    (said,) = engine_claims(ctx.cluster, pod)
    assert (said["bound"], said["zones"], said["mountableNodes"]) == (True, [], None)
    assert engine_claims(ctx.cluster, predicted["pod"]) == [said]
