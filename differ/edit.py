"""`differ add`, `differ import`, `differ notify add`, `differ set`, `differ notify set` and `differ remove`:
put new documents, notifiers, or a mirror of a document into config.toml, change their options, or take one
out, without opening an editor. The file is edited as text (its comments and layout stay; `tomltext` finds the
tables and writes the values), and the result must read back as a valid configuration, with the change made and
nothing else changed, before it replaces the old file. The store is never touched: a page no longer watched
keeps its history."""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from differ import tomltext
from differ.addresses import SHARED_TRACKING, page_key
from differ.config import ENV_REFERENCE, Config, SourceConfig, parse_config
from differ.errors import ConfigError, UsageError
from differ.options import web_address

NEW_FILE = "# differ's configuration; README.md lists every option. Check it with: differ config check\n"
_PAUSED = re.compile(r"^\s*paused\s*=")
_NOT_ID = re.compile(r"[^a-z0-9_-]+")
_PAGE_SUFFIXES = {".html", ".htm", ".xhtml", ".php", ".asp", ".aspx", ".md", ".markdown", ".json", ".txt"}


@dataclass(frozen=True)
class Removed:
    """What `remove_source` took out: a document (with its sources) or one mirror, by key."""

    name: str
    keys: tuple[str, ...]
    document: bool


# Called with a configuration's new text and the keys of the sources it adds, before it is written.
BeforeWrite = Callable[[str, list[str]], None]


@dataclass(frozen=True)
class Added:
    """What `add_source` wrote: the new source's key, whether it started a document, and a note for the user
    when the source will not fetch as written (a loopback or private address without allow_private)."""

    key: str
    new_document: bool
    note: str | None = None


@dataclass(frozen=True)
class Page:
    """A page to add as the canonical of a new document: its URL, and what `differ add` takes besides."""

    url: str
    title: str | None = None
    kind: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class Notifier:
    """A [[notify]] table to add: its kind and options, and the pages (by URL) it alerts for, every one when
    None."""

    kind: str
    settings: Mapping[str, Any]
    pages: tuple[str, ...] | None = None
    note: str = ""  # what the user still has to do (set an environment variable, say)


@dataclass(frozen=True)
class AddedNotifier:
    name: str
    kind: str
    documents: tuple[str, ...] | None  # None: every document
    note: str = ""


def add_source(
    path: Path,
    url: str,
    *,
    to: str | None = None,
    id: str | None = None,
    title: str | None = None,
    kind: str | None = None,
    settings: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    before_write: BeforeWrite | None = None,
) -> Added:
    """Add `url` to the configuration at `path` (made if missing): as the canonical of a new document, or with
    `to` as a mirror of that document. Raises ConfigError, leaving the file as it was, when the result would
    not be a valid configuration. `before_write` is called with the new text and the new source's key just
    before the file is written; what it raises leaves the file as it was."""
    if to is None:
        page = Page(url, title, kind, settings or {}, id)
        return add_documents(path, [page], env, before_write=before_write).sources[0]
    once = _once(before_write, path)

    def edit() -> Added:
        return _add_mirror(path, url, to, id, title, kind, settings or {}, env, once)

    return _again(edit)


def _add_mirror(
    path: Path,
    url: str,
    to: str,
    id: str | None,
    title: str | None,
    kind: str | None,
    settings: Mapping[str, Any],
    env: Mapping[str, str] | None,
    before_write: BeforeWrite | None,
) -> Added:
    """`add_source` for a mirror, from the file as it is now."""
    env = os.environ if env is None else env
    text, config, read_as = _open(path, env)
    target = config.document(to)  # names the configured documents when there is no such one
    to = target.id  # the document may be named by its page's URL
    same = _watched_by([s for s in config.sources() if s.document == to], url, settings.get("entry"))
    if same is not None:
        raise UsageError(
            _already_watched(url, settings.get("entry"), same) + _to_change(same, kind, settings)
        )
    table = _table(url, kind, settings)
    stored = _stored_urls(config)
    if title is not None:
        raise UsageError("--title names a new document; a mirror takes its document's title")
    elsewhere = {key.split("/")[1] for key, was in stored.items() if key.startswith(f"{to}/") and was != url}
    configured = {s.id for s in target.sources}
    # the same page added again after `differ remove` takes its history up again, under the id it had
    again = [
        k.split("/")[1]
        for k, was in stored.items()
        if k.startswith(f"{to}/") and was == url and k.split("/")[1] not in configured
    ]
    named = _translation_language(config, target.canonical.key, url)
    source_id = id or (again[0] if again else unique(named or mirror_id(url), configured | elsewhere))
    block = "[[documents.mirrors]]\nid = " + tomltext.value(source_id) + "\n" + tomltext.lines(table)
    new_text = tomltext.insert(text, config, to, block)
    key = f"{to}/{source_id}"
    source = _check(new_text, path, env, {key: url})[key]
    if before_write is not None:
        before_write(new_text, [key])
    tomltext.write(path, new_text, read_as=read_as)
    return Added(key, False, private_note(source))


def _watched_by(sources: Iterable[SourceConfig], url: str, entry: Any) -> SourceConfig | None:
    """The first of `sources` watching the page at `url` (a feed's `entry` in it), however either is spelled
    (`http:`, `www.`, a trailing slash, `utm_`)."""
    at = same_page(url, entry)
    return next((s for s in sources if same_page(s.url, s.options.get("entry")) == at), None)


def _already_watched(url: str, entry: Any, by: SourceConfig) -> str:
    """`URL is already watched, as KEY (URL as written there)`."""
    written = f" ({by.url})" if by.url != url else ""
    return f"{watch_key(url, entry)} is already watched, as {by.key}{written}"


