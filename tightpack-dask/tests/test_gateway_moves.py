"""A move on a dask-gateway cluster (gateway.py): the count lives in the Dask scheduler, in
dask-gateway's own scheduler service (`dask_gateway.scheduler_preload.GatewaySchedulerService`,
run here as its preload runs it). distributed's real Scheduler and Workers run in this
process on fake nodes. Two test doubles, and what they stand for: the gateway server, which
records each heartbeat and whose controller would make a worker pod per missing worker (the
test starts those Workers itself); tightpack's scheduler, a stand-in object naming the node
to replace and empty (its HTTP answer is parsed by hints.py, tested below and in
test_fallbacks.py)."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, urlparse

import pytest
from conftest import place
from dask_gateway.scheduler_preload import GatewaySchedulerService
from distributed import Scheduler, Worker, wait
from distributed.core import Status
from distributed.utils_test import gen_cluster, inc
from test_moves import block, computed
from tightpack_dask.hints import Hints, HintsError, parse_hints
from tightpack_dask.scheduler import install

FOUR = [("127.0.0.1", 1)] * 4


class StandIn:
    """What install() reads of Hints, and what gateway.py and drain.py write back."""

    def __init__(self):
        self.emptying: set[str] = set()
        self.replace: dict[str, int] | None = {}
        self.drained: set[str] = set()
        self.raised: set[str] = set()
        self.refused: set[str] = set()
        self.adaptive = False

    def kept_nodes(self):
        return set()

    def emptying_nodes(self):
        return set(self.emptying)

    def replacing_nodes(self):
        return None if self.replace is None else dict(self.replace)

    async def start(self):
        pass

    async def close(self):
        pass


class Gateway:
    """The gateway server's side of the heartbeat, recorded."""

    token = "test"

    def __init__(self):
        self.counts: list[int] = []

    async def heartbeat(self, msg):
        self.counts.append(msg["count"])


async def gateway_cluster(s: Scheduler, workers):
    """The preload installed, dask-gateway's service at count 4, node-a and node-b with two
    workers each."""
    hints = StandIn()
    plugin = install(s, hints=hints)
    a = sorted(w.address for w in workers)
    layout = {"node-a": a[:2], "node-b": a[2:]}
    place(plugin, layout)
    gateway = Gateway()
    # A heartbeat a second (15 s in a gateway's default): with none but on changes (0), a
    # second change can be lost, as Waiter.interrupt() forgets the wait begun meanwhile.
    service = GatewaySchedulerService(s, gateway=gateway, heartbeat_period=1)
    for address in list(s.workers):
        service.worker_added(address)
    service.count = 4
    service.listen(("127.0.0.1", 0))
    s.services["gateway"] = service  # where its preload's dask_setup puts it
    return hints, plugin, layout, service, gateway


async def until(predicate, what: str, timeout: float = 10):
    for _ in range(int(timeout / 0.05)):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@gen_cluster(client=True, nthreads=FOUR)
async def test_a_move_raises_the_count_drains_and_lowers_it(c, s: Scheduler, *workers):
    hints, plugin, layout, service, gateway = await gateway_cluster(s, workers)
    try:
        held = [c.submit(block, i, key=f"held-{i}", workers=[layout["node-b"][i % 2]]) for i in range(4)]
        await wait(held)

        hints.replace = {"node-b": 2}  # make: 2 replacements for node-b's workers
        await plugin.check_moves()
        assert service.count == 6 and hints.raised == {"node-b"}
        await until(lambda: gateway.counts and gateway.counts[-1] == 6, "the heartbeat of count 6")
        # The gateway's controller makes 2 worker pods; tightpack's scheduler put them on node-a.
        new = [await Worker(s.address, nthreads=1, name=4 + i) for i in range(2)]
        place(plugin, {"node-a": [w.address for w in new]})

        hints.emptying = {"node-b"}  # they run: drain
        await plugin.check_moves()
        assert [s.workers[a].status for a in layout["node-b"]] == [Status.paused] * 2
        assert hints.drained == {"node-b"}

        hints.replace = {}  # drained: break
        await plugin.check_moves()
        assert service.count == 4 and hints.raised == set()
        await until(lambda: set(s.workers) == set(layout["node-a"]) | {w.address for w in new},
                    "node-b's workers retired by the heartbeat")
        assert gateway.counts[-1] == 4
        assert await c.gather(held) == [block(i) for i in range(4)]
        assert all(computed(s, f.key) == 1 for f in held), [s.story(f.key) for f in held]
    finally:
        service.stop()
        for w in [w for w in locals().get("new", [])]:
            await w.close()


@gen_cluster(client=True, nthreads=FOUR)
async def test_an_abandoned_or_unanswered_move_lowers_the_count_back(c, s: Scheduler, *workers):
    hints, plugin, layout, service, gateway = await gateway_cluster(s, workers)
    try:
        hints.replace = {"node-b": 2}
        await plugin.check_moves()
        assert service.count == 6
        hints.replace = None  # tightpack's scheduler stopped answering: its hints went stale
        await plugin.check_moves()
        assert service.count == 4 and hints.raised == set() and hints.refused == set()
        hints.replace = {"node-b": 2}  # a later move may raise again
        await plugin.check_moves()
        assert service.count == 6
    finally:
        service.stop()


@gen_cluster(client=True, nthreads=FOUR)
async def test_the_count_the_user_sets_mid_move_stands(c, s: Scheduler, *workers):
    hints, plugin, layout, service, gateway = await gateway_cluster(s, workers)
    try:
        hints.replace = {"node-b": 2}
        await plugin.check_moves()
        await service.scale(5)  # what cluster.scale(5) sends through the gateway (op "scale")
        await plugin.check_moves()
        assert service.count == 5
        assert hints.raised == set() and hints.refused == {"node-b"}
        await plugin.check_moves()  # still named: not raised again
        assert service.count == 5
        hints.replace = {}  # the move abandoned: nothing to lower
        await plugin.check_moves()
        assert service.count == 5 and hints.refused == set()
    finally:
        service.stop()


