"""The Atom feed of a document's versions: written after every new version, readable whatever the pages hold."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

from differ.check import check, check_source
from differ.feed import ENTRIES, build_feed, feed_path, newest
from tests.conftest import Clock, Server, article, make_app, one_doc, source_toml

A = "{http://www.w3.org/2005/Atom}"


def entries(xml: bytes) -> list[dict[str, object]]:
    root = ET.fromstring(xml)
    assert root.tag == f"{A}feed"
    return [
        {
            "id": e.findtext(f"{A}id"),
            "title": e.findtext(f"{A}title"),
            "updated": e.findtext(f"{A}updated"),
            "links": [(link.get("rel"), link.get("href")) for link in e.findall(f"{A}link")],
            "content": e.findtext(f"{A}content"),
        }
        for e in root.findall(f"{A}entry")
    ]


def test_every_new_version_is_an_entry_linking_its_report(tmp_path: Path, server: Server) -> None:
    server.page("/post", article("<p>Version 1.71 is out.</p>"))
    clock = Clock()
    service = 'base_url = "https://reports.example.org/differ/"\n'
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false", service=service), clock)
    source = app.config.sources()[0]
    check(app, [source])
    assert (
        entries(feed_path(app.store, "doc").read_bytes())[0]["title"]
        == "Doc (canonical), version 1: first snapshot."
    )
    server.page("/post", article("<p>Version 1.81 is out.</p>"))
    clock.advance(3600)
    check(app, [source])
    xml = feed_path(app.store, "doc").read_bytes()
    root = ET.fromstring(xml)
    assert (root.findtext(f"{A}title"), root.findtext(f"{A}updated")) == (
        "Doc: versions",
        "2026-07-08T18:45:00Z",
    )
    self_link = [link.get("href") for link in root.findall(f"{A}link") if link.get("rel") == "self"]
    assert self_link == ["https://reports.example.org/differ/doc/feed.xml"]
    newest, first = entries(xml)
    assert newest["title"] == "Doc (canonical), version 1 → 2: 1 change."
    assert newest["content"] == (  # HTML, which a feed reader lays out: a change an item, with its → line
        "<ul><li>&quot;Version 1.71 is out.&quot;<br>→ &quot;Version 1.81 is out.&quot;</li></ul>"
    )
    assert newest["links"] == [
        ("alternate", "https://reports.example.org/differ/doc/canonical/diff-2.html"),
        ("related", server.url("/post")),
    ]
    assert (app.store.root / "reports/doc/canonical/diff-2.html").is_file()  # the page the link names
    assert first["title"] == "Doc (canonical), version 1: first snapshot."
    assert first["content"] == f"<p>First snapshot of {server.url('/post')}.</p>"
    assert first["links"] == [("alternate", server.url("/post"))]
    assert newest["id"] != first["id"]
    again = build_feed(app.store, app.config.documents[0], app.config.service.base_url)
    assert again == xml  # ids and order are the same in every regeneration


def test_page_text_never_breaks_the_feed_and_only_the_newest_are_kept(tmp_path: Path) -> None:
    app = make_app(one_doc(tmp_path, "https://example.org/post", extra="robots = false"))
    doc = app.config.documents[0]
    hostile = 'Post › x: added "\x01<script>alert(1)</script> & \ufffe ]]>"'
    for n in range(ENTRIES + 5):
        app.store.commit(
            "doc/canonical",
            raw=f"page {n}".encode(),
            markdown=f"Page {n}.\n",
            record={
                "fetched_at": f"2026-07-{1 + n // 24:02d}T{n % 24:02d}:00:00Z",
                "url": "https://example.org/post",
                "summary": [f"Doc (canonical), version {n} → {n + 1}: 1 change.", f"• {hostile}"],
            },
        )
    found = entries(build_feed(app.store, doc))
    assert len(found) == ENTRIES
    assert found[0]["title"] == f"Doc (canonical), version {ENTRIES + 4} → {ENTRIES + 5}: 1 change."
    assert found[0]["content"] == (  # the page's text escaped within the entry's HTML: none of it markup
        "<ul><li>Post › x: added &quot;\ufffd&lt;script&gt;alert(1)&lt;/script&gt; &amp; \ufffd ]]&gt;&quot;</li></ul>"
    )
    assert len({e["id"] for e in found}) == ENTRIES


def test_the_newest_versions_of_every_source_merged_in_time_order(tmp_path: Path) -> None:
    mirror = source_toml("https://mirror.example.org/post", "copy")
    app = make_app(one_doc(tmp_path, "https://example.org/post", mirrors=[mirror]))
    times = {"doc/canonical": ["01", "04", "05"], "doc/copy": ["02", "03", "06"]}
    for key, hours in times.items():
        for hour in hours:
            app.store.commit(
                key,
                raw=hour.encode(),
                markdown=f"{hour}\n",
                record={"fetched_at": f"2026-07-08T{hour}:00:00Z", "url": "https://example.org/post"},
            )
    found = [(source, v.fetched_at[11:13]) for source, v in newest(app.store, app.config.documents[0], 4)]
    assert found == [("copy", "06"), ("canonical", "05"), ("canonical", "04"), ("copy", "03")]
    assert len(newest(app.store, app.config.documents[0])) == 6


def test_a_version_a_crash_kept_from_its_check_reaches_the_feed(tmp_path: Path, server: Server) -> None:
    """Killed after the commit and before the feed: the next check writes it, though the page is unchanged."""
    server.page("/post", article("<p>Version 1.71 is out.</p>"))
    clock = Clock()
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)
    source = app.config.sources()[0]
    check(app, [source])
    server.page("/post", article("<p>Version 1.81 is out.</p>"))
    clock.advance(3600)
    assert check_source(app, source).line() == "doc/canonical: new version 2 (1 change)"  # and no _after
    assert len(entries(feed_path(app.store, "doc").read_bytes())) == 1
    clock.advance(3600)
    assert [r.line() for r in check(app, [source])] == ["doc/canonical: unchanged (same body)"]
    assert [e["title"] for e in entries(feed_path(app.store, "doc").read_bytes())] == [
        "Doc (canonical), version 1 → 2: 1 change.",
        "Doc (canonical), version 1: first snapshot.",
    ]


def test_a_post_read_from_its_blogs_feed_is_linked_as_the_post(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """The reports, the Atom feed and an alert's `url` give the post a `feed` source watches, not the blog's feed
    it is read from."""
    import json

    from bs4 import BeautifulSoup

    from differ.site import index_path
    from tests.conftest import Reply
    from tests.test_notify import hooks_toml

    receiver.routes["/hooks"] = Reply(204)

    post = "https://blog.example.org/2026/07/08/release/"
    feed = (
        "<?xml version='1.0'?><rss version='2.0'><channel><item><title>Release</title>"
        f"<link>{post}</link><description>&lt;p&gt;Version 1.71 is out.&lt;/p&gt;</description></item></channel></rss>"
    )
    server.page("/feed.xml", feed, "application/rss+xml")
    clock = Clock()
    app = make_app(
        one_doc(
            tmp_path,
            server.url("/feed.xml"),
            kind="feed",
            extra=f'entry = "{post}"\nrobots = false',
            notify=hooks_toml(receiver.url("/hooks")),
        ),
        clock,
    )
    check(app, app.config.sources())
    server.page("/feed.xml", feed.replace("1.71", "1.81"), "application/rss+xml")
    clock.advance(3600)
    check(app, app.config.sources())
    [told] = [json.loads(hit.body)["data"] for hit in receiver.requests_to("/hooks")]
    assert (told["source"], told["url"]) == ("doc/canonical", post)
    xml = feed_path(app.store, "doc").read_bytes()
    alternate = [
        link.get("href") for link in ET.fromstring(xml).findall(f"{A}link") if link.get("rel") == "alternate"
    ]
    assert alternate == [post]
    assert entries(xml)[-1]["links"] == [("alternate", post)]  # the first version's
    page = BeautifulSoup(index_path(app.store, "doc").read_text(), "lxml")
    hrefs = [str(a["href"]) for a in page.find_all("a")]
    assert (
        hrefs.count(post) == 2 and server.url("/feed.xml") in hrefs
    )  # canonical, source, read from its feed
    assert f"read from its feed, {server.url('/feed.xml')}" in page.get_text(" ", strip=True)


def test_one_feed_of_every_documents_versions_beside_the_index(tmp_path: Path, server: Server) -> None:
    """`reports/feed.xml`: the newest versions of every document, newest first, each entry as its document's
    feed has it (same id), linked from the index; written with the index after a check."""
    from differ.config import parse_config
    from differ.feed import build_site_feed, site_feed_path
    from tests.conftest import SERVICE

    for doc in ("one", "two"):
        server.page(f"/{doc}", article(f"<p>{doc} says 1.71.</p>", doc.title()))
    body = "".join(
        f'[[documents]]\nid = "{doc}"\n[documents.canonical]\n'
        + source_toml(server.url(f"/{doc}"), extra="robots = false")
        for doc in ("one", "two")
    )
    text = SERVICE.format(store=tmp_path / "snapshots") + 'base_url = "https://r.example.org/"\n' + body
    clock = Clock()
    app = make_app(parse_config(text, tmp_path / "config.toml", {}), clock)
    check(app, app.config.sources())
    server.page("/two", article("<p>two says 1.81.</p>", "Two"))
    clock.advance(3600)
    check(app, app.config.sources())
    xml = site_feed_path(app.store).read_bytes()
    root = ET.fromstring(xml)
    assert (root.findtext(f"{A}title"), root.findtext(f"{A}updated")) == (
        "differ: every document's versions",
        "2026-07-08T18:45:00Z",
    )
    assert [(link.get("rel"), link.get("href")) for link in root.findall(f"{A}link")] == [
        ("alternate", "https://r.example.org/"),
        ("self", "https://r.example.org/feed.xml"),
    ]
    found = entries(xml)
    assert [e["title"] for e in found] == [
        "Two (canonical), version 1 → 2: 1 change.",
        "One (canonical), version 1: first snapshot.",  # checked first of the two at the same time
        "Two (canonical), version 1: first snapshot.",
    ]
    assert found[0]["links"][0] == ("alternate", "https://r.example.org/two/canonical/diff-2.html")
    own = {e["id"] for doc in ("one", "two") for e in entries(feed_path(app.store, doc).read_bytes())}
    assert {e["id"] for e in found} == own  # a reader taking both feeds shows each version once
    assert build_site_feed(app.store, app.config, app.config.service.base_url) == xml  # the same every time
    index = (app.store.root / "reports" / "index.html").read_text()
    assert '<a href="feed.xml">Atom feed of every document</a>' in index
    # a feed reader given the reports' address, or a document's page, finds its feed
    found = '<link rel=alternate type="application/atom+xml" href="feed.xml">'
    assert found in index.split("</head>")[0]
    assert found in (app.store.root / "reports" / "two" / "index.html").read_text().split("</head>")[0]
