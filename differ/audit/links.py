"""Links a mirror points elsewhere: the words kept, the address changed (a download link on a copy that now
goes to another site), or gone (the words kept as plain text)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import unquote, urlsplit

from differ.addresses import host, joined, page_key
from differ.audit.align import fold, folded_words
from differ.audit.model import Finding
from differ.diff.blocks import Block, words


def link_findings(
    canonical: list[Block],
    mirror: list[Block],
    partners: dict[int, set[int]],
    skip: set[int],
    pages: tuple[str, str],
) -> list[Finding]:
    """Links whose words the mirror kept but whose target it changed (a download link that now points
    elsewhere): each canonical block's links against those of the mirror blocks carrying its words, by their
    text (`partners`: for each canonical block, the mirror blocks sharing its words). A target on the mirror's
    own site is its copy of what is linked (a translation links its own pages), and an image may be served from
    anywhere. Then the links whose words the copy kept as plain text, where it keeps any of the others."""
    own = host(pages[1])
    findings: list[Finding] = []
    dropped: list[Finding] = []
    kept = False  # whether the copy keeps any of the canonical's links: one that keeps none strips them all
    for index, block in enumerate(canonical):
        if not block.links or index in skip or index not in partners:
            continue
        theirs: dict[str, list[str]] = {}
        for j in sorted(partners[index]):
            for text, href in _links(mirror[j], pages[1]):
                theirs.setdefault(fold(text), []).append(href)
        for text, href in _links(block, pages[0]):
            targets = theirs.get(fold(text))
            if not host(href):
                continue
            if not targets:
                if _dropped(text, href, pages[0], theirs, [mirror[j] for j in partners[index]]):
                    dropped.append(Finding("link", block.section, href, None, text))
                continue
            kept = True
            if any(host(t) in ("", own) or _same_target(href, t) for t in targets):
                continue
            findings.append(Finding("link", block.section, href, targets[0], text))
    return findings + dropped if kept else findings


def _links(block: Block, page: str) -> Iterator[tuple[str, str]]:
    """A block's links with words, made absolute against its page; not its images."""
    for text, href in block.links:
        if text.strip() and href not in block.images:
            yield text, joined(page, href)


def _dropped(text: str, href: str, page: str, theirs: dict[str, list[str]], kept_in: list[Block]) -> bool:
    """Whether a copy that keeps links kept a link's words but not the link: a reader of the copy can no longer
    follow it. Not a link to the page itself (a heading's anchor, a footnote), nor one whose words are its
    address (the copy shows where it goes), nor one the copy has under other words."""
    if page_key(href) == page_key(page) or "://" in text or text.strip().lower().startswith("www."):
        return False
    if any(_same_target(href, t) for targets in theirs.values() for t in targets):
        return False
    wanted = " ".join(fold(w) for w in words(text))
    return bool(wanted) and any(f" {wanted} " in f" {' '.join(folded_words(b))} " for b in kept_in)


def _same_target(canonical: str, mirror: str) -> bool:
    """Whether the mirror's link goes where the canonical's does: the same address written another way, or a
    redirector's that carries it (`…/l.php?u=https%3A%2F%2F…`)."""
    if page_key(canonical) == page_key(mirror):
        return True
    try:
        query = urlsplit(mirror).query
    except ValueError:
        return False
    return bool(query) and canonical.split("://", 1)[-1].rstrip("/") in unquote(query)


def paired_link_findings(
    canonical: list[Block],
    mirror: list[Block],
    groups: list[tuple[list[int], list[int]]],
    pages: tuple[str, str],
) -> list[Finding]:
    """Links a translation points elsewhere: the words of a link are translated, so the links of a block (or of
    blocks rendered together) are taken in order against those of the blocks that render it, when both have as
    many. A target on the copy's own site is its copy of what is linked."""
    own = host(pages[1])
    findings: list[Finding] = []
    for ours_at, theirs_at in groups:
        ours = [(i, text, href) for i in ours_at for text, href in _links(canonical[i], pages[0])]
        theirs = [target for j in theirs_at for _, target in _links(mirror[j], pages[1])]
        if not ours or len(ours) != len(theirs):
            continue
        for (i, text, href), target in zip(ours, theirs, strict=True):
            if host(href) and host(target) not in ("", own) and not _same_target(href, target):
                findings.append(Finding("link", canonical[i].section, href, target, text))
    return findings
