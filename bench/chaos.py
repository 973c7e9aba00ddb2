"""A chaos server: real pages on 127.0.0.1 that, per request and at configurable rates, answer normally or
with one of the faults a watcher meets in the wild. Used by the fault tests and by `make soak`."""

from __future__ import annotations

import gzip
import random
import socket
import struct
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = (
    "slow",
    "server_error",
    "rate_limited",
    "dropped",
    "truncated",
    "empty",
    "error_page",
    "login_wall",
    "redirect_loop",
    "gzip_bomb",
    "endless",
    "wrong_charset",
)


class _QuietServer(ThreadingHTTPServer):
    """Clients that hang up on purpose (watchdogs, size caps) are not errors of the chaos server."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        return None


@lru_cache(maxsize=1)
def _bomb() -> bytes:
    """About 50 KB on the wire, 50 MB inflated."""
    return gzip.compress(b"\0" * 50_000_000, compresslevel=9)


@dataclass
class Chaos:
    """Pages `/p/<n>` whose text changes only when `change(n)` is called, and their mirrors `/m/<n>`, which copy
    the page when `follow(n)` is called; faults drawn per request."""

    rates: dict[str, float] = field(default_factory=dict)  # fault → probability per request
    seed: int = 7
    slow_seconds: float = 3.0
    requests: int = 0
    injected: Counter[str] = field(default_factory=Counter)
    revisions: dict[int, int] = field(default_factory=dict)
    mirrored: dict[int, int] = field(
        default_factory=dict
    )  # mirror `/m/<n>` → the revision of page n it copies

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.lock = threading.Lock()
        chaos = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # as production servers do; see bench/pageserver.py

            def do_GET(self) -> None:
                chaos.answer(self)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def change(self, n: int) -> int:
        with self.lock:
            self.revisions[n] = self.revisions.get(n, 0) + 1
            return self.revisions[n]

    def follow(self, n: int) -> bool:
        """The mirror of page n copies the page as it is now; whether that changed the mirror."""
        with self.lock:
            rev = self.revisions.get(n, 0)
            moved = self.mirrored.get(n, 0) != rev
            self.mirrored[n] = rev
            return moved

    def page(self, n: int, rev: int | None = None) -> bytes:
        rev = self.revisions.get(n, 0) if rev is None else rev
        return (
            f"<!DOCTYPE html><html><head><meta charset=utf-8><title>Release {n}</title></head><body>"
            f"<nav>Home · Blog</nav><article><h1>Release notes {n}</h1><p>Revision {rev} of page {n}: café, "
            "한국어, and enough words to make a real article that a reader would want to follow.</p>"
            "<h2>Changes</h2><ul><li>First change in this release</li><li>Second change, with a "
            f"<a href='/docs/{n}'>link</a></li></ul></article><footer>© 2026</footer></body></html>"
        ).encode()

    def draw(self) -> str:
        with self.lock:
            self.requests += 1
            roll = self.rng.random()
            for fault, rate in self.rates.items():
                if roll < rate:
                    self.injected[fault] += 1
                    return fault
                roll -= rate
            return "ok"

    def answer(self, h: BaseHTTPRequestHandler) -> None:
        if h.path == "/robots.txt":
            return self.send(h, 200, b"User-agent: *\nAllow: /\n", "text/plain")
        if not h.path.startswith(("/p/", "/m/")):
            return self.send(h, 404, b"not found", "text/plain")
        n = int(h.path.split("/")[2])
        fault = self.draw()
        body = self.page(n) if h.path.startswith("/p/") else self.page(n, self.mirrored.get(n, 0))
        if fault == "ok":
            return self.send(h, 200, body)
        if fault == "slow":
            time.sleep(self.slow_seconds)
            return self.send(h, 200, body)
        if fault == "server_error":
            return self.send(h, 503, b"Service Unavailable", "text/plain")
        if fault == "rate_limited":
            return self.send(h, 429, b"Too Many Requests", "text/plain", {"Retry-After": "1"})
        if fault == "dropped":
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            h.close_connection = True
            h.connection.close()
            return None
        if fault == "truncated":
            h.send_response(200)
            h.send_header("Content-Type", "text/html; charset=utf-8")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body[: len(body) // 2])
            h.close_connection = True
            return None
        if fault == "empty":
            return self.send(h, 200, b"")
        if fault == "error_page":
            return self.send(
                h, 200, b"<html><body><h1>Service unavailable</h1><p>Try again later.</p></body></html>"
            )
        if fault == "login_wall":
            return self.send(
                h, 200, b"<html><body><form><h1>Please sign in</h1><input name=user></form></body></html>"
            )
        if fault == "redirect_loop":
            return self.send(h, 302, b"", "text/plain", {"Location": h.path})
        if fault == "gzip_bomb":
            return self.send(h, 200, _bomb(), "text/html", {"Content-Encoding": "gzip"})
        if fault == "endless":
            h.send_response(200)
            h.send_header("Content-Type", "text/html")
            h.end_headers()
            try:
                for _ in range(100_000):
                    h.wfile.write(b"<p>more</p>")
                    h.wfile.flush()
                    time.sleep(0.01)
            except OSError:
                pass
            h.close_connection = True
            return None
        if fault == "wrong_charset":
            return self.send(h, 200, body, "text/html; charset=iso-8859-1")
        raise AssertionError(fault)

    @staticmethod
    def send(
        h: BaseHTTPRequestHandler,
        status: int,
        body: bytes,
        ctype: str = "text/html; charset=utf-8",
        headers: dict[str, str] | None = None,
    ) -> None:
        try:
            h.send_response(status)
            h.send_header("Content-Type", ctype)
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body)
        except OSError:
            pass
