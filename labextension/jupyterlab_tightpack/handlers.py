"""The endpoints, under the server's base URL: /tightpack/snapshot, /tightpack/templates and
/tightpack/preview."""

from __future__ import annotations

import json

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join

from .config import TightpackConfig
from .preview_target import TargetError, resolve
from .snapshot import SnapshotService
from .templates import list_templates


class _Base(APIHandler):
    def initialize(self, config: TightpackConfig, snapshots: SnapshotService) -> None:
        self.tightpack = config
        self.snapshots = snapshots

    def _send(self, status: int, text: str) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=UTF-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(text)

    def _internal_error(self, what: str, exc: Exception) -> None:
        self.log.exception("tightpack %s", what)
        self._send(500, json.dumps({"error": f"tightpack {what}: internal error: {exc!r}"}))


class SnapshotHandler(_Base):
    @tornado.web.authenticated
    async def get(self) -> None:
        refresh = self.get_query_argument("refresh", "0").lower() in ("1", "true", "yes")
        # The sidebar's snapshotSource setting: "auto" (the configured order) or "demo".
        source = self.get_query_argument("source", "auto")
        if source not in ("auto", "demo"):
            self._send(400, json.dumps({"error": f"source={source!r}: expected auto or demo"}))
            return
        try:
            result = await self.snapshots.get(refresh=refresh, demo_only=source == "demo")
        except Exception as exc:
            self._internal_error("snapshot", exc)
            return
        self._send(result.status, result.text)


class TemplatesHandler(_Base):
    @tornado.web.authenticated
    async def get(self) -> None:
        try:
            answer = await list_templates(self.tightpack, self.snapshots, self.log)
        except Exception as exc:
            self._internal_error("templates", exc)
            return
        self._send(200, json.dumps(answer, separators=(",", ":")))


class PreviewHandler(_Base):
    """The template of a notebook's preview() target: {"target": {...}} -> the template."""

    @tornado.web.authenticated
    async def post(self) -> None:
        try:
            body = json.loads(self.request.body or b"null")
        except (ValueError, RecursionError) as exc:
            self._send(400, json.dumps({"error": f"the request body is not JSON: {exc}"}))
            return
        if not isinstance(body, dict) or "target" not in body:
            self._send(400, json.dumps({"error": 'expected {"target": {...}}'}))
            return
        try:
            template = await resolve(body["target"], self.tightpack, self.snapshots)
        except TargetError as exc:
            self._send(400, json.dumps({"error": str(exc)}))
            return
        except Exception as exc:
            self._internal_error("preview", exc)
            return
        self._send(200, json.dumps(template, separators=(",", ":")))


def setup_handlers(web_app: tornado.web.Application, config: TightpackConfig) -> SnapshotService:
    snapshots = SnapshotService(config)
    args = {"config": config, "snapshots": snapshots}
    base_url = web_app.settings["base_url"]
    web_app.add_handlers(".*$", [
        (url_path_join(base_url, "tightpack", "snapshot"), SnapshotHandler, args),
        (url_path_join(base_url, "tightpack", "templates"), TemplatesHandler, args),
        (url_path_join(base_url, "tightpack", "preview"), PreviewHandler, args),
    ])
    web_app.settings["tightpack_config"] = config
    web_app.settings["tightpack_snapshots"] = snapshots
    return snapshots
