"""robots.txt per RFC 9309: groups by product token, longest match wins, `*` and `$` patterns."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import quote, unquote, urlsplit

from differ.wildcard import fits

MAX_BYTES = 512 * 1024


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


ALLOW_ALL = Rules()


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