def _to_change(source: SourceConfig, kind: str | None, settings: Mapping[str, Any]) -> str:
    """For a page added again with other settings: the command that gives them to the source watching it (a
    feed's entry names the page, so it is never one of them)."""
    import shlex

    given = {
        **({"kind": kind} if kind and kind != source.kind else {}),
        **{n: v for n, v in settings.items() if n != "entry" and source.options.get(n) != v},
    }
    if not given:
        return ""
    pairs = " ".join(
        shlex.quote(f"{name}={tomltext.value(v) if not isinstance(v, str) else v}")
        for name, v in given.items()
    )
    return f"; to watch it so: differ set {source.key} {pairs}"


@dataclass(frozen=True)
class Additions:
    """What `add_documents` did: the new sources, the pages it found already watched (URL → key, left as they
    are), the notifiers it added, and the tables it wrote (or, in a dry run, would write)."""

    sources: list[Added]
    watched: dict[str, str]
    notifiers: list[AddedNotifier]
    tables: str


def _add_documents(
    path: Path,
    pages: list[Page],
    env: Mapping[str, str] | None = None,
    *,
    notifiers: Sequence[Notifier] = (),
    skip_watched: bool = False,
    write: bool = True,
    before_write: BeforeWrite | None = None,
) -> Additions:
    """`add_documents`, from the file as it is now."""
    env = os.environ if env is None else env
    text, config, read_as = _open(path, env)
    watched = {watch_key(s.url, s.options.get("entry")): s.key for s in config.sources()}
    keys = [watch_key(page.url, page.settings.get("entry")) for page in pages]
    spelled = {same_page(s.url, s.options.get("entry")): s for s in config.sources()}
    for page, page_at in zip(pages, keys, strict=True):  # the same page by another spelling is watched too
        same = spelled.get(same_page(page.url, page.settings.get("entry")))
        if same is not None and page_at not in watched:
            watched[page_at] = same.key
    already = {k: watched[k] for k in keys if k in watched}
    if already and not skip_watched:
        url, key = next(iter(already.items()))
        written = next(watch_key(s.url, s.options.get("entry")) for s in config.sources() if s.key == key)
        page = next(p for p, at in zip(pages, keys, strict=True) if at == url)
        raise UsageError(
            f"{url} is already watched, as {key}"
            + (f" ({written})" if written != url else "")
            + _to_change(config.source(key), page.kind, page.settings)
        )
    if watched:
        given = tuple(keys)
        notifiers = [replace(n, pages=given) if n.pages is None else n for n in notifiers]
    stored = _stored_urls(config)
    taken = {d.id for d in config.documents}
    blocks, expected = [], {}
    for page, page_at in zip(pages, keys, strict=True):
        if page_at in watched:
            continue
        elsewhere = {key.split("/")[0] for key, was in stored.items() if was != page.url}
        document = page.id or unique(document_id(page.url, page.settings.get("entry")), taken | elsewhere)
        taken.add(document)
        key = f"{document}/canonical"
        watched[page_at], expected[key] = key, page.url
        named = f"title = {tomltext.value(page.title)}\n" if page.title is not None else ""
        table = _table(page.url, page.kind, page.settings)
        blocks.append(
            f"[[documents]]\nid = {tomltext.value(document)}\n{named}\n[documents.canonical]\n"
            + tomltext.lines(table)
        )
    new_text = tomltext.insert(text, config, None, "\n".join(blocks)) if blocks else text
    sources = _check(new_text, path, env, expected)
    documents = {url: key.split("/")[0] for url, key in watched.items()}
    alerts, tables, secret = _notifiers(text, path, env, notifiers, documents)
    if tables:
        new_text = new_text.rstrip("\n") + ("\n\n" if new_text.strip() else "") + "\n".join(tables)
    if write and (blocks or tables):
        if before_write is not None:
            before_write(new_text, list(expected))
        tomltext.write(path, new_text, read_as=read_as, private=secret)
    added = [Added(key, True, private_note(sources[key])) for key in expected]
    return Additions(added, already, alerts, "\n".join(blocks + tables))


def _notifiers(
    text: str, path: Path, env: Mapping[str, str], notifiers: Sequence[Notifier], documents: Mapping[str, str]
) -> tuple[list[AddedNotifier], list[str], bool]:
    """The [[notify]] tables for `notifiers`, each checked as the configuration's are, and whether one holds a
    secret as it is (not as `${NAME}`); `documents` gives the document of each page's URL."""
    from differ.config import check_notifier

    existing = tomllib.loads(text.removeprefix("\ufeff")).get("notify", [])
    names = {str(n.get("name")) for n in existing if isinstance(n, dict)}
    have = {_identity(str(n.get("kind")), n) for n in existing if isinstance(n, dict)}
    added, tables, secret = [], [], False
    for n in notifiers:
        if _identity(n.kind, n.settings) in have:
            continue
        have.add(_identity(n.kind, n.settings))
        docs = (
            None if n.pages is None else tuple(dict.fromkeys(documents[u] for u in n.pages if u in documents))
        )
        if docs == ():
            continue  # for pages none of which is watched
        name = unique(n.kind, names)
        names.add(name)
        table = {"name": name, "kind": n.kind, **n.settings, **({"documents": list(docs)} if docs else {})}
        checked = check_notifier(
            table, f"notify ({name})", set(documents.values()), path, stand_ins(table, env)
        )
        secret = secret or bool(literal_secrets(table, checked.secrets))
        added.append(AddedNotifier(name, n.kind, docs, n.note))
        tables.append("[[notify]]\n" + tomltext.lines(table))
    return added, tables, secret


def literal_secrets(table: Mapping[str, Any], secrets: Iterable[str]) -> list[str]:
    """The options of a notifier table that hold a secret as it is, not as `${NAME}`, in the table's order."""
    return [n for n, v in table.items() if n in set(secrets) and isinstance(v, str) and "${" not in v]


