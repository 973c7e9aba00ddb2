"""The content root of a page: the element its text is read from (a selector's, CSS or XPath, else the
article), with scripts, page furniture around the article and hidden parts taken out; and the walks over a
tree that find elements without BeautifulSoup's search machinery."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from bs4 import BeautifulSoup, Comment, Tag
from bs4.element import PageElement

from differ.errors import NoContentError, NormalizeError
from differ.normalize import xpath
from differ.normalize.kinds import simple_selector
from differ.normalize.marks import HEADINGS, classes, discourse_aside, settle, tidy
from differ.normalize.selectors import is_xpath

if TYPE_CHECKING:
    import soupsieve

DROP = {
    "script",
    "style",
    "noscript",
    "template",
    "iframe",
    "svg",
    "canvas",
    "button",
    "input",
    "select",
    "textarea",
    "object",
    "embed",
    "head",
    "title",
    "meta",
    "link",
    "dialog",
}


def find_root(
    soup: BeautifulSoup, selector: str | None, exclude: Sequence[str], theme: list[Tag] | None = None
) -> Tag:
    """The content root: `selector` if given, else <article>, <main>, [role=main], else <body> less chrome;
    `theme`, when given, gets the parts of a blog's theme left out of it (comments, share buttons, sidebars), and
    those of the page derived from the post (a table of contents, the reading time), selector or none."""
    candidates: dict[str, list[Tag]] = {"article": [], "main": [], "role": []}

    def unwanted(tag: Tag) -> bool:
        if tag.name in DROP:
            return True
        if tag.name in candidates:
            candidates[tag.name].append(tag)
        elif tag.attrs and tag.attrs.get("role") == "main":
            candidates["role"].append(tag)
        return False

    _prune(soup, unwanted)
    root: Tag | None
    matches = candidates["article"] or candidates["main"] or candidates["role"]
    later: list[Tag] = []  # what is read otherwise than as written (marks.settle), set once the walk is done
    left_out: list[Tag] = [] if theme is None else theme
    if selector:
        root = _select_one(soup, selector)
        if root is None:
            raise _unmatched(selector, matches)
        _prune(root, lambda tag: _hidden(tag) or tidy(tag, later, left_out))
    else:
        if len(matches) > 1:
            root = max(matches, key=lambda t: len(t.get_text()))
        else:
            root = matches[0] if matches else soup.body or soup
        dated: list[Tag] = []

        def chrome(tag: Tag) -> bool:
            if _furniture(tag):
                return True
            if _theme(tag):
                left_out.append(tag)
                return True
            if tag.name == "header":  # an article's own, which _furniture kept: its byline, however named
                dated.extend(_dated(tag))
            return tidy(tag, later, left_out)

        _prune(root, chrome)
        for tag in dated:
            tag.extract()
            left_out.append(tag)
    settle(later)
    for pattern in exclude:
        if is_xpath(pattern):
            for node in xpath.select(root, pattern):
                if any(parent is root for parent in node.parents):
                    node.extract()
            continue
        try:
            for node in _css(pattern).select(root):
                node.extract()
        except Exception as exc:
            raise NormalizeError(f'exclude selector "{pattern}" is not valid CSS: {str(exc).splitlines()[0]}')
    return root


def _unmatched(selector: str, matches: list[Tag]) -> NoContentError:
    """A selector that matches nothing, said with where the page's text is now when it has one element for it
    (an <article>, <main> or [role=main] with words), as the setting that reads it: a redesign that renamed the
    post's element is mended in one command."""
    said = f'selector "{selector}" matches nothing on the page'
    words = len(matches[0].get_text().split()) if len(matches) == 1 else 0
    if not words:
        return NoContentError(said)
    named = matches[0].name in ("article", "main")
    element, shown = (matches[0].name, f"<{matches[0].name}>") if named else ("[role=main]", "[role=main]")
    return NoContentError(f"{said}; its text is in {shown} ({words} words)", read_with={"selector": element})


def _select_one(soup: BeautifulSoup, selector: str) -> Tag | None:
    """The first element in document order that `selector` matches. A simple selector (`article`,
    `.entry-content`, `div#main.post`) is matched in one walk; XPath goes to lxml, other CSS to soupsieve."""
    if is_xpath(selector):
        return next(iter(xpath.select(soup, selector)), None)
    simple = simple_selector(selector)
    if simple:
        name, ident, dotted = simple
        wanted = set(dotted.split(".")[1:])

        def matches(tag: Tag) -> bool:
            return (
                (name is None or tag.name == name.lower())
                and (ident is None or tag.get("id") == ident)
                and wanted.issubset(classes(tag))
            )

        return first_tag(soup, matches)
    try:
        first = _css(selector).select_one(soup)
    except Exception as exc:  # soupsieve raises its own SelectorSyntaxError
        raise NormalizeError(f'selector "{selector}" is not valid CSS: {str(exc).splitlines()[0]}')
    return first if isinstance(first, Tag) else None


def tags(root: Tag) -> Iterator[Tag]:
    """The elements under `root` in document order (`root.descendants` less the strings), walked without
    recursion."""
    stack = [iter(root.contents)]
    while stack:
        for child in stack[-1]:
            if isinstance(child, Tag):
                yield child
                stack.append(iter(child.contents))
                break
        else:
            stack.pop()


