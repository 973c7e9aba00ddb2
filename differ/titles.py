"""What alerts, reports and the feed call a document: the title configured for it, else the one its canonical page
gave itself when first stored, else its id. The first version's, so that a thread or topic named after a document
keeps its name when the page is retitled (the retitling is itself reported, under metadata)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from differ.errors import DifferError
from differ.options import cut

if TYPE_CHECKING:
    from differ.app import App
    from differ.config import DocumentConfig, SourceConfig
    from differ.store import Store

LONGEST = 120  # characters of a title taken from a page
HEAD_LINES = 200  # how far into a page's Markdown its first heading is looked for
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_known: dict[str, tuple[tuple[int, int], str | None]] = {}  # a first version's record → (its stat, its title)


def page_title(metadata: Mapping[str, Any], markdown: str) -> str | None:
    """The title a page gives itself: its first level-1 heading, unless its metadata names it otherwise (a
    `<title>` that adds the site's name, "Post – Blog", gives way to the heading "Post"); None when it has
    neither."""
    from differ.diff.summary import TITLE_FIELDS, field_name

    named = next(
        (
            _line(value)
            for name in TITLE_FIELDS
            for key, value in metadata.items()
            if isinstance(value, str) and field_name(key) == name and value.strip()
        ),
        None,
    )
    heading = _first_heading(markdown)
    if heading and (named is None or named.casefold().startswith(heading.casefold())):
        return _cut(heading)
    return _cut(named) if named else None


def _first_heading(markdown: str) -> str | None:
    """The text of the first `# ` heading of canonical Markdown, outside code blocks, within its first lines."""
    from differ.diff.blocks import split_blocks

    fence = ""
    for line in markdown.split("\n", HEAD_LINES)[:HEAD_LINES]:
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = ""
        elif m:
            fence = m.group(1)
        elif line.startswith("# "):
            blocks = split_blocks(line + "\n")
            text = _line(blocks[0].text) if blocks and blocks[0].kind == "heading" else ""
            return text or None
    return None


def _line(text: str) -> str:
    return " ".join(text.split())


def _cut(text: str) -> str:
    return cut(text, LONGEST)


def first_title(store: Store, canonical_key: str) -> str | None:
    """The title the canonical's first stored version was called by, else the one it gives itself
    (remembered while its record is unchanged)."""
    try:
        path = store.source_dir(canonical_key) / "versions" / f"{1:06d}.json"
        stat = os.stat(path)
    except (DifferError, OSError):
        return None
    stamp = (stat.st_mtime_ns, stat.st_size)
    known = _known.get(str(path))
    if known is not None and known[0] == stamp:
        return known[1]
    try:
        first = store.version(canonical_key, 1)
        recorded = first.record.get("document_title")
        if isinstance(recorded, str) and recorded and recorded != canonical_key.split("/", 1)[0]:
            title: str | None = recorded  # what it was called when stored (this is what differ records)
        else:  # stored under its id: by a differ that took no title from the page, or the page gave none
            title = page_title(first.metadata, store.markdown(first))
    except (DifferError, OSError):
        return None
    _known[str(path)] = (stamp, title)
    return title


def document_title(store: Store, doc: DocumentConfig) -> str:
    """What a document is called: its configured title, else its canonical page's own, else its id."""
    if doc.titled:
        return doc.title
    return first_title(store, doc.canonical.key) or doc.id


def source_title(app: App, source: SourceConfig) -> str:
    """What the document of a source is called (as `document_title`)."""
    if source.title:
        return source.title
    try:
        doc = app.config.document(source.document)
    except DifferError:
        return source.document
    return document_title(app.store, doc)
