"""Whether the watcher is doing its job: every source checked on time, none failing, every alert delivered.
`differ status` prints it and exits 1 on a problem, so that a monitor (cron, a container's health check,
Nagios) hears of a watcher that stopped, which would otherwise be as silent as the edits it is there to catch."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from differ import options as opt
from differ.app import App, parse_iso
from differ.cadence import Cadence, cadence
from differ.config import SourceConfig

# Seconds past two intervals before a source counts as overdue (jitter, a slow host, a queue of checks).
LATE_GRACE = 300.0
# Seconds early a source counts as due for `differ check --due` (or a tenth of its interval, when more).
DUE_SLACK = 300.0
STUCK = 3600.0  # seconds a message may wait, being retried, before it counts as undelivered
DEFAULT_FAIL_AFTER = 3  # failures in a row that make a streak a problem when no destination says otherwise


@dataclass
class Finding:
    """One thing `differ status` reports: `kind` (overdue, never checked, failing, undelivered, disabled,
    unsent; for a note: failed, deferred), what it is about, and in words."""

    kind: str
    subject: str
    detail: str


@dataclass
class Health:
    """What `differ status` found: how much is watched, the latest check, the problems and the notes."""

    sources: int
    destinations: int
    last_check: str | None
    problems: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)  # worth knowing, not a problem

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_json(self) -> dict[str, Any]:
        return {
            "schema": "differ.status/1",
            "ok": self.ok,
            "sources": self.sources,
            "destinations": self.destinations,
            "last_check": self.last_check,
            "problems": [asdict(p) for p in self.problems],
            "notes": [asdict(n) for n in self.notes],
        }


def health(app: App) -> Health:
    """The watcher's health now: each source not paused checked within two of its intervals (a deferral asked
    for by its host aside), no failing streak as long as a destination's `fail_after`, and no message failed
    for good, retried for over an hour, held by a disabled destination or queued for one no longer configured."""
    now = app.now()
    sources = [s for s in app.config.sources() if not s.paused]
    out = Health(len(sources), len(app.config.notifiers), None)
    fail_after = min((n.fail_after for n in app.config.notifiers), default=DEFAULT_FAIL_AFTER)
    checks = []
    for s in sources:
        state = app.store.state(s.key)
        last = last_checked(app, s.key, state)
        if not last:
            out.problems.append(Finding("never checked", s.key, "run differ check or differ run"))
            continue
        checks.append(last)
        late = timeliness(app, s, state, last)
        if late is not None:
            (out.problems if late.kind == "overdue" else out.notes).append(late)
        if state.get("moved"):  # followed, so checked as ever; the address will not last for good
            out.notes.append(Finding("moved", s.key, moved(state["moved"], s.key)))
        failures = int(state.get("failures") or 0)
        if failures:
            since = f" since {state['failing_since']}" if state.get("failing_since") else ""
            said = f"{opt.plural(failures, 'failed check')} in a row{since}: {state.get('last_error')}"
            (out.problems if failures >= fail_after else out.notes).append(
                Finding("failing" if failures >= fail_after else "failed", s.key, said)
            )
    out.last_check = max(checks, default=None)
    _older_readings(app, sources, out)
    _outbox(app, now, out)
    return out


def _older_readings(app: App, sources: list[SourceConfig], out: Health) -> None:
    """A note, after an upgrade of the normalizer, naming the sources whose older versions are still as the
    older one read them: an audit matches a copy with those versions as read then, until `differ renormalize`."""
    from differ.errors import StoreError
    from differ.normalize import NORMALIZER_VERSION

    older = []
    for s in sources:
        try:
            if app.store.read_by_older(s.key, NORMALIZER_VERSION):
                older.append(s.key)
        except StoreError:  # a damaged history: differ sources and differ verify name it
            continue
    if older:
        which = older[0] if len(older) == 1 else f"{older[0]} and {len(older) - 1} more"
        said = (
            f"versions read by an older normalizer than this differ's ({NORMALIZER_VERSION}); "
            "differ renormalize reads them again"
        )
        out.notes.append(Finding("older readings", which, said))


def not_due(app: App, source: SourceConfig) -> str | None:
    """Why a check of a source can wait (`differ check --due`, from cron): it was checked less than its interval
    ago, less the larger of DUE_SLACK and a tenth of the interval, so that a cron job run every interval does not
    put a page off to its next run for the minutes a pass takes. None when it is due (never checked included)."""
    state = app.store.state(source.key)
    last = last_checked(app, source.key, state)
    age = _seconds_since(app.now(), last) if last else None
    if age is None:
        return None
    pace = cadence(app, source)
    if age >= pace.every - max(DUE_SLACK, pace.every / 10):
        return None
    return f"checked {_ago(max(age, 0.0))} ago, {pace}"


def moved(url: str, key: str) -> str:
    """A page that redirects for good (301, 308) to `url`, said with the command that updates the source's
    `url`, until it is updated."""
    return f"moved permanently to {url} (update its url: differ set {key} url={url})"


def last_checked(app: App, key: str, state: dict[str, Any]) -> str | None:
    """When a source was last checked: the fetch log's latest entry (an unchanged check leaves the state as
    it was), else the state's."""
    return (app.store.last_fetch(key) or {}).get("at") or state.get("last_check")


