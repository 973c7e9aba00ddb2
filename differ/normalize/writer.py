"""Canonical Markdown written straight from the HTML tree, for the blocks where that is sure to give what
`canonicalize` makes of the converter's escaped Markdown; every other block takes that longer road.

Parsing and re-rendering a page with markdown-it-py and mdformat costs tens of milliseconds; writing its
paragraphs, headings, lists and code blocks directly costs a few. The output is mdformat's: its own renderers
write the text, code spans, paragraphs, headings and code blocks, fed with the tree the converter meant, so
only the tree has to be right. Where the escaped Markdown might parse to another tree (emphasis that would not
open or close, a link markdown-it would refuse, spacing other than plain spaces, text not in NFC) the block is
left to `canonicalize`. tests/test_writer.py holds the two roads equal on the replay, the corpus, every
CommonMark example and random HTML.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from bs4 import Tag
from bs4.element import NavigableString, PageElement
from mdformat.renderer import DEFAULT_RENDERERS, RenderContext

from differ.normalize import canonical
from differ.normalize.html import (
    _WS,
    BLOCKS,
    CODE_TAGS,
    EM_TAGS,
    HEADINGS,
    MAX_DEPTH,
    STRONG_TAGS,
    Converter,
    Leaf,
    code_parts,
    list_start,
)
from differ.normalize.mdescape import (
    escape_paragraph,
    escape_text,
    flanking,
    link_destination,
    link_target,
    render_context,
)

_LIST_KINDS = ("ul", "ol", "li")
# Spacing markdown-it or mdformat treat apart from a plain space (the converter only collapses ASCII spacing):
# every Unicode space but " ", which covers markdown-it's isWhiteSpace and canonical._SPACES.
_ODD_SPACE = re.compile(r"[^\S ]")
_LANGUAGE = re.compile(r"[A-Za-z0-9_+#.-]*")


class Unsure(Exception):
    """A block whose canonical form is left to `canonicalize`."""


@dataclass
class Code:
    text: str


@dataclass
class Image:
    alt: str
    src: str


@dataclass
class Span:
    """Emphasis ("em"), strong emphasis ("strong") or a link ("a", with its target)."""

    kind: str
    children: list[Piece]
    href: str = ""


Piece = str | Code | Image | Span  # a str is text


class _Node:
    """The parts of mdformat's RenderTreeNode that its code, heading and fence renderers read: the real
    renderers then run on the tree the converter meant."""

    def __init__(self, type_: str, rendered: str = ""):
        self.type = type_
        self.content = self.info = self.markup = ""
        self.children: list[_Node] = []
        self._rendered = rendered

    def render(self, context: RenderContext) -> str:
        return self._rendered


def _render(type_: str, node: _Node) -> str:
    return str(DEFAULT_RENDERERS[type_](node, render_context()))  # type: ignore[arg-type]


@dataclass
class Written:
    """A document in canonical Markdown and the number of words a reader sees in it (`plain_words`)."""

    markdown: str
    words: int


def write(converter: Converter, root: Tag) -> Written | None:
    """The canonical Markdown of `root`, as `canonicalize(converter.convert(root))` gives it; None when the
    document must go through `canonicalize` whole (invisible characters are counted there)."""
    writer = _Writer(converter)
    leaves: list[tuple[Leaf, str | None, int]] = []  # each leaf, its direct form (None: the long road), words
    for leaf in converter.leaves(root, 0):
        writer.words = 0
        try:
            direct: str | None = writer.leaf(leaf)
        except Unsure:
            direct = None
        if direct != "":
            leaves.append((leaf, direct, writer.words))
    pieces: list[str] = []
    pending: list[str] = []  # escaped Markdown of consecutive blocks left to canonicalize
    words = 0

    def settle() -> None:
        nonlocal words
        if pending:
            settled = _settle(pending)
            pieces.append(settled)
            words += len(canonical.plain_words(settled))
            pending.clear()

    kinds = [leaf.kind for leaf, _, _ in leaves]
    try:
        for k, (leaf, direct, count) in enumerate(leaves):
            if _beside_a_list(kinds, k):  # such neighbours go the long road together
                direct = None
            if direct is None:
                pending.extend(t for t in converter.leaf(leaf) if t.strip())
                continue
            settle()
            pieces.append(direct)
            words += count
        settle()
    except _Invisible:
        return None
    text = "\n\n".join(p for p in pieces if p)
    if canonical._INVISIBLE.search(text):
        return None
    return Written(text + "\n" if text else "", words)


def _beside_a_list(kinds: Sequence[str], k: int) -> bool:
    """Whether block k is a list with a list next to it: in Markdown the two would join into one."""
    return kinds[k] in _LIST_KINDS and any(
        0 <= j < len(kinds) and kinds[j] in _LIST_KINDS for j in (k - 1, k + 1)
    )


class _Invisible(Exception):
    """Text with invisible characters: the document is canonicalized whole, where they are counted."""


def _settle(escaped: list[str]) -> str:
    """Escaped Markdown of neighbouring blocks, canonicalized together."""
    text = "\n\n".join(escaped)
    if canonical._INVISIBLE.search(text):
        raise _Invisible
    return canonical.canonicalize(text).text.strip("\n")


class _Writer:
    """Writes leaf blocks in canonical form, or raises Unsure."""

    def __init__(self, converter: Converter) -> None:
        self.converter = converter
        self.words = 0  # words written so far, as plain_words counts them

    def leaf(self, leaf: Leaf) -> str:
        """The canonical form of a leaf ("" when it has no text)."""
        node, depth = leaf.node, leaf.depth
        if isinstance(node, list):
            return self.paragraph(self.run(node, depth))
        name = leaf.kind
        if name in HEADINGS:
            return self.heading(int(name[1]), self.run(list(node.contents), depth))
        if name in ("ul", "ol"):
            return self.list_block(node, depth)
        if name == "pre":
            return self.code_block(node)
        if name == "hr":
            return "***"
        if name == "blockquote":
            return self.quote(node, depth)
        raise Unsure(name)

    # -- blocks -----------------------------------------------------------------------------------------
    def paragraph(self, pieces: list[Piece]) -> str:
        if not pieces:
            return ""
        self.words += len(_shown(pieces).split())
        return escape_paragraph(_inline(pieces, " ", " "))

    def heading(self, level: int, pieces: list[Piece]) -> str:
        if not pieces:
            return ""
        self.words += len(_shown(pieces).split())
        node = _Node("heading")
        node.markup = "#" * level
        node.children = [_Node("inline", rendered=_inline(pieces, " ", " "))]
        return _render("heading", node)

    def list_block(self, node: Tag, depth: int) -> str:
        items = [c for c in node.contents if isinstance(c, Tag) and c.name in ("li", "ul", "ol")]
        if not items or any(c.name != "li" for c in items):
            raise Unsure("list")
        bodies = [self.item(item, depth + 1) for item in items]
        if node.name == "ul":
            markers = ["-"] * len(bodies)
            indent = 2
        else:
            first = list_start(node)
            last = first + len(bodies) - 1
            if last > 999_999_999:
                raise Unsure("list numbering")
            width = len(str(last))
            markers = [f"{str(n).rjust(width, '0')}." for n in range(first, last + 1)]
            indent = width + 2
        lines: list[str] = []
        for marker, body in zip(markers, bodies, strict=True):
            head, *rest = body.split("\n")
            lines.append(f"{marker} {head}")
            lines.extend(" " * indent + line if line else "" for line in rest)
        return "\n".join(lines)

    def quote(self, node: Tag, depth: int) -> str:
        kinds: list[str] = []
        parts: list[str] = []
        for leaf in self.converter.leaves(node, depth):
            text = self.leaf(leaf)
            if text:
                kinds.append(leaf.kind)
                parts.append(text)
        if any(_beside_a_list(kinds, k) for k in range(len(kinds))):
            raise Unsure("lists side by side")
        return (
            "\n".join(f"> {line}" if line else ">" for line in "\n\n".join(parts).split("\n"))
            if parts
            else ""
        )

    def item(self, item: Tag, depth: int) -> str:
        """A tight list item: a paragraph, then at most one list."""
        leaves = self.converter.leaves(item, depth)
        parts: list[str] = []
        for leaf in leaves:
            if leaf.kind == "run" and not parts:
                text = self.paragraph(self.run(leaf.node, leaf.depth))
                if not text:
                    continue  # spacing between blocks: no paragraph
            elif leaf.kind in ("ul", "ol") and len(parts) == 1:
                text = self.list_block(leaf.node, leaf.depth)
            else:
                raise Unsure("list item")
            parts.append(text)
        if not parts:
            raise Unsure("empty list item")
        return "\n".join(parts)

    def code_block(self, node: Tag) -> str:
        text, lang = code_parts(node)
        if "\r" in text or not _LANGUAGE.fullmatch(lang) or not unicodedata.is_normalized("NFC", text):
            raise Unsure("code block")
        self.words += len(text.split())
        fence = _Node("fence")
        fence.info, fence.content = lang, text + "\n"
        return _render("fence", fence)

    # -- inline -----------------------------------------------------------------------------------------
    def run(self, nodes: Sequence[PageElement], depth: int) -> list[Piece]:
        """A paragraph's pieces, spaced as `Converter.inline_run` spaces them."""
        pieces: list[Piece] = []
        for node in nodes:
            self.inline(node, depth, pieces)
        _collapse(pieces)
        _strip(pieces)
        return pieces

    def inline(self, node: PageElement, depth: int, out: list[Piece]) -> None:
        """Append a node's pieces to `out`, texts joined (markdown-it makes one text token of them)."""
        if isinstance(node, NavigableString):
            if not node:
                return
            if "  " in node or (not node.isprintable() if node.isascii() else _ODD_SPACE.search(node)):
                _add(out, _plain(_WS.sub(" ", node)))
            elif node.isascii() or unicodedata.is_normalized("NFC", node):
                _add(out, node)  # plain spacing already: only the composition needed checking
            else:
                raise Unsure("composition")
            return
        if not isinstance(node, Tag):
            return
        name = node.name
        if depth > MAX_DEPTH or name == "br":
            raise Unsure(name)
        if name == "img":
            _extend(out, self.image(node))
            return
        if name in CODE_TAGS:
            text = _plain(_WS.sub(" ", node.get_text()))
            if not text.strip():
                _add(out, text)
            elif text[0] == " " or text[-1] == " ":
                raise Unsure("code span")
            else:
                out.append(Code(text))
            return
        inner: list[Piece] = []
        for child in node.contents:
            self.inline(child, depth + 1, inner)
        if name == "a":
            href = self.converter.clean_url(str(node.get("href") or ""))
            _extend(out, _wrap(inner, "a", href) if href else inner)
        elif name in STRONG_TAGS:
            _extend(out, _wrap(inner, "strong"))
        elif name in EM_TAGS:
            _extend(out, _wrap(inner, "em"))
        elif name in BLOCKS:
            _extend(out, [" ", *inner, " "])
        else:
            _extend(out, inner)

    def image(self, node: Tag) -> list[Piece]:
        src = self.converter.clean_url(str(node.get("src") or ""))
        alt = _plain(_WS.sub(" ", str(node.get("alt") or "")).strip())
        if not src:
            return [alt]
        target = link_target(src)
        if not target:
            raise Unsure("image")
        return [Image(alt, target)]


