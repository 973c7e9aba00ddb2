"""Align two versions block by block and describe every change: added, removed, modified (with word
operations), moved, link, invisible; metadata apart. Formatting-only differences are no change."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from differ.diff.blocks import Block, split_blocks, words
from differ.diff.words import BIG, Alignment, CodeLine, code_lines, code_ops, common_ends, word_ops

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
        ops = code_ops(old.text, new.text, _block_lines(old), _block_lines(new))
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
