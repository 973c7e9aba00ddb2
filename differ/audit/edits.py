"""Which of the canonical's edits since the version a copy matches the copy carries already: a translator or a
mirror's maintainer who carried one of three edits is told of the other two, not of all three again. An edit is
carried when the copy's passage reads closer to the canonical's after it than before it: a copy word for word by
the words it has and the words it has over (its passage joined with others counts only its own), a translation
by the numbers, identifiers and names the edit changed, as it keeps them (its code word by word). An edit of
punctuation or of a link's target, with the same words on both sides, is told by the copy's block reading as one
side does, its links too. Where the copy cannot tell (a move, markup alone, a name a translation may have
rendered in its own language), the edit is left to carry over."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from differ.audit.align import Alignment, Stream, align
from differ.audit.tokens import invariant_tokens, latin_words

if TYPE_CHECKING:
    from differ.audit.translation import Pairing
    from differ.diff.blocks import Block
    from differ.diff.changes import Change, Diff


@dataclass
class Missed:
    """The canonical's edits since the version a copy matches (`since`), and which of them the copy carries."""

    since: Diff
    carried: list[bool]

    @property
    def diff(self) -> Diff:
        """The edits the copy misses; every one when it would carry them all (its words and the version it
        matches disagree: the match stands)."""
        if all(self.carried):
            return self.since
        kept = [c for c, ok in zip(self.since.changes, self.carried, strict=True) if not ok]
        return replace(self.since, changes=kept)

    @property
    def carries(self) -> int:
        """How many edits it carries (none, when it would carry them all)."""
        return 0 if all(self.carried) else sum(self.carried)

    @property
    def owed(self) -> set[int]:
        """The canonical's latest blocks the copy has to carry over: those added or edited since its version,
        but for the ones whose edit it carries."""
        lineage = self.since.lineage()
        done = {
            c.b_index for c, ok in zip(self.since.changes, self.carried, strict=True) if ok and self.carries
        }
        return {y for y in range(len(self.since.b_blocks)) if lineage.get(y, (0, True))[1] and y not in done}

    def as_carried(self) -> list[Block]:
        """The version the copy matches with the edits it carries made: what its findings are told against, so
        an edit it carried is no `altered` passage or `token_mismatch`."""
        d = self.since
        lineage = d.lineage()
        now: dict[int, Block | None] = {}  # the version's blocks the copy has as they now read, or no more
        new: dict[int, list[Block]] = {}  # blocks added, by the version's block they follow (-1: the top)
        for c, ok in zip(d.changes, self.carried, strict=True):
            if not ok or not self.carries:
                continue
            if c.a_index is not None:
                now[c.a_index] = None if c.b_index is None else d.b_blocks[c.b_index]
            elif c.b_index is not None:
                after = max((y for y in lineage if y < c.b_index), default=None)
                new.setdefault(-1 if after is None else lineage[after][0], []).append(d.b_blocks[c.b_index])
        out = new.get(-1, [])
        for x, block in enumerate(d.a_blocks):
            kept = now.get(x, block)
            out += [kept] if kept is not None else []
            out += new.get(x, [])
        return out


def missed(d: Diff, copy: Sequence[Block], as_translation: bool, aligned: Aligned = (None, None)) -> Missed:
    """The edits of `d` (the canonical from the version a copy matches to its latest), and which the copy
    carries."""
    return Missed(d, carried_edits(d, copy, as_translation, aligned))


#: the copy aligned with `d`'s older and newer version, where the audit has them already (else None): its words
#: (`Alignment`), or a translation's blocks paired (`Pairing`)
Aligned = tuple["Alignment | Pairing | None", "Alignment | Pairing | None"]


def carried_edits(
    d: Diff, copy: Sequence[Block], as_translation: bool, aligned: Aligned = (None, None)
) -> list[bool]:
    """For each change of `d` (the canonical from the version a copy matches to its latest), whether the copy
    reads as after it rather than as before it."""
    return [sign > 0 for sign in edit_signs(d, copy, as_translation, aligned)]


