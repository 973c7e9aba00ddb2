"""The check pipeline: extraction anomalies are held, and stored only when they last."""

from __future__ import annotations

from pathlib import Path

from differ.check import check_source
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
