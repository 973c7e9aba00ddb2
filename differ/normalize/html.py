"""HTML to Markdown on BeautifulSoup (lxml): parsing, and a faithful conversion of the content root (`root`).

The converter writes Markdown whose text is fully escaped, then `canonical.canonicalize` settles it into the
canonical style, so the escaping here only has to be safe, not pretty.
"""

from __future__ import annotations

import fnmatch
import re
import warnings
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import islice
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning, Tag, XMLParsedAsHTMLWarning
from bs4.element import NavigableString, PageElement

from differ.addresses import joined, page_key
from differ.errors import NormalizeError
from differ.normalize.marks import code_language
from differ.normalize.root import first_tag, tags
from differ.normalize.tree import build

# BeautifulSoup's advice to programmers (an XHTML page read by the HTML parser, a field holding only a URL) is
# not for someone running differ, who is told in differ's own words what a page is when it matters (kinds.py).
warnings.filterwarnings("ignore", category=XMLParsedAsHTMLWarning)
warnings.filterwarnings("ignore", category=MarkupResemblesLocatorWarning)

MAX_DEPTH = 400
MAX_TAGS = 250_000  # a long release post has a few thousand; beyond this a page is not read
BLOCKS = {
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "aside",
    "nav",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "pre",
    "blockquote",
    "table",
    "hr",
    "figure",
    "figcaption",
    "dl",
    "dt",
    "dd",
    "details",
    "summary",
    "address",
    "center",
    "body",
    "html",
    "form",
    "fieldset",
}
CODE_TAGS = ("code", "kbd", "samp", "tt")
STRONG_TAGS = ("strong", "b")
EM_TAGS = ("em", "i", "cite", "dfn")
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
LEAF_BLOCKS = {"h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "pre", "blockquote", "hr", "table", "li"}


class Leaf(NamedTuple):
    """A leaf block: `kind` is the element's name, "run" (inline nodes making a paragraph) or "deep"."""

    kind: str
    node: Any  # Tag, or list[PageElement] for a run
    depth: int


_WS = re.compile(r"[ \t\n\r\f]+")
_RUN_OF_SPACES = re.compile(" {2,}")
_PUNCTUATION = "\\!\"#$%&'()*+,-./:;<=>?@[]^_`{|}~"  # the backslash first, so escapes are not escaped again
_ANY_PUNCTUATION = re.compile("[" + re.escape(_PUNCTUATION) + "]")


def escape(text: str) -> str:
    """Backslash-escape every ASCII punctuation mark so the text stays literal in Markdown."""
    if _ANY_PUNCTUATION.search(text) is None:
        return text
    for mark in _PUNCTUATION:
        if mark in text:
            text = text.replace(mark, "\\" + mark)
    return text


def parse_html(text: str) -> BeautifulSoup:
    """Parse with lxml into BeautifulSoup's tree (copied from lxml's where it can be, see `tree`); deeply nested
    documents are cut off at MAX_DEPTH rather than recursing forever."""
    tags = text.count("<")
    if tags > MAX_TAGS:
        raise NormalizeError(f"page has about {tags:,} tags, more than the {MAX_TAGS:,} differ reads")
    try:
        return build(text) or BeautifulSoup(text, "lxml")
    except RecursionError:
        raise NormalizeError(f"HTML nested too deeply to parse (more than {MAX_DEPTH} levels)")


class Converter:
    """Turns a DOM subtree into Markdown, resolving links against the page URL."""

    def __init__(self, base_url: str = "", tracking: Sequence[str] = ()):
        self.base_url = base_url
        self.tracking = tuple(tracking)

    # -- links ------------------------------------------------------------------------------------------
    def clean_url(self, href: str) -> str | None:
        return _clean_url(self.base_url, self.tracking, href)

    # -- blocks -----------------------------------------------------------------------------------------
    def convert(self, root: Tag) -> str:
        return "\n\n".join(b for b in self.blocks(root, 0) if b.strip()) + "\n"

    def blocks(self, node: Tag, depth: int) -> list[str]:
        """The Markdown blocks of a container, gathering runs of inline content into paragraphs."""
        return [text for leaf in self.leaves(node, depth) for text in self.leaf(leaf)]

    def leaves(self, node: Tag, depth: int, out: list[Leaf] | None = None) -> list[Leaf]:
        """The leaf blocks of a container in document order: block elements that are not mere containers,
        runs of inline content between them, and, beyond MAX_DEPTH, the container itself as plain text."""
        out = [] if out is None else out
        if depth > MAX_DEPTH:
            out.append(Leaf("deep", node, depth))
            return out
        run: list[PageElement] = []
        # whether the run has more than spacing (a run of spacing between blocks is no paragraph)
        shown = False
        for child in node.contents:
            if isinstance(child, Tag):
                if child.name in BLOCKS:
                    if shown:
                        out.append(Leaf("run", run, depth))
                    run, shown = [], False
                    if child.name in LEAF_BLOCKS:
                        out.append(Leaf(child.name, child, depth + 1))
                    else:
                        self.leaves(child, depth + 1, out)
                    continue
                shown = True
            elif not shown and isinstance(child, str) and child.strip(BeautifulSoup.ASCII_SPACES):
                shown = True
            run.append(child)
        if shown:
            out.append(Leaf("run", run, depth))
        return out

    def leaf(self, leaf: Leaf) -> list[str]:
        """A leaf block as Markdown (none for one with no text)."""
        node, depth = leaf.node, leaf.depth
        if isinstance(node, list):
            text = self.inline_run(node, depth).strip()
            return [text] if text else []
        if leaf.kind == "deep":
            return [escape(_WS.sub(" ", node.get_text(" ")).strip())]
        return self.block(node, depth)

    def block(self, node: Tag, depth: int) -> list[str]:
        name = node.name
        if name in HEADINGS:
            text = self.inline_children(node, depth).strip()
            return [f"{'#' * int(name[1])} {text}"] if text else []
        if name in ("ul", "ol"):
            return [self.list_block(node, depth)]
        if name == "pre":
            return [self.code_block(node)]
        if name == "blockquote":
            inner = "\n\n".join(self.blocks(node, depth))
            return ["\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))] if inner else []
        if name == "hr":
            return ["***"]
        if name == "table":
            return [self.table(node, depth)]
        if name == "li":
            return [self.list_block_items([node], "-", depth)]
        return self.blocks(node, depth)

    def list_block(self, node: Tag, depth: int) -> str:
        items = [c for c in node.children if isinstance(c, Tag) and c.name == "li"]
        stray = [c for c in node.children if isinstance(c, Tag) and c.name in ("ul", "ol")]
        if node.name == "ol":
            return self.list_block_items(items + stray, None, depth, list_start(node))
        return self.list_block_items(items + stray, "-", depth)

    def list_block_items(self, items: list[Tag], bullet: str | None, depth: int, start: int = 1) -> str:
        lines: list[str] = []
        for index, item in enumerate(items):
            marker = bullet if bullet else f"{start + index}."
            content = (
                self.blocks(item, depth + 1) if item.name == "li" else [self.list_block(item, depth + 1)]
            )
            body = ""
            for k, block in enumerate(content):  # a nested list right after the item's text keeps it tight
                tight = block[:2] in ("- ", "* ") or re.match(r"\d+\. ", block) is not None
                body += ("" if k == 0 else "\n" if tight else "\n\n") + block
            pad = " " * (len(marker) + 1)
            first, *rest = body.split("\n") if body else [""]
            lines.append(f"{marker} {first}".rstrip())
            lines.extend(f"{pad}{line}" if line else "" for line in rest)
        return "\n".join(lines)

    def code_block(self, node: Tag) -> str:
        text, lang = code_parts(node)
        longest = max((len(r) for r in re.findall(r"`+", text)), default=0)
        fence = "`" * max(3, longest + 1)
        return f"{fence}{lang}\n{text}\n{fence}"

    def table(self, node: Tag, depth: int) -> str:
        rows: list[list[str]] = []
        for tr in node.find_all("tr"):
            cells = [c for c in tr.children if isinstance(c, Tag) and c.name in ("td", "th")]
            rows.append(
                [self.inline_children(c, depth).strip().replace("|", "\\|").replace("\n", " ") for c in cells]
            )
        rows = [r for r in rows if r]
        if not rows:
            return ""
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "|".join(["---"] * width) + "|"]
        lines.extend("| " + " | ".join(r) + " |" for r in rows[1:])
        return "\n".join(lines)

    # -- inline -----------------------------------------------------------------------------------------
    def inline_children(self, node: Tag, depth: int) -> str:
        return self.inline_run(list(node.children), depth)

    def inline_run(self, nodes: list[PageElement], depth: int) -> str:
        text = self.inline_all(nodes, depth)
        return (_RUN_OF_SPACES.sub(" ", text) if "  " in text else text).strip(" ")

    def inline_all(self, nodes: Iterable[PageElement], depth: int) -> str:
        """Inline nodes in order; code elements side by side make one code span (written apart, their
        backticks would run together into one span with the backticks inside)."""
        out: list[str] = []
        code: list[str] = []
        for node in nodes:
            if isinstance(node, Tag) and node.name in CODE_TAGS and depth <= MAX_DEPTH:
                code.append(node.get_text())
                continue
            if code and isinstance(node, NavigableString) and not node:
                continue
            if code:
                out.append(_code_span("".join(code)))
                code = []
            out.append(self.inline(node, depth))
        if code:
            out.append(_code_span("".join(code)))
        return "".join(out)

    def inline(self, node: PageElement, depth: int) -> str:
        if isinstance(node, NavigableString):
            return escape(_WS.sub(" ", str(node)))
        if not isinstance(node, Tag):
            return ""
        if depth > MAX_DEPTH:
            return escape(_WS.sub(" ", node.get_text(" ")))
        name = node.name
        if name == "br":
            return "\\\n"
        if name == "img":
            src = self.clean_url(str(node.get("src") or ""))
            alt = escape(_WS.sub(" ", str(node.get("alt") or "")).strip())
            return f"![{alt}](<{src}>)" if src else alt
        inner = self.inline_all(node.children, depth + 1)  # code elements are written by inline_all
        if name == "a":
            href = self.clean_url(str(node.get("href") or ""))
            return _wrap(inner, "[", f"](<{href}>)") if href else inner
        if name in STRONG_TAGS:
            return _wrap(inner, "**", "**")
        if name in EM_TAGS:
            return _wrap(inner, "*", "*")
        if name in BLOCKS:
            return " " + inner + " "
        return inner


@lru_cache(maxsize=8192)
def _clean_url(base_url: str, tracking: tuple[str, ...], href: str) -> str | None:
    """An absolute URL without tracking parameters; None for scripts and data (cached: pages repeat links)."""
    href = href.strip()
    if _PLAIN_URL.fullmatch(href):
        return href  # absolute, no query, nothing to escape: what the steps below give back unchanged
    return _resolved(base_url, tracking, href)


_PLAIN_URL = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[A-Za-z0-9._~%/+-]*)?")


