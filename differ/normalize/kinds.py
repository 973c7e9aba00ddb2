"""Source kinds, keyed by the `kind` string in config: where to fetch and how to read what comes back.

The first line of each kind's docstring is what `differ kinds` shows users. The kinds that read a page as it is
served (html, markdown, text) are here; `json` is in `jsondoc`, a feed's in `feeds`, and those that read a
platform's API are in `platforms`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from differ import options as opt
from differ.addresses import page_key
from differ.errors import NoContentError, NormalizeError
from differ.fetch.charset import decode
from differ.normalize import frontmatter
from differ.options import Invalid, Option, listed

if TYPE_CHECKING:
    from differ.config import SourceConfig


@dataclass
class Extracted:
    """What a kind read from a response: Markdown (not yet canonical), metadata and notes."""

    markdown: str
    metadata: dict[str, Any] = field(default_factory=dict)
    encoding: str = "utf-8"
    warnings: list[str] = field(default_factory=list)
    canonical: bool = False  # the Markdown is already in canonical form (written so from HTML)
    words: int | None = None  # its visible words, where counted on the way
    root: str = ""  # where on the page the text was read from, said for people choosing a selector
    feeds: list[str] = field(default_factory=list)  # the RSS or Atom feeds an HTML page names
    translations: list[tuple[str, str]] = field(default_factory=list)  # its translations: language, address
    generator: str = ""  # what an HTML page says made it (<meta name="generator">)
    refresh: str = ""  # where an HTML page sends its readers on at once (<meta http-equiv="refresh">)


@dataclass(frozen=True)
class Body:
    """A fetched body with what the kind needs to read it."""

    data: bytes
    content_type: str | None
    url: str
    tracking: tuple[str, ...] = ()
    printed: bool = False  # by a program of the user's (a source's `command`), not served as it is


class SourceKind:
    """Base of source kinds."""

    name: ClassVar[str] = ""
    options: ClassVar[dict[str, Option]] = {}
    accept: ClassVar[str] = "*/*"
    headers: ClassVar[dict[str, str]] = {}  # sent with every request for the kind (a source's own win)
    robots: ClassVar[bool] = True  # whether robots.txt is asked, unless the source says

    @classmethod
    def check(cls, source: SourceConfig) -> None:
        """Cross-field checks at config load time; raise Invalid with a message for users."""

    @classmethod
    def fetch_url(cls, source: SourceConfig) -> str:
        return source.url

    @classmethod
    def extract(cls, body: Body, source: SourceConfig) -> Extracted:
        raise NotImplementedError


SOURCE_KINDS: dict[str, type[SourceKind]] = {}


def source_kind(name: str) -> Callable[[type[SourceKind]], type[SourceKind]]:
    """Register a source kind under `name`."""

    def register(cls: type[SourceKind]) -> type[SourceKind]:
        cls.name = name
        SOURCE_KINDS[name] = cls
        return cls

    return register


def describe(kind: type[SourceKind]) -> str:
    return (kind.__doc__ or "").strip().splitlines()[0]


def _text(body: Body, *, html: bool = False) -> tuple[str, str, list[str]]:
    if not body.data.strip():
        raise NormalizeError("empty body")
    decoded = decode(body.data, body.content_type, html=html)
    # git's test for a binary file: text has no NUL, while images, PDFs and archives soon do; the bytes are
    # tested unless their encoding was told (UTF-16 has NULs), lest a guessed one turn them into letters
    told = decoded.source in ("header", "bom", "meta")
    nul = decoded.text.find("\x00", 0, 8000) if told else body.data.find(b"\x00", 0, 8000)
    if nul >= 0:
        raise NormalizeError(
            f"binary content, not text (a NUL byte at position {nul}); "
            "expected an HTML page, JSON, Markdown or plain text"
        )
    warnings = [f"{decoded.replaced} undecodable bytes replaced"] if decoded.replaced else []
    return decoded.text, decoded.encoding, warnings


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


DISCOURSE_PAGE = (
    "the page is a Discourse topic, read as HTML with its replies: "
    'kind = "discourse" reads the first post alone'
)


def read_html(
    text: str,
    body: Body,
    source: SourceConfig,
    selector: str | None,
    exclude: tuple[str, ...],
    metadata: tuple[str, ...],
    trim: Callable[[Any], None] | None = None,
) -> Extracted:
    """HTML (a page, or a field holding HTML) read to Markdown: the page metadata asked for, the content root
    `selector` picks less what `exclude` drops (and what `trim`, given the root, takes out of it), and where the
    text was read from."""
    from differ.normalize import html as htmlconv
    from differ.normalize.root import find_root
    from differ.normalize.writer import write

    soup = htmlconv.parse_html(text)
    head, feeds, translations = htmlconv.page_head(soup, body.url)
    meta = {k: v for k, v in head.items() if k in metadata}
    theme: list[Any] = []
    root = find_root(soup, selector, exclude, theme)
    if trim is not None:
        trim(root)
    converter = htmlconv.Converter(head.get("base") or body.url, body.tracking)
    written = write(converter, root)
    extracted = (
        Extracted(converter.convert(root), meta)
        if written is None
        else Extracted(written.markdown, meta, canonical=True, words=written.words)
    )
    extracted.root = f'selector "{selector}": {_element(root)}' if selector else _element(root)
    if theme:  # said, so that a reader missing them knows where they went
        extracted.root += f" less the theme's {listed([_element(t) for t in theme], 3)}"
    extracted.feeds = feeds
    extracted.translations = translations
    extracted.generator = head.get("generator", "")
    extracted.refresh = head.get("refresh", "")
    return extracted


def _element(tag: Any) -> str:
    """An element as its start tag shows it, id and first classes only: `<article id="post-1" class="post">`."""
    if tag.name.startswith("["):
        return "the whole page"  # no <body>: a fragment
    shown = f"<{tag.name}"
    if tag.get("id"):
        shown += f' id="{tag["id"]}"'
    classes = tag.get("class") or []
    if classes:
        shown += f' class="{" ".join(classes[:3])}{" …" if len(classes) > 3 else ""}"'
    return shown + (">, less navigation, header, footer, asides and forms" if tag.name == "body" else ">")


def _no_text(selector: str | None, feeds: Sequence[str] = (), url: str = "", printed: bool = False) -> str:
    """Why a page read to nothing: most often, its text is put in by scripts, which differ does not run. A page
    that names a feed may carry the post there, which differ can read; a browser can run the scripts (the
    `command` option), unless one printed the page already."""
    where = f'the element selector "{selector}" matches' if selector else "the page"
    if printed:
        return f"{where} has no text as its command printed it"
    instead = (
        f', or read the post from the feed the page names: url = "{feeds[0]}", kind = "feed", entry = "{url}"'
        if feeds
        else ""
    )
    return (
        f"{where} has no text as served (is it filled in by JavaScript? differ reads the HTML without running "
        f"scripts; point url at a page or API that serves the text{instead}, or have a browser print the page: "
        'command = ["chromium", "--headless", "--dump-dom", "{url}"])'
    )


_SIMPLE_SELECTOR = re.compile(r"([A-Za-z][\w-]*)?(?:#([\w-]+))?((?:\.[\w-]+)*)")


def simple_selector(selector: str) -> tuple[str | None, str | None, str] | None:
    """The element name, id and dotted classes of a selector made of those alone (`article`, `.entry-content`,
    `div#main.post`), which the HTML reader matches in one walk of the tree without soupsieve; else None."""
    simple = _SIMPLE_SELECTOR.fullmatch(selector.strip())
    if simple is None or not any(simple.groups()):
        return None
    name, ident, dotted = simple.groups()
    return name, ident, dotted or ""


def css_problem(selector: str) -> str | None:
    """Why `selector` is not CSS that can be matched, or None. A simple selector needs no check, so soupsieve
    (0.1 s to load) is loaded at start-up only for a configuration that has another kind."""
    if simple_selector(selector):
        return None
    import soupsieve

    try:
        soupsieve.compile(selector)
    except Exception as exc:  # soupsieve's SelectorSyntaxError, or its refusal of a pseudo-class
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return None


HTML_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/xml", "text/xml")
FEED_TYPES = {"application/rss+xml": "an RSS feed", "application/atom+xml": "an Atom feed"}
# What may come before a document's first element: an XML declaration or a stylesheet instruction, a comment, a
# doctype. Each is matched one way only (a comment's text cannot run past its first `-->`), so a page of many
# `<??>` takes time linear in its length, not exponential.
COMMENT = rb"<!--[^-]*(?:-(?!->)[^-]*)*-->"
_PROLOG = rb"(?:\xef\xbb\xbf)?\s*(?:(?:<\?[^?]*(?:\?(?!>)[^?]*)*\?>|" + COMMENT + rb"|<!DOCTYPE[^>]*>)\s*)*+"
_FEED_START = re.compile(_PROLOG + rb"<(rss|feed|rdf:RDF)[\s>/]")
HTML_START = re.compile(
    rb"(?:\xef\xbb\xbf)?\s*(?:" + COMMENT + rb"\s*)*+<(?:!DOCTYPE\s+html|html)[\s>]", re.I
)
FEED_NAMES = {"rss": "an RSS feed", "feed": "an Atom feed", "rdf:RDF": "an RSS feed"}  # by its first element


def starts_as_feed(data: bytes) -> bool:
    """Whether a body's first element is an RSS or Atom feed's."""
    return _FEED_START.match(data[:4096]) is not None


def not_a_page(body: Body, media: str) -> tuple[str, dict[str, str]] | None:
    """What a body the `html` kind was given is instead of a page, with the kind that reads it (a feed, JSON) and
    the settings that would (the first post's link as a feed's entry, the longest text field as the body), or
    None: a URL that serves a feed or an API's JSON is watched through the kind made for it."""
    start = _FEED_START.match(body.data[:4096])
    if start or media in FEED_TYPES:
        return a_feed(FEED_NAMES[start.group(1).decode()] if start else FEED_TYPES[media], body)
    if media == "application/json" or media.endswith("+json"):
        from differ.normalize.jsondoc import load_json, longest_fields, text_fields

        try:
            data = load_json(body)
        except NormalizeError:
            return None
        if is_json_feed(data):
            return a_feed("a JSON Feed", body)
        fields = longest_fields(data)
        said = f'JSON: kind "json" reads it, with field = the path of the body{text_fields(fields)}'
        return said, ({"kind": "json", "field": fields[0][1]} if fields else {})
    return None


