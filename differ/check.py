"""One check of one or many sources: fetch, normalize, store, diff, notify. `differ check` and the scheduler
both call `check`; failures of one source never stop the others."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any

from differ.app import App, iso, parse_iso
from differ.checked import CheckResult
from differ.config import VERSION_EVENTS, SourceConfig
from differ.errors import (
    BlockedError,
    FetchError,
    NormalizeError,
    StoppedError,
    StoreConflict,
    StoreDamage,
)
from differ.events import (
    change_event,
    first_wanted,
    missed_events,
    moved_event,
    notified_up_to,
    owed_recoveries,
    streak_events,
    translations_found,
)
from differ.feed import write_feed
from differ.fetch import Request, Response
from differ.fetch.limits import host_key
from differ.fetch.variants import keyed_by, same_variant
from differ.follow import follow
from differ.normalize import NORMALIZER_VERSION, SOURCE_KINDS, Normalized
from differ.site import after_delivery, write_site
from differ.store import Version, sha256
from differ.turns import Turns
from differ.versions import (
    content_identity,
    latest_identity,
    read_response,
    store_version,
)


def fetch_failure(exc: FetchError, request: Request, source: SourceConfig) -> str:
    """A failed fetch as users read it; with the address asked when the kind asks another than `url` (a
    release's API object, a WordPress post's REST route), which is the one a 404 is about."""
    said = (
        exc.allow_with(f"differ set {source.key} allow_private=true")
        if isinstance(exc, BlockedError)
        else str(exc)
    )
    return said if request.url == source.url else f"{said} (fetching {request.url})"


def watch_so(source: SourceConfig, exc: NormalizeError) -> str:
    """The command that changes a source's settings to those that read what its page turned out to be (a feed,
    an API's JSON, another field), when differ can tell them; "" when not."""
    import shlex

    if not exc.read_with:
        return ""
    pairs = " ".join(shlex.quote(f"{name}={value}") for name, value in exc.read_with.items())
    return f"; to watch it so: differ set {source.key} {pairs}"


def fetch_host(source: SourceConfig) -> str:
    """The host a source's requests go to, which is not its page's for a kind read through an API (a GitHub
    release is fetched from api.github.com): what the per-host turns and limits count."""
    return host_key(SOURCE_KINDS[source.kind].fetch_url(source))


def build_request(source: SourceConfig, state: dict[str, Any]) -> Request:
    """The request for a source, conditional on the validators its last fetch of the same URL returned, when it
    asks for the same variant: the headers that response said it varies on (`Vary`) are as they were."""
    kind = SOURCE_KINDS[source.kind]
    url = kind.fetch_url(source)
    headers = {"Accept": kind.accept, **kind.headers, **source.headers}
    same = state.get("url") == url and same_variant(state.get("vary"), headers)
    return Request(
        url=url,
        headers=headers,
        etag=state.get("etag") if same else None,
        last_modified=state.get("last_modified") if same else None,
        robots=source.robots,
        allow_private=source.allow_private,
        command=source.command,
        media_type=printed_as(kind.accept) if source.command else "",
    )


def printed_as(accept: str) -> str:
    """What a program's output is taken for: the first media type a kind accepts ("" when that is any)."""
    media = accept.split(",", 1)[0].split(";", 1)[0].strip()
    return "" if "*" in media else media


def ran(source: SourceConfig, url: str) -> list[str]:
    """The command that printed a source's page, as its version records it: as written in the config, with
    the page's address for `{url}` and `${NAME}` left as it is (a token from the environment is not kept)."""
    return [arg.replace("{url}", url) for arg in source.command_written]


def check_source(app: App, source: SourceConfig) -> CheckResult:
    """Check one source once; every outcome is logged in the store's fetch log."""
    state = app.store.state(source.key)
    named = state.get("translations")
    entry: dict[str, Any] = {}  # the fetch log's line, filled in as the check goes
    started = app.monotonic()
    try:
        result = _check_source(app, source, state, entry)
    except Exception as exc:  # a damaged file, a refused write, a fault: logged with what was fetched
        return unfinished(app, source, app.why(exc), entry, started)
    result.translations = state.get("translations") != named  # the state as the check left it
    return result


