"""The handlers behind the `differ` commands that fetch, check, serve or send (records.py and history.py have
those that read the record, overview.py `differ sources`, configure.py those that edit config.toml); each prints
to `app.out` and returns an exit code."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from differ.app import App, iso
from differ.cli import command
from differ.errors import DifferError, ExitCode, FetchError, NormalizeError, StoreDamage, UsageError
from differ.options import listed, plural
from differ.records import moment

if TYPE_CHECKING:
    from collections.abc import Callable

    from differ.checked import CheckResult
    from differ.compare import Read
    from differ.config import SourceConfig
    from differ.fetch import Response
    from differ.notify import Outbox


@command("check")
def cmd_check(app: App, args: argparse.Namespace) -> int:
    from differ.check import check
    from differ.checked import CheckResult

    sources, paused = app.config.to_check(args.sources)
    if not sources and not paused:
        raise UsageError(f"{app.config.path.name} configures no sources; add a [[documents]] entry")
    as_json = args.format == "json"
    for source in paused if not args.quiet and not as_json else ():
        print(f"{source.key}: paused", file=app.out)
    waiting: list[CheckResult] = []
    if args.due:
        from differ.health import not_due

        waiting = [CheckResult(s.key, "not_due", said) for s in sources if (said := not_due(app, s))]
        sources = [s for s in sources if s.key not in {r.source for r in waiting}]
        for result in waiting if not args.quiet and not as_json else ():
            print(result.line(), file=app.out)
    tty = app.err.isatty() and len(sources) > 1
    done = 0

    def show(result: CheckResult) -> None:
        nonlocal done
        done += 1
        if tty:
            app.err.write("\r\033[K")
        if not (args.quiet and result.quiet) and not as_json:
            print(result.line(), file=app.out, flush=True)
        if tty and done < len(sources):
            app.err.write(f"[{done}/{len(sources)}] checking…")
            app.err.flush()

    results = check(app, sources, on_result=show) if sources else []
    for result in results if not as_json else ():
        if result.followed:  # once the check's alerts are made: the new posts of followed feeds
            print(result.follow_line(), file=app.out)
    results += _followed_now(app, results, show)
    if as_json:
        every = [CheckResult(s.key, "paused") for s in paused] + waiting + results
        shown = [r.as_json() for r in every if not (args.quiet and (r.quiet or r.outcome == "paused"))]
        if shown or not args.quiet:  # with -q, nothing at all when nothing needs attention
            out = {"schema": "differ.check/1", "results": shown}
            app.out.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    if not sources and not waiting:  # a pass that found every page checked in time is a watcher at work
        return ExitCode.OK
    if app.config.service.heartbeat:
        from differ.health import beat

        said = beat(app)
        if said != "sent":
            print(f"differ: heartbeat {said}", file=app.err)
    return ExitCode.FAILURE if any(r.failed for r in results) else ExitCode.OK


def _followed_now(
    app: App, results: list[CheckResult], show: Callable[[CheckResult], None]
) -> list[CheckResult]:
    """The new posts followed feeds added to the configuration, checked now: their first version is the post as
    it was found, so an edit made before the next check is one too (`differ run` checks them when it reads the
    file again)."""
    from differ.check import check

    keys = [post["source"] for result in results for post in result.followed]
    if not keys or app.reload is None:
        return []
    with app.carry_on("new posts checked at the next check"):
        app.config = replace(app.reload(), service=app.config.service)
        return check(app, [app.config.source(key) for key in keys], on_result=show)
    return []


@command("run")
def cmd_run(app: App, args: argparse.Namespace) -> int:
    from differ.schedule import run_service

    return run_service(app, quiet=args.quiet)


@command("status")
def cmd_status(app: App, args: argparse.Namespace) -> int:
    from differ.health import health, render

    found = health(app)
    if args.format == "json":
        said = json.dumps(found.as_json(), ensure_ascii=False, indent=2) + "\n"
    elif args.format == "prometheus":
        from differ.metrics import exposition

        said = exposition(app, found)
    else:
        said = render(found)
    if args.output is None:
        app.out.write(said)
    else:
        from differ.metrics import publish

        try:
            publish(args.output, said)
        except OSError as exc:
            raise UsageError(f"{args.output}: cannot write: {exc.strerror or exc}") from None
    if args.format == "prometheus":  # read by an agent: the problems are in differ_ok and differ_problems
        return ExitCode.OK
    return ExitCode.OK if found.ok else ExitCode.FAILURE


@command("kinds")
def cmd_kinds(app: App, args: argparse.Namespace) -> int:
    from differ.config.loader import notifier_options
    from differ.config.model import SOURCE_OPTIONS
    from differ.normalize import SOURCE_KINDS, describe
    from differ.notify import NOTIFIERS

    width = max(map(len, [*SOURCE_KINDS, *NOTIFIERS])) + 1  # the descriptions in one column
    print("source kinds:", file=app.out)
    for name, kind in sorted(SOURCE_KINDS.items()):
        opts = ", ".join(sorted(kind.options)) or "-"
        print(f"  {name:{width}} {describe(kind)}  (options: {opts})", file=app.out)
    print(f"  every source also takes: {', '.join(sorted(SOURCE_OPTIONS))}", file=app.out)
    print("notifiers:", file=app.out)
    for name, notifier in sorted(NOTIFIERS.items()):
        doc = (notifier.__doc__ or "").strip().splitlines()[0]
        print(f"  {name:{width}} {doc}  (options: {', '.join(sorted(notifier.options))})", file=app.out)
    common = sorted(set(notifier_options()) - {"name", "kind"})
    print(f"  every notifier also takes: {', '.join(common)}", file=app.out)
    return ExitCode.OK


@command("fetch")
def cmd_fetch(app: App, args: argparse.Namespace) -> int:
    from differ import health
    from differ.check import build_request, fetch_failure, watch_so
    from differ.versions import read_response

    source = app.config.source(args.source)
    request = build_request(source, {})
    try:
        response = app.fetcher.fetch(request)
    except FetchError as exc:
        said = fetch_failure(exc, request, source)
        if said == str(exc):
            raise
        raise FetchError(said, status=exc.status) from exc
    try:
        result = read_response(app, source, response)
    except NormalizeError as exc:
        if not exc.read_with:
            raise
        raise NormalizeError(str(exc) + watch_so(source, exc)) from exc
    print(
        f"<!-- {source.key}: {_how_fetched(response)}, {len(response.body)} bytes, {result.words} words, "
        + (f"{result.ignored} matches of ignore left out, " if source.ignore else "")
        + (f"read from {result.root}, " if result.root else "")
        + "".join(f"the page names a feed <{feed}>, " for feed in result.feeds[:1])
        + f"metadata {json.dumps(result.metadata, ensure_ascii=False)} -->",
        file=app.err,
    )
    for warning in result.warnings:
        print(f"<!-- warning: {warning} -->", file=app.err)
    for note in (
        _platform_note(source, result.generator),
        _language_note(app, source, result.markdown),
        _translations_note(app, source, result.translations),
        health.moved(response.moved, source.key) if response.moved else "",
    ):
        if note:
            print(f"<!-- note: {note} -->", file=app.err)
    app.out.write(result.markdown)
    return ExitCode.OK


def _how_fetched(response: Response) -> str:
    """`HTTP 200`, or for a page a program printed, the program (`printed by chromium`)."""
    if response.command:
        return f"printed by {response.command[0].rsplit('/', 1)[-1]}"
    return f"HTTP {response.status}"


def _platform_note(source: SourceConfig, generator: str) -> str | None:
    """For a WordPress page read whole (no selector), the kind that reads the post itself through the site's
    REST API, without the theme around it: what the page would change with, short of the post. For a Discourse
    topic's page, which carries its replies, the command that reads its first post alone."""
    from differ.normalize.platforms import DiscourseKind

    if DiscourseKind.topic_page(source, generator):
        return (
            f"differ set {source.key} kind=discourse reads the topic's first post alone, through the "
            "forum's API, as its page shows it"
        )
    if source.kind != "html" or source.option("selector") or not generator.lower().startswith("wordpress"):
        return None
    return (
        f"the page is made by {generator.split()[0]}: differ set {source.key} kind=wordpress reads the post "
        "itself through the site's REST API, without the theme around it (or selector=… the element it is in)"
    )


