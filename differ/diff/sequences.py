"""How two sequences align (words, lines, blocks' keys): difflib with the common start and end set apart first
(`Alignment`), its search for matches kept within a budget, and long sequences first cut at the elements found
once on each side (patience diff, `anchored_opcodes`); opcodes turned round, shifted and merged."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from difflib import SequenceMatcher
from itertools import accumulate
from typing import Any

Opcode = tuple[str, int, int, int, int]
TURNED = {"insert": "delete", "delete": "insert"}  # an opcode's tag, of b against a
BIG = 10_000_000  # pairs of equal elements beyond which difflib is not tried (its work is quadratic in them)
# Pairs of equal elements difflib may visit looking for matches before the sequences are cut first at the elements
# found once in each (a diff of the benchmark's 1 MB pages visits at most 180,000).
WORK = 2_000_000


class Alignment:
    """The alignment of two sequences (`opcodes`), with their common start and end set apart first: an edit in
    a long block then aligns only what lies between."""

    def __init__(self, a: Sequence[Any], b: Sequence[Any]):
        head, tail = common_ends(a, b)
        self.a, self.b, self.head, self.tail = a, b, head, tail
        middle_a, middle_b = a[head : len(a) - tail], b[head : len(b) - tail]
        self.middle, self.by = opcodes(middle_a, middle_b) if middle_a or middle_b else ([], "difflib")

    def ratio(self) -> float:
        total = len(self.a) + len(self.b)
        if not total:
            return 1.0
        inner = sum(i2 - i1 for tag, i1, i2, _, _ in self.middle if tag == "equal")
        return 2 * (self.head + self.tail + inner) / total

    def longest_run(self) -> int:
        runs = [i2 - i1 for tag, i1, i2, _, _ in merged(self.middle) if tag == "equal"]
        return max(self.head, self.tail, *runs)

    def opcodes(self) -> list[Opcode]:
        h = self.head
        out: list[Opcode] = [("equal", 0, h, 0, h)] if h else []
        out += shifted(self.middle, h, h)
        if self.tail:
            la, lb = len(self.a), len(self.b)
            out.append(("equal", la - self.tail, la, lb - self.tail, lb))
        return merged(out)  # the middle may start or end equal: one run, as difflib gives it


class _TooLong(Exception):
    pass


class _Budgeted(SequenceMatcher):  # type: ignore[type-arg]
    """difflib's matcher, without autojunk, giving up (`_TooLong`) once its search for matches would visit more
    than WORK pairs of equal elements. Each match it finds searches again the stretches on either side, and
    the pairs of a word that recurs in both (`=` in lines `x1 = 1` … rewritten `y1 = f(1)` …) are visited once
    a match: a thousand such lines took 50 s. The cost of a search is bounded by counting, for each element of
    its stretch of `a`, the places of `b` that hold it."""

    def __init__(self, a: Sequence[Any], b: Sequence[Any]) -> None:
        super().__init__(None, a, b, autojunk=False)
        self.left = WORK
        in_b = Counter(b)
        self.visits = [0, *accumulate(in_b.get(x, 0) for x in a)]

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> Any:
        ahi = len(self.visits) - 1 if ahi is None else ahi
        self.left -= self.visits[ahi] - self.visits[alo]
        if self.left < 0:
            raise _TooLong
        return super().find_longest_match(alo, ahi, blo, bhi)


def opcodes(a: Sequence[Any], b: Sequence[Any]) -> tuple[list[Opcode], str]:
    """How two sequences align, and by what: by difflib while its search for matches takes under WORK visits
    (`_Budgeted`; an ordinary post and its copy take a tenth of that); past it, long sequences are cut first at
    the elements found once in each (`anchored_opcodes`, whose stretches between come back here), and short
    ones go to difflib with autojunk (the commonest elements matched only alongside rarer ones)."""
    if len(a) * len(b) * (2 * min(len(a), len(b)) + 1) <= WORK:  # so short a search cannot go past WORK
        return list(SequenceMatcher(None, a, b, autojunk=False).get_opcodes()), "difflib"
    if _equal_pairs(a, b) <= BIG:
        try:
            return list(_Budgeted(a, b).get_opcodes()), "difflib"
        except _TooLong:
            pass
    if len(a) >= ANCHORED and len(b) >= ANCHORED:
        return anchored_opcodes(a, b), "anchored"
    return list(SequenceMatcher(None, a, b, autojunk=True).get_opcodes()), "autojunk"


def _equal_pairs(a: Sequence[Any], b: Sequence[Any]) -> int:
    """How many pairs of equal elements two sequences hold (what difflib's work grows with)."""
    if len(a) * len(b) <= BIG:
        return len(a) * len(b)
    ca, cb = Counter(a), Counter(b)
    return sum(n * cb[x] for x, n in ca.items() if x in cb)


def aligned(a: Sequence[Any], b: Sequence[Any]) -> tuple[Alignment, bool]:
    """The `Alignment` of two sequences made in one order whichever is `a` (the lesser first), and whether that
    was b against a: difflib breaks ties between equally long matches, and so its ratio, by which sequence comes
    first, and the diff of b and a must be the mirror image of the diff of a and b."""
    swapped = list(b) < list(a)
    return (Alignment(b, a) if swapped else Alignment(a, b)), swapped


def ratio(a: Sequence[Any], b: Sequence[Any]) -> float:
    """How alike two sequences are, 0 to 1, the same whichever is `a` (`aligned`)."""
    return aligned(a, b)[0].ratio()


def at_most(a: Sequence[Any], b: Sequence[Any]) -> float:
    """The most `ratio` can be: as if every element the two have in common were matched (difflib's
    quick_ratio), found in one pass where the ratio of a thousand lines rewritten takes difflib a second."""
    total = len(a) + len(b)
    return 2 * sum((Counter(a) & Counter(b)).values()) / total if total else 1.0


def ordered_opcodes(a: Sequence[Any], b: Sequence[Any]) -> list[Opcode]:
    """difflib's opcodes of two short sequences, taken in one order whichever is `a` (difflib breaks ties by
    which comes first), so those of b against a are those of a against b turned round."""
    if list(b) < list(a):
        return turned(ordered_opcodes(b, a))
    return [
        (str(t), i1, i2, j1, j2)
        for t, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    ]


def turned(ops: Sequence[Opcode]) -> list[Opcode]:
    """Opcodes of b against a, from those of a against b."""
    return [(TURNED.get(t, t), j1, j2, i1, i2) for t, i1, i2, j1, j2 in ops]


def merged(ops: Sequence[Opcode]) -> list[Opcode]:
    """Opcodes with empty ones left out and neighbouring equal runs made one, as difflib gives them."""
    out: list[Opcode] = []
    for op in ops:
        if op[1] == op[2] and op[3] == op[4]:
            continue
        if out and op[0] == "equal" == out[-1][0]:
            out[-1] = ("equal", out[-1][1], op[2], out[-1][3], op[4])
        else:
            out.append(op)
    return out


def slid(
    ops: Sequence[Opcode], a: Sequence[Any], b: Sequence[Any], fits: Callable[[str, int, int], float]
) -> list[Opcode]:
    """Each run one side has alone (deleted from `a`, inserted in `b`) between two equal runs, slid to where
    `fits(side, start, end)` says it reads best ("a" or "b", the run's place on that side), among the places its
    words allow: a run is equally one place along when the words beside it repeat it ("is out. Release 2.13" in
    "Release 2.13 is out. Release 2.13 brings" is "Release 2.13 is out."). On a tie it stays where it was."""
    out = list(ops)
    for k in range(1, len(out) - 1):
        tag, i1, i2, j1, j2 = out[k]
        before, after = out[k - 1], out[k + 1]
        if before[0] != "equal" or after[0] != "equal" or tag not in ("delete", "insert"):
            continue
        side, seq, lo, hi = ("a", a, i1, i2) if tag == "delete" else ("b", b, j1, j2)
        left = right = 0
        while left < before[2] - before[1] and seq[lo - left - 1] == seq[hi - left - 1]:
            left += 1
        while right < after[2] - after[1] and seq[lo + right] == seq[hi + right]:
            right += 1
        if not left and not right:
            continue
        shift = max(range(-left, right + 1), key=lambda s: (fits(side, lo + s, hi + s), s == 0))
        if shift:  # the run and its neighbours' inner ends move together, on both sides
            out[k - 1] = ("equal", before[1], before[2] + shift, before[3], before[4] + shift)
            out[k] = (tag, i1 + shift, i2 + shift, j1 + shift, j2 + shift)
            out[k + 1] = ("equal", after[1] + shift, after[2], after[3] + shift, after[4])
    joined: list[Opcode] = []
    # a shared run slid away whole leaves two edits side by side: one, as difflib has it
    for op in merged(out):
        if joined and op[0] != "equal" and joined[-1][0] != "equal":
            last = joined.pop()
            op = (last[0] if last[0] == op[0] else "replace", last[1], op[2], last[3], op[4])
        joined.append(op)
    return joined


def shifted(ops: Sequence[Opcode], i: int, j: int) -> list[Opcode]:
    """Opcodes of two stretches, as positions in the sequences they start at `i` and `j` of."""
    return [(tag, i1 + i, i2 + i, j1 + j, j2 + j) for tag, i1, i2, j1, j2 in ops]


def common_ends(a: Sequence[Any], b: Sequence[Any]) -> tuple[int, int]:
    """Lengths of the common prefix and suffix, so alignment only works on the middle."""
    n = min(len(a), len(b))
    head = 0
    while head < n and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    return head, tail


ANCHORED = 64  # longer runs are first cut at blocks found once in each version (patience diff)


def anchored_opcodes(ka: Sequence[Any], kb: Sequence[Any]) -> list[Opcode]:
    """Opcodes for two key lists. Long lists are cut at their unique common keys taken in order (the longest
    increasing run of them), and only the gaps between go to difflib (`opcodes`), which is quadratic where keys
    repeat (a release post's sections share many equal lines)."""
    if len(ka) < ANCHORED or len(kb) < ANCHORED:
        return opcodes(ka, kb)[0]
    pairs = _found_once(ka, kb)
    if not pairs and min(len(ka), len(kb)) >= RUNS_FROM:  # a long text of a small vocabulary: runs of keys
        pairs = _unique_runs(ka, kb)
    if not pairs:
        # Nor a run (a document of repeated sections, reordered): take the n-th copy of a key on one side for
        # its n-th copy on the other, so SequenceMatcher only sees short gaps.
        pairs = _nth_copies(ka, kb, Counter(kb))
    if not pairs:  # no element in common
        return [("replace", 0, len(ka), 0, len(kb))]
    ops: list[Opcode] = []
    i0 = j0 = 0
    for i, j in [*increasing_run(pairs), (len(ka), len(kb))]:
        if i > i0 or j > j0:  # the gap before this anchor: keys unique within it may anchor it in turn
            ops.extend(shifted(anchored_opcodes(ka[i0:i], kb[j0:j]), i0, j0))
        if i < len(ka):
            ops.append(("equal", i, i + 1, j, j + 1))
        i0, j0 = i + 1, j + 1
    return ops


RUNS = (4, 8, 16)  # the lengths of the runs of keys tried as anchors, shortest first (each twice the last)
# the length of each side from which runs are looked for: shorter stretches (a section's blocks repeated
# elsewhere, reordered) are anchored well enough by taking the n-th copy of a key for its n-th copy
RUNS_FROM = 5_000


def _unique_runs(ka: Sequence[Any], kb: Sequence[Any]) -> list[tuple[int, int]]:
    """Pairs of places where a run of RUNS keys starts that is found once on each side: the anchors of two long
    sequences of a small vocabulary, in which no key is found once (a paragraph of Chinese, a character a word,
    hundreds of thousands long), so that an edit there aligns as itself rather than as difflib's guess. Each
    run is named by a number made of the two halves' numbers (runs of 2, then 4, 8, 16), both sides alike."""
    names: dict[Any, int] = {}
    a = [names.setdefault(k, len(names)) for k in ka]
    b = [names.setdefault(k, len(names)) for k in kb]
    width = 1  # a[i] names the run of `width` keys that starts at ka[i]
    for k in RUNS:
        while width < k:
            runs: dict[tuple[int, int], int] = {}
            a = [runs.setdefault((a[i], a[i + width]), len(runs)) for i in range(len(a) - width)]
            b = [runs.setdefault((b[i], b[i + width]), len(runs)) for i in range(len(b) - width)]
            width *= 2
        if min(len(a), len(b)) < k:
            break
        pairs = _found_once(a, b)
        if pairs:
            return pairs
    return []


def _found_once(ka: Sequence[Any], kb: Sequence[Any]) -> list[tuple[int, int]]:
    """Pairs of the places of each key found once in `ka` and once in `kb`, in `ka`'s order."""
    count_a, count_b = Counter(ka), Counter(kb)
    where_b = {k: j for j, k in enumerate(kb) if count_b[k] == 1}
    return [(i, where_b[k]) for i, k in enumerate(ka) if count_a[k] == 1 and k in where_b]


def _nth_copies(ka: Sequence[Any], kb: Sequence[Any], count_b: Counter[Any]) -> list[tuple[int, int]]:
    """Pairs of the n-th copy of a key in `ka` and its n-th copy in `kb`, for as many copies as both have."""
    where_b: dict[Any, list[int]] = defaultdict(list)
    for j, k in enumerate(kb):
        where_b[k].append(j)
    seen: Counter[Any] = Counter()
    pairs = []
    for i, k in enumerate(ka):
        n = seen[k]
        if n < count_b[k]:
            pairs.append((i, where_b[k][n]))
            seen[k] = n + 1
    return pairs


def increasing_run(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of pairs (in order of their first index) whose second indices increase."""
    tail_j: list[int] = []  # tail_j[k]: the smallest last j of an increasing run of length k + 1
    tail_at: list[int] = []  # the pair that ends that run
    back = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(tail_j, j)
        if k:
            back[n] = tail_at[k - 1]
        if k == len(tail_j):
            tail_j.append(j)
            tail_at.append(n)
        else:
            tail_j[k], tail_at[k] = j, n
    run: list[tuple[int, int]] = []
    n = tail_at[-1] if tail_at else -1
    while n >= 0:
        run.append(pairs[n])
        n = back[n]
    return run[::-1]
