"""Word-level alignment of a mirror against a canonical: tolerant of merged or split blocks, lists that became
paragraphs, headings that became bold text, spacing inside links and curly versus straight quotes."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from differ.diff.blocks import UNSPACED, Block
from differ.diff.sequences import Alignment as WordAlignment
from differ.diff.sequences import Opcode, anchored_opcodes, common_ends, increasing_run, merged, shifted, slid

# Runs of digits or of letters: "#182954by" (a glued link) still lines up with "#182954 by"; a character of a
# script written without spaces is a word, as in the diff.
_WORD = re.compile(rf"\d+|[{UNSPACED}]|[^\W\d_{UNSPACED}]+", re.UNICODE)
# A footnote's label leading its note: GFM's `[^1]: ` in Markdown, `[1] ` where a page sets the number before the
# note (Zola's): a number the renderer counts, as an ordered list's marker is (kramdown's and pandoc's notes).
_NOTE_LABEL = re.compile(r"\[\^[^\]\s]{1,40}\]:[ \t]*|\[\d{1,3}\][ \t]+")
_FOLD = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-", "\u00a0": " "})


def fold(word: str) -> str:
    """A word as compared: NFKC, straight quotes and dashes, case-folded (an ASCII word needs only the case)."""
    if word.isascii():
        return word.lower()
    return unicodedata.normalize("NFKC", word).translate(_FOLD).casefold()


def folded_words(block: Block) -> list[str]:
    """A block's words as compared, worked out once a block (blocks are never changed once made, and an audit
    streams the same version's blocks more than once)."""
    known: list[str] | None = block.__dict__.get("_folded")
    if known is None:
        known = block.__dict__["_folded"] = [fold(w) for w in _WORD.findall(block.text, _words_from(block))]
    return known


def counted_text(block: Block) -> str:
    """A block's text as the audit counts it: without the label of a footnote it is (`_words_from`)."""
    start = _words_from(block)
    return block.text[start:] if start else block.text


def _words_from(block: Block) -> int:
    """Where a block's words start: after a footnote's label (`_NOTE_LABEL`), if it leads a paragraph or item."""
    if block.kind in ("paragraph", "item") and block.text[:1] == "[":
        m = _NOTE_LABEL.match(block.text)
        return m.end() if m else 0
    return 0


def word_spans(block: Block) -> list[tuple[int, int]]:
    """Where each of a block's words (`folded_words`) stands in its text, worked out once a block."""
    known: list[tuple[int, int]] | None = block.__dict__.get("_spans")
    if known is None:
        known = block.__dict__["_spans"] = [m.span() for m in _WORD.finditer(block.text, _words_from(block))]
    return known


@dataclass
class Stream:
    """A document as one word sequence, each word remembering its block."""

    blocks: list[Block]
    words: list[str] = field(default_factory=list)
    owner: list[int] = field(default_factory=list)
    per_block: list[int] = field(default_factory=list)
    start: list[int] = field(default_factory=lambda: [0])  # where each block's words start, and the end

    def words_of(self, index: int) -> list[str]:
        return self.words[self.start[index] : self.start[index + 1]]

    def places_of(self, index: int) -> range:
        """Where a block's words are in the stream."""
        return range(self.start[index], self.start[index + 1])

    def spelled(self, places: Sequence[int]) -> str:
        """Words of the stream (their places, in order) as their blocks spell them: each block's stretch from the
        first of them to the last, the stretches of two blocks joined by a space."""
        pieces = []
        k = 0
        while k < len(places):
            owner = self.owner[places[k]]
            last = k
            while last + 1 < len(places) and self.owner[places[last + 1]] == owner:
                last += 1
            spans = word_spans(self.blocks[owner])
            first_at, last_at = places[k] - self.start[owner], places[last] - self.start[owner]
            pieces.append(self.blocks[owner].text[spans[first_at][0] : spans[last_at][1]])
            k = last + 1
        return " ".join(pieces)

    @classmethod
    def of(cls, blocks: list[Block], code_only: bool = False) -> Stream:
        """The blocks' words; with `code_only`, only their code blocks' (a translation's, kept as they are)."""
        s = cls(blocks)
        passed = contents(blocks)
        for i, block in enumerate(blocks):
            found = [] if (code_only and block.kind != "code") or i in passed else folded_words(block)
            s.words.extend(found)
            s.owner.extend([i] * len(found))
            s.per_block.append(len(found))
            s.start.append(len(s.words))
        return s


def contents(blocks: Sequence[Block]) -> set[int]:
    """Where a document written in Markdown keeps a table of contents: a list of two or more links to places on
    the page and nothing else, with the heading over it when that heads it alone. A page's is left out as it is
    read (`differ.normalize.marks`), so a copy's or a canonical's kept in Markdown is neither carried nor extra."""
    found: set[int] = set()
    run: list[int] = []
    for i, block in enumerate([*blocks, None]):
        if block is not None and block.kind == "item":
            run.append(i)
            continue
        if len(run) >= 2 and all(blocks[k].contents_entry for k in run):
            found.update(run)
            over = blocks[run[0] - 1] if run[0] else None
            alone = block is None or (
                block.kind == "heading" and over is not None and block.level <= over.level
            )
            if over is not None and over.kind == "heading" and not over.title and alone:
                found.add(run[0] - 1)
        run = []
    return found


