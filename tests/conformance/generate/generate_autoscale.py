#!/usr/bin/env python3
"""Seeded generator of cluster-autoscaler scenarios in the shared autoscaler corpus format.

usage: generate_autoscale.py --seed SEED [--count N] [--start I] [--volumes] [--spread] [--affinity]
                             [--pod-requests] [-o FILE]

Prints one JSON line per scenario: {"scenario": {...}, "meta": {"id", "seed",
"kind", "expander", "features"}}, the form `tightpack autoscale --jsonl` and
cluster-autoscaler-reference read (../../shared/autoscaler/README.md).
Scenario i of seed S is the same on every machine and Python 3 release
(random.Random(f"autoscale/{S}/{i}")) for a given version of this file, so an
id (gen-autoscale-S-i) names a scenario: `generate_autoscale.py --seed S
--start i --count 1` makes it again.

The clusters are DaskHub on GKE, as in the corpus: a core pool, a tainted user
pool for notebooks, tainted Dask worker pools of several machine types, GPU
pools (nvidia.com/gpu, the GKE accelerator label and taint); node groups with
min, max and target sizes (target above the registered nodes: nodes requested
but not registered), empty groups described by template + templatePods;
DaemonSets and mirror pods on every node. Scale-up scenarios have pending Dask
workers with replicas, notebooks, GPU pods, pods with node selectors, node
affinity and tolerations, priorities (some below the expendable cutoff), and
one of the expanders least-waste, most-pods, priority, priority,least-waste.
Scale-down scenarios have nodes whose utilization is near the threshold
(0.5, sometimes another --scale-down-utilization-threshold), and the drain
blockers: pods without an owner, with custom owner kinds (DaskCluster,
DaskWorkerGroup), with a ReplicaSet owner that does not exist,
safe-to-evict "true" and "false", kube-system pods with and without a
disruption budget, emptyDir (disk and memory) and hostPath volumes,
budgets with no disruption allowed, StatefulSet and Job pods, DaemonSet and
mirror pods, the scale-down-disabled node annotation; and now and then the
skip-nodes-with-system-pods / -local-storage options turned off.

With --volumes, --spread or --affinity the pools are spread over three
zones (their nodes and templates labelled; a template carries the PD CSI
driver's topology label only half the time) and each flag adds, from a random
stream of its own, the cluster objects beyond nodes and pods that CA's
scheduler framework reads: a DaskHub's storage (home claims bound in a zone
or still to provision on a WaitForFirstConsumer class, sometimes limited by
allowedTopologies, a shared NFS claim, CSINodes, the CSIDriver, capacities),
explicit spread constraints (DoNotSchedule and ScheduleAnyway, zone and
hostname), inter-pod affinity (zero-to-jupyterhub's user placeholders with
required hostname anti-affinity, Dask workers with required zone affinity to
their scheduler). With --pod-requests some pods (all pods of one owner alike)
get an init container asking more than the app, a sidecar, or an overhead,
which CA's podutils.PodRequests counts where it reads requests (least-waste,
the estimator's order, utilization). Without the flags a scenario is byte for
byte what it was.

What it avoids, because cluster-autoscaler's answer is random there in ways
the reference cannot fix (its --repeat flags what is left):
- Scale-down scenarios have no pending pods (the corpus covers the two
  together): filter-out-schedulable puts pending pods that fit on existing
  nodes in the order of CA's snapshot (a Go map, walked round-robin), and
  they stay there for the scale-down simulation, so which node gets busier
  is random.
- Node groups never share a machine shape: identical templates tie
  least-waste exactly. (Ties that remain go to the lowest group name in both
  programs: the reference's expander breaks them so, as the corpus does.)
- At most one idle node per (pool, shape) carries pods to move when several
  candidates could take each other's pods: CA master's planner simulates
  candidates cumulatively in an order that depends on map iteration.
"""
import argparse
import json
import random
import sys

DS_NAMES = [("fluentbit-gke", "100m", "200Mi"), ("gke-metrics-agent", "8m", "60Mi"), ("pdcsi-node", "10m", "20Mi")]

# machine type: (cpu, memory GiB, allocatable cpu millicores, allocatable memory Ki)
MACHINES = {
    "n1-standard-4": (4, 15, 3920, 13004800),
    "n1-standard-8": (8, 30, 7910, 27747778),
    "n1-highmem-8": (8, 52, 7910, 49432330),
    "n1-standard-16": (16, 60, 15890, 57242052),
    "n1-highmem-16": (16, 104, 15890, 101234567),
    "e2-standard-4": (4, 16, 3920, 14129216),
    "n2-standard-8": (8, 32, 7910, 29426432),
    "n1-standard-32": (32, 120, 31850, 117345678),
}

GPU_LABEL = "cloud.google.com/gke-accelerator"
DASK_TAINT = {"key": "dask", "value": "worker", "effect": "NoSchedule"}
USER_TAINT = {"key": "hub.jupyter.org/dedicated", "value": "user", "effect": "NoSchedule"}
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


