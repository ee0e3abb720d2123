"""Where workers run, learnt for real: worker processes (Nannies) each with their own
K8S_NODE_NAME, as the downward API sets it; the scheduler started with the preload by name."""

from __future__ import annotations

import asyncio

from distributed import Nanny, Scheduler
from tightpack_dask.scheduler import NodeAwareRetirement


async def wait_for_nodes(plugin: NodeAwareRetirement, scheduler: Scheduler, count: int) -> dict:
    for _ in range(200):
        nodes = {a: plugin.node_of(ws) for a, ws in scheduler.workers.items()}
        if len(nodes) == count and all(nodes.values()):
            return nodes
        await asyncio.sleep(0.05)
    raise AssertionError(f"nodes not learnt: {nodes}")


async def run_layout(worker_preload: list[str]) -> None:
    layout = ["node-a", "node-a", "node-a", "node-b", "node-b", "node-c"]
    async with Scheduler(host="127.0.0.1", dashboard_address=":0", preload=["tightpack_dask.scheduler"]) as s:
        plugin = s.plugins[NodeAwareRetirement.name]
        assert s.workers_to_close == plugin.workers_to_close
        nannies = [
            Nanny(s.address, nthreads=1, env={"K8S_NODE_NAME": node}, preload=worker_preload, name=f"w{i}")
            for i, node in enumerate(layout)
        ]
        await asyncio.gather(*nannies)
        try:
            nodes = await wait_for_nodes(plugin, s, len(layout))
            assert sorted(nodes.values()) == layout
            chosen = s.workers_to_close(n=3)
            assert sorted(nodes[a] for a in chosen) == ["node-b", "node-b", "node-c"]
        finally:
            await asyncio.gather(*(n.close() for n in nannies))


def test_nodes_asked_over_run():
    """No worker code of ours: the scheduler asks each worker for K8S_NODE_NAME."""
    asyncio.run(run_layout([]))


def test_nodes_from_the_worker_preload():
    """The worker preload sends the node as startup information, before registration."""
    asyncio.run(run_layout(["tightpack_dask.worker"]))
