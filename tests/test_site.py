"""The published reports folder as a site: the index and a page per document, written by real checks against a
real local server, read back with an HTML parser."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from differ.check import check
from differ.site import index_path
from tests.conftest import Clock, Reply, Server, article, make_app, one_doc, source_toml

CHANGE = '1 change: "The release is out today." → "The release is out since Monday."'


def rows(path: Path) -> list[list[str]]:
    soup = BeautifulSoup(path.read_text(), "lxml")
    return [[c.get_text(" ", strip=True) for c in tr.find_all(["td", "th"])] for tr in soup.find_all("tr")]


def links(path: Path) -> list[str]:
    return [str(a["href"]) for a in BeautifulSoup(path.read_text(), "lxml").find_all("a")]


def text(path: Path) -> str:
    return BeautifulSoup(path.read_text(), "lxml").get_text()


def setup(tmp_path: Path, server: Server) -> tuple[object, Clock]:
    server.page("/post", article("<p>The release is out today.</p><p>Install it with pip.</p>"))
    server.page("/copy", article("<p>The release is out today.</p><p>Install it with pip.</p>"))
    clock = Clock()
    mirror = source_toml(server.url("/copy"), "copy", extra="robots = false")
    app = make_app(
        one_doc(tmp_path, server.url("/post"), extra="robots = false", mirrors=[mirror]),
        clock,
    )
    return app, clock


def test_a_check_publishes_an_index_and_a_page_per_document(tmp_path: Path, server: Server) -> None:
    app, clock = setup(tmp_path, server)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    index, page = index_path(app.store), index_path(app.store, "doc")  # type: ignore[attr-defined]
    assert rows(index) == [
        ["Document", "Source", "Versions", "Latest change", "State"],
        ["Doc", "canonical canonical", "1", "2026-07-08T17:45:00Z: first snapshot", "ok"],
        [
            "copy mirror",
            "1",
            "2026-07-08T17:45:00Z: first snapshot",
            "up to date, 0 findings, coverage 100.0%",
        ],
    ]
    server.page("/post", article("<p>The release is out since Monday.</p><p>Install it with pip.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert rows(index)[:2] == [  # the sources edited last first, then every source
        ["Document", "Source", "Change"],
        ["Doc", "canonical", f"2026-07-08T18:45:00Z: {CHANGE}"],
    ]
    assert rows(index)[3:] == [
        [
            "Doc",
            "canonical canonical",
            "2",
            f"2026-07-08T18:45:00Z: {CHANGE}",
            "ok",
        ],
        [
            "copy mirror",
            "1",
            "2026-07-08T17:45:00Z: first snapshot",
            "stale: matches version 1 of 2, 1 passage to carry over, 1 finding, coverage 81.8%",
        ],
    ]
    # the latest edits, then every source, whose versions lead to the post as it now reads, each passage with its
    # last edit
    assert links(index) == [
        "feed.xml",
        "doc/index.html",
        "doc/canonical/diff-2.html",
        "doc/index.html",
        "doc/canonical/blame.html",
        "doc/canonical/diff-2.html",
    ]
    assert (index.parent / "feed.xml").is_file()  # the link leads somewhere
    assert [h.get_text() for h in BeautifulSoup(index.read_text(), "lxml").find_all("h2")] == [
        "Latest edits",
        "Every source",
    ]
    assert (index.parent / "doc/canonical/diff-2.html").is_file()
    assert rows(page) == [
        ["Mirror", "Against the canonical", "Findings"],
        [
            "copy",
            "stale: matches version 1 of 2, 1 passage to carry over, 1 finding, coverage 81.8%",
            "stale: matches canonical version 1 (2026-07-08T17:45:00Z); the canonical has moved on since "
            "2026-07-08T18:45:00Z (now version 2), so the mirror misses 1 change "
            'To carry over: "The release is out today." → "The release is out since Monday." '
            "The passage as it now reads "
            "The release is out since Monday. (edited in version 2, 2026-07-08T18:45:00Z, there since "
            "version 1) in copy: “The release is out today.” The release is out since Monday.",
        ],
        ["#", "Fetched", "Size", "Change"],
        ["2", "2026-07-08T18:45:00Z", "0.2 KB", CHANGE],
        ["1", "2026-07-08T17:45:00Z", "0.2 KB", "first snapshot"],
        ["#", "Fetched", "Size", "Change"],
        ["1", "2026-07-08T17:45:00Z", "0.2 KB", "first snapshot"],
    ]
    assert (  # the passage folded away, its Markdown to copy
        "<details><summary>The passage as it now reads</summary><ul class=passages><li>The release is out "
        "since Monday. (edited in version 2, 2026-07-08T18:45:00Z, there since version 1)<br><i>in copy: “The "
        "release is out today.”</i><pre>The release is out since Monday.</pre></li></ul></details>"
    ) in page.read_text()
    assert (  # a change an item, its new text with it
        "<li>&quot;The release is out today.&quot;<br>→ &quot;The release is out since Monday.&quot;</li>"
        in page.read_text()
    )
    # a time and a size are not broken across lines
    assert "<td class=when>2026-07-08T18:45:00Z</td><td class=when>0.2 KB</td>" in page.read_text()
    assert ".when{white-space:nowrap}" in page.read_text()
    assert links(page) == [
        server.url("/post"),
        "../index.html",
        "feed.xml",
        server.url("/post"),
        "canonical/blame.html",
        "canonical/diff-2.html",
        server.url("/copy"),  # of one version, it has no page of each passage's last edit
    ]
    assert (page.parent / "feed.xml").is_file()


def test_a_diff_page_links_to_its_document_the_edit_before_and_every_document(
    tmp_path: Path, server: Server
) -> None:
    app, clock = setup(tmp_path, server)
    for text_ in ("today", "since Monday", "since Tuesday"):
        server.page("/post", article(f"<p>The release is out {text_}.</p><p>Install it with pip.</p>"))
        check(app, app.config.sources())  # type: ignore[attr-defined]
        clock.advance(3600)
    folder = index_path(app.store).parent / "doc" / "canonical"  # type: ignore[attr-defined]
    first, second = folder / "diff-2.html", folder / "diff-3.html"
    # version 1 → 2: no edit before it, and once edited again, a link to that edit
    assert links(first) == ["../index.html", "diff-3.html", "blame.html", "../../index.html"]
    assert links(second) == ["../index.html", "diff-2.html", "blame.html", "../../index.html"]
    assert all((folder / href).resolve().is_file() for page in (first, second) for href in links(page))
    navs = [BeautifulSoup(page.read_text(), "lxml").find_all("p", class_="nav") for page in (first, second)]
    assert [[p.get_text() for p in nav] for nav in navs] == [
        [
            "Doc (canonical) · the edit after: version 2 → 3 · the post now, each passage with its last edit · All documents"
        ],
        [
            "Doc (canonical) · the edit before: version 1 → 2 · the post now, each passage with its last edit · All documents"
        ],
    ]
    assert "<ins>since Monday</ins>" in first.read_text()  # the page itself as it was


def test_a_diff_page_from_before_the_links_is_left_as_it_is(tmp_path: Path, server: Server) -> None:
    app, clock = setup(tmp_path, server)
    folder = index_path(app.store).parent / "doc" / "canonical"  # type: ignore[attr-defined]
    for n, text_ in enumerate(("today", "since Monday", "since Tuesday")):
        server.page("/post", article(f"<p>The release is out {text_}.</p><p>Install it with pip.</p>"))
        check(app, app.config.sources())  # type: ignore[attr-defined]
        clock.advance(3600)
        if n == 1:  # version 2's page as an older differ wrote it, without links
            old = re.sub(r"<p class=nav>.*?</p>", "", (folder / "diff-2.html").read_text())
            (folder / "diff-2.html").write_text(old)
    assert (folder / "diff-2.html").read_text() == old
    assert links(folder / "diff-3.html") == ["../index.html", "diff-2.html", "blame.html", "../../index.html"]


def test_a_failing_source_shows_until_it_recovers(tmp_path: Path, server: Server) -> None:
    app, clock = setup(tmp_path, server)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    index = index_path(app.store)  # type: ignore[attr-defined]
    server.routes["/copy"] = Reply(404)
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert rows(index)[2][-1] == "failing (1 in a row): HTTP 404 Not Found"
    assert "failing (1 in a row): HTTP 404 Not Found" in index_path(app.store, "doc").read_text()  # type: ignore[attr-defined]
    server.page("/copy", article("<p>The release is out today.</p><p>Install it with pip.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert rows(index)[2][-1] == "up to date, 0 findings, coverage 100.0%"


def test_a_store_without_pages_gets_them_on_its_next_check(tmp_path: Path, server: Server) -> None:
    app, clock = setup(tmp_path, server)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    index, page = index_path(app.store), index_path(app.store, "doc")  # type: ignore[attr-defined]
    index.unlink()
    page.unlink()
    clock.advance(3600)
    results = check(app, app.config.sources())  # type: ignore[attr-defined]
    assert [r.outcome for r in results] == ["unchanged", "unchanged"]
    assert index.is_file() and page.is_file()
    before = page.read_text()
    clock.advance(3600)
    check(app, app.config.sources())  # nothing changed: the pages are left as they are
    assert page.read_text() == before


def test_the_index_is_rewritten_at_most_every_few_seconds(tmp_path: Path, server: Server) -> None:
    """A service checks one source at a time: the index (every source) waits for the next flush, the
    document's own page does not."""
    from differ.site import INDEX_EVERY, flush_index

    app, clock = setup(tmp_path, server)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    index, page = index_path(app.store), index_path(app.store, "doc")  # type: ignore[attr-defined]
    server.page("/post", article("<p>The release is out since Monday.</p><p>Install it with pip.</p>"))
    clock.advance(1)
    check(app, app.config.sources()[:1])  # type: ignore[attr-defined]
    assert rows(page)[3][0] == "2"
    assert rows(index)[1][2] == "1"
    flush_index(app)  # type: ignore[arg-type]
    assert rows(index)[1][2] == "1"
    clock.advance(INDEX_EVERY)
    flush_index(app)  # type: ignore[arg-type]
    assert rows(index)[3][2] == "2"  # under the latest edits
    assert app.index_pending is False  # type: ignore[attr-defined]


