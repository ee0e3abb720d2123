"""Clients that try to hold `tightpack schedule`'s HTTP ports (docs/scheduler.md, HTTP).

Any pod in the cluster can connect to the daemon. Before the listener was asynchronous, one
connection that sent nothing kept /healthz unanswered for as long as it stayed, so the kubelet
restarted the scheduler, and SIGTERM waited for it. Here an idle connection, a sender of one
byte at a time, a reader of /snapshot at 1 KB/s and 200 concurrent clients stay connected while
/healthz is asked every 0.2 s on both ports; then SIGTERM arrives with them still there."""

from __future__ import annotations

import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from harness import connect, free_port, http_get, http_request, wait_for

PROBE_DEADLINE = 1.0  # seconds /healthz may take, whoever else is connected
EXIT_DEADLINE = 2.0  # seconds from SIGTERM to exit, whoever else is connected


class Probe(threading.Thread):
    """Asks /healthz every 0.2 s until stopped; keeps each answer's status and time."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url, self.answers, self.stopping = url, [], threading.Event()

    def run(self):
        while not self.stopping.is_set():
            t = time.monotonic()
            status, _ = http_get(self.url, timeout=5)
            self.answers.append((status, time.monotonic() - t))
            self.stopping.wait(0.2)

    def stop(self) -> list:
        self.stopping.set()
        self.join(10)
        return self.answers


def test_no_client_holds_the_ports_or_the_exit(cluster, schedulers):
    for i in range(30):
        cluster.node(f"hc-{i:02d}", cpu="8", memory="32Gi",
                     labels={"cloud.google.com/gke-nodepool": "cpu", "hostile-clients/padding": "x" * 60})
    probe_port = free_port()
    tp = schedulers.tightpack(identity="hostile-clients", extra_args=["--probe-listen", f"127.0.0.1:{probe_port}"])
    tp.wait_ready()
    status, body = http_get(f"http://127.0.0.1:{probe_port}/readyz")
    assert (status, body.strip()) == (200, "ok")
    status, body = http_get(f"http://127.0.0.1:{probe_port}/snapshot")
    assert status == 404, "the probe port serves probes only"
    assert tp.get("/snapshot", timeout=30)[0] == 200

    probes = [Probe(f"{tp.base}/healthz"), Probe(f"http://127.0.0.1:{probe_port}/healthz")]
    for p in probes:
        p.start()
    held = []
    stop = threading.Event()
    try:
        # idle connections: one that never starts TLS, one that stops after the handshake
        held.append(connect(tp.port, tls=False))
        held.append(connect(tp.port))

        # a sender of one byte every 0.3 s
        slowloris = connect(tp.port)
        held.append(slowloris)

        def drip():
            request = b"GET /snapshot HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 1000
            for b in request:
                if stop.wait(0.3):
                    return
                try:
                    slowloris.send(bytes([b]))
                except OSError:
                    return  # dropped at the read deadline, as it should be
        threading.Thread(target=drip, daemon=True).start()

        # a reader of /snapshot at 1 KB/s
        reader = connect(tp.port)
        held.append(reader)
        reader.sendall(f"GET /snapshot HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tp.token}\r\n\r\n".encode())

        def trickle():
            while not stop.wait(1.0):
                try:
                    chunk = reader.recv(1024)
                except OSError:
                    return
                if not chunk:
                    return
        threading.Thread(target=trickle, daemon=True).start()

        time.sleep(2)
        # 200 concurrent clients, from 20 addresses (one address may hold 32 connections)
        with ThreadPoolExecutor(200) as pool:
            answers = list(pool.map(lambda i: http_request(f"{tp.base}/readyz", 10,
                                                           source=f"127.0.3.{1 + i % 20}")[0], range(200)))
        assert answers.count(200) == 200, f"of 200 concurrent clients, {answers.count(200)} got 200"
        time.sleep(3)
    finally:
        answers = [p.stop() for p in probes]
    for name, got in zip(("--listen", "--probe-listen"), answers):
        assert len(got) >= 10, f"{name}: only {len(got)} probes in 6 s"
        late = [(s, round(t, 2)) for s, t in got if s != 200 or t > PROBE_DEADLINE]
        assert not late, f"{name}: /healthz not answered within {PROBE_DEADLINE} s: {late} of {len(got)}"

    # SIGTERM with the idle, the dripping and the slow clients still connected
    t = time.monotonic()
    tp.proc.send_signal(15)
    code = tp.wait(10)
    took = time.monotonic() - t
    stop.set()
    for s in held:
        s.close()
    assert code == 0, f"exit status {code} after SIGTERM:{tp.describe(20)}"
    assert took < EXIT_DEADLINE, f"SIGTERM took {took:.1f} s with clients connected:{tp.describe(20)}"


def shared_snapshot_token(tmp_path) -> tuple:
    """(the token every notebook server holds, the flags that give it to the daemon)."""
    token = "shared-snapshot-token-" + "7" * 24
    (tmp_path / "snapshot-token").write_text(token + "\n")
    return token, ["--snapshot-token-file", str(tmp_path / "snapshot-token")]


def test_snapshot_is_built_at_most_every_few_seconds_and_revalidated(cluster, schedulers, tmp_path):
    """/snapshot was built under the decision lock on every request; every user's server polls
    it. Now it is rebuilt only when the cluster changed and at most every 3 s, served from the
    same bytes meanwhile, and a client that sends its ETag back gets 304 with no body."""
    def builds() -> float:
        return tp.metrics().value("tightpack_snapshot_build_duration_seconds_count") or 0

    cluster.node("sc-0", cpu="8", memory="32Gi")
    shared, flags = shared_snapshot_token(tmp_path)
    tp = schedulers.tightpack(identity="snapshot-cache", extra_args=flags)
    tp.wait_ready()
    before = builds()
    t = time.monotonic()
    # 20 users' servers (one address each, as pods have, and the shared token), asking at once
    # and again
    with ThreadPoolExecutor(20) as pool:
        bodies = list(pool.map(
            lambda i: http_request(f"{tp.base}/snapshot", 10, shared, source=f"127.0.0.{10 + i % 20}"),
            range(40)))
    took = time.monotonic() - t
    assert all(status == 200 for status, _, _ in bodies), sorted({status for status, _, _ in bodies})
    assert builds() - before <= 1 + took / 3, f"{builds() - before:g} builds for 100 requests in {took:.1f} s"
    status, headers, body = http_request(f"{tp.base}/snapshot", 10, tp.token)
    etag = headers.get("ETag", "")
    assert status == 200 and etag.startswith('"') and body
    status, _, body = http_request(f"{tp.base}/snapshot", 10, tp.token, {"If-None-Match": etag})
    assert (status, body) == (304, ""), "nothing changed: the same tag, no body"
    # A change is published on the next request after the interval.
    cluster.node("sc-1", cpu="8", memory="32Gi")
    wait_for(lambda: "sc-1" in tp.get("/snapshot")[1], 10, "/snapshot to show the new node")


def test_a_client_in_a_loop_waits_its_turn(cluster, schedulers, tmp_path):
    """Any pod can ask /snapshot in a loop. Each client address gets a burst of 5 answers, then
    one a second (the sidebar's server asks at most every 5 s); a request beyond its turn waits,
    so a looping client spends nothing, and one whose turn is over 5 s away gets 429 with
    Retry-After. Another address with the shared token is served at once meanwhile, and probes
    are never paced. A personal credential is paced as one caller wherever it asks from: the
    administrator's token, spent by the loop, waits on another address too."""
    cluster.node("pace-0", cpu="8", memory="32Gi")
    shared, flags = shared_snapshot_token(tmp_path)
    tp = schedulers.tightpack(identity="pacing", extra_args=flags)
    tp.wait_ready()
    answers, stop = [], threading.Event()

    def loop(_):
        while not stop.is_set():
            status, headers, _ = http_request(f"{tp.base}/snapshot", 10, shared, source="127.0.0.77")
            answers.append((status, headers.get("Retry-After"), time.monotonic()))

    t = time.monotonic()
    with ThreadPoolExecutor(10) as pool:
        for _ in range(10):
            pool.submit(loop, None)
        time.sleep(1)
        elsewhere = time.monotonic()
        other = http_request(f"{tp.base}/snapshot", 10, shared, source="127.0.0.78")[0]
        elsewhere = time.monotonic() - elsewhere
        # the administrator's token from two addresses: five at once, then waits wherever asked
        personal = []
        for source in ("127.0.0.79", "127.0.0.80") * 3:
            asked = time.monotonic()
            personal.append((http_request(f"{tp.base}/snapshot", 10, tp.token, source=source)[0],
                             time.monotonic() - asked))
        health = http_request(f"{tp.base}/healthz", 5, source="127.0.0.77")[0]
        time.sleep(5)
        stop.set()
    window = 6.0
    served = [a for a in answers if a[0] == 200 and a[2] - t <= window]
    refused = [a for a in answers if a[0] == 429]
    assert other == 200 and elsewhere < 1, f"another address waited {elsewhere:.1f} s ({other})"
    assert [status for status, _ in personal] == [200] * 6, personal
    assert all(waited < 1 for _, waited in personal[:5]) and personal[5][1] > 0.5, personal
    assert health == 200
    # a burst of 5, then one a second; a little slack for the clock
    assert 5 <= len(served) <= 5 + window + 1, f"{len(served)} answers in {window} s from one address"
    assert refused and all(ra == "5" for _, ra, _ in refused), refused[:3]
    assert {s for s, _, _ in answers} <= {200, 429}, sorted({s for s, _, _ in answers})


class Hoarder(threading.Thread):
    """Keeps `count` idle TCP connections from `source` to a port, opening again whatever the
    daemon drops, as a user's pod in a loop would."""

    def __init__(self, port: int, source: str, count: int):
        super().__init__(daemon=True)
        self.port, self.source, self.count = port, source, count
        self.stopping, self.held, self.opened = threading.Event(), [], 0

    def run(self):
        while not self.stopping.is_set():
            alive = []
            for s in self.held:
                try:
                    s.setblocking(False)
                    gone = s.recv(1) == b""
                except BlockingIOError:
                    gone = False
                except OSError:
                    gone = True
                if gone:
                    s.close()
                else:
                    alive.append(s)
            self.held = alive
            while len(self.held) < self.count and not self.stopping.is_set():
                try:
                    s = socket.create_connection(("127.0.0.1", self.port), timeout=2,
                                                 source_address=(self.source, 0))
                except OSError:
                    break
                self.held.append(s)
                self.opened += 1
            self.stopping.wait(0.2)

    def stop(self):
        self.stopping.set()
        self.join(10)
        for s in self.held:
            s.close()


def test_pods_hoarding_connections_cannot_starve_the_probes(cluster, schedulers):
    """Issue 40: one pod kept ~270 idle connections to the probe port and /healthz failed 36
    probes of 40; the chart's liveness probe then restarted every replica attacked. Now one
    address holds at most 32 connections, and when all 256 are taken an idle one of the address
    holding most gives way: one pod with 300, and twelve more with 30 each, on both ports, while
    /healthz is asked every 0.2 s from the kubelet's address on both."""
    cluster.node("hoard-0", cpu="8", memory="32Gi")
    probe_port = free_port()
    tp = schedulers.tightpack(identity="hoarders", extra_args=["--probe-listen", f"127.0.0.1:{probe_port}"])
    tp.wait_ready()
    hoarders = []
    for port in (probe_port, tp.port):
        hoarders.append(Hoarder(port, "127.0.0.66", 300))
        hoarders += [Hoarder(port, f"127.0.4.{i}", 30) for i in range(1, 13)]
    for h in hoarders:
        h.start()
    time.sleep(2)
    probes = [Probe(f"{tp.base}/healthz"), Probe(f"http://127.0.0.1:{probe_port}/healthz")]
    for p in probes:
        p.start()
    time.sleep(8)
    answers = [p.stop() for p in probes]
    held = sum(len(h.held) for h in hoarders)
    for h in hoarders:
        h.stop()
    assert held >= 400, f"the hoarders held only {held} connections: the test did not attack"
    for name, got in zip(("--listen", "--probe-listen"), answers):
        assert len(got) >= 20, f"{name}: only {len(got)} probes in 8 s"
        late = [(s, round(t, 2)) for s, t in got if s != 200 or t > PROBE_DEADLINE]
        assert not late, f"{name}: /healthz not answered within {PROBE_DEADLINE} s: {late} of {len(got)}"
    assert tp.alive()


def test_anonymous_loops_do_not_crowd_out_prometheus(cluster, schedulers):
    """Issue 40: 60 addresses looping on /metrics without credentials used up the global pace
    (10/s) before authentication: the administrator's Prometheus waited seconds for its turn,
    then got 429. A paced path without a credential is now refused (401) before it takes a
    turn, and each scrape is answered within a second."""
    cluster.node("prom-0", cpu="8", memory="32Gi")
    tp = schedulers.tightpack(identity="prometheus")
    tp.wait_ready()
    stop, anonymous = threading.Event(), []

    def loop(i):
        while not stop.is_set():
            anonymous.append(http_request(f"{tp.base}/metrics", 5, source=f"127.0.5.{1 + i}")[0])

    scrapes = []
    with ThreadPoolExecutor(60) as pool:
        for i in range(60):
            pool.submit(loop, i)
        time.sleep(2)
        for _ in range(8):
            t = time.monotonic()
            status = http_request(f"{tp.base}/metrics", 10, tp.token, source="127.0.0.90")[0]
            scrapes.append((status, round(time.monotonic() - t, 2)))
            time.sleep(0.5)
        stop.set()
    assert len(anonymous) > 100 and set(anonymous) <= {401}, sorted(set(anonymous))
    assert all(status == 200 and took < 1.0 for status, took in scrapes), f"Prometheus: {scrapes}"
