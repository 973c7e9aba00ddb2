"""`differ history`: a source's versions, or every source's in the order they were stored, each with what it
changed; narrowed, like `git log -S`, to the versions whose edit touched a passage."""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from itertools import pairwise
from typing import TYPE_CHECKING

from differ.app import App, iso
from differ.cli import command
from differ.config import SourceConfig
from differ.errors import ExitCode, StoreDamage
from differ.options import Invalid, plural
from differ.records import ago, moment, narrowed, narrowing
from differ.site import describe, size_text
from differ.store import Version
from differ.titles import source_title

if TYPE_CHECKING:
    from differ.diff import Diff, Versions

    #: a version's changes a `--section`, `--word` or `--change` keeps, and the versions they are between
    #: (None for a first version, whose passages they are)
    Found = tuple[Diff, Versions | None]


@command("history")
def cmd_history(app: App, args: argparse.Namespace) -> int:
    """A source's versions (those `--since` a time, its latest `-n`, those with a change asked for), or without a
    source, every source's in the order stored."""
    from differ.audit import reach_lines

    if args.source is None:
        return _timeline(app, args)
    source = app.config.source(args.source)
    versions = app.store.versions(source.key)
    since = _since(app, args.since)
    first = (
        next((i for i, v in enumerate(versions) if v.fetched_time >= since), len(versions)) if since else 0
    )
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
    captures = app.store.captures(source.key)
    rows = [
        (
            str(v.number),
            v.fetched_at,
            v.hash[:12],
            size_text(int(v.record.get("raw_bytes", 0))),
            (_changed(*found[v.number]) if asked else describe(v))
            + (f"; url now {moved[v.number]}" if v.number in moved else ""),
        )
        for v in shown
    ]
    copies = {str(v.number): captures[v.number] for v in shown if v.number in captures}
    reach = reach_lines(app, source) if source.role == "mirror" and not asked else []
    window = versions[first:]
    kept = f"{len(shown)} of {plural(len(window), 'version')} with a change {_asked(args)}" if asked else ""
    if since is not None and asked:
        kept += f", stored since {iso(since)}"
    elif since is not None:
        kept = f"{plural(len(shown), 'version')} stored since {iso(since)}"
    if args.format == "html":
        app.out.write(_history_html(source.key, source.url, rows, copies, reach, kept))
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
        if number in copies:  # a copy a web archive keeps, made at the `wayback` destination's request
            print(f"  {'':>3}  archived copy: {copies[number]}", file=app.out)
    for line in reach:
        print(line, file=app.out)
    return ExitCode.OK


def _asked(args: argparse.Namespace) -> str:
    """What `--section`, `--word` and `--change` ask for, in words (`mentioning "CVE"`)."""
    from differ.diff.summary import narrowed_to

    return narrowed_to(args.sections or (), args.words or (), args.kinds or ())


def _asked_json(args: argparse.Namespace) -> dict[str, list[str]]:
    """What `--section`, `--word` and `--change` ask for, as the JSON forms name them."""
    named = {"within": args.sections, "mentioning": args.words, "kinds": args.kinds}
    return {key: list(value) for key, value in named.items() if value}


def _since(app: App, text: str | None) -> datetime | None:
    """`--since`: a time (a date alone is that day's start) or a duration before now (`7d`, `12h`)."""
    if text is None:
        return None
    from differ.options import parse_duration

    try:
        seconds = parse_duration(text.strip(), longest=None)
    except Invalid:
        return moment(text, start=True, what="a duration (7d, 12h) or a time")
    return ago(app, seconds)


def _recent(app: App, key: str, since: datetime | None, count: int | None) -> list[Version]:
    """A source's versions stored since `since`, at most its latest `count`, oldest first: read from the newest
    back, so a long history costs what is shown, not every record."""
    found: list[Version] = []
    number = app.store.latest_number(key)
    while number >= 1 and (count is None or len(found) < count):
        v = app.store.version(key, number)
        if since is not None and v.fetched_time < since:
            break
        found.append(v)
        number -= 1
    return found[::-1]


LATEST = 20  # every source's latest versions listed when neither -n nor --since says


