"""Normalize: every kind of source to one canonical Markdown, stable under page noise.

body ──kind.extract──▶ Markdown ──canonicalize──▶ canonical Markdown ──languages──▶ kept blocks
"""

from __future__ import annotations

import pkgutil
import re
import sys
from dataclasses import dataclass, field
from importlib.machinery import EXTENSION_SUFFIXES
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

from differ.errors import NormalizeError
from differ.normalize import feeds as _feeds  # noqa: F401  (registers feed)
from differ.normalize import jsondoc as _jsondoc  # noqa: F401  (registers json)
from differ.normalize import platforms as _platforms  # noqa: F401  (registers wordpress, discourse, github, gitlab)
from differ.normalize.kinds import SOURCE_KINDS, Body, Extracted, SourceKind, describe, source_kind

#: Bumped whenever the canonical form of some input changes; stored with every version.
# 5: a paragraph that begins with three tildes stays text (it was written as a code fence)
# 6: quotes and lists nested past 40 levels are read as text (markdown-it dropped what lay past its maxNesting)
# 7: markdown-it-py 4.3 and mdformat 1.0 (CommonMark 0.31: `£`, `€` are punctuation beside `*`; `<!-->` is a
#    comment); the same Markdown for every page of the corpus, the replay and the tests; a `file:` link is a link
#    (it was literal text); a JSON metadata field of over 10,000 values is its digest, NaN the text "nan"
# 8: `languages` naming a Latin-script language keeps only its blocks on a page in two such languages (told by
#    their short words); every other page reads as with 7
# 9: `languages` naming only languages of a script other than Latin keeps, on a page that has them, the code and
#    the Latin headings over their text (given once for both halves)
# 10: a page's links are read against its <base href> when it has one, as a browser reads them
# 11: a tab panel hidden until its tab is chosen is read, as the other tabs' content is
# 12: a feed's list of posts is newest published first when every entry says when (an edit does not move it)
# 13: `languages` naming only languages of a script other than Latin keeps, too, the list items and tables of
#     names alone (no short word of any language) in the sections it keeps; every other page reads as with 12
# 14: and a paragraph of names alone (a feature's title, "CUDA", over its Korean paragraph) but one whose names
#     the Korean block before it has; every other page reads as with 13
# 15: with no selector, an article's or a section's own <header> (its title) is read, and the comments, share
#     buttons, related posts and sidebars a blog's theme puts under or beside a post (by their usual names) are not
# 16: and the byline over a post (`byline`, `entry-meta`, `post-meta`, …), with a theme's parts named on a <p> too
# 17: a link to a place on the page that says nothing in words (a heading's ¶, a footnote's ↩) is left out, and
#     a heading's words linked to itself are its words; a footnote's mark reads `faster[1]`, not `faster1`, and a
#     Zola footnote's number leads its text; code laid out beside its line numbers is read as the code alone; a
#     table of contents is left out; an emoji drawn as an image is read as its alt text, and an image loaded by a
#     script as the image its `data-src` names; the reading time and a wiki's [edit] are left out; with no
#     selector, a post's tags, its author's box, its footer and a dated line in an article's header (its byline,
#     however named) too; a code block's language is read from the blocks around it (GitHub's, Sphinx's)
# 18: and from Jekyll's (`language-python highlighter-rouge`), from `data-language`, `brush: python` and pandoc's
#     `sourceCode python`; a class that only starts like a language's (`highlighted`) names none; the line
#     Discourse sets under an image it enlarges and a poll's count of voters are left out, its preview of a link
#     is the link and its quote of a post the quote; a Discourse post's raw Markdown is read as its page shows it
#     (an image's `|690x388`, the `[details]`, `[quote]`, `[poll]`, `[spoiler]` tags, a link alone on its line);
#     a feed's entry is read less what the feed sets under each post (a last link to the post itself, a Discourse
#     topic's count of posts); the date a documentation generator reads from git (Docsy, MkDocs Material,
#     Docusaurus) and a post's count of its views (`post-views`) are left out; with no selector, the links to the
#     posts before and after it (`post-navigation`, Furo's `related-pages`) too; a GitHub release's bare addresses
#     of issues, pull requests and commits read as `#26`, `owner/repo#7`, `a5c3785`, as its page shows them
# 19: a date Discourse shows in each reader's time zone reads as its author set it (`2026-07-22 18:00
#     (America/Los_Angeles)`), from its page's `discourse-local-date` and its raw `[date=…]`/`[date-range …]` alike
# 20: a GitLab release's bare addresses of issues, merge requests and commits read as `#26`, `!45`, `a5c3785e`
#     (`group/project#7` in another project), as its page shows them
NORMALIZER_VERSION = 20

