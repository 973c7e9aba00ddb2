"""What a reader reads apart from a post's words, or not at all: a heading's permalink (`¶`), a table of contents
made of the headings, the time it takes to read, a footnote's mark and its way back, the line numbers a site
generator sets beside code, an emoji drawn as an image, an image a script loads, a forum's preview of a link; and
the language a block of code is in, however its highlighter names it. Each element of the content is shown to
`tidy` as the page's furniture is taken out (one walk for both); what has to be set otherwise is done by `settle`
once the walk is over, since the tree is not changed while it is walked."""

from __future__ import annotations

import re
from collections.abc import Iterable

from bs4 import Tag
from bs4.element import NavigableString

HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})

# Code laid out as a table beside its line numbers: Pygments (Sphinx, MkDocs, Jekyll), Hugo's Chroma, Jekyll's
# Rouge, highlight.js's line-numbers plugin, GitHub's gists; and the cells the numbers are in.
CODE_TABLES = frozenset({"highlighttable", "lntable", "rouge-table", "hljs-ln", "js-file-line-container"})
NUMBER_CELLS = frozenset({"linenos", "gutter", "hljs-ln-numbers", "blob-num", "line-numbers", "lineno"})
INLINE_NUMBERS = frozenset({"ln", "lineno", "linenos", "line-number"})  # Chroma's, Pygments' `inline` numbers
# A table of contents, by the names its makers give it: Easy Table of Contents (WordPress), kramdown's `{:toc}`,
# Hugo's, LuckyWP's, and the usual `toc`; and the role that says so (docutils).
TOC_NAMES = frozenset(
    {
        "toc",
        "ez-toc-container",
        "table-of-contents",
        "markdown-toc",
        "TableOfContents",
        "lwptoc",
        "toc-container",
    }
)
# The time a post takes to read, which a theme or a plugin (Reading Time WP's `rt-reading-time`) works out from
# its words: an edit that adds a sentence would change it too; a wiki's `[edit]` beside each heading; the count
# of a Discourse poll's voters, which each vote changes, and of a post's views (Post Views Counter's, put into the
# post's own content), which each reader changes; and the date a documentation generator reads from git,
# which a commit that edits nothing a reader sees moves (Docsy's, MkDocs Material's, Docusaurus's).
DERIVED = frozenset(
    {
        "reading-time",
        "rt-reading-time",
        "read-time",
        "post-reading-time",
        "entry-reading-time",
        "mw-editsection",
        "poll-info",
        "post-views",
        "td-page-meta__lastmod",
        "md-source-file",
        "git-revision-date-localized-plugin",
        "theme-last-updated",
    }
)
_HOLDERS = frozenset({"div", "nav", "section", "aside", "ul", "ol", "p", "span"})  # what those are in
_LOOKED_AT = _HOLDERS | {"a", "sup", "table", "img"}  # the elements `tidy` looks at; the others, at once
EMOJI_IMAGES = frozenset({"emoji", "wp-smiley"})  # Discourse's and WordPress's
# A code block's language as its own elements name it (`language-sh`, Discourse's `lang-sh`, GitHub's
# `highlight-source-shell`), and as the blocks around it do, where `lang-` would more likely name the page's
# tongue; the names that name none; and the classes pandoc sets beside the language's (`sourceCode python`).
_OWN_LANGUAGE = re.compile(r"^(?:language|lang|highlight(?:-source)?)-([A-Za-z0-9_+#.-]+)$")
_AROUND_LANGUAGE = re.compile(r"^(?:language|highlight(?:-source)?)-([A-Za-z0-9_+#.-]+)$")
_NO_LANGUAGE = frozenset({"default", "none", "text", "plaintext", "nohighlight"})
_PANDOC = frozenset({"sourceCode", "numberSource", "numberLines"})
_BARE_LANGUAGE = re.compile(r"[A-Za-z0-9_+#.-]+")


