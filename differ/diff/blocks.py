"""Split canonical Markdown into blocks (heading, paragraph, list item, table row, code, quote), each with
its section path, its visible words and a key that ignores formatting."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it.token import Token

from differ.normalize.canonical import parser

_CLOSING_PUNCT = " ,:;.–-—"


@dataclass
class Block:
    """One unit of comparison."""

    kind: str  # heading, paragraph, item, row, code, quote
    text: str  # visible text (markup removed)
    source: str  # canonical Markdown of the block
    section: tuple[str, ...] = ()
    level: int = 0  # heading level; nesting depth for items
    links: tuple[tuple[str, str], ...] = ()
    lead: str = ""  # leading bold phrase, used to name list items
    line: int = 0

    @property
    def key(self) -> str:
        """Equal keys mean no visible change: same kind of block, same words, same link targets."""
        return (
            f"{self.kind}\x1f{self.level if self.kind == 'heading' else ''}\x1f{self.text}\x1f"
            + "\x1e".join(url for _, url in self.links)
        )

    @property
    def text_key(self) -> str:
        return f"{self.kind}\x1f{self.text}"

    @property
    def label(self) -> str:
        """A short name for the block in summaries: an item's bold lead, or its first words."""
        if self.lead:
            return self.lead.strip(_CLOSING_PUNCT)
        words = self.text.split()
        return " ".join(words[:6]) + (" …" if len(words) > 6 else "")


@dataclass
class _Inline:
    text: str = ""
    links: list[tuple[str, str]] = field(default_factory=list)
    lead: str = ""


def _inline(token: Token) -> _Inline:
    out = _Inline()
    parts: list[str] = []
    link_stack: list[tuple[str, int]] = []
    strong_start: int | None = None
    first_strong_done = False
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            alt = "".join(c.content for c in child.children or [])
            parts.append(alt)
            out.links.append((alt, str(child.attrs.get("src", ""))))
        elif child.type == "link_open":
            link_stack.append((str(child.attrs.get("href", "")), len("".join(parts))))
        elif child.type == "link_close" and link_stack:
            href, start = link_stack.pop()
            out.links.append(("".join(parts)[start:], href))
        elif child.type == "strong_open" and not first_strong_done and not "".join(parts).strip():
            strong_start = len("".join(parts))
        elif child.type == "strong_close" and strong_start is not None and not first_strong_done:
            out.lead = "".join(parts)[strong_start:].strip()
            first_strong_done = True
        elif child.type == "html_inline":
            parts.append(child.content)
    out.text = " ".join("".join(parts).split())
    return out


def split_blocks(markdown: str) -> list[Block]:
    """The blocks of a canonical Markdown document, in order, each knowing its section path."""
    tokens = parser().parse(markdown)
    lines = markdown.split("\n")
    blocks: list[Block] = []
    headings: list[tuple[int, str]] = []
    context: list[str] = []  # open containers: "item", "quote", "table"
    item_depth = 0
    intro: str | None = None  # paragraph introducing a list before the first heading
    last_paragraph: str | None = None
    row: list[str] = []
    row_links: list[tuple[str, str]] = []
    row_start = 0
    pending_heading: Token | None = None

    def section() -> tuple[str, ...]:
        trail = tuple(text for _, text in headings)
        if not trail and item_depth and intro:
            return (intro.rstrip(_CLOSING_PUNCT),)
        return trail

    def src(tok: Token) -> str:
        if tok.map is None:
            return ""
        return "\n".join(lines[tok.map[0] : tok.map[1]])

    for i, tok in enumerate(tokens):
        t = tok.type
        if t == "heading_open":
            pending_heading = tok
        elif t == "inline" and pending_heading is not None:
            info = _inline(tok)
            level = int(pending_heading.tag[1])
            while headings and headings[-1][0] >= level:
                headings.pop()
            blocks.append(
                Block(
                    "heading",
                    info.text,
                    src(pending_heading),
                    tuple(h for _, h in headings),
                    level,
                    tuple(info.links),
                    line=(pending_heading.map or [0])[0],
                )
            )
            headings.append((level, info.text))
            pending_heading = None
            intro = None
        elif t in ("bullet_list_open", "ordered_list_open"):
            if (
                item_depth == 0
                and not headings
                and last_paragraph is not None
                and tokens[i - 1].type == "paragraph_close"
            ):
                intro = last_paragraph
            item_depth += 1
        elif t in ("bullet_list_close", "ordered_list_close"):
            item_depth -= 1
        elif t == "list_item_open":
            context.append("item")
        elif t == "list_item_close":
            context.pop()
        elif t == "blockquote_open":
            context.append("quote")
        elif t == "blockquote_close":
            context.pop()
        elif t == "inline" and tokens[i - 1].type == "paragraph_open":
            info = _inline(tok)
            opener = tokens[i - 1]
            kind = (
                "item"
                if context and context[-1] == "item"
                else ("quote" if "quote" in context else "paragraph")
            )
            blocks.append(
                Block(
                    kind,
                    info.text,
                    src(opener),
                    section(),
                    item_depth if kind == "item" else 0,
                    tuple(info.links),
                    info.lead,
                    (opener.map or [0])[0],
                )
            )
            if not context:
                last_paragraph = info.text
        elif t in ("fence", "code_block"):
            content = tok.content.rstrip("\n")
            blocks.append(
                Block("code", content, src(tok), section(), 0, (), tok.info.strip(), (tok.map or [0])[0])
            )
        elif t == "tr_open":
            row, row_links, row_start = [], [], (tok.map or [0])[0]
        elif t == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            info = _inline(tok)
            row.append(info.text)
            row_links.extend(info.links)
        elif t == "tr_close":
            blocks.append(
                Block(
                    "row",
                    " | ".join(row),
                    lines[row_start] if row_start < len(lines) else "",
                    section(),
                    0,
                    tuple(row_links),
                    line=row_start,
                )
            )
        elif t == "html_block":
            blocks.append(
                Block("html", " ".join(tok.content.split()), src(tok), section(), 0, line=(tok.map or [0])[0])
            )
        elif t == "hr":
            continue
    return blocks


_WORD = re.compile(r"\w+(?:[.,:'’/-]\w+)*|[^\w\s]", re.UNICODE)


def words(text: str) -> list[str]:
    """Words, numbers (1.81, 3,328) and punctuation marks, for word-level diffs."""
    return _WORD.findall(text)


def word_spans(text: str) -> list[tuple[str, str]]:
    """Each word with the whitespace before it, so changed runs can be shown with their original spacing."""
    out = []
    last = 0
    for m in _WORD.finditer(text):
        out.append((text[last : m.start()], m.group()))
        last = m.end()
    return out


def md_text(text: str) -> str:
    """Escape text for Markdown output: only what would otherwise become markup."""
    text = re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text)
    return re.sub(r"^([#+\-=>]|\d+[.)])", r"\\\1", text)
