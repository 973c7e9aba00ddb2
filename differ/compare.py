"""Compare two documents given on the command line (files or URLs) without a store: each is read by a source
kind, normalized and diffed exactly as a watched source's versions are."""

from __future__ import annotations

import hashlib
import re
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from differ.app import App
from differ.audit import (
    AuditReport,
    MirrorAudit,
    Stream,
    audit_text,
    title_apart,
)
from differ.audit.language import reading
from differ.check import build_request
from differ.config import SOURCE_OPTIONS, SourceConfig, adhoc_source
from differ.diff import Diff, Versions, diff
from differ.diff.blocks import split_blocks, title_text
from differ.errors import BlockedError, ConfigError, NormalizeError, UsageError
from differ.files import TooLarge, capped, read_capped
from differ.normalize import SOURCE_KINDS, Body, Normalized, normalize
from differ.normalize.feeds import EVERY_POST
from differ.normalize.jsondoc import load_json, longest_fields, text_fields
from differ.normalize.kinds import a_feed, is_json_feed, media_type, starts_as_feed
from differ.normalize.platforms import DiscourseKind, ReleaseKind
from differ.options import meant, not_a_url, web_address
from differ.versions import response_body

# What a file's suffix says it holds, and the media type it is read as.
SUFFIX_KINDS = {
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".md": "markdown",
    ".markdown": "markdown",
    ".json": "json",
    ".txt": "text",
}
MEDIA_TYPES = {
    "html": "text/html",
    "markdown": "text/markdown",
    "json": "application/json",
    "text": "text/plain",
}
# What a response's media type says it holds, when no kind is given.
MEDIA_KINDS = {
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/plain": "text",
    "application/json": "json",
}


@dataclass
class Read:
    """One side of a comparison: what it was read from, and its normalized form."""

    name: str
    normalized: Normalized
    sha256: str
    source: SourceConfig
    body: Body  # kept to read a bilingual copy again whole, when it is audited


def is_url(spec: str) -> bool:
    return spec.startswith(("http://", "https://"))


def settable() -> set[str]:
    """The options `--set` takes: every source's, and every kind's."""
    names = set(SOURCE_OPTIONS) - {"id", "url", "kind"}
    for kind in SOURCE_KINDS.values():
        names.update(kind.options)
    return names


def parse_settings(pairs: list[str], known: set[str] | None = None, given: str = "--set: ") -> dict[str, Any]:
    """`--set NAME=VALUE` pairs as a table, of a source's options unless `known` says which: VALUE is read as
    TOML when it is TOML (a list, a number, a quoted string), else taken as it is written, so
    `--set selector=article .post` needs no quoting. `given` heads an error (how the pairs were given)."""
    table: dict[str, Any] = {}
    known = settable() if known is None else known
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f'{given}expected NAME=VALUE (e.g. --set selector=article), found "{pair}"')
        if known and name not in known:
            raise UsageError(
                f'{given}unknown option "{name}"{meant(name, known)}; options: {", ".join(sorted(known))}'
            )
        try:
            table[name] = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            table[name] = value
    return table


def _source(
    settings: dict[str, Any], label: str, url: str, kind: str, data: bytes | None = None, base: str = ""
) -> SourceConfig:
    """The side's source: options its kind does not take are left out, so that one `--set` line serves a
    comparison of two kinds (a JSON mirror against an HTML page). A JSON document read already (`data`) whose
    `field` is not given names its longest text fields, where the body is likely to be, or, a JSON Feed, how to
    read one of its posts (its links read against `base`, a file's own address)."""
    takes = set(SOURCE_OPTIONS) | set(SOURCE_KINDS[kind].options)
    table = {name: value for name, value in settings.items() if name in takes}
    if kind == "feed" and "entry" not in table:  # two feeds, no post named: their lists of posts
        table["entry"] = EVERY_POST
    try:
        return adhoc_source({**table, "id": label, "url": url, "kind": kind})
    except ConfigError as exc:
        if kind != "json" or "field" in table or data is None:
            raise
        try:
            parsed = load_json(Body(data, None, url))
        except NormalizeError:
            raise exc from None
        if is_json_feed(parsed):  # a blog's JSON Feed: one of its posts is read by the feed kind
            raise ConfigError(
                f"{exc}; it is {a_feed('a JSON Feed', Body(data, None, base or url))[0]}"
            ) from None
        raise ConfigError(f"{exc}{text_fields(longest_fields(parsed))}") from None