def _resolved(base_url: str, tracking: tuple[str, ...], href: str) -> str | None:
    if not href:
        return None
    try:
        scheme = urlsplit(href).scheme.lower()
        url = urljoin(base_url, href) if base_url else href
        parts = urlsplit(url)
    except ValueError:  # an address urllib cannot read (`http://[oops/`): as written, as a browser shows it
        scheme, url, parts = href.partition(":")[0].lower(), href, None
    if scheme in ("javascript", "data", "vbscript"):
        return None
    if parts and parts.query and tracking:
        kept = [
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not any(fnmatch.fnmatchcase(k.lower(), pat.lower()) for pat in tracking)
        ]
        url = urlunsplit(parts._replace(query=urlencode(kept, doseq=True)))
    return url.replace(" ", "%20").replace("<", "%3C").replace(">", "%3E")


def list_start(ol: Tag) -> int:
    """The first number of an ordered list: its `start`, where that is up to 9 ASCII digits (as Markdown
    allows), else 1."""
    start = ol.get("start")
    if isinstance(start, str) and start.isascii() and start.isdigit() and len(start) <= 9:
        return int(start)
    return 1


def code_parts(pre: Tag) -> tuple[str, str]:
    """A <pre>'s code and the language it is in, as it or the two blocks around it name it (`code_language`)."""
    code = pre.find("code")
    source = code if isinstance(code, Tag) else pre
    text = source.get_text().replace("\r\n", "\n").rstrip("\n")
    return text, code_language([source, pre] if source is not pre else [pre], islice(pre.parents, 2))


