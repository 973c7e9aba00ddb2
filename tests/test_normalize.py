"""Normalization: golden files, the five guarantees (idempotent, noise-stable, faithful, rendering-preserving,
real mirrors), every source kind, language filtering, and bounded handling of bad input."""

from __future__ import annotations

import json
import re
import time
import unicodedata
from collections import Counter
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag
from bs4.element import NavigableString, PreformattedString
from hypothesis import example, given, settings
from hypothesis import strategies as st

from differ.diff.blocks import split_blocks
from differ.errors import NoContentError, NormalizeError
from differ.normalize import html as htmlconv
from differ.normalize.canonical import canonicalize, plain_words, render_html
from differ.normalize.language import block_script, filter_languages
from differ.normalize.platforms import discourse_markdown
from tests.helpers import DATA, REPLAY, norm, pytorch_kr, replay_fetch, source, wpnews
from tests.test_tree import TOKENS

HTML_CASES = sorted((DATA / "html").glob("*.html"))


@pytest.mark.parametrize("page", HTML_CASES, ids=[p.stem for p in HTML_CASES])
def test_html_golden(page: Path) -> None:
    result = norm(page.read_bytes(), source(url="https://example.org/blog/post/"))
    assert result.markdown == page.with_suffix(".md").read_text()


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("canonical-v1", lambda: replay_fetch(1)),
        ("canonical-v2", lambda: replay_fetch(3)),
        ("wpnews", wpnews),
        ("pytorch-kr-en", pytorch_kr),
        ("pytorch-kr-ko", lambda: pytorch_kr(("ko",))),
    ],
)
def test_replay_golden(name: str, make: object) -> None:
    assert make().markdown == (DATA / "replay" / f"{name}.md").read_text()  # type: ignore[operator]


# -- guarantee 1: idempotent ---------------------------------------------------------------------------------
MARKDOWNISH = st.text(alphabet=st.sampled_from(list("ab 12#*_-+>`[]()!\\|\n.:\t~<&é한")), max_size=120)


@settings(max_examples=300, deadline=None)
@given(MARKDOWNISH)
@example("\\~~~")  # mdformat wrote it "~~~", a code fence: found by this property
def test_canonicalize_is_idempotent(text: str) -> None:
    once = canonicalize(text).text
    assert canonicalize(once).text == once


def test_three_tildes_that_begin_a_paragraph_stay_text() -> None:
    """A paragraph, list item or quote that begins with `~~~` keeps it escaped: unescaped it opens a fence."""
    for text in ("\\~~~", "- \\~~~ a", "> \\~~~~", "   \\~~~"):
        out = canonicalize(text).text
        assert render_html(out) == render_html(text) and canonicalize(out).text == out
    assert canonicalize("~~~\ncode\n~~~").text == "```\ncode\n```\n"  # a fence stays a fence


def test_a_nest_of_mixed_emphasis_markers_keeps_them() -> None:
    """`_` cannot open or close inside a word and `*` can: `_1*1*:_` made `*1*1*:*` would render otherwise
    (found by the property tests above)."""
    for text in ("_1*1*:_", "*a _b_ c*"):
        once = canonicalize(text).text
        assert once == text + "\n"
        assert canonicalize(once).text == once
        assert _squash(render_html(once)) == _squash(render_html(text))
    assert canonicalize("__a _b_ c__").text == "**a *b* c**\n"  # one marker throughout: unified as before


@settings(max_examples=200, deadline=None)
@given(MARKDOWNISH)
def test_canonicalize_preserves_rendering(text: str) -> None:
    assert _squash(render_html(canonicalize(text).text)) == _squash(render_html(text))


def test_replay_and_mirrors_are_idempotent() -> None:
    for result in (replay_fetch(1), replay_fetch(3), wpnews(), pytorch_kr()):
        assert canonicalize(result.markdown).text == result.markdown


# -- guarantee 2: noise-stable -------------------------------------------------------------------------------
def test_page_noise_changes_nothing() -> None:
    assert replay_fetch(1).markdown == replay_fetch(2).markdown
    assert replay_fetch(3).markdown == replay_fetch(4).markdown
    assert replay_fetch(1).metadata == replay_fetch(2).metadata


def test_an_articles_own_header_is_read_and_what_a_theme_puts_under_it_is_not() -> None:
    """With no selector: the page's header and navigation go, the article's <header> (its title) stays, less
    its byline (by its theme's names: author and date, which a copy never carries); the comments, share buttons,
    related posts, tags, author's box and a post's footer (its likes and comment counts) under the post go, so a
    new comment is no edit of it. A selector chosen by hand reads all
    it matches."""
    page = (
        "<html><body><header><h1>Example Blog</h1><nav><a href='/'>Home</a></nav></header><article>"
        "<header><div class='article-tag post-card-tags'><a href='/tag/releases/'>Releases</a></div>"
        "<h1>Release 4.2</h1><p>July 1, 2026</p><p class='post-meta'>By Ana · 3 days ago</p>"
        "<div class='entry-meta'><span class='byline'>Ana</span></div></header><p>Release 4.2 is out.</p>"
        "<section><header><h2>What's new</h2></header><p>A scheduler.</p></section>"
        "<div class='sharedaddy sd-sharing-enabled'><a href='https://x.example/share'>Share</a></div>"
        "<div id='comments' class='comments-area'><h3>3 comments</h3><p>Great release!</p></div>"
        "<div class='jp-relatedposts'><p>Release 4.1</p></div><div class='post-tags'><a href='/t/py'>python</a>"
        "</div><div class='author-bio'><p>Ana writes about releases.</p></div><div class='post-footer'><div "
        "class='like-button-container'>42</div><a href='/p/x/comments'>12</a></div></article>"
        "<footer>© Example</footer></body></html>"
    )
    assert norm(page, source()).markdown == (
        "# Release 4.2\n\nJuly 1, 2026\n\nRelease 4.2 is out.\n\n## What's new\n\nA scheduler.\n"
    )
    chosen = norm(page, source(selector="article")).markdown
    assert "Great release!" in chosen and "Release 4.1" in chosen and "3 days ago" in chosen
    assert "python" in chosen and "Ana writes" in chosen
    # the links to the posts before and after it, which the next post published changes, however set
    nav = (
        "<html><body><article><h1>Release 4.2</h1><p>Release 4.2 is out.</p><div class='post-navigation'>"
        "<a href='/4-1/'>← Release 4.1</a><a href='/4-3/'>Release 4.3 →</a></div><div class='related-pages'>"
        "<a class='next-page' href='/4-3/'>Next: Release 4.3</a></div></article></body></html>"
    )
    assert norm(nav, source()).markdown == "# Release 4.2\n\nRelease 4.2 is out.\n"
    # no <article>: the page's body less its furniture, the sidebars beside the post too
    page = (
        "<html><body><div id='secondary' class='widget-area' role='complementary'><p>Recent: Release 4.1</p>"
        "</div><div class='sidebar'><p>Tags: python</p></div><div class='content'><h1>Release 4.2</h1>"
        "<p>Release 4.2 is out.</p><div id='disqus_thread'><p>First!</p></div></div></body></html>"
    )
    assert norm(page, source()).markdown == "# Release 4.2\n\nRelease 4.2 is out.\n"
    # a heading a site generator gave the id of its words is the post's, whatever the words
    page = (
        "<html><body><article><h1>Notes</h1><h2 id='comments'>Comments</h2><p>Send them in, and "
        "<span class='share'>share</span> the post.</p></article></body></html>"
    )
    assert norm(page, source()).markdown == "# Notes\n\n## Comments\n\nSend them in, and share the post.\n"


def test_a_headings_permalink_and_a_footnotes_way_back_are_left_out() -> None:
    """A link to a place on the page that says nothing in words is furniture: a heading's `¶` (Sphinx, MkDocs,
    Python-Markdown), `#` or `§` would name the section "Speed ¶"; a footnote's `↩` and a `↑` to the top go too.
    A heading's words linked to the heading itself are its words (a theme adding such links edits no heading).
    A link to the page's own place with words, or an image, stays; so does a `¶` to another page."""
    page = (
        "<html><body><article><h1>Post</h1>"
        '<h2 id="speed">Speed<a class="headerlink" href="#speed" title="Permanent link">¶</a></h2>'
        '<p>Words. <a href="#top">↑</a></p><h2 id="n"><a href="#n">§</a> Notes <a href="#n"><i></i></a></h2>'
        '<h3 id="linux"><a href="#linux">Linux</a> and <a href="#n">more</a></h3>'
        '<p>See <a href="#speed">the speed section</a>, <a href="#fig"><img alt="Figure 1" src="f.png"></a> '
        'and <a href="https://x.example/#a">¶</a>.</p></article></body></html>'
    )
    assert read_alike(page) == (
        f"# Post\n\n## Speed\n\nWords.\n\n## Notes\n\n### Linux and [more]({_POST}#n)\n\n"
        f"See [the speed section]({_POST}#speed), [![Figure 1]({_POST}f.png)]({_POST}#fig) and "
        "[¶](https://x.example/#a).\n"
    )


_POST = "https://pytorch.org/blog/pytorch-2-13-release-blog/"  # the address source() reads a page at


def read_alike(page: str) -> str:
    """A page's Markdown, read alike with no selector and with `article` chosen by hand."""
    markdown = norm(page, source()).markdown
    assert norm(page, source(selector="article")).markdown == markdown
    return markdown


@pytest.mark.parametrize(
    ("mark", "note"),
    [
        (  # Zola (the Rust blog)
            '<sup class="footnote-reference"><a href="#1">1</a></sup>',
            '<div class="footnote-definition" id="1"><sup class="footnote-definition-label">1</sup>\n'
            "<p>Measured on a laptop.</p></div>",
        ),
        (  # kramdown (Jekyll)
            '<sup id="fnref:1" role="doc-noteref"><a href="#fn:1" class="footnote" rel="footnote">1</a></sup>',
            '<div class="footnotes" role="doc-endnotes"><ol><li id="fn:1"><p>Measured on a laptop.&nbsp;'
            '<a href="#fnref:1" class="reversefootnote" role="doc-backlink">&#8617;</a></p></li></ol></div>',
        ),
        (  # pandoc
            '<a href="#fn1" class="footnote-ref" id="fnref1" role="doc-noteref"><sup>1</sup></a>',
            '<section class="footnotes"><ol><li id="fn1"><p>Measured on a laptop.'
            '<a href="#fnref1" class="footnote-back" role="doc-backlink">↩︎</a></p></li></ol></section>',
        ),
        (  # Wikipedia's brackets
            '<sup class="reference"><a href="#cite_note-1">[1]</a></sup>',
            '<ol class="references"><li id="cite_note-1"><a href="#cite_ref-1">^</a> Measured on a laptop.</li></ol>',
        ),
    ],
    ids=["zola", "kramdown", "pandoc", "wikipedia"],
)
def test_a_footnotes_mark_reads_apart_from_the_word_it_follows(mark: str, note: str) -> None:
    """`faster[1]`, as a reader tells the mark from the word, not `faster1`: the diff of a footnote added says
    `[1]` inserted, not `faster` replaced by `faster1`. A Zola footnote's number leads its text, a paragraph of
    its own no more. A number raised that links nowhere (x², 10<sup>3</sup>) is a number."""
    page = (
        f"<html><body><article><h1>Post</h1><p>Builds are now faster{mark} than before, x<sup>2</sup> too.</p>"
        f"{note}</article></body></html>"
    )
    markdown = norm(page, source()).markdown
    paragraph = markdown.split("\n\n")[1]
    target = re.search(rf"\(({re.escape(_POST)}#[^)]+)\)", paragraph)
    assert target and paragraph == f"Builds are now faster[[1]]({target[1]}) than before, x2 too."
    assert markdown.split("\n\n")[2:] == (
        ["[1] Measured on a laptop.\n"] if "footnote-definition" in note else ["1. Measured on a laptop.\n"]
    )
    assert canonicalize(markdown).text == markdown


_PIP = '<span class="n">pip</span> install torch'
_LINES = ["pip install torch", 'python -c "import torch"']


@pytest.mark.parametrize(
    ("block", "language"),
    [
        (  # Sphinx: Pygments' table, the language on the block around it
            '<div class="highlight-python notranslate"><div class="highlight"><table class="highlighttable"><tr>'
            '<td class="linenos"><div class="linenodiv"><pre><span class="normal">1</span>\n'
            '<span class="normal">2</span></pre></div></td><td class="code"><div><pre><span></span>'
            f'{_PIP}\n<span class="n">python</span> -c <span class="s2">"import torch"</span>\n</pre></div></td>'
            "</tr></table></div></div>",
            "python",
        ),
        (  # MkDocs (pymdownx): numbers that link to each line
            '<div class="language-sh highlight"><table class="highlighttable"><tr><td class="linenos">'
            '<div class="linenodiv"><pre><span></span><span class="normal"><a href="#__codelineno-0-1">1</a></span>\n'
            '<span class="normal"><a href="#__codelineno-0-2">2</a></span></pre></div></td><td class="code"><div>'
            '<pre><span></span><code><a id="__codelineno-0-1" name="__codelineno-0-1"></a>pip install torch\n'
            '<a id="__codelineno-0-2" name="__codelineno-0-2"></a>python -c "import torch"\n</code></pre></div>'
            "</td></tr></table></div>",
            "sh",
        ),
        (  # Hugo: Chroma's numbers inline
            '<div class="highlight"><pre tabindex="0" class="chroma"><code class="language-sh" data-lang="sh">'
            '<span class="line"><span class="ln">1</span><span class="cl">pip install torch\n</span></span>'
            '<span class="line"><span class="ln">2</span><span class="cl">python -c "import torch"\n</span></span>'
            "</code></pre></div>",
            "sh",
        ),
        (  # Hugo: Chroma's table
            '<div class="highlight"><div class="chroma"><table class="lntable"><tr><td class="lntd">'
            '<pre tabindex="0" class="chroma"><code><span class="lnt">1\n</span><span class="lnt">2\n</span>'
            '</code></pre></td><td class="lntd"><pre tabindex="0" class="chroma"><code class="language-sh" '
            'data-lang="sh"><span class="line"><span class="cl">pip install torch\n</span></span>'
            '<span class="line"><span class="cl">python -c "import torch"\n</span></span></code></pre></td></tr>'
            "</table></div></div>",
            "sh",
        ),
        (  # Jekyll: Rouge's table inside the <pre><code> that names the language
            '<figure class="highlight"><pre><code class="language-sh" data-lang="sh"><table class="rouge-table">'
            '<tbody><tr><td class="gutter gl"><pre class="lineno">1\n2\n</pre></td><td class="code"><pre>'
            'pip install torch\npython -c "import torch"\n</pre></td></tr></tbody></table></code></pre></figure>',
            "sh",
        ),
        (  # highlight.js's line numbers: a row a line, the numbers drawn by CSS
            '<pre><code class="hljs language-sh"><table class="hljs-ln"><tbody><tr><td class="hljs-ln-line '
            'hljs-ln-numbers" data-line-number="1"><div class="hljs-ln-n" data-line-number="1"></div></td>'
            '<td class="hljs-ln-line hljs-ln-code" data-line-number="1">pip install torch</td></tr><tr>'
            '<td class="hljs-ln-line hljs-ln-numbers" data-line-number="2"><div class="hljs-ln-n" '
            'data-line-number="2"></div></td><td class="hljs-ln-line hljs-ln-code" data-line-number="2">'
            'python -c "import torch"</td></tr></tbody></table></code></pre>',
            "sh",
        ),
    ],
    ids=["sphinx", "mkdocs", "hugo-inline", "hugo-table", "rouge", "highlightjs"],
)
def test_code_set_beside_its_line_numbers_is_read_as_the_code_alone(block: str, language: str) -> None:
    """Line numbers are no words of the code: read as a table (or glued to each line, `1pip install`), a line put
    in at the top edited every number after it, and the audit found no commands in the code to check."""
    page = f"<html><body><article><h1>Post</h1><p>Install:</p>{block}<p>Done.</p></article></body></html>"
    code = "\n".join(_LINES)
    assert read_alike(page) == f"# Post\n\nInstall:\n\n```{language}\n{code}\n```\n\nDone.\n"