def _translations_note(app: App, source: SourceConfig, translations: list[tuple[str, str]]) -> str | None:
    """For a canonical page, the translations it names (`hreflang`) that are not its document's mirrors yet,
    and how to add one: where a watcher of a post first learns where its translations are."""
    if source.role != "canonical":
        return None
    doc = app.config.document(source.document)
    new = doc.unwatched(translations)
    if not new:
        return None
    named = listed([f"{language} <{url}>" for language, url in new], 5)
    return (
        f"the page names {plural(len(new), 'translation')} not watched yet: {named}; "
        f"differ add URL --to {doc.id} audits one as a mirror of it"
    )


def _language_note(app: App, source: SourceConfig, markdown: str) -> str | None:
    """For a mirror, what its audit will say of its languages against the canonical's latest version: seen
    first where a mirror is tried, right after `differ add --to`."""
    from differ.audit.language import language_note
    from differ.diff.blocks import split_blocks

    if source.role != "mirror" or source.translation is not None:  # none when the file says what it is
        return None
    latest = app.store.latest(app.config.document(source.document).canonical.key)
    if latest is None:
        return None
    canonical = split_blocks(app.store.markdown(latest))
    return language_note(canonical, split_blocks(markdown), 'languages = ["{}"] on it', source.languages)


@command("backfill")
def cmd_backfill(app: App, args: argparse.Namespace) -> int:
    """Each source named in turn (a DOCUMENT names all its sources; one differ has fetched itself is then
    passed over with its reason). Exit 1 when the archive had captures of one and none could be read, or when
    it asked to wait."""
    from differ.backfill import fetched_itself, run

    sources = app.config.select([args.source])
    since = moment(args.since, start=True, what="a time") if args.since else None
    until = moment(args.until, what="a time") if args.until else None
    code = ExitCode.OK
    for source in sources:
        latest = app.store.latest(source.key)
        if len(sources) > 1 and latest is not None and fetched_itself(latest):
            print(
                f"{source.key}: passed over: differ has fetched it itself (version {latest.number})",
                file=app.out,
            )
            continue
        steps = run(
            app,
            source,
            app.out,
            archive=args.archive,
            since=since,
            until=until,
            limit=args.limit,
            every=args.every,
            dry_run=args.dry_run,
        )
        unread = steps and all(s.outcome in ("failed", "stopped") for s in steps)
        if unread or (steps and steps[-1].outcome == "stopped"):
            code = ExitCode.FAILURE
    return code


