"""Fetching against a real local server: conditional GET, redirects, failures, caps, Retry-After, per-host
politeness, robots.txt, charsets and the private-address guard."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import re
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import certifi
import pytest
import trustme
from hypothesis import given, settings
from hypothesis import strategies as st

import differ.versions
from differ.check import check_source
from differ.errors import BlockedError, FetchError
from differ.fetch import Fetcher, Request, decode, parse_retry_after, robots
from differ.fetch.http import UNREAD_CODINGS
from differ.fetch.netguard import check_url, classify
from differ.store import Store
from tests.conftest import Clock, Proxy, Reply, Server, article, make_app, make_config, one_doc, source_toml

PAGE = article("<p>Hello world, this is the first version of the post.</p>")


def fetcher(clock: Clock | None = None, **kw: object) -> Fetcher:
    clock = clock or Clock()
    opts: dict[str, object] = {
        "user_agent": "differ/test",
        "timeout": 2.0,
        "per_host_delay": 0.0,
        "retries": 0,
    }
    opts.update(kw)
    return Fetcher(clock=clock.monotonic, sleep=clock.sleep, wall=lambda: clock.now.timestamp(), **opts)  # type: ignore[arg-type]


LOCAL = (ipaddress.ip_network("127.0.0.1/32"),)


def get(f: Fetcher, url: str, **kw: object) -> object:
    return f.fetch(Request(url, allow_private=LOCAL, robots=bool(kw.pop("robots", False)), **kw))  # type: ignore[arg-type]


def test_validators_are_sent_only_for_the_variant_they_were_given_for(server: Server, tmp_path: Path) -> None:
    """A page that varies on Accept-Language, with an ETag its server gives every language alike: once the
    source asks for another language, its last validators are not sent (a 304 would keep the English page as
    the Korean one); then they are, for the Korean page. A header it does not vary on changes nothing."""
    server.page("/post", PAGE, etag='"v1"', headers={"Vary": "Accept-Encoding, Accept-Language"})

    def checked(headers: str) -> tuple[str, str | None]:
        app = make_app(
            one_doc(tmp_path, server.url("/post"), extra=f"robots = false\nheaders = {{ {headers} }}")
        )
        line = check_source(app, app.config.sources()[0]).line()
        return line, server.requests_to("/post")[-1].headers.get("if-none-match")

    assert checked('"Accept-Language" = "en"') == ("doc/canonical: new version 1 (first snapshot)", None)
    assert checked('"Accept-Language" = "en"') == ("doc/canonical: unchanged (not modified)", '"v1"')
    server.page(
        "/post", PAGE.replace("Hello", "안녕하세요"), etag='"v1"', headers={"Vary": "Accept-Language"}
    )
    assert checked('"Accept-Language" = "ko"') == ("doc/canonical: new version 2 (1 change)", None)
    assert checked('"Accept-Language" = "ko"') == ("doc/canonical: unchanged (not modified)", '"v1"')
    assert checked('"Accept-Language" = "ko", "X-Trace" = "1"') == (
        "doc/canonical: unchanged (not modified)",
        '"v1"',
    )
    state = json.loads((tmp_path / "snapshots/sources/doc/canonical/state.json").read_text())
    assert state["vary"]["on"] == ["accept-language"] and "ko" not in json.dumps(state)


def test_etag_round_trip_and_304_does_no_parsing(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.page("/post", PAGE, etag='"v1"')
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"))
    source = app.config.sources()[0]
    assert check_source(app, source).line() == "doc/canonical: new version 1 (first snapshot)"
    calls = []
    real = differ.versions.normalize
    monkeypatch.setattr(differ.versions, "normalize", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert check_source(app, source).line() == "doc/canonical: unchanged (not modified)"
    assert calls == []
    assert server.requests_to("/post")[-1].headers["if-none-match"] == '"v1"'
    assert app.store.fetches("doc/canonical")[-1]["outcome"] == "unchanged"
    assert app.store.fetches("doc/canonical")[-1]["status"] == 304


def test_an_unchanged_check_writes_the_fetch_log_and_nothing_else(
    server: Server, tmp_path: Path, clock: Clock
) -> None:
    server.page("/post", PAGE, etag='"v1"')
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)
    source = app.config.sources()[0]
    check_source(app, source)
    clock.advance(60)
    check_source(app, source)  # the outcome goes from "new" to "unchanged": the state is written
    state_file = app.store.source_dir(source.key) / "state.json"
    written = state_file.read_bytes(), state_file.stat().st_ino
    clock.advance(60)
    assert check_source(app, source).detail == "not modified"
    assert (state_file.read_bytes(), state_file.stat().st_ino) == written
    assert [f["at"] for f in app.store.fetches(source.key)] == [
        "2026-07-08T17:45:00Z",
        "2026-07-08T17:46:00Z",
        "2026-07-08T17:47:00Z",
    ]
    assert app.store.last_fetch(source.key) == app.store.fetches(source.key)[-1]
    server.page("/post", PAGE.replace("first", "second"), etag='"v2"')
    clock.advance(60)
    check_source(app, source)  # new validators: written again
    assert app.store.state(source.key)["etag"] == '"v2"'
    assert app.store.state(source.key)["last_check"] == "2026-07-08T17:48:00Z"


def test_last_modified_is_the_servers_own_value(server: Server, tmp_path: Path) -> None:
    stamp = "Wed, 08 Jul 2026 17:42:23 GMT"
    server.page("/post", PAGE, last_modified=stamp)
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"))
    source = app.config.sources()[0]
    check_source(app, source)
    assert check_source(app, source).detail == "not modified"
    assert server.requests_to("/post")[-1].headers["if-modified-since"] == stamp


def test_same_body_is_unchanged_without_normalizing(server: Server, tmp_path: Path) -> None:
    server.page("/post", PAGE)
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"))
    source = app.config.sources()[0]
    check_source(app, source)
    assert check_source(app, source).line() == "doc/canonical: unchanged (same body)"
    assert len(app.store.versions("doc/canonical")) == 1


def test_redirects_are_followed_and_recorded(server: Server, tmp_path: Path) -> None:
    server.routes["/old"] = Reply(301, headers={"Location": "/new"})
    server.page("/new", PAGE)
    app = make_app(one_doc(tmp_path, server.url("/old"), extra="robots = false"))
    check_source(app, app.config.sources()[0])
    v = app.store.latest("doc/canonical")
    assert v is not None and v.record["final_url"] == server.url("/new")


def test_response_headers_are_kept_but_cookies(server: Server, tmp_path: Path) -> None:
    server.page("/post", PAGE, headers={"X-Served-By": "cache-7", "Set-Cookie": "session=secret"})
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"))
    check_source(app, app.config.sources()[0])
    headers = app.store.versions("doc/canonical")[0].record["headers"]
    assert headers["x-served-by"] == "cache-7"
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert "set-cookie" not in headers


def test_redirect_loop_fails_after_five(server: Server, tmp_path: Path) -> None:
    server.routes["/a"] = Reply(302, headers={"Location": "/b"})
    server.routes["/b"] = Reply(302, headers={"Location": "/a"})
    app = make_app(one_doc(tmp_path, server.url("/a"), extra="robots = false"))
    result = check_source(app, app.config.sources()[0])
    assert result.line() == f"doc/canonical: failed: more than 5 redirects (last to {server.url('/a')})"
    assert len(server.hits) == 6


@pytest.mark.parametrize("target", ["file:///etc/passwd", "ftp://127.0.0.1/x", "javascript:alert(1)"])
@pytest.mark.parametrize("allow", ["true", '["127.0.0.1"]'])
def test_a_redirect_off_the_web_is_refused_saying_so(
    server: Server, tmp_path: Path, target: str, allow: str
) -> None:
    server.routes["/a"] = Reply(302, headers={"Location": target})
    source = source_toml(server.url("/a"), extra="robots = false").replace('["127.0.0.1"]', allow)
    app = make_app(make_config(tmp_path, f'[[documents]]\nid = "doc"\n[documents.canonical]\n{source}'))
    result = check_source(app, app.config.sources()[0])
    assert result.line() == (
        f"doc/canonical: failed: HTTP 302 redirect to {target} refused: only http and https are followed"
    )
    assert len(server.hits) == 1


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("http://[oops/x", "Invalid IPv6 URL"),
        ("http://127.0.0.1:abc/x", "Port could not be cast to integer value as 'abc'"),
    ],
)
def test_a_redirect_to_an_address_that_cannot_be_read_is_refused_saying_so(
    server: Server, tmp_path: Path, target: str, why: str
) -> None:
    server.routes["/a"] = Reply(302, headers={"Location": target})
    app = make_app(one_doc(tmp_path, server.url("/a"), extra="robots = false"))
    result = check_source(app, app.config.sources()[0])
    assert (
        result.line()
        == f"doc/canonical: failed: HTTP 302 redirect to {target} refused: not a valid address ({why})"
    )
    assert len(server.hits) == 1


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(404, b"gone"), "HTTP 404 Not Found"),
        (Reply(500, b"oops"), "HTTP 500 Internal Server Error"),
        (Reply(200, b"x" * 100, reset=True), "connection failed: connection reset"),
        (Reply(200, PAGE.encode(), truncate=50), "body broken off: IncompleteRead"),
    ],
)
def test_failures_are_recorded_without_a_version(
    server: Server, tmp_path: Path, reply: Reply, message: str
) -> None:
    server.routes["/post"] = reply
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"))
    result = check_source(app, app.config.sources()[0])
    assert result.outcome == "failed"
    assert result.detail.lower().startswith(message.lower().split(":")[0])
    assert app.store.versions("doc/canonical") == []
    log = app.store.fetches("doc/canonical")
    assert log[-1]["outcome"] == "failed" and log[-1]["error"] == result.detail
    assert app.store.state("doc/canonical")["failures"] == 1


def test_timeout_and_trickle_are_cut_off(server: Server) -> None:
    server.routes["/slow"] = Reply(200, b"late", delay=1.5)
    server.routes["/trickle"] = Reply(200, b"x" * 400, trickle=0.02)
    f = Fetcher(user_agent="differ/test", timeout=0.5, per_host_delay=0, retries=0)
    with pytest.raises(FetchError, match=r"^no response within 0.5s$"):
        get(f, server.url("/slow"))
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"^response not complete after 1s; gave up$"):
        get(f, server.url("/trickle"))
    assert time.monotonic() - started < 3


def test_trickled_headers_are_cut_off_by_the_deadline(server: Server) -> None:
    server.routes["/slow-headers"] = Reply(trickle_headers=0.05)
    f = Fetcher(user_agent="differ/test", timeout=0.5, per_host_delay=0, retries=0)
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"^response not complete after 1s; gave up$"):
        get(f, server.url("/slow-headers"))
    assert time.monotonic() - started < 3


def test_size_cap(server: Server) -> None:
    server.page("/big", b"x" * 5000, ctype="text/plain")
    server.routes["/bomb"] = Reply(200, b"\0" * 2_000_000, gzip=True)
    f = fetcher(max_bytes=1000)
    with pytest.raises(FetchError, match=r"^body of 5,000 bytes exceeds max_bytes \(1,000\)$"):
        get(f, server.url("/big"))
    with pytest.raises(FetchError, match=r"^body exceeds max_bytes \(10,000 bytes\); stopped reading$"):
        get(fetcher(max_bytes=10_000), server.url("/bomb"))  # 2 KB on the wire, 2 MB inflated


def test_retry_after_seconds_and_http_date(server: Server) -> None:
    clock = Clock()
    server.clock = clock  # its answers dated as the test's time is
    answers = iter([Reply(429, headers={"Retry-After": "7"}), Reply(200, b"ok")])
    server.routes["/a"] = lambda hit: next(answers)
    f = fetcher(clock, retries=2)
    assert get(f, server.url("/a")).body == b"ok"  # type: ignore[attr-defined]
    assert clock.slept == [7.0]
    when = clock.now + timedelta(seconds=20)
    answers2 = iter(
        [
            Reply(503, headers={"Retry-After": format_datetime(when.astimezone(UTC), usegmt=True)}),
            Reply(200, b"ok"),
        ]
    )
    server.routes["/b"] = lambda hit: next(answers2)
    clock.slept.clear()
    assert get(f, server.url("/b")).body == b"ok"  # type: ignore[attr-defined]
    assert clock.slept == [20.0]


@pytest.mark.parametrize("skew", [-3600, 3600])
def test_a_wait_until_a_time_is_read_by_the_servers_clock(server: Server, skew: int) -> None:
    """A Retry-After date and a rate limit's reset time are set by the server's clock: read against its Date, a
    server an hour behind ours is not retried at once, nor one an hour ahead left for an hour."""
    clock = Clock()
    server.clock = lambda: clock() + timedelta(seconds=skew)
    theirs = clock() + timedelta(seconds=skew)
    spent = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(theirs.timestamp()) + 30)}
    answers = iter(
        [
            Reply(503, headers={"Retry-After": format_datetime(theirs + timedelta(seconds=20), usegmt=True)}),
            Reply(429, headers=spent),
            Reply(200, b"ok"),
        ]
    )
    server.routes["/a"] = lambda hit: next(answers)
    assert get(fetcher(clock, retries=2), server.url("/a")).body == b"ok"  # type: ignore[attr-defined]
    assert clock.slept == [20.0, 10.0]  # the reset 30 s after the first answer, which came 20 s before


def test_a_date_that_does_not_read_leaves_the_wait_to_our_clock(server: Server) -> None:
    clock = Clock()
    when = format_datetime((clock() + timedelta(seconds=20)).astimezone(UTC), usegmt=True)
    answers = iter([Reply(503, headers={"Retry-After": when}), Reply(200, b"ok")])
    server.routes["/a"] = lambda hit: next(answers)
    server.clock = lambda: "Tuesday at noon"
    assert get(fetcher(clock, retries=1), server.url("/a")).body == b"ok"  # type: ignore[attr-defined]
    assert clock.slept == [20.0]


def test_retry_after_beyond_cap_defers_the_source(server: Server, tmp_path: Path, clock: Clock) -> None:
    server.routes["/post"] = Reply(429, headers={"Retry-After": "3600"})
    app = make_app(
        one_doc(tmp_path, server.url("/post"), extra="robots = false", service='retry_after_cap = "60s"\n'),
        clock,
    )
    result = check_source(app, app.config.sources()[0])
    assert result.line() == "doc/canonical: failed: HTTP 429: server asked to wait 3600s (Retry-After)"
    again = check_source(app, app.config.sources()[0])
    assert again.line() == "doc/canonical: deferred: server asked to wait until 2026-07-08T18:45:00Z"
    assert len(server.requests_to("/post")) == 1


def test_a_wait_of_centuries_is_taken_as_a_day(server: Server, tmp_path: Path, clock: Clock) -> None:
    """A Retry-After (or a rate limit's reset) too far off to be meant, or to be a date at all, defers the
    source a day at most: the page is not left unwatched for years, and the check does not break."""
    for n, (headers, said) in enumerate(
        [
            ({"Retry-After": "99999999999999"}, "server asked to wait 86400s (Retry-After)"),
            ({"Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"}, "server asked to wait 86400s (Retry-After)"),
            (
                {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "99999999999999999"},
                "rate limit used up, resets in 86400s (x-ratelimit-reset)",
            ),
        ]
    ):
        server.routes["/post"] = Reply(429, headers=headers)
        app = make_app(one_doc(tmp_path / str(n), server.url("/post"), extra="robots = false"), clock)
        result = check_source(app, app.config.sources()[0])
        assert result.line() == f"doc/canonical: failed: HTTP 429: {said}"
        assert app.store.state("doc/canonical")["retry_not_before"] == "2026-07-09T17:45:00Z"
    assert parse_retry_after("1" * 400, 0.0) == 86400.0


def test_a_rate_limit_used_up_is_waited_out(server: Server) -> None:
    """GitHub's answer once the hourly quota is spent: 403 (or 429) with x-ratelimit-remaining 0 and the Unix time
    it resets at; its secondary limit: 403 with Retry-After. A 403 that says neither is not retried."""
    clock = Clock()
    server.clock = clock
    reset = int(clock.now.timestamp()) + 30
    spent = {"x-ratelimit-limit": "60", "x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}
    answers = iter([Reply(403, headers=spent), Reply(403, headers={"Retry-After": "5"}), Reply(200, b"ok")])
    server.routes["/a"] = lambda hit: next(answers)
    f = fetcher(clock, retries=2)
    assert get(f, server.url("/a")).body == b"ok"  # type: ignore[attr-defined]
    assert clock.slept == [30.0, 5.0]
    server.routes["/b"] = Reply(429, headers={"ratelimit-remaining": "0", "ratelimit-reset": "12"})
    clock.slept.clear()
    with pytest.raises(FetchError) as info:
        get(fetcher(clock, retries=0), server.url("/b"))
    assert (str(info.value), info.value.retry_after) == (
        "HTTP 429: rate limit used up, resets in 12s (ratelimit-reset)",
        12.0,
    )
    server.routes["/c"] = Reply(403, headers={"x-ratelimit-remaining": "59"})
    with pytest.raises(FetchError, match=r"^HTTP 403 Forbidden$"):
        get(f, server.url("/c"))
    assert len(server.requests_to("/c")) == 1


def test_a_rate_limit_that_resets_later_defers_the_source(
    server: Server, tmp_path: Path, clock: Clock
) -> None:
    server.clock = clock
    reset = int(clock.now.timestamp()) + 3600
    server.routes["/post"] = Reply(
        403, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}
    )
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)
    result = check_source(app, app.config.sources()[0])
    assert (
        result.line()
        == "doc/canonical: failed: HTTP 403: rate limit used up, resets in 3600s (x-ratelimit-reset)"
    )
    again = check_source(app, app.config.sources()[0])
    assert again.line() == "doc/canonical: deferred: server asked to wait until 2026-07-08T18:45:00Z"
    assert len(server.requests_to("/post")) == 1


def test_parse_retry_after() -> None:
    now = datetime(2026, 7, 8, 12, 0, tzinfo=UTC).timestamp()
    assert parse_retry_after("120", now) == 120
    assert parse_retry_after("Wed, 08 Jul 2026 12:01:00 GMT", now) == 60
    assert parse_retry_after("soon", now) is None
    assert parse_retry_after("²", now) is None  # a digit to str.isdigit, not to float()
    assert parse_retry_after("١٢٠", now) is None  # digits, but not the ASCII ones RFC 9110 means


def _raw_server(answer: bytes) -> Iterator[str]:
    """A server on 127.0.0.1 that answers every request with these bytes as they are, headers included."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                conn.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/post"
    finally:
        stop.set()
        listener.close()


def test_a_content_length_of_digits_python_cannot_read_is_no_length() -> None:
    """`Content-Length: ²` is not a number of bytes: a page's body is read to its end, as with no length, and an
    error page is an error, not a failure to read the answer."""
    for status, body in ((b"200 OK", b"hello"), (b"404 Not Found", b"gone")):
        answer = b"HTTP/1.1 " + status + b"\r\nContent-Length: \xb2\r\nConnection: close\r\n\r\n" + body
        for url in _raw_server(answer):
            if status.startswith(b"200"):
                assert get(fetcher(), url).body == b"hello"  # type: ignore[attr-defined]
            else:
                with pytest.raises(FetchError, match="^HTTP 404 Not Found$"):
                    get(fetcher(), url)


@pytest.mark.parametrize("coding", ["br", "zstd", "gzip, br"])
def test_a_body_compressed_in_a_way_not_asked_for_is_refused_saying_so(coding: str) -> None:
    """differ asks for gzip or deflate; a server that answers in brotli or zstd anyway sends bytes that are not
    the page's text, which would otherwise be read as a binary page."""
    answer = f"HTTP/1.1 200 OK\r\nContent-Encoding: {coding}\r\nContent-Length: 5\r\n\r\nhello".encode()
    unread = coding.split(", ")[-1]
    if unread not in UNREAD_CODINGS:
        pytest.skip(f"urllib3 reads {unread} here")  # a package that decodes it was installed
    for url in _raw_server(answer):
        with pytest.raises(FetchError, match=f"^body compressed as {unread}, which differ does not read"):
            get(fetcher(), url)


def test_server_errors_are_retried_with_backoff(server: Server) -> None:
    clock = Clock()
    answers = iter([Reply(502), Reply(500), Reply(200, b"ok")])
    server.routes["/x"] = lambda hit: next(answers)
    assert get(fetcher(clock, retries=2), server.url("/x")).body == b"ok"  # type: ignore[attr-defined]
    assert len(clock.slept) == 2 and 0.5 <= clock.slept[0] <= 1.5 and 1.0 <= clock.slept[1] <= 3.0


def test_own_limits_are_not_retried(server: Server) -> None:
    server.page("/big", b"x" * 5000, ctype="text/plain")
    server.routes["/loop"] = Reply(302, headers={"Location": "/loop"})
    f = fetcher(max_bytes=1000, retries=3)
    with pytest.raises(FetchError, match="exceeds max_bytes"):
        get(f, server.url("/big"))
    with pytest.raises(FetchError, match="more than 5 redirects"):
        get(f, server.url("/loop"))
    assert len(server.requests_to("/big")) == 1
    assert len(server.requests_to("/loop")) == 6


def test_network_faults_are_retried(server: Server) -> None:
    clock = Clock()
    answers = iter([Reply(200, b"x" * 100, reset=True), Reply(200, b"ok")])
    server.routes["/flaky"] = lambda hit: next(answers)
    assert get(fetcher(clock, retries=2), server.url("/flaky")).body == b"ok"  # type: ignore[attr-defined]
    assert len(clock.slept) == 1


def test_client_errors_are_not_retried(server: Server) -> None:
    server.routes["/x"] = Reply(403)
    with pytest.raises(FetchError, match="HTTP 403 Forbidden"):
        get(fetcher(retries=3), server.url("/x"))
    assert len(server.requests_to("/x")) == 1


def test_per_host_delay_and_one_request_in_flight(server: Server) -> None:
    server.routes["/p"] = Reply(200, b"ok", delay=0.05)
    f = Fetcher(user_agent="differ/test", per_host_delay=0.2, retries=0)
    import threading

    threads = [threading.Thread(target=get, args=(f, server.url("/p"))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    times = sorted(h.at for h in server.requests_to("/p"))
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert len(times) == 3 and all(g >= 0.24 for g in gaps), gaps  # 0.05 s in flight + 0.2 s between


def test_user_agent_and_from(server: Server) -> None:
    server.page("/p", "ok", ctype="text/plain")
    get(fetcher(contact="ops@example.org"), server.url("/p"))
    hit = server.requests_to("/p")[0]
    assert hit.headers["user-agent"] == "differ/test"
    assert hit.headers["from"] == "ops@example.org"


def test_robots_disallow(server: Server, tmp_path: Path) -> None:
    server.page(
        "/robots.txt",
        "User-agent: *\nDisallow: /private\n\nUser-agent: differ\nDisallow: /blog/\nAllow: /blog/ok\n",
        ctype="text/plain",
    )
    server.page("/blog/post", PAGE)
    server.page("/blog/ok", PAGE)
    f = fetcher()
    with pytest.raises(
        BlockedError, match=r"^robots.txt of 127.0.0.1:\d+ disallows /blog/post; set robots = false"
    ):
        get(f, server.url("/blog/post"), robots=True)
    assert get(f, server.url("/blog/ok"), robots=True).status == 200  # type: ignore[attr-defined]
    assert len(server.requests_to("/robots.txt")) == 1  # cached


def test_robots_txt_missing_allows_everything(server: Server) -> None:
    server.routes["/robots.txt"] = Reply(404)
    server.page("/p", PAGE)
    assert get(fetcher(), server.url("/p"), robots=True).status == 200  # type: ignore[attr-defined]


def test_robots_txt_unreadable_blocks_the_host_until_it_can_be_read(server: Server) -> None:
    """A server error on robots.txt means complete disallow (RFC 9309), said as such, and only for a while: the
    host is not blocked for the day robots.txt is otherwise kept."""
    server.routes["/robots.txt"] = Reply(503)
    server.page("/p", PAGE)
    clock = Clock()
    f = fetcher(clock)
    netloc = server.url("")[len("http://") :].rstrip("/")
    with pytest.raises(BlockedError) as caught:
        get(f, server.url("/p"), robots=True)
    assert str(caught.value) == (
        f"robots.txt of {netloc} could not be read (HTTP 503 Service Unavailable), so nothing on that host is "
        "fetched until it can be (RFC 9309); set robots = false for this source to override"
    )
    server.page("/robots.txt", "User-agent: *\nDisallow:\n", ctype="text/plain")
    clock.advance(60)
    with pytest.raises(BlockedError):  # still within the wait before robots.txt is asked for again
        get(f, server.url("/p"), robots=True)
    assert len(server.requests_to("/robots.txt")) == 1
    clock.advance(300)
    assert get(f, server.url("/p"), robots=True).status == 200  # type: ignore[attr-defined]
    assert len(server.requests_to("/robots.txt")) == 2


def test_the_rules_robots_txt_last_gave_stand_while_it_cannot_be_read(server: Server) -> None:
    """RFC 9309 §2.4: past its day, a robots.txt that cannot be read leaves the rules it last gave standing (it
    is asked for again every five minutes), so a host whose robots.txt fails for a while is checked as it said;
    only after 30 days without one does the host count as disallowing everything."""
    server.page("/robots.txt", "User-agent: *\nDisallow: /private\n", ctype="text/plain")
    server.page("/p", PAGE)
    clock = Clock()
    f = fetcher(clock)
    assert get(f, server.url("/p"), robots=True).status == 200  # type: ignore[attr-defined]
    server.routes["/robots.txt"] = Reply(503)
    clock.advance(24 * 3600 + 1)
    assert get(f, server.url("/p"), robots=True).status == 200  # type: ignore[attr-defined]
    with pytest.raises(BlockedError, match="disallows /private"):
        get(f, server.url("/private"), robots=True)
    assert len(server.requests_to("/robots.txt")) == 2
    clock.advance(60)
    get(f, server.url("/p"), robots=True)
    assert len(server.requests_to("/robots.txt")) == 2  # not asked again within the five minutes
    clock.advance(300)
    get(f, server.url("/p"), robots=True)
    assert len(server.requests_to("/robots.txt")) == 3
    clock.advance(30 * 86400)
    with pytest.raises(BlockedError, match="could not be read"):
        get(f, server.url("/p"), robots=True)


def test_the_rules_robots_txt_last_gave_stand_between_runs_while_it_cannot_be_read(
    server: Server, tmp_path: Path
) -> None:
    """From cron, each run a new process: the rules kept in the store stand while robots.txt fails, and stay
    kept (an answer that could not be read is not written over them)."""
    server.page("/robots.txt", "User-agent: *\nDisallow: /private\n", ctype="text/plain")
    server.page("/p", PAGE)
    kept = Store(tmp_path / "snap").robots_files()
    clock = Clock()

    def run(path: str = "/p") -> object:
        f = fetcher(clock)
        f.keep_robots(kept)
        return get(f, server.url(path), robots=True)

    run()
    server.routes["/robots.txt"] = Reply(503)
    for _ in range(2):
        clock.advance(25 * 3600)
        assert run().status == 200  # type: ignore[attr-defined]
        with pytest.raises(BlockedError, match="disallows /private"):
            run("/private")
    assert len(server.requests_to("/robots.txt")) == 5  # each run past the day asks again


def test_robots_txt_of_an_unreachable_host_names_the_network_error() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(BlockedError) as caught:
        get(fetcher(), f"http://127.0.0.1:{port}/p", robots=True)
    message = str(caught.value)
    assert message.startswith(f"robots.txt of 127.0.0.1:{port} could not be read (")
    assert "connection refused" in message.lower()


@pytest.mark.parametrize(
    ("asked", "waited"), [("7", 7.0), ("2.5", 5.0), ("3600", 60.0), ("nan", 5.0), ("inf", 5.0), ("-9", 5.0)]
)
def test_crawl_delay_spaces_requests_to_the_host(server: Server, asked: str, waited: float) -> None:
    """Crawl-delay is honoured between two requests to the host, never below per_host_delay (5 s here) and
    never above a minute."""
    server.page("/robots.txt", f"User-agent: *\nCrawl-delay: {asked}\n", ctype="text/plain")
    server.page("/a", PAGE)
    server.page("/b", PAGE)
    clock = Clock()
    f = fetcher(clock, per_host_delay=5.0)
    a = get(f, server.url("/a"), robots=True)
    b = get(f, server.url("/b"), robots=True)
    assert clock.slept == [waited, waited]  # robots.txt → /a → /b
    assert (a.waited, b.waited) == (waited, waited)  # what each fetch owes to politeness, not to the host
    with pytest.raises(FetchError) as failed:
        get(f, server.url("/missing"), robots=True)
    assert failed.value.waited == waited


def test_robots_txt_is_kept_between_runs_for_a_day(server: Server, tmp_path: Path) -> None:
    """Each Fetcher is a new run (a new process under cron): robots.txt is asked for once a day, not once a
    run; another user agent, a day gone by, or a damaged file ask again."""
    server.page("/robots.txt", "User-agent: *\nDisallow: /private\nCrawl-delay: 3\n", ctype="text/plain")
    server.page("/p", PAGE)
    kept = Store(tmp_path / "snap").robots_files()
    clock = Clock()

    def run(**kw: object) -> Fetcher:
        f = fetcher(clock, **kw)
        f.keep_robots(kept)
        get(f, server.url("/p"), robots=True)
        return f

    run()
    second = run()
    assert len(server.requests_to("/robots.txt")) == 1
    with pytest.raises(BlockedError, match="disallows /private"):
        get(second, server.url("/private"), robots=True)  # the kept rules are the rules
    get(second, server.url("/p"), robots=True)
    assert clock.slept[-1] == 3.0  # and so is the Crawl-delay
    run(user_agent="other-bot/1.0")
    assert len(server.requests_to("/robots.txt")) == 2
    clock.advance(24 * 3600 + 1)
    run()
    assert len(server.requests_to("/robots.txt")) == 3
    files = list((tmp_path / "snap" / "robots").iterdir())
    assert [f.name for f in files] == [f"http_127.0.0.1_{server.httpd.server_address[1]}.json"]
    files[0].write_text('{"rules": "damaged"')
    run()
    assert len(server.requests_to("/robots.txt")) == 4


def test_an_unreadable_robots_txt_is_kept_for_five_minutes_between_runs(
    server: Server, tmp_path: Path
) -> None:
    server.routes["/robots.txt"] = Reply(503)
    server.page("/p", PAGE)
    kept = Store(tmp_path / "snap").robots_files()
    clock = Clock()
    for wait in (0, 120, 200):  # a run at 0 s, 120 s and 320 s
        clock.advance(wait)
        f = fetcher(clock)
        f.keep_robots(kept)
        with pytest.raises(BlockedError, match="could not be read"):
            get(f, server.url("/p"), robots=True)
    assert len(server.requests_to("/robots.txt")) == 2  # asked again only once the five minutes were over


def test_robots_rules() -> None:
    rules = robots.parse(
        "User-agent: *\nDisallow: /\nAllow: /blog/*.html$\nDisallow: /blog/private\n", "differ"
    )
    assert rules.allows("https://x/blog/post.html")
    assert not rules.allows("https://x/blog/post.html?x=1")
    assert rules.allows("https://x/blog/private.html")  # the longer Allow pattern wins
    assert not rules.allows("https://x/blog/private")
    assert not rules.allows("https://x/other")
    assert rules.allows("https://x/robots.txt")
    longest = robots.parse("User-agent: *\nAllow: /p\nDisallow: /p/\n", "differ")
    assert not longest.allows("https://x/p/1") and longest.allows("https://x/p")
    tie = robots.parse("User-agent: *\nAllow: /a\nDisallow: /a\n", "differ")
    assert tie.allows("https://x/a")


def test_a_robots_pattern_of_many_stars_is_matched_at_once() -> None:
    """`/a*a*…*b` against a long run of `a`: a backtracking regular expression took minutes (ten stars, 4 s;
    fifteen, 5 min), long enough for a robots.txt to stall every check of its host."""
    rules = robots.parse("User-agent: *\nDisallow: /" + "a*" * 200 + "b\n", "differ")
    started = time.monotonic()
    assert rules.allows("https://x/" + "a" * 5000) and not rules.allows("https://x/" + "a" * 300 + "b")
    assert time.monotonic() - started < 1


@settings(max_examples=500, deadline=None)
@given(st.text("ab*$", max_size=8), st.text("ab", max_size=10))
def test_robots_patterns_match_as_their_regular_expression_does(pattern: str, rest: str) -> None:
    """The linear matcher agrees with the pattern read as a regular expression (`*` any run, a final `$` the
    end), on short ones where backtracking costs nothing."""
    pattern = "/" + pattern.replace("$", "") + ("$" if pattern.endswith("$") else "")
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    regex = ".*".join(re.escape(piece) for piece in body.split("*")) + ("$" if anchored else "")
    path = "/" + rest
    assert robots._matches(pattern, path) == (re.match(regex, path) is not None)


KOREAN = "<html><body><article><p>파이토치 한국 사용자 모임에 오신 것을 환영합니다. 이번 릴리즈는 많은 개선을 담고 있습니다.</p></article></body></html>"


@pytest.mark.parametrize("encoding", ["utf-8", "euc-kr"])
def test_korean_without_charset_header(server: Server, tmp_path: Path, encoding: str) -> None:
    server.page("/ko", KOREAN.encode(encoding), ctype="text/html")
    app = make_app(one_doc(tmp_path, server.url("/ko"), extra="robots = false"))
    check_source(app, app.config.sources()[0])
    v = app.store.latest("doc/canonical")
    assert v is not None
    assert "파이토치 한국 사용자 모임에 오신 것을 환영합니다." in app.store.markdown(v)


def test_decode_order() -> None:
    assert decode("é".encode("cp1252"), "text/html; charset=windows-1252").text == "é"
    assert decode("é".encode(), "text/html; charset=iso-8859-1").text == "é"  # UTF-8 declared as Latin-1
    assert decode(b"\xef\xbb\xbfhi", None).source == "bom"
    meta = '<meta charset="euc-kr"><p>한국어</p>'.encode("euc-kr")
    assert decode(meta, "text/html").text.endswith("한국어</p>")


def test_private_redirect_is_refused(server: Server, tmp_path: Path) -> None:
    """127.0.0.1 is allowed for the test; a redirect to 127.0.0.2 (still loopback) must be refused."""
    server.routes["/go"] = Reply(302, headers={"Location": "http://127.0.0.2:9/secret"})
    app = make_app(one_doc(tmp_path, server.url("/go"), extra="robots = false"))
    result = check_source(app, app.config.sources()[0])
    assert result.line() == (
        "doc/canonical: failed: refused 127.0.0.2 (127.0.0.2): loopback address; to reach it: differ set "
        "doc/canonical allow_private=true"
    )


def test_private_address_refused_without_allow_private(server: Server) -> None:
    with pytest.raises(BlockedError, match="loopback address"):
        fetcher().fetch(Request(server.url("/x"), robots=False))
    assert server.hits == []


def rebinding(monkeypatch: pytest.MonkeyPatch, name: str, answers: list[str]) -> None:
    """A resolver under an attacker's control: `name` resolves to each of `answers` in turn, then to 127.0.0.1."""
    real = socket.getaddrinfo
    queue = iter(answers)

    def getaddrinfo(host: object, port: object, *args: object, **kwargs: object) -> object:
        if host == name:
            host = next(queue, "127.0.0.1")
        return real(host, port, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


PUBLIC = "93.184.215.14"  # classified only: every connection of these tests goes to 127.0.0.1


def test_a_name_that_resolves_again_to_a_private_address_is_refused(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: public when the name is checked, loopback when the connection is made."""
    server.page("/secret", PAGE)
    rebinding(monkeypatch, "rebind.test", [PUBLIC])
    with pytest.raises(BlockedError) as caught:
        fetcher().fetch(Request(f"http://rebind.test:{server.httpd.server_address[1]}/secret", robots=False))
    assert str(caught.value) == (
        "refused a connection to 127.0.0.1: loopback address (the name resolved to a public one when checked); "
        "set allow_private for this source to reach it"
    )
    assert server.hits == []


def test_a_pooled_connection_is_held_to_the_request_that_reuses_it(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection made for a source that may reach 127.0.0.1 is not lent to one that may not."""
    server.page("/secret", PAGE)
    rebinding(monkeypatch, "rebind.test", ["127.0.0.1", "127.0.0.1", PUBLIC])
    f = fetcher()
    url = f"http://rebind.test:{server.httpd.server_address[1]}/secret"
    assert f.fetch(Request(url, robots=False, allow_private=LOCAL)).status == 200
    with pytest.raises(BlockedError, match=r"^refused a connection to 127\.0\.0\.1: loopback address"):
        f.fetch(Request(url, robots=False))
    assert len(server.hits) == 1


@contextlib.contextmanager
def https_server(authority: trustme.CA, name: str) -> Iterator[Server]:
    """A local HTTPS server serving PAGE at /post with a certificate for `name` from `authority`."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    authority.issue_cert(name).configure_cert(context)
    server = Server(tls=context)
    server.page("/post", PAGE)
    try:
        yield server
    finally:
        server.close()


def test_certificates_are_verified(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A certificate from an authority the bundle lacks, or for another name, is refused; trusted, it passes."""
    authority = trustme.CA()
    with https_server(authority, "127.0.0.1") as server, https_server(authority, "example.org") as elsewhere:
        unknown = r"^TLS error: certificate verify failed: unable to get local issuer certificate$"
        with pytest.raises(FetchError, match=unknown):
            get(fetcher(), server.url("/post"))
        bundle = tmp_path / "ca.pem"
        authority.cert_pem.write_to_path(str(bundle))
        monkeypatch.setattr(certifi, "where", lambda: str(bundle))  # as if certifi's bundle had it
        assert get(fetcher(), server.url("/post")).status == 200  # type: ignore[attr-defined]
        mismatch = (
            r"^TLS error: certificate verify failed: IP address mismatch, certificate is not valid for '127"
        )
        with pytest.raises(FetchError, match=mismatch):
            get(fetcher(), elsewhere.url("/post"))
    assert [h.path for h in server.hits] == ["/post"]
    assert elsewhere.hits == []


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("192.168.0.1", "private"),
        ("172.16.5.4", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("100.64.0.1", "shared (carrier-grade NAT)"),
        ("0.0.0.0", "unspecified"),
        ("::ffff:127.0.0.1", "loopback"),
        ("224.0.0.1", "multicast"),
        ("fc00::1", "private"),
        ("93.184.216.34", None),
        ("2606:4700::1111", None),
    ],
)
def test_address_classification(address: str, reason: str | None) -> None:
    assert classify(ipaddress.ip_address(address)) == reason


def test_guard_checks_literal_addresses_without_connecting() -> None:
    with pytest.raises(BlockedError, match=r"refused 10.0.0.1 \(10.0.0.1\): private address"):
        check_url("http://10.0.0.1/", False)
    check_url("http://10.0.0.1/", (ipaddress.ip_network("10.0.0.0/8"),))
    check_url("http://10.0.0.1/", True)


def test_connections_are_reused_after_bodies_read_to_their_end(server: Server) -> None:
    """A page, a 304, a small error page and a redirect all leave the connection open for the next request;
    a body refused unread (larger than the cap) does not."""
    server.page("/post", PAGE, etag='"v1"')
    server.routes["/gone"] = Reply(404, b"no such page")
    server.routes["/old"] = Reply(301, b"moved", headers={"Location": "/post"})
    server.page("/big", "x" * 50_000)
    f = fetcher(max_bytes=10_000)
    get(f, server.url("/post"))
    get(f, server.url("/post"), etag='"v1"')
    with pytest.raises(FetchError):
        get(f, server.url("/gone"))
    get(f, server.url("/old"))
    ports = [hit.port for hit in server.hits if hit.path != "/robots.txt"]
    assert len(ports) == 5 and len(set(ports)) == 1
    with pytest.raises(FetchError, match="exceeds max_bytes"):
        get(f, server.url("/big"))
    get(f, server.url("/post"))
    assert server.hits[-1].port != ports[0]


def test_one_thread_keeps_every_deadline() -> None:
    """Deadlines fire in their block and never after it; a thousand requests do not start a thousand threads."""
    from differ.fetch.deadline import watchdog

    with watchdog(0.05) as fired:
        time.sleep(0.3)
    assert fired.is_set()
    with watchdog(0.05) as early:
        pass
    time.sleep(0.3)
    assert not early.is_set()
    before = threading.active_count()
    for _ in range(1000):
        with watchdog(30):
            pass
    assert threading.active_count() <= before + 1


def test_robots_txt_is_fetched_once_per_host_by_concurrent_sources(server: Server) -> None:
    server.routes["/robots.txt"] = Reply(200, b"User-agent: *\nAllow: /\n", delay=0.2)
    for n in range(8):
        server.page(f"/p/{n}", PAGE)
    f = fetcher()
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda n: get(f, server.url(f"/p/{n}"), robots=True), range(8)))
    assert len(server.requests_to("/robots.txt")) == 1
    assert len([hit for hit in server.hits if hit.path.startswith("/p/")]) == 8


# -- through a proxy ------------------------------------------------------------------------------------------
def test_pages_and_robots_txt_go_through_the_configured_proxy(server: Server, proxy: Proxy) -> None:
    server.page("/post", PAGE, etag='"v1"')
    f = fetcher(proxy=proxy.url())
    assert get(f, server.url("/post"), robots=True).status == 200  # type: ignore[attr-defined]
    assert get(f, server.url("/post"), etag='"v1"').status == 304  # type: ignore[attr-defined]
    assert proxy.seen == [f"GET {server.url(path)}" for path in ("/robots.txt", "/post", "/post")]
    assert [h.path for h in server.hits] == ["/robots.txt", "/post", "/post"]
    assert server.hits[2].headers["if-none-match"] == '"v1"'


def test_https_goes_through_a_tunnel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, proxy: Proxy) -> None:
    """The proxy sees only CONNECT host:port; the certificate is still the page's, verified end to end."""
    authority = trustme.CA()
    with https_server(authority, "127.0.0.1") as server:
        bundle = tmp_path / "ca.pem"
        authority.cert_pem.write_to_path(str(bundle))
        monkeypatch.setattr(certifi, "where", lambda: str(bundle))
        assert get(fetcher(proxy=proxy.url()), server.url("/post")).status == 200  # type: ignore[attr-defined]
        assert proxy.seen == [f"CONNECT 127.0.0.1:{server.httpd.server_address[1]}"]
        assert [h.path for h in server.hits] == ["/post"]


def test_proxy_credentials_are_sent_and_refusals_said(server: Server) -> None:
    guarded = Proxy(credentials="ops:s3cret pass")
    try:
        server.page("/post", PAGE)
        good = fetcher(proxy=guarded.url("ops:s3cret%20pass"))
        assert get(good, server.url("/post")).status == 200  # type: ignore[attr-defined]
        with pytest.raises(FetchError) as caught:
            get(fetcher(proxy=guarded.url("ops:wrong")), server.url("/post"))
        assert str(caught.value) == "HTTP 407 Proxy Authentication Required"
        with pytest.raises(FetchError) as caught:  # HTTPS: the proxy refuses the tunnel
            get(fetcher(proxy=guarded.url("ops:wrong")), "https://127.0.0.1:1/post")
        assert str(caught.value) == (
            f"proxy 127.0.0.1:{guarded.port} failed: Tunnel connection failed: 407 Proxy Authentication Required"
        )
        assert len(server.hits) == 1
    finally:
        guarded.close()


def test_a_proxy_that_is_down_is_named() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(FetchError) as caught:
        get(fetcher(proxy=f"http://ops:secret@127.0.0.1:{port}"), "http://127.0.0.1:1/post")
    message = str(caught.value)
    assert message.startswith(f"proxy 127.0.0.1:{port} failed: ")
    assert "refused" in message.lower() and "secret" not in message


def test_a_name_only_the_proxy_resolves_is_fetched_through_it(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An intranet name the local resolver does not know is left to the proxy; a name that resolves here to
    a private address is still refused before the proxy is asked."""
    resolver = socket.getaddrinfo

    def local(host: str, *args: object, **kw: object) -> object:
        if host == "mirror.corp.test":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return resolver(host, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", local)
    inside = Proxy(hosts={"mirror.corp.test": "127.0.0.1"})
    try:
        server.page("/post", PAGE)
        url = f"http://mirror.corp.test:{server.httpd.server_address[1]}/post"
        with pytest.raises(BlockedError, match="^cannot resolve mirror.corp.test"):
            get(fetcher(), url)
        assert get(fetcher(proxy=inside.url()), url).status == 200  # type: ignore[attr-defined]
        with pytest.raises(BlockedError, match=r"^refused 127\.0\.0\.1 \(127\.0\.0\.1\): loopback address"):
            fetcher(proxy=inside.url()).fetch(Request(server.url("/post"), robots=False))
        assert inside.seen == [f"GET {url}"]
    finally:
        inside.close()


@pytest.mark.parametrize("status", [403, 503])
def test_a_browser_check_is_said_so_and_not_asked_again(server: Server, tmp_path: Path, status: int) -> None:
    """Cloudflare marks its challenge pages `cf-mitigated: challenge` (its documented way to tell one): differ
    says what it met instead of a bare status, and does not ask again within the check (a 503 otherwise is)."""
    server.routes["/post"] = Reply(
        status,
        b"<title>Just a moment...</title>",
        headers={"cf-mitigated": "challenge", "Content-Type": "text/html"},
    )
    app = make_app(one_doc(tmp_path, server.url("/post"), service="retries = 2\n"))
    [result] = [check_source(app, app.config.sources()[0])]
    reason = {403: "Forbidden", 503: "Service Unavailable"}[status]
    assert result.line() == (
        f"doc/canonical: failed: HTTP {status} {reason}: the site answers with a browser check (Cloudflare's "
        "challenge), which differ, a robot, does not take; ask the site to let differ's User-Agent through, or "
        "watch the post in its feed"
    )
    assert len(server.requests_to("/post")) == 1
