"""Dispatch events to destinations through the outbox, and deliver with retries, backoff and rate limits."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from differ.app import iso, parse_iso
from differ.config import VERSION_EVENTS
from differ.errors import NotifyError
from differ.notify.base import NOTIFIERS, Notifier, document_of
from differ.notify.outbox import Message, Outbox

if TYPE_CHECKING:
    from differ.app import App
    from differ.config import NotifierConfig, SourceConfig

RETRY_DELAYS = (5, 30, 120, 600, 1800, 3600, 7200, 14400)


def _notifier(app: App, config: NotifierConfig) -> Notifier:
    """The notifier a configuration names, with the service's base URL and proxy."""
    return NOTIFIERS[config.kind](
        config, app.config.service.base_url, app.config.service.proxy, Outbox(app.store)
    )


def event_id(notifier: str, event: dict[str, Any]) -> str:
    """A stable id: the same event for the same destination is always the same message."""
    kind = event.get("type")
    if kind in VERSION_EVENTS:
        ident: Any = [kind, event.get("source"), ((event.get("diff") or {}).get("to") or {}).get("version")]
    elif kind == "mirror_drift":
        ident = [  # the findings, and the versions they were found in: the same findings back later alert again
            kind,
            event.get("document"),
            event.get("mirror"),
            event.get("signature"),
            (event.get("audit") or {}).get("version"),
            event.get("canonical_version"),
        ]
    elif kind in ("fetch_failing", "recovered"):
        ident = [kind, event.get("source"), event.get("since") or event.get("at")]
    elif kind == "delivery_failed":  # once per run of failures of that destination
        ident = [kind, event.get("notifier"), event.get("since")]
    elif kind == "first_version":  # once per source (its first version's fetch time, should it start anew)
        ident = [kind, event.get("source"), (event.get("version") or {}).get("fetched_at")]
    elif kind == "moved":  # once per address a page moves to
        ident = [kind, event.get("source"), event.get("moved")]
    elif kind == "translation_found":  # once per translation found
        ident = [
            kind,
            event.get("source"),
            sorted(str(t.get("url")) for t in event.get("translations") or []),
        ]
    else:
        ident = [kind, event]
    blob = json.dumps([notifier, ident], sort_keys=True, default=str).encode()
    return "msg_" + hashlib.sha256(blob).hexdigest()[:32]


def _subject(event: dict[str, Any]) -> str:
    if event.get("type") == "delivery_failed":
        return str(event.get("notifier"))
    if event.get("source"):
        return str(event["source"])
    return (
        f"{event.get('document')}/{event.get('mirror')}"
        if event.get("mirror")
        else str(event.get("document", ""))
    )


def _refusal(config: NotifierConfig, event: dict[str, Any]) -> str:
    """Why this destination is not for an event ("" when it is): its events, documents and sources, sections."""
    kind = str(event.get("type"))
    if kind not in config.events:
        return f"its events are {', '.join(config.events)}"
    if kind == "delivery_failed":  # about differ, not a page: no document or source of its own
        return "it is the destination that fails" if event.get("notifier") == config.name else ""
    if not config.wants(kind, _subject(event)):
        return f"it is for {', '.join(config.documents or config.sources)}"
    if own := NOTIFIERS[config.kind].refusal(event):
        return own
    if kind in VERSION_EVENTS and not config.wants_changes(event.get("diff") or {}):
        wanted = (
            ([f"under its sections ({', '.join(config.sections)})"] if config.sections else [])
            + ([f"with its words ({', '.join(config.words)})"] if config.words else [])
            + ([f"of its kinds ({', '.join(config.changes)})"] if config.changes else [])
        )
        return f"no change {' and '.join(wanted)}"  # an edit elsewhere, or of something else
    return ""


def _for(config: NotifierConfig, event: dict[str, Any]) -> dict[str, Any]:
    """The event as this destination hears of it: one that follows some sections, words or kinds of change gets
    a new version's changes under them, with them and of them, summarized anew, and the count of those left
    out."""
    diff = event.get("diff")
    if not config.narrows or event.get("type") not in VERSION_EVENTS or not isinstance(diff, dict):
        return event
    from differ.diff.narrow import narrowed

    return {**event, "diff": narrowed(diff, config.sections, config.words, config.changes)}


def _wanted(config: NotifierConfig, event: dict[str, Any]) -> bool:
    kind = str(event.get("type"))
    failures = int(event.get("failures") or 0)
    # Once per failing streak: from fail_after on, its start the id (a state from before streaks had a
    # start: at fail_after exactly).
    reached = failures >= config.fail_after if event.get("since") else failures == config.fail_after
    if kind == "fetch_failing" and not reached:
        return False
    if kind == "recovered" and failures < config.fail_after:
        return False
    return not _refusal(config, event)


