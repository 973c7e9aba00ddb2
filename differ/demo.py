"""`differ demo`: replay the PyTorch 2.13 edit through the real pipeline, offline.

A local HTTP server (127.0.0.1, ephemeral port) serves the canonical page and the mirrors as the replay's
timeline says at each step, and stands in for the Wayback Machine (its index and captures for `differ backfill`,
its Save Page Now for the wayback destination); a local Slack-like receiver and a signed-webhook receiver record
what they get.
Each step runs the same `check` as `differ check`, with the clock set to the step's time.
"""

from __future__ import annotations

import io
import json
import re
import secrets
import shutil
import tempfile
import threading
from base64 import b64encode
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TextIO
from urllib.parse import parse_qsl

from differ.app import App
from differ.config import parse_config
from differ.errors import ExitCode
from differ.store import Store

if TYPE_CHECKING:
    from differ.config import Config

REPLAY = Path(__file__).resolve().parent.parent / "examples" / "pytorch-2.13"
ROUTES = {
    "canonical": "/blog/pytorch-2-13-release-blog/",
    "wpnews": "/news/pytorch-2-13-release-blog.json",
    "pytorch-kr": "/blog/2026/pytorch-2-13-release-blog.txt",
}
_CAPTURE = re.compile(r"/web/(\d{14})id_/(.+)")
TYPES = {
    ".html": "text/html; charset=UTF-8",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
}


class _Pages(BaseHTTPRequestHandler):
    serving: ClassVar[dict[str, Path]] = {}
    # A web archive's captures of the canonical page, by timestamp, answered as the Wayback Machine does: its
    # CDX index as JSON and each capture as served (`/web/TIMESTAMPid_/URL`).
    captures: ClassVar[dict[str, Path]] = {}
    # The same archive's Save Page Now, for the wayback destination: a capture of whatever a page serves when
    # asked (`copies`, by timestamp and address), made at the demo's clock (`now`), its job done at once.
    copies: ClassVar[dict[tuple[str, str], Path]] = {}
    jobs: ClassVar[dict[str, tuple[str, str]]] = {}
    now: ClassVar[datetime] = datetime(2026, 7, 8, tzinfo=UTC)

    def do_POST(self) -> None:
        from differ.backfill import stamp

        form = dict(parse_qsl(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()))
        url = form.get("url", "")
        route = next((n for n, r in ROUTES.items() if url.endswith(r) and n in self.serving), None)
        if self.path != "/save" or route is None:
            self._send(404, b"not found", "text/plain")
            return
        job = f"spn2-{len(self.jobs) + 1:040x}"
        self.jobs[job] = (stamp(self.now), url)
        self.copies[self.jobs[job]] = self.serving[route]
        self._send(200, json.dumps({"url": url, "job_id": job}).encode(), "application/json")

    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            self._send(200, b"User-agent: *\nAllow: /\n", "text/plain")
            return
        if self.path.startswith("/cdx/search/cdx?"):
            page = f"http://{self.headers['Host']}{ROUTES['canonical']}"
            rows = [["timestamp", "original", "statuscode", "mimetype", "digest"]]
            rows += [[ts, page, "200", "text/html", ts] for ts in sorted(self.captures)]
            self._send(200, json.dumps(rows).encode(), "application/json")
            return
        if self.path.startswith("/save/status/") and self.path.rsplit("/", 1)[-1] in self.jobs:
            job = self.path.rsplit("/", 1)[-1]
            timestamp, url = self.jobs[job]
            done = {"status": "success", "job_id": job, "timestamp": timestamp, "original_url": url}
            self._send(200, json.dumps(done).encode(), "application/json")
            return
        capture = _CAPTURE.fullmatch(self.path)
        if capture and (capture[1], capture[2]) in self.copies:
            path = self.copies[capture[1], capture[2]]
            self._send(200, path.read_bytes(), TYPES[path.suffix])
            return
        if capture and capture[1] in self.captures:
            at = datetime.strptime(capture[1], "%Y%m%d%H%M%S").replace(tzinfo=UTC)
            memento = {"Memento-Datetime": format_datetime(at, usegmt=True)}
            self._send(200, self.captures[capture[1]].read_bytes(), TYPES[".html"], memento)
            return
        for name, route in ROUTES.items():
            if self.path == route and name in self.serving:
                path = self.serving[name]
                self._send(200, path.read_bytes(), TYPES[path.suffix])
                return
        self._send(404, b"not found", "text/plain")

    def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


