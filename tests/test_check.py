"""The check pipeline: extraction anomalies are held, and stored only when they last."""

from __future__ import annotations

import html
import json
import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from differ.check import check, check_source
from differ.checked import CheckResult
from differ.config import SourceConfig
from differ.errors import StoreError
from differ.turns import Turns
from tests.conftest import Clock, Reply, Server, article, make_app, make_config, one_doc, source_toml

FULL = article(
    "<p>" + "A long release note with many words. " * 40 + "</p><p>Second paragraph of the notes.</p>"
)
SHRUNK = article("<p>Short.</p>")


def test_content_that_shrinks_at_once_is_held_until_it_lasts(tmp_path: Path, server: Server) -> None:
    server.page("/post", FULL)
    clock = Clock()
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)
    source = app.config.sources()[0]
    check_source(app, source)
    server.page("/post", SHRUNK)
    first = check_source(app, source)
    assert first.line() == (
        "doc/canonical: held: content shrank by 99% (286 → 2 words); stored only if still so in 600s"
    )
    clock.advance(60)
    assert check_source(app, source).line() == (
        "doc/canonical: held: content shrank by 99% (286 → 2 words); seen "
        "again, stored if still so at 2026-07-08T17:55:00Z"
    )
    clock.advance(600)
    assert check_source(app, source).line() == "doc/canonical: new version 2 (3 changes)"


def test_a_passing_anomaly_leaves_nothing(tmp_path: Path, server: Server) -> None:
    server.page("/post", FULL)
    clock = Clock()
    app = make_app(
        one_doc(tmp_path, server.url("/post"), extra='robots = false\nselector = "article"'), clock
    )
    source = app.config.sources()[0]
    check_source(app, source)
    server.page("/post", SHRUNK)
    assert check_source(app, source).outcome == "held"
    server.page("/post", FULL)
    clock.advance(3600)
    assert check_source(app, source).line() == "doc/canonical: unchanged (same body)"
    server.page("/post", SHRUNK)
    clock.advance(60)
    assert check_source(app, source).outcome == "held"  # a new streak starts from scratch
    assert [v.number for v in app.store.versions("doc/canonical")] == [1]
    assert "pending" in app.store.state("doc/canonical")


def test_a_page_that_scripts_fill_in_fails_first_and_later(tmp_path: Path, server: Server) -> None:
    shell = '<html><body><div id="app"></div><script src="/app.js"></script></body></html>'
    server.page("/post", shell)
    clock = Clock()
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)
    source = app.config.sources()[0]
    [first] = check(app, [source])
    assert first.line() == (
        "doc/canonical: failed: the page has no text as served (is it filled in by JavaScript? differ reads the "
        "HTML without running scripts; point url at a page or API that serves the text, or have a browser print the page: "
        'command = ["chromium", "--headless", "--dump-dom", "{url}"])'
    )
    assert app.store.versions("doc/canonical") == []
    server.page("/post", FULL)
    assert check_source(app, source).line() == "doc/canonical: new version 1 (first snapshot)"
    server.page(
        "/post", shell
    )  # a redesign that moved the text into scripts: nothing to compare, never stored
    clock.advance(3600)
    for _ in range(2):
        assert check_source(app, source).line() == (
            "doc/canonical: failed: the page has no text as served (is it filled in by JavaScript? differ reads the "
            "HTML without running scripts; point url at a page or API that serves the text, or have a browser print the page: "
            'command = ["chromium", "--headless", "--dump-dom", "{url}"])'
        )
    assert [v.number for v in app.store.versions("doc/canonical")] == [1]


