"""Who may read what `tightpack schedule` serves (docs/scheduler.md, HTTP): HTTPS on the secure
port; the health endpoints to anyone; /metrics to callers the API server vouches for
(TokenReview) and allows `get /metrics` (SubjectAccessReview), as kube-scheduler's delegated
authentication and authorization do; /snapshot likewise, or with the shared token of
--snapshot-token-file. Any pod can reach the port, so every refusal is tested with real
ServiceAccount tokens of the control plane."""

from __future__ import annotations

import http.client
import os
import socket
import ssl
import subprocess
import threading
import time

from harness import UNVERIFIED_TLS, http_get, http_request, wait_for


def service_account_token(api, ns: str, name: str) -> str:
    api.post(f"/api/v1/namespaces/{ns}/serviceaccounts",
             {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}})
    return api.post(f"/api/v1/namespaces/{ns}/serviceaccounts/{name}/token",
                    {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                     "spec": {"expirationSeconds": 3600}})["status"]["token"]


def allow_paths(api, ns: str, sa: str, paths: list, name: str):
    """A ClusterRole with nonResourceURLs `paths` (get), bound to the ServiceAccount."""
    api.post("/apis/rbac.authorization.k8s.io/v1/clusterroles", {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": name},
        "rules": [{"nonResourceURLs": paths, "verbs": ["get"]}]})
    api.post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
        "subjects": [{"kind": "ServiceAccount", "namespace": ns, "name": sa}]})


def test_metrics_and_snapshot_need_a_caller_the_api_server_vouches_for(cluster, schedulers, tmp_path):
    api, ns = cluster.api, cluster.ns
    cluster.node("sp-0", cpu="8", memory="32Gi")
    shared = os.urandom(24).hex()
    (tmp_path / "snapshot-token").write_text(shared + "\n")
    tp = schedulers.tightpack(identity="secure-port",
                              extra_args=["--snapshot-token-file", str(tmp_path / "snapshot-token")])
    tp.wait_ready()
    tag = os.urandom(3).hex()
    nobody = service_account_token(api, ns, "nobody")
    prometheus = service_account_token(api, ns, "prometheus")
    allow_paths(api, ns, "prometheus", ["/metrics"], f"tightpack-test-metrics-{tag}")
    try:
        # the health endpoints, to anyone
        for path in ("/healthz", "/readyz", "/livez"):
            assert tp.get(path, token=None) == (200, "ok\n"), path

        # /metrics: none, an unknown token, a token without the right, the right one
        status, body = tp.get("/metrics", token=None)
        assert status == 401 and "bearer token" in body, (status, body)
        status, body = tp.get("/metrics", token="not-a-token-" + tag)
        assert status == 401 and "does not know the token" in body, (status, body)
        status, body = tp.get("/metrics", token=nobody)
        assert status == 403 and f'system:serviceaccount:{ns}:nobody' in body and '"/metrics"' in body, \
            (status, body)
        status, body = tp.get("/metrics", token=prometheus)
        assert status == 200 and "scheduler_schedule_attempts_total" in body, (status, body[:300])
        # ... which does not extend to /snapshot
        status, body = tp.get("/snapshot", token=prometheus)
        assert status == 403 and '"/snapshot"' in body, (status, body)

        # /snapshot: the shared token, or a caller allowed `get /snapshot` (here the admin)
        status, body = tp.get("/snapshot", token=shared)
        assert status == 200 and body.startswith("{"), (status, body[:300])
        status, body = tp.get("/snapshot", token=shared[:-1] + ("0" if shared[-1] != "0" else "1"))
        assert status == 401, (status, body)
        assert tp.get("/snapshot")[0] == 200
        # the shared token is for /snapshot only
        assert tp.get("/metrics", token=shared)[0] == 401

        # the token file is read again when the Secret rotates (within 5 s)
        rotated = os.urandom(24).hex()
        (tmp_path / "snapshot-token").write_text(rotated)
        wait_for(lambda: tp.get("/snapshot", token=rotated)[0] == 200, 10, "the rotated token to be accepted")
        assert tp.get("/snapshot", token=shared)[0] == 401
    finally:
        for kind in ("clusterrolebindings", "clusterroles"):
            api.delete(f"/apis/rbac.authorization.k8s.io/v1/{kind}/tightpack-test-metrics-{tag}")


