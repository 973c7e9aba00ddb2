"""Summaries a release manager can act on: a headline, the author's own edit note first, then each change."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from differ.diff.changes import Change, Diff
from differ.diff.sequences import common_ends
from differ.diff.words import code_lines, line_opcodes
from differ.options import cut, plural

# "Updated (7/8):", "**Update**:", "UPDATE 2:", "Edit:", "[Edited to add: …]", "Correction:", "Erratum:", and
# the same in the languages translations of release posts are written in ("업데이트(7/8):", "更新（7/8）：",
# "Mise à jour :"); what stands between the word and the colon must look like a date, a number or an aside, so
# that "Update the toolchain:" or "Edits in place:" stay content.
_EDIT_WORDS = (
    r"(?:updated?|edit(?:ed)?|correct(?:ion|ed)|errat(?:um|a)|clarif(?:ication|ied)"
    r"|업데이트|수정|정정|更新|追記|訂正|更正|勘误|aktualisierung|nachtrag|korrektur|mise à jour|rectificatif"
    r"|actualización|corrección|aggiornamento|correzione)\b"
)
EDIT_NOTE = re.compile(rf"^\W{{0,3}}{_EDIT_WORDS}([^:：\n]{{0,40}})[:：]", re.IGNORECASE)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_AS_OF = re.compile(
    rf"^\W*$|\d+\s*[/.\-年月]\s*\d|\d{{4}}|[(\[（【]|\bto (?:add|clarify|correct|note)\b|\b{_MONTH}(?:\W|$)",
    re.IGNORECASE,
)
# A number alone ("UPDATE 2:") says which update, unless words say what was updated ("Updated on 3 platforms:").
_NUMBERED = re.compile(r"^[^\w]*\d{1,2}[^\w]*$")
# "Note:" and "Editor's note:" begin many a paragraph of content ("Note: whereas for field-less enums…"); they
# are an edit note only when what follows says that the post itself was changed.
NOTE = re.compile(r"^\W{0,3}(?:editor'?s |ed\. )?note\b[^:\n]{0,40}:(.*)", re.IGNORECASE | re.DOTALL)
_POST = r"(?:this|the) (?:post|article|announcement|blog post|page|release notes?)(?![\w-])"
_EDITED = r"(?:updated|edited|corrected|changed|revised|amended)\b"
_WAS = r"(?:was|were|has been|have been|is now)\s+"
_ABOUT_THE_EDIT = re.compile(
    rf"\b{_POST}[^.]{{0,40}}\b{_WAS}(?:\w+ )?{_EDITED}|"
    r"\b(?:an|the) (?:earlier|previous|original) version of\b|\boriginally (?:said|stated|read|listed)\b",
    re.IGNORECASE,
)
# A paragraph that begins by saying the post was changed: "This post has been updated to …".
_THIS_POST = re.compile(
    rf"{_POST}\s+{_WAS}(?:\w+ly )?{_EDITED}|(?:an|the) (?:earlier|previous|original) version of {_POST}",
    re.IGNORECASE,
)
# "[Updated July 9, 2026] …", "(Edited) …", "【追記】…": the same words, bracketed instead of followed by a colon.
_BRACKETED = re.compile(rf"^\W{{0,3}}[\[(（【]\s*{_EDIT_WORDS}([^\])）】\n]{{0,40}})[\])）】]", re.IGNORECASE)
# "Updated on July 9, 2026 to fix a link.": a date says it is about this post's edit, not about software.
_UPDATED_ON = re.compile(
    rf"^\W{{0,3}}(?:updated|edited|corrected|revised)\s+(?:on|at)\s+"
    rf"(?:{_MONTH}\s*\d|\d{{1,2}}\s+{_MONTH}|\d{{4}}-\d\d-\d\d|\d{{1,2}}/\d{{1,2}})",
    re.IGNORECASE,
)
MAX_LINES = 8
TITLE_FIELDS = ("title", "name", "tag_name")  # metadata that names the post, summarized before the text
QUOTE_MAX = 240


@dataclass(frozen=True)
class Versions:
    """Which versions a diff is between, for headlines and reports."""

    title: str
    source: str
    a: int | None
    b: int | None
    a_time: str = ""
    b_time: str = ""
    a_hash: str = ""
    b_hash: str = ""
    a_name: str = ""  # what each side was read from, when they are not stored versions (differ compare)
    b_name: str = ""
    back_to: int | None = None  # an earlier version whose text `b` has again: the edits since undone


def field_name(field: str) -> str:
    """The last name of a metadata field's path: `release.tag_name` → `tag_name`, `names[0]` → `names`."""
    return re.sub(r"\[\d+\]$", "", field).rsplit(".", 1)[-1]


