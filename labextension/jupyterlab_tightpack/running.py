"""What ``scale(n)`` changes on a cluster that is already running.

Growing, the cluster adds ``n - m`` workers beside its ``m``. Shrinking, the cluster's own
scheduler chooses who goes, with the call each client makes:

- the dask-kubernetes operator asks ``workers_to_close(n=m - n, attribute="name")`` (its RPC
  path; its HTTP path ``/api/v1/retire_workers`` calls the same method) and deletes each
  chosen worker's Deployment, which is named after the worker;
- dask-gateway's scheduler asks ``workers_to_close(target=n, attribute="name")`` on its
  heartbeat, and its Kubernetes controller deletes each chosen worker's pod, which the worker
  is named after, in the namespace that the cluster's name begins with (``<namespace>.<id>``).

So the preview asks the running scheduler the same question (whatever answers it there:
distributed's method, or tightpack-dask's when installed) and hands the engine's scale-down
forecast the Kubernetes objects that will go. Asking changes nothing: ``workers_to_close``
only chooses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Optional


@dataclass
class Running:
    """A running cluster as ``scale(n)`` sees it."""

    workers: int  # m: the workers the scale compares n with
    # Asks the scheduler which workers a scale to n retires (their names).
    choose: Callable[[int], Awaitable[list]]
    # The forecast request's field for what those workers' deletion takes away.
    remove_field: str
    # A worker's name as that field's "namespace/name".
    key_of: Callable[[str], str]
    # The client's own sync(): runs a coroutine function on the cluster's loop and returns
    # its result, or returns the coroutine to a caller in that loop (asynchronous mode).
    sync: Callable[..., Any]


def _is_running(cluster: Any) -> bool:
    status = getattr(cluster, "status", None)
    # distributed's Status enum (KubeCluster) or dask-gateway's string.
    return getattr(status, "name", status) == "running" and \
        getattr(cluster, "scheduler_comm", None) is not None


def _worker_names(cluster: Any) -> list:
    workers = (getattr(cluster, "scheduler_info", None) or {}).get("workers") or {}
    return [str(w.get("name")) for w in workers.values() if isinstance(w, dict)]


def _kube_cluster(cluster: Any) -> Running:
    # The operator's DaskWorkerGroup "<cluster>-default" names its workers
    # "<group>-worker-<uuid>"; scale() changes that group.
    prefix = f"{cluster.name}-default-worker-"
    workers = [w for w in _worker_names(cluster) if w.startswith(prefix)]

    async def choose(n: int) -> list:
        return list(await cluster.scheduler_comm.workers_to_close(n=len(workers) - n,
                                                                  attribute="name"))

    return Running(len(workers), choose, "removeDeployments",
                   lambda name: f"{cluster.namespace}/{name}", cluster.sync)


def _gateway_cluster(cluster: Any) -> Running:
    namespace, dot, _ = str(cluster.name or "").partition(".")
    if not dot or not namespace:
        raise ValueError(f"preview(): GatewayCluster {cluster.name!r}: its name does not begin "
                         "with a Kubernetes namespace (<namespace>.<id>), so its gateway does "
                         "not run it on Kubernetes")

    async def choose(n: int) -> list:
        return list(await cluster.scheduler_comm.workers_to_close(target=n, attribute="name"))

    return Running(len(_worker_names(cluster)), choose, "removePods",
                   lambda name: f"{namespace}/{name}", cluster.gateway.sync)


def running(target: Any, is_a: Callable[[Any, str, str], bool]) -> Optional[Running]:
    """The running cluster ``target`` is, or None (a spec, options, a cluster not started)."""
    if not _is_running(target):
        return None
    if is_a(target, "dask_kubernetes", "KubeCluster"):
        return _kube_cluster(target)
    if is_a(target, "dask_gateway", "GatewayCluster"):
        return _gateway_cluster(target)
    return None


async def change(r: Running, n: int) -> dict:
    """The question's ``running`` part for a scale of ``r`` to ``n``."""
    out: dict = {"workers": r.workers}
    if n < r.workers:
        names = [str(name) for name in await r.choose(n)]
        out["retiring"] = names
        out["forecast"] = {r.remove_field: [r.key_of(name) for name in names]}
    return out
