"""Canonical Markdown written straight from HTML equals the converter's escaped Markdown canonicalized."""

from __future__ import annotations

import html
import json
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from differ.check import check_source
from differ.normalize import NORMALIZER_VERSION
from differ.normalize import html as htmlconv
from differ.normalize.canonical import canonicalize, plain_words
from differ.normalize.root import find_root
from differ.normalize.writer import Unsure, _Writer, write
from tests.conftest import Server, article, make_app, one_doc
from tests.helpers import DATA, REPLAY, TRACKING, canonical_source, norm, source, store_as_read_by

URL = "https://blog.example.org/post/"
SITE = MarkdownIt("commonmark", {"html": True}).enable("table")


def both(page: str, selector: str | None = None) -> tuple[str | None, str]:
    """(written directly, canonicalized from the escaped Markdown) for one page; the words counted on the way
    are the words plain_words reads in what was written."""
    converter = htmlconv.Converter(URL, TRACKING)

    def root() -> htmlconv.Tag:
        return find_root(htmlconv.parse_html(page), selector, ())

    written = write(converter, root())
    if written is not None:
        assert written.words == len(plain_words(written.markdown))
    return written and written.markdown, canonicalize(converter.convert(root())).text


def same(page: str, selector: str | None = None) -> None:
    written, reference = both(page, selector)
    assert written is None or written == reference


def test_three_tildes_that_begin_a_block_are_written_as_canonicalize_writes_them() -> None:
    page = "<article><p>~~~ not a fence</p><ul><li>~~~</li></ul><blockquote><p>~~~</p></blockquote></article>"
    written, reference = both(page, None)
    assert written == reference == "\\~~~ not a fence\n\n- \\~~~\n\n> \\~~~\n"


def in_article(fragment: str) -> str:
    return f"<html><body><article>{fragment}</article></body></html>"


def test_replay_pages_and_test_pages() -> None:
    for path in [
        *sorted((REPLAY / "canonical").glob("fetch-*.html")),
        *sorted((DATA / "html").glob("*.html")),
    ]:
        same(path.read_text(), "article .entry-content" if "fetch" in path.name else None)


def test_corpus_revisions_rendered_as_their_sites_do() -> None:
    front = re.compile(r"\A(?:---\n.*?\n---\n|\+\+\+\n.*?\n\+\+\+\n)", re.DOTALL)
    for path in sorted((DATA / "corpus").glob("*/rev-*.md")):
        same(in_article(SITE.render(front.sub("", path.read_text(), count=1))))


def test_every_commonmark_example_as_html() -> None:
    for example in json.loads((DATA / "commonmark" / "spec.json").read_text()):
        same(in_article(example["html"]))


def test_the_replay_page_is_written_directly() -> None:
    """Almost every block of a release post takes the direct road (else normalizing is slow again)."""
    page = (REPLAY / "canonical" / "fetch-1.html").read_text()
    converter = htmlconv.Converter(URL, TRACKING)
    writer = _Writer(converter)
    direct = unsure = 0
    for leaf in converter.leaves(find_root(htmlconv.parse_html(page), "article .entry-content", ()), 0):
        try:
            writer.leaf(leaf)
            direct += 1
        except Unsure:
            unsure += 1
    assert direct >= 90 and unsure <= 2


def test_documents_with_invisible_characters_go_whole() -> None:
    written, reference = both(in_article("<p>zero\u200bwidth</p><p>plain</p>"))
    assert written is None and reference == "zerowidth\n\nplain\n"


def test_lists_side_by_side_are_canonicalized_together() -> None:
    written, reference = both(in_article("<ul><li>a</li></ul><ul><li>b</li></ul><p>c</p>"))
    assert written == reference == "- a\n\n- b\n\nc\n"