def _identity(kind: str, settings: Mapping[str, Any]) -> tuple[str, str]:
    """What makes two notifiers the same destination: a webhook's URL (and the channel, room or topic, for a
    server's address), a chat and its topic, or a relay and its recipients."""
    place = settings.get("channel") or settings.get("room") or settings.get("topic")
    if settings.get("url") and place:
        return kind, f"{settings['url']} #{place}"
    if settings.get("chat"):
        return kind, f"{settings.get('api', '')} {settings['chat']}:{settings.get('thread', 0)}"
    return kind, str(
        settings.get("url") or (settings.get("host"), sorted(map(str, settings.get("to") or [])))
    )


def stand_ins(table: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, str]:
    """`env`, with a stand-in for each `${NAME}` the table takes from an environment that lacks it: a table
    written for the user to complete (a password to set) is checked for everything else."""
    names = set(ENV_REFERENCE.findall(json.dumps(table)))
    return {**{name: "stand-in" for name in names}, **env}


def _open(path: Path, env: Mapping[str, str]) -> tuple[str, Config, str | None]:
    """The configuration's text (a new file's when there is none), what it reads as, and the file's text as
    read (None: no file), for `tomltext.write` to check it is unchanged. A broken file is reported as it is,
    before anything is added. Notifiers are not read: adding a page must not need the secrets their settings
    take from the environment."""
    try:
        read_as = tomltext.read(path)
    except FileNotFoundError:
        read_as = None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}")
    text = NEW_FILE if read_as is None else read_as
    return text, parse_config(text, path, env, notifiers=False), read_as


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


def _table(url: str, kind: str | None, settings: Mapping[str, Any]) -> dict[str, Any]:
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


def _stored_urls(config: Config) -> dict[str, str]:
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


def _translation_language(config: Config, canonical: str, url: str) -> str | None:
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
    segments = [s for s in unquote(urlsplit(url).path).split("/") if s]
    release = GitHubKind.document_id(url) or GitLabKind.document_id(url)
    name = release or (segments[-1] if segments else "")
    if PurePosixPath(name).suffix.lower() in _PAGE_SUFFIXES:
        name = PurePosixPath(name).stem  # `Rust-1.66.0` keeps its `.0`
    return _id(name) or host_id(url)


def host_id(url: str) -> str:
    """A mirror id from its host: `wpnews.pro` → `wpnews-pro`, `www.` left out."""
    host = (urlsplit(url).hostname or "").removeprefix("www.")
    return _id(host.replace(".", "-")) or "source"


# a language a site names in a translation's address: `/de/…`, `/pt-br/…`, `ko.example.org`
_LOCALE = re.compile(r"([a-z]{2})(?:[-_][a-z]{2,4})?")


def mirror_id(url: str) -> str:
    """A mirror id: the language its address names, as a site names its translations (`example.org/de/post`
    → `de`, `ja.example.org` → `ja`, `/zh-cn/…` → `zh-cn`), else its host (`host_id`)."""
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
    return host_id(url)


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


def _existing(path: Path) -> str:
    """The text of a configuration something is to be taken out of."""
    try:
        return tomltext.read(path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file; there is nothing to remove")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}")


def _cut(rows: list[str], start: int, end: int) -> str:
    """The text without the tables in rows `start` to `end`, nor the comments just above them (which are about
    them); those leading into the next table stay with it."""
    end = tomltext.before_next_comments(rows, start, end)
    while start > 0 and rows[start - 1].lstrip().startswith("#"):
        start -= 1
    kept = "".join(rows[:start]).rstrip("\n")
    rest = "".join(rows[end:]).lstrip("\n")
    return kept + ("\n\n" if kept and rest else "\n" if kept else "") + rest


def _remove_source(path: Path, name: str, env: Mapping[str, str] | None = None) -> Removed:
    """`remove_source`, from the file as it is now."""
    env = os.environ if env is None else env
    text = _existing(path)
    config = parse_config(text, path, env, notifiers=False)
    if "://" in name:  # named by its page's URL
        name = config.source(name).key
    document_id, slash, source_id = name.partition("/")
    if not document_id or (slash and (not source_id or "/" in source_id)):
        raise UsageError(f"expected DOCUMENT or DOCUMENT/MIRROR, found {json.dumps(name)}")
    document = config.document(document_id)  # names the configured documents when there is no such one
    rows = text.splitlines(keepends=True)
    headers = tomltext.headers(rows)
    start, end = tomltext.document_span(rows, headers, config, document_id)
    if source_id and source_id != document.canonical.id:
        ids = [m.id for m in document.mirrors]
        if source_id not in ids:
            known = ", ".join(s.key for s in document.sources)
            raise UsageError(f'no source "{name}"; {document_id} has: {known}')
        start, end = tomltext.mirror_span(
            headers, (start, end), ids.index(source_id), len(ids), config, document_id
        )
        removed = Removed(name, (f"{document_id}/{source_id}",), document=False)
    elif source_id:
        raise UsageError(
            f"{name} is the page the document {document_id} is about; remove the document with its mirrors: "
            f"differ remove {document_id}"
        )
    else:
        removed = Removed(document_id, tuple(s.key for s in document.sources), document=True)
    new_text = _cut(rows, start, end)
    try:
        after = parse_config(new_text, path, env, notifiers=False)
    except ConfigError as exc:
        raise ConfigError(f"{exc} (nothing was written)")
    left = {s.key: s.url for s in after.sources()}
    expected = {s.key: s.url for s in config.sources() if s.key not in removed.keys}
    if left != expected:
        raise ConfigError(f"{path.name}: {name} could not be taken out cleanly; remove it by hand")
    tomltext.write(path, new_text, read_as=text)
    return removed


