"""One canonical Markdown for every source: parsed with markdown-it-py, written back in a single style.

The style: ATX headings, `-` bullets, `*` emphasis and `**` strong, fenced code, minimal escaping, no hard
wrapping, whitespace collapsed inside paragraphs and pulled out of link text, Unicode NFC. Zero-width and
control characters are removed but counted, with the block they were in, so a diff can report them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from markdown_it.token import Token

from differ.normalize.markdownit import html_renderer, parser

# Invisible characters: C0/C1 controls (except tab and newline), zero-width and bidi controls, BOM,
# soft hyphen, and noncharacters. Each is removed and counted.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\ufdd0-\ufdef\ufff9-\ufffb]"
)
_SENTINEL = "\ufdd0"
_SPACES = re.compile(r"[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+")


@dataclass
class Canonical:
    """Canonical Markdown plus the invisible characters taken out of it."""

    text: str
    invisible: list[dict[str, Any]] = field(default_factory=list)

    @property
    def invisible_count(self) -> int:
        return len(self.invisible)


def _restyle(tokens: list[Token]) -> None:
    """Unify markers and whitespace on the token stream, where doing so never changes the words."""
    for token in tokens:
        if token.type == "inline" and token.children:
            _restyle_inline(token.children)
        elif token.type == "fence":
            token.markup = "```" if "`" not in token.info else "~~~"


_EMPHASIS = ("em_open", "em_close", "strong_open", "strong_close")


def _restyle_inline(children: list[Token]) -> None:
    """`*` for emphasis and `**` for strong. An emphasis whose delimiters touch another emphasis delimiter
    (`*_foo_*`, `_a_*b*`) keeps its original markers, so neighbouring markers never merge; so does every
    emphasis of a nest that mixes `_` and `*` (`_1*1*:_`): `_` cannot open or close inside a word and `*` can,
    so making the outer `*` would let the inner one close it."""
    opens: list[tuple[Token, bool, int]] = []  # opener, free to restyle, its outermost emphasis
    nests: list[set[str]] = []  # the marker characters of each outermost emphasis and all inside it
    pairs: list[tuple[Token, Token, int]] = []
    for i, child in enumerate(children):
        touching = (i > 0 and children[i - 1].type in _EMPHASIS) or (
            i + 1 < len(children) and children[i + 1].type in _EMPHASIS
        )
        if child.type in ("em_open", "strong_open"):
            if not opens:
                nests.append(set())
            nests[-1].add(child.markup[:1])
            opens.append((child, not touching, len(nests) - 1))
        elif child.type in ("em_close", "strong_close"):
            opener, ok, nest = opens.pop() if opens else (None, False, -1)
            if opener is not None and ok and not touching:
                pairs.append((opener, child, nest))
        elif child.type == "text":
            child.content = _SPACES.sub(" ", child.content)
        elif child.type == "image" and child.children:
            child.children = _joined_text(child.children)
            _restyle_inline(child.children)
    for opener, closer, nest in pairs:
        if len(nests[nest]) == 1:
            opener.markup = closer.markup = "*" if closer.type == "em_close" else "**"
    _pull_space_out_of_links(children)


def _joined_text(children: list[Token]) -> list[Token]:
    """Escapes made text and neighbouring texts joined, as markdown-it's text_join does for all but an
    image's description."""
    out: list[Token] = []
    for child in children:
        if child.type == "text_special":
            child.type = "text"
        if child.type == "text" and out and out[-1].type == "text":
            out[-1].content += child.content
        else:
            out.append(child)
    return out


