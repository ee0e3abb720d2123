"""Worker templates from published KubeSpawner ``profile_list`` entries.

An entry (jupyterhub/kubespawner, spawner.py ``profile_list``) has display_name, slug
(made from display_name when missing), description, kubespawner_override and optional
profile_options, whose default choice (``default: true``, else the first) adds its own
kubespawner_override. The override's keys are KubeSpawner traits; how each becomes the
pod is kubespawner/objects.py, make_pod:

    image                          -> the "notebook" container's image
    cpu_guarantee / cpu_limit      -> its resources.requests.cpu / limits.cpu (cores)
    mem_guarantee / mem_limit      -> requests.memory / limits.memory (bytes; "12G" is
                                      12 GiB, jupyterhub.traitlets.ByteSpecification)
    extra_resource_guarantees      -> added to requests (e.g. nvidia.com/gpu)
    extra_resource_limits          -> added to limits
    node_selector                  -> spec.nodeSelector
    tolerations                    -> spec.tolerations
    scheduler_name                 -> spec.schedulerName
    priority_class_name            -> spec.priorityClassName
    node_affinity_required         -> affinity.nodeAffinity.required...nodeSelectorTerms
    node_affinity_preferred        -> affinity.nodeAffinity.preferred...
    pod_affinity_*, pod_anti_affinity_* -> affinity.podAffinity / podAntiAffinity
    extra_labels                   -> metadata.labels
    init_containers, extra_containers -> spec.initContainers, more spec.containers
    extra_container_config         -> merged into the container
    extra_pod_config               -> merged into spec

The hub's own settings (its default tolerations, node affinity, scheduler name, resource
guarantees: what zero-to-jupyterhub's values become) apply under every profile when the
tightpack scheduler publishes them (``kubespawnerDefaults``): a profile's override replaces a
setting of the same name wholesale, as KubeSpawner sets each overridden trait.

    volumes (those naming a claim)  -> spec.volumes: the user's home claim, the claim the
                                      first spawn creates, or a shared claim (home.py)
"""

from __future__ import annotations

import copy
import re
from typing import Any, Optional

from . import home
from .quantity import cpu_quantity, parse_byte_spec, resource_quantity

HUB_DEFAULTS_NOTE = ("the hub's own KubeSpawner settings (published by the tightpack scheduler) "
                     "apply under the profile's kubespawner_override")
HUB_SETTINGS_NOTE = ("only the profile's kubespawner_override is applied: the hub's own "
                     "settings (default tolerations, node affinity, scheduler name, "
                     "guarantees) are not published")


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "profile"


def slug_of(profile: dict, index: int) -> str:
    """A profile_list entry's slug, made from its display name when it has none, as
    KubeSpawner makes it."""
    display = profile.get("display_name")
    return str(profile.get("slug") or slugify(str(display or f"profile-{index}")))


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _merge(target: dict, changes: Any) -> None:
    """KubeSpawner's update_k8s_model: top-level keys, snake_case or camelCase, replaced."""
    if isinstance(changes, dict):
        for key, value in changes.items():
            target[_camel(str(key))] = copy.deepcopy(value)


def effective_override(profile: dict, notes: list) -> dict:
    override = copy.deepcopy(profile.get("kubespawner_override") or {})
    options = profile.get("profile_options")
    if isinstance(options, dict):
        for option_name, option in options.items():
            choices = option.get("choices") if isinstance(option, dict) else None
            if not isinstance(choices, dict) or not choices:
                continue
            chosen = next((k for k, c in choices.items()
                           if isinstance(c, dict) and c.get("default")), next(iter(choices)))
            choice = choices[chosen] if isinstance(choices[chosen], dict) else {}
            override.update(copy.deepcopy(choice.get("kubespawner_override") or {}))
            notes.append(f"profile option {option_name}: its default choice {chosen!r}")
    return override


