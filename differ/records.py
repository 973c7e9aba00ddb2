"""The commands that read the record differ keeps: `log`, `show`, `diff`, `audit`, `export` and `verify`
(`history` has a module of its own), and how a command names a version (by number or by time). Each prints to
`app.out` and returns an exit code."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from differ.app import App, iso
from differ.cli import command
from differ.errors import ExitCode, StoreDamage, UsageError
from differ.options import Invalid, heading_list, one_line, plural, word_list
from differ.site import size_text
from differ.store import Version
from differ.titles import source_title

if TYPE_CHECKING:
    from differ.config import DocumentConfig
    from differ.diff import Diff


VERSION = "a version number, a duration back from now (7d, 12h) or a time"


def moment(text: str, *, start: bool = False, what: str = "a time") -> datetime:
    """A time on the command line: ISO 8601, UTC unless it says otherwise; a date alone is the end of that day,
    so `--from 2026-07-07` is what the page said when that day was over (its start, with `start`)."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
        if len(text.strip()) == 10 and not start:
            value += timedelta(days=1, microseconds=-1)
        value = value if value.tzinfo else value.replace(tzinfo=UTC)
        value.astimezone(UTC)  # a time that is before year 1 or after 9999 in UTC cannot be compared
    except (ValueError, OverflowError) as exc:
        # a time written right but not one the calendar has: which part (`month must be in 1..12`)
        why = str(exc) if re.fullmatch(r"(month|day|hour|minute|second) .*", str(exc)) else ""
        raise UsageError(
            f'expected {what} such as 2026-07-08 or 2026-07-08T18:00Z, found "{text}"'
            + (f" ({why})" if why else "")
        ) from None
    return value


def ago(app: App, seconds: float) -> datetime:
    """So long before now: however long, no further back than year 1, before every version."""
    now = app.now()
    first = datetime.min.replace(tzinfo=now.tzinfo)
    return first if seconds >= (now - first).total_seconds() - 1 else now - timedelta(seconds=seconds)


def span(text: str) -> float | None:
    """The seconds of a duration on the command line (`7d`, `12h`, `2w`), or None for other text; a bare number
    is no duration here, since it names a version."""
    from differ.options import parse_duration

    if not text.strip() or text.strip().replace(".", "", 1).isdecimal():
        return None
    try:
        return parse_duration(text.strip(), longest=None)
    except Invalid:
        return None


def named_version(app: App, key: str, which: str | None) -> Version:
    """The version a command names (the latest when none): by number, or the one stored by a time. One the
    store does not hold is a usage error, like a source that is not configured; a record missing inside the
    range is damage (exit 3)."""
    latest = app.store.latest(key)
    if latest is None:
        raise UsageError(f"{key} has no versions yet (run: differ check {key})")
    if which is None:
        return latest
    if not which.strip().isdecimal():
        seconds = span(which)
        when = moment(which, what=VERSION) if seconds is None else ago(app, seconds)
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
            status = e.get("status") or (f"exit {e['exit']}" if "exit" in e else None)
            size = size_text(int(e["bytes"])) if "bytes" in e and status != 304 else "-"
            took = f"{e['duration_ms'] - e.get('waited_ms', 0):.0f} ms" if "duration_ms" in e else "-"
            print(
                f"  {e.get('at', '-'):20}  {status or '-':>6}  {e.get('outcome', '-'):9}  {size:>9}  {took:>8}  "
                + _check_detail(e),
                file=app.out,
            )
    if brief and (rest := sum(1 for _, checks in logs if not checks)):
        if rest == len(logs):
            print(f"no failed checks logged ({plural(rest, 'source')})", file=app.out)
        else:
            other = "source" if rest == 1 else plural(rest, "source")
            print(f"no failed checks logged for the other {other}", file=app.out)
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
    version = named_version(app, source.key, args.number)
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
    new = named_version(app, key, b)
    if a is not None:
        return named_version(app, key, a), new
    if new.number == 1:
        raise UsageError(f"{key} version 1 is the first snapshot; nothing to compare it with")
    return app.store.version(key, new.number - 1), new


def narrowing(args: argparse.Namespace) -> str:
    """The first of `--section`, `--word` and `--change` a command was given, "" when none (the whole diff)."""
    given = (("--section", args.sections), ("--word", args.words), ("--change", args.kinds))
    return next((flag for flag, values in given if values), "")


def narrowed(d: Diff, args: argparse.Namespace, err: TextIO | None = None) -> Diff:
    """The diff `--section`, `--word` and `--change` ask for: the changes under the headings they match, with
    those words and of those kinds (`differ diff`, `compare`). A `--section` that matches no heading of either
    version is said on `err`, with the heading likely meant: the diff still has no change under it."""
    asked = narrowing(args)
    if asked and args.format == "unified":
        raise UsageError(f"{asked} picks changes; --format unified is a line diff of the whole documents")
    if not asked:
        return d
    from differ.diff.narrow import picked

    sections, words = patterns_given(args)
    if err is not None:
        _say_unmatched(d, sections, err)
    return picked(d, sections, words, args.kinds or ())


def _say_unmatched(d: Diff, sections: list[str], err: TextIO) -> None:
    """`note: --section "X" matches no heading of either version (did you mean "Y"?)`, for each such one."""
    from differ.diff.narrow import headings_matching
    from differ.options import meant

    headings = list(dict.fromkeys(b.text for b in (*d.a_blocks, *d.b_blocks) if b.kind == "heading"))
    for pattern in sections:
        if not headings_matching(headings, [pattern]):
            said = meant(pattern, headings)
            print(f'note: --section "{pattern}" matches no heading of either version{said}', file=err)


