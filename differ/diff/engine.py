"""Describe every change between two versions, their blocks aligned by `align`: added, removed, modified (with
word operations), moved, link, invisible; metadata apart. Formatting-only differences are no change."""

from __future__ import annotations

import contextlib
import gc
import json
import re
import threading
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from differ.diff.align import PAIR_WINDOW, align, block_lines, pair
from differ.diff.blocks import Block, forget_split, split_blocks, words
from differ.diff.changes import Change, Diff
from differ.diff.sequences import ordered_opcodes
from differ.diff.words import code_ops, word_ops
from differ.options import cut


class _Pause:
    """How many diffs under way have the cycle collector paused, and whether it was on before the first."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.was_on = False


_PAUSE = _Pause()


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a diff builds its blocks and alignment: they are many objects, none
    garbage until the diff is done, and each collection walks them all, so a diff twice as long took more than
    twice as long (×2.4 on the benchmark's shuffled sections; ×2.0 without). Threads that diff at once share
    one pause; the last to finish turns the collector back on, if it was on."""
    with _PAUSE.lock:
        if _PAUSE.count == 0:
            _PAUSE.was_on = gc.isenabled()
            gc.disable()
        _PAUSE.count += 1
    try:
        yield
    finally:
        with _PAUSE.lock:
            _PAUSE.count -= 1
            if _PAUSE.count == 0 and _PAUSE.was_on:
                gc.enable()


def diff_blocks(a: list[Block], b: list[Block]) -> Diff:
    equal, removed, added, modified = align(a, b)
    changes: list[Change] = []
    # Moves: a removed block whose text reappears as an added block moved, unchanged.
    added_by_key: dict[str, list[int]] = defaultdict(list)
    for y in added:
        added_by_key[b[y].key].append(y)
    moved: list[tuple[int, int]] = []
    still_removed = []
    for x in removed:
        candidates = added_by_key.get(a[x].key)
        if candidates:
            moved.append((x, candidates.pop(0)))
        else:
            still_removed.append(x)
    moved_b = {y for _, y in moved}
    still_added = [y for y in added if y not in moved_b]
    # A rewritten block may land in another run of the alignment than its old form: pair across runs.
    extra: list[tuple[int, int]] = []
    if still_removed and still_added and len(still_removed) * len(still_added) <= PAIR_WINDOW * PAIR_WINDOW:
        pair(a, b, still_removed, still_added, [], [], extra, along=moved)
        paired_a = {x for x, _ in extra}
        paired_b = {y for _, y in extra}
        modified = sorted(modified + extra)
        still_removed = [x for x in still_removed if x not in paired_a]
        still_added = [y for y in still_added if y not in paired_b]
    trailing = set()
    pending = set(still_added)
    for y in range(len(b) - 1, -1, -1):
        if y not in pending:
            break
        trailing.add(y)
    stayed = _Stayed(b, {y for _, y in moved})
    for x, y in moved:
        changes.append(_change("moved", a[x], b[y], x, y, detail=_moved_detail(a, b, x, y, stayed=stayed)))
    for x in still_removed:
        ops = [{"op": "delete", "before": a[x].text}]
        changes.append(_change("removed", a[x], None, x, None, ops, cells=_row_cells(a[x], "before")))
    for y in still_added:
        ops = [{"op": "insert", "after": b[y].text}]
        cells = _row_cells(b[y], "after")
        changes.append(_change("added", None, b[y], None, y, ops, at_end=y in trailing, cells=cells))
    ys = [y for _, y in equal] if extra else []
    across = {(x, y) for x, y in extra if _moved_too(a, b, x, y, equal, ys)}
    for x, y in modified:
        change = _paired(a[x], b[y], x, y)
        if (x, y) in across:  # moved and rewritten: says both
            change.detail = "; ".join(filter(None, (_moved_detail(a, b, x, y), change.detail)))
        changes.append(change)
    changes = _group_moves(_splits_and_joins(changes), a, b)
    kept = sorted(equal + modified)
    changes.sort(
        key=lambda c: (
            c.b_index if c.b_index is not None else _anchor(c.a_index, kept),
            0 if c.kind == "removed" else 1,
        )
    )
    return Diff(changes, [], equal, a, b)


