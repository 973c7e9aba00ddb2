"""The check pipeline: extraction anomalies are held, and stored only when they last."""

from __future__ import annotations

from pathlib import Path

from differ.check import check, check_source
from tests.conftest import Clock, Server, article, make_app, one_doc

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
    server.page("/post", "<html><body><h1>Service unavailable</h1></body></html>")
    assert check_source(app, source).outcome == "held"
    server.page("/post", FULL)
    clock.advance(3600)
    assert check_source(app, source).line() == "doc/canonical: unchanged (same body)"
    server.page("/post", "<html><body><h1>Service unavailable</h1></body></html>")
    clock.advance(60)
    assert check_source(app, source).outcome == "held"  # a new streak starts from scratch
    assert [v.number for v in app.store.versions("doc/canonical")] == [1]
    assert "pending" in app.store.state("doc/canonical")


def test_a_page_that_scripts_fill_in_fails_first_and_is_held_later(tmp_path: Path, server: Server) -> None:
    shell = '<html><body><div id="app"></div><script src="/app.js"></script></body></html>'
    server.page("/post", shell)
    clock = Clock()
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)
    source = app.config.sources()[0]
    [first] = check(app, [source])
    assert first.line() == (
        "doc/canonical: failed: the page has no text as served (is it filled in by JavaScript? differ reads the "
        "HTML without running scripts; point url at a page or API that serves the text)"
    )
    assert app.store.versions("doc/canonical") == []
    server.page("/post", FULL)
    assert check_source(app, source).line() == "doc/canonical: new version 1 (first snapshot)"
    server.page("/post", shell)  # a redesign that moved the text into scripts: held, as any sudden loss
    assert check_source(app, source).line() == (
        "doc/canonical: held: the page has no text as served (is it filled in by JavaScript? differ reads the HTML "
        "without running scripts; point url at a page or API that serves the text); stored only if still so in 600s"
    )


def test_editing_a_sources_settings_is_not_a_change_of_the_page(tmp_path: Path, server: Server) -> None:
    """A new exclude list reads the stored version again: an unchanged page stays unchanged, and the next real
    edit is reported alone, in the check, its alert and `differ diff` alike."""
    from differ.check import diff_versions, missed_events

    page = article("<p>Release notes.</p><div class=share>Share this post</div>")
    server.page("/post", page)
    clock = Clock()
    before = one_doc(tmp_path, server.url("/post"), extra="robots = false")
    app = make_app(before, clock)
    assert check_source(app, before.sources()[0]).line() == "doc/canonical: new version 1 (first snapshot)"
    after = one_doc(tmp_path, server.url("/post"), extra='robots = false\nexclude = [".share"]')
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
        ['• Post: added ", revised"'],
    )
    old, new = app.store.versions(source.key)
    assert [c.kind for c in diff_versions(app.store, old, new, app=app, source=source).changes] == [
        "modified"
    ]
    assert len(diff_versions(app.store, old, new).changes) == 2  # as stored: the share line went too
    assert [e["diff"]["summary"][1:] for e in missed_events(app, source)] == [['• Post: added ", revised"']]


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
        ['• Post: "Release notes for version 1.71."', '  → "Release notes for version 1.81."'],
    )
    latest = app.store.latest(source.key)
    assert latest is not None
    assert app.store.markdown(latest) == "# Post\n\nRelease notes for version 1.81.\n\n- Fixes.\n"
    assert b"Views: 1377" in app.store.get_blob(latest.raw_sha256)
    assert latest.record["ignored"] == 2