def _shown(pieces: list[Piece]) -> str:
    """The text a reader sees in pieces (as `canonical._inline_text` reads it back)."""
    out: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece)
        elif isinstance(piece, Code):
            out.append(piece.text)
        elif isinstance(piece, Image):
            out.append(piece.alt)
        else:
            out.append(_shown(piece.children))
    return "".join(out)


def _plain(text: str) -> str:
    """Text as it is, where only plain spaces and NFC text make sure markdown-it reads it back the same."""
    if _ODD_SPACE.search(text) or not (text.isascii() or unicodedata.is_normalized("NFC", text)):
        raise Unsure("spacing or composition")
    return text


def _add(out: list[Piece], piece: Piece) -> None:
    if isinstance(piece, str):
        if not piece:
            return
        if out and isinstance(out[-1], str):
            out[-1] += piece
            return
    out.append(piece)


def _extend(out: list[Piece], pieces: list[Piece]) -> None:
    for piece in pieces:
        _add(out, piece)


def _collapse(pieces: list[Piece]) -> None:
    """Runs of spaces to one, inside spans too (the converter collapses its whole output)."""
    for i, piece in enumerate(pieces):
        if isinstance(piece, str):
            if "  " in piece:
                pieces[i] = re.sub(" {2,}", " ", piece)
        elif isinstance(piece, Span):
            _collapse(piece.children)


