"""A separate process serving N release-post pages of about 25 KB on 127.0.0.1, for the check-cycle benchmark.

Each page is the replay's canonical page made distinct by its number. `/_bench/...` endpoints set whether
the server sends validators (ETag and Last-Modified, answering conditional requests with 304), change some
pages (a new revision edits one sentence), and report the bytes and requests served since the last report.
Run: python -m bench.pageserver [--pages N]; it prints its base URL on the first line.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

TEMPLATE = (
    Path(__file__).resolve().parent.parent / "examples/pytorch-2.13/canonical/fetch-1.html"
).read_text()
EPOCH = 1_780_000_000  # Last-Modified of revision 0


def page(number: int, revision: int) -> bytes:
    """Page `number` at `revision`: its own title, and from revision 1 on an edited sentence."""
    text = TEMPLATE.replace("PyTorch 2.13", f"PyTorch 2.13 (post {number})")
    if revision:
        text = text.replace(
            "We are excited to announce",
            f"Revised {revision} times: we are excited to announce",
            1,
        )
    return text.encode()


class State:
    def __init__(self, pages: int) -> None:
        self.pages = pages
        self.revisions = [0] * pages
        self.validators = True
        self.next_to_change = 0
        self.bytes = 0
        self.requests = 0
        self.lock = threading.Lock()
        self.cache: dict[tuple[int, int], bytes] = {}

    def body(self, number: int) -> tuple[bytes, int]:
        revision = self.revisions[number]
        key = (number, revision)
        if key not in self.cache:
            self.cache[key] = page(number, revision)
        return self.cache[key], revision

    def churn(self, count: int) -> list[int]:
        changed = []
        for _ in range(count):
            n = self.next_to_change % self.pages
            self.revisions[n] += 1
            self.next_to_change += 1
            changed.append(n)
        return changed


class Handler(BaseHTTPRequestHandler):
    state: ClassVar[State]
    protocol_version = "HTTP/1.1"
    # As production servers do (nginx's tcp_nodelay): without it, a body written after its headers waits for the
    # client's delayed ACK, 40 ms on every request of a reused connection.
    disable_nagle_algorithm = True

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path == "/robots.txt":
            self.reply(200, b"User-agent: *\nAllow: /\n", "text/plain")
        elif url.path.startswith("/p/"):
            self.serve_page(url.path[3:])
        elif url.path.startswith("/_bench/"):
            self.control(url.path[len("/_bench/") :], parse_qs(url.query))
        else:
            self.reply(404, b"not found", "text/plain")

    def serve_page(self, name: str) -> None:
        if not name.isdigit() or int(name) >= self.state.pages:
            self.reply(404, b"not found", "text/plain")
            return
        number = int(name)
        body, revision = self.state.body(number)
        headers = {}
        if self.state.validators:
            etag = f'"{number}-{revision}"'
            headers = {"ETag": etag, "Last-Modified": formatdate(EPOCH + revision * 3600, usegmt=True)}
            if self.headers.get("If-None-Match") == etag:
                self.reply(304, b"", None, headers)
                return
        self.reply(200, body, "text/html; charset=UTF-8", headers)

    def control(self, command: str, query: dict[str, list[str]]) -> None:
        state = self.state
        result: dict[str, Any]
        with state.lock:
            if command == "validators":
                state.validators = query.get("on", ["1"])[0] == "1"
                result = {"validators": state.validators}
            elif command == "churn":
                result = {"changed": state.churn(int(query.get("count", ["0"])[0]))}
            elif command == "traffic":
                result = {"bytes": state.bytes, "requests": state.requests}
                state.bytes = state.requests = 0
            else:
                self.reply(404, b"unknown command", "text/plain")
                return
        self.reply(200, json.dumps(result).encode(), "application/json", count=False)

    def reply(
        self,
        status: int,
        body: bytes,
        ctype: str | None,
        headers: dict[str, str] | None = None,
        count: bool = True,
    ) -> None:
        if count:  # before the reply is sent: a client that has it may ask for the traffic at once
            with self.state.lock:
                self.state.requests += 1
                self.state.bytes += len(body)
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pages", type=int, default=1000)
    args = ap.parse_args()
    Handler.state = State(args.pages)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