@command("compare")
def cmd_compare(app: App, args: argparse.Namespace) -> int:
    """Like diff(1): exit 0 when both read the same (or, with --audit, the copy is faithful), 1 when they
    differ, 2 when one cannot be read."""
    from differ.compare import audit, compare, is_url, parse_settings, read_side, render_audit
    from differ.diff import render
    from differ.normalize import SOURCE_KINDS
    from differ.options import Invalid, finding_list, found, not_one_of
    from differ.records import narrowed, narrowing

    if args.kind is not None and args.kind not in SOURCE_KINDS:
        raise UsageError(f"--kind: {not_one_of(args.kind, sorted(SOURCE_KINDS))}")
    settings = parse_settings(args.set)
    if args.old == args.new == "-":
        raise UsageError("only one side can be read from standard input (-)")
    if args.audit and args.format == "unified":
        raise UsageError("--format unified is a diff's; an audit is text, markdown, json or html")
    if args.audit and (flag := narrowing(args)):
        raise UsageError(f"{flag} narrows a diff; an audit reads the whole copy")
    translation = settings.pop("translation", None)  # how the copy is audited, not how a side is read
    if translation is not None and not args.audit:
        raise UsageError("--set translation: only an audit reads a copy as a translation; add --audit")
    if translation is not None and not isinstance(translation, bool):
        raise UsageError(f"--set translation: expected true or false, found {found(translation)}")
    accept: tuple[str, ...] = ()  # the copy's findings made on purpose, as a mirror's `accept`
    if "accept" in settings:
        if not args.audit:
            raise UsageError("--set accept: only an audit has findings to accept; add --audit")
        try:
            accept = finding_list(settings.pop("accept"))
        except Invalid as exc:
            raise UsageError(f"--set accept: {exc}")
    sides: list[Read] = []
    for spec, label in ((args.old, "old"), (args.new, "new")):
        # In an audit `languages` says which blocks of the copy to compare, as a mirror's does; the canonical
        # is read whole.
        taken = (
            {k: v for k, v in settings.items() if k != "languages"}
            if args.audit and label == "old"
            else settings
        )
        # Two files are read against the first's address: a link written alike in both (`#notes`,
        # `img/chart.png`) is the same link, wherever the two copies are kept.
        base = sides[0].body.url if sides and not is_url(args.old) and not is_url(spec) else None
        try:
            sides.append(read_side(app, spec, label, args.kind, taken, base))
        except DifferError as exc:  # whatever went wrong, a side that cannot be read exits 2, as in diff(1)
            message = str(exc)
            raise UsageError(message if message.startswith(spec) else f"{spec}: {message}") from exc
    # How reading fell short, as `differ fetch` says it (on stderr: the output stays the diff).
    for side in sides:
        for warning in side.normalized.warnings:
            print(f"warning: {side.name}: {warning}", file=app.err)
    if args.audit:
        report = audit(sides[0], sides[1], translation, accept)
        app.out.write(render_audit(report, args.format))
        return ExitCode.FAILURE if report.mirrors[0].findings else ExitCode.OK
    d, versions = compare(*sides)
    d = narrowed(d, args, app.err)
    color = args.format == "text" and not args.no_color and app.out.isatty()
    app.out.write(render(d, versions, args.format, color=color))
    return ExitCode.FAILURE if len(d) else ExitCode.OK