def _timeline(app: App, args: argparse.Namespace) -> int:
    """`differ history` without a source: the versions every source stored (since `--since`, or the latest
    `-n`), in the order they were stored: when, which source, and what changed (with `--section`, `--word` or
    `--change`, only the versions with such changes)."""

    since = _since(app, args.since)
    count = args.count or (None if since else LATEST)
    asked = narrowing(args)
    rows: list[tuple[Version, SourceConfig, Found | None]] = []
    damaged = False
    for source in app.config.sources():
        try:
            rows += _listed(app, source, since, count, args)
        except StoreDamage as exc:  # the others are listed; `differ verify` tells what else is damaged
            app.tell(f"{source.key}: not listed", str(exc))
            damaged = True
    code = ExitCode.FAILURE if damaged else ExitCode.OK
    rows.sort(key=lambda row: (row[0].fetched_at, row[1].key, row[0].number))
    more = count is not None and len(rows) > count
    rows = rows[-count:] if count is not None else rows
    if args.format == "json":
        copies = functools.cache(app.store.captures)  # read once a source listed
        out: dict[str, object] = {
            "schema": "differ.timeline/1",
            "since": iso(since) if since else None,
            **_asked_json(args),
            "versions": [
                {"source": source.key, **_version_json(v, hit, copies(source.key).get(v.number))}
                for v, source, hit in rows
            ],
        }
        app.out.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return code
    which = (f" stored since {iso(since)}" if since else "") + (
        f" with a change {_asked(args)}" if asked else ""
    )
    cut = f" (the latest {count}; -n N for more)" if more and not args.count else ""
    head = (
        f"{plural(len(rows), 'version')}{which}{cut}"
        if rows
        else f"no versions{which or ' stored yet (run: differ check)'}"
    )
    lines = [
        (
            v.fetched_at,
            source.key,
            str(v.number),
            _changed(*hit) if hit is not None else describe(v),
        )
        for v, source, hit in rows
    ]
    if args.format == "html":
        app.out.write(_timeline_html(head, lines))
        return code
    print(head, file=app.out)
    width = max((len(key) for _, key, _, _ in lines), default=0)
    if lines:
        print(f"  {'fetched':20}  {'source':{width}}  {'#':>3}  change", file=app.out)
    for fetched, key, number, said in lines:
        print(f"  {fetched:20}  {key:{width}}  {number:>3}  {said}", file=app.out)
    return code


def _timeline_html(head: str, lines: Sequence[tuple[str, str, str, str]]) -> str:
    """The timeline as a standalone page; every piece of page text is escaped and no script may run."""
    from html import escape as e

    from differ.site import page

    table = _table(("Fetched", "Source", "#", "Change"), lines, when=(0,))
    return page("differ: versions", f"<h1>{e(head)}</h1>" + (table if lines else ""))


def _table(
    heads: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    when: Sequence[int] = (),
    made: dict[int, Callable[[str], str]] | None = None,
) -> str:
    """An HTML table of page text, every cell escaped, or made into HTML by `made`'s function for its column
    (which escapes it); the columns in `when` (times, sizes) kept on one line."""
    from html import escape as e

    made = made or {}
    head = "".join(f"<th>{e(h)}</th>" for h in heads)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td{' class=when' if i in when else ''}>{made[i](cell) if i in made else e(cell)}</td>"
            for i, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _listed(
    app: App, source: SourceConfig, since: datetime | None, count: int | None, args: argparse.Namespace
) -> list[tuple[Version, SourceConfig, Found | None]]:
    """A source's rows of the timeline: its versions since `since` (at most its latest `count`), or with a
    change asked for, those with one."""
    asked = narrowing(args)
    if asked and since is None:  # the latest versions with such a change may be any
        window = app.store.versions(source.key)
    else:  # no source can give more than the latest `count`
        window = _recent(app, source.key, since, None if asked else count)
    found = {}
    if asked and window:
        first = window[0].number
        before = app.store.version(source.key, first - 1) if first > 1 else None
        found = _with_changes(app, source, window, args, before)
    return [(v, source, found.get(v.number)) for v in window if not asked or v.number in found]


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
) -> dict[int, Found]:
    """The versions whose edit (for the first, whose text) has passages under `--section` and with `--word`,
    each with those changes and the pair of versions they are between (None for the first): when a passage came,
    changed and went, as `git log -S` tells of a string. `before`: the version before the first of `versions`,
    when they do not start at the first."""
    from differ.diff import diff
    from differ.versions import diff_versions, version_pair

    title = source_title(app, source)
    found: dict[int, Found] = {}
    for v in versions:
        if before is None:
            whole = diff("", app.store.markdown(v))  # the first version: every block added
        else:
            whole = diff_versions(app.store, before, v, app=app, source=source)
        picked = narrowed(whole, args)
        if picked.changes or picked.metadata:
            found[v.number] = (picked, version_pair(source, before, v, title) if before else None)
        before = v
    return found


