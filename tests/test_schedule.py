"""The scheduler: one job per source at its interval plus jitter, coalesced, never overlapping itself."""

from __future__ import annotations

import platform
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from apscheduler.triggers.interval import IntervalTrigger

from differ.config import load_config
from differ.schedule import (
    ConfigWatch,
    Workers,
    build_scheduler,
    limit_malloc_arenas,
    reload_config,
    stop_scheduler,
)
from differ.turns import HostGate
from tests.conftest import SERVICE, Clock, Server, article, make_app, make_config, one_doc, source_toml

CONFIG = """
[[documents]]
id = "doc"
[documents.canonical]
id = "c"
url = "https://example.org/post/"
interval = "10m"
[[documents.mirrors]]
id = "m"
url = "https://mirror.example.org/post/"
"""


def test_one_job_per_source_with_interval_jitter_coalescing(tmp_path: Path) -> None:
    app = make_app(make_config(tmp_path, CONFIG, 'interval = "1h"\njitter = 0.25\n'))
    scheduler = build_scheduler(app)
    scheduler.start(paused=True)  # job defaults are applied when the scheduler starts
    try:
        jobs = {job.id: job for job in scheduler.get_jobs()}
    finally:
        scheduler.shutdown(wait=False)
    assert sorted(jobs) == ["differ:deliver", "doc/c", "doc/m"]
    canonical, mirror = jobs["doc/c"], jobs["doc/m"]
    assert canonical.trigger.interval.total_seconds() == 600 and canonical.trigger.jitter == 150
    assert mirror.trigger.interval.total_seconds() == 3600 and mirror.trigger.jitter == 900
    for job in (canonical, mirror):
        assert job.coalesce is True and job.max_instances == 1
        assert job.args[1].key == job.id
    assert jobs["differ:deliver"].trigger.interval.total_seconds() == 5


def test_a_changed_configuration_is_applied_to_the_running_service(tmp_path: Path) -> None:
    """Sources added are scheduled now, removed ones dropped, changed ones keep their job with the new settings;
    [service] waits for a restart; a file that does not read changes nothing."""
    path = tmp_path / "config.toml"
    path.write_text(SERVICE.format(store=tmp_path / "snapshots") + CONFIG)
    app = make_app(load_config(path, {}))
    app.reload = lambda: load_config(path, {})
    gate = HostGate(1)
    scheduler = build_scheduler(app, gate=gate)
    scheduler.start(paused=True)
    watch = ConfigWatch(path)
    try:
        assert not watch.changed()
        path.write_text(
            path.read_text().replace('interval = "10m"', 'interval = "20m"\nselector = "main"')
            .replace('id = "m"\nurl = "https://mirror.example.org/post/"\n', "")
            .replace("[[documents.mirrors]]\n", '[[documents.mirrors]]\nid = "ko"\nurl = "https://ko.example.org/"\n')
            .replace('workers = 1', 'workers = 4')
        )  # fmt: skip
        assert watch.changed() and not watch.changed()
        assert reload_config(app, scheduler, gate) == (
            "differ: config.toml reloaded: 2 sources; added doc/ko; removed doc/m; changed doc/c; "
            "[service] settings changed, which apply from the next start of differ run"
        )
        jobs = {job.id: job for job in scheduler.get_jobs()}
        assert sorted(jobs) == ["differ:deliver", "doc/c", "doc/ko"]
        assert jobs["doc/c"].trigger.interval.total_seconds() == 1200
        assert jobs["doc/c"].args[1].options["selector"] == "main"
        assert app.config.source("doc/c").options["selector"] == "main"
        assert app.config.service.workers == 1  # as the service started
        assert app.index_pending  # the reports index is written again, with doc/ko
        good = path.read_text()
        path.write_text(good.replace('url = "https://ko.example.org/"', 'url = "ftp://ko.example.org/"'))
        assert reload_config(app, scheduler, gate) == (
            "differ: config.toml not reloaded, still watching as before: config.toml: "
            'documents[0].mirrors[0].url: expected an http:// or https:// URL, found "ftp://ko.example.org/"'
        )
        assert sorted(job.id for job in scheduler.get_jobs()) == ["differ:deliver", "doc/c", "doc/ko"]
        assert app.config.source("doc/ko").url == "https://ko.example.org/"
    finally:
        scheduler.shutdown(wait=False)


