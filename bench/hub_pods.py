"""A large DaskHub as the scheduler's watch lists it, made of the real clients' pods.

    build/clients-venv/bin/python bench/hub_pods.py [--nodes 5000] [--pods 150000] OUT.json

Writes a `kind: List` of Nodes and bound Pods for bench/scheduler_cache_memory.cpp
(`tightpack_cache_memory --list OUT.json`): notebooks as KubeSpawner 7.1.0 makes them with
zero-to-jupyterhub 4.4.0's settings and a home claim each, dask-kubernetes operator clusters
(a scheduler and one Deployment per worker, its ReplicaSet and pod), dask-gateway clusters
(make_pod's scheduler and workers with the DaskHub worker pool's extraPodConfig), and four
DaemonSet pods on every node. Each pod is admitted by `tightpack admit` (defaulting,
DefaultTolerationSeconds, ExtendedResourceToleration), as the API server stores it.

The clients run for one instance of each kind (KubeSpawner takes ~60 ms a pod, the operator's
builders ~8 ms a worker); the others are that instance with its identities replaced: a
user's name, a cluster's name, and each hash the controllers derive from them (the worker's
uuid, pod-template-hash, uids), so no two users, clusters or workers share a label value
they would not share on a real hub. Test doubles, as in tests/clients: kube-controller-manager's
ReplicaSets and DaemonSet pods (its daemon controller's node affinity by `metadata.name` and
its tolerations, pkg/controller/daemon/util), the kubelet's status, and the nodes.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "clients"))

import z2jh  # noqa: E402

TIGHTPACK = Path(os.environ.get("TIGHTPACK", ROOT / "build/release/scheduler/tightpack"))
NAMESPACE = "jhub"
WORKERS_PER_OPERATOR_CLUSTER = 50
WORKERS_PER_GATEWAY_CLUSTER = 75
DAEMONSETS = ("kube-proxy", "fluentbit-gke", "pdcsi-node", "gke-metadata-server")


def digest(*parts: str, alphabet: str = "0123456789abcdef", n: int = 10) -> str:
    h = hashlib.sha256("/".join(parts).encode()).hexdigest()
    if alphabet == "0123456789abcdef":
        return h[:n]
    # pod-template-hash's alphabet (rand.SafeEncodeString), from more of the digest.
    h += hashlib.sha256(h.encode()).hexdigest()
    return "".join(c for c in h if c in alphabet)[:n]


def uid(*parts: str) -> str:
    h = hashlib.sha256("/".join(parts).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def admit(pod: dict) -> dict:
    r = subprocess.run([str(TIGHTPACK), "admit", "--extended-resource-toleration", "-"],
                       input=json.dumps(pod), capture_output=True, text=True, timeout=30,
                       check=True)
    return json.loads(r.stdout)["pod"]


def replace_all(obj, old_to_new: dict):
    """obj as JSON text with every identity replaced (longest first: a user's name is part of
    its cluster's)."""
    text = json.dumps(obj)
    for old in sorted(old_to_new, key=len, reverse=True):
        text = text.replace(old, old_to_new[old])
    return json.loads(text)


def running(pod: dict, node_name: str, started: int) -> dict:
    """Bound, and the status a kubelet writes for a running pod."""
    p = copy.deepcopy(pod)
    p["spec"]["nodeName"] = node_name
    ts = f"2026-12-06T{started // 3600 % 24:02d}:{started // 60 % 60:02d}:{started % 60:02d}Z"
    p["metadata"]["creationTimestamp"] = ts
    p["metadata"]["resourceVersion"] = str(100000 + started)
    p["status"] = {
        "phase": "Running", "hostIP": "10.0.0.1", "podIP": "10.4.0.1", "qosClass": "Burstable",
        "startTime": ts,
        "conditions": [{"type": t, "status": "True", "lastTransitionTime": ts}
                       for t in ("PodReadyToStartContainers", "Initialized", "Ready",
                                 "ContainersReady", "PodScheduled")],
        "containerStatuses": [{
            "name": c["name"], "image": c.get("image", ""), "imageID": c.get("image", "") +
            "@sha256:" + digest(c.get("image", ""), n=64), "ready": True, "started": True,
            "restartCount": 0, "containerID": "containerd://" + digest(p["metadata"]["name"],
                                                                        c["name"], n=64),
            "state": {"running": {"startedAt": ts}}} for c in p["spec"]["containers"]],
    }
    return p


def nodes(count: int) -> list:
    """GKE nodes: 2 % core, 12 % user, the rest Dask workers, over the two zones."""
    import cluster
    out = []
    for i in range(count):
        zone = cluster.ZONES[i % 2]
        share = i % 50
        if share == 0:
            name, pool, cpu, mem, labels, taints = (f"core-{i}", "core-pool", "4", "16Gi",
                                                    {"hub.jupyter.org/node-purpose": "core"}, ())
        elif share <= 6:
            name, pool, cpu, mem, labels, taints = (f"user-{i}", "user-pool", "16", "104Gi",
                                                    {"hub.jupyter.org/node-purpose": "user"},
                                                    (cluster.USER_TAINT,))
        else:
            name, pool, cpu, mem, labels, taints = (f"worker-{i}", "dask-worker", "16", "104Gi",
                                                    {"k8s.dask.org/node-purpose": "worker"},
                                                    (cluster.WORKER_TAINT,))
        n, _ = cluster.node(name, pool, zone, cpu, mem, labels=labels, taints=taints)
        n["metadata"]["uid"] = uid("node", name)
        out.append(n)
    return out


def daemonset_pod(ds: str, node: dict, i: int) -> dict:
    """What kube-controller-manager's DaemonSet controller makes for a node (test double):
    required node affinity on the node's name (util.ReplaceDaemonSetPodNodeNameNodeAffinity)
    and the tolerations util.AddOrUpdateDaemonPodTolerations adds."""
    name = node["metadata"]["name"]
    tolerations = [{"key": "node.kubernetes.io/" + k, "operator": "Exists", "effect": e}
                   for k, e in (("not-ready", "NoExecute"), ("unreachable", "NoExecute"),
                                ("disk-pressure", "NoSchedule"),
                                ("memory-pressure", "NoSchedule"),
                                ("pid-pressure", "NoSchedule"), ("unschedulable", "NoSchedule"),
                                ("network-unavailable", "NoSchedule"))]
    tolerations.insert(0, {"operator": "Exists"})
    pod_name = f"{ds}-{digest(ds, name, alphabet='bcdfghjklmnpqrstvwxz2456789', n=5)}"
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": pod_name, "namespace": "kube-system", "uid": uid("pod", ds, name),
            "labels": {"k8s-app": ds, "controller-revision-hash": digest(ds, n=10),
                       "pod-template-generation": "1"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds,
                                 "uid": uid("ds", ds), "controller": True,
                                 "blockOwnerDeletion": True}]},
        "spec": {
            "priorityClassName": "system-node-critical", "priority": 2000001000,
            "containers": [{"name": ds, "image": f"gke.gcr.io/{ds}:v1.37.2-gke.1",
                            "resources": {"requests": {"cpu": "100m", "memory": "100Mi"}}}],
            "tolerations": tolerations,
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [{
                    "key": "metadata.name", "operator": "In", "values": [name]}]}]}}},
        },
    }


