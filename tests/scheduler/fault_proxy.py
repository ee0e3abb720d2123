"""A fault-injecting HTTPS proxy between one client and the test API server, on loopback.

The proxy ends the client's TLS with the API server's own serving certificate (so the
client's kubeconfig keeps the control plane's CA) and opens one upstream TLS connection per
client connection. It reads each request on the way in, so that it can record when it was
forwarded and hold back the requests a test chooses (`stall`), and relays the answers back
byte for byte, watches included. A held request is never forwarded: the client's own
timeout ends it, and the proxy closes that connection once the stall is lifted.

This is a test double for a network that delays some requests and not others: a real
kube-apiserver cannot be told to answer one client's Lease requests slowly.
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
import time
from pathlib import Path
from typing import Callable, Optional


class Forwarded:
    """One request the proxy forwarded: when (time.monotonic()), method and path."""

    __slots__ = ("at", "method", "path")

    def __init__(self, at: float, method: str, path: str):
        self.at, self.method, self.path = at, method, path

    def __repr__(self) -> str:
        return f"{self.at:.3f} {self.method} {self.path}"


class FaultProxy:
    def __init__(self, upstream_url: str, ca_file: str, cert_file: str, key_file: str):
        host_port = upstream_url.split("://", 1)[1].split("/", 1)[0]
        host, _, port = host_port.rpartition(":")
        self.upstream = (host, int(port))
        self.upstream_tls = ssl.create_default_context(cafile=ca_file)
        self.server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.server_tls.load_cert_chain(cert_file, key_file)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.forwarded: list = []
        self.held: list = []
        self._stall: Optional[Callable[[str, str], bool]] = None
        self._unstalled = threading.Event()
        self._unstalled.set()
        self._closing = threading.Event()
        self._lock = threading.Lock()
        self._sockets: list = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def stall(self, predicate: Optional[Callable[[str, str], bool]]):
        """Hold back every later request for which predicate(method, path) is true; None lifts it."""
        with self._lock:
            self._stall = predicate
            if predicate is None:
                self._unstalled.set()
            else:
                self._unstalled.clear()

    def requests(self, predicate: Callable[[Forwarded], bool] = lambda f: True) -> list:
        with self._lock:
            return [f for f in self.forwarded if predicate(f)]

    def close(self):
        self._closing.set()
        self._unstalled.set()
        try:
            self.listener.close()
        except OSError:
            pass
        with self._lock:
            for s in self._sockets:
                try:
                    s.close()
                except OSError:
                    pass

    # ------------------------------------------------------------------ internals

    def _accept(self):
        while not self._closing.is_set():
            try:
                raw, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(raw,), daemon=True).start()

    def _serve(self, raw: socket.socket):
        # One thread per connection moves bytes both ways: an SSL object is not
        # safe to read and write from two threads at once.
        try:
            client = self.server_tls.wrap_socket(raw, server_side=True)
        except (OSError, ssl.SSLError):
            raw.close()
            return
        try:
            upstream = self.upstream_tls.wrap_socket(socket.create_connection(self.upstream, timeout=10),
                                                     server_hostname=self.upstream[0])
            upstream.settimeout(None)
        except OSError:
            client.close()
            return
        with self._lock:
            self._sockets += [client, upstream]
        # Non-blocking reads: a readable socket need not hold application data
        # (TLS 1.3 sends session tickets after the handshake), and a blocking
        # read would then wait for data that the other side waits for us to send.
        client.setblocking(False)
        upstream.setblocking(False)
        buffer = b""
        try:
            while not self._closing.is_set():
                ready = [s for s in (client, upstream) if s.pending()]
                if not ready:
                    ready = select.select([client, upstream], [], [], 1.0)[0]
                if upstream in ready:
                    chunk = self._recv(upstream)
                    if chunk == b"":
                        return
                    if chunk:
                        self._send(client, chunk)
                if client in ready:
                    chunk = self._recv(client)
                    if chunk == b"":
                        return
                    buffer += chunk or b""
                    while True:
                        request = self._take_request(buffer)
                        if request is None:
                            break
                        method, path, size = request
                        data, buffer = buffer[:size], buffer[size:]
                        with self._lock:
                            stall = self._stall
                        if stall is not None and stall(method, path):
                            with self._lock:
                                self.held.append(Forwarded(time.monotonic(), method, path))
                            self._unstalled.wait()
                            return  # never forwarded; the connection goes
                        with self._lock:
                            self.forwarded.append(Forwarded(time.monotonic(), method, path))
                        self._send(upstream, data)
        except (OSError, ssl.SSLError, ValueError):
            return
        finally:
            for s in (client, upstream):
                try:
                    s.close()
                except OSError:
                    pass

    @staticmethod
    def _recv(sock):
        """What arrived (b"" when the peer closed), or None when no data is there yet."""
        try:
            return sock.recv(65536)
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
            return None

    @staticmethod
    def _send(sock, data: bytes):
        sock.setblocking(True)
        try:
            sock.sendall(data)
        finally:
            sock.setblocking(False)

    @staticmethod
    def _take_request(buffer: bytes):
        """(method, path, size in bytes) of the first complete request in buffer, or None."""
        end = buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        lines = buffer[:end].decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
            if name.strip().lower() == "transfer-encoding":
                raise ValueError("chunked requests are not supported by the fault proxy")
        size = end + 4 + length
        if len(buffer) < size:
            return None
        return method, target.split("?", 1)[0], size


def control_plane_files(cp) -> tuple:
    """(ca, cert, key) of the control plane's serving certificate, which the proxy serves too."""
    directory = Path(cp.ca).parent
    return cp.ca, str(directory / "apiserver.crt"), str(directory / "apiserver.key")