@pytest.mark.parametrize(
    "contents",
    [
        '<div id="ez-toc-container" class="ez-toc-v2_0"><div class="ez-toc-title-container">'
        '<p class="ez-toc-title">Table of Contents</p></div><nav><ul class="ez-toc-list"><li>'
        '<a class="ez-toc-link" href="#install">Install</a></li><li><a href="#notes">Notes</a></li></ul></nav></div>',
        '<ul id="markdown-toc"><li><a href="#install" id="markdown-toc-install">Install</a></li>'
        '<li><a href="#notes" id="markdown-toc-notes">Notes</a></li></ul>',
        '<nav class="contents" id="contents" role="doc-toc"><p class="topic-title">Contents</p><ul><li>'
        '<a href="#install">Install</a></li><li><a href="#notes">Notes</a></li></ul></nav>',
        '<ol>\n<li><a href="#install">Install</a>\n<ul><li><a href="#linux">Linux</a></li></ul></li>\n'
        '<li><a href="#notes">Notes</a></li>\n</ol>',
    ],
    ids=["easy-toc", "kramdown", "docutils", "unnamed"],
)
def test_a_table_of_contents_is_left_out(contents: str) -> None:
    """A table of contents repeats the headings: a heading edited was two changes, and a copy without it was told
    it misses it. Left out by its usual names, its role, or its shape (a list of links to places on the page and
    nothing else), with or without a selector; a list of links with words of their own stays."""
    page = (
        f"<html><body><article><h1>Release 4.2</h1>{contents}<h2 id='install'>Install</h2><p>Run it.</p>"
        "<h2 id='notes'>Notes</h2><ul><li><a href='#install'>Install</a> first, then</li>"
        "<li><a href='#notes'>read</a>.</li></ul></article></body></html>"
    )
    assert read_alike(page) == (
        "# Release 4.2\n\n## Install\n\nRun it.\n\n## Notes\n\n"
        f"- [Install]({_POST}#install) first, then\n- [read]({_POST}#notes).\n"
    )
    # named by differ fetch as what was left out (with no selector, a <nav> goes as the page's navigation)
    assert " less the theme's <" in norm(page, source(selector="article")).root


def test_an_emoji_drawn_as_an_image_reads_as_the_emoji() -> None:
    """Discourse and WordPress draw an emoji as an image whose address changes with the site's software
    (`tada.png?v=12` → `?v=13`, `/emoji/15.0.3/` → `/16.0.1/`): each upgrade was an edit of every post with one.
    Read as its alt text; any other image stays an image."""

    def page(version: str) -> str:
        return (
            "<html><body><article><h1>Post</h1><p>Shipped <img src='https://discuss.example.org/images/emoji/"
            f"twitter/tada.png?v={version}' title=':tada:' class='emoji' alt=':tada:'> and "
            f"<img draggable='false' role='img' class='emoji' alt='🎉' src='https://s.w.org/images/core/emoji/"
            f"{version}/svg/1f389.svg'>, <img class='wp-smiley' alt=':)' src='/smilies/{version}.png'> and "
            "<img src='x.png' alt='a diagram'>.</p></article></body></html>"
        )

    assert read_alike(page("12")) == f"# Post\n\nShipped :tada: and 🎉, :) and ![a diagram]({_POST}x.png).\n"
    assert read_alike(page("13")) == read_alike(page("12"))


def test_an_image_loaded_by_a_script_reads_as_the_image() -> None:
    """A lazily loaded image (its `src` a placeholder, the image in `data-src`, `data-lazy-src` or
    `data-original`) reads as the same image loaded at once: a theme that takes lazy loading up changes nothing."""
    placeholder = "data:image/gif;base64,R0lGODlhAQABAAAAACw="
    lazy = [
        f'<img src="{placeholder}" data-src="chart.png" alt="A chart">',
        '<img data-lazy-src="chart.png" alt="A chart">',
        f'<img class="lazy" src="{placeholder}" data-original="chart.png" alt="A chart">',
    ]
    for image in ['<img src="chart.png" alt="A chart">', *lazy]:
        page = f"<html><body><article><h1>Post</h1><p>See {image}.</p></article></body></html>"
        assert read_alike(page) == f"# Post\n\nSee ![A chart]({_POST}chart.png).\n"


def test_a_dated_line_in_an_articles_header_is_its_byline_however_named() -> None:
    """Docusaurus names its blog post's parts by hashed classes: the dated line under the title (`July 8, 2026 ·
    5 min read`, a new reading time with an edit) is its byline for holding a <time> in a few words, and the
    author's card goes by its `avatar`. A dated line in the post itself, and a header's words without a date,
    stay; a selector chosen by hand reads all it matches."""
    page = (
        "<html><body><nav><a href='/'>Home</a></nav><main><article><header><h1>Release 4.2</h1>"
        "<div class='container_mt6G'><time datetime='2026-07-08'>July 8, 2026</time> · 5 min read</div>"
        "<div class='row'><div class='avatar'><a href='https://github.com/ana'>Ana</a><small>Maintainer</small>"
        "</div></div><p>What's new in 4.2.</p></header><div class='markdown'><p>Release 4.2 is out on "
        "<time datetime='2026-07-08'>July 8</time>.</p></div></article></main></body></html>"
    )
    assert norm(page, source()).markdown == (
        "# Release 4.2\n\nWhat's new in 4.2.\n\nRelease 4.2 is out on July 8.\n"
    )
    assert "5 min read" in norm(page, source(selector="article")).markdown


def test_the_time_a_post_takes_to_read_is_left_out() -> None:
    """Worked out from the post's words by its theme, or by a plugin inside the post (Reading Time WP), the
    reading time changes when a sentence is added: no words of the post, with or without a selector."""
    page = (
        "<html><body><article><h1>Post</h1><p class='reading-time'>5 min read</p><p>"
        "<span class='span-reading-time rt-reading-time'><span class='rt-label'>Reading Time: </span>"
        "<span class='rt-time'>3</span> minutes</span> Release 4.2 is out.</p></article></body></html>"
    )
    assert read_alike(page) == "# Post\n\nRelease 4.2 is out.\n"
    wiki = (  # MediaWiki's [edit] beside a heading: not its words
        "<html><body><article><h1>Post</h1><h2><span class='mw-headline' id='Install'>Install</span>"
        "<span class='mw-editsection'><span class='mw-editsection-bracket'>[</span><a href='/w/index.php?"
        "title=Post&amp;action=edit&amp;section=1'>edit</a><span class='mw-editsection-bracket'>]</span></span>"
        "</h2><p>Run it.</p></article></body></html>"
    )
    assert read_alike(wiki) == "# Post\n\n## Install\n\nRun it.\n"
    views = (  # Post Views Counter's, put into the post's own content: each reader changes it
        "<html><body><article><h1>Post</h1><div class='entry-content'><p>Release 4.2 is out.</p>"
        "<div class='post-views content-post post-12 entry-meta'><span class='post-views-label'>Post Views:</span>"
        "<span class='post-views-count'>1,234</span></div></div></article></body></html>"
    )
    assert read_alike(views) == "# Post\n\nRelease 4.2 is out.\n"
    assert norm(views, source(selector=".entry-content")).markdown == "Release 4.2 is out.\n"


@pytest.mark.parametrize(
    "dated",
    [
        '<div class="td-page-meta__lastmod">Last modified July 8, 2026: <a href="https://github.com/o/r/commit/'
        'abc123">Fix typo (abc123)</a></div>',  # Docsy
        '<aside class="md-source-file"><span class="md-source-file__fact"><span class="git-revision-date-'
        'localized-plugin git-revision-date-localized-plugin-date">July 8, 2026</span></span></aside>',  # Material
        '<footer class="theme-doc-footer"><div class="row"><div class="col"><span class="theme-last-updated">'
        "Last updated on <b><time>Jul 8, 2026</time></b></span></div></div></footer>",  # Docusaurus
    ],
    ids=["docsy", "mkdocs-material", "docusaurus"],
)
def test_the_date_a_documentation_generator_reads_from_git_is_left_out(dated: str) -> None:
    """A commit that changes nothing a reader sees moves it, with or without a selector."""
    page = (
        f"<html><body><article><h1>Release 4.2</h1><p>Release 4.2 is out.</p>{dated}</article></body></html>"
    )
    assert read_alike(page) == "# Release 4.2\n\nRelease 4.2 is out.\n"


def test_a_code_blocks_language_named_by_the_block_around_it() -> None:
    """GitHub names a code block's language on the block around its <pre> (`highlight-source-shell`), Sphinx on
    the one around that (`highlight-python`, but `highlight-default` names none): the fence says it."""
    blocks = {
        "shell": '<div class="highlight highlight-source-shell notranslate"><pre>pip install x</pre></div>',
        "python": '<div class="highlight-python notranslate"><div class="highlight"><pre>pip install x</pre></div></div>',
        "": '<div class="highlight-default notranslate"><div class="highlight"><pre>pip install x</pre></div></div>',
        "ruby": '<div class="language-ruby highlighter-rouge"><div class="highlight"><pre class="highlight"><code>'
        "pip install x</code></pre></div></div>",  # Jekyll's, with kramdown and Rouge
        "sh": '<div class="language-sh highlight"><pre><span></span><code>pip install x</code></pre></div>',
    }
    for language, block in blocks.items():
        page = f"<html><body><article><h1>Post</h1>{block}</article></body></html>"
        assert read_alike(page) == f"# Post\n\n```{language}\npip install x\n```\n"


def test_a_code_blocks_language_as_its_own_elements_name_it() -> None:
    """However a highlighter names the language on the code itself; a class that only starts like a language's,
    a `lang-` around the code (the page's tongue, more likely) and the three blocks up name none."""
    pandoc = '<pre class="sourceCode numberSource python numberLines"><code class="sourceCode python">x</code></pre>'
    blocks = [
        ("python", pandoc),
        ("perl", '<pre class="brush: perl; gutter: false">x</pre>'),  # SyntaxHighlighter's, in WordPress
        ("bash", '<pre class="brush:bash;">x</pre>'),
        ("ts", '<pre class="astro-code" data-language="ts"><code>x</code></pre>'),  # Shiki's, in Astro
        ("go", '<pre><code class="lang-go">x</code></pre>'),  # Discourse's
        ("c", '<pre class="prism-code language-c"><code>x</code></pre>'),
        ("", '<pre class="highlighted">x</pre>'),
        ("", '<div class="lang-ko"><pre>x</pre></div>'),
        ("", '<div class="language-python"><div><div><pre>x</pre></div></div></div>'),
    ]
    for language, block in blocks:
        page = f"<html><body><article><h1>Post</h1>{block}</article></body></html>"
        assert read_alike(page) == f"# Post\n\n```{language}\nx\n```\n", block


def test_a_table_of_numbered_rows_stays_a_table() -> None:
    """A table whose first column counts its rows is not code beside its line numbers: no cell holds a <pre>."""
    page = (
        "<html><body><article><h1>Post</h1><table><tr><td>1</td><td>Faster builds</td></tr>"
        "<tr><td>2</td><td>Smaller wheels</td></tr></table></article></body></html>"
    )
    assert norm(page, source()).markdown == (
        "# Post\n\n| 1 | Faster builds |\n| -- | -- |\n| 2 | Smaller wheels |\n"
    )


def test_fetch_1_and_3_differ_only_where_the_article_did() -> None:
    import difflib

    ours = list(
        difflib.unified_diff(
            replay_fetch(1).markdown.splitlines(), replay_fetch(3).markdown.splitlines(), n=0, lineterm=""
        )
    )[2:]
    v1 = canonicalize((REPLAY / "canonical/v1.md").read_text()).text
    v2 = canonicalize((REPLAY / "canonical/v2.md").read_text()).text
    source_diff = list(difflib.unified_diff(v1.splitlines(), v2.splitlines(), n=0, lineterm=""))[2:]
    changed = [line for line in ours if line[:1] in "+-"]
    assert changed == [line for line in source_diff if line[:1] in "+-"]


# -- guarantee 3: faithful -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("fetch", "body"), [(1, "v1.md"), (3, "v2.md")])
def test_same_words_in_the_same_order_as_the_article(fetch: int, body: str) -> None:
    ours = replay_fetch(fetch).markdown
    article = (REPLAY / "canonical" / body).read_text()
    # Whitespace inside link text is placed outside the link (",[ #174716]" reads ", #174716"): compare the
    # visible text with whitespace removed, and the word lists otherwise.
    assert "".join(plain_words(ours)) == "".join(plain_words(article))
    assert _structure(ours) == _structure(article)
    for noise in ("cookies", "Related posts", "Page generated", "Blog & News", "Share", "Privacy Policy"):
        assert noise not in ours


def _structure(markdown: str) -> list[str]:
    """Heading levels, list items and code blocks, in order."""
    html = render_html(markdown)
    return re.findall(r"<(h[1-6]|li|pre)\b", html)


def _squash(html: str) -> str:
    return re.sub(r"\s+", "", html)


# -- guarantee 4: rendering-preserving on the CommonMark spec ------------------------------------------------
SPEC = json.loads((DATA / "commonmark" / "spec.json").read_text())
KNOWN_EXCEPTIONS: dict[int, str] = {}  # example number → why (none at present; see README)


@pytest.mark.parametrize("example", SPEC, ids=[f"ex{e['example']}" for e in SPEC])
def test_commonmark_spec_rendering_is_preserved(example: dict[str, object]) -> None:
    markdown = str(example["markdown"])
    canonical = canonicalize(markdown).text
    if example["example"] in KNOWN_EXCEPTIONS:
        pytest.xfail(KNOWN_EXCEPTIONS[int(example["example"])])  # type: ignore[arg-type]
    assert _squash(render_html(canonical)) == _squash(render_html(markdown))
    assert canonicalize(canonical).text == canonical


# -- guarantee 5: real mirrors -------------------------------------------------------------------------------
def test_wpnews_normalizes_without_loss() -> None:
    body = json.loads((REPLAY / "mirrors/wpnews.json").read_text())["body_md"]
    result = wpnews()
    assert "".join(plain_words(result.markdown)) == "".join(plain_words(body))
    assert result.metadata == {
        "title": "PyTorch 2.13 Release Blog",
        "updated_at": "2026-07-08 17:58:15.407086+00:00",
    }


def test_korean_repost_splits_into_its_two_halves_without_loss() -> None:
    text = (REPLAY / "mirrors/pytorch-kr.txt").read_text()
    en, ko = pytorch_kr(("en",)).markdown, pytorch_kr(("ko",)).markdown
    both = pytorch_kr(None).markdown
    assert "".join(plain_words(both)) == "".join(text.split())
    assert not re.search("[가-힣]", en)
    assert "성능 개선" in ko and "Performance Improvements" not in ko
    assert "Performance Improvements" in en
    # Every English line of the repost is in the English half, and no Korean line is.
    en_text = " ".join(plain_words(en))
    for line in text.splitlines():
        if line.strip() and block_script(line) == "Latin" and " / " not in line:
            assert " ".join(line.split()) in en_text


