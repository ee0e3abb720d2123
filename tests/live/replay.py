"""A packing scenario (tests/live/scenarios.py, `tightpack pack-report`'s format) replayed on
the live cluster, its clock condensed by `factor` (model seconds per live second), and what
happened, in the model's units so that pack-report's figures stand beside it.

The cluster: the scenario's nodes as static nodes kwok runs (the hub's core node) with their
pods bound; its pools as the kwok provider's node groups, template nodes from the pools'
templates, booting for the pool's provisioningTime; the real cluster-autoscaler with the
timings pack-report models, condensed (a loop a model minute, nodes unneeded for 10 model
minutes removed, none within 10 model minutes of a scale-up); the scheduler under test.
Every pod names that scheduler, as pack-report runs every pod under the profile under test.

The workload: a `start` of a template owned by a ReplicaSet (a Dask operator's worker) makes
one one-replica Deployment per replica, as the operator does, so cluster-autoscaler may
evict them and the ReplicaSet brings them back; any other template (a notebook) makes bare
pods. `scale` down deletes the newest replicas first (pack-report's adapt()), `stop` all.

Figures: node-hours per pool from each node's creation (the scale-up) to its deletion, busy
nodes at the end, the peak, the nodes cluster-autoscaler added and removed, the pods it
evicted (its own metric), and the pods that waited for a node and for how long."""

from __future__ import annotations

import copy
import json
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from autoscaler import BOOT_SECONDS, GROUP_LABEL, install_provider_config, registering_status
from harness import TIGHTPACK, Api, Metrics, Watch, http_get, node_of
from kwok import FAKE
from moves import GATEWAY_CLUSTER, gateway_labels, is_dask_worker
from scenarios import parse_duration

REPLICA = "tightpack.io/replica"  # the label naming a replica: its Deployment or bare pod
UNNEEDED, DELAY_AFTER_ADD, LOOP = 600, 600, 60  # model seconds, pack-report's (docs/packing.md)
QUIET = UNNEEDED + 5 * LOOP  # a spell without events in which scale-down can be watched


@dataclass
class Timing:
    factor: float  # model seconds per live second

    def live(self, model_seconds: float) -> float:
        return model_seconds / self.factor

    def flag(self, model_seconds: float) -> str:
        return f"{max(1, round(1000 * model_seconds / self.factor))}ms"


def kwok_templates(pools: dict, timing: Timing) -> list:
    """The kwok provider's template nodes for a NodePools document's pools: labels, taints and
    resources of each pool's template, its min and max, its boot time condensed (whole live
    seconds: a node's creation time has no finer grain)."""
    out = []
    for p in pools["pools"]:
        t = p["template"]
        resources = dict(t.get("capacity") or t["allocatable"])
        resources.update(t["allocatable"])
        labels = {GROUP_LABEL: p["name"], "kubernetes.io/os": "linux", **t.get("labels", {})}
        boot = max(1, round(timing.live(parse_duration(p["provisioningTime"]))))
        out.append({"apiVersion": "v1", "kind": "Node",
                    "metadata": {"name": f"{p['name']}-template", "labels": labels,
                                 "annotations": {"cluster-autoscaler.kwok.nodegroup/min-count": str(p["minSize"]),
                                                 "cluster-autoscaler.kwok.nodegroup/max-count": str(p["maxSize"]),
                                                 # the provider refuses a group whose size is below
                                                 # its min: the scenario's static nodes make it up
                                                 "cluster-autoscaler.kwok.nodegroup/desired-count": str(p["minSize"]),
                                                 BOOT_SECONDS: str(boot)}},
                    "spec": {"taints": t.get("taints", [])},
                    "status": registering_status(resources, dict(t["allocatable"]))})
    return out