def _set_paused(
    path: Path, names: Sequence[str], paused: bool, env: Mapping[str, str] | None = None
) -> list[str]:
    """`set_paused`, from the file as it is now."""
    env = os.environ if env is None else env
    if not path.exists():
        raise ConfigError(f"{path}: no such file; there is nothing to {'pause' if paused else 'resume'}")
    text, config, read_as = _open(path, env)
    chosen = [s for s in config.select(list(names)) if s.paused != paused]
    rows = text.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []  # rows [start, end) replaced by the text
    headers = tomltext.headers(rows)  # the edits below are applied after every source is found
    for source in chosen:
        start, end = tomltext.source_rows(rows, headers, config, source)
        setting = next((i for i in range(start + 1, end) if _PAUSED.match(rows[i])), None)
        if setting is not None:
            edits.append((setting, setting + 1, "paused = true\n" if paused else ""))
        else:
            edits.append((start + 1, start + 1, "paused = true\n"))
    for start, end, new in sorted(edits, reverse=True):
        rows[start:end] = [new] if new else []
    new_text = "".join(rows)
    keys = [s.key for s in chosen]
    try:
        after = parse_config(new_text, path, env, notifiers=False)
    except ConfigError as exc:
        raise ConfigError(f"{exc} (nothing was written)")
    expected = {s.key: replace(s, paused=paused) if s.key in keys else s for s in config.sources()}
    if {s.key: s for s in after.sources()} != expected:
        raise ConfigError(f"{path.name}: could not set paused cleanly; edit it by hand")
    if keys:
        tomltext.write(path, new_text, read_as=read_as)
    return keys


def _check(
    text: str, path: Path, env: Mapping[str, str], expected: Mapping[str, str]
) -> dict[str, SourceConfig]:
    """The edited text must be a valid configuration holding each new source (key → URL); returns them."""
    try:
        config = parse_config(text, path, env, notifiers=False)
    except ConfigError as exc:
        raise ConfigError(f"{exc} (nothing was written)")
    sources = {s.key: s for s in config.sources()}
    if any(key not in sources or sources[key].url != url for key, url in expected.items()):
        raise ConfigError(f"{path.name}: the new source did not land where expected; add it by hand")
    return {key: sources[key] for key in expected}


T = TypeVar("T")


def _once(before_write: BeforeWrite | None, path: Path) -> BeforeWrite | None:
    """`before_write` (a backfill: minutes of requests) run for the first making of an edit only: made again
    because the file changed meanwhile, it is written if it adds the same sources, and refused if not."""
    if before_write is None:
        return None
    done: list[list[str]] = []

    def once(new_text: str, keys: list[str]) -> None:
        if not done:
            before_write(new_text, keys)
            done.append(list(keys))
        elif list(keys) != done[0]:
            raise ConfigError(
                f"{path}: changed meanwhile, and the page would now be {', '.join(keys)}, not "
                f"{', '.join(done[0])} as its history was stored; nothing was written, run it again"
            )

    return once


def _again(edit: Callable[[], T], tries: int = 8) -> T:
    """Make an edit, and make it again from the file as it is now when another command (or an editor) wrote
    the file meanwhile, so edits at once all land."""
    for _ in range(tries - 1):
        try:
            return edit()
        except tomltext.Changed:
            continue
    return edit()


def add_documents(
    path: Path,
    pages: list[Page],
    env: Mapping[str, str] | None = None,
    *,
    notifiers: Sequence[Notifier] = (),
    skip_watched: bool = False,
    write: bool = True,
    before_write: BeforeWrite | None = None,
) -> Additions:
    """Add each page as the canonical of a new document, and each notifier after every other table, in one
    write: all of them or, when the result would not be a valid configuration, none (ConfigError). A page
    already watched is an error (UsageError), or with `skip_watched` left as it is; a notifier for every page
    is then for the pages given here, not for those watched before. A notifier whose destination the file has
    is not added again. Nothing is written when `write` is false (a dry run). Made again from the file as it
    is when another wrote it meanwhile; `before_write` runs once."""

    once = _once(before_write, path)

    def edit() -> Additions:
        return _add_documents(
            path, pages, env, notifiers=notifiers, skip_watched=skip_watched, write=write, before_write=once
        )

    return _again(edit)


def remove_source(path: Path, name: str, env: Mapping[str, str] | None = None) -> Removed:
    """Take `name` out of the configuration at `path`: a DOCUMENT with all its sources, or one mirror as
    DOCUMENT/MIRROR (a canonical goes only with its document). The comments just above the removed tables go
    with them; everything else stays as written."""
    return _again(lambda: _remove_source(path, name, env))


def set_paused(
    path: Path, names: Sequence[str], paused: bool, env: Mapping[str, str] | None = None
) -> list[str]:
    """Pause (`paused = true`) or resume (the line taken out) the sources `names` name, DOCUMENT for all its
    sources or DOCUMENT/SOURCE, in one write that changes nothing else; returns the keys changed (those
    already so are left as they are)."""
    return _again(lambda: _set_paused(path, names, paused, env))


