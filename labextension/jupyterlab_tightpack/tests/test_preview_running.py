"""preview() of a running cluster: ``scale(n)`` below its size asks its scheduler who goes.

The scheduler and its workers are distributed's own, in this process, named as the clients
name them (the operator's "<cluster>-default-worker-<uuid>", dask-gateway's pod names). The
cluster objects are dask-kubernetes' and dask-gateway's own, not started (no Kubernetes or
gateway here); the test double is only what starting would have set: the scheduler's
address (``scheduler_comm``), its workers (``scheduler_info``) and the status.
"""

from __future__ import annotations

import inspect
import warnings

import pytest
from dask_gateway import GatewayCluster
from dask_kubernetes.operator import KubeCluster
from distributed import Client, Scheduler, Worker
from distributed.core import Status, rpc
from distributed.utils import LoopRunner, sync

from jupyterlab_tightpack import preview

from .test_preview import RESOURCES, shell, unstarted  # noqa: F401 (a fixture)


class Running:
    """A real scheduler with real workers of the given names."""

    def __init__(self, names):
        self.names = names

    async def __aenter__(self):
        self.scheduler = await Scheduler(port=0, dashboard_address=":0")
        self.workers = [await Worker(self.scheduler.address, name=n, nthreads=1)
                        for n in self.names]
        self.client = await Client(self.scheduler.address, asynchronous=True)
        self.held = []  # the futures: data without a future is released
        return self

    async def __aexit__(self, *exc):
        await self.client.close()
        for w in self.workers:
            await w.close()
        await self.scheduler.close()

    async def hold_data_on(self, *names):
        """Data on these workers: the scheduler retires workers without data first."""
        for name in names:
            addr = next(w.address for w in self.workers if w.name == name)
            self.held += await self.client.scatter([name], workers=[addr])

    def attach(self, cluster, status=Status.running):
        """What the cluster's start would have set."""
        cluster.scheduler_comm = rpc(self.scheduler.address)
        cluster.scheduler_info = self.scheduler.identity()
        cluster.status = status
        return cluster


OPERATOR_WORKERS = [f"alice-default-worker-{i:010x}" for i in range(4)]


async def test_shrinking_a_kube_cluster_names_the_deployments_its_scheduler_retires():
    highmem = "alice-highmem-worker-00000000aa"
    async with Running(OPERATOR_WORKERS + [highmem]) as s:
        # The scheduler chooses among all its workers, as for the operator: the high-memory
        # group's worker would go too if it held no data.
        await s.hold_data_on(OPERATOR_WORKERS[0], OPERATOR_WORKERS[3], highmem)
        cluster = s.attach(unstarted(KubeCluster, name="alice", namespace="daskhub",
                                     resources=RESOURCES))
        shown = preview(cluster, 2)
        assert inspect.isawaitable(shown)  # as the cluster's own methods, in its loop
        q = (await shown).question
        # The operator counts the default group (4), not the high-memory worker, and asks
        # workers_to_close(n=4-2): the two without data go.
        retiring = q["running"]["retiring"]
        assert sorted(retiring) == OPERATOR_WORKERS[1:3]
        assert q["version"] == 2
        assert q["running"] == {
            "workers": 4, "retiring": retiring,
            "forecast": {"removeDeployments": [f"daskhub/{n}" for n in retiring]}}
        assert q["workers"] == 2 and q["target"]["kind"] == "dask-kubernetes"


async def test_the_shrink_asks_what_the_scheduler_would_answer_the_operator():
    async with Running(OPERATOR_WORKERS) as s:
        cluster = s.attach(unstarted(KubeCluster, name="alice", namespace="daskhub",
                                     resources=RESOURCES))
        q = (await preview(cluster, 0)).question
        # scale(0): every worker goes, in the scheduler's own order.
        assert q["running"]["retiring"] == list(
            s.scheduler.workers_to_close(n=4, attribute="name"))
        text = (await preview(cluster, 1)).text
        assert "scale(1) of KubeCluster alice retires 3 of its 4 workers" in text
        assert "tightpack forecast --remove-deployments daskhub/alice-default-worker-" in text