def _paired(old: Block, new: Block, x: int, y: int) -> Change:
    """The change between two aligned blocks: a heading's level, links alone (same text), or the words, code
    by lines."""
    if old.text == new.text:
        if old.kind == "heading" and old.level != new.level:
            kind, detail = "modified", f"heading level {old.level} → {new.level}"
        else:
            kind, detail = "link", _link_detail(old, new)
        return _change(kind, old, new, x, y, detail=detail)
    if old.kind == "code" == new.kind:
        ops = code_ops(old.text, new.text, block_lines(old), block_lines(new))
    else:
        ops = word_ops(old.text, new.text)
    links_moved = [u for _, u in old.links] != [u for _, u in new.links]
    detail = _link_detail(old, new) if links_moved else ""
    # named as it was when words were only added to it (`New plugin API: added "(beta)"`), else as it is now
    label = old.label if ops and all(op["op"] == "insert" for op in ops) else new.label
    return _change(
        "modified", old, new, x, y, ops, label=label, detail=detail, cells=_changed_cells(old, new)
    )


def _change(
    kind: str,
    old: Block | None,
    new: Block | None,
    x: int | None,
    y: int | None,
    ops: list[dict[str, str]] | None = None,
    **more: Any,
) -> Change:
    """A change between the blocks `old` and `new` (either may be absent), placed and named as the newer one:
    its section, kind, label and parent item."""
    shown = new or old
    assert shown is not None  # a change has a block on one side at least
    if kind in ("added", "removed") and shown.whole_link:
        more.setdefault("target", shown.whole_link)
    return Change(
        kind,
        shown.section,
        old.text if old else None,
        new.text if new else None,
        shown.kind,
        more.pop("label", shown.label),
        ops or [],
        x,
        y,
        parent=shown.parent,
        bare=(old.bare if old else "", new.bare if new else ""),
        **more,
    )


def _row_cells(row: Block, side: str) -> list[dict[str, str]]:
    """The cells of a table row added (`side` "after") or taken out ("before"), each named by its column's
    heading, as a changed row's are; none for the head row, or when the headings cannot tell the columns apart
    (one is empty, or they are not as many as the cells)."""
    if row.kind != "row" or not row.header or len(row.header) != len(row.cells) or not all(row.header):
        return []
    other = "before" if side == "after" else "after"
    return [{"column": name, other: "", side: text} for name, text in zip(row.header, row.cells, strict=True)]


def _changed_cells(old: Block, new: Block) -> list[dict[str, str]]:
    """A table row's cells that changed, each named by its column's heading (`CUDA`: "12.6" → "12.8"). When
    the table gained or lost columns, cells are matched by their columns' headings, and a cell of a column
    added or taken out says so (`column_change`); none when the columns cannot be told apart."""
    if old.kind != "row" or new.kind != "row":
        return []
    if len(old.cells) == len(new.cells):
        names = new.header if len(new.header) == len(new.cells) else ()
        return [
            {"column": (names[i] if names else "") or f"column {i + 1}", "before": was, "after": now}
            for i, (was, now) in enumerate(zip(old.cells, new.cells, strict=True))
            if was != now
        ]
    head = not new.header  # the head row: its cells are the headings
    olds, news = (old.cells, new.cells) if head else (old.header, new.header)
    if len(olds) != len(old.cells) or len(news) != len(new.cells) or not all(olds) or not all(news):
        return []
    out = []
    for tag, i1, i2, j1, j2 in ordered_opcodes(list(olds), list(news)):
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):  # a column kept, or renamed in place
            out += [
                {"column": news[j], "before": old.cells[i], "after": new.cells[j]}
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
                if old.cells[i] != new.cells[j]
            ]
            continue
        out += [
            {"column": olds[i], "before": old.cells[i], "after": "", "column_change": "removed"}
            for i in range(i1, i2)
        ]
        out += [
            {"column": news[j], "before": "", "after": new.cells[j], "column_change": "added"}
            for j in range(j1, j2)
        ]
    return out


