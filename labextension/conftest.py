"""The fixtures of the server extension's tests (jupyterlab_tightpack/tests/), at the
project's root as the JupyterLab extension template has them: a real jupyter_server with
the extension enabled (pytest-jupyter), and local test doubles.

Every HTTP server a test starts here is a test double on 127.0.0.1: the tightpack
scheduler's snapshot endpoint, the Kubernetes API, dask-gateway. Nothing leaves the
machine.
"""

from __future__ import annotations

import json
import os
import pathlib
import ssl
import subprocess
import textwrap

import pytest
import tornado.httpserver
import tornado.testing
import tornado.web
from traitlets.config import Config

pytest_plugins = ("pytest_jupyter.jupyter_server",)

REPO = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch, tmp_path):
    """No setting of the machine leaks in: TIGHTPACK_*, DASK_*, KUBERNETES_*, hub tokens."""
    for name in list(os.environ):
        if name.startswith(("TIGHTPACK_", "DASK_", "KUBERNETES_", "JUPYTERHUB_API_TOKEN")):
            monkeypatch.delenv(name, raising=False)
    root = tmp_path / "etc-dask"
    root.mkdir()
    monkeypatch.setenv("DASK_ROOT_CONFIG", str(root))


@pytest.fixture
def dask_config(tmp_path, monkeypatch):
    """A Dask config directory in $DASK_CONFIG; returns a function writing one file in it."""
    directory = tmp_path / "dask"
    directory.mkdir()
    monkeypatch.setenv("DASK_CONFIG", str(directory))

    def write(name, text):
        path = directory / name
        path.write_text(textwrap.dedent(text))
        return path

    return write


@pytest.fixture
def service_account(tmp_path):
    """Where the service-account files go; empty (no token) unless a test writes them."""
    path = tmp_path / "serviceaccount"
    path.mkdir()
    return path


@pytest.fixture
def tightpack_settings():
    """c.TightpackConfig values for one test (override with parametrize)."""
    return {}


@pytest.fixture
def jp_server_config(tightpack_settings, service_account):
    settings = {
        "kubernetes_token_file": str(service_account / "token"),
        "kubernetes_ca_file": str(service_account / "ca.crt"),
        "kubernetes_namespace_file": str(service_account / "namespace"),
        # Tests change a source and refresh at once; test_snapshot.py tests the floor itself.
        "min_refresh_seconds": 0.0,
        **tightpack_settings,
    }
    return Config({
        "ServerApp": {"jpserver_extensions": {"jupyterlab_tightpack": True}},
        "TightpackConfig": settings,
    })


@pytest.fixture
def tightpack(jp_serverapp):
    """The running extension's TightpackConfig: tests may change it between requests."""
    return jp_serverapp.web_app.settings["tightpack_config"]


@pytest.fixture
def get(jp_fetch):
    """GET /tightpack/<path>: (status, JSON body), error statuses included."""

    async def fetch(path, **params):
        response = await jp_fetch("tightpack", path, params=params or None, raise_error=False)
        return response.code, json.loads(response.body)

    return fetch


class _Servers:
    """Local tornado test doubles, over HTTP or HTTPS, stopped after the test."""

    def __init__(self, ssl_context=None):
        self.ssl_context, self.servers = ssl_context, []

    def __call__(self, handlers):
        sock, port = tornado.testing.bind_unused_port()
        server = tornado.httpserver.HTTPServer(tornado.web.Application(handlers),
                                              ssl_options=self.ssl_context)
        server.add_sockets([sock])
        self.servers.append(server)
        return f"{'https' if self.ssl_context else 'http'}://127.0.0.1:{port}"

    def stop(self):
        for server in self.servers:
            server.stop()


@pytest.fixture
def serve(jp_asyncio_loop):
    """Start a local tornado test double: serve(handlers) -> its base URL."""
    servers = _Servers()
    yield servers
    servers.stop()


@pytest.fixture(scope="session")
def test_ca(tmp_path_factory):
    """A CA and a serving certificate for 127.0.0.1 it signed, made with Debian's openssl:
    {"ca": CA file, "cert": ..., "key": ...}."""
    d = tmp_path_factory.mktemp("tls")

    def run(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=d)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test CA",
        "-keyout", "ca.key", "-out", "ca.crt")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key",
        "-out", "server.csr")
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "2", "-extfile", "san.ext", "-out", "server.crt")
    return {"ca": str(d / "ca.crt"), "cert": str(d / "server.crt"), "key": str(d / "server.key")}


@pytest.fixture
def serve_https(jp_asyncio_loop, test_ca):
    """serve() over HTTPS with test_ca's certificate: serve_https(handlers) -> its base URL."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(test_ca["cert"], test_ca["key"])
    servers = _Servers(context)
    yield servers
    servers.stop()


@pytest.fixture
def unused_url():
    """A URL nothing listens on: connection refused."""
    sock, port = tornado.testing.bind_unused_port()
    sock.close()
    return f"http://127.0.0.1:{port}/snapshot"


def example(*parts):
    return json.loads((REPO / "examples" / pathlib.Path(*parts)).read_text())
