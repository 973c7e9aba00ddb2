"""A copy against one canonical version, word by word: the version it reflects best, and what it misses, moves, adds,
replaces, alters, relinks or corrupts; and, for a bilingual copy, the names and numbers its translations keep."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from difflib import SequenceMatcher
from itertools import accumulate

from rapidfuzz import fuzz, process

from differ.audit.align import Alignment, Stream, align, fold, shares
from differ.audit.code import code_findings, looks_like_command
from differ.audit.links import link_findings
from differ.audit.model import JOINED, Finding
from differ.audit.tokens import invariant_tokens, overlap
from differ.diff.blocks import Block
from differ.diff.words import word_opcodes

MISSING_BELOW = 0.5
IN_A_ROW = 3  # missing or extra blocks in a row reported as one finding
MOVED_SIMILAR = 75.0  # a block the copy moved and edited: how alike its words must be (rapidfuzz ratio)
MOVED_WORDS = 5  # and how many words it must have, so that short blocks are not paired by chance
MOVED_PAIRS = 250_000  # above this many pairs of left-over blocks, only blocks moved word for word are sought


def spelled_ops(al: Alignment, a: Sequence[int], b: Sequence[int]) -> list[dict[str, str]]:
    """The word operations between canonical words and copy words (their places in the two streams), aligned as
    the audit compares words (case and punctuation aside) and quoted as the blocks spell them: `dropped "and
    3.15t"`, not `dropped "and 3 15 t"`."""
    ops: list[dict[str, str]] = []
    words_a, words_b = [al.canonical.words[k] for k in a], [al.mirror.words[k] for k in b]
    for tag, i1, i2, j1, j2 in word_opcodes(words_a, words_b):
        if tag == "equal":
            continue
        op = {"op": tag}
        if i2 > i1:
            op["before"] = al.canonical.spelled(a[i1:i2])
        if j2 > j1:
            op["after"] = al.mirror.spelled(b[j1:j2])
        ops.append(op)
    return ops


def best_version(versions: Sequence[tuple[int, Stream]], mirror: Stream) -> tuple[int, Alignment]:
    """The canonical version the mirror reflects best (on a tie, the later one). The audit finds it through
    `Matches`, which remembers it; this is the definition, among versions at hand."""
    best: tuple[float, int, Alignment] | None = None
    for number, stream in versions:
        al = align(stream, mirror)
        if best is None or al.ratio >= best[0]:
            best = (al.ratio, number, al)
    assert best is not None
    return best[1], best[2]


def compare(
    canonical: list[Block], mirror: list[Block], al: Alignment, pages: tuple[str, str] = ("", "")
) -> list[Finding]:
    """Missing, moved, extra, altered, relinked and corrupted-code findings of a mirror against one canonical
    version. `pages` are the canonical's and the mirror's addresses, for their relative links and the mirror's
    own site."""
    findings: list[Finding] = []
    canon_share = shares(al, "canonical")
    mirror_share = shares(al, "mirror")
    unmatched = _unmatched(al, canon_share)
    moved = _moved(al, canon_share, unmatched)
    nearest = _nearest_sections(al) if unmatched else []
    # Words the mirror changed inside a canonical block: opcodes whose canonical side lies in that block.
    changed: dict[int, list[tuple[int, int, int, int]]] = {}
    for tag, i1, i2, j1, j2 in al.opcodes:
        if tag == "equal":
            continue
        if i1 == i2:  # words only the mirror has: each mirror block's share goes to its own canonical block
            for owner, lo, hi in _insertions(al, i1, j1, j2):
                changed.setdefault(owner, []).append((i1, i2, lo, hi))
            continue
        for owner in {al.canonical.owner[k] for k in range(i1, i2)}:
            changed.setdefault(owner, []).append((i1, i2, j1, j2))
    missing: set[int] = set()
    lacking: dict[int, int] = {}  # a missing block's finding (by id), and the block
    run: list[Finding] = []  # missing blocks in a row, reported when the run ends
    section: tuple[Finding, int] | None = None  # a moved heading's finding, and where its last block went
    for index, block in enumerate(canonical):
        if not al.canonical.per_block[index]:
            continue
        opened, section = section, None
        if canon_share[index] < MISSING_BELOW and index not in moved:
            missing.add(index)
            run.append(Finding("missing", block.section, block.text, None, block.kind))
            lacking[id(run[-1])] = index
            continue
        findings.extend(in_a_row(run))
        run = []
        if index in moved:
            missing.add(index)  # its command lines are where it went
            there = moved[index]
            to = f"to {' › '.join(nearest[there]) or 'the top'}"
            to = "within its section" if nearest[there] == block.section else to
            ops = spelled_ops(al, al.canonical.places_of(index), al.mirror.places_of(there))
            if opened and not ops and there == opened[1] + 1 and _opens(opened[0], block):
                opened[0].count += 1  # the next block of a section that moved whole
                section = opened[0], there
                continue
            findings.append(Finding("moved", block.section, block.text, mirror[there].text, to, ops))
            if block.kind == "heading" and not ops:
                section = findings[-1], there
            continue
        if block.kind == "code" or index not in changed:
            continue
        spans = changed[index]
        # The differing runs from the block's first to its last, and of a run that reaches into the next block
        # ("quick" + "Install" → "fast"), only this block's words and those of the copy's blocks it is in.
        start, end = al.canonical.start[index], al.canonical.start[index + 1]
        canon_words = range(
            max(start, min(i1 for i1, _, _, _ in spans)), min(end, max(i2 for _, i2, _, _ in spans))
        )
        lo = min(j1 for _, _, j1, _ in spans)
        hi = max(j2 for _, _, _, j2 in spans)
        mine = al.partners.get(index, set())
        kept = [k for k in range(lo, hi) if not mine or al.mirror.owner[k] in mine]
        mirror_owners = {al.mirror.owner[k] for k in kept}
        if mirror_owners and all(mirror_share[o] < MISSING_BELOW for o in mirror_owners):
            continue  # the differing mirror words belong to extra blocks; reported there
        ops = spelled_ops(al, canon_words, kept)
        mirror_text = JOINED.join(mirror[o].text for o in sorted(mirror_owners)) or None
        if mirror_text and _bilingual_duplicate(block.text, mirror_text):
            continue
        if ops:
            findings.append(Finding("altered", block.section, block.text, mirror_text, block.kind, ops))
    findings.extend(in_a_row(run))
    placed = set(moved.values())
    own: dict[int, int] = {}  # an extra block's finding (by id), and the block
    run, last = [], -1
    for index in unmatched:
        block = mirror[index]
        # Command lines that moved out of a code block are judged with the code, not as extra text.
        if block.kind != "code" and index not in placed and not looks_like_command(block, canonical):
            if any(al.mirror.per_block[last + 1 : index]):  # a block of the mirror's own, after others
                findings.extend(in_a_row(run))
                run = []
            run.append(Finding("extra", nearest[index], None, block.text, block.kind))
            own[id(run[-1])] = index
            last = index
    findings.extend(in_a_row(run))
    findings = _replaced(findings, canonical, mirror, al, lacking, own)
    findings.extend(link_findings(canonical, mirror, al.partners, missing, pages))
    findings.extend(code_findings(canonical, mirror, missing))
    return findings


def _replaced(
    findings: list[Finding],
    canonical: list[Block],
    mirror: list[Block],
    al: Alignment,
    lacking: dict[int, int],
    own: dict[int, int],
) -> list[Finding]:
    """The findings with a block missing and one of the copy's own where it stood, alone there and of one kind,
    told as one: `replaced`, the canonical's text and what the copy has in its place (a paragraph swapped for an
    advertisement, a section renamed). Blocks in a run of `IN_A_ROW` stay one finding of their run."""
    gone = {id(f): f for f in findings if f.kind == "missing" and f.count == 1 and id(f) in lacking}
    added = {id(f): f for f in findings if f.kind == "extra" and f.count == 1 and id(f) in own}
    if not gone or not added:  # most audits: nothing to pair, and no places to count
        return findings
    canon_at, mirror_at = _places(al.canonical, al.matched_a), _places(al.mirror, al.matched_b)
    meets: dict[int, list[int]] = {k: [] for k in gone}
    met: dict[int, list[int]] = {k: [] for k in added}
    # Both sides' places only grow along the text: one sweep pairs those that overlap (no word either side
    # carries stands between them), however many blocks a copy has of its own.
    theirs = sorted((mirror_at[own[e]], e) for e in added)
    first = 0
    for (lo, hi), g in sorted((canon_at[lacking[g]], g) for g in gone):
        while first < len(theirs) and theirs[first][0][1] < lo:
            first += 1
        at = first
        while at < len(theirs) and theirs[at][0][0] <= hi:
            (a_lo, a_hi), e = theirs[at]
            if max(lo, a_lo) <= min(hi, a_hi):
                meets[g].append(e)
                met[e].append(g)
            at += 1
    swapped: dict[int, Finding] = {}
    for g, found in meets.items():
        if len(found) != 1 or len(met[found[0]]) != 1:
            continue
        old, new = canonical[lacking[g]], mirror[own[found[0]]]
        if old.kind == "code" or (old.kind != new.kind and {old.kind, new.kind} != {"paragraph", "item"}):
            continue
        swapped[g] = Finding("replaced", old.section, old.text, new.text, old.kind)
        swapped[found[0]] = swapped[g]
    out: list[Finding] = []
    for f in findings:
        told = swapped.get(id(f))
        if told is None:
            out.append(f)
        elif f.kind == "missing":
            out.append(told)
    return out


def _places(stream: Stream, matched: list[bool]) -> list[tuple[int, int]]:
    """Where each block stands among the words both sides carry: how many come before it, and how many by its
    end (the n-th such word of the canonical is the n-th of the copy)."""
    before = list(accumulate(matched, initial=0))
    return [(before[stream.start[k]], before[stream.start[k + 1]]) for k in range(len(stream.blocks))]


def _opens(heading: Finding, block: Block) -> bool:
    """Whether a block stands in the section whose heading a finding is about."""
    path = (*heading.section, heading.canonical)
    return block.section[: len(path)] == path


def in_a_row(run: list[Finding]) -> list[Finding]:
    """Missing or extra blocks in a row, as they are, or from `IN_A_ROW` on as one finding from the first to the
    last (an excerpt leaves the rest of a post out; a copy adds its comments)."""
    if len(run) < IN_A_ROW:
        return run
    last = run[-1].canonical if run[0].kind == "missing" else run[-1].mirror
    return [replace(run[0], detail=last or "", count=len(run))]


def carried(al: Alignment) -> float:
    """The share of the canonical's words the mirror carries (its coverage): in order, or in blocks it moved."""
    if not al.canonical.words:
        return 1.0
    canon_share = shares(al, "canonical")
    elsewhere = 0
    for i, j in _moved(al, canon_share, _unmatched(al, canon_share)).items():
        unaligned = round(al.canonical.per_block[i] * (1 - canon_share[i]))
        matcher = SequenceMatcher(None, al.canonical.words_of(i), al.mirror.words_of(j))
        elsewhere += min(unaligned, sum(m.size for m in matcher.get_matching_blocks()))
    return (al.matched + elsewhere) / len(al.canonical.words)


