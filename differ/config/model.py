"""What a validated configuration is: the service's settings, the documents and their sources, the notifiers;
the defaults and option tables they are checked against, in one place."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from differ import __version__
from differ import options as opt
from differ.addresses import page_key
from differ.errors import UsageError
from differ.languages import SCRIPT_OF_LANGUAGE
from differ.options import Option

DEFAULT_CONFIG = Path("config.toml")
# The web archive `differ backfill` reads captures from: the Wayback Machine, whose CDX API pywb serves too.
WEB_ARCHIVE = "https://web.archive.org"
DEFAULT_USER_AGENT = "differ/{version} (+https://github.com/differ-dev/differ)"
LANGUAGES = tuple(SCRIPT_OF_LANGUAGE)
# Countries' codes people write for their languages' (`kr` for Korean), named as the code meant when given
COUNTRY_LANGUAGE = {
    **{"kr": "ko", "jp": "ja", "cn": "zh", "tw": "zh", "gr": "el", "ua": "uk", "se": "sv", "il": "he"},
    **{"br": "pt", "vn": "vi", "us": "en", "gb": "en", "mx": "es", "at": "de"},
}
# `metadata`: a version whose text and title are unchanged, only other metadata (a modified date): stored and
# listed, but sent only to notifiers that ask for it, since a page saved again without an edit says nothing.
EVENTS = (
    "changed",
    "mirror_drift",
    "fetch_failing",
    "recovered",
    "delivery_failed",
    "metadata",
    "translation_found",
    "moved",
    "first_version",
)
# The kinds of a diff's changes, as a notifier's `changes` and `--change` name them.
CHANGE_KINDS = ("added", "removed", "modified", "moved", "link", "invisible")
DEFAULT_EVENTS = ("changed", "mirror_drift", "fetch_failing", "recovered", "delivery_failed")
VERSION_EVENTS = ("changed", "metadata")  # the events of a new version, which carry its diff

ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")  # `${NAME}` in a value

KEEP_SENT = 90 * 86400.0  # a delivered alert's file: what was said stays in the store's versions

SERVICE_OPTIONS: dict[str, Option] = {
    "snapshots": Option(opt.folder, "snapshots", "the store's folder, relative to the config file"),
    "interval": Option(opt.duration(1), 1800.0, "default time between checks of a source"),
    "jitter": Option(opt.fraction, 0.1, "share of the interval added at random to each run"),
    "settled_after": Option(
        opt.duration(),
        0.0,
        "how long a page goes unedited before it is checked every settled_interval instead (0: never)",
    ),
    "settled_interval": Option(opt.duration(1), 21600.0, "time between checks of a settled page"),
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
    "base_url": Option(opt.web_url, "", "where reports are published, for links in alerts"),
    "heartbeat": Option(
        opt.web_url,
        "",
        "a URL requested (GET) after checks, at most every heartbeat_every, while differ status is ok: a "
        "monitor's dead man's switch (healthchecks.io, Uptime Kuma, Cronitor)",
    ),
    "heartbeat_every": Option(opt.duration(10), 300.0, "time between two heartbeats of differ run"),
    "metrics": Option(
        opt.path,
        "",
        "a file differ run writes its Prometheus metrics to every metrics_every, replacing it whole "
        "(node_exporter's textfile collector), as differ status --format prometheus --output FILE does",
    ),
    "metrics_every": Option(opt.duration(5), 60.0, "time between two writes of the metrics file"),
    "keep_sent": Option(
        opt.duration(),
        KEEP_SENT,
        "how long a delivered alert is kept in outbox/NAME/sent (0: for good); its id is kept for good, so "
        "its event is never sent again",
    ),
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
    "settled_after": Option(opt.duration(), None, "overrides the service's settled_after"),
    "settled_interval": Option(opt.duration(1), None, "overrides the service's settled_interval"),
    "headers": Option(opt.string_table, {}, "extra request headers"),
    "robots": Option(opt.boolean, True, "honour robots.txt"),
    "allow_private": Option(opt.private_access, False, "allow loopback and private addresses"),
    "command": Option(
        opt.command,
        (),
        "a program that fetches the page instead (a headless browser), {url} standing for the page's "
        "address; what it prints is read as the kind says",
    ),
    "languages": Option(
        opt.choice_list(*LANGUAGES, aliases=COUNTRY_LANGUAGE), None, "keep only blocks in these languages"
    ),
    "ignore": Option(
        opt.pattern_list, (), "regular expressions of text to leave out (a line they empty is dropped)"
    ),
    "stale_after": Option(
        opt.duration(),
        0.0,
        "a mirror's time to catch up: how long the canonical may be ahead before the mirror is called stale",
    ),
    "accept": Option(
        opt.finding_list,
        (),
        "a mirror's findings made on purpose (its own heading, a section it leaves out), by their line as "
        "differ audit prints it, * any characters: listed apart, never counted or alerted on",
    ),
    "paused": Option(
        opt.boolean, False, "not checked by differ check or differ run until unset; its record stays"
    ),
    "translation": Option(
        opt.boolean,
        None,
        "a mirror in another language, audited for what a translation keeps (numbers, names, code, links) "
        "rather than word by word; unset, a mirror mostly in a script the canonical does not use is one",
    ),
}


@dataclass(frozen=True)
class ServiceConfig:
    """Settings that apply to every source."""

    snapshots: Path
    interval: float = 1800.0
    jitter: float = 0.1
    settled_after: float = 0.0  # unedited this long, a page is checked every settled_interval (0: never)
    settled_interval: float = 21600.0
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
    heartbeat: str = field(default="", repr=False)  # its path is the monitor's secret: never printed
    heartbeat_every: float = 300.0
    metrics: str = ""  # a file differ run writes its metrics to (relative to the config file, as snapshots)
    metrics_every: float = 60.0
    keep_sent: float = KEEP_SENT


# The options of a mirror alone, and why the canonical takes none.
MIRROR_ONLY = {
    "stale_after": "only a mirror can be stale",
    "accept": "only a mirror's audit has findings",
    "translation": "only a mirror can be a translation",
}


@dataclass(frozen=True)
class SourceConfig:
    """One watched URL: a document's canonical page or one of its mirrors."""

    document: str
    id: str
    url: str
    kind: str = "html"
    role: str = "canonical"
    interval: float | None = None
    settled_after: float | None = None  # None: the service's
    settled_interval: float | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)  # may carry a token: never printed
    robots: bool = True
    allow_private: bool | tuple[opt.Network, ...] = False
    # a program that fetches the page instead, {url} standing for its address; may carry a token: never printed
    command: tuple[str, ...] = field(default=(), repr=False)
    command_written: tuple[str, ...] = ()  # the same as written, `${NAME}` not filled in (what records keep)
    languages: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    stale_after: float = 0.0  # a mirror's time to catch up with a canonical edit
    accept: tuple[str, ...] = ()  # a mirror's findings made on purpose, as patterns of their lines
    paused: bool = False  # left out of `differ check` and `differ run` unless named
    translation: bool | None = None  # a mirror audited as a translation; None: as its script says
    options: Mapping[str, Any] = field(default_factory=dict)
    title: str = ""  # the document's title as configured; "" when it is to be the page's own (differ.titles)

    @property
    def key(self) -> str:
        """The `DOCUMENT/SOURCE` name used everywhere in the CLI."""
        return f"{self.document}/{self.id}"

    @property
    def page(self) -> str:
        """The address a person opens for this source: the post a feed source's entry names, else `url`."""
        entry = self.options.get("entry")
        return entry if isinstance(entry, str) and entry.startswith(("https://", "http://")) else self.url

    def option(self, name: str) -> Any:
        return self.options.get(name)


