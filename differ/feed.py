"""An Atom feed of each document's versions, `reports/DOCUMENT/feed.xml`, written after every check that stored
one: what someone without Slack subscribes to in a feed reader once the reports folder is published at
`base_url`."""

from __future__ import annotations

import contextlib
import heapq
import re
import uuid
from pathlib import Path
from xml.etree import ElementTree as ET

from differ.config import DocumentConfig
from differ.errors import StoreDamage
from differ.files import atomic_write
from differ.store import Store, Version, report_url
from differ.titles import document_title

ATOM = "http://www.w3.org/2005/Atom"
ET.register_namespace("", ATOM)  # written as the default namespace, without a prefix
ENTRIES = 50  # the newest versions across the document's sources
# Characters XML 1.0 cannot carry at all (a page's control characters would make the whole feed unreadable).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _text(value: str) -> str:
    return _NOT_XML.sub("\ufffd", value)


def _uuid(*parts: str) -> str:
    """A stable Atom id: the same version or feed has the same id in every regeneration."""
    return f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, 'differ:' + ':'.join(parts))}"


def feed_path(store: Store, document: str) -> Path:
    return store.root / "reports" / document / "feed.xml"


def feed_url(base_url: str, document: str) -> str:
    """Where the feed is read once the reports folder is published at `base_url`."""
    return f"{base_url.rstrip('/')}/{document}/feed.xml"


def newest(store: Store, doc: DocumentConfig, count: int = ENTRIES) -> list[tuple[str, Version]]:
    """The document's `count` newest versions, newest first, reading no more records than it needs: each
    source's versions are already in time order, so they are merged from their heads (a min-heap on minus the
    fetch time). A source's damaged record ends its part (its check says what is damaged), not the feed."""
    heads: list[tuple[float, int, str, Version]] = []
    for source in doc.sources:
        with contextlib.suppress(StoreDamage):
            latest = store.latest(source.key)
            if latest is not None:
                heads.append((-latest.fetched_time.timestamp(), -latest.number, source.id, latest))
    heapq.heapify(heads)
    found: list[tuple[str, Version]] = []
    while heads and len(found) < count:
        _, _, source_id, version = heapq.heappop(heads)
        found.append((source_id, version))
        if version.number > 1:
            with contextlib.suppress(StoreDamage):
                older = store.version(version.source, version.number - 1)
                heapq.heappush(heads, (-older.fetched_time.timestamp(), -older.number, source_id, older))
    return found


def build_feed(store: Store, doc: DocumentConfig, base_url: str = "") -> bytes:
    """The document's newest versions as an Atom 1.0 feed (RFC 4287), newest first."""
    base = base_url.rstrip("/")
    versions = newest(store, doc)

    feed = ET.Element(f"{{{ATOM}}}feed")

    def add(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        element = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
        if text is not None:
            element.text = _text(text)
        return element

    add(feed, "id", _uuid("feed", doc.id, doc.canonical.url))
    name = document_title(store, doc)
    add(feed, "title", f"{name}: versions")
    add(feed, "updated", versions[0][1].fetched_at if versions else "1970-01-01T00:00:00Z")
    add(add(feed, "author"), "name", "differ")
    add(feed, "link", rel="alternate", href=doc.canonical.page)
    if base:
        add(feed, "link", rel="self", href=feed_url(base, doc.id))
    own = {s.id: s for s in doc.sources}
    for source_id, version in versions:
        summary = [str(line) for line in version.record.get("summary") or []]
        entry = add(feed, "entry")
        add(entry, "id", _uuid(version.source, str(version.number), version.hash))
        title = summary[0] if summary else f"{name} ({source_id}), version {version.number}: first snapshot."
        capture = (version.record.get("archive") or {}).get("capture")
        add(entry, "title", f"{title} (archived capture)" if capture else title)  # history, not news
        add(entry, "updated", version.fetched_at)
        source = own.get(source_id)
        page = (
            source.page  # a post read from its blog's feed: the post, not the feed
            if source is not None and source.page != source.url
            else str(version.record.get("url") or version.record.get("final_url") or doc.canonical.url)
        )
        if base and version.number > 1:
            add(entry, "link", rel="alternate", href=report_url(base, version.source, version.number))
            add(entry, "link", rel="related", href=page)
        else:
            add(entry, "link", rel="alternate", href=page)
        add(entry, "content", "\n".join(summary[1:]) or f"First snapshot of {page}.", type="text")
    data: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


def write_feed(store: Store, doc: DocumentConfig, base_url: str = "") -> Path:
    """Build and write the feed under the store's lock, so that sources checked at once never write a feed
    that misses one another's version."""
    with store.writing():
        path = feed_path(store, doc.id)
        atomic_write(path, build_feed(store, doc, base_url), durable=False)  # rebuilt from the records
        return path
