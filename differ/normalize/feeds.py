"""The `feed` kind: one post as its blog's RSS, Atom or JSON Feed carries it. A feed holds the post's full text without
the page around it (menus, view counters, comment counts), with its title and dates, so it is read as the post
itself: the entry whose link or id is the source's `entry`, its content read as HTML against the post's own
address, its title and dates kept as metadata."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from differ import options as opt
from differ.addresses import joined, page_key
from differ.errors import NoContentError, NormalizeError
from differ.normalize.jsondoc import load_json
from differ.normalize.kinds import (
    HTML_START,
    Body,
    Extracted,
    SourceKind,
    is_json_feed,
    media_type,
    read_html,
    source_kind,
    text_to_markdown,
)
from differ.options import Invalid, Option

if TYPE_CHECKING:
    from bs4 import Tag
    from lxml import etree

    from differ.config import SourceConfig

# What the content of an entry is, from the richest: RSS's content:encoded, Atom's content, then the summaries.
CONTENT = ("encoded", "content", "description", "summary")
DATES = {"published": ("published", "pubDate", "issued", "date"), "updated": ("updated", "modified")}
NOT_FEEDS = ("text/html", "application/xhtml+xml")
FEED_ROOTS = ("rss", "feed", "RDF")  # RSS 0.9x and 2.0, Atom, RSS 1.0
EVERY_POST = "*"  # the `entry` that watches the feed's list of posts rather than one post


def _settings_table(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid(f"expected a table of source options, found {opt.found(value)}")
    return dict(value)


@dataclass
class Entry:
    """One item or entry of a feed, as read: its address, id, title, dates and content."""

    link: str
    id: str
    title: str
    dates: dict[str, str]
    content: str
    content_type: str  # html, text or xhtml

    @property
    def shown(self) -> str:
        """The entry as a line names it: `"Announcing 1.2" <https://…/1.2>`, its link alone when it has no title."""
        return f'"{self.title}" <{self.link}>' if self.title else f"<{self.link}>"


@source_kind("feed")
class FeedKind(SourceKind):
    """One post in its blog's RSS, Atom or JSON Feed (`entry`: its URL or id), or its list of posts (`entry = "*"`)."""

    accept = (
        "application/atom+xml,application/rss+xml,application/feed+json,application/xml;q=0.9,text/xml;q=0.9,"
        "application/json;q=0.9,*/*;q=0.5"
    )
    options: ClassVar[dict[str, Option]] = {
        "entry": Option(
            opt.entry_key,
            required=True,
            help='the post\'s URL (its link in the feed) or id; "*" for the list of posts',
        ),
        "metadata": Option(
            opt.choice_list("title", "published", "updated"),
            ("title", "published", "updated"),
            "entry fields to keep and compare",
        ),
        "follow": Option(
            opt.word_list,
            (),
            'with entry = "*": add each new post whose title has one of these words as a document ("*": every post)',
        ),
        "follow_with": Option(
            _settings_table, {}, 'with follow: each new post\'s source options ({ selector = "article" })'
        ),
    }

    @classmethod
    def check(cls, source: SourceConfig) -> None:
        for name in ("follow", "follow_with"):
            if source.option(name) and source.option("entry") != EVERY_POST:
                raise Invalid('only a feed\'s list of posts (entry = "*") has new posts to follow', key=name)
        given = source.option("follow_with")
        if given:
            _check_post_settings(given)

    @classmethod
    def extract(cls, body: Body, source: SourceConfig) -> Extracted:
        media = media_type(body.content_type)
        if media in NOT_FEEDS or HTML_START.match(body.data[:1024]):
            feed = _named_feed(body)
            named = f"; the page names its feed: url = {feed}" if feed else ""
            raise NormalizeError(
                f"expected an RSS, Atom or JSON feed, got an HTML page{named}",
                read_with={"url": feed} if feed else None,
            )
        title, entries, warnings = read_titled_feed(body)
        wanted = str(source.option("entry"))
        if wanted == EVERY_POST:
            return _posts(title, entries, body, source, warnings)
        entry = find_entry(entries, wanted, body.url)
        if entry is None:
            first = entries[0] if entries else None
            named = f"; the first is {first.shown}" if first and first.title and first.link else ""
            count = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
            raise NormalizeError(  # not the post emptied: a failure, which alerts after `fail_after` checks
                f'the feed has no entry whose link or id is "{wanted}" ({count}{named}); '
                "a post can drop off a feed as newer ones come" + "".join(f"; {w}" for w in warnings)
            )
        base = Body(body.data, body.content_type, entry.link or body.url, body.tracking)
        if entry.content_type == "text":
            result = Extracted(text_to_markdown(entry.content))
        else:
            trim = _without_footer(entry.link) if entry.link else None
            result = read_html(f"<article>{entry.content}</article>", base, source, None, (), (), trim)
        if not any(c.isalnum() for c in result.markdown):
            raise NoContentError(f'the entry "{entry.title or wanted}" has no text in the feed')
        fields = {"title": entry.title, **entry.dates}
        result.metadata = {k: fields[k] for k in source.option("metadata") or () if fields.get(k)}
        result.root = f"the feed's entry <{entry.link or entry.id}>"
        result.warnings = [*result.warnings, *warnings]
        return result


