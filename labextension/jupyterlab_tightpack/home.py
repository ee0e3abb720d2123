"""The user's own home claims, and the claim volumes of a KubeSpawner profile's notebook pod.

The tightpack scheduler answers ``GET <origin of snapshot_url>/home`` with the claims
KubeSpawner made for the user whose JupyterHub API token is sent (``Authorization: token
$JUPYTERHUB_API_TOKEN``; the scheduler asks the hub whose token it is) and the volumes bound
to them::

    {"user": "alice",
     "claims": [{"namespace": "jhub", "name": "claim-alice", "server": "", "volume": "pvc-1"}],
     "items": [<PersistentVolumeClaim>, <PersistentVolume>, ...]}

The items join the snapshot's cluster List, so the engine places a notebook with its disk;
``home`` (user and claims) goes into the envelope. The hub token goes to that one URL only:
never with a redirect, never anywhere else. A failure is a note, never the snapshot's.

A profile's pod gets the hub's published ``volumes`` that name a claim (KubeSpawner's
``volumes`` trait; the scheduler publishes them cut down to name and claim). A claimName that
is a template ("{pvc_name}", "claim-{username}{servername}") is expanded for the user's
default server as KubeSpawner does, "{pvc_name}" being the user's own claim from /home when
there is one (KubeSpawner remembers it across template changes). When the user has none and
``storage_pvc_ensure`` is on, the claim KubeSpawner creates at the first spawn
(kubespawner/objects.py make_pvc) is added to the cluster List: no class at all when
``storage_class`` is None, so that the engine gives it the cluster's default class as the
API server would. A literal claimName (a shared "home-nfs") is used as it is.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from typing import Any, Optional
from urllib.parse import urlsplit, urlunsplit

from . import kubespawner_names as names
from .envelope import cluster_objects
from .errors import SourceError
from .fetch import get_json

HOME_KINDS = ("PersistentVolumeClaim", "PersistentVolume")
USERNAME_ANNOTATION = "hub.jupyter.org/username"
WHAT = "tightpack scheduler (your home claims)"


# ------------------------------------------------------------------------- GET /home

def home_url(snapshot_url: str) -> str:
    """``/home`` at the origin (scheme, host, port) of ``snapshot_url``."""
    parts = urlsplit(snapshot_url.strip())
    return urlunsplit((parts.scheme, parts.netloc, "/home", "", ""))


def _claim_entry(entry: Any) -> Optional[dict]:
    if not isinstance(entry, dict):
        return None
    namespace, name = entry.get("namespace"), entry.get("name")
    if not isinstance(namespace, str) or not isinstance(name, str) or not name:
        return None
    server = entry.get("server")
    volume = entry.get("volume")
    return {"namespace": namespace, "name": name,
            "server": server if isinstance(server, str) else "",
            "volume": volume if isinstance(volume, str) and volume else None}


async def fetch(snapshot_url: str, hub_token: str, timeout: float, ca_file: str = "",
                expected_user: str = "") -> tuple:
    """(home, items): ``{"user", "claims"}`` and the claims' and volumes' objects.

    SourceError when /home cannot be read or is not its answer, or names another user
    than ``expected_user`` ($JUPYTERHUB_USER). The token is sent only over TLS verified
    against ``ca_file`` (required), and no redirect is followed."""
    if not ca_file:
        raise SourceError(f"{WHAT}: the scheduler's certificate cannot be verified without a CA file")
    url = home_url(snapshot_url)
    if urlsplit(url).scheme != "https":
        raise SourceError(f"{WHAT}: {url} is not https: your JupyterHub token is sent over verified TLS only")
    document = await get_json(url, what=WHAT, timeout=timeout,
                              headers={"Authorization": f"token {hub_token}"},
                              ca_file=ca_file, verify=True,
                              follow_redirects=False)
    if not isinstance(document, dict) or not isinstance(document.get("user"), str):
        raise SourceError(f"{WHAT} {url}: the answer has no user")
    user = document["user"]
    if expected_user and user != expected_user:
        raise SourceError(f"{WHAT} {url}: the answer is for user {user!r}, not "
                          f"{expected_user!r}: left out")
    raw_claims = document.get("claims")
    raw_items = document.get("items")
    if not isinstance(raw_claims, list) or not isinstance(raw_items, list):
        raise SourceError(f"{WHAT} {url}: the answer has no claims or items list")
    claims = [c for c in (_claim_entry(e) for e in raw_claims) if c is not None]
    items = [copy.deepcopy(i) for i in raw_items
             if isinstance(i, dict) and i.get("kind") in HOME_KINDS]
    return {"user": user, "claims": claims}, items


def _key(item: dict) -> tuple:
    meta = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
    return (item.get("kind"), meta.get("namespace") or "", meta.get("name"))


def merge_items(cluster: dict, items: list) -> dict:
    """A copy of the List with ``items`` added, each unless the List has it already. The
    List given is never changed (the scheduler source keeps the document for its ETag)."""
    have = {_key(i) for i in cluster.get("items", []) if isinstance(i, dict)}
    added = [i for i in items if _key(i) not in have]
    if not added:
        return cluster
    return dict(cluster, items=list(cluster.get("items", [])) + added)


# ---------------------------------------------------------------- what the pod mounts

@dataclass
class HomeContext:
    """What the claim volumes of a profile's pod are resolved against."""
    user: Optional[str]
    home: Optional[dict]  # the envelope's home: {"user", "claims"}, or None
    cluster: dict         # the envelope's cluster List, /home's items included
    namespace: str        # the notebook pod's namespace
    source_kind: str = ""  # the snapshot's source: "scheduler", "demo", ...