def tidy(tag: Tag, later: list[Tag], told: list[Tag]) -> bool:
    """Whether an element is left out: a table of contents, the reading time or a wiki's `[edit]` (put in
    `told` too, for `differ fetch` to name), a link to a place on the page that says nothing in words, a line
    number set inside code. An element read otherwise (a footnote's mark, a heading's words linked to itself, code
    laid out as a table) is put in `later`, for `settle`."""
    name = tag.name
    if name not in _LOOKED_AT:
        return False
    if name == "aside" and discourse_aside(tag):
        later.append(tag)
        return False
    if (name in _HOLDERS and tag.attrs and _named_contents(tag)) or (name in ("ul", "ol") and _contents(tag)):
        told.append(tag)  # derived from the post, not its words
        return True
    if name == "a":
        return _own_link(tag, later)
    if name == "sup":
        if "footnote-definition-label" in classes(tag):
            later.append(tag)
    elif name == "table" and (CODE_TABLES.intersection(classes(tag)) or _numbered(tag)):
        later.append(tag)
    elif name == "img" and tag.attrs:
        if EMOJI_IMAGES.intersection(classes(tag)) and tag.get("alt"):
            later.append(tag)
        else:
            _loaded_later(tag)
    elif name == "span" and tag.attrs:
        named = classes(tag)
        if "discourse-local-date" in named and ISO_DAY.fullmatch(str(tag.get("data-date"))):
            later.append(tag)
        elif INLINE_NUMBERS.intersection(named):
            return _numeral(tag) and any(p.name == "pre" for p in tag.parents)
    return False


def settle(later: list[Tag]) -> None:
    """Set what `tidy` put aside as a reader reads it: a heading's words as its words, a footnote's mark apart
    from the word it follows (`faster[1]`, not `faster1`), a footnote's number before its text (a Zola page's)
    leading it (`[1] The release notes …`, not a paragraph of its own), code laid out beside its line numbers as
    the code alone, an emoji drawn as an image as the emoji (`🎉`, or Discourse's `:tada:`), since the image's
    address changes whenever the site's software does (`…/emoji/15.0.3/…`, `tada.png?v=12`); Discourse's preview of
    a link as the link, its quote of a post as the quote, and a date it shows in each reader's time zone as its
    author set it (`local_date`)."""
    for tag in later:
        if tag.name == "table":
            _code_table(tag)
        elif tag.name == "span":
            attrs = tag.attrs
            shown = local_date(str(attrs["data-date"]), attrs.get("data-time"), attrs.get("data-timezone"))
            tag.replace_with(NavigableString(shown))
        elif tag.name == "aside":
            _read_aside(tag)
        elif tag.name == "img":
            tag.replace_with(NavigableString(str(tag.get("alt"))))  # an emoji as its character, or its name
        elif _to_its_heading(tag, str(tag.attrs.get("href"))):
            tag.unwrap()
        elif label := _note_label(tag.get_text()):
            if tag.name == "a":
                tag.clear()
                tag.append(NavigableString(f"[{label}]"))
                continue
            text = next((s for s in tag.next_siblings if not (isinstance(s, str) and not s.strip())), None)
            if isinstance(text, Tag) and text.name == "p":
                text.insert(0, NavigableString(f"[{label}] "))
                tag.extract()


def local_date(date: str, time: object = None, timezone: object = None) -> str:
    """A date Discourse shows each reader in their own time zone (`[date=2026-07-22 time=18:00:00
    timezone="America/Los_Angeles"]`), as its author set it: `2026-07-22 18:00 (America/Los_Angeles)`, a time with
    no zone in UTC. Its page (whose text is the time in UTC) and its raw Markdown then read alike."""
    shown = date
    if time:
        shown += " " + _WHOLE_MINUTE.sub(r"\1", str(time))
        shown += f" ({timezone})" if timezone else " (UTC)"
    elif timezone:
        shown += f" ({timezone})"
    return shown


ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")  # a date Discourse reads (`2026-07-22`)
_WHOLE_MINUTE = re.compile(r"^(\d{1,2}:\d\d):00$")  # 18:00:00 as 18:00


def discourse_aside(tag: Tag) -> bool:
    """An <aside> of a Discourse post's own: the preview of a link it makes (a onebox: `data-onebox-src`) or a
    post it quotes (`quote`, with the quoted post's `data-username`). Its words, not a page's sidebar."""
    attrs = tag.attrs
    return bool(attrs) and (
        "data-onebox-src" in attrs or ("data-username" in attrs and "quote" in classes(tag))
    )


def _read_aside(aside: Tag) -> None:
    """A onebox as the link the post's author wrote (its preview's title and description are the linked page's,
    and change with it), a quote as its block quote (who wrote it, by their avatar, aside)."""
    src = aside.attrs.get("data-onebox-src")
    if isinstance(src, str) and src:
        aside.clear()
        aside.name, aside.attrs = "p", {}
        link = Tag(name="a", attrs={"href": src})
        link.append(NavigableString(src))
        aside.append(link)
        return
    quoted = aside.find("blockquote")
    if isinstance(quoted, Tag):
        aside.replace_with(quoted.extract())
    else:
        aside.extract()


