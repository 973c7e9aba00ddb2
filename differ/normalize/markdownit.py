"""markdown-it-py and mdformat set up for differ: the one parser every reader shares (CommonMark plus tables,
nesting bounded so no text is dropped, `file:` links read as links) and the renderer that writes canonical
Markdown back (differ's style, compact tables, and mdformat's own renderers done without their slow spots)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, ClassVar

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from mdformat.renderer import WRAP_POINT, MDRenderer, RenderContext, RenderTreeNode
from mdformat.renderer._util import (
    is_tight_list,
    maybe_add_link_brackets,
)


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
    """mdformat's `text` renderer: spacing settled, then the escapes the writer makes (mdescape's, with the
    `*` and `_` escapes marker by marker, where mdformat 1.0 builds its set of Unicode punctuation again for
    every piece of text with a `_`), the next sibling looked at only after a final `!`."""
    from differ.normalize.mdescape import escape_text

    text = _SPACE_RUN.sub(" ", node.content.replace("\t", " "))
    following = node.next_sibling if text.endswith("!") else None
    before_link = following is not None and following.type == "link"
    text = escape_text(text, before_link, context.env["used_refs"]).replace("\n\n", "&#10;&#10;")
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
            # mdformat-tables padded a cell holding a control character (a tab in a code span) with a space
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
