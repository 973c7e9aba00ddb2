"""Diff outputs: text (coloured on a terminal), Markdown, JSON (`differ.diff/1`), a standalone HTML page, and a
unified line diff of the two normalized documents for tools that read patches."""

from __future__ import annotations

import html
import json
import re
import unicodedata
from collections.abc import Callable
from typing import Any

from differ.bullets import html_items
from differ.diff.blocks import md_text as md_escape
from differ.diff.blocks import unspaced, word_spans
from differ.diff.changes import Change, Diff
from differ.diff.summary import Versions, meta_value, summarize, where
from differ.diff.words import code_opcodes, word_opcodes

SCHEMA = "differ.diff/1"
FORMATS = ("text", "markdown", "json", "html", "unified")
_RED, _GREEN, _DIM, _BOLD, _RESET = "\033[31m", "\033[32m", "\033[2m", "\033[1m", "\033[0m"


def _side(version: int | None, fetched_at: str, digest: str, name: str) -> dict[str, Any]:
    side: dict[str, Any] = {"version": version, "fetched_at": fetched_at or None, "hash": digest or None}
    if name:
        side["name"] = name  # a file or URL compared on the spot (differ compare)
    return side


def as_json(d: Diff, v: Versions) -> dict[str, Any]:
    """The documented JSON form of a diff (schema `differ.diff/1`)."""
    return {
        "schema": SCHEMA,
        "source": v.source,
        "title": v.title,
        "from": _side(v.a, v.a_time, v.a_hash, v.a_name) if v.a or v.a_name else None,
        "to": _side(v.b, v.b_time, v.b_hash, v.b_name),
        "summary": summarize(d, v),
        "changes": [c.as_json() for c in d.changes],
        "metadata": d.metadata,
        **({"back_to": v.back_to} if v.back_to is not None else {}),
        **d.narrowing(),
    }


def _segments(change: Change, sides: tuple[str, ...] = ("before", "after")) -> list[tuple[str, str]]:
    """The block's text as (side, text) runs: "equal", or the changed "before" and "after" words; spacing as
    in the page."""
    a, b = word_spans(change.before or ""), word_spans(change.after or "")
    out: list[tuple[str, str]] = []

    def run(spans: list[tuple[str, str]]) -> tuple[str, str]:
        text = "".join(ws + w for ws, w in spans)
        stripped = text.lstrip()
        return text[: len(text) - len(stripped)], stripped

    wa, wb = [w for _, w in a], [w for _, w in b]
    opcodes = code_opcodes(wa, _lines(a), wb, _lines(b)) if change.block == "code" else word_opcodes(wa, wb)
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            same = a[i1:i2] if sides == ("before",) else list(b[j1:j2])
            # words the page had apart after what was taken out: "[-Release 2.13 is out.-] Release …"
            if out and out[-1][0] == "before" and not same[0][0] and a[i1][0]:
                same[0] = (a[i1][0], same[0][1])
            out.append(("equal", "".join(ws + w for ws, w in same)))
            continue
        if i2 > i1 and "before" in sides:
            lead, text = run(a[i1:i2])
            out += [("equal", lead), ("before", text)]
        if j2 > j1 and "after" in sides:
            lead, text = run(b[j1:j2])
            # beside the words taken out: apart from them, or against them as they stood against the word before
            if i2 > i1 and "before" in sides:
                glued = text[0] in _GLUED_LEFT or unspaced(text[0])
                lead = "" if not lead and not a[i1][0] and glued else " "
            out += [("equal", lead), ("after", text)]
    return out


# Marks that stand against the word before them: a run put in that starts with one, where the run taken out
# started against that word too, is shown against it (`well[-, for example-]{+. For example+}`)
# and a script written without spaces stands against what was before it (`我们[-很-]{+非常+}高兴`)
_GLUED_LEFT = frozenset(".,;:!?)]}…。，、；：！？）")


def _lines(spans: list[tuple[str, str]]) -> list[int]:
    """The line each word stands on, from the whitespace before each."""
    out, line = [], 0
    for ws, _ in spans:
        line += ws.count("\n")
        out.append(line)
    return out