def _moved_too(
    a: list[Block], b: list[Block], x: int, y: int, equal: list[tuple[int, int]], ys: list[int]
) -> bool:
    """Whether a rewritten block also moved: it stands on another side of an unchanged block of its section
    in each version, or in another section (one that moved with its section did not move in it). `ys` are the
    unchanged blocks' places in `b`, in order."""
    if bisect_left(equal, (x,)) == bisect_left(ys, y):
        return False
    section = b[y].section
    if a[x].section != section:
        return True
    ours = [(ex, ey) for ex, ey in equal if b[ey].section == section]
    return sum(ex < x for ex, _ in ours) != sum(ey < y for _, ey in ours)


def _anchor(x: int | None, kept: list[tuple[int, int]]) -> float:
    """Where a removed block would stand in the new version: just after the block that stood before it and is
    still there, unchanged or rewritten (so a paragraph removed after a rewritten one is listed after it)."""
    if x is None:
        return 0
    before = bisect_left(kept, (x,))  # kept is sorted: the pairs before this one have ea < x
    return kept[before - 1][1] + 0.5 if before else -0.5


def _moved_detail(
    a: list[Block], b: list[Block], x: int, y: int, blocks: int = 1, stayed: _Stayed | None = None
) -> str:
    """Where block `x` of `a` went, as block `y` of `b`: from which section, if another, or else next to what
    it now stands (`moved within its section, now before "Install with:"`). A heading that moved with the
    `blocks` of its section is a section moved (`section moved (5 blocks), now after "Delta"`). `stayed` knows
    which blocks of `b` moved too, which name no place."""
    old, new = a[x], b[y]
    if old.section != new.section:  # the new section is where it is now
        whence = f"from {' › '.join(old.section) or 'the top'} to {' › '.join(new.section) or 'the top'}"
        return f"section moved {whence} ({blocks} blocks)" if blocks > 1 else f"moved {whence}"
    if blocks > 1:
        return f"section moved ({blocks} blocks){_beside(b, y, blocks)}"
    where = _beside(b, y, 1) if new.kind == "heading" else _next_to(b, y, stayed or _Stayed(b, set()))
    return f"moved within its section{where}"


class _Stayed:
    """For a block of `b` that moved, the nearest block on either side that did not move with it (the search
    ends at another section), each run of blocks moved together walked once however long it is."""

    def __init__(self, b: list[Block], moving: set[int]) -> None:
        self.b, self.moving = b, moving
        self.found: dict[tuple[int, int], int] = {}  # (block, step) → where the search from it ends

    def nearest(self, y: int, step: int) -> int:
        """The index where a search from block `y` in direction `step` (±1) ends: -1 or len(b) at the ends."""
        b, section, passed = self.b, self.b[y].section, []
        k = y + step
        while 0 <= k < len(b) and k in self.moving and b[k].section == section:
            if (k, step) in self.found:
                k = self.found[k, step]
                break
            passed.append(k)
            k += step
        for p in (y, *passed):
            self.found[p, step] = k
        return k


def _next_to(b: list[Block], y: int, stayed: _Stayed) -> str:
    """The block of its section a moved block now follows (`, now after "…"`), or the one it now comes before
    when it leads its section, passing over blocks that moved with it; nothing when none stayed there. The
    document's title is no block of the section it stands in (it heads the document)."""
    section = b[y].section
    before = stayed.nearest(y, -1)
    if before >= 0 and b[before].section == section and not b[before].title:
        return f', now after "{b[before].label}"'
    after = stayed.nearest(y, 1)
    if after < len(b) and b[after].section == section and not b[after].title:
        return f', now before "{b[after].label}"'
    return ""


Link = tuple[str, str]  # a link's text and target


def changed_links(old: Block, new: Block) -> list[tuple[Link | None, Link | None]]:
    """The links of a block that changed, as (before, after) pairs, matched by their text (a link added or
    removed shifts the others); a link added has no before, one removed no after."""
    pairs: list[tuple[Link | None, Link | None]] = []
    for tag, i1, i2, j1, j2 in ordered_opcodes([t for t, _ in old.links], [t for t, _ in new.links]):
        olds, news = old.links[i1:i2], new.links[j1:j2]
        if tag == "equal" or len(olds) == len(news):  # the same text, or the text changed: paired in order
            pairs += [(o, n) for o, n in zip(olds, news, strict=True) if o != n]
            continue
        pairs += [(None, n) for n in news] + [(o, None) for o in olds]
    return pairs


