"""Load and validate `config.toml`; every mistake becomes one line naming the file, the key path and the fix.

Defaults live here and nowhere else. Source kinds and notifiers declare their own options (see
`differ.normalize.kinds` and `differ.notify`), and are checked by the same code.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from differ import __version__
from differ import options as opt
from differ.errors import ConfigError, UsageError
from differ.options import Invalid, Option, found

DEFAULT_CONFIG = Path("config.toml")
# The web archive `differ backfill` reads captures from: the Wayback Machine, whose CDX API pywb serves too.
WEB_ARCHIVE = "https://web.archive.org"
DEFAULT_USER_AGENT = "differ/{version} (+https://github.com/differ-dev/differ)"
LANGUAGES = ("en", "de", "es", "fr", "it", "nl", "pt", "ko", "ja", "zh", "ru", "uk", "el", "ar", "he")
# `metadata`: a version whose text and title are unchanged, only other metadata (a modified date): stored and
# listed, but sent only to notifiers that ask for it, since a page saved again without an edit says nothing.
EVENTS = ("changed", "mirror_drift", "fetch_failing", "recovered", "metadata")
DEFAULT_EVENTS = ("changed", "mirror_drift", "fetch_failing", "recovered")
VERSION_EVENTS = ("changed", "metadata")  # the events of a new version, which carry its diff

# An id is used as a folder name in the store: letters, digits, '-' and '_' only, so it can never escape it.
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")  # `${NAME}` in a value

SERVICE_OPTIONS: dict[str, Option] = {
    "snapshots": Option(opt.nonempty_string, "snapshots", "the store's folder, relative to the config file"),
    "interval": Option(opt.duration(1), 1800.0, "default time between checks of a source"),
    "jitter": Option(opt.fraction, 0.1, "share of the interval added at random to each run"),
    "user_agent": Option(opt.nonempty_string, DEFAULT_USER_AGENT, "User-Agent; {version} is replaced"),
    "contact": Option(opt.string, "", "sent as From: when set"),
    "per_host_delay": Option(opt.duration(), 5.0, "least time between two requests to one host"),
    "per_host_connections": Option(opt.integer(1, 16), 1, "requests in flight at once per host"),
    "workers": Option(opt.integer(1, 64), 8, "sources checked at once (different hosts)"),
    "timeout": Option(opt.duration(0.1), 30.0, "connect and read timeout; a whole fetch gets twice this"),
    "max_bytes": Option(opt.size, 10_000_000, "largest body accepted"),
    "retries": Option(opt.integer(0, 10), 2, "retries of a failed request within one check"),
    "retry_after_cap": Option(opt.duration(), 60.0, "longest Retry-After waited within one check"),
    "anomaly_confirm": Option(
        opt.duration(),
        600.0,
        "how long an extraction anomaly must last, seen on consecutive checks, before it is stored",
    ),
    "shrink_threshold": Option(
        opt.fraction,
        0.5,
        "share of content that may vanish at once before it is held as an extraction anomaly",
    ),
    "tracking_params": Option(
        opt.string_list,
        ("utm_*", "fbclid", "gclid", "ref"),
        "query parameters removed from links (* is a wildcard)",
    ),
    "base_url": Option(opt.string, "", "where reports are published, for links in alerts"),
    "proxy": Option(
        opt.proxy_url,
        "",
        "HTTP proxy for every page and alert, http://[user:password@]host:port (none by default)",
    ),
}

SOURCE_OPTIONS: dict[str, Option] = {
    "id": Option(opt.string, required=True, help="the source's id within its document"),
    "url": Option(opt.string, required=True, help="the page to watch"),
    "kind": Option(opt.string, "html", "how to read the page"),
    "interval": Option(opt.duration(1), None, "overrides the service interval"),
    "headers": Option(opt.string_table, {}, "extra request headers"),
    "robots": Option(opt.boolean, True, "honour robots.txt"),
    "allow_private": Option(opt.private_access, False, "allow loopback and private addresses"),
    "languages": Option(opt.choice_list(*LANGUAGES), None, "keep only blocks in these languages"),
    "ignore": Option(
        opt.pattern_list, (), "regular expressions of text to leave out (a line they empty is dropped)"
    ),
    "stale_after": Option(
        opt.duration(),
        0.0,
        "a mirror's time to catch up: how long the canonical may be ahead before the mirror is called stale",
    ),
    "paused": Option(
        opt.boolean, False, "not checked by differ check or differ run until unset; its record stays"
    ),
}


@dataclass(frozen=True)
class ServiceConfig:
    """Settings that apply to every source."""

    snapshots: Path
    interval: float = 1800.0
    jitter: float = 0.1
    user_agent: str = DEFAULT_USER_AGENT.format(version=__version__)
    contact: str = ""
    per_host_delay: float = 5.0
    per_host_connections: int = 1
    workers: int = 8
    timeout: float = 30.0
    max_bytes: int = 10_000_000
    retries: int = 2
    retry_after_cap: float = 60.0
    shrink_threshold: float = 0.5
    anomaly_confirm: float = 600.0
    tracking_params: tuple[str, ...] = ("utm_*", "fbclid", "gclid", "ref")
    base_url: str = ""
    proxy: str = field(default="", repr=False)  # may carry a password: never printed


@dataclass(frozen=True)
class SourceConfig:
    """One watched URL: a document's canonical page or one of its mirrors."""

    document: str
    id: str
    url: str
    kind: str = "html"
    role: str = "canonical"
    interval: float | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)  # may carry a token: never printed
    robots: bool = True
    allow_private: bool | tuple[opt.Network, ...] = False
    languages: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    stale_after: float = 0.0  # a mirror's time to catch up with a canonical edit
    paused: bool = False  # left out of `differ check` and `differ run` unless named
    options: Mapping[str, Any] = field(default_factory=dict)
    title: str = ""

    @property
    def key(self) -> str:
        """The `DOCUMENT/SOURCE` name used everywhere in the CLI."""
        return f"{self.document}/{self.id}"

    def option(self, name: str) -> Any:
        return self.options.get(name)


