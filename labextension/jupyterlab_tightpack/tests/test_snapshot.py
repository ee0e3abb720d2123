"""GET /tightpack/snapshot: sources, errors and the cache, on a real jupyter_server."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading

import pytest
import tornado.web
import yaml
from conftest import example

from jupyterlab_tightpack.kept import KeptConnections
from jupyterlab_tightpack.sources import scheduler

RFC3339_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def kinds(cluster, kind):
    return [i for i in cluster["items"] if i.get("kind") == kind]


# ---------------------------------------------------------------- the built-in demo

async def test_demo_is_the_default_source(get):
    status, body = await get("snapshot")
    assert status == 200
    assert body["source"] == {"kind": "demo", "detail": "built-in DaskHub on GKE"}
    assert RFC3339_UTC.match(body["fetchedAt"])
    assert set(body) == {"source", "fetchedAt", "cluster", "pools", "schedulerConfiguration",
                         "profiles", "kubespawnerDefaults", "daskGateway", "admission", "home",
                         "notes"}
    # The cluster as /snapshot lists it, with the user's claim and volume as /home gives them
    home = example("daskhub-gke", "home-disk", "home.json")
    cluster = example("daskhub-gke", "cluster.json")
    assert body["cluster"] == dict(cluster, items=cluster["items"] + home["items"])
    assert body["home"] == {"user": "alice", "claims": home["claims"]}
    assert len(kinds(body["cluster"], "Node")) == 5
    assert [c["metadata"]["name"] for c in kinds(body["cluster"], "StorageClass")] == ["standard-rwo"]
    assert body["pools"]["kind"] == "NodePools"
    assert [p["name"] for p in body["pools"]["pools"]] == [
        "core-pool", "dask-workers", "gpu-t4", "gpu-t4-c", "gpu-a100"]
    assert body["schedulerConfiguration"]["kind"] == "KubeSchedulerConfiguration"
    assert [p["display_name"] for p in body["profiles"]] == ["CPU notebook", "GPU notebook (T4)"]
    assert body["profiles"][1]["kubespawner_override"]["extra_resource_limits"] == {"nvidia.com/gpu": "1"}
    assert body["kubespawnerDefaults"]["storage_pvc_ensure"] is True
    assert body["kubespawnerDefaults"]["volumes"] == [
        {"name": "volume-{user_server}", "persistentVolumeClaim": {"claimName": "{pvc_name}"}}]
    # the file does not say whether ExtendedResourceToleration runs: the engine infers it
    # from the nodes (GKE's here, so on)
    assert body["admission"] == {"extendedResourceToleration": None}
    assert body["notes"] == []


@pytest.mark.parametrize("tightpack_settings", [{"demo_nodes": 1000}])
async def test_demo_scaled_to_1000_nodes(get):
    status, body = await get("snapshot")
    assert status == 200
    assert body["source"]["detail"] == "built-in DaskHub on GKE, scaled to 1000 nodes"
    nodes = kinds(body["cluster"], "Node")
    assert len(nodes) == 1000
    assert len({n["metadata"]["name"] for n in nodes}) == 1000
    pools = [n["metadata"]["labels"]["cloud.google.com/gke-nodepool"] for n in nodes]
    assert (pools.count("core-pool"), pools.count("dask-workers"), pools.count("gpu-t4")) == (
        400, 400, 200)
    pods = kinds(body["cluster"], "Pod")
    names = {n["metadata"]["name"] for n in nodes}
    assert all(p["spec"].get("nodeName") in names for p in pods if p["spec"].get("nodeName"))
    # every bound pod of the 5 demo nodes 200 times, the pending worker once
    demo_pods = kinds(example("daskhub-gke", "cluster.json"), "Pod")
    bound = sum(1 for p in demo_pods if p["spec"].get("nodeName"))
    assert len(pods) == bound * 200 + (len(demo_pods) - bound)
    # maxSize grows with each pool's nodes (gpu-t4: 1 node at max 1, now 200 at max 200);
    # the pools at size 0 keep theirs
    max_size = {p["name"]: p.get("maxSize") for p in body["pools"]["pools"]}
    assert max_size == {"core-pool": 600, "dask-workers": 2000, "gpu-t4": 200, "gpu-t4-c": 2,
                        "gpu-a100": 4}


@pytest.fixture
def demo_nodes_env(monkeypatch):
    monkeypatch.setenv("TIGHTPACK_DEMO_NODES", "12")


async def test_demo_nodes_from_the_environment(demo_nodes_env, get):
    status, body = await get("snapshot")
    assert status == 200
    assert len(kinds(body["cluster"], "Node")) == 12


# ---------------------------------------------------------------- a snapshot file

def envelope():
    pools = yaml.safe_load((example_path("daskhub-gke", "pools.yaml")).read_text())
    return {"cluster": example("daskhub-gke", "cluster.json"), "pools": pools,
            "schedulerConfiguration": None,
            "profiles": [{"display_name": "Small", "slug": "small"}]}


def example_path(*parts):
    from conftest import REPO
    return REPO.joinpath("examples", *parts)


@pytest.mark.parametrize("name,form,write", [
    ("cluster.json", "list", lambda d: json.dumps(d)),
    ("cluster.yaml", "list", lambda d: yaml.safe_dump(d)),
    ("snapshot.json", "envelope", lambda d: json.dumps(d)),
    ("snapshot.yaml", "envelope", lambda d: yaml.safe_dump(d)),
])
async def test_snapshot_file(tmp_path, tightpack, get, name, form, write):
    document = envelope() if form == "envelope" else example("daskhub-gke", "cluster.json")
    path = tmp_path / name
    path.write_text(write(document))
    tightpack.snapshot_file = str(path)
    status, body = await get("snapshot")
    assert status == 200, body
    assert body["source"] == {"kind": "file", "detail": str(path)}
    assert body["cluster"] == example("daskhub-gke", "cluster.json")
    if form == "envelope":
        assert body["pools"]["pools"][3]["name"] == "gpu-a100"
        assert body["profiles"] == [{"display_name": "Small", "slug": "small"}]
    else:
        assert body["pools"] is None and body["profiles"] == []
        assert body["schedulerConfiguration"] is None


async def test_source_demo_overrides_the_configured_source(tmp_path, tightpack, get):
    tightpack.snapshot_file = str(tmp_path / "nowhere.json")
    status, body = await get("snapshot", source="demo")
    assert status == 200 and body["source"]["kind"] == "demo"
    status, body = await get("snapshot", source="elsewhere")
    assert status == 400 and "source='elsewhere'" in body["error"]
    status, body = await get("snapshot")
    assert status == 502 and body["source"]["kind"] == "file"


async def test_missing_snapshot_file_is_a_502_naming_the_path(tmp_path, tightpack, get):
    path = tmp_path / "nowhere" / "cluster.json"
    tightpack.snapshot_file = str(path)
    status, body = await get("snapshot")
    assert status == 502
    assert body["source"] == {"kind": "file", "detail": str(path)}
    assert str(path) in body["error"] and "no such file" in body["error"]


async def test_bad_yaml_snapshot_file_names_the_path_and_line(tmp_path, tightpack, get):
    path = tmp_path / "cluster.yaml"
    path.write_text("apiVersion: v1\nkind: List\nitems:\n  - kind: Node\n   metadata: {}\n")
    tightpack.snapshot_file = str(path)
    status, body = await get("snapshot")
    assert status == 502
    assert str(path) in body["error"]
    assert "line 5" in body["error"], body["error"]


async def test_bad_json_snapshot_file_names_the_line(tmp_path, tightpack, get):
    path = tmp_path / "cluster.json"
    path.write_text('{"items": [\n  {"kind": "Node",}\n]}')
    tightpack.snapshot_file = str(path)
    status, body = await get("snapshot")
    assert status == 502
    assert f"snapshot file {path}: invalid JSON at line 2" in body["error"]


async def test_a_file_that_is_no_snapshot(tmp_path, tightpack, get):
    path = tmp_path / "pools.yaml"
    path.write_text("apiVersion: tightpack.io/v1alpha1\nkind: NodePools\n")
    tightpack.snapshot_file = str(path)
    status, body = await get("snapshot")
    assert status == 502
    assert "neither a v1 List" in body["error"] and str(path) in body["error"]


# ---------------------------------------------------------------- the scheduler

class FakeScheduler(tornado.web.RequestHandler):
    """Test double of the tightpack scheduler's snapshot endpoint, over plain HTTP (the real
    one, HTTPS with a bearer token, is read by tests/scheduler/test_secure_port.py's callers)."""

    def initialize(self, answer, status=200, token=None, etag=None, seen=None):
        self.answer, self.status, self.token, self.etag_value = answer, status, token, etag
        self.seen = seen if seen is not None else []

    def get(self):
        self.seen.append(dict(self.request.headers, query=self.request.query,
                              peer=self.request.connection.stream.socket.getpeername()))
        if self.token is not None and self.request.headers.get("Authorization") != f"Bearer {self.token}":
            self.set_status(401)
            self.finish("Unauthorized: /snapshot needs a bearer token")
            return
        if self.etag_value:
            self.set_header("ETag", self.etag_value)
            if self.request.headers.get("If-None-Match") == self.etag_value:
                self.set_status(304)
                self.finish()
                return
        self.set_status(self.status)
        self.finish(self.answer if isinstance(self.answer, str) else json.dumps(self.answer))

    def compute_etag(self):  # tornado's own ETag would answer 304 for us
        return None


