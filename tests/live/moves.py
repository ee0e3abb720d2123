"""Moves on the live cluster (`tightpack schedule --move-dask-workers`, docs/packing.md "In the
cluster"): the scheduler under test plans and carries out moves of the replay's Dask workers
while cluster-autoscaler runs, and what it emptied is held against what cluster-autoscaler then
removed.

kwok runs no container, so no Dask scheduler runs here; each Dask cluster's side is played by
this file, as dask-gateway's: the cluster's worker count lives with it (the replay's `scale`
events set it, as `cluster.scale()` does), its tightpack-dask preload asks /dask/v1/nodes every
`interval` live seconds with the cluster's token, and what the preload does is tightpack_dask/
gateway.py's and drain.py's rules: a node answered `"replace": k` raises the count by k (the
replay makes k replicas, as the gateway's controller makes pods) unless the cluster has not
reached its count, and the question then says `raised=`; a node answered `emptying` is drained
at once (a kwok worker runs no task, so it is idle as soon as it is paused) and said
`drained=`; once the node is no longer answered `replace` the count goes back down by k, the
drained node's workers retired first (the gateway's heartbeat asks `workers_to_close`, which
takes them first), the newest otherwise; a count set meanwhile stands and the node is
refused. The workers stay the replay's one-replica Deployments (cluster-autoscaler sees them as
the model does, protected by their `safe-to-evict: "false"`), labelled as dask-gateway labels
its workers so that the mover takes the gateway path and writes no object."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

from harness import node_of

GATEWAY_CLUSTER = "gateway.dask.org/cluster"
MOVE = "tightpack.io/move"


def is_dask_worker(template: dict) -> bool:
    labels = template.get("metadata", {}).get("labels", {})
    return labels.get("dask.org/component") == "worker" or labels.get("app.kubernetes.io/component") == "dask-worker"


def gateway_labels(labels: dict, group: str) -> dict:
    """A Dask worker's labels as dask-gateway sets them, for the replay's group, opted in."""
    kept = {k: v for k, v in labels.items() if not k.startswith("dask.org/")}
    return {**kept, GATEWAY_CLUSTER: group, "app.kubernetes.io/component": "dask-worker", MOVE: "true"}


@dataclass
class Held:
    node: str
    by: int
    count: int


@dataclass
class Side:
    held: Held | None = None
    refused: set = field(default_factory=set)
    drained: set = field(default_factory=set)


@dataclass
class Break:
    """A move's break as the Dask side made it: the node's workers retired at `at`."""
    node: str
    group: str
    at: float  # live monotonic
    retired: int


class DaskSides:
    def __init__(self, replay, ask, token: str, interval: float):
        """ask(path, token) -> (status, body) on the scheduler under test."""
        self.replay, self.ask, self.token, self.interval = replay, ask, token, interval
        self.sides: dict[str, Side] = {}
        self.breaks: list[Break] = []
        self.raises = self.lowered_back = self.refusals = self.errors = 0
        self.longest_round = 0.0  # live seconds for one question of every cluster
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="dask-sides")

    def start(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join(30)

    def _loop(self):
        while not self._stop.wait(self.interval):
            began = time.monotonic()
            for group in self.replay.dask_groups():
                try:
                    self._tick(group)
                except Exception as e:  # noqa: BLE001 - the API between two answers; counted
                    self.errors += 1
                    print(f"dask side of {group}: {e}", flush=True)
            self.longest_round = max(self.longest_round, time.monotonic() - began)

    def _tick(self, group: str):
        replay = self.replay
        if not replay.alive(group):
            self.sides.pop(group, None)
            return
        side = self.sides.setdefault(group, Side())
        said = {}
        if side.held:
            said["raised"] = side.held.node
        for name in ("refused", "drained"):
            if getattr(side, name):
                said[name] = ",".join(sorted(getattr(side, name)))
        query = urlencode({"namespace": replay.ns, "cluster": group, **said})
        status, body = self.ask(f"/dask/v1/nodes?{query}", self.token)
        if status == 200:
            nodes = json.loads(body)["nodes"]
        else:  # unanswered: as the preload's stale hints, no move is held
            self.errors += 1
            nodes = []
        wanted = {n["name"]: n["replace"] for n in nodes if n.get("replace")}
        emptying = {n["name"] for n in nodes if n.get("emptying")}
        with replay.lock:
            count = replay.counts.get(group, 0)
            side.refused &= set(wanted)
            held = side.held
            if held is not None:
                if count != held.count:  # the user's scale: it stands
                    side.held = None
                    side.refused.add(held.node)
                elif held.node not in wanted:
                    drained = held.node in side.drained
                    retired = replay.retire(group, held.by, on_node=held.node if drained else None)
                    side.held = None
                    if drained:
                        self.breaks.append(Break(held.node, group, time.monotonic(), retired))
                    else:
                        self.lowered_back += 1
            if side.held is None:
                for node, by in sorted(wanted.items()):
                    if node in side.refused:
                        continue
                    if not replay.reached_count(group):
                        side.refused.add(node)
                        self.refusals += 1
                        continue
                    side.held = Held(node, by, count + by)
                    replay.raise_count(group, by)
                    self.raises += 1
                    break
            side.drained = emptying & replay.nodes_of(group) if emptying else set()

    def judge(self, nodes_watch, pods_watch) -> dict:
        """Each node a move emptied: removed by cluster-autoscaler afterwards, or taken again
        by a pod bound there afterwards (it opened once the move ended), or neither."""
        deleted = {}
        for t, kind, n in nodes_watch.snapshot():
            if kind == "DELETED":
                deleted.setdefault(n["metadata"]["name"], t)
        first_bound: dict = {}  # pod uid -> (when it was first seen bound, node)
        for t, kind, p in pods_watch.snapshot():
            if node_of(p) and kind != "DELETED":
                first_bound.setdefault(p["metadata"]["uid"], (t, node_of(p)))
        out = {"emptied": len(self.breaks), "removed": 0, "takenAgain": 0, "kept": []}
        for b in self.breaks:
            removed_at = deleted.get(b.node)
            if removed_at is not None and removed_at >= b.at:
                out["removed"] += 1
            elif any(t > b.at and node == b.node for t, node in first_bound.values()):
                out["takenAgain"] += 1
            else:
                out["kept"].append(b.node)
        return out
