"""A translation audited against its original. Its words cannot be compared with the canonical's, so its blocks
are paired with the canonical's by what a translation keeps: their order, their kind (a heading for a heading), their
length against the rest, and the numbers, versions, identifiers, addresses and names it carries over as they are.
A canonical block left unpaired is missing, a block of the copy's own is extra, and a pair whose numbers, versions,
identifiers or addresses differ is a token mismatch; commands are checked as in any copy."""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from differ.audit.align import Stream, contents, counted_text, fold
from differ.audit.code import code_findings, command_lines, looks_like_command, translated_comment
from differ.audit.findings import (
    in_a_row,
    token_detail,
)
from differ.audit.model import JOINED, Finding
from differ.audit.tokens import half_width, invariant_tokens
from differ.diff.blocks import Block
from differ.diff.sequences import increasing_run

# Latin words a translation keeps (names, terms, identifiers): two letters or more, digits and dots inside.
_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9_.+-]*[A-Za-z0-9+]")
SAME_KIND = 0.4  # a pair's score before its evidence: a heading for a heading, an item for an item
OTHER_KIND = 0.25  # a heading for a paragraph: a text copy (or bold text) loses the kinds of its blocks
EVIDENCE = 0.6  # at most this much for or against a pair from the tokens and names its blocks share or not
LENGTH = 0.25  # against a pair for each e-fold its length is off the copy's usual length against the original
SHORT = 10  # characters added to both lengths before they are compared
NAMES = 4  # words at most of a block a bilingual page may leave untranslated (a name, a short heading)
BAND = 60  # in a stretch between anchors, blocks paired at most this far off its diagonal (and its skew)


@dataclass(frozen=True)
class Shape:
    """What a block offers the pairing."""

    kind: str
    level: int
    tokens: Counter[str]  # numbers, versions, issues, identifiers, addresses
    names: frozenset[str]  # Latin words, folded
    size: int  # characters but spaces

    @classmethod
    def of(cls, block: Block) -> Shape:
        """Made once a block (kept on it, as its key is): a translation is paired with every canonical version
        it may render, and each version with every mirror text."""
        known: Shape | None = block.__dict__.get("_shape")
        if known is None:
            text = counted_text(block)
            plain = half_width(text)  # full-width digits and letters as a reader takes them
            known = block.__dict__["_shape"] = cls(
                block.kind,
                block.level if block.kind == "heading" else 0,
                invariant_tokens(plain),
                frozenset(fold(w) for w in _LATIN.findall(plain)),
                max(1, len(text) - text.count(" ")),
            )
        return known


@dataclass
class Pairing:
    """Which canonical block each block of the translation renders, and how alike the two documents are."""

    # (canonical index, translation index), in order; blocks the translation merged or split share an index
    pairs: list[tuple[int, int]]
    likeness: float  # 0 to 1: pairs weighed by how sure each is, against the text blocks of both


def _text_blocks(blocks: Sequence[Block]) -> list[int]:
    """The blocks the pairing looks at: those with words, code aside (commands are checked line by line), and a
    table of contents (`contents`) aside."""
    passed = contents(blocks)
    return [i for i, b in enumerate(blocks) if b.kind != "code" and b.text.strip() and i not in passed]


