"""What the API server does to a pod before kube-scheduler sees it.

1. Defaulting (kubernetes pkg/apis/core/v1/defaults.go, SetDefaults_Pod): in every
   container and init container, a resource with a limit and no request gets the limit
   as its request.
2. The ExtendedResourceToleration admission plugin
   (kubernetes plugin/pkg/admission/extendedresourcetoleration/admission.go), when the
   cluster enables it (GKE does): for every extended resource requested by a container or
   an init container, in sorted order, helper.AddOrUpdateTolerationInPod adds the
   toleration {key: <resource>, operator: Exists, effect: NoSchedule}. An existing
   toleration with the same key, operator, value and effect (MatchToleration) is replaced
   by it, or left alone when equal; otherwise it is appended.

An extended resource (pkg/apis/core/helper, IsExtendedResourceName) is one that is not
native (native: no "/" in the name, or a name containing "kubernetes.io/"), does not
start with "requests.", and whose "requests."-prefixed name is a qualified name.
Defaulting runs before admission, so a GPU given only as a limit gets its toleration.
Pod-level resources (spec.resources) are not defaulted here.
"""

from __future__ import annotations

import re

_NAME_PART = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def _is_qualified_name(value: str) -> bool:
    """k8s.io/apimachinery validation.IsQualifiedName."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253:
            return False
        if not all(_DNS1123_LABEL.match(label) for label in prefix.split(".")):
            return False
    else:
        return False
    return 0 < len(name) <= 63 and bool(_NAME_PART.match(name))


def is_native_resource(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource(name: str) -> bool:
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return _is_qualified_name(f"requests.{name}")


def _containers(spec: dict) -> list:
    out = []
    for key in ("containers", "initContainers"):
        value = spec.get(key)
        if isinstance(value, list):
            out.extend(c for c in value if isinstance(c, dict))
    return out


def default_requests_from_limits(pod: dict) -> list:
    """SetDefaults_Pod's requests-from-limits, in place; returns what it set, as notes."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return []
    notes = []
    for container in _containers(spec):
        resources = container.get("resources")
        if not isinstance(resources, dict) or not isinstance(resources.get("limits"), dict):
            continue
        requests = resources.get("requests")
        if not isinstance(requests, dict):
            requests = resources["requests"] = {}
        for name, value in resources["limits"].items():
            if name not in requests:
                requests[name] = value
                notes.append(
                    f"container {container.get('name', '?')}: request {name} {value} "
                    "from its limit (Kubernetes defaulting)"
                )
    return notes


def add_extended_resource_tolerations(pod: dict) -> list:
    """The ExtendedResourceToleration plugin, in place; returns the tolerations it added."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return []
    resources = set()
    for container in _containers(spec):
        requests = (container.get("resources") or {}).get("requests")
        if isinstance(requests, dict):
            resources.update(str(n) for n in requests if is_extended_resource(str(n)))
    notes = []
    for resource in sorted(resources):
        toleration = {"key": resource, "operator": "Exists", "effect": "NoSchedule"}
        if _add_or_update_toleration(spec, toleration):
            notes.append(
                f"toleration {resource}:Exists:NoSchedule added for the {resource} it requests "
                "(ExtendedResourceToleration admission plugin)"
            )
    return notes


def _matches(a: dict, b: dict) -> bool:
    """core.Toleration.MatchToleration: same key, effect, operator and value."""
    return all(a.get(k, "") == b.get(k, "") for k in ("key", "effect", "operator", "value"))


def _add_or_update_toleration(spec: dict, toleration: dict) -> bool:
    """helper.AddOrUpdateTolerationInPod."""
    existing = spec.get("tolerations")
    existing = [t for t in existing if isinstance(t, dict)] if isinstance(existing, list) else []
    updated = False
    out = []
    for current in existing:
        if _matches(toleration, current):
            if {k: v for k, v in current.items() if v not in ("", None)} == toleration:
                return False
            out.append(dict(toleration))
            updated = True
            continue
        out.append(current)
    if not updated:
        out.append(dict(toleration))
    spec["tolerations"] = out
    return True


def admit(pod: dict, extended_resource_toleration: bool) -> list:
    """Both steps, in the API server's order; returns notes saying what changed."""
    notes = default_requests_from_limits(pod)
    if extended_resource_toleration:
        notes += add_extended_resource_tolerations(pod)
    return notes