def is_json_feed(data: Any) -> bool:
    """Whether parsed JSON is a JSON Feed (jsonfeed.org), which names its version by its address."""
    return isinstance(data, dict) and str(data.get("version", "")).startswith("https://jsonfeed.org/")


def a_feed(name: str, body: Body) -> tuple[str, dict[str, str]]:
    """A feed found where something else was expected, with how to read one of its posts, named by its first, or
    its list of posts, and the settings that read that first post."""
    from differ.normalize.feeds import EVERY_POST, read_feed

    try:
        entries = read_feed(body)[0]
    except NormalizeError:
        entries = []
    first = next((e for e in entries if e.link), None)
    named = f" (the first: {first.shown})" if first else ""
    said = (
        f'{name}: kind "feed" reads one of its posts, with entry = the post\'s link{named}, or its list of posts,'
        f' with entry = "{EVERY_POST}"'
    )
    return said, ({"kind": "feed", "entry": first.link} if first else {})


@source_kind("html")
class HtmlKind(SourceKind):
    """An HTML page; `selector` picks the content root, `exclude` drops parts of it."""

    accept = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"
    options: ClassVar[dict[str, Option]] = {
        "selector": Option(opt.nonempty_string, None, "CSS selector (or XPath) of the content root"),
        "exclude": Option(opt.string_list, (), "CSS selectors (or XPath) of parts to drop"),
        "metadata": Option(
            opt.choice_list("title", "published", "modified"),
            ("title", "published", "modified"),
            "page metadata to keep and compare",
        ),
    }

    @classmethod
    def check(cls, source: SourceConfig) -> None:
        chosen = [("selector", source.option("selector"))] + [
            ("exclude", p) for p in source.option("exclude")
        ]
        # no page reader here: the configuration is read at start-up
        from differ.normalize.selectors import is_xpath

        for key, selector in chosen:
            if selector and is_xpath(str(selector)):
                from differ.normalize import xpath  # lxml, for an XPath selector alone

                problem = xpath.problem(str(selector))
                if problem:
                    raise Invalid(
                        f"expected an XPath expression, found {opt.found(selector)} ({problem})", key=key
                    )
                continue
            problem = css_problem(str(selector)) if selector else None
            if problem:
                raise Invalid(f"expected a CSS selector, found {opt.found(selector)} ({problem})", key=key)

    @classmethod
    def extract(cls, body: Body, source: SourceConfig) -> Extracted:
        media = media_type(body.content_type)
        instead = not_a_page(body, media)
        if instead:
            raise NormalizeError(f"expected an HTML page, got {instead[0]}", read_with=instead[1])
        if media and media not in HTML_TYPES:
            raise NormalizeError(f'expected an HTML page, got Content-Type "{media}"')
        text, encoding, warnings = _text(body, html=True)
        result = read_html(
            text,
            body,
            source,
            source.option("selector"),
            source.option("exclude") or (),
            source.option("metadata") or (),
        )
        if (
            result.refresh
            and page_key(result.refresh) != page_key(body.url)
            and len(result.markdown.split()) < 50
        ):
            raise NormalizeError(
                f"the page sends its readers on to {result.refresh} (a meta refresh): point url at that page",
                read_with={"url": result.refresh},
            )
        if not any(c.isalnum() for c in result.markdown):
            raise NoContentError(
                _no_text(source.option("selector"), result.feeds, body.url, printed=body.printed)
            )
        if result.generator.startswith("Discourse"):  # its page for readers without scripts lists the replies
            warnings = [*warnings, DISCOURSE_PAGE]
        result.encoding, result.warnings = encoding, warnings
        return result


