"""Where each canonical block stands in a copy: the copy's block that renders it, or, for one the copy lacks, the
block after which it would go. What a translator or a mirror's maintainer carrying an edit over looks for first:
the paragraph of their own to rewrite, or the place for a new one. A translation's blocks are paired as its audit
pairs them (by order, kind, length, and the numbers and names it keeps), its code blocks and any other copy's
blocks by the words they share."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from differ.audit.align import Alignment, Stream, align
from differ.diff.blocks import Block

if TYPE_CHECKING:
    from differ.app import App
    from differ.audit.translation import Pairing
    from differ.config import SourceConfig


@dataclass(frozen=True)
class Place:
    """A canonical block's place in a copy: the copy's block that renders it (`renders`), or the one after which
    it would go (None: before the copy's first block)."""

    block: Block | None
    renders: bool
    within: bool = False  # the copy's block holds far more: the copy joined it with the blocks beside it
    # what the block is under in the copy, when not its section (_landmarks)
    under: tuple[str, ...] | None = None

    def as_json(self) -> dict[str, Any]:
        b = self.block
        under = self.under if self.under is not None else b.section if b else ()
        return {
            "renders": self.renders,
            "within": self.within,
            "block": b.kind if b else None,
            "label": b.label if b else None,
            "section": list(under),
        }


def mirror_places(
    app: App, mirror: SourceConfig, audited: Mapping[str, Any], canonical: list[Block]
) -> list[Place]:
    """Where each canonical block stands in a mirror as its audit read it (`audited`: its entry of the audit,
    which names the version audited and whether it was read as a translation)."""
    from differ.audit import canonical_apart, copy_blocks

    version = audited.get("version")
    store = app.store
    mv = store.version(mirror.key, version) if isinstance(version, int) else store.latest(mirror.key)
    if mv is None:
        return [Place(None, False) for _ in canonical]
    apart = canonical_apart(app, app.config.document(mirror.document))
    read = copy_blocks(app, mirror, mv, canonical, apart)
    return places(canonical, read.blocks, bool(audited.get("translation")))


def places(
    canonical: Sequence[Block],
    copy: Sequence[Block],
    as_translation: bool,
    aligned: Alignment | Pairing | None = None,
) -> list[Place]:
    """Each canonical block's place in the copy; a block it lacks goes after the copy's block of the nearest
    canonical block before it that the copy renders. `aligned`: the copy's words already aligned with these
    blocks, or a translation's blocks paired with them, as its audit did."""
    word_by_word = aligned if isinstance(aligned, Alignment) and not as_translation else None
    partner = _by_words(canonical, copy, code_only=as_translation, al=word_by_word)
    if as_translation:
        from differ.audit.translation import Pairing, pair_blocks

        pairing = aligned if isinstance(aligned, Pairing) else pair_blocks(canonical, copy)
        for i, j in pairing.pairs:
            partner.setdefault(i, (j, False))  # blocks merged or split share an index: the first copy block
    under = _landmarks(copy)
    out: list[Place] = []
    last: int | None = None
    for i in range(len(canonical)):
        found = partner.get(i)
        if found is not None:
            out.append(Place(copy[found[0]], True, found[1], under[found[0]]))
            last = found[0]
        else:
            out.append(Place(copy[last] if last is not None else None, False, under=_at(under, last)))
    return out


LANDMARK_CHARS = 120  # the longest paragraph set wholly in bold that is read as a heading


def _landmarks(copy: Sequence[Block]) -> list[tuple[str, ...] | None]:
    """What each block of a copy is under, where a paragraph set wholly in bold (a copy that sets its headings so,
    as an aggregator flattening a page does) stands nearer above it than any heading: that paragraph's words,
    the landmark a maintainer looks for. None where its section says it (a heading is nearer, or none is)."""
    out: list[tuple[str, ...] | None] = []
    near: str | None = None
    for b in copy:
        if b.kind == "heading":
            near = None
        out.append((near,) if near else None)
        said = b.plain.rstrip(":： ")
        if b.kind == "paragraph" and b.lead and b.lead.rstrip(":： ") == said and len(said) <= LANDMARK_CHARS:
            near = said
    return out


def _at(under: list[tuple[str, ...] | None], index: int | None) -> tuple[str, ...] | None:
    return under[index] if index is not None else None


def _by_words(
    canonical: Sequence[Block], copy: Sequence[Block], *, code_only: bool, al: Alignment | None = None
) -> dict[int, tuple[int, bool]]:
    """The copy's block that shares the most words with each canonical block, where they share at least half of
    the shorter one's words (an edited paragraph still shares most of its words with its old copy; two blocks
    that share a few common words are not one another's), and whether it holds half as many words again (the
    copy joined it with others). `al`: the two already aligned."""
    al = al or align(Stream.of(list(canonical), code_only), Stream.of(list(copy), code_only))
    best: dict[int, tuple[int, int]] = {}
    for (i, j), n in Counter(al.shared_words()).items():
        if n > best.get(i, (0, -1))[0]:
            best[i] = (n, j)
    size_a, size_b = al.canonical.per_block, al.mirror.per_block
    return {
        i: (j, 2 * size_b[j] >= 3 * size_a[i])
        for i, (n, j) in best.items()
        if 2 * n >= min(size_a[i], size_b[j])
    }
