"""Kubernetes objects made by the real clients' own code, as a hub gets them.

- notebook(): KubeSpawner 7 (jupyterhub-kubespawner on PyPI) builds the user pod and its
  home claim with get_pod_manifest() and get_pvc_manifest(), from a zero-to-jupyterhub
  configuration (z2jh.py) and the user's profile choice (load_user_options()).
- operator_cluster(): dask-kubernetes' operator (dask_kubernetes.operator) - the DaskCluster
  from KubeCluster's make_cluster_spec(), then the controller's own builders for the
  scheduler Deployment, its Service and one Deployment per worker, as
  daskcluster_create_components() and daskworkergroup_replica_update() call them.
- gateway_cluster(): dask-gateway-server's Kubernetes backend - the cluster configuration
  from the server's options and KubeClusterConfig traits, then KubeController.make_pod()
  for the scheduler and the workers, with the owner references the controller sets.

What no client code makes here is the work of kube-controller-manager: a Deployment's
ReplicaSet and the ReplicaSet's pod (replicaset_and_pod(), a test double that follows
pkg/controller/deployment and pkg/controller/replicaset: pod-template-hash label, controller
owner references, generated names), and the API server's defaulting of what the clients
leave out (namespace, uid, quantities written as JSON numbers are kept as the client wrote
them: tightpack must read them as the API server does).
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import uuid as uuidlib

GATEWAY_INSTANCE = "dask-gateway"  # the DaskHub release's gateway instance label


class _User:
    """What KubeSpawner reads of JupyterHub's User: its name, id and URL."""

    def __init__(self, name: str):
        self.name = name
        self.id = abs(hash(name)) % 10_000
        self.url = f"/user/{name}/"


def _uid(*parts: str) -> str:
    return str(uuidlib.UUID(hashlib.sha256("/".join(parts).encode()).hexdigest()[:32]))


# ----------------------------------------------------------------------------- KubeSpawner
def notebook(user: str, config, profile: str | None = None,
             state: dict | None = None) -> tuple[dict, dict | None]:
    """(pod, claim or None) as KubeSpawner creates them for `user`'s default server; `state`
    is what the hub kept of an earlier spawn (load_state: a remembered pvc_name)."""
    from kubernetes_asyncio.client import ApiClient
    from kubespawner import KubeSpawner

    async def build():
        spawner = KubeSpawner(_mock=True, config=config, user=_User(user))
        if state:
            spawner.load_state(state)
        spawner.user_options = {"profile": profile} if profile else {}
        await spawner.load_user_options()
        async with ApiClient() as api:  # the JSON the client sends, as it serialises it
            pod = api.sanitize_for_serialization(await spawner.get_pod_manifest())
            claim = (api.sanitize_for_serialization(spawner.get_pvc_manifest())
                     if spawner.storage_pvc_ensure else None)
        return spawner.namespace, pod, claim

    namespace, pod, claim = asyncio.run(build())
    pod["metadata"]["namespace"] = namespace
    pod["metadata"]["uid"] = _uid(namespace, "pod", pod["metadata"]["name"])
    if claim is not None:
        claim["metadata"]["namespace"] = namespace
    return pod, claim


def kubespawner_names(user: str, config, templates: list) -> list:
    """KubeSpawner's own expansion of each template for `user`'s default server."""
    from kubespawner import KubeSpawner

    async def expand():
        spawner = KubeSpawner(_mock=True, config=config, user=_User(user))
        return [spawner._expand_user_properties(t) for t in templates]

    return asyncio.run(expand())


