"""The worker template of a dask-gateway, from its cluster options.

The client side is dask/dask-gateway's dask-gateway/dask_gateway:
- gateway.yaml: ``gateway.address`` (a template formatted with the environment,
  utils.format_template: ``address.format(**os.environ)``), ``gateway.auth.type``
  (basic, jupyterhub, kerberos or a class) with ``gateway.auth.kwargs``, and
  ``gateway.cluster.options``, local defaults that override the server's.
- client.py, Gateway._cluster_options: GET ``{address}/api/v1/options`` answers
  ``{"cluster_options": [{"field", "default", "label", "spec": {"type", ...}}, ...]}``.
- auth.py: JupyterHubAuth sends ``Authorization: jupyterhub <api_token>`` (api_token
  kwarg or $JUPYTERHUB_API_TOKEN), BasicAuth ``Authorization: Basic base64(user:password)``.

The worker pod is the server's (dask-gateway-server backends/kubernetes/controller.py,
make_pod): container "dask-worker" with requests cpu f"{worker_cores:.3f}" (three
decimals since 2024.1.0, dask/dask-gateway#766) and memory
worker_memory in bytes, limits worker_cores_limit and worker_memory_limit (defaulting to
the requests). Which options exist and how they map onto those settings is the server's
options handler; tightpack reads the usual names: worker_cores, worker_cores_limit,
worker_memory (a number: GiB, as DaskHub's handler writes "%fG"; or "4 G", K/M/G/T
binary as the server's MemoryLimit), worker_memory_limit, image, environment. Missing
ones take the server's defaults (1 core, "2 G", daskgateway/dask-gateway:latest).
"""

from __future__ import annotations

import base64
import getpass
import os
from typing import Any, Optional

from .dask_config import DaskConfig
from .errors import SourceError
from .fetch import get_json
from .quantity import parse_byte_spec

SERVER_DEFAULTS = {"worker_cores": 1.0, "worker_memory": "2 G",
                   "image": "daskgateway/dask-gateway:latest"}
GIB = 1024**3


def format_template(value: Any) -> Any:
    return value.format(**os.environ) if isinstance(value, str) else value


def _auth_header(cfg: DaskConfig, notes: list) -> dict:
    kind = cfg.get("gateway.auth.type", "basic")
    kwargs = cfg.get("gateway.auth.kwargs") or {}
    kwargs = {k: format_template(v) for k, v in kwargs.items()} if isinstance(kwargs, dict) else {}
    if kind == "jupyterhub":
        token = kwargs.get("api_token") or os.environ.get("JUPYTERHUB_API_TOKEN")
        if not token:
            notes.append("gateway.auth.type is jupyterhub but there is no api_token and no "
                         "JUPYTERHUB_API_TOKEN: options asked without credentials")
            return {}
        return {"Authorization": f"jupyterhub {token}"}
    if kind == "basic":
        try:
            default_user = getpass.getuser()
        except Exception:
            default_user = ""
        user = str(kwargs.get("username") or default_user)
        password = str(kwargs.get("password") or "")
        raw = f"{user}:{password}".encode("latin1", "replace")
        return {"Authorization": "Basic " + base64.b64encode(raw).decode()}
    notes.append(f"gateway.auth.type {kind!r} is not supported by tightpack: options asked "
                 "without credentials")
    return {}


def _memory_bytes(value: Any, what: str) -> int:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value * GIB)  # a number option is GiB (DaskHub: "%fG" % worker_memory)
    return parse_byte_spec(value, what)


def _cores(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{what}: {value!r} is not a number of cores")
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{what}: {value!r} is not a number of cores") from None


def merge_json_objects(a: dict, b: Any) -> dict:
    """dask-gateway-server's merge (backends/kubernetes/utils.py): objects merged key by key,
    b's values winning, lists appended to."""
    if not isinstance(b, dict) or not b:
        return a
    out = dict(a)
    for key, b_value in b.items():
        a_value = out.get(key)
        if isinstance(a_value, dict) and isinstance(b_value, dict):
            out[key] = merge_json_objects(a_value, b_value)
        elif isinstance(a_value, list) and isinstance(b_value, list):
            out[key] = a_value + b_value
        else:
            out[key] = b_value
    return out


def build_pod(options: dict, namespace: str, server: Optional[dict] = None) -> dict:
    """The dask-gateway worker pod for these option values (ValueError on a bad value), with
    the server's worker settings ({"extraPodConfig", "extraContainerConfig"}) merged in as
    make_pod merges them."""
    cores = _cores(options.get("worker_cores", SERVER_DEFAULTS["worker_cores"]), "worker_cores")
    cores_limit = _cores(options.get("worker_cores_limit", cores), "worker_cores_limit")
    memory = _memory_bytes(options.get("worker_memory", SERVER_DEFAULTS["worker_memory"]),
                           "worker_memory")
    memory_limit = memory
    if "worker_memory_limit" in options:
        memory_limit = _memory_bytes(options["worker_memory_limit"], "worker_memory_limit")
    container: dict = {
        "name": "dask-worker",
        "image": options.get("image", SERVER_DEFAULTS["image"]),
        "resources": {
            "requests": {"cpu": f"{cores:.3f}", "memory": str(memory)},
            "limits": {"cpu": f"{cores_limit:.3f}", "memory": str(memory_limit)},
        },
        "ports": [{"name": "scheduler", "containerPort": 8786},
                  {"name": "dashboard", "containerPort": 8787},
                  {"name": "api", "containerPort": 8788}],
    }
    environment = options.get("environment")
    if isinstance(environment, dict) and environment:
        container["env"] = [{"name": str(k), "value": str(v)} for k, v in environment.items()]
    server = server or {}
    container = merge_json_objects(container, server.get("extraContainerConfig"))
    spec = merge_json_objects({"containers": [container], "restartPolicy": "OnFailure",
                               "automountServiceAccountToken": False},
                              server.get("extraPodConfig"))
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"generateName": "dask-worker-", "namespace": namespace,
                     "labels": {"app.kubernetes.io/name": "dask-gateway",
                                "app.kubernetes.io/component": "dask-worker"},
                     # make_pod names the cluster's scheduler pod as owner, without
                     # controller: true (what cluster-autoscaler's drain rules read, in
                     # the engine)
                     "ownerReferences": [{"apiVersion": "v1", "kind": "Pod",
                                          "name": "dask-scheduler", "uid": ""}]},
        "spec": spec,
    }