def build_pod(override: dict, slug: str, namespace: str, volumes: Optional[list] = None) -> dict:
    """The notebook pod KubeSpawner makes for this override (ValueError on a bad value), with
    ``volumes`` (its claim volumes, resolved by home.claim_volumes)."""
    requests: dict = {}
    limits: dict = {}
    if override.get("cpu_guarantee"):
        requests["cpu"] = cpu_quantity(override["cpu_guarantee"], "cpu_guarantee")
    if override.get("mem_guarantee"):
        requests["memory"] = str(parse_byte_spec(override["mem_guarantee"], "mem_guarantee"))
    for name, value in (override.get("extra_resource_guarantees") or {}).items():
        requests[name] = resource_quantity(value)
    if override.get("cpu_limit"):
        limits["cpu"] = cpu_quantity(override["cpu_limit"], "cpu_limit")
    if override.get("mem_limit"):
        limits["memory"] = str(parse_byte_spec(override["mem_limit"], "mem_limit"))
    for name, value in (override.get("extra_resource_limits") or {}).items():
        limits[name] = resource_quantity(value)

    container: dict = {"name": "notebook",
                       "ports": [{"name": "notebook-port", "containerPort": 8888}],
                       "resources": {}}
    if override.get("image"):
        container["image"] = override["image"]
    if requests:
        container["resources"]["requests"] = requests
    if limits:
        container["resources"]["limits"] = limits
    _merge(container, override.get("extra_container_config"))

    spec: dict = {"containers": [container]}
    if override.get("extra_containers"):
        spec["containers"] += copy.deepcopy(list(override["extra_containers"]))
    if override.get("init_containers"):
        spec["initContainers"] = copy.deepcopy(list(override["init_containers"]))
    if override.get("node_selector"):
        spec["nodeSelector"] = dict(override["node_selector"])
    if override.get("tolerations"):
        spec["tolerations"] = copy.deepcopy(list(override["tolerations"]))
    if override.get("scheduler_name"):
        spec["schedulerName"] = override["scheduler_name"]
    if override.get("priority_class_name"):
        spec["priorityClassName"] = override["priority_class_name"]
    affinity: dict = {}
    node_affinity: dict = {}
    if override.get("node_affinity_required"):
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": copy.deepcopy(list(override["node_affinity_required"]))}
    if override.get("node_affinity_preferred"):
        node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = copy.deepcopy(
            list(override["node_affinity_preferred"]))
    if node_affinity:
        affinity["nodeAffinity"] = node_affinity
    for prefix, key in (("pod_affinity", "podAffinity"),
                        ("pod_anti_affinity", "podAntiAffinity")):
        terms: dict = {}
        if override.get(f"{prefix}_required"):
            terms["requiredDuringSchedulingIgnoredDuringExecution"] = copy.deepcopy(
                list(override[f"{prefix}_required"]))
        if override.get(f"{prefix}_preferred"):
            terms["preferredDuringSchedulingIgnoredDuringExecution"] = copy.deepcopy(
                list(override[f"{prefix}_preferred"]))
        if terms:
            affinity[key] = terms
    if affinity:
        spec["affinity"] = affinity
    if volumes:
        spec["volumes"] = copy.deepcopy(volumes)
    _merge(spec, override.get("extra_pod_config"))

    labels = {"component": "singleuser-server"}
    if isinstance(override.get("extra_labels"), dict):
        labels.update({str(k): str(v) for k, v in override["extra_labels"].items()})
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"jupyter-{slug}", "namespace": namespace, "labels": labels},
            "spec": spec}


def template(profile: dict, index: int, namespace: str,
             hub_defaults: Optional[dict] = None,
             home_context: Optional[home.HomeContext] = None) -> tuple:
    """(template or None, errors) for one profile_list entry, over the hub's own settings
    (``hub_defaults``, KubeSpawner trait names) when they are known. With ``home_context``
    the pod mounts the claims the settings' ``volumes`` name, in that context's namespace
    (where KubeSpawner puts the user's pod and claims)."""
    display = profile.get("display_name")
    slug = slug_of(profile, index)
    where = f"published profile {slug!r} (profiles[{index}])"
    notes: list = []
    try:
        override = effective_override(profile, notes)
        if not isinstance(override, dict):
            raise ValueError("kubespawner_override is not a mapping")
        override = {**copy.deepcopy(hub_defaults or {}), **override}
        volumes: list = []
        claims: list = []
        if home_context is not None:
            namespace = home_context.namespace
            volumes, claims, volume_notes = home.claim_volumes(override, home_context)
            notes.extend(volume_notes)
        pod = build_pod(override, slug, namespace, volumes)
    except (ValueError, TypeError, AttributeError) as exc:
        return None, [f"{where}: {exc}"]
    if not override.get("image"):
        notes.append("no image in the profile: the hub's default image")
    notes.append(HUB_DEFAULTS_NOTE if hub_defaults else HUB_SETTINGS_NOTE)
    return {
        "id": f"profile:{slug}",
        "name": str(display or slug),
        "source": "profile",
        "description": str(profile.get("description") or ""),
        "pod": pod,
        "workers": 1,
        "start": {"kind": "profile", "slug": slug},
        "notes": notes,
        # Whose the claims the pod mounts are (home.describe); the engine says what they are.
        "claims": claims,
    }, []
