"""`differ set`: options of sources, documents and the [service] table, each written on its own line of its
table, the rest of the file as it was."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from differ import tomltext
from differ.config import MIRROR_ONLY, Config, SourceConfig
from differ.edit.naming import needs
from differ.edit.sources import already_watched, watched_by
from differ.edit.text import (
    Set,
    Table,
    edit_table,
    existing_config,
    open_config,
    parsed_text,
    read_toml,
    reads_back,
    retried,
    with_edits,
)
from differ.errors import ConfigError, UsageError

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
    return retried(lambda: _set_options(path, names, settings, unset, env))


def _set_options(
    path: Path,
    names: Sequence[str],
    settings: Mapping[str, Any],
    unset: Sequence[str],
    env: Mapping[str, str] | None,
) -> list[Set]:
    """`set_options`, from the file as it is now."""
    env = os.environ if env is None else env
    text, config, read_as = existing_config(path, env, "differ add URL makes it")
    chosen = config.select(list(names))
    if "url" in settings:
        _new_address(config, chosen, str(settings["url"]))
    changes = {**settings, **{name: None for name in unset}}
    own = {name: changes.pop(name) for name in DOCUMENT_SET if name in changes}
    documents = _documents(config, names) if own else []
    written, expected, rows, headers = parsed_text(text)
    edits: list[tuple[int, int, str]] = []  # rows [start, end) replaced by the text
    done: list[Set] = []
    for document in documents:
        start, _ = tomltext.document_span(rows, headers, config, document)
        end = next((i for i, _, _ in headers if i > start), len(rows))
        table = Table(document, start, end, partial(_document_table, config, document), path.name)
        done += edit_table(table, own, rows, written, expected, edits)
    # named by its document alone, a canonical takes none of a mirror's options: they go to its mirrors
    whole = {name for name in names if "/" not in name}
    mirrors_only = {name for name in changes if name in MIRROR_ONLY}
    setting = {name for name in mirrors_only if changes[name] is not None}  # not taken out
    for source in chosen if changes else []:
        if source.role == "canonical" and source.document in whole and source.key not in names:
            _mirrors_take(config, source.document, setting)
            source_changes = {n: v for n, v in changes.items() if n not in mirrors_only}
        else:
            source_changes = changes
        if not source_changes:
            continue
        before = _written(written, config, source)
        # The kind it will have: the one set, else the one written; none (or taken out) is html.
        kind = str((source_changes["kind"] if "kind" in source_changes else before.get("kind")) or "html")
        kept = {n: v for n, v in {**before, **source_changes}.items() if v is not None}
        _fits(source.key, kind, kept)
        missing = needs(kind, kept)
        if missing:
            name, help = missing
            raise UsageError(f"{source.key}: a {kind} page needs {name} ({help}): set it too, {name}=…")
        start, end = tomltext.source_rows(rows, headers, config, source)
        table = Table(source.key, start, end, partial(_written, config=config, source=source), path.name)
        done += edit_table(table, source_changes, rows, written, expected, edits)
    if done:
        new_text = with_edits(rows, edits)
        if len(reads_back(new_text, path, env, expected).sources()) != len(config.sources()):
            raise ConfigError(f"{path.name}: could not set it cleanly; edit it by hand")
        tomltext.write(path, new_text, read_as=read_as)
    return done


def _mirrors_take(config: Config, document: str, names: set[str]) -> None:
    """A document named for options only a mirror takes (`stale_after`, `accept`, `translation`) must have a
    mirror to take them."""
    if names and not config.document(document).mirrors:
        which = ", ".join(sorted(names))
        raise UsageError(
            f"{document} has no mirrors to take {which} (a mirror's option); add one: differ add URL --to {document}"
        )


def set_service(
    path: Path, settings: Mapping[str, Any], unset: Sequence[str] = (), env: Mapping[str, str] | None = None
) -> list[Set]:
    """Write `settings` into the [service] table (made, above the documents, when the file has none), and take
    the options `unset` names out, in one write that changes nothing else; returns what changed."""
    return retried(lambda: _set_service(path, settings, unset, env))


def _set_service(
    path: Path, settings: Mapping[str, Any], unset: Sequence[str], env: Mapping[str, str] | None
) -> list[Set]:
    """`set_service`, from the file as it is now."""
    env = os.environ if env is None else env
    text, _, read_as = existing_config(path, env, "differ add URL makes it")
    written, expected, rows, headers = parsed_text(text)
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
        done = edit_table(table, {**settings, **{n: None for n in unset}}, rows, written, expected, edits)
    if done:
        new_text = with_edits(rows, edits)
        reads_back(new_text, path, env, expected)
        tomltext.write(path, new_text, read_as=read_as)
    return done


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


def _document_table(config: Config, document: str, data: dict[str, Any]) -> dict[str, Any]:
    """A document's own table in the configuration's parsed TOML."""
    table: dict[str, Any] = data["documents"][[d.id for d in config.documents].index(document)]
    return table


def written_options(path: Path, key: str, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A source's table as the file writes it now, its `${NAME}`s unexpanded: what is copied elsewhere (a
    followed feed's options into its new posts' tables) without writing a secret out."""
    text, config, _ = open_config(path, os.environ if env is None else env)
    return _written(read_toml(text), config, config.source(key))


def _written(data: dict[str, Any], config: Config, source: SourceConfig) -> dict[str, Any]:
    """A source's own table in the configuration's parsed TOML."""
    index = [d.id for d in config.documents].index(source.document)
    document = data["documents"][index]
    ids = [m.id for m in config.document(source.document).mirrors]
    table: dict[str, Any] = (
        document["canonical"] if source.role == "canonical" else document["mirrors"][ids.index(source.id)]
    )
    return table


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
    same = watched_by(others, url, source.options.get("entry"))
    if same is not None:
        raise UsageError(already_watched(url, source.options.get("entry"), same))
