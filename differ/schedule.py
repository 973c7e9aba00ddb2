"""`differ run`: APScheduler 3.x calls `check` for each source at its interval (plus jitter), and delivers
retries from the outbox. A changed config.toml (`differ add`, an editor, SIGHUP) is read again without a
restart. SIGINT/SIGTERM let the write in progress finish, then exit 0."""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import signal
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import FrameType
from typing import Any

from apscheduler.executors.pool import BasePoolExecutor
from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger

from differ.app import App, iso
from differ.cadence import cadence
from differ.check import check, fetch_host
from differ.checked import CheckResult
from differ.config import Config, SourceConfig
from differ.errors import DifferError, ExitCode
from differ.options import format_duration, plural
from differ.turns import HostGate

DELIVERY_EVERY = 5.0
PUT_OFF = 2.0  # seconds before a check whose host is taken tries again
WATCH_EVERY = 2.0  # seconds between two looks at the configuration file


def build_scheduler(
    app: App,
    *,
    start_now: bool = True,
    quiet: bool = False,
    gate: HostGate | None = None,
    workers: Workers | None = None,
) -> BackgroundScheduler:
    """One job per source (coalesced, never overlapping itself) and one job for outbox retries."""
    scheduler = BackgroundScheduler(
        executors={"default": workers or Workers(app.config.service.workers)},
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
        timezone="UTC",
    )
    now = app.now()
    gate = gate or HostGate(app.config.service.per_host_connections)
    sources = app.config.watched()
    for index, source in enumerate(sources):
        every = source.interval or app.config.service.interval
        # Spread the first checks over a short window so a restart does not hit every host at once.
        first = now + timedelta(seconds=min(every, 60.0) * index / max(1, len(sources)))
        _schedule(app, scheduler, source, first if start_now else None, quiet, gate)
    scheduler.add_job(
        _deliver,
        IntervalTrigger(seconds=DELIVERY_EVERY, timezone="UTC"),
        args=(app,),
        id="differ:deliver",
        name="deliver",
    )
    if app.config.service.heartbeat:
        scheduler.add_job(
            Heartbeat(app),
            IntervalTrigger(seconds=app.config.service.heartbeat_every, timezone="UTC"),
            id="differ:heartbeat",
            name="heartbeat",
        )
    if app.config.service.metrics:
        scheduler.add_job(
            Metrics(app),
            IntervalTrigger(seconds=app.config.service.metrics_every, timezone="UTC"),
            id="differ:metrics",
            name="metrics",
            next_run_time=datetime.now(UTC) if start_now else None,  # a collector has them from the start
        )
    return scheduler


class Workers(BasePoolExecutor):  # type: ignore[misc]  # apscheduler has no type hints
    """The scheduler's threads, their pool at hand: the service waits for the checks under way after the
    scheduler has stopped, not while it holds its locks (a check that asked it something then would wait on
    it for ever)."""

    def __init__(self, workers: int) -> None:
        self.pool = concurrent.futures.ThreadPoolExecutor(workers)
        super().__init__(self.pool)


class Metrics:
    """The service's metrics job: `[service] metrics` written again, with a line on stderr when writing it
    starts or stops failing, not every time."""

    def __init__(self, app: App):
        self.app = app
        self.failing = ""

    def __call__(self) -> None:
        from differ.metrics import write_metrics

        path = Path(self.app.config.service.metrics)
        try:
            write_metrics(self.app, path)
            said = ""
        except (OSError, DifferError) as exc:
            said = f"metrics not written: {path}: {exc.strerror if isinstance(exc, OSError) else exc}"
        self.failing = _told(self.app, self.failing, said, said or f"metrics written again to {path}")


def _told(app: App, before: str, said: str, line: str) -> str:
    """A job's outcome (`said`), with `line` on stderr when it is not what it was `before`, not every time."""
    if said != before:
        print(f"{iso(app.now())} differ: {line}", file=app.err, flush=True)
    return said


