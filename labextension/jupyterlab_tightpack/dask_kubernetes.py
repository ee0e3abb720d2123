"""The worker template of dask-kubernetes' operator KubeCluster, from the Dask config.

The keys and defaults are those of dask-kubernetes' config file
(dask/dask-kubernetes, dask_kubernetes/kubernetes.yaml, section ``kubernetes:``) as the
operator KubeCluster reads them
(dask_kubernetes/operator/kubecluster/kubecluster.py, KubeCluster.__init__):

    kubernetes.name                 "dask-{user}-{uuid}"
    kubernetes.namespace            null (the notebook's namespace)
    kubernetes.image                "ghcr.io/dask/dask:latest"
    kubernetes.count.start          0      (n_workers)
    kubernetes.resources            {}     (only "limits" and "requests" keys)
    kubernetes.env                  {}     (a mapping, or a list of k8s env entries)
    kubernetes.worker-command       "dask-worker"
    kubernetes.custom-cluster-spec  null   (path to a DaskCluster manifest, or the manifest)

Without a custom cluster spec the worker pod is make_worker_spec()'s (same file): one
container "worker" with the image, args worker-command + ["--name", "$(DASK_WORKER_NAME)",
"--dashboard", "--dashboard-address", "8788"], env, resources and port 8788
(http-dashboard). With one, the pod spec is its spec.worker.spec and the count its
spec.worker.replicas. The operator's controller labels worker pods with
dask.org/cluster-name, dask.org/workergroup-name and dask.org/component=worker.
"""

from __future__ import annotations

import copy
import getpass
import os
from typing import Any, Optional

from .dask_config import DaskConfig
from .parsing import DocumentError, load_document

DEFAULTS = {
    "name": "dask-{user}-{uuid}",
    "namespace": None,
    "image": "ghcr.io/dask/dask:latest",
    "count.start": 0,
    "resources": {},
    "env": {},
    "worker-command": "dask-worker",
    "custom-cluster-spec": None,
}


def _setting(cfg: DaskConfig, key: str) -> Any:
    return cfg.get(f"kubernetes.{key}", DEFAULTS[key])


def _pod_name(name: str) -> str:
    try:
        user = getpass.getuser()
    except Exception:
        user = "user"
    try:
        return name.format(user=user, uuid="template00", **os.environ)
    except (KeyError, IndexError, ValueError):
        return "dask"


def _env_list(env: Any) -> list:
    if isinstance(env, dict):
        return [{"name": str(k), "value": str(v)} for k, v in env.items()]
    if isinstance(env, list):
        return env
    return []


def _check_resources(resources: Any) -> Optional[str]:
    """KubeCluster's own check: a mapping whose keys are limits/requests, each a mapping."""
    if resources is None:
        return None
    if not isinstance(resources, dict):
        return f"must be a mapping, found {type(resources).__name__}"
    for key, value in resources.items():
        if key not in ("limits", "requests"):
            return f"unknown field {key!r} (KubeCluster accepts limits and requests)"
        if not isinstance(value, dict):
            return f"{key} must be a mapping"
    return None


def _load_custom_spec(value: Any) -> tuple:
    """(manifest, path or None, error or None)."""
    if isinstance(value, dict):
        return value, None, None
    path = os.path.expanduser(str(value))
    name = f"custom cluster spec {path} (Dask config kubernetes.custom-cluster-spec)"
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return None, path, f"{name}: no such file"
    except (OSError, UnicodeDecodeError) as exc:
        return None, path, f"{name}: {exc}"
    try:
        manifest = load_document(text, name)
    except DocumentError as exc:
        return None, path, str(exc)
    return manifest, path, None


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def worker_group(manifest: Any, where: str,
                 expected: str = "a DaskCluster or a DaskWorkerGroup") -> tuple:
    """A DaskCluster's default worker group or a DaskWorkerGroup, as the operator's controller
    reads them: (cluster name or None, worker group name or None, namespace or None, replicas
    or None, pod spec), or a ValueError naming what is missing."""
    kind = manifest.get("kind") if isinstance(manifest, dict) else None
    spec = manifest.get("spec") if isinstance(manifest, dict) else None
    worker = spec.get("worker") if isinstance(spec, dict) else None
    pod_spec = worker.get("spec") if isinstance(worker, dict) else None
    if not isinstance(pod_spec, dict):
        raise ValueError(f"{where}: no spec.worker.spec (the worker pod spec) in this "
                         f"{kind or 'document'}; expected {expected}")
    meta = manifest.get("metadata") if isinstance(manifest.get("metadata"), dict) else {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else None
    replicas = worker.get("replicas") if _is_count(worker.get("replicas")) else None
    if kind == "DaskWorkerGroup":
        # The controller names a group's Deployments after the DaskWorkerGroup, which
        # KubeCluster.add_worker_group calls "<cluster>-<group>".
        cluster = spec.get("cluster") if isinstance(spec.get("cluster"), str) else None
        return cluster, name, meta.get("namespace"), replicas, copy.deepcopy(pod_spec)
    group = f"{name}-default" if name else None
    return name, group, meta.get("namespace"), replicas, copy.deepcopy(pod_spec)


def worker_annotations(manifest: Any) -> dict:
    """spec.worker.metadata.annotations of a DaskCluster or DaskWorkerGroup, which the
    operator's controller puts on every worker (build_worker_deployment_spec)."""
    spec = manifest.get("spec") if isinstance(manifest, dict) else None
    worker = spec.get("worker") if isinstance(spec, dict) else None
    meta = worker.get("metadata") if isinstance(worker, dict) else None
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if not isinstance(annotations, dict):
        return {}
    return {str(k): str(v) for k, v in annotations.items()}


def worker_pod(cluster: str, group: str, namespace: str, pod_spec: dict,
               annotations: Optional[dict] = None) -> dict:
    """The pod of a worker group, with the labels and annotations the operator's controller
    gives it, owned as it will be: each worker is a one-replica Deployment, so its pod's
    controller is a ReplicaSet (what cluster-autoscaler's drain rules read, in the engine)."""
    metadata: dict = {
        "name": f"{group}-worker",
        "namespace": namespace,
        "labels": {
            "dask.org/cluster-name": cluster,
            "dask.org/workergroup-name": group,
            "dask.org/component": "worker",
        },
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                             "name": f"{group}-worker", "uid": "", "controller": True,
                             "blockOwnerDeletion": True}],
    }
    if annotations:
        metadata["annotations"] = dict(annotations)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": pod_spec}


