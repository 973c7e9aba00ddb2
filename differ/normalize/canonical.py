"""One canonical Markdown for every source: parsed with markdown-it-py, written back in a single style.

The style: ATX headings, `-` bullets, `*` emphasis and `**` strong, fenced code, minimal escaping, no hard
wrapping, whitespace collapsed inside paragraphs and pulled out of link text, Unicode NFC. Zero-width and
control characters are removed but counted, with the block they were in, so a diff can report them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from mdformat.renderer import WRAP_POINT, MDRenderer, RenderContext, RenderTreeNode
from mdformat.renderer._util import (
    escape_less_than_sign,
    escape_square_brackets,
    is_tight_list,
    maybe_add_link_brackets,
    re_char_reference,
)

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


def _hr(node: RenderTreeNode, context: RenderContext) -> str:
    return "***"


def _image(node: RenderTreeNode, context: RenderContext) -> str:
    """An image whose description is written as Markdown, escapes kept (mdformat writes its bare text, so
    the alt text "Fig. 1: a*b" read back as "Fig 1 ab")."""
    description = "".join(child.render(context) for child in node.children).replace(WRAP_POINT, " ")
    label = node.meta.get("label")
    if label:
        context.env["used_refs"].add(label)
        return (
            f"![{description}]"
            if description.lower() == label.lower()
            else f"![{description}][{label.lower()}]"
        )
    uri = maybe_add_link_brackets(str(node.attrs["src"]))
    title = node.attrs.get("title")
    if title is None:
        return f"![{description}]({uri})"
    escaped = str(title).replace('"', '\\"')
    return f'![{description}]({uri} "{escaped}")'


_TILDE_FENCE = re.compile(r"^( {0,3})~~~", re.MULTILINE)


def _tilde_fence_escaped(text: str, node: Any, context: Any) -> str:
    """A paragraph line that starts with three tildes, escaped: unescaped it would open a code fence (mdformat
    escapes three backticks there, not three tildes, so `\\~~~` came out as a fence)."""
    return _TILDE_FENCE.sub(r"\1\\~~~", text) if "~~~" in text else text


_SPACE_RUN = re.compile(" {2,}")
_WRAPPED = re.compile(r"[ \t\n]+")


def _text(node: RenderTreeNode, context: RenderContext) -> str:
    """mdformat's `text` renderer, step by step, with its `*` and `_` escapes made marker by marker
    (mdescape's): mdformat 1.0 builds its set of Unicode punctuation again for every piece of text with a
    `_`, which made a Markdown page a third slower to write, and looks for the next sibling of every piece."""
    from differ.normalize.mdescape import escape_emphasis

    text = _SPACE_RUN.sub(" ", node.content.replace("\t", " ")).replace("\\", "\\\\")
    text = escape_emphasis(text)
    if "[" in text or "]" in text:
        text = escape_square_brackets(text, context.env["used_refs"])
    if "<" in text:
        text = escape_less_than_sign(text)
    text = text.replace("`", "\\`")
    if "&" in text:
        text = re_char_reference().sub(r"\\\g<0>", text)
    text = text.replace("\n\n", "&#10;&#10;")
    if text.endswith("!"):
        following = node.next_sibling
        if following is not None and following.type == "link":
            text = text[:-1] + "\\!"
    if context.do_wrap and _in_paragraph(node):
        text = _WRAPPED.sub(WRAP_POINT, text)
    return text


def _in_paragraph(node: RenderTreeNode) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "paragraph":
            return True
        parent = parent.parent
    return False


def _list_item(node: RenderTreeNode, context: RenderContext) -> str:
    """mdformat's `list_item` renderer, with the list's tightness worked out once for the list (mdformat looks
    at every item of the list for each item: a list of 4,000 items took 11 s)."""
    parent = node.parent
    tight = parent.tight() if isinstance(parent, _Node) else parent is not None and is_tight_list(parent)
    text = ("\n" if tight else "\n\n").join(out for child in node.children if (out := child.render(context)))
    return text if text.strip() else ""


class _Faster:
    """mdformat's own renderers, done without its slow spots (tests/test_writer.py holds the output to
    mdformat's byte for byte)."""

    RENDERERS: ClassVar[dict[str, Any]] = {"text": _text, "list_item": _list_item}
    POSTPROCESSORS: ClassVar[dict[str, Any]] = {}

    @staticmethod
    def update_mdit(mdit: MarkdownIt) -> None:
        return None


class _Style:
    """Renderer overrides for differ's style (passed to mdformat as a parser extension)."""

    RENDERERS: ClassVar[dict[str, Any]] = {"hr": _hr, "image": _image}
    POSTPROCESSORS: ClassVar[dict[str, Any]] = {"paragraph": _tilde_fence_escaped}

    @staticmethod
    def update_mdit(mdit: MarkdownIt) -> None:
        return None


def _table(node: RenderTreeNode, context: RenderContext) -> str:
    """A table as one line a row, cells unpadded (`| a | b |`, `| -- | :-: |`): a column's width is no part of
    its text, and padding would make one cell's edit rewrite every row."""
    rows: list[list[str]] = []
    delimiter: list[str] = []
    for descendant in node.walk(include_self=False):
        if descendant.type == "tr":
            rows.append([])
        elif descendant.type in ("th", "td"):
            style = str(descendant.attrs.get("style") or "")
            align = next((a for a in ("left", "right", "center") if f"text-align:{a}" in style), "")
            text = descendant.children[0].render(context).replace("|", "\\|")
            # a control character (removed from the text before it gets here) had a padding space
            pad = " " if any(0 < ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in text) else ""
            rows[-1].append(pad + text if align == "right" else text + pad)
            if len(rows) == 1:
                delimiter.append({"left": ":-", "right": "-:", "center": ":-:"}.get(align, "--"))
    lines = [rows[0], delimiter, *rows[1:]]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def delimiter_rows_escaped(text: str, node: Any, context: Any) -> str:
    """A paragraph line of nothing but `|`, `-`, `:` and spaces, its first `-` escaped: unescaped it could read
    as a table's delimiter row."""
    return "\n".join(
        line.replace("-", "\\-", 1) if all(c in "|-: " for c in line) else line for line in text.split("\n")
    )


class _Tables:
    """Tables (GitHub's syntax, which markdown-it reads when its `table` rule is on), written compactly."""

    RENDERERS: ClassVar[dict[str, Any]] = {"table": _table}
    POSTPROCESSORS: ClassVar[dict[str, Any]] = {"paragraph": delimiter_rows_escaped}

    @staticmethod
    def update_mdit(mdit: MarkdownIt) -> None:
        mdit.enable("table")


# markdown-it drops whatever is nested deeper than its `maxNesting` (20 token levels in the CommonMark preset:
# ten levels of list, twenty of quote), so a page could hide text from every diff and audit in a deep list.
# Instead, past CONTAINER_LEVELS no quote or list opens: what would be one is read as the text it is.
CONTAINER_LEVELS = 40
MAX_NESTING = CONTAINER_LEVELS + 20  # room for what a container's content opens (a paragraph, a table)


def _file_links(mdit: MarkdownIt) -> MarkdownIt:
    """The parser with `file:` links read as links: markdown-it refuses them (as it does `javascript:`, which
    the HTML reader drops), so a local file's relative links, which resolve to `file:` as in a browser, were
    written as literal text, and a changed target was an edit of that text rather than a `link` change."""
    refuses = mdit.validateLink
    mdit.validateLink = lambda url: url.strip().lower().startswith("file:") or refuses(url)  # type: ignore[method-assign]
    return mdit


def _shallow(mdit: MarkdownIt) -> MarkdownIt:
    """The parser with quotes and lists opening only up to CONTAINER_LEVELS, so that nothing is ever nested
    past `maxNesting`, where markdown-it would drop it."""
    mdit.options["maxNesting"] = MAX_NESTING
    for name in ("blockquote", "list"):
        rule = next(r for r in mdit.block.ruler.__rules__ if r.name == name)

        def opens(state: Any, start: int, end: int, silent: bool, fn: Any = rule.fn) -> bool:
            return state.level < CONTAINER_LEVELS and bool(fn(state, start, end, silent))

        mdit.block.ruler.at(name, opens, {"alt": list(rule.alt)})
    return mdit


class _Node(RenderTreeNode):
    """mdformat's tree node, its siblings found at once: markdown-it-py looks a node up among all its
    siblings, and mdformat asks for the next sibling of every piece of text, so 20,000 nested list items or a
    paragraph of 40,000 pieces took seconds growing with the square of their number."""

    def _place(self) -> tuple[list[Any], int]:
        parent = self.parent
        if parent is None:
            return [self], 0
        places = parent.__dict__.get("_places")
        if places is None or len(places) != len(parent.children):
            places = parent.__dict__["_places"] = {id(node): i for i, node in enumerate(parent.children)}
        return parent.children, places[id(self)]

    def tight(self) -> bool:
        """Whether this list is tight (mdformat's is_tight_list), worked out once."""
        known = self.__dict__.get("_tight")
        if known is None:
            known = self.__dict__["_tight"] = is_tight_list(self)
        return bool(known)

    @property
    def next_sibling(self) -> Any:
        siblings, place = self._place()
        return siblings[place + 1] if place + 1 < len(siblings) else None

    @property
    def previous_sibling(self) -> Any:
        siblings, place = self._place()
        return siblings[place - 1] if place > 0 else None


class _Renderer(MDRenderer):
    """mdformat's renderer on `_Node`s."""

    def render(self, tokens: Sequence[Token], options: Any, env: Any, *, finalize: bool = True) -> str:
        return self.render_tree(_Node(tokens), options, env, finalize=finalize)


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """The shared markdown-it-py parser: CommonMark plus tables, rendering back to Markdown."""
    mdit = _file_links(_shallow(MarkdownIt("commonmark", renderer_cls=_Renderer)))  # type: ignore[arg-type]
    mdit.options["mdformat"] = {"wrap": "no", "number": True, "compact_tables": True}
    mdit.options["store_labels"] = True
    mdit.options["parser_extension"] = [_Tables, _Style, _Faster]
    _Tables.update_mdit(mdit)
    return mdit


@lru_cache(maxsize=1)
def html_renderer() -> MarkdownIt:
    """A parser with the same syntax that renders HTML, for checking that rendering is preserved."""
    return _file_links(_shallow(MarkdownIt("commonmark", renderer_cls=RendererHTML))).enable("table")


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