class Heartbeat:
    """The service's heartbeat job: `beat`, with a line on stderr when what happens to it changes (withheld,
    not sent, sent again), not every time."""

    def __init__(self, app: App):
        self.app = app
        self.last = "sent"

    def __call__(self) -> str:
        from differ.health import beat

        said = beat(self.app)
        self.last = _told(
            self.app, self.last, said, "heartbeat sent again" if said == "sent" else f"heartbeat {said}"
        )
        return said


def _schedule(
    app: App,
    scheduler: BackgroundScheduler,
    source: SourceConfig,
    first: datetime | None,
    quiet: bool,
    gate: HostGate,
) -> None:
    scheduler.add_job(
        _check_one,
        _trigger(app, cadence(app, source).every),
        args=(app, source, quiet, gate, scheduler),
        id=source.key,
        name=source.key,
        next_run_time=first,
    )


def _trigger(app: App, every: float) -> IntervalTrigger:
    """A source's job trigger: every `every` seconds (its cadence's), plus the service's jitter."""
    jitter = every * app.config.service.jitter
    return IntervalTrigger(seconds=every, jitter=jitter or None, timezone="UTC")


def _pace(source: SourceConfig) -> tuple[float | None, ...]:
    return (source.interval, source.settled_after, source.settled_interval)


def _paced(app: App, source: SourceConfig, scheduler: BackgroundScheduler) -> str:
    """After a check: a page that has settled is checked every `settled_interval` from now on, and one edited
    again every `interval` (the next check counting from now). What changed, for the service's log ("" if
    nothing did)."""
    job = scheduler.get_job(source.key)
    if job is None or not isinstance(job.trigger, IntervalTrigger):
        return ""
    pace = cadence(app, source)
    if job.trigger.interval.total_seconds() == pace.every:
        return ""
    scheduler.reschedule_job(source.key, trigger=_trigger(app, pace.every))
    if pace.settled is not None and pace.edited is not None:
        return f"{source.key}: settled, unedited since {iso(pace.edited)}: checked every {format_duration(pace.every)}"
    whose = "edited" if source.role == "canonical" else "its canonical edited"
    return f"{source.key}: {whose} after settling: checked every {format_duration(pace.every)} again"


