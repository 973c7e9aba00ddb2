"""`differ blame`: each block of a version with the version that last edited it and the one it first came in,
as `git blame` tells of lines. Found by following every block through the diffs of consecutive versions (the
same diffs `differ history` describes), so a block that moved is still the block it was, and a formatting-only
difference is no edit."""

from __future__ import annotations

import argparse
import json
from collections import defaultdict, deque
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from differ.app import App
from differ.audited import carry_after, owed
from differ.carry import due, passage, passage_markdown, place_said
from differ.cli import command
from differ.errors import ExitCode, StoreDamage, UsageError
from differ.options import plural
from differ.records import named_version, patterns_given

if TYPE_CHECKING:
    from differ.audit.places import Place
    from differ.config import SourceConfig
    from differ.diff import Diff
    from differ.diff.blocks import Block
    from differ.store import Store, Version


#: a block, the number of the version it came in and that of the last version that edited it
Traced = tuple["Block", int, int]


@dataclass(frozen=True)
class Blamed:
    """A block of a version: the version it first came in (in whatever form) and the last one that edited it."""

    block: Block
    since: Version
    edited: Version
    place: Place | None = None  # with `--after DOCUMENT/MIRROR`: where it stands in that mirror


def blame(app: App, source: SourceConfig, upto: Version) -> list[Blamed]:
    """The blocks of `upto`, each traced back through every version before it."""
    from differ.diff.blocks import split_blocks
    from differ.versions import diff_versions

    versions = [v for v in app.store.versions(source.key) if v.number <= upto.number]
    by_number = {v.number: v for v in versions}
    steps = (
        diff_versions(app.store, old, new, app=app, source=source, metadata=False)
        for old, new in pairwise(versions)
    )
    first = split_blocks(app.store.markdown(versions[0]))
    numbers = [v.number for v in versions]
    return [
        Blamed(b, by_number[since], by_number[edited]) for b, since, edited in trace(first, steps, numbers)
    ]


def trace(first: list[Block], diffs: Iterable[Diff], numbers: Sequence[int]) -> list[Traced]:
    """Each block of the last of a run of versions (numbered `numbers`; `first` the first one's blocks, `diffs`
    from each to the next) with the number of the version it came in and of the last one that edited it."""
    traced = [(b, numbers[0], numbers[0]) for b in first]
    for d, old, new in zip(diffs, numbers, numbers[1:], strict=False):
        traced = step(traced, d, old, new)
    return traced


def step(traced: list[Traced], d: Diff, old: int, new: int) -> list[Traced]:
    """The traced blocks of version `new` from those of version `old` and the diff between the two."""
    before = _as_read(traced, d.a_blocks, old)
    lineage = d.lineage()
    out = []
    for y, block in enumerate(d.b_blocks):
        came = lineage.get(y)
        if came is None:
            out.append((block, new, new))
        else:
            _, since, edited = before[came[0]]
            out.append((block, since, new if came[1] else edited))
    return out


def _as_read(traced: list[Traced], blocks: list[Block], version: int) -> list[Traced]:
    """A version's traced blocks as a diff reads them, which is the reading the step before had unless the
    source's settings changed between them (then read again as they are now): a block the two readings share
    keeps its history, one only the new reading has is taken as the version's own."""
    known: dict[str, deque[Traced]] = defaultdict(deque)
    for entry in traced:
        known[entry[0].key].append(entry)
    return [(same.popleft() if (same := known.get(b.key)) else (b, version, version)) for b in blocks]


def _picked(blamed: list[Blamed], sections: list[str], words: list[str]) -> list[Blamed]:
    """The blocks under a heading one of `sections` matches (a heading counts as under itself) and with one of
    `words`, as `differ diff --section` and `--word` pick changes."""
    from differ.diff.narrow import headings_matching, words_in

    def section(b: Block) -> tuple[str, ...]:
        return (*b.section, b.text) if b.kind == "heading" else b.section

    return [
        b
        for b in blamed
        if (not sections or headings_matching(section(b.block), sections))
        and (not words or words_in((b.block.text,), words))
    ]