def test_a_paused_source_says_so_in_the_index(tmp_path: Path, server: Server) -> None:
    from dataclasses import replace

    from differ.site import flush_index, write_site

    app, _ = setup(tmp_path, server)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    config = app.config  # type: ignore[attr-defined]
    doc = config.documents[0]
    paused = replace(
        doc, canonical=replace(doc.canonical, paused=True), mirrors=(replace(doc.mirrors[0], paused=True),)
    )
    app.config = replace(config, documents=(paused,))  # type: ignore[attr-defined]
    write_site(app, {"doc"})  # type: ignore[arg-type]
    flush_index(app, now=True)  # type: ignore[arg-type]
    assert [row[-1] for row in rows(index_path(app.store))[1:]] == [  # type: ignore[attr-defined]
        "paused",
        "paused; up to date, 0 findings, coverage 100.0%",
    ]


def test_a_stale_copys_passages_are_escaped_and_left_out_when_their_page_is_not_of_the_latest_version(
    tmp_path: Path, server: Server
) -> None:
    """The passages a stale copy has to carry over, on the document's page: page text escaped (a `<script>` in
    the post shows as text); without the canonical's page of each passage's last edit for its latest version,
    the summary of the edits alone."""
    from differ.site import write_site

    app, clock = setup(tmp_path, server)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    server.page(
        "/post", article("<p>The release is out today.</p><p>Install it with <b>&lt;script&gt;</b>.</p>")
    )
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    page = index_path(app.store, "doc")  # type: ignore[attr-defined]
    html = page.read_text()
    assert "<script>" not in html
    assert "<pre>Install it with **\\&lt;script&gt;**.</pre>" in html
    assert "<i>in copy: “Install it with pip.”</i>" in html  # where the copy has it
    app.store.version("doc/copy", 1).record_path.write_text("{")  # type: ignore[attr-defined]
    write_site(app, {"doc"})  # type: ignore[arg-type]
    html = page.read_text()  # the copy's version damaged: the passage without its place
    assert "<details>" in html and "<i>in copy" not in html
    app.store.blame_path("doc/canonical").with_name("blame.json").unlink()  # type: ignore[attr-defined]
    write_site(app, {"doc"})  # type: ignore[arg-type]
    html = page.read_text()
    assert "To carry over:" in html and "<details>" not in html


