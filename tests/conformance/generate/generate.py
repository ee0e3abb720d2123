#!/usr/bin/env python3
"""Seeded generator of scheduling scenarios in the shared corpus format.

usage: generate.py --seed SEED [--count N] [--start I] [--nodes MIN:MAX] [--volumes] [--affinity] [-o FILE]
       generate.py --seed SEED --big NODES [--incoming N] [--empty] [-o FILE]

Prints one JSON line per scenario: {"scenario": {...}, "meta": {"id", "seed",
"profile", "features"}}, the form `tightpack replay --jsonl` and
kube-scheduler-reference read. Scenario i of seed S is the same on every
machine and Python 3 release (random.Random(f"{S}/{i}")) for a given version of
this file, so an id (gen-S-i) names a scenario: `generate.py --seed S --start i
--count 1` makes it again.

It covers what the engine claims (docs/engine.md): cpu, memory, ephemeral
storage, GPUs (nvidia.com/gpu) and pod counts; taints of every effect and
tolerations with every operator, empty keys and values, tolerationSeconds;
nodeSelector and node affinity, required and preferred, every operator
(In, NotIn, Exists, DoesNotExist, Gt, Lt) and matchFields on metadata.name;
cordoned nodes; node images (ImageLocality), with tags, digests and the
implicit :latest; init containers and sidecars (restartPolicy Always);
image volumes; bound pods' start times (DefaultPreemption's choice);
pod overhead and pod-level requests; limits without requests; priorities,
preemptionPolicy and preemption victims; host ports; terminated and
pending bound pods; quantities in every spelling; TightpackCohort's labels.
Profiles: default, most-allocated (zero-to-jupyterhub's user-scheduler) and
tightpack (config/*.yaml), a few with the corpus' overrides, and rtc.
Workloads (workloads(), a random stream of its own): Services, ReplicaSets,
StatefulSets and ReplicationControllers in DaskHub shapes with the pods they
select or own, explicit topologySpreadConstraints of every kind, terminating
pods, zone-less nodes, List-defaulted spread constraints. --volumes adds the
storage of a DaskHub (volumes(), a random stream of its own, so without the
flag every scenario is byte for byte what it was): claims, PVs, classes,
CSINodes, CSIDrivers and CSIStorageCapacities (examples/volumes/ has
hand-checked ones). --affinity adds inter-pod affinity the same way
(affinity(): the node-placeholder, notebooks keeping off each other's nodes,
workers near their scheduler, random terms of every kind, Namespaces,
InterPodAffinityArgs). differential.sh passes both.
"""
import argparse
import json
import random
import sys

ZONES = ["us-central1-a", "us-central1-b", "us-central1-c"]

# (names, size in bytes): names as a node reports them.
IMAGES = [
    (["jupyter/scipy-notebook:2024-05-01", "jupyter/scipy-notebook@sha256:5e5a"], 1_652_000_000),
    (["jupyter/minimal-notebook:2024-05-01"], 620_000_000),
    (["pangeo/pangeo-notebook:latest"], 2_900_000_000),
    (["ghcr.io/dask/dask:2024.5.0-py3.11", "ghcr.io/dask/dask@sha256:749e"], 987_654_321),
    (["quay.io/jupyterhub/k8s-network-tools:3.3.7"], 31_000_000),
    (["busybox:1.36"], 4_261_574),
    (["registry.k8s.io/pause:3.9"], 311_278),
    (["nvcr.io/nvidia/pytorch:24.04-py3"], 9_800_000_000),
    (["docker.io/library/python:3.12-slim", "python:3.12-slim"], 45_000_000),
    (["grafana/agent"], 120_000_000),  # untagged: :latest in a pod spec
]
POD_IMAGES = [
    "jupyter/scipy-notebook:2024-05-01", "jupyter/minimal-notebook:2024-05-01", "pangeo/pangeo-notebook",
    "ghcr.io/dask/dask:2024.5.0-py3.11", "quay.io/jupyterhub/k8s-network-tools:3.3.7", "busybox:1.36",
    "python:3.12-slim", "nvcr.io/nvidia/pytorch:24.04-py3", "grafana/agent", "grafana/agent:latest",
    "example.com/not-on-any-node:1.0",
]

POOLS = {
    "core": dict(labels={"hub.jupyter.org/node-purpose": "core", "cloud.google.com/gke-nodepool": "core-pool"},
                 taints=[], cpu=[2, 4], mem_gi=[8, 15], gpu=0),
    "user": dict(labels={"hub.jupyter.org/node-purpose": "user", "cloud.google.com/gke-nodepool": "user-pool"},
                 taints=[("hub.jupyter.org/dedicated", "user", "NoSchedule")], cpu=[4, 8, 16], mem_gi=[30, 60], gpu=0),
    "user-gke": dict(labels={"hub.jupyter.org/node-purpose": "user", "cloud.google.com/gke-nodepool": "user-gke"},
                     taints=[("hub.jupyter.org_dedicated", "user", "NoSchedule")], cpu=[4, 8], mem_gi=[30], gpu=0),
    "worker": dict(labels={"k8s.dask.org/node-purpose": "worker", "cloud.google.com/gke-nodepool": "dask-workers"},
                   taints=[("k8s.dask.org/dedicated", "worker", "NoSchedule")], cpu=[8, 16, 32], mem_gi=[30, 64, 128], gpu=0),
    "worker-gke": dict(labels={"k8s.dask.org/node-purpose": "worker", "cloud.google.com/gke-nodepool": "dask-preemptible",
                               "cloud.google.com/gke-preemptible": "true"},
                       taints=[("k8s.dask.org_dedicated", "worker", "NoSchedule"),
                               ("cloud.google.com/gke-preemptible", "true", "PreferNoSchedule")],
                       cpu=[8, 16], mem_gi=[30, 64], gpu=0),
    "gpu": dict(labels={"cloud.google.com/gke-accelerator": "nvidia-tesla-t4", "cloud.google.com/gke-nodepool": "gpu-t4"},
                taints=[("nvidia.com/gpu", "present", "NoSchedule")], cpu=[4, 8], mem_gi=[15, 30], gpu=[1, 2, 4]),
    "plain": dict(labels={}, taints=[], cpu=[1, 2, 4, 8], mem_gi=[4, 8, 16, 32], gpu=0),
}

EXTRA_TAINTS = [
    ("maintenance", "scheduled", "NoSchedule"),
    ("maintenance", "soon", "PreferNoSchedule"),
    ("node.kubernetes.io/unreachable", "", "NoExecute"),
    ("node.kubernetes.io/not-ready", "", "NoExecute"),
    ("spot", "true", "PreferNoSchedule"),
    ("dedicated", "", "NoSchedule"),
    ("team", "a", "NoExecute"),
    ("team", "b", "NoSchedule"),
]

