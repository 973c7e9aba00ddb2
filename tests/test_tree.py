"""The tree copied from lxml is BeautifulSoup's own tree, node by node and link by link."""

from __future__ import annotations

import json
import re

import pytest
from bs4 import BeautifulSoup
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from differ.normalize import html as htmlconv
from differ.normalize import tree
from differ.normalize.tree import build, shape
from tests.helpers import DATA, REPLAY

SITE = MarkdownIt("commonmark", {"html": True}).enable("table")


def same(text: str) -> bool:
    """True when the copy was made and equals BeautifulSoup's tree; False when the copy was declined."""
    copied = build(text)
    if copied is None:
        return False
    assert shape(copied) == shape(BeautifulSoup(text, "lxml"))
    assert str(copied) == str(BeautifulSoup(text, "lxml"))
    return True


def test_replay_and_test_pages_are_copied_exactly() -> None:
    pages = [*sorted(REPLAY.glob("*/*.html")), *sorted((DATA / "html").glob("*.html"))]
    assert len(pages) >= 7
    for path in pages:
        assert same(path.read_text()), path


def test_corpus_revisions_and_commonmark_examples_are_copied_exactly() -> None:
    front = re.compile(r"\A(?:---\n.*?\n---\n|\+\+\+\n.*?\n\+\+\+\n)", re.DOTALL)
    pages = [
        SITE.render(front.sub("", path.read_text(), count=1)) for path in (DATA / "corpus").glob("*/rev-*.md")
    ]
    pages += [example["html"] for example in json.loads((DATA / "commonmark" / "spec.json").read_text())]
    copied = sum(
        same(f"<!DOCTYPE html><html><body><article>{page}</article></body></html>") for page in pages
    )
    assert copied >= len(pages) - 3  # two processing instructions and a doctype in the body are declined


def test_documents_it_does_not_copy_are_parsed_as_before() -> None:
    for text in [
        "<p>a</p><?php echo 1; ?>",  # a processing instruction
        "<html><body>a</body></html> b",  # text after </html>: BeautifulSoup opens a second <html>
        "<!-- c --><html><body>a</body></html>",  # a comment before the root
        "<html><body>a</body></html><!-- c -->",  # and after it
        "<p>a<!-- </html> ",  # an end tag in a comment, then space
        "<p><a title=</html> ",  # or in an attribute
        "<div>" * 3000 + "deep" + "</div>" * 3000,  # nested deeper than libxml2 builds its tree
    ]:
        assert build(text) is None
        assert str(htmlconv.parse_html(text)) == str(BeautifulSoup(text, "lxml"))


def test_the_probe_page_is_copied_and_a_differing_copy_turns_the_copy_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert same(tree._PROBE)
    tree._copies_faithfully.cache_clear()
    monkeypatch.setattr(tree, "_SPACES", " ")  # a copy that no longer collapses tabs as BeautifulSoup does
    assert build("<p>a</p>") is None
    assert str(htmlconv.parse_html("<p>\t</p>")) == str(BeautifulSoup("<p>\t</p>", "lxml"))
    monkeypatch.undo()
    tree._copies_faithfully.cache_clear()
    assert build("<p>a</p>") is not None


def test_whitespace_strings_follow_beautifulsoups_rule() -> None:
    soup = build("<html><body><p> \n </p><pre> \n </pre><p>\t</p><!----></body></html>\n\n")
    assert soup is not None
    assert [str(s) for s in soup.find_all(string=True)] == ["\n", " \n ", " ", " ", "\n"]


# -- random markup, well formed or not ---------------------------------------------------------------------
NAMES = [
    "html", "head", "body", "title", "meta", "p", "div", "span", "a", "b", "i", "pre", "textarea", "script",
    "style", "template", "ruby", "rt", "rp", "table", "tr", "td", "th", "ul", "ol", "li", "br", "img", "svg",
    "math", "select", "option", "form", "frameset", "noscript", "iframe", "xmp", "plaintext", "P", "Td", "x-y",
]  # fmt: skip
ATTRS = [
    "", ' class="a  b"', " class", ' rel="x y"', ' id="1" id="2"', ' charset="utf-8"',
    ' http-equiv="content-type" content="text/html; charset=latin-1"', " xml:lang='en'", ' xmlns:x="u"',
    ' headers="h1 h2"', " a=b c='d'", ' x="&amp;&lt;&#0;"', " hidden",
]  # fmt: skip
TOKENS = st.one_of(
    st.builds(lambda n, a: f"<{n}{a}>", st.sampled_from(NAMES), st.sampled_from(ATTRS)),
    st.builds(lambda n: f"</{n}>", st.sampled_from(NAMES)),
    st.sampled_from([
        " ", "\n", "  \n\t", "\x0c", "\r\n", "\u00a0", "x", "a b", "&amp;", "&nbsp;", "&#0;", "&#x10FFFF;", "&bogus;",
        "<!---->", "<!-- c -->", "<!-->", "<!--", "<!DOCTYPE html>", "<!doctype html public '-//W3C//DTD HTML 4.01//EN'>",
        "<![CDATA[x]]>", "</html>", "</html> ", "</HTML >", "=", "'", '"', "<", ">", "</", "<br/>", "<p/>", "\x00", "\ufeff", "한", "<a href='x'>",
    ]),
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(TOKENS, max_size=25).map("".join))
@example("</head> <html>")  # each of these once came out differently
@example("<html><html></html> ")
@example("<head><head></html> ")
@example("\xa0<head></html> ")
@example("<html></html> </html>")
@example("\xa0<!--</html> ")
@example("<!DOCTYPE html><p>a</p><!DOCTYPE html>")
@example("\ufeff\ufeff</head> \xa0")
@example(" \ufeff<!DOCTYPE html>")
def test_random_markup_is_copied_exactly_or_declined(text: str) -> None:
    same(text)