def test_english_half_and_canonical_differ_only_as_the_manifest_says() -> None:
    from differ.diff import diff

    d = diff(replay_fetch(3).markdown, pytorch_kr().markdown)
    texts = [(c.kind, c.before or c.after) for c in d.changes]
    assert ("removed", "Large MPS Op Migration to Native Metal") in texts
    assert all("Prototype" not in (c.after or "") for c in d.changes)


# -- kinds ---------------------------------------------------------------------------------------------------
def test_json_field_paths_and_formats() -> None:
    doc = json.dumps({"data": {"content": "<p>Hello <b>world</b></p>", "title": "T"}, "n": [1]})
    result = norm(
        doc,
        source("json", field="data.content", format="html", metadata=("data.title", "n.0")),
        "application/json",
    )
    assert result.markdown == "Hello **world**\n"
    assert result.metadata == {"data.title": "T", "n.0": 1}


def test_a_json_field_of_html_is_read_as_html_unless_format_says() -> None:
    """A CMS's rendered content is HTML: read as a page is (its words counted, its markup gone), where read as
    Markdown it was raw HTML blocks of no words. Markdown with an HTML block or two stays Markdown; `format`
    decides when given."""
    rendered = (
        "<p>We are <strong>excited</strong> to announce 2.13.</p>\n<h2>Features</h2>\n<ul><li>One</li></ul>\n"
    )
    doc = json.dumps({"content": {"rendered": rendered}})
    result = norm(doc, source("json", field="content.rendered"), "application/json")
    assert result.markdown == "We are **excited** to announce 2.13.\n\n## Features\n\n- One\n"
    assert result.root == 'field "content.rendered", which holds HTML'
    markdown = (
        '<p align="center"><img src="logo.png"></p>\n\n# Release 2.13\n\nWe are **excited**.\n\n'
        "<details>\n<summary>Full list</summary>\n\n- One\n\n</details>\n\nSee the notes.\n"
    )
    result = norm(json.dumps({"body": markdown}), source("json", field="body"), "application/json")
    assert "# Release 2.13" in result.markdown and result.root == 'field "body", which holds Markdown'
    forced = norm(doc, source("json", field="content.rendered", format="markdown"), "application/json")
    assert (
        forced.markdown.startswith("<p>We are <strong>excited</strong>")
        and forced.root == 'field "content.rendered"'
    )


def test_a_json_source_naming_no_metadata_keeps_the_title_and_dates_at_its_top() -> None:
    """However an API spells a title or a date; a counter, a flag, a list, an object or a nested date is not kept,
    nor anything when the document is not an object; named fields are kept as named, a missing one as null."""
    doc = {
        "title": "PyTorch 2.13", "updated_at": "2026-07-08 17:58", "dateModified": "2026-07-08", "pubDate": "Wed",
        "last-modified": 1783532295, "date_created": "2026-07-07", "views": 10, "is_updated": True,
        "updated": False, "tags": ["release"], "data": {"updated_at": "x"}, "subtitle": "s", "body": "Text.",
    }  # fmt: skip
    result = norm(json.dumps(doc), source("json", field="body"), "application/json")
    assert result.metadata == {
        "title": "PyTorch 2.13", "updated_at": "2026-07-08 17:58", "dateModified": "2026-07-08", "pubDate": "Wed",
        "last-modified": 1783532295, "date_created": "2026-07-07",
    }  # fmt: skip
    named = source("json", field="body", metadata=("views", "gone"))
    assert norm(json.dumps(doc), named, "application/json").metadata == {"views": 10, "gone": None}
    listed = source("json", field="0.body")
    assert norm(json.dumps([doc]), listed, "application/json").metadata == {}


def test_a_lone_surrogate_in_json_is_a_replacement_character_not_an_error() -> None:
    """JSON may escape half of a surrogate pair (`\\ud800`), which is no character and cannot be stored or
    printed as UTF-8: it reads as U+FFFD, as a browser shows it; a whole pair stays the character it makes, and
    a backslash written out stays text. Body, metadata and keys alike."""
    doc = r'{"body_md": "A \ud800 and \ud83d\ude00 and \\ud800.", "t\udc00": "x\udfff", "n": ["\ud800"]}'
    result = norm(doc, source("json", field="body_md", metadata=("t\ufffd", "n")), "application/json")
    assert result.markdown == "A \ufffd and \U0001f600 and \\\\ud800.\n"
    assert result.metadata == {"t\ufffd": "x\ufffd", "n": ["\ufffd"]}
    result.markdown.encode()  # UTF-8 all through


def test_a_json_metadata_field_of_too_many_values_is_compared_by_its_digest() -> None:
    """A field of 200,000 values took 10 s and 480 MB to compare (deepdiff) and was stored with every version:
    past the front matter's 10,000 values a field is kept as its digest, with a warning; NaN is kept as text,
    since it never equals itself."""
    from differ.diff import diff

    kind = source("json", field="body", metadata=("tags", "n", "odd"))
    big = {"body": "Hello.", "tags": list(range(20_000)), "n": [1, 2], "odd": float("nan")}
    first = norm(json.dumps(big), kind, "application/json")
    assert set(first.metadata["tags"]) == {"sha256"} and first.metadata["n"] == [1, 2]
    assert first.metadata["odd"] == "nan"
    assert first.warnings == ['metadata field "tags" holds more than 10,000 values: compared by its digest']
    big["tags"][12_345] = -1
    second = norm(json.dumps(big), kind, "application/json")
    assert second.metadata["tags"] != first.metadata["tags"] and second.metadata["n"] == first.metadata["n"]
    assert norm(json.dumps(big), kind, "application/json").metadata == second.metadata
    changes = diff(first.markdown, second.markdown, a_meta=first.metadata, b_meta=second.metadata).metadata
    assert [c["field"] for c in changes] == ["tags.sha256"]
    assert diff(first.markdown, first.markdown, a_meta=first.metadata, b_meta=first.metadata).metadata == []


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ('{"a": 1}', 'field "body_md" is missing from the JSON document (no "body_md")'),
        ('{"body_md": 5}', 'field "body_md" holds int, expected a string'),
        (  # where the body is likely to be, longest first
            '{"data": {"content": "A long body of text.", "title": "Post", "tags": ["a", "bb"]}, "id": "x1"}',
            'field "body_md" is missing from the JSON document (no "body_md"); its longest text fields: '
            "data.content (20 characters), data.title (4 characters), data.tags.1 (2 characters)",
        ),
        (
            '{"body_md": {"raw": "Text"}, "n": 1}',
            'field "body_md" holds dict, expected a string; its longest text fields: body_md.raw (4 characters)',
        ),
        (
            "{not json",
            "not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
        ("", "empty body"),
    ],
)
def test_json_bad_input(doc: str, message: str) -> None:
    with pytest.raises(NormalizeError) as info:
        norm(doc, source("json", field="body_md"), "application/json")
    assert str(info.value) == message


def test_a_json_source_known_from_the_store_alone_says_it_has_no_field_to_read() -> None:
    """A store read without its configuration knows a source's kind, not its options: read again, a JSON
    document is a page that does not read (its stored Markdown stands), not an internal error."""
    with pytest.raises(NormalizeError) as info:
        norm('{"body_md": "Text of the post."}', source("json"), "application/json")
    assert str(info.value) == "no field named to read; its longest text fields: body_md (17 characters)"
    assert info.value.read_with == {"field": "body_md"}


def test_wordpress_and_discourse_kinds() -> None:
    from differ.normalize.platforms import DiscourseKind, WordPressKind

    wp = source("wordpress", url="https://pytorch.org/blog/pytorch-2-13-release-blog/")
    assert WordPressKind.fetch_url(wp) == (
        "https://pytorch.org/wp-json/wp/v2/posts?slug=pytorch-2-13-release-blog"
        "&_fields=id%2Cslug%2Clink%2Ctitle%2Ccontent%2Cdate_gmt%2Cmodified_gmt"
    )
    api = [
        {
            "link": "https://pytorch.org/blog/x/",
            "title": {"rendered": "PyTorch &#8211; 2.13"},
            "content": {"rendered": '<p>See<a href="/docs/"> docs</a></p>'},
            "modified_gmt": "2026-07-08T20:51:09",
        }
    ]
    result = norm(json.dumps(api), wp, "application/json")
    assert result.markdown == "See [docs](https://pytorch.org/docs/)\n"
    assert result.metadata == {"title": "PyTorch – 2.13", "modified_gmt": "2026-07-08T20:51:09Z"}
    with pytest.raises(NormalizeError, match='no WordPress post with slug "pytorch-2-13-release-blog"'):
        norm("[]", wp, "application/json")
    dc = source("discourse", url="https://discuss.pytorch.kr/t/pytorch-2-13/9876")
    assert DiscourseKind.fetch_url(dc) == "https://discuss.pytorch.kr/t/9876.json?include_raw=1"
    topic = {
        "title": "PyTorch 2.13",
        "post_stream": {
            "posts": [{"raw": "# Hi\n\nText", "version": 3, "updated_at": "2026-07-09T09:33:00Z"}]
        },
    }
    result = norm(json.dumps(topic), dc, "application/json")
    assert result.markdown == "# Hi\n\nText\n"
    assert result.metadata == {"version": 3, "updated_at": "2026-07-09T09:33:00Z", "title": "PyTorch 2.13"}
    for odd in ({"post_stream": {"posts": ["# Hi"]}}, {"post_stream": {"posts": {"0": {}}}}, [topic]):
        with pytest.raises(NormalizeError, match=r"^Discourse topic JSON has no post_stream.posts\[0\]$"):
            norm(json.dumps(odd), dc, "application/json")
    # a post read empty is a failure, told, not a version with every passage removed
    empty = {"post_stream": {"posts": [{"raw": "[details]\n[/details]\n"}]}}
    with pytest.raises(NoContentError, match=r"^the Discourse post has no text \(its raw Markdown\)$"):
        norm(json.dumps(empty), dc, "application/json")
    api[0]["content"] = {"rendered": "<p> </p>"}
    with pytest.raises(NoContentError, match=r"^the WordPress post has no text \(content.rendered\)$"):
        norm(json.dumps(api), wp, "application/json")


_DISCOURSE_RAW = """PyTorch 2.13 is out.

![release chart|690x388, 50%](upload://aBcDeF.png)

[details="Release notes"]
Every change is listed.
```
[details="in code, as it is"]
```
[/details]

[quote="alice, post:3, topic:12"]
Builds got faster.

[quote="bob, post:1, topic:12"]
Much faster.
[/quote]
[/quote]

[poll type=regular results=always]
* Yes
* No
[/poll]

https://pytorch.org/blog/pytorch-2-13-release-blog/

Thanks, [spoiler]everyone[/spoiler]."""


def test_a_discourse_posts_own_markdown_reads_as_its_page_shows_it() -> None:
    """An image's size after its alt text, a collapsed block's tags (its summary a paragraph over what it
    hides), a quoted post's (a block quote), a poll's and a spoiler's: as Discourse's page shows the post, so a
    copy of the post is not told it lacks `|690x388` or `[details=…]`; code is left as it is."""
    dc = source("discourse", url="https://discuss.pytorch.kr/t/pytorch-2-13/9876")
    topic = {"post_stream": {"posts": [{"raw": _DISCOURSE_RAW, "version": 2}]}}
    assert norm(json.dumps(topic), dc, "application/json").markdown == (
        "PyTorch 2.13 is out.\n\n![release chart](upload://aBcDeF.png)\n\nRelease notes\n\n"
        'Every change is listed.\n\n```\n[details="in code, as it is"]\n```\n\n'
        "> Builds got faster.\n>\n> > Much faster.\n\n- Yes\n- No\n\n<https://pytorch.org/blog/pytorch-2-13-release-blog/>\n\n"
        "Thanks, everyone.\n"
    )


@given(
    st.lists(
        st.sampled_from(
            ['[details="x"]', "[/quote]", "[quote]", "![a|1x2](u)", "https://x.org/", " ", "\n", "a"]
        ),
        max_size=12,
    ).map("".join)
)
def test_a_discourse_posts_code_is_left_as_it_is(code: str) -> None:
    """Whatever a fenced block holds (tags, sized images, links alone on a line) reads as it is written."""
    code = code.replace("`", "").replace("~", "")
    raw = f'[details="Notes"]\n```\n{code}\n```\n[/details]'
    assert f"```\n{code}\n```" in discourse_markdown(raw)


def test_a_discourse_posts_quotes_within_quotes_are_shown_eight_deep() -> None:
    """Quotes nested past what a reader follows read as the eighth: a post of 5,000 is read, not refused as too
    large (each line would carry 5,000 `> `)."""
    deep = "[quote]\n" * 5000 + "Words.\n" + "[/quote]\n" * 5000 + "After."
    read = discourse_markdown(deep)
    assert "\n" + "> " * 8 + "Words.\n" in read and read.endswith("\nAfter.") and len(read) < 100_000


_DISCOURSE_COOKED = (
    "<html><body><article><p>PyTorch 2.13 is out.</p>"
    '<p><div class="lightbox-wrapper"><a class="lightbox" href="/uploads/original/a.png"><img src="/uploads/a.png" '
    'alt="release chart"><div class="meta"><span class="filename">release chart</span>'
    '<span class="informations">1280×720 45.2 KB</span></div></a></div></p>'
    "<details><summary>Release notes</summary><p>Every change is listed.</p>"
    '<pre><code>[details="in code, as it is"]</code></pre></details>'
    '<aside class="quote no-group" data-username="alice" data-post="3" data-topic="12"><div class="title">'
    '<img alt="" src="/user_avatar/alice.png" class="avatar"> alice:</div><blockquote><p>Builds got faster.</p>'
    '<aside class="quote" data-username="bob" data-post="1" data-topic="12"><div class="title">bob:</div>'
    "<blockquote><p>Much faster.</p></blockquote></aside></blockquote></aside>"
    '<div class="poll"><ul><li data-poll-option-id="1">Yes</li><li data-poll-option-id="2">No</li></ul>'
    '<div class="poll-info"><p><span class="info-number">12</span><span class="info-label">voters</span></p></div>'
    "</div>"
    '<aside class="onebox allowlistedgeneric" data-onebox-src="https://pytorch.org/blog/pytorch-2-13-release-blog/">'
    '<header class="source"><a href="https://pytorch.org/blog/pytorch-2-13-release-blog/">pytorch.org</a></header>'
    '<article class="onebox-body"><h3><a href="https://pytorch.org/blog/pytorch-2-13-release-blog/">PyTorch 2.13 '
    "Release Blog</a></h3><p>We are excited to announce the release of PyTorch 2.13.</p></article></aside>"
    '<p>Thanks, <span class="spoiler">everyone</span>.</p></article></body></html>'
)