def test_image_descriptions_keep_their_punctuation() -> None:
    result = norm(in_article('<p>See <img alt="Fig. 1: a*b [c]" src="/f.png"> here.</p>'), source(url=URL))
    assert result.markdown == "See ![Fig. 1: a\\*b [c]](https://blog.example.org/f.png) here.\n"
    assert plain_words(result.markdown) == ["See", "Fig.", "1:", "a*b", "[c]", "here."]
    assert canonicalize("![a\\.b](u)").text == "![a.b](u)\n"


def test_normalizing_the_replay_needs_no_canonicalize_pass() -> None:
    from differ.normalize.canonical import _canonical_chunk

    _canonical_chunk.cache_clear()
    norm((REPLAY / "canonical" / "fetch-1.html").read_bytes(), canonical_source())
    assert _canonical_chunk.cache_info().currsize <= 3


# -- random HTML ------------------------------------------------------------------------------------------
WORDS = [
    "a", "Bc", "1", "1.", "2)", " ", "  ", "\t", "\n", "*", "**", "_", "__", "[", "]", "(", ")", "<", ">", "!",
    "&", "&amp;", "&copy;", "#", "# ", "- ", "+ ", "> ", "`", "``", "\\", "~", "|", "=", "---", ":", ".",
    "\u00a0", "é", "e\u0301", "<\u0338", "한국어", "→", "“", "x_y", "2*3",
]  # fmt: skip
URLS = [
    "http://x.org/a b", "/rel?utm_source=1&x=2", "javascript:alert(1)", "file:///etc/passwd", "http://x/(p)",
    "http://x/y\\z", "mailto:a@b.org", "", "#top", "#fn:1", "http://ü.example/ä", "http://x/a&amp;b",
]  # fmt: skip
TEXT = st.lists(st.sampled_from(WORDS), max_size=6).map(lambda parts: html.escape("".join(parts)))


def _tag(name: str, inner: str, attrs: str = "") -> str:
    return f"<{name}{attrs}>{inner}</{name}>"


INLINE = st.recursive(
    TEXT
    | st.just("<br>")
    | st.builds(lambda a, s: f'<img alt="{a}" src="{html.escape(s)}">', TEXT, st.sampled_from(URLS)),
    lambda inner: st.one_of(
        st.builds(_tag, st.sampled_from(["em", "strong", "b", "i", "span", "code", "kbd", "sup"]), inner),
        st.builds(lambda i, h: _tag("a", i, f' href="{html.escape(h)}"'), inner, st.sampled_from(URLS)),
        st.lists(inner, min_size=2, max_size=3).map("".join),
    ),
    max_leaves=6,
)
LEAF = st.one_of(
    st.builds(lambda i: _tag("p", i), INLINE),
    st.builds(lambda n, i: _tag(f"h{n}", i), st.integers(1, 3), INLINE),
    st.builds(
        lambda c, lang: _tag("pre", _tag("code", c, f' class="language-{lang}"')),
        TEXT,
        st.sampled_from(["py", "", "c++"]),
    ),
    st.just("<hr>"),
    INLINE,
)
BLOCK = st.recursive(
    LEAF,
    lambda inner: st.one_of(
        st.builds(lambda items, n: _tag(n, "".join(_tag("li", i) for i in items)), st.lists(inner, min_size=1, max_size=3), st.sampled_from(["ul", "ol"])),
        st.builds(lambda i: _tag("blockquote", i), inner),
        st.builds(lambda items: _tag("div", "".join(items)), st.lists(inner, max_size=3)),
    ),
    max_leaves=6,
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(BLOCK, max_size=5))
def test_random_html(blocks: list[str]) -> None:
    same(in_article("".join(blocks)))


SPACING = st.sampled_from(["", " ", "\n", "\n  ", "\t\n"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(BLOCK, SPACING), max_size=5), SPACING, SPACING)
def test_random_html_laid_out_with_spacing(blocks: list[tuple[str, str]], inside: str, after: str) -> None:
    """Pages put newlines and indentation between blocks and around nested lists."""
    page = "".join(block + space for block, space in blocks)
    page = (
        page.replace("<li>", "<li>" + inside)
        .replace("</li>", inside + "</li>")
        .replace("</ul>", "</ul>" + after)
    )
    same(in_article(page))