def test_a_long_history_is_paged_and_the_full_pages_are_written_once(tmp_path: Path) -> None:
    """The document's page lists a source's newest 100 to 199 versions and links the older ones, in pages of
    exactly 100 written once (listing every version, each check read every record: 0.28 s a check at 3,000
    versions, growing with the history)."""
    from differ.site import write_site

    clock = Clock()
    app = make_app(one_doc(tmp_path, "https://example.org/post"), clock)

    def commit(upto: int) -> None:
        while app.store.latest_number("doc/canonical") < upto:
            n = app.store.latest_number("doc/canonical") + 1
            app.store.commit(
                "doc/canonical",
                raw=f"page {n}".encode(),
                markdown=f"Page {n}.\n",
                record={"fetched_at": f"2026-07-08T17:45:{n % 60:02d}Z", "raw_bytes": 7},
            )

    commit(250)
    write_site(app, {"doc"})
    page = index_path(app.store, "doc")
    table = rows(page)
    assert [r[0] for r in table[1:]] == [str(n) for n in range(250, 100, -1)]
    assert "Older versions: 1–100" in text(page)
    first = page.parent / "canonical" / "versions-1-100.html"
    assert "canonical/versions-1-100.html" in links(page)
    assert [r[0] for r in rows(first)[1:]] == [str(n) for n in range(100, 0, -1)]
    assert links(first)[0] == "../index.html"
    written = first.read_text()
    commit(300)
    clock.advance(60)
    write_site(app, {"doc"})
    assert [r[0] for r in rows(page)[1:]] == [str(n) for n in range(300, 200, -1)]
    assert "Older versions: 101–200, 1–100" in text(page)
    assert first.read_text() == written  # a full page is not written again
    assert [r[0] for r in rows(first.with_name("versions-101-200.html"))[1:]][::50] == ["200", "150"]
    app.store.version("doc/canonical", 250).record_path.unlink()  # a damaged store: its row is left out
    write_site(app, {"doc"})
    assert [r[0] for r in rows(page)[1:]][49:52] == ["251", "249", "248"]