def test_a_discourse_posts_page_reads_as_its_raw_markdown() -> None:
    """The post's page, as a feed of its category or a copy carries it: a link's preview is the link (the
    linked page's title and description change with that page), a quoted post its quote, the line under an image
    and a poll's count of voters (each vote changes it) gone; so the page and the raw Markdown audit alike."""
    from differ.audit import audit_pair

    page = norm(_DISCOURSE_COOKED, source()).markdown
    assert norm(_DISCOURSE_COOKED, source(selector="article")).markdown == page
    assert page == (
        "PyTorch 2.13 is out.\n\n[![release chart](https://pytorch.org/uploads/a.png)]"
        "(https://pytorch.org/uploads/original/a.png)\n\nRelease notes\n\nEvery change is listed.\n\n"
        '```\n[details="in code, as it is"]\n```\n\n> Builds got faster.\n>\n> > Much faster.\n\n- Yes\n- No\n\n'
        "[https://pytorch.org/blog/pytorch-2-13-release-blog/](https://pytorch.org/blog/pytorch-2-13-release-blog/)"
        "\n\nThanks, everyone.\n"
    )
    dc = source("discourse", url="https://discuss.pytorch.kr/t/pytorch-2-13/9876")
    topic = {"post_stream": {"posts": [{"raw": _DISCOURSE_RAW, "version": 2}]}}
    raw = norm(json.dumps(topic), dc, "application/json").markdown
    assert audit_pair(raw, page) == (1.0, [])


def test_a_discourse_posts_dates_read_as_their_author_set_them_on_its_page_and_in_its_markdown() -> None:
    """A date Discourse shows in each reader's time zone is, on its page, the time in UTC and, in the post's own
    Markdown, a `[date=…]` tag; both read as the author set it, so the page and the post read alike. A tag in code,
    or one that names no date, is left as written."""
    raw = (
        'Live Q&A on [date=2026-07-22 time=18:00:00 timezone="America/Los_Angeles"], not `[date=2026-01-01]`.\n\n'
        '[date-range from=2026-06-06T14:00:00 to=2026-06-07T14:30:00 timezone="Europe/Paris"]\n\n'
        "Out on [date=2026-07-08], at [date=2026-07-08 time=9:05] at the latest; [date=soon] [date time=10:00]\n"
    )
    page = (
        '<html><body><article><p>Live Q&amp;A on <span data-date="2026-07-22" data-time="18:00:00" '
        'class="discourse-local-date" data-timezone="America/Los_Angeles" data-email-preview="2026-07-23T01:00:00Z '
        'UTC">2026-07-23T01:00:00Z</span>, not <code>[date=2026-01-01]</code>.</p><p><span data-date="2026-06-06" '
        'data-time="14:00:00" class="discourse-local-date" data-range="from" data-timezone="Europe/Paris">'
        '2026-06-06T12:00:00Z</span>→<span data-date="2026-06-07" data-time="14:30:00" class="discourse-local-date" '
        'data-range="to" data-timezone="Europe/Paris">2026-06-07T12:30:00Z</span></p><p>Out on <span '
        'class="discourse-local-date" data-date="2026-07-08">2026-07-08</span>, at <span class="discourse-local-date" '
        'data-date="2026-07-08" data-time="9:05">2026-07-08T09:05:00Z</span> at the latest; [date=soon] '
        "[date time=10:00]</p></article></body></html>"
    )
    read = (
        "Live Q&A on 2026-07-22 18:00 (America/Los_Angeles), not `[date=2026-01-01]`.\n\n"
        "2026-06-06 14:00 (Europe/Paris)→2026-06-07 14:30 (Europe/Paris)\n\n"
        "Out on 2026-07-08, at 2026-07-08 9:05 (UTC) at the latest; [date=soon] [date time=10:00]\n"
    )
    dc = source("discourse", url="https://discuss.pytorch.kr/t/pytorch-2-13/9876")
    topic = {"post_stream": {"posts": [{"raw": raw, "version": 2}]}}
    assert norm(json.dumps(topic), dc, "application/json").markdown == read
    assert norm(page, source()).markdown == read
    assert discourse_markdown("```\n[date=2026-07-22]\n```") == "```\n[date=2026-07-22]\n```"


@given(
    st.dates(),
    st.none() | st.times().map(lambda t: t.strftime(["%H:%M:%S", "%H:%M", "%-H:%M"][t.second % 3])),
    st.none() | st.sampled_from(["America/Los_Angeles", "Asia/Seoul", "Europe/Paris"]),
    st.text(st.characters(whitelist_categories=["L", "N"]), min_size=1, max_size=12),
)
def test_a_discourse_date_reads_alike_on_its_page_and_in_its_markdown(
    day: object, time: str | None, zone: str | None, words: str
) -> None:
    """Whatever date, time and zone the author set, the post's Markdown and its page read the same."""
    attrs = f"date={day}" + (f" time={time}" if time else "") + (f' timezone="{zone}"' if zone else "")
    span = f'<span class="discourse-local-date" data-date="{day}"'
    span += (f' data-time="{time}"' if time else "") + (f' data-timezone="{zone}"' if zone else "")
    span += ">2026-07-23T01:00:00Z</span>"
    dc = source("discourse", url="https://discuss.pytorch.kr/t/pytorch-2-13/9876")
    topic = {"post_stream": {"posts": [{"raw": f"{words} [{attrs}] {words}", "version": 2}]}}
    raw = norm(json.dumps(topic), dc, "application/json").markdown
    page = norm(
        f"<html><body><article><p>{words} {span} {words}</p></article></body></html>", source()
    ).markdown
    assert raw == page and str(day) in raw and "[date" not in raw


def test_the_line_discourse_sets_under_an_image_is_left_out() -> None:
    """The file's name, size and bytes under an image Discourse enlarges change with the file, not the post."""
    page = (
        '<html><body><article><h1>Post</h1><div class="lightbox-wrapper"><a class="lightbox" href="/o/a.png">'
        '<img src="/s/a.png" alt="chart"><div class="meta"><span class="filename">chart</span>'
        '<span class="informations">1280×720 45.2 KB</span></div></a></div></article></body></html>'
    )
    assert read_alike(page) == f"# Post\n\n[![chart]({_POST[:19]}/s/a.png)]({_POST[:19]}/o/a.png)\n"


def test_a_github_releases_bare_references_read_as_its_page_shows_them() -> None:
    """ "Fix the build by @ana in https://github.com/o/r/pull/26" reads "… in #26" on the release page and in a
    copy of it: an issue's, a pull request's and a commit's address alone is its short reference, as a link (in
    another repository, `owner/repo#7`); one in a link, in code, in a link definition, or to a part of one, as
    written."""
    notes = (
        "## What's Changed\r\n* Fix the build by @ana in https://github.com/o/r/pull/26\r\n"
        "* Port by @bo in https://github.com/other/lib/pull/7 (see https://github.com/O/R/commit/"
        "a5c3785ed8d6a35868bc169f07e40e889087fd2e).\r\n"
        "* [Linked](https://github.com/o/r/pull/9), `https://github.com/o/r/pull/11`, "
        "https://github.com/o/r/pull/12/files\r\n```\r\nhttps://github.com/o/r/pull/13\r\n```\r\n"
        "Defined: [the fix][ref]\r\n\r\n[ref]: https://github.com/o/r/pull/14\r\n"
    )
    release = {"tag_name": "v1.0", "body": notes}
    gh = source("github", url="https://github.com/o/r/releases/tag/v1.0")
    assert norm(json.dumps(release), gh, "application/json").markdown == (
        "## What's Changed\n\n- Fix the build by @ana in [#26](https://github.com/o/r/pull/26)\n"
        "- Port by @bo in [other/lib#7](https://github.com/other/lib/pull/7) (see "
        "[a5c3785](https://github.com/O/R/commit/a5c3785ed8d6a35868bc169f07e40e889087fd2e)).\n"
        "- [Linked](https://github.com/o/r/pull/9), `https://github.com/o/r/pull/11`, "
        "https://github.com/o/r/pull/12/files\n\n```\nhttps://github.com/o/r/pull/13\n```\n\n"
        "Defined: [the fix][ref]\n\n[ref]: https://github.com/o/r/pull/14\n"
    )


def test_a_gitlab_releases_bare_references_read_as_its_page_shows_them() -> None:
    """On GitLab, the bare address of an issue, a merge request or a commit reads as its reference: `#26`, `!45`,
    a commit by its first eight characters, and in another project with that project's path before them; one in a
    link, in code, or to a part of one (a comment, a merge request's diffs), as written."""
    notes = (
        "## Changes\r\n* Fix the build (https://gitlab.com/g/p/-/merge_requests/45, "
        "https://gitlab.com/g/p/-/issues/26, https://gitlab.com/g/p/-/work_items/27)\r\n"
        "* Port https://gitlab.com/other/sub/lib/-/issues/7 and https://gitlab.com/other/sub/lib/-/merge_requests/8 "
        "in https://gitlab.com/G/P/-/commit/a5c3785ed8d6a35868bc169f07e40e889087fd2e and "
        "https://gitlab.com/other/lib/-/commit/0123456789abcdef0123456789abcdef01234567\r\n"
        "* Older https://gitlab.com/g/p/issues/3; not [linked](https://gitlab.com/g/p/-/issues/9), "
        "`https://gitlab.com/g/p/-/issues/11`, https://gitlab.com/g/p/-/issues/12#note_99, "
        "https://gitlab.com/g/p/-/merge_requests/13/diffs, https://github.com/g/p/issues/14\r\n"
    )
    release = {"tag_name": "v1.0", "description": notes}
    gl = source("gitlab", url="https://gitlab.com/g/p/-/releases/v1.0")
    assert norm(json.dumps(release), gl, "application/json").markdown == (
        "## Changes\n\n- Fix the build ([!45](https://gitlab.com/g/p/-/merge_requests/45), "
        "[#26](https://gitlab.com/g/p/-/issues/26), [#27](https://gitlab.com/g/p/-/work_items/27))\n"
        "- Port [other/sub/lib#7](https://gitlab.com/other/sub/lib/-/issues/7) and "
        "[other/sub/lib!8](https://gitlab.com/other/sub/lib/-/merge_requests/8) in "
        "[a5c3785e](https://gitlab.com/G/P/-/commit/a5c3785ed8d6a35868bc169f07e40e889087fd2e) and "
        "[other/lib@01234567](https://gitlab.com/other/lib/-/commit/0123456789abcdef0123456789abcdef01234567)\n"
        "- Older [#3](https://gitlab.com/g/p/issues/3); not [linked](https://gitlab.com/g/p/-/issues/9), "
        "`https://gitlab.com/g/p/-/issues/11`, https://gitlab.com/g/p/-/issues/12#note_99, "
        "https://gitlab.com/g/p/-/merge_requests/13/diffs, https://github.com/g/p/issues/14\n"
    )


def test_text_kind_keeps_lines_literal() -> None:
    result = norm("# not a heading\n* not a list\nplain   line\n", source("text"), "text/plain")
    assert result.markdown == "\\# not a heading\n\n\\* not a list\n\nplain line\n"


RSS = """<?xml version="1.0"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>PyTorch</title>
<item><title>PyTorch 2.14 preview</title><link>https://pytorch.org/blog/preview/</link><description>Soon.</description></item>
<item><title>PyTorch 2.13
  Release Blog</title><link>https://pytorch.org/blog/pytorch-2-13-release-blog/</link>
<guid isPermaLink="false">post-88</guid><pubDate>Wed, 08 Jul 2026 17:00:00 +0000</pubDate>
<description>A short summary.</description>
<content:encoded><![CDATA[<p>We are excited to announce <strong>PyTorch 2.13</strong>.</p><img src="../img/a.png" alt="chart">]]></content:encoded>
</item></channel></rss>"""