@command("renormalize")
def cmd_renormalize(app: App, args: argparse.Namespace) -> int:
    """Each version without this normalizer's form read again from its raw body; one that does not read as the
    source is set now (a selector that matches nothing on an older layout) keeps the forms it has, is named with
    why (a line a source), and the others are done all the same: exit 1 when any was left."""
    from differ.normalize import NORMALIZER_VERSION
    from differ.versions import read_version

    made = 0
    left: dict[str, dict[str, list[int]]] = {}  # by source, why, the versions
    for source in app.config.select(args.sources):
        for v in app.store.versions(source.key):
            if NORMALIZER_VERSION in app.store.normalized_forms(v):
                continue
            try:
                markdown = read_version(app, source, v).markdown
            except NormalizeError as exc:
                # the cause, alike for every version it keeps (not each one's hint)
                why = str(exc).split("; ")[0]
                left.setdefault(source.key, {}).setdefault(why, []).append(v.number)
                app.store.kept_as_read(v, NORMALIZER_VERSION, why)
                continue
            app.store.add_normalized(v, NORMALIZER_VERSION, markdown)
            made += 1
    print(
        f"renormalized {plural(made, 'version')} with normalizer {NORMALIZER_VERSION}",
        file=app.out,
    )
    for key, reasons in left.items():
        for why, numbers in reasons.items():
            print(f"{key}: {listed_versions(numbers)} kept as read before: {why}", file=app.err)
    return ExitCode.FAILURE if left else ExitCode.OK