def _unmatched(al: Alignment, canon_share: list[float]) -> list[int]:
    """The mirror blocks with under half their words aligned to canonical blocks the mirror carries: extra, or
    moved. Words aligned into a block it lacks are chance ("Read the full post on pytorch.org." meeting "the
    full", "on" and "pytorch.org" in three paragraphs an excerpt left out)."""
    hits = [0] * len(al.mirror.blocks)
    for i, j in al.shared_words():
        if canon_share[i] >= MISSING_BELOW:
            hits[j] += 1
    return [j for j, n in enumerate(al.mirror.per_block) if n and hits[j] / n < MISSING_BELOW]


def _moved(al: Alignment, canon_share: list[float], unmatched: list[int]) -> dict[int, int]:
    """Canonical blocks the word alignment (which keeps order) left out, that the mirror has elsewhere: each
    with the mirror block it is. Such a block is moved, not missing and extra: word for word, or edited too
    (the left-over block most like it, its words at least `MOVED_SIMILAR`% alike). Found once per alignment:
    the findings and the coverage both ask."""
    if al.moves is None:
        al.moves = _find_moved(al, canon_share, unmatched)
    return al.moves


def _find_moved(al: Alignment, canon_share: list[float], unmatched: list[int]) -> dict[int, int]:
    found: dict[tuple[str, ...], list[int]] = {}
    for j in unmatched:
        found.setdefault(tuple(al.mirror.words_of(j)), []).append(j)
    pairs: dict[int, int] = {}
    lacking: list[int] = []
    for i, share in enumerate(canon_share):
        if share < MISSING_BELOW and al.canonical.per_block[i]:
            same = found.get(tuple(al.canonical.words_of(i)))
            if same:
                pairs[i] = same.pop(0)
            else:
                lacking.append(i)
    left = {j: " ".join(al.mirror.words_of(j)) for same in found.values() for j in same}
    left = {j: text for j, text in left.items() if _edited_move(al.mirror, j)}
    lacking = [i for i in lacking if _edited_move(al.canonical, i)]
    if len(left) * len(lacking) > MOVED_PAIRS:
        return pairs
    for i in lacking:
        best = process.extractOne(
            " ".join(al.canonical.words_of(i)), left, scorer=fuzz.ratio, score_cutoff=MOVED_SIMILAR
        )
        if best is not None:
            pairs[i] = best[2]
            del left[best[2]]
    return pairs