@dataclass(frozen=True)
class DocumentConfig:
    """A canonical announcement and the mirrors that copy it."""

    id: str
    title: str
    canonical: SourceConfig
    mirrors: tuple[SourceConfig, ...] = ()

    @property
    def sources(self) -> tuple[SourceConfig, ...]:
        return (self.canonical, *self.mirrors)


@dataclass(frozen=True)
class NotifierConfig:
    """One `[[notify]]` destination with its filters."""

    name: str
    kind: str
    options: Mapping[str, Any]
    documents: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    events: tuple[str, ...] = DEFAULT_EVENTS
    digest: float | None = None
    fail_after: int = 3
    retry_for: float = 86400.0
    timeout: float = 15.0
    secrets: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        """Secrets (webhook URLs, signing keys) redacted, so no log or traceback can show them."""
        shown = {
            k: redact(v) if k in self.secrets and isinstance(v, str) else v for k, v in self.options.items()
        }
        return f"NotifierConfig(name={self.name!r}, kind={self.kind!r}, options={shown!r})"

    def wants(self, event: str, source_key: str) -> bool:
        """Whether this notifier takes an event of this type about this source."""
        if event not in self.events:
            return False
        document = source_key.split("/", 1)[0]
        if self.documents and document not in self.documents:
            return False
        return not self.sources or source_key in self.sources or document in self.sources

    def fingerprint(self) -> str:
        """A digest of the settings, so a destination disabled by a 410 comes back when they change."""
        import hashlib
        import json

        blob = json.dumps({"kind": self.kind, "options": self.options}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Config:
    """The whole validated configuration."""

    path: Path
    service: ServiceConfig
    documents: tuple[DocumentConfig, ...] = ()
    notifiers: tuple[NotifierConfig, ...] = ()

    def sources(self) -> list[SourceConfig]:
        return [s for d in self.documents for s in d.sources]

    def watched(self) -> list[SourceConfig]:
        """The sources a service checks on their schedule: all but the paused ones."""
        return [s for s in self.sources() if not s.paused]

    def document(self, doc_id: str) -> DocumentConfig:
        for doc in self.documents:
            if doc.id == doc_id:
                return doc
        names = ", ".join(d.id for d in self.documents) or "none configured"
        raise UsageError(f'no document "{doc_id}"; configured documents: {names}')

    def source(self, key: str) -> SourceConfig:
        """Find a source by `DOCUMENT/SOURCE` (or by DOCUMENT alone for its canonical)."""
        for s in self.sources():
            if s.key == key:
                return s
        if "/" not in key:
            return self.document(key).canonical
        names = ", ".join(s.key for s in self.sources()) or "none configured"
        raise UsageError(f'no source "{key}"; configured sources: {names}')

    def select(self, keys: list[str]) -> list[SourceConfig]:
        """The sources named on the command line (a DOCUMENT names all of its sources); all when none."""
        if not keys:
            return self.sources()
        chosen: list[SourceConfig] = []
        for key in keys:
            picked = list(self.document(key).sources) if "/" not in key else [self.source(key)]
            chosen.extend(s for s in picked if s not in chosen)
        return chosen

    def to_check(self, keys: list[str]) -> tuple[list[SourceConfig], list[SourceConfig]]:
        """The sources a check of `keys` covers, and the paused ones it leaves out: a paused source is checked
        only when named as DOCUMENT/SOURCE."""
        named = set(keys)
        chosen = self.select(keys)
        left_out = [s for s in chosen if s.paused and s.key not in named]
        return [s for s in chosen if s not in left_out], left_out

    def notifier(self, name: str) -> NotifierConfig:
        for n in self.notifiers:
            if n.name == name:
                return n
        names = ", ".join(n.name for n in self.notifiers) or "none configured"
        raise UsageError(f'no notifier "{name}"; configured notifiers: {names}')


class _Loader:
    """Walks the TOML document, keeping the file name for messages."""

    def __init__(self, path: Path, env: Mapping[str, str]):
        self.path = path
        self.env = env

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.path.name}: {key}: {message}")

    def expand(self, value: Any, key: str) -> tuple[Any, bool]:
        """Replace `${NAME}` from the environment; says whether anything came from it."""
        if isinstance(value, str):
            used = False

            def sub(m: re.Match[str]) -> str:
                nonlocal used
                used = True
                if m.group(1) not in self.env:
                    raise self.fail(key, f"environment variable {m.group(1)} is not set")
                return self.env[m.group(1)]

            return ENV_REFERENCE.sub(sub, value), used
        if isinstance(value, list):
            items = [self.expand(v, f"{key}[{i}]") for i, v in enumerate(value)]
            return [v for v, _ in items], any(u for _, u in items)
        if isinstance(value, dict):
            expanded = {k: self.expand(v, f"{key}.{k}") for k, v in value.items()}
            return {k: v for k, (v, _) in expanded.items()}, any(u for _, u in expanded.values())
        return value, False

    def table(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a table, found {found(value)}")
        return value

    def fields(self, raw: Any, key: str, schema: Mapping[str, Option]) -> tuple[dict[str, Any], set[str]]:
        """Validate a table against a schema: unknown keys, missing keys, bad values."""
        table = self.table(raw, key)
        for name in table:
            if name not in schema:
                allowed = ", ".join(sorted(schema))
                raise self.fail(f"{key}.{name}", f"unknown key; allowed keys: {allowed}")
        values: dict[str, Any] = {}
        from_env: set[str] = set()
        for name, spec in schema.items():
            path = f"{key}.{name}"
            if name not in table:
                if spec.required:
                    raise self.fail(key, f'missing key "{name}" ({spec.help})')
                values[name] = spec.default
                continue
            value, used = self.expand(table[name], path)
            if used:
                from_env.add(name)
            try:
                values[name] = spec.validate(value)
            except Invalid as exc:
                raise self.fail(path, str(exc))
        return values, from_env

    def identifier(self, value: str, key: str) -> str:
        if not _ID.match(value):
            raise self.fail(
                key,
                f"{found(value)} is not a valid id; use 1 to 64 letters, digits, '-' or '_', "
                "starting with a letter or digit",
            )
        return value

    def url(self, value: str, key: str) -> str:
        from urllib.parse import urlsplit

        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise self.fail(key, f"expected an http:// or https:// URL, found {found(value)}")
        return value

    def service(self, raw: Any) -> ServiceConfig:
        values, _ = self.fields(raw if raw is not None else {}, "service", SERVICE_OPTIONS)
        snapshots = Path(values.pop("snapshots"))
        if not snapshots.is_absolute():
            snapshots = self.path.parent / snapshots
        values["user_agent"] = values["user_agent"].replace("{version}", __version__)
        return ServiceConfig(snapshots=snapshots, **values)

    def source(self, raw: Any, key: str, document: str, role: str, title: str) -> SourceConfig:
        from differ.normalize.kinds import SOURCE_KINDS

        table = self.table(raw, key)
        if role == "canonical":  # one canonical a document: its id can go without saying
            table = {"id": "canonical", **table}
        kind_name = table.get("kind", "html")
        if kind_name not in SOURCE_KINDS:
            raise self.fail(
                f"{key}.kind", f"expected one of {', '.join(sorted(SOURCE_KINDS))}, found {found(kind_name)}"
            )
        kind = SOURCE_KINDS[kind_name]
        values, _ = self.fields(table, key, {**SOURCE_OPTIONS, **kind.options})
        common = {name: values.pop(name) for name in SOURCE_OPTIONS}
        source = SourceConfig(
            document=document,
            id=self.identifier(common["id"], f"{key}.id"),
            url=self.url(common["url"], f"{key}.url"),
            kind=kind_name,
            role=role,
            interval=common["interval"],
            headers=common["headers"],
            robots=common["robots"] if "robots" in table else kind.robots,
            allow_private=common["allow_private"],
            languages=common["languages"],
            ignore=common["ignore"],
            stale_after=common["stale_after"],
            paused=common["paused"],
            options=values,
            title=title,
        )
        if role == "canonical" and "stale_after" in table:
            raise self.fail(f"{key}.stale_after", "only a mirror can be stale; set it on the mirrors")
        try:
            kind.check(source)
        except Invalid as exc:
            raise self.fail(f"{key}.{exc.key}" if exc.key else key, str(exc))
        return source

    def document(self, raw: Any, key: str) -> DocumentConfig:
        table = self.table(raw, key)
        allowed = {"id", "title", "canonical", "mirrors"}
        for name in table:
            if name not in allowed:
                raise self.fail(f"{key}.{name}", f"unknown key; allowed keys: {', '.join(sorted(allowed))}")
        if "id" not in table:
            raise self.fail(key, 'missing key "id" (the document\'s id)')
        if "canonical" not in table:
            raise self.fail(key, 'missing table "canonical" (the page the mirrors copy)')
        doc_id = self.identifier(opt_str(self, table["id"], f"{key}.id"), f"{key}.id")
        title = opt_str(self, table.get("title", doc_id), f"{key}.title")
        canonical = self.source(table["canonical"], f"{key}.canonical", doc_id, "canonical", title)
        mirrors_raw = table.get("mirrors", [])
        if not isinstance(mirrors_raw, list):
            raise self.fail(
                f"{key}.mirrors",
                f"expected a list of tables ([[documents.mirrors]]), found {found(mirrors_raw)}",
            )
        mirrors = tuple(
            self.source(m, f"{key}.mirrors[{i}]", doc_id, "mirror", title) for i, m in enumerate(mirrors_raw)
        )
        seen: set[str] = set()
        for i, s in enumerate((canonical, *mirrors)):
            where = f"{key}.canonical.id" if i == 0 else f"{key}.mirrors[{i - 1}].id"
            if s.id in seen:
                raise self.fail(where, f'duplicate source id "{s.id}" in document "{doc_id}"')
            seen.add(s.id)
        return DocumentConfig(doc_id, title, canonical, mirrors)

    def notifier(self, raw: Any, key: str, doc_ids: set[str]) -> NotifierConfig:
        from differ.notify import NOTIFIERS

        table = self.table(raw, key)
        kind_name = table.get("kind")
        if kind_name not in NOTIFIERS:
            raise self.fail(
                f"{key}.kind", f"expected one of {', '.join(sorted(NOTIFIERS))}, found {found(kind_name)}"
            )
        common = {
            "name": Option(opt.string, required=True, help="the notifier's name"),
            "kind": Option(opt.string, required=True, help=", ".join(sorted(NOTIFIERS))),
            "documents": Option(opt.string_list, (), "only these documents"),
            "sources": Option(opt.string_list, (), "only these sources (DOCUMENT/SOURCE)"),
            "events": Option(opt.choice_list(*EVENTS), DEFAULT_EVENTS, "which events"),
            "digest": Option(opt.duration(1), None, "collect events and send one message per period"),
            "fail_after": Option(opt.integer(1), 3, "consecutive failures before fetch_failing"),
            "retry_for": Option(opt.duration(1), 86400.0, "how long to retry a delivery before giving up"),
            "timeout": Option(opt.duration(0.1), 15.0, "how long to wait for the receiver's answer"),
        }
        kind = NOTIFIERS[kind_name]
        values, from_env = self.fields(table, key, {**common, **kind.options})
        name = self.identifier(values.pop("name"), f"{key}.name")
        for doc in values["documents"]:
            if doc not in doc_ids:
                raise self.fail(
                    f"{key}.documents",
                    f'no document "{doc}"; configured documents: {", ".join(sorted(doc_ids)) or "none"}',
                )
        secrets = {n for n, spec in kind.options.items() if spec.secret} | (from_env & set(kind.options))
        own = {n: values.pop(n) for n in list(values) if n in kind.options}
        notifier = NotifierConfig(
            name=name,
            kind=values["kind"],
            options=own,
            documents=values["documents"],
            sources=values["sources"],
            events=values["events"],
            digest=values["digest"],
            fail_after=values["fail_after"],
            retry_for=values["retry_for"],
            timeout=values["timeout"],
            secrets=frozenset(secrets),
        )
        try:
            kind.check(notifier)
        except Invalid as exc:
            raise self.fail(f"{key}.{exc.key}" if exc.key else key, str(exc))
        return notifier


def opt_str(loader: _Loader, value: Any, key: str) -> str:
    try:
        return opt.nonempty_string(value)
    except Invalid as exc:
        raise loader.fail(key, str(exc))


def parse_config(
    text: str, path: Path, env: Mapping[str, str] | None = None, *, notifiers: bool = True
) -> Config:
    """Validate configuration text; `path` is used for messages and relative folders. Without `notifiers`,
    the [[notify]] tables are left unread (and their environment variables unneeded)."""
    loader = _Loader(path, os.environ if env is None else env)
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))  # the byte-order mark some editors write
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path.name}: not valid TOML: {exc}")
    allowed = {"service", "documents", "notify"}
    for name in data:
        if name not in allowed:
            raise loader.fail(name, f"unknown key; allowed keys: {', '.join(sorted(allowed))}")
    service = loader.service(data.get("service"))
    docs_raw = data.get("documents", [])
    if not isinstance(docs_raw, list):
        raise loader.fail("documents", f"expected a list of tables ([[documents]]), found {found(docs_raw)}")
    documents = tuple(loader.document(d, f"documents[{i}]") for i, d in enumerate(docs_raw))
    seen: set[str] = set()
    for i, doc in enumerate(documents):
        if doc.id in seen:
            raise loader.fail(f"documents[{i}].id", f'duplicate document id "{doc.id}"')
        seen.add(doc.id)
    notify_raw = data.get("notify", []) if notifiers else []
    if not isinstance(notify_raw, list):
        raise loader.fail("notify", f"expected a list of tables ([[notify]]), found {found(notify_raw)}")
    read = tuple(loader.notifier(n, f"notify[{i}]", seen) for i, n in enumerate(notify_raw))
    names: set[str] = set()
    for i, n in enumerate(read):
        if n.name in names:
            raise loader.fail(f"notify[{i}].name", f'duplicate notifier name "{n.name}"')
        names.add(n.name)
    return Config(path=path, service=service, documents=documents, notifiers=read)


