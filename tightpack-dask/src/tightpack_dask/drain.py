"""Drain the workers on a node tightpack's scheduler is emptying: the break of a move.

A move (make before break, docs/packing.md) empties a node without losing work: tightpack's
scheduler makes a replacement for each of this cluster's workers there on another node, then
says so in its hints (`"emptying": true` for the node). From then on:

1. the workers there get no new task: the scheduler holds them `paused` on its side (the
   worker processes keep running, finish what they were given and serve their data), unless
   that would leave the cluster without a running worker;
2. once every one of them is idle (`not ws.processing`), the node is *drained*: the next
   question to tightpack's scheduler says so (`drained=`), and `workers_to_close` takes these
   workers before any other, so that when the cluster shrinks back to its size (the operator's
   `retire_workers`, dask-gateway's heartbeat, `Adaptive`) these are the ones retired, their
   data moved to the other workers by the Active Memory Manager, no running task interrupted
   (`retire_workers` itself does not wait for running tasks: dask/distributed#3141);
3. a drain not done within `tightpack.moves.drain-timeout` is abandoned: the workers run
   again and the node is not drained again until the hints stop naming it and name it again.
   Hints that go stale or stop naming the node end the drain the same way.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from distributed.core import Status

logger = logging.getLogger("tightpack_dask")

STIMULUS = "tightpack-drain"


@dataclass
class _NodeDrain:
    since: float
    workers: set[str] = field(default_factory=set)  # addresses this drain paused


class Drain:
    def __init__(
        self,
        scheduler,
        node_of: Callable,
        emptying: Callable[[], set[str] | None],
        timeout: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        """node_of(WorkerState) -> node name or None; emptying() -> the nodes being emptied,
        None when unknown (stale hints)."""
        self.scheduler = scheduler
        self.node_of = node_of
        self.emptying = emptying
        self.timeout = timeout
        self.clock = clock
        self.draining: dict[str, _NodeDrain] = {}
        self.abandoned: set[str] = set()  # until the hints stop naming them

    def sync(self) -> None:
        """Brings the paused workers in line with the hints; run after every refresh and
        every few seconds."""
        wanted = self.emptying() or set()
        self.abandoned &= wanted
        for node in list(self.draining):
            if node not in wanted:
                self._resume(node, "the hints no longer name it")
        by_node: dict[str, list] = {}
        for ws in self.scheduler.workers.values():
            by_node.setdefault(self.node_of(ws), []).append(ws)
        for node in sorted(wanted - self.abandoned):
            drain = self.draining.get(node)
            mine = [ws for ws in by_node.get(node, []) if ws.status in (Status.running, Status.paused)]
            if drain is None:
                if not mine:
                    continue
                elsewhere = [ws for ws in self.scheduler.running if self.node_of(ws) not in wanted]
                if not elsewhere:
                    continue  # the replacements have not joined: never leave no running worker
                drain = self.draining[node] = _NodeDrain(since=self.clock())
                logger.info("tightpack: draining %d worker(s) on %s, which is being emptied", len(mine), node)
            for ws in mine:
                if ws.status == Status.running:
                    self.scheduler.handle_worker_status_change(Status.paused, ws, stimulus_id=STIMULUS)
                    drain.workers.add(ws.address)
            if node not in self.drained() and self.clock() - drain.since > self.timeout:
                busy = sorted(ws.address for ws in mine if ws.processing)
                self._resume(node, f"still busy after {self.timeout:g} s: {', '.join(busy)}")
                self.abandoned.add(node)

    def drained(self) -> set[str]:
        """Nodes being emptied whose every worker of this cluster is paused by the drain and
        idle: these go first when the cluster shrinks."""
        out = set()
        for node, drain in self.draining.items():
            mine = [ws for ws in self.scheduler.workers.values() if self.node_of(ws) == node]
            if mine and all(
                ws.address in drain.workers and ws.status == Status.paused and not ws.processing for ws in mine
            ):
                out.add(node)
        return out

    def remove_worker(self, address: str) -> None:
        for drain in self.draining.values():
            drain.workers.discard(address)

    def _resume(self, node: str, why: str) -> None:
        drain = self.draining.pop(node)
        for address in drain.workers:
            ws = self.scheduler.workers.get(address)
            if ws is not None and ws.status == Status.paused:
                self.scheduler.handle_worker_status_change(Status.running, ws, stimulus_id=STIMULUS)
        logger.info("tightpack: the drain of %s ends, its workers run again: %s", node, why)