@command("blame")
def cmd_blame(app: App, args: argparse.Namespace) -> int:
    source = app.config.source(args.source)
    upto = named_version(app, source.key, args.number)
    after, copy, audited = _after(app, source, args.after) if args.after is not None else (None, "", {})
    if after is not None and after.number > upto.number:
        said = f"{copy} matches" if copy else f"--after {args.after} is"
        raise UsageError(
            f"{said} version {after.number}, after version {upto.number}: blame version {after.number} or a later one"
        )
    sections, words = patterns_given(args)
    every = blame(app, source, upto)
    if copy:  # each block placed in that mirror as its last audit read it
        from differ.audit.places import mirror_places

        where = mirror_places(app, app.config.source(copy), audited, [b.block for b in every])
        every = [replace(b, place=place) for b, place in zip(every, where, strict=True)]
    shown = _picked(every, sections, words)
    carried = 0
    if after is not None:
        left = owed(audited, upto.number) if copy else None
        owing = {id(b) for _, b in due(every, after.number, left)}
        carried = int(audited.get("carried") or 0) if left is not None else 0
        shown = [b for b in shown if id(b) in owing]
    total = app.store.latest(source.key)
    assert total is not None  # named_version found a version
    if args.format == "json":
        out = _blame_json(source, upto, shown, every, args, after, copy)
        if carried:
            out["carried"] = carried  # the canonical's edits since that the mirror carries already
        app.out.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return ExitCode.OK
    head = f"version {upto.number} of {total.number}, fetched {upto.fetched_at}: {_counts(every)}"
    asked = _asked(args, after, len(shown), copy, carried, audited.get("matches_version"))
    name = copy.partition("/")[2]
    if args.format == "html":
        app.out.write(_blame_html(source, head, asked, shown, copy=name))
    else:
        render = _blame_markdown if args.format == "markdown" else _blame_text
        app.out.write(render(source, head, asked, shown, name))
    return ExitCode.OK


def _blame_text(source: SourceConfig, head: str, asked: str, shown: list[Blamed], copy: str = "") -> str:
    """Each block's Markdown under the number and time of the version that last edited it and the number of
    the one it came in; picked blocks (`asked` says how) each under a line naming their section, and, when a
    mirror named the version (`copy`), over a line naming its place there."""
    lines = [f"{source.key}  {source.url}", f"  {head}"] + ([f"  {asked}"] if asked else [])
    if shown:
        lines.append(f"  {'ver':>3}  {'edited':20}  {'since':>5}  block")
    for section, b in _placed(shown, bool(asked)):
        if section:
            lines.append(f"  {'':>3}  {'':20}  {'':>5}  under: {' › '.join(section)}")
        first, *rest = b.block.source.splitlines() or [""]
        lines.append(f"  {b.edited.number:>3}  {b.edited.fetched_at:20}  {b.since.number:>5}  {first}")
        lines.extend(f"  {'':>3}  {'':20}  {'':>5}  {line}".rstrip() for line in rest)
        if b.place is not None:
            lines.append(f"  {'':>3}  {'':20}  {'':>5}  {place_said(b.place.as_json(), copy)}")
    return "\n".join(lines) + "\n"


def _placed(shown: list[Blamed], picked: bool) -> Iterator[tuple[tuple[str, ...], Blamed]]:
    """Each block with the section to name above it: for blocks picked out of their context, the section of the
    first of each run under one heading; otherwise none."""
    under: tuple[str, ...] = ()
    for b in shown:
        named = b.block.section if picked and b.block.section != under else ()
        under = b.block.section
        yield named, b