JSON_FEED = json.dumps(
    {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "PyTorch",
        "items": [
            {
                "id": None,
                "url": "/blog/preview/",
                "title": "PyTorch 2.14 preview",
                "content_text": "Soon.\nVery soon.",
            },
            {
                "id": 87,
                "url": "https://pytorch.org/blog/pytorch-2-13-release-blog/",
                "title": "PyTorch 2.13 Release Blog",
                "content_html": '<p>We are excited to announce <a href="../notes/">PyTorch 2.13</a>.</p>',
                "summary": "A short summary.",
                "date_published": "2026-07-08T17:00:00Z",
                "date_modified": "2026-07-08T20:51:09Z",
            },
        ],
    }
)

ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Rust Blog</title>
<entry><title>Announcing Rust 1.97.0</title><id>tag:blog.rust-lang.org,2026:1.97.0</id>
<link rel="self" href="https://blog.rust-lang.org/feed/1.97.0.xml"/>
<link rel="alternate" href="https://blog.rust-lang.org/2026/07/09/Rust-1.97.0/"/>
<updated>2026-07-10T00:00:00Z</updated>
<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>The Rust team is happy to announce <a href="notes/">1.97.0</a>.</p></div></content>
</entry>
<entry><title>Plain</title><id>urn:plain</id><summary type="text">Line one &lt;b&gt;not bold&lt;/b&gt;
Line two</summary></entry>
</feed>"""


@pytest.mark.parametrize(
    ("feed", "entry", "markdown", "metadata"),
    [
        (  # RSS: content:encoded over the description, links against the post's address, its link as http
            RSS,
            "http://pytorch.org/blog/pytorch-2-13-release-blog",
            "We are excited to announce **PyTorch 2.13**.\n\n![chart](https://pytorch.org/blog/img/a.png)\n",
            {"title": "PyTorch 2.13 Release Blog", "published": "Wed, 08 Jul 2026 17:00:00 +0000"},
        ),
        (RSS, "post-88", None, None),  # the guid names the same entry
        (  # Atom: the alternate link, not self; XHTML content
            ATOM,
            "https://blog.rust-lang.org/2026/07/09/Rust-1.97.0/",
            "The Rust team is happy to announce [1.97.0](https://blog.rust-lang.org/2026/07/09/Rust-1.97.0/notes/).\n",
            {"title": "Announcing Rust 1.97.0", "updated": "2026-07-10T00:00:00Z"},
        ),
        (
            ATOM,
            "urn:plain",
            "Line one \\<b>not bold\\</b>\n\nLine two\n",
            {"title": "Plain"},
        ),  # text stays text
        (  # JSON Feed: content_html over the summary, against the post's address; its dates
            JSON_FEED,
            "https://pytorch.org/blog/pytorch-2-13-release-blog/",
            "We are excited to announce [PyTorch 2.13](https://pytorch.org/blog/notes/).\n",
            {
                "title": "PyTorch 2.13 Release Blog",
                "published": "2026-07-08T17:00:00Z",
                "updated": "2026-07-08T20:51:09Z",
            },
        ),
        (JSON_FEED, "87", None, None),  # its id, here a number
        (
            JSON_FEED,
            "https://blog.example.org/blog/preview/",
            "Soon.\n\nVery soon.\n",
            {"title": "PyTorch 2.14 preview"},
        ),
    ],
)
def test_feed_kind_reads_one_entry(
    feed: str, entry: str, markdown: str | None, metadata: dict[str, str] | None
) -> None:
    result = norm(
        feed, source("feed", url="https://blog.example.org/feed.xml", entry=entry), "application/rss+xml"
    )
    if markdown is None:  # the same entry as the row above
        assert result.markdown.startswith("We are excited to announce")
        return
    assert (result.markdown, result.metadata) == (markdown, metadata)


def _rss_item(link: str, description: str) -> str:
    return (
        f'<rss version="2.0"><channel><title>Forum</title><item><title>PyTorch 2.13</title><link>{link}</link>'
        f"<description><![CDATA[{description}]]></description></item></channel></rss>"
    )


def test_what_a_feed_sets_under_each_post_is_not_the_posts() -> None:
    """Discourse's count of a topic's posts and participants, which each reply changes, and its "Read full topic";
    a "Continue reading" or a "The post … appeared first on …" (a link to the post itself, with few words of its
    own) are the feed's. A last paragraph with words of its own, or linking elsewhere, is the post's."""
    topic = "https://discuss.pytorch.kr/t/pytorch-2-13/9876"
    post = "<p>PyTorch 2.13 is out.</p>"
    feeds = {
        f'{post}<p><small>12 posts - 7 participants</small></p><p><a href="{topic}">Read full topic</a></p>': "",
        f'{post}<p><small>게시글 12개 - 참여자 7명</small></p><p><a href="/t/pytorch-2-13/9876">전체 글 보기</a></p>': "",
        f'{post}<p><a href="{topic}/">Continue reading →</a></p>': "",
        f'{post}<p>The post <a href="{topic}">PyTorch 2.13</a> appeared first on <a href="https://x.org/">X</a>.</p>': "",
        f"{post}<p>12 posts - 7 participants</p>": "\n\n12 posts - 7 participants",
        f'{post}<p><a href="https://pytorch.org/">Read the notes</a></p>': "\n\n[Read the notes](https://pytorch.org/)",
        f'{post}<p>Read <a href="{topic}">this post</a> again once the nightly builds of next week are out.</p>': (
            f"\n\nRead [this post]({topic}) again once the nightly builds of next week are out."
        ),
    }
    for description, kept in feeds.items():
        result = norm(
            _rss_item(topic, description),
            source("feed", url=f"{topic}.rss", entry=topic),
            "application/rss+xml",
        )
        assert result.markdown == f"PyTorch 2.13 is out.{kept}\n", description


@pytest.mark.parametrize(
    ("feed", "markdown"),
    [
        (  # RSS: the channel's title, not an item's; each post's title linking to its address
            RSS,
            "# PyTorch\n\n- [PyTorch 2.14 preview](https://pytorch.org/blog/preview/)\n"
            "- [PyTorch 2.13 Release Blog](https://pytorch.org/blog/pytorch-2-13-release-blog/)\n",
        ),
        (  # Atom: the alternate link; an entry without one named by its id
            ATOM,
            "# Rust Blog\n\n- [Announcing Rust 1.97.0](https://blog.rust-lang.org/2026/07/09/Rust-1.97.0/)\n"
            "- [Plain](urn:plain)\n",
        ),
        (  # JSON Feed: a link against the feed's address
            JSON_FEED,
            "# PyTorch\n\n- [PyTorch 2.14 preview](https://blog.example.org/blog/preview/)\n"
            "- [PyTorch 2.13 Release Blog](https://pytorch.org/blog/pytorch-2-13-release-blog/)\n",
        ),
        (  # no title of its own, a post without one: its address; page text stays text
            '<rss version="2.0"><channel><item><link>https://x.example/a</link></item>'
            "<item><title>A *b* &lt;script&gt;</title><link>https://x.example/b</link></item></channel></rss>",
            "- [https://x.example/a](https://x.example/a)\n- [A \\*b\\* \\<script>](https://x.example/b)\n",
        ),
    ],
)
def test_a_feed_watched_whole_is_its_list_of_posts(feed: str, markdown: str) -> None:
    """`entry = "*"`: the feed's posts in its order, each its title linking to it, under the feed's title (kept
    as metadata): a new post is an item added, whatever its text says."""
    result = norm(
        feed, source("feed", url="https://blog.example.org/feed.xml", entry="*"), "application/rss+xml"
    )
    assert result.markdown == markdown
    assert result.metadata == ({"title": markdown[2:].split("\n")[0]} if markdown.startswith("# ") else {})
    assert result.root == "the feed's 2 entries"
    with pytest.raises(NoContentError, match="^the feed has no entries$"):
        norm(
            '<rss version="2.0"><channel><title>Empty</title></channel></rss>',
            source("feed", entry="*"),
            "application/rss+xml",
        )


def test_addresses_urllib_cannot_read_are_kept_as_the_page_wrote_them() -> None:
    """A link to `http://[oops/` or to a port that is not a number is a broken link on the page, not a page
    that cannot be read: its words and address are kept, in a page's head, its body and a feed's entries."""
    page = (
        '<html><head><link rel="alternate" hreflang="ko" href="http://[ko/post">'
        '<link rel="alternate" hreflang="ja" href="https://example.org:abc/ja/"></head><body><article>'
        '<p>Read <a href="http://[oops/a?utm_source=x">the docs</a> and <a href="https://x.org:port/">this</a>.</p>'
        "</article></body></html>"
    )
    result = norm(page, source("html"))
    assert (
        result.markdown == "Read [the docs](http://%5Boops/a?utm_source=x) and [this](https://x.org:port/).\n"
    )
    assert result.translations == [("ko", "http://[ko/post"), ("ja", "https://example.org:abc/ja/")]
    feed = RSS.replace("https://pytorch.org/blog/preview/", "http://[preview/")
    result = norm(
        feed,
        source("feed", url="https://blog.example.org/feed.xml", entry="http://[preview/"),
        "application/rss+xml",
    )
    assert result.metadata["title"] == "PyTorch 2.14 preview"


@pytest.mark.parametrize(
    ("body", "ctype", "message"),
    [
        ("<html><body><p>A page</p></body></html>", "text/html", "expected an RSS, Atom or JSON feed, got an HTML page"),
        (  # the post's page, for the feed it names: said so
            '<html><head><link rel="alternate" type="application/rss+xml" href="/blog/feed.xml"></head><body><p>A post</p></body></html>',
            "text/html",
            "expected an RSS, Atom or JSON feed, got an HTML page; the page names its feed: url = https://pytorch.org/blog/feed.xml",
        ),
        (  # a JSON Feed named alone
            '<html><head><link rel="alternate" type="application/feed+json" href="/blog/feed.json"></head><body><p>A post</p></body></html>',
            "text/html",
            "expected an RSS, Atom or JSON feed, got an HTML page; the page names its feed: url = https://pytorch.org/blog/feed.json",
        ),
        ("<!DOCTYPE html>\n<html><body><p>A page</p></body></html>", "application/xml", "expected an RSS, Atom or JSON feed, got an HTML page"),
        ("<?xml version='1.0'?><post><p>A page</p></post>", "application/xml", "not a feed: expected <rss> or <feed> (Atom) at the top, found <post>"),
        ('{"body": "A post"}', "application/json", 'not a feed: expected a JSON Feed ("version": "https://jsonfeed.org/version/1.1" and "items")'),
        (JSON_FEED, "application/feed+json", 'the feed has no entry whose link or id is "https://pytorch.org/blog/gone/" (2 entries; the first is "PyTorch 2.14 preview" <https://pytorch.org/blog/preview/>); a post can drop off a feed as newer ones come'),
        ("<rss><channel><item>", "application/rss+xml", "not a feed: the XML does not parse (Premature end of data in tag item line 1, line 1, column 21)"),
        (RSS, "application/rss+xml", 'the feed has no entry whose link or id is "https://pytorch.org/blog/gone/" (2 entries; the first is "PyTorch 2.14 preview" <https://pytorch.org/blog/preview/>); a post can drop off a feed as newer ones come'),
    ],
)  # fmt: skip
def test_feed_bad_input(body: str, ctype: str, message: str) -> None:
    with pytest.raises(NormalizeError) as info:
        norm(
            body,
            source("feed", url="https://pytorch.org/feed.xml", entry="https://pytorch.org/blog/gone/"),
            ctype,
        )
    assert str(info.value) == message


def test_a_feed_with_a_bare_ampersand_or_an_html_entity_is_mended_with_a_warning() -> None:
    feed = """<rss version="2.0"><channel><item><title>Fish & chips &mdash; &amp;co</title>
<link>https://x.example/p?a=1&b=2</link>
<description>&lt;p&gt;Fish & chips,&nbsp;today.&lt;/p&gt;</description></item></channel></rss>"""
    result = norm(
        feed, source("feed", url="https://x.example/f", entry="https://x.example/p?a=1&b=2"), "text/xml"
    )
    assert (result.markdown, result.metadata["title"]) == (
        "Fish & chips, today.\n",  # a no-break space reads as a space
        "Fish & chips — &co",
    )
    assert result.warnings == [
        "the feed is not well-formed XML (xmlParseEntityRef: no name, line 1, column 48); read with its bare & "
        "and HTML entities mended"
    ]


FEED_TOKENS = st.sampled_from([
    "<rss>", "</rss>", "<channel>", "</channel>", "<item>", "</item>", "<feed xmlns='http://www.w3.org/2005/Atom'>",
    "</feed>", "<entry>", "</entry>", "<link>https://x.example/p</link>", "<link href='https://x.example/p'/>",
    "<title>T</title>", "<description>&lt;p&gt;Hi&lt;/p&gt;</description>", "<content type='xhtml'><div>x</div></content>",
    "<content type='text'>t</content>", "&", "&nbsp;", "&bogus;", "<![CDATA[<p>a</p>]]>", "<!DOCTYPE rss>", "\x00", "é",
])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(FEED_TOKENS, max_size=20).map("".join))
def test_any_feed_reads_or_is_refused_in_one_line(text: str) -> None:
    try:
        result = norm(
            text, source("feed", url="https://x.example/f", entry="https://x.example/p"), "text/xml"
        )
    except NormalizeError as exc:  # NoContentError is one
        assert "\n" not in str(exc) and str(exc)
    else:
        assert result.markdown.strip()


POST_TITLES = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs")), max_size=40
)


@settings(max_examples=200, deadline=None)
@given(st.lists(POST_TITLES, min_size=1, max_size=8))
def test_a_feeds_list_of_posts_names_each_post_by_its_title_and_address(titles: list[str]) -> None:
    """Whatever a post's title holds (Markdown's and HTML's own characters too), the list has one item a post,
    read back as that title linking to that address: what a followed feed's new posts are found by."""
    from xml.sax.saxutils import escape

    from differ.follow import _listed_posts

    posts = {f"https://x.example/p/{n}": title for n, title in enumerate(titles)}
    items = "".join(f"<item><title>{escape(t)}</title><link>{url}</link></item>" for url, t in posts.items())
    feed = f'<rss version="2.0"><channel><title>Blog</title>{items}</channel></rss>'
    result = norm(feed, source("feed", url="https://x.example/feed.xml", entry="*"), "application/rss+xml")
    shown = {url: unicodedata.normalize("NFC", " ".join(t.split())) or url for url, t in posts.items()}
    assert _listed_posts(result.markdown) == shown  # in Unicode's composed form, as all page text


def test_a_feed_cannot_make_differ_read_a_file_or_expand_entities(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0")
    feed = f"""<?xml version="1.0"?>
<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file://{secret}"><!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
<rss version="2.0"><channel><item><title>T &xxe; &b;</title><link>https://x.example/p</link>
<description>&lt;p&gt;Body &amp;amp; more&lt;/p&gt;</description></item></channel></rss>"""
    result = norm(
        feed, source("feed", url="https://x.example/feed", entry="https://x.example/p"), "application/rss+xml"
    )
    assert result.markdown == "Body & more\n"
    assert "root:" not in result.metadata["title"] and "aaaa" not in result.metadata["title"]


# -- front matter ----------------------------------------------------------------------------------------------
CORPUS = DATA / "corpus"


def test_yaml_and_toml_front_matter_are_metadata_not_body() -> None:
    # the Rust blog moved its posts from YAML to TOML front matter (rev-06 → rev-07): same post, same body
    post = CORPUS / "rust-lang__blog.rust-lang.org__Rust-1.53.0"
    yaml_md = norm((post / "rev-06.md").read_bytes(), source("markdown"), "text/markdown")
    toml_md = norm((post / "rev-07.md").read_bytes(), source("markdown"), "text/markdown")
    assert yaml_md.metadata == {"title": "Announcing Rust 1.53.0", "author": "The Rust Release Team"}
    assert toml_md.metadata == {"title": "Announcing Rust 1.53.0", "author": "The Rust Release Team"}
    assert yaml_md.markdown == toml_md.markdown
    assert yaml_md.markdown.startswith("The Rust team is happy to announce")
    every = norm((post / "rev-09.md").read_bytes(), source("markdown", metadata=("*",)), "text/markdown")
    assert every.metadata == {
        "path": "2021/06/17/Rust-1.53.0",
        "title": "Announcing Rust 1.53.0",
        "authors": ["The Rust Release Team"],
        "aliases": ["2021/06/17/Rust-1.53.0.html"],
        "extra": {"release": True},
    }
    none = norm((post / "rev-09.md").read_bytes(), source("markdown", metadata=()), "text/markdown")
    assert none.metadata == {} and none.markdown == every.markdown


def test_a_revision_that_changed_only_front_matter_reads_the_same_body() -> None:
    # every pair of the corpus whose Markdown after the front matter is unchanged (front-matter-only edits,
    # and site-wide ones such as the Rust blog's move from YAML to TOML) gives one body through the kind
    same = 0
    for post in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        revs = json.loads((post / "meta.json").read_text())["revisions"]
        for prev, cur in zip(revs, revs[1:], strict=False):
            a, b = ((post / r["file"]).read_text() for r in (prev, cur))
            if re.sub(r"\A(---|\+\+\+)\n.*?\n\1\n", "", a, flags=re.S) != re.sub(
                r"\A(---|\+\+\+)\n.*?\n\1\n", "", b, flags=re.S
            ):
                continue
            same += 1
            kind = source("markdown")
            assert norm(a, kind, "text/markdown").markdown == norm(b, kind, "text/markdown").markdown, (
                post.name,
                cur["file"],
            )
    assert same >= 10


def test_dates_in_front_matter_are_iso_strings() -> None:
    doc = "---\ntitle: .nan\ndate: 2026-07-08 17:45:00\nupdated: 2026-07-09\n---\nBody\n"
    result = norm(doc, source("markdown"), "text/markdown")
    assert result.metadata == {"title": "nan", "date": "2026-07-08T17:45:00", "updated": "2026-07-09"}
    assert result.markdown == "Body\n"


@pytest.mark.parametrize(
    ("doc", "warning"),
    [
        ("---\nSome text\n---\n\nBody\n", ""),  # a thematic break and a setext heading
        ("---\ntitle: x\n\nBody without a closing line\n", ""),
        (
            "---\ntitle: [unclosed\n---\nBody\n",
            "front matter is not valid YAML (line 3: did not find expected ',' or ']'), read as body",
        ),
        (
            "+++\ntitle = \n+++\nBody\n",
            "front matter is not valid TOML (Invalid value (at line 2, column 9)), read as body",
        ),
    ],
)
def test_what_is_not_front_matter_stays_body(doc: str, warning: str) -> None:
    from differ.normalize import frontmatter

    front = frontmatter.split(doc)
    assert (front.body, front.fields, front.warning) == (doc, {}, warning)


def test_front_matter_aliases_cannot_blow_up() -> None:
    from differ.normalize import frontmatter

    rows = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for name, prev in zip("bcdefgh", "abcdefg", strict=True):
        rows.append(f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]")
    start = time.perf_counter()
    front = frontmatter.split("---\n" + "\n".join(rows) + "\ntitle: *h\n---\nBody\n")
    assert time.perf_counter() - start < 2  # 9**8 values if walked in full
    assert (front.body, front.fields) == ("Body\n", {})
    assert front.warning == "front matter not kept: more than 10,000 values (aliases repeating one part?)"


FIELD = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30)


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True),
        FIELD | st.integers(-(2**63), 2**63 - 1) | st.booleans(),
    ),
    st.sampled_from(["---", "+++"]),
)
def test_front_matter_reads_back_what_was_written(fields: dict[str, object], fence: str) -> None:
    import tomllib

    import yaml

    from differ.normalize import frontmatter

    if fence == "---":
        block = yaml.safe_dump(fields, allow_unicode=True) if fields else ""
    else:
        block = "".join(f"{k} = {json.dumps(v, ensure_ascii=False)}\n" for k, v in fields.items())
        assert tomllib.loads(block) == fields
    front = frontmatter.split(f"{fence}\n{block}{fence}\n\nThe body.\n", ["*"])
    assert (front.body, front.fields, front.warning) == ("The body.\n", fields, "")


