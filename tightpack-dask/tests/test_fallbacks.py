"""Missing information, an explicit `key=`, stale hints or any error: upstream's choice
stands, with a log line. And the hints from tightpack's scheduler, over HTTP on loopback
(a test double of the daemon's endpoint, serving the documented answer)."""

from __future__ import annotations

import json
import logging

import tightpack_dask.scheduler as preload
from conftest import nodes_emptied, place, spread_against_upstream
from distributed import Scheduler
from distributed.utils_test import gen_cluster
from tightpack_dask.hints import Hints, HintsError, NodeHints, parse_hints
from tightpack_dask.scheduler import install
from tornado import web
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets

SIX = [("127.0.0.1", 1)] * 6


@gen_cluster(nthreads=SIX)
async def test_unknown_node_keeps_upstream(s: Scheduler, *workers):
    plugin = install(s, hints=None)
    layout = spread_against_upstream([w.address for w in workers])
    place(plugin, layout)
    del plugin.nodes[layout["node-a"][0]]
    assert s.workers_to_close(n=3) == plugin.upstream(n=3)
    assert plugin.last_choice == {}


@gen_cluster(nthreads=SIX)
async def test_explicit_key_keeps_upstream(s: Scheduler, *workers):
    plugin = install(s, hints=None)
    place(plugin, spread_against_upstream([w.address for w in workers]))
    key = lambda ws: ws.address  # noqa: E731
    assert s.workers_to_close(n=3, key=key) == plugin.upstream(n=3, key=key)


@gen_cluster(nthreads=SIX)
async def test_an_error_keeps_upstream(s: Scheduler, *workers):
    plugin = install(s, hints=None)
    place(plugin, spread_against_upstream([w.address for w in workers]))

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    original = preload.node_aware
    preload.node_aware = broken
    try:
        assert s.workers_to_close(n=3) == plugin.upstream(n=3)
    finally:
        preload.node_aware = original


@gen_cluster(nthreads=SIX)
async def test_nothing_to_close_and_names(s: Scheduler, *workers):
    plugin = install(s, hints=None)
    layout = spread_against_upstream([w.address for w in workers])
    place(plugin, layout)
    assert s.workers_to_close(n=0) == []
    names = s.workers_to_close(target=4, attribute="name")
    by_name = {ws.name: ws.address for ws in s.workers.values()}
    assert nodes_emptied(layout, [by_name[n] for n in names]) == {"node-c"}  # 2: node-c, then node-b's first


@gen_cluster(nthreads=SIX, client=True)
async def test_memory_ratio_mode(c, s: Scheduler, *workers):
    """Without n or target upstream counts by memory_ratio (adaptive_target's call): the same
    number, and never more memory limit retired than upstream's."""
    plugin = install(s, hints=None)
    layout = spread_against_upstream([w.address for w in workers])
    place(plugin, layout)
    chosen = s.workers_to_close()
    assert len(chosen) == len(plugin.upstream())
    assert nodes_emptied(layout, chosen) >= nodes_emptied(layout, plugin.upstream())


def serve_hints(body: bytes, status: int = 200, seen: list | None = None):
    class Handler(web.RequestHandler):
        def get(self):
            if seen is not None:
                seen.append(dict(self.request.headers))
            self.set_status(status)
            self.write(body)

    sockets = bind_sockets(0, "127.0.0.1")
    server = HTTPServer(web.Application([(r"/dask/v1/nodes", Handler)]))
    server.add_sockets(sockets)
    return server, f"http://127.0.0.1:{sockets[0].getsockname()[1]}/dask/v1/nodes"


