"""What a page added is watched as and called: the address (a forge's file, a link as shared), its kind, and the
ids of its document and source, from its address, unique among those the file and the store hold."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from differ.addresses import SHARED_TRACKING, page_key
from differ.config import Config, SourceConfig
from differ.errors import UsageError
from differ.options import web_address

_NOT_ID = re.compile(r"[^a-z0-9_-]+")
_PAGE_SUFFIXES = {".html", ".htm", ".xhtml", ".php", ".asp", ".aspx", ".md", ".markdown", ".json", ".txt"}


def address_to_watch(url: str) -> tuple[str, str]:
    """The address differ watches for a URL as given, and why it is another ("" when it is not): a forge's page
    of a file is the file itself; a link as shared, the page it names. What is no address stays as given, for
    the configuration's check to refuse as typed."""
    from differ.compare import raw_file

    raw = raw_file(url)
    if raw:
        return raw, "the file itself, not the page the forge shows it in"
    plain = plain_address(url)
    if plain == url or web_address(plain) is None:
        return url, ""
    dropped = ["#fragment"] * ("#" in url) + ["tracking parameters"] * (plain != url.split("#")[0])
    return plain, f"the link's {' and '.join(dropped)} left out"


def plain_address(url: str) -> str:
    """The address of the page a URL as pasted names: without its fragment (never sent to the server) or the
    tracking parameters of a link shared on social media or by mail (`utm_source`, `fbclid`); the rest as written."""
    base = url.partition("#")[0]
    path, _, query = base.partition("?")
    pairs = [p for p in query.split("&") if p]
    kept = [p for p in pairs if not p.split("=", 1)[0].lower().startswith(SHARED_TRACKING)]
    if len(kept) == len(pairs):
        return base
    return path + ("?" + "&".join(kept) if kept else "")


def watch_key(url: str, entry: Any = None) -> str:
    """What one watched page is: its URL, and for a feed, the entry in it (one feed carries many posts)."""
    return f"{url} (entry {entry})" if entry else url


def same_page(url: str, entry: Any = None) -> str:
    """`watch_key` of the page however its URL is spelled (`http:`, `www.`, a trailing slash, `utm_`)."""
    return watch_key(page_key(url), entry)


def page_kind(url: str, settings: Mapping[str, Any]) -> str:
    """The kind of a page added without one: a feed's when an entry is chosen or the address is a feed's by
    its usual names (`feed.xml`, `atom.xml`, `feed.json`, `….rss`, WordPress's `/feed/`), a forge's release
    page's, else what the URL's suffix says (`.json`, `.md`, `.txt`), html when it says nothing."""
    from differ.compare import SUFFIX_KINDS, url_kind

    if web_address(url) is None:
        return "html"  # no address to read a kind from: refused as such by the configuration's check
    name = PurePosixPath(urlsplit(url).path).name.lower()
    if "entry" in settings or name in FEED_FILES or PurePosixPath(name).suffix in (".rss", ".atom"):
        return "feed"  # an entry is chosen only in a feed
    return url_kind(url) or SUFFIX_KINDS.get(PurePosixPath(name).suffix, "html")


FEED_FILES = {"feed", "rss", "atom", "feed.xml", "rss.xml", "atom.xml", "feed.json", "feed.atom", "feed.rss"}


def needs(kind: str, settings: Mapping[str, Any]) -> tuple[str, str] | None:
    """The option a source of `kind` must have that `settings` lack, with its help, or None."""
    from differ.normalize import SOURCE_KINDS

    options = SOURCE_KINDS[kind].options if kind in SOURCE_KINDS else {}
    return next(((n, o.help) for n, o in options.items() if o.required and n not in settings), None)


def source_table(url: str, kind: str | None, settings: Mapping[str, Any]) -> dict[str, Any]:
    """A source's table: its URL, its kind when not html (guessed from the URL when not given), its options.
    A kind that needs an option not given is a UsageError saying how to give it."""
    kind = kind or page_kind(url, settings)
    missing = needs(kind, settings)
    if missing:
        name, help = missing
        whole = ", or --kind text to watch the whole document as text" if kind == "json" else ""
        raise UsageError(f"{url}: a {kind} page needs {name} ({help}): add it with --set {name}=…{whole}")
    table: dict[str, Any] = {"url": url}
    if kind != "html":
        table["kind"] = kind
    table.update(settings)
    return table


def private_note(source: SourceConfig) -> str | None:
    """Why `source` will be refused as written, when its host is plainly not public: an IP literal of a
    loopback or private network, or `localhost` (names are not resolved here; the fetch checks them)."""
    import ipaddress

    from differ.fetch.netguard import refusal

    host = (urlsplit(source.url).hostname or "").lower()
    literal = "127.0.0.1" if host == "localhost" or host.endswith(".localhost") else host
    try:
        reason = refusal(ipaddress.ip_address(literal), source.allow_private)
    except ValueError:
        return None
    if reason is None:
        return None
    return (
        f"{host} is a {reason} address, which differ refuses to fetch unless the source allows it: "
        f"differ set {source.key} allow_private=true"
    )


