"""What to add to a Dask cluster's pods so that the preload runs and knows the nodes.

dask-kubernetes operator (one `env` list for the scheduler and the workers)::

    from dask_kubernetes.operator import KubeCluster, make_cluster_spec
    from tightpack_dask.kubernetes import operator_env
    spec = make_cluster_spec(name="alice", image="...", env=operator_env())
    cluster = KubeCluster(custom_cluster_spec=spec)

dask-gateway (the server's `dask_gateway_config.py`)::

    from tightpack_dask.kubernetes import GATEWAY_SCHEDULER_CMD, NODE_NAME_ENV
    c.ClusterConfig.scheduler_cmd = GATEWAY_SCHEDULER_CMD
    c.KubeClusterConfig.worker_extra_container_config = {"env": [NODE_NAME_ENV]}

The scheduler's image needs tightpack-dask installed; the workers' does not (the scheduler
asks them for K8S_NODE_NAME over `run`).

To let tightpack's scheduler move the cluster's workers instead of cluster-autoscaler evicting
them (make before break, drain.py)::

    spec = allow_moves(make_cluster_spec(name="alice", image="...", env=operator_env()))

and on dask-gateway, a cluster option in the gateway's options handler (gateway.py)::

    def options_handler(options):
        return gateway_allow_moves({"worker_cores": options.worker_cores}, options.allow_moves)
"""

from __future__ import annotations

import json

PRELOAD = "tightpack_dask.scheduler"

# The downward API: the node the pod was bound to.
NODE_NAME_ENV = {"name": "K8S_NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}

# Who this cluster is, for the hints endpoint's question (the operator labels every pod of
# the cluster dask.org/cluster-name).
IDENTITY_ENV = [
    {"name": "TIGHTPACK_DASK_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
    {"name": "TIGHTPACK_DASK_CLUSTER",
     "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['dask.org/cluster-name']"}}},
]

# distributed reads DASK_* variables as its configuration; a preload from the configuration
# applies when the scheduler's command names none (the operator's `dask-scheduler --host ...`).
SCHEDULER_PRELOAD_ENV = {"name": "DASK_DISTRIBUTED__SCHEDULER__PRELOAD", "value": json.dumps([PRELOAD])}

# dask-gateway's scheduler command always adds `--preload dask_gateway.scheduler_preload`,
# which makes distributed ignore configured preloads: name ours on the command line too.
GATEWAY_SCHEDULER_CMD = ["dask-scheduler", "--preload", PRELOAD]


def operator_env(env: dict | list | None = None) -> list[dict]:
    """`env` (a dict or a list of EnvVar, as make_cluster_spec takes it) plus what the
    node-aware retirement needs."""
    if isinstance(env, dict):
        env = [{"name": k, "value": v} for k, v in env.items()]
    ours = [SCHEDULER_PRELOAD_ENV, NODE_NAME_ENV, *IDENTITY_ENV]
    names = {e["name"] for e in ours}
    return [e for e in (env or []) if e.get("name") not in names] + ours


# The label a user sets on a DaskCluster to let tightpack's scheduler move its workers (the
# operator copies a DaskCluster's labels to its worker group and from there to every worker
# pod); cluster-autoscaler's annotation that keeps it from evicting them instead.
MOVE_LABEL = "tightpack.io/move"
PROTECTED = {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}


def allow_moves(spec: dict, protect: bool = True) -> dict:
    """A DaskCluster spec (make_cluster_spec's) opted in to moves: labelled MOVE_LABEL=true, and
    with `protect` its workers annotated so that cluster-autoscaler does not evict them (a move
    empties their node without losing work; an eviction loses it). Changes and returns `spec`."""
    spec.setdefault("metadata", {}).setdefault("labels", {})[MOVE_LABEL] = "true"
    if protect:
        worker = spec["spec"]["worker"]
        worker.setdefault("metadata", {}).setdefault("annotations", {}).update(PROTECTED)
    return spec


def gateway_allow_moves(overrides: dict, allow: bool = True) -> dict:
    """A dask-gateway options handler's cluster configuration with its workers opted in to moves
    when `allow`: labelled MOVE_LABEL=true through KubeClusterConfig.worker_extra_pod_labels.
    No safe-to-evict annotation: gateway workers have no controller owner, so cluster-autoscaler
    never evicts them. Changes and returns `overrides`."""
    if allow:
        labels = dict(overrides.get("worker_extra_pod_labels") or {})
        labels[MOVE_LABEL] = "true"
        overrides["worker_extra_pod_labels"] = labels
    return overrides
