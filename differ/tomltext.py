"""config.toml edited as text, so its comments and layout stay: where a document's, a source's or a mirror's
tables are, values written as TOML, a block put at the end of a document, and the file read and replaced in one
step with its line endings and byte-order mark as they were."""

from __future__ import annotations

import fcntl
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from differ.config import Config, SourceConfig
from differ.errors import ConfigError, UsageError
from differ.files import atomic_write, lock_within

# A table's header row; its name starts and ends with no space, so a row that is not one fails in linear time.
_HEADER = re.compile(
    r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"](?:[A-Za-z0-9_.\-\s\"]*[A-Za-z0-9_.\-\"])?)\s*\]\]?\s*(?:#.*)?$"
)


def value(v: Any) -> str:
    """A value written as TOML."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")  # JSON's escapes are TOML's
    if isinstance(v, list | tuple):
        return "[" + ", ".join(value(item) for item in v) + "]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {value(item)}" for k, item in v.items()) + "}"
    raise UsageError(f"cannot write {v!r} to the configuration")


def lines(table: Mapping[str, Any]) -> str:
    return "".join(f"{name} = {value(v)}\n" for name, v in table.items())


def insert(text: str, config: Config, document: str | None, block: str) -> str:
    """`text` with `block` put at the end of `document`'s tables (the last document's, for a new one): before
    the next table that is not one of its own, and before the comments that lead into that table."""
    rows = text.splitlines(keepends=True)
    if config.documents:
        last = config.documents[-1].id
        start, end = document_span(rows, headers(rows), config, document if document is not None else last)
        end = before_next_comments(rows, start, end)
    else:  # the first document goes before the notifiers, as a new one goes after the last document
        notify = next((i for i, _, name in headers(rows) if name == "notify"), None)
        if notify is None:
            return text.rstrip("\n") + ("\n\n" if text.strip() else "") + block
        end = before_next_comments(rows, -1, notify)
    before = "".join(rows[:end])
    if before and not before.endswith("\n"):
        before += "\n"
    after = "".join(rows[end:])
    gap = "\n" if before else ""
    return before + gap + block + ("\n" if after and not after.startswith(("\n", "\r\n")) else "") + after


def source_rows(
    rows: list[str], headers: list[tuple[int, str, str]], config: Config, source: SourceConfig
) -> tuple[int, int]:
    """The rows of a source's own table: its header, then its keys up to the next header."""
    span = document_span(rows, headers, config, source.document)
    document = config.document(source.document)
    if source.role == "canonical":
        tables = [
            i for i, b, n in headers if span[0] < i < span[1] and b == "[" and n == "documents.canonical"
        ]
        if len(tables) != 1:
            raise ConfigError(
                f"{config.path.name}: {source.key} is not written as a [documents.canonical] table; edit it by hand"
            )
        start = tables[0]
    else:
        ids = [m.id for m in document.mirrors]
        start, _ = mirror_span(headers, span, ids.index(source.id), len(ids), config, source.document)
    end = next((i for i, _, _ in headers if i > start), len(rows))
    return start, end


def mirror_span(
    headers: list[tuple[int, str, str]],
    document: tuple[int, int],
    index: int,
    count: int,
    config: Config,
    document_id: str,
) -> tuple[int, int]:
    """The rows of a document's `index`-th mirror: its [[documents.mirrors]] header up to the next table that
    is not one of its own subtables (`[documents.mirrors.headers]`)."""
    start, end = document
    tables = [
        i for i, brackets, n in headers if start < i < end and brackets == "[[" and n == "documents.mirrors"
    ]
    if len(tables) != count:
        raise ConfigError(
            f"{config.path.name}: the mirrors of {document_id} are not all written as [[documents.mirrors]] "
            "tables; remove it by hand"
        )
    first = tables[index]
    last = next((i for i, _, n in headers if first < i < end and not n.startswith("documents.mirrors.")), end)
    return first, last


def headers(rows: list[str]) -> list[tuple[int, str, str]]:
    """The table headers of a TOML text: (row, `[` or `[[`, dotted name without spaces or quotes)."""
    return [
        (i, m.group(1), m.group(2).replace(" ", "").replace('"', ""))
        for i, row in enumerate(rows)
        if (m := _HEADER.match(row))
    ]


def document_span(
    rows: list[str], headers: list[tuple[int, str, str]], config: Config, document: str
) -> tuple[int, int]:
    """The rows of `document`'s tables: from its [[documents]] header to the next table not its own."""
    starts = [i for i, brackets, name in headers if brackets == "[[" and name == "documents"]
    if len(starts) != len(config.documents):
        raise ConfigError(
            f"{config.path.name}: its documents are not all written as [[documents]] tables; edit it by hand"
        )
    start = starts[[d.id for d in config.documents].index(document)]
    end = next((i for i, _, name in headers if i > start and not name.startswith("documents.")), len(rows))
    return start, end


def before_next_comments(rows: list[str], start: int, end: int) -> int:
    """`end` moved up past the blank lines and comments that lead into the next table, which stay with it."""
    while end > start + 1 and (not rows[end - 1].strip() or rows[end - 1].lstrip().startswith("#")):
        end -= 1
    return end


def read(path: Path) -> str:
    """The file's text, with its line endings as `\n` and without a byte-order mark: `_write` gives both back
    as the file had them."""
    from differ.config.loader import CONFIG_BYTES
    from differ.files import read_capped

    text = read_capped(path, CONFIG_BYTES).decode("utf-8")  # a device is not read for ever
    return text.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")  # as universal newlines


def write(path: Path, text: str, *, read_as: str | None, private: bool = False) -> None:
    """Replace the file in one step, keeping its permissions, its line endings (CRLF where its lines ended
    so) and its byte-order mark (a new file is readable by all, or only by its owner when `private`: it holds a
    secret); a crash leaves the old file or the new. Only if it still reads as `read_as`,
    the text the edit was made from (None: there was no file), checked and replaced under a lock on its
    folder: two edits at once (two `differ add`, `differ pause` during `differ add --backfill`, an editor)
    never lose one another; the later is refused and writes nothing. A symbolic link (a configuration kept
    with one's dotfiles) stays one: the file it names is written."""
    if path.is_symlink():
        path = path.resolve()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # `differ add` makes a new file where it is told
        fd = os.open(path.parent, os.O_RDONLY)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write: {exc.strerror or exc}")
    try:
        if not lock_within(fd, EDIT_WAIT):
            raise ConfigError(
                f"{path}: another differ command is writing it; nothing was written, run it again"
            )
        try:
            try:
                now: str | None = read(path)
            except FileNotFoundError:
                now = None
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(f"{path}: cannot read: {exc}")
            if now != read_as:
                raise Changed(
                    f"{path}: changed while this edit was being made (by another differ command or an editor); "
                    "nothing was written, run it again"
                )
            mode, crlf, bom = 0o600 if private else 0o644, False, b""
            if path.exists():
                mode = path.stat().st_mode & 0o7777
                old = path.read_bytes()
                crlf, bom = b"\r\n" in old, old[:3] if old.startswith(b"\xef\xbb\xbf") else b""
            data = bom + (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")
            atomic_write(path, data, mode=mode)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


class Changed(ConfigError):
    """The file changed between the reading an edit was made from and its writing."""


EDIT_WAIT = 10.0  # seconds an edit waits for another's write (which takes milliseconds)