def listed_versions(numbers: list[int]) -> str:
    """`version 3`, `versions 1–4`, `versions 1, 3, 5–7`: runs of numbers in a row as ranges."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    spans = [f"{r[0]}–{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs]
    return f"version{'s' if len(numbers) > 1 else ''} {', '.join(spans)}"


@command("notify")
def cmd_notify(app: App, args: argparse.Namespace) -> int:
    from differ.notify import send_test

    if args.notify_command not in ("test", "check", "preview"):
        raise UsageError("usage: differ notify test [NAME] | check [NAME] | preview SOURCE")
    if not app.config.notifiers:
        raise UsageError(f"{app.config.path.name} configures no [[notify]] destinations")
    if args.name:
        app.config.notifier(args.name)  # one that is not configured: a usage error naming those that are
    if args.notify_command == "preview":
        return _preview(app, args)
    if args.notify_command == "check":
        from differ.notify import probe

        probes = probe(app, args.name)
        for p in probes:
            state = "ok" if p.ok else "not asked" if p.ok is None else "not ok"
            print(f"{p.notifier}: {state}: {p.detail}", file=app.out)
        return ExitCode.FAILURE if any(p.ok is False for p in probes) else ExitCode.OK
    attempts = send_test(app, args.name)
    for a in attempts:
        print(f"{a.notifier}: {'sent' if a.ok else 'not sent: ' + a.detail}", file=app.out)
    return ExitCode.OK if all(a.ok for a in attempts) else ExitCode.FAILURE


def _preview(app: App, args: argparse.Namespace) -> int:
    """`differ notify preview`: each destination's message for a change, as JSON, or why it gets none."""
    from differ.events import change_event
    from differ.records import named_version, versions_named
    from differ.versions import diff_versions

    source = app.config.source(args.source)
    if args.drift:
        event = _drift_now(app, source)
        if event is None:
            print(f"{source.key}: no finding, so no drift alert", file=app.out)
            return ExitCode.OK
        print(f"{source.key}: a mirror_drift alert, as its findings stand now", file=app.out)
        _print_previews(app, event, args.name)
        return ExitCode.OK
    if (
        args.a is None and named_version(app, source.key, args.b).number == 1
    ):  # no change: the first version's own
        from differ.events import first_event

        event = first_event(app, source, app.store.version(source.key, 1))
        event["at"] = event["queued_at"] = event["version"]["fetched_at"]
        print(
            f"{source.key} version 1: a first_version alert, for a destination that asks for it", file=app.out
        )
        _print_previews(app, event, args.name)
        return ExitCode.OK
    old, new = versions_named(app, source.key, args.a, args.b)
    d = diff_versions(app.store, old, new, app=app, source=source)
    if d.empty:
        print(f"{source.key} version {old.number} → {new.number}: no change, so no alert", file=app.out)
        return ExitCode.OK
    event = change_event(app, source, old, new, d)
    event["at"] = event["queued_at"] = new.fetched_at
    print(f"{source.key} version {old.number} → {new.number}: a {event['type']} alert", file=app.out)
    _print_previews(app, event, args.name)
    return ExitCode.OK


def _drift_now(app: App, source: SourceConfig) -> dict[str, Any] | None:
    """The drift event a mirror's findings as they stand now would make (all of them new), or None for none."""
    from differ.audit import audit_document
    from differ.audit.report import drift_event

    if source.role != "mirror":
        raise UsageError(f"--drift: {source.key} is a canonical page; name a mirror (DOCUMENT/MIRROR)")
    doc = app.config.document(source.document)
    report = audit_document(app, doc)
    if source.id in report.unread:
        raise StoreDamage(report.unread[source.id], source.key)
    mirror = next((m for m in report.mirrors if m.id == source.id), None)
    if mirror is None:  # nothing to audit yet
        unread = source.key if report.canonical_version else f"its canonical, {doc.canonical.key},"
        raise UsageError(f"--drift: {unread} has no version yet (run: differ check)")
    if not mirror.findings:
        return None
    event = drift_event(report, mirror, {})
    event["at"] = event["queued_at"] = iso(app.now())
    return event


def _print_previews(app: App, event: dict[str, Any], name: str | None) -> None:
    from differ.notify import preview

    for p in preview(app, event, name):
        if p.body is None:
            print(f"{p.notifier} ({p.kind}): nothing: {p.reason}", file=app.out)
        else:
            print(f"{p.notifier} ({p.kind}):", file=app.out)
            print(json.dumps(p.body, ensure_ascii=False, indent=2), file=app.out)


