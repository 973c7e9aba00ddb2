"""The handlers behind each `differ` command; each prints to `app.out` and returns an exit code."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TextIO

from differ import options as opt
from differ.app import App, iso
from differ.cli import command
from differ.config import SourceConfig
from differ.errors import DifferError, ExitCode, FetchError, UsageError
from differ.site import describe, size_text
from differ.store import Version


@command("check")
def cmd_check(app: App, args: argparse.Namespace) -> int:
    from differ.check import check

    sources, paused = app.config.to_check(args.sources)
    if not sources and not paused:
        raise UsageError(f"{app.config.path.name} configures no sources; add a [[documents]] entry")
    for source in paused if not args.quiet else ():
        print(f"{source.key}: paused", file=app.out)
    if not sources:
        return ExitCode.OK
    tty = app.err.isatty() and len(sources) > 1
    done = 0

    def show(result: object) -> None:
        nonlocal done
        done += 1
        if tty:
            app.err.write("\r\033[K")
        if not (args.quiet and result.quiet):  # type: ignore[attr-defined]
            print(result.line(), file=app.out, flush=True)  # type: ignore[attr-defined]
        if tty and done < len(sources):
            app.err.write(f"[{done}/{len(sources)}] checking…")
            app.err.flush()

    results = check(app, sources, on_result=show)
    return ExitCode.FAILURE if any(r.failed for r in results) else ExitCode.OK


@command("run")
def cmd_run(app: App, args: argparse.Namespace) -> int:
    from differ.schedule import run_service

    return run_service(app, quiet=args.quiet)


@command("history")
def cmd_history(app: App, args: argparse.Namespace) -> int:
    from differ.audit import reach_lines

    source = app.config.source(args.source)
    versions = app.store.versions(source.key)
    if args.format == "json":
        app.out.write(json.dumps(_history_json(app, source, versions), ensure_ascii=False, indent=2) + "\n")
        return ExitCode.OK
    rows = [
        (str(v.number), v.fetched_at, v.hash[:12], size_text(int(v.record.get("raw_bytes", 0))), describe(v))
        for v in versions
    ]
    reach = reach_lines(app, source) if source.role == "mirror" else []
    if args.format == "html":
        app.out.write(_history_html(source.key, source.url, rows, reach))
        return ExitCode.OK
    print(f"{source.key}  {source.url}", file=app.out)
    if not versions:
        print("  no versions yet (run: differ check " + source.key + ")", file=app.out)
        return ExitCode.OK
    print(f"  {'#':>3}  {'fetched':20}  {'hash':12}  {'size':>9}  change", file=app.out)
    for number, fetched, digest, size, change in rows:
        print(f"  {number:>3}  {fetched:20}  {digest}  {size:>9}  {change}", file=app.out)
    for line in reach:
        print(line, file=app.out)
    return ExitCode.OK


def _history_json(app: App, source: SourceConfig, versions: Sequence[Version]) -> dict[str, object]:
    """`differ.history/1`: the source and its versions, oldest first; for a mirror, when each canonical edit
    reached it."""
    from differ.audit.report import reach

    out: dict[str, object] = {
        "schema": "differ.history/1",
        "source": source.key,
        "url": source.url,
        "role": source.role,
        "versions": [
            {
                "version": v.number,
                "fetched_at": v.fetched_at,
                "hash": v.hash,
                "raw_bytes": int(v.record.get("raw_bytes", 0)),
                "changes": int(v.record.get("changes", 0)),
                "summary": list(v.record.get("summary") or []),
                **({"warnings": list(v.record["warnings"])} if v.record.get("warnings") else {}),
                **({"archive": dict(v.record["archive"])} if v.record.get("archive") else {}),
            }
            for v in versions
        ],
    }
    if source.role == "mirror":
        out["canonical_edits"] = reach(app, source) or []
    return out


def _history_html(key: str, url: str, rows: Sequence[tuple[str, ...]], reach: list[str]) -> str:
    """A standalone page; every piece of page text is escaped and no script may run."""
    from html import escape as e

    from differ.site import page

    body = "".join("<tr>" + "".join(f"<td>{e(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    notes = "".join(f"<li>{e(line.strip())}</li>" for line in reach[1:])
    return page(
        f"{key} history",
        f"<h1>{e(key)}</h1><p>{e(url)}</p><table><tr><th>#</th><th>Fetched</th><th>Hash</th>"
        f"<th>Size</th><th>Change</th></tr>{body}</table>"
        + (f"<h2>Canonical edits reaching this mirror</h2><ul>{notes}</ul>" if notes else ""),
    )


def _moment(text: str, *, start: bool = False, what: str = "a version number or a time") -> datetime:
    """A time on the command line: ISO 8601, UTC unless it says otherwise; a date alone is the end of that day,
    so `--from 2026-07-07` is what the page said when that day was over (its start, with `start`)."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise UsageError(f'expected {what} such as 2026-07-08 or 2026-07-08T18:00Z, found "{text}"')
    if len(text.strip()) == 10 and not start:
        value += timedelta(days=1, microseconds=-1)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _version(app: App, key: str, which: str | None) -> Version:
    """The version a command names (the latest when none): by number, or the one stored by a time. One the
    store does not hold is a usage error, like a source that is not configured; a record missing inside the
    range is damage (exit 3)."""
    latest = app.store.latest(key)
    if latest is None:
        raise UsageError(f"{key} has no versions yet (run: differ check {key})")
    if which is None:
        return latest
    if not which.strip().isdigit():
        moment = _moment(which)
        found = app.store.version_at(key, moment)
        if found is None:
            first = app.store.version(key, 1)
            raise UsageError(
                f"{key} had no version yet at {iso(moment)} (the first was fetched at {first.fetched_at})"
            )
        return found
    number = int(which)
    if number == latest.number:
        return latest
    if not 1 <= number <= latest.number:
        raise UsageError(f"{key} has no version {number} (versions 1 to {latest.number})")
    return app.store.version(key, number)