@dataclass
class Alignment:
    """Which canonical words the mirror carries, and the differing runs."""

    canonical: Stream
    mirror: Stream
    matched_a: list[bool]
    matched_b: list[bool]
    opcodes: Sequence[tuple[str, int, int, int, int]]
    # the canonical blocks the mirror has elsewhere, found once though the findings and the coverage both ask
    moves: dict[int, int] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def matched(self) -> int:
        return sum(self.matched_a)

    @cached_property
    def partners(self) -> dict[int, set[int]]:
        """For each canonical block, the mirror blocks that share its words."""
        out: dict[int, set[int]] = {}
        for i, j in self.shared_words():
            out.setdefault(i, set()).add(j)
        return out

    def shared_words(self) -> Iterator[tuple[int, int]]:
        """For each word the two share, the canonical block and the mirror block it stands in."""
        for tag, i1, i2, j1, _ in self.opcodes:
            if tag == "equal":
                for k in range(i2 - i1):
                    yield self.canonical.owner[i1 + k], self.mirror.owner[j1 + k]

    @property
    def ratio(self) -> float:
        total = len(self.canonical.words) + len(self.mirror.words)
        return 2.0 * self.matched / total if total else 1.0


# Pairs of words beyond which two stretches are first cut at the words found once in each (5,000 words each).
ANCHORED_WORDS = 25_000_000


def align(canonical: Stream, mirror: Stream) -> Alignment:
    """The mirror's words aligned with the canonical's (difflib, as the diff aligns words), section by section:
    the headings both have once, in the same order, cut the two into stretches aligned each on its own, so a
    passage the copy put under another heading is missing from one section and extra in the other (then found
    moved), rather than the heading taken for what moved."""
    a, b = canonical.words, mirror.words
    ops: list[Opcode] = []
    i0 = j0 = 0
    for i, j in [*_shared_headings(canonical, mirror), (len(canonical.blocks), len(mirror.blocks))]:
        i1, j1 = canonical.start[i], mirror.start[j]  # the heading's words, or the end
        ops += shifted(_stretch(a[i0:i1], b[j0:j1]), i0, j0)
        if i < len(canonical.blocks):  # the heading itself ("Install", or numbered by the copy: "1. Install")
            i0, j0 = canonical.start[i + 1], mirror.start[j + 1]
            ops += shifted(_stretch(a[i1:i0], b[j1:j0]), i1, j1)
    opcodes = _slid(merged(ops), canonical, mirror)
    matched_a = [False] * len(canonical.words)
    matched_b = [False] * len(mirror.words)
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            matched_a[i1:i2] = [True] * (i2 - i1)
            matched_b[j1:j2] = [True] * (j2 - j1)
    return Alignment(canonical, mirror, matched_a, matched_b, opcodes)


def _slid(opcodes: list[Opcode], canonical: Stream, mirror: Stream) -> list[Opcode]:
    """Each run one side has alone placed where it starts and ends with blocks when the words beside it allow: a
    post's title heading "PyTorch 2.13" whose first sentence opens "PyTorch 2.13 is out", in a copy without the
    heading, is the heading missing, not the sentence's first words taken by the heading and the sentence found
    missing."""
    edges = {"a": set(canonical.start), "b": set(mirror.start)}
    return slid(
        opcodes, canonical.words, mirror.words, lambda side, lo, hi: (lo in edges[side]) + (hi in edges[side])
    )


def _shared_headings(canonical: Stream, mirror: Stream) -> list[tuple[int, int]]:
    """Canonical headings whose words a heading or paragraph of the mirror has, each found once on each side (a
    heading the copy made bold text or numbered counts), the longest run of them in the same order: where both
    documents' sections begin."""
    keys_a = [_unnumbered(canonical.words_of(i)) for i in range(len(canonical.blocks))]
    # a heading, or bold text on a line of its own; not a list item, which may be a table of contents entry
    keys_b = [
        _unnumbered(mirror.words_of(j)) if mirror.blocks[j].kind in ("heading", "paragraph") else ()
        for j in range(len(mirror.blocks))
    ]
    count_a, count_b = Counter(keys_a), Counter(keys_b)
    where_b = {k: j for j, k in enumerate(keys_b) if k and count_b[k] == 1}
    pairs = [
        (i, where_b[k])
        for i, k in enumerate(keys_a)
        if canonical.blocks[i].kind == "heading" and k in where_b and count_a[k] == 1
    ]
    return increasing_run(pairs)


def _unnumbered(words: list[str]) -> tuple[str, ...]:
    """A heading's words without the numbers a copy may put before them ("2.1 Install" is "Install")."""
    start = 0
    while start < len(words) - 1 and words[start].isdigit():
        start += 1
    return tuple(words[start:])


def _stretch(a: list[str], b: list[str]) -> list[Opcode]:
    """Two stretches of words aligned: by difflib, or, when they are long, first cut at the words found once
    in each, taken in order (patience diff), and only the stretches between go to difflib, whose work grows with
    the square of the words that recur: two 1 MB pages took a minute and a half as one stretch."""
    if not a and not b:
        return []
    if len(a) * len(b) <= ANCHORED_WORDS:
        return list(WordAlignment(a, b).opcodes())
    head, tail = common_ends(a, b)
    middle = anchored_opcodes(a[head : len(a) - tail], b[head : len(b) - tail])
    ends = ("equal", 0, head, 0, head), ("equal", len(a) - tail, len(a), len(b) - tail, len(b))
    return merged([ends[0], *shifted(middle, head, head), ends[1]])


def shares(al: Alignment, side: str = "canonical") -> list[float]:
    """Matched share of every block's words, in one pass."""
    stream, matched = (al.canonical, al.matched_a) if side == "canonical" else (al.mirror, al.matched_b)
    hits = [0] * len(stream.blocks)
    for k, owner in enumerate(stream.owner):
        if matched[k]:
            hits[owner] += 1
    return [hits[i] / n if (n := stream.per_block[i]) else 1.0 for i in range(len(stream.blocks))]
