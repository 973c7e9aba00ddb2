"""Which blocks of two versions stand for each other: the common start and end set aside, blocks found once on
each side as anchors (patience diff) with difflib in the gaps, and in a run of replaced blocks, the ones that
are one block rewritten (same text, similar words, or a shared run of words) paired; the rest removed or added."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from differ.diff.blocks import Block, words
from differ.diff.sequences import BIG, aligned, anchored_opcodes, common_ends, ordered_opcodes, ratio, turned
from differ.diff.words import CodeLine, code_lines

PAIR_THRESHOLD = 0.4  # word similarity at which a removed and an added block are one modified block
SHARED_RUN = 10  # words in a row that make two blocks one block rewritten, whatever the rest
PAIR_WINDOW = 60  # largest run of differing blocks compared pairwise (bigger runs pair by position)
# and the most words on one side times those on the other in such a run: forty paragraphs of 2,000 words replaced
# by forty others took 38 s compared pairwise, each sharing enough words with each to be aligned
PAIR_WORDS = 1_000_000_000
WINDOWED = 2_000  # blocks in a run, both sides, up to which a run past PAIR_WINDOW is paired window by window


def similarity(a: Block, b: Block) -> float:
    """How much of two blocks' words is the same, 0 to 1; a pair that cannot reach PAIR_THRESHOLD may be given
    any lower value (found from word counts alone, without aligning the words)."""
    if (a.kind != b.kind and {a.kind, b.kind} != {"paragraph", "item"}) or a.other_link(b):
        return 0.0
    wa, wb = _words(a), _words(b)
    if not wa and not wb:
        return 1.0
    shared = sum((_bag(a) & _bag(b)).values())  # bounds both the ratio and the longest shared run
    bound = 2 * shared / (len(wa) + len(wb))
    if bound < PAIR_THRESHOLD and (shared < SHARED_RUN or not _runs(a) & _runs(b)):
        return bound  # cannot reach it, and no SHARED_RUN words in a row are in both
    if a.kind == "code" == b.kind and len(wa) * len(wb) > BIG:
        # A very long code block is compared by lines (how many are the same): its words recur too much for
        # a word alignment to be cheap.
        return ratio(_code_lines(a), _code_lines(b))
    alignment = aligned(wa, wb)[0]  # in one order: difflib's ratio hangs on it
    alike = alignment.ratio()
    if alike < PAIR_THRESHOLD and alignment.longest_run() >= SHARED_RUN:
        # A rewritten paragraph that keeps a whole sentence of the old one is still that paragraph.
        return PAIR_THRESHOLD + 0.01
    return alike


def block_lines(block: Block) -> tuple[CodeLine, ...]:
    """`code_lines` of a block (computed once a block, for pairing it and for its operations)."""
    known: tuple[CodeLine, ...] | None = block.__dict__.get("_lines")
    if known is None:
        known = block.__dict__["_lines"] = code_lines(block.text)
    return known


def _code_lines(block: Block) -> list[tuple[str, ...]]:
    """A code block's lines, each as its words (indentation and spacing aside)."""
    return [found for *_, found in block_lines(block)]


def _words(block: Block) -> list[str]:
    """The block's words, case aside (computed once a block): "Faster startup" and "Much faster startup" share
    two words, as a reader sees them."""
    known: list[str] | None = block.__dict__.get("_words")
    if known is None:
        known = block.__dict__["_words"] = words(block.text.casefold())
    return known


def _runs(block: Block) -> set[tuple[str, ...]]:
    """Every SHARED_RUN words in a row of the block (computed once a block): two blocks without one in common
    share no such run, whatever their alignment, and are not aligned to find out (sixty paragraphs of a post
    replaced by sixty others were each aligned with each, for words like "the" they all have)."""
    known: set[tuple[str, ...]] | None = block.__dict__.get("_runs")
    if known is None:
        found = _words(block)
        known = block.__dict__["_runs"] = {
            tuple(found[k : k + SHARED_RUN]) for k in range(len(found) - SHARED_RUN + 1)
        }
    return known


def _bag(block: Block) -> Counter[str]:
    known: Counter[str] | None = block.__dict__.get("_bag")
    if known is None:
        known = block.__dict__["_bag"] = Counter(_words(block))
    return known