def _check_post_settings(given: dict[str, Any]) -> None:
    """`follow_with`, checked as a new post's source will be (an html page unless it names its kind)."""
    from differ.config import adhoc_source
    from differ.errors import ConfigError

    own = sorted({"id", "url"} & set(given))
    if own:
        raise Invalid(f"{own[0]} is each new post's own, not set here", key="follow_with")
    try:
        adhoc_source({"kind": "html", **given, "url": "https://example.org/post/"})
    except ConfigError as exc:
        raise Invalid(str(exc).removeprefix("--set ").removeprefix("--set: "), key="follow_with") from None


def _posts(
    title: str, entries: list[Entry], body: Body, source: SourceConfig, warnings: list[str]
) -> Extracted:
    """The feed as its list of posts (`entry = "*"`), newest published first: a heading of the feed's title, then
    each post's title linking to it, read as a page is, so a new post is one item added (an alert quotes it with
    its address), a retitled one an item modified, a post's new address a link change."""
    from html import escape

    if not entries:
        raise NoContentError("the feed has no entries" + "".join(f"; {w}" for w in warnings))
    items = "".join(_post_item(e.title, e.link or e.id) for e in _by_publishing(entries))
    heading = f"<h1>{escape(title)}</h1>" if title else ""
    result = read_html(f"<article>{heading}<ul>{items}</ul></article>", body, source, None, (), ())
    result.metadata = {"title": title} if title and "title" in (source.option("metadata") or ()) else {}
    result.root = f"the feed's {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
    result.warnings = [*result.warnings, *warnings]
    return result


def _by_publishing(entries: list[Entry]) -> list[Entry]:
    """The entries newest published first when every one says when it was (a feed sorted by its entries'
    `updated` puts a post on top each time it is edited, which the list would show as a move); else, and among
    those published at once, in the feed's order."""
    when = [w for w in map(_published, entries) if w is not None]
    if len(when) < len(entries):
        return entries
    return [entries[i] for i in sorted(range(len(entries)), key=when.__getitem__, reverse=True)]


def _published(entry: Entry) -> datetime | None:
    """When an entry says it was published (ISO 8601, as Atom and JSON Feed write it, or RFC 822, as RSS does),
    in UTC; None when it does not say, or not readably."""
    from email.utils import parsedate_to_datetime

    text = entry.dates.get("published", "").strip()
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
    try:
        return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC)
    except OverflowError:  # past year 9999, or before year 1, in UTC
        return None


def _post_item(title: str, address: str) -> str:
    """A post as an item of the list: its title (its address when it has none) linking to it."""
    from html import escape

    return f'<li><a href="{escape(address)}">{escape(title or address)}</a></li>'


def _named_feed(body: Body) -> str:
    """The feed a page names in its head ("" when none), for a `url` set to the post's page rather than its
    blog's feed."""
    from differ.fetch.charset import decode
    from differ.normalize import html as htmlconv

    try:
        text = decode(body.data, body.content_type, html=True).text
        feeds = htmlconv.page_head(htmlconv.parse_html(text), body.url)[1]
    except NormalizeError:
        return ""
    return feeds[0] if feeds else ""


def read_feed(body: Body) -> tuple[list[Entry], list[str]]:
    """The entries of an RSS (0.9x, 1.0, 2.0), Atom or JSON Feed, in the feed's order, and what was wrong with it.
    Many feeds in use are not quite XML (a bare `&` in a title, an HTML entity such as `&nbsp;`): one that does not
    parse is read again with those two mended, with a warning. Entities are never resolved and nothing is
    fetched, so a feed cannot make differ read a file or another address."""
    _, entries, warnings = read_titled_feed(body)
    return entries, warnings