def check_notifier(
    table: Mapping[str, Any], key: str, documents: Iterable[str], path: Path, env: Mapping[str, str]
) -> NotifierConfig:
    """One [[notify]] table checked as a configuration's are, for a table `differ import` writes."""
    return _Loader(path, env).notifier(dict(table), key, set(documents))


def adhoc_source(table: Mapping[str, Any]) -> SourceConfig:
    """A source described on the command line (`differ compare --set NAME=VALUE`), checked as a config's
    source is checked, so that every option means the same and is refused with the same message."""
    return _CommandLine(Path("--set"), os.environ).source(dict(table), "--set", "compare", "canonical", "")


class _CommandLine(_Loader):
    """Messages name the option as it was typed: `--set exclude: expected a list of strings, found 3`."""

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{key.replace('--set.', '--set ', 1)}: {message}")


def store_config(snapshots: Path, sources: Sequence[Mapping[str, Any]]) -> Config:
    """A configuration read back from a store alone, so that a copied `snapshots/` folder can be verified,
    listed, shown and diffed without the file that made it. `sources` are the newest records, one per source
    (`source`, `url`, and `document_title`, `role`, `kind` where recorded); the canonical is the source recorded
    as canonical, else the one named "canonical", else the first."""
    by_document: dict[str, list[SourceConfig]] = {}
    titles: dict[str, str] = {}
    for record in sources:
        document, source_id = str(record["source"]).split("/", 1)
        title = str(record.get("document_title") or document)
        titles.setdefault(document, title)
        by_document.setdefault(document, []).append(
            SourceConfig(
                document=document,
                id=source_id,
                url=str(record.get("url", "")),
                kind=str(record.get("kind", "html")),
                role=str(record.get("role", "")),
                title=title,
            )
        )
    documents = []
    for document, found_sources in by_document.items():
        recorded = [s for s in found_sources if s.role == "canonical"]
        named = [s for s in found_sources if s.id == "canonical"]
        canonical = (recorded or named or found_sources)[0]
        mirrors = tuple(replace(s, role="mirror") for s in found_sources if s is not canonical)
        documents.append(
            DocumentConfig(document, titles[document], replace(canonical, role="canonical"), mirrors)
        )
    return Config(
        path=snapshots / "config.toml", service=ServiceConfig(snapshots), documents=tuple(documents)
    )