def _link_detail(old: Block, new: Block) -> str:
    """Which links changed, matched by their text (a link added or removed shifts the others)."""
    parts = []

    def noun(url: str, block: Block) -> str:  # an image's words are its alternative text
        return "image" if url in block.images else "link"

    for changed in changed_links(old, new):
        match changed:
            case (None, (text, url)):
                parts.append(f'{noun(url, new)} "{text}" added: {url}')
            case ((text, url), None):
                parts.append(f'{noun(url, old)} "{text}" removed: {url}')
            case ((_, was), (text, url)) if was != url:
                parts.append(f'{noun(url, new)} "{text}": {was or "(empty)"} → {url or "(empty)"}')
            case ((was, _), (text, url)):
                parts.append(f'{noun(url, new)} text "{was}" → "{text}" ({url})')
    return "; ".join(parts)


def _splits_and_joins(changes: list[Change]) -> list[Change]:
    """A paragraph that lost a sentence which now stands next to it as a paragraph of its own was split, and
    the reverse is a join: the words did not change, so the change carries no word operations."""
    added = {c.b_index: c for c in changes if c.kind == "added" and c.b_index is not None}
    removed = {c.a_index: c for c in changes if c.kind == "removed" and c.a_index is not None}
    dropped: set[int] = set()

    def neighbour(pool: dict[int, Change], index: int, text: str) -> tuple[int, Change] | None:
        """The block just after or before `index` whose words are exactly `text`, with its index."""
        for k in (index + 1, index - 1):
            other = pool.get(k)
            if (
                other is not None
                and id(other) not in dropped
                and words(other.after or other.before or "") == words(text)
            ):
                return k, other
        return None

    for c in changes:
        if c.kind != "modified" or len(c.ops) != 1 or c.a_index is None or c.b_index is None:
            continue
        op = c.ops[0]
        if op["op"] == "delete" and (found := neighbour(added, c.b_index, op["before"])):
            index, other = found
            c.ops, c.detail = [], "split: part of it is now a paragraph of its own"
            c.members.append((index, other.block, other.after or ""))
            dropped.add(id(other))
        elif op["op"] == "insert" and (found := neighbour(removed, c.a_index, op["after"])):
            c.ops, c.detail = [], "joined with the paragraph next to it"
            dropped.add(id(found[1]))
    return [c for c in changes if id(c) not in dropped]


def _group_moves(changes: list[Change], a: list[Block], b: list[Block]) -> list[Change]:
    """A heading that moved with every block under it is reported as one moved section, with where it now
    stands (`a` and `b` are the two versions' blocks); a block of it edited on the way stays a change of its
    own and does not split the section."""
    # a heading moved, or moved and renamed, may open a section that moved with it
    heads = {
        id(c)
        for c in changes
        if c.kind == "modified" and c.block == "heading" and c.detail.startswith("moved")
    }
    moved = sorted((c for c in changes if c.kind == "moved" or id(c) in heads), key=lambda c: c.b_index or 0)
    others = [c for c in changes if c.kind != "moved" and id(c) not in heads]
    edited = {(c.a_index, c.b_index): c for c in others if c.kind == "modified"}
    grouped: list[Change] = []
    span: dict[int, int] = {}  # id of a moved heading → the blocks its section covers so far

    def covered(head: Change) -> int:
        """The blocks of the section from its heading on, the edited ones that follow included."""
        n, x, y = span.get(id(head), 1), head.a_index or 0, head.b_index or 0  # a move has both indexes
        while (c := edited.get((x + n, y + n))) is not None and _under(c, head):
            n += 1
        return n

    for change in moved:
        head = grouped[-1] if grouped else None
        if (
            change.kind == "moved"
            and head is not None
            and head.block == "heading"
            and head.a_index is not None
            and head.b_index is not None
            and change.a_index is not None
            and change.b_index is not None
            and _under(change, head)
        ):
            n = covered(head)
            if (change.a_index, change.b_index) == (head.a_index + n, head.b_index + n):
                span[id(head)] = n + 1
                if change.after is not None:
                    head.members.append((change.b_index, change.block, change.after))
                continue
        grouped.append(change)
    for change in grouped:
        x, y = change.a_index, change.b_index
        if change.block == "heading" and x is not None and y is not None and (blocks := covered(change)) > 1:
            rest = change.detail.removeprefix(_moved_detail(a, b, x, y)).removeprefix("; ")  # a renamed one's
            change.detail = "; ".join(filter(None, (_moved_detail(a, b, x, y, blocks), rest)))
    return others + grouped