@dataclass
class Preview:
    """What one destination would be sent for an event, or why it would be sent nothing."""

    notifier: str
    kind: str
    body: dict[str, Any] | None
    reason: str = ""


def preview(app: App, event: dict[str, Any], only: str | None = None) -> list[Preview]:
    """The message each destination (or the one named) would get for `event`, made as a check makes it, sending
    nothing: to see an alert's words, mentions and thread before they reach a channel."""
    out = []
    for config in app.config.notifiers:
        if only and config.name != only:
            continue
        reason = _refusal(config, event)
        body = None if reason else _notifier(app, config).payload(_for(config, event)).body
        out.append(Preview(config.name, config.kind, body, reason))
    return out


def dispatch(app: App, events: Iterable[dict[str, Any]], *, deliver_now: bool = True) -> list[dict[str, Any]]:
    """Queue each event for every destination that wants it, then try to deliver. The events some destination
    could not queue (a fault in making its message, a line on stderr each), which stay owed: handed over
    again, they are queued where they are missing and nowhere twice."""
    now = iso(app.now())
    outbox = Outbox(app.store)
    events = list(events)
    for event in events:
        event.setdefault("at", now)
        event.setdefault("queued_at", now)
    unqueued: list[dict[str, Any]] = []
    for config in app.config.notifiers:
        kind = _notifier(app, config)
        for event in events:
            if not _wanted(config, event):
                continue
            queued = False
            with app.carry_on(
                f"{config.name}: the {event.get('type')} alert for {_subject(event)} not queued"
            ):
                msg_id = event_id(config.name, event)
                if config.digest:
                    outbox.buffer(config.name, msg_id, _for(config, event))
                else:
                    outbox.enqueue(config.name, msg_id, _message(kind, _for(config, event), now))
                queued = True
            if not queued and not any(e is event for e in unqueued):
                unqueued.append(event)
        if config.digest:
            with app.carry_on(f"{config.name}: digest not queued"):  # its events stay collected
                _flush_digest(app, outbox, config, kind)
    if deliver_now:
        deliver(app)
    return unqueued


def catch_up(app: App, latest: Iterable[tuple[SourceConfig, int]]) -> None:
    """For a destination owed every page's latest version (`catches_up`: an archive), queue the latest version
    of each of these sources (the number of its latest version given) it has no copy of, as the message its own
    event would have made (the same id: a version whose event is queued already, or was sent, is not queued
    again). A page watched before the destination was set up is so captured as it is now, not only at its next
    edit."""
    keen = [c for c in app.config.notifiers if NOTIFIERS[c.kind].catches_up and not c.digest]
    if not keen:
        return
    now = iso(app.now())
    outbox = Outbox(app.store)
    for source, number in latest:
        if not number or number in app.store.captures(source.key):
            continue
        version = app.store.version(source.key, number)
        if version.record.get("archive"):  # read from a web archive's capture (`differ backfill`)
            continue
        if number == 1:
            from differ.events import first_event

            event = first_event(app, source, version)
        else:
            to = {"version": number, "fetched_at": version.fetched_at, "hash": version.hash}
            event = {"type": "changed", "source": source.key, "url": source.page, "diff": {"to": to}}
        for config in keen:
            if config.wants(str(event["type"]), source.key):
                kind = _notifier(app, config)
                outbox.enqueue(config.name, event_id(config.name, event), _message(kind, event, now))


def _message(kind: Notifier, event: dict[str, Any], now: str) -> dict[str, Any]:
    outgoing = kind.payload(event)
    return {
        "type": event.get("type"),
        "subject": _subject(event),
        "created": now,
        "next_attempt": now,
        "attempts": 0,
        "body": outgoing.body,
        "headers": outgoing.headers,
        "last_error": None,
        **({"thread": outgoing.thread} if outgoing.thread else {}),
    }


def _flush_digest(app: App, outbox: Outbox, config: NotifierConfig, kind: Notifier) -> None:
    """Queue the collected events as one message once the first has waited a period; read, queued and cleared
    under the store's lock, so two callers never make two digests of the same events."""
    if config.digest is None or not outbox.collecting(config.name):
        return
    with app.store.writing():
        items = outbox.buffered(config.name)
        last = outbox.last(config.name)
        taken = set(last.data.get("digest_of") or ()) if last else set()
        if taken:  # a process died between queueing the last digest and clearing its events
            outbox.digested(config.name, [path for path, _ in items if path.stem in taken])
            items = [(path, event) for path, event in items if path.stem not in taken]
        first = parse_iso(items[0][1].get("queued_at")) if items else None
        if first is None or (app.now() - first).total_seconds() < config.digest:
            return
        events = [event for _, event in items]
        digest = {"type": "digest", "events": events, "at": iso(app.now()), "queued_at": iso(app.now())}
        ids = sorted(path.stem for path, _ in items)
        msg_id = "msg_" + hashlib.sha256(json.dumps(ids).encode()).hexdigest()[:32]
        outbox.enqueue(config.name, msg_id, {**_message(kind, digest, iso(app.now())), "digest_of": ids})
        outbox.digested(config.name, [path for path, _ in items])


