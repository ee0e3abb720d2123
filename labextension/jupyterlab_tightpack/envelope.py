"""The snapshot envelope: a cluster List with its pools, scheduler configuration and profiles.

The tightpack scheduler's snapshot endpoint and snapshot files give either the envelope
(``cluster``, ``pools``, ``schedulerConfiguration``, ``profiles``; ``kubespawnerDefaults``,
``daskGateway``, ``admission`` and ``notes`` optional) or a bare v1 List, as ``kubectl get nodes,pods -A -o json`` prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from .errors import SourceError

ENVELOPE_KEYS = ("cluster", "pools", "schedulerConfiguration", "profiles")


@dataclass
class Snapshot:
    cluster: dict
    pools: Optional[dict] = None
    scheduler_configuration: Optional[dict] = None
    profiles: list = field(default_factory=list)
    # The hub's KubeSpawner settings under every profile: {"tolerations": [...], ...}
    kubespawner_defaults: Optional[dict] = None
    # dask-gateway's server-side worker settings: {"worker": {"extraPodConfig", ...}}
    dask_gateway: Optional[dict] = None
    extended_resource_toleration: Optional[bool] = None  # what the source says, if it says
    notes: list = field(default_factory=list)
    # The user's own claims, from the scheduler's /home (home.py): {"user", "claims"}. Never
    # read from a snapshot document: /snapshot is the same for every user.
    home: Optional[dict] = None


def _is_cluster_list(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("items"), list):
        return True
    return isinstance(value.get("nodes"), list) or isinstance(value.get("pods"), list)


def from_document(document: Any, name: str) -> Snapshot:
    """A Snapshot from an envelope or a bare List; SourceError names ``name`` otherwise."""
    if not isinstance(document, dict):
        kind = "empty" if document is None else type(document).__name__
        raise SourceError(
            f"{name}: expected a v1 List of Nodes and Pods or a snapshot envelope, got {kind}"
        )
    if "cluster" not in document:
        if _is_cluster_list(document):
            return Snapshot(cluster=document)
        raise SourceError(
            f"{name}: neither a v1 List (no items) nor a snapshot envelope "
            f"(no key cluster; keys: {', '.join(sorted(map(str, document))) or 'none'})"
        )
    cluster = document["cluster"]
    if not _is_cluster_list(cluster):
        raise SourceError(f"{name}: $.cluster is not a v1 List of Nodes and Pods (no items)")
    pools = document.get("pools")
    if pools is not None and not isinstance(pools, dict):
        raise SourceError(f"{name}: $.pools is not a NodePools document (an object) or null")
    config = document.get("schedulerConfiguration")
    if config is not None and not isinstance(config, dict):
        raise SourceError(
            f"{name}: $.schedulerConfiguration is not a KubeSchedulerConfiguration object or null"
        )
    profiles = document.get("profiles")
    if profiles is None:
        profiles = []
    if not isinstance(profiles, list):
        raise SourceError(f"{name}: $.profiles is not a list of profile_list entries")
    notes = []
    kept = []
    for index, entry in enumerate(profiles):
        if isinstance(entry, dict):
            kept.append(entry)
        else:
            notes.append(f"{name}: $.profiles[{index}] is not an object: left out")
    defaults = document.get("kubespawnerDefaults")
    if defaults is not None and not isinstance(defaults, dict):
        notes.append(f"{name}: $.kubespawnerDefaults is not an object: left out")
        defaults = None
    gateway = document.get("daskGateway")
    if gateway is not None and not isinstance(gateway, dict):
        notes.append(f"{name}: $.daskGateway is not an object: left out")
        gateway = None
    source_notes = document.get("notes")
    if isinstance(source_notes, list):
        notes = [str(n) for n in source_notes] + notes
    ert = None
    admission = document.get("admission")
    if isinstance(admission, dict):
        value = admission.get("extendedResourceToleration")
        ert = value if isinstance(value, bool) else None
    return Snapshot(
        cluster=cluster,
        pools=pools,
        scheduler_configuration=config,
        profiles=kept,
        kubespawner_defaults=defaults,
        dask_gateway=gateway,
        extended_resource_toleration=ert,
        notes=notes,
    )


def cluster_objects(cluster: dict, kind: str) -> list:
    """The objects of one kind in a List (or ``{"nodes": [...], "pods": [...]}``)."""
    if isinstance(cluster.get("items"), list):
        list_kind = str(cluster.get("kind", ""))
        out = []
        for item in cluster["items"]:
            if not isinstance(item, dict):
                continue
            item_kind = item.get("kind") or (list_kind[:-4] if list_kind.endswith("List") else "")
            if item_kind == kind:
                out.append(item)
        return out
    key = {"Node": "nodes", "Pod": "pods"}.get(kind)
    value = cluster.get(key) if key else None
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []
