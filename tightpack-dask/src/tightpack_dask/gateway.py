"""The make of a move on a dask-gateway cluster: its worker count lives in this scheduler.

A dask-gateway cluster's size is `GatewaySchedulerService.count`, in the Dask scheduler
(`dask_gateway.scheduler_preload`): the service heartbeats it to the gateway, whose controller
makes or deletes worker pods to match, and it retires the workers `workers_to_close(target=
count)` names. tightpack's scheduler holds no credential to the gateway's API and should not,
so on such a cluster the make and the break of a move (drain.py) happen here:

1. while tightpack's scheduler names a node with `"replace": k`, the count is raised by k (the
   same call the gateway makes for `cluster.scale()`): the gateway makes k workers, which
   tightpack's scheduler places on other nodes;
2. once they run, the node is named `emptying` and drain.py drains its workers;
3. once drained, tightpack's scheduler stops naming `replace`, and the count goes back down by
   k: the next heartbeat's `workers_to_close` takes the drained workers first and retires them,
   their data moved by the Active Memory Manager.

The same lowering undoes a move tightpack's scheduler abandons or can no longer answer for
(stale hints). A count set meanwhile by anyone else (`cluster.scale()`, `cluster.adapt()`) is
the user's: it stands, the raise is forgotten, and the node is refused until tightpack's
scheduler stops naming it. No raise is made while the cluster adapts or is still reaching its
count; the question says so (`raised=`, `refused=`, `adaptive=`: hints.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

logger = logging.getLogger("tightpack_dask")

SERVICE = "gateway"  # where dask_gateway.scheduler_preload registers its service


@dataclass(frozen=True)
class Raise:
    node: str  # the node whose workers are being replaced
    by: int  # workers added
    count: int  # the count this raise set


class GatewayMoves:
    def __init__(self, scheduler, hints):
        self.scheduler = scheduler
        self.hints = hints
        self.held: Raise | None = None
        self.refused: set[str] = set()

    def service(self):
        """The gateway's scheduler service; None on any other cluster (the operator raises its
        worker group itself)."""
        return self.scheduler.services.get(SERVICE)

    async def sync(self) -> None:
        """Brings the count in line with the hints; run after every refresh and every few
        seconds, with the drain."""
        service = self.service()
        if service is None:
            return
        self.hints.adaptive = service.adapt_task is not None
        wanted = self.hints.replacing_nodes() or {}  # stale hints undo a raise
        self.refused &= set(wanted)
        held = self.held
        if held is not None:
            if service.count != held.count or service.adapt_task is not None:
                # scale() again would also turn the user's adapt() off
                logger.info("tightpack: the worker count was set to %d%s while %d replaced %s's workers; "
                            "it stands", service.count, " (adaptive)" if service.adapt_task else "",
                            held.count, held.node)
                self.held = None
                self.refused.add(held.node)
            elif held.node not in wanted:
                logger.info("tightpack: the move off %s ends: worker count back from %d to %d",
                            held.node, held.count, held.count - held.by)
                self.held = None
                await service.scale(held.count - held.by)
        if self.held is None:
            for node, by in sorted(wanted.items()):
                if node in self.refused:
                    continue
                why = self.refusal(service)
                if why:
                    logger.info("tightpack: no replacements for the workers on %s: %s", node, why)
                    self.refused.add(node)
                    continue
                self.held = Raise(node, by, service.count + by)
                logger.info("tightpack: making %d replacement(s) for the workers on %s: worker count %d -> %d",
                            by, node, service.count, self.held.count)
                await service.scale(self.held.count)
                break
        self.hints.raised = {self.held.node} if self.held else set()
        self.hints.refused = set(self.refused)

    @staticmethod
    def refusal(service) -> str | None:
        if service.adapt_task is not None:
            return "the cluster adapts (cluster.adapt()), which would undo the raise"
        if len(service.active_workers) != service.count or service.closing_workers:
            return (f"the cluster is still scaling ({len(service.active_workers)} workers for a count of "
                    f"{service.count}, {len(service.closing_workers)} closing)")
        return None