async def test_scheduler_envelope(serve, tightpack, get):
    document = envelope()
    document["schedulerConfiguration"] = {"apiVersion": "kubescheduler.config.k8s.io/v1",
                                          "kind": "KubeSchedulerConfiguration", "profiles": []}
    document["notes"] = ["from the scheduler"]
    url = serve([("/snapshot", FakeScheduler, {"answer": document})]) + "/snapshot"
    tightpack.snapshot_url = url
    tightpack.snapshot_file = "/ignored/when/the/scheduler/is/set.json"
    status, body = await get("snapshot")
    assert status == 200, body
    assert body["source"] == {"kind": "scheduler", "detail": url}
    assert body["cluster"]["items"] == document["cluster"]["items"]
    assert body["schedulerConfiguration"]["kind"] == "KubeSchedulerConfiguration"
    assert body["profiles"][0]["slug"] == "small"
    assert body["notes"] == ["from the scheduler"]


async def test_the_scheduler_is_asked_for_grouped_pods(serve, tightpack, get):
    """Pods of one spec come as one PodGroup, which the engine reads as the pods they are."""
    seen: list = []
    url = serve([("/snapshot", FakeScheduler, {"answer": envelope(), "seen": seen})])
    tightpack.snapshot_url = url + "/snapshot?pods=expanded&x=1"
    status, body = await get("snapshot")
    assert status == 200, body
    assert seen[0]["query"] == "x=1&pods=grouped"
    assert scheduler.grouped("https://s:10259/snapshot") == "https://s:10259/snapshot?pods=grouped"