def _blame_markdown(source: SourceConfig, head: str, asked: str, shown: list[Blamed], copy: str = "") -> str:
    """For an issue or a chat: a list item a block, naming its section and its versions, with its Markdown as
    written in a fenced block to copy (a translator's passages to carry over); page text escaped elsewhere."""
    from differ.diff.blocks import md_text

    out = [f"**{md_text(source.key, inline=True)}**: {md_text(head, inline=True)}", ""]
    if asked:
        out += [md_text(asked), ""]
    for b in shown:
        out += [*passage_markdown(passage(b), lambda text: md_text(text, inline=True), copy), ""]
    return "\n".join(out).rstrip("\n") + "\n"


_EDITS_LISTED = 20  # passages edited since the first version named atop the page, each linked to its row


def _blame_html(
    source: SourceConfig,
    head: str,
    asked: str,
    shown: list[Blamed],
    nav: str = "",
    diffs: Container[int] = (),
    copy: str = "",
) -> str:
    """A standalone page: a row a block, its Markdown as written (escaped, code in a monospace font), the
    blocks edited since the first version tinted, those added since in green; every piece of page text is
    escaped and no script may run. `nav`: links atop it; `diffs`: the versions whose diff page is beside it,
    to which their numbers link; `copy`: the mirror each block's place is in, on a row under it."""
    from html import escape as e

    from differ.site import external, page

    rows: list[str] = []
    edits: list[str] = []  # the passages edited or added since the first version, linked to their rows
    for i, (section, b) in enumerate(_placed(shown, bool(asked)), 1):
        if section:
            rows.append(f"<tr><td colspan=3 class=quiet>under: {e(' › '.join(section))}</td></tr>")
        tint = " class=added" if b.since.number > 1 else " class=edited" if b.edited.number > 1 else ""
        text = {"code": " class=code", "heading": " class=heading"}.get(b.block.kind, "")
        n = b.edited.number
        number = f'<a href="diff-{n}.html">{n}</a>' if n in diffs else str(n)
        if tint:
            edits.append(f'<a href="#b{i}">{e(b.block.label or b.block.kind)}</a> ({n})')
        rows.append(
            f"<tr id=b{i}{tint}><td class=when>{number} · {e(b.edited.fetched_at)}</td>"
            f"<td>{b.since.number}</td><td{text}>{e(b.block.source)}</td></tr>"
        )
        if b.place is not None:
            rows.append(
                f"<tr><td colspan=2></td><td class=quiet>{e(place_said(b.place.as_json(), copy))}</td></tr>"
            )
    if len(edits) > _EDITS_LISTED:
        edits[_EDITS_LISTED:] = [f"and {len(edits) - _EDITS_LISTED} more"]
    table = (
        "<table><tr><th>Last edited</th><th>Since</th><th>Block</th></tr>" + "".join(rows) + "</table>"
        if shown
        else ""
    )
    said = f"<p>{e(head)}</p>" + (f"<p>{e(asked)}</p>" if asked else "")
    if edits:
        said += f"<p>Edited since version 1 (the version of the last edit): {', '.join(edits)}</p>"
    body = f"{nav}<h1>{e(source.key)}</h1><p>{external(source.url)}</p>{said}{table}"
    return page(f"{source.key}: each passage's last edit", body)