# -- languages -----------------------------------------------------------------------------------------------
def test_language_rules() -> None:
    assert block_script("FlexAttention이 Apple Silicon(MPS)에 도입되어 빨라졌습니다") == "Hangul"
    assert block_script("FlexAttention lands on Apple Silicon") == "Latin"
    assert block_script("3.15 / 2.13") is None
    md = "# 성능 개선 / Performance Improvements\n\n한국어 문단입니다.\n\nAn English paragraph.\n\n1.2.3\n"
    assert filter_languages(md, ["en"]) == "# Performance Improvements\n\nAn English paragraph.\n\n1.2.3\n"
    assert filter_languages(md, ["ko"]) == "# 성능 개선\n\n한국어 문단입니다.\n"


def test_the_half_in_another_script_keeps_what_was_not_translated() -> None:
    """Asked for Korean alone, a bilingual page's Korean half keeps its code (Latin, or no letters), a Latin
    heading over Korean text (a name: "FlexAttention") and a list of names alone, which were given once for both
    halves; a Latin heading over English alone with its code and list, and English prose (in a list too), stay
    out. The English half is as it was, and a page with no Korean still has no Korean half."""
    md = (
        "# PyTorch 2.13 릴리즈 / PyTorch 2.13 Release\n\n발표하게 되어 기쁩니다.\n\nWe are excited to announce it.\n\n"
        "## FlexAttention\n\n### On Apple Silicon\n\nFlexAttention은 이제 동작합니다.\n\nFlexAttention now works.\n\n"
        "```\npip install torch\n```\n\n    $ python -c 'import torch'\n\n- torch.compile\n- CUDA 12.6\n"
        "- Works with the new compiler\n\n"
        "## Credits\n\nThanks to everyone.\n\n```\n>>> 1 + 1\n```\n\n- Alice Smith\n"
    )
    assert filter_languages(md, ["ko"]) == (
        "# PyTorch 2.13 릴리즈\n\n발표하게 되어 기쁩니다.\n\n## FlexAttention\n\n### On Apple Silicon\n\n"
        "FlexAttention은 이제 동작합니다.\n\n```\npip install torch\n```\n\n    $ python -c 'import torch'\n\n"
        "- torch.compile\n- CUDA 12.6\n"
    )
    english = md.replace("# PyTorch 2.13 릴리즈 / ", "# ").replace("발표하게 되어 기쁩니다.\n\n", "")
    english = english.replace("FlexAttention은 이제 동작합니다.\n\n", "")
    assert filter_languages(md, ["en"]) == english
    assert filter_languages(english, ["ko"]) == ""


def test_a_translated_posts_korean_half_keeps_the_figures_given_once() -> None:
    """The PyTorch Korea translation of "Accelerating Large Language Models" gives its list of timings once,
    after a Korean and an English sentence introducing it: the Korean half keeps it (it ended at "정확한 수치는
    다음과 같습니다:", the list lost)."""
    post = CORPUS / "PyTorchKR__pytorch.kr__2023-04-19-accelerating-large-language-models" / "rev-04.md"
    ko = filter_languages(post.read_text(), ["ko"])
    assert "정확한 수치는 다음과 같습니다:\n\n* baseline (nanoGPT implementation): ~143ms\n" in ko
    assert "* flash_attention + padded vocab: ~87ms (64.37% faster)\n" in ko
    assert "Here are the exact figures" not in ko


def test_the_half_in_another_script_keeps_a_table_of_names_given_once() -> None:
    table = "| Platform | CUDA |\n| --- | --- |\n| Linux x86_64 | 12.6 |\n"
    prose = "| Note |\n| --- |\n| Use the wheel for this platform |\n"
    md = f"## 지원 플랫폼\n\n지원되는 플랫폼입니다.\n\nSupported platforms.\n\n{table}\n{prose}"
    assert filter_languages(md, ["ko"]) == f"## 지원 플랫폼\n\n지원되는 플랫폼입니다.\n\n{table}"
    assert filter_languages(md, ["en"]) == f"Supported platforms.\n\n{table}\n{prose}"


def test_the_half_in_another_script_keeps_a_line_of_names_given_once() -> None:
    """A paragraph of names alone ("TorchVision, TorchAudio, TorchText", `torch.compile`) after a Korean and an
    English sentence is the Korean half's too; an English line that is not names ("Happy coding!", "Enjoy!",
    "Thanks to everyone") is the English half's alone, and so are a line of names in an English-only section and
    one that gives again the names of the Korean line before it ("API Unstable" after "API 안정성: Unstable")."""
    names = "TorchVision, TorchAudio, TorchText"
    md = (
        f"## 라이브러리\n\n함께 발표합니다:\n\nReleased alongside:\n\n{names}\n\n`torch.compile` x86_64\n\n"
        "즐거운 코딩 되세요!\n\nHappy coding!\n\nEnjoy!\n\nThanks to everyone\n\n"
        "API 안정성: Unstable\n\nAPI Unstable\n\n"
        "## Credits\n\nWith thanks to these teams.\n\nPyTorch Korea, PyTorch Foundation\n"
    )
    assert filter_languages(md, ["ko"]) == (
        f"## 라이브러리\n\n함께 발표합니다:\n\n{names}\n\n`torch.compile` x86_64\n\n즐거운 코딩 되세요!\n\n"
        "API 안정성: Unstable\n"
    )
    assert names in filter_languages(md, ["en"])


BILINGUAL_BLOCKS = st.sampled_from(
    [
        "한국어 문단입니다. FlexAttention이 빨라졌습니다.",
        "An English paragraph about FlexAttention.",
        "## FlexAttention",
        "## 성능 개선",
        "### Apple MPS",
        "```\npip install torch\n```",
        "```\n# 설치 방법 설명 주석\n```",
        "    $ python -V",
        "3.15 / 2.13",
        "![](chart.png)",
        "---",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(BILINGUAL_BLOCKS, min_size=1, max_size=12))
def test_the_halves_of_a_bilingual_page_lose_no_block_and_read_again_the_same(blocks: list[str]) -> None:
    """Each block of a page in Hangul and Latin script is in its Korean half or its English half, as it was; each
    half, filtered again, is itself."""
    page = canonicalize("\n\n".join(blocks) + "\n").text
    halves = {lang: canonicalize(filter_languages(page, [lang])).text for lang in ("ko", "en")}
    for lang, half in halves.items():
        assert canonicalize(filter_languages(half, [lang])).text == half
    kept = {b for half in halves.values() for b in half.strip("\n").split("\n\n")}
    assert [b for b in page.strip("\n").split("\n\n") if b not in kept] == []


# -- invisible characters ------------------------------------------------------------------------------------
def test_invisible_characters_are_removed_and_counted() -> None:
    result = canonicalize("Before \x08in-projection and\u200b 저장소\n")
    assert result.text == "Before in-projection and 저장소\n"
    assert [i["char"] for i in result.invisible] == ["U+0008", "U+200B"]


# -- bad input -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "ctype", "message"),
    [
        (b"", "text/html", "empty body"),
        (b"   \n", "text/html", "empty body"),
        (b"%PDF-1.7", "application/pdf", 'expected an HTML page, got Content-Type "application/pdf"'),
        (  # a blog's feed, whatever the server calls it: the kind that reads one of its posts
            RSS.encode(),
            "application/xml",
            'expected an HTML page, got an RSS feed: kind "feed" reads one of its posts, with entry = the post\'s '
            'link (the first: "PyTorch 2.14 preview" <https://pytorch.org/blog/preview/>), or its list of posts, with entry = "*"',
        ),
        (
            b"\xef\xbb\xbf" + ATOM.replace("?>\n", "?>\n<!-- generated -->\n", 1).encode(),
            "text/html",
            'expected an HTML page, got an Atom feed: kind "feed" reads one of its posts, with entry = the post\'s '
            'link (the first: "Announcing Rust 1.97.0" <https://blog.rust-lang.org/2026/07/09/Rust-1.97.0/>), or its list of posts, with entry = "*"',
        ),
        (  # named by its media type, though it does not parse
            b"<channel><item>",
            "application/rss+xml",
            'expected an HTML page, got an RSS feed: kind "feed" reads one of its posts, with entry = the post\'s link, or its list of posts, with entry = "*"',
        ),
        (
            JSON_FEED.encode(),
            "application/feed+json",
            'expected an HTML page, got a JSON Feed: kind "feed" reads one of its posts, with entry = the post\'s '
            'link (the first: "PyTorch 2.14 preview" <https://pytorch.org/blog/preview/>), or its list of posts, with entry = "*"',
        ),
        (  # an API's JSON: where its body is likely to be
            b'{"title": "PyTorch 2.13", "body_md": "We are excited to announce PyTorch 2.13."}',
            "application/json; charset=utf-8",
            'expected an HTML page, got JSON: kind "json" reads it, with field = the path of the body; its longest '
            "text fields: body_md (40 characters), title (12 characters)",
        ),
        (b"{not json", "application/json", 'expected an HTML page, got Content-Type "application/json"'),
        (  # a post moved, its old address left sending readers on: where to
            b'<html><head><meta http-equiv="Refresh" content="0; URL=\'/blog/new-post/\'"></head>'
            b'<body><p>Redirecting to <a href="/blog/new-post/">the post</a>.</p></body></html>',
            "text/html",
            "the page sends its readers on to https://pytorch.org/blog/new-post/ (a meta refresh): point url at "
            "that page",
        ),
        (  # a server that calls everything text/html
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            "text/html",
            "binary content, not text (a NUL byte at position 8); expected an HTML page, JSON, Markdown or "
            "plain text",
        ),
    ],
)
def test_bad_html_input(body: bytes, ctype: str, message: str) -> None:
    with pytest.raises(NormalizeError) as info:
        norm(body, source(), ctype)
    assert str(info.value) == message


def test_what_a_body_turned_out_to_be_comes_with_the_settings_that_read_it() -> None:
    """A feed where a page was expected names its kind and first post, an API's JSON its longest text field, a
    field not there the longest one, a post's page where its feed was expected the feed it names, a page that
    sends its readers on (a meta refresh) the page it sends them to: the check says
    the `differ set` that watches it so. Where nothing tells, nothing is offered."""

    def read_with(body: str | bytes, ctype: str, **options: str) -> dict[str, str]:
        with pytest.raises(NormalizeError) as info:
            norm(body, source(**options) if options else source(), ctype)
        return info.value.read_with

    assert read_with(RSS, "application/xml") == {"kind": "feed", "entry": "https://pytorch.org/blog/preview/"}
    assert read_with(JSON_FEED, "application/feed+json") == {
        "kind": "feed",
        "entry": "https://pytorch.org/blog/preview/",
    }
    post = '{"title": "PyTorch 2.13", "data": {"body_md": "We are excited to announce PyTorch 2.13."}}'
    assert read_with(post, "application/json") == {"kind": "json", "field": "data.body_md"}
    assert read_with(post, "application/json", kind="json", field="body") == {"field": "data.body_md"}
    assert read_with(post, "application/json", kind="json", field="data") == {"field": "data.body_md"}
    page = '<html><head><link rel="alternate" type="application/rss+xml" href="/blog/feed.xml"></head><body></body></html>'
    assert read_with(page, "text/html", kind="feed", url="https://pytorch.org/blog/post/", entry="x") == {
        "url": "https://pytorch.org/blog/feed.xml"
    }
    stub = (
        '<html><head><meta http-equiv="refresh" content="0; url=/blog/new-post/"></head><body></body></html>'
    )
    assert read_with(stub, "text/html", url="https://pytorch.org/blog/old-post/") == {
        "url": "https://pytorch.org/blog/new-post/"
    }  # a post moved, its old address a meta refresh to the new
    assert read_with(b"<channel><item>", "application/rss+xml") == {}  # no post to name
    assert read_with("<html><body></body></html>", "text/html", kind="feed", entry="x") == {}  # no feed named


def test_hidden_parts_are_left_out_but_a_tab_panel_not_yet_shown_is_read() -> None:
    """What no reader sees (`hidden`, `aria-hidden="true"`) is no part of the post; a tab panel a reader opens by
    choosing its tab (another platform's install command) is, hidden or not until then."""
    page = (
        '<html><body><article><h2>Install</h2><div role="tabpanel"><pre><code>pip install torch</code></pre></div>'
        '<div role="tabpanel" hidden><pre><code>pip install torch --index-url https://x.org/cu126</code></pre></div>'
        '<div hidden><p>A dialog.</p></div><p aria-hidden="true">Decoration.</p><p>The end.</p></article></body></html>'
    )
    assert norm(page, source()).markdown == (
        "## Install\n\n```\npip install torch\n```\n\n```\npip install torch --index-url https://x.org/cu126\n```"
        "\n\nThe end.\n"
    )


def test_links_are_read_against_the_pages_base_as_a_browser_reads_them() -> None:
    """`<base href>` (its first, itself read against the page's address) is what a page's relative links, images
    and the translations its head names point from; one that is a script is no base."""
    body = '<p>See <a href="notes/">the notes</a> and <img src="img/a.png" alt="chart">.</p></article></body></html>'
    head = '<html><head>{}<link rel="alternate" hreflang="ko" href="ko/post/"></head><body><article>'
    page = head.format('<base href="/docs/v2/"><base href="https://elsewhere.example/">') + body
    result = norm(page, source())
    assert result.markdown == (
        "See [the notes](https://pytorch.org/docs/v2/notes/) and ![chart](https://pytorch.org/docs/v2/img/a.png).\n"
    )
    assert result.translations == [("ko", "https://pytorch.org/docs/v2/ko/post/")]
    script = norm(head.format('<base href="javascript:alert(1)">') + body, source())
    assert "(https://pytorch.org/blog/pytorch-2-13-release-blog/notes/)" in script.markdown


def test_a_page_that_reloads_itself_or_only_later_is_read() -> None:
    """A meta refresh to the page itself, one after more than ten seconds (a news page reloading), or one on a
    page of text is no move."""
    head = '<meta http-equiv="refresh" content="{}">'
    for content, text in (
        ("300; url=https://elsewhere.example/", "Release notes."),
        ("0; url=https://pytorch.org/blog/pytorch-2-13-release-blog/#top", "Release notes."),
        ("0; url=https://elsewhere.example/", "Release notes, " + "with many words " * 20),
    ):
        page = f"<html><head>{head.format(content)}</head><body><p>{text}</p></body></html>"
        assert norm(page, source()).markdown.startswith("Release notes")


def test_what_comes_before_a_documents_first_element_is_looked_at_in_linear_time() -> None:
    """Telling a feed or a page by what opens it reads a prolog of declarations and comments that each match one
    way only: a page opening with a thousand `<??>` or `<!---->` (2**1000 ways to group them, had a comment's text
    been free to run past its end) is read at once, as what it is."""
    assert norm(b"<??>" * 1000 + b"<p>Release notes.</p>", source()).markdown == "Release notes.\n"
    with pytest.raises(NormalizeError, match="^not a feed: "):
        norm(b"<!---->" * 1000 + b"<post/>", source("feed", entry="x"), "application/xml")


