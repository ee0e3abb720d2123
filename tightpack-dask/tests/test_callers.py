"""Every DaskHub caller of `Scheduler.workers_to_close` gets the node-aware choice:
the RPC (the operator's fallback, `distributed.Adaptive`), the HTTP route the operator calls
first, dask-gateway's in-process `target=`; on six in-process workers on three fake nodes
where upstream's choice empties one node and the node-aware one two."""

from __future__ import annotations

import json

import dask
from conftest import nodes_emptied, place, spread_against_upstream
from distributed import Scheduler
from distributed.core import rpc
from distributed.deploy.adaptive import Adaptive
from distributed.utils_test import gen_cluster
from tightpack_dask.scheduler import install
from tornado.httpclient import AsyncHTTPClient

SIX = [("127.0.0.1", 1)] * 6


@gen_cluster(nthreads=SIX)
async def test_upstream_alone_empties_one_node(s: Scheduler, *workers):
    layout = spread_against_upstream([w.address for w in workers])
    chosen = s.workers_to_close(n=3)  # no preload: upstream's choice
    assert nodes_emptied(layout, chosen) == {"node-c"}


@gen_cluster(nthreads=SIX)
async def test_rpc_workers_to_close(s: Scheduler, *workers):
    plugin = install(s, hints=None)
    layout = spread_against_upstream([w.address for w in workers])
    place(plugin, layout)
    async with rpc(s.address) as r:
        names = await r.workers_to_close(n=3, attribute="name")  # as the operator's fallback asks
    by_name = {ws.name: ws.address for ws in s.workers.values()}
    chosen = [by_name[n] for n in names]
    assert len(chosen) == 3
    assert nodes_emptied(layout, chosen) == {"node-b", "node-c"}
    assert plugin.last_choice["upstream"] != plugin.last_choice["chosen"]


@gen_cluster(
    nthreads=SIX,
    scheduler_kwargs={"dashboard": True, "dashboard_address": "127.0.0.1:0"},
    config={"distributed.scheduler.http.routes": ["distributed.http.scheduler.api"]},
)
async def test_http_retire_workers_route(s: Scheduler, *workers):
    plugin = install(s, hints=None)
    layout = spread_against_upstream([w.address for w in workers])
    place(plugin, layout)
    port = s.http_server.port
    response = await AsyncHTTPClient().fetch(
        f"http://127.0.0.1:{port}/api/v1/retire_workers", method="POST", body=json.dumps({"n": 3})
    )
    retired = list(json.loads(response.body))  # what the operator reads: the retired workers
    assert len(retired) == 3
    assert nodes_emptied(layout, retired) == {"node-b", "node-c"}
    assert sorted(a for addresses in layout.values() for a in addresses if a not in retired) == sorted(s.workers)


@gen_cluster(nthreads=SIX)
async def test_adaptive_asks_over_rpc(s: Scheduler, *workers):
    plugin = install(s, hints=None)
    layout = spread_against_upstream([w.address for w in workers])
    place(plugin, layout)

    class Cluster:  # what Adaptive needs of a cluster: the scheduler's rpc
        scheduler_comm = rpc(s.address)
        scheduler_address = s.address
        loop = None

    adaptive = Adaptive(Cluster(), interval=0, minimum=0, maximum=6)  # adapt() not scheduled
    try:
        names = await adaptive.workers_to_close(target=3)
    finally:
        await Cluster.scheduler_comm.close_rpc()
    by_name = {ws.name: ws.address for ws in s.workers.values()}
    assert nodes_emptied(layout, [by_name[n] for n in names]) == {"node-b", "node-c"}


@gen_cluster(nthreads=SIX)
async def test_adaptive_worker_key_keeps_upstream(s: Scheduler, *workers):
    """Adaptive(worker_key=...) groups workers itself: its choice is upstream's."""
    plugin = install(s, hints=None)
    place(plugin, spread_against_upstream([w.address for w in workers]))
    with dask.config.set({"distributed.admin.pdb-on-err": False}):
        upstream = plugin.upstream(target=3, key=lambda ws: ws.address, attribute="address")
        ours = s.workers_to_close(target=3, key=lambda ws: ws.address)
    assert ours == upstream


@gen_cluster(nthreads=SIX)
async def test_dask_gateway_heartbeat(s: Scheduler, *workers):
    """dask-gateway's own scheduler service (dask_gateway.scheduler_preload) chooses with
    `workers_to_close(target=count, attribute="name")` in process, then retires them. The
    gateway server it reports to is a test double: it records the heartbeat."""
    from dask_gateway.scheduler_preload import GatewaySchedulerService

    class Gateway:  # the dask-gateway server's side, recorded
        token = "test"
        messages: list = []

        async def heartbeat(self, msg):
            self.messages.append(msg)

    plugin = install(s, hints=None)
    layout = spread_against_upstream([w.address for w in workers])
    place(plugin, layout)
    service = GatewaySchedulerService(s, gateway=Gateway(), heartbeat_period=0)
    for address in list(s.workers):
        service.worker_added(address)
    service.listen(("127.0.0.1", 0))  # its API server; the heartbeat loop waits an hour
    try:
        service.count = 3
        await service.heartbeat()
    finally:
        service.stop()
    assert len(Gateway.messages[-1]["closing_workers"]) == 3
    assert set(s.workers) == set(layout["node-a"])  # node-b and node-c emptied