def read_namespace_file(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip() or None
    except OSError:
        return None


def user_of(home: Optional[dict]) -> Optional[str]:
    if isinstance(home, dict) and isinstance(home.get("user"), str) and home["user"]:
        return home["user"]
    return os.environ.get("JUPYTERHUB_USER") or None


def default_server_claims(home: Optional[dict]) -> list:
    claims = home.get("claims") if isinstance(home, dict) else None
    return [c for c in claims or [] if isinstance(c, dict) and c.get("server", "") == ""]


def notebook_namespace(namespace_file: str, home: Optional[dict],
                       defaults: Optional[dict]) -> str:
    """Where KubeSpawner puts the user's pod: where it put the user's claims, else the
    notebook's own namespace (its service-account file), else the published KubeSpawner
    namespace, else "default"."""
    for claim in default_server_claims(home):
        return claim["namespace"]
    found = read_namespace_file(namespace_file)
    if found:
        return found
    if isinstance(defaults, dict) and isinstance(defaults.get("namespace"), str) \
            and defaults["namespace"]:
        return defaults["namespace"]
    return "default"


def context(envelope: dict, namespace_file: str) -> HomeContext:
    home = envelope.get("home") if isinstance(envelope.get("home"), dict) else None
    defaults = envelope.get("kubespawnerDefaults")
    source = envelope.get("source") if isinstance(envelope.get("source"), dict) else {}
    return HomeContext(user=user_of(home), home=home,
                       cluster=envelope.get("cluster") or {"items": []},
                       namespace=notebook_namespace(namespace_file, home,
                                                    defaults if isinstance(defaults, dict)
                                                    else None),
                       source_kind=str(source.get("kind") or ""))


def _find(cluster: dict, kind: str, name: str, namespace: Optional[str] = None) -> Optional[dict]:
    for item in cluster_objects(cluster, kind):
        meta = item.get("metadata") or {}
        if meta.get("name") == name and (namespace is None
                                         or (meta.get("namespace") or "default") == namespace):
            return item
    return None


def storage_classes(cluster: dict) -> list:
    return cluster_objects(cluster, "StorageClass")


def pvc_name(settings: dict, user: str, home: Optional[dict], namespace: str) -> str:
    """KubeSpawner's pvc_name: the user's remembered claim (the default server's claim
    /home lists, the one named as the template says when there are several), else
    ``pvc_name_template`` expanded."""
    template = settings.get("pvc_name_template")
    if not isinstance(template, str) or not template:
        template = names.DEFAULT_PVC_NAME_TEMPLATE
    try:
        expanded: Optional[str] = names.expand(template, user, namespace)
    except ValueError:
        expanded = None
    own = default_server_claims(home)
    for claim in own:
        if claim["name"] == expanded:
            return expanded
    if own:
        return own[0]["name"]
    if expanded is None:
        raise ValueError(f"pvc_name_template {template!r} cannot be expanded in the notebook")
    return expanded


def claim_volumes_setting(settings: dict) -> list:
    """The ``volumes`` entries that name a claim, in KubeSpawner's order (a dict's values
    sorted by key)."""
    volumes = settings.get("volumes")
    if isinstance(volumes, dict):
        volumes = [volumes[k] for k in sorted(volumes)]
    if not isinstance(volumes, list):
        return []
    out = []
    for v in volumes:
        pvc = v.get("persistentVolumeClaim") if isinstance(v, dict) else None
        if isinstance(pvc, dict) and isinstance(pvc.get("claimName"), str) and pvc["claimName"]:
            out.append(v)
    return out


def _expand_claim(template: str, settings: dict, ctx: HomeContext) -> str:
    if "{" not in template:
        return template
    if not ctx.user:
        raise ValueError("the user is not known (no /home answer and no $JUPYTERHUB_USER)")
    return names.expand(template, ctx.user, ctx.namespace,
                        pvc_name(settings, ctx.user, ctx.home, ctx.namespace))


def first_spawn_claim(settings: Optional[dict], ctx: HomeContext) -> tuple:
    """(claim, note): the claim KubeSpawner creates at the user's first spawn, as make_pvc
    makes it, when the pod mounts it and the user has no claim yet (it is then in the
    envelope's List already, the same object: it is still the one a first spawn creates);
    (None, note or None) otherwise."""
    if not isinstance(settings, dict) or settings.get("storage_pvc_ensure") is not True:
        return None, None
    if not ctx.user or default_server_claims(ctx.home):
        return None, None
    try:
        name = pvc_name(settings, ctx.user, ctx.home, ctx.namespace)
        mounted = {_expand_claim(v["persistentVolumeClaim"]["claimName"], settings, ctx)
                   for v in claim_volumes_setting(settings)}
    except ValueError as exc:
        return None, f"home claim left out of the prediction: {exc}"
    if name not in mounted:
        return None, None
    capacity = settings.get("storage_capacity")
    if capacity in (None, ""):
        return None, (f"home claim {name} left out of the prediction: the hub's "
                      "storage_capacity is not published")
    if not storage_classes(ctx.cluster):
        return None, (f"home claim {name} left out of the prediction: the snapshot lists no "
                      "StorageClass, so where its disk would be made is unknown")
    modes = settings.get("storage_access_modes")
    claim: dict = {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": ctx.namespace,
                     "labels": names.claim_labels(ctx.user, settings.get("common_labels")),
                     "annotations": {USERNAME_ANNOTATION: ctx.user}},
        "spec": {"accessModes": list(modes) if isinstance(modes, list) else ["ReadWriteOnce"],
                 "resources": {"requests": {"storage": str(capacity)}}},
    }
    storage_class = settings.get("storage_class")
    if storage_class is not None:
        claim["metadata"]["annotations"]["volume.beta.kubernetes.io/storage-class"] = \
            str(storage_class)
        claim["spec"]["storageClassName"] = str(storage_class)
    if isinstance(settings.get("storage_selector"), dict) and settings["storage_selector"]:
        claim["spec"]["selector"] = copy.deepcopy(settings["storage_selector"])
    existing = _find(ctx.cluster, "PersistentVolumeClaim", name, ctx.namespace)
    if existing is not None and existing != claim:
        return None, None  # the snapshot has the real one
    known = "you have none yet" if ctx.home is not None else "no claim of yours is known"
    return claim, (f"{ctx.namespace}/{name} is the home claim your first spawn creates "
                   f"({known}): in the cluster as KubeSpawner makes it")


