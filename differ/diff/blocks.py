"""Split canonical Markdown into blocks (heading, paragraph, list item, table row, code, quote), each with
its section path, its visible words and a key that ignores formatting."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from markdown_it.token import Token

from differ.normalize.canonical import split_chunks
from differ.normalize.markdownit import parser

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
    depth: int = field(default=0, compare=False, repr=False)  # list nesting around the block
    top: bool = field(default=False, compare=False, repr=False)  # a paragraph outside any list or quote
    images: tuple[str, ...] = field(default=(), compare=False, repr=False)  # which of `links` are images
    parent: str = field(default="", compare=False, repr=False)  # a nested item's: the label of its item
    cells: tuple[str, ...] = field(default=(), compare=False, repr=False)  # a table row's, one text per cell
    header: tuple[str, ...] = field(default=(), compare=False, repr=False)  # a body row's: its table's head
    bare: str = field(default="", compare=False, repr=False)  # the text without its inline HTML tags, if any
    title: bool = field(default=False, compare=False, repr=False)  # the heading that titles the document

    @property
    def plain(self) -> str:
        """The block's words as a reader sees them: its text without inline HTML tags."""
        return self.bare or self.text

    @property
    def heads(self) -> tuple[str, ...]:
        """The section path of what follows the block: a heading's own (but the document's title, which heads
        no section), or the block's."""
        if self.kind == "heading" and not self.title:
            return (*self.section, self.plain)
        return self.section

    @property
    def key(self) -> str:
        """Equal keys mean no visible change: same kind of block, same words, same link targets (computed once:
        blocks are never changed after they are made)."""
        known: str | None = self.__dict__.get("_key")
        if known is None:
            known = self.__dict__["_key"] = (
                f"{self.kind}\x1f{self.level if self.kind == 'heading' else ''}\x1f{self.text}\x1f"
                + "\x1e".join(url for _, url in self.links)
            )
        return known

    @property
    def text_key(self) -> str:
        return f"{self.kind}\x1f{self.text}"

    @property
    def whole_link(self) -> str:
        """Where the block points when it is one link and nothing else (a post in a list of posts, a
        download), else ""."""
        if len(self.links) != 1 or self.images:
            return ""
        text, url = self.links[0]
        return url if " ".join(text.split()) == self.text else ""

    @property
    def contents_entry(self) -> bool:
        """Whether the block is one link to a place on the page and nothing else (`[Install](#install)`): an
        entry of a table of contents kept in Markdown, whose target follows its words."""
        return self.whole_link.startswith("#")

    def other_link(self, other: Block) -> bool:
        """Whether two blocks are links to two different things: each one link and nothing else, with neither
        their text nor their target in common (never one block rewritten, however alike their words). Not two
        entries of a table of contents (`contents_entry`)."""
        if self.contents_entry and other.contents_entry:
            return False
        mine, theirs = self.whole_link, other.whole_link
        return bool(mine and theirs) and mine != theirs and self.text != other.text

    @property
    def label(self) -> str:
        """A short name for the block in summaries: an item's bold lead, or its first words, up to the end of its
        first sentence when that comes early (`Smaller wheels …`, not `Smaller wheels. They are 45% …`)."""
        if self.lead and self.kind == "code":
            return f"{self.lead} code"  # its info string: `rust` says which example, as "rust code"
        if self.lead:
            return self.lead.strip(_CLOSING_PUNCT)
        if self.kind == "row" and self.cells and not self.header:  # the head row (a table always has one)
            return "column headings"
        if self.kind == "row" and self.cells and self.cells[0]:  # a row is named by its first cell
            return self.cells[0]
        if self.kind == "code":  # its first line, as code is read: not the start of the next run into it
            line, _, rest = self.text.strip().partition("\n")
            first = line.split()
            return " ".join(first[:6]) + (" …" if len(first) > 6 or rest.strip() else "")
        if _UNSPACED.search(self.plain):
            return _first_characters(self.plain)
        words = self.plain.split()
        for i, word in enumerate(words[1:6], 1):
            if i < len(words) - 1 and word[-1] in ".!?" and len(word.rstrip(".!?")) > 1:
                return " ".join(words[: i + 1]).rstrip(".!?") + " …"
        return " ".join(words[:6]) + (" …" if len(words) > 6 else "")


@dataclass
class _Inline:
    text: str = ""
    links: list[tuple[str, str]] = field(default_factory=list)
    lead: str = ""
    images: list[str] = field(default_factory=list)
    bare: str = ""  # the text without inline HTML tags (`<small style=…>`), when it had any