def first_tag(root: Tag, matches: Callable[[Tag], bool]) -> Tag | None:
    """The first element under `root` in document order that `matches` (`root.find(matches)`, without bs4's
    search machinery)."""
    return next((tag for tag in tags(root) if matches(tag)), None)


@lru_cache(maxsize=256)
def _css(selector: str) -> soupsieve.SoupSieve:
    """A compiled CSS selector (compiling is most of the cost of a one-off select)."""
    import soupsieve  # here: compiling its own patterns on import costs every run ~0.1 s

    return soupsieve.compile(selector)


_CHROME_TAGS = {"nav", "header", "footer", "aside", "form"}
_CHROME_ROLES = {"navigation", "banner", "contentinfo", "dialog", "complementary"}  # the last: an <aside>'s


def _hidden(tag: Tag) -> bool:
    """Hidden from every reader (`hidden`, `aria-hidden="true"`); a tab panel not shown until its tab is chosen is
    content all the same (a page's install commands for another platform)."""
    attrs = tag.attrs  # read directly: this runs on every element of the page
    return (
        bool(attrs)
        and (attrs.get("aria-hidden") == "true" or "hidden" in attrs)
        and attrs.get("role") != "tabpanel"
    )


# What a blog puts under or beside its posts, by the names its themes give it (WordPress's `comments-area` and
# `widget-area`, Jetpack's `sharedaddy`, Disqus's thread): each new comment, share count or recent post would be
# an edit of the post; and the byline over it (author and date, `entry-meta`, Jekyll's `post-meta`), which the
# page's metadata gives, a copy never carries, and some themes write as "3 days ago"; the tags under it and the
# author's box, which change with the blog, not with the post.
_NOISE = frozenset(
    {
        "comments",
        "comment-list",
        "comments-area",
        "comments-section",
        "comment-respond",
        "disqus_thread",
        "share",
        "sharedaddy",
        "share-buttons",
        "social-share",
        "sharing",
        "addtoany",
        "a2a_kit",
        "jp-relatedposts",
        "related-posts",
        "yarpp-related",
        "sidebar",  # and the sidebar beside it, whose recent posts change with each new one
        "widget-area",
        "byline",
        "article-byline",
        "post-byline",
        "entry-meta",
        "post-meta",
        "article-meta",
        "posted-on",
        "dateline",
        "post-tags",
        "post-card-tags",  # Ghost's, over the title
        "article-tag",
        "entry-tags",
        "tags-links",
        "tag-links",
        "author-bio",
        "author-box",
        "about-author",
        "author-info",
        "avatar",  # an author's picture and name (Docusaurus's)
        "post-footer",  # and what goes under a post: its likes and comment counts (Substack's), which move daily
        "entry-footer",
        "post-ufi",
        "like-button-container",
        "subscription-widget-wrap",  # a newsletter's sign-up box, the same under every post, in no copy
        "post-navigation",  # the links to the posts before and after it, which a new post changes
        "post-nav",
        "prev-next",
        "related-pages",  # Furo's (Sphinx), to the pages before and after
    }
)


def _furniture(tag: Tag) -> bool:
    """Page furniture around an article: navigation, banners, footers, forms, dialogs and hidden parts; not an
    article's or a section's own <header>, where its title is."""
    if tag.name in _CHROME_TAGS:
        if tag.name == "aside":
            return not discourse_aside(tag)  # a Discourse post's link preview or quote: its own
        return tag.name != "header" or not any(p.name in ("article", "section") for p in tag.parents)
    return bool(tag.attrs) and (tag.attrs.get("role") in _CHROME_ROLES or _hidden(tag))


BYLINE_WORDS = 20  # the most words of a dated line in an article's header that is its byline


def _dated(header: Tag) -> list[Tag]:
    """The parts of an article's own <header> beside its title that hold a <time> in a few words: its byline
    (`July 8, 2026 · 5 min read`, `Posted on … by Ana`), however its theme names it (Docusaurus's are hashed)."""
    return [
        part
        for part in header.children
        if isinstance(part, Tag)
        and part.name not in HEADINGS
        and (part.name == "time" or first_tag(part, lambda t: t.name == "time") is not None)
        and len(part.get_text().split()) <= BYLINE_WORDS
    ]


def _theme(tag: Tag) -> bool:
    """The comments, share buttons, related posts, sidebars and byline a blog's theme puts around a post: a
    block so named, not a heading a site generator gave the id of its words ("Comments" → `id="comments"`), nor
    words inside a sentence."""
    attrs = tag.attrs
    return (
        bool(attrs)
        and tag.name in _CONTAINERS
        and (attrs.get("id") in _NOISE or any(name in _NOISE for name in classes(tag)))
    )


_CONTAINERS = frozenset({"div", "section", "ul", "ol", "p"})  # blocks: not a word of a sentence (a <span>)


def _prune(root: Tag, unwanted: Callable[[Tag], bool]) -> None:
    """Take out of `root` every comment and every element `unwanted` says so of (outermost first, one pass,
    no recursion: a page nested 100,000 deep is walked like any other)."""
    doomed: list[PageElement] = []
    stack = [root]
    while stack:
        for child in stack.pop().contents:
            if isinstance(child, Tag):
                if unwanted(child):
                    doomed.append(child)
                else:
                    stack.append(child)
            elif isinstance(child, Comment):
                doomed.append(child)
    for node in doomed:
        node.extract()