def templates():
    """One instance of each kind, made by the clients' own code and admitted."""
    import clients
    import cluster
    config = z2jh.kubespawner_config(namespace=NAMESPACE)
    notebook, _claim = clients.notebook("user00000", config)
    operator = clients.operator_cluster("dask-user00000-c0", NAMESPACE,
                                        WORKERS_PER_OPERATOR_CLUSTER,
                                        resources={"requests": {"cpu": "1", "memory": "4Gi"},
                                                   "limits": {"cpu": "1", "memory": "4Gi"}},
                                        worker_tolerations=[{"key": "k8s.dask.org_dedicated",
                                                             "operator": "Equal",
                                                             "value": "worker",
                                                             "effect": "NoSchedule"}])
    operator_scheduler = clients.replicaset_and_pod(operator["scheduler"])[1]
    operator_workers = [clients.replicaset_and_pod(d)[1] for d in operator["workers"]]
    gateway = clients.gateway_cluster(
        clients.gateway_config(worker_extra_pod_config=cluster.GATEWAY_WORKER_POD_CONFIG,
                               scheduler_extra_pod_config=cluster.GATEWAY_SCHEDULER_POD_CONFIG,
                               namespace=NAMESPACE),
        "user00000", {"worker_cores": 2, "worker_memory": 8}, WORKERS_PER_GATEWAY_CLUSTER,
        namespace=NAMESPACE)
    return {
        "notebook": admit(notebook),
        "operator": [admit(operator_scheduler)] + [admit(w) for w in operator_workers],
        "gateway": [admit(gateway["scheduler"])] + [admit(w) for w in gateway["workers"]],
        "gateway_name": gateway["daskcluster"]["metadata"]["name"],
    }