def _strip(pieces: list[Piece]) -> None:
    """Leading and trailing spaces off, in place."""
    while pieces and isinstance(pieces[0], str):
        pieces[0] = pieces[0].lstrip(" ")
        if pieces[0]:
            break
        pieces.pop(0)
    while pieces and isinstance(pieces[-1], str):
        pieces[-1] = pieces[-1].rstrip(" ")
        if pieces[-1]:
            break
        pieces.pop()


def _wrap(inner: list[Piece], kind: str, href: str = "") -> list[Piece]:
    """Markup around pieces, their outer spaces kept outside (as `html._wrap`)."""
    if not inner:
        return inner
    lead = isinstance(inner[0], str) and inner[0].startswith(" ")
    trail = isinstance(inner[-1], str) and inner[-1].endswith(" ")
    stripped = list(inner)
    _strip(stripped)
    if not stripped:
        return inner
    if kind == "a":
        href = link_target(href)
        if not href or _has_link(stripped):
            raise Unsure("link")
    wrapped: list[Piece] = [" "] if lead else []
    wrapped.append(Span(kind, stripped, href))
    if trail:
        wrapped.append(" ")
    return wrapped


def _has_link(pieces: list[Piece]) -> bool:
    """Whether there is a link among pieces, at any depth (a link inside a link is not Markdown)."""
    return any(
        isinstance(piece, Span) and (piece.kind == "a" or _has_link(piece.children)) for piece in pieces
    )