PROFILES = ["default", "most-allocated", "tightpack"]
COHORT_LABELS = ["dask.org/cluster-name", "gateway.dask.org/cluster", "tightpack.io/cohort"]


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.features = set()

    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    # ---- quantities, in the spellings users write ----
    def cpu_q(self, milli):
        r = self.r.random()
        if r < 0.02:
            return self.pick([f"{milli}e-3", f"{milli * 1000}u", f"{milli / 1000:.4f}"])
        if milli % 1000 == 0 and r < 0.5:
            v = str(milli // 1000)
            return int(v) if self.chance(0.05) else v
        if milli % 100 == 0 and r < 0.7:
            return f"{milli / 1000:g}"
        return f"{milli}m"

    def mem_q(self, b):
        r = self.r.random()
        if r < 0.03:
            # decimal and exponent spellings, rounded up to whole bytes by the API
            return self.pick([f"{b / (1 << 30):.3f}Gi", f"{b:.3e}".replace("+", ""), f"{b / 1e9:.4f}G"])
        if b % (1 << 30) == 0 and r < 0.4:
            return f"{b >> 30}Gi"
        if b % (1 << 20) == 0 and r < 0.6:
            return f"{b >> 20}Mi"
        if b % 1024 == 0 and r < 0.75:
            return f"{b >> 10}Ki"
        if b % 1_000_000_000 == 0 and r < 0.85:
            return f"{b // 1_000_000_000}G"
        if b % 1_000_000 == 0 and r < 0.9:
            return f"{b // 1_000_000}M"
        return str(b)

    # ---- nodes ----
    def node(self, name, pool, spec):
        g = self
        cpu = g.pick(spec["cpu"])
        mem = g.pick(spec["mem_gi"]) << 30
        labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                  "topology.kubernetes.io/zone": g.pick(ZONES), "node.kubernetes.io/instance-type": f"n2-standard-{cpu}",
                  "example.com/cores": str(cpu), "pool": pool}
        labels.update(spec["labels"])
        if g.chance(0.15):
            labels["example.com/rank"] = g.pick(["1", "5", "10", "0", "x", "07"])
        if g.chance(0.1):
            labels["disktype"] = g.pick(["ssd", "hdd", ""])
        taints = [dict(key=k, value=v, effect=e) if v else dict(key=k, effect=e) for k, v, e in spec["taints"]]
        if g.chance(0.12):
            k, v, e = g.pick(EXTRA_TAINTS)
            t = dict(key=k, effect=e)
            if v:
                t["value"] = v
            if e == "NoExecute" and g.chance(0.5):
                t["timeAdded"] = "2024-05-01T00:00:00Z"
            taints.append(t)
            g.features.add("taint-" + e)
        for t in taints:
            g.features.add("taint-" + t["effect"])
        alloc_cpu = cpu * 1000 - g.pick([0, 80, 90, 140, 1000 if cpu >= 8 else 0])
        alloc_mem = mem - g.pick([0, 1 << 30, 3 << 29, 2_700_000 * 1024])
        pods = g.pick(["110"] * 8 + ["32", "8", "4", "3"])
        cap = {"cpu": g.cpu_q(cpu * 1000), "memory": g.mem_q(mem), "pods": "110", "ephemeral-storage": "98831908Ki"}
        alloc = {"cpu": g.cpu_q(alloc_cpu), "memory": g.mem_q(alloc_mem), "pods": pods,
                 "ephemeral-storage": g.pick(["47093746742", "90Gi", "20Gi"])}
        if pods != "110":
            g.features.add("pod-count")
        gpu = spec["gpu"]
        if gpu:
            n = g.pick(gpu)
            cap["nvidia.com/gpu"] = str(n)
            alloc["nvidia.com/gpu"] = g.pick([str(n)] * 5 + ["0"])
            g.features.add("gpu")
        if g.chance(0.05):
            cap["example.com/fpga"] = alloc["example.com/fpga"] = g.pick(["1", "2", "8"])
            g.features.add("extended-resource")
        if g.chance(0.03):
            del alloc["pods"]
            g.features.add("no-pods-allocatable")
        status = {"capacity": cap, "allocatable": alloc}
        if g.chance(0.08):
            del status["allocatable"]  # API defaulting copies capacity
            g.features.add("capacity-only")
        images = []
        for names, size in IMAGES:
            if g.chance(0.3):
                images.append({"names": list(names), "sizeBytes": size + g.pick([0, 0, 0, 1234567])})
        if images:
            status["images"] = images
            g.features.add("images")
        spec_ = {}
        if taints:
            spec_["taints"] = taints
        if g.chance(0.05):
            spec_["unschedulable"] = True
            spec_.setdefault("taints", []).append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}) \
                if g.chance(0.5) else None
            g.features.add("cordoned")
        node = {"metadata": {"name": name, "labels": labels}, "spec": spec_, "status": status}
        node["_alloc"] = (alloc_cpu, alloc_mem)  # generator bookkeeping, removed before output
        return node

    # ---- pods ----
    def resources(self, cpu_m, mem_b, gpu=0, style=None):
        g = self
        style = style or g.pick(["req", "req", "req", "both", "limits", "none", "cpu-only", "mem-only"])
        req, lim = {}, {}
        if style == "none":
            g.features.add("no-requests")
            return {}
        if style in ("req", "both", "cpu-only"):
            req["cpu"] = g.cpu_q(cpu_m)
        if style in ("req", "both", "mem-only"):
            req["memory"] = g.mem_q(mem_b)
        if style == "both":
            lim["cpu"] = g.cpu_q(cpu_m * g.pick([1, 2]))
            lim["memory"] = req["memory"]
        if style == "limits":
            lim["cpu"] = g.cpu_q(cpu_m)
            lim["memory"] = g.mem_q(mem_b)
            g.features.add("limits-only")
        if gpu:
            lim["nvidia.com/gpu"] = str(gpu)
            if g.chance(0.5):
                req["nvidia.com/gpu"] = str(gpu)
            g.features.add("gpu")
        if g.chance(0.03):
            n = g.pick(["1", "2", "3"])
            lim["example.com/fpga"] = n
            if g.chance(0.5):
                req["example.com/fpga"] = n
            g.features.add("extended-resource")
        if g.chance(0.08):
            req["ephemeral-storage"] = g.pick(["1Gi", "10Gi", "60Gi", "100Gi"])
            g.features.add("ephemeral-storage")
        out = {}
        if req:
            out["requests"] = req
        if lim:
            out["limits"] = lim
        return out

    def container(self, name, cpu_m, mem_b, gpu=0, ports=False):
        g = self
        c = {"name": name, "image": g.pick(POD_IMAGES), "resources": g.resources(cpu_m, mem_b, gpu)}
        if ports and g.chance(0.5):
            port = {"containerPort": g.pick([8080, 8786, 9090]), "hostPort": g.pick([8080, 8786, 9090])}
            if g.chance(0.3):
                port["protocol"] = g.pick(["TCP", "UDP"])
            if g.chance(0.2):
                port["hostIP"] = g.pick(["0.0.0.0", "10.0.0.1", "127.0.0.1"])
            c["ports"] = [port]
            g.features.add("host-ports")
        return c

    def pod_spec(self, nodes, incoming):
        g = self
        cpu_m = g.pick([50, 100, 250, 500, 500, 1000, 1000, 1500, 2000, 3500, 4000, 7000, 16000])
        mem_b = g.pick([64 << 20, 256 << 20, 600 << 20, 1 << 30, 1 << 30, 2 << 30, 4_000_000_000, 8 << 30, 30 << 30, 100 << 30])
        gpu = g.pick([0] * 8 + [1, 2]) if any("nvidia.com/gpu" in n["status"]["capacity"] for n in nodes) or g.chance(0.05) else 0
        spec = {"containers": [g.container("main", cpu_m, mem_b, gpu, ports=g.chance(0.15))]}
        if g.chance(0.2):
            spec["containers"].append(g.container("side", g.pick([10, 100, 500]), g.pick([32 << 20, 128 << 20])))
        if g.chance(0.25):
            inits = []
            for i in range(g.pick([1, 1, 2])):
                c = g.container(f"init-{i}", g.pick([10, 100, 500, 3000, 6000]), g.pick([16 << 20, 1 << 30, 6 << 30]))
                if g.chance(0.35):
                    c["restartPolicy"] = "Always"
                    g.features.add("sidecar")
                else:
                    g.features.add("init")
                inits.append(c)
            spec["initContainers"] = inits
        if g.chance(0.08):
            spec["overhead"] = {"cpu": g.pick(["250m", "100m", "1"]), "memory": g.pick(["120Mi", "64Mi"])}
            g.features.add("overhead")
        if g.chance(0.04):
            # whole units: a fractional mantissa (1.5Gi) with an overhead meets
            # kubernetes/kubernetes#141241 (known/README.md)
            spec["resources"] = {"requests": {"cpu": f"{cpu_m * 2}m", "memory": str(mem_b * 2)}}
            g.features.add("pod-level-resources")
        if incoming or g.chance(0.3):
            self.placement_constraints(spec, nodes)
        prio = g.pick([None, None, 0, 100, 1000, -10, -5])
        if prio is not None:
            spec["priority"] = prio
            g.features.add("priority")
        if g.chance(0.1):
            spec["preemptionPolicy"] = g.pick(["Never", "PreemptLowerPriority"])
            g.features.add("preemption-policy")
        if g.chance(0.04):
            spec["volumes"] = [{"name": "scratch", "emptyDir": {}}]
        if g.chance(0.05):
            # an OCI image mounted as a volume: ImageLocality counts it (v1.37)
            spec.setdefault("volumes", []).append({"name": "model", "image": {"reference": g.pick(POD_IMAGES)}})
            g.features.add("image-volume")
        return spec

    def placement_constraints(self, spec, nodes):
        g = self
        labels = {}
        for n in nodes:
            for k, v in n["metadata"]["labels"].items():
                labels.setdefault(k, set()).add(v)
        keys = sorted(labels)
        # tolerations: usually those of one pool, as a notebook or a Dask
        # worker carries its pool's, and at random for the others
        tols = []
        taints = sorted({(t["key"], t.get("value", ""), t["effect"]) for n in nodes for t in n["spec"].get("taints", [])})
        target = set()
        if nodes and g.chance(0.8):
            pool = g.pick(nodes)["metadata"]["labels"].get("pool")
            target = {(t["key"], t.get("value", ""), t["effect"]) for n in nodes if n["metadata"]["labels"].get("pool") == pool
                      for t in n["spec"].get("taints", []) if t["key"] != "node.kubernetes.io/unschedulable"}
        for k, v, e in taints:
            if (k, v, e) in target:
                t = {"key": k, "operator": "Exists"} if g.chance(0.3) else {"key": k, "operator": "Equal", "value": v}
                if g.chance(0.8):
                    t["effect"] = e
                tols.append(t)
                continue
            if g.chance(0.4):
                t = {"key": k}
                op = g.pick(["Equal", "Equal", "Exists", None])
                if op == "Exists":
                    t["operator"] = "Exists"
                else:
                    if op:
                        t["operator"] = op
                    t["value"] = v if g.chance(0.85) else "other"
                eff = g.pick([e, e, e, "", "NoSchedule", "NoExecute", "PreferNoSchedule"])
                if eff:
                    t["effect"] = eff
                if eff == "NoExecute" and g.chance(0.5):
                    t["tolerationSeconds"] = 300
                tols.append(t)
        if g.chance(0.04):
            tols.append({"operator": "Exists"})
            g.features.add("tolerate-all")
        if g.chance(0.05):
            tols.append({"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"})
        if tols:
            spec["tolerations"] = tols
            g.features.add("tolerations")
        # nodeSelector
        if g.chance(0.15) and keys:
            k = g.pick(keys)
            v = g.pick(sorted(labels[k])) if g.chance(0.9) else "nope"
            spec["nodeSelector"] = {k: v}
            g.features.add("nodeSelector")
        aff = {}
        if g.chance(0.25):
            terms = [self.term(labels, nodes, required=True) for _ in range(g.pick([1, 2, 2]))]
            aff["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": terms}
            g.features.add("requiredNodeAffinity")
        if g.chance(0.35):
            aff["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": g.pick([1, 10, 50, 100]), "preference": self.term(labels, nodes, required=False)}
                for _ in range(g.pick([1, 1, 2, 3]))]
            g.features.add("preferredNodeAffinity")
        if aff:
            spec["affinity"] = {"nodeAffinity": aff}

    def term(self, labels, nodes, required):
        g = self
        term = {}
        exprs = []
        for _ in range(g.pick([1, 1, 2])):
            op = g.pick(["In", "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"])
            g.features.add("affinity-" + op)
            if op in ("Gt", "Lt"):
                k = g.pick(["example.com/cores", "example.com/rank"])
                exprs.append({"key": k, "operator": op, "values": [g.pick(["0", "2", "4", "7", "8", "15", "07"])]})
                continue
            keys = sorted(labels) + ["absent.example.com/key"]
            k = g.pick(keys)
            if op in ("Exists", "DoesNotExist"):
                exprs.append({"key": k, "operator": op})
            else:
                vals = sorted(labels.get(k, {"x"}))
                chosen = g.r.sample(vals, min(len(vals), g.pick([1, 1, 2])))
                if g.chance(0.2):
                    chosen.append("other")
                exprs.append({"key": k, "operator": op, "values": chosen})
        if exprs and g.chance(0.9):
            term["matchExpressions"] = exprs
        if nodes and (not term or g.chance(0.12)):
            names = [n["metadata"]["name"] for n in nodes]
            op = g.pick(["In", "In", "NotIn"])
            # In and NotIn on a field take exactly one value (API validation)
            fields = [{"key": "metadata.name", "operator": op, "values": [g.pick(names)]}]
            if g.chance(0.2):
                fields.append({"key": "metadata.name", "operator": "NotIn", "values": [g.pick(names)]})
            if required and g.chance(0.05):
                fields.append({"key": "metadata.name", "operator": "In", "values": [g.pick(names)]})
            term["matchFields"] = fields
            g.features.add("matchFields")
        if not term:
            term["matchExpressions"] = exprs or [{"key": "pool", "operator": "Exists"}]
        if g.chance(0.02):
            g.features.add("empty-term")
            return {}
        return term

    def meta(self, name, ns, cohort=None):
        g = self
        m = {"name": name}
        if g.chance(0.8):
            m["namespace"] = ns
        labels = {"app": g.pick(["jupyterhub", "dask", "batch"])}
        if cohort:
            labels[cohort[0]] = cohort[1]
            g.features.add("cohort")
        m["labels"] = labels
        return m