def _pull_space_out_of_links(children: list[Token]) -> None:
    """`[ Getting Started](u)` → ` [Getting Started](u)`: link text keeps no leading or trailing space."""
    i = 0
    while i < len(children):
        tok = children[i]
        if tok.type == "link_open" and i + 1 < len(children) and children[i + 1].type == "text":
            first = children[i + 1]
            stripped = first.content.lstrip(" ")
            if stripped != first.content:
                first.content = stripped
                children.insert(i, Token("text", "", 0, content=" "))
                i += 1
        if tok.type == "link_close" and i > 0 and children[i - 1].type == "text":
            last = children[i - 1]
            stripped = last.content.rstrip(" ")
            if stripped != last.content and stripped:
                last.content = stripped
                children.insert(i + 1, Token("text", "", 0, content=" "))
        i += 1


def _render(text: str) -> tuple[str, bool]:
    """Render once; also say whether soft line breaks were joined (then escapes may need a second pass)."""
    mdit = parser()
    env: dict[str, Any] = {}
    tokens = mdit.parse(text, env)
    joined = any(
        child.type == "softbreak" for t in tokens if t.type == "inline" and t.children for child in t.children
    )
    _restyle(tokens)
    rendered: str = mdit.renderer.render(tokens, mdit.options, env)
    return rendered, joined


def canonicalize(markdown: str) -> Canonical:
    """The canonical form of a Markdown document; idempotent.

    Documents are rendered piece by piece (top-level blocks, consecutive lists together), each piece cached by
    its text: a page fetched again renders only what changed. `canonicalize_whole` is the reference."""
    text = _prepare(markdown)
    if _INVISIBLE.search(text) is None:
        chunks = split_chunks(text)
        if chunks is not None:
            rendered = "\n\n".join(out for out in map(_canonical_chunk, _group_lists(chunks)) if out)
            return Canonical(rendered + "\n" if rendered else "")
    return _canonicalize_whole(text)


def canonicalize_whole(markdown: str) -> Canonical:
    """The same canonical form from renders of the whole document (the reference the pieces are tested on)."""
    return _canonicalize_whole(_prepare(markdown))


def _prepare(markdown: str) -> str:
    return unicodedata.normalize("NFC", markdown.replace("\r\n", "\n").replace("\r", "\n"))


@lru_cache(maxsize=4096)
def _canonical_chunk(text: str) -> str:
    rendered, joined = _render(text)
    if joined:
        rendered = _render(rendered)[0]
    return rendered.strip("\n")


def _canonicalize_whole(text: str) -> Canonical:
    found = [m.group() for m in _INVISIBLE.finditer(text)]
    if found:
        text = _INVISIBLE.sub(_SENTINEL, text)
    rendered, joined = _render(text)
    if joined:
        # Lines were joined: escapes that depended on line starts settle in a second pass (as in mdformat).
        rendered = _render(rendered)[0]
    invisible: list[dict[str, Any]] = []
    if found:
        rendered, invisible = _take_sentinels(rendered, found)
        # Removing the markers may leave double spaces or empty lines: settle once more.
        rendered = _render(rendered)[0]
    rendered = rendered.strip("\n")
    return Canonical(rendered + "\n" if rendered else "", invisible)


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# Constructs whose extent a line scan cannot judge (an HTML block swallows lines up to a blank one, fence
# lines included; link reference definitions, which always contain "]:", act across the document): with
# them, the document is handled whole.
_WHOLE = re.compile(r"^ {0,3}<[A-Za-z/!?]", re.MULTILINE)


_FENCE_LINE = re.compile(r"^([ \t]*)(`{3,}|~{3,})[^\n]*", re.MULTILINE)
# A blank line (CommonMark: only spaces and tabs) followed by a line that starts with no whitespace at all.
_CUT = re.compile(r"^([ \t]*)\n(?=\S)", re.MULTILINE)