@command("log")
def cmd_log(app: App, args: argparse.Namespace) -> int:
    keep = (lambda e: e.get("outcome") in ("failed", "held")) if args.failures else None
    logs = [(s, app.store.recent_fetches(s.key, args.count, keep)) for s in app.config.select(args.sources)]
    if args.format == "json":
        out = {
            "schema": "differ.log/1",
            "sources": [{"source": s.key, "url": s.url, "checks": checks} for s, checks in logs],
        }
        app.out.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return ExitCode.OK
    for s, checks in logs:
        print(f"{s.key}  {s.url}", file=app.out)
        if not checks:
            print(f"  no {'failed ' if args.failures else ''}checks logged", file=app.out)
            continue
        print(
            f"  {'checked':20}  {'status':>6}  {'outcome':9}  {'size':>9}  {'time':>8}  detail", file=app.out
        )
        for e in checks:
            status = e.get("status")
            size = size_text(int(e["bytes"])) if "bytes" in e and status != 304 else "-"
            took = f"{e['duration_ms'] - e.get('waited_ms', 0):.0f} ms" if "duration_ms" in e else "-"
            print(
                f"  {e.get('at', '-'):20}  {status or '-':>6}  {e.get('outcome', '-'):9}  {size:>9}  {took:>8}  "
                + _check_detail(e),
                file=app.out,
            )
    return ExitCode.OK


def _check_detail(entry: Mapping[str, object]) -> str:
    """What a logged check found, in a few words: the version it stored, why nothing changed, or its error."""
    outcome = entry.get("outcome")
    detail = f"version {entry.get('version')}" if outcome == "new" else ""
    detail = detail or str(entry.get("error") or entry.get("detail") or "")
    if entry.get("final_url") and entry.get("final_url") != entry.get("url"):
        detail += f" (redirected to {entry['final_url']})"
    attempts = entry.get("attempts")
    if isinstance(attempts, int) and attempts > 1:
        detail += f" (after {attempts} attempts)"
    waited = entry.get("waited_ms")
    if isinstance(waited, int | float) and waited >= 100:
        detail += f" (waited {waited / 1000:.1f} s for its turn at the host)"
    return detail.strip()