def write_blame(app: App, source: SourceConfig, version: Version, d: Diff | None) -> None:
    """The reports site's page of a source's latest version with each block's last edit
    (`reports/DOCUMENT/SOURCE/blame.html`): carried on from the page of the version before by the diff the
    check made (what it knew is kept beside the page, `blame.json`), worked out from every version only when
    that cannot be (a history older than its pages, a version read again with other settings). A first
    version has none: it would tell nothing."""

    from differ.files import atomic_write
    from differ.site import blame_nav
    from differ.titles import source_title

    store, key, n = app.store, source.key, version.number
    if d is None or n == 1:
        return  # a first version has nothing to tell: every passage came in it
    latest = store.latest(key)
    if latest is None or latest.number != n:
        return  # another writer stored a newer version meanwhile, and writes its page
    before = [(b, 1, 1) for b in d.a_blocks] if n == 2 else _known(store, key, n - 1, lambda: d.a_blocks)
    if before is not None:  # every block of version 1 came in it, or the page before knew them
        traced = step(before, d, n - 1, n)
    else:  # no page before, or one of another reading: worked out from every version
        traced = [(b.block, b.since.number, b.edited.number) for b in blame(app, source, version)]
    shown = _blamed(store, key, traced)
    numbers = {k for b in shown for k in (b.since.number, b.edited.number)}
    diffs = {k for k in numbers if k > 1 and store.report_path(key, k).is_file()}
    nav = blame_nav(source, source_title(app, source))
    head = f"version {n}, fetched {version.fetched_at}: {_counts(shown)}"
    page = _blame_html(source, head, "", shown, nav, diffs)
    path = store.blame_path(key)
    atomic_write(path, page.encode(), durable=False)  # a rendering of the record, made again from it at will
    state = {
        "version": n,
        "blocks_sha256": _digest([b for b, _, _ in traced]),
        "blocks": [[s, e] for _, s, e in traced],
    }
    atomic_write(
        path.with_name("blame.json"),
        (json.dumps(state, separators=(",", ":")) + "\n").encode(),
        durable=False,
    )


def _digest(blocks: list[Block]) -> str:
    """What tells one reading of a version's blocks from another, kept beside the blame page."""
    import hashlib

    return hashlib.sha256("\x1e".join(b.key for b in blocks).encode()).hexdigest()


def known_blame(store: Store, key: str, version: Version) -> list[Blamed] | None:
    """`blame` of a source's latest version as the reports site's page of it knew it (`blame.json`), or None
    when that is of another version or another reading of it, or missing."""
    from differ.diff.blocks import split_blocks

    try:
        traced = _known(store, key, version.number, lambda: split_blocks(store.markdown(version)))
        return None if traced is None else _blamed(store, key, traced)
    except StoreDamage:
        return None  # a damaged version among them: `blame` says which, `differ verify` tells what else


def _known(store: Store, key: str, number: int, blocks: Callable[[], list[Block]]) -> list[Traced] | None:
    """The traced blocks of version `number` as its page of each passage's last edit knew them (`blame.json`),
    when that page is of this version and of these `blocks` (read only once the page is found of the version);
    else None."""
    try:
        state = json.loads(store.blame_path(key).with_name("blame.json").read_text())
        if state["version"] != number:
            return None
        read = blocks()
        if state["blocks_sha256"] != _digest(read):
            return None
        return [(b, int(s), int(e)) for b, (s, e) in zip(read, state["blocks"], strict=True)]
    except (OSError, ValueError, KeyError, TypeError):
        return None  # no page, or one of another reading


def _blamed(store: Store, key: str, traced: list[Traced]) -> list[Blamed]:
    """Traced blocks with the versions their numbers name, each version read once."""
    versions = {k: store.version(key, k) for k in {k for _, s, e in traced for k in (s, e)}}
    return [Blamed(b, versions[s], versions[e]) for b, s, e in traced]


def last_edits(app: App, source: SourceConfig, upto: Version, blocks: set[int]) -> dict[int, int]:
    """The version that last edited (or brought in) each of some `blocks` of version `upto` (by index), found
    by walking back from it one diff at a time only as far as they need: a recent edit costs one diff, not the
    whole history `blame` follows."""
    from differ.versions import diff_versions

    versions = [v for v in app.store.versions(source.key) if v.number <= upto.number]
    where = {i: i for i in blocks}  # each block's index in the version reached
    found: dict[int, int] = {}
    for old, new in zip(reversed(versions[:-1]), reversed(versions[1:]), strict=True):
        if not where:
            break
        lineage = diff_versions(app.store, old, new, app=app, source=source, metadata=False).lineage()
        for i, y in list(where.items()):
            came = lineage.get(y)
            if came is None or came[1]:
                found[i] = new.number
                del where[i]
            else:
                where[i] = came[0]
    return found | {i: versions[0].number for i in where}


