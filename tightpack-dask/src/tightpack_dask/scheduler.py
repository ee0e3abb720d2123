"""The scheduler preload: node-aware retirement of Dask workers.

    dask scheduler --preload tightpack_dask.scheduler
    # or dask config:  distributed.scheduler.preload: [tightpack_dask.scheduler]

Every DaskHub path that shrinks a cluster ends in `Scheduler.workers_to_close`: the
dask-kubernetes operator (the HTTP `/api/v1/retire_workers` route, or the RPC
`workers_to_close`), dask-gateway's scheduler preload (in process, `target=`), and
`distributed.Adaptive` (RPC, `target=`). This preload replaces both the method and the RPC
handler with one that calls the original for *how many* (so `minimum`, `memory_ratio`,
long-running tasks, plugins' `valid_workers_downscaling` and idle-before-busy all stay) and
changes only *which*: whole nodes first, the ones that can then empty, fewest workers first.

A worker's node comes from its environment variable `K8S_NODE_NAME` (the downward API's
`spec.nodeName`): through the worker preload `tightpack_dask.worker`, or else asked once per
worker over the `run` RPC. What else keeps a node (another user's pod, a pool at its minimum
size) comes, optionally, from tightpack's scheduler (`tightpack.retire.hints-url`). With an
explicit `key=`, a worker whose node is unknown, or any error, upstream's choice stands and
the reason is logged.
"""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
from collections import Counter
from typing import Any

import dask.config
from dask.utils import parse_timedelta
from distributed.diagnostics.plugin import SchedulerPlugin
from distributed.protocol.serialize import Serialized, deserialize
from tornado.ioloop import PeriodicCallback

from tightpack_dask.drain import Drain
from tightpack_dask.gateway import GatewayMoves
from tightpack_dask.hints import Hints
from tightpack_dask.policy import Candidate, NotChosen, node_aware

logger = logging.getLogger("tightpack_dask")

NODE_KEY = "k8s-node"  # the worker's startup information (WorkerState.extra)
NODE_ENV = "K8S_NODE_NAME"


