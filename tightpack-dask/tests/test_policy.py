"""The rule as a property: never more or fewer workers than upstream, never one upstream
protects, busy ones only where upstream takes busy ones, and at least as many nodes emptied.
And upstream's order as modelled here is the real scheduler's."""

from __future__ import annotations

from distributed import Scheduler
from distributed.utils_test import gen_cluster
from hypothesis import given, settings
from hypothesis import strategies as st
from tightpack_dask.policy import Candidate, node_aware, upstream_order
from tightpack_dask.scheduler import install


@st.composite
def clusters(draw):
    nodes = [f"node-{i}" for i in range(draw(st.integers(1, 6)))]
    workers = []
    for i in range(draw(st.integers(1, 24))):
        workers.append(
            Candidate(
                address=f"tcp://10.4.{draw(st.integers(0, 20))}.{i + 2}:{draw(st.integers(1024, 65535))}",
                idle=draw(st.booleans()),
                nbytes=draw(st.sampled_from([0, 0, 100, 5000])),
                memory_limit=draw(st.sampled_from([2**30, 2**31])),
                node=draw(st.sampled_from(nodes)),
            )
        )
    # Upstream protects some: long-running tasks, a plugin's valid_workers_downscaling.
    protected = {w.address for w in workers if draw(st.integers(0, 4)) == 0}
    eligible = [w for w in workers if w.address not in protected]
    n = draw(st.integers(0, len(workers)))
    kept = set(draw(st.lists(st.sampled_from(nodes), max_size=2)))
    return workers, eligible, n, kept


def emptied(workers, chosen, kept):
    gone = {w.address for w in chosen}
    nodes = {w.node for w in workers}
    return {n for n in nodes if n not in kept and all(w.address in gone for w in workers if w.node == n)}


@settings(max_examples=400, deadline=None)
@given(clusters())
def test_same_number_same_tiers_never_protected(cluster):
    workers, eligible, n, kept = cluster
    upstream = upstream_order(eligible)[:n]  # workers_to_close(n=...) with one worker a group
    own = {}
    for w in workers:
        own[w.node] = own.get(w.node, 0) + 1
    chosen = node_aware(upstream, eligible, own, kept)
    assert len(chosen) == len(upstream)
    assert len({w.address for w in chosen}) == len(chosen)
    assert {w.address for w in chosen} <= {w.address for w in eligible}
    assert sum(not w.idle for w in chosen) == sum(not w.idle for w in upstream)
    assert len(emptied(workers, chosen, kept)) >= len(emptied(workers, upstream, kept))


@gen_cluster(nthreads=[("127.0.0.1", 1)] * 5, client=True)
async def test_upstream_order_is_the_schedulers(c, s: Scheduler, *workers):
    plugin = install(s, hints=None)
    # Data of different sizes on three workers; two hold none.
    held = [await c.scatter(b"x" * size, workers=[w.address]) for w, size in zip(workers[:3], [10, 1000, 100000])]
    assert sorted(ws.nbytes for ws in s.workers.values())[2:] != [0, 0, 0]
    records = [plugin._candidate(ws) for ws in s.workers.values()]
    for n in range(6):
        assert [w.address for w in upstream_order(records)[:n]] == plugin.upstream(n=n)
    del held