def test_the_secure_port_speaks_tls_only(cluster, schedulers):
    tp = schedulers.tightpack(identity="tls-only")
    tp.wait_ready()
    # plain HTTP to the TLS port gets no answer
    assert http_get(f"http://127.0.0.1:{tp.port}/healthz", timeout=3)[0] == 0
    # a self-signed certificate for localhost and 127.0.0.1, as kube-scheduler makes
    with socket.create_connection(("127.0.0.1", tp.port), timeout=5) as raw:
        with UNVERIFIED_TLS.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            der = tls.getpeercert(binary_form=True)
            assert tls.version() in ("TLSv1.2", "TLSv1.3")
    pem = ssl.DER_cert_to_PEM_cert(der)
    verifying = ssl.create_default_context(cadata=pem)
    assert http_request(f"https://127.0.0.1:{tp.port}/healthz")[0] == 200
    with socket.create_connection(("127.0.0.1", tp.port), timeout=5) as raw:
        with verifying.wrap_socket(raw, server_hostname="localhost") as tls:
            tls.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            assert tls.recv(4096).startswith(b"HTTP/1.1 200")
    # the connection is kept for the next request: a polling client pays one handshake
    conn = http.client.HTTPSConnection("localhost", tp.port, context=verifying, timeout=5)
    try:
        for path, token in [("/healthz", None), ("/metrics", tp.token), ("/readyz", None)]:
            conn.request("GET", path, headers={"Authorization": f"Bearer {token}"} if token else {})
            answer = conn.getresponse()
            answer.read()
            assert answer.status == 200 and not answer.will_close, (path, answer.status)
            if path == "/healthz":
                first = conn.sock
            assert conn.sock is first, f"{path} came on a new connection"
    finally:
        conn.close()
    # TLS 1.1 is refused
    old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    old.check_hostname, old.verify_mode = False, ssl.CERT_NONE
    try:
        old.minimum_version = old.maximum_version = ssl.TLSVersion.TLSv1_1
    except (ValueError, ssl.SSLError):
        return  # this Python's OpenSSL cannot even offer TLS 1.1
    with socket.create_connection(("127.0.0.1", tp.port), timeout=5) as raw:
        try:
            old.wrap_socket(raw, server_hostname="127.0.0.1")
            refused = False
        except (ssl.SSLError, OSError):
            refused = True
    assert refused, "a TLS 1.1 handshake was accepted"


def test_a_bad_serving_certificate_is_a_clear_error(cluster, schedulers, tmp_path):
    (tmp_path / "tls.crt").write_text("not a certificate\n")
    (tmp_path / "tls.key").write_text("not a key\n")
    tp = schedulers.tightpack(identity="bad-cert", start=False,
                              extra_args=["--tls-cert-file", str(tmp_path / "tls.crt"),
                                          "--tls-private-key-file", str(tmp_path / "tls.key")])
    tp.start(wait_healthy=False)
    assert tp.wait(10) == 1
    log = tp.describe(20)
    assert "--tls-cert-file" in log and "tls.crt" in log and "no PEM certificate" in log, log