def _edited_move(stream: Stream, index: int) -> bool:
    """Whether a block may be paired with another that is like it but not the same: not code (judged by its
    lines), and long enough that likeness is not chance."""
    return stream.blocks[index].kind != "code" and stream.per_block[index] >= MOVED_WORDS


def _insertions(al: Alignment, i: int, j1: int, j2: int) -> Iterator[tuple[int, int, int]]:
    """The canonical block each part of the mirror's words j1..j2 (inserted before canonical word i) was put
    into, with the part: words in the mirror block of the word before them were added to the end of its block
    ("…library today."), those in the block of the word after them to the start of its ("Now faster…"), and
    those inside one canonical block to it. A mirror block of their own belongs to none (it is extra)."""
    canonical, mirror = al.canonical.owner, al.mirror.owner
    j = j1
    while j < j2:
        end = j
        while end < j2 and mirror[end] == mirror[j]:
            end += 1
        after_previous = i > 0 and j > 0 and mirror[j - 1] == mirror[j]
        before_next = i < len(canonical) and end < len(mirror) and mirror[end] == mirror[j]
        inside = 0 < i < len(canonical) and canonical[i - 1] == canonical[i]
        if after_previous:
            yield canonical[i - 1], j, end
        elif before_next or inside:
            yield canonical[i], j, end
        j = end