def manifest_template(manifest: Any, where: str, notebook_namespace: str) -> dict:
    """The template of a DaskCluster's default worker group (make_cluster_spec's output) or of
    a DaskWorkerGroup, created in the notebook's namespace unless the manifest names one.
    ValueError when it is neither."""
    cluster, group, namespace, replicas, pod_spec = worker_group(manifest, where)
    cluster = cluster or "dask"
    group = group or f"{cluster}-default"
    namespace = namespace if isinstance(namespace, str) and namespace else notebook_namespace
    containers = pod_spec.get("containers")
    container = containers[0] if isinstance(containers, list) and containers else {}
    container = container if isinstance(container, dict) else {}
    return {
        "id": f"dask-kubernetes:{group}",
        "name": f"KubeCluster worker group {group}",
        "source": "dask-kubernetes",
        "description": f"{manifest.get('kind')} in namespace {namespace}",
        "pod": worker_pod(cluster, group, namespace, pod_spec, worker_annotations(manifest)),
        "workers": replicas or 0,
        "start": {
            "kind": "kubecluster",
            "name": cluster,
            "namespace": namespace,
            "image": container.get("image") or DEFAULTS["image"],
            "resources": container.get("resources") or {},
            "env": container.get("env") or {},
            "customClusterSpec": None,
        },
        "notes": [f"worker pod spec from {where}"],
    }


def template(cfg: DaskConfig, notebook_namespace: str) -> tuple:
    """(template or None, errors)."""
    errors: list = []
    notes: list = []
    configured = cfg.has("kubernetes")
    name = str(_setting(cfg, "name"))
    namespace = _setting(cfg, "namespace") or notebook_namespace
    image = _setting(cfg, "image")
    env = _setting(cfg, "env")
    resources = _setting(cfg, "resources")
    workers = _setting(cfg, "count.start")
    workers = workers if _is_count(workers) else 0
    custom = _setting(cfg, "custom-cluster-spec")
    custom_path = None
    annotations: dict = {}

    if custom:
        manifest, custom_path, error = _load_custom_spec(custom)
        if error:
            return None, [error]
        where = f"custom cluster spec {custom_path}" if custom_path else \
            "custom cluster spec (Dask config kubernetes.custom-cluster-spec)"
        try:
            cluster, _, manifest_namespace, replicas, pod_spec = worker_group(
                manifest, where, "a DaskCluster")
        except ValueError as exc:
            return None, [str(exc)]
        name = cluster or name
        namespace = manifest_namespace or namespace
        annotations = worker_annotations(manifest)
        if replicas is not None:
            workers = replicas
        notes.append(f"worker pod spec from {where}")
        display = "KubeCluster worker"
        description = f"DaskCluster {name}: spec.worker of {custom_path or 'the Dask config'}"
    else:
        problem = _check_resources(resources)
        if problem:
            return None, [f"Dask config kubernetes.resources: {problem}"]
        command = _setting(cfg, "worker-command")
        command = command.split(" ") if isinstance(command, str) else list(command or [])
        container = {
            "name": "worker",
            "image": image,
            "args": command + ["--name", "$(DASK_WORKER_NAME)", "--dashboard",
                               "--dashboard-address", "8788"],
            "env": _env_list(env),
            "resources": copy.deepcopy(resources) if resources else {},
            "ports": [{"name": "http-dashboard", "containerPort": 8788, "protocol": "TCP"}],
        }
        pod_spec = {"containers": [container]}
        if not resources:
            notes.append("no kubernetes.resources in the Dask config: the worker requests "
                         "no CPU or memory, so it fits any node")
        if configured:
            display = "KubeCluster worker"
            description = f"KubeCluster with {image}"
        else:
            display = "KubeCluster worker (defaults)"
            description = f"KubeCluster with dask-kubernetes' defaults ({image})"
            notes.append("no kubernetes section in the Dask configuration: "
                         "dask-kubernetes' defaults")
    if configured and cfg.files:
        notes.append("Dask configuration: " + ", ".join(cfg.files))
    if workers == 0:
        notes.append("KubeCluster starts with kubernetes.count.start = 0 workers: "
                     "cluster.scale(n) adds them")

    pod_name = _pod_name(name)
    return {
        "id": "dask-kubernetes",
        "name": display,
        "source": "dask-kubernetes",
        "description": description,
        "pod": worker_pod(pod_name, f"{pod_name}-default", namespace, pod_spec, annotations),
        "workers": workers,
        "start": {
            "kind": "kubecluster",
            "name": name,
            "namespace": namespace,
            "image": image,
            "resources": resources if resources is not None else {},
            "env": env if env is not None else {},
            "customClusterSpec": custom_path,
        },
        "notes": notes,
    }, errors