def timeliness(
    app: App, source: SourceConfig, state: dict[str, Any], last: str, pace: Cadence | None = None
) -> Finding | None:
    """`overdue` when a source last checked at `last` was not checked within two of its intervals and
    LATE_GRACE; `deferred` while its host has asked to wait; None when it is on time. `pace`: its cadence, when
    the caller has it already."""
    now = app.now()
    deferred = state.get("retry_not_before")
    if deferred and (_seconds_since(now, deferred) or 0) < 0:
        return Finding("deferred", source.key, f"its host asked to wait until {deferred}")
    pace = pace or cadence(app, source)
    age = _seconds_since(now, last)
    if age is not None and age > 2 * pace.every + LATE_GRACE:
        said = f"last checked {last}, {_ago(age)} ago ({pace})"
        return Finding("overdue", source.key, said)
    return None


def beat(app: App) -> str:
    """Request `[service] heartbeat` if `differ status` would say ok, so that a monitor waiting for it hears
    of a watcher that died, stopped checking or stopped delivering by its silence. What happened, in a line:
    `sent`, `withheld: …` or `not sent: …` ("" without a heartbeat)."""
    import requests

    service = app.config.service
    if not service.heartbeat:
        return ""
    found = health(app)
    if not found.ok:
        first = found.problems[0]
        more = f" and {len(found.problems) - 1} more" if len(found.problems) > 1 else ""
        return f"withheld: {first.kind}: {first.subject}{more} (see differ status)"
    proxies = {"http": service.proxy, "https": service.proxy} if service.proxy else None
    try:
        with requests.Session() as session:
            session.trust_env = False
            answer = session.get(
                service.heartbeat,
                headers={"User-Agent": service.user_agent},
                timeout=service.timeout,
                allow_redirects=False,
                proxies=proxies,
            )
    except requests.exceptions.Timeout:
        return f"not sent: no answer within {service.timeout:g}s"
    except requests.exceptions.RequestException as exc:
        return f"not sent: {'connection refused' if 'refused' in str(exc).lower() else type(exc).__name__}"
    if not 200 <= answer.status_code < 300:
        return f"not sent: the monitor answered HTTP {answer.status_code}"
    return "sent"


def _outbox(app: App, now: datetime, out: Health) -> None:
    from differ.notify import Outbox

    outbox = Outbox(app.store)
    configured = {n.name: n for n in app.config.notifiers}
    every = list(outbox.all())
    for name in sorted(set(outbox.notifiers()) | set(configured)):
        pending = [m for m in every if m.notifier == name and m.state == "pending"]
        if name not in configured:  # renamed or removed: only what it still owes counts
            if pending:
                said = f"{_count(pending)} pending for a [[notify]] no longer configured"
                out.problems.append(Finding("unsent", name, said))
            continue
        off = outbox.disabled(name)  # until its settings change: then its next delivery enables it
        if off and off.get("fingerprint") == configured[name].fingerprint():
            said = f"{off.get('reason')} (until its configuration changes)"
            out.problems.append(Finding("disabled", name, said))
        failed = [m for m in every if m.notifier == name and m.state == "failed"]
        stuck = [m for m in pending if (_seconds_since(now, m.data.get("created")) or 0) > STUCK]
        for group, what in ((failed, "failed for good"), (stuck, "not delivered for over an hour")):
            if group:
                error = group[-1].data.get("last_error") or "no error recorded"
                said = f"{_count(group)} {what} (last error: {error}); see differ outbox"
                out.problems.append(Finding("undelivered", name, said))


def _count(messages: list[Any]) -> str:
    return opt.plural(len(messages), "message")


def _seconds_since(now: datetime, when: object) -> float | None:
    then = parse_iso(when)
    return (now - then).total_seconds() if then is not None and then.tzinfo else None


def _ago(seconds: float) -> str:
    """`3 minutes`, `5 hours`, `148 days`: how long ago, as a person says it."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = int(seconds // size)
            return opt.plural(n, unit)
    return opt.plural(int(seconds), "second")


def render(h: Health) -> str:
    """One line with the verdict, then a line a problem, then the notes."""
    head = f"differ: {opt.plural(h.sources, 'source')}, {opt.plural(h.destinations, 'destination')}"
    head += f", last check {h.last_check or 'never'}: "
    head += "ok" if h.ok else opt.plural(len(h.problems), "problem")
    lines = [head]
    lines += [f"  {p.kind}: {p.subject}: {opt.one_line(p.detail)}" for p in h.problems]
    lines += [f"  note: {n.kind}: {n.subject}: {opt.one_line(n.detail)}" for n in h.notes]
    return "\n".join(lines) + "\n"  # a line a problem, whatever a page's error quotes