def prediction_pools(pools: dict) -> dict:
    """The NodePools document the sidebar's question is asked with: the scenario's, each pool
    with the pod the kwok provider puts on every template node (cloudprovider.BuildKubeProxy:
    a kube-proxy mirror pod of 100m cpu), as a user lists a cloud's per-node pods."""
    doc = copy.deepcopy(pools)
    for p in doc["pools"]:
        p["templatePods"] = [{"apiVersion": "v1", "kind": "Pod",
                              "metadata": {"name": f"kube-proxy-{p['name']}", "namespace": "kube-system",
                                           "labels": {"component": "kube-proxy", "tier": "node"},
                                           "annotations": {"kubernetes.io/config.source": "file",
                                                           "kubernetes.io/config.mirror": "1234567890abcdef"}},
                              "spec": {"priority": 2000001000, "containers": [
                                  {"name": "kube-proxy", "image": "kubeproxy",
                                   "resources": {"requests": {"cpu": "100m"}}}]}}]
    return doc


def autoscaler_args(timing: Timing, expander: str) -> tuple:
    return (f"--expander={expander}", f"--scan-interval={timing.flag(LOOP)}",
            f"--scale-down-unneeded-time={timing.flag(UNNEEDED)}",
            f"--scale-down-delay-after-add={timing.flag(DELAY_AFTER_ADD)}",
            f"--scale-down-delay-after-failure={timing.flag(3 * 60)}",
            f"--unremovable-node-recheck-timeout={timing.flag(5 * 60)}",
            f"--max-node-provision-time={timing.flag(15 * 60)}",
            "--kube-client-qps=200", "--kube-client-burst=400")


def _image(spec: dict) -> dict:
    for c in spec.get("containers", []):
        c.setdefault("image", "registry.k8s.io/pause:3.10")
    return spec


@dataclass
class Replica:
    name: str
    deployment: bool
    created: float  # live monotonic
    deleted: float | None = None


@dataclass
class WavePrediction:
    """The sidebar's question before a `start`, and what then happened."""
    at: float  # model seconds
    group: str
    replicas: int
    settled: bool  # nothing pending or booting when it was asked
    predicted_pools: dict
    predicted_existing: dict  # node -> replicas, on nodes that existed
    ties: int  # replicas whose node was one of several tied
    actual_pools: dict = field(default_factory=dict)
    actual_existing: dict = field(default_factory=dict)
    complete: bool = False  # every replica bound before the next event
    # pool -> when its new nodes would be ready, in model seconds after the question: what the
    # spawn page and the waiting pod's event say ("about N minutes"); and when the last node the
    # pool added for the wave was Ready, on the watch (None: not before the next event)
    predicted_ready: dict = field(default_factory=dict)
    actual_ready: dict = field(default_factory=dict)

    @property
    def agrees(self) -> bool:
        return self.predicted_pools == self.actual_pools and (
            self.ties > 0 or self.predicted_existing == self.actual_existing)


@dataclass
class ForecastCheck:
    """`tightpack forecast` at the start of a quiet spell, and the nodes then removed."""
    at: float  # model seconds
    nodes: list
    removable: list
    kept: dict  # node -> cluster-autoscaler's reason
    removed: list | None = None
    # still there when the spell ended, but unneeded in cluster-autoscaler's own eyes (its
    # DeletionCandidate soft taint) or being drained: a drain takes 5-10 s of its clock
    # (it polls an evicted pod every 5 s), minutes of the condensed one, one at a time
    marked: list = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return self.removed is not None and sorted(self.removed + self.marked) == self.removable


