"""Dask workers scheduled by tightpack with dask-kubernetes' operator KubeCluster.

Run in a notebook of the hub (the Dask operator must be installed in the cluster):

    python deploy/examples/dask-kubernetes/kubecluster.py    # or paste into a notebook

Two ways, both with `schedulerName` in the worker pod spec:

1. a whole cluster spec (make_cluster_spec, then edit the worker's pod spec);
2. an extra worker group on a running cluster (make_worker_spec + add_worker_group),
   e.g. GPU workers beside CPU workers.

The Dask scheduler pod is left to kube-scheduler (see the trade-off in
deploy/examples/daskhub-values.yaml); set spec["spec"]["scheduler"]["spec"]["schedulerName"]
too to pack it with its workers.
"""

from dask_kubernetes.operator import KubeCluster, make_cluster_spec, make_worker_spec

try:
    # When the cluster shrinks, retire workers node by node so that whole nodes empty
    # (tightpack-dask/README.md; the scheduler's image needs the package too).
    from tightpack_dask.kubernetes import operator_env
except ImportError:
    operator_env = None

SCHEDULER_NAME = "tightpack"  # the chart's scheduler.schedulerName
IMAGE = "ghcr.io/dask/dask:2024.12.1"
# The operator makes each worker a one-replica Deployment, which cluster-autoscaler evicts
# to remove a node anyway; "true" also lets it move a worker whose spill directory is an
# emptyDir. Say "false" instead to keep the workers, and what they hold in memory, while
# they run (their nodes then stay until they leave).
SAFE_TO_EVICT = {"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}
# The worker pool of examples/daskhub-gke: tainted dask=worker:NoSchedule, labelled
# k8s.dask.org/node-purpose=worker. Tolerating the taint without selecting the pool
# lets the workers (and cluster-autoscaler's scale-up) go to any pool.
WORKER_POOL = {
    "tolerations": [{"key": "dask", "operator": "Equal", "value": "worker", "effect": "NoSchedule"}],
    "nodeSelector": {"k8s.dask.org/node-purpose": "worker"},
}


def tightpack_worker(worker: dict, **pod_spec) -> dict:
    """A worker spec (make_worker_spec's shape) sent to tightpack."""
    worker.setdefault("metadata", {}).setdefault("annotations", {}).update(SAFE_TO_EVICT)
    worker["spec"]["schedulerName"] = SCHEDULER_NAME
    worker["spec"].update(pod_spec)
    return worker


def main():
    resources = {"requests": {"cpu": "1800m", "memory": "12Gi"}, "limits": {"cpu": "1800m", "memory": "12Gi"}}
    spec = make_cluster_spec(name="packed", image=IMAGE, n_workers=4, resources=resources,
                             env=operator_env() if operator_env else None)
    tightpack_worker(spec["spec"]["worker"], **WORKER_POOL)

    cluster = KubeCluster(custom_cluster_spec=spec)
    # The operator labels every worker dask.org/cluster-name=packed: TightpackCohort keeps
    # them on the same nodes, so that whole nodes empty when the cluster shrinks or ends.

    gpu = make_worker_spec(image="rapidsai/base:24.12-cuda12.5-py3.12", n_workers=1,
                           resources={"requests": {"cpu": "3", "memory": "20Gi"},
                                      "limits": {"nvidia.com/gpu": "1"}},
                           worker_command="dask-cuda-worker")
    tightpack_worker(gpu, tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                     nodeSelector={"cloud.google.com/gke-accelerator": "nvidia-tesla-t4"})
    cluster.add_worker_group("gpu", custom_spec=gpu)

    print(cluster.dashboard_link)
    # kubectl get events --field-selector reason=Scheduled shows "tightpack" as the reporter.
    return cluster


if __name__ == "__main__":
    main()