def names_the_post(field: str) -> bool:
    """Whether a metadata field is the post's title or name: `title`, `data.title`, `release.tag_name`."""
    return field_name(field) in TITLE_FIELDS


def is_edit_note(text: str | None) -> bool:
    """Whether a block is the author's own note on an edit of the post (shown first, as its explanation)."""
    text = (text or "").strip()
    head = EDIT_NOTE.match(text) or _BRACKETED.match(text)
    if head:
        return bool(_AS_OF.search(head.group(1)) or _NUMBERED.match(head.group(1)))
    # "Updated on July 9 …", "This post was updated to …", "An earlier version of this post …"
    if _UPDATED_ON.match(text) or _THIS_POST.match(text.lstrip("*_[( ")):
        return True
    note = NOTE.match(text)
    return bool(note and _ABOUT_THE_EDIT.search(note.group(1)[:300]))


def quote(text: str | None, limit: int = QUOTE_MAX) -> str:
    """Text in quotes, on one line, cut where it is long: after a word when one ends near the limit."""
    return f'"{cut(" ".join((text or "").split()), limit)}"'


_FULL_STOPS = "。！？"  # Chinese and Japanese sentences' ends, with no space after them


def _sentences(text: str) -> list[tuple[int, int]]:
    spans = []
    start = 0
    # a full stop and a capital after a space; in Chinese and Japanese, their full stops with or without one
    for m in re.finditer(rf"(?<=[.!?)])\s+(?=[(\[“\"A-Z0-9*])|(?<=[{_FULL_STOPS}])\s*(?=\S)", text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return spans


def changed_sentences(before: str, after: str) -> tuple[str, str]:
    """The sentences that differ between two versions of a block (the rest is context)."""
    a, b = _sentences(before), _sentences(after)
    sa = [before[x:y] for x, y in a]
    sb = [after[x:y] for x, y in b]
    head, tail = common_ends(sa, sb)
    return _joined(sa[head : len(sa) - tail]), _joined(sb[head : len(sb) - tail])


def _joined(sentences: list[str]) -> str:
    """Sentences as one text: a space after a full stop, none after a Chinese or Japanese one (`。`)."""
    return "".join(
        s if not k or sentences[k - 1].endswith(tuple(_FULL_STOPS)) else " " + s
        for k, s in enumerate(sentences)
    )


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """The lines of two code blocks that differ, each side's."""
    la, lb = code_lines(before), code_lines(after)
    old: list[str] = []
    new: list[str] = []
    for tag, i1, i2, j1, j2, _ in line_opcodes([k for *_, k in la], [k for *_, k in lb]):
        if tag != "equal":
            old += [before[start:end] for start, end, _ in la[i1:i2]]
            new += [after[start:end] for start, end, _ in lb[j1:j2]]
    return old, new


CODE_LINES_QUOTED = 3  # changed lines of code a side quotes without saying how many there are


def where(change: Change, *, labelled: bool = True) -> str:
    """The change's section path (and for a nested list item, the item it is in), and the block's label (an
    item's bold lead or first words, a heading whose words did not change) when `labelled`."""
    trail = list(change.section)
    if change.parent and change.block == "item":  # a nested item: the item it is in
        trail.append(change.parent)
    if labelled and change.label and change.block in ("item", "row", "quote", "code"):
        trail.append(change.label)
    elif labelled and change.label and change.block == "heading" and not change.ops:
        trail.append(change.label)  # its level, a link or an invisible character changed, not its words
    elif labelled and change.label and not trail:  # a paragraph before the first heading: by its first words
        trail.append(change.label.rstrip(".!?:;,") or change.label)
    return " › ".join(trail)


def describe(change: Change) -> list[str]:
    """One or two lines for a change, without the bullet, and a line for its links when they changed with its
    words (`link "docs": https://x.org/a → https://x.org/b`)."""
    lines = _described(change)
    if change.kind != "modified" or not change.ops:  # a link alone changed: its detail is the line already
        return lines
    links = "; ".join(part for part in change.detail.split("; ") if part.startswith(("link", "image")))
    return [*lines, f"  {links}"] if links else lines


def _described(change: Change) -> list[str]:
    """A line that quotes the whole block leaves the block's label out of its place (`Highlights: "Faster
    startup (2x)" → "Faster startup (3x)"`): it would say the block's first words twice."""

    moved = _moved(change) if change.kind == "modified" else ""
    shown_before, shown_after = _shown(change)

    def at(*, whole: bool = False) -> str:
        place = where(change, labelled=not whole)
        if moved:  # moved and rewritten
            return f"{place} ({moved}): " if place else f"{moved}: "
        return f"{place}: " if place else ""

    target = f" <{change.target}>" if change.target else ""  # a link added or taken out: where it points
    if change.kind == "added":
        if change.at_end and change.block not in ("row", "item"):  # a row or item: of its table or list
            return [f"added at the end: {_whole(change, shown_after)}{target}"]
        return [f"{at(whole=True)}added {_whole(change, shown_after)}{target}"]
    if change.kind == "removed":
        return [f"{at(whole=True)}removed {_whole(change, shown_before)}{target}"]
    if change.kind == "moved":
        how = _moved(change)
        if how.startswith("section "):  # `the section "Beta" moved (5 blocks), now after "Delta"`
            return [f"{at(whole=True)}the section {quote(shown_after, 80)} {how.removeprefix('section ')}"]
        return [f"{at(whole=True)}{how}: {quote(shown_after, 80)}"]
    if change.kind in ("link", "invisible"):
        return [f"{at()}{change.detail}"]
    if not change.ops:
        return [f"{at()}{change.detail or 'changed'}"]
    if change.block == "heading":  # short, and what names its section: both whole ("heading" says which)
        renamed = f"heading {quote(shown_before)} → {quote(shown_after)}"
        if moved:  # renamed as its section moved
            place = where(change, labelled=False)
            return [f"{place + ': ' if place else ''}{renamed}, {moved}"]
        return [f"{at(whole=True)}{renamed}"]
    if change.cells:  # a table row: the cells that changed, by column
        head = change.label == "column headings"
        return [f"{at()}" + "; ".join(_cell(cell, head=head) for cell in change.cells)]
    if all(op["op"] == "delete" for op in change.ops):
        return [f"{at()}removed " + ", ".join(quote(op["before"], 80) for op in change.ops)]
    if all(op["op"] == "insert" for op in change.ops):
        return [f"{at()}added " + ", ".join(quote(op["after"], 80) for op in change.ops)]
    before, after = shown_before or "", shown_after or ""
    counts = ["", ""]
    if change.block == "code":  # the lines that changed, not the sentences of a flattened block
        lines = changed_lines(before, after)
        old, new = (" … ".join(side) for side in lines)
        if max(map(len, lines)) > CODE_LINES_QUOTED:  # a rewrite: how much, as well as how it starts
            counts = [f"{plural(len(side), 'line')} " if side else "" for side in lines]
    else:
        old, new = changed_sentences(before, after)
    whole = (old, new) == (before, after)
    if max(len(old), len(new)) > QUOTE_MAX:  # cut, the two would read the same: show them where they differ
        old, new = around_change(" ".join(old.split()), " ".join(new.split()), context=80)
        whole = False
    return [f"{at(whole=whole)}{counts[0]}{quote(old)}", f"  → {counts[1]}{quote(new)}"]


ROW_CELLS = 4  # cells of a row added or taken out quoted beside its name; the others are counted


def _whole(change: Change, text: str | None) -> str:
    """A block added or taken out, as its line quotes it: a heading named as one (it opens a section rather
    than being a sentence of one); a table row by its first cell and its other cells by their columns (`the
    row "XPU" (Version "2025.1", Status "prototype")`), or whole where its columns have no headings."""
    if change.block == "heading":
        return f"the heading {quote(text)}"
    if change.block != "row" or change.label == "column headings":
        return quote(text)
    if not change.cells:
        return f"the row {quote(text)}"
    side = "after" if change.kind == "added" else "before"
    first, *rest = change.cells
    cells = [f"{cell['column']} {quote(cell[side], 80)}" for cell in rest if cell[side].strip()]
    shown = cells[:ROW_CELLS] + (
        [f"and {plural(len(cells) - ROW_CELLS, 'more cell')}"] if len(cells) > ROW_CELLS else []
    )
    name = f"the row {quote(first[side], 80)}" if first[side].strip() else "a row"
    return f"{name} ({', '.join(shown)})" if shown else name


def _shown(change: Change) -> tuple[str | None, str | None]:
    """The two sides as a summary quotes them: without inline HTML tags (`<small style=…>`), unless the tags
    are all that changed."""
    before, after = change.before, change.after
    if not any(change.bare):
        return before, after
    bare = (change.bare[0] or before, change.bare[1] or after)
    return (before, after) if change.kind == "modified" and bare[0] == bare[1] else bare


def _moved(change: Change) -> str:
    """Where a moved block came from (`moved from Highlights`, `section moved from Highlights (3 blocks)`): the
    line names where it is now."""
    if change.kind not in ("moved", "modified") or not change.detail.startswith(("moved", "section moved")):
        return ""
    return change.detail.split("; ")[0].replace(f" to {' › '.join(change.section) or 'the top'}", "", 1)


def _cell(cell: dict[str, str], *, head: bool = False) -> str:
    """`CUDA "12.6" → "12.8"`; an emptied or filled cell says so rather than quote nothing, and a cell of a
    column added or taken out says that (`Stable "3.14" (a new column)`; in the head row, `column "Stable"
    added`)."""

    def shown(text: str) -> str:
        return quote(text, 80) if text.strip() else "(empty)"

    change = cell.get("column_change")
    if change and head:
        return f"column {quote(cell['column'], 80)} {change}"
    if change in ("added", "removed"):
        text = cell["after"] if change == "added" else cell["before"]
        said = "a new column" if change == "added" else "its column removed"
        if not text.strip():
            return f"{cell['column']} ({said}, {'empty' if change == 'added' else 'was empty'})"
        return f"{cell['column']} {quote(text, 80)} ({said})"
    return f"{cell['column']} {shown(cell['before'])} → {shown(cell['after'])}"


def authors_note(change: Change) -> bool:
    """Whether a change adds or edits the author's own note on the edit."""
    return change.kind in ("added", "modified") and is_edit_note(change.after)


def order(changes: list[Change]) -> list[tuple[Change, bool]]:
    """Most important first: the author's edit note, then content changes, then the rest; each group in the
    diff's own order, which is document order (a removed block stands where it was). Each change comes with
    whether it is the author's note."""
    rank = {"modified": 1, "removed": 1, "added": 1, "moved": 2, "link": 3, "invisible": 4}
    noted = [(c, authors_note(c)) for c in changes]
    return sorted(noted, key=lambda pair: 0 if pair[1] else rank.get(pair[0].kind, 5))


def headline(versions: Versions, count: int, metadata: int = 0, *, formatting: bool = False) -> str:
    """`formatting`: the two documents differ, in markup alone (a link's span, emphasis): said, so that a
    version with no change is not a riddle."""
    fields = plural(metadata, "metadata field")
    if count == 0 and metadata:
        said = f"{fields} changed, the text did not"
    elif count == 0 and formatting:
        said = "0 changes (formatting only)"
    else:
        said = plural(count, "change") + (f" (and {fields})" if metadata else "")
    return f"{_subject(versions)}: {said}{_undone(versions)}."


def _undone(versions: Versions) -> str:
    """What a version that has an earlier one's text again undoes: the edit before it, or every edit since."""
    back, a = versions.back_to, versions.a
    if back is None or a is None or back >= a:
        return ""
    return f", the edit of version {a} undone" if back == a - 1 else f", back to the text of version {back}"


def _subject(versions: Versions) -> str:
    """What a headline is about: the two files or URLs compared, or the source and its two versions."""
    if versions.a_name:
        return f"{versions.a_name} → {versions.b_name}"
    span = f"version {versions.a} → {versions.b}" if versions.a else f"version {versions.b}"
    return f"{versions.title} ({versions.source.split('/', 1)[-1]}), {span}"


def meta_value(value: object) -> str:
    """A metadata value as people read it: text as it is, anything else as JSON (`true`, `["A", "B"]`)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _meta_shown(value: object) -> str:
    """A metadata value as a summary line shows it: a text quoted, anything else as JSON, cut at 60."""
    text = meta_value(value)
    if isinstance(value, str):
        return quote(text, 60)
    return text if len(text) <= 60 else text[:59] + "…"


def _meta_change(before: object, after: object) -> str:
    if before is None:
        return f"added {_meta_shown(after)}"
    if after is None:
        return f"removed {_meta_shown(before)}"
    if isinstance(before, str) and isinstance(after, str) and max(len(before), len(after)) > 60:
        old, new = around_change(" ".join(before.split()), " ".join(after.split()))
        return f"{quote(old, QUOTE_MAX)} → {quote(new, QUOTE_MAX)}"
    return f"{_meta_shown(before)} → {_meta_shown(after)}"


def around_change(before: str, after: str, context: int = 20) -> tuple[str, str]:
    """Two long texts cut to where they differ, with a few words either side, so that the change is in what is
    shown (`"…Graphs APIs, Frontend and compiler improvements"` → `"…Frontend and compiler improvement"`)."""
    head, tail = common_ends(before, after)
    # at a space near where the context ends, else there (Chinese and Japanese have none between words)
    edge = max(0, head - context)
    space = before.rfind(" ", 0, edge)
    start = space + 1 if space >= edge - context else edge

    def cut(text: str) -> str:
        end = min(len(text), len(text) - tail + context)
        stop = text.find(" ", end)
        stop = stop if 0 <= stop <= end + context else end
        return ("…" if start else "") + text[start:stop] + ("…" if stop < len(text) else "")

    return cut(before), cut(after)


def new_release(metadata: list[dict[str, Any]]) -> tuple[str, str] | None:
    """The old and new tag when a release's `tag_name` changed: the source (a `…/releases/latest` page) now
    shows another release, whose notes are a text of their own rather than an edit of the last ones."""
    for m in metadata:
        before, after = m.get("before"), m.get("after")
        named = field_name(m["field"]) == "tag_name"
        if named and isinstance(before, str) and isinstance(after, str) and before and after:
            return before, after
    return None


def asked_count(d: Diff) -> str:
    """How much of a narrowed diff was asked for: its changes (not the author's note kept to explain the edit)
    and its metadata fields (`1 change and 1 metadata field`, `1 metadata field`, `0 changes`)."""
    asked, fields = len(d.changes) - d.explaining, len(d.metadata)
    return " and ".join(
        ([plural(asked, "change")] if asked or not fields else [])
        + ([plural(fields, "metadata field")] if fields else [])
    )


def narrowed_to(within: Sequence[str], mentioning: Sequence[str], kinds: Sequence[str] = ()) -> str:
    """What a narrowed diff keeps, in words: `under "Security", mentioning "CVE-*"`, `of kind removed`."""
    which = (
        ([f"under {', '.join(quote(h, 60) for h in within)}"] if within else [])
        + ([f"mentioning {', '.join(quote(w, 60) for w in mentioning)}"] if mentioning else [])
        + ([f"of kind{'s' if len(kinds) > 1 else ''} {', '.join(kinds)}"] if kinds else [])
    )
    return ", ".join(which)


def summarize(d: Diff, versions: Versions, max_lines: int = MAX_LINES) -> list[str]:
    """The summary lines: a headline, then a bullet per change, cut with '…and N more changes'. The author's
    note comes first, then a changed title (`title`, `name`, `tag_name`: what the post now calls itself), then
    the text's changes in document order, then the other metadata. Another release altogether is said so,
    with its name and dates, rather than as an edit of the last release's notes."""
    release = new_release(d.metadata)
    if release is not None:
        return _release_summary(d, versions, release)
    items: list[tuple[list[str], int]] = []  # each item's lines, and how many changes it stands for
    notes = 0
    groups = {**_reordered(d.changes), **_whole_sections(d.changes)}
    groups.update(_replaced(d, set(groups)))
    for change, note in order(d.changes):  # the author's notes come first
        if note:
            place = where(change, labelled=False)  # the section the note speaks of, as a reader finds it
            at = " (added at the end)" if change.at_end else f" (in {place})" if place else ""
            before, after = _shown(change)
            said = [f"author's note{at}: {quote(after)}"]
            if change.kind == "modified" and not is_edit_note(change.before):  # written over a passage
                said.append(f"  in place of {quote(before)}")
            items.append((said, 1))
            notes += 1
        elif id(change) in groups:  # a list reordered, a section added or taken out whole, a passage replaced
            if group := groups[id(change)]:
                items.append((_group_line(group), len(group)))
        else:
            items.append((describe(change), 1))
    titles = [m for m in d.metadata if names_the_post(m["field"])]
    items[notes:notes] = [(meta_line(m), 1) for m in titles]
    renamed = _renamed(d.metadata)
    gone = {id(new) for new in renamed.values()}
    for m in d.metadata:
        if id(m) in renamed:  # two fields: the one taken out and the one its value is under now
            items.append((_renamed_line(m, renamed[id(m)]), 2))
        elif not names_the_post(m["field"]) and id(m) not in gone:
            items.append((meta_line(m), 1))
    formatting = d.a_markdown != d.b_markdown
    lines = [headline(versions, len(d.changes), len(d.metadata), formatting=formatting)]
    if (
        d.narrowed
    ):  # to some sections, or some words; an author's note kept to explain the edit is not counted
        count = asked_count(d)
        lines[0] = (
            f"{_subject(versions)}: {count} {narrowed_to(d.within, d.mentioning, d.kinds)} "
            f"({d.left_out} {'left out' if d.kinds else 'elsewhere'})."
        )
    for text, _ in items[:max_lines]:
        lines.append(f"• {text[0]}")
        lines.extend(text[1:])
    rest = sum(count for _, count in items[max_lines:])  # the changes the lines left out stand for
    if rest > 0:
        lines.append(f"…and {plural(rest, 'more change')}")
    return lines


REORDERED = 3  # blocks moved within one section, from which they are summarized as one line


def _reordered(changes: list[Change]) -> dict[int, list[Change]]:
    """Sections in which `REORDERED` or more blocks moved within the section (a list put in another order):
    for the first such move of each, the moves; for the others, an empty list."""
    by_section: dict[tuple[str, ...], list[Change]] = {}
    for c in changes:
        if c.kind == "moved" and c.detail.startswith("moved within its section"):
            by_section.setdefault(c.section, []).append(c)
    out: dict[int, list[Change]] = {}
    for group in by_section.values():
        if len(group) >= REORDERED:
            out.update({id(c): [] for c in group})
            out[id(group[0])] = group
    return out


def _whole_sections(changes: list[Change]) -> dict[int, list[Change]]:
    """Sections added or taken out whole: a heading added (or taken out) and the blocks under it, in a row, each
    added (or taken out) too. For the heading, by its id, the section's changes; for the others, an empty list."""
    out: dict[int, list[Change]] = {}
    k = 0
    while k < len(changes):
        heading = changes[k]
        k += 1
        if heading.block != "heading" or heading.kind not in ("added", "removed") or authors_note(heading):
            continue
        path = (*heading.section, (heading.after if heading.kind == "added" else heading.before) or "")
        group = [heading]
        while k < len(changes) and changes[k].kind == heading.kind and not authors_note(changes[k]):
            if changes[k].section[: len(path)] != path:
                break
            group.append(changes[k])
            k += 1
        if len(group) > 1:
            out.update({id(c): [] for c in group})
            out[id(heading)] = group
    return out


_ENTRIES = frozenset(
    {"item", "row"}
)  # blocks that are entries of their own, a passage with other blocks only


def _replaced(d: Diff, grouped: set[int]) -> dict[int, list[Change]]:
    """Passages replaced whole: blocks taken out and others put in their place, in a row, between the same two
    blocks of both versions (each unchanged, or changed in place), not list items or table rows alone, as "a
    section's second half rewritten" or "a paragraph made a list" reads:
    one item, the old passage and the new, rather than a line for each block (`grouped`: changes summarized in
    a group already). For the first change of each, by its id, the passage's changes; for the others, []."""
    paired = set(d.equal) | {
        (c.a_index, c.b_index) for c in d.changes if c.kind in ("modified", "link", "invisible")
    }
    ends = (len(d.a_blocks), len(d.b_blocks))

    def replaceable(c: Change) -> bool:  # a heading opens a section: not part of a passage
        return c.kind in ("added", "removed") and c.block != "heading" and id(c) not in grouped

    out: dict[int, list[Change]] = {}
    k, changes = 0, d.changes
    while k < len(changes):
        run = []
        while k < len(changes) and replaceable(changes[k]) and not authors_note(changes[k]):
            run.append(changes[k])
            k += 1
        k += not run
        if all(
            c.block in _ENTRIES for c in run
        ):  # entries of a list or table stand alone: one in, one out is two
            continue
        old = sorted(c.a_index for c in run if c.kind == "removed" and c.a_index is not None)
        new = sorted(c.b_index for c in run if c.kind == "added" and c.b_index is not None)
        if not (_in_a_row(old) and _in_a_row(new)):
            continue
        before, after = (old[0] - 1, new[0] - 1), (old[-1] + 1, new[-1] + 1)
        if (before in paired or before == (-1, -1)) and (after in paired or after == ends):
            out.update({id(c): [] for c in run})
            out[id(run[0])] = run
    return out


def _in_a_row(indices: list[int]) -> bool:
    """Whether sorted block indices are some and stand next to each other."""
    return bool(indices) and indices == list(range(indices[0], indices[0] + len(indices)))


def _group_line(group: list[Change]) -> list[str]:
    """The lines of changes summarized together: a section added or taken out whole, a list reordered, or a
    passage replaced."""
    if any(c.kind != group[0].kind for c in group):
        return _replaced_lines(group)
    return [_section_line(group) if group[0].kind in ("added", "removed") else _reordered_line(group)]


def _replaced_lines(group: list[Change]) -> list[str]:
    """`Notes: replaced 3 blocks: "You could even add fields…", …` and `  → "Note: whereas…"`."""

    def passage(changes: list[Change], text: Callable[[Change], str | None]) -> str:
        shown = quote(text(changes[0]), 80 if len(changes) > 1 else QUOTE_MAX)
        kinds = {c.block for c in changes}
        noun = "items" if kinds == {"item"} else "rows" if kinds == {"row"} else "blocks"
        return f"{len(changes)} {noun}: {shown}, …" if len(changes) > 1 else shown

    old = [c for c in group if c.kind == "removed"]
    new = [c for c in group if c.kind == "added"]
    place = where(group[0], labelled=False)
    return [
        f"{place + ': ' if place else ''}replaced {passage(old, lambda c: _shown(c)[0])}",
        f"  → {passage(new, lambda c: _shown(c)[1])}",
    ]


def _section_line(group: list[Change]) -> str:
    """`Notes: added the section "Windows" (3 blocks): "Wheels for Windows are out…"`."""
    heading, *rest = group
    added = heading.kind == "added"
    title = (heading.after if added else heading.before) or ""
    first = next((c for c in rest if c.block != "heading"), rest[0])
    text = (first.after if added else first.before) or ""
    place = where(heading, labelled=False)
    if added and heading.at_end:
        lead = "added at the end: the section"
    else:
        lead = f"{place + ': ' if place else ''}{'added' if added else 'removed'} the section"
    return f"{lead} {quote(title, 80)} ({len(group)} blocks): {quote(text, 80)}"


def _reordered_line(group: list[Change]) -> str:
    """`Notes › Changes: 5 items moved within the section: "Item F …", "Item H …", …`."""
    noun = "items" if all(c.block == "item" for c in group) else "blocks"
    shown = ", ".join(quote(c.label or c.after, 40) for c in group[:4]) + (", …" if len(group) > 4 else "")
    place = where(group[0], labelled=False)
    return f"{place + ': ' if place else ''}{len(group)} {noun} moved within the section: {shown}"


def _release_summary(d: Diff, versions: Versions, release: tuple[str, str]) -> list[str]:
    before, after = release
    lines = [f"{_subject(versions)}: a new release, {after} (was {before})."]
    fields = [m for m in d.metadata if field_name(m["field"]) != "tag_name"]
    lines += [f"• {meta_line(m)[0]}" for m in sorted(fields, key=lambda m: not names_the_post(m["field"]))]
    if d.changes:
        count = plural(len(d.changes), "change")
        lines.append(f"• its notes: {count} from those of {before} (the diff shows them word by word)")
    return lines


def _renamed(metadata: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Fields taken out whose value came back under another name (front matter's `author` now `authors`, as a
    site's migration writes it): each, by its id, with the field that has its value now. A text alone and a
    list of it alone are the same value; a short one (`yes`, `true`, a number) could be any field's."""

    def value(v: object) -> str | None:
        one = v[0] if isinstance(v, list) and len(v) == 1 else v
        return one if isinstance(one, str) and len(one.strip()) >= 8 else None

    added = [m for m in metadata if m["before"] is None and value(m["after"]) is not None]
    out: dict[int, dict[str, Any]] = {}
    for m in metadata:
        if m["after"] is None and value(m["before"]) is not None:
            found = next((n for n in added if value(n["after"]) == value(m["before"])), None)
            if found is not None:
                out[id(m)] = found
                added.remove(found)
    return out


def _renamed_line(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """`metadata › author → authors: "The Rust Release Team"`."""
    return [f"metadata › {old['field']} → {new['field']}: {_meta_shown(new['after'])}"]


def meta_line(meta: dict[str, Any]) -> list[str]:
    return [f"metadata › {meta['field']}: {_meta_change(meta['before'], meta['after'])}"]