def split_chunks(markdown: str) -> list[str] | None:
    """Cut a document at blank lines where a new top-level block starts (never inside a fence or before an
    indented continuation); None when the document has constructs that span such cuts.
    `"\\n".join(chunks)` is the document again."""
    if "]:" in markdown or _WHOLE.search(markdown):
        return None
    fenced: list[tuple[int, int]] = []  # from an opening fence line to the end of its closing line
    fence: str | None = None
    opened = 0
    for m in _FENCE_LINE.finditer(markdown):
        indent, marks = m.group(1), m.group(2)
        if fence is None:
            if indent:
                return None  # a fence in a list item ends with the item, not at a fence line: parse whole
            fence, opened = marks, m.start()
        elif (
            len(indent) <= 3
            and "\t" not in indent
            and marks[0] == fence[0]
            and len(marks) >= len(fence)
            and not m.group().strip(" `~")
        ):
            fenced.append((opened, m.end()))
            fence = None
    if fence is not None:
        fenced.append((opened, len(markdown)))
    if not fenced:  # every cut counts: let the regex engine split (each piece keeps its blank line)
        parts = _CUT.split(markdown)
        return [parts[i] + parts[i + 1] for i in range(0, len(parts) - 1, 2)] + [parts[-1]]
    chunks: list[str] = []
    start = 0
    regions = iter(fenced)
    region = next(regions, None)
    for cut in _CUT.finditer(markdown):
        blank = cut.start()
        while region is not None and region[1] < blank:
            region = next(regions, None)
        if region is not None and region[0] <= blank <= region[1]:
            continue
        chunks.append(markdown[start : cut.end() - 1])
        start = cut.end()
    chunks.append(markdown[start:])
    return chunks


_LIST_LINE = re.compile(r"^ {0,3}[-+*0-9]", re.MULTILINE)


def _group_lists(chunks: list[str]) -> list[str]:
    """Join a piece that may start a list to the piece before it when that one may end with a list: a list's
    marker and numbering depend on the list before it."""
    grouped: list[str] = []
    for chunk in chunks:
        if grouped and _LIST_LINE.match(chunk) and _LIST_LINE.search(grouped[-1]):
            grouped[-1] += "\n" + chunk
        else:
            grouped.append(chunk)
    return grouped


def _take_sentinels(rendered: str, chars: list[str]) -> tuple[str, list[dict[str, Any]]]:
    """Remove the markers left where invisible characters were, noting each one's block and neighbour."""
    invisible: list[dict[str, Any]] = []
    blocks = rendered.split("\n\n")
    out = []
    index = 0
    for number, block in enumerate(blocks):
        pieces = block.split(_SENTINEL)
        for k in range(1, len(pieces)):
            char = chars[index] if index < len(chars) else ""
            index += 1
            after = pieces[k].split(maxsplit=1)[0] if pieces[k].split() else ""
            invisible.append(
                {"char": f"U+{ord(char):04X}" if char else "?", "block": number, "before": after[:40]}
            )
        out.append("".join(pieces))
    return "\n\n".join(out), invisible


def render_html(markdown: str) -> str:
    """HTML of a Markdown document, as markdown-it-py renders it (for equivalence checks)."""
    return str(html_renderer().render(markdown))


def plain_words(markdown: str) -> list[str]:
    """The words a reader sees when the document is rendered, in order (markup and URLs dropped)."""
    chunks = split_chunks(markdown)
    if chunks is None:
        return list(_plain_words(markdown))
    return [word for chunk in chunks for word in _chunk_words(chunk)]


@lru_cache(maxsize=4096)
def _chunk_words(chunk: str) -> tuple[str, ...]:
    return _plain_words(chunk)


def _plain_words(markdown: str) -> tuple[str, ...]:
    tokens = parser().parse(markdown)
    words: list[str] = []
    for token in tokens:
        if token.type == "inline" and token.children:
            words.extend(_inline_text(token.children).split())
        elif token.type in ("fence", "code_block"):
            words.extend(token.content.split())
    return tuple(words)


def _inline_text(children: list[Token]) -> str:
    parts = []
    for child in children:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":  # its description as read: escapes resolved, markup dropped
            parts.append("".join(c.content for c in child.children or []))
    return "".join(parts)