def read_titled_feed(body: Body) -> tuple[str, list[Entry], list[str]]:
    """A feed's own title ("" when it has none) with its entries and what was wrong with it, as `read_feed`."""
    from lxml import etree

    if not body.data.strip():
        raise NormalizeError("empty body")
    if media_type(body.content_type).endswith("json") or body.data.lstrip()[:1] == b"{":
        return _json_feed(body)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    warnings: list[str] = []
    try:
        root = etree.fromstring(body.data, parser)
    except etree.XMLSyntaxError as exc:
        said = " ".join(str(exc.msg).split())  # libxml2's messages may hold a line break
        mended = _mend(body.data)
        try:
            root = etree.fromstring(mended, parser) if mended != body.data else None
        except etree.XMLSyntaxError:
            root = None
        if root is None:
            raise NormalizeError(f"not a feed: the XML does not parse ({said})")
        warnings.append(
            f"the feed is not well-formed XML ({said}); read with its bare & and HTML entities mended"
        )
    if _name(root) not in FEED_ROOTS:
        raise NormalizeError(f"not a feed: expected <rss> or <feed> (Atom) at the top, found <{_name(root)}>")
    entries = [_entry(el, body.url) for el in root.iter() if _name(el) in ("item", "entry")]
    return _feed_title(root), entries, warnings


def _feed_title(root: etree._Element) -> str:
    """The feed's own `<title>`: Atom's under `<feed>`, RSS's under `<channel>` (an item's is its post's)."""
    for el in (root, *(child for child in root if _name(child) == "channel")):
        for child in el:
            if _name(child) == "title":
                return " ".join((child.text or "").split())
    return ""


_AMPERSAND = re.compile(rb"&(?!#[0-9]+;|#x[0-9A-Fa-f]+;|[A-Za-z][A-Za-z0-9]*;)")
_NAMED = re.compile(rb"&([A-Za-z][A-Za-z0-9]*);")
_XML_NAMED = {b"amp", b"lt", b"gt", b"quot", b"apos"}


def _mend(data: bytes) -> bytes:
    """A feed's bytes with a bare `&` written `&amp;` and an HTML entity XML does not define (`&nbsp;`) written as
    its character reference: what a browser would have read. Other entities are left for the parser to refuse."""
    from html.entities import name2codepoint

    def named(m: re.Match[bytes]) -> bytes:
        name = m.group(1)
        code = name2codepoint.get(name.decode("ascii"))
        return m.group() if name in _XML_NAMED or code is None else b"&#%d;" % code

    return _NAMED.sub(named, _AMPERSAND.sub(b"&amp;", data))


def _json_feed(body: Body) -> tuple[str, list[Entry], list[str]]:
    """The title and items of a JSON Feed (jsonfeed.org, 1.0 and 1.1): `url` its link, `content_html` or else
    `content_text` (then `summary`) its content, `date_published` and `date_modified` its dates."""
    data = load_json(body)
    items = data.get("items") if is_json_feed(data) else None
    if not isinstance(items, list):
        raise NormalizeError(
            'not a feed: expected a JSON Feed ("version": "https://jsonfeed.org/version/1.1" and "items")'
        )
    title = data.get("title")
    entries = [_json_item(item, body.url) for item in items if isinstance(item, dict)]
    return " ".join(title.split()) if isinstance(title, str) else "", entries, []


def _json_item(item: dict[str, Any], feed_url: str) -> Entry:
    def text(name: str) -> str:
        value = item.get(name)
        return value if isinstance(value, str) else ""

    html, plain, link = text("content_html"), text("content_text") or text("summary"), text("url")
    dates = {"published": text("date_published"), "updated": text("date_modified")}
    return Entry(
        link=joined(feed_url, link) if link else "",
        id="" if item.get("id") is None else str(item["id"]),  # a string, which some feeds write as a number
        title=" ".join(text("title").split()),
        dates={k: v for k, v in dates.items() if v},
        content=html if html.strip() else plain,
        content_type="html" if html.strip() else "text",
    )