def _kind_of_file(path: Path, data: bytes, settings: dict[str, Any]) -> str:
    """The kind a file is read as: by its name, else by its start; a feed (RSS, Atom, or a JSON Feed where no
    `field` is given) as a feed, which with no `entry` is its list of posts; JSON kept as text (an API's answer
    saved as `.txt`) as JSON when a `field` to read is given."""
    kind = SUFFIX_KINDS.get(path.suffix.lower())
    if (
        kind in ("text", None)
        and "field" in settings
        and data.lstrip()[:1] in (b"{", b"[")
        and _json(data) is not None
    ):
        return "json"
    if kind == "json" and "field" not in settings and is_json_feed(_json(data)):
        return "feed"
    if kind:
        return kind
    if starts_as_feed(data):
        return "feed"
    return "html" if data.lstrip()[:1] == b"<" else "markdown"


def _json(data: bytes) -> Any:
    """A file's bytes as JSON, or None when they are not JSON."""
    try:
        return load_json(Body(data, "application/json", "https://localhost/"))
    except NormalizeError:
        return None


def read_side(
    app: App, spec: str, label: str, kind: str | None, settings: dict[str, Any], base: str | None = None
) -> Read:
    """Read one side: fetch a URL politely (robots.txt, limits), or read a file; then normalize. `base`: the
    address a file's links are read against, its own unless given (two saved copies of a page, in two folders,
    read against one, so that their links compare as written)."""
    if is_url(spec) and web_address(spec) is None:
        raise UsageError(f"{spec}: {not_a_url(spec)}")
    if kind is None and "entry" in settings:
        kind = "feed"  # an entry is chosen only in a feed, as `differ add` has it
    source, body = (
        _fetch(app, spec, label, kind, settings)
        if is_url(spec)
        else _open(app, spec, label, kind, settings, base)
    )
    normalized = normalize(body, source)
    if kind is None and is_url(spec) and DiscourseKind.topic_page(source, normalized.generator):
        # a forum's topic: its first post, through the forum's API
        source, body = _fetch(app, spec, label, "discourse", settings)
        normalized = normalize(body, source)
        normalized.warnings.append(
            "a Discourse topic: its first post read (kind discourse), not the page with its replies"
        )
    return Read(spec, normalized, hashlib.sha256(body.data).hexdigest(), source, body)


_GITHUB_BLOB = re.compile(r"https://github\.com/([^/]+)/([^/]+)/blob/(.+)")
_GITLAB_BLOB = re.compile(r"(https://[^/]+/.+?)/-/blob/(.+)")


def raw_file(url: str) -> str | None:
    """The file itself for a file's page in a GitHub or GitLab repository (`…/blob/main/post.md`), whose page
    around it changes with every deploy of the forge; None for any other address."""
    bare = url.split("#", 1)[0]
    if m := _GITHUB_BLOB.fullmatch(bare):
        return f"https://raw.githubusercontent.com/{m[1]}/{m[2]}/{m[3].split('?', 1)[0]}"
    if m := _GITLAB_BLOB.fullmatch(bare):
        return f"{m[1]}/-/raw/{m[2].split('?', 1)[0]}"
    return None


def url_kind(url: str) -> str | None:
    """The kind a URL names on its own: a release page on github.com or gitlab.com is read through its API."""
    return next((k.name for k in SOURCE_KINDS.values() if issubclass(k, ReleaseKind) and k.names(url)), None)


def _fetch(
    app: App, spec: str, label: str, kind: str | None, settings: dict[str, Any]
) -> tuple[SourceConfig, Body]:
    from differ.backfill import raw_capture

    archived = raw_capture(spec)  # a page as a web archive kept it: read as served, against its own address
    url, base = archived or (raw_file(spec) or spec, None)
    kind = kind or (None if archived else url_kind(spec))
    source = _source(settings, label, url, kind or "html")
    try:
        response = app.fetcher.fetch(build_request(source, {}))
    except BlockedError as exc:  # a page on this machine or the intranet: the option that reaches it here
        if not exc.refused:
            raise
        raise BlockedError(exc.allow_with("--set allow_private=true"), refused=exc.refused) from None
    if kind is None:
        guessed = MEDIA_KINDS.get(media_type(response.header("content-type")), "html")
        if guessed == "text" and url.lower().endswith((".md", ".markdown")):
            guessed = "markdown"
        source = _source(settings, label, url, guessed, response.body)
    return source, response_body(app, response, base=base)


