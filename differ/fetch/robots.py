"""robots.txt per RFC 9309: groups by product token, longest match wins, `*` and `$` patterns; and its answers
kept by origin (`Answers`), as long as §2.4 lets them stand."""

from __future__ import annotations

import contextlib
import json
import math
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeGuard
from urllib.parse import quote, unquote, urlsplit

from differ.files import atomic_write
from differ.store import canonical_json
from differ.wildcard import fits

MAX_BYTES = 512 * 1024
TTL = 24 * 3600.0  # how long robots.txt is kept (RFC 9309 §2.4: at most 24 hours, as a rule)
# How long a robots.txt that could not be read blocks its host before it is asked for again.
UNREADABLE_TTL = 300.0
# How long the rules a robots.txt last gave stand while it cannot be read (RFC 9309 §2.4 lets a crawler keep its
# cached copy past the day while the file is unreachable; §2.3.1.4 names 30 days as a reasonably long time).
UNREACHABLE_GRACE = 30 * 86400.0


@dataclass
class Rules:
    """The rules that apply to one user agent: (allow, pattern) pairs."""

    rules: list[tuple[bool, str]] = field(default_factory=list)
    crawl_delay: float | None = None
    unreadable: str = ""  # why robots.txt could not be read, when that is why everything is disallowed

    def allows(self, url: str) -> bool:
        parts = urlsplit(url)
        path = _normalize(parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if path == "/robots.txt":
            return True
        best: tuple[int, bool] | None = None
        for allow, pattern in self.rules:
            if _matches(pattern, path):
                rank = (len(pattern), allow)  # longest wins; on a tie, allow wins
                if best is None or rank > best:
                    best = rank
        return True if best is None else best[1]

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": [[a, p] for a, p in self.rules],
            "crawl_delay": self.crawl_delay,
            "unreadable": self.unreadable,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rules | None:
        """Rules as `to_json` wrote them, or None for anything else (a damaged or foreign file)."""
        rules, delay, unreadable = data.get("rules"), data.get("crawl_delay"), data.get("unreadable", "")
        if not isinstance(rules, list) or not isinstance(unreadable, str):
            return None
        if delay is not None and (isinstance(delay, bool) or not isinstance(delay, int | float)):
            return None
        pairs = []
        for pair in rules:
            if not (
                isinstance(pair, list)
                and len(pair) == 2
                and isinstance(pair[0], bool)
                and isinstance(pair[1], str)
            ):
                return None
            pairs.append((pair[0], pair[1]))
        return cls(pairs, float(delay) if delay is not None else None, unreadable)


class Kept(Protocol):
    """Where robots.txt answers are kept between runs (the store's `robots/`), by origin."""

    def load(self, origin: str) -> dict[str, Any] | None: ...

    def save(self, origin: str, entry: dict[str, Any]) -> None: ...


class KeptFiles:
    """robots.txt answers kept between runs, one file per origin in a folder (the store's `robots/`): a cache
    (written without fsync; losing it costs one request per host), not part of the record."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, origin: str) -> Path:
        return self.folder / (re.sub(r"[^A-Za-z0-9.-]+", "_", origin) + ".json")

    def load(self, origin: str) -> dict[str, Any] | None:
        try:
            entry = json.loads(self._path(origin).read_bytes())
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) and entry.get("origin") == origin else None

    def save(self, origin: str, entry: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):  # a cache that cannot be written is asked again next run
            atomic_write(
                self._path(origin), canonical_json({**entry, "origin": origin}) + b"\n", durable=False
            )


ALLOW_ALL = Rules()
Dated = tuple[float, Rules]  # rules and when they were read (a clock's time)


class Answers:
    """The robots.txt answer of each origin for one user agent: read once per host however many sources ask at
    once, kept a day (five minutes for one that could not be read), kept between runs in `kept` when given, and
    while a host's robots.txt cannot be read, its last rules standing for UNREACHABLE_GRACE."""

    def __init__(self, agent: str, clock: Callable[[], float], wall: Callable[[], float]) -> None:
        self.agent, self.clock, self.wall = agent, clock, wall
        self.kept: Kept | None = None
        self._rules: dict[str, Dated] = {}  # by origin, dated by `clock`
        self._read_at: dict[str, float] = {}  # when each host's robots.txt was last read (wall time)
        self._lock = threading.Lock()
        self._loading: dict[str, threading.Lock] = {}

    def rules(self, url: str, load: Callable[[str], Rules]) -> tuple[Rules, bool]:
        """The rules for `url`'s origin, read with `load(origin)` when none are fresh, and whether they are new
        here (read, or taken from `kept`), so their Crawl-delay is to be applied."""
        origin = _origin(url)
        now = self.clock()
        with self._lock:
            cached = self._rules.get(origin)
            loading = self._loading.setdefault(origin, threading.Lock())
        if _standing(cached, now):
            return cached[1], False
        with loading:  # one fetch of robots.txt per host, however many sources ask at once
            with self._lock:
                cached = self._rules.get(origin)
            if _standing(cached, now):
                return cached[1], False
            kept = self._kept(origin)
            rules, age = _fresh(kept, self.wall())
            last = None
            if rules is None:
                rules, age = load(origin), 0.0
                last = self._last_read(origin, cached, kept) if rules.unreadable else None
                if last is not None:  # its last rules stand, and it is asked for again in a while
                    rules, age = last, TTL - UNREADABLE_TTL
                elif self.kept is not None:
                    self.kept.save(origin, {"agent": self.agent, "at": self.wall(), **rules.to_json()})
            if last is None and not rules.unreadable:
                self._read_at[origin] = self.wall() - age
            with self._lock:
                self._rules[origin] = (now - age, rules)
            return rules, True

    def cached(self, url: str) -> Rules | None:
        """The rules last found for `url`'s origin, fresh or not."""
        with self._lock:
            found = self._rules.get(_origin(url))
        return found[1] if found else None

    def _last_read(self, origin: str, cached: Dated | None, kept: Dated | None) -> Rules | None:
        """The rules robots.txt gave when it was last read, here (`cached`) or by an earlier run (`kept`), while
        that was under UNREACHABLE_GRACE ago: a host whose robots.txt fails for a while is checked as it last
        said."""
        found: list[Dated] = []
        if cached is not None and not cached[1].unreadable and origin in self._read_at:
            found.append((self._read_at[origin], cached[1]))
        if kept is not None and not kept[1].unreadable:
            found.append(kept)
        if not found:
            return None
        at, rules = max(found, key=lambda f: f[0])
        return rules if 0 <= self.wall() - at <= UNREACHABLE_GRACE else None

    def _kept(self, origin: str) -> Dated | None:
        """The answer an earlier run kept for this user agent: when it was read (wall time), and its rules."""
        entry = self.kept.load(origin) if self.kept is not None else None
        if not entry or entry.get("agent") != self.agent or not isinstance(entry.get("at"), int | float):
            return None
        rules = Rules.from_json(entry)
        return None if rules is None else (float(entry["at"]), rules)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _standing(cached: Dated | None, now: float) -> TypeGuard[Dated]:
    """Whether rules read here (dated by the clock) are still within their time."""
    return cached is not None and now - cached[0] <= _ttl(cached[1])


def _fresh(kept: Dated | None, wall: float) -> tuple[Rules | None, float]:
    """A kept answer's rules and age while it is fresh (RFC 9309 §2.4), else (None, 0)."""
    if kept is None or not 0 <= wall - kept[0] <= _ttl(kept[1]):
        return None, 0.0
    return kept[1], wall - kept[0]


def _ttl(rules: Rules) -> float:
    return UNREADABLE_TTL if rules.unreadable else TTL


def unreadable(reason: str) -> Rules:
    """robots.txt could not be read (a server error, or the host unreachable): RFC 9309 §2.3.1.4 says to
    assume complete disallow until it can be."""
    return Rules([(False, "/")], unreadable=reason)


def _normalize(path: str) -> str:
    return quote(unquote(path), safe="/%:@!$&'()*+,;=-._~")


def _matches(pattern: str, path: str) -> bool:
    """Whether a rule's path pattern (`*` any characters, a final `$` the end) matches a path, piece by piece
    (a regular expression backtracks: `/a*a*a*…b` against a long run of `a` took minutes, and a robots.txt
    could stall every check of its host)."""
    anchored = pattern.endswith("$")
    pieces = _normalize(pattern[:-1] if anchored else pattern).replace("%2A", "*").split("*")
    return fits(pieces if anchored else [*pieces, ""], path)


def parse(text: str, agent: str) -> Rules:
    """The rules for `agent` (a product token such as "differ"), else those for `*`."""
    groups: list[tuple[list[str], Rules]] = []
    current: tuple[list[str], Rules] | None = None
    last_was_agent = False
    for raw in text[:MAX_BYTES].splitlines():
        line = raw.split("#", 1)[0].strip()
        if ":" not in line:
            continue
        key, value = (s.strip() for s in line.split(":", 1))
        key = key.lower()
        if key == "user-agent":
            if current is None or not last_was_agent:
                current = ([], Rules())
                groups.append(current)
            current[0].append(value.lower())
            last_was_agent = True
            continue
        last_was_agent = False
        if current is None:
            continue
        if key in ("allow", "disallow") and value:
            current[1].rules.append((key == "allow", value))
        elif key == "crawl-delay":
            try:
                delay = float(value)
            except ValueError:
                continue
            if math.isfinite(delay) and delay >= 0:  # "nan", "inf" and "-1" are no delay
                current[1].crawl_delay = delay
    token = agent.lower()
    mine = [r for agents, r in groups if token in agents]
    chosen = mine or [r for agents, r in groups if "*" in agents]
    merged = Rules()
    for r in chosen:
        merged.rules.extend(r.rules)
        merged.crawl_delay = merged.crawl_delay or r.crawl_delay
    return merged
