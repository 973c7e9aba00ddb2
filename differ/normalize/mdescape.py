"""Markdown written as mdformat writes it, for the writer's blocks: text escaped by its rules, a one-line
paragraph's start escaped where it would read as another block, link targets and destinations as markdown-it
and mdformat make them, and whether an emphasis marker can open or close. Each function says which of
mdformat's or markdown-it's own it stands for; tests/test_writer.py holds them to those."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from functools import lru_cache
from typing import Any

from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace, unescapeAll
from markdown_it.rules_block.html_block import HTML_SEQUENCES
from mdformat.codepoints import ASCII_CTRL, UNICODE_PUNCTUATION, UNICODE_WHITESPACE
from mdformat.renderer import DEFAULT_RENDERERS, RenderContext
from mdformat.renderer._util import (
    decimalify_leading,
    decimalify_trailing,
    escape_less_than_sign,
    escape_square_brackets,
    re_char_reference,
)

from differ.normalize import markdownit

KEPT_URL = re.compile(  # runs are possessive: no two branches tried at every character
    r"https?://[A-Za-z0-9.-]{1,200}(?:[/?#](?:[A-Za-z0-9\-._~:/?#!$'()*+,;=]++|%[0-9A-Fa-f]{2})*+)?"
)


@lru_cache(maxsize=1)
def render_context() -> RenderContext:
    return RenderContext(
        DEFAULT_RENDERERS, {}, markdownit.parser().options, {"used_refs": set(), "indent_width": 0}
    )


@lru_cache(maxsize=8192)
def link_target(href: str) -> str:
    """The target markdown-it gives `[…](<href>)`, or "" where it might not make a link of it."""
    if KEPT_URL.fullmatch(href):
        return href  # an http(s) URL of characters markdown-it keeps: its own normal form, and a valid link
    if "\\" in href or "\n" in href or not unicodedata.is_normalized("NFC", href):
        return ""
    mdit = markdownit.parser()
    target = str(mdit.normalizeLink(unescapeAll(href)))
    return target if mdit.validateLink(target) else ""


_NEEDS_BRACKETS = ASCII_CTRL | {" ", "(", ")"}


def link_destination(link: str) -> str:
    """A link destination as mdformat writes it (its maybe_add_link_brackets, without building the set of
    characters on every call)."""
    return "<" + link + ">" if not link or not _NEEDS_BRACKETS.isdisjoint(link) else link


def escape_text(text: str, before_link: bool, used_refs: Collection[str] = ()) -> str:
    """mdformat's escaping of a text token (its `text` renderer, less the wrap marks that its paragraph
    renderer turns back into the same single spaces); `used_refs` the reference labels the document uses."""
    text = escape_emphasis(text.replace("\\", "\\\\"))
    if "[" in text or "]" in text:
        text = escape_square_brackets(text, used_refs)
    if "<" in text:
        text = escape_less_than_sign(text)
    text = text.replace("`", "\\`")
    if "&" in text:
        text = re_char_reference().sub(lambda m: "\\" + m.group(), text)
    if before_link and text.endswith("!"):
        text = text[:-1] + "\\!"
    return text


def escape_emphasis(text: str) -> str:
    """mdformat's escape_asterisk_emphasis and escape_underscore_emphasis, marker by marker."""
    if "*" in text:
        text = _ASTERISK.sub(_asterisk, text)
    if "_" in text:
        text = _UNDERSCORE.sub(_underscore, text)
    return text


# mdformat escapes `*` and `_` by their neighbours alone (its escape_asterisk_emphasis and
# escape_underscore_emphasis, which build the text a character at a time, the latter building its set of
# Unicode punctuation again at every call): the same rules, on each marker.
_ASTERISK = re.compile(r"\*")
_UNDERSCORE = re.compile("_")
_BAD_NEIGHBOURS = UNICODE_WHITESPACE | UNICODE_PUNCTUATION


def _neighbours(m: re.Match[str]) -> tuple[str | None, str | None]:
    """The characters before and after a matched marker (None at either end of the text)."""
    text, at = m.string, m.start()
    return (text[at - 1] if at else None), (text[at + 1] if at + 1 < len(text) else None)


