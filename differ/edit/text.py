"""The configuration file edited as text: read as it is, each edit checked to read back as a valid configuration
with only that change made, and made again from the file as it is now when another command wrote it meanwhile."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from differ import tomltext
from differ.config import Config, SourceConfig, parse_config
from differ.errors import ConfigError

NEW_FILE = (
    "# differ's configuration; docs/configuration.md lists every option. Check it with: differ config check\n"
)


# Called with a configuration's new text and the keys of the sources it adds, before it is written.
BeforeWrite = Callable[[str, list[str]], None]


def open_config(path: Path, env: Mapping[str, str]) -> tuple[str, Config, str | None]:
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


def existing_text(path: Path) -> str:
    """The text of a configuration something is to be taken out of."""
    try:
        return tomltext.read(path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file; there is nothing to remove")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}")


def cut_tables(rows: list[str], start: int, end: int) -> str:
    """The text without the tables in rows `start` to `end`, nor the comments just above them (which are about
    them); those leading into the next table stay with it."""
    end = tomltext.before_next_comments(rows, start, end)
    while start > 0 and rows[start - 1].lstrip().startswith("#"):
        start -= 1
    kept = "".join(rows[:start]).rstrip("\n")
    rest = "".join(rows[end:]).lstrip("\n")
    return kept + ("\n\n" if kept and rest else "\n" if kept else "") + rest


def check_added(
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


def run_once(before_write: BeforeWrite | None, path: Path) -> BeforeWrite | None:
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


def retried(edit: Callable[[], T], tries: int = 8) -> T:
    """Make an edit, and make it again from the file as it is now when another command (or an editor) wrote
    the file meanwhile, so edits at once all land."""
    for _ in range(tries - 1):
        try:
            return edit()
        except tomltext.Changed:
            continue
    return edit()


@dataclass(frozen=True)
class Set:
    """One option `set_options` changed on a source: its name, the value before (None: not written) and
    after (None: taken out, its default again)."""

    key: str
    name: str
    before: Any
    after: Any


def existing_config(path: Path, env: Mapping[str, str], making: str) -> tuple[str, Config, str | None]:
    """`_open` of a file there must be something to set in (`making` says what writes one)."""
    if not path.exists():
        raise ConfigError(f"{path}: no such file; there is nothing to set ({making})")
    return open_config(path, env)


def parsed_text(
    text: str,
) -> tuple[dict[str, Any], dict[str, Any], list[str], list[tuple[int, str, str]]]:
    """A configuration's text as `differ set` edits it: its parsed TOML, a copy for what the edit must give, its
    rows and its table headers."""
    written = read_toml(text)
    rows = text.splitlines(keepends=True)
    return written, _copy(written), rows, tomltext.headers(rows)


def with_edits(rows: list[str], edits: list[tuple[int, int, str]]) -> str:
    """The text with each edit's rows [start, end) replaced by its text (none taking the same rows)."""
    for start, end, line in sorted(edits, reverse=True):
        rows[start:end] = [line] if line else []
    return "".join(rows)


def reads_back(text: str, path: Path, env: Mapping[str, str], expected: dict[str, Any]) -> Config:
    """An edited configuration, which must be valid and hold exactly the tables and values `expected` does."""
    try:
        config = parse_config(text, path, env, notifiers=False)
    except ConfigError as exc:
        raise ConfigError(f"{exc} (nothing was written)")
    if read_toml(text) != expected:
        raise ConfigError(f"{path.name}: could not set it cleanly; edit it by hand")
    return config


@dataclass(frozen=True)
class Table:
    """A table `differ set` edits: what it is called, its rows [start, end) in the file, and where its values
    are in the file's parsed TOML."""

    name: str
    start: int
    end: int
    find: Callable[[dict[str, Any]], dict[str, Any]]
    file: str


def edit_table(
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


def read_toml(text: str) -> dict[str, Any]:
    """A configuration's text as TOML (a byte-order mark, which editors on Windows write, aside)."""
    return tomllib.loads(text.removeprefix("\ufeff"))


def _copy(value: Any) -> Any:
    """A deep copy of a parsed TOML document's tables and arrays (their values are never changed in place)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


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
                if read_toml("".join(rows[:first] + rows[last:])) == want:
                    return first, last
            except tomllib.TOMLDecodeError:
                continue
    raise ConfigError(
        f"{table.file}: {table.name}'s {name} is not written as a line of its table; edit it by hand"
    )
