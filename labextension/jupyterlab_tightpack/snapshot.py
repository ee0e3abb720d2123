"""GET /tightpack/snapshot: the first configured source, cached for a short while.

Sources, in order: (1) the tightpack scheduler (``snapshot_url``), (2) the Kubernetes API
with the notebook's service account (a token file exists and ``use_kubernetes``; a 401 or
403 moves on to the next source with a note; inside a JupyterHub only for the users named in
``kubernetes_in_hub_users``), (3) ``snapshot_file``, (4) the built-in demo.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from datetime import datetime, timezone
from typing import Any, Optional

from . import home
from .config import TightpackConfig
from .envelope import Snapshot
from .errors import SourceError, SourceUnusable
from .sources import demo, file, kubernetes, scheduler


def refused_in_hub(user: str) -> str:
    return (
        f"Kubernetes source not used inside JupyterHub (user {user!r}): a service account that "
        "may list pods across the cluster lets every user read every other user's pod "
        "environment, JUPYTERHUB_API_TOKEN included. Point the sidebar at the tightpack "
        "scheduler's /snapshot (TIGHTPACK_SNAPSHOT_URL); an operator who accepts the risk for "
        "this server names the user in c.TightpackConfig.kubernetes_in_hub_users.")


def now_rfc3339() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Result:
    """One answer of the endpoint: its status, its JSON value and that value as text."""

    def __init__(self, status: int, value: dict):
        self.status = status
        self.value = value
        self.text = json.dumps(value, separators=(",", ":"))


class SnapshotService:
    def __init__(self, config: TightpackConfig, log: Optional[logging.Logger] = None):
        self.config = config
        self.log = log or logging.getLogger(__name__)
        self._cached: Optional[Result] = None
        self._cached_at = 0.0
        self._last: Optional[Result] = None  # the last fetch's answer, failed or not
        self._last_at = 0.0
        self._lock: Optional[asyncio.Lock] = None

    async def get(self, refresh: bool = False, demo_only: bool = False) -> Result:
        if demo_only:
            snapshot, detail = demo.load(self.config.demo_nodes)
            return self._envelope({"kind": "demo", "detail": detail}, snapshot, [])
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            now = time.monotonic()
            fresh = now - self._cached_at < self.config.cache_seconds
            if self._cached is not None and fresh and not refresh:
                return self._cached
            if self._last is not None and now - self._last_at < self.config.min_refresh_seconds:
                return self._last
            result = await self._fetch()
            self._last, self._last_at = result, time.monotonic()
            if result.status == 200:
                self._cached, self._cached_at = result, self._last_at
            return result

    def _admission(self, snapshot: Snapshot) -> dict:
        setting = self.config.extended_resource_toleration
        if isinstance(setting, bool):
            ert = setting
        else:
            # None: the engine infers it from the nodes (GKE's API server runs it).
            ert = snapshot.extended_resource_toleration
        return {"extendedResourceToleration": ert}

    def _envelope(self, source: dict, snapshot: Snapshot, notes: list) -> Result:
        value = {
            "source": source,
            "fetchedAt": now_rfc3339(),
            "cluster": snapshot.cluster,
            "pools": snapshot.pools,
            "schedulerConfiguration": snapshot.scheduler_configuration,
            "profiles": snapshot.profiles,
            "kubespawnerDefaults": snapshot.kubespawner_defaults,
            "daskGateway": snapshot.dask_gateway,
            "admission": self._admission(snapshot),
            "home": snapshot.home,
            "notes": notes + snapshot.notes,
        }
        # The home claim KubeSpawner creates at the user's first spawn, when the profiles'
        # pods mount it: the engine places a claim the cluster does not have yet.
        claim, note = home.first_spawn_claim(
            snapshot.kubespawner_defaults,
            home.context(value, self.config.kubernetes_namespace_file))
        if claim is not None:
            value["cluster"] = home.merge_items(snapshot.cluster, [claim])
        if note:
            value["notes"].append(note)
        return Result(200, value)

    async def _home(self) -> tuple:
        """(home, items, note) from the scheduler's /home with the user's hub token; a
        failure is a note. The token goes to the scheduler's origin only (home.py)."""
        c = self.config
        token = os.environ.get("JUPYTERHUB_API_TOKEN", "").strip()
        if not token:
            if os.environ.get("JUPYTERHUB_USER"):
                return None, [], ("no JupyterHub API token ($JUPYTERHUB_API_TOKEN unset): your "
                                  "home claims are not read from the tightpack scheduler")
            return None, [], None
        if not c.snapshot_ca_file:
            # The hub token lets its holder act as the user on her own server: it goes only
            # to a scheduler whose certificate is verified, never to whoever answers.
            return None, [], ("your home claims are not in the prediction: the tightpack "
                              "scheduler's certificate is not verified (set snapshot_ca_file, "
                              "$TIGHTPACK_SNAPSHOT_CA_FILE), and your JupyterHub token is sent "
                              "to a verified scheduler only")
        try:
            found, items = await home.fetch(c.snapshot_url, token, c.request_timeout,
                                            c.snapshot_ca_file,
                                            os.environ.get("JUPYTERHUB_USER", ""))
        except SourceError as exc:
            return None, [], f"your home claims are not in the prediction: {exc}"
        except Exception as exc:  # a bug here must not cost the user the snapshot
            self.log.exception("tightpack snapshot: /home")
            return None, [], f"your home claims are not in the prediction: internal error: {exc!r}"
        return found, items, None

    async def _scheduler(self) -> Snapshot:
        """The scheduler's snapshot, with the user's own claims from its /home (fetched at
        the same time, each bounded by request_timeout)."""
        c = self.config
        reading = asyncio.ensure_future(self._home())
        try:
            snapshot = await scheduler.fetch(c.snapshot_url, c.request_timeout, c.snapshot_token,
                                             c.snapshot_ca_file)
        except BaseException:
            reading.cancel()
            raise
        found, items, note = await reading
        if found is not None:
            snapshot.cluster = home.merge_items(snapshot.cluster, items)
            snapshot.home = found
        if note:
            snapshot.notes.append(note)
        return snapshot

    def _failure(self, source: dict, message: str, notes: list) -> Result:
        self.log.warning("tightpack snapshot: %s", message)
        return Result(502, {"error": message, "source": source, "notes": notes})

    async def _try(self, source: dict, fetch: Any, notes: list) -> Optional[Result]:
        """The envelope from ``fetch``, a 502 when it fails, None when it is unusable."""
        try:
            snapshot = await fetch
        except SourceUnusable as exc:
            notes.append(str(exc))
            return None
        except SourceError as exc:
            return self._failure(source, str(exc), notes)
        except Exception as exc:  # a bug here must not look like a server crash
            self.log.exception("tightpack snapshot: %s source", source["kind"])
            return self._failure(
                source, f"{source['kind']} source {source['detail']}: internal error: {exc!r}",
                notes)
        return self._envelope(source, snapshot, notes)

    async def _fetch(self) -> Result:
        c = self.config
        notes: list = []
        raw = os.environ.get("TIGHTPACK_DEMO_NODES", "").strip()
        if raw and not (raw.isdigit()):
            notes.append(f"TIGHTPACK_DEMO_NODES={raw!r} is not a whole number >= 0: ignored")

        if c.snapshot_url:
            source = {"kind": "scheduler", "detail": c.snapshot_url}
            return await self._try(  # type: ignore[return-value]
                source, self._scheduler(), notes)

        hub_user = os.environ.get("JUPYTERHUB_USER", "")
        if (c.use_kubernetes and hub_user and hub_user not in c.kubernetes_in_hub_users
                and kubernetes.token_present(c.kubernetes_token_file)):
            notes.append(refused_in_hub(hub_user))
        elif c.use_kubernetes and kubernetes.token_present(c.kubernetes_token_file):
            token = kubernetes.read_token(c.kubernetes_token_file)
            if not c.kubernetes_host:
                notes.append(
                    f"service-account token {c.kubernetes_token_file} found but no Kubernetes "
                    "API address (KUBERNETES_SERVICE_HOST unset, kubernetes_host empty): "
                    "Kubernetes source skipped")
            elif not token:
                notes.append(f"service-account token {c.kubernetes_token_file} is empty or "
                             "unreadable: Kubernetes source skipped")
            else:
                base = kubernetes.api_base(c.kubernetes_host)
                source = {"kind": "kubernetes", "detail": base}
                result = await self._try(source, kubernetes.fetch(
                    base, token, c.kubernetes_ca_file, c.request_timeout), notes)
                if result is not None:
                    return result

        if c.snapshot_file:
            source = {"kind": "file", "detail": c.snapshot_file}
            return await self._try(  # type: ignore[return-value]
                source, file.fetch(c.snapshot_file), notes)

        snapshot, detail = demo.load(c.demo_nodes)
        return self._envelope({"kind": "demo", "detail": detail}, snapshot, notes)