def gateway_address(cfg: DaskConfig) -> tuple:
    """(address or None, error or None) from ``gateway.address``."""
    raw = cfg.get("gateway.address")
    if not raw:
        return None, None
    try:
        return str(format_template(raw)).rstrip("/"), None
    except (KeyError, IndexError, ValueError) as exc:
        return None, (f"Dask config gateway.address {raw!r}: cannot be formatted with the "
                      f"environment ({type(exc).__name__}: {exc})")


async def cluster_options(cfg: DaskConfig, address: str, timeout: float, notes: list) -> dict:
    """The option values a new cluster gets, as Gateway.cluster_options() makes them: the
    server's defaults, then the Dask config's ``gateway.cluster.options``. SourceError when
    the gateway does not answer."""
    url = f"{address}/api/v1/options"
    answer = await get_json(url, what="dask-gateway", timeout=timeout,
                            headers=_auth_header(cfg, notes))
    fields = answer.get("cluster_options") if isinstance(answer, dict) else None
    if not isinstance(fields, list):
        raise SourceError(f"dask-gateway {url}: the answer has no cluster_options list")
    options: dict = {}
    for spec in fields:
        if isinstance(spec, dict) and isinstance(spec.get("field"), str):
            options[spec["field"]] = spec.get("default")
    local = cfg.get("gateway.cluster.options") or {}
    if isinstance(local, dict):
        for key, value in local.items():
            if key in options:
                options[key] = format_template(value)
            else:
                notes.append(f"Dask config gateway.cluster.options.{key}: the gateway has no "
                             "such option: ignored (dask-gateway would refuse it)")
    return options


def options_template(address: Optional[str], options: dict, namespace: str,
                     server_settings: Optional[dict], notes: list) -> dict:
    """The template of a cluster with these option values; ValueError naming a bad one."""
    missing = [k for k in ("worker_cores", "worker_memory", "image") if k not in options]
    if missing:
        notes.append("not among the gateway's options, the server's setting is unknown and its "
                     "default assumed: " + ", ".join(missing))
    notes.append("option values are taken as the worker's settings: a server options handler "
                 "that transforms them (requesting 80 % of worker_cores, say) is not visible")
    worker_settings = (server_settings or {}).get("worker")
    if not isinstance(worker_settings, dict):
        worker_settings = None
    if worker_settings:
        notes.append("the gateway's own worker settings (its extraPodConfig and "
                     "extraContainerConfig, published by the tightpack scheduler) are applied")
    else:
        notes.append("the gateway server's own worker settings (extra pod config such as "
                     "tolerations, node selectors and affinity) are not visible to clients and "
                     "the tightpack scheduler publishes none (docs/deploy.md, publish."
                     "daskGateway): the pod has none")
    notes.append("dask-gateway clusters start with no workers: cluster.scale(n) or "
                  "cluster.adapt() adds them")
    pod = build_pod(options, namespace, worker_settings)
    return {
        "id": "dask-gateway",
        "name": "Gateway worker",
        "source": "dask-gateway",
        "description": f"dask-gateway at {address}" if address else "dask-gateway",
        "pod": pod,
        "workers": 0,
        "start": {"kind": "gateway", "address": address or "", "options": options},
        "notes": notes,
    }


async def template(cfg: DaskConfig, timeout: float, namespace: str,
                   server_settings: Optional[dict] = None) -> tuple:
    """(template or None, errors): None without ``gateway.address``. ``server_settings``:
    the gateway's server-side settings the tightpack scheduler publishes
    ({"worker": {"extraPodConfig", "extraContainerConfig"}}), or None."""
    address, error = gateway_address(cfg)
    if error:
        return None, [error]
    if not address:
        return None, []
    notes: list = []
    try:
        options = await cluster_options(cfg, address, timeout, notes)
    except SourceError as exc:
        return None, [str(exc)]
    try:
        return options_template(address, options, namespace, server_settings, notes), []
    except ValueError as exc:
        return None, [f"dask-gateway {address}/api/v1/options: option {exc}"]