async def test_growing_or_keeping_a_running_cluster_asks_nothing_of_the_scheduler():
    async with Running(OPERATOR_WORKERS[:2]) as s:
        cluster = s.attach(unstarted(KubeCluster, name="alice", namespace="daskhub",
                                     resources=RESOURCES))
        grow = await preview(cluster, 5)
        assert grow.question["running"] == {"workers": 2}
        assert "where 3 more workers (beside the 2 running)" in grow.text
        same = await preview(cluster, 2)
        assert same.question["running"] == {"workers": 2}
        assert "scale(2) leaves KubeCluster alice as it is" in same.text


async def test_shrinking_a_gateway_cluster_names_its_pods():
    pods = ["dask-worker-4f1c2e-7xk2p", "dask-worker-4f1c2e-b9q4m", "dask-worker-4f1c2e-zz81d"]
    async with Running(pods) as s:
        await s.hold_data_on(pods[1])
        cluster = unstarted(GatewayCluster, address="http://gateway.invalid")
        cluster.name = "daskhub.4f1c2e"
        s.attach(cluster, status="running")
        q = (await preview(cluster, 1)).question
        # dask-gateway's heartbeat: workers_to_close(target=1).
        assert sorted(q["running"]["retiring"]) == sorted([pods[0], pods[2]])
        assert q["running"]["forecast"] == {
            "removePods": [f"daskhub/{n}" for n in q["running"]["retiring"]]}


async def test_a_gateway_cluster_off_kubernetes_is_refused_by_name():
    async with Running(["w-1"]) as s:
        cluster = unstarted(GatewayCluster, address="http://gateway.invalid")
        cluster.name = "4f1c2e"  # the local and HPC backends' names carry no namespace
        s.attach(cluster, status="running")
        with pytest.raises(ValueError, match="'4f1c2e': its name does not begin with a "
                                             "Kubernetes namespace"):
            preview(cluster, 0)


@pytest.mark.parametrize("n", [-1, 10001, 2.5])
async def test_zero_is_a_count_only_for_a_running_cluster(n):
    async with Running(OPERATOR_WORKERS[:1]) as s:
        cluster = s.attach(unstarted(KubeCluster, name="alice", namespace="daskhub",
                                     resources=RESOURCES))
        with pytest.raises(ValueError, match=r"from 0 to 10000 for a running cluster"):
            preview(cluster, n)


def test_a_synchronous_cluster_answers_in_the_call():
    """A cluster made without asynchronous=True runs on its own loop thread: preview() blocks
    on the scheduler's answer there, as cluster.scale() does."""
    runner = LoopRunner(asynchronous=False)
    runner.start()
    s = Running(OPERATOR_WORKERS[:3])
    try:
        sync(runner.loop, s.__aenter__)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            cluster = KubeCluster(asynchronous=True, loop=runner.loop, name="alice",
                                  namespace="daskhub", resources=RESOURCES)
        KubeCluster._instances.discard(cluster)
        cluster._asynchronous = False  # what asynchronous=False would have set
        s.attach(cluster)
        shown = preview(cluster, 1)
        assert not inspect.isawaitable(shown)
        assert len(shown.question["running"]["retiring"]) == 2
    finally:
        sync(runner.loop, s.__aexit__)
        runner.stop()


async def test_the_magic_on_an_asynchronous_cluster_says_to_await(shell):
    from IPython.core.error import UsageError

    async with Running(OPERATOR_WORKERS[:2]) as s:
        shell.user_ns["cluster"] = s.attach(unstarted(KubeCluster, name="alice",
                                                      namespace="daskhub",
                                                      resources=RESOURCES))
        with pytest.raises(UsageError, match=r"asynchronous; write `await "
                                             r"preview\(cluster, 1\)`"):
            shell.run_line_magic("tightpack", "cluster 1")