class Gen:
    def __init__(self, seed, index):
        self.r = random.Random(f"autoscale/{seed}/{index}")
        self.seed, self.index = seed, index
        self.features = set()
        self.uid = 0

    def name_suffix(self):
        return "".join(self.r.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(4))

    def new_uid(self, kind):
        self.uid += 1
        return f"uid-{kind}-{self.uid}"

    # ---- node groups ----

    def pools(self):
        r = self.r
        shapes = list(MACHINES)
        r.shuffle(shapes)
        used = set()

        def shape(prefer):
            for s in prefer + shapes:
                if s not in used:
                    used.add(s)
                    return s

        pools = [dict(name="core-pool", purpose="core", taints=[], machine=shape(["n1-standard-4", "e2-standard-4"]),
                      min=1, gpu=0)]
        if r.random() < 0.8:
            pools.append(dict(name="user-pool", purpose="user", taints=[USER_TAINT],
                              machine=shape(["n1-standard-8", "n2-standard-8"]), min=r.choice([0, 0, 1]), gpu=0))
        for i in range(r.choice([1, 1, 2, 3])):
            suffix = ["", "-hm", "-big"][i]
            pools.append(dict(name="dask-workers" + suffix, purpose="worker", taints=[DASK_TAINT],
                              machine=shape(["n1-highmem-8", "n1-standard-16", "n1-highmem-16"] if i else []),
                              min=r.choice([0, 0, 0, 1]), gpu=0))
        if r.random() < 0.35:
            self.features.add("gpu")
            pools.append(dict(name="gpu-t4-x1", purpose="gpu", taints=[GPU_TAINT], machine=shape(["n1-standard-8", "n2-standard-8"]),
                              min=0, gpu=1))
            if r.random() < 0.5:
                pools.append(dict(name="gpu-t4-x4", purpose="gpu", taints=[GPU_TAINT], machine=shape(["n1-standard-32"]),
                                  min=0, gpu=4))
        return pools

    def node_object(self, pool, name):
        cpu, mem_gi, acpu, amem = MACHINES[pool["machine"]]
        labels = {
            "cloud.google.com/gke-nodepool": pool["name"],
            "node.kubernetes.io/instance-type": pool["machine"],
            "topology.kubernetes.io/zone": "us-central1-b",
            "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
            "hub.jupyter.org/node-purpose": pool["purpose"],
        }
        cap = {"cpu": str(cpu), "memory": f"{mem_gi * 1024 * 1024}Ki", "pods": "110"}
        alloc = {"cpu": f"{acpu}m", "memory": f"{amem}Ki", "pods": "110"}
        if pool["gpu"]:
            labels[GPU_LABEL] = "nvidia-tesla-t4"
            cap["nvidia.com/gpu"] = alloc["nvidia.com/gpu"] = str(pool["gpu"])
        node = {"metadata": {"labels": labels}, "status": {"capacity": cap, "allocatable": alloc}}
        if pool["taints"]:
            node["spec"] = {"taints": [dict(t) for t in pool["taints"]]}
        if name:
            node["metadata"]["name"] = name
            node["metadata"]["labels"]["kubernetes.io/hostname"] = name
        return node

    def mirror_pod(self, node_name):
        p = {"metadata": {"namespace": "kube-system", "name": "kube-proxy" + (f"-{node_name}" if node_name else ""),
                          "labels": {"component": "kube-proxy"},
                          "annotations": {"kubernetes.io/config.mirror": "5f3b0c1e7d", "kubernetes.io/config.source": "file"}},
             "spec": {"priority": 2000001000, "containers": [{"name": "kube-proxy", "image": "kube-proxy",
                                                              "resources": {"requests": {"cpu": "100m"}}}],
                      "tolerations": [{"operator": "Exists"}]},
             "status": {"phase": "Running"}}
        if node_name:
            p["spec"]["nodeName"] = node_name
        return p

    def daemonsets(self):
        out = []
        for name, cpu, mem in DS_NAMES:
            out.append({"metadata": {"name": name, "namespace": "kube-system", "uid": f"uid-ds-{name}"},
                        "spec": {"selector": {"matchLabels": {"k8s-app": name}},
                                 "template": {"metadata": {"labels": {"k8s-app": name}},
                                              "spec": {"containers": [{"name": name, "image": "x",
                                                                       "resources": {"requests": {"cpu": cpu, "memory": mem}}}],
                                                       "tolerations": [{"operator": "Exists"}]}}}})
        return out

    def ds_pods(self, node_name):
        out = []
        for name, cpu, mem in DS_NAMES:
            out.append({"metadata": {"namespace": "kube-system", "name": f"{name}-{self.name_suffix()}",
                                     "labels": {"k8s-app": name},
                                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": name,
                                                          "uid": f"uid-ds-{name}", "controller": True}]},
                        "spec": {"nodeName": node_name, "containers": [{"name": name, "image": "x",
                                                                         "resources": {"requests": {"cpu": cpu, "memory": mem}}}],
                                 "tolerations": [{"operator": "Exists"}]},
                        "status": {"phase": "Running"}})
        return out

    # ---- pods ----

    def kube_system_pod(self, pods, rss, rs_name, rs_uid, app, cpu_m, mem_mi, node):
        """A kube-system pod of ReplicaSet rs_name (listed once in rss) on node."""
        rs = {"metadata": {"name": rs_name, "namespace": "kube-system", "uid": rs_uid}}
        if rs not in rss:
            rss.append(rs)
        pods.append(self.pod("kube-system", f"{rs_name}-{self.name_suffix()}", cpu_m, mem_mi, node,
                             labels={"k8s-app": app},
                             owner={"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs_name, "uid": rs_uid}))

    def pod(self, ns, name, cpu_m, mem_mi, node=None, owner=None, tolerations=(), selector=None, gpu=0,
            annotations=None, volumes=None, labels=None, priority=None, affinity=None):
        res = {"cpu": f"{cpu_m}m", "memory": f"{mem_mi}Mi"}
        if gpu:
            res["nvidia.com/gpu"] = str(gpu)
        container = {"name": "main", "image": "pangeo/pangeo-notebook", "resources": {"requests": dict(res)}}
        if self.r.random() < 0.3:
            container["resources"] = {"limits": dict(res)}  # requests defaulted from limits
            self.features.add("requests-from-limits")
        p = {"metadata": {"namespace": ns, "name": name, "labels": dict(labels or {})},
             "spec": {"containers": [container]}, "status": {"phase": "Running" if node else "Pending"}}
        if node:
            p["spec"]["nodeName"] = node
        if owner:
            p["metadata"]["ownerReferences"] = [dict(owner, controller=True)]
        if tolerations:
            p["spec"]["tolerations"] = [dict(t, operator="Equal") for t in tolerations]
        if selector:
            p["spec"]["nodeSelector"] = dict(selector)
        if affinity:
            p["spec"]["affinity"] = affinity
        if annotations:
            p["metadata"]["annotations"] = dict(annotations)
        if volumes:
            p["spec"]["volumes"] = volumes
        if priority is not None:
            p["spec"]["priority"] = priority
        return p

    def scenario(self):
        r = self.r
        kind = r.choice(["scale-up", "scale-up", "scale-up", "scale-down", "scale-down"])
        pools = self.pools()
        nodes, pods, groups = [], [], []
        rss, sss, jobs, pdbs = [], [], [], []
        node_free = {}  # node name -> [free cpu m, free mem Mi, pool]
        for pool in pools:
            if kind == "scale-up":
                count = r.choice([0, 0, 1, 1, 2]) if pool["purpose"] != "core" else r.choice([1, 2])
            else:
                count = r.choice([0, 1, 2, 3, 3, 4]) if pool["purpose"] != "core" else r.choice([1, 2, 3])
            count = max(count, pool["min"])
            mx = count + r.choice([0, 1, 2, 3, 5, 10, 20])
            if r.random() < 0.15:
                mx = count  # at max size
                self.features.add("group-at-max")
            target = count
            if count < mx and r.random() < 0.1:
                target = count + 1  # a requested node not yet registered
                self.features.add("upcoming-node")
            names = []
            for _ in range(count):
                name = f"gke-daskhub-{pool['name']}-{self.name_suffix()}-{self.name_suffix()}"
                names.append(name)
                nodes.append(self.node_object(pool, name))
                pods.append(self.mirror_pod(name))
                pods.extend(self.ds_pods(name))
                _, _, acpu, amem = MACHINES[pool["machine"]]
                node_free[name] = [acpu - 218, amem // 1024 - 280, pool]
            group = {"name": pool["name"], "minSize": pool["min"], "maxSize": mx, "nodes": names,
                     "machineType": pool["machine"]}
            if target != count:
                group["targetSize"] = target
            group["template"] = self.node_object(pool, None)
            group["templatePods"] = [self.mirror_pod(None)]
            if not names:
                self.features.add("empty-group")
            groups.append(group)
        if r.random() < 0.1 and nodes:
            # a node in no group: not autoscaled
            pool = dict(name="static-pool", purpose="core", taints=[], machine="n1-standard-4", gpu=0)
            name = f"gke-daskhub-static-{self.name_suffix()}"
            nodes.append(self.node_object(pool, name))
            pods.extend(self.ds_pods(name))
            self.features.add("not-autoscaled")

        # hub workloads on the core pool
        core_nodes = [n["metadata"]["name"] for n in nodes if n["metadata"]["labels"]["hub.jupyter.org/node-purpose"] == "core"]
        rs_hub = {"metadata": {"name": "hub-7d9f", "namespace": "daskhub", "uid": "uid-rs-hub"}, "spec": {"replicas": 1}}
        rss.append(rs_hub)
        for i, cn in enumerate(core_nodes):
            if i == 0:
                pods.append(self.pod("daskhub", "hub-7d9f-abcde", 200, 512, cn,
                                     owner={"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "hub-7d9f", "uid": "uid-rs-hub"}))
            choice = r.random()
            if choice < 0.4:
                # kube-dns with a budget that allows one disruption
                self.features.add("kube-system-with-pdb")
                self.kube_system_pod(pods, rss, "kube-dns-5c8d", "uid-rs-kube-dns", "kube-dns", 260, 110, cn)
                if not any(p["metadata"]["name"] == "kube-dns-pdb" for p in pdbs):
                    allowed = r.choice([0, 1, 1])
                    pdbs.append({"metadata": {"name": "kube-dns-pdb", "namespace": "kube-system"},
                                 "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"k8s-app": "kube-dns"}}},
                                 "status": {"disruptionsAllowed": allowed}})
            elif choice < 0.7:
                self.features.add("kube-system-no-pdb")
                self.kube_system_pod(pods, rss, "metrics-server-6f9", "uid-rs-ms", "metrics-server", 48, 105, cn)

        if kind in ("scale-down", "both"):
            self.fill_for_scale_down(nodes, pods, node_free, rss, sss, jobs, pdbs)
        else:
            # some load so that some pending pods fit, some do not
            for name, (fc, fm, pool) in list(node_free.items()):
                if pool["purpose"] in ("worker", "user") and r.random() < 0.6:
                    frac = r.uniform(0.3, 0.95)
                    cpu, mem = int(fc * frac), int(fm * frac)
                    owner = {"apiVersion": "gateway.dask.org/v1alpha1", "kind": "DaskCluster", "name": "dask-old", "uid": "uid-dc-old"}
                    tol = [DASK_TAINT] if pool["purpose"] == "worker" else [USER_TAINT]
                    pods.append(self.pod("daskhub", f"busy-{self.name_suffix()}", cpu, mem, name, owner=owner, tolerations=tol))
                    node_free[name][0] -= cpu
                    node_free[name][1] -= mem

        pending = []
        if kind in ("scale-up", "both"):
            pending = self.pending_pods(pools, kind == "both", node_free)
        expander = r.choice(["least-waste", "least-waste", "most-pods", "priority", "priority,least-waste"])
        sc = {"nodes": nodes, "pods": pods, "nodeGroups": groups, "pending": pending, "expander": expander,
              "scaleDown": kind != "scale-up", "daemonSets": self.daemonsets(), "replicaSets": rss}
        if sss:
            sc["statefulSets"] = sss
        if jobs:
            sc["jobs"] = jobs
        if pdbs:
            sc["podDisruptionBudgets"] = pdbs
        if expander.startswith("priority"):
            names = [g["name"] for g in groups]
            r.shuffle(names)
            prios = {"10": [".*"]}
            if names:
                prios[str(r.choice([20, 50]))] = [names[0]] if r.random() < 0.5 else ["dask-.*"]
                if len(names) > 1 and r.random() < 0.5:
                    prios["30"] = [names[1]]
            sc["expanderPriorities"] = prios
        opts = {}
        if sc["scaleDown"] and r.random() < 0.25:
            opts["scaleDownUtilizationThreshold"] = r.choice([0.4, 0.6, 0.7])
            self.features.add("threshold-option")
        if sc["scaleDown"] and r.random() < 0.1:
            opts["skipNodesWithSystemPods"] = False
            self.features.add("skip-system-pods-off")
        if sc["scaleDown"] and r.random() < 0.1:
            opts["skipNodesWithLocalStorage"] = False
            self.features.add("skip-local-storage-off")
        if opts:
            sc["options"] = opts
        meta = {"id": f"gen-autoscale-{self.seed}-{self.index}", "seed": self.seed, "index": self.index, "kind": kind,
                "expander": expander, "features": sorted(self.features)}
        return {"scenario": sc, "meta": meta}

    def pending_pods(self, pools, few, node_free):
        r = self.r
        out = []
        purposes = {p["purpose"] for p in pools}
        n_kinds = 1 if few else r.choice([1, 1, 2, 3])
        for _ in range(n_kinds):
            what = r.choice(["dask", "dask", "notebook", "plain"] + (["gpu"] if "gpu" in purposes else []))
            cl = f"dask-{self.name_suffix()}"
            if what == "dask":
                self.features.add("dask-workers")
                cpu = r.choice([500, 1000, 2000, 4000, 6000])
                mem = r.choice([2, 4, 8, 12, 16, 30, 40]) * 1024
                owner = {"apiVersion": "gateway.dask.org/v1alpha1", "kind": "DaskCluster", "name": cl, "uid": f"uid-dc-{cl}"}
                sel = None
                aff = None
                if r.random() < 0.3:
                    dask_pools = [p["name"] for p in pools if p["purpose"] == "worker"]
                    sel = {"cloud.google.com/gke-nodepool": r.choice(dask_pools)}
                    self.features.add("node-selector")
                elif r.random() < 0.2:
                    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "node.kubernetes.io/instance-type", "operator": "NotIn",
                                               "values": [r.choice(list(MACHINES))]}]}]}}}
                    self.features.add("node-affinity")
                p = self.pod("daskhub", f"{cl}-default-worker", cpu, mem, owner=owner, tolerations=[DASK_TAINT],
                             selector=sel, affinity=aff, labels={"dask.org/cluster-name": cl})
                if r.random() < 0.15:
                    p["spec"]["priority"] = r.choice([-20, 100])
                    self.features.add("priority")
                p["replicas"] = r.choice([1, 2, 3, 5, 8, 12, 20, 40])
                out.append(p)
            elif what == "notebook":
                self.features.add("notebooks")
                for _ in range(r.choice([1, 2, 3])):
                    user = r.choice(["alice", "bob", "erin", "mallory", "rupert", "yolanda"]) + str(r.randrange(100))
                    out.append(self.pod("daskhub", f"jupyter-{user}", r.choice([500, 1000, 2000, 3000]),
                                        r.choice([2048, 4096, 8192, 16384]), tolerations=[USER_TAINT],
                                        selector={"hub.jupyter.org/node-purpose": "user"},
                                        labels={"component": "singleuser-server"}))
            elif what == "gpu":
                self.features.add("gpu-pods")
                g = r.choice([1, 1, 2, 4])
                p = self.pod("daskhub", f"{cl}-gpu-worker", r.choice([1000, 2000, 3000]), r.choice([4096, 8192, 16384]),
                             tolerations=[GPU_TAINT, DASK_TAINT], gpu=g,
                             owner={"apiVersion": "gateway.dask.org/v1alpha1", "kind": "DaskCluster", "name": cl, "uid": f"uid-dc-{cl}"})
                p["replicas"] = r.choice([1, 2, 3, 6])
                out.append(p)
            else:
                self.features.add("plain-pods")
                p = self.pod("default", f"batch-{self.name_suffix()}", r.choice([250, 500, 1500]), r.choice([256, 1024, 6144]),
                             owner={"apiVersion": "batch/v1", "kind": "Job", "name": "batch", "uid": "uid-job-batch"})
                p["replicas"] = r.choice([1, 3, 10])
                out.append(p)
        return out

    def fill_for_scale_down(self, nodes, pods, node_free, rss, sss, jobs, pdbs):
        """Loads near the threshold and the drain blockers, one story per node."""
        r = self.r
        blockers = ["empty", "safe-true", "bare", "custom-owner", "rs-missing", "safe-false", "kube-system-rs",
                    "emptydir", "emptydir-memory", "hostpath", "pdb-zero", "statefulset", "job", "busy", "near"]
        movers = 0
        for n in nodes:
            name = n["metadata"]["name"]
            if name not in node_free:
                continue
            fc, fm, pool = node_free[name]
            if pool["purpose"] == "core":
                continue
            if r.random() < 0.08:
                n["metadata"].setdefault("annotations", {})["cluster-autoscaler.kubernetes.io/scale-down-disabled"] = "true"
                self.features.add("scale-down-disabled")
            story = r.choice(blockers)
            # utilization: near 0.5 of allocatable (or the option's threshold), low, or high
            _, _, acpu, amem = MACHINES[pool["machine"]]
            if story == "busy":
                frac = r.uniform(0.6, 0.95)
            elif story == "near":
                frac = r.choice([0.44, 0.47, 0.49, 0.5, 0.51, 0.53, 0.56])
                self.features.add("near-threshold")
            else:
                frac = r.uniform(0.05, 0.3)
            cpu = max(50, int(acpu * frac) - 218)
            mem = max(64, int(amem / 1024 * frac * r.uniform(0.3, 1.0)) - 280)
            tol = {"worker": [DASK_TAINT], "user": [USER_TAINT], "gpu": [GPU_TAINT, DASK_TAINT]}.get(pool["purpose"], [])
            gpu = 1 if pool["gpu"] and r.random() < 0.5 else 0
            pname = f"{story}-{self.name_suffix()}"
            rs_owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "dash-9b6b", "uid": "uid-rs-dash"}
            if story == "empty":
                self.features.add("empty-node")
                continue
            moving = story in ("safe-true", "statefulset", "job", "near", "emptydir-memory", "busy")
            if moving:
                movers += 1
                if movers > 1 and r.random() < 0.7:
                    # keep at most one node with pods to move in most scenarios (see the docstring)
                    story, moving = "bare", False
                    pname = f"{story}-{self.name_suffix()}"
            kw = dict(tolerations=tol, gpu=gpu)
            if story == "safe-true":
                self.features.add("safe-to-evict-true")
                p = self.pod("daskhub", pname, cpu, mem, name, annotations={"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}, **kw)
            elif story == "bare":
                self.features.add("no-owner")
                p = self.pod("daskhub", "jupyter-" + pname, cpu, mem, name, **kw)
            elif story == "custom-owner":
                self.features.add("custom-owner")
                kind = r.choice(["DaskWorkerGroup", "DaskCluster"])
                p = self.pod("daskhub", pname, cpu, mem, name, owner={"apiVersion": "kubernetes.dask.org/v1", "kind": kind,
                                                                      "name": "dask-x", "uid": "uid-dwg-x"}, **kw)
            elif story == "rs-missing":
                self.features.add("controller-not-found")
                p = self.pod("daskhub", pname, cpu, mem, name, owner={"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                                                      "name": "gone-1234", "uid": "uid-rs-gone"}, **kw)
            elif story == "safe-false":
                self.features.add("safe-to-evict-false")
                p = self.pod("daskhub", pname, cpu, mem, name, owner=rs_owner,
                             annotations={"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}, **kw)
            elif story == "kube-system-rs":
                self.features.add("kube-system-no-pdb")
                p = self.pod("kube-system", pname, cpu, mem, name, owner={"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                                                          "name": "konnectivity-agent-b8c", "uid": "uid-rs-konn"}, **kw)
                rs = {"metadata": {"name": "konnectivity-agent-b8c", "namespace": "kube-system", "uid": "uid-rs-konn"}}
                if rs not in rss:
                    rss.append(rs)
            elif story in ("emptydir", "emptydir-memory", "hostpath"):
                self.features.add(story)
                vol = {"name": "scratch"}
                if story == "hostpath":
                    vol["hostPath"] = {"path": "/var/tmp"}
                elif story == "emptydir":
                    vol["emptyDir"] = {}
                else:
                    vol["emptyDir"] = {"medium": "Memory"}
                p = self.pod("daskhub", pname, cpu, mem, name, owner=rs_owner, volumes=[vol], **kw)
            elif story == "pdb-zero":
                self.features.add("pdb-no-disruptions")
                p = self.pod("daskhub", pname, cpu, mem, name, owner=rs_owner, labels={"app": "guarded"}, **kw)
                if not any(x["metadata"]["name"] == "guarded" for x in pdbs):
                    pdbs.append({"metadata": {"name": "guarded", "namespace": "daskhub"},
                                 "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}},
                                 "status": {"disruptionsAllowed": 0}})
            elif story == "statefulset":
                self.features.add("statefulset")
                p = self.pod("daskhub", f"db-{self.name_suffix()}", cpu, mem, name,
                             owner={"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": "uid-sts-db"}, **kw)
                if not sss:
                    sss.append({"metadata": {"name": "db", "namespace": "daskhub", "uid": "uid-sts-db"}})
            elif story == "job":
                self.features.add("job")
                p = self.pod("daskhub", pname, cpu, mem, name, owner={"apiVersion": "batch/v1", "kind": "Job", "name": "nightly",
                                                                      "uid": "uid-job-nightly"}, **kw)
                if not jobs:
                    jobs.append({"metadata": {"name": "nightly", "namespace": "daskhub", "uid": "uid-job-nightly"}})
            else:  # busy, near: a replicated pod
                p = self.pod("daskhub", pname, cpu, mem, name, owner=rs_owner, **kw)
            if story in ("safe-false", "emptydir", "emptydir-memory", "hostpath", "pdb-zero", "busy", "near"):
                rs = {"metadata": {"name": "dash-9b6b", "namespace": "daskhub", "uid": "uid-rs-dash"}}
                if rs not in rss:
                    rss.append(rs)
            pods.append(p)


# ---- the cluster objects beyond nodes and pods (--volumes, --spread, --affinity) ----
#
# Each pass has a random stream of its own, so that a scenario made without a
# flag is byte for byte what it was, and one made with a flag has the same
# nodes, pods and groups as without it, plus what the pass adds.

ZONES = ["us-central1-a", "us-central1-b", "us-central1-c"]
ZONE_KEY = "topology.kubernetes.io/zone"
PD_DRIVER = "pd.csi.storage.gke.io"
PD_ZONE_KEY = "topology.gke.io/zone"  # the PD CSI driver's topology key


def pool_of(node):
    return node["metadata"]["labels"].get("cloud.google.com/gke-nodepool")


def zones(s, seed, index):
    """Spreads the pools over three zones (any of the passes below): each pool
    in one zone, its nodes and its template labelled with it. Nodes also carry
    the PD CSI driver's topology label, as the driver sets it when it
    registers; a group's template carries it only sometimes: a cloud
    provider's template does not know it (kubernetes/autoscaler#3845)."""
    r = random.Random(f"autoscale/{seed}/{index}/zones")
    sc, meta = s["scenario"], s["meta"]
    zone_of = {}
    for g in sc["nodeGroups"]:
        zone_of[g["name"]] = r.choice(ZONES)
        if r.random() < 0.5:
            g["template"]["metadata"]["labels"][PD_ZONE_KEY] = zone_of[g["name"]]
        else:
            meta["features"] = sorted(set(meta["features"]) | {"template-without-csi-topology"})
        g["template"]["metadata"]["labels"][ZONE_KEY] = zone_of[g["name"]]
    for n in sc["nodes"]:
        z = zone_of.get(pool_of(n)) or r.choice(ZONES)
        n["metadata"]["labels"][ZONE_KEY] = z
        n["metadata"]["labels"][PD_ZONE_KEY] = z
    return zone_of


def volumes(s, seed, index):
    """Adds (with --volumes) a DaskHub's storage: notebooks' home claims
    claim-<user> (ReadWriteOnce, sometimes ReadWriteOncePod) on a
    WaitForFirstConsumer class of the PD CSI driver, bound (their PV in one
    zone, its node affinity on the zone label or the driver's topology key) or
    still to be provisioned (sometimes on a class whose allowedTopologies leave
    out zones), a static NFS claim that notebooks and Dask workers share,
    claims the scenario lacks, an Immediate class's unbound claims, static
    available PVs; CSINodes of the real nodes (none for a template, as CA's
    snapshot has none with --enable-csi-node-aware-scheduling off), the
    CSIDriver, with storage capacity per zone now and then. Bound pods use
    bound claims whose PV their node can reach."""
    r = random.Random(f"autoscale/{seed}/{index}/volumes")
    if r.random() < 0.3:
        return
    sc, meta = s["scenario"], s["meta"]
    feats = set(meta["features"])
    node_zone = {n["metadata"]["name"]: n["metadata"]["labels"].get(ZONE_KEY) for n in sc["nodes"]}
    claims, pvs, classes, csi_nodes, drivers, capacities = [], [], [], [], [], []
    seen = set()
    counter = [0]

    def uid():
        counter[0] += 1
        return f"{r.getrandbits(32):08x}-{counter[0]:04x}-4{index % 4096:03x}-8{counter[0] % 4096:03x}-{r.getrandbits(48):012x}"

    home_class = "standard-rwo"
    classes.append({"metadata": {"name": home_class, "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
                    "provisioner": PD_DRIVER, "parameters": {"type": "pd-balanced"}, "reclaimPolicy": "Delete",
                    "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": True})
    if r.random() < 0.3:
        allowed = sorted(r.sample(ZONES, r.randint(1, 2)))
        key = r.choice([ZONE_KEY, PD_ZONE_KEY])
        classes[0]["allowedTopologies"] = [{"matchLabelExpressions": [{"key": key, "values": allowed}]}]
        feats.add("volume-allowed-topologies")
    immediate = r.random() < 0.2
    if immediate:
        classes.append({"metadata": {"name": "standard-immediate"}, "provisioner": PD_DRIVER, "reclaimPolicy": "Delete",
                        "volumeBindingMode": "Immediate"})

    def claim(ns, name, cls, state, zone=None, modes=("ReadWriteOnce",), size="10Gi"):
        c = {"metadata": {"name": name, "namespace": ns, "uid": uid()},
             "spec": {"accessModes": list(modes), "resources": {"requests": {"storage": size}},
                      "storageClassName": cls, "volumeMode": "Filesystem"},
             "status": {"phase": "Pending"}}
        if state == "bound":
            zone = zone or r.choice(ZONES)
            pv_name = "pvc-" + c["metadata"]["uid"]
            c["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "yes",
                                            "pv.kubernetes.io/bound-by-controller": "yes",
                                            "volume.kubernetes.io/storage-provisioner": PD_DRIVER}
            c["spec"]["volumeName"] = pv_name
            c["status"] = {"phase": "Bound", "accessModes": list(modes), "capacity": {"storage": size}}
            key = PD_ZONE_KEY if r.random() < 0.5 else ZONE_KEY
            pv = {"metadata": {"name": pv_name, "annotations": {"pv.kubernetes.io/provisioned-by": PD_DRIVER}},
                  "spec": {"capacity": {"storage": size}, "accessModes": list(modes),
                           "claimRef": {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": ns,
                                        "name": name, "uid": c["metadata"]["uid"]},
                           "persistentVolumeReclaimPolicy": "Delete", "storageClassName": cls, "volumeMode": "Filesystem",
                           "csi": {"driver": PD_DRIVER, "volumeHandle": f"projects/hub/zones/{zone}/disks/{pv_name}",
                                   "fsType": "ext4"},
                           "nodeAffinity": {"required": {"nodeSelectorTerms": [
                               {"matchExpressions": [{"key": key, "operator": "In", "values": [zone]}]}]}}},
                  "status": {"phase": "Bound"}}
            if r.random() < 0.2:
                pv["metadata"]["labels"] = {ZONE_KEY: zone}  # VolumeZone reads it
                feats.add("volume-zone-label")
            pvs.append(pv)
        claims.append(c)
        return c

    def mount(p, vol, claim_name):
        vols = p["spec"].setdefault("volumes", [])
        if not any(v["name"] == vol for v in vols):
            vols.append({"name": vol, "persistentVolumeClaim": {"claimName": claim_name}})

    nfs = {}

    def nfs_claim(ns):
        if ns not in nfs:
            c = {"metadata": {"name": "home-nfs", "namespace": ns, "uid": uid(),
                              "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
                 "spec": {"accessModes": ["ReadWriteMany"], "resources": {"requests": {"storage": "1Ti"}},
                          "storageClassName": "", "volumeName": f"{ns}-home-nfs", "volumeMode": "Filesystem"},
                 "status": {"phase": "Bound", "accessModes": ["ReadWriteMany"], "capacity": {"storage": "1Ti"}}}
            claims.append(c)
            pvs.append({"metadata": {"name": f"{ns}-home-nfs"},
                        "spec": {"capacity": {"storage": "1Ti"}, "accessModes": ["ReadWriteMany"],
                                 "claimRef": {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": ns,
                                              "name": "home-nfs", "uid": c["metadata"]["uid"]},
                                 "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "",
                                 "volumeMode": "Filesystem", "nfs": {"server": "10.87.0.2", "path": f"/homes/{ns}"}},
                        "status": {"phase": "Bound"}})
            nfs[ns] = c
            feats.add("volume-nfs")
        return nfs[ns]

    user = [r.randrange(1000)]

    def next_user():
        user[0] += 1 + r.randrange(7)
        return f"user{user[0]}"

    # bound pods of the hub namespace: their claims bound in their node's zone
    for p in sc["pods"]:
        ns = p["metadata"].get("namespace", "default")
        if ns != "daskhub" or p["metadata"].get("annotations", {}).get("kubernetes.io/config.mirror"):
            continue
        roll = r.random()
        if roll < 0.3:
            u = next_user()
            modes = ("ReadWriteOncePod",) if r.random() < 0.15 else ("ReadWriteOnce",)
            c = claim(ns, f"claim-{u}", home_class, "bound", zone=node_zone.get(p["spec"]["nodeName"]), modes=modes)
            mount(p, f"volume-{u}", c["metadata"]["name"])
            feats.add("volume-bound-pod")
        elif roll < 0.45:
            mount(p, "home", nfs_claim(ns)["metadata"]["name"])
    # pending pods: notebooks' homes, workers' shared NFS
    for p in sc["pending"]:
        ns = p["metadata"].get("namespace", "default")
        name = p["metadata"]["name"]
        if name.startswith("jupyter-"):
            roll = r.random()
            u = name[len("jupyter-"):]
            if roll < 0.35:
                c = claim(ns, f"claim-{u}", home_class, "bound")
                feats.add("volume-home-bound")
            elif roll < 0.7:
                c = claim(ns, f"claim-{u}", home_class, "pending")
                feats.add("volume-home-provision")
            elif roll < 0.78:
                c = claim(ns, f"claim-{u}", home_class, r.choice(["pending", "bound"]), modes=("ReadWriteOncePod",))
                feats.add("volume-rwop")
            elif roll < 0.84:
                mount(p, f"volume-{u}", f"claim-{u}")  # the claim is missing
                feats.add("volume-missing-claim")
                continue
            elif roll < 0.9 and immediate:
                c = claim(ns, f"claim-{u}", "standard-immediate", r.choice(["pending", "bound"]))
                feats.add("volume-immediate")
            else:
                c = nfs_claim(ns)
            if (ns, c["metadata"]["name"]) in seen:
                continue
            seen.add((ns, c["metadata"]["name"]))
            mount(p, "home" if c["metadata"]["name"] == "home-nfs" else f"volume-{u}", c["metadata"]["name"])
            if c["metadata"]["name"] != "home-nfs" and r.random() < 0.25:
                mount(p, "shared", nfs_claim(ns)["metadata"]["name"])
        elif r.random() < 0.3:
            mount(p, "home", nfs_claim(ns)["metadata"]["name"])
    # static available PVs in the home class
    if r.random() < 0.25:
        for k, size in enumerate(r.sample(["5Gi", "10Gi", "12Gi", "20Gi", "50Gi"], r.randint(1, 3))):
            zone = r.choice(ZONES)
            pvs.append({"metadata": {"name": f"static-{k}"},
                        "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                                 "persistentVolumeReclaimPolicy": "Retain", "storageClassName": home_class,
                                 "volumeMode": "Filesystem",
                                 "csi": {"driver": PD_DRIVER, "volumeHandle": f"projects/hub/zones/{zone}/disks/static-{k}",
                                         "fsType": "ext4"},
                                 "nodeAffinity": {"required": {"nodeSelectorTerms": [
                                     {"matchExpressions": [{"key": ZONE_KEY, "operator": "In", "values": [zone]}]}]}}},
                        "status": {"phase": "Available"}})
        feats.add("volume-static-pv")
    # CSINodes of the real nodes, the driver, capacities
    if sc["nodes"] and r.random() < 0.6:
        for n in sc["nodes"]:
            d = {"name": PD_DRIVER, "nodeID": n["metadata"]["name"], "topologyKeys": [PD_ZONE_KEY]}
            if r.random() < 0.9:
                d["allocatable"] = {"count": r.choice([1, 2, 15, 127])}
            csi_nodes.append({"metadata": {"name": n["metadata"]["name"]}, "spec": {"drivers": [d]}})
        feats.add("volume-csinode")
    if r.random() < 0.5:
        with_capacity = r.random() < 0.4
        drivers.append({"metadata": {"name": PD_DRIVER}, "spec": {
            "attachRequired": True, "podInfoOnMount": False, "storageCapacity": with_capacity,
            "fsGroupPolicy": "ReadWriteOnceWithFSType", "requiresRepublish": False,
            "volumeLifecycleModes": ["Persistent"]}})
        feats.add("volume-csidriver-capacity" if with_capacity else "volume-csidriver")
        if with_capacity:
            for k, zone in enumerate(ZONES):
                if r.random() < 0.2:
                    continue
                capacities.append({"metadata": {"name": f"csisc-{k}", "namespace": "kube-system"},
                                   "storageClassName": home_class, "nodeTopology": {"matchLabels": {PD_ZONE_KEY: zone}},
                                   "capacity": r.choice(["0", "5Gi", "100Gi", "2Ti"])})
            feats.add("volume-capacity")
    for key, objs in (("persistentVolumeClaims", claims), ("persistentVolumes", pvs), ("storageClasses", classes),
                      ("csiNodes", csi_nodes), ("csiDrivers", drivers), ("csiStorageCapacities", capacities)):
        if objs:
            sc[key] = objs
    meta["features"] = sorted(feats)


def spread(s, seed, index):
    """Adds (with --spread) explicit topology spread constraints: pending Dask
    workers spread over zones or nodes, DoNotSchedule (which CA's filters
    apply) or ScheduleAnyway (a score, which CA ignores), maxSkew 1 to 3,
    sometimes minDomains; in scale-down scenarios, the replicated pods of
    one ReplicaSet spread over nodes, which the removal simulation must keep."""
    r = random.Random(f"autoscale/{seed}/{index}/spread")
    sc, meta = s["scenario"], s["meta"]
    feats = set(meta["features"])

    def constraint(labels, hard):
        c = {"maxSkew": r.choice([1, 1, 2, 3]), "topologyKey": r.choice([ZONE_KEY, "kubernetes.io/hostname"]),
             "whenUnsatisfiable": "DoNotSchedule" if hard else "ScheduleAnyway",
             "labelSelector": {"matchLabels": dict(labels)}}
        if hard and r.random() < 0.15:
            c["minDomains"] = r.choice([2, 3, 4])
            feats.add("spread-min-domains")
        feats.add("spread-" + ("do-not-schedule" if hard else "schedule-anyway"))
        return c

    for p in sc["pending"]:
        cl = p["metadata"].get("labels", {}).get("dask.org/cluster-name")
        if not cl or r.random() < 0.4:
            continue
        labels = {"dask.org/cluster-name": cl}
        cons = [constraint(labels, r.random() < 0.7)]
        if r.random() < 0.2:
            cons.append(constraint(labels, r.random() < 0.5))
        if cons[-1]["topologyKey"] == cons[0]["topologyKey"] and len(cons) > 1:
            cons.pop()
        p["spec"]["topologySpreadConstraints"] = cons
        # some of the cluster's workers already run
        if r.random() < 0.4:
            for pod in sc["pods"]:
                if pod["metadata"].get("namespace") == "daskhub" and pod["metadata"]["name"].startswith("busy-") \
                        and r.random() < 0.5:
                    pod["metadata"].setdefault("labels", {}).update(labels)
                    feats.add("spread-existing-pods")
    if sc.get("scaleDown"):
        dash = [p for p in sc["pods"] if p["metadata"].get("ownerReferences", [{}])[0].get("name") == "dash-9b6b"]
        if dash and r.random() < 0.6:
            hard = r.random() < 0.7
            c = constraint({"app": "dash"}, hard)
            for p in dash:
                p["metadata"].setdefault("labels", {})["app"] = "dash"
                p["spec"]["topologySpreadConstraints"] = [dict(c)]
            feats.add("spread-bound-pods")
    meta["features"] = sorted(feats)


def affinity(s, seed, index):
    """Adds (with --affinity) inter-pod affinity: zero-to-jupyterhub's user
    placeholders (a StatefulSet's pods, priority -10, each with required
    anti-affinity to the others on kubernetes.io/hostname), some pending and
    some already on user nodes; Dask workers that must share a zone with
    their scheduler (required pod affinity on the zone), which runs or is
    pending too; now and then preferred terms (scores, which CA ignores) and
    anti-affinity to another namespace's pods through a namespace selector."""
    r = random.Random(f"autoscale/{seed}/{index}/affinity")
    sc, meta = s["scenario"], s["meta"]
    feats = set(meta["features"])
    user_nodes = [n["metadata"]["name"] for n in sc["nodes"]
                  if n["metadata"]["labels"].get("hub.jupyter.org/node-purpose") == "user"]
    user_pool = any(g["name"] == "user-pool" for g in sc["nodeGroups"])
    placeholder_anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"component": "user-placeholder"}}, "topologyKey": "kubernetes.io/hostname"}]}}

    def placeholder(name, node=None):
        p = {"metadata": {"namespace": "daskhub", "name": name, "labels": {"component": "user-placeholder"},
                          "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "user-placeholder",
                                               "uid": "uid-sts-placeholder", "controller": True}]},
             "spec": {"priority": -10, "tolerations": [dict(USER_TAINT, operator="Equal")],
                      "nodeSelector": {"hub.jupyter.org/node-purpose": "user"},
                      "affinity": json.loads(json.dumps(placeholder_anti)),
                      "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.9",
                                      "resources": {"requests": {"cpu": f"{ph_cpu}m", "memory": f"{ph_mem}Mi"}}}]},
             "status": {"phase": "Running" if node else "Pending"}}
        if node:
            p["spec"]["nodeName"] = node
        return p

    ph_cpu, ph_mem = r.choice([(50, 128), (500, 1024), (1000, 4096)])
    if user_pool and r.random() < 0.6:
        feats.add("affinity-placeholders")
        for n in user_nodes:
            if r.random() < 0.5:
                sc["pods"].append(placeholder(f"user-placeholder-{len(sc['pods'])}", n))
                feats.add("affinity-placeholders-running")
        if not sc.get("scaleDown"):
            p = placeholder("user-placeholder")
            p["replicas"] = r.choice([1, 2, 3, 5])
            sc["pending"].append(p)
        sc.setdefault("statefulSets", []).append(
            {"metadata": {"name": "user-placeholder", "namespace": "daskhub", "uid": "uid-sts-placeholder"}})
    for p in list(sc["pending"]):
        cl = p["metadata"].get("labels", {}).get("dask.org/cluster-name")
        if not cl or r.random() < 0.5:
            continue
        sched_labels = {"dask.org/cluster-name": cl, "dask.org/component": "scheduler"}
        term = {"labelSelector": {"matchLabels": sched_labels}, "topologyKey": ZONE_KEY}
        p["spec"].setdefault("affinity", {})["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
        feats.add("affinity-required-zone")
        sched = {"metadata": {"namespace": "daskhub", "name": f"{cl}-scheduler", "labels": sched_labels,
                              "ownerReferences": p["metadata"].get("ownerReferences", [])},
                 "spec": {"containers": [{"name": "scheduler", "image": "ghcr.io/dask/dask",
                                          "resources": {"requests": {"cpu": "500m", "memory": "1024Mi"}}}],
                          "tolerations": [dict(DASK_TAINT, operator="Equal")]},
                 "status": {"phase": "Pending"}}
        where = [n["metadata"]["name"] for n in sc["nodes"]
                 if n["metadata"]["labels"].get("hub.jupyter.org/node-purpose") in ("core", "worker")]
        roll = r.random()
        if roll < 0.6 and where:
            sched["spec"]["nodeName"] = r.choice(where)
            sched["status"]["phase"] = "Running"
            sc["pods"].append(sched)
        elif roll < 0.8:
            sc["pending"].insert(0, sched)
            feats.add("affinity-scheduler-pending")
        else:
            feats.add("affinity-no-scheduler")  # the workers' own labels do not match: unschedulable
        if r.random() < 0.2:
            p["spec"]["affinity"]["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"component": "singleuser-server"}}, "topologyKey": "kubernetes.io/hostname",
                 "namespaceSelector": {}}]}
            feats.add("affinity-namespace-selector")
        if r.random() < 0.3:
            p["spec"]["affinity"]["podAntiAffinity"] = dict(p["spec"]["affinity"].get("podAntiAffinity", {}), **{
                "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 50, "podAffinityTerm": {
                    "labelSelector": {"matchLabels": {"dask.org/cluster-name": cl}},
                    "topologyKey": "kubernetes.io/hostname"}}]})
            feats.add("affinity-preferred")
    meta["features"] = sorted(feats)


