"""How often a source is checked: every `interval`, or, once its page has gone `settled_after` unedited, every
`settled_interval`. A post is edited most in its first days; checked as often for months after, its host is
asked in vain. A mirror settles only with its canonical, since a canonical edit is what it has to follow."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from differ.errors import DifferError

if TYPE_CHECKING:
    from differ.app import App
    from differ.config import ServiceConfig, SourceConfig


@dataclass(frozen=True)
class Cadence:
    every: float  # seconds between checks
    settled: datetime | None = None  # since when the page has been settled; None while it is not
    settles: datetime | None = None  # when it will, unedited till then; None when settled or never to be
    edited: datetime | None = field(default=None, compare=False)  # when it was last found edited, if known

    def __str__(self) -> str:
        from differ.options import format_duration

        return f"every {format_duration(self.every)}" + (", settled" if self.settled else "")


def cadence(app: App, source: SourceConfig) -> Cadence:
    """The source's time between checks now, from its settings and the time of its last edit."""
    every, after, slower = pace_settings(app.config.service, source)
    if not slows(every, after, slower):  # the store need not be read
        return Cadence(every)
    return pace(every, after, slower, last_edit(app, source), app.now())


def slows(every: float, after: float, slower: float) -> bool:
    """Whether these settings ever check a page less often: it settles (`after`), and is then checked at
    longer intervals than before."""
    return bool(after) and slower > every


def pace(every: float, after: float, slower: float, edited: datetime | None, now: datetime) -> Cadence:
    """The rule itself: every `slower` seconds once `after` seconds have passed since the page was last found
    edited (`edited`, None before its first version), else every `every`."""
    if not slows(every, after, slower) or edited is None:
        return Cadence(every)
    settled = edited + timedelta(seconds=after)
    if now >= settled:
        return Cadence(slower, settled, edited=edited)
    return Cadence(every, settles=settled, edited=edited)


def pace_settings(service: ServiceConfig, source: SourceConfig) -> tuple[float, float, float]:
    """The source's interval, settled_after (0: it never settles) and settled_interval: its own where it has
    them, else the service's."""
    after = service.settled_after if source.settled_after is None else source.settled_after
    return source.interval or service.interval, after, source.settled_interval or service.settled_interval


def last_edit(app: App, source: SourceConfig) -> datetime | None:
    """When the page last changed: its newest version's fetch, and for a mirror its canonical's too, the later
    of them. None before its first version, or when the store cannot say (it is then checked at `interval`)."""
    keys = [source.key]
    if source.role != "canonical":
        try:
            keys.append(app.config.document(source.document).canonical.key)
        except DifferError:  # its document is no longer configured
            pass
    times = []
    try:
        for key in keys:
            latest = app.store.latest(key)
            if latest is None and key == source.key:  # nothing of its own stored yet
                return None
            if latest is not None:
                times.append(latest.fetched_time)
    except DifferError:  # a damaged record: said by the check and by differ verify
        return None
    return max(times)