class ConfigWatch:
    """Notices that the configuration file was written (by `differ add`, `differ remove` or an editor)."""

    def __init__(self, path: Path):
        self.path = path
        self.stamp = self._stamp()

    def _stamp(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size, st.st_ino

    def changed(self) -> bool:
        stamp = self._stamp()
        if stamp == self.stamp:
            return False
        self.stamp = stamp
        return True


def reload_config(app: App, scheduler: BackgroundScheduler, gate: HostGate, quiet: bool = False) -> str:
    """Read the configuration again and apply it to the running service: new sources are checked now,
    removed ones no longer, changed ones with their new settings from their next check (a new interval
    counts from now); notifiers and documents take effect at once. [service] settings need a restart. A
    configuration that does not read changes nothing. Returns the line to log."""
    name = app.config.path.name
    if app.reload is None:
        return f"differ: {name} cannot be read again here"
    try:
        new: Config = app.reload()
    except DifferError as exc:
        return f"differ: {name} not reloaded, still watching as before: {exc}"
    old = app.config
    restart = new.service != old.service
    new = replace(new, service=old.service)
    known, configured = {s.key for s in old.sources()}, {s.key for s in new.sources()}
    before = {s.key: s for s in old.watched()}  # what is scheduled, before and after
    after = {s.key: s for s in new.watched()}
    scheduled = [k for k in after if k not in before]
    unscheduled = [k for k in before if k not in after]
    resumed = [k for k in scheduled if k in known]
    paused = [k for k in unscheduled if k in configured]
    added = [k for k in scheduled if k not in resumed]
    removed = [k for k in unscheduled if k not in paused]
    changed = [k for k in after if k in before and after[k] != before[k]]
    app.config = new
    app.index_pending = True  # the reports index lists what is configured
    now = datetime.now(UTC)
    for key in unscheduled:
        with contextlib.suppress(JobLookupError):
            scheduler.remove_job(key)
    for key in scheduled:
        _schedule(app, scheduler, after[key], now, quiet, gate)
    for key in changed:  # the same job, so a check running now is never run twice at once
        source = after[key]
        with contextlib.suppress(JobLookupError):
            scheduler.modify_job(key, args=(app, source, quiet, gate, scheduler))
            if _pace(source) != _pace(before[key]):
                scheduler.reschedule_job(key, trigger=_trigger(app, cadence(app, source).every))
    parts = [plural(len(after), "source")]
    if len(configured) > len(after):
        parts[0] += f" ({len(configured) - len(after)} paused)"
    parts += [
        f"{what} {', '.join(keys)}"
        for what, keys in (
            ("added", added),
            ("removed", removed),
            ("paused", paused),
            ("resumed", resumed),
            ("changed", changed),
        )
        if keys
    ]
    line = f"differ: {name} reloaded: " + "; ".join(parts)
    if restart:
        line += "; [service] settings changed, which apply from the next start of differ run"
    return line


def _check_one(
    app: App,
    source: SourceConfig,
    quiet: bool = False,
    gate: HostGate | None = None,
    scheduler: BackgroundScheduler | None = None,
) -> list[CheckResult]:
    """One scheduled check, logged as a service logs: a timestamped line, and under a new version its summary;
    `quiet` leaves out the checks that found nothing a person need read (`CheckResult.quiet`; the fetch log
    keeps them: `differ log`). With a
    `gate`, a check whose host is taken is put off by PUT_OFF seconds instead of waiting on a worker."""
    host = fetch_host(source)
    if gate is not None and not gate.enter(host):
        if scheduler is not None:  # after the scheduler has set the next run from the interval, so this wins
            with contextlib.suppress(JobLookupError):  # the service is stopping
                scheduler.modify_job(source.key, next_run_time=datetime.now(UTC) + timedelta(seconds=PUT_OFF))
        return []
    try:
        results = check(app, [source])
    except DifferError as exc:  # e.g. its document was taken out of the configuration while it ran
        print(f"{iso(app.now())} {source.key}: not checked: {exc}", file=app.out, flush=True)
        return []
    finally:
        if gate is not None:
            gate.leave(host)
    paced = []
    if scheduler is not None:
        # a canonical edited wakes its mirrors too, which have the edit to follow
        edited = source.role == "canonical" and any(r.outcome == "new" for r in results)
        for each in _with_mirrors(app, source) if edited else [source]:
            with contextlib.suppress(JobLookupError):  # the service is stopping, or the source was taken out
                paced.append(_paced(app, each, scheduler))
    for result in results:
        if quiet and result.quiet:
            continue
        lines = [f"{iso(app.now())} {result.line()}"]
        if result.outcome == "new":
            lines += [f"    {line}" for line in result.summary[1:]]
        if result.followed:
            lines.append(f"{iso(app.now())} {result.follow_line()}")
        print("\n".join(lines), file=app.out, flush=True)
    for line in paced:
        if line and not quiet:
            print(f"{iso(app.now())} {line}", file=app.out, flush=True)
    return results


def _with_mirrors(app: App, source: SourceConfig) -> list[SourceConfig]:
    try:
        return [source, *app.config.document(source.document).mirrors]
    except DifferError:  # its document was taken out of the configuration while it was checked
        return [source]


def _deliver(app: App) -> None:
    """Every few seconds: digests that are due, retries, and the reports index if checks left it pending."""
    from differ.notify import deliver, dispatch
    from differ.site import after_delivery, flush_index

    dispatch(app, [], deliver_now=False)  # flushes digests that are due
    after_delivery(app, deliver(app))
    flush_index(app)


class SchedulerLog(logging.Handler):
    """APScheduler's own log, as the service's lines: errors only, one line each, no traceback. Its warnings
    are what the design intends (a run skipped because the check before it is still going: never overlapping),
    and printed they were a line a second for a slow page."""

    def __init__(self, app: App):
        super().__init__(logging.ERROR)
        self.app = app

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        why = f": {type(error).__name__}: {error}" if error is not None else ""
        print(f"differ: scheduler: {record.getMessage()}{why}", file=self.app.err, flush=True)


@contextlib.contextmanager
def scheduler_log(app: App) -> Iterator[None]:
    log = logging.getLogger("apscheduler")
    handler = SchedulerLog(app)
    saved = log.level, log.propagate
    log.addHandler(handler)
    log.setLevel(logging.ERROR)
    log.propagate = False
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.setLevel(saved[0])
        log.propagate = saved[1]


M_ARENA_MAX = -8  # glibc mallopt parameter


def limit_malloc_arenas(arenas: int = 2) -> bool:
    """Cap glibc's malloc arenas before the worker threads start. Each thread that allocates otherwise gets
    an arena of its own, which stays mapped: a long-running service with 16 workers grows for hours (measured
    in the soak: +13 MB in 4 minutes uncapped, flat capped). No-op where the C library is not glibc."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(M_ARENA_MAX, arenas))
    except (OSError, AttributeError):
        return False


def stop_scheduler(scheduler: BackgroundScheduler, workers: Workers) -> None:
    """Stop starting checks, then wait for those under way to finish their writes."""
    scheduler.shutdown(wait=False)
    workers.pool.shutdown(wait=True)


def run_service(app: App, *, stop: threading.Event | None = None, quiet: bool = False) -> int:
    """Run until SIGINT/SIGTERM (or `stop` is set); running checks finish their writes first."""
    stop = stop or threading.Event()
    every = app.config.sources()
    sources = app.config.watched()
    if not every:
        print(f"{app.config.path.name} configures no sources; nothing to run", file=app.err)
        return ExitCode.USAGE
    limit_malloc_arenas()  # before any worker thread exists
    with app.store.writing():  # creates the store under the lock
        pass
    gate = HostGate(app.config.service.per_host_connections)
    workers = Workers(app.config.service.workers)
    scheduler = build_scheduler(app, quiet=quiet, gate=gate, workers=workers)
    previous: dict[signal.Signals, Any] = {}

    hangup = threading.Event()

    def handle(signum: int, frame: FrameType | None) -> None:
        stop.set()

    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, handle)
        if hasattr(signal, "SIGHUP"):
            previous[signal.SIGHUP] = signal.signal(signal.SIGHUP, lambda signum, frame: hangup.set())
    watch = ConfigWatch(app.config.path)
    paused = f" ({len(every) - len(sources)} paused)" if len(every) > len(sources) else ""
    print(
        f"differ: watching {plural(len(sources), 'source')}{paused}; store {app.store.root}; Ctrl-C to stop",
        file=app.err,
        flush=True,
    )
    with scheduler_log(app):
        scheduler.start()
        looked = app.monotonic()
        try:
            while not stop.wait(0.5):
                if app.monotonic() - looked >= WATCH_EVERY or hangup.is_set():
                    looked = app.monotonic()
                    if watch.changed() or hangup.is_set():
                        hangup.clear()
                        print(reload_config(app, scheduler, gate, quiet), file=app.err, flush=True)
        finally:
            from differ.fetch.command import stop_all

            stop_all()  # a check waiting on a program (a browser) ends now, its page checked next time
            stop_scheduler(scheduler, workers)
            from differ.site import flush_index

            flush_index(app, now=True)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    print("differ: stopped", file=app.err, flush=True)
    return ExitCode.OK