class _Receiver(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, dict[str, str], bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def _serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def demo_config(pages: str, receiver: str, secret: str, store: Path) -> str:
    return f"""
[service]
snapshots = "{store}"
per_host_delay = "0s"
workers = 1

[[documents]]
id = "pytorch-2-13"
title = "PyTorch 2.13 Release Blog"
[documents.canonical]
id = "canonical"
url = "{pages}{ROUTES["canonical"]}"
kind = "html"
selector = "article .entry-content"
allow_private = ["127.0.0.1"]
[[documents.mirrors]]
id = "wpnews"
url = "{pages}{ROUTES["wpnews"]}"
kind = "json"
field = "body_md"
metadata = ["title", "updated_at"]
allow_private = ["127.0.0.1"]
[[documents.mirrors]]
id = "pytorch-kr"
url = "{pages}{ROUTES["pytorch-kr"]}"
kind = "text"
languages = ["en"]
allow_private = ["127.0.0.1"]

[[notify]]
name = "team"
kind = "slack"
url = "{receiver}/services/T000/B000/demo"

[[notify]]
name = "hooks"
kind = "webhook"
url = "{receiver}/hooks/differ"
secret = "{secret}"

[[notify]]
name = "archive"
kind = "wayback"
url = "{pages}"
access_key = "demo"
secret_key = "demo"
"""


def _clock(moment: datetime) -> Callable[[], datetime]:
    return lambda: moment


def run_demo(out: TextIO, *, keep: Path | None = None) -> int:
    """Replay the timeline and print what differ saw at each step."""
    from differ.audit import audit_document, render_audit
    from differ.carry import passage_said, place_said
    from differ.check import check
    from differ.notify.webhook import signature

    manifest = json.loads((REPLAY / "manifest.json").read_text())
    folder = keep or Path(tempfile.mkdtemp(prefix="differ-demo-"))
    store_dir = folder / "snapshots"
    if store_dir.exists():
        shutil.rmtree(store_dir)
    secret = "whsec_" + b64encode(secrets.token_bytes(32)).decode()
    _Receiver.received = []
    _Pages.captures, _Pages.copies, _Pages.jobs = {}, {}, {}
    print("differ demo: the PyTorch 2.13 release post, edited on 8 July 2026, and two mirrors.", file=out)
    with _serve(_Pages) as pages, _serve(_Receiver) as receiver:
        config = parse_config(demo_config(pages, receiver, secret, store_dir), folder / "demo.toml", env={})
        for number, step in enumerate(manifest["timeline"], start=1):
            at = datetime.fromisoformat(step["at"].replace("Z", "+00:00"))
            _Pages.serving = {name: REPLAY / path for name, path in step["serve"].items()}
            _Pages.now = at
            app = App(config, Store(store_dir), now=_clock(at), sleep=_no_wait, out=out)
            print(f"\nstep {number} · {step['at']} · serving {', '.join(step['serve'])}", file=out)
            sources = [s for s in config.sources() if s.id in step["serve"]]
            for result in check(app, sources):
                print(f"  {result.line()}", file=out)
                for line in result.summary:
                    print(f"      {line}", file=out)
            app.close()
        final = at
        app = App(config, Store(store_dir), now=lambda: final, out=out)
        print("\naudit of the mirrors against the canonical (differ audit):", file=out)
        for line in render_audit(audit_document(app, config.documents[0]), "text").splitlines():
            print(f"  {line}", file=out)
        print(f"\nalerts received by the local receivers ({len(_Receiver.received)}):", file=out)
        for path, headers, body in _Receiver.received:
            payload = json.loads(body)
            if path.startswith("/services/"):
                print(f"  Slack: {payload['blocks'][0]['text']['text']}", file=out)
                for block in payload["blocks"][1:]:
                    text = (block.get("text") or {}).get("text") or " ".join(
                        e.get("text", "") for e in block.get("elements", [])
                    )
                    for line in text.splitlines():
                        print(f"    {line}", file=out)
            else:
                expected = signature(secret, headers["webhook-id"], int(headers["webhook-timestamp"]), body)
                ok = "signature ok" if expected in headers["webhook-signature"].split() else "BAD SIGNATURE"
                print(f"  webhook: {payload['type']} {headers['webhook-id']} ({ok})", file=out)
                # a stale copy's: what to carry over, as it now reads, and where in the copy
                carry = payload["data"].get("carry_over") or {}
                for passage in carry.get("passages", ()):
                    print(f"    to carry over: {passage_said(passage)}", file=out)
                    if passage.get("in_copy"):
                        print(f"      {place_said(passage['in_copy'], payload['data']['mirror'])}", file=out)
        app.close()
        _copies(out, config, store_dir, final)
        _late_watcher(out, folder, pages, receiver, secret, manifest["timeline"], final)
    print(
        f"\nthe store is in {store_dir} (try: differ --config {folder / 'demo.toml'} history "
        f"pytorch-2-13/canonical, or blame pytorch-2-13/canonical --after 1 for the passages edited since "
        f"version 1)\nthe reports site: {store_dir / 'reports' / 'index.html'}"
        if keep
        else "\nto keep the store and its reports site (a page per document, an HTML diff per edit): "
        "differ demo --keep DIR",
        file=out,
    )
    if keep:
        # The store sits beside the file, and a config's paths are read relative to the file itself.
        (folder / "demo.toml").write_text(demo_config(pages, receiver, secret, Path(store_dir.name)))
    else:
        shutil.rmtree(folder, ignore_errors=True)
    return ExitCode.OK


def _no_wait(seconds: float) -> None:
    """The demo's clock stands at each step's time: the pause between two requests to the archive is not
    waited for."""


def _copies(out: TextIO, config: Config, store_dir: Path, final: datetime) -> None:
    """The copies the archive keeps of each version (the wayback destination's), its last capture jobs
    followed a minute after the last step, and each copy read again against the version (verify --captures)."""
    from differ.archived import compare_copies
    from differ.notify import deliver
    from differ.site import after_delivery

    app = App(config, Store(store_dir), now=_clock(final + timedelta(minutes=1)), sleep=_no_wait, out=out)
    after_delivery(app, deliver(app))
    print(
        "\ncopies the web archive keeps, captured as differ stored each version (wayback destination):",
        file=out,
    )
    compared = compare_copies(app, config.sources())
    for c in compared:
        print(f"  {c.source} version {c.version}: {c.capture}", file=out)
    same = sum(1 for c in compared if c.outcome == "same")
    print(
        f"  then differ verify --captures: {same} of {len(compared)} copies read as differ's versions",
        file=out,
    )
    app.close()


def _late_watcher(
    out: TextIO, folder: Path, pages: str, receiver: str, secret: str, timeline: list[Any], now: datetime
) -> None:
    """Someone who starts watching after the edit: `differ backfill` reads the page's history from a web
    archive, and the audit can again tell that the aggregator copies the edition from before the edit."""
    from differ.audit import audit_document, render_audit
    from differ.backfill import run, stamp
    from differ.check import check

    print(
        "\na watcher who starts after the edit reads the history from a web archive (differ backfill):",
        file=out,
    )
    _Pages.captures = {
        stamp(datetime.fromisoformat(step["at"].replace("Z", "+00:00"))): REPLAY / step["serve"]["canonical"]
        for step in timeline
    }
    _Pages.serving = {name: REPLAY / path for name, path in timeline[-1]["serve"].items()}
    text = demo_config(pages, receiver, secret, folder / "late-snapshots")
    config = parse_config(text, folder / "late.toml", env={}, notifiers=False)  # no alerts for this one
    app = App(config, Store(folder / "late-snapshots"), now=lambda: now, out=out)
    said = io.StringIO()
    run(app, config.source("pytorch-2-13/canonical"), said, archive=pages)
    check(app, [config.source("pytorch-2-13/wpnews")])
    for line in said.getvalue().splitlines():
        print(f"  {line}", file=out)
    for line in render_audit(audit_document(app, config.documents[0]), "text").splitlines():
        if line.startswith("wpnews:"):
            print(f"  then differ audit: {line}", file=out)
    app.close()
