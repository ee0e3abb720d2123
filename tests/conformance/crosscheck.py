#!/usr/bin/env python3
"""The reference's answers against the real kube-scheduler on a real control plane.

usage: crosscheck.py [--seed SEED] [--count N] [--start I] [--volumes] [--affinity]
                     [--nodes MIN:MAX] [--input FILE.jsonl] [--out DIR] [--answers FILE] [-v]

kube-scheduler-reference (tests/conformance/reference/) runs kube-scheduler
v1.37.2's framework on a scenario whose objects it feeds straight to the
informers' stores. This program checks that harness against the complete
kube-scheduler binary: per scenario, on one test control plane
(tests/controlplane/, through tests/scheduler/harness.py), it

1. loads the scenario's cluster into the API server as real objects, as the
   API server stores them once the controllers have run: namespaces (with the
   scenario's labels), PriorityClasses for the priorities used (pods get
   priorityClassName: the Priority admission plugin refuses a bare
   spec.priority), RuntimeClasses for the overheads used (the RuntimeClass
   admission plugin refuses a bare spec.overhead), nodes with their status,
   StorageClasses, CSIDrivers, CSINodes, CSIStorageCapacities, PVCs and PVs
   with their status (a PV's claimRef.uid becomes the uid the API server gave
   its claim), Services, ReplicaSets, StatefulSets and ReplicationControllers
   completed to what validation requires (a port; replicas 0 and a pod
   template matching the selector), bound pods with spec.nodeName (phase and
   startTime written through /status, a terminating one deleted with a grace
   period so that it stays Terminating). The mutating admission plugins the
   corpus format does not apply (OFF_ADMISSION) are off. An object the API
   server refuses is left out on both sides and counted;
2. starts the real kube-scheduler (build/controlplane/kube-scheduler; for the
   tightpack profile build/conformance/kube-scheduler-tightpack, the same
   command with TightpackCohort registered as an out-of-tree plugin) with the
   scenario's profile and DefaultPreemption disabled, so that no victim is
   evicted;
3. creates the incoming pods one at a time (replicas as <name>-<i>; a pod with
   generic ephemeral volumes behind a scheduling gate until its claims name
   the uid the API server gave it), waits until each is bound, PodScheduled=
   False, or nominated to a node whose claims VolumeBinding's PreBind is
   binding or provisioning (it then waits for a PV controller that does not
   run: the pod stays assumed there, and what PreBind wrote to the claim or PV
   is read back), deletes an unschedulable one at once (the corpus drops it),
   and asks the reference for that pod's answer on the scenario as it stands
   in the real cluster: the original bound pods plus the earlier incoming pods
   bound where the real kube-scheduler put them, claims and PVs as PreBind
   left them; and again with those earlier pods incoming, pinned to their
   nodes, so that the reference's own Reserve and cache make the same state;
4. judges: a placed pod's node must be in the reference's `top` (kube-scheduler
   picks at random among tied nodes); an unschedulable pod must be
   unschedulable for the reference too, with the same message up to
   " preemption:" (the real scheduler runs without DefaultPreemption); the
   two forms of the question must get the same answer.

Pods that cannot be reproduced are skipped and counted by reason
(tests/conformance/README.md). Disagreements are written to OUT/<id>.jsonl
(default build/conformance/crosscheck/), one corpus line per pod: `scenario`
is the state the reference was asked about (`kube-scheduler-reference --jsonl
OUT/<id>.jsonl` replays it), `expected` the reference's answer, `meta.real`
the real kube-scheduler's. Exit status 0 when every checked pod agrees, 1 on
any disagreement, 2 on bad usage or a control plane that would not start.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests" / "scheduler"))
try:
    import pytest  # noqa: F401  (harness.py fails with pytest.fail; standard library alone suffices here)
except ImportError:  # pragma: no cover
    class _Failed(Exception):
        pass

    def _fail(msg, pytrace=True):
        raise _Failed(msg)
    sys.modules["pytest"] = types.SimpleNamespace(fail=_fail)
import harness as h  # noqa: E402

# Mutating admission plugins the corpus format does not apply ("Admission plugins are not
# applied: tolerations, overhead and priority are taken as given"): off on this program's API
# server, so that it stores the scenario's objects as they are. DefaultTolerationSeconds would
# give every pod tolerations of node.kubernetes.io/not-ready and unreachable (NoExecute, 300 s),
# DefaultStorageClass a class to claims without one, PodTopologyLabels the node's zone and
# region labels to every pod kube-scheduler binds. Priority and RuntimeClass stay on (the pods
# name classes whose values are the scenario's).
OFF_ADMISSION = "DefaultTolerationSeconds,DefaultStorageClass,PodTopologyLabels"
GENERATE = HERE / "generate" / "generate.py"
REFERENCE = ROOT / "build" / "conformance" / "kube-scheduler-reference"
KUBE_SCHEDULER = h.CP_BIN / "kube-scheduler"
KUBE_SCHEDULER_TIGHTPACK = ROOT / "build" / "conformance" / "kube-scheduler-tightpack"
CONFIG_FILES = {"default": "default-scheduler.yaml", "most-allocated": "z2jh-user-scheduler.yaml",
                "tightpack": "tightpack.yaml", "rtc": "default-scheduler.yaml"}
SELECTED_NODE = "volume.kubernetes.io/selected-node"
PAUSE = "registry.k8s.io/pause:3.10"
DECISION_TIMEOUT = 30.0


# --------------------------------------------------------------------------- configuration

def parse_yaml(text: str):
    """The block-style YAML of config/*.yaml (mappings, sequences, plain scalars, flow
    collections written as JSON, comments): enough for those files, standard library only."""
    lines = []
    for raw in text.splitlines():
        body = re.sub(r"\s+#.*$", "", raw) if not raw.lstrip().startswith("#") else ""
        if body.strip():
            lines.append([len(body) - len(body.lstrip()), body.strip()])

    def scalar(s):
        if s[:1] in "[{\"":
            return json.loads(s)
        if s in ("true", "false"):
            return s == "true"
        if s in ("null", "~"):
            return None
        if re.fullmatch(r"-?\d+", s):
            return int(s)
        if re.fullmatch(r"-?\d+\.\d*", s):
            return float(s)
        return s

    def block(i, indent):
        if lines[i][1].startswith("- ") or lines[i][1] == "-":
            out = []
            while i < len(lines) and lines[i][0] == indent and (lines[i][1].startswith("- ") or lines[i][1] == "-"):
                rest = lines[i][1][2:].strip()
                if not rest or (":" in rest and not rest.startswith(("[", "{", '"'))):
                    if rest:
                        lines[i] = [indent + 2, rest]
                        value, i = block(i, indent + 2)
                    else:
                        value, i = block(i + 1, lines[i + 1][0])
                    out.append(value)
                else:
                    out.append(scalar(rest))
                    i += 1
            return out, i
        out = {}
        while i < len(lines) and lines[i][0] == indent and not lines[i][1].startswith("- "):
            key, _, rest = lines[i][1].partition(":")
            rest = rest.strip()
            i += 1
            if rest:
                out[key.strip()] = scalar(rest)
            elif i < len(lines) and (lines[i][0] > indent or (lines[i][0] == indent and lines[i][1].startswith("- "))):
                out[key.strip()], i = block(i, lines[i][0])
            else:
                out[key.strip()] = None
        return out, i

    value, _ = block(0, lines[0][0]) if lines else ({}, 0)
    return value


def first_profile(cfg: dict) -> dict:
    profiles = cfg.setdefault("profiles", [])
    if not profiles:
        profiles.append({})
    return profiles[0]


def fit_args(profile: dict) -> dict:
    for c in profile.setdefault("pluginConfig", []) or []:
        if c.get("name") == "NodeResourcesFit":
            return c.setdefault("args", {})
    args: dict = {}
    profile["pluginConfig"] = (profile.get("pluginConfig") or []) + [{"name": "NodeResourcesFit", "args": args}]
    return args


def score_list(profile: dict, which: str) -> list:
    plugins = profile.setdefault("plugins", {}) or {}
    profile["plugins"] = plugins
    score = plugins.setdefault("score", {}) or {}
    plugins["score"] = score
    score[which] = score.get(which) or []
    return score[which]


def base_config(name: str) -> dict:
    if name not in CONFIG_FILES:
        raise ValueError(f"unknown profile {name!r}")
    cfg = parse_yaml((ROOT / "config" / CONFIG_FILES[name]).read_text())
    if name == "rtc":
        fit_args(first_profile(cfg))["scoringStrategy"] = {
            "type": "RequestedToCapacityRatio",
            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
            "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]}}
    return cfg


def scheduler_configuration(spec) -> tuple:
    """(KubeSchedulerConfiguration, profile name, uses TightpackCohort) for a scenario's
    profile, as the corpus README and the reference's profile.go define it: a name, or an
    object with a base name and overrides (scoringStrategy, scoreWeights, disabledScore), or
    a whole schedulerConfig. DefaultPreemption is then disabled in the first profile."""
    if spec is None:
        spec = "default"
    if isinstance(spec, str):
        name, cfg = spec, base_config(spec)
    else:
        unknown = set(spec) - {"name", "scoringStrategy", "scoreWeights", "disabledScore", "schedulerConfig"}
        if unknown:
            raise ValueError(f"profile keys this program cannot express: {sorted(unknown)}")
        name = spec.get("name", "default")
        if "schedulerConfig" in spec:
            cfg = copy.deepcopy(spec["schedulerConfig"])
            cfg.setdefault("profiles", [{}])
        else:
            cfg = base_config(name)
        profile = first_profile(cfg)
        if "scoringStrategy" in spec:
            strategy = copy.deepcopy(spec["scoringStrategy"])
            if "shape" in strategy:
                strategy["requestedToCapacityRatio"] = {"shape": strategy.pop("shape")}
            args = fit_args(profile)
            if strategy.get("type") == "RequestedToCapacityRatio" and "requestedToCapacityRatio" not in strategy:
                old = args.get("scoringStrategy") or {}
                if "requestedToCapacityRatio" in old:
                    strategy["requestedToCapacityRatio"] = old["requestedToCapacityRatio"]
            args["scoringStrategy"] = strategy
        for plugin, weight in (spec.get("scoreWeights") or {}).items():
            enabled = [e for e in score_list(profile, "enabled") if e.get("name") != plugin]
            profile["plugins"]["score"]["enabled"] = enabled
            disabled = score_list(profile, "disabled")
            if not any(d.get("name") == plugin for d in disabled):
                disabled.append({"name": plugin})
            enabled.append({"name": plugin, "weight": weight})
        for plugin in spec.get("disabledScore") or []:
            profile["plugins"]["score"]["enabled"] = [e for e in score_list(profile, "enabled")
                                                      if e.get("name") != plugin]
            disabled = score_list(profile, "disabled")
            if not any(d.get("name") == plugin for d in disabled):
                disabled.append({"name": plugin})
    cfg.setdefault("apiVersion", "kubescheduler.config.k8s.io/v1")
    cfg.setdefault("kind", "KubeSchedulerConfiguration")
    profile = first_profile(cfg)
    profile.setdefault("schedulerName", "default-scheduler")
    plugins = profile.get("plugins") or {}
    profile["plugins"] = plugins
    post = plugins.get("postFilter") or {}
    plugins["postFilter"] = post
    post["disabled"] = (post.get("disabled") or []) + [{"name": "DefaultPreemption"}]
    uses_cohort = "TightpackCohort" in json.dumps(cfg)
    return cfg, name, uses_cohort


def write_config(cfg: dict, path: Path) -> Path:
    """YAML whose top-level values are JSON (JSON is YAML), so that harness.scheduler_config
    can replace clientConnection and leaderElection line by line."""
    path.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in cfg.items()))
    return path


# --------------------------------------------------------------------------- scenario objects

def ns_of(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("namespace") or "default"


def name_of(obj: dict) -> str:
    return obj["metadata"]["name"]


def expand_incoming(incoming: list) -> list:
    """The incoming pods one by one, replicas as <name>-<i>, as the reference expands them."""
    out = []
    for p in incoming:
        if "replicas" not in p:
            out.append(copy.deepcopy(p))
            continue
        for i in range(p["replicas"]):
            c = copy.deepcopy(p)
            del c["replicas"]
            c["metadata"]["name"] = f"{name_of(p)}-{i}"
            c["metadata"].pop("uid", None)
            out.append(c)
    return out


def pod_claims(pod: dict) -> list:
    """The claims a pod uses: its PVC volumes, and <pod>-<volume> for a generic ephemeral one."""
    out = []
    for v in (pod.get("spec") or {}).get("volumes") or []:
        if v.get("persistentVolumeClaim"):
            out.append(v["persistentVolumeClaim"]["claimName"])
        elif v.get("ephemeral"):
            out.append(f"{name_of(pod)}-{v['name']}")
    return out


def needs_binding(pod: dict, claims: dict) -> list:
    """The pod's claims that exist and are not bound yet: VolumeBinding's PreBind would
    provision or bind them and wait for controllers that do not run here."""
    out = []
    for c in pod_claims(pod):
        claim = claims.get((ns_of(pod), c))
        if claim is not None and not (claim.get("spec") or {}).get("volumeName"):
            out.append(c)
    return out


def label_set_for(selector) -> dict:
    """Labels that a LabelSelector (matchLabels, matchExpressions) selects, for a pod template."""
    labels = dict((selector or {}).get("matchLabels") or {})
    for e in (selector or {}).get("matchExpressions") or []:
        key, op, values = e["key"], e["operator"], e.get("values") or []
        if op == "In" and labels.get(key) not in values:
            labels[key] = values[0]
        elif op == "NotIn" and key in labels and labels[key] in values:
            labels[key] = "crosscheck-other"
        elif op == "Exists" and key not in labels:
            labels[key] = "x"
        elif op == "DoesNotExist":
            labels.pop(key, None)
    return labels


def template(labels: dict) -> dict:
    return {"metadata": {"labels": labels},
            "spec": {"containers": [{"name": "c", "image": PAUSE}], "terminationGracePeriodSeconds": 0}}


class Refused(Exception):
    """The API server refused an object of the scenario."""

    def __init__(self, what: str, error: h.ApiError):
        self.what, self.error = what, error
        msg = error.body.get("message") if isinstance(error.body, dict) else str(error.body)
        super().__init__(f"{what}: {msg}")

    @property
    def reason(self) -> str:
        """A short, countable reason: the kind and the first field the message names."""
        msg = self.error.body.get("message", "") if isinstance(self.error.body, dict) else str(self.error.body)
        field = re.search(r"(spec|metadata|status)\.[\w.\[\]]+", msg)
        field = re.sub(r"\[\d+\]", "[]", field.group(0)) if field else msg[:60]
        return f"refused by the API server: {self.what.split()[0]} {field}"


PRIORITY_CLASSES: set = set()  # created on this control plane
RUNTIME_CLASSES: dict = {}


class Loader:
    """Writes one scenario's cluster into the API server, and clears it again."""

    def __init__(self, api: h.Api, scheduler_name: str):
        self.api = api
        self.scheduler_name = scheduler_name
        self.claim_uid: dict = {}  # scenario uid of a claim -> the uid the API server gave it
        self.priority_classes = PRIORITY_CLASSES
        self.runtime_classes = RUNTIME_CLASSES

    # ---- helpers ----
    def create(self, what: str, path: str, body: dict) -> dict:
        try:
            return self.api.post(path, body)
        except h.ApiError as e:
            raise Refused(what, e) from None

    def status(self, what: str, path: str, status: dict):
        try:
            return self.api.patch(path + "/status", {"status": status})
        except h.ApiError as e:
            raise Refused(what + " status", e) from None

    def priority_class(self, value: int, policy: str) -> str:
        name = f"crosscheck-{'m' if value < 0 else ''}{abs(value)}-{policy.lower()}"
        if name not in self.priority_classes:
            try:
                self.api.post("/apis/scheduling.k8s.io/v1/priorityclasses", {
                    "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                    "value": value, "preemptionPolicy": policy, "description": "crosscheck.py"})
            except h.ApiError as e:
                if e.status != 409:
                    raise
            self.priority_classes.add(name)
        return name

    def runtime_class(self, overhead: dict) -> str:
        key = json.dumps(overhead, sort_keys=True)
        if key not in self.runtime_classes:
            name = "crosscheck-overhead-" + hashlib.sha1(key.encode()).hexdigest()[:10]
            try:
                self.api.post("/apis/node.k8s.io/v1/runtimeclasses", {
                    "apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": name},
                    "handler": "runc", "overhead": {"podFixed": overhead}})
            except h.ApiError as e:
                if e.status != 409:
                    raise Refused(f"RuntimeClass for overhead {key}", e) from None
            self.runtime_classes[key] = name
        return self.runtime_classes[key]

    def pod_body(self, pod: dict, bound: bool) -> dict:
        """The pod as a client creates it: spec.priority and preemptionPolicy through a
        PriorityClass, spec.overhead through a RuntimeClass, no uid, no status, the profile's
        scheduler, no grace period (no kubelet runs)."""
        p = copy.deepcopy(pod)
        p.pop("replicas", None)
        p.pop("status", None)
        meta = p.setdefault("metadata", {})
        meta["namespace"] = ns_of(pod)
        for k in ("uid", "resourceVersion", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                  "generation"):
            meta.pop(k, None)
        for ref in meta.get("ownerReferences") or []:
            # validation wants a uid; kube-scheduler reads only kind and name
            ref.setdefault("uid", f"crosscheck-{ref.get('kind', 'x').lower()}-{ref.get('name', 'x')}")
        spec = p.setdefault("spec", {})
        spec.setdefault("terminationGracePeriodSeconds", 0)
        if not bound:
            spec["schedulerName"] = self.scheduler_name
        if "priority" in spec or "preemptionPolicy" in spec:
            spec["priorityClassName"] = self.priority_class(spec.pop("priority", 0) or 0,
                                                            spec.pop("preemptionPolicy", None) or "PreemptLowerPriority")
        if spec.get("overhead"):
            spec["runtimeClassName"] = self.runtime_class(spec["overhead"])
        return p

    def create_pod(self, pod: dict, bound: bool) -> dict:
        """Creates the pod; retried while the Priority or RuntimeClass admission plugin's
        informer has not seen a class just created."""
        ns = ns_of(pod)
        body = self.pod_body(pod, bound)
        deadline = time.monotonic() + 20
        while True:
            try:
                return self.api.post(f"/api/v1/namespaces/{ns}/pods", body)
            except h.ApiError as e:
                msg = e.body.get("message", "") if isinstance(e.body, dict) else ""
                lagging = re.search(r"no PriorityClass with name crosscheck-|RuntimeClass \S*crosscheck-\S* not found|"
                                    r"runtimeclass.* crosscheck-\S* not found", msg, re.I)
                if not lagging or time.monotonic() > deadline:
                    raise Refused(f"Pod {ns}/{name_of(pod)}", e) from None
                time.sleep(0.1)

    # ---- the whole cluster ----
    def load(self, sc: dict) -> tuple:
        """Writes the scenario's objects; returns (the scenario without the objects the API
        server refused, [Refused]). Both sides then decide on the same cluster."""
        api = self.api
        kept = {k: (list(v) if isinstance(v, list) else v) for k, v in sc.items()}
        refused: list = []
        pool = concurrent.futures.ThreadPoolExecutor(8)

        def each(key, fn, parallel=False):
            items = list(sc.get(key) or [])
            if parallel:
                results = [pool.submit(attempt, fn, x) for x in items]
                results = [f.result() for f in results]
            else:
                results = [attempt(fn, x) for x in items]
            if any(r is not None for r in results):
                kept[key] = [x for x, r in zip(items, results) if r is None]
                refused.extend(r for r in results if r is not None)

        def attempt(fn, x):
            try:
                fn(x)
                return None
            except Refused as e:
                return e

        def plain(key, kind, api_version, path):
            def create(o):
                p = path.format(ns=ns_of(o))
                self.create(f"{kind} {name_of(o)}", p, dict(o, apiVersion=api_version, kind=kind))
            each(key, create)
        try:
            # namespaces: the scenario's labels, and those the pods use
            wanted = {name_of(n): (n.get("metadata") or {}).get("labels") or {} for n in sc.get("namespaces") or []}
            for p in (sc.get("pods") or []) + (sc.get("incoming") or []):
                wanted.setdefault(ns_of(p), {})
            for o in [x for k in ("persistentVolumeClaims", "services", "replicaSets", "statefulSets",
                                  "replicationControllers", "csiStorageCapacities") for x in sc.get(k) or []]:
                wanted.setdefault(ns_of(o), {})
            for ns in api.list("/api/v1/namespaces"):
                name = name_of(ns)
                labels = {k: v for k, v in wanted.pop(name, {}).items() if k != "kubernetes.io/metadata.name"}
                current = {k: v for k, v in (ns["metadata"].get("labels") or {}).items()
                           if k != "kubernetes.io/metadata.name"}
                if current != labels:
                    ns["metadata"]["labels"] = labels
                    api.put(f"/api/v1/namespaces/{name}", ns)
            for name, labels in wanted.items():
                labels = {k: v for k, v in labels.items() if k != "kubernetes.io/metadata.name"}
                self.create(f"Namespace {name}", "/api/v1/namespaces",
                            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}})
            # storage
            plain("storageClasses", "StorageClass", "storage.k8s.io/v1", "/apis/storage.k8s.io/v1/storageclasses")
            plain("csiDrivers", "CSIDriver", "storage.k8s.io/v1", "/apis/storage.k8s.io/v1/csidrivers")
            plain("csiNodes", "CSINode", "storage.k8s.io/v1", "/apis/storage.k8s.io/v1/csinodes")
            plain("csiStorageCapacities", "CSIStorageCapacity", "storage.k8s.io/v1",
                  "/apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities")
            self.claim_uid = {}

            def claim(o):
                body = copy.deepcopy(o)
                status = body.pop("status", None)
                meta = body["metadata"]
                meta["namespace"] = ns_of(o)
                old_uid = meta.pop("uid", None)
                for ref in meta.get("ownerReferences") or []:
                    ref.setdefault("uid", f"crosscheck-{ref.get('kind', 'x').lower()}-{ref.get('name', 'x')}")
                what = f"PersistentVolumeClaim {ns_of(o)}/{name_of(o)}"
                path = f"/api/v1/namespaces/{ns_of(o)}/persistentvolumeclaims"
                created = self.create(what, path, dict(body, apiVersion="v1", kind="PersistentVolumeClaim"))
                if old_uid:
                    self.claim_uid[old_uid] = created["metadata"]["uid"]
                if status:
                    self.status(what, f"{path}/{name_of(o)}", status)
            each("persistentVolumeClaims", claim)

            def volume(o):
                body = copy.deepcopy(o)
                status = body.pop("status", None)
                body["metadata"].pop("uid", None)
                ref = (body.get("spec") or {}).get("claimRef")
                if ref and ref.get("uid") in self.claim_uid:
                    ref["uid"] = self.claim_uid[ref["uid"]]
                what = f"PersistentVolume {name_of(o)}"
                self.create(what, "/api/v1/persistentvolumes", dict(body, apiVersion="v1", kind="PersistentVolume"))
                if status:
                    self.status(what, f"/api/v1/persistentvolumes/{name_of(o)}", status)
            each("persistentVolumes", volume)

            # workloads, completed to what validation requires
            def service(o):
                body = copy.deepcopy(o)
                body.setdefault("spec", {}).setdefault("ports", [{"port": 80, "protocol": "TCP"}])
                self.create(f"Service {ns_of(o)}/{name_of(o)}", f"/api/v1/namespaces/{ns_of(o)}/services",
                            dict(body, apiVersion="v1", kind="Service"))
            each("services", service)
            for key, kind, resource in (("replicaSets", "ReplicaSet", "replicasets"),
                                        ("statefulSets", "StatefulSet", "statefulsets")):
                def workload(o, kind=kind, resource=resource):
                    body = copy.deepcopy(o)
                    spec = body.setdefault("spec", {})
                    spec["replicas"] = 0
                    spec.setdefault("template", template(label_set_for(spec.get("selector"))))
                    self.create(f"{kind} {ns_of(o)}/{name_of(o)}",
                                f"/apis/apps/v1/namespaces/{ns_of(o)}/{resource}",
                                dict(body, apiVersion="apps/v1", kind=kind))
                each(key, workload)

            def controller(o):
                body = copy.deepcopy(o)
                spec = body.setdefault("spec", {})
                spec["replicas"] = 0
                spec.setdefault("template", template(dict(spec.get("selector") or {})))
                self.create(f"ReplicationController {ns_of(o)}/{name_of(o)}",
                            f"/api/v1/namespaces/{ns_of(o)}/replicationcontrollers",
                            dict(body, apiVersion="v1", kind="ReplicationController"))
            each("replicationControllers", controller)

            # nodes, then their status
            now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

            def node(n):
                body = copy.deepcopy(n)
                status = body.pop("status", None) or {}
                self.create(f"Node {name_of(n)}", "/api/v1/nodes", dict(body, apiVersion="v1", kind="Node"))
                status = dict(status)
                status.setdefault("conditions", [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                                  "message": "crosscheck.py (no kubelet)", "lastHeartbeatTime": now,
                                                  "lastTransitionTime": now}])
                self.status(f"Node {name_of(n)}", f"/api/v1/nodes/{name_of(n)}", status)
            each("nodes", node, parallel=True)

            # bound pods, their status, the terminating ones deleted with a grace period
            def bound(p):
                self.create_pod(p, bound=True)
                path = f"/api/v1/namespaces/{ns_of(p)}/pods/{name_of(p)}"
                status = {k: v for k, v in (p.get("status") or {}).items() if k in ("phase", "startTime")}
                if status:
                    try:
                        self.status(f"Pod {ns_of(p)}/{name_of(p)}", path, status)
                    except Refused:
                        api.delete(path, params={"gracePeriodSeconds": "0"})
                        raise
                if (p.get("metadata") or {}).get("deletionTimestamp"):
                    api.delete(path, params={"gracePeriodSeconds": "3600"})
            each("pods", bound, parallel=True)
        finally:
            pool.shutdown(wait=True)
        return kept, refused

    def clear(self):
        """Deletes everything a scenario loaded (no controller runs: finalizers are taken off
        by hand, and deletions are Background so that no garbage-collector finalizer waits)."""
        api = self.api
        bg = {"propagationPolicy": "Background"}
        namespaces = [name_of(n) for n in api.list("/api/v1/namespaces")]
        for ns in namespaces:
            api.delete(f"/api/v1/namespaces/{ns}/pods", params={"gracePeriodSeconds": "0", **bg}, retry_seconds=30)
            for path in ("apis/apps/v1/namespaces/{ns}/replicasets", "apis/apps/v1/namespaces/{ns}/statefulsets",
                         "api/v1/namespaces/{ns}/replicationcontrollers",
                         "apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities",
                         "apis/events.k8s.io/v1/namespaces/{ns}/events"):
                api.delete("/" + path.format(ns=ns), params=bg)
            for s in api.list(f"/api/v1/namespaces/{ns}/services"):
                if not (ns == "default" and name_of(s) == "kubernetes"):
                    api.delete(f"/api/v1/namespaces/{ns}/services/{name_of(s)}", params=bg)
            for c in api.list(f"/api/v1/namespaces/{ns}/persistentvolumeclaims"):
                if c["metadata"].get("finalizers"):
                    api.patch(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/{name_of(c)}",
                              {"metadata": {"finalizers": None}})
            api.delete(f"/api/v1/namespaces/{ns}/persistentvolumeclaims", params=bg)
        for pv in api.list("/api/v1/persistentvolumes"):
            if pv["metadata"].get("finalizers"):
                api.patch(f"/api/v1/persistentvolumes/{name_of(pv)}", {"metadata": {"finalizers": None}})
        for path in ("/api/v1/persistentvolumes", "/apis/storage.k8s.io/v1/storageclasses",
                     "/apis/storage.k8s.io/v1/csidrivers", "/apis/storage.k8s.io/v1/csinodes", "/api/v1/nodes"):
            api.delete(path, params=bg, retry_seconds=30)

        def gone():
            if api.list("/api/v1/nodes") or api.list("/api/v1/persistentvolumes"):
                return False
            if api.list("/api/v1/pods") or api.list("/api/v1/persistentvolumeclaims"):
                return False
            return True
        h.wait_for(gone, 60, "the previous scenario's objects to be gone")


# --------------------------------------------------------------------------- deciding

def wait_decision(api: h.Api, pod: dict, sched: h.SchedulerProcess, timeout: float) -> dict:
    """The real kube-scheduler's answer: {"node"} once bound, {"reason", "message"} once
    PodScheduled=False, {"prebind": node} once it placed a pod whose claims it must bind or
    provision: with NominatedNodeNameForExpectation (on in v1.37) the binding cycle writes
    status.nominatedNodeName before VolumeBinding's PreBind, which then waits for a PV
    controller that does not run here."""
    path = f"/api/v1/namespaces/{ns_of(pod)}/pods/{name_of(pod)}"
    deadline = time.monotonic() + timeout
    interval = 0.01
    while True:
        p = api.get(path)
        if h.node_of(p):
            return {"node": h.node_of(p)}
        cond = h.condition(p, "PodScheduled")
        # (SchedulingGated: written while a pod with generic ephemeral volumes waited for its claims)
        if cond and cond.get("status") == "False" and cond.get("reason") != "SchedulingGated":
            return {"reason": cond.get("reason"), "message": cond.get("message", "")}
        nominated = (p.get("status") or {}).get("nominatedNodeName")
        if nominated:
            return {"prebind": nominated}
        if not sched.alive():
            return {"error": f"kube-scheduler exited {sched.proc.returncode}: {sched.log_tail(5)}"}
        if time.monotonic() > deadline:
            return {"error": f"no decision in {timeout:g} s"}
        time.sleep(interval)
        interval = min(interval * 1.5, 0.2)


def wait_prebind_writes(api: h.Api, pod: dict, node: str, unbound: list, pvs_before: dict, timeout: float) -> dict:
    """What VolumeBinding's PreBind wrote for the pod's unbound claims before it began to wait:
    {claim: ("provision", PVC as stored) or ("bind", PV as stored)}; None if it did not."""
    ns = ns_of(pod)
    deadline = time.monotonic() + timeout
    while True:
        out = {}
        pvs = api.list("/api/v1/persistentvolumes")
        for c in unbound:
            claim = api.get(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/{c}")
            if ((claim["metadata"].get("annotations") or {}).get(SELECTED_NODE)) == node:
                out[c] = ("provision", claim)
                continue
            # a PV newly bound to the claim, else one an earlier pod's PreBind bound to it (the
            # same update again changes nothing on the server)
            named = [pv for pv in pvs if ((pv.get("spec") or {}).get("claimRef") or {}).get("namespace") == ns
                     and pv["spec"]["claimRef"].get("name") == c]
            new = [pv for pv in named if name_of(pv) not in pvs_before.get(c, ())]
            if new or named:
                out[c] = ("bind", (new or named)[0])
        if len(out) == len(unbound):
            if not any(how == "bind" and name_of(obj) not in pvs_before.get(c, ()) for c, (how, obj) in out.items()):
                time.sleep(0.3)  # nothing visibly new: let PreBind's write, the same again, land
            return out
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)


def run_reference(lines: list, reference: Path) -> list:
    if not lines:
        return []
    r = subprocess.run([str(reference), "--jsonl", "-"], input="".join(json.dumps(x) + "\n" for x in lines),
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"kube-scheduler-reference failed ({r.returncode}): {r.stderr[-2000:]}")
    out = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    if len(out) != len(lines):
        raise RuntimeError(f"kube-scheduler-reference answered {len(out)} lines for {len(lines)}")
    return out


def short(answer: dict) -> dict:
    res = (answer.get("results") or [{}])[-1]
    out = {k: res.get(k) for k in ("chosen", "top", "message", "error") if res.get(k) is not None}
    if answer.get("error"):
        out["error"] = answer["error"]
    return out


def judge_pinned(bound_form: dict, pinned_form: dict, nodes: list) -> str:
    """The reference asked twice: with the earlier placed pods bound (decoded as bound pods),
    and with them incoming again, pinned to their nodes (each placed by the reference itself,
    Reserve and its cache making the state). Both must give the same answer for the pod."""
    if pinned_form.get("error"):
        return f"the reference failed on the pinned form: {pinned_form['error']}"
    results = pinned_form.get("results") or []
    for res, node in zip(results, nodes):
        if res.get("chosen") != node:
            return (f"the reference, pinned form: earlier pod {res.get('pod')} not placed on its node {node} "
                    f"({res.get('message') or res.get('error') or res.get('chosen')})")
    a = dict((bound_form.get("results") or [{}])[0])
    b = dict(results[-1] if results else {})
    if a != b:
        keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        return f"the reference answers otherwise when the earlier pods are pinned incoming ones: {keys}"
    return ""


def cut(message: str) -> str:
    return message.split(" preemption:")[0]


def judge(real: dict, ref_scenario: dict) -> str:
    """'' when they agree, else the difference."""
    if ref_scenario.get("error"):
        return f"the reference failed: {ref_scenario['error']}"
    res = (ref_scenario.get("results") or [{}])[0]
    if res.get("error"):
        if real.get("reason") == "SchedulerError":
            return ""
        return f"the reference erred: {res['error']}"
    if "node" in real or "prebind" in real:
        node = real.get("node") or real["prebind"]
        how = "bound it to" if "node" in real else "placed it (PreBind waiting) on"
        if res.get("chosen") is None:
            return f"kube-scheduler {how} {node}; the reference: {res.get('message', '')!r}"
        if node not in (res.get("top") or []):
            return f"kube-scheduler {how} {node}, not in the reference's top {res.get('top')}"
        return ""
    if "error" in real:
        return f"no answer from kube-scheduler: {real['error']}"
    if real.get("reason") != "Unschedulable":
        return f"kube-scheduler: {real.get('reason')}: {real.get('message')!r}"
    if res.get("chosen") is not None:
        return f"kube-scheduler: unschedulable ({real['message']!r}); the reference chose {res['chosen']} of {res.get('top')}"
    if cut(real["message"]) != cut(res.get("message", "")):
        return f"messages differ: kube-scheduler {real['message']!r}, the reference {res.get('message', '')!r}"
    return ""


class Run:
    def __init__(self, args):
        self.args = args
        self.out = Path(args.out)
        self.scenarios = 0
        self.pods = 0
        self.agree = 0
        self.disagree = 0
        self.skipped: dict = {}
        self.dropped: dict = {}  # scenario objects the API server refused, by reason
        self.kinds: dict = {}  # agreeing pods: bound or unschedulable, with claims or without

    def skip(self, reason: str, n: int = 1):
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    def scenario(self, cp: h.ControlPlane, api: h.Api, line: dict, workdir: Path) -> str:
        start = time.monotonic()
        sc = line.get("scenario", line)
        meta = line.get("meta") or {}
        sid = meta.get("id") or f"line-{self.scenarios}"
        self.scenarios += 1
        incoming = expand_incoming(sc.get("incoming") or [])
        self.pods += len(incoming)
        counts = {"agree": 0, "disagree": 0, "skipped": {}}

        def skip(reason, n=1):
            self.skip(reason, n)
            counts["skipped"][reason] = counts["skipped"].get(reason, 0) + n

        def summary(note=""):
            sk = sum(counts["skipped"].values())
            reasons = ", ".join(f"{n} {r}" for r, n in sorted(counts["skipped"].items()))
            secs = time.monotonic() - start
            return (f"{sid} {meta.get('profile', '')}: {len(sc.get('nodes') or [])} nodes, {len(incoming)} pods: "
                    f"{counts['agree']} agree, {sk} skipped{' (' + reasons + ')' if sk else ''}, "
                    f"{counts['disagree']} disagree{note}, {secs:.1f} s")

        if sc.get("podDisruptionBudgets"):
            skip("podDisruptionBudgets (the reference refuses them)", len(incoming))
            return summary()
        try:
            cfg, _, cohort = scheduler_configuration(sc.get("profile"))
        except ValueError as e:
            skip(f"profile: {e}", len(incoming))
            return summary()
        scheduler_name = first_profile(cfg)["schedulerName"]
        loader = Loader(api, scheduler_name)
        loader.clear()
        try:
            sc, refused = loader.load(sc)
        except Refused as e:
            skip(e.reason, len(incoming))
            if self.args.verbose:
                print(f"  {sid}: {e}", flush=True)
            return summary()
        for e in refused:
            self.dropped[e.reason] = self.dropped.get(e.reason, 0) + 1
            if self.args.verbose:
                print(f"  {sid}: dropped from both sides: {e}", flush=True)
        note = f" ({len(refused)} object(s) the API server refused dropped from both sides)" if refused else ""
        binary = KUBE_SCHEDULER_TIGHTPACK if cohort else KUBE_SCHEDULER
        config = write_config(cfg, workdir / f"{sid}.yaml")
        ks = h.KubeScheduler(cp, workdir, config=config, scheduler_name=scheduler_name,
                             label=f"kube-scheduler ({sid})")
        ks.argv[0] = str(binary)
        # The cluster as it stands, in the scenario's terms: bound pods, and claims and volumes
        # as PreBind rewrote them (a selected node, a PV's claimRef).
        claims = {(ns_of(c), name_of(c)): copy.deepcopy(c) for c in sc.get("persistentVolumeClaims") or []}
        volumes = {name_of(v): copy.deepcopy(v) for v in sc.get("persistentVolumes") or []}
        real_to_scenario_uid = {v: k for k, v in loader.claim_uid.items()}
        bound_pods = copy.deepcopy(sc.get("pods") or [])
        placed: list = []  # the earlier incoming pods kube-scheduler placed, with their node
        base = {k: v for k, v in sc.items() if k not in ("pods", "incoming")}
        checks = []  # [pod, real answer, reference input (bound form), reference input (pinned form)]
        aborted = ""
        try:
            ks.start()
        except AssertionError as e:
            self.disagree += len(incoming)
            counts["disagree"] += len(incoming)
            print(f"  DISAGREE {sid}: kube-scheduler refused the configuration the reference took: {e}", flush=True)
            return summary(note)
        try:
            for pod in incoming:
                if aborted:
                    skip("after a pod kube-scheduler gave no answer for")
                    continue
                state = dict(base, pods=copy.deepcopy(bound_pods), incoming=[pod])
                if claims:
                    state["persistentVolumeClaims"] = copy.deepcopy(list(claims.values()))
                if volumes:
                    state["persistentVolumes"] = copy.deepcopy(list(volumes.values()))
                # the same question with the earlier placed pods incoming, pinned to their nodes:
                # the reference's own Reserve and cache then make the state
                pinned = None
                if placed:
                    earlier = []
                    for q, node in placed:
                        q = copy.deepcopy(q)
                        q["spec"]["nodeName"] = node
                        earlier.append(q)
                    pinned = dict(sc, incoming=earlier + [pod])
                unbound = needs_binding(pod, claims)
                pvs_before = {c: {n for n, v in volumes.items()
                                  if ((v.get("spec") or {}).get("claimRef") or {}).get("name") == c
                                  and ((v.get("spec") or {}).get("claimRef") or {}).get("namespace") == ns_of(pod)}
                              for c in unbound}
                ephemeral = [v["name"] for v in (pod.get("spec") or {}).get("volumes") or [] if v.get("ephemeral")]
                try:
                    if ephemeral:
                        self.create_ephemeral(api, loader, pod, ephemeral, claims)
                    else:
                        loader.create_pod(pod, bound=False)
                except Refused as e:
                    skip(e.reason)
                    if self.args.verbose:
                        print(f"  {sid}: {e}", flush=True)
                    continue
                real = wait_decision(api, pod, ks, DECISION_TIMEOUT)
                if "prebind" in real:
                    writes = wait_prebind_writes(api, pod, real["prebind"], unbound, pvs_before, 15)
                    if writes is None:
                        real = {"error": f"nominated to {real['prebind']}, but PreBind wrote nothing for {unbound}"}
                    else:
                        for c, (how, obj) in writes.items():
                            if how == "provision":
                                claims[(ns_of(pod), c)]["metadata"]["annotations"] = obj["metadata"]["annotations"]
                            else:
                                v = volumes[name_of(obj)]
                                ref = copy.deepcopy(obj["spec"]["claimRef"])
                                ref["uid"] = real_to_scenario_uid.get(ref.get("uid"), "")
                                for k in ("resourceVersion",):
                                    ref.pop(k, None)
                                v["spec"]["claimRef"] = ref
                                if obj["metadata"].get("annotations"):
                                    v["metadata"]["annotations"] = obj["metadata"]["annotations"]
                if "node" in real or "prebind" in real:
                    node = real.get("node") or real["prebind"]
                    q = copy.deepcopy(pod)
                    q.setdefault("spec", {})["nodeName"] = node
                    bound_pods.append(q)
                    placed.append((pod, node))
                else:
                    api.delete(f"/api/v1/namespaces/{ns_of(pod)}/pods/{name_of(pod)}",
                               params={"gracePeriodSeconds": "0"})
                    if "error" in real:
                        aborted = f"{ns_of(pod)}/{name_of(pod)}: {real['error']}"
                checks.append([pod, real, state, pinned])
        finally:
            ks.stop(timeout=10)
        # the reference, on the states the real scheduler made, in both forms
        lines = [c[2] for c in checks] + [c[3] for c in checks if c[3] is not None]
        answers = run_reference(lines, self.args.reference)
        pinned_answers = iter(answers[len(checks):])
        bad = []
        for (pod, real, state, pinned), answer in zip(checks, answers):
            diff = judge(real, answer)
            pinned_answer = next(pinned_answers) if pinned is not None else None
            if not diff and pinned_answer is not None:
                diff = judge_pinned(answer, pinned_answer, [n for _, n in placed[:len(pinned["incoming"]) - 1]])
            if self.args.answers:
                self.args.answers.write(json.dumps({"id": sid, "pod": f"{ns_of(pod)}/{name_of(pod)}", "real": real,
                                                    "reference": short(answer), "difference": diff}) + "\n")
            if diff:
                counts["disagree"] += 1
                self.disagree += 1
                bad.append({"scenario": state, "expected": {k: v for k, v in answer.items() if k != "profile"},
                            "meta": {"id": f"{sid}/{ns_of(pod)}/{name_of(pod)}", "source": meta,
                                     "pod": f"{ns_of(pod)}/{name_of(pod)}", "real": real,
                                     "reference": short(answer), "difference": diff,
                                     **({"pinned": pinned} if pinned is not None else {})}})
                print(f"  DISAGREE {sid} {ns_of(pod)}/{name_of(pod)}: {diff}", flush=True)
            else:
                counts["agree"] += 1
                self.agree += 1
                kind = "bound" if "node" in real else "placed, PreBind waiting" if "prebind" in real \
                    else "unschedulable"
                if pod_claims(pod) and "prebind" not in real:
                    kind += " with claims"
                self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if bad:
            self.out.mkdir(parents=True, exist_ok=True)
            with open(self.out / f"{sid}.jsonl", "w") as f:
                for b in bad:
                    f.write(json.dumps(b, separators=(",", ":")) + "\n")
        return summary(note + (f" (stopped after {aborted})" if aborted else ""))

    def create_ephemeral(self, api: h.Api, loader: Loader, pod: dict, volumes: list, claims: dict):
        """A pod with generic ephemeral volumes: created behind a scheduling gate, its claims'
        owner reference then given the uid the API server gave the pod wherever the scenario
        has the claim owned by the pod (the ephemeral volume controller's work), then ungated."""
        gated = copy.deepcopy(pod)
        gated["spec"]["schedulingGates"] = [{"name": "crosscheck.tightpack.io/pod-uid"}]
        created = loader.create_pod(gated, bound=False)
        uid = created["metadata"]["uid"]
        ns = ns_of(pod)
        for v in volumes:
            claim = claims.get((ns, f"{name_of(pod)}-{v}"))
            refs = copy.deepcopy((claim or {}).get("metadata", {}).get("ownerReferences") or [])
            mine = [r for r in refs if r.get("kind") == "Pod" and r.get("name") == name_of(pod)
                    and r.get("uid") and r.get("uid") == (pod.get("metadata") or {}).get("uid")]
            if not mine:
                continue
            for r in mine:
                r["uid"] = uid
            api.patch(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/{name_of(claim)}",
                      {"metadata": {"ownerReferences": refs}})
        api.patch(f"/api/v1/namespaces/{ns}/pods/{name_of(pod)}", {"spec": {"schedulingGates": None}})

    def line(self) -> str:
        sk = sum(self.skipped.values())
        reasons = "; ".join(f"{n} {r}" for r, n in sorted(self.skipped.items(), key=lambda x: (-x[1], x[0])))
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(self.kinds.items(), key=lambda x: (-x[1], x[0])))
        return (f"crosscheck: {self.scenarios} scenarios, {self.pods} pods: {self.agree} agree"
                f"{' (' + kinds + ')' if kinds else ''}, "
                f"{sk} skipped{' (' + reasons + ')' if sk else ''}, {self.disagree} disagree")


def main(argv) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", default="crosscheck-1", help="generate.py's seed (default crosscheck-1)")
    ap.add_argument("--count", type=int, default=40, help="scenarios to generate (default 40)")
    ap.add_argument("--start", type=int, default=0, help="index of the first scenario")
    ap.add_argument("--nodes", help="generate.py --nodes MIN:MAX")
    ap.add_argument("--volumes", action="store_true", help="generate.py --volumes (storage)")
    ap.add_argument("--affinity", action="store_true", help="generate.py --affinity (inter-pod affinity)")
    ap.add_argument("--input", help="scenarios in the corpus format (JSON lines) instead of generated ones")
    ap.add_argument("--out", default=str(ROOT / "build" / "conformance" / "crosscheck"),
                    help="where disagreements go (default build/conformance/crosscheck)")
    ap.add_argument("--reference", type=Path, default=REFERENCE, help="kube-scheduler-reference to judge")
    ap.add_argument("--answers", type=argparse.FileType("w"),
                    help="write every checked pod's two answers here (JSON lines)")
    ap.add_argument("--keep", action="store_true", help="keep the control plane's folder (logs) afterwards")
    ap.add_argument("--default-admission", action="store_true",
                    help="keep DefaultTolerationSeconds, DefaultStorageClass and PodTopologyLabels on, as in a "
                         "default cluster (the API server then stores other objects than the scenario's)")
    ap.add_argument("-v", "--verbose", action="store_true", help="say why objects were refused")
    args = ap.parse_args(argv)

    for path, how in ((args.reference, "tests/conformance/reference/build.sh"),
                      (KUBE_SCHEDULER, "tests/controlplane/build.sh")):
        if not Path(path).exists():
            print(f"crosscheck: {path} is missing: run {how}", file=sys.stderr)
            return 2
    if args.input:
        text = Path(args.input).read_text()
    else:
        cmd = [sys.executable, str(GENERATE), "--seed", args.seed, "--count", str(args.count),
               "--start", str(args.start)]
        cmd += (["--nodes", args.nodes] if args.nodes else []) + (["--volumes"] if args.volumes else []) + \
            (["--affinity"] if args.affinity else [])
        text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    lines = [json.loads(x) for x in text.splitlines() if x.strip()]
    if any("TightpackCohort" in json.dumps((x.get("scenario", x)).get("profile")) or
           (x.get("scenario", x)).get("profile") == "tightpack" for x in lines) and not KUBE_SCHEDULER_TIGHTPACK.exists():
        print(f"crosscheck: {KUBE_SCHEDULER_TIGHTPACK} is missing: run "
              "tests/conformance/crosscheck-scheduler/build.sh", file=sys.stderr)
        return 2

    for old in Path(args.out).glob("*.jsonl"):  # the last run's disagreements
        old.unlink()
    base = ROOT / "build" / "conformance"
    base.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="crosscheck-", dir=base))
    source = f"from {args.input}" if args.input else " ".join(
        ["generate.py --seed", args.seed, "--start", str(args.start), "--count", str(args.count)] +
        (["--nodes", args.nodes] if args.nodes else []) + (["--volumes"] if args.volumes else []) +
        (["--affinity"] if args.affinity else []))
    print(f"crosscheck: {len(lines)} scenarios ({source}); control plane in {workdir}", flush=True)
    started = time.monotonic()
    # controlplane.sh starts $CP_BIN/kube-apiserver: a wrapper that turns OFF_ADMISSION off
    # (kube-apiserver appends a repeated --disable-admission-plugins to the first).
    bindir = workdir / "bin"
    bindir.mkdir()
    for b in ("etcd", "kube-scheduler"):
        (bindir / b).symlink_to(h.CP_BIN / b)
    wrapper = bindir / "kube-apiserver"
    off = "" if args.default_admission else f" --disable-admission-plugins={OFF_ADMISSION}"
    wrapper.write_text(f'#!/bin/sh\nexec "{h.CP_BIN / "kube-apiserver"}" "$@"{off}\n')
    wrapper.chmod(0o755)
    os.environ["CP_BIN"] = str(bindir)
    cp = h.ControlPlane(workdir / "controlplane")
    try:
        cp.start()
    except Exception as e:  # noqa: BLE001
        print(f"crosscheck: the control plane did not start: {e}", file=sys.stderr)
        return 2
    run = Run(args)
    try:
        api = cp.api()
        for line in lines:
            print(run.scenario(cp, api, line, workdir), flush=True)
    finally:
        cp.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    if run.dropped:
        print("crosscheck: objects of the scenarios the API server refused (dropped from both sides): " +
              "; ".join(f"{n} {r}" for r, n in sorted(run.dropped.items(), key=lambda x: (-x[1], x[0]))), flush=True)
    took = time.monotonic() - started
    print(run.line() + f", in {took:.0f} s ({took / max(run.scenarios, 1):.1f} s a scenario)", flush=True)
    if run.disagree:
        print(f"crosscheck: disagreements in {args.out}/", flush=True)
    return 1 if run.disagree else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
