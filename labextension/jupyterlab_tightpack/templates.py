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


async def list_templates(config: TightpackConfig, snapshots: SnapshotService,
                         log: Optional[logging.Logger] = None) -> dict:
    log = log or logging.getLogger(__name__)
    templates: list = []
    errors: list = []
    namespace = notebook_namespace(config)

    snapshot = await snapshots.get()
    home_context = None
    if snapshot.status == 200:
        published = snapshot.value.get("profiles") or []
        gateway_settings = snapshot.value.get("daskGateway")
        hub_defaults = snapshot.value.get("kubespawnerDefaults")
        # The user's claims and the cluster's classes, for the profiles' home volumes.
        home_context = home.context(snapshot.value, config.kubernetes_namespace_file)
    else:
        published = []
        gateway_settings = None
        hub_defaults = None
        errors.append(f"snapshot (for published profiles): {snapshot.value.get('error')}")

    cfg = dask_config.read()
    errors.extend(cfg.errors)

    has_gateway = bool(cfg.get("gateway.address"))
    if cfg.has("kubernetes") or not has_gateway:
        found, errs = dask_kubernetes.template(cfg, namespace)
        errors.extend(errs)
        if found:
            templates.append(found)

    found, errs = await gateway.template(cfg, config.request_timeout, namespace, gateway_settings)
    errors.extend(errs)
    if found:
        templates.append(found)

    for index, entry in enumerate(published):
        if not isinstance(entry, dict):
            continue
        found, errs = profiles.template(entry, index, namespace,
                                        hub_defaults if isinstance(hub_defaults, dict) else None,
                                        home_context)
        errors.extend(errs)
        if found:
            templates.append(found)

    for error in errors:
        log.info("tightpack templates: %s", error)
    return {"templates": templates, "errors": errors}