@gen_cluster(client=True, nthreads=FOUR)
async def test_adapt_turned_on_mid_move_is_left_on(c, s: Scheduler, *workers):
    hints, plugin, layout, service, gateway = await gateway_cluster(s, workers)
    try:
        hints.replace = {"node-b": 2}
        await plugin.check_moves()
        await service.adapt(minimum=6, maximum=6)  # its target is the raised count itself
        hints.replace = {}
        await plugin.check_moves()
        assert service.adapt_task is not None, "lowering the raise turned the user's adapt() off"
        assert hints.raised == set() and hints.adaptive
    finally:
        service.stop()


@gen_cluster(client=True, nthreads=FOUR)
async def test_no_raise_while_the_cluster_adapts_or_is_scaling(c, s: Scheduler, *workers):
    hints, plugin, layout, service, gateway = await gateway_cluster(s, workers)
    try:
        service.count = 3  # one worker still being retired
        hints.replace = {"node-b": 2}
        await plugin.check_moves()
        assert service.count == 3 and hints.refused == {"node-b"}
        hints.replace = {}
        await plugin.check_moves()
        service.count = 4
        await service.adapt(minimum=4, maximum=4)  # cluster.adapt(): the gateway's op "adapt"
        hints.replace = {"node-b": 2}
        await plugin.check_moves()
        assert hints.adaptive and hints.refused == {"node-b"} and hints.raised == set()
        assert service.count == 4
    finally:
        service.stop()


@gen_cluster(client=True, nthreads=FOUR)
async def test_an_operator_cluster_is_not_raised_here(c, s: Scheduler, *workers):
    """Without dask-gateway's service the operator raises the worker group itself."""
    hints = StandIn()
    install(s, hints=hints)
    hints.replace = {"node-b": 2}
    await s.plugins["tightpack-retirement"].check_moves()
    assert hints.raised == set() and hints.refused == set()
    assert await c.submit(inc, 1) == 2


def test_replace_is_read_and_the_question_says_what_was_done():
    answer = parse_hints('{"nodes": [{"name": "n1", "kept": false, "replace": 2}, {"name": "n2", "kept": true}]}')
    assert answer.replace == (("n1", 2),)
    for bad in ('"2"', "-1", "true", "1.5"):
        with pytest.raises(HintsError, match=r"nodes\[0\]\.replace"):
            parse_hints('{"nodes": [{"name": "n1", "kept": false, "replace": %s}]}' % bad)
    hints = Hints("https://tightpack.jhub.svc:10259/dask/v1/nodes?namespace=jhub&cluster=abc")
    assert hints.question() == hints.url
    hints.raised, hints.refused, hints.adaptive = {"n1"}, {"n2", "n3"}, True
    asked = parse_qs(urlparse(hints.question()).query)
    assert asked == {"namespace": ["jhub"], "cluster": ["abc"], "raised": ["n1"], "refused": ["n2,n3"],
                     "adaptive": ["true"]}


def test_a_move_with_nannies_keeps_the_data_of_the_workers_it_retires():
    """The same move with worker processes (Nannies, each with its node in K8S_NODE_NAME, learnt
    over `run`): the old workers' processes end, their data lives on, computed once."""
    asyncio.run(move_with_nannies())


async def move_with_nannies():
    from distributed import Client, Nanny
    from test_nodes import wait_for_nodes

    async with Scheduler(host="127.0.0.1", dashboard_address=":0") as s:
        hints = StandIn()
        plugin = install(s, hints=hints)

        def nanny(node: str, name: str) -> Nanny:
            return Nanny(s.address, nthreads=1, env={"K8S_NODE_NAME": node}, name=name)

        nannies = [nanny(node, f"w{i}") for i, node in enumerate(["node-a", "node-a", "node-b", "node-b"])]
        await asyncio.gather(*nannies)
        new: list = []
        gateway = Gateway()
        service = GatewaySchedulerService(s, gateway=gateway, heartbeat_period=1)
        try:
            nodes = await wait_for_nodes(plugin, s, 4)
            for address in list(s.workers):
                service.worker_added(address)
            service.count = 4
            service.listen(("127.0.0.1", 0))
            s.services["gateway"] = service
            on_b = sorted(a for a, n in nodes.items() if n == "node-b")
            async with Client(s.address, asynchronous=True) as c:
                held = [c.submit(block, i, key=f"held-{i}", workers=[on_b[i % 2]]) for i in range(4)]
                await wait(held)
                hints.replace = {"node-b": 2}
                await plugin.check_moves()
                assert service.count == 6
                new = [nanny("node-a", f"w{4 + i}") for i in range(2)]
                await asyncio.gather(*new)
                await wait_for_nodes(plugin, s, 6)
                hints.emptying = {"node-b"}
                await plugin.check_moves()
                assert hints.drained == {"node-b"}
                hints.replace = {}
                await plugin.check_moves()
                await until(lambda: not set(on_b) & set(s.workers), "node-b's workers retired", timeout=30)
                assert {plugin.node_of(ws) for ws in s.workers.values()} == {"node-a"}
                assert len(s.workers) == 4
                assert await c.gather(held) == [block(i) for i in range(4)]
                assert all(computed(s, f.key) == 1 for f in held), [s.story(f.key) for f in held]
        finally:
            service.stop()
            await asyncio.gather(*(n.close() for n in nannies + new), return_exceptions=True)