def scenario(seed, index, min_nodes=1, max_nodes=24, with_volumes=False, with_affinity=False):
    r = random.Random(f"{seed}/{index}")
    g = Gen(r)
    profile = g.pick(PROFILES)
    variant = r.random()
    if variant < 0.06:
        profile = {"name": profile if profile != "tightpack" else "default",
                   "scoreWeights": {g.pick(["NodeAffinity", "NodeResourcesFit", "TaintToleration", "ImageLocality"]): g.pick([1, 5, 50, 14631])}}
    elif variant < 0.10:
        profile = {"name": g.pick(["default", "most-allocated"]),
                   "scoringStrategy": {"type": g.pick(["MostAllocated", "LeastAllocated"]),
                                       "resources": [{"name": "cpu", "weight": g.pick([1, 3])}, {"name": "memory", "weight": 1},
                                                     {"name": "nvidia.com/gpu", "weight": g.pick([1, 5])}]}}
    elif variant < 0.13:
        profile = {"name": "default", "disabledScore": g.r.sample(
            ["NodeResourcesBalancedAllocation", "ImageLocality", "TaintToleration", "NodeAffinity"], g.pick([1, 2]))}
    elif variant < 0.16:
        profile = "rtc" if g.chance(0.5) else {
            "name": "rtc", "scoringStrategy": {"type": "RequestedToCapacityRatio",
                                               "resources": [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}],
                                               "shape": [{"utilization": 0, "score": g.pick([0, 10])}, {"utilization": 50, "score": 3},
                                                         {"utilization": 100, "score": g.pick([10, 0])}]}}
    pname = profile if isinstance(profile, str) else profile["name"] + "*"

    # nodes, in pools
    n_nodes = r.randint(min_nodes, max_nodes) if r.random() > 0.02 else 0
    if r.random() < 0.08 and max_nodes < 90:
        n_nodes = r.randint(max_nodes, 90)  # larger clusters, still below kube-scheduler's sampling sizes
        g.features.add("large")
    pools = r.sample(sorted(POOLS), r.randint(1, 4))
    nodes = []
    for i in range(n_nodes):
        pool = pools[i % len(pools)] if r.random() < 0.8 else g.pick(pools)
        name = f"{pool}-{i:03d}" if r.random() < 0.9 else f"n{r.randint(0, 999)}-{i}"
        nodes.append(g.node(name, pool, POOLS[pool]))
    if n_nodes >= 2 and r.random() < 0.15:
        # identical twins: ties
        twin = json.loads(json.dumps(nodes[0]))
        twin["metadata"]["name"] = "twin-" + nodes[0]["metadata"]["name"]
        twin["metadata"]["labels"]["kubernetes.io/hostname"] = twin["metadata"]["name"]
        nodes.append(twin)
        g.features.add("ties")

    cohorts = [(g.pick(COHORT_LABELS), f"cluster-{k}") for k in range(2)]
    # bound pods
    pods = []
    for i, n in enumerate(nodes):
        alloc_cpu, alloc_mem = n["_alloc"]
        fill = r.random() * g.pick([0.3, 0.8, 1.0, 1.1, 1.6])
        k = r.randint(0, 4)
        used_ports = set()
        for j in range(k):
            share = fill / max(k, 1)
            spec = g.pod_spec(nodes, incoming=False) if r.random() < 0.3 else {"containers": [
                g.container("c", max(10, int(alloc_cpu * share) // 10 * 10), max(1 << 20, int(alloc_mem * share) >> 20 << 20),
                            ports=r.random() < 0.1)]}
            spec["nodeName"] = n["metadata"]["name"]
            spec.pop("affinity", None)
            # No two bound pods of a node share a host port: the kubelet would
            # refuse the second, and kube-scheduler's port set (not a count)
            # then tells preemption the port is free once either leaves.
            for c in spec["containers"]:
                kept = []
                for port in c.get("ports", []):
                    key = (port["hostPort"], port.get("protocol", "TCP"))
                    if key not in used_ports:
                        used_ports.add(key)
                        kept.append(port)
                if "ports" in c:
                    c["ports"] = kept
                    if not kept:
                        del c["ports"]
            if r.random() < 0.3:
                spec["priority"] = g.pick([-10, -5, 0, 100, 1000])
            p = {"metadata": g.meta(f"bound-{i}-{j}", g.pick(["default", "jhub", "dask"]),
                                    g.pick(cohorts) if profile == "tightpack" or r.random() < 0.1 else None),
                 "spec": spec}
            if r.random() < 0.08:
                p["status"] = {"phase": g.pick(["Succeeded", "Failed", "Pending", "Running"])}
                g.features.add("phase")
            if r.random() < 0.5:
                # few distinct times, so that DefaultPreemption's start-time
                # criterion both ties and decides
                p.setdefault("status", {})["startTime"] = g.pick(
                    ["2026-11-30T08:00:00Z", "2026-11-30T09:30:00Z", "2026-11-30T09:30:00Z", "2026-11-29T23:59:59Z"])
                g.features.add("start-time")
            pods.append(p)
    # incoming pods
    incoming = []
    for t in range(r.randint(1, 3)):
        spec = g.pod_spec(nodes, incoming=True)
        cohort = g.pick(cohorts + [None]) if profile == "tightpack" or r.random() < 0.1 else None
        p = {"metadata": g.meta(f"pod-{t}", g.pick(["default", "jhub", "dask"]), cohort), "spec": spec}
        if r.random() < 0.4:
            p["replicas"] = r.randint(1, 6) if r.random() < 0.9 else r.randint(7, 20)
            g.features.add("replicas")
        incoming.append(p)
    for n in nodes:
        n.pop("_alloc", None)
    sid = f"gen-{seed}-{index}"
    s = {"scenario": {"profile": profile, "nodes": nodes, "pods": pods, "incoming": incoming},
         "meta": {"id": sid, "seed": str(seed), "index": index, "profile": pname, "features": sorted(g.features)}}
    workloads(s, seed, index)
    named_node(s, seed, index)
    if with_volumes:
        volumes(s, seed, index)
    if with_affinity:
        affinity(s, seed, index)
    return s


ZONE_KEY = "topology.kubernetes.io/zone"
HOST_KEY = "kubernetes.io/hostname"


def owner(kind, name, controller=True):
    ref = {"apiVersion": "v1" if kind == "ReplicationController" else "apps/v1", "kind": kind, "name": name,
           "uid": f"uid-{kind.lower()}-{name}"}
    if controller is not None:
        ref["controller"] = controller
    return ref


def workloads(s, seed, index):
    """Adds what real hubs run beside nodes and pods, with its own random
    stream so that the rest of the scenario stays what it was: the dask-kubernetes
    operator's scheduler Deployment and Service and its one-replica worker
    Deployments (each a ReplicaSet that selects only its own pod), the hub
    Deployment with its Service, the user-placeholder StatefulSet, other
    Services and ReplicationControllers; pods they select or own (which get
    PodTopologySpread's system default constraints), explicit
    topologySpreadConstraints of every kind, terminating pods, nodes without a
    zone label, and profiles with List-defaulted constraints."""
    r = random.Random(f"{seed}/{index}/workloads")
    if r.random() < 0.45:
        return
    sc, meta = s["scenario"], s["meta"]
    feats = set(meta["features"])
    g = Gen(r)
    nodes, pods, incoming = sc["nodes"], sc["pods"], sc["incoming"]
    services, replica_sets, stateful_sets, rcs = [], [], [], []

    def ns_of(p):
        return p["metadata"].get("namespace", "default")

    def join(p, labels, ref=None):
        p["metadata"].setdefault("labels", {}).update(labels)
        if ref:
            p["metadata"]["ownerReferences"] = [ref] if r.random() < 0.9 else [
                owner("Deployment", "other", controller=False), ref]

    everyone = pods + incoming
    for k in range(r.randint(1, 3)):
        kind = g.pick(["dask", "dask", "hub", "placeholder", "service", "rc"])
        ns = g.pick(["default", "jhub", "dask"])
        members = [p for p in everyone if ns_of(p) == ns and r.random() < 0.5]
        if kind == "dask":
            cluster = f"dc{k}"
            sched_labels = {"dask.org/cluster-name": cluster, "dask.org/component": "scheduler"}
            services.append({"metadata": {"name": f"{cluster}-scheduler", "namespace": ns},
                             "spec": {"selector": dict(sched_labels)}})
            for i, p in enumerate(members):
                if i == 0 and r.random() < 0.7:
                    rs = f"{cluster}-scheduler-5d8f7"
                    replica_sets.append({"metadata": {"name": rs, "namespace": ns},
                                         "spec": {"selector": {"matchLabels": dict(sched_labels)}}})
                    join(p, sched_labels, owner("ReplicaSet", rs))
                    continue
                worker = f"{cluster}-default-worker-{i:03x}"
                labels = {"dask.org/cluster-name": cluster, "dask.org/component": "worker",
                          "dask.org/workergroup-name": "default", "dask.org/worker-name": worker}
                rs = f"{worker}-7c9b4"
                replica_sets.append({"metadata": {"name": rs, "namespace": ns}, "spec": {"selector": {
                    "matchLabels": {"dask.org/cluster-name": cluster, "dask.org/worker-name": worker}}}})
                join(p, labels, owner("ReplicaSet", rs))
            feats.add("workload-dask")
        elif kind == "hub":
            labels = {"app": "jupyterhub", "component": "hub", "release": "jhub"}
            services.append({"metadata": {"name": "hub", "namespace": ns},
                             "spec": {"selector": {"app": "jupyterhub", "component": "hub", "release": "jhub"}}})
            rs = "hub-6b7f9c"
            replica_sets.append({"metadata": {"name": rs, "namespace": ns}, "spec": {"selector": {
                "matchLabels": {"app": "jupyterhub", "component": "hub", "release": "jhub"}}}})
            for p in members[:2]:
                join(p, labels, owner("ReplicaSet", rs))
            feats.add("workload-hub")
        elif kind == "placeholder":
            labels = {"app": "jupyterhub", "component": "user-placeholder", "release": "jhub"}
            stateful_sets.append({"metadata": {"name": "user-placeholder", "namespace": ns}, "spec": {"selector": {
                "matchLabels": {"app": "jupyterhub", "component": "user-placeholder", "release": "jhub"}}}})
            for p in members:
                join(p, labels, owner("StatefulSet", "user-placeholder"))
            feats.add("workload-statefulset")
        elif kind == "service":
            app = g.pick(["jupyterhub", "dask", "batch"])
            svc = {"metadata": {"name": f"svc-{k}", "namespace": ns}, "spec": {}}
            pick = r.random()
            if pick < 0.7:
                svc["spec"]["selector"] = {"app": app}
            elif pick < 0.85:
                svc["spec"]["selector"] = {}  # selects every pod of the namespace, adds no label
            # else: no selector, selects nothing
            services.append(svc)
            if r.random() < 0.5:
                rs = f"{app}-rs-{k}"
                sel = {"matchLabels": {"app": app}} if r.random() < 0.7 else {
                    "matchExpressions": [{"key": "app", "operator": g.pick(["In", "NotIn"]), "values": [app, "other"]},
                                         {"key": "tier", "operator": g.pick(["Exists", "DoesNotExist"])}]}
                replica_sets.append({"metadata": {"name": rs, "namespace": ns}, "spec": {"selector": sel}})
                for p in members:
                    if r.random() < 0.6:
                        join(p, {"app": app}, owner("ReplicaSet", rs, controller=g.pick([True, True, False, None])))
            feats.add("workload-service")
        else:
            name = f"rc-{k}"
            rcs.append({"metadata": {"name": name, "namespace": ns}, "spec": {"selector": {"app": "batch"}}})
            for p in members:
                join(p, {"app": "batch"}, owner("ReplicationController", name))
            feats.add("workload-rc")
    if r.random() < 0.1 and pods:
        # a controller a pod names that the scenario lacks, or of another kind
        p = g.pick(pods)
        p["metadata"]["ownerReferences"] = [g.pick([owner("ReplicaSet", "gone"), owner("DaemonSet", "ds"),
                                                    {"apiVersion": "extensions/v1beta1", "kind": "ReplicaSet",
                                                     "name": "hub-6b7f9c", "controller": True}])]
    for p in pods:
        if r.random() < 0.04:
            p["metadata"]["deletionTimestamp"] = "2026-11-30T10:00:00Z"
            feats.add("terminating")
    for n in nodes:
        if r.random() < 0.08:
            del n["metadata"]["labels"][ZONE_KEY]
            feats.add("zoneless-node")
    # explicit constraints
    keys = [ZONE_KEY, ZONE_KEY, HOST_KEY, HOST_KEY, "pool", "node.kubernetes.io/instance-type", "example.com/rank"]
    for p in incoming:
        if r.random() < 0.35:
            cons = []
            for key in r.sample(keys, r.randint(1, 2)):
                c = {"maxSkew": g.pick([1, 1, 2, 3]), "topologyKey": key,
                     "whenUnsatisfiable": g.pick(["DoNotSchedule", "ScheduleAnyway"])}
                if any(x["topologyKey"] == key and x["whenUnsatisfiable"] == c["whenUnsatisfiable"] for x in cons):
                    continue
                app = p["metadata"].get("labels", {}).get("app", "dask")
                pick = r.random()
                if pick < 0.75:
                    c["labelSelector"] = {"matchLabels": {"app": app}}
                elif pick < 0.9:
                    c["labelSelector"] = {"matchExpressions": [
                        {"key": "app", "operator": g.pick(["In", "NotIn", "Exists"]), "values": [app]}]}
                    if c["labelSelector"]["matchExpressions"][0]["operator"] == "Exists":
                        del c["labelSelector"]["matchExpressions"][0]["values"]
                elif pick < 0.95:
                    c["labelSelector"] = {}
                # else: no selector, matches nothing
                if c["whenUnsatisfiable"] == "DoNotSchedule" and r.random() < 0.25:
                    c["minDomains"] = g.pick([1, 2, 3, 5])
                    feats.add("spread-min-domains")
                if r.random() < 0.2:
                    c["nodeAffinityPolicy"] = g.pick(["Honor", "Ignore"])
                    feats.add("spread-node-affinity-policy")
                if r.random() < 0.2:
                    c["nodeTaintsPolicy"] = g.pick(["Honor", "Ignore"])
                    feats.add("spread-node-taints-policy")
                if r.random() < 0.15 and "labelSelector" in c:
                    c["matchLabelKeys"] = [g.pick(["dask.org/cluster-name", "component", "pod-template-hash"])]
                    p["metadata"].setdefault("labels", {})["pod-template-hash"] = "abc12"
                    feats.add("spread-match-label-keys")
                cons.append(c)
            if cons:
                p["spec"]["topologySpreadConstraints"] = cons
                feats.add("spread-" + cons[0]["whenUnsatisfiable"])
    if r.random() < 0.08:
        cons = [{"maxSkew": g.pick([1, 2]), "topologyKey": g.pick([ZONE_KEY, HOST_KEY, "pool"]),
                 "whenUnsatisfiable": g.pick(["DoNotSchedule", "ScheduleAnyway"])}]
        if r.random() < 0.5:
            cons.append({"maxSkew": 4, "topologyKey": "node.kubernetes.io/instance-type",
                         "whenUnsatisfiable": "ScheduleAnyway"})
        base = g.pick(["default", "most-allocated"])
        cfg = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
               "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
                   {"name": "PodTopologySpread", "args": {"defaultingType": "List", "defaultConstraints": cons}}]}]}
        if base == "most-allocated":
            cfg["profiles"][0]["plugins"] = {"score": {"disabled": [{"name": "*"}], "enabled": [
                {"name": "NodeAffinity", "weight": 14631}, {"name": "InterPodAffinity", "weight": 1331},
                {"name": "NodeResourcesFit", "weight": 121}, {"name": "ImageLocality", "weight": 11},
                {"name": "PodTopologySpread", "weight": 2}, {"name": "TaintToleration", "weight": 3}]}}
        sc["profile"] = {"name": "default", "schedulerConfig": cfg}
        meta["profile"] = "spread-list*"
        feats.add("spread-list-defaulting")
    for key, objs in (("services", services), ("replicaSets", replica_sets), ("statefulSets", stateful_sets),
                      ("replicationControllers", rcs)):
        if objs:
            sc[key] = objs
    meta["features"] = sorted(feats)