def _inline(token: Token) -> _Inline:
    out = _Inline()
    parts: list[str] = []
    link_stack: list[tuple[str, int]] = []
    strong_start: int | None = None
    first_strong_done = False
    tags: set[int] = set()  # which parts are inline HTML
    blank = True  # no text yet: parts are counted, never joined again, so many links cost no more than one
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            alt = "".join(c.content for c in child.children or [])
            parts.append(alt)
            out.links.append((alt, str(child.attrs.get("src", ""))))
            out.images.append(str(child.attrs.get("src", "")))
        elif child.type == "link_open":
            link_stack.append((str(child.attrs.get("href", "")), len(parts)))
        elif child.type == "link_close" and link_stack:
            href, start = link_stack.pop()
            out.links.append(("".join(parts[start:]), href))
        elif child.type == "strong_open" and not first_strong_done and blank:
            strong_start = len(parts)
        elif child.type == "strong_close" and strong_start is not None and not first_strong_done:
            out.lead = "".join(parts[strong_start:]).strip()
            first_strong_done = True
        elif child.type == "html_inline":
            tags.add(len(parts))
            parts.append(child.content)
        blank = blank and not (parts and parts[-1].strip())
    out.text = " ".join("".join(parts).split())
    if tags:
        out.bare = " ".join("".join(p for i, p in enumerate(parts) if i not in tags).split())
    return out


@dataclass(frozen=True)
class _ListOpen:
    """A top-level list opens here; `after_paragraph` is None when it opens a chunk (the previous chunk knows)."""

    after_paragraph: bool | None


@dataclass(frozen=True)
class _Parsed:
    """One parsed piece of a document: blocks (without section paths) and the list openings between them."""

    events: tuple[Block | _ListOpen, ...]
    ends_with_paragraph: bool


def _parse(markdown: str) -> _Parsed:
    """Phase 1: blocks in order, with their structural facts; section paths come in phase 2."""
    tokens = parser().parse(markdown)
    lines = markdown.split("\n")
    events: list[Block | _ListOpen] = []
    context: list[str] = []  # open containers: "item", "quote"
    item_depth = 0
    parents: dict[int, str] = {}  # the label of the item open at each list depth, for the items nested in it
    row: list[str] = []
    row_links: list[tuple[str, str]] = []
    row_images: list[str] = []
    row_start = 0
    head: tuple[str, ...] = ()  # the header cells of the table being read
    in_head = False
    pending_heading: Token | None = None

    def src(tok: Token) -> str:
        return "" if tok.map is None else "\n".join(lines[tok.map[0] : tok.map[1]])

    for i, tok in enumerate(tokens):
        t = tok.type
        if t == "heading_open":
            pending_heading = tok
        elif t == "inline" and pending_heading is not None:
            info = _inline(tok)
            events.append(
                Block(
                    "heading",
                    info.text,
                    src(pending_heading),
                    (),
                    int(pending_heading.tag[1]),
                    tuple(info.links),
                    images=tuple(info.images),
                    bare=info.bare,
                )
            )
            pending_heading = None
        elif t in ("bullet_list_open", "ordered_list_open"):
            if item_depth == 0:
                events.append(_ListOpen(tokens[i - 1].type == "paragraph_close" if i else None))
            item_depth += 1
        elif t in ("bullet_list_close", "ordered_list_close"):
            parents.pop(item_depth, None)
            item_depth -= 1
        elif t in ("list_item_open", "blockquote_open"):
            context.append("item" if t == "list_item_open" else "quote")
        elif t in ("list_item_close", "blockquote_close"):
            context.pop()
        elif t == "inline" and tokens[i - 1].type == "paragraph_open":
            info = _inline(tok)
            opener = tokens[i - 1]
            kind = (
                "item"
                if context and context[-1] == "item"
                else ("quote" if "quote" in context else "paragraph")
            )
            block = Block(
                kind,
                info.text,
                src(opener),
                (),
                item_depth if kind == "item" else 0,
                tuple(info.links),
                info.lead,
                depth=item_depth,
                top=not context,
                images=tuple(info.images),
                parent=parents.get(item_depth - 1, "") if kind == "item" else "",
                bare=info.bare,
            )
            events.append(block)
            if kind == "item" and tokens[i - 2].type == "list_item_open":  # the item's first paragraph
                parents[item_depth] = block.label
        elif t in ("fence", "code_block"):
            events.append(
                Block(
                    "code",
                    tok.content.rstrip("\n"),
                    src(tok),
                    (),
                    0,
                    (),
                    tok.info.strip(),
                    depth=item_depth,
                )
            )
        elif t in ("thead_open", "thead_close"):
            in_head = t == "thead_open"
        elif t == "table_open":
            head = ()
        elif t == "tr_open":
            row, row_links, row_images, row_start = [], [], [], (tok.map or [0])[0]
        elif t == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            info = _inline(tok)
            row.append(info.text)
            row_links.extend(info.links)
            row_images.extend(info.images)
        elif t == "tr_close":
            events.append(
                Block(
                    "row",
                    " | ".join(row),
                    lines[row_start] if row_start < len(lines) else "",
                    (),
                    0,
                    tuple(row_links),
                    depth=item_depth,
                    images=tuple(row_images),
                    cells=tuple(row),
                    header=() if in_head else head,
                )
            )
            if in_head:
                head = tuple(row)
        elif t == "html_block":
            events.append(Block("html", " ".join(tok.content.split()), src(tok), (), 0, depth=item_depth))
    return _Parsed(tuple(events), bool(tokens) and tokens[-1].type == "paragraph_close")


