"""`differ add`, `differ import`, `differ remove`, `differ pause` and `differ resume`: documents and their sources
put into config.toml, taken out, paused and resumed."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from differ import tomltext
from differ.config import SourceConfig, parse_config
from differ.edit.naming import (
    document_id,
    mirror_id,
    private_note,
    same_page,
    source_table,
    stored_urls,
    translation_language,
    unique,
    watch_key,
)
from differ.edit.notifiers import AddedNotifier, Notifier, notifier_tables
from differ.edit.text import (
    BeforeWrite,
    check_added,
    cut_tables,
    existing_text,
    open_config,
    retried,
    run_once,
)
from differ.errors import ConfigError, UsageError

_PAUSED = re.compile(r"^\s*paused\s*=")


@dataclass(frozen=True)
class Removed:
    """What `remove_source` took out: a document (with its sources) or one mirror, by key."""

    name: str
    keys: tuple[str, ...]
    document: bool


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
    once = run_once(before_write, path)

    def edit() -> Added:
        return _add_mirror(path, url, to, id, title, kind, settings or {}, env, once)

    return retried(edit)


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
    text, config, read_as = open_config(path, env)
    target = config.document(to)  # names the configured documents when there is no such one
    to = target.id  # the document may be named by its page's URL
    same = watched_by([s for s in config.sources() if s.document == to], url, settings.get("entry"))
    if same is not None:
        raise UsageError(already_watched(url, settings.get("entry"), same) + _to_change(same, kind, settings))
    table = source_table(url, kind, settings)
    stored = stored_urls(config)
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
    named = translation_language(config, target.canonical.key, url)
    source_id = id or (again[0] if again else unique(named or mirror_id(url), configured | elsewhere))
    block = "[[documents.mirrors]]\nid = " + tomltext.value(source_id) + "\n" + tomltext.lines(table)
    new_text = tomltext.insert(text, config, to, block)
    key = f"{to}/{source_id}"
    source = check_added(new_text, path, env, {key: url})[key]
    if before_write is not None:
        before_write(new_text, [key])
    tomltext.write(path, new_text, read_as=read_as)
    return Added(key, False, private_note(source))


def watched_by(sources: Iterable[SourceConfig], url: str, entry: Any) -> SourceConfig | None:
    """The first of `sources` watching the page at `url` (a feed's `entry` in it), however either is spelled
    (`http:`, `www.`, a trailing slash, `utm_`)."""
    at = same_page(url, entry)
    return next((s for s in sources if same_page(s.url, s.options.get("entry")) == at), None)


def already_watched(url: str, entry: Any, by: SourceConfig) -> str:
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
    text, config, read_as = open_config(path, env)
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
    stored = stored_urls(config)
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
        table = source_table(page.url, page.kind, page.settings)
        blocks.append(
            f"[[documents]]\nid = {tomltext.value(document)}\n{named}\n[documents.canonical]\n"
            + tomltext.lines(table)
        )
    new_text = tomltext.insert(text, config, None, "\n".join(blocks)) if blocks else text
    sources = check_added(new_text, path, env, expected)
    documents = {url: key.split("/")[0] for url, key in watched.items()}
    alerts, tables, secret = notifier_tables(text, path, env, notifiers, documents)
    if tables:
        new_text = new_text.rstrip("\n") + ("\n\n" if new_text.strip() else "") + "\n".join(tables)
    if write and (blocks or tables):
        if before_write is not None:
            before_write(new_text, list(expected))
        tomltext.write(path, new_text, read_as=read_as, private=secret)
    added = [Added(key, True, private_note(sources[key])) for key in expected]
    return Additions(added, already, alerts, "\n".join(blocks + tables))


def _remove_source(path: Path, name: str, env: Mapping[str, str] | None = None) -> Removed:
    """`remove_source`, from the file as it is now."""
    env = os.environ if env is None else env
    text = existing_text(path)
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
    new_text = cut_tables(rows, start, end)
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
    text, config, read_as = open_config(path, env)
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

    once = run_once(before_write, path)

    def edit() -> Additions:
        return _add_documents(
            path, pages, env, notifiers=notifiers, skip_watched=skip_watched, write=write, before_write=once
        )

    return retried(edit)


def remove_source(path: Path, name: str, env: Mapping[str, str] | None = None) -> Removed:
    """Take `name` out of the configuration at `path`: a DOCUMENT with all its sources, or one mirror as
    DOCUMENT/MIRROR (a canonical goes only with its document). The comments just above the removed tables go
    with them; everything else stays as written."""
    return retried(lambda: _remove_source(path, name, env))


def set_paused(
    path: Path, names: Sequence[str], paused: bool, env: Mapping[str, str] | None = None
) -> list[str]:
    """Pause (`paused = true`) or resume (the line taken out) the sources `names` name, DOCUMENT for all its
    sources or DOCUMENT/SOURCE, in one write that changes nothing else; returns the keys changed (those
    already so are left as they are)."""
    return retried(lambda: _set_paused(path, names, paused, env))