async def test_scheduler_bare_list(serve, tightpack, get):
    url = serve([("/snapshot", FakeScheduler,
                  {"answer": example("daskhub-gke", "cluster.json")})]) + "/snapshot"
    tightpack.snapshot_url = url
    status, body = await get("snapshot")
    assert status == 200
    assert body["pools"] is None and body["profiles"] == []
    assert len(kinds(body["cluster"], "Node")) == 5


async def test_the_snapshot_token_is_sent_as_a_bearer_token(serve, tightpack, get):
    url = serve([("/snapshot", FakeScheduler, {"answer": envelope(), "token": "s3cret-shared-token"})]) + "/snapshot"
    tightpack.snapshot_url = url
    status, body = await get("snapshot")
    assert status == 502 and "HTTP 401" in body["error"] and "bearer token" in body["error"]
    tightpack.snapshot_token = "s3cret-shared-token"
    status, body = await get("snapshot", refresh="1")
    assert status == 200 and body["source"] == {"kind": "scheduler", "detail": url}
    assert "s3cret-shared-token" not in json.dumps(body)


async def test_a_refresh_revalidates_with_the_etag(serve, tightpack, get):
    seen: list = []
    url = serve([("/snapshot", FakeScheduler, {"answer": envelope(), "etag": '"v1"', "seen": seen})]) + "/snapshot"
    tightpack.snapshot_url = url
    status, first = await get("snapshot")
    assert status == 200 and "If-None-Match" not in seen[0]
    status, again = await get("snapshot", refresh="1")
    assert status == 200, again
    assert seen[1].get("If-None-Match") == '"v1"'  # answered 304, without a body
    assert again["cluster"] == first["cluster"] and again["source"] == first["source"]


async def test_refreshes_keep_one_connection_to_the_scheduler(serve_https, test_ca, tightpack, get):
    """The scheduler keeps a connection between requests: refreshes come over the one the
    first opened, so a polling sidebar pays one TLS handshake, not one per refresh."""
    seen: list = []
    url = serve_https([("/snapshot", FakeScheduler,
                        {"answer": envelope(), "etag": '"v1"', "seen": seen})]) + "/snapshot"
    tightpack.snapshot_url = url
    tightpack.snapshot_ca_file = test_ca["ca"]
    for i in range(3):
        status, body = await get("snapshot", **({"refresh": "1"} if i else {}))
        assert status == 200, body
    assert len(seen) == 3 and seen[1].get("If-None-Match") == '"v1"'
    assert seen[0]["peer"] == seen[1]["peer"] == seen[2]["peer"], [s["peer"] for s in seen]