def _check_source(
    app: App, source: SourceConfig, state: dict[str, Any], entry: dict[str, Any]
) -> CheckResult:
    key = source.key
    store = app.store
    before = dict(state)
    started = app.monotonic()
    now = app.now()
    not_before = state.get("retry_not_before")
    if not_before and iso(now) < not_before:
        return CheckResult(key, "deferred", f"server asked to wait until {not_before}")
    request = build_request(source, state)
    entry.update(at=iso(now), url=request.url)
    try:
        response = app.fetcher.fetch(request)
    except StoppedError as exc:  # differ is stopping: no failure of the page, and nothing to log
        return CheckResult(key, "deferred", str(exc))
    except FetchError as exc:
        _waited(entry, exc.waited)
        return _failed(
            app,
            source,
            state,
            entry,
            started,
            fetch_failure(exc, request, source),
            status=exc.status,
            retry_after=exc.retry_after,
            now=now,
        )
    entry.update(
        **({"exit": 0} if response.command else {"status": response.status}),
        final_url=response.final_url,
        bytes=len(response.body),
        attempts=response.attempts,
    )
    _waited(entry, response.waited)
    if response.not_modified:
        _read_by_this_normalizer(app, source, state, None)
        return _unchanged(app, source, state, before, entry, started, response, "not modified")
    body_sha = sha256(response.body)
    entry["body_sha256"] = body_sha
    latest = store.latest(key)
    if latest is not None and body_sha == state.get("body_sha256"):
        _read_by_this_normalizer(app, source, state, latest)
        return _unchanged(app, source, state, before, entry, started, response, "same body")
    try:
        normalized = read_response(app, source, response)
    except NormalizeError as exc:  # NoContentError too: nothing to compare (a selector lost in a redesign)
        return _failed(app, source, state, entry, started, str(exc) + watch_so(source, exc), now=now)
    # the translations a canonical page names, whether or not the page changed
    if source.role == "canonical" and normalized.markdown:
        _translations(state, normalized.translations)
    identity = content_identity(normalized)
    baseline, again = (
        latest_identity(app, source, state, latest, normalized.normalizer) if latest else (None, None)
    )
    if latest is not None and identity == baseline:
        return _unchanged(app, source, state, before, entry, started, response, "page noise only")
    if latest is not None:
        held = _anomaly(app, normalized, latest.record.get("words", 0))
        confirm = app.config.service.anomaly_confirm
        if held and state.get("pending") != identity:
            state["pending"], state["pending_since"] = identity, iso(now)
            entry.update(outcome="held", detail=held)
            _finish(app, key, state, before, entry, started, response, keep_validators=False)
            return CheckResult(key, "held", f"{held}; stored only if still so in {confirm:g}s")
        since = parse_iso(state.get("pending_since"))
        if held and since is not None and (now - since).total_seconds() < confirm:
            entry.update(
                outcome="held", detail=held
            )  # seen again, but too soon to tell a fault from a change
            _finish(app, key, state, before, entry, started, response, keep_validators=False)
            return CheckResult(
                key,
                "held",
                f"{held}; seen again, stored if still so at {iso(since + timedelta(seconds=confirm))}",
            )
    fetched = {
        "fetch_url": request.url,
        "final_url": response.final_url,
        **({"command": ran(source, request.url)} if response.command else {"status": response.status}),
        "headers": response.headers,
    }
    try:
        version, d = store_version(
            app, source, latest, normalized, response.body, again, now, fetched, identity
        )
    except StoreConflict:  # `differ check` and `differ run` at once: the other's version stands
        return CheckResult(
            key, "deferred", "another process stored a version meanwhile; checked again next time"
        )
    summary, changes = version.record["summary"], version.record["changes"]
    result = CheckResult(
        key,
        "new",
        version=version.number,
        previous=latest.number if latest else None,
        changes=changes,
        metadata=len(d.metadata) if d is not None else 0,
        warnings=list(normalized.warnings),
        summary=summary,
    )
    if latest is not None and d is not None:
        result.event = change_event(app, source, latest, version, d)
    entry.update(outcome="new", version=version.number)
    _finish(app, key, state, before, entry, started, response)
    return result