def test_spacing_after_a_nested_list_does_not_send_the_list_the_long_road() -> None:
    page = in_article("<ul>\n  <li>one\n    <ul>\n      <li>two</li>\n    </ul>\n  </li>\n</ul>\n")
    converter = htmlconv.Converter(URL, TRACKING)
    root = find_root(htmlconv.parse_html(page), None, ())
    assert [leaf.kind for leaf in converter.leaves(root, 0)] == ["ul"]
    assert _Writer(converter).leaf(converter.leaves(root, 0)[0]) == "- one\n  - two"
    assert both(page) == ("- one\n  - two\n", "- one\n  - two\n")


# -- an upgraded normalizer -------------------------------------------------------------------------------
def test_an_upgraded_normalizer_does_not_read_as_a_change(tmp_path: Path, server: Server) -> None:
    page = article('<p>See <img alt="Fig. 1" src="/f.png"> here.</p>')
    server.page("/post", page)
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"))
    src = app.config.sources()[0]
    old_form = "# Post\n\nSee ![Fig 1](" + server.url("/f.png") + ") here.\n"
    html = "text/html; charset=utf-8"
    store_as_read_by(app.store, src.key, 1, raw=page, markdown=old_form, url=server.url("/post"), ctype=html)
    assert check_source(app, src).line() == "doc/canonical: unchanged (page noise only)"
    latest = app.store.latest(src.key)
    assert latest is not None
    assert app.store.markdown(latest, 1) == old_form
    assert app.store.markdown(latest, NORMALIZER_VERSION) == old_form.replace("Fig 1", "Fig. 1")
    assert app.store.state(src.key)["reread"]["normalizer"] == NORMALIZER_VERSION
    server.page("/post", article('<p>See <img alt="Fig. 1" src="/f.png"> there.</p>'))
    assert check_source(app, src).line() == "doc/canonical: new version 2 (1 change)"


@pytest.mark.parametrize("etag", ['"v1"', None], ids=["not modified", "same body"])
def test_an_unchanged_page_is_read_by_the_upgraded_normalizer_too(
    tmp_path: Path, server: Server, etag: str | None
) -> None:
    """A page checked before the upgrade that answers 304, or with the body it had, still gets its latest version
    read by the new normalizer, as a changed page does: a copy audited against a canonical read anew is read as
    the same normalizer reads it, not as it was read before."""
    from differ.store import sha256

    page = article('<p>See <img alt="Fig. 1" src="/f.png"> here.</p>')
    server.page("/post", page, etag=etag)
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"))
    src = app.config.sources()[0]
    old_form = "# Post\n\nSee ![Fig 1](" + server.url("/f.png") + ") here.\n"
    html = "text/html; charset=utf-8"
    store_as_read_by(app.store, src.key, 1, raw=page, markdown=old_form, url=server.url("/post"), ctype=html)
    before = {"url": server.url("/post"), "etag": etag, "body_sha256": sha256(page.encode())}
    app.store.save_state(src.key, before)  # as a check before the upgrade left it
    why = "not modified" if etag else "same body"
    assert check_source(app, src).line() == f"doc/canonical: unchanged ({why})"
    latest = app.store.latest(src.key)
    assert latest is not None
    assert app.store.markdown(latest, 1) == old_form
    assert app.store.markdown(latest) == old_form.replace("Fig 1", "Fig. 1")
    state = app.store.state(src.key)
    # the state says which normalizer read it: the next 304 reads no record to know
    assert state["reread"]["normalizer"] == state["normalizer"] == NORMALIZER_VERSION
    assert check_source(app, src).line() == f"doc/canonical: unchanged ({why})"  # read once
    server.page("/post", article('<p>See <img alt="Fig. 1" src="/f.png"> there.</p>'))
    assert check_source(app, src).line() == "doc/canonical: new version 2 (1 change)"