def patterns_given(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The headings `--section` and the words `--word` give, checked as `sections` and `words` in config.toml
    are."""
    checked = []
    for flag, given, check, example in (
        ("--section", args.sections, heading_list, 'a heading or a pattern such as "Security*"'),
        ("--word", args.words, word_list, 'a word or a pattern such as "CVE-*"'),
    ):
        try:
            checked.append(check(given or []))
        except Invalid:
            raise UsageError(f"{flag}: expected {example}, found nothing") from None
    return checked[0], checked[1]


@command("diff")
def cmd_diff(app: App, args: argparse.Namespace) -> int:
    from differ.diff import render
    from differ.versions import diff_versions, version_pair

    source = app.config.source(args.source)
    old, new = versions_named(app, source.key, args.a, args.b)
    d = diff_versions(app.store, old, new, app=app, source=source)
    d = narrowed(d, args, app.err)
    versions = version_pair(source, old, new, source_title(app, source))
    color = args.format == "text" and not args.no_color and app.out.isatty()
    app.out.write(render(d, versions, args.format, color=color))
    return ExitCode.OK


@command("audit")
def cmd_audit(app: App, args: argparse.Namespace) -> int:
    from differ.audit import audit_document, render_audit
    from differ.audit.report import render_audits

    only = None
    if args.document:
        doc, only = _audited(app, args.document)
        docs = [doc]
    elif not app.config.documents:
        raise UsageError(f"{app.config.path.name} configures no documents")
    else:
        docs = [d for d in app.config.documents if d.mirrors]  # a page watched alone has nothing to audit
        if not docs:
            raise UsageError(
                f"{app.config.path.name} configures no mirrors to audit; add one: differ add URL --to DOCUMENT"
            )
    reports, unread = [], False
    for doc in docs:
        try:
            reports.append(audit_document(app, doc, only))
        except StoreDamage as exc:  # a canonical's history damaged: the other documents are audited
            if args.document:
                raise  # the document asked for: one line, exit 3
            app.tell(f"{doc.id}: not audited", str(exc))
            unread = True
    findings = sum(len(m.findings) for report in reports for m in report.mirrors)
    unread = unread or any(report.unread for report in reports)
    app.out.write(
        render_audit(reports[0], args.format) if args.document else render_audits(reports, args.format)
    )
    return ExitCode.FAILURE if unread or (args.exit_code and findings) else ExitCode.OK


def _audited(app: App, name: str) -> tuple[DocumentConfig, str | None]:
    """The document `differ audit` is given, and the one mirror of it asked for (`DOCUMENT/MIRROR`, or the
    mirror's URL): a mirror's maintainer audits their own copy, and `--exit-code` answers for it alone."""
    if "://" in name:
        source = app.config.source(name)
        name = source.key if source.role == "mirror" else source.document
    doc_id, _, mirror = name.partition("/")
    doc = app.config.document(doc_id)
    if not doc.mirrors:
        raise UsageError(f"{doc.id} has no mirrors to audit; add one: differ add URL --to {doc.id}")
    if not mirror:
        return doc, None
    if mirror == doc.canonical.id:
        raise UsageError(
            f"{name} is the canonical, which the mirrors are audited against: differ audit {doc.id}"
        )
    if mirror not in (m.id for m in doc.mirrors):
        raise UsageError(
            f'{doc.id} has no mirror "{mirror}"; its mirrors: {", ".join(m.id for m in doc.mirrors)}'
        )
    return doc, mirror


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
        f"exported {plural(done.versions, 'version')} of {plural(done.sources, 'source')}{new} to {made}{repo}: "
        f"branch {done.branch} at {done.tip[:12]} "
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
    state = "ok" if not checked.problems else plural(len(checked.problems), "problem")
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
    if args.captures is not None:
        return _verify_captures(app, args.captures)
    report = app.store.verify()
    for note in report.notes:
        print(f"note: {note}", file=app.out)
    for problem in report.problems:
        print(f"damaged: {problem}", file=app.out)
    state = "ok" if report.ok else plural(len(report.problems), "problem")
    print(
        f"{app.store.root}: {report.sources} sources, {report.versions} versions, {report.blobs} raw bodies: "
        f"{state}",
        file=app.out,
    )
    return ExitCode.OK if report.ok else ExitCode.FAILURE


def _verify_captures(app: App, sources: list[str]) -> int:
    """`differ verify --captures`: each version's copy in the archive against the version; exit 1 unless every
    copy reads the same."""
    from differ.archived import compare_copies

    compared = compare_copies(app, app.config.select(sources), app.out)
    if not compared:
        print("no copies in a web archive recorded (a wayback destination makes them)", file=app.out)
        return ExitCode.OK
    counts = {o: sum(1 for c in compared if c.outcome == o) for o in ("same", "different", "unread")}
    copies = f"{len(compared)} {'copy' if len(compared) == 1 else 'copies'}"
    print(
        f"{copies} compared: {counts['same']} the same, {counts['different']} different, "
        f"{counts['unread']} not read",
        file=app.out,
    )
    return ExitCode.OK if counts["same"] == len(compared) else ExitCode.FAILURE
