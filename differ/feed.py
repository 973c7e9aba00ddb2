"""An Atom feed of each document's versions, `reports/DOCUMENT/feed.xml`, written after every check that stored
one: what someone without Slack subscribes to in a feed reader once the reports folder is published at
`base_url`."""

from __future__ import annotations

import contextlib
import heapq
import re
import uuid
from collections.abc import Iterable
from pathlib import Path
from xml.etree import ElementTree as ET

from differ.config import Config, DocumentConfig, SourceConfig
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
    """The document's `count` newest versions, newest first, each with its source's id."""
    return [(source.id, v) for source, v in _newest(store, doc.sources, count)]


def _newest(store: Store, sources: Iterable[SourceConfig], count: int) -> list[tuple[SourceConfig, Version]]:
    """The `count` newest versions of these sources, newest first, reading no more records than it needs: each
    source's versions are already in time order, so they are merged from their heads (a min-heap on minus the
    fetch time). A source's damaged record ends its part (its check says what is damaged), not the feed."""
    heads: list[tuple[float, int, int, SourceConfig, Version]] = []
    for order, source in enumerate(sources):
        with contextlib.suppress(StoreDamage):
            latest = store.latest(source.key)
            if latest is not None:
                heads.append((-latest.fetched_time.timestamp(), -latest.number, order, source, latest))
    heapq.heapify(heads)
    found: list[tuple[SourceConfig, Version]] = []
    while heads and len(found) < count:
        _, _, order, source, version = heapq.heappop(heads)
        found.append((source, version))
        if version.number > 1:
            with contextlib.suppress(StoreDamage):
                older = store.version(version.source, version.number - 1)
                heapq.heappush(heads, (-older.fetched_time.timestamp(), -older.number, order, source, older))
    return found


def build_feed(store: Store, doc: DocumentConfig, base_url: str = "") -> bytes:
    """The document's newest versions as an Atom 1.0 feed (RFC 4287), newest first."""
    name = document_title(store, doc)
    versions = _newest(store, doc.sources, ENTRIES)
    feed = _feed(_uuid("feed", doc.id, doc.canonical.url), f"{name}: versions", versions, doc.canonical.page)
    if base_url:
        _add(feed, "link", rel="self", href=feed_url(base_url, doc.id))
    _entries(feed, versions, {doc.id: name}, base_url)
    return _xml(feed)


def build_site_feed(store: Store, config: Config, base_url: str = "") -> bytes:
    """Every document's newest versions in one Atom feed, `reports/feed.xml`: one subscription for a reader who
    follows many posts. An entry is the same as in its document's feed (its id too), so a reader that takes both
    shows it once."""
    names = {doc.id: document_title(store, doc) for doc in config.documents}
    site = base_url.rstrip("/") + "/" if base_url else ""
    versions = _newest(store, [source for doc in config.documents for source in doc.sources], ENTRIES)
    feed = _feed(_uuid("site-feed", site), "differ: every document's versions", versions, site)
    if base_url:
        _add(feed, "link", rel="self", href=site + "feed.xml")
    _entries(feed, versions, names, base_url)
    return _xml(feed)


def _add(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
    if text is not None:
        element.text = _text(text)
    return element


def _feed(ident: str, title: str, versions: list[tuple[SourceConfig, Version]], alternate: str) -> ET.Element:
    """A feed's head: its id, title, the time of its newest entry, its author and the page it is about."""
    feed = ET.Element(f"{{{ATOM}}}feed")
    _add(feed, "id", ident)
    _add(feed, "title", title)
    _add(feed, "updated", versions[0][1].fetched_at if versions else "1970-01-01T00:00:00Z")
    _add(_add(feed, "author"), "name", "differ")
    if alternate:
        _add(feed, "link", rel="alternate", href=alternate)
    return feed


def _entries(
    feed: ET.Element, versions: list[tuple[SourceConfig, Version]], names: dict[str, str], base_url: str
) -> None:
    """An entry a version, newest first: its summary, linked to its diff's page once reports are published."""
    base = base_url.rstrip("/")
    for source, version in versions:
        summary = [str(line) for line in version.record.get("summary") or []]
        entry = _add(feed, "entry")
        _add(entry, "id", _uuid(version.source, str(version.number), version.hash))
        name = names.get(source.document, source.document)
        title = summary[0] if summary else f"{name} ({source.id}), version {version.number}: first snapshot."
        capture = (version.record.get("archive") or {}).get("capture")
        _add(entry, "title", f"{title} (archived capture)" if capture else title)  # history, not news
        _add(entry, "updated", version.fetched_at)
        page = (
            source.page  # a post read from its blog's feed: the post, not the feed
            if source.page != source.url
            else str(version.record.get("url") or version.record.get("final_url") or source.url)
        )
        if base and version.number > 1:
            _add(entry, "link", rel="alternate", href=report_url(base, version.source, version.number))
            _add(entry, "link", rel="related", href=page)
        else:
            _add(entry, "link", rel="alternate", href=page)
        _add(entry, "content", _content(summary[1:], page), type="html")


def _content(lines: list[str], page: str) -> str:
    """An entry's content as HTML, which feed readers lay out as it is meant (a `text` one may be run together
    on one line): the summary's changes as a list, each with its "→" line; page text escaped."""
    import html

    from differ.bullets import html_items

    return f"<ul>{html_items(lines)}</ul>" if lines else f"<p>First snapshot of {html.escape(page)}.</p>"


def _xml(feed: ET.Element) -> bytes:
    data: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


def write_feed(store: Store, doc: DocumentConfig, base_url: str = "") -> Path:
    """Build and write the feed under the store's lock, so that sources checked at once never write a feed
    that misses one another's version."""
    with store.writing():
        path = feed_path(store, doc.id)
        atomic_write(path, build_feed(store, doc, base_url), durable=False)  # rebuilt from the records
        return path


def site_feed_path(store: Store) -> Path:
    return store.root / "reports" / "feed.xml"


def write_site_feed(store: Store, config: Config, base_url: str = "") -> Path:
    """Build and write `reports/feed.xml` (the caller holds the store's lock, as the index's writer does)."""
    path = site_feed_path(store)
    atomic_write(path, build_site_feed(store, config, base_url), durable=False)  # rebuilt from the records
    return path