def test_reviews_the_api_server_is_slow_to_give_hold_no_one_else(cluster, schedulers, tmp_path):
    """Issue 40: two /metrics requests with unknown tokens while kube-apiserver was slow held
    the review lock across their network calls (10 s each) on both handler threads: /healthz
    waited 19.5 s and a cached Prometheus token got 503 after 29.5 s. Now no lock is held
    across a review, at most two run at once with a handler thread to spare, and the probes
    never wait for a handler. The TokenReviews stall in a fault proxy (a test double for a slow
    API server: a real one cannot be told to answer only these slowly)."""
    from fault_proxy import FaultProxy, control_plane_files

    api, ns = cluster.api, cluster.ns
    tag = os.urandom(3).hex()
    prometheus = service_account_token(api, ns, "prometheus")
    allow_paths(api, ns, "prometheus", ["/metrics"], f"tightpack-test-slow-reviews-{tag}")
    cluster.node("slow-0", cpu="8", memory="32Gi")
    proxy = FaultProxy(cluster.cp.url, *control_plane_files(cluster.cp))
    try:
        via_proxy = cluster.cp.write_kubeconfig(tmp_path / "via-proxy.kubeconfig", server=proxy.url)
        tp = schedulers.tightpack(identity="slow-reviews", kubeconfig=str(via_proxy))
        tp.wait_ready()
        assert tp.get("/metrics", token=prometheus)[0] == 200  # reviewed once, cached for 10 s
        proxy.stall(lambda method, path: method == "POST" and "tokenreviews" in path)
        stuck = [threading.Thread(target=http_request, daemon=True,
                                  args=(f"{tp.base}/metrics", 15, f"unknown-{tag}-{i}"),
                                  kwargs={"source": f"127.0.6.{i + 1}"}) for i in range(4)]
        for t in stuck:
            t.start()
        time.sleep(1)
        timings = []
        for _ in range(5):
            t = time.monotonic()
            health = tp.get("/healthz", token=None)[0]
            scrape = http_request(f"{tp.base}/metrics", 10, prometheus, source="127.0.0.91")[0]
            timings.append((health, scrape, round(time.monotonic() - t, 2)))
            time.sleep(0.3)
        assert all(h == 200 and s == 200 and took < 1.0 for h, s, took in timings), timings
    finally:
        proxy.stall(None)
        proxy.close()
        api.delete(f"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/tightpack-test-slow-reviews-{tag}")
        api.delete(f"/apis/rbac.authorization.k8s.io/v1/clusterroles/tightpack-test-slow-reviews-{tag}")


def test_a_rotated_serving_certificate_is_served_without_a_restart(cluster, schedulers, tmp_path):
    """Issue 40: the serving certificate was read once, so a rotated tls.existingSecret was
    ignored until a restart. The files are looked at again (at most every 5 s) when a connection
    comes; a changed pair serves the connections after it, and a half-written one (a key that
    does not match yet) leaves the old pair serving."""
    def make(name):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-nodes", "-days", "2", "-subj", f"/CN={name}", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", str(tmp_path / f"{name}.key"), "-out", str(tmp_path / f"{name}.crt")],
                       check=True, capture_output=True)
        return (tmp_path / f"{name}.crt").read_text(), (tmp_path / f"{name}.key").read_text()

    first, second = make("first"), make("second")
    crt, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    crt.write_text(first[0])
    key.write_text(first[1])
    cluster.node("rot-0", cpu="8", memory="32Gi")
    tp = schedulers.tightpack(identity="rotation",
                              extra_args=["--tls-cert-file", str(crt), "--tls-private-key-file", str(key)])

    def served() -> str:
        return ssl.DER_cert_to_PEM_cert(ssl.PEM_cert_to_DER_cert(
            ssl.get_server_certificate(("127.0.0.1", tp.port), timeout=5)))

    def same(a: str, b: str) -> bool:
        return ssl.PEM_cert_to_DER_cert(a) == ssl.PEM_cert_to_DER_cert(b)

    assert same(served(), first[0])
    key.write_text(second[1])  # the key first: for a moment the pair does not match
    time.sleep(6)
    assert same(served(), first[0]), "a half-written pair replaced the one that works"
    assert tp.get("/healthz", token=None)[0] == 200
    crt.write_text(second[0])
    wait_for(lambda: same(served(), second[0]), 15, "the rotated certificate to be served")
    assert tp.get("/healthz", token=None)[0] == 200
    log = tp.log_text()
    assert "not reloaded, the old one serves" in log and f"reloaded from {crt}" in log, log[-2000:]
