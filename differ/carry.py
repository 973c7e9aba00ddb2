"""What a copy behind its canonical has to carry over: the canonical's passages edited after the version the copy
matches, as they now read, each placed in the copy. One form for the drift alert's `carry_over`, `differ blame
--after DOCUMENT/MIRROR` and the reports site, and the words each destination names them with."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from differ.options import plural

if TYPE_CHECKING:
    from differ.audit.places import Place
    from differ.blame import Blamed
    from differ.store import Version


def passage(b: Blamed) -> dict[str, Any]:
    """A block as `differ.blame/1` gives it, and a stale mirror's alert its passages to carry over."""

    def at(v: Version) -> dict[str, Any]:
        return {"version": v.number, "fetched_at": v.fetched_at}

    return {
        "block": b.block.kind,
        "section": list(b.block.section),
        "label": b.block.label,
        "text": b.block.text,
        "markdown": b.block.source,
        "since": at(b.since),
        "edited": at(b.edited),
        **({"in_copy": b.place.as_json()} if b.place is not None else {}),
    }


def passage_said(p: Mapping[str, Any]) -> str:
    """A passage named as summaries name a block, with the version that last edited it and the one it came in:
    `Install › Run the installer … (edited in version 2, 2026-07-08T21:00:00Z, there since version 1)`."""
    named = " › ".join((*p["section"], p["label"] or p["block"]))
    edited, since = p["edited"], p["since"]["version"]
    there = f", there since version {since}" if since != edited["version"] else ""
    return f"{named} (edited in version {edited['version']}, {edited['fetched_at']}{there})"


def place_said(place: Mapping[str, Any], copy: str) -> str:
    """A passage's place in a copy named `copy` (`Place.as_json`): `in wpnews: “Python support” (under
    Non-Feature Updates)`, `in wpnews, within “FlexAttention lands …”` (a block the copy joined with others),
    `new to wpnews: after “Python support”`, or `new to wpnews: at its top`."""
    if not place.get("block"):
        return f"new to {copy}: at its top"
    section = place.get("section") or []
    under = f" (under {' › '.join(section)})" if section else ""
    where = f"new to {copy}: after"
    if place.get("renders"):
        where = f"in {copy}, within" if place.get("within") else f"in {copy}:"
    return f"{where} “{place.get('label')}”{under}"


def passage_markdown(p: Mapping[str, Any], escape: Callable[[str], str], copy: str = "") -> list[str]:
    """A passage (`passage`) as the lines of a Markdown list item: its section and versions as summaries name
    them (`escape`d: page text), its place in the copy named `copy` when it has one, then its Markdown as
    written, in a fence longer than any run of backticks in it, to copy."""
    text = str(p["markdown"])
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    place = p.get("in_copy")
    return [
        f"- {escape(passage_said(p))}",
        "",
        *([f"  {escape(place_said(place, copy))}", ""] if place and copy else []),
        f"  {fence}markdown",
        *(f"  {line}".rstrip() for line in text.splitlines()),
        f"  {fence}",
    ]


#: the most Markdown a stale mirror's alert carries of the passages to carry over (a webhook's event stays
#: small; an issue tracker's comment has room for 60,000 characters in all)
CARRY_OVER_CHARS = 40_000


def carry_over(
    blamed: list[Blamed],
    after: int,
    where: Sequence[Place] = (),
    owed: Set[int] | None = None,
    carried: int = 0,
) -> dict[str, Any]:
    """The passages of the canonical edited after version `after` (the one a mirror matches), as they now read:
    what its translator or maintainer has to carry over, as many as `CARRY_OVER_CHARS` of Markdown holds (a
    count of those left out, never a silent cut); with `where` (each block's place in the copy), each with
    `in_copy`: the copy's block that renders it, or the one after which a new passage goes. With `owed` (the
    blocks whose edits the copy does not carry yet: `audit.edits.Missed.owed`), only those; `carried`: how many
    of the canonical's edits since the copy carries already."""
    edited = due(blamed, after, owed)
    kept: list[dict[str, Any]] = []
    room = CARRY_OVER_CHARS
    for i, b in edited:
        room -= len(b.block.source)
        if room < 0:
            break
        kept.append(passage(replace(b, place=where[i]) if where else b))
    more = {"carried": carried} if carried else {}
    return {"after": after, "passages": kept, "left_out": len(edited) - len(kept), **more}


def due(blamed: Sequence[Blamed], after: int, owed: Set[int] | None = None) -> list[tuple[int, Blamed]]:
    """The blocks (with their index) edited after version `after`, but for those a copy carries already: not in
    `owed`, the blocks its audit found it has to carry over, when known (`audited.owed`)."""
    return [(i, b) for i, b in enumerate(blamed) if b.edited.number > after and (owed is None or i in owed)]


def more_passages(event: Mapping[str, Any], left: int, code: Callable[[str], str] = str) -> str:
    """The line that ends a stale mirror's passages when some are left out, with the command that gives them
    all (set as `code` makes it): `…and 3 more passages (differ blame doc --after doc/copy --format markdown
    gives them all)`."""
    document, mirror = event.get("document"), event.get("mirror")
    command = f"differ blame {document} --after {document}/{mirror} --format markdown"
    return f"…and {plural(left, 'more passage')} ({code(command)} gives them all)"


def carry_of(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """A drift alert's `carry_over`, when it has passages in it; else None."""
    carry = event.get("carry_over") if event.get("type") == "mirror_drift" else None
    return carry if isinstance(carry, dict) and carry.get("passages") else None


def passages_in(carry: Mapping[str, Any]) -> int:
    """How many passages a `carry_over` stands for: those it holds and those left out of it."""
    return len(carry["passages"]) + int(carry.get("left_out") or 0)


def carried_over(carry: Mapping[str, Any]) -> str:
    """What a `carry_over` holds, as an alert heads it: `the canonical's 2 passages edited after version 1, as
    they now read`."""
    count = passages_in(carry)
    reads = "as it now reads" if count == 1 else "as they now read"
    return f"the canonical's {plural(count, 'passage')} edited after version {carry['after']}, {reads}"


def passages_html(passages: Sequence[Mapping[str, Any]], copy: str, left_out: int = 0) -> str:
    """Passages folded away on a page (no script: a `<details>`): each named, with its place in the copy named
    `copy` when it has one, and its Markdown in a `<pre>`; all page text escaped."""
    said = (
        "The passage as it now reads"
        if len(passages) == 1
        else f"The {len(passages)} passages as they now read"
    )
    more = f"<p>…and {plural(left_out, 'more passage')}</p>" if left_out else ""
    items = passage_items_html(passages, copy)
    return f"<details><summary>{said}</summary><ul class=passages>{items}</ul>{more}</details>"


def passage_items_html(passages: Sequence[Mapping[str, Any]], copy: str, pre: str = "<pre>") -> str:
    """The passages as HTML list items: each named, with its place in the copy named `copy` when it has one,
    and its Markdown in `pre` (the opening tag); all page text escaped."""
    from html import escape as e

    def item(p: Mapping[str, Any]) -> str:
        place = f"<br><i>{e(place_said(p['in_copy'], copy))}</i>" if p.get("in_copy") else ""
        return f"<li>{e(passage_said(p))}{place}{pre}{e(str(p['markdown']))}</pre></li>"

    return "".join(map(item, passages))
