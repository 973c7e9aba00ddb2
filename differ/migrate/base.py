"""What `differ import` reads a file into: the watches found (a `Found` each, the page to add or why not), the
alerts to add, and the registry of readers, one per tool, keyed by the name `--from` takes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from differ.edit import Notifier, Page


@dataclass
class Found:
    """One watch of the other tool: the page differ would add, or why it is left out; and notes on what of
    its settings differ does otherwise or not at all."""

    name: str
    page: Page | None
    notes: list[str] = field(default_factory=list)
    skipped: str = ""


@dataclass
class Watches:
    """What a file holds: the watches, the alerts that become [[notify]] tables, and the alerts left out."""

    found: list[Found] = field(default_factory=list)
    alerts: list[Notifier] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # "where: why", for alerts differ cannot send


Reader = Callable[[Path], Watches]
READERS: dict[str, Reader] = {}


# What a page another watcher loaded in a browser gets: differ does not run scripts, but a browser can print it.
IN_A_BROWSER = (
    "was loaded in a browser; differ reads the page as served, without running its scripts (to have a browser "
    'print it: command = ["chromium", "--headless", "--dump-dom", "{url}"])'
)
IMPORT_BYTES = 100_000_000  # a watcher's list of thousands of pages is a few MB; more is another file


def read_file(path: Path) -> bytes:
    """A file to import, read as far as IMPORT_BYTES (a device that never ends is not read for ever)."""
    from differ.files import read_capped

    return read_capped(path, IMPORT_BYTES)


def reader(name: str) -> Callable[[Reader], Reader]:
    def register(fn: Reader) -> Reader:
        READERS[name] = fn
        return fn

    return register


def narrow(settings: dict[str, Any], notes: list[str], selector: str, *, either: bool = False) -> None:
    """A content root; a second one is left out with a note: a filter applied inside the first (urlwatch's
    filters run one after another), or, `either`, another rule whose matches were added (changedetection.io's
    include filters)."""
    if "selector" not in settings:
        settings["selector"] = selector
    elif either:
        notes.append(
            f"its include filter {selector} is left out: differ reads one content root ({settings['selector']})"
        )
    else:
        notes.append(f"a second selector ({selector}) inside {settings['selector']} is left out")


def strings(value: Any) -> list[str]:
    """A list setting's non-empty strings (one string stands for a list of one)."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [item.strip() for item in items if isinstance(item, str) and item.strip()]


def secret_note(key: str, what: str = "", held: str = "the notification URL") -> str:
    """The note under a notifier whose secret option `key` (`what`, in words) is written as `held` held it."""
    return (
        f"its {what or key} is written as {held} held it; to keep it out of the file, put it in an environment "
        f'variable and write {key} = "${{NAME}}"'
    )


def kinds_note(told: str, kinds: list[str]) -> str:
    """The note under a page whose watcher told of some kinds of change only (`told`, in words): differ keeps
    and tells every change, and a destination's `changes` is how it hears of those alone."""
    written = ", ".join(f'"{k}"' for k in kinds)
    return (
        f"was told of {told} only; differ tells every change, and a [[notify]] with changes = [{written}] hears "
        "of those alone"
    )
