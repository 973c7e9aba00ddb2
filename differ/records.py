"""The commands that read the record differ keeps: `history`, `log`, `show`, `diff`, `audit`, `export` and
`verify`, and how a command names a version (by number or by time). Each prints to `app.out` and returns an
exit code."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from differ.app import App, iso
from differ.cli import command
from differ.config import SourceConfig
from differ.errors import ExitCode, UsageError
from differ.options import Invalid, heading_list, one_line, word_list
from differ.site import describe, size_text
from differ.store import Version
from differ.titles import source_title

if TYPE_CHECKING:
    from differ.diff import Diff, Versions


@command("history")
def cmd_history(app: App, args: argparse.Namespace) -> int:
    from differ.audit import reach_lines
    from differ.diff.summary import narrowed_to

    if args.source is None:
        return _timeline(app, args)
    source = app.config.source(args.source)
    versions = app.store.versions(source.key)
    since = _since(app, args.since)
    first = next((i for i, v in enumerate(versions) if _stored(v) >= since), len(versions)) if since else 0
    asked = narrowing(args)
    found = (
        _with_changes(app, source, versions[first:], args, versions[first - 1] if first else None)
        if asked
        else {}
    )
    shown = [v for v in versions[first:] if v.number in found] if asked else versions[first:]
    shown = shown[-args.count :] if args.count else shown
    if args.format == "json":
        out = _history_json(app, source, shown, found, args)
        app.out.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return ExitCode.OK
    moved = _new_addresses(versions)
    rows = [
        (
            str(v.number),
            v.fetched_at,
            v.hash[:12],
            size_text(int(v.record.get("raw_bytes", 0))),
            (_changed(found[v.number], _pair(app, source, v)) if asked else describe(v))
            + (f"; url now {moved[v.number]}" if v.number in moved else ""),
        )
        for v in shown
    ]
    reach = reach_lines(app, source) if source.role == "mirror" and not asked else []
    window = versions[first:]
    kept = (
        f"{len(shown)} of {len(window)} version{'s' if len(window) != 1 else ''} with a change "
        + narrowed_to(args.sections or (), args.words or (), args.kinds or ())
        if asked
        else ""
    )
    if since is not None and asked:
        kept += f", stored since {iso(since)}"
    elif since is not None:
        kept = f"{len(shown)} version{'s' if len(shown) != 1 else ''} stored since {iso(since)}"
    if args.format == "html":
        app.out.write(_history_html(source.key, source.url, rows, reach, kept))
        return ExitCode.OK
    print(f"{source.key}  {source.url}", file=app.out)
    if not versions:
        print("  no versions yet (run: differ check " + source.key + ")", file=app.out)
        return ExitCode.OK
    if kept:
        print(f"  {kept}", file=app.out)
        if not shown:
            return ExitCode.OK
    print(f"  {'#':>3}  {'fetched':20}  {'hash':12}  {'size':>9}  change", file=app.out)
    for number, fetched, digest, size, change in rows:
        print(f"  {number:>3}  {fetched:20}  {digest}  {size:>9}  {change}", file=app.out)
    for line in reach:
        print(line, file=app.out)
    return ExitCode.OK


def _since(app: App, text: str | None) -> datetime | None:
    """`--since`: a time (a date alone is that day's start) or a duration before now (`7d`, `12h`)."""
    if text is None:
        return None
    from differ.options import parse_duration

    try:
        return app.now() - timedelta(seconds=parse_duration(text.strip()))
    except Invalid:
        return moment(text, start=True, what="a duration (7d, 12h) or a time")


def _stored(v: Version) -> datetime:
    return datetime.fromisoformat(v.fetched_at.replace("Z", "+00:00"))


def _timeline(app: App, args: argparse.Namespace) -> int:
    """`differ history` without a source: the versions every source stored (since `--since`, or the latest
    `-n`), in the order they were stored: when, which source, and what changed (with `--section`, `--word` or
    `--change`, only the versions with such changes)."""
    from differ.diff.summary import narrowed_to

    if args.format == "html":
        raise UsageError("every source's history is text or JSON; name a SOURCE for its page")
    since = _since(app, args.since)
    count = args.count or (None if since else 20)
    asked = narrowing(args)
    rows: list[tuple[Version, SourceConfig, Diff | None]] = []
    for source in app.config.sources():
        versions = app.store.versions(source.key)
        first = (
            next((i for i, v in enumerate(versions) if _stored(v) >= since), len(versions)) if since else 0
        )
        if count is not None and not asked:
            first = max(first, len(versions) - count)  # no source can give more than the latest `count`
        window = versions[first:]
        found = (
            _with_changes(app, source, window, args, versions[first - 1] if first else None) if asked else {}
        )
        rows += [(v, source, found.get(v.number)) for v in window if not asked or v.number in found]
    rows.sort(key=lambda row: (row[0].fetched_at, row[1].key, row[0].number))
    rows = rows[-count:] if count is not None else rows
    if args.format == "json":
        out: dict[str, object] = {
            "schema": "differ.timeline/1",
            "since": iso(since) if since else None,
            **({"within": list(args.sections)} if args.sections else {}),
            **({"mentioning": list(args.words)} if args.words else {}),
            **({"kinds": list(args.kinds)} if args.kinds else {}),
            "versions": [{"source": source.key, **_version_json(app, source, v, d)} for v, source, d in rows],
        }
        app.out.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return ExitCode.OK
    which = (f" stored since {iso(since)}" if since else "") + (
        " with a change " + narrowed_to(args.sections or (), args.words or (), args.kinds or ())
        if asked
        else ""
    )
    if not rows:
        print(f"no versions{which or ' stored yet (run: differ check)'}", file=app.out)
        return ExitCode.OK
    cut = f" (the latest {count}; -n N for more)" if len(rows) == count and not args.count else ""
    print(f"{len(rows)} version{'s' if len(rows) != 1 else ''}{which}{cut}", file=app.out)
    width = max(len(source.key) for _, source, _ in rows)
    print(f"  {'fetched':20}  {'source':{width}}  {'#':>3}  change", file=app.out)
    for v, source, d in rows:
        said = _changed(d, _pair(app, source, v)) if d is not None else describe(v)
        print(f"  {v.fetched_at:20}  {source.key:{width}}  {v.number:>3}  {said}", file=app.out)
    return ExitCode.OK


def _new_addresses(versions: Sequence[Version]) -> dict[int, str]:
    """The versions fetched from another `url` than the one before (`differ set SOURCE url=…` after a page
    moved), with that address: where the record shows the source was pointed elsewhere."""
    out: dict[int, str] = {}
    for before, v in pairwise(versions):
        url = v.record.get("url")
        if url and before.record.get("url") and url != before.record.get("url"):
            out[v.number] = str(url)
    return out


def _with_changes(
    app: App,
    source: SourceConfig,
    versions: Sequence[Version],
    args: argparse.Namespace,
    before: Version | None = None,
) -> dict[int, Diff]:
    """The versions whose edit (for the first, whose text) has passages under `--section` and with `--word`,
    each with those changes: when a passage came, changed and went, as `git log -S` tells of a string.
    `before`: the version before the first of `versions`, when they do not start at the first."""
    from differ.diff import diff
    from differ.versions import diff_versions

    found: dict[int, Diff] = {}
    for v in versions:
        if before is None:
            whole = diff("", app.store.markdown(v))  # the first version: every block added
        else:
            whole = diff_versions(app.store, before, v, app=app, source=source)
        picked = narrowed(whole, args)
        if picked.changes:
            found[v.number] = picked
        before = v
    return found


def _changed(d: Diff, pair: Versions | None) -> str:
    """A history row for a version a `--section` or `--word` history keeps: how many of its changes (for the
    first version, `pair` None, its passages) are asked for, and the first of them (the author's note only
    when nothing else is)."""
    from differ.diff.summary import around_word, describe, narrowed_to, order, quote
    from differ.site import one_line, shortened

    which, n = narrowed_to(d.within, d.mentioning, d.kinds), len(d.changes) - d.explaining
    if pair is None:
        passage = around_word(d.changes[0].after or "", d.mentioning)
        return shortened(f"first snapshot: {n} passage{'s' if n != 1 else ''} {which}: {quote(passage, 200)}")
    said = f"{n} change{'s' if n != 1 else ''} {which}" + (f" ({d.left_out} elsewhere)" if d.left_out else "")
    noted = order(d.changes)
    change = next((c for c, note in noted if not note), noted[0][0])
    return shortened(f"{said}: {one_line(describe(change))}")


def _pair(app: App, source: SourceConfig, v: Version) -> Versions | None:
    """A version and the one before it, as summaries name them (None for the first)."""
    from differ.versions import version_pair

    if v.number == 1:
        return None
    return version_pair(source, app.store.version(source.key, v.number - 1), v, source_title(app, source))


def _history_json(
    app: App,
    source: SourceConfig,
    versions: Sequence[Version],
    found: Mapping[int, Diff],
    args: argparse.Namespace,
) -> dict[str, object]:
    """`differ.history/1`: the source and its versions, oldest first; for a mirror, when each canonical edit
    reached it. With `--section` or `--word`, only the versions with such changes, each with those changes'
    summary and how many it left out."""
    from differ.audit.report import reach

    out: dict[str, object] = {
        "schema": "differ.history/1",
        "source": source.key,
        "url": source.url,
        "role": source.role,
        **({"within": list(args.sections)} if args.sections else {}),
        **({"mentioning": list(args.words)} if args.words else {}),
        **({"kinds": list(args.kinds)} if args.kinds else {}),
        "versions": [_version_json(app, source, v, found.get(v.number)) for v in versions],
    }
    if source.role == "mirror" and not narrowing(args):
        out["canonical_edits"] = reach(app, source) or []
    return out


def _version_json(app: App, source: SourceConfig, v: Version, d: Diff | None) -> dict[str, object]:
    """A version as `differ.history/1` lists it; `d`: its changes a `--section`, `--word` or `--change` keeps,
    when one was given (the first version's: its passages)."""
    from differ.diff import summarize

    if d is None:
        changes: dict[str, object] = {
            "changes": int(v.record.get("changes", 0)),
            "summary": list(v.record.get("summary") or []),
        }
    elif (pair := _pair(app, source, v)) is None:
        changes = {"changes": 0, "summary": [], "passages": len(d.changes)}
    else:
        changes = {
            "changes": len(d.changes) - d.explaining,
            "summary": summarize(d, pair),
            "left_out": d.left_out,
        }
    return {
        "version": v.number,
        "fetched_at": v.fetched_at,
        "hash": v.hash,
        "raw_bytes": int(v.record.get("raw_bytes", 0)),
        "url": v.record.get("url"),
        **changes,
        **({"warnings": list(v.record["warnings"])} if v.record.get("warnings") else {}),
        **({"archive": dict(v.record["archive"])} if v.record.get("archive") else {}),
    }


def _history_html(
    key: str, url: str, rows: Sequence[tuple[str, ...]], reach: list[str], kept: str = ""
) -> str:
    """A standalone page; every piece of page text is escaped and no script may run."""
    from html import escape as e

    from differ.site import page

    body = "".join("<tr>" + "".join(f"<td>{e(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    notes = "".join(f"<li>{e(line.strip())}</li>" for line in reach[1:])
    return page(
        f"{key} history",
        f"<h1>{e(key)}</h1><p>{e(url)}</p>"
        + (f"<p>{e(kept)}</p>" if kept else "")
        + "<table><tr><th>#</th><th>Fetched</th><th>Hash</th>"
        f"<th>Size</th><th>Change</th></tr>{body}</table>"
        + (f"<h2>Canonical edits reaching this mirror</h2><ul>{notes}</ul>" if notes else ""),
    )


def moment(text: str, *, start: bool = False, what: str = "a version number or a time") -> datetime:
    """A time on the command line: ISO 8601, UTC unless it says otherwise; a date alone is the end of that day,
    so `--from 2026-07-07` is what the page said when that day was over (its start, with `start`)."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
        if len(text.strip()) == 10 and not start:
            value += timedelta(days=1, microseconds=-1)
        value = value if value.tzinfo else value.replace(tzinfo=UTC)
        value.astimezone(UTC)  # a time that is before year 1 or after 9999 in UTC cannot be compared
    except (ValueError, OverflowError):
        raise UsageError(f'expected {what} such as 2026-07-08 or 2026-07-08T18:00Z, found "{text}"') from None
    return value


def _version(app: App, key: str, which: str | None) -> Version:
    """The version a command names (the latest when none): by number, or the one stored by a time. One the
    store does not hold is a usage error, like a source that is not configured; a record missing inside the
    range is damage (exit 3)."""
    latest = app.store.latest(key)
    if latest is None:
        raise UsageError(f"{key} has no versions yet (run: differ check {key})")
    if which is None:
        return latest
    if not which.strip().isdecimal():
        when = moment(which)
        found = app.store.version_at(key, when)
        if found is None:
            first = app.store.version(key, 1)
            raise UsageError(
                f"{key} had no version yet at {iso(when)} (the first was fetched at {first.fetched_at})"
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
    # the failures of every source: those without any in one line at the end, not a line each
    brief = args.failures and not args.sources
    for s, checks in logs:
        if brief and not checks:
            continue
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
    if brief and (rest := sum(1 for _, checks in logs if not checks)):
        sources = f"{rest} source{'s' if rest != 1 else ''}"
        if rest < len(logs):
            print(f"no failed checks logged for the other {sources.removeprefix('1 ')}", file=app.out)
        else:
            print(f"no failed checks logged ({sources})", file=app.out)
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
    return one_line(detail.strip())  # an error may quote a page: one check, one line


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


def versions_named(app: App, key: str, a: str | None, b: str | None) -> tuple[Version, Version]:
    """The two versions `--from` and `--to` name (by default the latest and the one before it)."""
    new = _version(app, key, b)
    if a is not None:
        return _version(app, key, a), new
    if new.number == 1:
        raise UsageError(f"{key} version 1 is the first snapshot; nothing to compare it with")
    return app.store.version(key, new.number - 1), new


def narrowing(args: argparse.Namespace) -> str:
    """The first of `--section`, `--word` and `--change` a command was given, "" when none (the whole diff)."""
    given = (("--section", args.sections), ("--word", args.words), ("--change", args.kinds))
    return next((flag for flag, values in given if values), "")


def narrowed(d: Diff, args: argparse.Namespace) -> Diff:
    """The diff `--section`, `--word` and `--change` ask for: the changes under the headings they match, with
    those words and of those kinds (`differ diff`, `compare`)."""
    asked = narrowing(args)
    if asked and args.format == "unified":
        raise UsageError(f"{asked} picks changes; --format unified is a line diff of the whole documents")
    if not asked:
        return d
    from differ.diff.summary import picked

    checked = []
    for flag, given, check, example in (
        ("--section", args.sections, heading_list, 'a heading or a pattern such as "Security*"'),
        ("--word", args.words, word_list, 'a word or a pattern such as "CVE-*"'),
    ):
        try:  # checked as `sections` and `words` in config.toml are
            checked.append(check(given or []))
        except Invalid:
            raise UsageError(f"{flag}: expected {example}, found nothing") from None
    sections, words = checked
    return picked(d, sections, words, args.kinds or ())


@command("diff")
def cmd_diff(app: App, args: argparse.Namespace) -> int:
    from differ.diff import render
    from differ.versions import diff_versions, version_pair

    source = app.config.source(args.source)
    old, new = versions_named(app, source.key, args.a, args.b)
    d = diff_versions(app.store, old, new, app=app, source=source)
    d = narrowed(d, args)
    versions = version_pair(source, old, new, source_title(app, source))
    color = args.format == "text" and not args.no_color and app.out.isatty()
    app.out.write(render(d, versions, args.format, color=color))
    return ExitCode.OK


@command("audit")
def cmd_audit(app: App, args: argparse.Namespace) -> int:
    from differ.audit import audit_document, render_audit
    from differ.audit.report import render_audits

    if args.document:
        docs = [app.config.document(args.document)]
        if not docs[0].mirrors:
            raise UsageError(
                f"{docs[0].id} has no mirrors to audit; add one: differ add URL --to {docs[0].id}"
            )
    elif not app.config.documents:
        raise UsageError(f"{app.config.path.name} configures no documents")
    else:
        docs = [d for d in app.config.documents if d.mirrors]  # a page watched alone has nothing to audit
        if not docs:
            raise UsageError(
                f"{app.config.path.name} configures no mirrors to audit; add one: differ add URL --to DOCUMENT"
            )
    reports = [audit_document(app, doc) for doc in docs]
    findings = sum(len(m.findings) for report in reports for m in report.mirrors)
    unread = any(report.unread for report in reports)
    app.out.write(
        render_audit(reports[0], args.format) if args.document else render_audits(reports, args.format)
    )
    return ExitCode.FAILURE if unread or (args.exit_code and findings) else ExitCode.OK


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