@pytest.mark.parametrize(("kind", "expected"), [("text", "plain text"), ("markdown", "a Markdown file")])
def test_an_html_page_where_a_file_was_expected_is_refused(kind: str, expected: str) -> None:
    """A site's error or sign-in page served at a Markdown or text file's address is not the file: refused, where
    it was stored as a version of markup. Markdown that holds HTML, or is served as text/html, is read."""
    page = b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><p>Sign in to continue.</p></body></html>"
    with pytest.raises(NormalizeError) as info:
        norm(page, source(kind=kind), "text/html; charset=utf-8")
    assert str(info.value) == (
        f'expected {expected}, got an HTML page: is the address still the file\'s? (kind "html" reads a page)'
    )
    assert "Sign in" in norm(page, source(kind=kind), "text/plain").markdown  # what the server says it is
    markdown = b"# Notes\n\n<details><summary>More</summary>\n\nText.\n\n</details>\n"
    assert norm(markdown, source(kind=kind), "text/html").markdown.startswith(("# Notes", "\\# Notes"))


@pytest.mark.parametrize("kind", ["text", "markdown"])
def test_binary_content_is_refused_by_text_kinds_but_utf16_text_is_read(kind: str) -> None:
    with pytest.raises(NormalizeError, match=r"^binary content, not text \(a NUL byte at position 4\)"):
        norm(b"%PDF\x00\x01\x02 stream", source(kind=kind), "application/octet-stream")
    with pytest.raises(NormalizeError, match=r"^binary content, not text \(a NUL byte at position 0\)"):
        norm(b"\x00\x01\x02binary\xff", source(kind=kind), None)  # detection alone would guess UTF-16
    utf16 = "\ufeffRelease notes\n".encode("utf-16-le")  # NUL bytes, but text once decoded
    assert norm(utf16, source(kind=kind), "text/plain").markdown.startswith("Release notes")


def test_selector_that_matches_nothing() -> None:
    with pytest.raises(
        NoContentError, match='^selector "article .entry-content" matches nothing on the page$'
    ):
        norm("<html><body><p>redesigned</p></body></html>", source(selector="article .entry-content"))


@pytest.mark.parametrize(
    ("body", "said", "read_with"),
    [
        ("<main><p>The post, moved.</p></main>", "; its text is in <main> (3 words)", {"selector": "main"}),
        (
            '<div role="main"><p>Moved here.</p></div>',
            "; its text is in [role=main] (2 words)",
            {"selector": "[role=main]"},
        ),
        ("<article><p>One.</p></article><article><p>Two.</p></article>", "", {}),  # which one: not said
        ("<main></main><p>Loose text.</p>", "", {}),
    ],
)
def test_a_selector_that_matches_nothing_names_where_the_text_is(
    body: str, said: str, read_with: dict[str, str]
) -> None:
    """A redesign that renamed the post's element: the element the page's text is now in, when it has one, as
    the setting that reads it (`differ check` and `differ fetch` turn it into a `differ set` command)."""
    with pytest.raises(NoContentError) as info:
        norm(f"<html><body><nav>Home</nav>{body}</body></html>", source(selector=".post"))
    assert (str(info.value), info.value.read_with) == (
        f'selector ".post" matches nothing on the page{said}',
        read_with,
    )


@pytest.mark.parametrize(
    ("page", "selector", "where"),
    [
        (
            '<html><head><script src="/app.js"></script></head><body><div id="root"></div>'
            "<noscript>Enable JavaScript to run this app.</noscript></body></html>",
            None,
            "the page",
        ),
        (
            '<html><body><article><div class="post"> <img src="" alt=""> </div></article></body></html>',
            None,
            "the page",
        ),
        (
            "<html><body><main><p>Menu</p></main><div class=post></div></body></html>",
            ".post",
            'the element selector ".post" matches',
        ),
    ],
)
def test_a_page_with_no_text_is_said_to_be_one(page: str, selector: str | None, where: str) -> None:
    """A page whose text scripts put in reads to nothing: that is an error naming the likely cause, not an
    empty version that no later check would ever find changed."""
    with pytest.raises(NoContentError) as info:
        norm(page, source(selector=selector))
    assert str(info.value) == (
        f"{where} has no text as served (is it filled in by JavaScript? differ reads the HTML without running "
        "scripts; point url at a page or API that serves the text, or have a browser print the page: "
        'command = ["chromium", "--headless", "--dump-dom", "{url}"])'
    )


@pytest.mark.parametrize(
    ("page", "selector", "root"),
    [
        (
            '<body><nav>Home</nav><article id="post-1" class="post  type-post hentry status-publish">'
            "<p>Text.</p></article></body>",
            None,
            '<article id="post-1" class="post type-post hentry …">',
        ),
        ("<body><main class=content><p>Text.</p></main></body>", None, '<main class="content">'),
        (
            "<body><nav>Home</nav><p>Text.</p><footer>©</footer></body>",
            None,
            "<body>, less navigation, header, footer, asides and forms",
        ),
        (
            '<body><div class="post"><p>Text.</p></div></body>',
            "div.post",
            'selector "div.post": <div class="post">',
        ),
        (
            '<body><div id="a"><h2>Notes</h2><p>Text.</p></div></body>',
            "(//h2/..)[1]",
            'selector "(//h2/..)[1]": <div id="a">',
        ),
    ],
)
def test_where_the_text_was_read_from_is_said(page: str, selector: str | None, root: str) -> None:
    """`differ fetch` says which element it read, for whoever is choosing a selector."""
    assert norm(page, source(selector=selector)).root == root


def test_a_page_with_no_text_that_names_a_feed_says_how_to_read_the_post_there() -> None:
    page = (
        '<html><head><link rel="alternate" type="application/atom+xml" href="/atom.xml">'
        '<link rel="alternate stylesheet" type="text/css" href="/x.css"></head>'
        '<body><div id="root"></div><script src="/app.js"></script></body></html>'
    )
    with pytest.raises(NoContentError) as info:
        norm(page, source(url="https://blog.example.org/2026/07/post/"))
    assert str(info.value) == (
        "the page has no text as served (is it filled in by JavaScript? differ reads the HTML without running "
        "scripts; point url at a page or API that serves the text, or read the post from the feed the page "
        'names: url = "https://blog.example.org/atom.xml", kind = "feed", entry = '
        '"https://blog.example.org/2026/07/post/", or have a browser print the page: command = '
        '["chromium", "--headless", "--dump-dom", "{url}"])'
    )


def test_a_page_of_images_is_not_empty() -> None:
    assert norm('<article><img src="/chart.png" alt=""></article>', source()).markdown.startswith("![](")


def test_invalid_utf8_is_read_not_crashed() -> None:
    result = norm(b"<p>caf\xe9 and \xff\xfe broken</p>", source(), "text/html; charset=utf-8")
    assert "broken" in result.markdown


def test_deeply_nested_html_is_bounded() -> None:
    page = "<div>" * 100_000 + "<p>deep text</p>" + "</div>" * 100_000
    started = time.monotonic()
    result = norm(page, source())
    assert time.monotonic() - started < 30
    assert "deep text" in result.markdown


@pytest.mark.parametrize("depth", [30, 300, 1000])
def test_text_in_deeply_nested_quotes_and_lists_reaches_the_diff(depth: int) -> None:
    """Quotes and lists nested past what markdown-it opens (and past the writer's own depth) keep their text, in
    the Markdown and in the blocks the diff and the audit compare."""
    page = (
        "<article><p>before</p>"
        + "<blockquote>" * depth
        + "<p>deep text</p>"
        + "</blockquote>" * depth
        + "<ul>"
        + "<li>x<ul>" * depth
        + "<li>deep item</li>"
        + "</ul></li>" * depth
        + "</ul><p>after</p></article>"
    )
    blocks = " ".join(b.text for b in split_blocks(norm(page, source()).markdown))
    assert [w in blocks for w in ("before", "deep text", "deep item", "after")] == [True] * 4


DEEP_AS_PYTHON = r"""
import sys
from bench.as_python import install
install()  # differ's compiled modules from their .py source
from differ.normalize import compiled_modules
from tests.test_normalize import test_text_in_deeply_nested_quotes_and_lists_reaches_the_diff
assert compiled_modules() == [], compiled_modules()
test_text_in_deeply_nested_quotes_and_lists_reaches_the_diff(1000)
"""


def test_text_nested_deeply_is_read_the_same_run_as_python() -> None:
    """Run as Python (`pip install .`), the writer's recursion counts against Python's limit, which compiled
    it does not: a page nested 300 deep failed to read as Python and read whole compiled."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    run = subprocess.run([sys.executable, "-c", DEEP_AS_PYTHON], cwd=root, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]


def test_huge_number_of_tiny_elements_is_refused_quickly() -> None:
    page = "<html><body><article>" + "<p>word " * 2_500_000 + "</article></body></html>"  # 20 MB
    started = time.monotonic()
    with pytest.raises(
        NormalizeError, match=r"^page has about 2,500,\d{3} tags, more than the 250,000 differ reads$"
    ):
        norm(page.encode(), source())
    assert time.monotonic() - started < 5


def test_twenty_megabyte_page_of_text_is_refused_with_a_reason() -> None:
    page = "<html><body><article>" + ("<p>" + "word " * 2000 + "</p>") * 2000 + "</article></body></html>"
    started = time.monotonic()
    with pytest.raises(
        NormalizeError, match=r"^content of 20,00\d,\d{3} characters is more than the 5,000,000"
    ):
        norm(page.encode(), source())
    assert time.monotonic() - started < 60


def test_megabyte_single_line() -> None:
    result = norm("<p>" + "x" * 1_000_000 + "</p>", source())
    assert len(result.markdown) == 1_000_001


@pytest.mark.parametrize(
    "selector",
    [
        "article",
        "ARTICLE",
        ".entry-content",
        "#main",
        "main#main.site-main",
        "div.entry-content",
        "article .entry-content",
        "p.nothing-has-this",
        "section",
        "h2",
        "[role=main]",
        "li:nth-of-type(2)",
    ],
)
def test_content_root_is_what_css_selects(selector: str) -> None:
    """Simple selectors are matched in one walk; the element must be the one soupsieve selects first."""
    import soupsieve

    from differ.normalize.html import parse_html
    from differ.normalize.root import _select_one

    soup = parse_html((REPLAY / "canonical" / "fetch-1.html").read_text())
    assert _select_one(soup, selector) is soupsieve.select_one(selector, soup)


@pytest.mark.parametrize(
    ("path", "css"),
    [
        ("//article", "article"),
        (
            "xpath://div[contains(concat(' ', normalize-space(@class), ' '), ' entry-content ')]",
            ".entry-content",
        ),
        ("/html/body//article//h2", "article h2"),
        ("xpath1://li[2]", "li:nth-of-type(2)"),
        ("(//h2)[1]", "h2"),
        ("//a[@href]", "a[href]"),
        ("//*[@id='nothing-has-this']", "#nothing-has-this"),
    ],
)
def test_content_root_is_what_xpath_selects(path: str, css: str) -> None:
    """An XPath selector finds the element the same CSS selector finds: the lxml copy maps back to the tree."""
    import soupsieve

    from differ.normalize.html import parse_html
    from differ.normalize.root import _select_one

    soup = parse_html((REPLAY / "canonical" / "fetch-1.html").read_text())
    assert _select_one(soup, path) is soupsieve.select_one(css, soup)


@settings(max_examples=300, deadline=None)
@given(st.lists(TOKENS, max_size=25).map("".join))
def test_xpath_sees_every_element_and_its_text(text: str) -> None:
    """On any markup, `//*` is every element in document order and each element's string value is its text."""
    from differ.normalize import xpath
    from differ.normalize.html import parse_html
    from differ.normalize.root import tags

    soup = parse_html(text)
    chosen = xpath.select(soup, "//*")
    assert [id(tag) for tag in chosen] == [id(tag) for tag in tags(soup)]
    unreadable = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
    for tag in chosen[:5]:
        text_of = "".join(
            str(s)
            for s in tag.descendants
            if isinstance(s, NavigableString) and not isinstance(s, PreformattedString)  # not comments
        )
        assert xpath.select(tag, f"self::*[. = {_literal(unreadable.sub('', text_of))}]") == [tag]


