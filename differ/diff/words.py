"""Inside a block: how two sequences of words, or two code blocks' lines, align (`differ.diff.sequences`), word
operations quoted as the block spells them, code read by lines, and a word or two a sentence and its rewrite
happen to share folded into the edit."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from differ.diff.blocks import unspaced, word_matches, words
from differ.diff.sequences import TURNED, Alignment, Opcode, aligned, at_most, ratio, slid, turned

# The word alignments of runs of lines found alike, by where the run starts in each block (`line_opcodes`), so
# that the ops of a run are not worked out again: an alignment and whether it is of b against a.
Known = dict[tuple[int, int], tuple[Alignment, bool]]


def word_ops(
    before: str, after: str, *, code: bool = False, known: tuple[Alignment, bool] | None = None
) -> list[dict[str, str]]:
    """Inserted, deleted and replaced words (numbers and punctuation count as words); each op's text is the
    stretch of the block from its first changed word to its last, as the block spells it ("Bar::C", not
    the words joined again). In `code`, lines are aligned first (`code_opcodes`). `known`: the words'
    alignment, when it was made already."""
    if code:
        return code_ops(before, after)
    ma, mb = word_matches(before), word_matches(after)
    ops: list[dict[str, str]] = []
    opcodes = word_opcodes([m.group() for m in ma], [m.group() for m in mb], known)
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


CODE_LINES_ALIKE = 0.5  # word similarity at which replaced lines of code are diffed word by word


def word_opcodes(
    a: Sequence[str], b: Sequence[str], known: tuple[Alignment, bool] | None = None
) -> list[Opcode]:
    """How two blocks' words align, coincidences folded: what the ops say and what every output marks. difflib
    breaks ties by which sequence comes first, so the two are aligned in one order whichever is `a`: the ops of
    b against a are those of a against b, turned round. `known`: their alignment, when it was made already."""
    fits = known is not None and len(known[0].a) + len(known[0].b) == len(a) + len(b)  # made of these words
    alignment, swapped = known if known is not None and fits else aligned(a, b)
    x, y = alignment.a, alignment.b
    ops = _coincidences_folded(
        slid(alignment.opcodes(), x, y, lambda side, lo, hi: _sentence(x if side == "a" else y, lo, hi)), x
    )
    return turned(ops) if swapped else ops


SENTENCE_ENDS = frozenset(".!?。！？")


def _sentence(tokens: Sequence[str], start: int, end: int) -> int:
    """How well a run of words added or taken out reads as a whole: 2 for starting a sentence (or the block), 2
    for ending one, so "Release 2.13 is out." is what went from "Release 2.13 is out. Release 2.13 brings…",
    not "is out. Release 2.13"."""
    opens = start == 0 or tokens[start - 1] in SENTENCE_ENDS
    closes = end == len(tokens) or tokens[end - 1] in SENTENCE_ENDS
    return 2 * opens + 2 * closes


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


def code_ops(
    before: str, after: str, la: Sequence[CodeLine] | None = None, lb: Sequence[CodeLine] | None = None
) -> list[dict[str, str]]:
    """`word_ops` of two code blocks, line by line (`code_opcodes`), reading each line's words once: a block
    of 10,000 lines is not taken apart word by word to find the one line that changed."""
    la = code_lines(before) if la is None else la
    lb = code_lines(after) if lb is None else lb
    ops: list[dict[str, str]] = []
    known: Known = {}
    for tag, l1, l2, m1, m2, alike in line_opcodes([k for *_, k in la], [k for *_, k in lb], known):
        if tag == "equal":
            continue
        old = before[la[l1][0] : la[l2 - 1][1]] if l2 > l1 else ""
        new = after[lb[m1][0] : lb[m2 - 1][1]] if m2 > m1 else ""
        if alike:
            ops += word_ops(old, new, known=known.get((l1, m1)))
            continue
        op = {"op": tag}
        if old:
            op["before"] = old
        if new:
            op["after"] = new
        ops.append(op)
    return ops


LineOpcode = tuple[str, int, int, int, int, bool]


def line_opcodes(
    a: Sequence[tuple[str, ...]], b: Sequence[tuple[str, ...]], known: Known | None = None
) -> Iterator[LineOpcode]:
    """Two code blocks' lines (each as its words) aligned, as code is read: the opcodes over lines, each saying
    whether its lines are alike, a line edited (diffed word by word) rather than rewritten. Lines replaced by
    others unalike as a whole are paired where one is nearly another (`_paired_lines`): a version bumped in a
    command that now has new lines after it is that bump. What the ops, every output and the summary of a code
    block are made from. Worked out in one order whichever is `a` (`aligned`), so b against a is the mirror.
    Into `known` go the word alignments of the runs found alike as a whole, by where each starts in a and b."""
    alignment, swapped = aligned(a, b)
    x, y = (b, a) if swapped else (a, b)
    found: Known = {}  # as x against y
    for tag, l1, l2, m1, m2 in alignment.opcodes():
        unpaired = [(tag, l1, l2, m1, m2, False)]
        runs = _paired_lines(x, y, l1, l2, m1, m2, found=found) if tag == "replace" else unpaired
        for t, i1, i2, j1, j2, alike in runs:
            if alike and known is not None and (i1, j1) in found:
                words_aligned, turned_round = found[i1, j1]
                known[(j1, i1) if swapped else (i1, j1)] = (words_aligned, turned_round != swapped)
            yield (TURNED.get(t, t), j1, j2, i1, i2, alike) if swapped else (t, i1, i2, j1, j2, alike)


LINES_PAIRED = 0.75  # word similarity at which a line of a rewritten run is paired with one of the other side
PAIRING_LIMIT = 2_500  # pairs of lines compared, at most, to pair the lines of one rewritten run


def _paired_lines(
    a: Sequence[tuple[str, ...]],
    b: Sequence[tuple[str, ...]],
    l1: int,
    l2: int,
    m1: int,
    m2: int,
    budget: list[int] | None = None,
    found: Known | None = None,
) -> list[LineOpcode]:
    """Lines `a[l1:l2]` replaced by `b[m1:m2]`: alike as a whole, one run diffed word by word; else cut at their
    most alike pair of lines, if it is LINES_PAIRED alike, and the lines on either side of it in turn (as
    difflib's ndiff pairs lines); lines left unpaired are removed, added or replaced whole. At most
    PAIRING_LIMIT pairs of lines are compared for one run, however it is cut (`budget`, what is left). Into
    `found` go the word alignments of runs alike as a whole."""
    budget = [PAIRING_LIMIT] if budget is None else budget
    if l1 == l2 or m1 == m2:
        tag = "insert" if l1 == l2 else "delete"
        return [(tag, l1, l2, m1, m2, False)] if (l1, m1) != (l2, m2) else []
    old, new = [w for line in a[l1:l2] for w in line], [w for line in b[m1:m2] for w in line]
    if at_most(old, new) >= CODE_LINES_ALIKE:
        words_aligned = aligned(old, new)
        if words_aligned[0].ratio() >= CODE_LINES_ALIKE:
            if found is not None:
                found[l1, m1] = words_aligned
            return [("replace", l1, l2, m1, m2, True)]
    best, pair = LINES_PAIRED, None
    if (l2 - l1) * (m2 - m1) <= budget[0]:
        budget[0] -= (l2 - l1) * (m2 - m1)
        for i in range(l1, l2):
            for j in range(m1, m2):
                size = len(a[i]) + len(b[j])
                if size and 2 * min(len(a[i]), len(b[j])) / size >= best:  # else it cannot be more alike
                    alike = ratio(a[i], b[j])
                    if alike > best or (alike == best and pair is None):
                        best, pair = alike, (i, j)
    if pair is None:
        return [("replace", l1, l2, m1, m2, False)]
    i, j = pair
    return [
        *_paired_lines(a, b, l1, i, m1, j, budget, found),
        ("replace", i, i + 1, j, j + 1, True),
        *_paired_lines(a, b, i + 1, l2, j + 1, m2, budget, found),
    ]


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

    known: Known = {}
    for tag, l1, l2, m1, m2, alike in line_opcodes(keys_a, keys_b, known):
        i1, i2 = start(la, l1, len(a)), start(la, l2, len(a))
        j1, j2 = start(lb, m1, len(b)), start(lb, m2, len(b))
        if alike:
            out += [
                (t, x1 + i1, x2 + i1, y1 + j1, y2 + j1)
                for t, x1, x2, y1, y2 in word_opcodes(a[i1:i2], b[j1:j2], known.get((l1, m1)))
            ]
        else:
            out.append((tag, i1, i2, j1, j2))
    return out


def _is_word(token: str) -> bool:
    return any(ch.isalnum() for ch in token)


def _coincidences_folded(
    opcodes: Sequence[tuple[str, int, int, int, int]], tokens: Sequence[str]
) -> list[tuple[str, int, int, int, int]]:
    """Opcodes where a run of equal words at most a quarter as long as the edits on either side of it is folded
    into them: "the" or "value" shared by a sentence and its rewrite is a coincidence, not a word left as it was
    (diff-match-patch's semantic cleanup, counted in words and stricter); so is a run of punctuation alone
    shorter than the edits on either side (a comma kept between ". For example" and a rewritten clause)."""
    out = list(opcodes)
    k = 1
    while k < len(out) - 1:
        tag, i1, i2, _, _ = out[k]
        before, after = out[k - 1], out[k + 1]
        size = 4 * (i2 - i1) if any(_is_word(t) for t in tokens[i1:i2]) else i2 - i1 + 1
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
        if (
            out
            and (tok[0].isalnum() or tok[0] in "([{“‘\"'#")
            and not out.endswith(("(", "[", "{", "#"))
            and not (unspaced(tok[0]) and unspaced(out[-1]))  # 新しい, not 新 し い
        ):
            out += " "
        out += tok
    return out