def _own_link(tag: Tag, later: list[Tag]) -> bool:
    """A link to a place on the page itself that says nothing in words: a heading's permalink (`¶`, `#`, `§`), a
    footnote's way back (`↩`), back to the top (`↑`). Furniture: "Speed ¶" would name a section, and a theme that
    shows the mark on hover only would edit every heading. A heading's words linked to the heading itself and a
    footnote's mark go to `later`."""
    href = tag.attrs.get("href")
    if not isinstance(href, str) or not href.startswith("#"):
        return False
    text = tag.get_text()
    if not any(c.isalnum() for c in text):
        return not any(isinstance(t, Tag) and t.name == "img" for t in tag.descendants)
    if _to_its_heading(tag, href):
        later.append(tag)  # a heading's words made a link to itself: its words (a theme's way to a permalink)
    elif _note_label(text) and (
        (tag.parent is not None and tag.parent.name == "sup")
        or tag.attrs.get("role") == "doc-noteref"
        or any(isinstance(c, Tag) and c.name == "sup" for c in tag.children)
    ):
        later.append(tag)
    return False


def _named_contents(tag: Tag) -> bool:
    """A table of contents, the time the post takes to read, a wiki's `[edit]` or the line Discourse sets under an
    image it enlarges (its file's name, size in pixels and bytes), by its name or role."""
    attrs = tag.attrs
    if attrs.get("role") == "doc-toc" or attrs.get("id") in TOC_NAMES:
        return True
    if "class" not in attrs:
        return False
    named = classes(tag)
    if "meta" in named and tag.parent is not None and "lightbox" in classes(tag.parent):
        return True
    return bool(TOC_NAMES.intersection(named) or DERIVED.intersection(named))


def _contents(listed: Tag) -> bool:
    """A table of contents however named: a list of two links or more, each item a link to a place on the page
    and nothing else (but a list of the same within it). It repeats the headings, so that a heading edited was
    two changes, and a copy without it was told it misses it."""
    return _links_alone(listed) >= 2


CONTENTS_ITEMS = 500  # the most items a list read as a table of contents has
CONTENTS_DEPTH = 6  # and the most lists deep, as headings go: each element is looked at for six lists at most


def _links_alone(listed: Tag) -> int:
    """How many links to places on the page a list holds, when it holds nothing else (but lists of the same),
    at most CONTENTS_ITEMS items in at most CONTENTS_DEPTH lists deep; else -1. Walked without recursion."""
    links = items = 0
    lists = [(listed, 1)]
    while lists:
        at, depth = lists.pop()
        if depth > CONTENTS_DEPTH:
            return -1
        for item in at.children:
            if isinstance(item, NavigableString):
                if item.strip():
                    return -1
                continue
            items += 1
            if not isinstance(item, Tag) or item.name != "li" or items > CONTENTS_ITEMS:
                return -1
            for part in item.children:
                if isinstance(part, NavigableString):
                    if part.strip():
                        return -1
                elif not isinstance(part, Tag):
                    return -1
                elif part.name == "a" and str(part.get("href") or "").startswith("#"):
                    links += 1
                elif part.name in ("ul", "ol"):
                    lists.append((part, depth + 1))
                else:
                    return -1
    return links


LAZY_SOURCES = ("data-src", "data-lazy-src", "data-original")  # lazysizes', a3 Lazy Load's, WP Rocket's, …


def _loaded_later(image: Tag) -> None:
    """An image whose address a script puts in once it is scrolled to (`src` a placeholder, `data-src` the
    image): its address, as a reader's browser shows it. Read by its placeholder, the image was its alt text
    alone, and a theme that took lazy loading up or down changed every image of every post."""
    src = str(image.get("src") or "")
    if src and not src.startswith("data:"):
        return
    for name in LAZY_SOURCES:
        lazy = image.get(name)
        if isinstance(lazy, str) and lazy.strip() and not lazy.startswith("data:"):
            image["src"] = lazy
            return


def _to_its_heading(link: Tag, href: str) -> bool:
    """Whether a link is a heading's words linked to that heading (`<h2 id="speed"><a href="#speed">…`)."""
    heading = link.parent
    return heading is not None and heading.name in HEADINGS and heading.attrs.get("id") == href[1:]