def test_malloc_arenas_are_capped_on_glibc() -> None:
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        assert limit_malloc_arenas() is True


def test_a_scheduled_check_logs_a_timestamped_line_and_the_changes(tmp_path: Path, server: Server) -> None:
    """The job calls the same `check` as `differ check`; its log line carries the time, and a new version's
    summary follows it."""
    from differ.schedule import _check_one

    server.page("/post", article("<p>Version 1.71 is out.</p>"))
    clock = Clock()
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)
    source = app.config.sources()[0]
    _check_one(app, source)
    server.page("/post", article("<p>Version 1.81 is out.</p>"))
    clock.advance(600)
    _check_one(app, source)
    assert app.out.getvalue().splitlines() == [  # type: ignore[attr-defined]
        "2026-07-08T17:45:00Z doc/canonical: new version 1 (first snapshot)",
        "2026-07-08T17:55:00Z doc/canonical: new version 2 (1 change)",
        '    • "Version 1.71 is out."',
        '      → "Version 1.81 is out."',
    ]


def test_a_quiet_service_logs_only_what_needs_attention(tmp_path: Path, server: Server) -> None:
    from differ.schedule import _check_one

    server.page("/post", article("<p>Version 1.71 is out.</p>"))
    clock = Clock()
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)
    source = app.config.sources()[0]
    for _ in range(3):
        _check_one(app, source, quiet=True)
        clock.advance(600)
    server.routes.pop("/post")
    _check_one(app, source, quiet=True)
    assert app.out.getvalue().splitlines() == [  # type: ignore[attr-defined]
        "2026-07-08T17:45:00Z doc/canonical: new version 1 (first snapshot)",
        "2026-07-08T18:15:00Z doc/canonical: failed: HTTP 404 Not Found",
    ]
    assert [e["outcome"] for e in app.store.recent_fetches(source.key, 10)] == [
        "new", "unchanged", "unchanged", "failed",
    ]  # fmt: skip


def test_a_check_whose_host_is_taken_is_put_off(tmp_path: Path, server: Server) -> None:
    from differ.fetch.limits import host_key
    from differ.schedule import PUT_OFF, _check_one
    from differ.turns import HostGate

    server.page("/post", article("<p>Text.</p>"))
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"))
    scheduler = build_scheduler(app, start_now=False)
    source = app.config.sources()[0]
    gate = HostGate(1)
    assert gate.enter(host_key(source.url))  # another check of the host is under way
    before = datetime.now(UTC)
    assert _check_one(app, source, gate=gate, scheduler=scheduler) == []
    assert server.hits == []
    job = scheduler.get_job(source.key)
    assert (
        before + timedelta(seconds=PUT_OFF)
        <= job.next_run_time
        <= datetime.now(UTC) + timedelta(seconds=PUT_OFF)
    )
    gate.leave(host_key(source.url))
    assert [r.outcome for r in _check_one(app, source, gate=gate, scheduler=scheduler)] == ["new"]