def with_stored(config: Config, records: Sequence[Mapping[str, Any]]) -> Config:
    """`config` and the sources that only the store knows (their newest records, as `store_config` reads
    them): a removed mirror joins its document if that is still configured, a removed document comes whole."""
    stored = store_config(config.service.snapshots, records)
    documents = {d.id: d for d in config.documents}
    for d in stored.documents:
        kept = documents.get(d.id)
        if kept is None:
            documents[d.id] = d
            continue
        extra = tuple(
            replace(s, role="mirror", title=kept.title)
            for s in d.sources
            if s.id not in {k.id for k in kept.sources}
        )
        documents[d.id] = replace(kept, mirrors=kept.mirrors + extra)
    return replace(config, documents=tuple(documents.values()))


def load_config(path: Path, env: Mapping[str, str] | None = None) -> Config:
    """Read and validate a configuration file."""
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file; write one (see README.md) or pass --config FILE")
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder; expected a config.toml file")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path.name}: not UTF-8 text (byte {exc.start}); save the file as UTF-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}")
    return parse_config(text, path, env)


def redact(value: str) -> str:
    """Show a secret so that it can be recognized but not used: scheme and host of a URL, or a stub."""
    from urllib.parse import urlsplit

    parts = urlsplit(value)
    if parts.scheme and parts.hostname:
        return f"{parts.scheme}://{parts.hostname}/…"
    return value[:6] + "…" if len(value) > 10 else "…"


def iter_secrets(config: Config) -> Iterator[str]:
    """Every secret value in the configuration, for scrubbing logs and messages."""
    for n in config.notifiers:
        for name in n.secrets:
            value = n.options.get(name)
            if isinstance(value, str) and value:
                yield value