def _changed(d: Diff, pair: Versions | None) -> str:
    """A history row for a version a `--section` or `--word` history keeps: how many of its changes (for the
    first version, `pair` None, its passages) are asked for, and the first of them (the author's note only
    when nothing else is)."""
    from differ.diff.narrow import around_word
    from differ.diff.summary import asked_count, describe, meta_line, narrowed_to, order, quote
    from differ.site import one_line, shortened

    which, n = narrowed_to(d.within, d.mentioning, d.kinds), len(d.changes) - d.explaining
    if pair is None:
        passage = around_word(d.changes[0].after or "", d.mentioning)
        return shortened(f"first snapshot: {plural(n, 'passage')} {which}: {quote(passage, 200)}")
    said = f"{asked_count(d)} {which}" + (f" ({d.left_out} elsewhere)" if d.left_out else "")
    if not d.changes:  # a metadata field alone has the words (a title)
        return shortened(f"{said}: {meta_line(d.metadata[0])[0]}")
    noted = order(d.changes)
    change = next((c for c, note in noted if not note), noted[0][0])
    return shortened(f"{said}: {one_line(describe(change))}")


def _history_json(
    app: App,
    source: SourceConfig,
    versions: Sequence[Version],
    found: Mapping[int, Found],
    args: argparse.Namespace,
) -> dict[str, object]:
    """`differ.history/1`: the source and its versions, oldest first; for a mirror, when each canonical edit
    reached it. With `--section` or `--word`, only the versions with such changes, each with those changes'
    summary and how many it left out."""
    from differ.audit.report import reach

    captures = app.store.captures(source.key)
    out: dict[str, object] = {
        "schema": "differ.history/1",
        "source": source.key,
        "url": source.url,
        "role": source.role,
        **_asked_json(args),
        "versions": [_version_json(v, found.get(v.number), captures.get(v.number)) for v in versions],
    }
    if source.role == "mirror" and not narrowing(args):
        out["canonical_edits"] = reach(app, source) or []
    return out


def _version_json(v: Version, hit: Found | None, capture: str | None = None) -> dict[str, object]:
    """A version as `differ.history/1` lists it; `hit`: its changes a `--section`, `--word` or `--change` keeps,
    when one was given (the first version's: its passages), and the versions they are between; `capture`: a web
    archive's capture of it, made at differ's request."""
    from differ.diff import summarize

    if hit is None:
        changes: dict[str, object] = {
            "changes": int(v.record.get("changes", 0)),
            "summary": list(v.record.get("summary") or []),
        }
    elif (pair := hit[1]) is None:
        changes = {"changes": 0, "summary": [], "passages": len(hit[0].changes)}
    else:
        d = hit[0]
        changes = {
            "changes": len(d.changes) - d.explaining,
            **({"metadata": len(d.metadata)} if d.metadata else {}),  # fields with the words (a title)
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
        **({"command": list(v.record["command"])} if v.record.get("command") else {}),
        **({"capture": capture} if capture else {}),
    }


def _history_html(
    key: str,
    url: str,
    rows: Sequence[tuple[str, ...]],
    copies: dict[str, str],
    reach: list[str],
    kept: str = "",
) -> str:
    """A standalone page; every piece of page text is escaped and no script may run. The page watched and each
    version's copy in a web archive are links (http and https only)."""
    from html import escape as e

    from differ.site import external, page, web_link

    notes = "".join(f"<li>{e(line.strip())}</li>" for line in reach[1:])
    heads: tuple[str, ...] = ("#", "Fetched", "Hash", "Size", "Change")
    cells: Sequence[tuple[str, ...]] = rows
    if copies:  # a column of each version's copy, by its number
        heads, cells = (*heads, "Archived copy"), [(*row, row[0]) for row in rows]

    def copy(number: str) -> str:
        return web_link(copies[number], "archived copy") if number in copies else ""

    return page(
        f"{key} history",
        f"<h1>{e(key)}</h1><p>{external(url)}</p>"
        + (f"<p>{e(kept)}</p>" if kept else "")
        + _table(heads, cells, when=(1, 2, 3), made={5: copy})
        + (f"<h2>Canonical edits reaching this mirror</h2><ul>{notes}</ul>" if notes else ""),
    )