def _inline(pieces: list[Piece], before: str, after: str, nested: bool = False) -> str:
    """Render pieces as mdformat does; `before` and `after` are what markdown-it sees around them, `nested`
    says they are inside an emphasis. Raises Unsure where an emphasis might not parse back as one."""
    out: list[str] = []
    length = (
        0  # of what is in `out`, kept as it grows: summing it again at each emphasis grew with the square
    )
    marks: list[tuple[int, int, int, int]] = []  # opener start, opener end, closer start, closer end
    for i, piece in enumerate(pieces):
        if isinstance(piece, str):
            following = pieces[i + 1] if i + 1 < len(pieces) else None
            out.append(escape_text(piece, isinstance(following, Span) and following.kind == "a"))
        elif isinstance(piece, Image):
            out.append(f"![{escape_text(piece.alt, False)}]({link_destination(piece.src)})")
        elif isinstance(piece, Code):
            if i and isinstance(pieces[i - 1], Code):
                raise Unsure("code spans side by side")  # in Markdown they run together
            if "`" not in piece.text:  # no backticks and no outer spaces: mdformat's renderer gives `text`
                out.append(f"`{piece.text}`")
            else:
                code = _Node("code_inline")
                code.content = piece.text
                out.append(_render("code_inline", code))
        elif piece.kind == "a":
            out.append(f"[{_inline(piece.children, '[', ' ')}]({link_destination(piece.href)})")
        else:
            marker = "*" if piece.kind == "em" else "**"
            inner = _inline(piece.children, "", "", nested=True)
            out.append(marker + inner + marker)
            marks.append(
                (length, length + len(marker), length + len(marker) + len(inner), length + len(out[-1]))
            )
        length += len(out[-1])
    text = "".join(out)
    for open_start, open_end, close_start, close_end in marks:
        prev = text[open_start - 1] if open_start else before
        nxt = text[close_end] if close_end < len(text) else after
        if "*" in (prev, text[open_end], text[close_start - 1], nxt) or "" in (prev, nxt):
            raise Unsure("emphasis next to emphasis")
        opens, closes = flanking(prev, text[open_end])
        if not opens or (closes and nested):
            raise Unsure("emphasis that would not open")
        opens, closes = flanking(text[close_start - 1], nxt)
        if not closes or (opens and nested):
            raise Unsure("emphasis that would not close")
    return text
