"""POST /tightpack/preview: the template of a notebook's preview() target (notebook.py).

The server side of a preview: the pod is made by the code that makes the sidebar's templates
(templates.py), with what only the server sees: the notebook's namespace, the Dask
configuration, the snapshot's published profiles, the hub's and the gateway's own settings
and the user's claims. The engine's admission (defaults, ExtendedResourceToleration) is
applied in the browser, as for the sidebar's templates.
"""

from __future__ import annotations

from typing import Any

from . import dask_kubernetes, gateway, profiles
from .config import TightpackConfig
from .errors import SourceError
from .snapshot import SnapshotService
from .templates import Sources, gather, notebook_namespace

KINDS = ("dask-kubernetes", "dask-gateway", "profile", "pod")


class TargetError(ValueError):
    """A target that makes no pod: the message names the field and the value."""


def _field(target: dict, name: str, kind: type) -> Any:
    value = target.get(name)
    if not isinstance(value, kind):
        raise TargetError(f"target.{name}: {value!r} is not a {kind.__name__}")
    return value


def _profile(name: str, sources: Sources) -> dict:
    if sources.snapshot_error:
        raise TargetError(f"profile {name!r}: the hub's profiles come with the cluster snapshot, "
                          f"which is not available: {sources.snapshot_error}")
    names = []
    for index, entry in enumerate(sources.published):
        if not isinstance(entry, dict):
            continue
        display = str(entry.get("display_name") or "")
        slug = profiles.slug_of(entry, index)
        names.append(display or slug)
        if name in (display, slug):
            found, errors = profiles.template(entry, index, sources.namespace,
                                              sources.hub_defaults, sources.home_context)
            if errors:
                raise TargetError("; ".join(errors))
            return found
    offered = ", ".join(repr(n) for n in names) or "none"
    raise TargetError(f"profile {name!r}: the hub offers no profile of that display name or "
                      f"slug (it offers {offered})")


async def _gateway(target: dict, sources: Sources, config: TightpackConfig) -> dict:
    options = dict(_field(target, "options", dict))
    notes: list = []
    given = target.get("address")
    given = str(given).rstrip("/") if given else None
    address = given
    if not target.get("complete"):
        # The defaults are asked with the user's gateway credentials, so only of the gateway
        # the user's own Dask config names: a notebook's output (anyone's, in a notebook
        # that is not trusted) must not send them, or this server, elsewhere.
        configured, error = gateway.gateway_address(sources.dask)
        if error:
            raise TargetError(error)
        if not configured:
            raise TargetError("dask-gateway: the cluster's options are not all known and there "
                              "is no gateway address to ask for their defaults (Dask config "
                              "gateway.address)")
        if given and given != configured:
            raise TargetError(f"target.address {given!r}: not the gateway of your Dask config "
                              f"({configured}), the only one whose defaults are asked for")
        address = configured
        try:
            defaults = await gateway.cluster_options(sources.dask, address,
                                                     config.request_timeout, notes)
        except SourceError as exc:
            raise TargetError(str(exc)) from None
        options = {**defaults, **options}
    try:
        return gateway.options_template(address, options, sources.namespace,
                                        sources.gateway_settings, notes)
    except ValueError as exc:
        raise TargetError(f"dask-gateway option {exc}") from None


def _pod(pod: dict, namespace: str) -> dict:
    meta = pod.get("metadata") if isinstance(pod.get("metadata"), dict) else {}
    name = str(meta.get("name") or "the pod")
    pod = {**pod, "metadata": {**meta, "namespace": meta.get("namespace") or namespace}}
    return {"id": f"pod:{name}", "name": f"Pod {name}", "source": "pod",
            "description": "a pod manifest from a notebook", "pod": pod, "workers": 1,
            "start": {"kind": "pod"}, "notes": []}


async def resolve(target: Any, config: TightpackConfig, snapshots: SnapshotService) -> dict:
    """The template of ``target`` ({"kind", ...} as notebook.target_of makes it)."""
    if not isinstance(target, dict) or target.get("kind") not in KINDS:
        kind = target.get("kind") if isinstance(target, dict) else target
        raise TargetError(f"target.kind: {kind!r}: expected one of {', '.join(KINDS)}")
    kind = target["kind"]
    # A pod or a DaskCluster needs the notebook's namespace only: no snapshot is fetched
    # and no Dask config read for them.
    if kind == "pod":
        return _pod(_field(target, "pod", dict), notebook_namespace(config))
    if kind == "dask-kubernetes":
        try:
            return dask_kubernetes.manifest_template(_field(target, "manifest", dict),
                                                     "the notebook's spec",
                                                     notebook_namespace(config))
        except ValueError as exc:
            raise TargetError(str(exc)) from None
    sources = await gather(config, snapshots)
    if kind == "profile":
        return _profile(_field(target, "name", str), sources)
    return await _gateway(target, sources, config)