@dataclass
class Attempt:
    """The outcome of one delivery attempt, for `differ notify test` and `differ outbox retry`."""

    notifier: str
    msg_id: str
    ok: bool
    detail: str
    lost: dict[str, Any] | None = None  # the message, when this attempt gave it up for good
    shown: str = ""  # the document whose reports this delivery adds to (a web archive's copy of a version)


def _backoff(attempts: int) -> float:
    base = RETRY_DELAYS[min(attempts - 1, len(RETRY_DELAYS) - 1)]
    return float(base * (0.8 + 0.4 * random.random()))


def deliver(app: App, *, only: str | None = None, wait: float = 0.0) -> list[Attempt]:
    """Send what is due, oldest first per destination; a message waits while an earlier one is retrying. A
    destination whose messages another thread or process is sending (checks finishing at once in `differ run`,
    `differ check` beside it) is left to that one, after waiting up to `wait` seconds for its turn. A message
    given up for good is told to the other destinations (`delivery_failed`), once a run of such failures."""
    attempts = _deliver(app, only, wait)
    told = _delivery_failures(app, attempts)
    if told:
        unqueued = dispatch(app, told, deliver_now=False)
        outbox = Outbox(app.store)
        for event in told:  # only once queued: a process that dies first tells it at the next failure
            if not any(e is event for e in unqueued):
                outbox.failing(event["notifier"], event["since"])
        attempts += _deliver(app, only, wait)  # once more: a failure now is told at the next delivery
    return attempts


def _delivery_failures(app: App, attempts: list[Attempt]) -> list[dict[str, Any]]:
    """A `delivery_failed` event for each destination whose messages began to fail for good in these attempts:
    what was lost, and why."""
    outbox = Outbox(app.store)
    now = iso(app.now())
    events: dict[str, dict[str, Any]] = {}
    for a in attempts:
        if a.lost is None or a.lost.get("type") in ("test", "delivery_failed"):
            continue  # a test is told to whoever sent it; a lost `delivery_failed` is not told again
        if a.notifier not in events and outbox.failing_since(a.notifier) is not None:
            continue  # told when its run began
        event = events.setdefault(
            a.notifier,
            {
                "type": "delivery_failed",
                "document": "differ",  # about differ itself, as a test message is: its thread or topic
                "notifier": a.notifier,
                "since": now,
                "error": a.detail,
                "lost": [],
            },
        )
        event["lost"].append(f"{a.lost.get('type')} of {a.lost.get('subject')}")
        event["error"] = a.detail
    for name, event in events.items():
        event["kind"] = next((n.kind for n in app.config.notifiers if n.name == name), "")
    return list(events.values())


def _deliver(app: App, only: str | None, wait: float) -> list[Attempt]:
    outbox = Outbox(app.store)
    attempts: list[Attempt] = []
    for config in app.config.notifiers:
        if only and config.name != only:
            continue
        disabled = outbox.disabled(config.name)
        if disabled:
            if disabled.get("fingerprint") == config.fingerprint():
                continue
            outbox.enable(config.name)  # the configuration changed since the receiver said 410
        if not outbox.has_pending(config.name):
            continue  # the common case every few seconds: no notifier is built for it
        with outbox.sending(config.name, wait) as turn:
            if turn:
                _send_due(app, outbox, config, _notifier(app, config), attempts)
                with app.carry_on(f"{config.name}: old alerts not pruned"):  # looked for again next time
                    outbox.prune(config.name, app.config.service.keep_sent, app.now())  # once a day
            else:
                attempts.append(Attempt(config.name, "", False, BUSY))
    return attempts


BUSY = "another differ process is sending this destination's messages; they stay pending for it"
COMMAND_WAIT = 30.0  # how long a command someone is waiting on (outbox retry, notify test) waits for a turn


def _send_due(
    app: App, outbox: Outbox, config: NotifierConfig, kind: Notifier, attempts: list[Attempt]
) -> None:
    """Send one destination's due messages in order, holding its turn; read the queue again after the last, for
    messages queued meanwhile by a caller that found the turn taken."""
    while True:
        pending = outbox.messages(config.name, "pending")
        if not pending:
            return
        for msg in pending:
            if not _attempt(app, outbox, config, kind, msg, attempts):
                return