def _bilingual_duplicate(canonical: str, mirror: str) -> bool:
    """A bilingual heading "XPU (Intel GPU) / XPU (Intel GPUs)" carries the canonical text intact."""
    parts = [" ".join(fold(p).split()) for p in mirror.split(" / ")]
    return len(parts) > 1 and " ".join(fold(canonical).split()) in parts


def _nearest_sections(al: Alignment) -> list[tuple[str, ...]]:
    """For each mirror block, the canonical section just before it, found through the matched words before
    it: the n-th matched mirror word is the n-th matched canonical word. One pass, however many blocks are
    extra (a mirror with thousands of comments is not audited in quadratic time)."""
    sections: list[tuple[str, ...]] = [
        al.canonical.blocks[al.canonical.owner[k]].heads for k, hit in enumerate(al.matched_a) if hit
    ]
    out: list[tuple[str, ...]] = []
    matched = 0  # matched mirror words before the current block
    k = 0
    for count in al.mirror.per_block:
        out.append(sections[matched - 1] if matched else ())
        matched += sum(al.matched_b[k : k + count])
        k += count
    return out


def pair_translations(
    blocks: list[Block],
    translated: set[str],
    original: set[str],
    window: int = 8,
    labels: Sequence[str | None] | None = None,
) -> list[tuple[int, int]]:
    """Pair each translated block with its original: one to one, nearby, by shared invariant tokens and
    Latin words (translations keep names, numbers and identifiers). `translated` and `original` name scripts,
    or on a page in two Latin-script languages, those languages' codes (`block_labels`, unless given)."""
    from differ.languages import LANGUAGE_NAMES
    from differ.normalize.language import block_labels

    scripts = block_labels([b.text for b in blocks]) if labels is None else labels
    names = any(label in LANGUAGE_NAMES for label in scripts)  # two languages of one script share few words
    candidates = []
    for i, block in enumerate(blocks):
        if scripts[i] not in translated or block.kind == "code":
            continue
        for j in range(max(0, i - window), min(len(blocks), i + window + 1)):
            if j == i or scripts[j] not in original or blocks[j].kind == "code":
                continue
            score = overlap(block.text, blocks[j].text, names=names)
            if score == 0.0 and j == i + 1 and not _shared_material(block.text, blocks[j].text):
                score = 0.45  # nothing to compare (no names, numbers or code): the next block is its original
            if score >= 0.4 and min(len(block.text.split()), len(blocks[j].text.split())) >= 4:
                candidates.append((score - 0.02 * abs(i - j), i, j))
    used_i: set[int] = set()
    used_j: set[int] = set()
    pairs = []
    for _, i, j in sorted(candidates, reverse=True):
        if i not in used_i and j not in used_j:
            used_i.add(i)
            used_j.add(j)
            pairs.append((i, j))
    return sorted(pairs)