def test_front_matter_read_as_metadata_after_an_upgrade_is_no_change(tmp_path: Path, server: Server) -> None:
    # normalizer 3 read a Markdown source's front matter as body (a rule, then a heading of its lines)
    post = "---\ntitle: Announcing 1.0\nlayout: post\n---\n\nWe are happy to announce 1.0.\n"
    server.page("/post.md", post, "text/markdown; charset=utf-8")
    app = make_app(one_doc(tmp_path, server.url("/post.md"), kind="markdown", extra="robots = false"))
    src = app.config.sources()[0]
    store_as_read_by(
        app.store,
        src.key,
        3,
        raw=post,
        markdown="***\n\n## title: Announcing 1.0 layout: post\n\nWe are happy to announce 1.0.\n",
        url=server.url("/post.md"),
        ctype="text/markdown; charset=utf-8",
        metadata={},
    )
    assert check_source(app, src).line() == "doc/canonical: unchanged (page noise only)"
    server.page(
        "/post.md", post.replace("Announcing 1.0", "Announcing 1.0.0"), "text/markdown; charset=utf-8"
    )
    assert check_source(app, src).line() == "doc/canonical: new version 2 (1 metadata field)"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="*_ a.\u00a0\t\\", max_size=12))
def test_marker_escapes_are_mdformats(text: str) -> None:
    from mdformat.renderer._util import escape_asterisk_emphasis, escape_underscore_emphasis

    from differ.normalize.mdescape import escape_text

    assert escape_text(text, False) == escape_underscore_emphasis(
        escape_asterisk_emphasis(text.replace("\\", "\\\\"))
    )


URL_PARTS = [
    "http://",
    "https://",
    "http:",
    "//",
    "/",
    "a",
    "B9",
    "x.org",
    "-",
    ".",
    "_",
    "~",
    ":",
    "?",
    "#",
    "@",
    "!",
    "$",
    "'",
]
URL_PARTS += [
    "(",
    ")",
    "*",
    "+",
    ",",
    ";",
    "=",
    "%20",
    "%2f",
    "%",
    "%zz",
    "&",
    "&amp;",
    "[",
    "]",
    "ü",
    " ",
    "80",
]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(URL_PARTS), max_size=10).map("".join))
def test_kept_urls_are_their_own_normal_form(url: str) -> None:
    from markdown_it.common.utils import unescapeAll

    from differ.normalize.markdownit import parser
    from differ.normalize.mdescape import KEPT_URL

    if KEPT_URL.fullmatch(url):
        assert parser().normalizeLink(unescapeAll(url)) == url
        assert parser().validateLink(url)
        assert unicodedata.is_normalized("NFC", url) and "\\" not in url and "\n" not in url


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="a()< >\x00\x1f\x7f\t/:é", max_size=8))
def test_link_destinations_are_bracketed_as_mdformat_brackets_them(link: str) -> None:
    from mdformat.renderer._util import maybe_add_link_brackets

    from differ.normalize.mdescape import link_destination

    assert link_destination(link) == maybe_add_link_brackets(link)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=" a\t\n\r\x0b\x0c\x1c\x1f\x00\x85\u00a0\u2028é", max_size=8))
def test_text_strings_take_the_same_road_as_before(text: str) -> None:
    """ASCII text that is not printable takes the spacing road: every string with odd spacing does, and any
    other string that does comes back from it unchanged."""
    from differ.normalize.html import _WS
    from differ.normalize.writer import _ODD_SPACE, _plain

    ascii_text = text.encode("ascii", "ignore").decode()
    if _ODD_SPACE.search(ascii_text):
        assert not ascii_text.isprintable()
    elif "  " not in ascii_text:
        assert _plain(_WS.sub(" ", ascii_text)) == ascii_text


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="|-: a\t=\\", max_size=12))
def test_the_delimiter_row_escape_is_the_table_plugins_own(line: str) -> None:
    from differ.normalize.markdownit import delimiter_rows_escaped
    from differ.normalize.mdescape import delimiter_row_escaped, paragraph_postprocessors

    assert delimiter_row_escaped(line, None, None) == delimiter_rows_escaped(line, None, None)
    assert delimiter_row_escaped in paragraph_postprocessors()