def _read_by_this_normalizer(
    app: App, source: SourceConfig, state: dict[str, Any], latest: Version | None
) -> None:
    """A page that has not changed since differ was upgraded gets its latest version read by the new normalizer
    too, as a changed one does, so an audit compares a copy and its canonical as one normalizer reads them. The
    state says which normalizer did so last: a page answering 304 costs no read of its record."""
    if state.get("normalizer") == NORMALIZER_VERSION:
        return
    latest = latest or app.store.latest(source.key)
    if latest is not None and NORMALIZER_VERSION not in app.store.normalized_forms(latest):
        latest_identity(app, source, state, latest, NORMALIZER_VERSION)  # read once: a page no longer read
    state["normalizer"] = NORMALIZER_VERSION  # so is kept as it was (differ renormalize names it)


def _translations(state: dict[str, Any], named: list[tuple[str, str]]) -> None:
    """Keep the translations a canonical page names (`hreflang`) in its state, for `differ sources` and the
    reports site: a link in the page's head is not in its Markdown, so a new one makes no new version."""
    if named:
        state["translations"] = [[language, url] for language, url in named]
    else:
        state.pop("translations", None)


def _anomaly(app: App, normalized: Normalized, previous_words: int) -> str | None:
    if not normalized.markdown.strip():
        return normalized.warnings[0] if normalized.warnings else "content is empty"
    share = app.config.service.shrink_threshold
    if previous_words and normalized.words < previous_words * (1 - share):
        lost = 1 - normalized.words / previous_words
        return f"content shrank by {lost:.0%} ({previous_words} → {normalized.words} words)"
    return None


def _unchanged(
    app: App,
    source: SourceConfig,
    state: dict[str, Any],
    before: dict[str, Any],
    entry: dict[str, Any],
    started: float,
    response: Response,
    why: str,
) -> CheckResult:
    entry["outcome"] = "unchanged"
    entry["detail"] = why
    _finish(app, source.key, state, before, entry, started, response)
    return CheckResult(source.key, "unchanged", why)


def _finish(
    app: App,
    key: str,
    state: dict[str, Any],
    before: dict[str, Any],
    entry: dict[str, Any],
    started: float,
    response: Response,
    *,
    keep_validators: bool = True,
) -> None:
    entry["duration_ms"] = round((app.monotonic() - started) * 1000, 1)
    recovered = state.get("failures", 0)
    state.update(last_check=entry["at"], failures=0, last_outcome=entry["outcome"])
    if entry["outcome"] != "held":  # the page is itself again: an anomaly streak is over
        state.pop("pending", None)
        state.pop("pending_since", None)
    state.pop("retry_not_before", None)
    if recovered:  # owed until the recovery is in the outbox (_after takes it out then), after any earlier
        # streak's that a check which died before queueing it still owes
        since = state.pop("failing_since", None)
        earlier = owed_recoveries(state)
        state.pop("recovered_after", None)
        state.pop("recovered_since", None)
        state["recoveries"] = [*earlier, {"failures": recovered, **({"since": since} if since else {})}]
    if entry["outcome"] == "new":
        state["last_change"] = entry["at"]
    if response.moved:  # said until url is updated
        state["moved"] = response.moved
    else:
        state.pop("moved", None)
    if keep_validators:
        state["url"] = entry["url"]
        if response.status != 304:
            state["etag"] = response.header("etag")
            state["last_modified"] = response.header("last-modified")
            state["body_sha256"] = entry.get("body_sha256")
            if vary := keyed_by(response):
                state["vary"] = vary
            else:
                state.pop("vary", None)
    app.store.log_fetch(key, entry)
    if _without_time(state) != _without_time(before):
        app.store.save_state(key, state)


def _waited(entry: dict[str, Any], seconds: float) -> None:
    """Log the part of a check's time spent waiting for the host's turn, so a slow check is not blamed on
    the host."""
    if seconds > 0:
        entry["waited_ms"] = round(seconds * 1000, 1)


def _without_time(state: dict[str, Any]) -> dict[str, Any]:
    """A source's state but for the time of its last check. A check that changes nothing else does not write
    the state, since the fetch log has that time: an unchanged page costs one durable write instead of three."""
    return {k: v for k, v in state.items() if k != "last_check"}


