"""GET /tightpack/templates: every worker template the user may start.

Sources: (a) dask-kubernetes' operator KubeCluster from the user's Dask configuration,
(b) dask-gateway's cluster options when ``gateway.address`` is configured, with the
gateway's server-side worker settings when the snapshot publishes them, (c) the
KubeSpawner profiles the snapshot publishes, over the hub's own KubeSpawner settings when it
publishes those, with the claims their pods mount (the user's home claim from the scheduler's
/home, home.py). Each pod is as the client would create it: what the API server then does to
it (defaulting, ExtendedResourceToleration) is the engine's to apply when the sidebar asks
(core/include/tightpack/admission.hpp). A failure of one source is an entry in ``errors``;
the other templates are still returned.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Optional

from . import dask_config, dask_kubernetes, gateway, home, profiles
from .config import TightpackConfig
from .snapshot import SnapshotService


def notebook_namespace(config: TightpackConfig) -> str:
    try:
        with open(config.kubernetes_namespace_file, encoding="utf-8") as f:
            return f.read().strip() or "default"
    except OSError:
        return "default"


@dataclass
class Sources:
    """What every template is made from: the notebook's namespace, the Dask configuration and
    what the cluster snapshot publishes (profiles, the hub's and the gateway's settings, the
    user's claims)."""

    namespace: str
    dask: dask_config.DaskConfig
    published: list = field(default_factory=list)
    gateway_settings: Optional[dict] = None
    hub_defaults: Optional[dict] = None
    home_context: Optional[home.HomeContext] = None
    # Why the snapshot's parts are missing, when they are.
    snapshot_error: Optional[str] = None


async def gather(config: TightpackConfig, snapshots: SnapshotService) -> Sources:
    sources = Sources(namespace=notebook_namespace(config), dask=dask_config.read())
    snapshot = await snapshots.get()
    if snapshot.status == 200:
        published = snapshot.value.get("profiles")
        sources.published = published if isinstance(published, list) else []
        gateway_settings = snapshot.value.get("daskGateway")
        sources.gateway_settings = gateway_settings if isinstance(gateway_settings, dict) else None
        hub_defaults = snapshot.value.get("kubespawnerDefaults")
        sources.hub_defaults = hub_defaults if isinstance(hub_defaults, dict) else None
        # The user's claims and the cluster's classes, for the profiles' home volumes.
        sources.home_context = home.context(snapshot.value, config.kubernetes_namespace_file)
    else:
        sources.snapshot_error = str(snapshot.value.get("error"))
    return sources


async def list_templates(config: TightpackConfig, snapshots: SnapshotService,
                         log: Optional[logging.Logger] = None) -> dict:
    log = log or logging.getLogger(__name__)
    templates: list = []
    errors: list = []
    sources = await gather(config, snapshots)
    if sources.snapshot_error:
        errors.append(f"snapshot (for published profiles): {sources.snapshot_error}")
    cfg = sources.dask
    errors.extend(cfg.errors)

    has_gateway = bool(cfg.get("gateway.address"))
    if cfg.has("kubernetes") or not has_gateway:
        found, errs = dask_kubernetes.template(cfg, sources.namespace)
        errors.extend(errs)
        if found:
            templates.append(found)

    found, errs = await gateway.template(cfg, config.request_timeout, sources.namespace,
                                         sources.gateway_settings)
    errors.extend(errs)
    if found:
        templates.append(found)

    for index, entry in enumerate(sources.published):
        if not isinstance(entry, dict):
            continue
        found, errs = profiles.template(entry, index, sources.namespace, sources.hub_defaults,
                                        sources.home_context)
        errors.extend(errs)
        if found:
            templates.append(found)

    for error in errors:
        log.info("tightpack templates: %s", error)
    return {"templates": templates, "errors": errors}