def _literal(text: str) -> str:
    """`text` as an XPath string literal (XPath 1.0 has no escapes: quotes are joined with concat)."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ', "\'", '.join(f"'{part}'" for part in text.split("'")) + ")"


def test_xpath_selector_and_exclude_read_the_page_as_css_does() -> None:
    page = (REPLAY / "canonical" / "fetch-1.html").read_bytes()
    by_css = norm(page, source(selector="article .entry-content", exclude=["h2", "li:nth-of-type(2)"]))
    by_xpath = norm(
        page,
        source(
            selector="//article//*[contains(@class, 'entry-content')]", exclude=[".//h2", "xpath:.//li[2]"]
        ),
    )
    assert by_xpath.markdown == by_css.markdown
    assert re.search("^## ", norm(page, source(selector="//article")).markdown, re.MULTILINE)
    assert not re.search("^## ", by_xpath.markdown, re.MULTILINE)
    assert (
        by_xpath.root
        == 'selector "//article//*[contains(@class, \'entry-content\')]": <div class="entry-content">'
    )


def test_xpath_exclude_drops_only_inside_the_content_root() -> None:
    page = "<body><nav><p>Menu</p></nav><article><p>Kept</p><aside><p>Ad</p></aside></article></body>"
    assert (
        norm(page, source(selector="//article", exclude=["//aside", "//nav", "/html"])).markdown == "Kept\n"
    )


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        (
            "xpath:count(//p)",
            'selector "xpath:count(//p)" evaluates to a number; expected an XPath that selects elements',
        ),
        (
            "xpath:boolean(//p)",
            'selector "xpath:boolean(//p)" evaluates to true or false; expected an XPath that selects elements',
        ),
        (
            "xpath:string(//p)",
            'selector "xpath:string(//p)" evaluates to text; expected an XPath that selects elements',
        ),
        (
            "//p/@class",
            'selector "//p/@class" selects text or attributes; expected an XPath that selects elements',
        ),
        (
            "//p/text()",
            'selector "//p/text()" selects text or attributes; expected an XPath that selects elements',
        ),
        ("//p[nope()]", 'selector "//p[nope()]" cannot be evaluated: Unregistered function'),
    ],
)
def test_an_xpath_that_selects_no_elements_is_said_to(selector: str, message: str) -> None:
    with pytest.raises(NormalizeError) as info:
        norm('<body><p class="x">Text</p></body>', source(selector=selector))
    assert str(info.value) == message


def test_an_xpath_that_matches_nothing_is_said_to() -> None:
    with pytest.raises(NoContentError, match='^selector "//article" matches nothing on the page$'):
        norm("<html><body><p>redesigned</p></body></html>", source(selector="//article"))


URL_PIECES = [
    "http://", "https://", "HTTPS://", "a.org", "A.org", ":80", ":", "/", "//", "x", "..", ".", "?", "q=1", "&",
    "utm_source=z", "#", "frag", ";p", " ", "%20", "<", ">", "~", "+", "-", "_", "é", "\\", "mailto:a@b", "data:",
]  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(URL_PIECES), max_size=8).map("".join))
def test_plain_absolute_urls_are_kept_as_the_full_resolution_gives_them(href: str) -> None:
    from differ.normalize.html import _clean_url, _resolved

    base, tracking = "https://pytorch.org/blog/pytorch-2-13-release-blog/", ("utm_*", "ref")
    assert _clean_url(base, tracking, href) == _resolved(base, tracking, href.strip())


# -- finding elements without bs4's search machinery ------------------------------------------------------
HEAD_TOKENS = st.one_of(
    st.sampled_from([
        '<meta property="og:title" content=" A  title ">', '<meta property="og:title" content="Second">',
        '<meta property="article:modified_time" content="2026-07-08">', "<meta property='x'>",
        '<meta content="no property">', "<title>Page\n title</title>", "<title></title>", "<title><b>x</b></title>",
        "<title>a<!-- c -->b</title>", "<svg><title>icon</title></svg>", "<noscript>", "</noscript>",
        '<meta name="generator" content="Discourse 3.2.0">', '<meta name="Generator" content="WordPress 6.5">',
    ]),
    TOKENS,
)  # fmt: skip


def _metadata_as_bs4_finds_it(soup: BeautifulSoup) -> dict[str, str]:
    meta: dict[str, str] = {}
    for tag in (soup.head or soup).descendants:
        if isinstance(tag, Tag) and tag.name == "meta":
            key = htmlconv._META.get(str(tag.get("property"))) or htmlconv._NAMED.get(
                str(tag.get("name")).lower()
            )
            content = tag.get("content")
            if key and key not in meta and isinstance(content, str):
                meta[key] = content.strip()
    if "title" not in meta and soup.title and soup.title.string:
        meta["title"] = htmlconv._WS.sub(" ", soup.title.string).strip()
    return meta


@settings(max_examples=500, deadline=None)
@given(st.lists(HEAD_TOKENS, max_size=25).map("".join), st.sampled_from(["p", "title", "meta", "x-y", "b"]))
def test_first_tag_and_page_metadata_find_what_bs4_finds(text: str, name: str) -> None:
    soup = htmlconv.parse_html(text)
    from differ.normalize.root import first_tag

    assert first_tag(soup, lambda tag: tag.name == name) is soup.find(name)
    assert htmlconv.page_metadata(soup) == _metadata_as_bs4_finds_it(soup)


def test_ignored_text_is_left_out_line_by_line() -> None:
    from differ.normalize import leave_out

    markdown = "# Post\n\n5 min read\n\nSeen 12 times, thanks.\n\n- Views: 12\n- Fixes.\n"
    kept, removed = leave_out(markdown, (r"^\d+ min read$", r"Views: \d+", r"Seen \d+ times, "))
    assert (kept, removed) == ("# Post\n\n\n\nthanks.\n\n\n- Fixes.\n", 3)
    assert leave_out(markdown, (r"nowhere",)) == (markdown, 0)


API_KEYS = [
    "title",
    "content",
    "rendered",
    "post_stream",
    "posts",
    "raw",
    "version",
    "updated_at",
    "tag_name",
    "body",
    "description",
    "name",
    "link",
    "modified_gmt",
    "body_md",
    "data",
    "published_at",
    "slug",
]
API_VALUE = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False),
        st.sampled_from(["", "x", "<p>hi</p>", "# T\n\ntext", "2026-07-08T20:51:09", "\x00\x08", "[" * 30]),
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(API_KEYS), inner, max_size=4),
    max_leaves=12,
)
API_URLS = {
    "wordpress": "https://x.example/blog/post/",
    "discourse": "https://d.example/t/x/12",
    "github": "https://github.com/o/r/releases/tag/v1",
    "gitlab": "https://gitlab.com/g/p/-/releases/v1",
    "json": "https://x.example/a.json",
}


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(API_URLS)),
    st.one_of(  # anything, or the shapes the kinds look into with anything inside
        API_VALUE,
        API_VALUE.map(lambda v: {"post_stream": {"posts": [v]}}),
        API_VALUE.map(lambda v: [v]),
        API_VALUE.map(lambda v: {"data": v, "title": v}),
    ),
)
def test_any_json_an_api_answers_is_read_or_refused_in_one_line(kind: str, value: object) -> None:
    """Whatever JSON a WordPress, Discourse, GitHub, GitLab or JSON source answers, it is read or refused with a
    NormalizeError (one line, the check's `failed: …`), never another exception."""
    options = {"field": "data.body_md", "metadata": ("title", "data.updated_at")} if kind == "json" else {}
    try:
        norm(json.dumps(value), source(kind, url=API_URLS[kind], **options), "application/json")
    except NormalizeError as exc:
        assert "\n" not in str(exc)


def test_a_paragraph_of_many_pieces_looks_up_no_node_among_all_its_siblings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """mdformat asks for the next sibling of every piece of text, and markdown-it-py found it by looking the
    node up among all its siblings: 20,000 lines of list items nested every which way took 4.9 s to
    compare, growing with the square of their number. The renderer's nodes know their place."""
    from mdformat.renderer import RenderTreeNode

    from differ.normalize.markdownit import _Node, parser

    looked_up = []
    plain = RenderTreeNode.siblings

    def siblings(node: RenderTreeNode) -> object:
        looked_up.append(node)
        return plain.fget(node)  # type: ignore[attr-defined]

    monkeypatch.setattr(RenderTreeNode, "siblings", property(siblings))
    lines = "".join(f"{'  ' * (i % 30)}- item {i}\n" for i in range(2000))
    assert canonicalize(lines + "\n[a](b) text! [c](d)\n").text.count("item") == 2000
    assert len(looked_up) < 20
    # the same answers as markdown-it-py's own lookup
    tree = _Node(parser().parse((DATA / "replay" / "canonical-v2.md").read_text() + lines[:2000]))
    for node in tree.walk():
        assert node.next_sibling is RenderTreeNode.next_sibling.fget(node)  # type: ignore[attr-defined]
        assert node.previous_sibling is RenderTreeNode.previous_sibling.fget(node)  # type: ignore[attr-defined]


def test_a_discourse_topic_read_as_html_is_said_to_carry_its_replies() -> None:
    """Discourse serves readers without scripts every post of a topic: a page read as HTML changes with each
    reply, which the `discourse` kind would not; the page says what made it, and the warning names the kind."""
    from differ.normalize.kinds import DISCOURSE_PAGE
    from tests.helpers import norm, source

    topic = (
        '<html><head><meta name="generator" content="Discourse 3.2.0 - https://github.com/discourse/discourse">'
        "</head><body><main><h1>Release 1.0</h1><p>The post.</p><p>A reply.</p></main></body></html>"
    )
    read = norm(topic.encode(), source("html"), "text/html")
    assert read.warnings == [DISCOURSE_PAGE] and "generator" not in read.metadata
    wordpress = topic.replace("Discourse 3.2.0", "WordPress 6.5")
    assert norm(wordpress.encode(), source("html"), "text/html").warnings == []


LATIN_TEXTS = {
    "en": "The new version of the compiler is faster and uses less memory. We have fixed several bugs that were "
    "reported by our users, and the release notes list all of the changes from this cycle.",
    "de": "Die neue Version des Compilers ist schneller und braucht weniger Speicher. Wir haben mehrere Fehler "
    "behoben, die von unseren Nutzern gemeldet wurden, und die Versionshinweise nennen alle Änderungen mit "
    "Verweisen auf die Diskussionen, die dazu geführt haben, sowie eine Liste der Mitwirkenden.",
    "fr": "La nouvelle version du compilateur est plus rapide et utilise moins de mémoire. Nous avons corrigé "
    "plusieurs bogues signalés par nos utilisateurs, et les notes de version donnent toutes les modifications "
    "de ce cycle avec les liens vers les discussions qui sont à leur origine.",
    "es": "La nueva versión del compilador es más rápida y usa menos memoria. Hemos corregido varios errores "
    "que nos reportaron los usuarios, y las notas de la versión muestran todos los cambios de este ciclo; "
    "también hay una lista de los colaboradores, pero no están todos los nombres. Ahora lo puede usar cuando "
    "quiera.",
    "pt": "A nova versão do compilador é mais rápida e usa menos memória. Corrigimos vários erros que os "
    "usuários relataram, e as notas da versão mostram todas as mudanças dos últimos meses; também há uma lista "
    "dos colaboradores, mas não estão todos os nomes. Você pode usar isso quando quiser, e seu projeto não "
    "muda.",
    "it": "La nuova versione del compilatore è più veloce e usa meno memoria. Abbiamo corretto diversi errori "
    "che sono stati segnalati dagli utenti, e le note di rilascio elencano tutte le modifiche di questo ciclo "
    "con i collegamenti alle discussioni e anche una lista dei collaboratori che non è completa.",
    "nl": "De nieuwe versie van de compiler is sneller en gebruikt minder geheugen. We hebben een aantal fouten "
    "opgelost die door onze gebruikers zijn gemeld, en de release notes noemen alle wijzigingen van deze cyclus "
    "met een verwijzing naar de discussie. Het is nog niet af, maar het werkt al goed voor ons.",
    "sv": "Den nya versionen av kompilatorn är snabbare och använder mindre minne. Vi har rättat flera fel som "
    "har rapporterats av våra användare, och versionsanteckningarna listar alla ändringar från den här cykeln "
    "med länkar till diskussionerna. Det är inte klart, men det fungerar också bra för oss eller för er.",
    "pl": "Nowa wersja kompilatora jest szybsza i zużywa mniej pamięci. Poprawiliśmy kilka błędów, które "
    "zgłosili nasi użytkownicy, a informacje o wydaniu wymieniają wszystkie zmiany z tego cyklu wraz z "
    "odnośnikami do dyskusji, które do nich doprowadziły. Jest to także wydanie, które może się przydać, ale "
    "czy jest gotowe, tego nie wiemy.",
    "tr": "Derleyicinin yeni sürümü daha hızlı ve daha az bellek kullanıyor. Kullanıcılarımızın bildirdiği "
    "birçok hatayı düzelttik ve sürüm notları bu döngüdeki tüm değişiklikleri tartışmalara bağlantılarla "
    "birlikte listeliyor. Bu sürüm için çok çalıştık, ama her şey bitmiş değil; sonra yeni bir sürüm gelecek "
    "ve bir süre daha bu şekilde olarak devam edecek gibi görünüyor.",
    "id": "Versi baru dari kompiler ini lebih cepat dan menggunakan lebih sedikit memori. Kami sudah "
    "memperbaiki beberapa bug yang dilaporkan oleh pengguna, dan catatan rilis berisi semua perubahan dalam "
    "siklus ini dengan tautan ke diskusi yang terkait. Kita bisa menggunakan versi baru ini untuk proyek yang "
    "tidak akan berubah.",
    "vi": "Phiên bản mới của trình biên dịch chạy nhanh hơn và dùng ít bộ nhớ hơn. Chúng tôi đã sửa một số lỗi "
    "được người dùng báo cáo, và ghi chú phát hành liệt kê các thay đổi trong chu kỳ này với các liên kết đến "
    "những thảo luận có liên quan để bạn có thể đọc khi cần.",
}


@pytest.mark.parametrize("language", sorted(LATIN_TEXTS))
def test_a_latin_script_text_is_told_by_its_short_words(language: str) -> None:
    from differ.normalize.language import latin_language

    assert latin_language([LATIN_TEXTS[language]]) == language
    assert latin_language(LATIN_TEXTS[language].split(".")) == language  # sentence by sentence
    assert latin_language([LATIN_TEXTS[language].split(".")[0]]) is None  # one sentence: too few
    # a long text is told by its beginning, a bilingual one by neither language
    assert (
        latin_language([LATIN_TEXTS[language]] * 5 + [LATIN_TEXTS["en" if language != "en" else "de"]])
        == language
    )
    assert latin_language([LATIN_TEXTS[language], LATIN_TEXTS["en" if language != "en" else "de"]]) is None


def test_a_page_in_two_latin_script_languages_splits_by_their_short_words() -> None:
    """An English and French page (a Canadian release note): `languages = ["fr"]` keeps the French blocks,
    `["en"]` the English ones; a heading or list whose words do not tell follows the block before it."""
    en, fr = LATIN_TEXTS["en"], LATIN_TEXTS["fr"]
    page = (
        f"## Release 2.0\n\n{en}\n\n- `Vec::pop_if`\n- `String::leak`\n\n## Version 2.0\n\n{fr}\n\n"
        f"- `Vec::pop_if`\n- `String::leak`\n\n{en}\n\n{fr}\n\n{en}\n\n{fr}\n"
    )
    half = f"## Release 2.0\n\n{en}\n\n- `Vec::pop_if`\n- `String::leak`\n\n{en}\n\n{en}\n"
    assert filter_languages(page, ["en"]) == half
    assert (
        filter_languages(page, ["fr"])
        == f"## Version 2.0\n\n{fr}\n\n- `Vec::pop_if`\n- `String::leak`\n\n{fr}\n\n{fr}\n"
    )
    assert filter_languages(page, ["en", "fr"]) == page
    # "X / Y" headings: each side told by the words the page's blocks of one language alone have ("new" is
    # in the English paragraphs only), the other side then in the other language
    both = f"## Nouveautés / What's new\n\n{page.split(chr(10), 2)[2]}"
    assert filter_languages(both, ["en"]).startswith(f"## What's new\n\n{en}\n\n")
    assert filter_languages(both, ["fr"]).startswith(f"## Nouveautés\n\n## Version 2.0\n\n{fr}\n\n")
    assert filter_languages(both, ["en", "fr"]) == both
    # one language with a quotation or two in another: a page in one language, kept whole
    quoted = f"{en}\n\n{fr}\n\n{en}\n\n{en}\n\n{fr}\n\n{en}\n"
    assert filter_languages(quoted, ["en"]) == quoted
    # a page in Latin and another script: the Latin blocks are kept whatever their language, as before
    korean = f"{en}\n\n한국어 문단입니다.\n\n{fr}\n"
    assert filter_languages(korean, ["fr"]) == f"{en}\n\n{fr}\n"


_SENTENCES = {
    lang: [s.strip() + "." for s in LATIN_TEXTS[lang].split(".") if s.strip()] for lang in ("en", "fr", "de")
}


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.builds(lambda k: f"## Part {k}", st.integers(0, 9)),
            st.sampled_from(["en", "fr", "de"]).flatmap(
                lambda lang: st.lists(st.sampled_from(_SENTENCES[lang]), min_size=1, max_size=3).map(" ".join)
            ),
        ),
        min_size=1,
        max_size=14,
    )
)
def test_a_language_filter_keeps_blocks_as_they_are_and_all_languages_keep_the_page(
    blocks: list[str],
) -> None:
    """Whatever the mix of English, French and German paragraphs and headings: each language's half is made of
    the page's blocks, unaltered and in order; all three languages keep the whole page; and on a page in two
    languages or more, a paragraph whose short words tell is in its own language's half and no other's."""
    from differ.normalize.language import block_language, latin_mixed

    page = "\n\n".join(blocks) + "\n"
    assert filter_languages(page, ["en", "fr", "de"]) == page
    told = Counter(lang for b in blocks if (lang := block_language(b)))
    for lang in ("en", "fr", "de"):
        half = filter_languages(page, [lang])
        kept = half.rstrip("\n").split("\n\n") if half else []
        rest = iter(blocks)
        assert all(any(b == k for b in rest) for k in kept)  # a subsequence of the page's blocks
        if latin_mixed(told):
            for b in blocks:
                if block_language(b) is not None:
                    assert (b in kept) == (block_language(b) == lang)