def _sections(parts: list[_Parsed]) -> list[Block]:
    """Phase 2: each block's section path, the trail of headings above it (for a list item before the first
    heading, the paragraph that introduces its list). A post's title, its one top-level heading and the first,
    heads no section: every passage would be under it, and whether a page is read with its title or without
    (a selector on the post's text) does not change where a passage is."""
    title = _title([e for part in parts for e in part.events if isinstance(e, Block) and e.kind == "heading"])
    blocks: list[Block] = []
    headings: list[tuple[int, str]] = []
    intro: str | None = None
    last_paragraph: str | None = None
    previous_ended_paragraph = False
    trail: tuple[str, ...] = ()
    for part in parts:
        for event in part.events:
            if isinstance(event, _ListOpen):
                after = previous_ended_paragraph if event.after_paragraph is None else event.after_paragraph
                if not headings and last_paragraph is not None and after:
                    intro = _last_sentence(last_paragraph)
                continue
            if event.kind == "heading":
                if event is title:
                    blocks.append(replace(event, section=(), title=True))
                    continue
                while headings and headings[-1][0] >= event.level:
                    headings.pop()
                blocks.append(_placed(event, tuple(text for _, text in headings)))
                headings.append((event.level, event.plain))
                trail = tuple(text for _, text in headings)
                intro = None
                continue
            section = (intro.rstrip(_CLOSING_PUNCT),) if not trail and event.depth and intro else trail
            blocks.append(_placed(event, section))
            if event.kind == "paragraph" and event.top:
                last_paragraph = event.plain
        previous_ended_paragraph = part.ends_with_paragraph
    return blocks


def title_text(blocks: Sequence[Block]) -> str | None:
    """The words of a document's title (`Block.title`, its first block when it has one), or None."""
    if blocks and blocks[0].title:
        return blocks[0].plain
    return None


def _title(headings: list[Block]) -> Block | None:
    """The heading that titles the whole document: the first, at level 1, with no other at that level."""
    if headings and headings[0].level == 1 and not any(h.level == 1 for h in headings[1:]):
        return headings[0]
    return None


_SENTENCE_END = re.compile(r"[.!?。][\"”’)]*\s+(?=[^\sa-z])")


def _last_sentence(paragraph: str) -> str:
    """What introduces a list is the last sentence of the paragraph before it ("The full release notes are
    here. Highlights include:" → "Highlights include:"), a short name for its items' section."""
    ends = [m.end() for m in _SENTENCE_END.finditer(paragraph)]
    return paragraph[ends[-1] :] if ends else paragraph


def _placed(event: Block, section: tuple[str, ...]) -> Block:
    """The block with its section path (blocks are never changed after this, so one can be shared)."""
    if section == event.section:
        return event
    return Block(
        event.kind,
        event.text,
        event.source,
        section,
        event.level,
        event.links,
        event.lead,
        event.depth,
        event.top,
        event.images,
        event.parent,
        event.cells,
        event.header,
        event.bare,
    )


@lru_cache(maxsize=8192)
def _parse_chunk(text: str) -> _Parsed:
    return _parse(text)