def test_a_slow_host_does_not_take_every_worker_of_the_service(tmp_path: Path, server: Server) -> None:
    """Three workers, three sources of a host that takes two seconds a page and one of another host, all due at
    once: the other host is checked at once instead of waiting for a worker the slow host's checks hold."""
    slow = Server()
    try:
        for n in range(3):
            slow.page(f"/p{n}", article(f"<p>Slow page {n}.</p>"), delay=2.0)
        server.page("/fast", article("<p>Fast page.</p>"))
        mirrors = [source_toml(slow.url(f"/p{n}"), f"slow{n}", extra="robots = false") for n in (1, 2)]
        mirrors.append(source_toml(server.url("/fast"), "fast", extra="robots = false"))
        config = one_doc(
            tmp_path,
            slow.url("/p0"),
            extra="robots = false",
            mirrors=mirrors,
            service='workers = 3\ninterval = "1h"\n',
        )
        app = make_app(config)
        workers = Workers(3)
        scheduler = build_scheduler(app, start_now=False, workers=workers)
        for source in config.sources():
            scheduler.modify_job(source.key, next_run_time=datetime.now(UTC))
        scheduler.start()
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and (len(slow.hits) < 3 or not server.hits):
                time.sleep(0.05)
        finally:
            stop_scheduler(scheduler, workers)
        assert len(slow.hits) == 3 and len(server.hits) == 1
        assert server.hits[0].at < min(h.at for h in slow.hits) + 1.0
    finally:
        slow.close()


def test_the_schedulers_errors_are_one_line_each(tmp_path: Path) -> None:
    import io
    import logging

    from differ.schedule import scheduler_log

    app = make_app(make_config(tmp_path, CONFIG))
    err = io.StringIO()
    app.err = err
    with scheduler_log(app):
        logging.getLogger("apscheduler.scheduler").warning(
            "skipped: maximum number of running instances reached"
        )
        try:
            raise ValueError("boom")
        except ValueError:
            logging.getLogger("apscheduler.executors.default").exception('Job "doc/c" raised an exception')
    assert err.getvalue() == 'differ: scheduler: Job "doc/c" raised an exception: ValueError: boom\n'
    assert not logging.getLogger("apscheduler").handlers  # as it was


def test_a_paused_source_is_not_scheduled_and_resuming_it_schedules_it_now(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        SERVICE.format(store=tmp_path / "snapshots")
        + CONFIG.replace('id = "m"\n', 'id = "m"\npaused = true\n')
    )
    app = make_app(load_config(path, {}))
    app.reload = lambda: load_config(path, {})
    gate = HostGate(1)
    scheduler = build_scheduler(app, gate=gate)
    scheduler.start(paused=True)
    try:
        assert sorted(job.id for job in scheduler.get_jobs()) == ["differ:deliver", "doc/c"]
        path.write_text(path.read_text().replace("paused = true\n", ""))
        assert reload_config(app, scheduler, gate) == "differ: config.toml reloaded: 2 sources; resumed doc/m"
        assert sorted(job.id for job in scheduler.get_jobs()) == ["differ:deliver", "doc/c", "doc/m"]
        path.write_text(
            path.read_text().replace("[documents.canonical]\n", "[documents.canonical]\npaused = true\n")
        )
        assert reload_config(app, scheduler, gate) == (
            "differ: config.toml reloaded: 1 source (1 paused); paused doc/c"
        )
        assert sorted(job.id for job in scheduler.get_jobs()) == ["differ:deliver", "doc/m"]
    finally:
        scheduler.shutdown(wait=False)


def test_stopping_waits_for_a_check_that_asks_the_scheduler_something(tmp_path: Path) -> None:
    """A check under way when the service stops may still ask the scheduler something (a check put off while
    its host is busy): it is answered (the scheduler has no more jobs), and the service, which waits for it,
    stops."""
    import threading

    app = make_app(make_config(tmp_path, CONFIG))
    workers = Workers(2)
    scheduler = build_scheduler(app, start_now=False, workers=workers)
    started, asking, answered = threading.Event(), threading.Event(), []

    def check() -> None:
        started.set()
        asking.wait(10)
        answered.append(scheduler.get_job("doc/c"))

    scheduler.add_job(check, IntervalTrigger(hours=1), id="asks", next_run_time=datetime.now(UTC))
    scheduler.start()
    assert started.wait(10)
    stopping = threading.Thread(target=stop_scheduler, args=(scheduler, workers), daemon=True)
    stopping.start()
    time.sleep(0.2)  # the scheduler is stopped, and the service waits for the check
    assert stopping.is_alive()
    asking.set()
    stopping.join(10)
    assert not stopping.is_alive() and answered == [None]