PURE = r"""
import json, sys
from bench.as_python import install
install()  # differ's compiled modules from their .py source
from differ.normalize import compiled_modules
from tests.test_writer import written_pages
assert compiled_modules() == [], compiled_modules()
json.dump(written_pages(), sys.stdout)
"""


def written_pages() -> list[str | None]:
    """What the writer makes of the replay, the corpus as rendered and every CommonMark example's HTML."""
    front = re.compile(r"\A(?:---\n.*?\n---\n|\+\+\+\n.*?\n\+\+\+\n)", re.DOTALL)
    pages = [path.read_text() for path in sorted((REPLAY / "canonical").glob("fetch-*.html"))]
    pages += [
        in_article(SITE.render(front.sub("", path.read_text(), count=1)))
        for path in sorted((DATA / "corpus").glob("*/rev-*.md"))
    ]
    pages += [in_article(e["html"]) for e in json.loads((DATA / "commonmark" / "spec.json").read_text())]
    out = []
    for page in pages:
        written = write(htmlconv.Converter(URL, TRACKING), find_root(htmlconv.parse_html(page), None, ()))
        out.append(written and written.markdown)
    return out


def test_compiled_writer_writes_what_the_python_source_writes() -> None:
    """The compiled modules (setup.py) and their source, run as Python in another process, give the same bytes."""
    import subprocess
    import sys

    from differ.normalize import compiled_modules

    if not compiled_modules():
        pytest.skip("differ is installed as Python (make DIFFER_COMPILE=0): nothing compiled to compare")
    root = Path(__file__).resolve().parent.parent
    pure = subprocess.run([sys.executable, "-c", PURE], cwd=root, capture_output=True, text=True)
    assert pure.returncode == 0, pure.stderr
    expected = written_pages()
    assert sum(page is not None for page in expected) > 600  # the writer wrote most pages, not declined them
    assert json.loads(pure.stdout) == expected


def _rendered_by_mdformats_own(markdown: str) -> str:
    """The parser's Markdown with mdformat's own renderers in place of those differ does faster."""
    from differ.normalize.markdownit import _Faster, parser

    ours = _Faster.RENDERERS
    _Faster.RENDERERS = {}
    try:
        return str(parser().render(markdown))
    finally:
        _Faster.RENDERERS = ours


# text, spacing, every marker the text renderer escapes, and the blocks and links around text
PIECES = [*"ab \t\n*_`[]<>!&\\#é£\u3000", "  ", "\n\n", "&amp;", "&#10;", "(x)", "[a]", "![i](p)", "[l](u)"]
MARKDOWN_PIECES = st.lists(st.sampled_from([*PIECES, "- ", "1. ", "> ", "[a]: /u\n"]), max_size=40).map(
    "".join
)


@settings(max_examples=1500, deadline=None)
@given(MARKDOWN_PIECES)
def test_text_and_lists_are_written_as_mdformats_own_renderers_write_them(markdown: str) -> None:
    from differ.normalize.markdownit import parser

    assert parser().render(markdown) == _rendered_by_mdformats_own(markdown)


def test_real_pages_are_written_as_mdformats_own_renderers_write_them() -> None:
    from differ.normalize.markdownit import parser

    documents = [path.read_text() for path in sorted((DATA / "corpus").glob("*/rev-*.md"))]
    documents += [e["markdown"] for e in json.loads((DATA / "commonmark" / "spec.json").read_text())]
    documents += [path.read_text() for path in sorted((DATA / "replay").glob("*.md"))]
    assert len(documents) > 680
    for markdown in documents:
        assert parser().render(markdown) == _rendered_by_mdformats_own(markdown)