class _Scorer:
    """How likely each canonical block is rendered by each block of the translation."""

    def __init__(self, canonical: list[Shape], translation: list[Shape]) -> None:
        # Of the translation's Latin words, those the canonical has somewhere are names it kept; the others
        # (its own words, in a translation into a Latin-script language) say nothing of where it stands.
        vocabulary = frozenset().union(*(a.names for a in canonical))
        translation = [replace(b, names=b.names & vocabulary) for b in translation]
        self.a, self.b = canonical, translation
        df: Counter[str] = Counter()
        for shape in (*canonical, *translation):
            df.update(set(shape.tokens) | {"name:" + n for n in shape.names})
        total = len(canonical) + len(translation)
        self.idf = {key: math.log(1 + total / n) for key, n in df.items()}
        # what each block's tokens (and the translation's kept names) weigh: all of it counts against a pair
        # but for what the two share
        self.held_a = [sum(self.idf[t] * n for t, n in a.tokens.items()) for a in canonical]
        self.held_b = [
            sum(self.idf[t] * n for t, n in b.tokens.items()) + sum(self.idf["name:" + n] for n in b.names)
            for b in translation
        ]
        self.ratio = (sum(s.size for s in translation) or 1) / (sum(s.size for s in canonical) or 1)

    @property
    def ratio(self) -> float:
        """The translation's length against its original's, on the whole."""
        return self._ratio

    @ratio.setter
    def ratio(self, value: float) -> None:
        self._ratio = value
        self.expected = [a.size * value + SHORT for a in self.a]

    def evidence(self, i: int, j: int) -> float:
        """Tokens both carry, for; tokens only one carries, against (half as much). Of names, only those the
        translation kept count: the canonical's other words were translated."""
        a, b = self.a[i], self.b[j]
        shared = 0.0  # a token both carry is for the pair, and no longer against it on either side
        if a.tokens and b.tokens:
            small, large = (a.tokens, b.tokens) if len(a.tokens) <= len(b.tokens) else (b.tokens, a.tokens)
            shared = 2 * sum(self.idf[t] * min(n, large[t]) for t, n in small.items() if t in large)
        if b.names:  # a kept name is on the translation's side alone
            shared += 1.5 * sum(self.idf["name:" + n] for n in b.names & a.names)
        return shared - 0.5 * (self.held_a[i] + self.held_b[j])

    def score(self, i: int, j: int) -> float:
        a, b = self.a[i], self.b[j]
        base = SAME_KIND if (a.kind, a.level) == (b.kind, b.level) else OTHER_KIND
        held = self.held_a[i] + self.held_b[j]
        evidence = EVIDENCE * math.tanh(self.evidence(i, j) / 3) if held else 0.0
        return base + evidence - self.length_off(i, j)

    def length_off(self, i: int, j: int) -> float:
        """Against a pair, for how far its length is off the copy's usual length against the original; lengths of
        short blocks say little ("성능 개선" renders "Performance Improvements"): SHORT added to both."""
        return LENGTH * min(abs(math.log((self.b[j].size + SHORT) / self.expected[i])), 2.0)


def _anchors(scorer: _Scorer) -> list[tuple[int, int]]:
    """Pairs sure enough to cut the rest at: a token or a kept name found once on each side, in blocks that
    pair well, taken in order (the longest increasing run)."""
    where_a: dict[str, list[int]] = {}
    where_b: dict[str, list[int]] = {}
    for shapes, where in ((scorer.a, where_a), (scorer.b, where_b)):
        for index, shape in enumerate(shapes):
            for key in {*shape.tokens, *("name:" + n for n in shape.names)}:
                where.setdefault(key, []).append(index)
    found = {
        (where_a[key][0], js[0])
        for key, js in where_b.items()
        if len(js) == 1 and len(where_a.get(key, ())) == 1
    }
    # one pair a block: of pairs sharing a canonical block, later ones first, so an increasing run takes one
    sure = sorted((p for p in found if scorer.score(*p) >= SAME_KIND), key=lambda p: (p[0], -p[1]))
    return increasing_run(sure)


def _stretch(scorer: _Scorer, a0: int, a1: int, b0: int, b1: int) -> list[tuple[int, int]]:
    """The pairs of one stretch between anchors with the highest total score, in order (each pair scoring above
    nothing), looked for within `BAND` blocks of the stretch's diagonal (and its skew): time and memory grow with
    the stretch's length, not with its area. Row by row, `best[j]` is the best total with the copy's first j
    blocks; a cell left of a row's band keeps the total of the row above, one right of it the band's last."""
    n, m = a1 - a0, b1 - b0
    if not n or not m:
        return []
    width = BAND + abs(n - m)
    best = [0.0] * (m + 1)
    bands: list[tuple[int, int]] = []
    moves: list[bytearray] = []  # per row, for its band: 1 canonical block unpaired, 2 copy's, 3 paired
    last = 0  # the previous row's band ends here
    for i in range(1, n + 1):
        centre = i * m / n
        lo, hi = max(1, int(centre - width)), min(m, int(centre + width) + 1)
        for j in range(last + 1, hi + 1):
            best[j] = best[last]
        last = hi
        steps = bytearray(hi - lo + 1)
        diagonal = best[lo - 1]
        for j in range(lo, hi + 1):
            up, left = best[j], best[j - 1]
            value, step = (up, 1) if up >= left else (left, 2)
            s = scorer.score(a0 + i - 1, b0 + j - 1)
            if s > 0 and diagonal + s > value:
                value, step = diagonal + s, 3
            diagonal, best[j], steps[j - lo] = up, value, step
        bands.append((lo, hi))
        moves.append(steps)
    pairs = []
    i, j = n, m
    while i and j:
        lo, hi = bands[i - 1]
        if j > hi:
            j = hi
            continue
        step = moves[i - 1][j - lo] if j >= lo else 1
        if step == 3:
            pairs.append((a0 + i - 1, b0 + j - 1))
            i, j = i - 1, j - 1
        elif step == 1:
            i -= 1
        else:
            j -= 1
    return pairs[::-1]