@dataclass(frozen=True)
class DocumentConfig:
    """A canonical announcement and the mirrors that copy it."""

    id: str
    title: str  # as configured, else the id; differ.titles says what it is called
    canonical: SourceConfig
    mirrors: tuple[SourceConfig, ...] = ()
    titled: bool = True  # a title is configured (else the page's own is used)

    @property
    def sources(self) -> tuple[SourceConfig, ...]:
        return (self.canonical, *self.mirrors)

    def unwatched(self, translations: Sequence[Sequence[str]]) -> list[tuple[str, str]]:
        """Of the translations the canonical page names (language, address), those none of the mirrors is."""
        known = {page_key(m.url) for m in self.mirrors}
        return [(lang, url) for lang, url in named_translations(translations) if page_key(url) not in known]


def named_translations(translations: Any) -> list[tuple[str, str]]:
    """The translations a canonical page names, as a check keeps them in its state (language, address): those
    that read as such."""
    if not isinstance(translations, list | tuple):
        return []
    return [
        (named[0], named[1])
        for named in translations
        if isinstance(named, list | tuple) and len(named) == 2 and all(isinstance(x, str) for x in named)
    ]


@dataclass(frozen=True)
class NotifierConfig:
    """One `[[notify]]` destination with its filters."""

    name: str
    kind: str
    options: Mapping[str, Any]
    documents: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    events: tuple[str, ...] = DEFAULT_EVENTS
    sections: tuple[str, ...] = ()  # only edits under a heading one of these patterns matches
    words: tuple[str, ...] = ()  # only edits whose block has one of these words
    changes: tuple[str, ...] = ()  # only edits of these kinds (removed, modified, …)
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

    @property
    def narrows(self) -> bool:
        """Whether this notifier hears of some changes of an edit only (`sections`, `words`, `changes`)."""
        return bool(self.sections or self.words or self.changes)

    def wants_changes(self, diff: Mapping[str, Any]) -> bool:
        """Whether an edit touches what this notifier is for: a change under a heading that one of `sections`
        matches (case aside, `*` any run of characters) whose block, before or after, has one of `words`, of a
        kind `changes` names, or (without `sections`) a metadata field whose value has one of `words`. Without
        any, every edit."""
        if not self.narrows:
            return True
        from differ.diff.narrow import asked_for, metadata_asked_for

        changes = diff.get("changes") or []
        metadata = diff.get("metadata") or []
        return any(
            asked_for(c, self.sections, self.words, self.changes) for c in changes if isinstance(c, dict)
        ) or any(
            metadata_asked_for(m, self.sections, self.words, self.changes)
            for m in metadata
            if isinstance(m, dict)
        )

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

    @cached_property
    def _by_id(self) -> dict[str, DocumentConfig]:
        return {doc.id: doc for doc in self.documents}

    def document(self, doc_id: str) -> DocumentConfig:
        """Find a document by its id (at once, however many there are), or by the URL of a page it watches."""
        found = self._by_id.get(doc_id)
        if found is not None:
            return found
        if "://" in doc_id:
            ids = list(dict.fromkeys(s.document for s in self.watching(doc_id)))
            if len(ids) > 1:
                raise UsageError(f"{doc_id} is watched in {', '.join(ids)}: name one of them")
            return self.document(ids[0])
        names = ", ".join(d.id for d in self.documents) or "none configured"
        said = opt.meant(doc_id, [d.id for d in self.documents])
        raise UsageError(f'no document "{doc_id}"{said}; configured documents: {names}')

    def source(self, key: str) -> SourceConfig:
        """Find a source by `DOCUMENT/SOURCE` (or by DOCUMENT alone for its canonical, or by its page's URL)."""
        for s in self.sources():
            if s.key == key:
                return s
        if "://" in key:
            found = self.watching(key)
            if len(found) > 1:
                raise UsageError(f"{key} is watched as {', '.join(s.key for s in found)}: name one of them")
            return found[0]
        if "/" not in key:
            return self.document(key).canonical
        names = ", ".join(s.key for s in self.sources()) or "none configured"
        said = opt.meant(key, [s.key for s in self.sources()])
        raise UsageError(f'no source "{key}"{said}; configured sources: {names}')

    def select(self, keys: list[str]) -> list[SourceConfig]:
        """The sources named on the command line (a DOCUMENT names all of its sources); all when none."""
        if not keys:
            return self.sources()
        chosen: list[SourceConfig] = []
        for key in keys:
            if "://" in key:
                picked = self.watching(key)
            else:
                picked = list(self.document(key).sources) if "/" not in key else [self.source(key)]
            chosen.extend(s for s in picked if s not in chosen)
        return chosen

    def watching(self, url: str) -> list[SourceConfig]:
        """The sources that watch the page at `url`, however spelled (`http:`, `www.`, a trailing slash, `utm_`),
        so that a page can be named as it was pasted; a UsageError when none does."""
        found = [s for s in self.sources() if page_key(s.url) == page_key(url)]
        if not found:
            names = ", ".join(s.key for s in self.sources()) or "none configured"
            raise UsageError(
                f"no source watches {url} (to watch it: differ add {url}); configured sources: {names}"
            )
        return found

    def to_check(self, keys: list[str]) -> tuple[list[SourceConfig], list[SourceConfig]]:
        """The sources a check of `keys` covers, and the paused ones it leaves out: a paused source is checked
        only when named as DOCUMENT/SOURCE."""
        named = {s.key for key in keys if "://" in key for s in self.watching(key)} | set(keys)
        chosen = self.select(keys)
        left_out = [s for s in chosen if s.paused and s.key not in named]
        return [s for s in chosen if s not in left_out], left_out

    def notifier(self, name: str) -> NotifierConfig:
        for n in self.notifiers:
            if n.name == name:
                return n
        names = ", ".join(n.name for n in self.notifiers) or "none configured"
        raise UsageError(f'no notifier "{name}"; configured notifiers: {names}')


def redact(value: str) -> str:
    """Show a secret so that it can be recognized but not used: scheme and host of a URL, or a stub."""
    from urllib.parse import urlsplit

    parts = urlsplit(value)
    if parts.scheme and parts.hostname:
        return f"{parts.scheme}://{parts.hostname}/…"
    return value[:6] + "…" if len(value) > 10 else "…"


def iter_secrets(config: Config) -> Iterator[str]:
    """Every secret value in the configuration, for scrubbing logs and messages."""
    if config.service.heartbeat:
        yield config.service.heartbeat
    for n in config.notifiers:
        for name in n.secrets:
            value = n.options.get(name)
            if isinstance(value, str) and value:
                yield value