class NodeAwareRetirement(SchedulerPlugin):
    """Installs the override and learns where each worker runs."""

    name = "tightpack-retirement"

    def __init__(self, scheduler, hints: Hints | None = None):
        self.scheduler = scheduler
        self.hints = hints
        self.nodes: dict[str, str] = {}  # worker address -> node, learnt over `run`
        self.upstream = scheduler.workers_to_close  # the bound method
        self._asking: set[str] = set()
        self.last_choice: dict[str, Any] = {}  # for the dashboard and tests
        # Moves (drain.py) need tightpack's scheduler: only with hints.
        self.drain = Drain(
            scheduler, self.node_of, hints.emptying_nodes,
            timeout=parse_timedelta(dask.config.get("tightpack.moves.drain-timeout", default="10m")),
        ) if hints else None
        self.gateway = GatewayMoves(scheduler, hints) if hints else None  # a move's make there
        self._draining: PeriodicCallback | None = None

    # ------------------------------------------------------------------ install
    def install(self) -> None:
        self.scheduler.workers_to_close = self.workers_to_close
        self.scheduler.handlers["workers_to_close"] = self.workers_to_close
        self.scheduler.add_plugin(self, name=self.name)

    async def start(self, scheduler) -> None:
        for address in list(scheduler.workers):
            self.add_worker(scheduler, address)
        if self.hints:
            await self.hints.start()
        if self.drain:
            interval = parse_timedelta(dask.config.get("tightpack.moves.check-interval", default="2s"))
            self._draining = PeriodicCallback(self.check_moves, interval * 1000)
            self._draining.start()

    async def close(self) -> None:
        if self._draining:
            self._draining.stop()
        if self.hints:
            await self.hints.close()

    async def check_moves(self) -> None:
        """A dask-gateway cluster's raise or lowering for a move (gateway.py), then the drain."""
        try:
            await self.gateway.sync()
        except Exception:
            logger.exception("tightpack: the gateway's worker count could not follow the hints")
        self.check_drain()

    def check_drain(self) -> None:
        """Pauses and resumes the workers of nodes being emptied (drain.py) and tells the
        hints' next question which nodes have drained."""
        try:
            self.drain.sync()
            self.hints.drained = self.drain.drained()
        except Exception:
            logger.exception("tightpack: the drain check failed")

    # ------------------------------------------------------------------ nodes
    def node_of(self, ws) -> str | None:
        return (ws.extra or {}).get(NODE_KEY) or self.nodes.get(ws.address)

    def add_worker(self, scheduler, worker: str) -> None:
        ws = scheduler.workers.get(worker)
        if ws is None or self.node_of(ws) or worker in self._asking:
            return
        self._asking.add(worker)
        asyncio.get_running_loop().create_task(self._ask_node(worker))

    def remove_worker(self, scheduler, worker: str, **kwargs) -> None:
        self.nodes.pop(worker, None)
        if self.drain:
            self.drain.remove_worker(worker)

    async def _ask_node(self, worker: str) -> None:
        # The worker needs no code of ours: it runs os.getenv, pickled by reference.
        try:
            answers = await self.scheduler.broadcast(
                msg={"op": "run", "function": pickle.dumps(os.getenv), "args": pickle.dumps((NODE_ENV,))},
                workers=[worker],
                on_error="return",
            )
            answer = answers.get(worker)
            node = answer.get("result") if isinstance(answer, dict) and answer.get("status") == "OK" else None
            if isinstance(node, Serialized):  # the scheduler's comms leave results serialized
                node = deserialize(node.header, node.frames)
            if isinstance(node, str) and node:
                self.nodes[worker] = node
            else:
                logger.info("tightpack: worker %s has no %s; its node stays unknown", worker, NODE_ENV)
        except Exception as e:  # a worker gone meanwhile, a closed comm
            logger.info("tightpack: cannot ask worker %s for %s: %s", worker, NODE_ENV, e)
        finally:
            self._asking.discard(worker)

    # ------------------------------------------------------------------ the choice
    def workers_to_close(
        self,
        memory_ratio: int | float | None = None,
        n: int | None = None,
        key: Any = None,
        minimum: int | None = None,
        target: int | None = None,
        attribute: str = "address",
    ) -> list:
        chosen = self.upstream(
            memory_ratio=memory_ratio, n=n, key=key, minimum=minimum, target=target, attribute="address"
        )
        if not chosen or key is not None:
            if key is not None:
                logger.info("tightpack: workers_to_close(key=...) groups workers itself; upstream's choice stands")
            return self._attributes(chosen, attribute)
        try:
            picked = self.choose(chosen, memory_bound=n is None and target is None)
        except NotChosen as e:
            logger.info("tightpack: upstream's choice stands: %s", e)
            picked = chosen
        except Exception:
            logger.exception("tightpack: the node-aware choice failed; upstream's choice stands")
            picked = chosen
        return self._attributes(picked, attribute)

    def choose(self, upstream: list[str], memory_bound: bool) -> list[str]:
        s = self.scheduler
        valid = [ws for ws in s.workers.values() if not ws.long_running]
        for plugin in list(s.plugins.values()):
            valid = plugin.valid_workers_downscaling(s, valid)
        records = {ws.address: self._candidate(ws) for ws in valid}
        if any(a not in records for a in upstream):
            raise NotChosen("upstream chose a worker that is no candidate")
        own = Counter(self.node_of(ws) for ws in s.workers.values())
        kept = self.hints.kept_nodes() if self.hints else set()
        if kept is None:
            raise NotChosen("the hints from tightpack's scheduler are missing or stale")
        first = self.drain.drained() if self.drain else set()
        picked = node_aware([records[a] for a in upstream], list(records.values()), own, kept, memory_bound, first)
        self.last_choice = {"upstream": list(upstream), "chosen": [w.address for w in picked]}
        if set(self.last_choice["chosen"]) != set(upstream):
            logger.info(
                "tightpack: retiring %d worker(s) from node(s) %s instead of %s",
                len(picked),
                sorted({w.node for w in picked}),
                sorted({records[a].node for a in upstream}),
            )
        return [w.address for w in picked]

    def _candidate(self, ws) -> Candidate:
        return Candidate(
            address=ws.address,
            idle=not ws.processing,
            nbytes=int(ws.nbytes),
            memory_limit=int(ws.memory_limit or 0),
            node=self.node_of(ws),
        )

    def _attributes(self, addresses: list[str], attribute: str) -> list:
        if attribute == "address":
            return list(addresses)
        return [getattr(self.scheduler.workers[a], attribute) for a in addresses]


def install(scheduler, hints: Hints | None = None) -> NodeAwareRetirement:
    """Installs the node-aware choice on `scheduler` (what the preload does)."""
    if hints is None:
        hints = Hints.from_config()
    plugin = NodeAwareRetirement(scheduler, hints)
    plugin.install()
    return plugin


def dask_setup(scheduler) -> None:
    if not dask.config.get("tightpack.retire.enabled", default=True):
        logger.info("tightpack: tightpack.retire.enabled is false; upstream's choice stands")
        return
    install(scheduler)
    logger.info("tightpack: node-aware retirement of workers installed")