def _attempt(
    app: App, outbox: Outbox, config: NotifierConfig, kind: Notifier, msg: Message, attempts: list[Attempt]
) -> bool:
    """One message's attempt, if it is due; whether the messages after it may go now."""
    now = app.now()
    if str(msg.data.get("next_attempt", "")) > iso(now):
        return False
    gap = kind.min_interval - (app.monotonic() - app.last_sent.get(config.name, -1e9))
    if gap > 0:
        app.sleep(gap)
    failure: NotifyError | None = None
    try:
        note = kind.send(msg, app.now())
    except NotifyError as error:
        note, failure = None, error
    except Exception as exc:  # a fault of differ's: kept in failed/ and told to the others, never sent twice
        note, failure = None, NotifyError(app.fault(exc))
    app.last_sent[config.name] = app.monotonic()
    msg.data["attempts"] = int(msg.data.get("attempts", 0)) + 1
    if failure is not None:
        return _failed(outbox, config, msg, failure, now, attempts)
    msg.data["sent_at"] = iso(app.now())
    msg.data["last_error"] = None
    if note:
        msg.data["note"] = note
    outbox.move(msg, "sent")
    outbox.delivered(config.name)
    shown = document_of({"source": msg.data.get("subject")}) if kind.shown_in_reports else ""
    attempts.append(
        Attempt(config.name, msg.id, True, f"delivered; {note}" if note else "delivered", shown=shown)
    )
    return True


def _failed(
    outbox: Outbox,
    config: NotifierConfig,
    msg: Message,
    exc: NotifyError,
    now: datetime,
    attempts: list[Attempt],
) -> bool:
    """Record a failed attempt: retried later, failed for good, or the destination disabled (410); whether the
    messages after it may go now."""
    msg.data["last_error"] = str(exc)
    msg.data["last_attempt"] = iso(now)
    lost = {"type": msg.data.get("type"), "subject": msg.data.get("subject")}
    if exc.disable:
        outbox.move(msg, "failed")
        outbox.disable(config.name, config.fingerprint(), str(exc))
        attempts.append(Attempt(config.name, msg.id, False, str(exc), lost))
        return False
    if not exc.retryable:
        outbox.move(msg, "failed")
        attempts.append(Attempt(config.name, msg.id, False, str(exc), lost))
        return True
    created = parse_iso(msg.data.get("created")) or now
    if (now - created).total_seconds() >= config.retry_for:
        msg.data["last_error"] = f"{exc}; gave up after {config.retry_for / 3600:g}h of retries"
        outbox.move(msg, "failed")
        attempts.append(Attempt(config.name, msg.id, False, msg.data["last_error"], lost))
        return True
    attempts.append(Attempt(config.name, msg.id, False, str(exc)))
    delay = exc.retry_after if exc.retry_after is not None else _backoff(msg.data["attempts"])
    msg.data["next_attempt"] = iso(datetime.fromtimestamp(now.timestamp() + delay, now.tzinfo))
    outbox.update(msg)
    return False


@dataclass
class Probe:
    """What one destination's service said of its settings: ok, not ok, or not asked (None)."""

    notifier: str
    ok: bool | None
    detail: str


def probe(app: App, name: str | None = None) -> list[Probe]:
    """Ask each destination's service (or the one named) whether its settings work, posting nothing: a bot's
    token, whether it is in the room or chat. A webhook cannot be asked without a message."""
    out = []
    for config in app.config.notifiers:
        if name and config.name != name:
            continue
        try:
            said = _notifier(app, config).probe()
        except NotifyError as exc:
            out.append(Probe(config.name, False, str(exc)))
            continue
        if said is None:
            out.append(
                Probe(
                    config.name,
                    None,
                    f"{config.kind} cannot be asked without a message (differ notify test sends one)",
                )
            )
        else:
            out.append(Probe(config.name, True, said))
    return out


def send_test(app: App, name: str | None = None) -> list[Attempt]:
    """Queue a sample message for one destination (or all) and try to deliver it now."""
    configs = [app.config.notifier(name)] if name else list(app.config.notifiers)
    now = iso(app.now())
    outbox = Outbox(app.store)
    results = []
    for config in configs:
        kind = _notifier(app, config)
        event = {"type": "test", "at": now, "queued_at": now, "document": "differ"}
        msg_id = (
            "msg_" + hashlib.sha256(f"test:{config.name}:{now}:{random.random()}".encode()).hexdigest()[:32]
        )
        outbox.enqueue(config.name, msg_id, _message(kind, event, now))
        sent = deliver(app, only=config.name, wait=COMMAND_WAIT)
        mine = [a for a in sent if a.msg_id == msg_id]
        why = (
            BUSY if any(a.detail == BUSY for a in sent) else "queued behind earlier messages waiting to retry"
        )
        results.append(mine[0] if mine else Attempt(config.name, msg_id, False, why))
    return results