def _beside(b: list[Block], y: int, blocks: int) -> str:
    """Where a moved section now stands among its sibling sections: `, now after "Delta"`, or before the next
    one when it comes first; nothing when it has no sibling."""
    level = b[y].level
    for k in range(y - 1, -1, -1):
        if b[k].kind == "heading" and b[k].level <= level:
            if b[k].level == level:
                return f', now after "{_short(b[k].text)}"'
            break
    for k in range(y + blocks, len(b)):
        if b[k].kind == "heading" and b[k].level <= level:
            return f', now before "{_short(b[k].text)}"' if b[k].level == level else ""
    return ""


def _short(text: str) -> str:
    """A heading named in a line about another: cut where it is long."""
    return cut(text, 60)


def _under(change: Change, head: Change) -> bool:
    """Whether a change stands in the section a heading's change opens."""
    return change.section[: len(head.section) + 1] == (*head.section, head.after)


def _invisible_changes(
    a_side: tuple[list[dict[str, Any]], dict[int, list[Block]]],
    b_side: tuple[list[dict[str, Any]], dict[int, list[Block]]],
    a: list[Block],
    b: list[Block],
) -> list[Change]:
    """Invisible characters removed (counted in the old version, not the new) and added (the other way). Each
    side: the characters the normalizer took out (with the Markdown chunk each stood in and the word after it)
    and the blocks of each chunk (`_by_chunk`)."""

    def sig(entry: dict[str, Any]) -> tuple[str, str]:
        return str(entry.get("char")), str(entry.get("before", ""))

    (a_inv, a_chunks), (b_inv, b_chunks) = a_side, b_side
    before, after = Counter(map(sig, a_inv)), Counter(map(sig, b_inv))
    changes = []
    for counts, entries, chunks, blocks, verb in (
        (before - after, a_inv, a_chunks, a, "removed"),
        (after - before, b_inv, b_chunks, b, "added"),
    ):
        for (char, word), count in counts.items():
            # where the first such character stood: its chunk's block with that word, else any block with it
            chunk = next((e.get("block") for e in entries if sig(e) == (char, word)), None)
            near = chunks.get(chunk, []) if isinstance(chunk, int) else []
            block = _find(near, word) or (near[0] if near and not word else None) or _find(blocks, word)
            detail = invisible_detail(count, char, verb, word)
            text = block.text if block else None
            changes.append(
                Change(
                    "invisible",
                    block.section if block else (),
                    text,
                    text,
                    block.kind if block else "paragraph",
                    block.label if block else "",
                    [],
                    detail=detail,
                )
            )
    return changes


def invisible_detail(count: int, char: str, verb: str, word: str) -> str:
    """An invisible change's detail: `1 invisible U+200B removed before "here."` (`word`: the word the first
    such character stood before, "" at a block's end)."""
    return f"{count} invisible {char} {verb}" + (f' before "{word}"' if word else "")


_INVISIBLE = re.compile(r'\d+ invisible (U\+[0-9A-F]+|\?) (removed|added)(?: before "(.*)")?')


def read_invisible(detail: str) -> tuple[str, str, str] | None:
    """What `invisible_detail` says, read back: the character, `removed` or `added`, and the word after it."""
    m = _INVISIBLE.fullmatch(detail)
    return (m.group(1), m.group(2), m.group(3) or "") if m else None


def _by_chunk(blocks: list[Block], markdown: str) -> dict[int, list[Block]]:
    """The blocks of each chunk of the Markdown between blank lines (the normalizer notes an invisible
    character by its chunk): each block in the first chunk, from the last block's on, that holds its source."""
    chunks = markdown.split("\n\n")
    out: dict[int, list[Block]] = {}
    k = 0
    for block in blocks:
        found = next((i for i in range(k, len(chunks)) if block.source in chunks[i]), None)
        if found is not None:
            k = found
            out.setdefault(k, []).append(block)
    return out