def identities_of(pods: list, keep: set) -> set:
    """The hashes and uids in these pods' names, labels and owners that are theirs alone."""
    found = set()
    for p in pods:
        meta = p["metadata"]
        found.add(meta["uid"])
        for ref in meta.get("ownerReferences") or []:
            found.add(ref["uid"])
        for part in meta["name"].split("-"):  # hashes, not words or worker indices
            if len(part) >= 5 and part not in keep and not part.isdigit() \
                    and any(c.isdigit() for c in part):
                found.add(part)
        for value in (meta.get("labels") or {}).values():
            if len(value) >= 10 and value.isalnum() and any(c.isdigit() for c in value) \
                    and value not in keep:
                found.add(value)
    return found


def renamed(group: list, old_user: str, new_user: str, salt: str, keep: set) -> list:
    mapping = {old_user: new_user}
    for ident in identities_of(group, keep):
        if ident.count("-") == 4:
            mapping[ident] = uid(salt, ident)
        else:
            alphabet = "0123456789abcdef" if all(c in "0123456789abcdef" for c in ident) \
                else "bcdfghjklmnpqrstvwxz2456789"
            mapping[ident] = digest(salt, ident, alphabet=alphabet, n=len(ident))
    return [replace_all(p, mapping) for p in group]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=150000)
    ap.add_argument("out")
    args = ap.parse_args()
    with tempfile.NamedTemporaryFile("w", suffix=".kubeconfig", delete=False) as f:
        f.write(z2jh.NOWHERE_KUBECONFIG)  # KubeSpawner loads one even to build manifests
    os.environ["KUBECONFIG"] = f.name

    node_list = nodes(args.nodes)
    by_pool = {"user-pool": [], "dask-worker": [], "core-pool": []}
    for n in node_list:
        by_pool[n["metadata"]["labels"]["cloud.google.com/gke-nodepool"]].append(
            n["metadata"]["name"])
    items = list(node_list)
    clock = 0

    def place(pod: dict, pool: str, k: int) -> None:
        nonlocal clock
        clock += 1
        names = by_pool[pool]
        items.append(running(pod, names[k % len(names)], clock))

    for i, n in enumerate(node_list):
        for ds in DAEMONSETS:
            clock += 1
            items.append(running(daemonset_pod(ds, n, i), n["metadata"]["name"], clock))
    t = templates()
    keep = {"user00000", "jupyterhub", "notebook", "worker", "scheduler", NAMESPACE}
    # The rest of the pods: a notebook per user, and per user one cluster of either kind.
    budget = args.pods - (len(items) - len(node_list))
    per_user = 1 + (len(t["operator"]) + len(t["gateway"])) / 2
    users = max(1, int(budget / per_user))
    u = 0
    while len(items) - len(node_list) < args.pods:
        user = f"user{u + 1:05d}"
        place(renamed([t["notebook"]], "user00000", user, user, keep)[0], "user-pool", u)
        kind = "operator" if u % 2 == 0 else "gateway"
        extra = {t["gateway_name"]: digest("gateway", user, n=32)} if kind == "gateway" else {}
        group = [replace_all(p, extra) for p in t[kind]]
        for j, p in enumerate(renamed(group, "user00000", user, user + kind, keep)):
            if len(items) - len(node_list) >= args.pods:
                break
            place(p, "user-pool" if j == 0 else "dask-worker", u * 97 + j)
        u += 1
    with open(args.out, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items}, f)
    print(f"{args.out}: {len(node_list)} nodes, {len(items) - len(node_list)} pods "
          f"({u} users, expected about {users})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
