"""Which of the canonical's edits since the version a copy matches the copy carries already: a translator or a
mirror's maintainer who carried one of three edits is told of the other two, not of all three again. An edit is
carried when the copy's passage reads closer to the canonical's after it than before it: a copy word for word by
the words it has and the words it has over (its passage joined with others counts only its own), a translation
by the numbers, names and identifiers the edit changed that it keeps. Where the copy's words cannot tell (an edit
of punctuation, a link's target, a word a translation rendered), the edit is left to carry over."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import TYPE_CHECKING

from differ.audit.align import Alignment, Stream, align
from differ.audit.tokens import invariant_tokens, latin_words

if TYPE_CHECKING:
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


def missed(d: Diff, copy: Sequence[Block], as_translation: bool) -> Missed:
    """The edits of `d` (the canonical from the version a copy matches to its latest), and which the copy
    carries."""
    return Missed(d, carried_edits(d, copy, as_translation))


def carried_edits(d: Diff, copy: Sequence[Block], as_translation: bool) -> list[bool]:
    """For each change of `d` (the canonical from the version a copy matches to its latest), whether the copy
    reads as after it rather than as before it."""
    judge = _by_tokens if as_translation else _by_words
    return judge(d, list(copy))


def _by_words(d: Diff, copy: list[Block]) -> list[bool]:
    """A copy word for word: the edit is carried when the copy's passage is fewer words away from the passage
    after it (the words it lacks and the words it has over, inside the stretch of the copy that renders it) than
    from the passage before it, and the copy renders most of the passage as it now reads (a copy that leaves the
    passage out has not carried an edit of it)."""
    mirror = Stream.of(copy)
    before = _Distances(align(Stream.of(d.a_blocks), mirror))
    after = _Distances(align(Stream.of(d.b_blocks), mirror))
    out = []
    for c in d.changes:
        ia, ib = c.a_index, c.b_index
        if c.kind in ("moved", "invisible") or (ia is None and ib is None):
            out.append(False)  # words cannot tell where a passage stands, nor characters no one sees
            continue
        then = before.away(ia) if ia is not None else after.matched[ib or 0]
        now = after.away(ib) if ib is not None else before.matched[ia or 0]
        renders = ib is None or 2 * after.matched[ib] > after.size[ib]
        out.append(renders and now < then)
    return out


class _Distances:
    """For each canonical block of an alignment with a copy: how many of its words the copy has, and how many
    words the copy has over inside the stretch that renders them."""

    def __init__(self, al: Alignment) -> None:
        n = len(al.canonical.blocks)
        self.size = al.canonical.per_block
        self.matched = [0] * n
        first: list[int | None] = [None] * n
        last = [0] * n
        for tag, i1, i2, j1, _ in al.opcodes:
            if tag != "equal":
                continue
            for k in range(i2 - i1):
                i = al.canonical.owner[i1 + k]
                self.matched[i] += 1
                if first[i] is None:
                    first[i] = j1 + k
                last[i] = j1 + k
        unmatched = [0, *accumulate(not m for m in al.matched_b)]
        self.over = [0 if f is None else unmatched[last[i] + 1] - unmatched[f] for i, f in enumerate(first)]

    def away(self, i: int) -> int:
        return self.size[i] - self.matched[i] + self.over[i]


def _by_tokens(d: Diff, copy: list[Block]) -> list[bool]:
    """A translation: an edit is carried when the copy's passage keeps more of the numbers, names and
    identifiers the edit brought in than of those it took out; a passage added is carried when the copy has a
    passage for it that renders nothing of the version before, one removed when the copy renders it no more."""
    from differ.audit.translation import pair_blocks

    then: dict[int, list[int]] = {}
    for i, j in pair_blocks(d.a_blocks, copy).pairs:
        then.setdefault(i, []).append(j)
    now: dict[int, list[int]] = {}
    for i, j in pair_blocks(d.b_blocks, copy).pairs:
        now.setdefault(i, []).append(j)
    rendered = {j for js in then.values() for j in js}
    out = []
    for c in d.changes:
        ia, ib = c.a_index, c.b_index
        if c.kind in ("moved", "invisible") or (ia is None and ib is None):
            out.append(False)
        elif ia is None:
            out.append(any(j not in rendered for j in now.get(ib or 0, ())))
        elif ib is None:
            out.append(ia not in then)
        else:
            out.append(_keeps_more_of_after(c, [copy[j] for j in now.get(ib) or then.get(ia) or ()]))
    return out


def _keeps_more_of_after(c: Change, passage: list[Block]) -> bool:
    """Whether the copy's passage keeps more of the tokens the edit brought in than of those it took out."""
    if not passage:
        return False
    code = c.block == "code"
    theirs = _tokens(" ".join(b.text for b in passage), code)
    was, now = _tokens(c.before or "", code), _tokens(c.after or "", code)
    brought, took = now - was, was - now
    return (brought & theirs).total() > (took & theirs).total()


def _tokens(text: str, code: bool) -> Counter[str]:
    """What a translation keeps of a passage as it is: its numbers, identifiers and addresses, and its names
    (or, in code, every word)."""
    return invariant_tokens(text) + Counter(latin_words(text, names=not code))