# ----------------------------------------------------- dask-kubernetes operator (KubeCluster)
def operator_cluster(name: str, namespace: str, n_workers: int, *,
                     resources: dict | None = None, worker_annotations: dict | None = None,
                     worker_tolerations: list | None = None, cluster_labels: dict | None = None,
                     image: str = "ghcr.io/dask/dask:2026.3.0") -> dict:
    """The objects the operator makes for KubeCluster(name=..., n_workers=..., resources=...):
    {"daskcluster", "scheduler": Deployment, "service": Service, "workers": [Deployment]}.
    worker_annotations, worker_tolerations and cluster_labels edit the DaskCluster before it is
    created, as a user does with KubeCluster(custom_cluster_spec=make_cluster_spec(...) edited)."""
    from dask_kubernetes.operator.controller import controller
    from dask_kubernetes.operator.kubecluster.kubecluster import make_cluster_spec

    # env={} as KubeCluster passes it (kubernetes.env's default); with None the DaskCluster
    # holds "env": null, which the API server would prune before the operator sees it.
    cluster = make_cluster_spec(name=name, image=image, n_workers=n_workers,
                                resources=resources or {}, env={})
    cluster["metadata"].update(namespace=namespace, uid=_uid(namespace, "daskcluster", name))
    if cluster_labels:
        cluster["metadata"].setdefault("labels", {}).update(cluster_labels)
    if worker_annotations:
        cluster["spec"]["worker"].setdefault("metadata", {}).setdefault(
            "annotations", {}).update(worker_annotations)
    if worker_tolerations:
        cluster["spec"]["worker"]["spec"]["tolerations"] = copy.deepcopy(worker_tolerations)
    meta = cluster["metadata"]
    annotations = controller._get_annotations(_Meta(meta))
    labels = controller._get_labels(_Meta(meta))

    scheduler_spec = cluster["spec"]["scheduler"]
    s_ann, s_lab = dict(annotations), dict(labels)
    s_ann.update((scheduler_spec.get("metadata") or {}).get("annotations") or {})
    s_lab.update((scheduler_spec.get("metadata") or {}).get("labels") or {})
    scheduler = controller.build_scheduler_deployment_spec(name, scheduler_spec.get("spec"),
                                                           s_ann, s_lab)
    service = controller.build_scheduler_service_spec(name, scheduler_spec.get("service"),
                                                      s_ann, s_lab)
    for obj in (scheduler, service):
        _adopt(obj, cluster)

    # The default worker group: build_default_worker_group_spec, then its replica handler.
    group = controller.build_default_worker_group_spec(name, cluster["spec"]["worker"],
                                                       dict(annotations), dict(labels))
    group["metadata"].update(namespace=namespace,
                             uid=_uid(namespace, "daskworkergroup", group["metadata"]["name"]))
    worker_spec = group["spec"]["worker"]
    w_ann, w_lab = controller._get_annotations(_Meta(group["metadata"])), \
        controller._get_labels(_Meta(group["metadata"]))
    w_ann.update((worker_spec.get("metadata") or {}).get("annotations") or {})
    w_lab.update((worker_spec.get("metadata") or {}).get("labels") or {})
    workers = []
    for i in range(worker_spec.get("replicas", n_workers)):
        deployment = controller.build_worker_deployment_spec(
            worker_group_name=group["metadata"]["name"], namespace=namespace, cluster_name=name,
            uuid=hashlib.sha256(f"{name}/{i}".encode()).hexdigest()[:10],
            pod_spec=worker_spec["spec"], annotations=w_ann, labels=w_lab)
        _adopt(deployment, group)
        # kopf.label(data, labels=cluster.labels) labels the Deployment alone (nested=None);
        # its pods have the DaskCluster's labels through the worker group's (w_lab).
        deployment["metadata"].setdefault("labels", {}).update(meta.get("labels") or {})
        workers.append(deployment)
    for obj in [scheduler, service, *workers]:
        obj["metadata"]["namespace"] = namespace
        obj["metadata"]["uid"] = _uid(namespace, obj["kind"], obj["metadata"]["name"])
    return {"daskcluster": cluster, "group": group, "scheduler": scheduler, "service": service,
            "workers": workers}


class _Meta(dict):
    """kopf.Meta as the controller's helpers read it: .annotations and .labels."""

    def __init__(self, meta: dict):
        super().__init__(meta)
        self.annotations = dict(meta.get("annotations") or {})
        self.labels = dict(meta.get("labels") or {})


def _adopt(obj: dict, owner: dict) -> None:
    """kopf.adopt(): the owner as the controlling owner, blocking its deletion."""
    obj["metadata"]["ownerReferences"] = [{
        "apiVersion": owner["apiVersion"], "kind": owner["kind"],
        "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
        "controller": True, "blockOwnerDeletion": True}]


def replicaset_and_pod(deployment: dict) -> tuple[dict, dict]:
    """Test double for kube-controller-manager: the ReplicaSet a one-replica Deployment gets
    and that ReplicaSet's pod (pod-template-hash label on both, controller owner references,
    the pod named <rs>-<5 characters>)."""
    meta, spec = deployment["metadata"], deployment["spec"]
    template = copy.deepcopy(spec["template"])
    digest = hashlib.sha256(json.dumps(template, sort_keys=True).encode()).hexdigest()
    template_hash = "".join(c for c in digest if c in "bcdfghjklmnpqrstvwxz2456789")[:10]
    namespace = meta["namespace"]
    rs_name = f"{meta['name']}-{template_hash}"
    labels = dict(template["metadata"].get("labels") or {}, **{"pod-template-hash": template_hash})
    selector = copy.deepcopy(spec["selector"])
    selector.setdefault("matchLabels", {})["pod-template-hash"] = template_hash
    replicaset = {
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": rs_name, "namespace": namespace, "labels": labels,
                     "uid": _uid(namespace, "ReplicaSet", rs_name),
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                          "name": meta["name"], "uid": meta["uid"],
                                          "controller": True, "blockOwnerDeletion": True}]},
        "spec": {"replicas": spec.get("replicas", 1), "selector": selector,
                 "template": dict(template, metadata=dict(template["metadata"], labels=labels))},
    }
    pod_name = f"{rs_name}-{template_hash[:5]}"
    pod = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": pod_name, "namespace": namespace, "labels": labels,
                     "annotations": dict(template["metadata"].get("annotations") or {}),
                     "uid": _uid(namespace, "Pod", pod_name),
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                          "name": rs_name, "uid": replicaset["metadata"]["uid"],
                                          "controller": True, "blockOwnerDeletion": True}]},
        "spec": copy.deepcopy(template["spec"]),
    }
    return replicaset, pod


