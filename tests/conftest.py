"""Shared fixtures: real local HTTP servers (127.0.0.1, port 0) whose answers each test programs, receivers
that record what they get, and builders for configurations and apps with a controlled clock."""

from __future__ import annotations

import email.utils
import gzip
import io
import json
import os
import socket
import ssl
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import hypothesis
import pytest

from differ.app import App
from differ.config import Config, parse_config
from differ.store import Store

ROOT = Path(__file__).resolve().parent.parent
REPLAY = ROOT / "examples" / "pytorch-2.13"
DATA = Path(__file__).resolve().parent / "data"

# `make test` draws the same examples every run: a property test that met a new failing example there would stop
# an unrelated change from landing. `make fuzz` (DIFFER_HYPOTHESIS=explore) draws new ones each run (1,000 where a
# test does not say how many); a failure it finds becomes an @example of its test.
hypothesis.settings.register_profile("repeatable", derandomize=True, database=None)
hypothesis.settings.register_profile("explore", max_examples=1000, database=None)
hypothesis.settings.load_profile(os.environ.get("DIFFER_HYPOTHESIS", "repeatable"))


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse to test compiled modules older than their source: the tests would run the old code."""
    for compiled in sorted((ROOT / "differ").rglob("*.so")):
        source = compiled.with_name(compiled.name.split(".", 1)[0] + ".py")
        if source.exists() and source.stat().st_mtime > compiled.stat().st_mtime:
            pytest.exit(
                f"{source.relative_to(ROOT)} changed after it was compiled: run `make test` (which compiles it "
                f"again), or delete {compiled.relative_to(ROOT)} to test it as Python",
                returncode=2,
            )


class QuietServer(ThreadingHTTPServer):
    """A test server thread whose client hung up (a timeout, a size cap, a killed process: what many tests do on
    purpose) is not an error to print; any other error in a handler still is."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError | TimeoutError | ssl.SSLError) or (
            isinstance(error, ValueError) and "closed file" in str(error)
        ):
            return
        super().handle_error(request, client_address)