class LiveReplay:
    def __init__(self, api: Api, namespace: str, scenario: dict, timing: Timing, scheduler_name: str,
                 snapshot=None, workdir: Path | None = None, config: Path | None = None, moves: bool = False):
        rules = {scenario.get("retire", "newest")} | {e["retire"] for e in scenario["events"] if "retire" in e}
        if rules != {"newest"}:
            # Only the newest rule is the replay's own to apply: the others are a Dask
            # scheduler's choice, which needs workers registered with one.
            raise ValueError(f"retire {sorted(rules - {'newest'})}: the live replay retires the newest replicas only")
        self.api, self.ns, self.scenario, self.timing = api, namespace, scenario, timing
        self.scheduler_name = scheduler_name
        self.snapshot = snapshot  # callable -> /snapshot document, to ask the sidebar's questions
        self.workdir = workdir
        self.config = config  # the scheduler's KubeSchedulerConfiguration, for predict
        self.replicas: dict = {}  # group -> [Replica]
        self.lag = 0.0
        self.predictions: list = []
        self.t0 = 0.0
        self._asked_at = None
        self.forecasts: list = []
        # moves.py: Dask workers labelled as dask-gateway's, opted in to moves, their count
        # changed by the Dask side (`dask_sides`, set by the run) as well as by the events.
        self.moves = moves
        self.dask_sides = None
        self.counts: dict = {}  # group -> the worker count its user (or a move) set
        self.lock = threading.RLock()

    # ------------------------------------------------------------------ setup
    def install(self, autoscaler_namespace: str):
        """The static nodes and their pods, and the node groups' ConfigMaps."""
        install_provider_config(self.api, autoscaler_namespace,
                                kwok_templates(self.scenario["pools"], self.timing))
        for n in self.scenario["cluster"].get("nodes", []):
            node = copy.deepcopy(n)
            meta = node.setdefault("metadata", {})
            meta["annotations"] = {**meta.get("annotations", {}), **FAKE}
            # a member of its pool's node group, as a cloud's node is (the kwok provider knows
            # its own nodes by this provider ID)
            node.setdefault("spec", {})["providerID"] = f"kwok:{meta['name']}"
            alloc = node["status"]["allocatable"]
            node["status"] = {"allocatable": alloc, "capacity": {**alloc, **node["status"].get("capacity", {})}}
            self.api.post("/api/v1/nodes", node)
        for p in self.scenario["cluster"].get("pods", []):
            pod = copy.deepcopy(p)
            pod["metadata"] = {"name": pod["metadata"]["name"], "labels": pod["metadata"].get("labels", {})}
            _image(pod["spec"])
            self.api.post(f"/api/v1/namespaces/{self.ns}/pods", pod)

    # ------------------------------------------------------------------ the workload
    def _manifests(self, group: str, index: int, template: dict) -> tuple:
        name = f"{group}-{index}"
        meta = template.get("metadata", {})
        labels = {**meta.get("labels", {}), REPLICA: name}
        if self.moves and is_dask_worker(template):
            labels = gateway_labels(labels, group)
        spec = _image(copy.deepcopy(template["spec"]))
        spec["schedulerName"] = self.scheduler_name
        spec.setdefault("terminationGracePeriodSeconds", 30)
        # the template's annotations too: cluster-autoscaler reads safe-to-evict from the pod
        pod_meta = {"labels": labels, **({"annotations": dict(meta["annotations"])} if meta.get("annotations") else {})}
        owned = any(o.get("kind") == "ReplicaSet" for o in meta.get("ownerReferences", []))
        if owned:
            return name, True, {"apiVersion": "apps/v1", "kind": "Deployment",
                                "metadata": {"name": name, "labels": labels},
                                "spec": {"replicas": 1, "selector": {"matchLabels": {REPLICA: name}},
                                         "template": {"metadata": pod_meta, "spec": spec}}}
        return name, False, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **pod_meta},
                             "spec": spec}

    def _create(self, group: str, template: dict, count: int):
        have = self.replicas.setdefault(group, [])
        alive = [r for r in have if r.deleted is None]
        next_index = len(have)
        for i in range(count - len(alive)):
            name, deployment, manifest = self._manifests(group, next_index + i, template)
            path = (f"/apis/apps/v1/namespaces/{self.ns}/deployments" if deployment
                    else f"/api/v1/namespaces/{self.ns}/pods")
            self.api.post(path, manifest)
            have.append(Replica(name, deployment, time.monotonic()))

    def _delete(self, group: str, keep: int):
        alive = [r for r in self.replicas.get(group, []) if r.deleted is None]
        self._delete_replicas(list(reversed(alive[keep:])))  # the newest first, as pack-report's adapt()

    def _delete_replicas(self, replicas: list):
        for r in replicas:
            path = (f"/apis/apps/v1/namespaces/{self.ns}/deployments/{r.name}" if r.deployment
                    else f"/api/v1/namespaces/{self.ns}/pods/{r.name}")
            self.api.delete(path, params={"propagationPolicy": "Background"})
            r.deleted = time.monotonic()

    def _apply(self, event: dict):
        with self.lock:
            if "start" in event:
                self.templates[event["start"]] = event["pod"]
                self.counts[event["start"]] = int(event.get("replicas", 1))
                self._create(event["start"], event["pod"], int(event.get("replicas", 1)))
            elif "scale" in event:
                group, n = event["scale"], int(event["replicas"])
                self.counts[group] = n
                alive = sum(1 for r in self.replicas.get(group, []) if r.deleted is None)
                if n < alive:
                    self._delete(group, n)
                elif n > alive:
                    self._create(group, self.templates[group], n)
            elif "stop" in event:
                self.counts[event["stop"]] = 0
                self._delete(event["stop"], 0)

    # ------------------------------------------------------------------ a Dask cluster's side (moves.py)
    def dask_groups(self) -> list:
        with self.lock:
            return [g for g, t in self.templates.items() if is_dask_worker(t) and self.alive(g)]

    def alive(self, group: str) -> int:
        return sum(1 for r in self.replicas.get(group, []) if r.deleted is None)

    def _pods_of(self, group: str) -> list:
        pods = self.api.list(f"/api/v1/namespaces/{self.ns}/pods", labelSelector=f"{GATEWAY_CLUSTER}={group}")
        return [p for p in pods if not p["metadata"].get("deletionTimestamp")]

    def nodes_of(self, group: str) -> set:
        return {node_of(p) for p in self._pods_of(group) if node_of(p)}

    def reached_count(self, group: str) -> bool:
        """Every worker the count asks for runs (the preload's `len(active_workers) == count`)."""
        alive = {r.name for r in self.replicas.get(group, []) if r.deleted is None}
        running = {p["metadata"]["labels"].get(REPLICA) for p in self._pods_of(group)
                   if node_of(p) and (p.get("status") or {}).get("phase") == "Running"}
        return self.counts.get(group) == len(alive) and alive <= running

    def raise_count(self, group: str, by: int):
        self.counts[group] = self.counts.get(group, 0) + by
        self._create(group, self.templates[group], self.counts[group])

    def retire(self, group: str, by: int, on_node: str | None) -> int:
        """The count lowered by `by`: the workers on `on_node` retired first, then the newest.
        Returns how many of them were on `on_node`."""
        self.counts[group] = self.counts.get(group, 0) - by
        alive = [r for r in self.replicas.get(group, []) if r.deleted is None]
        there = set()
        if on_node:
            there = {p["metadata"]["labels"].get(REPLICA) for p in self._pods_of(group) if node_of(p) == on_node}
        first = [r for r in alive if r.name in there][:by]
        rest = [r for r in reversed(alive) if r not in first][:by - len(first)]
        self._delete_replicas(first + rest)
        return len(first)

    # ------------------------------------------------------------------ the run
    def run(self, nodes: Watch, pods: Watch, tail: float) -> None:
        """Plays the events on the condensed clock, then waits at most `tail` model seconds
        for cluster-autoscaler to remove every node above the pools' minimum."""
        self.templates: dict = {}
        events = sorted(self.scenario["events"], key=lambda e: parse_duration(e["at"]))
        self.t0 = time.monotonic()
        if self.dask_sides is not None:
            self.dask_sides.start()
        for k, event in enumerate(events):
            at = parse_duration(event["at"])
            wait = self.t0 + self.timing.live(at) - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            else:
                self.lag = max(self.lag, -wait)
            self._close_forecast(nodes)
            asked = "start" in event and self.snapshot is not None and self.settled(pods, nodes)
            if asked:
                self._ask(event, at, nodes)
            self._apply(event)
            nxt = parse_duration(events[k + 1]["at"]) if k + 1 < len(events) else at + tail
            if asked or (nxt != at and self._asked_at is not None):
                self._close_prediction(nodes, pods, self.t0 + self.timing.live(nxt), closes=nxt != at)
            if self.snapshot is not None and nxt - at >= QUIET:
                self._forecast(nodes, pods, at, self.t0 + self.timing.live(nxt))
        # A drain under way is finished first (bounded): cluster-autoscaler polls an evicted
        # pod's departure every 5 s of its own clock, minutes of the condensed one.
        deadline = time.monotonic() + self.timing.live(tail)
        while not self.scaled_in(nodes) and (time.monotonic() < deadline or (
                draining(nodes) and time.monotonic() < deadline + 120)):
            time.sleep(0.2)
        self.end = time.monotonic()
        if self.dask_sides is not None:
            self.dask_sides.stop()
        self._close_forecast(nodes)

    def _close_forecast(self, nodes: Watch):
        if self.forecasts and self.forecasts[-1].removed is None:
            f = self.forecasts[-1]
            now = _live_objects(nodes)
            f.removed = sorted(set(f.nodes) - {n["metadata"]["name"] for n in now})
            f.marked = sorted(n["metadata"]["name"] for n in now if n["metadata"]["name"] in f.nodes and any(
                t["key"] in ("DeletionCandidateOfClusterAutoscaler", "ToBeDeletedByClusterAutoscaler")
                for t in (n.get("spec") or {}).get("taints") or []))

    def _forecast(self, nodes: Watch, pods: Watch, at: float, until: float):
        """A quiet spell long enough for scale-down: once settled, `tightpack forecast` on the
        snapshot says which nodes cluster-autoscaler removes; the nodes it removed by the next
        event (or the end) are the answer."""
        while not self.settled(pods, nodes):
            if time.monotonic() > until - self.timing.live(UNNEEDED + 3 * LOOP):
                return
            time.sleep(0.1)
        snap = self.snapshot()
        (self.workdir / "forecast-cluster.json").write_text(json.dumps(snap["cluster"]))
        (self.workdir / "forecast-pools.json").write_text(json.dumps(prediction_pools(self.scenario["pools"])))
        r = subprocess.run([str(TIGHTPACK), "forecast", "--cluster", str(self.workdir / "forecast-cluster.json"),
                            "--pools", str(self.workdir / "forecast-pools.json"), "--output", "json"],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"tightpack forecast failed ({r.returncode}): {r.stderr[-1000:]}")
        answer = json.loads(r.stdout)
        self.forecasts.append(ForecastCheck(
            at, [n["node"] for n in answer["nodes"]], sorted(n["node"] for n in answer["nodes"] if n["removable"]),
            {n["node"]: n.get("reason", "") for n in answer["nodes"] if not n["removable"]}))

    def settled(self, pods: Watch, nodes: Watch) -> bool:
        departed = {r.name for rs in self.replicas.values() for r in rs if r.deleted is not None}
        return settled(pods, nodes, departed)

    def scaled_in(self, nodes: Watch) -> bool:
        """Only the static nodes and each pool's minimum are left."""
        minimum = {p["name"]: p["minSize"] for p in self.scenario["pools"]["pools"]}
        static = {n["metadata"]["name"] for n in self.scenario["cluster"].get("nodes", [])}
        per_pool: dict = {}
        for n in _live_objects(nodes):
            if n["metadata"]["name"] not in static:
                pool = n["metadata"].get("labels", {}).get(GROUP_LABEL, "")
                per_pool[pool] = per_pool.get(pool, 0) + 1
        return all(count <= minimum.get(pool, 0) for pool, count in per_pool.items())

    # ------------------------------------------------------------------ predictions
    def _ask(self, event: dict, at: float, nodes: Watch):
        snap = self.snapshot()
        pod = self._manifests(event["start"], 0, event["pod"])[2]
        if pod["kind"] == "Deployment":
            pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": event["start"], "namespace": self.ns,
                                                                    **pod["spec"]["template"]["metadata"]},
                   "spec": pod["spec"]["template"]["spec"]}
        else:
            pod["metadata"]["namespace"] = self.ns
        workdir = self.workdir
        for name, doc in (("cluster.json", snap["cluster"]), ("pools.json", prediction_pools(self.scenario["pools"])),
                          ("pod.json", pod)):
            (workdir / name).write_text(json.dumps(doc))
        r = subprocess.run([str(TIGHTPACK), "predict", "--cluster", str(workdir / "cluster.json"),
                            "--pools", str(workdir / "pools.json"), "--pod", str(workdir / "pod.json"),
                            "--replicas", str(event.get("replicas", 1)), "--scheduler-name", self.scheduler_name,
                            *(["--config", str(self.config)] if self.config else []),
                            # the control plane runs the admission plugin, as GKE does
                            "--extended-resource-toleration",
                            "--output", "json"], capture_output=True, text=True, timeout=120)
        if r.returncode not in (0, 3):
            raise RuntimeError(f"tightpack predict failed ({r.returncode}): {r.stderr[-1000:]}")
        answer = json.loads(r.stdout)
        existing: dict = {}
        ties = 0
        for p in answer["placements"]:
            if p["node"]:
                existing[p["node"]] = existing.get(p["node"], 0) + 1
                ties += p.get("tiedNodes", 0) > 1
        grown = [g for g in answer.get("scaleUp", {}).get("pools", []) if g["nodesAdded"]]
        pools = {g["pool"]: g["nodesAdded"] for g in grown}
        self.predictions.append(WavePrediction(at, event["start"], int(event.get("replicas", 1)), True, pools,
                                               existing, ties,
                                               predicted_ready={g["pool"]: g["readyInSeconds"] for g in grown}))
        self._asked_nodes = {n["metadata"]["name"] for n in _live_objects(nodes)}
        self._asked_at = time.monotonic()

    def _close_prediction(self, nodes: Watch, pods: Watch, until: float, closes: bool):
        """What the wave asked about came to, by the next event at the latest: the nodes
        added since per pool, and where its replicas landed on the nodes that existed."""
        if not closes:
            return  # the next event is at the same time: it is part of the outcome
        w = self.predictions[-1]
        names = {r.name for r in self.replicas.get(w.group, [])}
        while True:
            mine = [p for p in _live_objects(pods) if p["metadata"].get("labels", {}).get(REPLICA) in names]
            bound = [p for p in mine if node_of(p)]
            if len(bound) >= w.replicas or time.monotonic() >= until - 0.05:
                break
            time.sleep(0.1)
        w.complete = len(bound) >= w.replicas
        ready_at: dict = {}  # new node -> (pool, when the watch first saw it Ready)
        for t, kind, n in nodes.snapshot():
            name = n["metadata"]["name"]
            if kind == "ADDED" and t >= self._asked_at and name not in self._asked_nodes:
                pool = n["metadata"].get("labels", {}).get(GROUP_LABEL, "")
                w.actual_pools[pool] = w.actual_pools.get(pool, 0) + 1
                ready_at[name] = (pool, None)
            if name in ready_at and ready_at[name][1] is None and _ready(n):
                ready_at[name] = (ready_at[name][0], t)
        for pool in w.predicted_ready:
            times = [t for p, t in ready_at.values() if p == pool]
            w.actual_ready[pool] = (round((max(times) - self._asked_at) * self.timing.factor)
                                    if times and None not in times else None)
        for p in bound:
            if node_of(p) in self._asked_nodes:
                w.actual_existing[node_of(p)] = w.actual_existing.get(node_of(p), 0) + 1
        self._asked_at = None
        if w.complete and not w.agrees:  # its question's inputs, to find out why
            for name in ("cluster.json", "pools.json", "pod.json"):
                (self.workdir / f"disagreement-{int(w.at)}-{name}").write_bytes((self.workdir / name).read_bytes())


