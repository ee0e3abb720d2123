"""``preview(target, n)``: where n workers of the object a notebook is about to scale would land.

This half runs in the kernel. It turns the object into a question that JSON can carry (the
manifest, the option values, the profile's name or the pod) and returns a display object
whose MIME bundle holds it. The JupyterLab extension's renderer for
``application/vnd.tightpack.preview+json`` asks the server extension to make the pod from it
(``POST /tightpack/preview``: the same code that makes the sidebar's templates, with the
hub's, the gateway's and the user's settings that only the server sees) and runs the engine
on the sidebar's cluster snapshot. The bundle carries only the question, so a saved notebook
shows the preview again, for the cluster as it is when it is opened.

Nothing here imports dask-kubernetes or dask-gateway: an object is recognised by its class,
and a KubeCluster's spec is made by its own module's ``make_cluster_spec``.
"""

from __future__ import annotations

import importlib
import json
from numbers import Integral
from typing import Any, Optional

from . import running as running_cluster

MIME_TYPE = "application/vnd.tightpack.preview+json"
# The question's format; the renderer refuses one it does not know. Version 2 adds
# ``running`` (a cluster already running: its workers, and for a shrink the ones it retires);
# a question without it stays version 1, which earlier renderers draw.
VERSION = 1
VERSION_RUNNING = 2
MAX_WORKERS = 10000

ACCEPTS = ("a dask-kubernetes KubeCluster, a DaskCluster or DaskWorkerGroup manifest "
           "(make_cluster_spec's output), dask-gateway cluster options "
           "(Gateway.cluster_options()), a GatewayCluster or its report "
           "(Gateway.get_cluster(name)), a KubeSpawner profile's display name, or a Pod "
           "manifest")


def _is_a(obj: Any, package: str, name: str) -> bool:
    """Whether obj's class, or a base of it, is ``name`` from ``package``."""
    return any(c.__name__ == name and c.__module__.split(".")[0] == package
               for c in type(obj).__mro__)


def _kube_cluster(cluster: Any) -> tuple:
    """A KubeCluster's DaskCluster, as KubeCluster._create_cluster makes it."""
    spec = getattr(cluster, "_custom_cluster_spec", None)
    if not spec:
        module = importlib.import_module(type(cluster).__module__)
        make_cluster_spec = getattr(module, "make_cluster_spec", None)
        if make_cluster_spec is None:
            raise TypeError(f"preview(): {type(cluster).__module__}.KubeCluster has no "
                            "make_cluster_spec beside it: only the dask-kubernetes operator's "
                            "KubeCluster is known")
        spec = make_cluster_spec(
            name=cluster.name, env=cluster.env, resources=cluster.resources,
            worker_command=cluster.worker_command, n_workers=cluster.n_workers,
            image=cluster.image, scheduler_service_type=cluster.scheduler_service_type,
            idle_timeout=cluster.idle_timeout, jupyter=cluster.jupyter)
    spec = json.loads(json.dumps(spec))
    if cluster.namespace:
        spec.setdefault("metadata", {}).setdefault("namespace", cluster.namespace)
    return {"kind": "dask-kubernetes", "manifest": spec}, f"KubeCluster {cluster.name}"


def _gateway_cluster(cluster: Any) -> tuple:
    """The options a GatewayCluster was created with, as Gateway._submit sends them."""
    given = getattr(cluster, "_cluster_options", None)
    options = dict(given) if given is not None else {}
    options.update(getattr(cluster, "_cluster_kwargs", None) or {})
    address = getattr(getattr(cluster, "gateway", None), "address", None)
    # Without an Options object the server's defaults and the Dask config's
    # gateway.cluster.options apply under these: the server extension fetches them.
    target = {"kind": "dask-gateway", "options": options, "complete": given is not None,
              "address": address}
    return target, f"GatewayCluster {cluster.name}" if cluster.name else "GatewayCluster"


def _manifest(doc: dict) -> tuple:
    kind = doc.get("kind")
    name = (doc.get("metadata") or {}).get("name") if isinstance(doc.get("metadata"), dict) \
        else None
    if kind in ("DaskCluster", "DaskWorkerGroup"):
        return {"kind": "dask-kubernetes", "manifest": doc}, f"{kind} {name or ''}".strip()
    spec = doc.get("spec")
    if kind == "Pod" or (kind is None and isinstance(spec, dict) and "containers" in spec):
        return {"kind": "pod", "pod": doc}, f"Pod {name}" if name else "the pod"
    raise ValueError(f"preview(): a mapping of kind {kind!r}: expected a DaskCluster, a "
                     "DaskWorkerGroup or a Pod manifest")