def stored_urls(config: Config) -> dict[str, str]:
    """The URL each source in the store was last fetched from, by key: an id the store holds for another
    page is not given to a new one, so two pages never share one history (the same page, added again after
    `differ remove`, takes its history up again)."""
    from differ.errors import DifferError
    from differ.store import Store

    if not config.service.snapshots.is_dir():
        return {}
    store = Store(config.service.snapshots)
    urls = {}
    for key in store.source_keys():
        try:
            latest = store.latest(key)
        except DifferError:
            latest = None
        if latest is not None:  # a source never stored has no history to mix
            urls[key] = str(latest.record.get("url", ""))
    return urls


def translation_language(config: Config, canonical: str, url: str) -> str | None:
    """The language the canonical page gives `url` as its translation (`<link rel="alternate" hreflang>`, kept
    by each check), as an id: `ko`, `pt-br`."""
    from differ.config.model import named_translations
    from differ.store import Store

    if not config.service.snapshots.is_dir():
        return None
    named = named_translations(Store(config.service.snapshots).state(canonical).get("translations"))
    return next((_id(lang) or None for lang, at in named if page_key(at) == page_key(url)), None)


def document_id(url: str, entry: Any = None) -> str:
    """A new document's id: a feed's post named by its own address, a feed's list of posts (`entry = "*"`) by
    its host (`blog-rust-lang-org-posts`), any other page by its URL (`slug`)."""
    from differ.normalize.feeds import EVERY_POST

    if entry == EVERY_POST:
        return f"{host_id(url)}-posts"
    return slug(str(entry or url))


def slug(url: str) -> str:
    """A document id from a post's URL: its last path segment (`pytorch-2-13-release-blog`), else its host; a
    GitHub or GitLab release is named by its repository and tag (`pytorch-v2-13-0`, `rust-latest`)."""
    from differ.normalize.platforms import GitHubKind, GitLabKind

    if web_address(url) is None:
        return "page"  # no address to name it by: refused as such by the configuration's check
    parts = urlsplit(url)
    segments = [s for s in unquote(parts.path).split("/") if s]
    # a forum's topic after its number (`/t/pytorch-2-13/1234`, `/t/pytorch-2-13/1234/5`): named by its slug
    named = [k for k, segment in enumerate(segments) if not segment.isdigit()]
    if named and _SLUG.search(segments[named[-1]]):
        segments = segments[: named[-1] + 1]
    release = GitHubKind.document_id(url) or GitLabKind.document_id(url)
    name = release or (segments[-1] if segments else "")
    if PurePosixPath(name).suffix.lower() in _PAGE_SUFFIXES:
        name = PurePosixPath(name).stem  # `Rust-1.66.0` keeps its `.0`
    if not release and name.lower() in _SCRIPTS:  # `index.php?p=123`: the page is its query's
        asked = [v for k, v in parse_qsl(parts.query) if not k.lower().startswith(SHARED_TRACKING)]
        name = "-".join([host_id(url), *asked[:1]])
    return _id(name) or host_id(url)


_SLUG = re.compile(r"[A-Za-z].*[-_]|[-_].*[A-Za-z]")  # words joined: a title made an address
_SCRIPTS = {"index", "default", "view", "show", "viewtopic", "showthread"}


def host_id(url: str) -> str:
    """A mirror id from its host: `wpnews.pro` → `wpnews-pro`, `www.` left out."""
    host = (urlsplit(url).hostname or "").removeprefix("www.")
    return _id(host.replace(".", "-")) or "source"


# a language a site names in a translation's address: `/de/…`, `/pt-br/…`, `ko.example.org`
_LOCALE = re.compile(r"([a-z]{2})(?:[-_][a-z]{2,4})?")


def mirror_id(url: str) -> str:
    """A mirror id: the language its address names, as a site names its translations (`example.org/de/post`
    → `de`, `ja.example.org` → `ja`, `/zh-cn/…` → `zh-cn`), else its host (`host_id`); a host that names a
    machine rather than a site (an IP address, `localhost`), by the page itself (`slug`: `wpnews` for
    `http://10.0.0.5:8000/wpnews.json`)."""
    import ipaddress

    from differ.config.model import LANGUAGES

    if web_address(url) is None:
        return "mirror"  # no address to name it by: refused as such by the configuration's check
    parts = urlsplit(url)
    labels = (parts.hostname or "").removeprefix("www.").split(".")
    segments = [s for s in unquote(parts.path).lower().split("/") if s]
    for part in ([labels[0]] if len(labels) > 2 else []) + segments[:2]:
        m = _LOCALE.fullmatch(part)
        # `/id/123` is more often a number's place than Indonesian
        if m and m[1] in LANGUAGES and m[1] != "id":
            return _id(part.replace("_", "-"))
    host = parts.hostname or ""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if host != "localhost":
            return host_id(url)
    return slug(url) if segments else host_id(url)


def unique(base: str, taken: set[str]) -> str:
    """`base`, or `base-2`, `base-3`, … when it is taken."""
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        suffix = f"-{n}"
        candidate = base[: 64 - len(suffix)] + suffix
    return candidate


def _id(text: str) -> str:
    return _NOT_ID.sub("-", text.lower()).strip("-_")[:64].strip("-_")
