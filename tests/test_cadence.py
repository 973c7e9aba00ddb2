"""How often a page is checked: every `interval` while it is being edited, every `settled_interval` once it has
gone `settled_after` unedited; a mirror settles only with its canonical."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from differ.app import App, iso
from differ.cadence import Cadence, cadence, pace
from differ.check import check
from differ.errors import ConfigError
from differ.health import health, not_due, render
from differ.schedule import _check_one, build_scheduler
from tests.conftest import SERVICE, Clock, Server, article, make_app, one_doc, source_toml
from tests.helpers import config_check

DAY = 86400.0
SETTLED = 'settled_after = "7d"\nsettled_interval = "6h"\n'


def page(server: Server, path: str, words: str) -> str:
    server.page(path, article(f"<p>{words}</p>"))
    return server.url(path)


def watched(
    tmp_path: Path, server: Server, clock: Clock, *, service: str = SETTLED, mirror: bool = False
) -> App:
    url = page(server, "/post", "The first words.")
    mirrors = [source_toml(page(server, "/copy", "The first words."), "copy", extra="robots = false")]
    config = one_doc(
        tmp_path,
        url,
        extra="robots = false",
        mirrors=mirrors if mirror else None,
        service='interval = "30m"\n' + service,
    )
    return make_app(config, clock)


def test_a_page_settles_once_unedited_for_settled_after_and_an_edit_wakes_it(
    tmp_path: Path, server: Server, clock: Clock
) -> None:
    app = watched(tmp_path, server, clock)
    source = app.config.sources()[0]
    assert cadence(app, source) == Cadence(1800.0)  # nothing stored yet
    check(app, [source])
    first = clock.now
    clock.advance(7 * DAY - 1)
    check(app, [source])  # unchanged: no edit, the first version's time still counts
    assert cadence(app, source) == Cadence(1800.0, settles=first + timedelta(days=7))
    clock.advance(1)
    assert cadence(app, source) == Cadence(21600.0, first + timedelta(days=7))
    assert str(cadence(app, source)) == "every 6h, settled"
    page(server, "/post", "The first words, edited.")
    check(app, [source])
    assert cadence(app, source) == Cadence(1800.0, settles=clock.now + timedelta(days=7))


def test_without_settled_after_or_a_slower_interval_a_page_never_settles(
    tmp_path: Path, server: Server, clock: Clock
) -> None:
    app = watched(tmp_path, server, clock, service="")
    source = app.config.sources()[0]
    assert [r.outcome for r in check(app, [source])] == ["new"]
    clock.advance(400 * DAY)
    assert cadence(app, source) == Cadence(1800.0)
    slower = watched(
        tmp_path / "b", server, clock, service='settled_after = "1d"\nsettled_interval = "10m"\n'
    )
    assert [r.outcome for r in check(slower, slower.config.sources())] == ["new"]
    clock.advance(2 * DAY)
    assert cadence(slower, slower.config.sources()[0]) == Cadence(1800.0)  # never checked more often


def test_a_source_sets_its_own_and_zero_turns_settling_off(
    tmp_path: Path, server: Server, clock: Clock
) -> None:
    url = page(server, "/post", "Words.")
    copy = source_toml(page(server, "/copy", "Words."), "copy", extra='robots = false\nsettled_after = "0s"')
    config = one_doc(
        tmp_path,
        url,
        extra='robots = false\nsettled_after = "1d"\nsettled_interval = "12h"',
        mirrors=[copy],
        service='interval = "30m"\n' + SETTLED,
    )
    app = make_app(config, clock)
    canonical, mirror = app.config.sources()
    assert [r.outcome for r in check(app, [canonical, mirror])] == ["new", "new"]
    clock.advance(8 * DAY)
    assert cadence(app, canonical).every == 12 * 3600
    assert cadence(app, mirror) == Cadence(1800.0)


def test_a_mirror_settles_only_once_its_canonical_has_too(
    tmp_path: Path, server: Server, clock: Clock
) -> None:
    app = watched(tmp_path, server, clock, mirror=True)
    canonical, mirror = app.config.sources()
    check(app, [canonical, mirror])
    clock.advance(5 * DAY)
    page(server, "/post", "The first words, edited.")
    check(app, [canonical])
    edited = clock.now
    clock.advance(3 * DAY)  # the mirror unedited for 8 days, but its canonical only for 3
    assert cadence(app, mirror) == Cadence(1800.0, settles=edited + timedelta(days=7))
    clock.advance(4 * DAY)
    assert cadence(app, mirror) == Cadence(21600.0, edited + timedelta(days=7))


def test_due_and_overdue_go_by_the_settled_interval(tmp_path: Path, server: Server, clock: Clock) -> None:
    app = watched(tmp_path, server, clock)
    source = app.config.sources()[0]
    check(app, [source])
    clock.advance(8 * DAY)
    check(app, [source])
    clock.advance(2 * 3600)
    assert not_due(app, source) == "checked 2 hours ago, every 6h, settled"
    assert render(health(app)).endswith(": ok\n")  # four times 30m, but within the settled pace
    clock.advance(11 * 3600)
    assert "(every 6h, settled)" in render(health(app))


def test_the_service_checks_a_settled_page_at_its_pace_and_an_edited_one_at_its_interval(
    tmp_path: Path, server: Server, clock: Clock
) -> None:
    app = watched(tmp_path, server, clock)
    source = app.config.sources()[0]
    scheduler = build_scheduler(app, start_now=False)
    scheduler.start(paused=True)
    try:

        def interval() -> float:
            return float(scheduler.get_job(source.key).trigger.interval.total_seconds())

        assert interval() == 1800
        first = clock.now
        assert [r.outcome for r in _check_one(app, source, scheduler=scheduler)] == ["new"]
        assert interval() == 1800
        clock.advance(8 * DAY)
        _check_one(app, source, scheduler=scheduler)
        assert interval() == 21600
        said = app.out.getvalue().splitlines()  # type: ignore[attr-defined]
        assert said[-2:] == [
            f"{iso(clock.now)} doc/canonical: unchanged (same body)",
            f"{iso(clock.now)} doc/canonical: settled, unedited since {iso(first)}: checked every 6h",
        ]
        page(server, "/post", "The first words, edited.")
        assert [r.outcome for r in _check_one(app, source, scheduler=scheduler)] == ["new"]
        assert interval() == 1800
        assert app.out.getvalue().splitlines()[-1] == (  # type: ignore[attr-defined]
            f"{iso(clock.now)} doc/canonical: edited after settling: checked every 30m again"
        )
        clock.advance(8 * DAY)
        again = build_scheduler(app, start_now=False)  # a service started again reads the pace from the store
        again.start(paused=True)
        try:
            assert again.get_job(source.key).trigger.interval.total_seconds() == 21600
        finally:
            again.shutdown(wait=False)
    finally:
        scheduler.shutdown(wait=False)


def test_sources_says_how_often_a_settled_page_is_checked(
    tmp_path: Path, server: Server, clock: Clock
) -> None:
    from differ.overview import cmd_sources, sources_report

    app = watched(tmp_path, server, clock)
    check(app, app.config.sources())
    first = clock.now
    since = (first + timedelta(days=7)).isoformat().replace("+00:00", "Z")
    [s] = sources_report(app)["documents"][0]["sources"]
    assert (s["interval"], s["settled"], s["settles"]) == ("30m", None, since)
    cmd_sources(app, argparse.Namespace(sources=[], format="text"))
    assert f"  doc/canonical  [canonical, html, every 30m, settles {since[:10]}]  " in app.out.getvalue()  # type: ignore[attr-defined]
    clock.advance(8 * DAY)
    [s] = sources_report(app)["documents"][0]["sources"]
    assert (s["interval"], s["settled"], s["settles"]) == ("30m", {"since": since, "every": "6h"}, None)
    cmd_sources(app, argparse.Namespace(sources=[], format="text"))
    assert (
        f"  doc/canonical  [canonical, html, every 6h, settled]  {server.url('/post')}\n"
        in app.out.getvalue()
    )


def test_settled_options_are_durations_said_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        one_doc(tmp_path, "https://example.org/post/", service='settled_interval = "0s"\n')
    assert str(caught.value) == 'config.toml: service.settled_interval: expected at least 1s, found "0s"'


def test_a_source_given_settled_after_while_the_service_runs_is_paced_at_once(
    tmp_path: Path, server: Server, clock: Clock
) -> None:
    from differ.config import load_config
    from differ.schedule import reload_config
    from differ.turns import HostGate

    url = page(server, "/post", "Words.")
    path = tmp_path / "config.toml"
    path.write_text(
        SERVICE.format(store=tmp_path / "snapshots")
        + f'[[documents]]\nid = "doc"\n[documents.canonical]\nurl = "{url}"\nrobots = false\n'
        + 'allow_private = ["127.0.0.1"]\n'
    )
    app = make_app(load_config(path, {}), clock)
    app.reload = lambda: load_config(path, {})
    assert [r.outcome for r in check(app, app.config.sources())] == ["new"]
    clock.advance(8 * DAY)
    gate = HostGate(1)
    scheduler = build_scheduler(app, start_now=False, gate=gate)
    scheduler.start(paused=True)
    try:
        assert scheduler.get_job("doc/canonical").trigger.interval.total_seconds() == 1800
        path.write_text(path.read_text() + 'settled_after = "7d"\n')
        assert (
            reload_config(app, scheduler, gate)
            == "differ: config.toml reloaded: 1 source; changed doc/canonical"
        )
        assert scheduler.get_job("doc/canonical").trigger.interval.total_seconds() == 21600
    finally:
        scheduler.shutdown(wait=False)


def test_metrics_give_each_pages_pace(tmp_path: Path, server: Server, clock: Clock) -> None:
    from differ.metrics import exposition

    app = watched(tmp_path, server, clock)
    check(app, app.config.sources())
    page_labels = 'document="doc",source="doc/canonical",role="canonical"'
    text = exposition(app, health(app))
    assert f"differ_source_check_interval_seconds{{{page_labels}}} 1800\n" in text
    assert f"differ_source_settled{{{page_labels}}} 0\n" in text
    clock.advance(8 * DAY)
    text = exposition(app, health(app))
    assert f"differ_source_check_interval_seconds{{{page_labels}}} 21600\n" in text
    assert f"differ_source_settled{{{page_labels}}} 1\n" in text


def test_config_check_notes_a_source_that_would_never_settle(tmp_path: Path) -> None:
    text = (
        '[service]\nsettled_after = "7d"\n'
        '[[documents]]\nid = "a"\n[documents.canonical]\nurl = "https://blog.example.org/a"\ninterval = "12h"\n'
        '[[documents]]\nid = "b"\n[documents.canonical]\nurl = "https://blog.example.org/b"\n'
    )
    assert config_check(tmp_path, text) == (
        "CONFIG: ok (2 documents, 2 sources, 0 notifiers)\n"
        "note: a/canonical: settled_interval (6h) is not longer than its interval (12h), so it is never checked "
        "less often\n"
    )


def test_config_check_notes_a_source_checked_more_than_once_a_minute(tmp_path: Path) -> None:
    """`interval = 5` is five seconds: a host may take it for an attack, and it may have been meant as minutes."""
    text = (
        '[[documents]]\nid = "a"\n[documents.canonical]\nurl = "https://blog.example.org/a"\ninterval = 5\n'
        '[[documents]]\nid = "b"\n[documents.canonical]\nurl = "https://blog.example.org/b"\ninterval = "1m"\n'
    )
    assert config_check(tmp_path, text) == (
        "CONFIG: ok (2 documents, 2 sources, 0 notifiers)\n"
        'note: a/canonical: checked every 5s, which a site may take for an attack; a number alone is seconds ("5m" '
        "for every 5 minutes)\n"
    )


def test_a_canonical_edited_wakes_its_settled_mirrors_in_the_service(
    tmp_path: Path, server: Server, clock: Clock
) -> None:
    app = watched(tmp_path, server, clock, mirror=True)
    canonical, mirror = app.config.sources()
    scheduler = build_scheduler(app, start_now=False)
    scheduler.start(paused=True)
    try:
        _check_one(app, canonical, scheduler=scheduler)
        _check_one(app, mirror, scheduler=scheduler)
        clock.advance(8 * DAY)
        _check_one(app, mirror, scheduler=scheduler)
        assert scheduler.get_job(mirror.key).trigger.interval.total_seconds() == 21600
        page(server, "/post", "The first words, edited.")
        assert [r.outcome for r in _check_one(app, canonical, scheduler=scheduler)] == ["new"]
        assert scheduler.get_job(mirror.key).trigger.interval.total_seconds() == 1800
        assert app.out.getvalue().splitlines()[-1] == (  # type: ignore[attr-defined]
            f"{iso(clock.now)} doc/copy: its canonical edited after settling: checked every 30m again"
        )
    finally:
        scheduler.shutdown(wait=False)


DURATIONS = st.integers(min_value=0, max_value=400 * 86400).map(float)  # in whole seconds, as configured


@given(
    every=st.floats(1, DAY), after=DURATIONS, slower=st.floats(1, 2 * DAY), since=DURATIONS, later=DURATIONS
)
def test_the_pace_is_never_faster_than_the_interval_and_once_settled_stays_so(
    every: float, after: float, slower: float, since: float, later: float
) -> None:
    edited = datetime(2026, 7, 8, tzinfo=UTC)
    now = edited + timedelta(seconds=since)
    it = pace(every, after, slower, edited, now)
    assert it.every >= every
    assert (it.settled is not None) == (after > 0 and slower > every and since >= after)
    assert it.every == (slower if it.settled else every)
    if it.settled:
        assert it.settled == edited + timedelta(seconds=after) <= now and it.settles is None
        assert pace(every, after, slower, edited, now + timedelta(seconds=later)) == it
    elif after > 0 and slower > every:
        assert it.settles == edited + timedelta(seconds=after) > now  # unedited till then, it settles then
    else:
        assert it.settles is None
    assert pace(every, after, slower, None, now) == Cadence(every)  # nothing stored yet