# A page nested to the 400 levels the HTML reader keeps takes about 3,000 frames of the writer's recursion run
# as Python (`pip install .`, DIFFER_COMPILE=0); compiled, it counts none. Python 3.11 keeps such frames off the
# C stack, so the limit is raised rather than the same page read two ways.
RECURSION_LIMIT = 4000
if sys.getrecursionlimit() < RECURSION_LIMIT:
    sys.setrecursionlimit(RECURSION_LIMIT)

# The readers (BeautifulSoup, lxml, markdown-it, mdformat) load on first use, so that a check that finds
# nothing new, and every command that reads no page, starts without them.

if TYPE_CHECKING:
    from differ.config import SourceConfig

__all__ = [
    "NORMALIZER_VERSION",
    "SOURCE_KINDS",
    "Body",
    "Extracted",
    "Normalized",
    "SourceKind",
    "compiled_modules",
    "describe",
    "normalize",
    "source_kind",
]


@dataclass
class Normalized:
    """The canonical Markdown of one fetch, its metadata, and what was noticed on the way."""

    markdown: str
    metadata: dict[str, Any] = field(default_factory=dict)
    invisible: list[dict[str, Any]] = field(default_factory=list)
    encoding: str = "utf-8"
    warnings: list[str] = field(default_factory=list)
    normalizer: int = NORMALIZER_VERSION
    ignored: int = 0  # matches of the source's `ignore` patterns left out
    root: str = field(default="", compare=False)  # where on the page the text was read from (HTML)
    feeds: list[str] = field(default_factory=list, compare=False)  # the RSS or Atom feeds an HTML page names
    # the translations an HTML page names (<link rel="alternate" hreflang>): language, address
    translations: list[tuple[str, str]] = field(default_factory=list, compare=False)
    generator: str = field(default="", compare=False)  # what an HTML page says made it (WordPress, Discourse)

    counted: int | None = field(default=None, repr=False, compare=False)  # words, where counted on the way

    @property
    def words(self) -> int:
        """Visible words, counted once (functools.cached_property would serialize threads on one lock)."""
        if self.counted is None:
            from differ.normalize.canonical import plain_words

            self.counted = len(plain_words(self.markdown))
        return self.counted


MAX_MARKDOWN = 5_000_000  # characters of extracted text; a release post is a few tens of thousands


def normalize(body: Body, source: SourceConfig) -> Normalized:
    """Read a fetched body the way its source kind says, and canonicalize it. A page nested past what Python's
    stack holds is a NormalizeError like any page that does not read, said alike wherever it is read."""
    try:
        return _normalize(body, source)
    except RecursionError:
        raise NormalizeError("page nested too deeply to read") from None


def _normalize(body: Body, source: SourceConfig) -> Normalized:
    from differ.normalize.canonical import Canonical, canonicalize
    from differ.normalize.language import in_languages

    extracted = SOURCE_KINDS[source.kind].extract(body, source)
    if len(extracted.markdown) > MAX_MARKDOWN:
        raise NormalizeError(
            f"content of {len(extracted.markdown):,} characters is more than the "
            f"{MAX_MARKDOWN:,} differ compares"
        )
    canonical = Canonical(extracted.markdown) if extracted.canonical else canonicalize(extracted.markdown)
    markdown = canonical.text
    if source.languages:
        markdown = in_languages(markdown, source.languages)
    ignored = 0
    if source.ignore:
        kept, ignored = leave_out(markdown, source.ignore)
        markdown = canonicalize(kept).text if ignored else markdown
    return Normalized(
        markdown,
        extracted.metadata,
        canonical.invisible,
        extracted.encoding,
        extracted.warnings,
        ignored=ignored,
        root=extracted.root,
        feeds=extracted.feeds,
        translations=extracted.translations,
        generator=extracted.generator,
        counted=None if source.languages or ignored else extracted.words,  # filtering changes the count
    )


def leave_out(markdown: str, patterns: tuple[str, ...]) -> tuple[str, int]:
    """Remove every match of `patterns` from each line of the Markdown; a line a match left without a letter
    or digit is dropped. Returns the text and how many matches were removed."""
    compiled = [re.compile(p) for p in patterns]
    lines = []
    removed = 0
    for line in markdown.split("\n"):
        for pattern in compiled:
            line, n = pattern.subn("", line)
            removed += n
            if n and not any(c.isalnum() for c in line):
                line = ""
        lines.append(line)
    return "\n".join(lines), removed


def compiled_modules() -> list[str]:
    """The normalize modules that run as compiled code (mypyc; see setup.py) rather than as Python, found
    without importing them."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        spec = find_spec(f"{__name__}.{info.name}")
        if spec and (spec.origin or "").endswith(tuple(EXTENSION_SUFFIXES)):
            found.append(info.name)
    return found