@command("show")
def cmd_show(app: App, args: argparse.Namespace) -> int:
    source = app.config.source(args.source)
    version = _version(app, source.key, args.number)
    if args.raw:
        data = app.store.get_blob(version.raw_sha256)
        app.out.flush()
        buffer = getattr(app.out, "buffer", None)
        if buffer is not None:
            buffer.write(data)
            buffer.flush()
        else:
            app.out.write(data.decode("utf-8", errors="replace"))
        return ExitCode.OK
    app.out.write(app.store.markdown(version))
    return ExitCode.OK


@command("diff")
def cmd_diff(app: App, args: argparse.Namespace) -> int:
    from differ.diff import render
    from differ.versions import diff_versions, version_pair

    source = app.config.source(args.source)
    new = _version(app, source.key, args.b)
    if args.a is None:
        if new.number == 1:
            raise UsageError(f"{source.key} version 1 is the first snapshot; nothing to compare it with")
        old = app.store.version(source.key, new.number - 1)
    else:
        old = _version(app, source.key, args.a)
    d = diff_versions(app.store, old, new, app=app, source=source)
    versions = version_pair(source, old, new)
    color = args.format == "text" and not args.no_color and app.out.isatty()
    app.out.write(render(d, versions, args.format, color=color))
    return ExitCode.OK


@command("audit")
def cmd_audit(app: App, args: argparse.Namespace) -> int:
    from differ.audit import audit_document, render_audit

    docs = [app.config.document(args.document)] if args.document else list(app.config.documents)
    if not docs:
        raise UsageError(f"{app.config.path.name} configures no documents")
    findings = 0
    for doc in docs:
        report = audit_document(app, doc)
        findings += sum(len(m.findings) for m in report.mirrors)
        app.out.write(render_audit(report, args.format))
    return ExitCode.FAILURE if args.exit_code and findings else ExitCode.OK


@command("export")
def cmd_export(app: App, args: argparse.Namespace) -> int:
    from differ.export import export_git, source_keys

    repo = Path(args.dir)
    done = export_git(app.store, repo, source_keys(app.store, args.sources), args.branch, raw=args.raw)
    if done.tip is None:
        if not args.quiet:
            print(f"nothing to export: the store holds no versions yet (run: differ check); {repo} left as it was",
                  file=app.out)  # fmt: skip
        return ExitCode.OK
    if done.new == 0:
        if not args.quiet:
            print(f"{repo}: branch {done.branch} has every version already ({done.versions}), at {done.tip[:12]}",
                  file=app.out)  # fmt: skip
        return ExitCode.OK
    made = "a new git repository, " if done.created else ""
    new = (
        ""
        if done.created
        else " (the branch rewritten: the store's versions changed)"
        if done.new is None
        else (f" ({done.new} new)")
    )
    print(
        f"exported {done.versions} version{'s' if done.versions != 1 else ''} of {done.sources} "
        f"source{'s' if done.sources != 1 else ''}{new} to {made}{repo}: branch {done.branch} at {done.tip[:12]} "
        f"(see git -C {repo} log -p {done.branch})",
        file=app.out,
    )
    return ExitCode.OK


def verify_export(repo: Path, branch: str, out: TextIO) -> int:
    """`differ verify --git DIR`: an exported history checked from git alone."""
    from differ.export import verify_git

    checked = verify_git(repo, branch)
    for problem in checked.problems:
        print(f"damaged: {problem}", file=out)
    state = (
        "ok"
        if not checked.problems
        else f"{len(checked.problems)} problem{'s' if len(checked.problems) != 1 else ''}"
    )
    unchecked = checked.commits - checked.records
    without = (
        f" ({unchecked} without a record: exported without --raw, only their order checked)"
        if unchecked
        else ""
    )
    print(
        f"{repo} {branch}: {checked.commits} versions, {checked.records} records checked{without}: {state}",
        file=out,
    )
    return ExitCode.OK if not checked.problems else ExitCode.FAILURE


@command("verify")
def cmd_verify(app: App, args: argparse.Namespace) -> int:
    report = app.store.verify()
    for note in report.notes:
        print(f"note: {note}", file=app.out)
    for problem in report.problems:
        print(f"damaged: {problem}", file=app.out)
    state = "ok" if report.ok else f"{len(report.problems)} problem{'s' if len(report.problems) != 1 else ''}"
    print(
        f"{app.store.root}: {report.sources} sources, {report.versions} versions, {report.blobs} raw bodies: "
        f"{state}",
        file=app.out,
    )
    return ExitCode.OK if report.ok else ExitCode.FAILURE