# The last documents split, with their blocks, the one used last first: a run of diffs over a history (`differ
# blame`, `history --word`) meets each version twice, as the newer side of one diff and the older side of the
# next, and a mirror's audit splits the canonical's latest version, the one the mirror matches and the mirror's
# own more than once each.
_LAST: list[tuple[str, list[Block]]] = []
KEPT_SPLITS = 3


def forget_split() -> None:
    """Forget the documents split last, so that the next split is timed whole (the diff benchmark)."""
    _LAST.clear()


def split_blocks(markdown: str) -> list[Block]:
    """The blocks of a canonical Markdown document, in order, each knowing its section path. Pieces that
    two versions share are parsed once (a cache keyed by the piece's text), and so is a document split just
    before (blocks are never changed once made, so a new list of the same blocks is as good)."""
    for k, (text, known) in enumerate(_LAST):
        if text == markdown:
            _LAST.insert(0, _LAST.pop(k))
            return list(known)
    chunks = split_chunks(markdown)
    parts = [_parse(markdown)] if chunks is None else [_parse_chunk(text) for text in chunks]
    blocks = _sections(parts)
    _LAST[:] = [(markdown, blocks), *_LAST[: KEPT_SPLITS - 1]]
    return list(blocks)


def split_blocks_whole(markdown: str) -> list[Block]:
    """The same blocks from one parse of the whole document (the reference the chunked split is tested on)."""
    return _sections([_parse(markdown)])


# Scripts written without spaces between words (Chinese, Japanese): each character is a word, as a reader of
# them sees an edit (では{+高速な+}新しい), not the whole clause between two punctuation marks.
UNSPACED = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f"
)
_SPACED_WORD = re.compile(r"\w+(?:[.,:'’/-]\w+)*|[^\w\s]", re.UNICODE)
_WORD = re.compile(rf"[{UNSPACED}]|[^\W{UNSPACED}]+(?:[.,:'’/-][^\W{UNSPACED}]+)*|[^\w\s]", re.UNICODE)
_UNSPACED = re.compile(f"[{UNSPACED}]")


LABEL_CHARACTERS = 30  # a label's length in a script written without spaces: about six words' worth
_LABEL_END = re.compile(r"[。！？]|[.!?](?= )")


def _first_characters(text: str) -> str:
    """A label in a script written without spaces, where six words are no six spaced runs: its first sentence
    when that ends early (at 。！？, within a third more than LABEL_CHARACTERS), else its first
    LABEL_CHARACTERS characters."""
    text = " ".join(text.split())
    ends = [m.start() for m in _LABEL_END.finditer(text, 1, LABEL_CHARACTERS * 4 // 3 + 1)]
    if ends and ends[0] < len(text) - 1:
        return text[: ends[0]] + " …"
    return text[:LABEL_CHARACTERS] + (" …" if len(text) > LABEL_CHARACTERS else "")


def unspaced(char: str) -> bool:
    """Whether a character is of a script written without spaces between words."""
    return _UNSPACED.match(char) is not None


def _word_pattern(text: str) -> re.Pattern[str]:
    """The words' pattern for a text: the plain one, a sixth quicker, unless the text has such a script."""
    return _WORD if _UNSPACED.search(text) else _SPACED_WORD


def words(text: str) -> list[str]:
    """Words, numbers (1.81, 3,328) and punctuation marks, for word-level diffs; a character of a script
    written without spaces is a word."""
    return _word_pattern(text).findall(text)


def word_matches(text: str) -> list[re.Match[str]]:
    """The words of `words`, each with where it stands in the text."""
    return list(_word_pattern(text).finditer(text))


def word_spans(text: str) -> list[tuple[str, str]]:
    """Each word with the whitespace before it, so changed runs can be shown with their original spacing."""
    out = []
    last = 0
    for m in _word_pattern(text).finditer(text):
        out.append((text[last : m.start()], m.group()))
        last = m.end()
    return out


def md_text(text: str, *, inline: bool = False) -> str:
    """Escape text for Markdown output: only what would otherwise become markup. A line's start is escaped too
    (a heading, list or quote marker: `\\#`, `1\\.`) unless the text is `inline` (a table cell, a run in a line)."""
    text = re.sub(r"([\\`*_\[\]<>|~]|&(?=#?[0-9A-Za-z]+;))", r"\\\1", text)
    if inline:
        return text
    return re.sub(
        r"^(?:([#+\-=>])|(\d{1,9})([.)])(?=\s|$))", lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", text
    )