def _failed(
    app: App,
    source: SourceConfig,
    state: dict[str, Any],
    entry: dict[str, Any],
    started: float,
    message: str,
    *,
    status: int | None = None,
    retry_after: float | None = None,
    now: datetime,
) -> CheckResult:
    entry.update(outcome="failed", error=message, duration_ms=round((app.monotonic() - started) * 1000, 1))
    if status is not None:
        entry["status"] = status
    if not state.get("failures"):
        state["failing_since"] = entry["at"]  # the streak's start: its alert's id, however often it is queued
    state.update(
        last_check=entry["at"],
        failures=state.get("failures", 0) + 1,
        last_error=message,
        last_outcome="failed",
    )
    if retry_after:
        state["retry_not_before"] = iso(datetime.fromtimestamp(now.timestamp() + retry_after, now.tzinfo))
    app.store.log_fetch(source.key, entry)
    app.store.save_state(source.key, state)
    return CheckResult(source.key, "failed", message)


def unfinished(
    app: App,
    source: SourceConfig,
    message: str,
    entry: dict[str, Any] | None = None,
    started: float | None = None,
) -> CheckResult:
    """A check that could not finish (a damaged file of the source's history, a fault of differ's) counts as
    a failed one: logged (with what its fetch got, as far as it went: `entry`), its streak in the source's
    state, alerted as `fetch_failing` after `fail_after` checks, like a page that cannot be fetched. Nothing read
    from the store is needed to say so."""
    now = app.now()
    entry = {"at": iso(now), "url": SOURCE_KINDS[source.kind].fetch_url(source), **(entry or {})}
    for field in ("outcome", "detail", "version"):  # a line the check had begun to fill in for another ending
        entry.pop(field, None)
    started = app.monotonic() if started is None else started
    try:
        return _failed(app, source, app.store.state(source.key), entry, started, message, now=now)
    except (StoreDamage, OSError):  # the state or the log cannot be written either: said, not kept
        return CheckResult(source.key, "failed", message)


def check(
    app: App, sources: Iterable[SourceConfig], *, on_result: Callable[[CheckResult], None] | None = None
) -> list[CheckResult]:
    """Check sources concurrently, each free worker taking the next source whose host is free (`Turns`; the
    fetcher keeps the delays between requests); results in the given order."""
    chosen = list(sources)
    with app.store.writing():  # creates the store under the lock
        pass
    app.fetcher.keep_robots(app.store.robots_files())  # robots.txt once a day per host, even from cron
    results: list[CheckResult | None] = [None] * len(chosen)

    def run(index: int) -> None:
        source = chosen[index]
        try:
            results[index] = check_source(app, source)
        except Exception as exc:  # one source's damage, refused file or fault: the others are checked
            results[index] = unfinished(app, source, app.why(exc))

    workers = max(1, min(app.config.service.workers, len(chosen)))
    if workers == 1:
        for i in range(len(chosen)):
            run(i)
            if on_result:
                on_result(results[i])  # type: ignore[arg-type]
    else:
        turns = Turns([fetch_host(s) for s in chosen], app.config.service.per_host_connections)
        finished = threading.Condition()

        def work() -> None:
            while (turn := turns.take()) is not None:
                try:
                    run(turn)
                except BaseException:
                    turns.stop()  # the store is unavailable: no use starting on the others
                    raise
                finally:
                    turns.done(turn)
                    with finished:
                        finished.notify_all()

        def arrived(i: int) -> Callable[[], bool]:
            return lambda: results[i] is not None or turns.stopped

        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="check") as pool:
            threads = [pool.submit(work) for _ in range(workers)]
            try:
                for i in range(len(chosen)):  # in the given order, each as soon as it and those before are in
                    with finished:
                        finished.wait_for(arrived(i))
                    if results[i] is None:
                        break  # a worker stopped: what stopped it is raised below
                    if on_result:
                        on_result(results[i])  # type: ignore[arg-type]
            except BaseException:
                turns.stop()  # Ctrl-C: the checks under way finish their writes, no new one starts
                from differ.fetch.command import stop_all

                stop_all()  # and a check waiting on a program (a browser) does not wait for it
                raise
            for thread in threads:
                thread.result()
    done = [r for r in results if r is not None]
    _after(app, chosen, done)
    return done


def _documents(keys: Iterable[Any]) -> set[str]:
    """The documents of source keys (`DOCUMENT/SOURCE`)."""
    return {str(key).split("/", 1)[0] for key in keys}