def _wrap(inner: str, before: str, after: str) -> str:
    """Markup around text, with its outer whitespace kept outside (`<a> #1</a>` → ` [#1](…)`)."""
    stripped = inner.strip(" \n")
    if not stripped or stripped == "\\":
        return inner
    lead = " " if inner[:1] in (" ", "\n") else ""
    trail = " " if inner[-1:] in (" ", "\n") and not inner.endswith("\\\n") else ""
    return f"{lead}{before}{stripped}{after}{trail}"


def _code_span(text: str) -> str:
    text = _WS.sub(" ", text)
    if not text.strip():
        return escape(text)
    longest = max((len(r) for r in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or (text[0] == " " and text[-1] == " ") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


_META = {"og:title": "title", "article:published_time": "published", "article:modified_time": "modified"}


# `<meta http-equiv="refresh" content="0; url=https://…">`: the delay in seconds, then where to
_REFRESH = re.compile(r"\s*(\d{1,6}(?:\.\d*)?)\s*[;,]\s*(?:url\s*=\s*)?['\"]?([^'\"\s][^'\"]*)", re.I)
_NAMED = {"generator": "generator"}  # what made the page (Discourse, WordPress): not metadata, a hint
_FEED_TYPES = ("application/rss+xml", "application/atom+xml", "application/feed+json")


def page_head(soup: BeautifulSoup, base_url: str) -> tuple[dict[str, str], list[str], list[tuple[str, str]]]:
    """What the page's <head> says of it, in one walk (call before find_root, which drops the head): its title,
    publication/modification times, generator, the address its links are read against (`<base href>`, as `base`)
    and where a meta refresh sends its readers, the feeds it names
    (`<link rel="alternate" type="application/rss+xml">`) as addresses, and its translations
    (`<link rel="alternate" hreflang="ko">`) as language and address, itself and `x-default` aside."""
    meta: dict[str, str] = {}
    feeds: list[str] = []
    translations: list[tuple[str, str]] = []
    base = base_url  # what addresses are read against: the first <base href>, as in a browser, from there on
    for tag in tags(first_tag(soup, lambda tag: tag.name == "head") or soup):
        if (
            tag.name == "base"
            and "base" not in meta
            and isinstance(href := tag.get("href"), str)
            and href.strip()
        ):
            found = joined(base_url, href.strip())
            if found.startswith(("http://", "https://", "file:")):  # not a script's or data's
                meta["base"] = base = found
        elif tag.name == "meta":
            key = _META.get(str(tag.get("property"))) or _NAMED.get(str(tag.get("name")).lower())
            content = tag.get("content")
            if key and key not in meta and isinstance(content, str):
                meta[key] = content.strip()
            elif str(tag.get("http-equiv", "")).lower() == "refresh" and isinstance(content, str):
                sent = _REFRESH.match(content)  # sent on at once: the page has moved (a reload later is not)
                if sent and float(sent.group(1)) <= 10 and "refresh" not in meta:
                    meta["refresh"] = joined(base, sent.group(2).strip())
        elif tag.name == "link":
            rel, href = tag.get("rel"), tag.get("href")
            rels = [str(r) for r in rel] if isinstance(rel, list) else str(rel or "").split()
            if "alternate" not in rels or not isinstance(href, str) or not href.strip():
                continue
            url = joined(base, href.strip())
            language = tag.get("hreflang")
            if str(tag.get("type", "")).lower() in _FEED_TYPES:
                if url not in feeds:
                    feeds.append(url)
            elif (
                isinstance(language, str)
                and language.strip().lower() not in ("", "x-default")
                and page_key(url) != page_key(base_url)
                and url not in (u for _, u in translations)
            ):
                translations.append((language.strip(), url))
    if "title" not in meta:
        title = first_tag(soup, lambda tag: tag.name == "title")
        if title and title.string:
            meta["title"] = _WS.sub(" ", title.string).strip()
    return meta, feeds, translations


def page_metadata(soup: BeautifulSoup) -> dict[str, str]:
    """The page's title and publication/modification times (`page_head` without the feeds)."""
    return page_head(soup, "")[0]