def _ready(node: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in node.get("status", {}).get("conditions", []))


def _live_objects(watch: Watch) -> list:
    """The objects a watch holds now (its list, then its events), by name."""
    objs = {o["metadata"]["name"]: o for o in watch.initial}
    for _, kind, o in watch.snapshot():
        if kind == "DELETED":
            objs.pop(o["metadata"]["name"], None)
        else:
            objs[o["metadata"]["name"]] = o
    return list(objs.values())


def draining(nodes: Watch) -> bool:
    return any(t["key"] == "ToBeDeletedByClusterAutoscaler"
               for n in _live_objects(nodes) for t in (n.get("spec") or {}).get("taints") or [])


def settled(pods: Watch, nodes: Watch, departed: set = frozenset()) -> bool:
    """Nothing waits: every pod bound, the pods of `departed` replicas gone (the garbage
    collector deletes a Deployment's pods after it), every node Ready, none being drained."""
    for p in _live_objects(pods):
        if not node_of(p) and not p["metadata"].get("deletionTimestamp"):
            return False
        if p["metadata"].get("labels", {}).get(REPLICA) in departed:
            return False
    for n in _live_objects(nodes):
        conditions = (n.get("status") or {}).get("conditions") or []
        if not any(c["type"] == "Ready" and c["status"] == "True" for c in conditions):
            return False
        # a node being drained; DeletionCandidateOfClusterAutoscaler (PreferNoSchedule, on
        # unneeded nodes) is part of what the snapshot shows the engine
        if any(t["key"] == "ToBeDeletedByClusterAutoscaler" for t in (n.get("spec") or {}).get("taints") or []):
            return False
    return True


