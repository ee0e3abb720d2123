"""Source 4: the built-in demo, a DaskHub on GKE, optionally scaled to N nodes.

As shipped (jupyterlab_tightpack/demo/): a core pool of 2 nodes, a preemptible Dask worker
pool of 2 nodes tainted dask=worker:NoSchedule, a T4 GPU pool of 1 node at its max size and
a second T4 pool in another zone at size 0, an A100 pool at size 0; workers, notebooks and
the hub keep some nodes busy and one Dask worker is pending. The hub publishes its
KubeSpawner settings (home storage included), and the user is alice, whose home claim is
bound to a disk in the full T4 pool's zone: the envelope carries it as the scheduler's /home
gives it (examples/daskhub-gke/home-disk/README.md).

Scaled to N nodes (``demo_nodes``), each pool gets its share of N in the proportions of the
demo (largest remainders, pools in document order). A pool's k-th copy of one of its nodes
is named ``<node>-<k>`` and carries copies of the pods bound to that node, named
``<pod>-<k>``; pending pods stay single. Pools whose node count grows get their maxSize
raised in the same proportion (at most 10,000, the NodePools limit).
"""

from __future__ import annotations

import copy
import functools
import json
import math
import pathlib

from .. import home
from ..envelope import Snapshot

DATA = pathlib.Path(__file__).resolve().parent.parent / "demo"
DETAIL = "built-in DaskHub on GKE"
POOL_LABEL = "cloud.google.com/gke-nodepool"
MAX_NODES = 10000


@functools.lru_cache(maxsize=None)
def _raw(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def _load(name: str):  # type: ignore[no-untyped-def]
    return json.loads(_raw(name))


def apportion(counts: list, total: int) -> list:
    """Split ``total`` in the proportions of ``counts`` (largest remainders, ties in order)."""
    whole = sum(counts)
    if whole == 0:
        return [0 for _ in counts]
    shares = [total * c / whole for c in counts]
    out = [math.floor(s) for s in shares]
    rest = total - sum(out)
    order = sorted(range(len(counts)), key=lambda i: (-(shares[i] - out[i]), i))
    for i in order[:rest]:
        out[i] += 1
    return out


def _clone(obj: dict, suffix: str, node_name: str = "") -> dict:
    """A copy renamed with ``suffix`` (and bound to ``node_name``). Only metadata, labels
    and spec are new dicts; the rest is shared with the original, which is never changed
    (the result is only serialised)."""
    meta = dict(obj.get("metadata") or {})
    if suffix:
        meta["name"] = f"{meta.get('name', '')}{suffix}"
        if "uid" in meta:
            meta["uid"] = f"{meta['uid']}{suffix}"
    if isinstance(meta.get("labels"), dict):
        meta["labels"] = dict(meta["labels"])
    out = dict(obj, metadata=meta)
    if node_name:
        out["spec"] = dict(obj.get("spec") or {}, nodeName=node_name)
    return out


def scale(cluster: dict, pools: dict, nodes_wanted: int) -> tuple:
    """The demo cluster and pools scaled to ``nodes_wanted`` nodes."""
    items = cluster.get("items", [])
    nodes = [i for i in items if i.get("kind") == "Node"]
    pods = [i for i in items if i.get("kind") == "Pod"]
    others = [i for i in items if i.get("kind") not in ("Node", "Pod")]

    by_pool: dict = {}
    for node in nodes:
        pool = node.get("metadata", {}).get("labels", {}).get(POOL_LABEL, "")
        by_pool.setdefault(pool, []).append(node)
    names = list(by_pool)
    targets = apportion([len(by_pool[p]) for p in names], nodes_wanted)

    new_nodes: list = []
    copies: dict = {}  # original node name -> [(suffix, new name)]
    factor: dict = {}
    for pool, target in zip(names, targets):  # noqa: B905 (same length; Python 3.9)
        members = by_pool[pool]
        factor[pool] = target / len(members)
        for i in range(target):
            original = members[i % len(members)]
            k = i // len(members)
            suffix = f"-{k}" if k else ""
            node = _clone(original, suffix)
            labels = node["metadata"].setdefault("labels", {})
            if "kubernetes.io/hostname" in labels:
                labels["kubernetes.io/hostname"] = node["metadata"]["name"]
            new_nodes.append(node)
            copies.setdefault(original["metadata"]["name"], []).append(
                (suffix, node["metadata"]["name"]))

    new_pods: list = []
    for pod in pods:
        node_name = pod.get("spec", {}).get("nodeName")
        if not node_name:
            new_pods.append(pod)
            continue
        for suffix, new_node in copies.get(node_name, []):
            new_pods.append(_clone(pod, suffix, new_node))

    pools = copy.deepcopy(pools)
    for pool in pools.get("pools", []):
        f = factor.get(pool.get("name"))
        if f is not None and f > 1 and isinstance(pool.get("maxSize"), int):
            pool["maxSize"] = min(MAX_NODES, max(pool["maxSize"], math.ceil(pool["maxSize"] * f)))
    scaled = dict(cluster)
    scaled["items"] = new_nodes + new_pods + others
    return scaled, pools


def load(demo_nodes: int) -> tuple:
    """(Snapshot, detail) of the demo, scaled when ``demo_nodes`` > 0."""
    cluster = _load("cluster.json")
    pools = _load("pools.json")
    notes: list = []
    detail = DETAIL
    if demo_nodes > 0:
        wanted = demo_nodes
        if wanted > MAX_NODES:
            notes.append(f"demo_nodes {demo_nodes} is above {MAX_NODES}: scaled to {MAX_NODES}")
            wanted = MAX_NODES
        cluster, pools = scale(cluster, pools, wanted)
        detail = f"{DETAIL}, scaled to {wanted} nodes"
    # The user's claims and their volumes, merged as the scheduler source merges /home's.
    answer = _load("home.json")
    cluster = home.merge_items(cluster, answer["items"])
    snapshot = Snapshot(
        cluster=cluster,
        pools=pools,
        scheduler_configuration=_load("scheduler-configuration.json"),
        profiles=_load("profiles.json"),
        kubespawner_defaults=_load("kubespawner-defaults.json"),
        notes=notes,
        home={"user": answer["user"], "claims": answer["claims"]},
    )
    return snapshot, detail