# What a feed sets under each post it carries: a last paragraph that links to the post itself and says little else
# ("Read full topic", "Continue reading →", "The post … appeared first on …"), and over Discourse's, the count of
# the topic's posts and participants ("12 posts - 7 participants", in the forum's language), which every reply
# changes: not the post's words.
FOOTER_WORDS = 8
_COUNTS = re.compile(r"^\D*\d[\d,.]*\D*[-–]\D*\d[\d,.]*\D*$")


def _without_footer(link: str) -> Callable[[Tag], None]:
    """What takes a feed's footer out of the content of its entry for the post at `link` (`read_html`'s
    `trim`)."""
    own = page_key(link)

    def trim(root: Tag) -> None:
        last = _last_block(root)
        if last is None or last.name != "p" or not _to_itself(last, link, own):
            return
        last.extract()
        counts = _last_block(root)
        if counts is not None and counts.name == "p":
            text = counts.get_text(" ").strip()
            if len(text) <= 200 and len(text.split()) <= FOOTER_WORDS and _COUNTS.match(text):
                counts.extract()

    return trim


def _last_block(root: Tag) -> Tag | None:
    """The element an entry's content ends with; None where it ends with text of its own."""
    from bs4 import Tag

    for child in reversed(root.contents):
        if isinstance(child, Tag):
            return child
        if str(child).strip():
            return None
    return None


def _to_itself(paragraph: Tag, link: str, own: str) -> bool:
    """Whether a paragraph links to the post (`own`, its page key) and has at most FOOTER_WORDS words besides
    its links' words."""
    links = [a for a in paragraph.find_all("a") if isinstance(a.get("href"), str)]
    if not any(page_key(joined(link, str(a["href"]))) == own for a in links):
        return False
    text = paragraph.get_text(" ")
    for a in links:
        text = text.replace(a.get_text(" "), " ", 1)
    return len(re.findall(r"\w+", text)) <= FOOTER_WORDS


def find_entry(entries: list[Entry], wanted: str, feed_url: str) -> Entry | None:
    """The entry whose link or id is `wanted` (a link compared as the page it points to: `http:`/`https:`,
    `www.`, a trailing slash, the fragment and `utm_` parameters do not matter)."""
    key = page_key(joined(feed_url, wanted))
    for entry in entries:
        if wanted in (entry.id, entry.link) or (entry.link and page_key(entry.link) == key):
            return entry
    return None


def _name(el: Any) -> str:
    """An element's local name, whatever its namespace ("" for a comment or processing instruction)."""
    tag = el.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _entry(el: etree._Element, feed_url: str) -> Entry:
    children: dict[str, list[etree._Element]] = {}
    for child in el:
        children.setdefault(_name(child), []).append(child)

    def text(name: str) -> str:
        found = children.get(name)
        return (found[0].text or "").strip() if found else ""

    link = ""
    for candidate in children.get("link", []):
        href = candidate.get("href")
        if href is None:
            link = link or (candidate.text or "").strip()  # RSS: the address as text
        elif candidate.get("rel", "alternate") == "alternate":
            link = link or href.strip()
    if not link and children.get("guid") and children["guid"][0].get("isPermaLink", "true") == "true":
        link = text("guid")
    read = (_content(candidate) for name in CONTENT for candidate in children.get(name, []))
    content, kind = next((found for found in read if found[0].strip()), ("", "html"))
    dates = {key: next((t for t in map(text, names) if t), "") for key, names in DATES.items()}
    return Entry(
        link=joined(feed_url, link) if link else "",
        id=text("id") or text("guid"),
        title=" ".join(text("title").split()),
        dates={k: v for k, v in dates.items() if v},
        content=content,
        content_type=kind,
    )


def _content(el: etree._Element) -> tuple[str, str]:
    """An element's content and what it is: Atom says (`type` text, html or xhtml); RSS's is HTML as text."""
    from lxml import etree

    kind = (el.get("type") or "html").lower()
    if kind == "xhtml" or kind.endswith("xhtml+xml"):
        inner = next(iter(el), None)  # the one <div> Atom wraps XHTML content in
        if inner is None:
            return el.text or "", "xhtml"
        parts = [etree.tostring(child, encoding="unicode", method="html", with_tail=True) for child in inner]
        return (inner.text or "") + "".join(parts), "xhtml"
    if kind in ("text", "text/plain"):
        return el.text or "", "text"
    return el.text or "", "html"