def _asterisk(m: re.Match[str]) -> str:
    before, after = _neighbours(m)
    return "*" if before in UNICODE_WHITESPACE and after in UNICODE_WHITESPACE else "\\*"


def _underscore(m: re.Match[str]) -> str:
    before, after = _neighbours(m)
    if before in UNICODE_WHITESPACE and after in UNICODE_WHITESPACE:
        return "_"
    if (
        before is not None
        and after is not None
        and before not in _BAD_NEIGHBOURS
        and after not in _BAD_NEIGHBOURS
    ):
        return "_"
    return "\\_"


_STARTERS = frozenset("#>-*+0123456789=_|:<~") | UNICODE_WHITESPACE | {""}
_HTML_STARTS = [pattern for pattern, _, can_break_paragraph in HTML_SEQUENCES if can_break_paragraph]


_HEADING_OR_BULLET = re.compile(r"#{1,6}( |\t|$)|[-*+]( |\t|$)")
_NUMBERED_PAREN = re.compile(r"[0-9]+\)( |\t|$)")
_NUMBERED_DOT = re.compile(r"[0-9]+\.( |\t|$)")


def escape_paragraph(line: str) -> str:
    """mdformat's paragraph renderer for a paragraph of one line: escapes for a start that would read as
    another block."""
    line = decimalify_trailing(UNICODE_WHITESPACE, line)
    if line[:1] not in _STARTERS:
        return line  # every escape below is for a line that starts with one of these
    line = decimalify_leading(UNICODE_WHITESPACE, line).strip()
    if _HEADING_OR_BULLET.match(line) or line.startswith(">"):
        line = "\\" + line
    if _NUMBERED_PAREN.match(line):
        line = line.replace(")", "\\)", 1)
    if _NUMBERED_DOT.match(line):
        line = line.replace(".", "\\.", 1)
    bare = line.replace(" ", "").replace("\t", "")
    if len(bare) >= 3:
        for char in "*-_":
            if bare == char * len(bare):
                line = line.replace(char, "\\" + char, 1)
                break
    stripped = line.strip(" \t")
    if all(c == "-" for c in stripped):
        line = line.replace("-", "\\-", 1)
    elif all(c == "=" for c in stripped):
        line = line.replace("=", "\\=", 1)
    if any(pattern.search(line) for pattern in _HTML_STARTS):
        line = "    " + line
    for postprocess in paragraph_postprocessors():
        line = postprocess(line, None, render_context())
    return line


@lru_cache(maxsize=1)
def paragraph_postprocessors() -> list[Any]:
    """What the parser's plugins do to every rendered paragraph (a line that would read as a table's delimiter
    row is escaped); the table plugin's is run as its one-line equal."""
    plugins = markdownit.parser().options["parser_extension"]
    found = [plugin.POSTPROCESSORS["paragraph"] for plugin in plugins if "paragraph" in plugin.POSTPROCESSORS]
    return [_ONE_LINE.get(postprocess, postprocess) for postprocess in found]


def delimiter_row_escaped(line: str, node: object, context: object) -> str:
    """The table plugin's paragraph postprocessor on a paragraph of one line: the first "-" escaped where the
    line is nothing but "|", "-", ":" and spaces (it tests every character of every line in a generator)."""
    return line if line.strip("|-: ") else line.replace("-", "\\-", 1)


_ONE_LINE: dict[Any, Any] = {markdownit.delimiter_rows_escaped: delimiter_row_escaped}


def flanking(last: str, next_: str) -> tuple[bool, bool]:
    """Whether a `*` run between these characters can open and can close emphasis (as markdown-it's
    scanDelims decides)."""
    last_punct = isMdAsciiPunct(ord(last)) or isPunctChar(last)
    next_punct = isMdAsciiPunct(ord(next_)) or isPunctChar(next_)
    last_space, next_space = isWhiteSpace(ord(last)), isWhiteSpace(ord(next_))
    left = not (next_space or (next_punct and not (last_space or last_punct)))
    right = not (last_space or (last_punct and not (next_space or next_punct)))
    return left, right