# ------------------------------------------------------------- whose the claims are

def describe(claim: dict, ctx: HomeContext, own: bool, first_spawn: bool) -> dict:
    """Whose a claim the pod mounts is (the ``claims`` of a template). What the claim is (its
    class as the API server defaults it, when its disk is made, the zones of its volume) is
    the engine's answer, placement.claims, which the panel words with this."""
    meta = claim.get("metadata") or {}
    return {"name": meta.get("name"), "namespace": meta.get("namespace") or ctx.namespace,
            "own": own, "firstSpawn": first_spawn, "homeKnown": ctx.home is not None}


def claim_volumes(settings: dict, ctx: HomeContext) -> tuple:
    """(pod volumes, claims described, notes) for the claim volumes of ``settings`` (the
    hub's settings under the profile's override): the notes say which claims were left out
    of the pod, and why."""
    volumes: list = []
    described: list = []
    notes: list = []
    entries = claim_volumes_setting(settings)
    if not entries:
        return volumes, described, notes
    new_claim, new_note = first_spawn_claim(settings, ctx)
    own_names = {c["name"] for c in default_server_claims(ctx.home)}
    for entry in entries:
        template = entry["persistentVolumeClaim"]["claimName"]
        try:
            name = _expand_claim(template, settings, ctx)
            volume_name = _expand_claim(str(entry.get("name") or "volume"), settings, ctx)
        except ValueError as exc:
            notes.append(f"volume claim {template!r} left out of the prediction: {exc}")
            continue
        claim = _find(ctx.cluster, "PersistentVolumeClaim", name, ctx.namespace)
        if claim is None:
            # The claim a first spawn would create, when it cannot be made here, says why.
            notes.append(new_note if new_note and f" {name} " in new_note else
                         f"volume claim {ctx.namespace}/{name} left out of the prediction: the "
                         "snapshot does not have it")
            continue
        is_new = new_claim is not None and name == new_claim["metadata"]["name"]
        # A templated claim is the user's by construction; /home's are the user's.
        own = name in own_names or "{" in template
        described.append(describe(claim, ctx, own, is_new))
        volume: dict = {"name": volume_name, "persistentVolumeClaim": {"claimName": name}}
        if entry["persistentVolumeClaim"].get("readOnly") is True:
            volume["persistentVolumeClaim"]["readOnly"] = True
        volumes.append(volume)
    if ctx.home is None and ctx.source_kind == "scheduler" and any(d["own"] for d in described):
        notes.append("your claims were not read from the tightpack scheduler's /home (the "
                     "snapshot's notes say why): if you have a home claim already, its disk's "
                     "zone is not in this prediction")
    return volumes, described, notes