def template_taints(s, seed, index):
    """Now and then (one scenario in eight, a stream of its own) a pool's nodes and template
    carry a taint that cluster-autoscaler's SanitizeTaints treats apart when it makes a
    template of a real node: CriticalAddonsOnly (kept at master; older releases dropped it
    as the rescheduler's) or a status-taint.cluster-autoscaler.kubernetes.io/ one (dropped)."""
    r = random.Random(f"autoscale/{seed}/{index}/template-taints")
    if r.random() >= 0.125:
        return
    sc, meta = s["scenario"], s["meta"]
    groups = [g for g in sc["nodeGroups"] if any(pool_of(n) == g["name"] for n in sc["nodes"])]
    if not groups:
        return
    g = r.choice(groups)
    taint = r.choice([{"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"},
                      {"key": "status-taint.cluster-autoscaler.kubernetes.io/maintenance", "value": "soon",
                       "effect": "NoSchedule"}])
    for n in sc["nodes"]:
        if pool_of(n) == g["name"]:
            n.setdefault("spec", {}).setdefault("taints", []).append(dict(taint))
    g["template"].setdefault("spec", {}).setdefault("taints", []).append(dict(taint))
    meta["features"] = sorted(set(meta["features"]) | {"template-taint-" + taint["key"].split("/")[0]})