def edit_signs(
    d: Diff, copy: Sequence[Block], as_translation: bool, aligned: Aligned = (None, None)
) -> list[int]:
    """For each change of `d`, how the copy reads its passage: 1 as after the change, -1 as before it, 0 when
    its words cannot tell. `aligned`: the copy already aligned word by word with either version, as an audit
    aligns it."""
    if not as_translation:
        return _by_words(d, list(copy), aligned=aligned)
    # a translation's code is kept as it is: its code blocks are told by their words, the rest by their tokens
    code = _by_words(d, list(copy), code_only=True)
    tokens = _by_tokens(d, list(copy), aligned)
    return [(code if _code(d, c) else tokens)[k] for k, c in enumerate(d.changes)]


def _code(d: Diff, c: Change) -> bool:
    """Whether a change is of a block a translation keeps as it is: code, or a block without words."""
    blocks = [d.a_blocks[c.a_index]] if c.a_index is not None else []
    blocks += [d.b_blocks[c.b_index]] if c.b_index is not None else []
    return any(b.kind == "code" or not b.text.strip() for b in blocks)


def _by_words(
    d: Diff, copy: list[Block], code_only: bool = False, aligned: Aligned = (None, None)
) -> list[int]:
    """A copy word for word: the edit is carried when the copy's passage is fewer words away from the passage
    after it (the words it lacks and the words it has over, inside the stretch of the copy that renders it) than
    from the passage before it, and the copy renders most of the passage as it now reads (a copy that leaves the
    passage out has not carried an edit of it); the other way round, the copy reads as before it. `code_only`:
    code blocks alone (a translation's)."""
    mirror = Stream.of(copy, code_only)
    given = [a if isinstance(a, Alignment) and not code_only else None for a in aligned]
    before = _Distances(given[0] or align(Stream.of(d.a_blocks, code_only), mirror))
    after = _Distances(given[1] or align(Stream.of(d.b_blocks, code_only), mirror))
    out = []
    for c in d.changes:
        ia, ib = c.a_index, c.b_index
        if c.kind in ("moved", "invisible") or (ia is None and ib is None):
            out.append(0)  # words cannot tell where a passage stands, nor characters no one sees
            continue
        # a passage added: the words rendering it the copy has over the version before; one removed: the words
        # rendering it the copy has over the version now
        then = before.away(ia) if ia is not None else after.over_in(ib or 0, before)
        now = after.away(ib) if ib is not None else before.over_in(ia or 0, after)
        if now == then and ia is not None and ib is not None:  # the same words: its text and links may tell
            now = _unlike(copy, after.block_of(ib), d.b_blocks[ib])
            then = _unlike(copy, before.block_of(ia), d.a_blocks[ia])
        if now < then and (ib is None or after.renders(ib)):
            out.append(1)
        else:
            out.append(-1 if then < now and (ia is None or before.renders(ia)) else 0)
    return out


def _unlike(copy: list[Block], j: int | None, block: Block) -> int:
    """How unlike `block` the copy's block `j` is, when their words are the same: its text (punctuation and all)
    and its links, each 1 when they differ."""
    if j is None:
        return 2
    return (copy[j].text != block.text) + (copy[j].links != block.links)


class _Distances:
    """For each canonical block of an alignment with a copy: the copy's words that render it (by position), and
    how many other words the copy has in the stretch that renders it."""

    def __init__(self, al: Alignment) -> None:
        self.size = al.canonical.per_block
        self.matched, self.owner = al.matched_b, al.mirror.owner
        self.at: list[list[int]] = [[] for _ in al.canonical.blocks]
        for tag, i1, i2, j1, _ in al.opcodes:
            if tag == "equal":
                for k in range(i2 - i1):
                    self.at[al.canonical.owner[i1 + k]].append(j1 + k)
        self.over = [self._stretch(js, al) - len(js) if js else 0 for js in self.at]

    @staticmethod
    def _stretch(js: list[int], al: Alignment) -> int:
        """How many of the copy's words render a block whose words it has at `js`: from the first to the last,
        and on either side the words of the same copy block that render nothing (words it added at its ends)."""
        owner, matched = al.mirror.owner, al.matched_b
        lo, hi = js[0], js[-1]
        while lo > 0 and not matched[lo - 1] and owner[lo - 1] == owner[js[0]]:
            lo -= 1
        while hi + 1 < len(owner) and not matched[hi + 1] and owner[hi + 1] == owner[js[-1]]:
            hi += 1
        return hi + 1 - lo

    def away(self, i: int) -> int:
        """How far the copy's passage is from block `i`: the block's words it lacks and the words it has over."""
        return self.size[i] - len(self.at[i]) + self.over[i]

    def block_of(self, i: int) -> int | None:
        """The copy's block with most of block `i`'s words, if it has any."""
        return Counter(self.owner[j] for j in self.at[i]).most_common(1)[0][0] if self.at[i] else None

    def renders(self, i: int) -> bool:
        """Whether the copy has most of block `i`'s words."""
        return 2 * len(self.at[i]) > self.size[i]

    def over_in(self, i: int, other: _Distances) -> int:
        """How many of the copy's words rendering block `i` the `other` version's alignment leaves over."""
        return sum(1 for j in self.at[i] if not other.matched[j])


