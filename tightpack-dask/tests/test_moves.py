"""The break of a move (drain.py): distributed's real Scheduler and Workers in this process,
on fake nodes; tightpack's scheduler is a stand-in object that names the node being emptied
(its HTTP answer is parsed by hints.py, tested in test_fallbacks.py). The workers on that node
get no new task, drain, and are the ones the operator's `/api/v1/retire_workers` then retires,
their keys moved to other workers and never computed again; a busy worker is not retired while
busy, and a drain that does not end is abandoned."""

from __future__ import annotations

import asyncio
import json

import dask
from conftest import place
from distributed import Event, Scheduler, wait
from distributed.core import Status
from distributed.utils_test import gen_cluster, inc
from tightpack_dask.hints import Hints
from tightpack_dask.scheduler import install
from tornado.httpclient import AsyncHTTPClient

FOUR = [("127.0.0.1", 1)] * 4
ROUTES = {
    "scheduler_kwargs": {"dashboard": True, "dashboard_address": "127.0.0.1:0"},
    "config": {"distributed.scheduler.http.routes": ["distributed.http.scheduler.api"]},
}


class StandIn:
    """What install() reads of Hints: the nodes being emptied, none kept."""

    def __init__(self):
        self.emptying: set[str] | None = set()
        self.drained: set[str] = set()

    def kept_nodes(self):
        return set()

    def emptying_nodes(self):
        return None if self.emptying is None else set(self.emptying)

    async def start(self):
        pass

    async def close(self):
        pass


def on_two_nodes(s: Scheduler, workers) -> tuple[StandIn, object, dict[str, list[str]]]:
    """The preload installed with a stand-in for the hints, and the four workers on two nodes
    (node-a the two lowest addresses)."""
    hints = StandIn()
    plugin = install(s, hints=hints)
    a = sorted(w.address for w in workers)
    layout = {"node-a": a[:2], "node-b": a[2:]}
    place(plugin, layout)
    return hints, plugin, layout


def computed(s: Scheduler, key: str) -> int:
    """How many times the scheduler sent `key` to a worker to compute."""
    return sum(1 for t in s.story(key) if t[0] == key and t[2] == "processing")


async def retire_over_http(s: Scheduler, n: int) -> list[str]:
    """What the dask-kubernetes operator does when its worker group shrinks by n."""
    response = await AsyncHTTPClient().fetch(
        f"http://127.0.0.1:{s.http_server.port}/api/v1/retire_workers", method="POST", body=json.dumps({"n": n})
    )
    return list(json.loads(response.body))


def block(i: int) -> bytes:
    """A megabyte: more data than the other workers' small results."""
    return bytes([i]) * 1_000_000


def wait_on(event: Event, x):
    event.wait()
    return x


@gen_cluster(client=True, nthreads=FOUR, **ROUTES)
async def test_a_drained_node_goes_first_and_its_data_stays(c, s: Scheduler, *workers):
    hints, plugin, layout = on_two_nodes(s, workers)
    held = [c.submit(block, i, key=f"held-{i}", workers=[layout["node-a"][i % 2]]) for i in range(6)]
    await wait(held)
    # Upstream, and the node-aware choice without the drain, retire the workers holding
    # least data: node-b's.
    assert set(plugin.upstream(n=2)) == set(layout["node-b"])
    assert set(s.workers_to_close(n=2)) == set(layout["node-b"])

    hints.emptying = {"node-a"}
    plugin.check_drain()
    assert [s.workers[a].status for a in layout["node-a"]] == [Status.paused] * 2
    later = c.map(inc, range(100, 120), key=[f"later-{i}" for i in range(20)])
    await wait(later)
    assert all(s.tasks[f.key].who_has <= {s.workers[a] for a in layout["node-b"]} for f in later)
    plugin.check_drain()
    assert hints.drained == {"node-a"}

    retired = await retire_over_http(s, 2)
    assert set(retired) == set(layout["node-a"])
    assert set(s.workers) == set(layout["node-b"])
    assert await c.gather(held) == [block(i) for i in range(6)]
    assert all(computed(s, f.key) == 1 for f in held), [s.story(f.key) for f in held]


@gen_cluster(client=True, nthreads=FOUR, **ROUTES)
async def test_a_busy_worker_is_not_retired_until_it_is_idle(c, s: Scheduler, *workers):
    hints, plugin, layout = on_two_nodes(s, workers)
    busy_worker = layout["node-a"][0]
    event = Event()
    running = c.submit(wait_on, event, 7, key="running", workers=[busy_worker])
    while not s.workers[busy_worker].processing:
        await asyncio.sleep(0.01)
    hints.emptying = {"node-a"}
    plugin.check_drain()
    assert hints.drained == set()
    assert busy_worker not in s.workers_to_close(n=2)

    await event.set()
    assert await running == 7
    plugin.check_drain()
    assert hints.drained == {"node-a"}
    retired = await retire_over_http(s, 2)
    assert set(retired) == set(layout["node-a"])
    assert await running == 7 and computed(s, "running") == 1


@gen_cluster(client=True, nthreads=FOUR)
async def test_a_drain_that_does_not_end_is_abandoned(c, s: Scheduler, *workers):
    with dask.config.set({"tightpack.moves.drain-timeout": "0.2s"}):
        hints, plugin, layout = on_two_nodes(s, workers)
    event = Event()
    running = c.submit(wait_on, event, 1, key="long", workers=[layout["node-a"][0]])
    while not s.workers[layout["node-a"][0]].processing:
        await asyncio.sleep(0.01)
    hints.emptying = {"node-a"}
    plugin.check_drain()
    assert s.workers[layout["node-a"][1]].status == Status.paused
    await asyncio.sleep(0.3)
    plugin.check_drain()
    assert [s.workers[a].status for a in layout["node-a"]] == [Status.running] * 2
    plugin.check_drain()  # named again: not drained again until the hints stop naming it
    assert s.workers[layout["node-a"][1]].status == Status.running
    hints.emptying = set()
    plugin.check_drain()
    hints.emptying = {"node-a"}
    plugin.check_drain()
    assert s.workers[layout["node-a"][1]].status == Status.paused
    hints.emptying = None  # stale hints end the drain
    plugin.check_drain()
    assert s.workers[layout["node-a"][1]].status == Status.running
    await event.set()
    assert await running == 1


@gen_cluster(client=True, nthreads=FOUR)
async def test_the_last_running_workers_are_never_drained(c, s: Scheduler, *workers):
    hints = StandIn()
    plugin = install(s, hints=hints)
    place(plugin, {"node-a": [w.address for w in workers]})
    hints.emptying = {"node-a"}
    plugin.check_drain()
    assert all(ws.status == Status.running for ws in s.workers.values())
    assert await c.submit(inc, 1) == 2


def test_the_question_names_drained_nodes_only_when_there_are_some():
    hints = Hints("https://tightpack.jhub.svc:10259/dask/v1/nodes?namespace=jhub&cluster=alice")
    assert hints.question() == hints.url
    hints.drained = {"node-b", "node-a"}
    assert hints.question() == hints.url + "&drained=node-a%2Cnode-b"