@command("sources")
def cmd_sources(app: App, args: argparse.Namespace) -> int:
    from differ.feed import feed_path, feed_url
    from differ.notify import NOTIFIERS

    interval = app.config.service.interval
    base = app.config.service.base_url
    for doc in app.config.documents:
        print(f"{doc.id}  {doc.title}", file=app.out)
        feed = feed_path(app.store, doc.id)
        if feed.is_file():
            print(f"  feed: {feed_url(base, doc.id) if base else feed}", file=app.out)
        for s in doc.sources:
            state = app.store.state(s.key)
            latest = app.store.latest(s.key)
            every = s.interval or interval
            status = "never checked"
            if state.get("last_check"):
                failures = state.get("failures", 0)
                status = f"failing ({failures}): {state.get('last_error')}" if failures else "ok"
            grace = f", stale after {opt.format_duration(s.stale_after)}" if s.stale_after else ""
            when = "paused" if s.paused else f"every {opt.format_duration(every)}"
            print(
                f"  {s.key}  [{s.role}, {s.kind}, {when}{grace}]  {s.url}",
                file=app.out,
            )
            if s.ignore:
                print(f"    ignore: {', '.join(s.ignore)}", file=app.out)
            last = app.store.last_fetch(s.key)  # every check is logged; the state keeps only changes
            checked = (last or {}).get("at") or state.get("last_check", "-")
            print(
                f"    versions: {latest.number if latest else 0}  last check: {checked}  "
                f"last change: {state.get('last_change') or (latest.fetched_at if latest else '-')}  "
                f"state: {status}",
                file=app.out,
            )
    for n in app.config.notifiers:
        target = NOTIFIERS[n.kind](n).target()
        print(
            f"notify {n.name}  [{n.kind}]  {target}  events: {', '.join(n.events)}"
            + (f"  digest: {opt.format_duration(n.digest)}" if n.digest else ""),
            file=app.out,
        )
    return ExitCode.OK


@command("kinds")
def cmd_kinds(app: App, args: argparse.Namespace) -> int:
    from differ.normalize import SOURCE_KINDS, describe
    from differ.notify import NOTIFIERS

    print("source kinds:", file=app.out)
    for name, kind in sorted(SOURCE_KINDS.items()):
        opts = ", ".join(sorted(kind.options)) or "-"
        print(f"  {name:10} {describe(kind)}  (options: {opts})", file=app.out)
    print("notifiers:", file=app.out)
    for name, notifier in sorted(NOTIFIERS.items()):
        doc = (notifier.__doc__ or "").strip().splitlines()[0]
        print(f"  {name:10} {doc}  (options: {', '.join(sorted(notifier.options))})", file=app.out)
    return ExitCode.OK


@command("fetch")
def cmd_fetch(app: App, args: argparse.Namespace) -> int:
    from differ.check import build_request, fetch_failure
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
    result = read_response(app, source, response)
    print(
        f"<!-- {source.key}: HTTP {response.status}, {len(response.body)} bytes, {result.words} words, "
        + (f"{result.ignored} matches of ignore left out, " if source.ignore else "")
        + (f"read from {result.root}, " if result.root else "")
        + f"metadata {json.dumps(result.metadata, ensure_ascii=False)} -->",
        file=app.err,
    )
    for warning in result.warnings:
        print(f"<!-- warning: {warning} -->", file=app.err)
    app.out.write(result.markdown)
    return ExitCode.OK