def add_notifier(
    path: Path,
    kind: str,
    settings: Mapping[str, Any],
    *,
    name: str | None = None,
    documents: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> AddedNotifier:
    """Add one [[notify]] table after every other table: for `documents`, or every document when none is
    named; named `name`, or after its kind. Checked as the configuration's notifiers are, with the values
    differ will run with (a `${NAME}` the environment lacks is refused), and refused when the file has its name
    or its destination already."""
    return _again(lambda: _add_notifier(path, kind, settings, name, documents, env))


def _add_notifier(
    path: Path,
    kind: str,
    settings: Mapping[str, Any],
    name: str | None,
    documents: Sequence[str],
    env: Mapping[str, str] | None,
) -> AddedNotifier:
    from differ.config import check_notifier
    from differ.notify import NOTIFIERS

    env = os.environ if env is None else env
    if kind not in NOTIFIERS:
        raise UsageError(f'expected a notifier kind, one of {", ".join(sorted(NOTIFIERS))}, found "{kind}"')
    text, config, read_as = _open(path, env)
    for doc in documents:
        config.document(doc)  # an unknown one is refused, the configured ones named
    existing = [
        n for n in tomllib.loads(text.removeprefix("\ufeff")).get("notify", []) if isinstance(n, dict)
    ]
    names = {str(n.get("name")) for n in existing}
    if name is not None and name in names:
        raise UsageError(f'{path.name} has a notifier named "{name}" already; choose another --name')
    same = next((n for n in existing if _identity(str(n.get("kind")), n) == _identity(kind, settings)), None)
    if same is not None:
        raise UsageError(f'{path.name} sends to this destination already, as notifier "{same.get("name")}"')
    name = name or unique(kind, names)
    table = {"name": name, "kind": kind, **settings, **({"documents": list(documents)} if documents else {})}
    _set_here(table, env)
    notifier = check_notifier(table, f"notify ({name})", {d.id for d in config.documents}, path, env)
    new_text = text.rstrip("\n") + ("\n\n" if text.strip() else "") + "[[notify]]\n" + tomltext.lines(table)
    try:
        parse_config(new_text, path, env, notifiers=False)  # the others may take variables set elsewhere
        tables = tomllib.loads(new_text.removeprefix("\ufeff")).get("notify", [])
    except (ConfigError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{exc} (nothing was written)")
    if not tables or tables[-1] != table:
        raise ConfigError(f"{path.name}: the new notifier did not land where expected; add it by hand")
    written = literal_secrets(settings, notifier.secrets)
    tomltext.write(path, new_text, read_as=read_as, private=bool(written))
    return AddedNotifier(name, kind, tuple(documents) or None, _secret_note(path, written))


def _secret_note(path: Path, written: Sequence[str]) -> str:
    """What to do about a notifier's secrets written into the file as they are ("" when none is)."""
    if not written:
        return ""
    mode = path.stat().st_mode
    shared = f", and others can read it (mode {mode & 0o777:o}: chmod 600 {path})" if mode & 0o077 else ""
    return (
        f"{path.name} now holds its {' and '.join(written)}{shared}: keep the file private, or write it as "
        '"${NAME}" and set NAME in the environment differ runs in'
    )


def remove_notifier(path: Path, name: str, env: Mapping[str, str] | None = None) -> tuple[str, Path]:
    """Take the [[notify]] table named `name` out of the configuration at `path`, with the comments just above
    it; everything else stays as written. Returns its kind, and the store's folder the file names."""
    return _again(lambda: _remove_notifier(path, name, env))


def _remove_notifier(path: Path, name: str, env: Mapping[str, str] | None) -> tuple[str, Path]:
    env = os.environ if env is None else env
    text = _existing(path)
    snapshots = parse_config(text, path, env, notifiers=False).service.snapshots  # a broken file is reported
    tables = _toml(text).get("notify", [])
    rows = text.splitlines(keepends=True)
    headers = tomltext.headers(rows)
    index, start = _notifier_at(tables, headers, name, path)
    end = next((i for i, _, table in headers if i > start and not table.startswith("notify.")), len(rows))
    new_text = _cut(rows, start, end)
    try:
        parse_config(new_text, path, env, notifiers=False)
        left = tomllib.loads(new_text.removeprefix("\ufeff")).get("notify", [])
    except (ConfigError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{exc} (nothing was written)")
    if left != tables[:index] + tables[index + 1 :]:
        raise ConfigError(f"{path.name}: {name} could not be taken out cleanly; remove it by hand")
    tomltext.write(path, new_text, read_as=text)
    return str(tables[index].get("kind")), snapshots


@dataclass(frozen=True)
class Set:
    """One option `set_options` changed on a source: its name, the value before (None: not written) and
    after (None: taken out, its default again)."""

    key: str
    name: str
    before: Any
    after: Any


SET_ALSO = {"url", "kind"}  # a source's settings `differ set` takes besides those `--set` does


def set_options(
    path: Path,
    names: Sequence[str],
    settings: Mapping[str, Any],
    unset: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> list[Set]:
    """Write `settings` into the tables of the sources `names` name (DOCUMENT for all its sources), and take
    the options `unset` names out, in one write that changes nothing else; returns what changed (an option
    already so is left as it is). A page's new `url` must not be one its document watches already."""
    return _again(lambda: _set_options(path, names, settings, unset, env))


def _set_options(
    path: Path,
    names: Sequence[str],
    settings: Mapping[str, Any],
    unset: Sequence[str],
    env: Mapping[str, str] | None,
) -> list[Set]:
    """`set_options`, from the file as it is now."""
    env = os.environ if env is None else env
    text, config, read_as = _existing_config(path, env, "differ add URL makes it")
    chosen = config.select(list(names))
    if "url" in settings:
        _new_address(config, chosen, str(settings["url"]))
    changes = {**settings, **{name: None for name in unset}}
    own = {name: changes.pop(name) for name in DOCUMENT_SET if name in changes}
    documents = _documents(config, names) if own else []
    written, expected, rows, headers = _parsed(text)
    edits: list[tuple[int, int, str]] = []  # rows [start, end) replaced by the text
    done: list[Set] = []
    for document in documents:
        start, _ = tomltext.document_span(rows, headers, config, document)
        end = next((i for i, _, _ in headers if i > start), len(rows))
        table = Table(document, start, end, partial(_document_table, config, document), path.name)
        done += _edit(table, own, rows, written, expected, edits)
    for source in chosen if changes else []:
        before = _written(written, config, source)
        # The kind it will have: the one set, else the one written; none (or taken out) is html.
        kind = str((changes["kind"] if "kind" in changes else before.get("kind")) or "html")
        kept = {n: v for n, v in {**before, **changes}.items() if v is not None}
        _fits(source.key, kind, kept)
        missing = needs(kind, kept)
        if missing:
            name, help = missing
            raise UsageError(f"{source.key}: a {kind} page needs {name} ({help}): set it too, {name}=…")
        start, end = tomltext.source_rows(rows, headers, config, source)
        table = Table(source.key, start, end, partial(_written, config=config, source=source), path.name)
        done += _edit(table, changes, rows, written, expected, edits)
    if done:
        new_text = _applied(rows, edits)
        if len(_reads_back(new_text, path, env, expected).sources()) != len(config.sources()):
            raise ConfigError(f"{path.name}: could not set it cleanly; edit it by hand")
        tomltext.write(path, new_text, read_as=read_as)
    return done


def set_service(
    path: Path, settings: Mapping[str, Any], unset: Sequence[str] = (), env: Mapping[str, str] | None = None
) -> list[Set]:
    """Write `settings` into the [service] table (made, above the documents, when the file has none), and take
    the options `unset` names out, in one write that changes nothing else; returns what changed."""
    return _again(lambda: _set_service(path, settings, unset, env))


def _set_service(
    path: Path, settings: Mapping[str, Any], unset: Sequence[str], env: Mapping[str, str] | None
) -> list[Set]:
    """`set_service`, from the file as it is now."""
    env = os.environ if env is None else env
    text, _, read_as = _existing_config(path, env, "differ add URL makes it")
    written, expected, rows, headers = _parsed(text)
    edits: list[tuple[int, int, str]] = []
    start = next((i for i, brackets, name in headers if brackets == "[" and name == "service"), None)
    if start is None and "service" in written:
        raise ConfigError(
            f"{path.name}: its service settings are not written as a [service] table; edit it by hand"
        )
    if start is None:  # a new table, before the first one and the comments that lead into it
        new = dict(settings)
        if not new:
            return []
        expected["service"] = new
        first = headers[0][0] if headers else len(rows)
        at = tomltext.before_next_comments(rows, -1, first) if headers else len(rows)
        if at == len(rows) and rows and not rows[-1].endswith("\n"):
            rows[-1] += "\n"
        edits.append((at, at, "[service]\n" + tomltext.lines(new) + ("\n" if at < len(rows) else "")))
        done = [Set("service", name, None, value) for name, value in new.items()]
    else:
        end = next((i for i, _, _ in headers if i > start), len(rows))
        table = Table("service", start, end, partial(_service_table), path.name)
        done = _edit(table, {**settings, **{n: None for n in unset}}, rows, written, expected, edits)
    if done:
        new_text = _applied(rows, edits)
        _reads_back(new_text, path, env, expected)
        tomltext.write(path, new_text, read_as=read_as)
    return done


def _existing_config(path: Path, env: Mapping[str, str], making: str) -> tuple[str, Config, str | None]:
    """`_open` of a file there must be something to set in (`making` says what writes one)."""
    if not path.exists():
        raise ConfigError(f"{path}: no such file; there is nothing to set ({making})")
    return _open(path, env)


def _parsed(
    text: str,
) -> tuple[dict[str, Any], dict[str, Any], list[str], list[tuple[int, str, str]]]:
    """A configuration's text as `differ set` edits it: its parsed TOML, a copy for what the edit must give, its
    rows and its table headers."""
    written = _toml(text)
    rows = text.splitlines(keepends=True)
    return written, _copy(written), rows, tomltext.headers(rows)


def _applied(rows: list[str], edits: list[tuple[int, int, str]]) -> str:
    """The text with each edit's rows [start, end) replaced by its text (none taking the same rows)."""
    for start, end, line in sorted(edits, reverse=True):
        rows[start:end] = [line] if line else []
    return "".join(rows)


def _reads_back(text: str, path: Path, env: Mapping[str, str], expected: dict[str, Any]) -> Config:
    """An edited configuration, which must be valid and hold exactly the tables and values `expected` does."""
    try:
        config = parse_config(text, path, env, notifiers=False)
    except ConfigError as exc:
        raise ConfigError(f"{exc} (nothing was written)")
    if _toml(text) != expected:
        raise ConfigError(f"{path.name}: could not set it cleanly; edit it by hand")
    return config


def _service_table(data: dict[str, Any]) -> dict[str, Any]:
    """The [service] table in the configuration's parsed TOML."""
    table: dict[str, Any] = data["service"]
    return table


DOCUMENT_SET = {"title"}  # a document's settings `differ set` takes when a DOCUMENT is named


def _documents(config: Config, names: Sequence[str]) -> list[str]:
    """The documents whose own settings are set: each named as DOCUMENT (or by its canonical page's URL)."""
    chosen: list[str] = []
    for name in names:
        picked = [s for s in config.watching(name) if s.role == "canonical"] if "://" in name else None
        if "/" in name and not picked:
            document = name.split("/")[0] if "://" not in name else config.watching(name)[0].document
            raise UsageError(
                f"title is a document's, not a source's: name the document (differ set {document} title=…)"
            )
        document = picked[0].document if picked else config.document(name).id
        if document not in chosen:
            chosen.append(document)
    return chosen


@dataclass(frozen=True)
class Table:
    """A table `differ set` edits: what it is called, its rows [start, end) in the file, and where its values
    are in the file's parsed TOML."""

    name: str
    start: int
    end: int
    find: Callable[[dict[str, Any]], dict[str, Any]]
    file: str


def _edit(
    table: Table,
    changes: Mapping[str, Any],
    rows: list[str],
    written: dict[str, Any],
    expected: dict[str, Any],
    edits: list[tuple[int, int, str]],
) -> list[Set]:
    """The edits (into `edits`) that give `table` the values `changes` names (None: taken out), and the same
    into `expected`; what changed. A new option goes after the table's last line, before the blank lines and
    comments leading into the next table."""
    before, after = table.find(written), table.find(expected)
    done, added = [], ""
    for name, new in changes.items():
        if before.get(name) == new:  # so already (None: not written)
            continue
        done.append(Set(table.name, name, before.get(name), new))
        if new is None:
            del after[name]
        else:
            after[name] = new
        line = f"{name} = {tomltext.value(new)}\n" if new is not None else ""
        if name in before:
            first, last = _key_rows(rows, table, name, written)
            edits.append((first, last, line))
        else:
            added += line
    if added:
        below = tomltext.before_next_comments(rows, table.start, table.end)
        if below == len(rows) and rows and not rows[-1].endswith("\n"):
            rows[-1] += "\n"
        edits.append((below, below, added))
    return done


@dataclass(frozen=True)
class NotifierSet:
    """What `set_notifier` changed (secrets shown redacted), and a note when a secret is now written as it is."""

    done: list[Set]
    note: str = ""


def set_notifier(
    path: Path,
    name: str,
    settings: Mapping[str, Any],
    unset: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> NotifierSet:
    """Write `settings` into the [[notify]] table named `name`, and take the options `unset` names out, in one
    write that changes nothing else. Checked as `differ notify add` checks a table: a `${NAME}` a new value
    takes must be set here; those the file had may be set only where differ runs."""
    return _again(lambda: _set_notifier(path, name, settings, unset, env))


def _set_notifier(
    path: Path, name: str, settings: Mapping[str, Any], unset: Sequence[str], env: Mapping[str, str] | None
) -> NotifierSet:
    """`set_notifier`, from the file as it is now."""
    from differ.config import redact
    from differ.notify import NOTIFIERS

    env = os.environ if env is None else env
    text, _, read_as = _existing_config(path, env, "differ notify add KIND makes one")
    written, expected, rows, headers = _parsed(text)
    index, start = _notifier_at(written.get("notify", []), headers, name, path)
    _set_here(settings, env)
    end = next((i for i, _, _ in headers if i > start), len(rows))
    table = Table(name, start, end, partial(_notify_table, index), path.name)
    edits: list[tuple[int, int, str]] = []
    done = _edit(table, {**settings, **{n: None for n in unset}}, rows, written, expected, edits)
    if not done:
        return NotifierSet(done)
    new_text = _applied(rows, edits)
    # The other notifiers may take variables set only where differ runs: they are not read here.
    config = _reads_back(new_text, path, env, expected)
    try:
        _check_notifier(table.find(expected), index, config, path, env)
    except ConfigError as exc:
        raise ConfigError(f"{exc} (nothing was written)")
    kind = NOTIFIERS[str(table.find(expected)["kind"])]
    secrets = {n for n, spec in kind.options.items() if spec.secret}
    tomltext.write(path, new_text, read_as=read_as)

    def shown(value: Any) -> Any:
        return redact(value) if isinstance(value, str) and "${" not in value else value

    done = [
        replace(d, before=shown(d.before), after=shown(d.after)) if d.name in secrets else d for d in done
    ]
    return NotifierSet(done, _secret_note(path, literal_secrets(settings, secrets)))


def _check_notifier(
    table: dict[str, Any], index: int, config: Config, path: Path, env: Mapping[str, str]
) -> list[str]:
    """A [[notify]] table as edited, checked as the configuration's are. A `${NAME}` not set here (set only where
    differ runs) is taken on trust: the options that take one are checked with a stand-in and an error about
    them passed over; every other option, the documents named and the kind's own checks are checked. Returns
    the names taken on trust."""
    from differ.config import check_notifier, notifier_options
    from differ.notify import NOTIFIERS
    from differ.options import Invalid

    key = f"notify[{index}]"
    documents = {d.id for d in config.documents}
    untold = _untold(table, env)
    if not untold:
        check_notifier(table, key, documents, path, env)
        return []
    kind = NOTIFIERS.get(str(table.get("kind")))
    if kind is None:
        raise ConfigError(
            f"{path.name}: {key}.kind: expected one of {', '.join(sorted(NOTIFIERS))}, found {table.get('kind')!r}"
        )
    schema = {**notifier_options(), **kind.options}
    trusted = {name for name, value in table.items() if _untold(value, env)}
    for name, value in table.items():  # each on its own first: an error about a trusted one stops the rest
        if name not in schema:
            raise ConfigError(f"{path.name}: {key}.{name}: kind {json.dumps(table['kind'])} takes no {name}")
        if name not in trusted:
            try:
                schema[name].validate(value)
            except Invalid as exc:
                raise ConfigError(f"{path.name}: {key}.{name}: {exc}")
    named = table.get("documents", [])
    unknown = next((d for d in named if d not in documents), None) if isinstance(named, list) else None
    if unknown is not None:
        raise ConfigError(
            f'{path.name}: {key}.documents: no document "{unknown}"; configured documents: '
            f"{', '.join(sorted(documents)) or 'none'}"
        )
    try:  # the whole table, the kind's own checks with it, a stand-in for each value not set here
        check_notifier(table, key, documents, path, {**env, **dict.fromkeys(untold, STAND_IN)})
    except ConfigError as exc:
        about = str(exc).removeprefix(f"{path.name}: {key}").lstrip(".").split(":", 1)[0]
        if about not in trusted:
            raise
    return untold


STAND_IN = "https://stand-in.invalid/"  # a `${NAME}` outside the notifiers not set here, to check the rest by


def check_edited(text: str, path: Path, env: Mapping[str, str]) -> tuple[Config, list[str]]:
    """A configuration edited by hand (`differ config edit`), checked as it will run, and what was taken on
    trust: a notifier's `${NAME}` set only where differ runs (its options that take none are checked)."""
    data = _toml(text)
    rest = {key: value for key, value in data.items() if key != "notify"}
    untold = _untold(rest, env)
    config = parse_config(text, path, {**env, **dict.fromkeys(untold, STAND_IN)}, notifiers=False)
    tables = data.get("notify", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        parse_config(text, path, env)  # says what is wrong with them
    names: set[str] = set()
    trusted = [f"the sources or the service take {', '.join(untold)}, not set here"] if untold else []
    for index, table in enumerate(tables):
        untold = _check_notifier(table, index, config, path, env)
        if str(table.get("name")) in names:
            raise ConfigError(
                f'{path.name}: notify[{index}].name: duplicate notifier name "{table.get("name")}"'
            )
        names.add(str(table.get("name")))
        if untold:
            trusted.append(f"notifier {table.get('name')} takes {', '.join(untold)}, not set here")
    return config, trusted


def _notifier_at(
    tables: list[Any], headers: list[tuple[int, str, str]], name: str, path: Path
) -> tuple[int, int]:
    """Where the [[notify]] table named `name` is: its place among the notifiers, and its header's row."""
    names = [str(t.get("name")) if isinstance(t, dict) else "" for t in tables]
    if name not in names:
        raise UsageError(f'no notifier "{name}"; configured notifiers: {", ".join(names) or "none"}')
    starts = [i for i, brackets, table in headers if brackets == "[[" and table == "notify"]
    if len(starts) != len(tables):
        raise ConfigError(
            f"{path.name}: its notifiers are not all written as [[notify]] tables; edit it by hand"
        )
    index = names.index(name)
    return index, starts[index]


def _untold(value: Any, env: Mapping[str, str]) -> list[str]:
    """The `${NAME}`s a value (a table, a list, a string) takes that `env` does not set, sorted."""
    return sorted(set(ENV_REFERENCE.findall(json.dumps(value, default=str))) - set(env))


def _set_here(values: Mapping[str, Any], env: Mapping[str, str]) -> None:
    """A notifier's new values are checked with what differ will run with: each `${NAME}` they take must be set."""
    unset = _untold(dict(values), env)
    if unset:
        raise UsageError(
            f"{', '.join(unset)} {'is' if len(unset) == 1 else 'are'} not set here: the notifier is checked with "
            f"the values differ will run with before it is written; set {'it' if len(unset) == 1 else 'them'} "
            "and run this again"
        )


def _notify_table(index: int, data: dict[str, Any]) -> dict[str, Any]:
    """The `index`-th [[notify]] table in the configuration's parsed TOML."""
    table: dict[str, Any] = data["notify"][index]
    return table


def _toml(text: str) -> dict[str, Any]:
    """A configuration's text as TOML (a byte-order mark, which editors on Windows write, aside)."""
    return tomllib.loads(text.removeprefix("\ufeff"))


def _fits(key: str, kind: str, table: Mapping[str, Any]) -> None:
    """A source's options after a `differ set` must be its kind's: one a new kind does not take is to be taken
    out with it (UsageError saying so); an unknown kind is the configuration's check to refuse."""
    from differ.config import SOURCE_OPTIONS
    from differ.normalize import SOURCE_KINDS

    if kind not in SOURCE_KINDS:
        return
    takes = set(SOURCE_OPTIONS) | set(SOURCE_KINDS[kind].options)
    other = [name for name in table if name not in takes]
    if other:
        out = " ".join(f"--unset {name}" for name in other)
        them = "it" if len(other) == 1 else "them"
        raise UsageError(
            f"{key}: kind {json.dumps(kind)} takes no {', '.join(other)}: take {them} out with it ({out})"
        )


def _copy(value: Any) -> Any:
    """A deep copy of a parsed TOML document's tables and arrays (their values are never changed in place)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _document_table(config: Config, document: str, data: dict[str, Any]) -> dict[str, Any]:
    """A document's own table in the configuration's parsed TOML."""
    table: dict[str, Any] = data["documents"][[d.id for d in config.documents].index(document)]
    return table


def written_options(path: Path, key: str, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A source's table as the file writes it now, its `${NAME}`s unexpanded: what is copied elsewhere (a
    followed feed's options into its new posts' tables) without writing a secret out."""
    text, config, _ = _open(path, os.environ if env is None else env)
    return _written(_toml(text), config, config.source(key))


def _written(data: dict[str, Any], config: Config, source: SourceConfig) -> dict[str, Any]:
    """A source's own table in the configuration's parsed TOML."""
    index = [d.id for d in config.documents].index(source.document)
    document = data["documents"][index]
    ids = [m.id for m in config.document(source.document).mirrors]
    table: dict[str, Any] = (
        document["canonical"] if source.role == "canonical" else document["mirrors"][ids.index(source.id)]
    )
    return table


def _key_rows(rows: list[str], table: Table, name: str, written: dict[str, Any]) -> tuple[int, int]:
    """The rows that write option `name` in a table (a list or a string may take several): the fewest from its
    `name =` line whose removal leaves the file's tables as they were but for that option."""
    line = re.compile(rf"^\s*(?:{re.escape(name)}|\"{re.escape(name)}\"|'{re.escape(name)}')\s*=")
    first = next((i for i in range(table.start + 1, table.end) if line.match(rows[i])), None)
    if first is not None:
        want = _copy(written)
        del table.find(want)[name]
        for last in range(first + 1, table.end + 1):
            try:
                if _toml("".join(rows[:first] + rows[last:])) == want:
                    return first, last
            except tomllib.TOMLDecodeError:
                continue
    raise ConfigError(
        f"{table.file}: {table.name}'s {name} is not written as a line of its table; edit it by hand"
    )


def _new_address(config: Config, chosen: Sequence[SourceConfig], url: str) -> None:
    """A page's new address names one page, not one its document (or, for a canonical, any document) watches
    already under another source."""
    if len(chosen) != 1:
        raise UsageError("url names one page: set it on one source, as DOCUMENT/SOURCE")
    source = chosen[0]
    others = [
        o
        for o in config.sources()
        if o.key != source.key and (source.role == "canonical" or o.document == source.document)
    ]
    same = _watched_by(others, url, source.options.get("entry"))
    if same is not None:
        raise UsageError(_already_watched(url, source.options.get("entry"), same))