def _after(app: App, sources: list[SourceConfig], results: list[CheckResult]) -> None:
    """Turn results into events (changes, failures, recoveries, mirror drift) and hand them to the notifiers."""
    from differ import notify

    events: list[dict[str, Any]] = []
    heads: list[tuple[SourceConfig, int, dict[str, Any]]] = []
    for source, result in zip(sources, results, strict=True):
        state = app.store.state(source.key)
        with app.carry_on(f"{source.key}: new posts not followed"):  # followed by the next check
            result.followed = follow(app, source, result, state)
        if result.followed and result.event is not None:  # its alert says so
            result.event["followed"] = [post["source"] for post in result.followed]
        made: list[dict[str, Any]] | None = None
        with app.carry_on(f"{source.key}: alerts not made"):
            latest = app.store.latest_number(source.key)
            made = missed_events(app, source, result.event, latest=latest, state=state)
        if made is None:  # the versions it owes stay owed, for the next check to make
            events.extend([result.event] if result.event else [])
        else:
            events.extend(made)
            heads.append((source, latest, state))
        events.extend(streak_events(app, source, state, result.detail if result.failed else None))
        with app.carry_on(f"{source.key}: translations not told"):  # told by the next check
            if source.role == "canonical" and (found := translations_found(app, source, state)):
                events.append(found)
        if move := moved_event(app, source, state):  # told once an address
            events.append(move)
    changed_docs = _documents(r.source for r in results if r.outcome == "new")
    checked_docs = _documents(r.source for r in results)
    audits: dict[str, Any] = {}
    mirrored = any(app.config.document(doc).mirrors for doc in checked_docs)
    if mirrored:
        from differ.audited import audits_due  # light: the audit engine loads when an audit is due

        audited = set(changed_docs)
        with app.carry_on("audits due not looked for"):  # those that changed are audited; the rest next time
            audited |= audits_due(app, checked_docs - changed_docs)
        if audited:
            from differ.audit.report import audit_after_check

            drift, audits = audit_after_check(app, audited)
            events.extend(drift)
    unqueued = notify.dispatch(app, events, deliver_now=False)
    with app.carry_on("pages not caught up"):  # an archive's copies of pages watched before it: next check
        notify.catch_up(app, [(source, latest) for source, latest, _ in heads])
    # The events are in the outbox now: a crash from here on loses none. What owed them is settled only
    # below, so a process that dies before that leaves them owed to the next check (queued again as the
    # same messages), and its feeds and pages to be written again; so does an event a destination could
    # not queue (a fault in making its message).
    owing = {e.get("source") for e in unqueued} | {e.get("document") for e in unqueued}
    if mirrored:
        from differ.audited import remember_audits

        remember_audits(app, {doc: audit for doc, audit in audits.items() if doc not in owing})
    missed = _documents(e["source"] for e in events if e["type"] in VERSION_EVENTS)
    for document in sorted(changed_docs | missed):  # once per document, versions a crash kept included
        with app.carry_on(f"{document}: feed not written"):
            write_feed(app.store, app.config.document(document), app.config.service.base_url)
    fetching = _documents(e["source"] for e in events if e["type"] in ("fetch_failing", "recovered"))
    renamed = _documents(r.source for r in results if r.translations)
    write_site(app, changed_docs | missed | fetching | renamed)
    for source, latest, state in heads:
        if source.key in owing:
            continue
        notified = notified_up_to(state, first_wanted(app, source))
        owed = {"notified": latest} if latest and notified != latest else {}
        told = state.get("translations", []) != state.get("translations_told", [])
        moved = state.get("moved") != state.get("moved_told")
        if owed or told or moved or owed_recoveries(state):
            state.update(owed)
            for field in ("recovered_after", "recovered_since", "recoveries"):
                state.pop(field, None)
            if told:  # the translations named are told, whether or not a notifier asks for them
                state["translations_told"] = state.get("translations", [])
            if moved and state.get("moved"):  # so is where a page moved
                state["moved_told"] = state["moved"]
            elif moved:  # and, its url updated, that it is where it is watched
                state.pop("moved_told", None)
            # not saved, its alerts are queued again by the next check: the same messages, not sent twice
            with app.carry_on(f"{source.key}: alerts not marked queued"):
                app.store.save_state(source.key, state)
    delivered = notify.deliver(app)
    with app.carry_on("reports not written"):  # written again with the next version
        after_delivery(app, delivered)