def test_a_connection_the_server_closed_while_idle_is_replaced():
    """A kept connection the server closed without saying so (its idle timeout, a restart): the
    GET goes again on a new connection, and the caller sees one answer."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    accepted = []

    def serve():
        for _ in range(2):
            conn, _ = listener.accept()
            accepted.append(conn.getpeername())
            conn.recv(65536)
            # keep-alive by HTTP/1.1's default, then closed: the client keeps a dead connection
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
            conn.close()

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    connections = KeptConnections()

    async def twice():
        url = f"http://127.0.0.1:{port}/snapshot"
        first = await connections.get(url, {}, 5, None, False, 1024)
        await asyncio.sleep(0.1)  # the server's close arrives
        return first, await connections.get(url, {}, 5, None, False, 1024)

    first, second = asyncio.run(twice())
    server.join(5)
    listener.close()
    assert (first.code, first.body, second.code, second.body) == (200, b"{}", 200, b"{}")
    assert len(accepted) == 2


async def test_unreachable_scheduler_is_a_502_naming_the_url(unused_url, tightpack, get):
    tightpack.snapshot_url = unused_url
    status, body = await get("snapshot")
    assert status == 502
    assert body["source"] == {"kind": "scheduler", "detail": unused_url}
    assert unused_url in body["error"] and "unreachable" in body["error"]


async def test_scheduler_http_error_and_bad_json(serve, tightpack, get):
    base = serve([("/broken", FakeScheduler, {"answer": {"message": "engine down"},
                                              "status": 503}),
                  ("/garbage", FakeScheduler, {"answer": "<html>not json</html>"})])
    tightpack.snapshot_url = base + "/broken"
    status, body = await get("snapshot")
    assert status == 502
    assert f"{base}/broken?pods=grouped answered HTTP 503" in body["error"] and "engine down" in body["error"]
    tightpack.snapshot_url = base + "/garbage"
    status, body = await get("snapshot", refresh="1")
    assert status == 502
    assert f"{base}/garbage" in body["error"] and "not JSON" in body["error"]


# ---------------------------------------------------------------- the cache

async def test_cached_until_refresh(tmp_path, tightpack, get):
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(example("daskhub-gke", "cluster.json")))
    tightpack.snapshot_file = str(path)
    status, first = await get("snapshot")
    assert status == 200
    smaller = example("daskhub-gke", "cluster.json")
    smaller["items"] = [i for i in smaller["items"] if i["kind"] == "Node"][:2]
    path.write_text(json.dumps(smaller))
    _, cached = await get("snapshot")
    assert cached == first
    _, fresh = await get("snapshot", refresh="1")
    assert len(fresh["cluster"]["items"]) == 2


@pytest.mark.parametrize("tightpack_settings", [{"min_refresh_seconds": 60.0}])
async def test_refresh_cannot_fetch_more_often_than_the_floor(tmp_path, tightpack, get):
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(example("daskhub-gke", "cluster.json")))
    tightpack.snapshot_file = str(path)
    status, first = await get("snapshot")
    assert status == 200
    path.write_text("{ not json")
    for _ in range(5):
        status, again = await get("snapshot", refresh="1")
        assert (status, again) == (200, first)
    tightpack.min_refresh_seconds = 0.0
    status, _ = await get("snapshot", refresh="1")
    assert status == 502


async def test_failures_are_not_cached(tmp_path, tightpack, get):
    path = tmp_path / "cluster.json"
    tightpack.snapshot_file = str(path)
    status, _ = await get("snapshot")
    assert status == 502
    path.write_text(json.dumps(example("daskhub-gke", "cluster.json")))
    status, body = await get("snapshot")
    assert status == 200 and body["source"]["kind"] == "file"


# ---------------------------------------------------------------- authentication

@pytest.mark.parametrize("path", ["snapshot", "templates"])
async def test_requests_without_the_token_are_refused(http_server_client, jp_base_url,
                                                      jp_serverapp, path):
    response = await http_server_client.fetch(f"{jp_base_url}tightpack/{path}",
                                              raise_error=False)
    assert response.code == 403
    wrong = await http_server_client.fetch(f"{jp_base_url}tightpack/{path}", raise_error=False,
                                           headers={"Authorization": "token wrong"})
    assert wrong.code == 403