def blame_latest(app: App, source: SourceConfig, version: Version) -> list[Blamed]:
    """`blame` of a source's latest version, read from what the reports site's page of it knew when that is of
    this version as it reads now (`known_blame`), else worked out from every version."""
    known = known_blame(app.store, source.key, version)
    return blame(app, source, version) if known is None else known


def _counts(blamed: list[Blamed]) -> str:
    """How the version's blocks came to be: as in the first version, edited since, or added since."""
    if not blamed:
        return "no text"
    added = sum(1 for b in blamed if b.since.number > 1)  # a store numbers a source's versions from 1
    edited = sum(1 for b in blamed if b.since.number == 1 and b.edited.number > 1)
    if not added and not edited:
        return f"{plural(len(blamed), 'block')}, all as in version 1"
    kept = len(blamed) - added - edited
    return (
        f"{plural(len(blamed), 'block')}: {kept} as in version 1, {edited} edited since, {added} added since"
    )


def _after(app: App, source: SourceConfig, which: str) -> tuple[Version, str, dict[str, Any]]:
    """The version `--after` names, the mirror that named it and its last audit: a version of the source, or,
    for a canonical, the one a mirror of its document matches by its last audit (`--after DOCUMENT/MIRROR`):
    the passages edited since are those its translator or maintainer has to carry over."""
    if "/" not in which:  # a number, a time or a duration (`2026-07-08`, `7d`)
        return named_version(app, source.key, which), "", {}
    from differ.audited import last_audit

    mirror = app.config.source(which)
    if source.role != "canonical" or mirror.role != "mirror" or mirror.document != source.document:
        raise UsageError(
            f"--after {which}: expected a version, or a mirror of {source.document} when blaming its canonical"
        )
    audited = last_audit(app.store, source.document).get(mirror.id) or {}
    matched = carry_after(audited)
    if not isinstance(matched, int):
        raise UsageError(
            f"{mirror.key} has not been matched to a version of {source.key} yet (run: differ audit {mirror.key})"
        )
    return named_version(app, source.key, str(matched)), mirror.key, audited


def _asked(
    args: argparse.Namespace,
    after: Version | None,
    shown: int,
    copy: str = "",
    carried: int = 0,
    matches: object = None,
) -> str:
    """The line that says which blocks are shown when not all are: `3 blocks under "install", edited after
    version 1` (`, which doc/ko matches`, when a mirror named the version, or `, whose edits doc/ko lacks` when
    it matches a later one, `(1 other edit it carries already)` for the edits since that it has)."""
    parts = []
    if args.sections:
        parts.append("under " + " or ".join(f'"{s}"' for s in args.sections))
    if args.words:
        parts.append("mentioning " + " or ".join(f'"{w}"' for w in args.words))
    if after is not None:
        which = ""
        if copy:
            which = f", which {copy} matches" if matches == after.number else f", whose edits {copy} lacks"
        parts.append(f"edited after version {after.number}{which}")
        if carried:
            parts[-1] += f" ({plural(carried, 'other edit')} it carries already)"
    return f"{plural(shown, 'block')} {', '.join(parts)}" if parts else ""


def _blame_json(
    source: SourceConfig,
    upto: Version,
    shown: list[Blamed],
    every: list[Blamed],
    args: argparse.Namespace,
    after: Version | None,
    copy: str = "",
) -> dict[str, object]:
    """`differ.blame/1`: the version and its blocks (those asked for), each with the version it came in and
    the last that edited it."""
    out: dict[str, object] = {
        "schema": "differ.blame/1",
        "source": source.key,
        "url": source.url,
        "version": {"version": upto.number, "fetched_at": upto.fetched_at, "hash": upto.hash},
        "blocks_total": len(every),
    }
    if args.sections:
        out["within"] = list(args.sections)
    if args.words:
        out["mentioning"] = list(args.words)
    if after is not None:
        out["after"] = after.number
        if copy:
            out["after_mirror"] = copy  # the mirror whose matched version `after` is
    out["blocks"] = [passage(b) for b in shown]
    return out
