"""differ backfill: a page's history from a web archive, against a local archive that answers as the Wayback
Machine does (its CDX index as JSON, raw captures at /web/TIMESTAMPid_/URL with Memento-Datetime)."""

from __future__ import annotations

import email.utils
import io
import json
import re
import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from differ.backfill import Capture, backfill, captures, plan, run
from differ.check import check_source
from differ.cli import main
from differ.errors import ExitCode, FetchError, StoreError, UsageError
from differ.store import Store
from tests.conftest import REPLAY, Clock, QuietServer, Server, article, make_app, one_doc

URL = "https://blog.example.org/post/"


class Archive:
    """A web archive on 127.0.0.1: captures of pages by time, its CDX index (`output=json`, `fl`, `from`/`to`,
    `filter=statuscode:200`, `collapse=digest` as the Wayback Machine reads them) and its `id_` copies; a
    timestamp it does not hold redirects to the nearest capture, as the Wayback Machine does."""

    def __init__(self) -> None:
        self.captures: list[tuple[str, str, int, bytes, str]] = []  # timestamp, url, status, body, type
        self.requests: list[str] = []
        self.index_body: bytes | None = None  # an index answer to give instead of the real one
        self.captures_served = 0
        self.throttle_after: int | None = None  # captures served before it answers 429 with Retry-After
        archive = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                archive.requests.append(self.path)
                status, headers, body = archive.answer(self.path)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = QuietServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def capture(self, at: str, body: bytes | str, url: str = URL, status: int = 200, ctype: str = "") -> None:
        data = body.encode() if isinstance(body, str) else body
        self.captures.append((at, url, status, data, ctype or "text/html; charset=utf-8"))
        self.captures.sort()

    def answer(self, path: str) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(path)
        if parts.path == "/robots.txt":
            return 404, {}, b""
        if parts.path == "/cdx/search/cdx" and self.index_body is not None:
            return 200, {"Content-Type": "text/html"}, self.index_body
        if parts.path == "/cdx/search/cdx":
            return (
                200,
                {"Content-Type": "application/json"},
                json.dumps(self.index(parse_qs(parts.query))).encode(),
            )
        m = re.fullmatch(r"/web/(\d{1,14})id_/(.+)", path)
        if not m:
            return 404, {}, b"not found"
        ts, url = m.groups()
        if self.throttle_after is not None and self.captures_served >= self.throttle_after:
            return 429, {"Retry-After": "3600"}, b"slow down"
        self.captures_served += 1
        held = [c for c in self.captures if c[1] == url]
        if not held:
            return 404, {}, b"not archived"
        nearest = min(held, key=lambda c: abs(int(c[0]) - int(ts.ljust(14, "0"))))
        if nearest[0] != ts:
            return 302, {"Location": f"{self.base}/web/{nearest[0]}id_/{url}"}, b""
        at = datetime.strptime(ts, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
        headers = {
            "Content-Type": nearest[4],
            "Memento-Datetime": email.utils.format_datetime(at, usegmt=True),
        }
        return nearest[2], headers, nearest[3]

    def index(self, q: dict[str, list[str]]) -> list[list[str]]:
        import hashlib

        fields = q.get("fl", ["urlkey,timestamp,original,mimetype,statuscode,digest,length"])[0].split(",")
        rows: list[list[str]] = []
        kept: dict[str, str] = {}  # each collapse field's value in the last line kept
        for ts, url, status, body, ctype in self.captures:
            if (
                url != q["url"][0]
                or ts < q.get("from", ["0"])[0]
                or ts[: len(q.get("to", ["9"])[0])] > q.get("to", ["9"])[0]
            ):
                continue
            if "filter" in q and q["filter"][0] == "statuscode:200" and status != 200:
                continue
            digest = hashlib.sha1(body).hexdigest().upper()
            values = {"urlkey": "x", "timestamp": ts, "original": url, "mimetype": ctype.split(";")[0]}
            values.update(statuscode=str(status), digest=digest, length=str(len(body)))
            collapse = {}
            for spec in q.get("collapse", []):
                name, _, digits = spec.partition(":")
                collapse[spec] = values[name][: int(digits)] if digits else values[name]
            if any(kept.get(spec) == value for spec, value in collapse.items()):
                continue
            kept = collapse
            rows.append([values[f] for f in fields])
        return [fields, *rows] if rows else []

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def archive() -> Any:
    a = Archive()
    yield a
    a.close()


def replay(n: int) -> bytes:
    return (REPLAY / "canonical" / f"fetch-{n}.html").read_bytes()


def app_for(tmp_path: Path, url: str, extra: str = 'selector = "article .entry-content"') -> Any:
    return make_app(one_doc(tmp_path, url, extra=f"robots = false\n{extra}"), Clock())


def test_the_replay_captures_become_two_versions_and_the_next_check_follows_on(
    tmp_path: Path, archive: Archive, server: Server
) -> None:
    """fetch-1 and fetch-2 (same article, other noise), then fetch-3 and fetch-4 (the edit): two versions, the
    second with the edit's three changes; a live check of the page as fetch-4 serves it finds nothing new."""
    url = server.url("/blog/pytorch-2-13/")
    for n, at in ((1, "20260707120000"), (2, "20260708090000"), (3, "20260708200000"), (4, "20260709080000")):
        archive.capture(at, replay(n), url)
    app = app_for(tmp_path, url)
    source = app.config.sources()[0]
    seen: list[str] = []
    found = plan(app, source, archive.base)
    steps = backfill(app, source, found, archive=archive.base, progress=lambda s: seen.append(s.line()))
    assert seen == [
        "  2026-07-07 12:00  version 1",
        "  2026-07-08 09:00  same text (page noise only)",
        "  2026-07-08 20:00  version 2 (3 changes)",
        "  2026-07-09 08:00  same text (page noise only)",
    ]
    assert [s.outcome for s in steps] == ["new", "same", "new", "same"]
    versions = app.store.versions(source.key)
    assert [v.fetched_at for v in versions] == ["2026-07-07T12:00:00Z", "2026-07-08T20:00:00Z"]
    second = versions[1].record
    assert second["archive"]["capture"] == f"{archive.base}/web/20260708200000id_/{url}"
    assert second["archive"]["timestamp"] == "20260708200000"
    assert second["final_url"] == url and second["url"] == url
    assert second["summary"][0] == "Doc (canonical), version 1 → 2: 3 changes (and 1 metadata field)."
    assert any("Updated (7/8)" in line for line in second["summary"])
    assert app.store.get_blob(versions[1].raw_sha256) == replay(3)  # the capture's bytes, as served
    assert (app.store.root / "reports" / "doc" / "canonical" / "diff-2.html").exists()
    feed = (app.store.root / "reports" / "doc" / "feed.xml").read_text()
    assert (
        "Doc (canonical), version 1 → 2: 3 changes (and 1 metadata field). (archived capture)</title>" in feed
    )
    assert "<updated>2026-07-08T20:00:00Z</updated>" in feed  # dated when captured, not when read
    assert Store(app.store.root).verify().ok
    server.page("/blog/pytorch-2-13/", replay(4))
    assert check_source(app, source).line() == "doc/canonical: unchanged (page noise only)"
    server.page("/blog/pytorch-2-13/", replay(1))  # the page reverted: a change from the archived version
    assert check_source(app, source).line() == "doc/canonical: new version 3 (3 changes, 1 metadata field)"


def test_links_are_read_against_the_page_not_the_archive(tmp_path: Path, archive: Archive) -> None:
    archive.capture("20260701000000", article('<p>See <a href="/notes">the notes</a>.</p>'))
    app = app_for(tmp_path, URL, extra='selector = "article"')
    source = app.config.sources()[0]
    backfill(app, source, plan(app, source, archive.base), archive=archive.base)
    markdown = app.store.markdown(app.store.versions("doc/canonical")[0])
    assert "[the notes](https://blog.example.org/notes)" in markdown


def test_the_index_query_and_its_answer(tmp_path: Path, archive: Archive) -> None:
    """Only 200 captures, runs of one digest once, from/to as the index reads them, oldest first."""
    for at, body, status in (
        ("20260601000000", "<p>One.</p>", 200),
        ("20260602000000", "<p>One.</p>", 200),
        ("20260603000000", "gone", 404),
        ("20260604000000", "<p>Two.</p>", 200),
        ("20260801000000", "<p>Three.</p>", 200),
    ):
        archive.capture(at, article(body), status=status)
    app = app_for(tmp_path, URL, extra="")
    source = app.config.sources()[0]
    assert [c.timestamp for c in captures(app, source, archive.base)] == [
        "20260601000000",
        "20260604000000",
        "20260801000000",
    ]
    june = captures(
        app, source, archive.base, datetime(2026, 6, 2, tzinfo=UTC), datetime(2026, 6, 30, 23, 59, tzinfo=UTC)
    )
    assert [c.timestamp for c in june] == ["20260602000000", "20260604000000"]
    assert [c.timestamp for c in captures(app, source, archive.base, every="month")] == [
        "20260601000000",
        "20260801000000",
    ]
    assert parse_qs(urlsplit(archive.requests[-1]).query)["collapse"] == ["digest", "timestamp:6"]
    query = parse_qs(urlsplit(archive.requests[0]).query)
    assert query["url"] == [URL] and query["output"] == ["json"] and query["collapse"] == ["digest"]
    assert query["filter"] == ["statuscode:200"]
    assert query["fl"] == ["timestamp,original,statuscode,mimetype,digest"]


def test_a_capture_served_from_a_neighbouring_time_keeps_its_own_time(
    tmp_path: Path, archive: Archive
) -> None:
    """The index said 12:00:00; the archive redirected to 12:00:07: the version is dated by what was served,
    and its record names both."""
    archive.capture("20260701120007", article("<p>Text.</p>"))
    app = app_for(tmp_path, URL, extra='selector = "article"')
    source = app.config.sources()[0]
    steps = backfill(app, source, [Capture("20260701120000", URL)], archive=archive.base)
    assert [s.outcome for s in steps] == ["new"]
    version = app.store.versions(source.key)[0]
    assert version.fetched_at == "2026-07-01T12:00:07Z"
    assert version.record["archive"] == {
        "capture": f"{archive.base}/web/20260701120007id_/{URL}",
        "timestamp": "20260701120000",
    }
    archive.capture("20260702000000", article("<p>Text, later.</p>"))
    # The index lists a capture the archive no longer serves; it sends the one already stored instead.
    late = Capture("20260701130000", URL)
    assert [s.line() for s in backfill(app, source, [late], archive=archive.base)] == [
        "  2026-07-01 13:00  left out: the archive served its capture of 2026-07-01T12:00:07Z instead"
    ]


def test_captures_that_cannot_be_read_are_left_out_and_said(tmp_path: Path, archive: Archive) -> None:
    archive.capture("20260601000000", "<html><body><p>An old layout without the article.</p></body></html>")
    archive.capture("20260602000000", article("<p>The post.</p>"))
    app = app_for(tmp_path, URL, extra='selector = "article"')
    source = app.config.sources()[0]
    steps = backfill(app, source, plan(app, source, archive.base), archive=archive.base)
    assert [(s.outcome, s.version) for s in steps] == [("failed", None), ("new", 1)]
    assert steps[0].line() == ('  2026-06-01 00:00  left out: selector "article" matches nothing on the page')
    assert app.store.versions("doc/canonical")[0].fetched_at == "2026-06-02T00:00:00Z"


def test_only_a_source_without_versions_is_backfilled(
    tmp_path: Path, archive: Archive, server: Server
) -> None:
    server.page("/p", article("<p>Now.</p>"))
    archive.capture("20260601000000", article("<p>Then.</p>"), server.url("/p"))
    app = app_for(tmp_path, server.url("/p"), extra="")
    source = app.config.sources()[0]
    check_source(app, source)
    with pytest.raises(UsageError) as e:
        plan(app, source, archive.base)
    assert str(e.value) == (
        "doc/canonical already has 1 version: captures can only come before the first (the record only "
        "grows); backfill a page right after adding it"
    )
    assert archive.requests == []


def test_a_version_stored_meanwhile_stops_the_backfill_without_disorder(
    tmp_path: Path, archive: Archive
) -> None:
    """A check (`differ run` picking up the page just added) stores a version while the captures are read:
    the backfill stops at its next version instead of putting an older capture after it."""
    archive.capture("20260601000000", article("<p>One.</p>"))
    archive.capture("20260602000000", article("<p>Two.</p>"))
    app = app_for(tmp_path, URL, extra="")
    source = app.config.sources()[0]

    def live_check_meanwhile(step: Any) -> None:
        if step.version == 1:
            app.store.commit(
                source.key, raw=b"live", markdown="Live.\n", record={"fetched_at": "2026-07-08T17:45:00Z"}
            )

    with pytest.raises(StoreError) as e:
        backfill(
            app, source, plan(app, source, archive.base), archive=archive.base, progress=live_check_meanwhile
        )
    assert "version 2 was stored meanwhile by another process; nothing stored" in str(e.value)
    assert [v.fetched_at for v in app.store.versions(source.key)] == [
        "2026-06-01T00:00:00Z",
        "2026-07-08T17:45:00Z",
    ]


def test_limit_and_dry_run(tmp_path: Path, archive: Archive) -> None:
    for day, text in ((1, "One."), (2, "Two."), (3, "Three.")):
        archive.capture(f"202606{day:02d}000000", article(f"<p>{text}</p>"))
    app = app_for(tmp_path, URL, extra="")
    source = app.config.sources()[0]
    found = plan(app, source, archive.base, limit=2)
    steps = backfill(app, source, found, archive=archive.base, dry_run=True)
    assert [(s.capture.timestamp, s.version) for s in steps] == [("20260602000000", 1), ("20260603000000", 2)]
    assert app.store.latest(source.key) is None


def test_an_index_that_is_not_json_is_one_line(tmp_path: Path, archive: Archive) -> None:
    archive.index_body = b"<html><body>Sorry, the Wayback Machine is under maintenance.</body></html>"
    app = app_for(tmp_path, URL, extra="")
    with pytest.raises(FetchError) as e:
        captures(app, app.config.sources()[0], archive.base)
    assert str(e.value).endswith(
        ": expected the archive's index as a JSON list of captures; found something else"
    )
    archive.index_body = b"[]"  # nothing archived
    assert captures(app, app.config.sources()[0], archive.base) == []
    archive.index_body = (
        json.dumps(  # times that are no times: left out, as a capture that did not answer 200
            [
                ["timestamp", "original", "statuscode", "mimetype", "digest"],
                ["20261399999999", URL, "200", "text/html", "A"],
                ["99999999999999", URL, "200", "text/html", "B"],
                ["20260601000000", URL, "200", "text/html", "C"],
            ]
        ).encode()
    )
    assert [c.timestamp for c in captures(app, app.config.sources()[0], archive.base)] == ["20260601000000"]


def test_cli(tmp_path: Path, archive: Archive, capsys: pytest.CaptureFixture[str]) -> None:
    archive.capture("20260601000000", article("<p>One.</p>"))
    archive.capture("20260602000000", article("<p>One.</p><p>Two.</p>"))
    config = tmp_path / "config.toml"
    config.write_text(
        f'[service]\nsnapshots = "{tmp_path / "snap"}"\nper_host_delay = "0s"\n'
        f'[[documents]]\nid = "doc"\n[documents.canonical]\nid = "c"\nurl = "{URL}"\n'
        'allow_private = ["127.0.0.1"]\nselector = "article"\n'
    )
    code = main(["--config", str(config), "backfill", "doc/c", "--archive", archive.base])
    out = capsys.readouterr().out
    assert (code, out) == (
        ExitCode.OK,
        f"doc/c: 2 captures of {URL} in {archive.base}\n"
        "  2026-06-01 00:00  version 1\n"
        "  2026-06-02 00:00  version 2 (1 change)\n"
        "doc/c: stored 2 versions from 2 captures; the next check compares the page with the capture of "
        "2026-06-02T00:00:00Z\n",
    )
    assert main(["--config", str(config), "history", "doc/c"]) == ExitCode.OK
    history = capsys.readouterr().out
    assert "archived capture: first snapshot" in history
    import subprocess

    assert main(["--config", str(config), "export", str(tmp_path / "git"), "-q"]) == ExitCode.OK
    log = subprocess.run(
        [
            "git",
            "-C",
            str(tmp_path / "git"),
            "log",
            "--reverse",
            "--format=%(trailers:key=Archived-At,valueonly)",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert log == [f"{archive.base}/web/{ts}id_/{URL}" for ts in ("20260601000000", "20260602000000")]
    assert 'archived capture: 1 change: added at the end: "Two."' in history
    assert main(["--config", str(config), "backfill", "doc/c", "--archive", "ftp://x"]) == ExitCode.USAGE
    assert capsys.readouterr().err == 'error: expected the archive\'s http(s) address, found "ftp://x"\n'
    assert main(["--config", str(config), "backfill", "doc/c", "--archive", archive.base]) == ExitCode.OK
    assert capsys.readouterr().out == (  # a backfill goes on where the last stopped: nothing new here
        f"doc/c: 0 captures of {URL} in {archive.base} after 2026-06-02T00:00:00Z, the last one stored\n"
        "doc/c: nothing to store\n"
    )
    code = main(["--config", str(config), "backfill", "doc/c", "--since", "July", "--archive", archive.base])
    assert (code, capsys.readouterr().err) == (
        ExitCode.USAGE,
        'error: expected a time such as 2026-07-08 or 2026-07-08T18:00Z, found "July"\n',
    )


def test_add_with_backfill_stores_the_history_before_the_page_is_watched(
    tmp_path: Path, archive: Archive, capsys: pytest.CaptureFixture[str]
) -> None:
    """`differ add URL --backfill`: the versions are there before config.toml names the page (a running
    `differ run` checks an added page at once); an archive that cannot be read leaves the file as it was."""
    archive.capture("20260601000000", article("<p>One.</p>"))
    config = tmp_path / "config.toml"
    head = (
        f'[service]\nsnapshots = "{tmp_path / "snap"}"\nper_host_delay = "0s"\n'
        # a secret differ run has in its environment and this shell has not: adding a page needs none
        '[[notify]]\nname = "team"\nkind = "slack"\nurl = "${DIFFER_TEST_UNSET_WEBHOOK}"\n'
    )
    config.write_text(head)
    args = [
        "--config",
        str(config),
        "add",
        URL,
        "--set",
        'allow_private=["127.0.0.1"]',
        "--set",
        "selector=article",
    ]
    assert main([*args, "--backfill", "http://127.0.0.1:9/"]) == ExitCode.FAILURE  # nothing listens there
    assert capsys.readouterr().err.startswith("error: ")
    assert config.read_text() == head
    assert main([*args, "--backfill", archive.base]) == ExitCode.OK
    assert capsys.readouterr().out == (
        f"post/canonical: 1 capture of {URL} in {archive.base}\n"
        "  2026-06-01 00:00  version 1\n"
        "post/canonical: stored 1 version from 1 capture; the next check compares the page "
        "with the capture of 2026-06-01T00:00:00Z\n"
        f"added post/canonical to {config} (a new document); try it: differ --config {config} "
        "fetch post/canonical\n"
    )
    assert [v.fetched_at for v in Store(tmp_path / "snap").versions("post/canonical")] == [
        "2026-06-01T00:00:00Z"
    ]


def test_a_mirror_copied_before_watching_began_is_told_stale(
    tmp_path: Path, archive: Archive, server: Server
) -> None:
    """Watching starts after the edit: with the archive's captures, the audit knows the aggregator's copy is
    the edition from before it (version 1 of 2); without them there is one version and nothing to match."""
    url = server.url("/blog/pytorch-2-13/")
    for n, at in ((1, "20260707120000"), (3, "20260708200000")):
        archive.capture(at, replay(n), url)
    server.page("/blog/pytorch-2-13/", replay(4))
    server.page("/wpnews.json", (REPLAY / "mirrors" / "wpnews.json").read_bytes(), "application/json")
    mirror = (
        f'id = "wpnews"\nurl = "{server.url("/wpnews.json")}"\nkind = "json"\nfield = "body_md"\n'
        'robots = false\nallow_private = ["127.0.0.1"]\n'
    )
    from differ.audit import audit_document
    from differ.check import check

    config = one_doc(
        tmp_path, url, extra='robots = false\nselector = "article .entry-content"', mirrors=[mirror]
    )
    app = make_app(config, Clock())
    canonical = app.config.source("doc/canonical")
    backfill(app, canonical, plan(app, canonical, archive.base), archive=archive.base)
    check(app, app.config.sources())
    report = audit_document(app, app.config.document("doc"))
    assert (report.canonical_version, report.mirrors[0].matches_version) == (2, 1)
    assert "stale" in {f.kind for f in report.mirrors[0].findings}


def test_an_archive_that_asks_to_wait_stops_it_and_it_goes_on_later(tmp_path: Path, archive: Archive) -> None:
    for day in (1, 2, 3):
        archive.capture(f"202606{day:02d}000000", article(f"<p>Text of day {day}.</p>"))
    archive.throttle_after = 1
    app = app_for(tmp_path, URL, extra="")
    source = app.config.sources()[0]
    out = io.StringIO()
    steps = run(app, source, out, archive=archive.base)
    assert [s.outcome for s in steps] == ["new", "stopped"]
    assert out.getvalue().splitlines()[1:] == [
        "  2026-06-01 00:00  version 1",
        "  2026-06-02 00:00  stopped: HTTP 429: server asked to wait 3600s (Retry-After)",
        "doc/canonical: stored 1 version from 2 captures; the archive asked to wait: run differ backfill "
        "doc/canonical again later to go on",
    ]
    archive.throttle_after = None
    found = plan(app, source, archive.base)
    assert [c.timestamp for c in found] == ["20260602000000", "20260603000000"]
    assert parse_qs(urlsplit(archive.requests[-1]).query)["from"] == ["20260601000001"]
    steps = backfill(app, source, found, archive=archive.base)
    assert [(s.outcome, s.version) for s in steps] == [("new", 2), ("new", 3)]
    assert Store(app.store.root).verify().ok


def test_a_document_is_backfilled_source_by_source(
    tmp_path: Path, archive: Archive, server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    """`differ backfill DOCUMENT`: each of its sources in turn; one differ has fetched itself is passed over."""
    mirror = server.url("/copy")
    archive.capture("20260601000000", article("<p>One.</p>"))
    archive.capture("20260601000000", article("<p>One, copied.</p>"), mirror)
    server.page("/live", article("<p>Live.</p>"))
    config = tmp_path / "config.toml"
    config.write_text(
        f'[service]\nsnapshots = "{tmp_path / "snap"}"\nper_host_delay = "0s"\n'
        f'[[documents]]\nid = "doc"\n[documents.canonical]\nurl = "{URL}"\nallow_private = ["127.0.0.1"]\n'
        f'[[documents.mirrors]]\nid = "copy"\nurl = "{mirror}"\nallow_private = ["127.0.0.1"]\n'
        f'[[documents.mirrors]]\nid = "live"\nurl = "{server.url("/live")}"\nallow_private = ["127.0.0.1"]\n'
        "robots = false\n"
    )
    assert main(["--config", str(config), "check", "doc/live"]) == ExitCode.OK
    capsys.readouterr()
    assert main(["--config", str(config), "backfill", "doc", "--archive", archive.base]) == ExitCode.OK
    assert capsys.readouterr().out.splitlines() == [
        f"doc/canonical: 1 capture of {URL} in {archive.base}",
        "  2026-06-01 00:00  version 1",
        "doc/canonical: stored 1 version from 1 capture; the next check compares the page with the capture of "
        "2026-06-01T00:00:00Z",
        f"doc/copy: 1 capture of {mirror} in {archive.base}",
        "  2026-06-01 00:00  version 1",
        "doc/copy: stored 1 version from 1 capture; the next check compares the page with the capture of "
        "2026-06-01T00:00:00Z",
        "doc/live: passed over: differ has fetched it itself (version 1)",
    ]


def test_compare_reads_a_page_as_the_archive_kept_it(
    tmp_path: Path, archive: Archive, server: Server
) -> None:
    """`differ compare ARCHIVE/web/20260601/URL URL`: the address a browser shows is read as captured (`id_`),
    its links against the page's own address, so an unchanged page compares equal."""
    url = server.url("/post")
    page = article('<p>Read <a href="/notes">the notes</a>.</p>')
    archive.capture("20260601093000", page, url)
    server.page("/post", page)
    out = io.StringIO()
    code = main(
        ["compare", f"{archive.base}/web/20260601/{url}", url, "--set", 'allow_private=["127.0.0.1"]'],
        out=out,
        err=io.StringIO(),
    )
    assert (code, out.getvalue()) == (ExitCode.OK, f"{archive.base}/web/20260601/{url} → {url}: 0 changes.\n")
    assert f"/web/20260601id_/{url}" in archive.requests
    from differ.backfill import raw_capture

    assert raw_capture("https://web.archive.org/web/20260707120000/https://pytorch.org/blog/x/") == (
        "https://web.archive.org/web/20260707120000id_/https://pytorch.org/blog/x/",
        "https://pytorch.org/blog/x/",
    )
    assert raw_capture("https://web.archive.org/web/2026if_/http://pytorch.org/") == (
        "https://web.archive.org/web/2026id_/http://pytorch.org/",
        "http://pytorch.org/",
    )
    assert raw_capture("https://pytorch.org/blog/x/") is None
    assert raw_capture("https://example.org/web/2026/release-notes.html") is None  # a site's own /web/ path


@pytest.mark.parametrize(
    "header",
    ["Fri, 31 Dec 9999 23:59:59 -1200", "yesterday", ""],  # past year 9999 in UTC; not a date; none
)
def test_a_memento_datetime_that_is_no_time_leaves_the_index_timestamp(header: str) -> None:
    from differ.backfill import Capture, _captured_at
    from differ.fetch.http import Response

    capture = Capture("20260708174500", URL)
    response = Response(URL, URL, 200, {"memento-datetime": header} if header else {}, b"", 0.0)
    assert _captured_at(response, capture) == datetime(2026, 7, 8, 17, 45, tzinfo=UTC)
