"""`differ verify --captures`: each version's copy in a web archive (made at a `wayback` destination's request)
fetched as the archive keeps it, read as the source reads its page, and compared with the version differ
recorded: a check of the record that trusts nothing of differ's but the archive's copy."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

from differ.app import App
from differ.backfill import raw_capture, read_capture
from differ.config import SourceConfig
from differ.errors import FetchError, NormalizeError, StoreError
from differ.options import plural
from differ.versions import read_version


@dataclass
class Compared:
    """One version's copy: the same text, another text (with what differs), or not read (why)."""

    source: str
    version: int
    capture: str
    outcome: str  # same, different, unread
    detail: str = ""

    def line(self) -> str:
        said = {
            "same": "the archive's copy reads the same",
            "different": f"the archive's copy reads differently: {self.detail}",
            "unread": f"the archive's copy could not be read: {self.detail}",
        }[self.outcome]
        return f"{self.source} version {self.version}: {said} ({self.capture})"


def compare_copy(app: App, source: SourceConfig, number: int, capture: str) -> Compared:
    """One version's copy in the archive against the version as differ stored it, both read as the source
    reads its page now."""
    raw = raw_capture(capture)
    if raw is None:
        return Compared(source.key, number, capture, "unread", "not a web archive's address")
    try:
        ours = read_version(app, source, app.store.version(source.key, number)).markdown
        theirs = read_capture(app, source, *raw)[0].markdown
    except (FetchError, NormalizeError, StoreError) as exc:
        return Compared(source.key, number, capture, "unread", str(exc))
    if theirs == ours:
        return Compared(source.key, number, capture, "same")
    from differ.diff import diff
    from differ.diff.summary import describe

    d = diff(ours, theirs)
    if not d.changes:  # the same words in other markup
        return Compared(source.key, number, capture, "different", "formatting only")
    first = " ".join(describe(d.changes[0]))
    return Compared(source.key, number, capture, "different", f"{plural(len(d.changes), 'change')}; {first}")


def compare_copies(app: App, sources: Iterable[SourceConfig], out: TextIO | None = None) -> list[Compared]:
    """Every recorded copy of these sources' versions compared, a line each to `out` as it is read."""
    done: list[Compared] = []
    for source in sources:
        for number, capture in sorted(app.store.captures(source.key).items()):
            done.append(compare_copy(app, source, number, capture))
            if out is not None:
                print(done[-1].line(), file=out, flush=True)
    return done