def target_of(target: Any) -> tuple:
    """(the target as JSON, a label for it); TypeError for an object of another kind."""
    if isinstance(target, str):
        if not target.strip():
            raise ValueError("preview(): an empty profile name")
        return {"kind": "profile", "name": target.strip()}, f"profile {target.strip()!r}"
    if isinstance(target, dict):
        found, label = _manifest(target)
    elif _is_a(target, "dask_kubernetes", "KubeCluster"):
        found, label = _kube_cluster(target)
    elif _is_a(target, "dask_gateway", "Options"):
        found, label = {"kind": "dask-gateway", "options": dict(target), "complete": True,
                        "address": None}, "dask-gateway cluster options"
    elif _is_a(target, "dask_gateway", "GatewayCluster"):
        found, label = _gateway_cluster(target)
    elif _is_a(target, "dask_gateway", "ClusterReport"):
        # gateway.get_cluster(name): the options the cluster was submitted with, which may
        # be some only (the server's defaults apply under them). Nothing else of the
        # report (its TLS key among it) is taken.
        found, label = {"kind": "dask-gateway", "options": dict(target.options or {}),
                        "complete": False, "address": None}, f"dask-gateway cluster {target.name}"
    else:
        raise TypeError(f"preview(): cannot preview a {type(target).__module__}."
                        f"{type(target).__qualname__}; it takes {ACCEPTS}")
    try:
        found = json.loads(json.dumps(found))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"preview(): the {label} cannot be written as JSON: {exc}") from None
    return found, label


class Preview:
    """What ``preview()`` returns: displayed, the extension draws the answer; ``question`` is
    what the output keeps."""

    def __init__(self, question: dict, label: str):
        self.question = question
        self.label = label

    @property
    def text(self) -> str:
        n = self.question["workers"]
        r = self.question.get("running")
        if r and n < r["workers"]:
            return self._shrink_text(n, r)
        profile = self.question.get("profile")
        under = f" under the {profile!r} scheduler profile" if profile else ""
        if r and n == r["workers"]:
            return (f"tightpack preview: scale({n}) leaves {self.label} as it is: "
                    f"{_workers(n)} running.")
        more = f"{_workers(n - r['workers'], 'more worker')} (beside the {r['workers']} running)" \
            if r else _workers(n)
        return (f"tightpack preview: where {more} of {self.label} would land{under}.\n"
                "JupyterLab with jupyterlab-tightpack draws it here, from the cluster as it is "
                "when the output is shown: how many fit now and on which nodes, which node "
                "pools cluster-autoscaler grows and when they are ready, and the workers that "
                "would never run, with kube-scheduler's reason and the fix. Elsewhere, the "
                "same answer comes from `tightpack predict --pools` on a cluster snapshot.")

    def _shrink_text(self, n: int, r: dict) -> str:
        retiring = r.get("retiring") or []
        (field, keys), = r["forecast"].items()
        option = {"removeDeployments": "--remove-deployments", "removePods": "--remove-pods"}
        return (f"tightpack preview: scale({n}) of {self.label} retires "
                f"{len(retiring)} of its {_workers(r['workers'])}, as its scheduler chooses them: "
                f"{', '.join(retiring) or 'none'}.\n"
                "JupyterLab with jupyterlab-tightpack draws here which nodes cluster-autoscaler "
                "then removes, and what keeps each other node, from the cluster as it is when "
                "the output is shown. Elsewhere, the same answer comes from `tightpack forecast "
                f"{option[field]} {','.join(keys)}` on a cluster snapshot.")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        return {MIME_TYPE: self.question, "text/plain": self.text}

    def __repr__(self) -> str:
        return self.text


def _workers(n: int, what: str = "worker") -> str:
    return f"{n} {what if n == 1 else what + 's'}"


def preview(target: Any, n: int, profile: Optional[str] = None) -> Any:
    """Where ``n`` workers of ``target`` would land, drawn in the cell's output.

    ``target``: a dask-kubernetes ``KubeCluster`` (its default worker group), a DaskCluster or
    DaskWorkerGroup manifest (``make_cluster_spec(...)``), dask-gateway options
    (``gateway.cluster_options()``) or a ``GatewayCluster``, a KubeSpawner profile's display
    name (a notebook server: ``n`` is then usually 1), or a Pod manifest.
    ``profile``: the scheduler profile to place them with, one of the sidebar's ("tightpack",
    "most-allocated": zero-to-jupyterhub's user-scheduler, "default": kube-scheduler's,
    "rtc"); None: the sidebar's setting.

    A running ``KubeCluster`` or ``GatewayCluster`` is previewed as ``cluster.scale(n)``
    changes it: the workers beyond those running, or, below them (``n`` may then be 0), the
    workers its scheduler would retire and the nodes cluster-autoscaler then removes. Like
    the cluster's own methods, it returns an awaitable for an asynchronous cluster.
    """
    if profile is not None and (not isinstance(profile, str) or not profile.strip()):
        raise ValueError(f"preview(): profile={profile!r}: expected a scheduler profile's name "
                         "or None")
    found, label = target_of(target)
    r = running_cluster.running(target, _is_a)
    lowest = 0 if r else 1
    if isinstance(n, bool) or not isinstance(n, Integral) or not lowest <= n <= MAX_WORKERS:
        raise ValueError(f"preview(): n={n!r}: expected a whole number of workers from {lowest} "
                         f"to {MAX_WORKERS}" + (" for a running cluster" if r else ""))
    question = {"version": VERSION, "target": found, "workers": int(n),
                "profile": profile.strip() if profile else None, "label": label}
    if r is None:
        return Preview(question, label)

    async def ask() -> Preview:
        part = await running_cluster.change(r, int(n))
        return Preview({**question, "version": VERSION_RUNNING, "running": part}, label)

    return r.sync(ask)