def pod_requests(s, seed, index):
    """Adds (with --pod-requests, a stream of its own) what a pod requests beyond its app
    containers, which cluster-autoscaler's podutils.PodRequests (resourcehelper.PodRequests)
    counts in least-waste, the estimator's order and utilization: now and then an init
    container asking more cpu or memory than the app, a sidecar (restartPolicy Always) that
    runs beside it, spec.overhead (a RuntimeClass's, as admission sets it). Pods of one owner
    get the same; DaemonSet and mirror pods are left as they are."""
    r = random.Random(f"autoscale/{seed}/{index}/pod-requests")
    sc, meta = s["scenario"], s["meta"]
    feats = set(meta["features"])
    chosen = {}

    def mi(container, key):
        res = container.get("resources", {})
        v = res.get("requests", res.get("limits", {})).get(key, "0m" if key == "cpu" else "0Mi")
        return int(v[:-1]) if key == "cpu" else int(v[:-2])

    def extra(p):
        owners = p["metadata"].get("ownerReferences") or []
        key = owners[0]["uid"] if owners else p["metadata"]["namespace"] + "/" + p["metadata"]["name"]
        if key not in chosen:
            main = p["spec"]["containers"][0]
            cpu, mem = mi(main, "cpu"), mi(main, "memory")
            add = {}
            roll = r.random()
            if roll < 0.12:
                add["init"] = {"name": "fetch", "image": "busybox", "resources": {"requests": {
                    "cpu": f"{cpu + r.choice([250, 500, 1000, 2000])}m",
                    "memory": f"{max(mem, 64) * r.choice([1, 2])}Mi"}}}
            elif roll < 0.2:
                add["init"] = {"name": "proxy", "image": "envoy", "restartPolicy": "Always",
                               "resources": {"requests": {"cpu": f"{r.choice([100, 250, 500])}m",
                                                          "memory": f"{r.choice([128, 256, 512])}Mi"}}}
            if r.random() < 0.1:
                add["overhead"] = {"cpu": f"{r.choice([100, 250])}m", "memory": f"{r.choice([120, 512])}Mi"}
            chosen[key] = add
        return chosen[key]

    for p in list(sc.get("pods", [])) + list(sc.get("pending", [])):
        owners = p["metadata"].get("ownerReferences") or []
        if any(o.get("kind") == "DaemonSet" for o in owners):
            continue
        if "kubernetes.io/config.mirror" in (p["metadata"].get("annotations") or {}):
            continue
        add = extra(p)
        if "init" in add:
            p["spec"]["initContainers"] = [json.loads(json.dumps(add["init"]))]
            feats.add("sidecar" if add["init"].get("restartPolicy") == "Always" else "init-container")
        if "overhead" in add:
            p["spec"]["overhead"] = dict(add["overhead"])
            feats.add("overhead")
    meta["features"] = sorted(feats)