# ---------------------------------------------------------------------- figures

def figures(replay: LiveReplay, nodes: Watch, pods: Watch, ca_metrics: Metrics, static_nodes: set) -> dict:
    """The run in the model's units: node-hours per pool over the scenario's whole length
    (what is left at the end of the live run is counted on until the scenario's end, as the
    model counts it), peak and busy nodes, nodes added and removed, pods evicted and waits."""
    f = replay.timing.factor
    end_model = parse_duration(replay.scenario.get("end", "0s"))
    t0, t_end = replay.t0, replay.end
    life: dict = {}  # node -> [pool, start, stop]
    for n in nodes.initial:
        life[n["metadata"]["name"]] = [n["metadata"].get("labels", {}).get(GROUP_LABEL, ""), t0, None]
    for t, kind, n in nodes.snapshot():
        name = n["metadata"]["name"]
        if kind == "ADDED" and name not in life:
            life[name] = [n["metadata"].get("labels", {}).get(GROUP_LABEL, ""), max(t, t0), None]
        elif kind == "DELETED" and name in life and life[name][2] is None:
            life[name][2] = t
    hours: dict = {}
    left_at_end = 0
    for pool, start, stop in life.values():
        live_seconds = (stop if stop is not None else t_end) - start
        model = live_seconds * f
        if stop is None:
            left_at_end += 1
            model += max(0.0, end_model - (t_end - t0) * f)
        hours[pool] = hours.get(pool, 0.0) + model / 3600
    # the peak: nodes alive at once
    changes = sorted([(s, 1) for _, s, _ in life.values()] + [(e, -1) for _, _, e in life.values() if e is not None])
    alive = peak = 0
    for _, d in changes:
        alive += d
        peak = max(peak, alive)
    # waits: from a pod's creation to its binding, in model minutes
    # (a pod deleted before it ran waited until then)
    created: dict = {}
    bound: dict = {}
    for t, kind, p in pods.snapshot():
        uid = p["metadata"]["uid"]
        created.setdefault(uid, t)
        if uid not in bound and (node_of(p) or kind == "DELETED" or p["metadata"].get("deletionTimestamp")):
            bound[uid] = t
    waits = sorted((bound.get(uid, t_end) - c) * f / 60 for uid, c in created.items())
    pending_at_end = sum(1 for p in _live_objects(pods) if not node_of(p))
    waited = [w for w in waits if w >= 1.0]  # a model minute: a scale-up, not the scheduler's queue
    busy_at_end = len({node_of(p) for p in _live_objects(pods) if node_of(p)} - static_nodes)

    def ca(name):
        return int(sum(v for n, _, v in ca_metrics.samples if n == name))

    return {"nodeHours": round(sum(hours.values()), 2), "pools": {k: round(v, 2) for k, v in sorted(hours.items())},
            "peakNodes": peak, "nodesAtEnd": left_at_end, "busyNonStaticAtEnd": busy_at_end,
            "nodesAdded": ca("cluster_autoscaler_scaled_up_nodes_total"),
            "nodesRemoved": ca("cluster_autoscaler_scaled_down_nodes_total"),
            "podsEvicted": ca("cluster_autoscaler_evicted_pods_total"),
            "podsWaited": len(waited), "maxWaitMinutes": round(waits[-1], 1) if waits else 0.0,
            "meanWaitMinutes": round(sum(waited) / len(waited), 1) if waited else 0.0,
            "pendingAtEnd": pending_at_end, "lagSeconds": round(replay.lag, 2)}


def ca_metrics(port: int) -> Metrics:
    status, text = http_get(f"http://127.0.0.1:{port}/metrics", timeout=10)
    if status != 200:
        raise RuntimeError(f"cluster-autoscaler /metrics answered {status}")
    return Metrics(text)