# --------------------------------------------------------------------- dask-gateway-server
def gateway_config(*, worker_extra_pod_config: dict | None = None,
                   scheduler_extra_pod_config: dict | None = None, namespace: str = "jhub"):
    """dask-gateway-server traits as the dask-gateway Helm chart sets them from its values
    (gateway.backend.{scheduler,worker}.extraPodConfig -> KubeClusterConfig), with the
    DaskHub cluster options: worker_cores (1-16, default 1), worker_memory in GiB (default 4),
    image, environment, mapped onto the cluster configuration as daskhub's
    values.yaml gateway extraConfig handler does."""
    from traitlets.config import Config
    c = Config()
    c.KubeBackend.gateway_instance = c.KubeController.gateway_instance = GATEWAY_INSTANCE
    c.KubeClusterConfig.namespace = namespace
    c.KubeClusterConfig.image = "ghcr.io/dask/dask-gateway:2026.3.0"
    if worker_extra_pod_config:
        c.KubeClusterConfig.worker_extra_pod_config = worker_extra_pod_config
    if scheduler_extra_pod_config:
        c.KubeClusterConfig.scheduler_extra_pod_config = scheduler_extra_pod_config
    return c


def daskhub_options():
    from dask_gateway_server.options import Float, Integer, Mapping, Options, String

    def handler(options):
        return {"worker_cores": options.worker_cores,
                "worker_memory": "%fG" % options.worker_memory,
                "image": options.image, "environment": options.environment}

    return Options(
        Integer("worker_cores", 1, min=1, max=16, label="Worker Cores"),
        Float("worker_memory", 4, min=1, max=32, label="Worker Memory (GiB)"),
        String("image", default="ghcr.io/dask/dask-gateway:2026.3.0", label="Image"),
        Mapping("environment", {}, label="Environment Variables"),
        handler=handler)


def gateway_cluster(config, user: str, options: dict, n_workers: int,
                    namespace: str = "jhub") -> dict:
    """The scheduler pod and worker pods of one gateway cluster:
    {"daskcluster", "scheduler": Pod, "workers": [Pod]}."""
    from dask_gateway_server.backends.kubernetes.backend import KubeClusterConfig
    from dask_gateway_server.backends.kubernetes.controller import KubeController
    from dask_gateway_server.models import User
    from dask_gateway_server.utils import FrozenAttrDict

    opts = daskhub_options()
    who = User(name=user, groups=[], admin=False)
    overrides = opts.get_configuration(opts.parse_options(options), who)
    cluster_config = KubeClusterConfig(config=config, **overrides)
    name = hashlib.sha256(f"{user}/{json.dumps(options, sort_keys=True)}".encode()).hexdigest()[:32]
    cluster = {"apiVersion": "gateway.dask.org/v1alpha1", "kind": "DaskCluster",
               "metadata": {"name": name, "namespace": namespace,
                            "uid": _uid(namespace, "DaskCluster", name)},
               "spec": {"username": user, "options": options, "config": cluster_config.to_dict()}}
    controller = KubeController(config=config)
    frozen = FrozenAttrDict(cluster["spec"]["config"])
    scheduler = controller.make_pod(namespace, name, frozen)
    scheduler["metadata"].update(namespace=namespace,
                                 uid=_uid(namespace, "Pod", scheduler["metadata"]["name"]))
    # create_scheduler_pod_if_not_exists: owned by the DaskCluster, without controller: true
    scheduler["metadata"]["ownerReferences"] = [{
        "apiVersion": cluster["apiVersion"], "kind": cluster["kind"],
        "name": name, "uid": cluster["metadata"]["uid"]}]
    workers = []
    for i in range(n_workers):
        pod = controller.make_pod(namespace, name, frozen, is_worker=True)
        # handle_scale_up: owned by the scheduler pod, without controller: true
        pod["metadata"]["ownerReferences"] = [{
            "apiVersion": "v1", "kind": "Pod", "name": scheduler["metadata"]["name"],
            "uid": scheduler["metadata"]["uid"]}]
        pod_name = pod["metadata"].pop("generateName") + f"{i:05d}"
        pod["metadata"].update(name=pod_name, namespace=namespace,
                               uid=_uid(namespace, "Pod", pod_name))
        workers.append(pod)
    return {"daskcluster": cluster, "scheduler": scheduler, "workers": workers}