@dataclass
class Reply:
    """What the server answers for one path: status, headers, body, and optional behaviour."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    etag: str | None = None
    last_modified: str | None = None
    delay: float = 0.0
    trickle: float = 0.0  # seconds between body bytes
    reset: bool = False  # close the connection without answering
    truncate: int | None = None  # send only this many bytes of the body (Content-Length says more)
    gzip: bool = False
    trickle_headers: float = 0.0  # seconds between header bytes, forever


@dataclass
class Hit:
    path: str
    headers: dict[str, str]
    at: float
    body: bytes = b""
    port: int = 0  # the client's port: one port for several hits means the connection was reused
    method: str = "GET"


class Server:
    """A programmable HTTP server on 127.0.0.1 that records every request."""

    def __init__(self, tls: ssl.SSLContext | None = None, port: int = 0) -> None:
        self.routes: dict[str, Reply | Callable[[Hit], Reply]] = {}
        self.hits: list[Hit] = []
        # the clock its Date header is read from: the machine's, unless a test gives it the test's clock (a
        # server that dates its answers as the test's time does)
        self.clock: Callable[[], datetime | str] | None = None  # (or the header as it says it)
        self.lock = threading.Lock()
        handler = self._handler()
        self.httpd = QuietServer(("127.0.0.1", port), handler)
        self.scheme = "http"
        if tls is not None:  # HTTPS: the handshake happens as each connection is accepted
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
            self.scheme = "https"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.httpd.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base + path

    def page(self, path: str, body: bytes | str, ctype: str = "text/html; charset=utf-8", **kw: Any) -> None:
        data = body.encode() if isinstance(body, str) else body
        headers = {"Content-Type": ctype} if ctype else {}
        headers.update(kw.pop("headers", {}))
        self.routes[path] = Reply(body=data, headers=headers, **kw)

    def requests_to(self, path: str) -> list[Hit]:
        with self.lock:
            return [h for h in self.hits if h.path == path]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # as production servers do; see bench/pageserver.py

            def do_GET(self) -> None:
                self._answer()

            def do_POST(self) -> None:
                self._answer()

            def do_PUT(self) -> None:
                self._answer()

            def do_PATCH(self) -> None:
                self._answer()

            def date_time_string(self, timestamp: float | None = None) -> str:
                if server.clock is not None and timestamp is None:
                    now = server.clock()
                    return now if isinstance(now, str) else email.utils.format_datetime(now, usegmt=True)
                return super().date_time_string(timestamp)

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if len(body) < length:  # the client went away mid-request: a server never sees a request
                    self.close_connection = True
                    return
                hit = Hit(
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    time.monotonic(),
                    body,
                    self.client_address[1],
                    self.command,
                )
                with server.lock:
                    server.hits.append(hit)
                route = server.routes.get(self.path)
                if (
                    route is None
                ):  # a route ending in "*" answers every path that starts with what precedes it
                    prefixes = [k for k in server.routes if k.endswith("*") and self.path.startswith(k[:-1])]
                    route = server.routes[max(prefixes, key=len)] if prefixes else None
                if route is None and self.path == "/robots.txt":
                    route = Reply(404, b"no robots.txt")
                if route is None:
                    route = Reply(404, b"not found")
                reply = route(hit) if callable(route) else route
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.trickle_headers:
                    try:
                        self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                        for _ in range(100_000):
                            self.wfile.write(b"X")
                            self.wfile.flush()
                            time.sleep(reply.trickle_headers)
                    except OSError:
                        pass
                    self.close_connection = True
                    return
                if reply.reset:
                    import struct

                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.rfile.close()
                    self.wfile.close()
                    self.connection.close()
                    self.close_connection = True
                    return
                inm = self.headers.get("If-None-Match")
                ims = self.headers.get("If-Modified-Since")
                if (reply.etag and inm == reply.etag) or (
                    reply.last_modified and ims == reply.last_modified and not inm
                ):
                    self.send_response(304)
                    self.send_header("Content-Length", "0")
                    if reply.etag:
                        self.send_header("ETag", reply.etag)
                    self.end_headers()
                    return
                data = gzip.compress(reply.body) if reply.gzip else reply.body
                self.send_response(reply.status)
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                if reply.gzip:
                    self.send_header("Content-Encoding", "gzip")
                if reply.etag:
                    self.send_header("ETag", reply.etag)
                if reply.last_modified:
                    self.send_header("Last-Modified", reply.last_modified)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    if reply.trickle:
                        for i in range(len(data)):
                            self.wfile.write(data[i : i + 1])
                            self.wfile.flush()
                            time.sleep(reply.trickle)
                    elif reply.truncate is not None:
                        self.wfile.write(data[: reply.truncate])
                        self.wfile.flush()
                        self.close_connection = True
                    else:
                        self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                return

        return Handler


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


@pytest.fixture
def receiver() -> Iterator[Server]:
    """A second server, for Slack and webhook posts."""
    s = Server()
    yield s
    s.close()


class Proxy:
    """A forward HTTP proxy on 127.0.0.1, as a company network has: absolute-URI requests are forwarded, CONNECT
    is tunnelled, and each request line is recorded. With `credentials` ("user:password"), a request without
    them as Basic Proxy-Authorization gets 407. `hosts` maps names only the proxy can resolve to addresses.
    `closed`: a request for any other host than those and 127.0.0.1 gets 403, the name never resolved (what a
    browser asks of its vendor's services goes nowhere)."""

    def __init__(
        self, credentials: str | None = None, hosts: dict[str, str] | None = None, *, closed: bool = False
    ) -> None:
        self.seen: list[str] = []
        self.credentials = credentials
        self.hosts = hosts or {}
        self.closed = closed
        self.httpd = QuietServer(("127.0.0.1", 0), self._handler())
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    def url(self, userinfo: str = "") -> str:
        return f"http://{userinfo + '@' if userinfo else ''}127.0.0.1:{self.port}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _allowed(self) -> bool:
                proxy.seen.append(f"{self.command} {self.path}")
                from urllib.parse import urlsplit

                host = (
                    self.path.rsplit(":", 1)[0] if self.command == "CONNECT" else urlsplit(self.path).hostname
                )
                if proxy.closed and host not in proxy.hosts and host != "127.0.0.1":
                    self.send_response(403)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return False
                if proxy.credentials is None:
                    return True
                import base64

                expected = "Basic " + base64.b64encode(proxy.credentials.encode()).decode()
                if self.headers.get("Proxy-Authorization") == expected:
                    return True
                self.send_response(407)
                self.send_header("Proxy-Authenticate", 'Basic realm="proxy"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return False

            def do_CONNECT(self) -> None:
                if not self._allowed():
                    return
                host, port = self.path.rsplit(":", 1)
                upstream = socket.create_connection((proxy.hosts.get(host, host), int(port)))
                self.send_response(200, "Connection established")
                self.end_headers()
                self.close_connection = True
                self._relay(self.connection, upstream)

            @staticmethod
            def _relay(a: socket.socket, b: socket.socket) -> None:
                import selectors

                with selectors.DefaultSelector() as sel, b:
                    sel.register(a, selectors.EVENT_READ, b)
                    sel.register(b, selectors.EVENT_READ, a)
                    while True:
                        for key, _ in sel.select(timeout=10):
                            data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                            if not data:
                                return
                            key.data.sendall(data)

            def _forward(self) -> None:
                if not self._allowed():
                    return
                import http.client
                from urllib.parse import urlsplit

                target = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                skip = {"proxy-authorization", "proxy-connection", "connection", "keep-alive"}
                headers = {k: v for k, v in self.headers.items() if k.lower() not in skip}
                host = target.hostname or ""
                upstream = http.client.HTTPConnection(
                    proxy.hosts.get(host, host), target.port or 80, timeout=10
                )
                path = target.path + (f"?{target.query}" if target.query else "")
                upstream.request(self.command, path or "/", body=body, headers=headers)
                answer = upstream.getresponse()
                data = answer.read()
                upstream.close()
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _forward

        return Handler


@pytest.fixture
def proxy() -> Iterator[Proxy]:
    p = Proxy()
    yield p
    p.close()


class Clock:
    """A controllable wall clock; `sleep` advances it instead of waiting."""

    def __init__(self, start: datetime | None = None):
        self.now = start or datetime(2026, 7, 8, 17, 45, tzinfo=UTC)
        self.mono = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)
        self.mono += seconds

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.advance(seconds)

    def monotonic(self) -> float:
        return self.mono


SERVICE = """
[service]
snapshots = "{store}"
per_host_delay = "0s"
retries = 0
timeout = "5s"
workers = 1
"""


def source_toml(url: str, id: str = "canonical", kind: str = "html", extra: str = "") -> str:
    return f'id = "{id}"\nurl = "{url}"\nkind = "{kind}"\nallow_private = ["127.0.0.1"]\n{extra}\n'


def make_config(tmp: Path, body: str, service: str = "", env: dict[str, str] | None = None) -> Config:
    overridden = {line.split("=")[0].strip() for line in service.splitlines() if "=" in line}
    base = "\n".join(
        line
        for line in SERVICE.format(store=tmp / "snapshots").splitlines()
        if line.split("=")[0].strip() not in overridden
    )
    text = base + "\n" + service + body
    return parse_config(text, tmp / "config.toml", env or {})


def one_doc(
    tmp: Path,
    url: str,
    *,
    kind: str = "html",
    extra: str = "",
    mirrors: list[str] | None = None,
    service: str = "",
    notify: str = "",
    env: dict[str, str] | None = None,
) -> Config:
    body = '[[documents]]\nid = "doc"\ntitle = "Doc"\n[documents.canonical]\n' + source_toml(
        url, "canonical", kind, extra
    )
    for mirror in mirrors or []:
        body += "[[documents.mirrors]]\n" + mirror
    return make_config(tmp, body + notify, service, env)


def make_app(config: Config, clock: Clock | None = None) -> App:
    clock = clock or Clock()
    return App(
        config,
        Store(config.service.snapshots),
        now=clock,
        sleep=clock.sleep,
        monotonic=clock.monotonic,
        out=io.StringIO(),
        err=io.StringIO(),
    )


@pytest.fixture
def clock() -> Clock:
    return Clock()


def article(body: str, title: str = "Post") -> str:
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title></head><body><nav>Home</nav>"
        f"<article><h1>{title}</h1>{body}</article><footer>© 2026</footer></body></html>"
    )


def read_json(path: Path) -> Any:
    return json.loads(path.read_text())