def _by_tokens(d: Diff, copy: list[Block], paired: Aligned = (None, None)) -> list[int]:
    """A translation: an edit is carried when the copy's passage keeps more of the numbers, names and
    identifiers the edit brought in than of those it took out (and the other way round, it reads as before it);
    a passage added is carried when the copy has a passage for it that renders nothing of the version before,
    one removed when the copy renders it no more and has nothing of its own between the passages around it."""
    from differ.audit.translation import Pairing, pair_blocks

    given = [p if isinstance(p, Pairing) else None for p in paired]
    then = _partners((given[0] or pair_blocks(d.a_blocks, copy)).pairs)
    now = _partners((given[1] or pair_blocks(d.b_blocks, copy)).pairs)
    rendered = {j for js in then.values() for j in js}
    out = []
    for c in d.changes:
        ia, ib = c.a_index, c.b_index
        if c.kind in ("moved", "invisible") or (ia is None and ib is None):
            out.append(0)
        elif ia is None:
            out.append(int(any(j not in rendered for j in now.get(ib or 0, ()))))
        elif (
            ib is None
        ):  # paired with a copy block, perhaps by its place alone: no evidence it is still there
            out.append(int(ia not in then and _nothing_between(ia, then, copy)))
        else:  # the copy's passage as it renders the version it matches; unsure when it renders another now
            passage = then.get(ia, [])
            unsure = ib in now and now[ib] != passage
            out.append(0 if unsure else _tokens_lean(c, [copy[j] for j in passage]))
    return out


def _partners(pairs: Sequence[tuple[int, int]]) -> dict[int, list[int]]:
    """Each canonical block's blocks in the copy, from a pairing."""
    out: dict[int, list[int]] = {}
    for i, j in pairs:
        out.setdefault(i, []).append(j)
    return out


def _nothing_between(i: int, partners: dict[int, list[int]], copy: list[Block]) -> bool:
    """Whether the copy has no block with words between those that render the blocks around block `i`."""
    before = max((max(js) for k, js in partners.items() if k < i), default=-1)
    after = min((min(js) for k, js in partners.items() if k > i), default=len(copy))
    return not any(b.text.strip() for b in copy[before + 1 : after])


def _tokens_lean(c: Change, passage: list[Block]) -> int:
    """Which way the copy's passage keeps the tokens the edit changed: 1 as they are after it, -1 as before,
    0 neither. Each number, identifier or address it brought in or took out counts for the side whose count the
    copy's is nearer, and each name too where the copy has it (a name it lacks may have been translated)."""
    if not passage:
        return 0
    text = " ".join(b.text for b in passage)
    score = 0
    for was, now, theirs, kept in (
        (invariant_tokens(c.before or ""), invariant_tokens(c.after or ""), invariant_tokens(text), True),
        (_names(c.before or ""), _names(c.after or ""), _names(text), False),
    ):
        for k in (was - now) + (now - was):
            if kept or theirs[k]:
                near_now, near_was = abs(theirs[k] - now[k]), abs(theirs[k] - was[k])
                score += (near_now < near_was) - (near_was < near_now)
    return (score > 0) - (score < 0)


def _names(text: str) -> Counter[str]:
    return Counter(latin_words(text, names=True))