def _find(blocks: list[Block], word: str) -> Block | None:
    for block in blocks:
        if word and word in block.text:
            return block
    return None


def _field_name(path: list[Any]) -> str:
    """A metadata path as people write it: `title`, `author.name`, `tags[1]`."""
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name


def _as_json(fields: dict[str, Any] | None) -> str:
    return json.dumps(fields or {}, sort_keys=True, default=repr)


def metadata_changes(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Field-level changes of metadata, by deepdiff, as {field, before, after}; None marks the absent side."""
    if a == b and _as_json(a) == _as_json(b):  # the same fields, values and types (1 is not 1.0 to deepdiff)
        return []
    from deepdiff import DeepDiff
    from deepdiff.helper import NotPresent

    # threshold_to_diff_deeper=0: field by field even when most fields changed (else deepdiff reports the root)
    result = DeepDiff(a or {}, b or {}, ignore_order=False, view="tree", threshold_to_diff_deeper=0)
    changes: list[dict[str, Any]] = []
    for levels in result.values():
        for level in levels:
            before = None if isinstance(level.t1, NotPresent) else level.t1
            after = None if isinstance(level.t2, NotPresent) else level.t2
            changes.append(
                {"field": _field_name(level.path(output_format="list")), "before": before, "after": after}
            )
    return sorted(changes, key=lambda c: c["field"])


def diff(
    a_markdown: str,
    b_markdown: str,
    *,
    a_meta: dict[str, Any] | None = None,
    b_meta: dict[str, Any] | None = None,
    a_invisible: list[dict[str, Any]] | None = None,
    b_invisible: list[dict[str, Any]] | None = None,
) -> Diff:
    """Everything that changed from `a` to `b`."""
    body = _recent_body(a_markdown, b_markdown)
    if body is None:
        with collector_paused():
            body = diff_blocks(split_blocks(a_markdown), split_blocks(b_markdown))
        with _RECENT_LOCK:
            _RECENT[:] = [(a_markdown, b_markdown, body), *_RECENT[: RECENT_DIFFS - 1]]
    a, b = body.a_blocks, body.b_blocks
    result = replace(body, changes=list(body.changes))  # its own list: the invisible changes go on it
    if a_invisible or b_invisible:
        sides = (a_invisible or [], _by_chunk(a, a_markdown)), (b_invisible or [], _by_chunk(b, b_markdown))
        result.changes.extend(_invisible_changes(*sides, a, b))
    result.metadata = metadata_changes(a_meta or {}, b_meta or {})
    result.a_markdown, result.b_markdown = a_markdown, b_markdown
    return result


# The texts' diffs made last (the changes between their blocks, before invisible characters and metadata), the
# newest first: an audit asks for the diff from the version a mirror matches to the latest more than once, for
# the edits it misses, the passages' last edits and the edits it carries, and the same pair is the last of the
# canonical's history that `differ blame` walks. A diff is never changed once made.
_RECENT: list[tuple[str, str, Diff]] = []
_RECENT_LOCK = threading.Lock()
RECENT_DIFFS = 2


def forget_recent() -> None:
    """Forget the diffs made and the documents split last, so that the next diff is timed whole (benchmarks)."""
    with _RECENT_LOCK:
        _RECENT.clear()
    forget_split()


def _recent_body(a_markdown: str, b_markdown: str) -> Diff | None:
    with _RECENT_LOCK:
        for a, b, body in _RECENT:
            if a == a_markdown and b == b_markdown:
                return body
    return None


def apply(a: list[Block], d: Diff) -> list[str]:
    """Rebuild the new version's blocks (kind and text) from the old version and the changes alone."""
    out: dict[int, str] = {}
    for x, y in d.equal:
        out[y] = a[x].text_key
    for change in d.changes:
        if change.b_index is not None and change.kind != "invisible" and change.after is not None:
            out[change.b_index] = f"{change.block}\x1f{change.after}"
        for index, block, text in change.members:  # the rest of a section that moved as one
            out[index] = f"{block}\x1f{text}"
    return [out[k] for k in sorted(out)]