def test_a_selector_that_stops_matching_fails_naming_where_the_text_went(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """A redesign that renamed the post's element: each check fails (no version stored empty, so no alert that
    everything was removed) saying where the text is now and the command that reads it there; after
    `fail_after` checks the failing streak is alerted, and the page back as it was is a recovery, unchanged."""
    from tests.test_notify import hooks_toml

    receiver.routes["/hooks"] = Reply(200)
    server.page("/post", FULL)
    clock = Clock()
    app = make_app(
        one_doc(
            tmp_path,
            server.url("/post"),
            extra='robots = false\nselector = "article"',
            notify=hooks_toml(receiver.url("/hooks")),
        ),
        clock,
    )
    [source] = app.config.sources()
    assert [r.line() for r in check(app, [source])] == ["doc/canonical: new version 1 (first snapshot)"]
    server.page("/post", FULL.replace("<article>", "<main>").replace("</article>", "</main>"))
    failed = (
        'doc/canonical: failed: selector "article" matches nothing on the page; its text is in <main> (285 words); '
        "to watch it so: differ set doc/canonical selector=main"
    )
    for _ in range(3):
        clock.advance(1800)
        assert [r.line() for r in check(app, [source])] == [failed]
    assert [v.number for v in app.store.versions("doc/canonical")] == [1]
    told = [json.loads(h.body) for h in receiver.requests_to("/hooks")]
    assert [(t["type"], t["data"]["failures"]) for t in told] == [("differ.fetch_failing", 3)]
    server.page("/post", FULL)
    clock.advance(1800)
    assert [r.line() for r in check(app, [source])] == ["doc/canonical: unchanged (same body)"]
    told = [json.loads(h.body) for h in receiver.requests_to("/hooks")]
    assert [t["type"] for t in told] == ["differ.fetch_failing", "differ.recovered"]
    assert {t["data"]["url"] for t in told} == {server.url("/post")}  # which page, for a receiver of its own


def test_a_slow_host_does_not_hold_up_the_others(tmp_path: Path, server: Server) -> None:
    """Two workers, one request at a time per host: while the slow host takes a second over its first source,
    the other worker checks every source of the fast host instead of queueing behind the slow one; the lines
    still come out in the configured order."""
    slow = Server()
    try:
        for n in range(3):
            slow.page(f"/p{n}", FULL, delay=1.0)
            server.page(f"/p{n}", FULL)
        mirrors = [source_toml(slow.url(f"/p{n}"), f"slow{n}", extra="robots = false") for n in (1, 2)]
        mirrors += [source_toml(server.url(f"/p{n}"), f"fast{n}", extra="robots = false") for n in range(3)]
        config = one_doc(
            tmp_path, slow.url("/p0"), extra="robots = false", mirrors=mirrors, service="workers = 2\n"
        )
        app = make_app(config)
        printed: list[str] = []
        results = check(app, config.sources(), on_result=lambda r: printed.append(r.source))
        order = ["doc/canonical", "doc/slow1", "doc/slow2", "doc/fast0", "doc/fast1", "doc/fast2"]
        assert [r.source for r in results] == printed == order
        assert {r.outcome for r in results} == {"new"}
        slow_hits = sorted(h.at for h in slow.hits)
        assert len(slow_hits) == 3 and len(server.hits) == 3
        assert max(h.at for h in server.hits) < slow_hits[1]  # all fast ones before the slow host's second
    finally:
        slow.close()


def test_a_store_that_fails_stops_the_check(
    tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """StoreError means no source can be kept: it is raised, and no further source is started."""
    import differ.check

    server.page("/p", FULL)
    mirrors = [source_toml(server.url("/p"), f"m{n}", extra="robots = false") for n in range(3)]
    config = one_doc(
        tmp_path, server.url("/p"), extra="robots = false", mirrors=mirrors, service="workers = 2\n"
    )
    started: list[str] = []

    def failing(app: object, source: SourceConfig) -> CheckResult:
        started.append(source.key)
        if len(started) == 2:
            raise StoreError("snapshots: disk full")
        return CheckResult(source.key, "unchanged")

    monkeypatch.setattr(differ.check, "check_source", failing)
    with pytest.raises(StoreError, match="disk full"):
        check(make_app(config), config.sources())
    assert started == ["doc/canonical", "doc/m0"]  # one host, one at a time: m1 and m2 never started


def test_turns_go_to_the_first_source_of_a_free_host() -> None:
    turns = Turns(["a", "a", "b", "a", "c", "b"], per_host=1)
    assert [turns.take(), turns.take(), turns.take()] == [0, 2, 4]  # a, b and c each busy once
    turns.done(2)
    assert turns.take() == 5  # b is free again; a is still busy
    turns.done(0)
    assert turns.take() == 1
    turns.done(1)
    assert turns.take() == 3
    for index in (3, 4, 5):
        turns.done(index)
    assert turns.take() is None  # none left
    two = Turns(["a", "a", "a"], per_host=2)
    assert [two.take(), two.take()] == [0, 1]
    two.stop()
    assert two.take() is None  # stopped: no new check starts


def test_editing_a_sources_settings_is_not_a_change_of_the_page(tmp_path: Path, server: Server) -> None:
    """A new exclude list reads the stored version again: an unchanged page stays unchanged, and the next real
    edit is reported alone, in the check, its alert and `differ diff` alike."""
    from differ.check import missed_events
    from differ.versions import diff_versions

    page = article("<p>Release notes.</p><div class=promo>Try our cloud</div>")
    server.page("/post", page)
    clock = Clock()
    before = one_doc(tmp_path, server.url("/post"), extra="robots = false")
    app = make_app(before, clock)
    assert check_source(app, before.sources()[0]).line() == "doc/canonical: new version 1 (first snapshot)"
    after = one_doc(tmp_path, server.url("/post"), extra='robots = false\nexclude = [".promo"]')
    app = make_app(after, clock)
    source = after.sources()[0]
    server.page("/post", page.replace("</p>", " </p>"))  # another body, the same page
    clock.advance(60)
    assert check_source(app, source).line() == "doc/canonical: unchanged (page noise only)"
    server.page("/post", page.replace("</p>", "  </p>"))
    clock.advance(60)
    assert check_source(app, source).line() == "doc/canonical: unchanged (page noise only)"
    assert app.store.state(source.key)["reread"]["version"] == 1  # read again once, then remembered
    server.page("/post", page.replace("Release notes.", "Release notes, revised."))
    clock.advance(60)
    result = check_source(app, source)
    assert (result.line(), result.summary[1:]) == (
        "doc/canonical: new version 2 (1 change)",
        ['• Release notes: added ", revised"'],
    )
    old, new = app.store.versions(source.key)
    assert [c.kind for c in diff_versions(app.store, old, new, app=app, source=source).changes] == [
        "modified"
    ]
    assert len(diff_versions(app.store, old, new).changes) == 2  # as stored: the promotion went too
    assert [e["diff"]["summary"][1:] for e in missed_events(app, source)] == [
        ['• Release notes: added ", revised"']
    ]


def test_a_json_sources_title_and_dates_are_kept_without_being_named(tmp_path: Path, server: Server) -> None:
    """A `json` source that names no `metadata` keeps the title and dates at the document's top, as a page's are;
    a store made when it kept none reads its latest version again, so the upgrade itself is no change, and the
    next edit says what moved: the body and `updated_at`, not a title and dates newly seen. A counter never
    makes a version."""
    from differ.versions import diff_versions

    post = {
        "title": "PyTorch 2.13",
        "views": 10,
        "published_at": "2026-07-08 17:42:23",
        "updated_at": "2026-07-08 17:58:15",
        "body_md": "We are excited to announce PyTorch 2.13.\n",
    }
    server.page("/post.json", json.dumps(post), "application/json")
    clock = Clock()
    extra = 'robots = false\nfield = "body_md"'
    before = one_doc(tmp_path, server.url("/post.json"), kind="json", extra=extra + "\nmetadata = []")
    assert check_source(make_app(before, clock), before.sources()[0]).outcome == "new"
    app = make_app(one_doc(tmp_path, server.url("/post.json"), kind="json", extra=extra), clock)
    source = app.config.sources()[0]
    server.page("/post.json", json.dumps({**post, "views": 11}), "application/json")
    clock.advance(60)
    assert check_source(app, source).line() == "doc/canonical: unchanged (page noise only)"
    edited = {
        **post,
        "views": 12,
        "updated_at": "2026-07-09 10:00:00",
        "body_md": "We are thrilled to announce.",
    }
    server.page("/post.json", json.dumps(edited), "application/json")
    clock.advance(60)
    result = check_source(app, source)
    assert (result.line(), result.summary[1:]) == (
        "doc/canonical: new version 2 (1 change, 1 metadata field)",
        [
            '• "We are excited to announce PyTorch 2.13."',
            '  → "We are thrilled to announce."',
            '• metadata › updated_at: "2026-07-08 17:58:15" → "2026-07-09 10:00:00"',
        ],
    )
    old, new = app.store.versions(source.key)
    assert new.metadata == {k: edited[k] for k in ("title", "published_at", "updated_at")}
    assert [m["field"] for m in diff_versions(app.store, old, new, app=app, source=source).metadata] == [
        "updated_at"
    ]


NOISY = article(
    "<p>5 min read</p><p>Release notes for version 1.71.</p><ul><li>Views: 1234</li><li>Fixes.</li></ul>"
)


def test_ignored_text_never_makes_a_version(tmp_path: Path, server: Server) -> None:
    """`ignore` leaves matching text out of the normalized Markdown (the raw body keeps it): a view counter
    that changes on every fetch is no change, and adding the option to a watched source is none either."""
    server.page("/post", NOISY)
    clock = Clock()
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)
    assert check_source(app, app.config.sources()[0]).outcome == "new"
    ignore = r'ignore = ["^\\d+ min read$", "Views: \\d+"]'
    app = make_app(one_doc(tmp_path, server.url("/post"), extra=f"robots = false\n{ignore}"), clock)
    source = app.config.sources()[0]
    server.page("/post", NOISY.replace("1234", "1301"))
    clock.advance(60)
    assert check_source(app, source).line() == "doc/canonical: unchanged (page noise only)"
    server.page("/post", NOISY.replace("1234", "1377").replace("1.71", "1.81"))
    clock.advance(60)
    result = check_source(app, source)
    assert (result.line(), result.summary[1:]) == (
        "doc/canonical: new version 2 (1 change)",
        ['• "Release notes for version 1.71."', '  → "Release notes for version 1.81."'],
    )
    latest = app.store.latest(source.key)
    assert latest is not None
    assert app.store.markdown(latest) == "# Post\n\nRelease notes for version 1.81.\n\n- Fixes.\n"
    assert b"Views: 1377" in app.store.get_blob(latest.raw_sha256)
    assert latest.record["ignored"] == 2


# -- GitHub releases ---------------------------------------------------------------------------------------------
def release(
    body: str,
    name: str = "PyTorch 2.13.0 Release",
    tag: str = "v2.13.0",
    published: str = "2026-07-08T17:00:00Z",
) -> str:
    """A release object as GitHub's REST API returns it (fields differ does not read included)."""
    return json.dumps(
        {
            "url": "https://api.github.com/repos/pytorch/pytorch/releases/1",
            "html_url": f"https://github.com/pytorch/pytorch/releases/tag/{tag}",
            "id": 1,
            "tag_name": tag,
            "target_commitish": "main",
            "name": name,
            "body": body,
            "draft": False,
            "prerelease": False,
            "created_at": "2026-07-08T16:00:00Z",
            "published_at": published,
            "author": {"login": "pytorchbot"},
            "assets": [],
        }
    )


def test_a_github_release_is_read_through_the_api(tmp_path: Path, server: Server) -> None:
    notes = "## Highlights\r\n\r\n* [Prototype] CuTeDSL backend\r\n* Python 3.15 support\r\n"
    server.page("/api/repos/pytorch/pytorch/releases/tags/v2.13.0", release(notes), "application/json")
    config = one_doc(
        tmp_path,
        "https://github.com/pytorch/pytorch/releases/tag/v2.13.0",
        kind="github",
        extra=f'api = "{server.url("/api")}"\nheaders = {{ Authorization = "Bearer ${{TOKEN}}" }}',
        env={"TOKEN": "t0ken"},
    )
    app = make_app(config)
    src = config.sources()[0]
    assert check_source(app, src).line() == "doc/canonical: new version 1 (first snapshot)"
    latest = app.store.latest(src.key)
    assert latest is not None
    assert app.store.markdown(latest, latest.record["normalizer"]) == (
        "## Highlights\n\n- [Prototype] CuTeDSL backend\n- Python 3.15 support\n"
    )
    assert latest.metadata == {
        "name": "PyTorch 2.13.0 Release",
        "tag_name": "v2.13.0",
        "prerelease": False,
        "published_at": "2026-07-08T17:00:00Z",
    }
    hit = server.requests_to("/api/repos/pytorch/pytorch/releases/tags/v2.13.0")[0]
    headers = {k.lower(): v for k, v in hit.headers.items()}
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["x-github-api-version"] == "2022-11-28"
    assert headers["authorization"] == "Bearer t0ken"
    assert server.requests_to("/robots.txt") == []  # an API for programs: robots.txt is not asked
    server.page(
        "/api/repos/pytorch/pytorch/releases/tags/v2.13.0",
        release(notes.replace("[Prototype] ", "")),
        "application/json",
    )
    result = check_source(app, src)
    assert (result.line(), result.summary[1]) == (
        "doc/canonical: new version 2 (1 change)",
        '• Highlights › CuTeDSL backend: removed "[Prototype]"',
    )


def test_a_latest_release_moving_on_is_a_new_release_not_an_edit(tmp_path: Path, server: Server) -> None:
    """`…/releases/latest` showing the next release: the summary names it, with its name and date, and counts
    the notes' changes instead of quoting a diff of two releases' notes."""
    api = "/api/repos/pytorch/pytorch/releases/latest"
    server.page(
        api, release("## Highlights\n\n* CuTeDSL backend\n* Python 3.15 support\n"), "application/json"
    )
    config = one_doc(
        tmp_path,
        "https://github.com/pytorch/pytorch/releases/latest",
        kind="github",
        extra=f'api = "{server.url("/api")}"',
    )
    app = make_app(config)
    src = config.sources()[0]
    check_source(app, src)
    notes = "## Highlights\n\n* Faster compile\n* Python 3.15 support\n\n## Fixes\n\n* MPS ops\n"
    server.page(
        api,
        release(notes, "PyTorch 2.14.0 Release", "v2.14.0", "2026-10-14T17:00:00Z"),
        "application/json",
    )
    result = check_source(app, src)
    assert (result.line(), result.summary) == (
        "doc/canonical: new version 2 (4 changes, 3 metadata fields)",
        [
            "Doc (canonical), version 1 → 2: a new release, v2.14.0 (was v2.13.0).",
            '• metadata › name: "PyTorch 2.13.0 Release" → "PyTorch 2.14.0 Release"',
            '• metadata › published_at: "2026-07-08T17:00:00Z" → "2026-10-14T17:00:00Z"',
            "• its notes: 4 changes from those of v2.13.0 (the diff shows them word by word)",
        ],
    )
    from differ.site import describe

    assert describe(app.store.version(src.key, 2)) == "a new release, v2.14.0 (was v2.13.0)"


@pytest.mark.parametrize(
    ("url", "api"),
    [
        (
            "https://github.com/rust-lang/rust/releases/tag/1.81.0",
            "https://api.github.com/repos/rust-lang/rust/releases/tags/1.81.0",
        ),
        ("https://github.com/o/r/releases/latest", "https://api.github.com/repos/o/r/releases/latest"),
        (
            "https://ghe.example.org/team/tool/releases/tag/v1/",
            "https://ghe.example.org/api/v3/repos/team/tool/releases/tags/v1",
        ),
    ],
)
def test_the_api_url_comes_from_the_release_page(tmp_path: Path, url: str, api: str) -> None:
    from differ.check import build_request

    config = one_doc(tmp_path, url, kind="github")
    assert build_request(config.sources()[0], {}).url == api
    assert not config.sources()[0].robots
    assert one_doc(tmp_path, url, kind="github", extra="robots = true").sources()[0].robots


def test_a_github_url_that_is_not_a_release_is_refused(tmp_path: Path) -> None:
    from differ.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        one_doc(tmp_path, "https://github.com/pytorch/pytorch", kind="github")
    assert str(info.value) == (
        "config.toml: documents[0].canonical.url: not a GitHub release page; expected "
        "https://github.com/OWNER/REPO/releases/tag/TAG or …/releases/latest, found "
        '"https://github.com/pytorch/pytorch"'
    )


def test_a_release_that_is_not_there_names_the_address_asked(tmp_path: Path, server: Server) -> None:
    """The configured URL is the release page; the 404 is about the API object, so the failure names that."""
    config = one_doc(
        tmp_path,
        "https://github.com/o/r/releases/tag/v9",
        kind="github",
        extra=f'api = "{server.url("/api")}"',
    )
    api = server.url("/api/repos/o/r/releases/tags/v9")
    assert check_source(make_app(config), config.sources()[0]).line() == (
        f"doc/canonical: failed: HTTP 404 Not Found (fetching {api})"
    )


def test_an_answer_that_is_not_a_release_fails_with_what_was_expected(tmp_path: Path, server: Server) -> None:
    server.page("/api/repos/o/r/releases/latest", '{"message": "Moved"}', "application/json")
    config = one_doc(
        tmp_path,
        "https://github.com/o/r/releases/latest",
        kind="github",
        extra=f'robots = false\napi = "{server.url("/api")}"',
    )
    assert check_source(make_app(config), config.sources()[0]).line() == (
        "doc/canonical: failed: expected a GitHub release object (with tag_name) from the API"
    )


def test_a_gitlab_release_is_read_through_the_api(tmp_path: Path, server: Server) -> None:
    notes = "## Changes\r\n\r\n- Faster startup\r\n"
    api_path = "/api/v4/projects/inkscape%2Finkscape/releases/INKSCAPE_1_4"
    answer = {
        "name": "Inkscape 1.4",
        "tag_name": "INKSCAPE_1_4",
        "description": notes,
        "created_at": "2026-07-08T16:00:00Z",
        "released_at": "2026-07-08T17:00:00Z",
        "upcoming_release": False,
    }
    server.page(api_path, json.dumps(answer), "application/json")
    config = one_doc(
        tmp_path,
        "https://gitlab.com/inkscape/inkscape/-/releases/INKSCAPE_1_4",
        kind="gitlab",
        extra=f'api = "{server.url("/api/v4")}"',
    )
    app = make_app(config)
    src = config.sources()[0]
    assert check_source(app, src).line() == "doc/canonical: new version 1 (first snapshot)"
    latest = app.store.latest(src.key)
    assert latest is not None
    assert app.store.markdown(latest, latest.record["normalizer"]) == "## Changes\n\n- Faster startup\n"
    assert latest.metadata == {
        "name": "Inkscape 1.4",
        "tag_name": "INKSCAPE_1_4",
        "released_at": "2026-07-08T17:00:00Z",
        "upcoming_release": False,
    }
    assert server.requests_to("/robots.txt") == []
    server.page(
        api_path, json.dumps({**answer, "description": notes + "- Fewer crashes\r\n"}), "application/json"
    )
    assert check_source(app, src).line() == "doc/canonical: new version 2 (1 change)"


@pytest.mark.parametrize(
    ("url", "api"),
    [
        (
            "https://gitlab.com/inkscape/inkscape/-/releases/INKSCAPE_1_4",
            "https://gitlab.com/api/v4/projects/inkscape%2Finkscape/releases/INKSCAPE_1_4",
        ),
        (
            "https://gitlab.gnome.org/GNOME/gtk/-/releases/permalink/latest",
            "https://gitlab.gnome.org/api/v4/projects/GNOME%2Fgtk/releases/permalink/latest",
        ),
        (
            "https://salsa.debian.org/a/sub/tool/-/releases/debian%2F1.0-2",
            "https://salsa.debian.org/api/v4/projects/a%2Fsub%2Ftool/releases/debian%2F1.0-2",
        ),
    ],
)
def test_the_gitlab_api_url_comes_from_the_release_page(tmp_path: Path, url: str, api: str) -> None:
    from differ.check import build_request

    assert build_request(one_doc(tmp_path, url, kind="gitlab").sources()[0], {}).url == api


def test_a_release_is_counted_against_the_host_it_is_fetched_from(tmp_path: Path) -> None:
    """Per-host turns count the API's host, where the requests go, not the release page's."""
    from differ.check import fetch_host

    config = one_doc(
        tmp_path,
        "https://github.com/pytorch/pytorch/releases/tag/v2.13.0",
        kind="github",
        mirrors=[source_toml("https://github.com/pytorch/pytorch", "page")],
    )
    release, page = config.sources()
    assert (fetch_host(release), fetch_host(page)) == ("https://api.github.com:443", "https://github.com:443")


def test_a_version_stored_by_another_process_meanwhile_stands(tmp_path: Path, server: Server) -> None:
    """`differ check` while `differ run` checks the same page: the version the other stored first stands, this
    check stores nothing after it (its diff was made against the version before) and says so, and the next
    check compares with it."""

    from differ.store import Store

    config = one_doc(tmp_path, server.url("/post"), extra="robots = false")
    other = make_app(config, Clock())  # the other process: its own app on the same store

    class Racing(Store):
        """This process's store, where the other process stores its version just before this one commits."""

        raced = False

        def commit(self, key: str, **kw: Any) -> Any:
            if not Racing.raced and self.latest(key) is not None:
                Racing.raced = True
                assert check_source(other, source).line() == "doc/canonical: new version 2 (1 change)"
            return super().commit(key, **kw)

    app = make_app(config, Clock())
    app.store = Racing(config.service.snapshots)
    source = app.config.sources()[0]
    server.page("/post", article("<p>One.</p>"))
    check_source(app, source)
    server.page("/post", article("<p>Two.</p>"))
    assert check_source(app, source).line() == (
        "doc/canonical: deferred: another process stored a version meanwhile; checked again next time"
    )
    assert [v.number for v in app.store.versions(source.key)] == [1, 2]
    assert check_source(app, source).line() == "doc/canonical: unchanged (same body)"


def atom(*entries: tuple[str, str, str, str]) -> str:
    """An Atom feed of (title, link, updated, HTML content) entries, newest first."""
    items = "".join(
        f"<entry><title>{title}</title><link rel='alternate' href='{link}'/><id>tag:blog,{link}</id>"
        f"<published>2026-07-08T17:00:00Z</published><updated>{updated}</updated>"
        f"<content type='html'>{html.escape(content)}</content></entry>"
        for title, link, updated, content in entries
    )
    return f"<?xml version='1.0' encoding='utf-8'?><feed xmlns='http://www.w3.org/2005/Atom'><title>Blog</title>{items}</feed>"


def test_a_post_is_watched_in_its_blogs_feed(tmp_path: Path, server: Server) -> None:
    """New posts come into the feed and old ones go: only the watched entry's text and dates make versions."""
    post = "https://blog.example.org/2026/07/08/release-2-13/"
    body = "<p>Release 2.13 brings a [Prototype] backend.</p><h2>Support</h2><p>Python 3.15.</p>"
    server.page(
        "/feed.xml", atom(("Release 2.13", post, "2026-07-08T17:00:00Z", body)), "application/atom+xml"
    )
    config = one_doc(
        tmp_path, server.url("/feed.xml"), kind="feed", extra=f'entry = "{post}"\nrobots = false'
    )
    app = make_app(config)
    src = config.sources()[0]
    assert check_source(app, src).line() == "doc/canonical: new version 1 (first snapshot)"
    latest = app.store.latest(src.key)
    assert latest is not None
    assert app.store.markdown(latest, latest.record["normalizer"]) == (
        "Release 2.13 brings a [Prototype] backend.\n\n## Support\n\nPython 3.15.\n"
    )
    assert latest.metadata == {
        "title": "Release 2.13",
        "published": "2026-07-08T17:00:00Z",
        "updated": "2026-07-08T17:00:00Z",
    }
    newer = (
        "Release 2.14 preview",
        "https://blog.example.org/2026/08/01/preview/",
        "2026-08-01T00:00:00Z",
        "<p>Soon.</p>",
    )
    server.page(
        "/feed.xml", atom(newer, ("Release 2.13", post, "2026-07-08T17:00:00Z", body)), "application/atom+xml"
    )
    # another post came into the feed: not an edit of this one
    assert check_source(app, src).line() == "doc/canonical: unchanged (page noise only)"
    edited = body.replace("[Prototype] ", "")
    server.page(
        "/feed.xml",
        atom(newer, ("Release 2.13", post, "2026-07-09T08:00:00Z", edited)),
        "application/atom+xml",
    )
    result = check_source(app, src)
    assert (result.line(), result.summary[1]) == (
        "doc/canonical: new version 2 (1 change, 1 metadata field)",
        '• Release 2.13 brings a backend: removed "[Prototype]"',  # before any heading: by its first words
    )
    server.page("/feed.xml", atom(newer), "application/atom+xml")
    result = check_source(app, src)
    assert (result.outcome, result.detail) == (  # not the post emptied: the check fails, and says why
        "failed",
        f'the feed has no entry whose link or id is "{post}" (1 entry; the first is "Release 2.14 preview" '
        "<https://blog.example.org/2026/08/01/preview/>); a post can drop off a feed as newer ones come",
    )


def test_a_blogs_feed_watched_whole_tells_of_each_new_post_with_its_address(
    tmp_path: Path, server: Server
) -> None:
    """`entry = "*"`: the feed's list of posts is the document; a post coming in is one change that quotes its
    title and address, one retitled is an edit of its item, and an edit of a post's text is no change of the list."""
    old = (
        "Release 2.13",
        "https://blog.example.org/2026/07/08/release-2-13/",
        "2026-07-08T17:00:00Z",
        "<p>A.</p>",
    )
    server.page("/feed.xml", atom(old), "application/atom+xml")
    config = one_doc(tmp_path, server.url("/feed.xml"), kind="feed", extra='entry = "*"\nrobots = false')
    app = make_app(config)
    src = config.sources()[0]
    assert check_source(app, src).line() == "doc/canonical: new version 1 (first snapshot)"
    new = (
        "Release 2.14",
        "https://blog.example.org/2026/08/01/release-2-14/",
        "2026-08-01T00:00:00Z",
        "<p>B.</p>",
    )
    server.page("/feed.xml", atom(new, (*old[:3], "<p>A, edited.</p>")), "application/atom+xml")
    result = check_source(app, src)
    assert (result.line(), result.summary[1:]) == (
        "doc/canonical: new version 2 (1 change)",
        ['• added "Release 2.14" <https://blog.example.org/2026/08/01/release-2-14/>'],
    )
    server.page("/feed.xml", atom(("Release 2.14: out now", *new[1:]), old), "application/atom+xml")
    result = check_source(app, src)
    assert (result.line(), result.summary[1:]) == (
        "doc/canonical: new version 3 (1 change)",
        ['• Release 2.14: added ": out now"'],
    )
    server.page("/feed.xml", atom(("Release 2.14: out now", *new[1:])), "application/atom+xml")
    assert check_source(app, src).summary[1:] == [
        '• removed "Release 2.13" <https://blog.example.org/2026/07/08/release-2-13/>'
    ]  # a post that dropped off the feed: `changes = ["added"]` on a destination hears of new posts alone


def test_following_a_feeds_new_posts_is_no_setting_of_how_it_is_read(tmp_path: Path) -> None:
    """`follow` says what to do with a new post, not how the feed is read: setting it re-reads no version."""
    from differ.versions import reading

    def how(extra: str) -> str:
        config = one_doc(tmp_path, "https://blog.example.org/feed.xml", kind="feed", extra=extra)
        return reading(make_app(config), config.sources()[0])

    assert how('entry = "*"') == how('entry = "*"\nfollow = ["*"]\nfollow_with = { selector = "article" }')
    assert how('entry = "*"') != how('entry = "https://blog.example.org/post/"')


def test_a_damaged_source_fails_alone(tmp_path: Path, server: Server, receiver: Server) -> None:
    """A damaged file of one source's history fails that source's check, counted and alerted as any failing
    check, while every other source is checked, notified, audited and published; mended, it catches up."""
    from tests.test_notify import notify_toml, slack_receiver

    receiver.routes["/services/T/B/X"] = slack_receiver
    for path, title in (("/doc", "Doc"), ("/mirror", "Doc"), ("/other", "Other")):
        server.page(path, article(f"<p>{title} words.</p>", title))
    body = (
        '[[documents]]\nid = "doc"\n[documents.canonical]\n'
        + source_toml(server.url("/doc"), extra="robots = false")
        + "[[documents.mirrors]]\n"
        + source_toml(server.url("/mirror"), "mirror", extra="robots = false")
        + '[[documents]]\nid = "other"\n[documents.canonical]\n'
        + source_toml(server.url("/other"), extra="robots = false")
        + notify_toml(receiver, extra="fail_after = 2\n")
    )
    clock = Clock()
    app = make_app(make_config(tmp_path, body), clock)
    check(app, app.config.sources())
    record = app.store.source_dir("doc/canonical") / "versions" / "000001.json"
    good = record.read_bytes()
    record.write_text("[]")
    server.page("/doc", article("<p>Doc words, edited.</p>", "Doc"))
    server.page("/other", article("<p>Other words, edited.</p>", "Other"))
    damaged = (
        f"{record}: damaged version record (not a JSON object); differ verify tells what else is damaged"
    )
    lines = []
    for _ in range(2):
        clock.advance(3600)
        lines += [r.line() for r in check(app, app.config.sources())]
    assert lines == [
        f"doc/canonical: failed: {damaged}",
        "doc/mirror: unchanged (same body)",
        "other/canonical: new version 2 (1 change)",
        f"doc/canonical: failed: {damaged}",
        "doc/mirror: unchanged (same body)",
        "other/canonical: unchanged (same body)",
    ]
    assert app.err.getvalue() == ""  # type: ignore[attr-defined]
    assert app.store.state("doc/canonical")["failures"] == 2
    assert [f["error"] for f in app.store.fetches("doc/canonical")[-2:]] == [damaged, damaged]
    # logged with what the fetch got before the damage stopped the check (`differ log` shows its status)
    assert [(f["status"], f["bytes"] > 0) for f in app.store.fetches("doc/canonical")[-2:]] == [
        (200, True)
    ] * 2
    index = (app.store.root / "reports" / "index.html").read_text()
    assert html.escape(f"damaged: {damaged}") in index and "other/index.html" in index
    page = (app.store.root / "reports" / "doc" / "index.html").read_text()
    assert (
        html.escape(f"Damaged: {damaged}") in page
        and "fetching: <span class=bad>failing (2 in a row)" in page
    )
    assert (app.store.root / "reports" / "other" / "feed.xml").is_file()
    record.write_bytes(good)
    clock.advance(3600)
    assert [r.line() for r in check(app, app.config.sources())] == [
        "doc/canonical: new version 2 (1 change)",
        "doc/mirror: unchanged (same body)",
        "other/canonical: unchanged (same body)",
    ]
    titles = [
        json.loads(h.body)["blocks"][0]["text"]["text"] for h in receiver.requests_to("/services/T/B/X")
    ]
    assert titles == [
        "Other changed (canonical)",
        "doc (canonical) is failing (2 checks in a row)",  # its record damaged: called by its id
        "Doc changed (canonical)",
        "Doc (canonical) recovered after 2 failed checks",
        "Mirror mirror of Doc is stale: matches version 1, canonical is at 2",
    ]
    assert damaged in json.loads(receiver.requests_to("/services/T/B/X")[1].body)["text"]


def test_a_file_the_system_refuses_fails_its_source_alone(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """A folder where a source's state or a document's audit should be (as a file of another owner would be):
    that source's check fails naming the file, the rest is checked and told once, and each step left undone is
    one line on stderr, done again by the next check (its alerts queued again as the same messages)."""
    from tests.test_notify import notify_toml, slack_receiver

    receiver.routes["/services/T/B/X"] = slack_receiver
    server.page("/post", article("<p>First words.</p><p>Second words.</p>"))
    server.page("/copy", article("<p>First words.</p><p>Second words.</p>"))
    mirror = source_toml(server.url("/copy"), "copy", extra="robots = false")
    clock = Clock()
    config = one_doc(
        tmp_path, server.url("/post"), extra="robots = false", mirrors=[mirror], notify=notify_toml(receiver)
    )
    app = make_app(config, clock)
    check(app, app.config.sources())
    server.page("/copy", article("<p>First words.</p><p>Second words, copied.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())
    state = app.store.source_dir("doc/copy") / "state.json"
    audit = app.store.root / "audits" / "doc.json"
    for path in (state, audit):
        path.unlink()
        path.mkdir()
    server.page("/post", article("<p>First words.</p><p>Second words, edited.</p>"))
    lines = []
    for _ in range(2):
        clock.advance(3600)
        lines += [r.line() for r in check(app, app.config.sources())]
    assert lines == [
        "doc/canonical: new version 2 (1 change)",
        f"doc/copy: failed: {state}: Is a directory",
        "doc/canonical: unchanged (same body)",
        f"doc/copy: failed: {state}: Is a directory",
    ]
    said = app.err.getvalue()  # type: ignore[attr-defined]
    assert (
        said
        == (
            f"differ: doc: audit not kept: {audit}: Is a directory\n"
            f"differ: doc/copy: alerts not marked queued: {state}: Is a directory\n"
        )
        * 2
    )
    titles = [
        json.loads(h.body)["blocks"][0]["text"]["text"] for h in receiver.requests_to("/services/T/B/X")
    ]
    assert titles == ["Doc changed (copy)", "Mirror copy of Doc: 1 new finding", "Doc changed (canonical)"]


def test_a_damaged_mirror_keeps_its_last_audit_and_the_others_are_audited(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """One mirror's damaged record no longer keeps its document's other mirrors from being audited: they are,
    and their drift is told; the damaged one's last audit stands, and `differ audit` names it."""
    from differ.audit import audit_document
    from differ.audit.report import render_audit
    from differ.audited import last_audit
    from tests.test_notify import notify_toml, slack_receiver

    receiver.routes["/services/T/B/X"] = slack_receiver
    text = "<p>First words of the post.</p><p>Second words of the post.</p>"
    for path in ("/post", "/a", "/b"):
        server.page(path, article(text))
    mirrors = [source_toml(server.url(f"/{m}"), m, extra="robots = false") for m in "ab"]
    config = one_doc(
        tmp_path, server.url("/post"), extra="robots = false", mirrors=mirrors, notify=notify_toml(receiver)
    )
    clock = Clock()
    app = make_app(config, clock)
    check(app, app.config.sources())
    before = last_audit(app.store, "doc")
    record = app.store.source_dir("doc/b") / "versions" / "000001.json"
    record.write_text("null")
    server.page("/post", article(text.replace("Second", "Other")))
    clock.advance(3600)
    damaged = (
        f"{record}: damaged version record (not a JSON object); differ verify tells what else is damaged"
    )
    assert [r.line() for r in check(app, app.config.sources())] == [
        "doc/canonical: new version 2 (1 change)",
        "doc/a: unchanged (same body)",
        f"doc/b: failed: {damaged}",
    ]
    assert app.err.getvalue() == f"differ: doc/b: not audited: {damaged}\n"  # type: ignore[attr-defined]
    after = last_audit(app.store, "doc")
    assert after["b"] == before["b"] and after["a"]["canonical_version"] == 2
    titles = [
        json.loads(h.body)["blocks"][0]["text"]["text"] for h in receiver.requests_to("/services/T/B/X")
    ]
    assert titles == [
        "Doc changed (canonical)",
        "Mirror a of Doc is stale: matches version 1, canonical is at 2",
    ]
    report = audit_document(app, app.config.document("doc"))
    assert render_audit(report, "text").splitlines()[1:] == [
        "a: version 1 matches canonical version 1 — stale (the canonical is at version 2), 1 passage to carry "
        "over; coverage 90.9%; 1 finding",
        "  • stale: matches canonical version 1 (2026-07-08T17:45:00Z); the canonical has moved on since "
        "2026-07-08T18:45:00Z (now version 2), so the mirror misses 1 change:",
        '      • "Second words of the post."',  # what the mirror has to carry over
        '        → "Other words of the post."',
        "  the passages to carry over, as they now read: differ blame doc --after doc/a",
        f"b: not audited: {damaged}",
    ]
    assert report.as_json()["unread"] == [{"mirror": "b", "error": damaged}]
    assert render_audit(report, "markdown").splitlines()[3:5] == [
        "  - stale: matches canonical version 1 (2026-07-08T17:45:00Z); the canonical has moved on since "
        "2026-07-08T18:45:00Z (now version 2), so the mirror misses 1 change:",
        '    - "Second words of the post." → "Other words of the post."',
    ]


def test_a_fault_of_differs_in_one_documents_after_work_leaves_the_others_told(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault in one document's audit, or in making one source's alert, was an internal error that ended the
    whole check before any alert was queued: every document's alerts waited on the one. Now that one is a line
    on stderr and stays owed (made again by the next check, once the fault is gone), and the others go out."""
    import differ.audit.report
    import differ.check
    import differ.events
    from tests.test_notify import notify_toml, slack_receiver

    receiver.routes["/services/T/B/X"] = slack_receiver
    for doc in ("one", "two"):
        for page in ("canonical", "copy"):
            server.page(f"/{doc}/{page}", article(f"<p>{doc} words.</p>", doc.title()))
    body = "".join(
        f'[[documents]]\nid = "{doc}"\n[documents.canonical]\n'
        + source_toml(server.url(f"/{doc}/canonical"), extra="robots = false")
        + "[[documents.mirrors]]\n"
        + source_toml(server.url(f"/{doc}/copy"), "copy", extra="robots = false")
        for doc in ("one", "two")
    )
    clock = Clock()
    app = make_app(make_config(tmp_path, body + notify_toml(receiver)), clock)
    check(app, app.config.sources())
    for doc in ("one", "two"):
        server.page(f"/{doc}/canonical", article(f"<p>{doc} words, edited.</p>", doc.title()))
    audit, made = differ.audit.report.audit_document, differ.check.change_event

    def faulty_audit(app: object, doc: object) -> object:
        if doc.id == "one":
            raise RuntimeError("a fault")
        return audit(app, doc)  # type: ignore[arg-type]

    def faulty_alert(app: object, source: SourceConfig, *args: object) -> object:
        if source.key == "two/canonical":
            raise KeyError("diff")
        return made(app, source, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(differ.audit.report, "audit_document", faulty_audit)
    monkeypatch.setattr(differ.check, "change_event", faulty_alert)
    monkeypatch.setattr(differ.events, "change_event", faulty_alert)  # the versions a crash left unmade
    clock.advance(3600)
    assert [r.line() for r in check(app, app.config.sources())] == [
        "one/canonical: new version 2 (1 change)",
        "one/copy: unchanged (same body)",
        "two/canonical: failed: internal error: KeyError: 'diff'",
        "two/copy: unchanged (same body)",
    ]
    assert app.err.getvalue() == (  # type: ignore[attr-defined]
        "differ: two/canonical: alerts not made: internal error: KeyError: 'diff'\n"
        "differ: one: not audited: internal error: RuntimeError: a fault\n"
    )
    titles = lambda: [  # noqa: E731
        json.loads(h.body)["blocks"][0]["text"]["text"] for h in receiver.requests_to("/services/T/B/X")
    ]
    assert titles() == [
        "One changed (canonical)",
        "Mirror copy of Two is stale: matches version 1, canonical is at 2",
    ]
    monkeypatch.undo()
    clock.advance(3600)
    check(app, app.config.sources())
    assert titles()[2:] == [
        "Two changed (canonical)",
        "Mirror copy of One is stale: matches version 1, canonical is at 2",
    ]


def test_an_alert_one_destination_cannot_make_stays_owed_and_is_sent_once_made(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault in making one destination's message for one event stopped the queueing of every event for
    every destination, check after check. Now that message is a line on stderr and its event stays owed: the
    other events go out, the other destinations get this one once, and once the fault is gone it reaches the
    destination that missed it, once."""
    from differ.notify.slack import Slack
    from tests.test_notify import hooks_toml, notify_toml, slack_receiver

    receiver.routes["/services/T/B/X"] = slack_receiver
    receiver.routes["/hooks"] = Reply(200)
    for doc in ("one", "two"):
        server.page(f"/{doc}", article(f"<p>{doc} words.</p>", doc.title()))
    body = "".join(
        f'[[documents]]\nid = "{doc}"\n[documents.canonical]\n'
        + source_toml(server.url(f"/{doc}"), extra="robots = false")
        for doc in ("one", "two")
    )
    notify = notify_toml(receiver) + hooks_toml(receiver.url("/hooks"))
    clock = Clock()
    app = make_app(make_config(tmp_path, body + notify), clock)
    check(app, app.config.sources())
    for doc in ("one", "two"):
        server.page(f"/{doc}", article(f"<p>{doc} words, edited.</p>", doc.title()))
    payload = Slack.payload

    def faulty(self: Slack, event: dict[str, object]) -> object:
        if event.get("source") == "two/canonical":
            raise ValueError("no block for this")
        return payload(self, event)

    monkeypatch.setattr(Slack, "payload", faulty)
    clock.advance(3600)
    check(app, app.config.sources())
    assert app.err.getvalue() == (  # type: ignore[attr-defined]
        "differ: team: the changed alert for two/canonical not queued: internal error: ValueError: no block for "
        "this\n"
    )
    slack = lambda: [  # noqa: E731
        json.loads(h.body)["blocks"][0]["text"]["text"] for h in receiver.requests_to("/services/T/B/X")
    ]
    hooks = lambda: [json.loads(h.body)["data"]["source"] for h in receiver.requests_to("/hooks")]  # noqa: E731
    assert (slack(), hooks()) == (["One changed (canonical)"], ["one/canonical", "two/canonical"])
    assert app.store.state("two/canonical").get("notified", 1) == 1  # still owed
    clock.advance(3600)
    check(app, app.config.sources())  # the fault lasts: said again, nothing sent twice
    assert (slack(), hooks()) == (["One changed (canonical)"], ["one/canonical", "two/canonical"])
    monkeypatch.undo()
    clock.advance(3600)
    check(app, app.config.sources())
    assert (slack(), hooks()) == (
        ["One changed (canonical)", "Two changed (canonical)"],
        ["one/canonical", "two/canonical"],
    )
    assert app.store.state("two/canonical")["notified"] == 2


def _watched_with_slack(tmp_path: Path, server: Server, receiver: Server) -> tuple[Any, Clock]:
    """A page checked once, its alerts to a stand-in for Slack."""
    from tests.test_notify import notify_toml, slack_receiver

    receiver.routes["/services/T/B/X"] = slack_receiver
    server.page("/post", article("<p>One.</p>"))
    clock = Clock()
    app = make_app(
        one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=notify_toml(receiver)), clock
    )
    check(app, app.config.sources())
    return app, clock


def test_a_fault_in_writing_the_reports_index_does_not_hold_up_the_alerts(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index is written before the check delivers: a fault in it ended every check before any alert was
    sent. Now it is a line on stderr, the alerts go, and the index is written by the next check."""
    import differ.site

    app, clock = _watched_with_slack(tmp_path, server, receiver)
    index = app.store.root / "reports" / "index.html"
    index.unlink()

    def faulty(*args: object) -> str:
        raise RuntimeError("a fault")

    monkeypatch.setattr(differ.site, "index_page", faulty)
    server.page("/post", article("<p>Two.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())
    assert app.err.getvalue() == "differ: reports index not written: internal error: RuntimeError: a fault\n"  # type: ignore[attr-defined]
    assert len(receiver.requests_to("/services/T/B/X")) == 1 and not index.exists()
    monkeypatch.undo()
    clock.advance(3600)
    check(app, app.config.sources())
    assert index.is_file()


def test_a_diff_page_that_cannot_be_written_leaves_its_version_stored_and_alerted(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The HTML page of a version's diff is written after the version is stored: a fault there is a line on
    stderr; the check says what it found, the alert goes, and the document's page links no missing page."""
    import differ.site

    app, clock = _watched_with_slack(tmp_path, server, receiver)

    def faulty(*args: object) -> str:
        raise RuntimeError("a fault")

    monkeypatch.setattr(differ.site, "diff_nav", faulty)
    server.page("/post", article("<p>Two.</p>"))
    clock.advance(3600)
    [result] = check(app, app.config.sources())
    assert (result.outcome, result.version) == ("new", 2)
    assert app.err.getvalue() == (  # type: ignore[attr-defined]
        "differ: doc/canonical: diff page of version 2 not written: internal error: RuntimeError: a fault\n"
    )
    assert len(receiver.requests_to("/services/T/B/X")) == 1
    page = (app.store.root / "reports" / "doc" / "index.html").read_text()
    assert "diff-2.html" not in page and not app.store.report_path("doc/canonical", 2).exists()


def test_a_page_of_each_passages_last_edit_that_cannot_be_written_leaves_its_version_stored_and_alerted(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """A folder where `blame.html` goes: a line on stderr, the version stored and alerted, and the next
    version's page written once the folder is gone."""
    app, clock = _watched_with_slack(tmp_path, server, receiver)
    blocked = app.store.report_path("doc/canonical", 1).with_name("blame.html")
    blocked.mkdir(parents=True)
    (blocked / "x").write_text("in the way")
    server.page("/post", article("<p>Two.</p>"))
    clock.advance(3600)
    [result] = check(app, app.config.sources())
    assert (result.outcome, result.version) == ("new", 2)
    said = app.err.getvalue()  # type: ignore[attr-defined]
    assert said.startswith("differ: doc/canonical: page of each passage's last edit not written: ")
    assert said.count("\n") == 1 and len(receiver.requests_to("/services/T/B/X")) == 1
    shutil.rmtree(blocked)
    server.page("/post", article("<p>Three.</p>"))
    clock.advance(3600)
    assert check(app, app.config.sources())[0].version == 3
    assert re.search(
        r'<a href="diff-3.html">3</a> · [^<]+</td><td>1</td><td>Three.</td>', blocked.read_text()
    )


# Where a fault of differ's for one document is injected: each of these, faulting for document "one" only (or,
# for the reports index, which is every document's, always), must leave document "two"'s edit delivered once
# to each destination, and the check must go on.
FAULT_SITES = [
    ("differ.check", "check_source"),
    ("differ.check", "change_event"),
    ("differ.check", "missed_events"),
    ("differ.check", "translations_found"),
    ("differ.check", "follow"),
    ("differ.check", "write_feed"),
    ("differ.versions", "normalize"),
    ("differ.audit.report", "audit_document"),
    ("differ.audit.report", "drift_events"),
    ("differ.audited", "audits_due"),
    ("differ.site", "diff_nav"),
    ("differ.blame", "write_blame"),
    ("differ.site", "document_page"),
    ("differ.site", "write_archives"),
    ("differ.site", "index_page"),
    ("differ.site", "write_site_feed"),
    ("differ.notify.delivery", "_for"),
    ("differ.notify.delivery", "event_id"),
    ("differ.notify.slack", "Slack.payload"),
    ("differ.notify.slack", "Slack.send"),
    ("differ.notify.webhook", "Webhook.payload"),
]


def _about_one(values: Iterable[object]) -> bool:
    """Whether a call is about document "one": its source, document, event, message or audit."""
    from differ.audit import AuditReport
    from differ.config import DocumentConfig
    from differ.notify.outbox import Message

    for value in values:
        if isinstance(value, set) and "one" in value:  # documents
            return True
        if isinstance(value, SourceConfig) and value.document == "one":
            return True
        if isinstance(value, DocumentConfig) and value.id == "one":
            return True
        if isinstance(value, AuditReport) and value.document == "one":
            return True
        about = value.data if isinstance(value, Message) else value
        if isinstance(about, dict) and "one" in (
            str(about.get("source") or about.get("subject") or "").split("/")[0],
            about.get("document"),
        ):
            return True
    return False


@pytest.mark.parametrize(("module", "name"), FAULT_SITES, ids=[n for _, n in FAULT_SITES])
def test_a_fault_for_one_document_never_holds_up_anothers_alerts(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch, module: str, name: str
) -> None:
    import importlib

    from tests.test_notify import hooks_toml, notify_toml, slack_receiver

    receiver.routes["/services/T/B/X"] = slack_receiver
    receiver.routes["/hooks"] = Reply(200)
    for doc in ("one", "two"):
        for page in ("canonical", "copy"):
            server.page(f"/{doc}/{page}", article(f"<p>{doc} words.</p>", doc.title()))
    body = "".join(
        f'[[documents]]\nid = "{doc}"\n[documents.canonical]\n'
        + source_toml(server.url(f"/{doc}/canonical"), extra="robots = false")
        + "[[documents.mirrors]]\n"
        + source_toml(server.url(f"/{doc}/copy"), "copy", extra="robots = false")
        for doc in ("one", "two")
    )
    notify = notify_toml(receiver) + hooks_toml(receiver.url("/hooks"))
    clock = Clock()
    app = make_app(make_config(tmp_path, body + notify), clock)
    check(app, app.config.sources())
    for doc in ("one", "two"):
        server.page(f"/{doc}/canonical", article(f"<p>{doc} words, edited.</p>", doc.title()))
    owner: Any = importlib.import_module(module)
    attr = name
    if "." in name:
        cls, attr = name.split(".")
        owner = getattr(owner, cls)
    real = getattr(owner, attr)
    struck: list[str] = []

    def faulty(*args: object, **kwargs: object) -> object:
        if attr in ("index_page", "write_site_feed") or _about_one([*args, *kwargs.values()]):
            struck.append(attr)
            raise RuntimeError("a fault")
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, attr, faulty)
    for _ in range(2):
        clock.advance(3600)
        check(app, app.config.sources())
    assert struck  # the fault was met
    hooks = [json.loads(h.body) for h in receiver.requests_to("/hooks")]
    ids = [h.headers["webhook-id"] for h in receiver.requests_to("/hooks")]
    slack = [json.loads(h.body)["blocks"][0]["text"]["text"] for h in receiver.requests_to("/services/T/B/X")]
    assert [b["data"]["source"] for b in hooks if b["type"] == "differ.changed"].count("two/canonical") == 1
    assert slack.count("Two changed (canonical)") == 1 and len(ids) == len(set(ids))


# What reads, diffs or audits a page: a check that finds every page as it was needs none of it.
READERS = ("bs4", "lxml", "markdown_it", "mdformat", "rapidfuzz", "deepdiff", "differ.audit", "differ.diff")
_CHECK_AND_LIST_MODULES = (
    "import sys\nfrom differ.cli import main\ncode = main(['--config', sys.argv[1], 'check'])\n"
    "print('\\n'.join(['exit %d' % code, *sorted(sys.modules)]))\n"
)


def test_a_check_that_finds_nothing_new_loads_no_page_reader(tmp_path: Path, server: Server) -> None:
    """The check that runs most often, pages unchanged (a mirror's document too, whose audit is not due), starts
    without BeautifulSoup, lxml, markdown-it, the diff or the audit, as its memory and start-up need; the first
    check, which reads the pages, loads them."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    server.page("/c", article("<p>Widget 3.0 is out, with a faster start and many fixes.</p>"))
    server.page("/m", article("<p>Widget 3.0 is out, with a faster start and many fixes.</p>"))
    config = tmp_path / "config.toml"
    config.write_text(
        f'[service]\nsnapshots = "{tmp_path / "snap"}"\nper_host_delay = "0s"\n'
        f'[[documents]]\nid = "doc"\n[documents.canonical]\nurl = "{server.url("/c")}"\nselector = "article"\n'
        'robots = false\nallow_private = ["127.0.0.1"]\n'
        f'[[documents.mirrors]]\nid = "m"\nurl = "{server.url("/m")}"\nrobots = false\n'
        'allow_private = ["127.0.0.1"]\n'
    )

    def loaded() -> set[str]:
        done = subprocess.run(
            [sys.executable, "-c", _CHECK_AND_LIST_MODULES, str(config)],
            env={"PYTHONPATH": str(ROOT), "PATH": ""},
            capture_output=True,
            text=True,
            timeout=60,
        )
        lines = done.stdout.splitlines()
        assert "exit 0" in lines, done.stdout + done.stderr
        return {
            name.split(".")[0] if not name.startswith("differ.") else ".".join(name.split(".")[:2])
            for name in lines
        }

    assert set(READERS) - {"deepdiff"} <= loaded()  # the first check reads both pages and audits the mirror
    assert set(READERS) & loaded() == set()


def test_a_disk_that_refuses_a_write_fails_the_check_naming_where_and_loses_nothing(
    tmp_path: Path, server: Server
) -> None:
    """A write the system refuses though the file may be written (a full disk; here the process's file size
    limit, RLIMIT_FSIZE, which refuses the same way): the check fails in one line naming the folder and why,
    the store stays whole, and once the disk takes writes again the next check stores the version."""
    import resource
    import signal
    import subprocess
    import sys

    def limited() -> None:  # a write past 64 KB is refused (EFBIG) instead of killing the process (SIGXFSZ)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64_000, 64_000))

    def differ(*args: str, limit: bool = False) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "differ", "--config", str(config), *args],
            capture_output=True,
            text=True,
            preexec_fn=limited if limit else None,
            timeout=120,
        )

    server.page("/post", article("<p>A short post.</p>"))
    config = tmp_path / "config.toml"
    config.write_text(
        f'[service]\nsnapshots = "{tmp_path / "snap"}"\nper_host_delay = "0s"\nretries = 0\n'
        f'[[documents]]\nid = "doc"\n[documents.canonical]\nurl = "{server.url("/post")}"\nrobots = false\n'
        'allow_private = ["127.0.0.1"]\n'
    )
    assert differ("check", limit=True).returncode == 0
    long = "".join(
        f"<p>Paragraph {n}: {' '.join(f'word{n}x{k}' for k in range(60))}.</p>" for n in range(200)
    )
    server.page("/post", article(long))  # about 100 KB of Markdown: more than the limit lets one file be
    refused = differ("check", limit=True)
    versions = tmp_path / "snap" / "sources" / "doc" / "canonical" / "versions"
    assert (refused.returncode, refused.stdout) == (1, f"doc/canonical: failed: {versions}: File too large\n")
    assert "internal error" not in refused.stderr
    assert differ("verify").stdout == f"{tmp_path / 'snap'}: 1 sources, 1 versions, 1 raw bodies: ok\n"
    stored = differ("check")
    assert (stored.returncode, stored.stdout) == (0, "doc/canonical: new version 2 (201 changes)\n")
    assert differ("verify").stdout == f"{tmp_path / 'snap'}: 1 sources, 2 versions, 2 raw bodies: ok\n"


def test_an_edit_undone_is_said_so(tmp_path: Path, server: Server) -> None:
    """A page back to an earlier version's text (an edit reverted, caches serving two editions in turn): its
    summary says which edit it undoes, or which version's text it has again, and so do history and the JSON."""
    from differ.diff.render import as_json
    from differ.site import describe
    from differ.versions import diff_versions, version_pair

    clock = Clock()
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)
    texts = [
        "Release 3.0 is out.",
        "Release 3.0 is out today.",
        "Release 3.0 is out.",
        "Release 3.0 is out today.",
    ]
    texts += ["Release 3.0 is out now.", "Release 3.0 is out."]
    heads = []
    for text in texts:
        server.page("/post", article(f"<p>{text}</p>"))
        clock.advance(3600)
        [result] = check(app, app.config.sources())
        heads.append(result.summary[0] if result.summary else "")
    assert heads[1:] == [
        "Doc (canonical), version 1 → 2: 1 change.",
        "Doc (canonical), version 2 → 3: 1 change, the edit of version 2 undone.",
        "Doc (canonical), version 3 → 4: 1 change, the edit of version 3 undone.",
        "Doc (canonical), version 4 → 5: 1 change.",
        "Doc (canonical), version 5 → 6: 1 change, back to the text of version 3.",
    ]
    versions = app.store.versions("doc/canonical")
    assert [v.record.get("back_to") for v in versions] == [None, None, 1, 2, None, 3]
    assert describe(versions[2]) == 'edit of version 2 undone; 1 change: Release 3.0 is out: removed "today"'
    assert describe(versions[5]).startswith("back to version 3; 1 change: ")
    source = app.config.sources()[0]
    old, new = versions[4], versions[5]
    d = diff_versions(app.store, old, new, app=app, source=source)
    assert as_json(d, version_pair(source, old, new, "Doc"))["back_to"] == 3
    apart = version_pair(source, versions[0], new, "Doc")
    assert "back_to" not in as_json(d, apart)  # versions 1 and 6: not one edit, so not said
    from differ.events import change_event
    from differ.notify.base import Notifier

    titles = [  # what a Slack header or an e-mail subject says
        Notifier.title(
            change_event(app, source, a, b, diff_versions(app.store, a, b, app=app, source=source))
        )
        for a, b in zip(versions[1:], versions[2:], strict=False)
    ]
    assert titles == [
        "Doc changed back (canonical)",
        "Doc changed back (canonical)",
        "Doc changed (canonical)",
        "Doc changed back to version 3 (canonical)",
    ]


def test_a_check_that_finds_nothing_new_does_not_wait_for_the_disk(
    tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its fetch log line is all such a check writes, and losing it in a power cut costs nothing (the page is
    checked again), so it is not fsynced: at 0.2–1 ms a sync, it was a fifth to a half of a check of unchanged
    pages. A check that stores a version or fails still waits for every line."""
    import os

    synced: list[str] = []
    fsync = os.fsync

    def counted(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        fsync(fd)

    server.page("/post", article("<p>Hello.</p>"), etag='"v1"')
    clock = Clock()
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)
    monkeypatch.setattr(os, "fsync", counted)
    check(app, app.config.sources())
    assert any(path.endswith("fetches.jsonl") for path in synced)  # a new version: its line waited for
    for reply in (None, Reply(500, b"down")):  # a 304, then a failure
        if reply is not None:
            server.routes["/post"] = reply
        synced.clear()
        clock.advance(3600)
        [result] = check(app, app.config.sources())
        logged = [path for path in synced if path.endswith("fetches.jsonl")]
        assert (result.outcome, len(logged)) == (("unchanged", 0) if reply is None else ("failed", 1))
    assert [f["outcome"] for f in app.store.fetches("doc/canonical")] == ["new", "unchanged", "failed"]