def _shared_material(a: str, b: str) -> bool:
    """Whether either block has tokens or Latin words a translation would carry over."""
    import re as _re

    return bool(invariant_tokens(a) or invariant_tokens(b) or _re.search(r"[A-Za-z]{3,}", a))


def token_mismatches(
    blocks: list[Block],
    translated: set[str],
    original: set[str],
    labels: Sequence[str | None] | None = None,
) -> list[Finding]:
    """Numbers, versions, PR numbers, identifiers and URLs that differ between a translation and its original."""
    findings = []
    for i, j in pair_translations(blocks, translated, original, labels=labels):
        if detail := token_detail(blocks[j].text, blocks[i].text):
            findings.append(
                Finding("token_mismatch", blocks[j].section, blocks[j].text, blocks[i].text, detail)
            )
    return findings


def token_detail(original: str, translation: str) -> str:
    """What a translation lost or added of its original's numbers, versions, issues, identifiers and addresses
    ("missing 3.15t; extra 3.14"), or "" when it kept them all."""
    theirs, ours = invariant_tokens(original), invariant_tokens(translation)
    lost, added = theirs - ours, ours - theirs
    parts = []
    if lost:
        parts.append("missing " + ", ".join(sorted(_show(t) for t in lost)))
    if added:
        parts.append("extra " + ", ".join(sorted(_show(t) for t in added)))
    return "; ".join(parts)


def _show(token: str) -> str:
    return token.split(":", 1)[1] if token.startswith(("url:", "id:")) else token