@gen_cluster(nthreads=SIX)
async def test_hints_steer_away_from_kept_nodes(s: Scheduler, *workers):
    layout = spread_against_upstream([w.address for w in workers])
    seen: list = []
    answer = {"nodes": [{"name": "node-a", "kept": False}, {"name": "node-b", "kept": True},
                        {"name": "node-c", "kept": False}]}
    server, url = serve_hints(json.dumps(answer).encode(), seen=seen)
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".token") as token:
        token.write("a-service-account-token\n")
        token.flush()
        hints = Hints(url, token_file=token.name, interval=3600)
        plugin = install(s, hints=hints)
        place(plugin, layout)
        await plugin.start(s)
        try:
            assert seen and seen[0]["Authorization"] == "Bearer a-service-account-token"
            # node-b is kept by something else: empty node-c (1) and node-a (3) instead.
            chosen = s.workers_to_close(n=4)
            assert nodes_emptied(layout, chosen) == {"node-a", "node-c"}
        finally:
            await plugin.close()
            server.stop()


@gen_cluster(nthreads=SIX)
async def test_missing_hints_keep_upstream(s: Scheduler, *workers):
    server, url = serve_hints(b"forbidden", status=403)
    hints = Hints(url, token_file=None, interval=3600)
    plugin = install(s, hints=hints)
    place(plugin, spread_against_upstream([w.address for w in workers]))
    await plugin.start(s)
    try:
        assert hints.kept_nodes() is None
        assert s.workers_to_close(n=3) == plugin.upstream(n=3)
    finally:
        await plugin.close()
        server.stop()


def test_stale_hints_count_as_missing():
    hints = Hints("http://127.0.0.1:1/x", token_file=None, max_age=0.0)
    hints._answer, hints._at = NodeHints(frozenset({"n"}), frozenset({"n"})), 0.0
    assert hints.kept_nodes() is None
    assert hints.emptying_nodes() is None


def test_bad_answers_name_what_is_wrong():
    for body, message in [
        (b"<html>", "the answer is not JSON"),
        (b"{}", 'the answer has no "nodes" list'),
        (b'{"nodes": [{"name": "a"}]}', 'nodes[0] is not {"name": string, "kept": boolean}'),
        (b'{"nodes": [{"name": "a", "kept": false, "emptying": "yes"}]}', "nodes[0].emptying is not a boolean: yes"),
    ]:
        try:
            parse_hints(body)
        except HintsError as e:
            assert str(e).startswith(message), e
        else:
            raise AssertionError(f"{body!r} was accepted")
    answer = parse_hints(b'{"nodes": [{"name": "a", "kept": true}, {"name": "b", "kept": false, "emptying": true}]}')
    assert answer == NodeHints(kept=frozenset({"a"}), emptying=frozenset({"b"}))


def test_disabled_by_config(caplog):
    import dask

    class FakeScheduler:
        pass

    with dask.config.set({"tightpack.retire.enabled": False}), caplog.at_level(logging.INFO, "tightpack_dask"):
        preload.dask_setup(FakeScheduler())
    assert "upstream's choice stands" in caplog.text


def test_the_hints_question_names_this_cluster(monkeypatch):
    import dask

    base = "https://tightpack.jhub.svc:10259/dask/v1/nodes"
    for var in ("TIGHTPACK_DASK_NAMESPACE", "TIGHTPACK_DASK_CLUSTER", "DASK_GATEWAY_CLUSTER_NAME"):
        monkeypatch.delenv(var, raising=False)
    with dask.config.set({"tightpack.retire.hints-url": base}):
        assert Hints.from_config() is None  # who is asking is unknown: no hints, a warning
        monkeypatch.setenv("TIGHTPACK_DASK_NAMESPACE", "jhub")
        monkeypatch.setenv("TIGHTPACK_DASK_CLUSTER", "alice")
        assert Hints.from_config().url == base + "?namespace=jhub&cluster=alice"
        monkeypatch.delenv("TIGHTPACK_DASK_NAMESPACE")
        monkeypatch.delenv("TIGHTPACK_DASK_CLUSTER")
        monkeypatch.setenv("DASK_GATEWAY_CLUSTER_NAME", "dask-gateway.0f3c9a")
        assert Hints.from_config().url == base + "?namespace=dask-gateway&cluster=0f3c9a"
    with dask.config.set({"tightpack.retire.hints-url": base + "?namespace=x&cluster=y"}):
        assert Hints.from_config().url.endswith("?namespace=x&cluster=y")
    with dask.config.set({"tightpack.retire.hints-url": None}):
        assert Hints.from_config() is None