def pair_blocks(canonical: Sequence[Block], translation: Sequence[Block]) -> Pairing:
    """Each text block of the translation paired with the canonical block it renders, if any: anchors first,
    then the stretches between them, twice (the second time with the copy's length against the original measured
    on the pairs of the first)."""
    ia, ib = _text_blocks(canonical), _text_blocks(translation)
    scorer = _Scorer([Shape.of(canonical[i]) for i in ia], [Shape.of(translation[j]) for j in ib])
    pairs: list[tuple[int, int]] = []
    for _ in range(2):
        anchors = _anchors(scorer)
        pairs = []
        a0 = b0 = 0
        for i, j in [*anchors, (len(ia), len(ib))]:
            pairs += _stretch(scorer, a0, i, b0, j)
            if i < len(ia):
                pairs.append((i, j))
            a0, b0 = i + 1, j + 1
        ratios = sorted(scorer.b[j].size / scorer.a[i].size for i, j in pairs if scorer.a[i].size >= 20)
        if not ratios:
            break
        scorer.ratio = ratios[len(ratios) // 2]
    sure = sum(min(1.0, max(0.0, scorer.score(i, j))) for i, j in pairs)
    total = len(ia) + len(ib)
    joined = list(pairs)
    for pair in _joined(scorer, pairs):  # kept in order with the pairs: one that would cross them is left out
        at = bisect_left(joined, pair)
        before, after = (
            joined[at - 1] if at else (-1, -1),
            joined[at] if at < len(joined) else (len(ia), len(ib)),
        )
        if before[0] <= pair[0] <= after[0] and before[1] <= pair[1] <= after[1]:
            joined.insert(at, pair)
    joined = sorted(joined + _alone(scorer, joined))
    return Pairing([(ia[i], ib[j]) for i, j in joined], 2 * sure / total if total else 1.0)


def _alone(scorer: _Scorer, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A block of each side left unpaired alone between the same two pairs, of one kind, of lengths a
    translation gives and with as many numbers: the one rendering the other, whose numbers the translation did
    not bring up to date ("Faster parsing (3x)" against "解析速度更快（2 倍）"), a token mismatch rather than a
    passage missing and another extra. Not at either end, where a note is added or dropped."""
    found = []
    for (i0, j0), (i1, j1) in pairwise(pairs):
        if i1 - i0 != 2 or j1 - j0 != 2:
            continue
        i, j = i0 + 1, j0 + 1
        a, b = scorer.a[i], scorer.b[j]
        if (
            (a.kind, a.level) == (b.kind, b.level)
            and SAME_KIND - scorer.length_off(i, j) > 0
            and a.tokens.total() == b.tokens.total() > 0
        ):
            found.append((i, j))
    return found


def _joined(scorer: _Scorer, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Blocks the translation merged or split: a block left unpaired next to a pair, every token of which the
    pair's other block has over what its partner has (two paragraphs made one keep both paragraphs' PR
    numbers), and so on along a run of them. A block without tokens cannot be told merged from left out, and
    stays unpaired."""
    of_a = dict(pairs)
    of_b = {j: i for i, j in pairs}
    found: list[tuple[int, int]] = []
    while True:
        more = [*_beside(scorer.a, scorer.b, of_a), *((i, j) for j, i in _beside(scorer.b, scorer.a, of_b))]
        if not more:
            return found
        found += more


def _beside(ours: list[Shape], theirs: list[Shape], partner: dict[int, int]) -> Iterator[tuple[int, int]]:
    """Blocks of one side left unpaired next to a paired block whose partner has all their tokens over its own
    (but one, of three or more: a number the translation did not bring up to date), each with that partner (and
    taken as paired, so a run of them is found in one pass)."""
    for i, shape in enumerate(ours):
        if i in partner or not shape.tokens:
            continue
        for k in (i - 1, i + 1):
            j = partner.get(k)
            if j is None:
                continue
            lacking = sum((shape.tokens - (theirs[j].tokens - ours[k].tokens)).values())
            if lacking == 0 or (lacking == 1 and shape.tokens.total() >= 3):
                partner[i] = j
                yield i, j
                break


def groups(pairs: Sequence[tuple[int, int]]) -> list[tuple[list[int], list[int]]]:
    """Pairs (in order) as the blocks rendered together: a block and its translation, or blocks merged or split."""
    out: list[tuple[list[int], list[int]]] = []
    for i, j in pairs:
        if out and (out[-1][0][-1] == i or out[-1][1][-1] == j):
            group = out[-1]
            if group[0][-1] != i:
                group[0].append(i)
            if group[1][-1] != j:
                group[1].append(j)
        else:
            out.append(([i], [j]))
    return out


def as_they_are(canonical: Sequence[Block], page: Sequence[Block]) -> set[int]:
    """The canonical's names and short headings (`NAMES` words at most) a page has word for word: on a bilingual
    page whose `languages` keep the translation, those no one translates, which the kept part does not repeat. A
    longer passage in the canonical's words alone is one the page left untranslated."""
    # each side of a heading "번역 / Original" too, which such a page gives in both languages
    texts = {
        " ".join(fold(part).split())
        for b in page
        if b.kind != "code"
        for part in (b.text, *b.text.split(" / "))
    }
    return {
        i
        for i in _text_blocks(canonical)
        if len(words := fold(canonical[i].text).split()) <= NAMES and " ".join(words) in texts
    }


def carried(stream: Stream, mirror: Sequence[Block], pairing: Pairing, page: Sequence[Block] = ()) -> float:
    """The share of the canonical's words (its word `stream`) the translation renders: its paired blocks, and its
    code blocks whose every command the copy has as it is. `page`: the whole page of a copy whose `languages`
    kept a part of it, whose untranslated blocks and commands count too."""

    canonical, words = stream.blocks, stream.per_block
    if not sum(words):
        return 1.0
    lines = page or mirror
    present = {" ".join(line.split()) for b in lines for line in b.text.split("\n") if line.strip()}
    paired = {i for i, _ in pairing.pairs} | as_they_are(canonical, page)
    kept = sum(
        n
        for i, (block, n) in enumerate(zip(canonical, words, strict=True))
        if i in paired
        or (block.kind == "code" and all(" ".join(x.split()) in present for x in command_lines(block)))
    )
    return kept / sum(words)


def compare(
    canonical: list[Block],
    mirror: list[Block],
    pairing: Pairing,
    pages: tuple[str, str] = ("", ""),
    page: Sequence[Block] = (),
) -> list[Finding]:
    """Missing, extra, token-mismatch, relinked and corrupted-code findings of a translation against one
    canonical version. `page`: the whole page of a copy whose `languages` kept a part of it: a canonical block
    it has as it is (a name no one translates) is not missing, and its commands are the page's."""
    from differ.audit.links import paired_link_findings

    together = groups(pairing.pairs)
    starts = {g[0][0]: g for g in together}
    covered = {i for g in together for i in g[0]} | as_they_are(canonical, page)
    findings: list[Finding] = []
    run: list[Finding] = []
    for i in _text_blocks(canonical):
        block = canonical[i]
        if i not in covered:
            run.append(Finding("missing", block.section, block.text, None, block.kind))
            continue
        findings += in_a_row(run)
        run = []
        if i in starts:  # a block and what renders it, or blocks the translation merged or split, together
            ours_at, theirs_at = starts[i]
            ours = JOINED.join(canonical[k].text for k in ours_at)
            copy = JOINED.join(mirror[k].text for k in theirs_at)
            ours_counted = JOINED.join(counted_text(canonical[k]) for k in ours_at)  # footnote labels aside
            copy_counted = JOINED.join(counted_text(mirror[k]) for k in theirs_at)
            if detail := token_detail(ours_counted, copy_counted):
                findings.append(Finding("token_mismatch", block.section, ours, copy, detail))
    findings += in_a_row(run)
    run = []
    section: tuple[str, ...] = ()
    rendered = {j: i for i, j in pairing.pairs}
    for j in _text_blocks(mirror):
        if j in rendered:
            findings += in_a_row(run)
            run, section = [], canonical[rendered[j]].heads
        elif not looks_like_command(mirror[j], canonical) and not translated_comment(mirror, j, canonical):
            # neither a command the copy lost the code block of, nor one of that code's comments, translated
            run.append(Finding("extra", section, None, mirror[j].text, mirror[j].kind))
    findings += in_a_row(run)
    findings += paired_link_findings(canonical, mirror, together, pages)
    findings += code_findings(canonical, list(page) or mirror, set())
    return findings