def _revive(app: App, outbox: Outbox, msg_id: str | None) -> int:
    """Make failed and pending messages (or the one named) due now, each destination's in its turn to send, so
    that none is revived while another process sends it."""
    from differ.notify import COMMAND_WAIT

    revived = 0
    for name in outbox.notifiers():
        with outbox.sending(name, COMMAND_WAIT) as turn:
            if not turn:
                continue
            for msg in outbox.messages(name, "failed") + outbox.messages(name, "pending"):
                if msg_id and msg.id != msg_id:
                    continue
                msg.data["next_attempt"] = "0"
                msg.data["created"] = iso(app.now())
                if msg.state == "failed":
                    outbox.move(msg, "pending")
                else:
                    outbox.update(msg)
                revived += 1
    return revived


def _sent(app: App, outbox: Outbox, name: str | None, count: int) -> int:
    """`differ outbox sent`: each destination's latest deliveries, oldest first: when, what, and the remark on
    it (a bot's message kept, an archive's capture)."""
    if count < 1:
        raise UsageError(f"--count: expected a number of at least 1, found {count}")
    names = [app.config.notifier(name).name] if name else outbox.notifiers()
    shown = 0
    for notifier in names:
        for msg in outbox.messages(notifier, "sent", last=count):
            note = msg.data.get("note")
            print(
                f"{msg.data.get('sent_at', '-'):20}  {notifier:12} {msg.id}  {msg.data.get('type')}  "
                f"{msg.data.get('subject', '')}" + (f"  {note}" if note else ""),
                file=app.out,
            )
            shown += 1
    if not shown:
        print(
            f"nothing delivered {f'to {name} ' if name else ''}yet (or longer ago than keep_sent)",
            file=app.out,
        )
    return ExitCode.OK


@command("outbox")
def cmd_outbox(app: App, args: argparse.Namespace) -> int:
    from differ.notify import COMMAND_WAIT, Outbox, deliver
    from differ.site import after_delivery

    outbox = Outbox(app.store)
    if args.outbox_command == "retry":
        revived = _revive(app, outbox, args.id)
        if args.id and not revived:
            raise UsageError(f'no pending or failed delivery "{args.id}" (see: differ outbox)')
        for name in outbox.notifiers():
            outbox.enable(name)
        attempts = deliver(app, wait=COMMAND_WAIT)
        with app.carry_on("reports not written"):
            after_delivery(app, attempts)
        sent = sum(1 for a in attempts if a.ok)
        failed = sum(1 for a in attempts if not a.ok and a.msg_id)
        print(f"retried {revived}: {sent} delivered, {failed} failed", file=app.out)
        for a in attempts:
            if not a.ok:
                print(f"  {' '.join(filter(None, (a.notifier, a.msg_id)))}: {a.detail}", file=app.out)
        return ExitCode.OK if all(a.ok for a in attempts) else ExitCode.FAILURE
    if args.outbox_command == "sent":
        return _sent(app, outbox, args.name, args.count)
    rows = list(outbox.all())
    if not rows:
        print("outbox empty: nothing pending or failed", file=app.out)
        return ExitCode.OK
    for msg in rows:
        print(
            f"{msg.state:8} {msg.notifier:12} {msg.id}  {msg.data.get('type')}  {msg.data.get('subject', '')}  "
            f"attempts: {msg.data.get('attempts', 0)}  next: {msg.data.get('next_attempt', '-')}  "
            f"last error: {msg.data.get('last_error') or '-'}",
            file=app.out,
        )
    configured = {n.name for n in app.config.notifiers}
    for name in outbox.notifiers():
        off = outbox.disabled(name)
        if off:
            print(f"disabled {name}: {off.get('reason')} (until its configuration changes)", file=app.out)
        waiting = [m for m in rows if m.notifier == name and m.state == "pending"]
        if name not in configured and waiting:
            print(
                f"unsent   {name}: {len(waiting)} pending, but no [[notify]] is named {json.dumps(name)} in "
                f"{app.config.path.name}; they go out when one is again",
                file=app.out,
            )
    return ExitCode.OK