def test_a_version_is_described_as_its_headline_says_when_nothing_changed_but_its_formatting() -> None:
    """A version of markup alone: `0 changes (formatting only)` in the history and on the reports site, as its
    summary's headline has it; a record from before that headline says `0 changes`."""
    from differ.site import describe
    from differ.store import Version

    said = ["Doc (canonical), version 2 → 3: 0 changes (formatting only)."]
    v = Version("doc/canonical", 3, {"summary": said, "changes": 0}, Path("."))
    assert describe(v) == "0 changes (formatting only)"
    v.record["summary"] = ["Doc (canonical), version 2 → 3: 0 changes."]
    assert describe(v) == "0 changes"


def test_the_index_and_the_site_feed_read_each_newest_record_once(
    tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written together under the store's lock, they share what they read: each source's newest record is read
    once, not once for the index and again for the feed (about 0.2 s a write on 1,000 sources)."""
    from collections import Counter

    import differ.store
    from differ.site import flush_index

    app, clock = setup(tmp_path, server)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    read: Counter[str] = Counter()
    json_object = differ.store.json_object

    def counted(path: Path) -> object:
        read[path.name if path.parent.name == "versions" else "other"] += 1
        return json_object(path)

    monkeypatch.setattr(differ.store, "json_object", counted)
    clock.advance(60)
    app.index_pending = True  # type: ignore[attr-defined]
    flush_index(app, now=True)  # type: ignore[arg-type]
    assert read["000001.json"] == len(app.config.sources())  # type: ignore[attr-defined]
    reports = app.store.root / "reports"  # type: ignore[attr-defined]
    assert (
        f"First snapshot of {server.url('/copy')}." in (reports / "feed.xml").read_text()
    )  # from those reads
    assert rows(reports / "index.html")[1][2] == "1"


def test_the_page_of_each_passages_last_edit_is_carried_on_from_version_to_version(
    tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`blame.html` beside the diff pages: each version's made from the one before and the check's diff (what
    it knew kept in `blame.json`), the same as `differ blame` works out from every version; without what it
    knew, worked out again."""
    import json

    from differ.blame import blame

    app, clock = setup(tmp_path, server)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    for text_ in ("since Monday", "since Tuesday"):
        if text_ == "since Tuesday":  # carried on: the history is not read again
            monkeypatch.setattr("differ.blame.blame", lambda *_: pytest.fail("read every version again"))
        clock.advance(3600)
        server.page(
            "/post", article(f"<p>The release is out {text_}.</p><p>Install it with pip.</p><p>{text_}</p>")
        )
        check(app, app.config.sources())  # type: ignore[attr-defined]
    folder = index_path(app.store).parent / "doc" / "canonical"  # type: ignore[attr-defined]
    page = folder / "blame.html"
    expected = [
        ["Last edited", "Since", "Block"],
        ["1 · 2026-07-08T17:45:00Z", "1", "# Post"],
        ["3 · 2026-07-08T19:45:00Z", "1", "The release is out since Tuesday."],
        ["1 · 2026-07-08T17:45:00Z", "1", "Install it with pip."],
        ["3 · 2026-07-08T19:45:00Z", "2", "since Tuesday"],
    ]
    assert rows(page) == expected
    assert links(page) == [
        "../index.html",
        "../../index.html",
        server.url("/post"),
        "#b2",  # the passages edited since version 1, each linked to its row
        "#b4",
        "diff-3.html",
        "diff-3.html",
    ]
    soup = BeautifulSoup(page.read_text(), "lxml")
    assert [tr.get("class") for tr in soup.find_all("tr")] == [None, None, ["edited"], None, ["added"]]
    assert (
        "version 3, fetched 2026-07-08T19:45:00Z: 4 blocks: 2 as in version 1, 1 edited since, 1 added since"
        in text(page)
    )
    state = json.loads((folder / "blame.json").read_text())
    assert (state["version"], state["blocks"]) == (3, [[1, 1], [1, 3], [1, 1], [2, 3]])
    monkeypatch.undo()
    source = app.config.sources()[0]  # type: ignore[attr-defined]
    every = blame(app, source, app.store.latest(source.key))  # type: ignore[attr-defined, arg-type]
    assert [[b.since.number, b.edited.number] for b in every] == state["blocks"]
    # what it knew lost (or of another reading): the next page worked out from every version
    (folder / "blame.json").write_text('{"version": 3, "blocks_sha256": "other", "blocks": []}')
    clock.advance(3600)
    server.page(
        "/post", article("<p>The release is out since Tuesday.</p><p>Install it with pip.</p><p>Fin.</p>")
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert json.loads((folder / "blame.json").read_text())["blocks"] == [[1, 1], [1, 3], [1, 1], [2, 4]]
    assert rows(page)[-1] == ["4 · 2026-07-08T20:45:00Z", "2", "Fin."]