def make(seed, index, with_volumes=False, with_spread=False, with_affinity=False, with_pod_requests=False):
    s = Gen(seed, index).scenario()
    template_taints(s, seed, index)
    if with_volumes or with_spread or with_affinity:
        zones(s, seed, index)
    if with_volumes:
        volumes(s, seed, index)
    if with_spread:
        spread(s, seed, index)
    if with_affinity:
        affinity(s, seed, index)
    if with_pod_requests:
        pod_requests(s, seed, index)
    return s


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", required=True)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--volumes", action="store_true", help="a DaskHub's storage: claims, volumes, classes, CSI objects")
    ap.add_argument("--spread", action="store_true", help="explicit topology spread constraints")
    ap.add_argument("--affinity", action="store_true", help="inter-pod affinity: user placeholders, zone affinity")
    ap.add_argument("--pod-requests", action="store_true",
                    help="init containers, sidecars and overhead beyond the app containers")
    ap.add_argument("-o", "--output")
    a = ap.parse_args(argv)
    out = open(a.output, "w") if a.output else sys.stdout
    for i in range(a.start, a.start + a.count):
        s = make(a.seed, i, a.volumes, a.spread, a.affinity, a.pod_requests)
        out.write(json.dumps(s, separators=(",", ":")) + "\n")
    if a.output:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