@command("backfill")
def cmd_backfill(app: App, args: argparse.Namespace) -> int:
    """Each source named in turn (a DOCUMENT names all its sources; one differ has fetched itself is then
    passed over with its reason). Exit 1 when the archive had captures of one and none could be read, or when
    it asked to wait."""
    from differ.backfill import run

    sources = app.config.select([args.source])
    since = _moment(args.since, start=True, what="a time") if args.since else None
    until = _moment(args.until, what="a time") if args.until else None
    code = ExitCode.OK
    for source in sources:
        latest = app.store.latest(source.key)
        if len(sources) > 1 and latest is not None and not latest.record.get("archive"):
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
    from differ.compare import audit, compare, parse_settings, read_side, render_audit
    from differ.diff import render
    from differ.normalize import SOURCE_KINDS

    if args.kind is not None and args.kind not in SOURCE_KINDS:
        raise UsageError(f'--kind: expected one of {", ".join(sorted(SOURCE_KINDS))}, found "{args.kind}"')
    settings = parse_settings(args.set)
    if args.old == args.new == "-":
        raise UsageError("only one side can be read from standard input (-)")
    sides = []
    for spec, label in ((args.old, "old"), (args.new, "new")):
        try:
            sides.append(read_side(app, spec, label, args.kind, settings))
        except DifferError as exc:  # whatever went wrong, a side that cannot be read exits 2, as in diff(1)
            message = str(exc)
            raise UsageError(message if message.startswith(spec) else f"{spec}: {message}") from exc
    if args.audit:
        report = audit(*sides)
        app.out.write(render_audit(report, args.format))
        return ExitCode.FAILURE if report.mirrors[0].findings else ExitCode.OK
    d, versions = compare(*sides)
    color = args.format == "text" and not args.no_color and app.out.isatty()
    app.out.write(render(d, versions, args.format, color=color))
    return ExitCode.FAILURE if len(d) else ExitCode.OK


@command("renormalize")
def cmd_renormalize(app: App, args: argparse.Namespace) -> int:
    from differ.normalize import NORMALIZER_VERSION
    from differ.versions import read_version

    made = 0
    for source in app.config.select(args.sources):
        for v in app.store.versions(source.key):
            if NORMALIZER_VERSION in app.store.normalized_forms(v):
                continue
            app.store.add_normalized(v, NORMALIZER_VERSION, read_version(app, source, v).markdown)
            made += 1
    print(
        f"renormalized {made} version{'s' if made != 1 else ''} with normalizer {NORMALIZER_VERSION}",
        file=app.out,
    )
    return ExitCode.OK


@command("notify")
def cmd_notify(app: App, args: argparse.Namespace) -> int:
    from differ.notify import send_test

    if args.notify_command != "test":
        raise UsageError("usage: differ notify test [NAME]")
    if not app.config.notifiers:
        raise UsageError(f"{app.config.path.name} configures no [[notify]] destinations")
    attempts = send_test(app, args.name)
    for a in attempts:
        print(f"{a.notifier}: {'sent' if a.ok else 'not sent: ' + a.detail}", file=app.out)
    return ExitCode.OK if all(a.ok for a in attempts) else ExitCode.FAILURE


@command("outbox")
def cmd_outbox(app: App, args: argparse.Namespace) -> int:
    from differ.notify import Outbox, deliver

    outbox = Outbox(app.store)
    if args.outbox_command == "retry":
        revived = 0
        for msg in list(outbox.all(("failed", "pending"))):
            if args.id and msg.id != args.id:
                continue
            msg.data["next_attempt"] = "0"
            msg.data["created"] = app.now().strftime("%Y-%m-%dT%H:%M:%SZ")
            if msg.state == "failed":
                outbox.move(msg, "pending")
            else:
                outbox.update(msg)
            revived += 1
        if args.id and not revived:
            raise UsageError(f'no pending or failed delivery "{args.id}" (see: differ outbox)')
        for name in outbox.notifiers():
            outbox.enable(name)
        attempts = deliver(app)
        sent = sum(1 for a in attempts if a.ok)
        print(f"retried {revived}: {sent} delivered, {len(attempts) - sent} failed", file=app.out)
        for a in attempts:
            if not a.ok:
                print(f"  {a.notifier} {a.msg_id}: {a.detail}", file=app.out)
        return ExitCode.OK if sent == len(attempts) else ExitCode.FAILURE
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
    for name in outbox.notifiers():
        off = outbox.disabled(name)
        if off:
            print(f"disabled {name}: {off.get('reason')} (until its configuration changes)", file=app.out)
    return ExitCode.OK