def align(
    a: list[Block], b: list[Block]
) -> tuple[list[tuple[int, int]], list[int], list[int], list[tuple[int, int]]]:
    """Equal pairs, removed a-indices, added b-indices and modified pairs."""
    ka, kb = [x.key for x in a], [x.key for x in b]
    head, tail = common_ends(ka, kb)
    equal = [(i, i) for i in range(head)]
    removed: list[int] = []
    added: list[int] = []
    modified: list[tuple[int, int]] = []
    mid_a, mid_b = ka[head : len(ka) - tail], kb[head : len(kb) - tail]
    runs: list[tuple[int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in either_way(mid_a, mid_b):
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
            pair(a, b, ia, ib, removed, added, modified)
    equal.extend((len(a) - tail + k, len(b) - tail + k) for k in range(tail))
    return sorted(equal), sorted(removed), sorted(added), sorted(modified)


def either_way(ka: list[str], kb: list[str]) -> Sequence[tuple[str, int, int, int, int]]:
    """`anchored_opcodes` of the two lists, or of the lists swapped, whichever keeps more blocks in place (then
    moves them less, then keeps earlier ones, then keeps the first in text order): difflib breaks a tie
    between equally long matches by which list comes first, and the diff of b and a must be the mirror image
    of the diff of a and b."""
    forward = anchored_opcodes(ka, kb)
    kept = sum(i2 - i1 for tag, i1, i2, _, _ in forward if tag == "equal")
    whole = ka if kept == len(ka) else kb if kept == len(kb) else None
    if whole is not None and _found_once(whole, ka, kb):
        return forward  # one list kept whole, each of its blocks found once: no other choice to make
    backward = turned(anchored_opcodes(kb, ka))
    return min(forward, backward, key=lambda ops: _judged(ops, ka))


def _found_once(keys: list[str], ka: list[str], kb: list[str]) -> bool:
    """Whether every one of `keys` stands once in each list (blocks added or removed around blocks kept whole
    can then be aligned one way only; a block that repeats could be kept at either copy)."""
    ca, cb = Counter(ka), Counter(kb)
    return all(ca[k] == 1 == cb[k] for k in keys)


def _judged(ops: Sequence[tuple[str, int, int, int, int]], ka: list[str]) -> tuple[int, int, int, list[str]]:
    """What an alignment is judged by, the same whichever list is called a: blocks kept (more first), how far
    they shift, how late they stand, and which they are."""
    equal = [(i2 - i1, i1, j1) for tag, i1, i2, j1, _ in ops if tag == "equal"]
    return (
        -sum(n for n, _, _ in equal),
        sum(n * abs(i - j) for n, i, j in equal),
        sum(n * (i + j) for n, i, j in equal),
        [key for n, i, _ in equal for key in ka[i : i + n]],
    )


def pair(
    a: list[Block],
    b: list[Block],
    ia: list[int],
    ib: list[int],
    removed: list[int],
    added: list[int],
    modified: list[tuple[int, int]],
    along: Sequence[tuple[int, int]] | None = None,
) -> None:
    """Pair blocks of a replaced run in order: first those whose visible text is unchanged (only a link or a
    heading level differs), then the rest by word similarity; leftovers are removed or added. The blocks stand in
    one place of both versions (a run of the alignment), where one code block, heading or paragraph put in the
    place of another is that block changed whatever its words; or, given the blocks that moved unchanged
    (`along`), they are left over from anywhere in the document and paired by their words, but for one heading
    for another under which a block moved: that section renamed as it moved."""
    pairs: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in ordered_opcodes([a[x].text_key for x in ia], [b[y].text_key for y in ib]):
        if tag == "equal":
            pairs.extend(zip(ia[i1:i2], ib[j1:j2], strict=True))
        else:
            pairs.extend(_pair_similar(a, b, ia[i1:i2], ib[j1:j2]))
    paired_a = {x for x, _ in pairs}
    paired_b = {y for _, y in pairs}
    # One example replaced by another in its place is that code block changed, whatever its words; one
    # heading replaced by another of its level is that section renamed.
    for kind in ("code", "heading") if along is None else ("heading",):
        only_a = [x for x in ia if x not in paired_a and a[x].kind == kind]
        only_b = [y for y in ib if y not in paired_b and b[y].kind == kind]
        if (
            len(only_a) == 1
            and len(only_b) == 1
            and _same_place(a[only_a[0]], b[only_b[0]])
            and (along is None or _carried(a[only_a[0]], b[only_b[0]], a, b, along))
        ):
            pairs.append((only_a[0], only_b[0]))
            paired_a.add(only_a[0])
            paired_b.add(only_b[0])
    # One paragraph (or quote) put in the place of another, and nothing else left, is that paragraph rewritten,
    # as a reader would say; list items are facts of their own, one dropped and another added, but for the
    # entries of a table of contents, which follow the headings they point to.
    left_a = [x for x in ia if x not in paired_a]
    left_b = [y for y in ib if y not in paired_b]
    if along is None and len(left_a) == 1 and len(left_b) == 1 and _rewritten(a[left_a[0]], b[left_b[0]]):
        x, y = left_a[0], left_b[0]
        if sum(p < x for p, _ in pairs) == sum(q < y for _, q in pairs):  # after the same paired blocks
            pairs.append((x, y))
            paired_a.add(x)
            paired_b.add(y)
    modified.extend(pairs)
    removed.extend(x for x in ia if x not in paired_a)
    added.extend(y for y in ib if y not in paired_b)


def _rewritten(x: Block, y: Block) -> bool:
    """Two blocks that, alone in one place, are one prose block rewritten: paragraphs of one kind, or quotes; or
    one entry of a table of contents renamed (an item linking to a place on the page, and nothing else)."""
    if x.kind != y.kind or x.other_link(y):
        return False
    if x.kind == "item":
        return x.depth == y.depth and x.contents_entry and y.contents_entry
    return (x.kind == "paragraph" and x.top == y.top and x.depth == y.depth) or x.kind == "quote"


def _carried(x: Block, y: Block, a: list[Block], b: list[Block], along: Sequence[tuple[int, int]]) -> bool:
    """Whether a block moved unchanged from the section heading `x` opens to the one heading `y` opens."""
    old, new = x.heads, y.heads
    return any(a[i].section[: len(old)] == old and b[j].section[: len(new)] == new for i, j in along)


def _same_place(x: Block, y: Block) -> bool:
    """Two code blocks in one language, or two headings of one level."""
    return x.lead == y.lead if x.kind == "code" else x.level == y.level


def _pair_similar(a: list[Block], b: list[Block], ia: list[int], ib: list[int]) -> list[tuple[int, int]]:
    """In-order pairs of blocks whose words are similar enough to call one a rewrite of the other: the most
    similar pair first, then the next that keeps the order, so the pairs are the same whichever version is
    called a (a tie goes to the pair nearer in place, then earlier, then by the blocks' text)."""
    if not ia or not ib:
        return []
    if len(ia) * len(ib) > PAIR_WINDOW * PAIR_WINDOW and len(ia) + len(ib) <= WINDOWED:
        return _pair_in_windows(a, b, ia, ib)
    words = sum(len(_words(a[x])) for x in ia) * sum(len(_words(b[y])) for y in ib)
    if len(ia) * len(ib) > PAIR_WINDOW * PAIR_WINDOW or words > PAIR_WORDS:
        return [(x, y) for x, y in zip(ia, ib, strict=False) if similarity(a[x], b[y]) >= PAIR_THRESHOLD]
    found = []
    for p, x in enumerate(ia):
        for q, y in enumerate(ib):
            score = similarity(a[x], b[y])
            if score > PAIR_THRESHOLD:
                found.append(
                    (-score, abs(p - q), p + q, min(a[x].key, b[y].key), max(a[x].key, b[y].key), p, q)
                )
    kept: list[tuple[int, int]] = []
    for *_, p, q in sorted(found):
        if all((p < p2) == (q < q2) and p != p2 and q != q2 for p2, q2 in kept):
            kept.append((p, q))
    return sorted((ia[p], ib[q]) for p, q in kept)


def _pair_in_windows(a: list[Block], b: list[Block], ia: list[int], ib: list[int]) -> list[tuple[int, int]]:
    """A long run of replaced blocks paired window by window, each PAIR_WINDOW blocks of either side, as
    `_pair_similar` pairs a short run: the pairs in the first half of a window are kept (those near its end may
    have their match in the next), and the next window starts after the last kept pair. Fifty paragraphs each
    split in two were paired by place, the second with the first's second half and so on to the end."""
    pairs: list[tuple[int, int]] = []
    half = PAIR_WINDOW // 2
    p = q = 0
    while p < len(ia) and q < len(ib):
        end_a, end_b = p + PAIR_WINDOW >= len(ia), q + PAIR_WINDOW >= len(ib)
        place_a = {x: k for k, x in enumerate(ia[p : p + PAIR_WINDOW], p)}
        place_b = {y: k for k, y in enumerate(ib[q : q + PAIR_WINDOW], q)}
        kept = [
            (x, y)
            for x, y in _pair_similar(a, b, list(place_a), list(place_b))
            if (end_a or place_a[x] < p + half) and (end_b or place_b[y] < q + half)
        ]
        pairs += kept
        if end_a and end_b:
            break
        if kept:
            p, q = place_a[kept[-1][0]] + 1, place_b[kept[-1][1]] + 1
        else:
            p, q = (p if end_a else p + half), (q if end_b else q + half)
    return pairs