def _marked(
    change: Change, mark: Callable[[str, str], str], sides: tuple[str, ...] = ("before", "after")
) -> str:
    """The block's text with changed runs passed through `mark(side, text)`."""
    return "".join(mark(side, text) for side, text in _segments(change, sides)).strip()


def to_text(d: Diff, v: Versions, *, color: bool = False) -> str:
    def c(code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if color else text

    lines = summarize(d, v)
    lines[0] = c(_BOLD, lines[0])
    out = [*lines]
    if d.changes:
        out.append("")
    for change in d.changes:
        place = where(change) or "(top)"
        out.append(c(_DIM, f"[{change.kind}] {place}"))
        if change.kind == "modified" and change.ops:

            def mark(side: str, text: str) -> str:
                if side == "before":
                    return c(_RED, f"[-{text}-]")
                if side == "after":
                    return c(_GREEN, f"{{+{text}+}}")
                return text

            out.append(_indented("  ", _marked(change, mark)))
            if change.detail:  # where it moved from, a link moved with its words
                out.append(f"  {change.detail}")
        else:
            if change.before is not None and change.kind in ("removed",):
                out.extend(c(_RED, line) for line in _indented("  - ", change.before).split("\n"))
            if change.after is not None and change.kind == "added":
                out.extend(c(_GREEN, line) for line in _indented("  + ", change.after).split("\n"))
            if change.after is not None and change.kind == "moved":  # as it was: no sign, no colour
                out.append(_indented("    ", change.after))
            if change.detail:
                out.append(f"  {change.detail}")
    return "\n".join(out) + "\n"


def _indented(first: str, text: str) -> str:
    """A block under its heading line: `first` before its first line, the width of it before the others (the
    lines of a code block)."""
    return first + text.replace("\n", "\n" + " " * len(first))


def to_markdown(d: Diff, v: Versions) -> str:
    lines = summarize(d, v)
    out = [f"**{md_escape(lines[0], inline=True)}**", ""]
    out.extend("- " + md_escape(line[2:]) if line.startswith("• ") else md_escape(line) for line in lines[1:])
    if d.changes:
        out += ["", "| Change | Where | Before | After |", "|---|---|---|---|"]
        for change in d.changes:
            place = (where(change) or "(top)") + (f" — {change.detail}" if change.detail else "")
            cells = [md_escape(change.kind, inline=True), md_escape(place, inline=True)]
            if change.kind == "modified" and change.ops:  # the changed words struck out and in bold
                cells += [_md_cell(change, "before"), _md_cell(change, "after")]
            else:
                cells += [
                    md_escape(change.before or "", inline=True),
                    md_escape(change.after or "", inline=True),
                ]
            # a cell is one line: a code block's lines kept apart by <br>, indented
            if change.block == "code":
                cells[2:] = [_spaces_kept(cell).replace("\n", "<br>") for cell in cells[2:]]
            was, now = _link_targets(d, change, _md_target)
            cells[2:] = [cells[2] + was, cells[3] + now]
            out.append("| " + " | ".join(cell.replace("\n", " ") for cell in cells) + " |")
    return "\n".join(out) + "\n"


def _md_cell(change: Change, side: str) -> str:
    """One side of a modified block for a Markdown table cell, its changed words struck out (before) or in bold
    (after). CommonMark opens `**` only where the run is not glued to a letter on one side and punctuation on
    the other (`one**!**` stays as it is), so such a mark takes in the rest of its word."""
    segments = _merge([(kind, text) for kind, text in _segments(change, (side,))])
    moved = True
    while moved:
        moved = False
        for i, (kind, text) in enumerate(segments):
            if kind == "equal":
                continue
            left = segments[i - 1][1] if i > 0 else ""
            right = segments[i + 1][1] if i + 1 < len(segments) else ""
            if left and _glued(left[-1], text[0]):
                cut = len(left) - len(re.search(r"\S*$", left)[0])  # type: ignore[index]
                segments[i - 1 : i + 1] = [("equal", left[:cut]), (kind, left[cut:] + text)]
            elif right and _glued(right[0], text[-1]):
                cut = len(re.match(r"\S*", right)[0])  # type: ignore[index]
                segments[i : i + 2] = [(kind, text + right[:cut]), ("equal", right[cut:])]
            else:
                continue
            segments, moved = _merge(segments), True
            break
    wrap = "~~" if side == "before" else "**"
    cell = "".join(
        md_escape(text, inline=True) if kind == "equal" else f"{wrap}{md_escape(text, inline=True)}{wrap}"
        for kind, text in segments
    )
    return (_spaces_kept(cell) if change.block == "code" else cell).strip()


def _spaces_kept(cell: str) -> str:
    """A code block's lines for a table cell, their indentation kept: a table cell collapses spaces at the
    start of a line, so they are said as `&nbsp;` (a tab as four)."""
    return re.sub(r"(?m)^[ \t]+", lambda m: "&nbsp;" * len(m.group().expandtabs(4)), cell)


def _merge(segments: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Runs without empty pieces, and neighbours of one kind joined: marks and plain text alternate."""
    out: list[tuple[str, str]] = []
    for kind, text in segments:
        if not text:
            continue
        if out and out[-1][0] == kind:
            out[-1] = (kind, out[-1][1] + text)
        else:
            out.append((kind, text))
    return out


def _glued(outside: str, inside: str) -> bool:
    """Whether a mark between these two characters would not open or close: a letter or digit outside, a
    punctuation mark inside."""
    return not outside.isspace() and not _punctuation(outside) and _punctuation(inside)


def _punctuation(char: str) -> bool:
    return unicodedata.category(char)[0] in "PS"


_CSS = """body{font:15px/1.5 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}
h1{font-size:1.3em}table{border-collapse:collapse;width:100%;table-layout:fixed}
td,th{border:1px solid #ddd;padding:.4em .6em;vertical-align:top;text-align:left;word-wrap:break-word}
th{background:#f6f6f6}del{background:#fdd;text-decoration:line-through}ins{background:#dfd;text-decoration:none}
.kind{font:12px monospace;color:#666}.where{color:#555;font-size:.9em}ul.summary li{margin:.2em 0}
.nav{font-size:.9em}.target{font-size:.9em;word-break:break-all}
td.code{white-space:pre-wrap;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}"""


def _html_mark(side: str, text: str) -> str:
    if side == "before":
        return f"<del>{html.escape(text)}</del>"
    if side == "after":
        return f"<ins>{html.escape(text)}</ins>"
    return html.escape(text)


def to_html(d: Diff, v: Versions, nav: str = "") -> str:
    """A standalone side-by-side page; every piece of page text is escaped, nothing from the page runs. `nav`:
    links above it (HTML the caller made), where the page is part of the reports site."""
    e = html.escape
    lines = summarize(d, v)
    rows = []
    for change in d.changes:
        if change.kind == "modified" and change.ops:
            before = _marked(change, _html_mark, ("before",))
            after = _marked(change, _html_mark, ("after",))
        else:
            before = e(change.before or "")
            after = e(change.after or "")
        was, now = _link_targets(d, change, _html_target)
        before, after = before + was, after + now
        if change.kind == "invisible":
            before, after = _invisible_shown(change, before, after)
        detail = f"<div class=where>{e(change.detail)}</div>" if change.detail else ""
        # code as it is laid out: its lines and indentation kept
        td = "<td class=code>" if change.block == "code" else "<td>"
        rows.append(
            f"<tr><td><span class=kind>{e(change.kind)}</span><div class=where>"
            f"{e(where(change) or '(top)')}</div>{detail}</td>{td}{before}</td>{td}{after}</td></tr>"
        )
    meta = "".join(
        f"<tr><td><span class=kind>metadata</span><div class=where>{e(str(m['field']))}</div></td>"
        f"<td>{e(meta_value(m['before']))}</td><td>{e(meta_value(m['after']))}</td></tr>"
        for m in d.metadata
    )
    summary = html_items(lines[1:])  # a change's "→" continuation in its item, which the list already marks
    return standalone(
        lines[0],
        _CSS,
        (f"<p class=nav>{nav}</p>" if nav else "") + f"<h1>{e(lines[0])}</h1><ul class=summary>{summary}</ul>"
        "<table><thead><tr><th style=width:22%>Change</th><th>Before</th><th>After</th></tr></thead>"
        f"<tbody>{''.join(rows)}{meta}</tbody></table>",
    )


def _link_targets(d: Diff, change: Change, target: Callable[[str, str, str], str]) -> tuple[str, str]:
    """What goes under a link change's text on either side: each changed link's old target (before) and new one
    (after), as `target(side, text, url)` writes it; nothing for another kind of change."""
    from differ.diff.engine import changed_links

    if change.kind != "link" or change.a_index is None or change.b_index is None:
        return "", ""
    before = after = ""
    for was, now in changed_links(d.a_blocks[change.a_index], d.b_blocks[change.b_index]):
        before += target("before", *was) if was is not None else ""
        after += target("after", *now) if now is not None else ""
    return before, after


def _html_target(side: str, text: str, url: str) -> str:
    """A changed link's target on the HTML page: struck out before, highlighted after (escaped)."""
    return f"<div class=target>{html.escape(text)}: {_html_mark(side, url or '(empty)')}</div>"


def _md_target(side: str, text: str, url: str) -> str:
    """A changed link's target in a Markdown table cell: struck out before, in bold after."""
    wrap = "~~" if side == "before" else "**"
    return f"<br>{md_escape(text, inline=True)}: {wrap}{md_escape(url or '(empty)', inline=True)}{wrap}"


def _invisible_shown(change: Change, before: str, after: str) -> tuple[str, str]:
    """An invisible change's cells: the character named where the first of them stood, before the word the
    detail names (`⟨U+200B⟩`, struck out in the old text or highlighted in the new); the cells as they were when
    it names none."""
    from differ.diff.engine import read_invisible

    said = read_invisible(change.detail)
    if said is None or not said[2]:  # no word after it: at the block's end, or next to another one
        return before, after
    char, verb, word = said
    text = (change.before if verb == "removed" else change.after) or ""
    at = text.find(word)
    if at < 0:
        return before, after
    tag = "del" if verb == "removed" else "ins"
    shown = f"{html.escape(text[:at])}<{tag}>⟨{html.escape(char)}⟩</{tag}>{html.escape(text[at:])}"
    return (shown, after) if verb == "removed" else (before, shown)


def standalone(title: str, style: str, body: str, feed: str = "") -> str:
    """A page of its own, every HTML output's: the body's page text escaped by the caller, no script allowed to
    run (Content-Security-Policy), and laid out for the screen it is read on, a phone's too. `feed`: the address
    of an Atom feed of what the page shows, which a feed reader given the page's address finds."""
    found = f'<link rel=alternate type="application/atom+xml" href="{html.escape(feed)}">' if feed else ""
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        "<meta http-equiv=Content-Security-Policy content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{html.escape(title)}</title>{found}<style>{style}</style></head><body>{body}</body></html>\n"
    )


def to_unified(d: Diff, v: Versions, *, color: bool = False) -> str:
    """The normalized Markdown of both sides as a unified diff (three lines of context), named by source and
    version: what `diff -u` of `differ show` would print, for patch viewers and review tools. Formatting noise is
    already gone from both sides; a paragraph is one line, so a changed word shows its whole paragraph."""
    import difflib

    def name(version: int | None, when: str, read_from: str) -> str:
        return read_from or f"{v.source} version {version}" + (f" ({when})" if when else "")

    lines = difflib.unified_diff(
        d.a_markdown.splitlines(keepends=True),
        d.b_markdown.splitlines(keepends=True),
        fromfile=name(v.a, v.a_time, v.a_name),
        tofile=name(v.b, v.b_time, v.b_name),
    )
    out = []
    for line in lines:
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        if color and line[:1] in "+-@" and not line.startswith(("+++", "---")):
            code = _DIM if line.startswith("@") else _GREEN if line.startswith("+") else _RED
            line = f"{code}{line.rstrip(chr(10))}{_RESET}\n"
        out.append(line)
    return "".join(out)


def render(d: Diff, v: Versions, fmt: str, *, color: bool = False) -> str:
    if fmt == "unified":
        return to_unified(d, v, color=color)
    if fmt == "json":
        return json.dumps(as_json(d, v), ensure_ascii=False, indent=2) + "\n"
    if fmt == "markdown":
        return to_markdown(d, v)
    if fmt == "html":
        return to_html(d, v)
    return to_text(d, v, color=color)