AFFINITY_KEYS = [HOST_KEY, HOST_KEY, HOST_KEY, ZONE_KEY, ZONE_KEY, "pool", "node.kubernetes.io/instance-type",
                 "example.com/rank", "example.com/missing"]
NAMESPACES = ["default", "jhub", "dask"]


def affinity(s, seed, index):
    """Adds (with --affinity, its own random stream) inter-pod affinity: the
    2i2c node-placeholder (low-priority replicas with required hostname
    anti-affinity among themselves), notebooks that prefer other users' nodes
    less (z2jh's singleuser.extraPodAntiAffinity), Dask workers that prefer
    their scheduler's zone or their cluster's nodes, and random terms of every
    kind on incoming and bound pods: required and preferred, affinity and
    anti-affinity, several per pod and several with one topology key, keys
    some nodes lack, label selectors nil, empty or of every operator, the
    namespaces list, namespace selectors (empty, on
    kubernetes.io/metadata.name, on other labels), listed Namespaces, and
    profiles with InterPodAffinityArgs."""
    r = random.Random(f"{seed}/{index}/affinity")
    if r.random() < 0.3:
        return
    sc, meta = s["scenario"], s["meta"]
    feats = set(meta["features"])
    g = Gen(r)
    pods, incoming = sc["pods"], sc["incoming"]

    def labels_of(p):
        return p["metadata"].setdefault("labels", {})

    def ns_of(p):
        return p["metadata"].get("namespace", "default")

    # Labels the selectors below can pick: the pods' own, and a few roles.
    for p in pods + incoming:
        if r.random() < 0.4:
            labels_of(p)["app"] = g.pick(["dask", "jupyterhub", "batch", "web"])
        if r.random() < 0.2:
            labels_of(p)["component"] = g.pick(["singleuser-server", "worker", "scheduler"])
    pairs = sorted({(k, v) for p in pods + incoming for k, v in labels_of(p).items()}) or [("app", "dask")]

    def selector():
        pick = r.random()
        k, v = g.pick(pairs)
        if pick < 0.55:
            return {"matchLabels": {k: v}}
        if pick < 0.8:
            op = g.pick(["In", "NotIn", "Exists", "DoesNotExist"])
            e = {"key": k, "operator": op}
            if op in ("In", "NotIn"):
                e["values"] = sorted({v, g.pick(pairs)[1]})
            sel = {"matchExpressions": [e]}
            if r.random() < 0.3:
                k2, v2 = g.pick(pairs)
                sel["matchLabels"] = {k2: v2}
            return sel
        if pick < 0.92:
            feats.add("affinity-selector-everything")
            return {}
        feats.add("affinity-selector-nil")
        return None

    def term(key=None):
        t = {"topologyKey": key or g.pick(AFFINITY_KEYS)}
        sel = selector()
        if sel is not None:
            t["labelSelector"] = sel
        pick = r.random()
        if pick < 0.12:
            t["namespaces"] = r.sample(NAMESPACES, r.randint(1, 2))
            feats.add("affinity-namespaces")
        elif pick < 0.3:
            t["namespaceSelector"] = g.pick([
                {}, {"matchLabels": {"team": g.pick(["a", "b"])}},
                {"matchLabels": {"kubernetes.io/metadata.name": g.pick(NAMESPACES)}},
                {"matchExpressions": [{"key": "team", "operator": g.pick(["Exists", "DoesNotExist"])}]}])
            if r.random() < 0.3:
                t["namespaces"] = [g.pick(NAMESPACES)]
            feats.add("affinity-namespace-selector")
        return t

    def add_terms(p, required=0.35, preferred=0.35):
        aff = p["spec"].setdefault("affinity", {})
        for kind in ("podAffinity", "podAntiAffinity"):
            d = {}
            if r.random() < required:
                d["requiredDuringSchedulingIgnoredDuringExecution"] = [term() for _ in range(r.randint(1, 2))]
                feats.add(f"{kind}-required")
            if r.random() < preferred:
                d["preferredDuringSchedulingIgnoredDuringExecution"] = [
                    {"weight": g.pick([1, 5, 50, 100]), "podAffinityTerm": term()} for _ in range(r.randint(1, 3))]
                feats.add(f"{kind}-preferred")
            if d:
                aff[kind] = d
        if not aff:
            del p["spec"]["affinity"]

    for p in incoming:
        if r.random() < 0.55:
            add_terms(p)
    for p in pods:
        if r.random() < 0.12:
            add_terms(p, required=0.3, preferred=0.4)
    shape = r.random()
    if shape < 0.25:
        # 2i2c's node-placeholder: one replica per node, evicted by any user
        ph = {"app": "node-placeholder", "component": "placeholder"}
        anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": dict(ph)}, "topologyKey": HOST_KEY}]}}
        for p in pods:
            if r.random() < 0.15:
                labels_of(p).update(ph)
                p["spec"]["affinity"] = json.loads(json.dumps(anti))
                p["spec"]["priority"] = -10
        spec = {"containers": [g.container("pause", g.pick([500, 1000, 2000]), g.pick([1 << 30, 4 << 30]))],
                "priority": -10, "affinity": json.loads(json.dumps(anti))}
        incoming.append({"metadata": {"name": "node-placeholder", "namespace": g.pick(NAMESPACES),
                                      "labels": dict(ph)}, "spec": spec, "replicas": r.randint(2, 8)})
        feats.add("affinity-node-placeholder")
    elif shape < 0.45:
        # notebooks that keep off other users' nodes, preferably
        user = {"component": "singleuser-server"}
        for p in pods + incoming:
            if r.random() < 0.3:
                labels_of(p).update(user)
                if r.random() < 0.7:
                    p["spec"].setdefault("affinity", {})["podAntiAffinity"] = {
                        "preferredDuringSchedulingIgnoredDuringExecution": [
                            {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": dict(user)},
                                                                "topologyKey": HOST_KEY}}]}
        feats.add("affinity-spread-users")
    elif shape < 0.6:
        # Dask workers near their scheduler
        for p in incoming:
            if r.random() < 0.6:
                p["spec"].setdefault("affinity", {})["podAffinity"] = {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {
                            "dask.org/component": "scheduler"}}, "topologyKey": g.pick([ZONE_KEY, HOST_KEY])}}],
                    **({"requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "dask"}}, "topologyKey": ZONE_KEY}]}
                       if r.random() < 0.3 else {})}
        for p in pods:
            if r.random() < 0.1:
                labels_of(p)["dask.org/component"] = "scheduler"
        feats.add("affinity-dask-scheduler")
    if r.random() < 0.5:
        listed = []
        for ns in NAMESPACES:
            if r.random() < 0.7:
                labels = {"team": g.pick(["a", "b"])} if r.random() < 0.6 else {}
                if r.random() < 0.1:
                    labels["kubernetes.io/metadata.name"] = "stale"  # defaulting sets the real name
                listed.append({"metadata": {"name": ns, "labels": labels}})
        if listed:
            sc["namespaces"] = listed
            feats.add("namespaces")
    if isinstance(sc["profile"], str) and sc["profile"] in ("default", "most-allocated") and r.random() < 0.15:
        args = {"hardPodAffinityWeight": g.pick([0, 1, 5, 100])}
        if r.random() < 0.4:
            args["ignorePreferredTermsOfExistingPods"] = True
        cfg = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
               "profiles": [{"schedulerName": "default-scheduler",
                             "pluginConfig": [{"name": "InterPodAffinity", "args": args}]}]}
        if sc["profile"] == "most-allocated":
            cfg["profiles"][0]["plugins"] = {"score": {"disabled": [{"name": "*"}], "enabled": [
                {"name": "NodeAffinity", "weight": 14631}, {"name": "InterPodAffinity", "weight": 1331},
                {"name": "NodeResourcesFit", "weight": 121}, {"name": "ImageLocality", "weight": 11},
                {"name": "PodTopologySpread", "weight": 2}, {"name": "TaintToleration", "weight": 3}]}}
            cfg["profiles"][0]["pluginConfig"].append({"name": "NodeResourcesFit", "args": {"scoringStrategy": {
                "type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}})
        sc["profile"] = {"name": "default", "schedulerConfig": cfg}
        meta["profile"] = "inter-pod-args*"
        feats.add("inter-pod-affinity-args")
    meta["features"] = sorted(feats)


# DaskHub storage: (provisioner, home class, volume handle of a disk in a zone)
STORAGE_PROVIDERS = [
    ("pd.csi.storage.gke.io", "standard-rwo", lambda z, n: f"projects/daskhub/zones/{z}/disks/{n}"),
    ("ebs.csi.aws.com", "gp3", lambda z, n: "vol-0" + n[4:21].replace("-", "")),
]


def named_node(s, seed, index):
    """Now and then (its own random stream) an incoming pod that already names its node, as a
    bound pod whose resize v1.37 defers does: one of the nodes, or a node that is gone. v1.37
    judges it on that node alone (NodeName's PreFilter); v1.30 and v1.36 on every node."""
    r = random.Random(f"{seed}/{index}/named-node")
    sc = s["scenario"]
    if not sc["incoming"] or r.random() >= 0.05:
        return
    pod = r.choice(sc["incoming"])
    names = [n["metadata"]["name"] for n in sc["nodes"]]
    pod["spec"]["nodeName"] = r.choice(names) if names and r.random() < 0.8 else "gone-node"
    s["meta"]["features"] = sorted(set(s["meta"]["features"]) | {"named-node"})


def volumes(s, seed, index):
    """Adds (with --volumes, its own random stream) the storage of a DaskHub:
    zero-to-jupyterhub home claims claim-<user> (10Gi ReadWriteOnce) on a
    WaitForFirstConsumer class of a CSI driver, bound (their PV in one zone) or
    still to be provisioned (sometimes on a class with allowedTopologies, or
    with volume.kubernetes.io/selected-node already set), ReadWriteOncePod
    ones, claims the scenario lacks, Immediate claims bound and unbound (some
    classes without volumeBindingMode, defaulted), a static NFS claim shared by
    many notebooks, static available PVs of distinct sizes, the hub's own
    claim, Dask workers' generic ephemeral volumes, CSINodes with small attach
    counts, CSIDrivers with and without storageCapacity, CSIStorageCapacities
    per zone, and PV zone labels for VolumeZone. Bound pods use bound claims
    whose PV their node can reach. Objects are as the API server stores them
    once the controllers have run."""
    r = random.Random(f"{seed}/{index}/volumes")
    if r.random() < 0.35:
        return
    sc, meta = s["scenario"], s["meta"]
    feats = set(meta["features"])
    g = Gen(r)
    nodes, pods, incoming = sc["nodes"], sc["pods"], sc["incoming"]
    driver, home_class, handle = g.pick(STORAGE_PROVIDERS)
    node_zone = {n["metadata"]["name"]: n["metadata"]["labels"].get(ZONE_KEY) for n in nodes}
    zones = sorted({z for z in node_zone.values() if z}) or list(ZONES)
    claims, pvs, classes, csi_nodes, drivers, capacities = [], [], [], [], [], []
    claim_of = {}  # (namespace, name) -> claim
    counter = [0]

    def uid():
        counter[0] += 1
        h = "%08x" % r.getrandbits(32)
        return f"{h}-{counter[0]:04x}-4{index % 4096:03x}-8{counter[0] % 4096:03x}-{r.getrandbits(48):012x}"

    def ns_of(p):
        return p["metadata"].get("namespace", "default")

    classes.append({"metadata": {"name": home_class, "annotations": {
        "storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": driver, "parameters": {"type": "pd-balanced" if driver.startswith("pd") else "gp3"},
        "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": True})
    if r.random() < 0.25:
        allowed = sorted(r.sample(zones, r.randint(1, max(1, len(zones) - 1)))) if len(zones) > 1 else list(zones)
        if r.random() < 0.2:
            allowed = [g.pick([z for z in ZONES if z not in zones] or ["us-east1-b"])]  # a zone without nodes
        classes[0]["allowedTopologies"] = [{"matchLabelExpressions": [{"key": ZONE_KEY, "values": allowed}]}]
        feats.add("volume-allowed-topologies")
    immediate = None
    if r.random() < 0.3:
        immediate = {"metadata": {"name": "standard-immediate"}, "provisioner": driver, "reclaimPolicy": "Delete"}
        if r.random() < 0.5:
            immediate["volumeBindingMode"] = "Immediate"
        else:
            feats.add("volume-class-defaulted")
        classes.append(immediate)

    def pv_for(claim, zone, name=None, cls=None):
        size = claim["spec"]["resources"]["requests"]["storage"]
        pv_name = name or "pvc-" + claim["metadata"]["uid"]
        pv = {"metadata": {"name": pv_name, "annotations": {"pv.kubernetes.io/provisioned-by": driver},
                           "finalizers": ["kubernetes.io/pv-protection"]},
              "spec": {"capacity": {"storage": size}, "accessModes": list(claim["spec"]["accessModes"]),
                       "claimRef": {"kind": "PersistentVolumeClaim", "apiVersion": "v1",
                                    "namespace": claim["metadata"]["namespace"], "name": claim["metadata"]["name"],
                                    "uid": claim["metadata"]["uid"]},
                       "persistentVolumeReclaimPolicy": "Delete", "storageClassName": cls or home_class,
                       "volumeMode": "Filesystem",
                       "csi": {"driver": driver, "volumeHandle": handle(zone, pv_name), "fsType": "ext4"},
                       "nodeAffinity": {"required": {"nodeSelectorTerms": [
                           {"matchExpressions": [{"key": ZONE_KEY, "operator": "In", "values": [zone]}]}]}}},
              "status": {"phase": "Bound"}}
        if r.random() < 0.3:
            pv["metadata"]["labels"] = {ZONE_KEY: zone if r.random() < 0.85 else "__".join(sorted(r.sample(
                ZONES, 2)))}
            feats.add("volume-zone-label")
            if r.random() < 0.3:
                # provisioned in-tree before CSI migration: zone labels, no node affinity
                del pv["spec"]["nodeAffinity"]
                feats.add("volume-zone-label-only")
        pvs.append(pv)

    def claim(ns, name, cls, size="10Gi", modes=("ReadWriteOnce",), state="pending", zone=None, node=None,
              owner=None, template=None):
        key = (ns, name)
        if key in claim_of:
            return claim_of[key]
        c = {"metadata": {"name": name, "namespace": ns, "uid": uid(), "finalizers": ["kubernetes.io/pvc-protection"]},
             "spec": template or {"accessModes": list(modes), "resources": {"requests": {"storage": size}},
                                  "storageClassName": cls, "volumeMode": "Filesystem"},
             "status": {"phase": "Pending"}}
        c["spec"].setdefault("volumeMode", "Filesystem")
        if owner:
            c["metadata"]["ownerReferences"] = [owner]
        ann = {}
        if state == "bound":
            ann.update({"pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes",
                        "volume.beta.kubernetes.io/storage-provisioner": driver,
                        "volume.kubernetes.io/storage-provisioner": driver})
            c["spec"]["volumeName"] = "pvc-" + c["metadata"]["uid"]
            c["status"] = {"phase": "Bound", "accessModes": list(c["spec"]["accessModes"]),
                           "capacity": {"storage": c["spec"]["resources"]["requests"]["storage"]}}
            pv_for(c, zone or g.pick(zones), cls=c["spec"]["storageClassName"])
        elif state == "selected":
            ann.update({"volume.kubernetes.io/selected-node": node,
                        "volume.beta.kubernetes.io/storage-provisioner": driver,
                        "volume.kubernetes.io/storage-provisioner": driver})
        if ann:
            c["metadata"]["annotations"] = ann
        claims.append(c)
        claim_of[key] = c
        return c

    def mount(p, vol_name, claim_name):
        vols = p["spec"].setdefault("volumes", [])
        if not any(v["name"] == vol_name for v in vols):
            vols.append({"name": vol_name, "persistentVolumeClaim": {"claimName": claim_name}})

    # the shared NFS home of a namespace: a static claim bound to an NFS PV
    nfs = {}

    def nfs_claim(ns):
        if ns not in nfs:
            c = claim(ns, "home-nfs", "", size="1Ti", modes=("ReadWriteMany",), state="static")
            pv_name = f"{ns}-home-nfs"
            c["spec"]["volumeName"] = pv_name
            c["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
            c["status"] = {"phase": "Bound", "accessModes": ["ReadWriteMany"], "capacity": {"storage": "1Ti"}}
            pvs.append({"metadata": {"name": pv_name, "finalizers": ["kubernetes.io/pv-protection"]},
                        "spec": {"capacity": {"storage": "1Ti"}, "accessModes": ["ReadWriteMany"],
                                 "claimRef": {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": ns,
                                              "name": "home-nfs", "uid": c["metadata"]["uid"]},
                                 "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "",
                                 "volumeMode": "Filesystem",
                                 "nfs": {"server": "10.87.0.2", "path": f"/homes/{ns}"}},
                        "status": {"phase": "Bound"}})
            nfs[ns] = c
            feats.add("volume-nfs")
        return nfs[ns]

    class Users:  # distinct user names, in a random order
        def __init__(self):
            self.n = r.randrange(1000)

        def pop(self):
            self.n += 1 + r.randrange(7)
            return f"user{self.n}"

    users = Users()
    homes = []  # claims of bound pods that incoming ones may share

    # bound pods: their claims are bound, their PVs in their node's zone
    for p in pods:
        node = p["spec"]["nodeName"]
        zone = node_zone.get(node)
        ns = ns_of(p)
        roll = r.random()
        if roll < 0.3 and zone:
            user = users.pop()
            modes = ("ReadWriteOncePod",) if r.random() < 0.2 else ("ReadWriteOnce",)
            c = claim(ns, f"claim-{user}", home_class, modes=modes, state="bound", zone=zone)
            mount(p, f"volume-{user}", c["metadata"]["name"])
            homes.append(c)
            feats.add("volume-bound-pod")
        elif roll < 0.45:
            mount(p, "home", nfs_claim(ns)["metadata"]["name"])
    # the hub and its database claim
    if r.random() < 0.4:
        hub_pods = [p for p in pods if node_zone.get(p["spec"]["nodeName"])]
        if hub_pods and r.random() < 0.8:
            p = g.pick(hub_pods)
            zone = node_zone[p["spec"]["nodeName"]]
        else:
            p = g.pick(incoming)
            zone = g.pick(zones)
        c = claim(ns_of(p), "hub-db-dir", home_class, size="1Gi", state="bound", zone=zone)
        mount(p, "pvc", c["metadata"]["name"])
        p["metadata"].setdefault("labels", {}).update({"component": "hub"})
        feats.add("volume-hub")
    # static available PVs in the home class, of distinct sizes
    if r.random() < 0.3:
        for k, size in enumerate(r.sample(["5Gi", "10Gi", "12Gi", "15Gi", "20Gi", "32Gi", "50Gi", "100Gi"],
                                          r.randint(1, 4))):
            zone = g.pick(zones)
            name = f"static-{k}"
            pv = {"metadata": {"name": name, "finalizers": ["kubernetes.io/pv-protection"]},
                  "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                           "persistentVolumeReclaimPolicy": "Retain", "storageClassName": home_class,
                           "volumeMode": "Filesystem",
                           "csi": {"driver": driver, "volumeHandle": handle(zone, "disk-static-%d-0123456789abcdef" % k),
                                   "fsType": "ext4"},
                           "nodeAffinity": {"required": {"nodeSelectorTerms": [
                               {"matchExpressions": [{"key": ZONE_KEY, "operator": "In", "values": [zone]}]}]}}},
                  "status": {"phase": "Available"}}
            pvs.append(pv)
        feats.add("volume-static-pv")
    # incoming pods
    for p in incoming:
        ns = ns_of(p)
        roll = r.random()
        if roll < 0.55:
            # a notebook and its home
            kind = r.random()
            if homes and kind < 0.12:
                c = g.pick([h for h in homes if h["metadata"]["namespace"] == ns] or [None])
                if c is None:
                    continue
                feats.add("volume-shared-home")
            elif kind < 0.2:
                user = users.pop()
                mount(p, f"volume-{user}", f"claim-{user}")  # the claim is missing
                feats.add("volume-missing-claim")
                continue
            elif kind < 0.45:
                c = claim(ns, f"claim-{users.pop()}", home_class, state="bound")
                feats.add("volume-home-bound")
            elif kind < 0.55 and nodes:
                node = g.pick([n["metadata"]["name"] for n in nodes] + ["gone-node"])
                c = claim(ns, f"claim-{users.pop()}", home_class, state="selected", node=node)
                feats.add("volume-selected-node")
            elif kind < 0.62:
                c = claim(ns, f"claim-{users.pop()}", home_class, modes=("ReadWriteOncePod",),
                          state=g.pick(["pending", "bound"]))
                feats.add("volume-rwop")
            elif kind < 0.76 and immediate:
                c = claim(ns, f"claim-{users.pop()}", "standard-immediate", state=g.pick(["pending", "bound"]))
                feats.add("volume-immediate-" + ("bound" if "volumeName" in c["spec"] else "unbound"))
            else:
                c = claim(ns, f"claim-{users.pop()}", home_class)
                feats.add("volume-home-provision")
            user = c["metadata"]["name"][len("claim-"):] if c["metadata"]["name"].startswith("claim-") else "hub"
            mount(p, f"volume-{user}", c["metadata"]["name"])
            homes.append(c)
            if r.random() < 0.25:
                mount(p, "home", nfs_claim(ns)["metadata"]["name"])
        elif roll < 0.7:
            mount(p, "home", nfs_claim(ns)["metadata"]["name"])
        elif roll < 0.8 and "replicas" not in p:
            # a Dask worker's generic ephemeral scratch volume
            template = {"accessModes": ["ReadWriteOnce"], "storageClassName": home_class,
                        "resources": {"requests": {"storage": g.pick(["50Gi", "100Gi"])}}}
            p["spec"].setdefault("volumes", []).append(
                {"name": "dask-scratch", "ephemeral": {"volumeClaimTemplate": {
                    "metadata": {"labels": {"app": "dask"}}, "spec": template}}})
            feats.add("volume-ephemeral")
            if r.random() < 0.2:
                continue  # the ephemeral volume controller has not created it yet
            name = p["metadata"]["name"]
            p["metadata"]["uid"] = f"pod-{index}-{name}"
            own = {"apiVersion": "v1", "kind": "Pod", "name": name, "uid": p["metadata"]["uid"],
                   "controller": True, "blockOwnerDeletion": True}
            if r.random() < 0.15:
                own["uid"] = f"pod-{index}-{name}-before"  # a claim left by an earlier pod of that name
            c = claim(ns, f"{name}-dask-scratch", home_class, owner=own, template=json.loads(json.dumps(template)))
            c["metadata"]["labels"] = {"app": "dask"}
    # CSINodes with small attach counts, the CSIDriver, capacities per zone
    if nodes and r.random() < 0.5:
        every = r.random() < 0.5
        for n in nodes:
            if every or r.random() < 0.7:
                d = {"name": driver, "nodeID": n["metadata"]["name"], "topologyKeys": [ZONE_KEY]}
                if r.random() < 0.9:
                    d["allocatable"] = {"count": g.pick([1, 1, 2, 3, 4, 15])}
                csi_nodes.append({"metadata": {"name": n["metadata"]["name"]}, "spec": {"drivers": [d]}})
        feats.add("volume-csinode")
    if r.random() < 0.5:
        with_capacity = r.random() < 0.6
        drivers.append({"metadata": {"name": driver}, "spec": {
            "attachRequired": True, "podInfoOnMount": False, "storageCapacity": with_capacity,
            "fsGroupPolicy": "ReadWriteOnceWithFSType", "requiresRepublish": False,
            "volumeLifecycleModes": ["Persistent"]}})
        feats.add("volume-csidriver-capacity" if with_capacity else "volume-csidriver")
        if with_capacity or r.random() < 0.2:
            for k, zone in enumerate(zones):
                if r.random() < 0.2:
                    continue
                cap = {"metadata": {"name": f"csisc-{k}", "namespace": "kube-system"},
                       "storageClassName": home_class, "nodeTopology": {"matchLabels": {ZONE_KEY: zone}},
                       "capacity": g.pick(["0", "5Gi", "9Gi", "100Gi", "2Ti", "68719476736"])}
                if r.random() < 0.3:
                    cap["maximumVolumeSize"] = g.pick(["5Gi", "10Gi", "64Ti"])
                capacities.append(cap)
            feats.add("volume-capacity")
    for key, objs in (("persistentVolumeClaims", claims), ("persistentVolumes", pvs), ("storageClasses", classes),
                      ("csiNodes", csi_nodes), ("csiDrivers", drivers), ("csiStorageCapacities", capacities)):
        if objs:
            sc[key] = objs
    meta["features"] = sorted(feats)


def big(seed, n_nodes, n_incoming, empty, pods_per_node=5, hub=False):
    """A large cluster for timing: n_nodes in four pools, pods_per_node bound
    pods a node. With hub, the cluster a DaskHub is (hub_objects())."""
    r = random.Random(f"{seed}/big/{n_nodes}")
    g = Gen(r)
    nodes, pods = [], []
    pools = ["user", "worker", "core", "gpu"]
    for i in range(n_nodes):
        pool = pools[i % 4] if i % 10 else "plain"
        nodes.append(g.node(f"{pool}-{i:05d}", pool, POOLS[pool]))
    share = 0.9 / max(pods_per_node, 1)
    for i, n in enumerate(nodes):
        alloc_cpu, alloc_mem = n.pop("_alloc")
        for j in range(pods_per_node):
            pods.append({"metadata": {"name": f"b-{i}-{j}", "namespace": "default"},
                         "spec": {"nodeName": n["metadata"]["name"], "containers": [
                             g.container("c", max(10, int(alloc_cpu * r.random() * share)),
                                         max(1 << 20, int(alloc_mem * r.random() * share)))]}})
    incoming = []
    if not empty:
        for t in range(n_incoming):
            spec = g.pod_spec(nodes[:50], incoming=True)
            incoming.append({"metadata": {"name": f"pod-{t}", "namespace": "default"}, "spec": spec})
    s = {"scenario": {"profile": g.pick(PROFILES), "nodes": nodes, "pods": pods, "incoming": incoming},
         "meta": {"id": f"big-{seed}-{n_nodes}", "seed": str(seed)}}
    if hub:
        hub_objects(s["scenario"], random.Random(f"{seed}/big/{n_nodes}/hub"))
    return s


CSI_DRIVER = "pd.csi.storage.gke.io"
CSI_ZONE_KEY = "topology.gke.io/zone"


def hub_objects(sc, r):
    """Makes a --big cluster a DaskHub's (speed.sh): bound pods become
    notebooks on user nodes (each with its home claim, bound to a zonal PV),
    Dask workers of 50 clusters on worker nodes (each its own one-replica
    ReplicaSet, as the dask-kubernetes operator makes them, and a scheduler
    Service per cluster) and node-placeholders (required hostname
    anti-affinity) on every tenth node; with the StorageClass, CSIDriver and
    a CSINode per node (attach limit 127) that GKE has."""
    nodes, pods = sc["nodes"], sc["pods"]
    pool_of = {n["metadata"]["name"]: n["metadata"]["labels"]["pool"] for n in nodes}
    zone_of = {n["metadata"]["name"]: n["metadata"]["labels"][ZONE_KEY] for n in nodes}
    for n in nodes:
        n["metadata"]["labels"][CSI_ZONE_KEY] = n["metadata"]["labels"][ZONE_KEY]
    claims, pvs, rss, services = [], [], [], []
    placeholder = {"app": "node-placeholder", "component": "placeholder"}
    index_of = {n["metadata"]["name"]: i for i, n in enumerate(nodes)}
    seen_node = set()
    for k, p in enumerate(pods):
        node = p["spec"]["nodeName"]
        meta = p["metadata"]
        first = node not in seen_node
        seen_node.add(node)
        if first and index_of[node] % 10 == 3:
            meta["namespace"] = "jhub"
            meta["labels"] = dict(placeholder)
            p["spec"]["priority"] = -10
            p["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": dict(placeholder)}, "topologyKey": HOST_KEY}]}}
        elif pool_of[node] == "user" and first:
            user = f"user{k}"
            meta.update(name=f"jupyter-{user}", namespace="jhub",
                        labels={"app": "jupyterhub", "component": "singleuser-server", "hub.jupyter.org/username": user})
            claim, pv = f"claim-{user}", f"pvc-{k:08x}"
            p["spec"]["volumes"] = [{"name": "home", "persistentVolumeClaim": {"claimName": claim}}]
            claims.append({"metadata": {"name": claim, "namespace": "jhub", "uid": f"uid-claim-{k}", "annotations": {
                "pv.kubernetes.io/bind-completed": "yes"}},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}},
                         "storageClassName": "standard-rwo", "volumeName": pv}, "status": {"phase": "Bound"}})
            pvs.append({"metadata": {"name": pv}, "spec": {
                "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "standard-rwo",
                "claimRef": {"namespace": "jhub", "name": claim, "uid": f"uid-claim-{k}"},
                "csi": {"driver": CSI_DRIVER, "volumeHandle": f"projects/hub/zones/{zone_of[node]}/disks/{pv}"},
                "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                    {"key": CSI_ZONE_KEY, "operator": "In", "values": [zone_of[node]]}]}]}}},
                "status": {"phase": "Bound"}})
        elif pool_of[node] == "worker":
            cluster = f"dc{k % 50}"
            worker = f"{cluster}-default-worker-{k:06x}"
            meta.update(name=f"{worker}-7c9b4-x2k9f", namespace="dask",
                        labels={"dask.org/cluster-name": cluster, "dask.org/component": "worker",
                                "dask.org/workergroup-name": "default", "dask.org/worker-name": worker},
                        ownerReferences=[{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"{worker}-7c9b4",
                                          "uid": f"uid-rs-{k}", "controller": True}])
            rss.append({"metadata": {"name": f"{worker}-7c9b4", "namespace": "dask"}, "spec": {"selector": {
                "matchLabels": {"dask.org/cluster-name": cluster, "dask.org/worker-name": worker}}}})
    for c in range(50):
        services.append({"metadata": {"name": f"dc{c}-scheduler", "namespace": "dask"}, "spec": {"selector": {
            "dask.org/cluster-name": f"dc{c}", "dask.org/component": "scheduler"}}})
    sc["storageClasses"] = [{"metadata": {"name": "standard-rwo", "annotations": {
        "storageclass.kubernetes.io/is-default-class": "true"}}, "provisioner": CSI_DRIVER,
        "volumeBindingMode": "WaitForFirstConsumer"}]
    sc["csiDrivers"] = [{"metadata": {"name": CSI_DRIVER}, "spec": {"attachRequired": True}}]
    sc["csiNodes"] = [{"metadata": {"name": n["metadata"]["name"]}, "spec": {"drivers": [
        {"name": CSI_DRIVER, "nodeID": n["metadata"]["name"], "topologyKeys": [CSI_ZONE_KEY],
         "allocatable": {"count": 127}}]}} for n in nodes]
    sc["persistentVolumeClaims"], sc["persistentVolumes"] = claims, pvs
    sc["replicaSets"], sc["services"] = rss, services
    sc["namespaces"] = [{"metadata": {"name": ns}} for ns in ("default", "jhub", "dask")]


def as_in_v130_api(s):
    """What a v1.30 API server keeps of the scenario's pods: it has no pod-level resources
    (spec.resources, KEP-2837, alpha in v1.32) and no image volumes (v1.31), and drops both
    fields silently; a volume left without a source is an emptyDir. The random draws stay
    those of the other releases, so a seed's scenarios differ only in these fields."""
    sc = s["scenario"]
    for pod in [*sc.get("pods", []), *sc.get("incoming", [])]:
        spec = pod.get("spec") or {}
        spec.pop("resources", None)
        for v in spec.get("volumes") or []:
            if "image" in v:
                del v["image"]
                v["emptyDir"] = {}
    meta = s.get("meta") or {}
    if "features" in meta:
        meta["features"] = [f for f in meta["features"] if f not in ("pod-level-resources", "image-volume")]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", required=True)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--nodes", default="1:24", help="MIN:MAX nodes per scenario (at most 100: kube-scheduler samples preemption candidates above)")
    ap.add_argument("--big", type=int, help="one large scenario of this many nodes (timing)")
    ap.add_argument("--incoming", type=int, default=100, help="with --big: incoming pods")
    ap.add_argument("--empty", action="store_true", help="with --big: no incoming pods (to time decoding alone)")
    ap.add_argument("--pods-per-node", type=int, default=5, help="with --big: bound pods a node")
    ap.add_argument("--hub", action="store_true",
                    help="with --big: a DaskHub's pods and objects (notebooks with home claims, operator workers, "
                         "node-placeholders, storage, CSINodes)")
    ap.add_argument("--release", help="the kube-scheduler release the scenarios are for (v1.37, v1.36, "
                                      "v1.35, v1.30): written into each profile, for the engine's wording and "
                                      "the reference's check; v1.30 leaves out what its API lacks")
    ap.add_argument("--volumes", action="store_true",
                    help="add DaskHub storage (volumes(): claims, PVs, classes, CSI objects) to a share of the "
                         "scenarios (differential.sh passes it)")
    ap.add_argument("--affinity", action="store_true",
                    help="add inter-pod affinity (affinity(): DaskHub shapes and random terms, Namespaces) to a "
                         "share of the scenarios (differential.sh passes it)")
    ap.add_argument("-o", "--output")
    a = ap.parse_args(argv)
    out = open(a.output, "w") if a.output else sys.stdout
    if a.big:
        out.write(json.dumps(big(a.seed, a.big, a.incoming, a.empty, a.pods_per_node, a.hub),
                             separators=(",", ":")) + "\n")
        return 0
    lo, hi = (int(x) for x in a.nodes.split(":"))
    for i in range(a.start, a.start + a.count):
        s = scenario(a.seed, i, lo, hi, with_volumes=a.volumes, with_affinity=a.affinity)
        if a.release == "v1.30":
            as_in_v130_api(s)
        if a.release:
            p = s["scenario"]["profile"]
            s["scenario"]["profile"] = dict(p, release=a.release) if isinstance(p, dict) else \
                {"name": p, "release": a.release}
        out.write(json.dumps(s, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