def _note_label(text: str) -> str:
    """A footnote's label as its mark shows it (`1`, `[2]`, `a`): up to four letters or digits; else ""."""
    label = text.strip()
    if label[:1] == "[" and label[-1:] == "]":
        label = label[1:-1]
    return label if 0 < len(label) <= 4 and label.isalnum() else ""


def _code_table(table: Tag) -> None:
    """A table that lays code out beside its line numbers, a row for the block or a row a line, becomes the
    code alone: a <pre> in its place (or its text, in a <pre> already), in the language the code or the block
    around it names. Read as a table, the numbers were words of the code, and a line put in at the top edited
    every number after it."""
    rows = [t for t in table.find_all("tr") if isinstance(t, Tag)]
    code: list[Tag] = []
    for row in rows:
        cells = [c for c in row.children if isinstance(c, Tag) and c.name in ("td", "th")]
        kept = [c for c in cells if not _numbers(c)]
        if len(cells) < 2 or len(kept) != 1:
            return
        code.append(kept[0])
    named = CODE_TABLES.intersection(classes(table))
    if not code or not (named or all(c.find("pre") is not None for c in code)):
        return
    text = "\n".join(_code_text(c) for c in code)
    if any(p.name == "pre" for p in table.parents):  # Rouge's, inside the <pre><code> that names the language
        table.replace_with(NavigableString(text))
        return
    language = code_language(code[0].find_all(["pre", "code"]), [table, *list(table.parents)[:3]])
    table.clear()
    table.name = "pre"
    table.attrs = {"class": f"language-{language}"} if language else {}
    table.append(NavigableString(text))


def _numbered(table: Tag) -> bool:
    """Whether a table's first cell (looked for among its first rows' elements alone, so that every table costs
    the same) is one of line numbers beside a cell of code."""
    for part in table.children:
        rows = part.children if isinstance(part, Tag) and part.name in ("tbody", "thead") else [part]
        for row in rows:
            if isinstance(row, Tag) and row.name == "tr":
                cells = [c for c in row.children if isinstance(c, Tag) and c.name in ("td", "th")]
                return len(cells) == 2 and _numbers(cells[0]) and cells[1].find("pre") is not None
    return False


def _numbers(cell: Tag) -> bool:
    """A cell of line numbers: so named, or its text digits alone (none, where the numbers are drawn by CSS)."""
    return bool(NUMBER_CELLS.intersection(classes(cell))) or _numeral(cell)


def _numeral(tag: Tag) -> bool:
    return all(c.isdigit() or c.isspace() for c in tag.get_text())


def _code_text(cell: Tag) -> str:
    pre = cell.find("pre")
    return (pre if isinstance(pre, Tag) else cell).get_text().replace("\r\n", "\n").rstrip("\n")


def code_language(own: Iterable[Tag], around: Iterable[Tag]) -> str:
    """The language a block of code is in: as its own elements name it (`data-lang`, `data-language`,
    `language-sh`, `lang-sh`, SyntaxHighlighter's `brush: python`, pandoc's `sourceCode python`), else as the blocks
    around it do (Jekyll's `language-python highlighter-rouge`, GitHub's `highlight-source-shell`, Sphinx's
    `highlight-python`, MkDocs' `language-python highlight`), a name that names none passed over; "" for none."""
    own = [t for t in own if isinstance(t, Tag)]
    for tag in own:
        for attr in ("data-lang", "data-language"):
            value = tag.get(attr)
            if isinstance(value, str) and value.strip():
                return value.strip()
    for tag in own:
        names = classes(tag)
        for i, name in enumerate(names):
            m = _OWN_LANGUAGE.match(name)
            if m:
                return m[1]
            if name.startswith("brush:"):  # `brush: python; gutter: false`, split at its spaces
                value = (name[6:] or (names[i + 1] if i + 1 < len(names) else "")).rstrip(";")
                if _BARE_LANGUAGE.fullmatch(value):
                    return value
        if "sourceCode" in names:
            bare = [n for n in names if n not in _PANDOC and _BARE_LANGUAGE.fullmatch(n)]
            if bare:
                return bare[0]
    for tag in around:
        if isinstance(tag, Tag):
            for name in classes(tag):
                m = _AROUND_LANGUAGE.match(name)
                if m and m[1] not in _NO_LANGUAGE:
                    return m[1]
    return ""


def classes(tag: Tag) -> list[str]:
    """An element's classes as a list, however its parser kept them."""
    value: object = tag.get("class") or []
    return list(value) if isinstance(value, list) else [str(value)]