def _open(
    app: App, spec: str, label: str, kind: str | None, settings: dict[str, Any], base: str | None = None
) -> tuple[SourceConfig, Body]:
    path = Path(spec)
    limit = app.config.service.max_bytes
    try:  # a device or a pipe may never end: read what a page may be, and one byte more
        data = capped(sys.stdin.buffer, limit) if spec == "-" else read_capped(path, limit)
    except TooLarge:
        raise UsageError(
            f"{spec}: more than max_bytes ({limit:,} bytes); a page is compared whole or not at all"
        )
    except FileNotFoundError:
        raise UsageError(f"{spec}: no such file; expected a file, an http(s):// URL or -")
    except IsADirectoryError:
        raise UsageError(f"{spec}: is a folder; expected a file, an http(s):// URL or -")
    except OSError as exc:
        raise UsageError(f"{spec}: cannot read: {exc.strerror}")
    kind = kind or _kind_of_file(path, data, settings)
    # Checked with a stand-in URL (a source's must be http or https), then read from the file's own address,
    # so relative links resolve as a browser opening the file would resolve them.
    base = base or ((Path.cwd() / "stdin").as_uri() if spec == "-" else path.resolve().as_uri())
    checked = _source(settings, label, "https://localhost/", kind, data, base)
    return replace(checked, url=base), Body(
        data, MEDIA_TYPES.get(kind), base, app.config.service.tracking_params
    )


def compare(old: Read, new: Read) -> tuple[Diff, Versions]:
    """The diff of two documents read on the spot, named by what they were read from."""
    d = diff(
        old.normalized.markdown,
        new.normalized.markdown,
        a_meta=old.normalized.metadata,
        b_meta=new.normalized.metadata,
        a_invisible=old.normalized.invisible,
        b_invisible=new.normalized.invisible,
    )
    versions = Versions(
        f"{old.name} → {new.name}",
        "compare",
        None,
        None,
        a_hash=old.sha256,
        b_hash=new.sha256,
        a_name=old.name,
        b_name=new.name,
    )
    return d, versions


def audit(
    canonical: Read, mirror: Read, translation: bool | None = None, accept: Sequence[str] = ()
) -> AuditReport:
    """How faithfully `mirror` reproduces `canonical`, both read on the spot: coverage and findings, as
    `differ audit` reports a watched mirror (without staleness, which needs a history). `translation` says
    whether the copy is a translation; unset, its scripts say. `accept`: patterns of the findings made on
    purpose, as a mirror's `accept` option."""
    from differ.audit import read_copy
    from differ.audit.report import accepted

    ours = Stream.of(split_blocks(canonical.normalized.markdown))
    apart = title_apart(canonical.source.kind, canonical.normalized.markdown, canonical.normalized.metadata)
    option = "--set 'languages=[\"{}\"]'"
    # read as a watched mirror's audit reads it: a bilingual copy in the canonical's language
    source = replace(mirror.source, translation=translation)
    read = read_copy(
        source, mirror.normalized.markdown, mirror.normalized.metadata, ours.blocks, apart, option
    )
    theirs, languages = Stream.of(read.blocks), read.mirror.languages or ()
    as_translation, note = reading(ours.blocks, theirs.blocks, translation, option, languages)
    note = read.note or note
    # the copy's whole page, every language kept, when `languages` kept a part of it (split unasked: as read)
    whole = read.whole if read.note else None
    if languages and whole is None:
        whole = normalize(mirror.body, replace(mirror.source, languages=None)).markdown
    pages = (canonical.source.url, mirror.source.url)
    coverage, findings = audit_text(ours, ours, theirs, pages, as_translation, whole, languages)
    findings, known, unused = accepted(findings, accept, title_text(ours.blocks))
    report = AuditReport("compare", canonical.name, None, None)
    report.mirrors.append(
        MirrorAudit(
            mirror.name,
            mirror.name,
            None,
            None,
            None,
            coverage,
            findings,
            note=note,
            translation=as_translation,
            accepted=known,
            unused=unused,
        )
    )
    return report


def render_audit(report: AuditReport, fmt: str) -> str:
    """The audit of a pair: a headline and a line per finding; JSON in the `differ.audit/1` shape."""
    from differ.audit.report import html_page, mirror_lines
    from differ.audit.report import render_audit as render_stored
    from differ.audited import findings_said
    from differ.diff.blocks import md_text

    if fmt == "json":
        return render_stored(report, fmt)
    m = report.mirrors[0]
    reading = ", a translation," if m.translation else ""
    count = findings_said(len(m.findings), len(m.accepted))
    head = f"{m.id}{reading} against {report.title}: coverage {m.coverage:.1%}; {count}"
    if fmt == "html":
        return html_page(report, head)
    body = mirror_lines(m, None)[1:]  # its notes, findings and accepted ones, as `differ audit` lists them
    if fmt == "markdown":
        items = (f"- {md_text(line.strip().removeprefix('• '))}" for line in body)
        return "\n".join([f"**{md_text(head, inline=True)}**", "", *items]) + "\n"
    return "\n".join([head, *body]) + "\n"
