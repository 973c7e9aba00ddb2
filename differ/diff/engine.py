"""Align two versions block by block and describe every change: added, removed, modified (with word
operations), moved, link, invisible; metadata apart. Formatting-only differences are no change."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from differ.diff.blocks import Block, split_blocks, word_matches, words

PAIR_THRESHOLD = 0.4  # word similarity at which a removed and an added block are one modified block
SHARED_RUN = 10  # words in a row that make two blocks one block rewritten, whatever the rest
PAIR_WINDOW = 60  # largest run of differing blocks compared pairwise (bigger runs pair by position)


@dataclass
class Change:
    """One change between two versions."""

    kind: str  # added, removed, modified, moved, link, invisible
    section: tuple[str, ...]
    before: str | None
    after: str | None
    block: str = "paragraph"
    label: str = ""
    ops: list[dict[str, str]] = field(default_factory=list)
    a_index: int | None = None
    b_index: int | None = None
    detail: str = ""
    at_end: bool = False
    members: list[tuple[int, str, str]] = field(default_factory=list)  # (b_index, block, text) moved along

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "block": self.block,
            "section": list(self.section),
            "label": self.label,
            "before": self.before,
            "after": self.after,
            "ops": self.ops,
        }
        if self.detail:
            data["detail"] = self.detail
        if self.at_end:
            data["at_end"] = True
        return data


@dataclass
class Diff:
    """All changes between two Markdown versions, with the block alignment behind them."""

    changes: list[Change]
    metadata: list[dict[str, Any]] = field(default_factory=list)
    equal: list[tuple[int, int]] = field(default_factory=list)
    a_blocks: list[Block] = field(default_factory=list)
    b_blocks: list[Block] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.changes and not self.metadata

    def __len__(self) -> int:
        return len(self.changes) + len(self.metadata)


def word_ops(before: str, after: str, *, code: bool = False) -> list[dict[str, str]]:
    """Inserted, deleted and replaced words (numbers and punctuation count as words); each op's text is the
    stretch of the block from its first changed word to its last, as the block spells it ("Bar::C", not
    the words joined again). In `code`, lines are aligned first (`code_opcodes`)."""
    if code:
        return _code_ops(before, after)
    ma, mb = word_matches(before), word_matches(after)
    ops: list[dict[str, str]] = []
    opcodes = word_opcodes([m.group() for m in ma], [m.group() for m in mb])
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            continue
        op: dict[str, str] = {"op": tag}
        if i2 > i1:
            op["before"] = before[ma[i1].start() : ma[i2 - 1].end()]
        if j2 > j1:
            op["after"] = after[mb[j1].start() : mb[j2 - 1].end()]
        ops.append(op)
    return ops


Opcode = tuple[str, int, int, int, int]
CODE_LINES_ALIKE = 0.5  # word similarity at which replaced lines of code are diffed word by word
BIG = 10_000_000  # pairs of equal words beyond which difflib's work (quadratic in them) is cut short


class Alignment:
    """difflib's alignment of two word sequences, with their common start and end set apart first: an edit in
    a long block then aligns only what lies between. difflib's work grows with the pairs of equal words, which
    is quadratic in words that recur (`(` and `=` in a 10,000-line code block: 22 million pairs, where a 2,500
    word post and its copy have 30,000); beyond BIG pairs, the commonest words are not matched on their own
    (difflib's autojunk), only alongside the rarer words around them."""

    def __init__(self, a: Sequence[Any], b: Sequence[Any]):
        head, tail = _trim(a, b)
        self.a, self.b, self.head, self.tail = a, b, head, tail
        middle_a, middle_b = a[head : len(a) - tail], b[head : len(b) - tail]
        self.middle = len(middle_a), len(middle_b)
        self.matcher = SequenceMatcher(
            None, middle_a, middle_b, autojunk=_equal_pairs(middle_a, middle_b) > BIG
        )

    def ratio(self) -> float:
        total = len(self.a) + len(self.b)
        if not total:
            return 1.0
        inner = sum(m.size for m in self.matcher.get_matching_blocks())
        return 2 * (self.head + self.tail + inner) / total

    def longest_run(self) -> int:
        found = self.matcher.find_longest_match(0, self.middle[0], 0, self.middle[1])
        return max(self.head, self.tail, found.size)

    def opcodes(self) -> list[Opcode]:
        h = self.head
        out: list[Opcode] = [("equal", 0, h, 0, h)] if h else []
        if any(self.middle):
            out += [(t, i1 + h, i2 + h, j1 + h, j2 + h) for t, i1, i2, j1, j2 in self.matcher.get_opcodes()]
        if self.tail:
            la, lb = len(self.a), len(self.b)
            out.append(("equal", la - self.tail, la, lb - self.tail, lb))
        merged: list[Opcode] = []
        for op in out:  # the middle may start or end equal: one run, as difflib gives it
            if merged and op[0] == "equal" == merged[-1][0]:
                merged[-1] = ("equal", merged[-1][1], op[2], merged[-1][3], op[4])
            else:
                merged.append(op)
        return merged


def _equal_pairs(a: Sequence[Any], b: Sequence[Any]) -> int:
    """How many pairs of equal elements two sequences hold (what difflib's work grows with)."""
    if len(a) * len(b) <= BIG:
        return len(a) * len(b)
    ca, cb = Counter(a), Counter(b)
    return sum(n * cb[x] for x, n in ca.items() if x in cb)


def word_opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """How two blocks' words align, coincidences folded: what the ops say and what every output marks."""
    return _coincidences_folded(Alignment(a, b).opcodes())


# Where a line of code starts and ends in its block, and its words.
CodeLine = tuple[int, int, tuple[str, ...]]


def code_lines(text: str) -> tuple[CodeLine, ...]:
    """A code block's lines that hold words: where each starts and ends in the text (indentation and trailing
    spaces aside) and its words."""
    out, offset = [], 0
    for line in text.split("\n"):
        found = tuple(words(line))
        if found:
            lead = len(line) - len(line.lstrip())
            out.append((offset + lead, offset + len(line.rstrip()), found))
        offset += len(line) + 1
    return tuple(out)


def _code_ops(
    before: str, after: str, la: Sequence[CodeLine] | None = None, lb: Sequence[CodeLine] | None = None
) -> list[dict[str, str]]:
    """`word_ops` of two code blocks, line by line (`code_opcodes`), reading each line's words once: a block
    of 10,000 lines is not taken apart word by word to find the one line that changed."""
    la = code_lines(before) if la is None else la
    lb = code_lines(after) if lb is None else lb
    ops: list[dict[str, str]] = []
    for tag, l1, l2, m1, m2, alike in line_opcodes([k for *_, k in la], [k for *_, k in lb]):
        if tag == "equal":
            continue
        old = before[la[l1][0] : la[l2 - 1][1]] if l2 > l1 else ""
        new = after[lb[m1][0] : lb[m2 - 1][1]] if m2 > m1 else ""
        if alike:
            ops += word_ops(old, new)
            continue
        op = {"op": tag}
        if old:
            op["before"] = old
        if new:
            op["after"] = new
        ops.append(op)
    return ops


def line_opcodes(
    a: Sequence[tuple[str, ...]], b: Sequence[tuple[str, ...]]
) -> Iterator[tuple[str, int, int, int, int, bool]]:
    """Two code blocks' lines (each as its words) aligned, as code is read: the opcodes over lines, each saying
    whether its lines are alike, a line edited (diffed word by word) rather than rewritten. What the ops, every
    output and the summary of a code block are made from."""
    for tag, l1, l2, m1, m2 in Alignment(a, b).opcodes():
        alike = tag == "replace" and (
            Alignment([w for line in a[l1:l2] for w in line], [w for line in b[m1:m2] for w in line]).ratio()
            >= CODE_LINES_ALIKE
        )
        yield tag, l1, l2, m1, m2, alike


def code_opcodes(
    a: Sequence[str], a_lines: Sequence[int], b: Sequence[str], b_lines: Sequence[int]
) -> list[Opcode]:
    """How two code blocks' words align, line by line first, as code is read: lines kept, added and removed
    whole, and replaced lines diffed word by word only when they are alike (a corrupted flag in a command);
    lines rewritten altogether are one replacement, not a scatter of shared `(` and `=`."""

    def grouped(lines: Sequence[int]) -> list[tuple[int, int]]:  # each line's words, as a range of indices
        spans: list[tuple[int, int]] = []
        for i, line in enumerate(lines):
            if spans and lines[spans[-1][0]] == line:
                spans[-1] = (spans[-1][0], i + 1)
            else:
                spans.append((i, i + 1))
        return spans

    la, lb = grouped(a_lines), grouped(b_lines)
    keys_a = [tuple(a[i:j]) for i, j in la]
    keys_b = [tuple(b[i:j]) for i, j in lb]
    out: list[Opcode] = []

    def start(spans: list[tuple[int, int]], k: int, total: int) -> int:
        return spans[k][0] if k < len(spans) else total

    for tag, l1, l2, m1, m2, alike in line_opcodes(keys_a, keys_b):
        i1, i2 = start(la, l1, len(a)), start(la, l2, len(a))
        j1, j2 = start(lb, m1, len(b)), start(lb, m2, len(b))
        if alike:
            out += [
                (t, x1 + i1, x2 + i1, y1 + j1, y2 + j1)
                for t, x1, x2, y1, y2 in word_opcodes(a[i1:i2], b[j1:j2])
            ]
        else:
            out.append((tag, i1, i2, j1, j2))
    return out


def _coincidences_folded(
    opcodes: Sequence[tuple[str, int, int, int, int]],
) -> list[tuple[str, int, int, int, int]]:
    """Opcodes where a run of equal words at most a quarter as long as the edits on either side of it is folded
    into them: "the" or "value" shared by a sentence and its rewrite is a coincidence, not a word left as it was
    (diff-match-patch's semantic cleanup, counted in words and stricter)."""
    out = list(opcodes)
    k = 1
    while k < len(out) - 1:
        tag, i1, i2, _, _ = out[k]
        before, after = out[k - 1], out[k + 1]
        size = 4 * (i2 - i1)
        if (
            tag == "equal"
            and size <= max(before[2] - before[1], before[4] - before[3])
            and size <= max(after[2] - after[1], after[4] - after[3])
        ):
            out[k - 1 : k + 2] = [("replace", before[1], after[2], before[3], after[4])]
            k = max(k - 2, 1)  # the wider edit may now swallow the equal run before it
        else:
            k += 1
    return out


def join_words(tokens: list[str]) -> str:
    """Words as one line of text, spaced as prose spaces them (for words that no longer have a text)."""
    out = ""
    for tok in tokens:
        if out and (tok[0].isalnum() or tok[0] in "([{“‘\"'#") and not out.endswith(("(", "[", "{", "#")):
            out += " "
        out += tok
    return out


def similarity(a: Block, b: Block) -> float:
    """How much of two blocks' words is the same, 0 to 1; a pair that cannot reach PAIR_THRESHOLD may be given
    any lower value (found from word counts alone, without aligning the words)."""
    if a.kind != b.kind and {a.kind, b.kind} != {"paragraph", "item"}:
        return 0.0
    wa, wb = _words(a), _words(b)
    if not wa and not wb:
        return 1.0
    shared = sum((_bag(a) & _bag(b)).values())  # bounds both the ratio and the longest shared run
    bound = 2 * shared / (len(wa) + len(wb))
    if bound < PAIR_THRESHOLD and shared < SHARED_RUN:
        return bound
    if a.kind == "code" == b.kind and len(wa) * len(wb) > BIG:
        # A very long code block is compared by lines (how many are the same): its words recur too much for
        # a word alignment to be cheap.
        return Alignment(_code_lines(a), _code_lines(b)).ratio()
    alignment = Alignment(wa, wb)
    ratio = alignment.ratio()
    if ratio < PAIR_THRESHOLD and alignment.longest_run() >= SHARED_RUN:
        # A rewritten paragraph that keeps a whole sentence of the old one is still that paragraph.
        return PAIR_THRESHOLD + 0.01
    return ratio


def _block_lines(block: Block) -> tuple[CodeLine, ...]:
    """`code_lines` of a block (computed once a block, for pairing it and for its operations)."""
    known: tuple[CodeLine, ...] | None = block.__dict__.get("_lines")
    if known is None:
        known = block.__dict__["_lines"] = code_lines(block.text)
    return known


def _code_lines(block: Block) -> list[tuple[str, ...]]:
    """A code block's lines, each as its words (indentation and spacing aside)."""
    return [found for *_, found in _block_lines(block)]


def _words(block: Block) -> list[str]:
    """The block's words (computed once a block)."""
    known: list[str] | None = block.__dict__.get("_words")
    if known is None:
        known = block.__dict__["_words"] = words(block.text)
    return known


def _bag(block: Block) -> Counter[str]:
    known: Counter[str] | None = block.__dict__.get("_bag")
    if known is None:
        known = block.__dict__["_bag"] = Counter(_words(block))
    return known


def _trim(a: Sequence[Any], b: Sequence[Any]) -> tuple[int, int]:
    """Lengths of the common prefix and suffix, so alignment only works on the middle."""
    n = min(len(a), len(b))
    head = 0
    while head < n and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    return head, tail


def align(
    a: list[Block], b: list[Block]
) -> tuple[list[tuple[int, int]], list[int], list[int], list[tuple[int, int]]]:
    """Equal pairs, removed a-indices, added b-indices and modified pairs."""
    ka, kb = [x.key for x in a], [x.key for x in b]
    head, tail = _trim(ka, kb)
    equal = [(i, i) for i in range(head)]
    removed: list[int] = []
    added: list[int] = []
    modified: list[tuple[int, int]] = []
    mid_a, mid_b = ka[head : len(ka) - tail], kb[head : len(kb) - tail]
    runs: list[tuple[int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in _opcodes(mid_a, mid_b):
        i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
        if tag == "equal":
            equal.extend(zip(range(i1, i2), range(j1, j2), strict=True))
        elif tag == "delete":
            removed.extend(range(i1, i2))
        elif tag == "insert":
            added.extend(range(j1, j2))
        else:
            runs.append((i1, i2, j1, j2))
    if runs:
        # A block whose exact copy is also unaligned on the other side moved: it is not paired by similarity
        # (which costs most where sections were reordered), and the move is found later.
        loose_a = {ka[x] for x in removed}.union(*(ka[i1:i2] for i1, i2, _, _ in runs))
        loose_b = {kb[y] for y in added}.union(*(kb[j1:j2] for _, _, j1, j2 in runs))
        for i1, i2, j1, j2 in runs:
            ia = [x for x in range(i1, i2) if ka[x] not in loose_b]
            ib = [y for y in range(j1, j2) if kb[y] not in loose_a]
            removed.extend(x for x in range(i1, i2) if ka[x] in loose_b)
            added.extend(y for y in range(j1, j2) if kb[y] in loose_a)
            _pair(a, b, ia, ib, removed, added, modified)
    equal.extend((len(a) - tail + k, len(b) - tail + k) for k in range(tail))
    return sorted(equal), sorted(removed), sorted(added), sorted(modified)


ANCHORED = 64  # longer runs are first cut at blocks found once in each version (patience diff)


def _opcodes(ka: list[str], kb: list[str]) -> Sequence[tuple[str, int, int, int, int]]:
    """difflib opcodes for two key lists. Long lists are cut at their unique common keys taken in order
    (the longest increasing run of them), and only the gaps between go to SequenceMatcher, which is quadratic
    where keys repeat (a release post's sections share many equal lines)."""
    if len(ka) < ANCHORED or len(kb) < ANCHORED:
        return SequenceMatcher(None, ka, kb, autojunk=False).get_opcodes()
    count_a, count_b = Counter(ka), Counter(kb)
    where_b = {k: j for j, k in enumerate(kb) if count_b[k] == 1}
    pairs = [(i, where_b[k]) for i, k in enumerate(ka) if count_a[k] == 1 and k in where_b]
    if not pairs:
        # No key found once on each side (a document of repeated sections, reordered): take the n-th copy of
        # a key on one side for its n-th copy on the other, so SequenceMatcher only sees short gaps.
        pairs = _nth_copies(ka, kb, count_b)
    if not pairs:
        return SequenceMatcher(None, ka, kb, autojunk=False).get_opcodes()
    ops: list[tuple[str, int, int, int, int]] = []
    i0 = j0 = 0
    for i, j in [*_increasing(pairs), (len(ka), len(kb))]:
        if i > i0 or j > j0:  # the gap before this anchor: keys unique within it may anchor it in turn
            gap = _opcodes(ka[i0:i], kb[j0:j])
            ops.extend((tag, x1 + i0, x2 + i0, y1 + j0, y2 + j0) for tag, x1, x2, y1, y2 in gap)
        if i < len(ka):
            ops.append(("equal", i, i + 1, j, j + 1))
        i0, j0 = i + 1, j + 1
    return ops


def _nth_copies(ka: list[str], kb: list[str], count_b: Counter[str]) -> list[tuple[int, int]]:
    """Pairs of the n-th copy of a key in `ka` and its n-th copy in `kb`, for as many copies as both have."""
    where_b: dict[str, list[int]] = defaultdict(list)
    for j, k in enumerate(kb):
        where_b[k].append(j)
    seen: Counter[str] = Counter()
    pairs = []
    for i, k in enumerate(ka):
        n = seen[k]
        if n < count_b[k]:
            pairs.append((i, where_b[k][n]))
            seen[k] = n + 1
    return pairs


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
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


def _pair(
    a: list[Block],
    b: list[Block],
    ia: list[int],
    ib: list[int],
    removed: list[int],
    added: list[int],
    modified: list[tuple[int, int]],
) -> None:
    """Pair blocks of a replaced run in order: first those whose visible text is unchanged (only a link or a
    heading level differs), then the rest by word similarity; leftovers are removed or added."""
    same = SequenceMatcher(None, [a[x].text_key for x in ia], [b[y].text_key for y in ib], autojunk=False)
    pairs: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in same.get_opcodes():
        if tag == "equal":
            pairs.extend(zip(ia[i1:i2], ib[j1:j2], strict=True))
        else:
            pairs.extend(_pair_similar(a, b, ia[i1:i2], ib[j1:j2]))
    paired_a = {x for x, _ in pairs}
    paired_b = {y for _, y in pairs}
    code_a = [x for x in ia if x not in paired_a and a[x].kind == "code"]
    code_b = [y for y in ib if y not in paired_b and b[y].kind == "code"]
    if len(code_a) == 1 and len(code_b) == 1 and a[code_a[0]].lead == b[code_b[0]].lead:
        # One example replaced by another in its place is that code block changed, whatever its words.
        pairs.append((code_a[0], code_b[0]))
        paired_a.add(code_a[0])
        paired_b.add(code_b[0])
    modified.extend(pairs)
    removed.extend(x for x in ia if x not in paired_a)
    added.extend(y for y in ib if y not in paired_b)


def _pair_similar(a: list[Block], b: list[Block], ia: list[int], ib: list[int]) -> list[tuple[int, int]]:
    """In-order pairs of blocks whose words are similar enough to call one a rewrite of the other."""
    if not ia or not ib:
        return []
    if len(ia) * len(ib) > PAIR_WINDOW * PAIR_WINDOW:
        return [(x, y) for x, y in zip(ia, ib, strict=False) if similarity(a[x], b[y]) >= PAIR_THRESHOLD]
    pairs = []
    j_start = 0
    for x in ia:
        best, best_score = None, PAIR_THRESHOLD
        for pos in range(j_start, len(ib)):
            score = similarity(a[x], b[ib[pos]])
            if score > best_score or (score == best_score and best is None and score > PAIR_THRESHOLD):
                best, best_score = pos, score
        if best is not None:
            pairs.append((x, ib[best]))
            j_start = best + 1
    return pairs


def diff_blocks(a: list[Block], b: list[Block]) -> Diff:
    equal, removed, added, modified = align(a, b)
    changes: list[Change] = []
    # Moves: a removed block whose text reappears as an added block moved, unchanged.
    added_by_key: dict[str, list[int]] = defaultdict(list)
    for y in added:
        added_by_key[b[y].key].append(y)
    moved: list[tuple[int, int]] = []
    still_removed = []
    for x in removed:
        candidates = added_by_key.get(a[x].key)
        if candidates:
            moved.append((x, candidates.pop(0)))
        else:
            still_removed.append(x)
    moved_b = {y for _, y in moved}
    still_added = [y for y in added if y not in moved_b]
    # A rewritten block may land in another run of the alignment than its old form: pair across runs.
    if still_removed and still_added and len(still_removed) * len(still_added) <= PAIR_WINDOW * PAIR_WINDOW:
        extra: list[tuple[int, int]] = []
        _pair(a, b, still_removed, still_added, [], [], extra)
        paired_a = {x for x, _ in extra}
        paired_b = {y for _, y in extra}
        modified = sorted(modified + extra)
        still_removed = [x for x in still_removed if x not in paired_a]
        still_added = [y for y in still_added if y not in paired_b]
    trailing = set()
    pending = set(still_added)
    for y in range(len(b) - 1, -1, -1):
        if y not in pending:
            break
        trailing.add(y)
    for x, y in moved:
        old, new = a[x], b[y]
        detail = _moved_detail(old, new)
        changes.append(
            Change("moved", new.section, old.text, new.text, new.kind, new.label, [], x, y, detail=detail)
        )
    for x in still_removed:
        old, ops = a[x], [{"op": "delete", "before": a[x].text}]
        changes.append(Change("removed", old.section, old.text, None, old.kind, old.label, ops, x, None))
    for y in still_added:
        new, ops = b[y], [{"op": "insert", "after": b[y].text}]
        at_end = y in trailing
        changes.append(
            Change("added", new.section, None, new.text, new.kind, new.label, ops, None, y, at_end=at_end)
        )
    for x, y in modified:
        changes.append(_paired(a[x], b[y], x, y))
    changes = _group_moves(_splits_and_joins(changes))
    kept = sorted(equal + modified)
    changes.sort(
        key=lambda c: (
            c.b_index if c.b_index is not None else _anchor(c.a_index, kept),
            0 if c.kind == "removed" else 1,
        )
    )
    return Diff(changes, [], equal, a, b)


def _paired(old: Block, new: Block, x: int, y: int) -> Change:
    """The change between two aligned blocks: a heading's level, links alone (same text), or the words, code
    by lines."""
    if old.text == new.text:
        if old.kind == "heading" and old.level != new.level:
            kind, detail = "modified", f"heading level {old.level} → {new.level}"
        else:
            kind, detail = "link", _link_detail(old, new)
        return Change(kind, new.section, old.text, new.text, new.kind, new.label, [], x, y, detail=detail)
    if old.kind == "code" == new.kind:
        ops = _code_ops(old.text, new.text, _block_lines(old), _block_lines(new))
    else:
        ops = word_ops(old.text, new.text)
    links_moved = [u for _, u in old.links] != [u for _, u in new.links]
    detail = _link_detail(old, new) if links_moved else ""
    # named as it was when words were only added to it (`New plugin API: added "(beta)"`), else as it is now
    label = old.label if ops and all(op["op"] == "insert" for op in ops) else new.label
    return Change("modified", new.section, old.text, new.text, new.kind, label, ops, x, y, detail=detail)


def _anchor(x: int | None, kept: list[tuple[int, int]]) -> float:
    """Where a removed block would stand in the new version: just after the block that stood before it and is
    still there, unchanged or rewritten (so a paragraph removed after a rewritten one is listed after it)."""
    if x is None:
        return 0
    before = bisect_left(kept, (x,))  # kept is sorted: the pairs before this one have ea < x
    return kept[before - 1][1] + 0.5 if before else -0.5


def _moved_detail(old: Block, new: Block) -> str:
    if old.section != new.section:
        where = " › ".join(old.section) or "the top"
        to = " › ".join(new.section) or "the top"
        return f"moved from {where} to {to}"
    return "moved within its section"


def _link_detail(old: Block, new: Block) -> str:
    """Which links changed, matched by their text (a link added or removed shifts the others)."""
    parts = []
    matcher = SequenceMatcher(None, [t for t, _ in old.links], [t for t, _ in new.links], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for (_, ou), (nt, nu) in zip(old.links[i1:i2], new.links[j1:j2], strict=True):
                if ou != nu:
                    parts.append(f'link "{nt}": {ou or "(empty)"} → {nu or "(empty)"}')
            continue
        olds, news = old.links[i1:i2], new.links[j1:j2]
        if len(olds) == len(news):  # the link text changed: pair them in order
            for (ot, ou), (nt, nu) in zip(olds, news, strict=True):
                parts.append(
                    f'link "{nt}": {ou or "(empty)"} → {nu or "(empty)"}'
                    if ou != nu
                    else f'link text "{ot}" → "{nt}" ({nu})'
                )
            continue
        parts.extend(f'link "{t}" added: (empty) → {u}' for t, u in news)
        parts.extend(f'link "{t}" removed: {u} → (empty)' for t, u in olds)
    return "; ".join(parts)


def _splits_and_joins(changes: list[Change]) -> list[Change]:
    """A paragraph that lost a sentence which now stands next to it as a paragraph of its own was split, and
    the reverse is a join: the words did not change, so the change carries no word operations."""
    added = {c.b_index: c for c in changes if c.kind == "added" and c.b_index is not None}
    removed = {c.a_index: c for c in changes if c.kind == "removed" and c.a_index is not None}
    dropped: set[int] = set()

    def neighbour(pool: dict[int, Change], index: int, text: str) -> tuple[int, Change] | None:
        """The block just after or before `index` whose words are exactly `text`, with its index."""
        for k in (index + 1, index - 1):
            other = pool.get(k)
            if (
                other is not None
                and id(other) not in dropped
                and words(other.after or other.before or "") == words(text)
            ):
                return k, other
        return None

    for c in changes:
        if c.kind != "modified" or len(c.ops) != 1 or c.a_index is None or c.b_index is None:
            continue
        op = c.ops[0]
        if op["op"] == "delete" and (found := neighbour(added, c.b_index, op["before"])):
            index, other = found
            c.ops, c.detail = [], "split: part of it is now a paragraph of its own"
            c.members.append((index, other.block, other.after or ""))
            dropped.add(id(other))
        elif op["op"] == "insert" and (found := neighbour(removed, c.a_index, op["after"])):
            c.ops, c.detail = [], "joined with the paragraph next to it"
            dropped.add(id(found[1]))
    return [c for c in changes if id(c) not in dropped]


def _group_moves(changes: list[Change]) -> list[Change]:
    """A heading that moved with every block under it is reported as one moved section."""
    moved = sorted((c for c in changes if c.kind == "moved"), key=lambda c: c.b_index or 0)
    others = [c for c in changes if c.kind != "moved"]
    grouped: list[Change] = []
    for change in moved:
        prev = grouped[-1] if grouped else None
        if (
            prev is not None
            and prev.block == "heading"
            and prev.b_index is not None
            and change.b_index == prev.b_index + prev.detail.count("\n") + 1
            and prev.a_index is not None
            and change.a_index == prev.a_index + prev.detail.count("\n") + 1
            and change.section[: len(prev.section) + 1] == (*prev.section, prev.after)
        ):
            prev.detail += "\n"
            if change.b_index is not None and change.after is not None:
                prev.members.append((change.b_index, change.block, change.after))
            continue
        grouped.append(change)
    for change in grouped:
        blocks = change.detail.count("\n") + 1
        change.detail = change.detail.split("\n", 1)[0]
        if change.block == "heading" and blocks > 1:
            change.detail += f" (the section, {blocks} blocks)"
    return others + grouped


def _invisible_changes(
    a_inv: list[dict[str, Any]], b_inv: list[dict[str, Any]], a: list[Block], b: list[Block]
) -> list[Change]:
    """Invisible characters removed (counted in the old version, not the new) and added (the other way)."""

    def sig(entry: dict[str, Any]) -> tuple[str, str]:
        return str(entry.get("char")), str(entry.get("before", ""))

    before, after = Counter(map(sig, a_inv)), Counter(map(sig, b_inv))
    changes = []
    for counts, blocks, verb in ((before - after, a, "removed"), (after - before, b, "added")):
        for (char, word), count in counts.items():
            block = _find(blocks, word)
            detail = f"{count} invisible {char} {verb}" + (f' before "{word}"' if word else "")
            text = block.text if block else None
            changes.append(
                Change(
                    "invisible",
                    block.section if block else (),
                    text,
                    text,
                    block.kind if block else "paragraph",
                    block.label if block else "",
                    [],
                    detail=detail,
                )
            )
    return changes


def _find(blocks: list[Block], word: str) -> Block | None:
    for block in blocks:
        if word and word in block.text:
            return block
    return None


def _field_name(path: list[Any]) -> str:
    """A metadata path as people write it: `title`, `author.name`, `tags[1]`."""
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name


def metadata_changes(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Field-level changes of metadata, by deepdiff, as {field, before, after}; None marks the absent side."""
    from deepdiff import DeepDiff
    from deepdiff.helper import NotPresent

    # threshold_to_diff_deeper=0: field by field even when most fields changed (else deepdiff reports the root)
    result = DeepDiff(a or {}, b or {}, ignore_order=False, view="tree", threshold_to_diff_deeper=0)
    changes: list[dict[str, Any]] = []
    for levels in result.values():
        for level in levels:
            before = None if isinstance(level.t1, NotPresent) else level.t1
            after = None if isinstance(level.t2, NotPresent) else level.t2
            changes.append(
                {"field": _field_name(level.path(output_format="list")), "before": before, "after": after}
            )
    return sorted(changes, key=lambda c: c["field"])


def diff(
    a_markdown: str,
    b_markdown: str,
    *,
    a_meta: dict[str, Any] | None = None,
    b_meta: dict[str, Any] | None = None,
    a_invisible: list[dict[str, Any]] | None = None,
    b_invisible: list[dict[str, Any]] | None = None,
) -> Diff:
    """Everything that changed from `a` to `b`."""
    a, b = split_blocks(a_markdown), split_blocks(b_markdown)
    result = diff_blocks(a, b)
    result.changes.extend(_invisible_changes(a_invisible or [], b_invisible or [], a, b))
    result.metadata = metadata_changes(a_meta or {}, b_meta or {})
    return result


def apply(a: list[Block], d: Diff) -> list[str]:
    """Rebuild the new version's blocks (kind and text) from the old version and the changes alone."""
    out: dict[int, str] = {}
    for x, y in d.equal:
        out[y] = a[x].text_key
    for change in d.changes:
        if change.b_index is not None and change.kind != "invisible" and change.after is not None:
            out[change.b_index] = f"{change.block}\x1f{change.after}"
        for index, block, text in change.members:  # the rest of a section that moved as one
            out[index] = f"{block}\x1f{text}"
    return [out[k] for k in sorted(out)]