@source_kind("markdown")
class MarkdownKind(SourceKind):
    """A Markdown document; YAML or TOML front matter is metadata, compared apart from the body."""

    accept = "text/markdown,text/plain;q=0.9,*/*;q=0.5"
    options: ClassVar[dict[str, Option]] = {
        "metadata": Option(
            opt.string_list,
            frontmatter.DEFAULT_KEYS,
            'front matter fields to keep and compare ("*": all)',
        ),
    }

    @classmethod
    def extract(cls, body: Body, source: SourceConfig) -> Extracted:
        _not_a_file(body, "a Markdown file")
        text, encoding, warnings = _text(body)
        front = frontmatter.split(text, source.option("metadata"))
        if front.warning:
            warnings.append(front.warning)
        return Extracted(front.body, front.fields, encoding, warnings)


@source_kind("text")
class TextKind(SourceKind):
    """Plain text; every non-empty line is a paragraph, kept literally."""

    accept = "text/plain,*/*;q=0.5"

    @classmethod
    def extract(cls, body: Body, source: SourceConfig) -> Extracted:
        _not_a_file(body, "plain text")
        text, encoding, warnings = _text(body)
        return Extracted(text_to_markdown(text), {}, encoding, warnings)


def _not_a_file(body: Body, expected: str) -> None:
    """Refuse an HTML page served where a file was expected (a site's error or sign-in page, a file moved and its
    address now a page about it), which read as text would be stored as a version of markup."""
    if media_type(body.content_type) in ("text/html", "application/xhtml+xml") and HTML_START.match(
        body.data[:1024]
    ):
        raise NormalizeError(
            f'expected {expected}, got an HTML page: is the address still the file\'s? (kind "html" reads a page)'
        )


def text_to_markdown(text: str) -> str:
    from differ.normalize.html import escape

    lines = [escape(" ".join(line.split())) for line in text.splitlines()]
    return "\n\n".join(line for line in lines if line) + "\n"
