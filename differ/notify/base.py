"""What every notifier shares: the registry, how events read as titles and lines, and the outgoing request."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from differ.options import Option

if TYPE_CHECKING:
    from differ.config import NotifierConfig

NOTIFIERS: dict[str, type[Notifier]] = {}


@dataclass
class Outgoing:
    """One HTTP POST: where, the JSON body, and extra headers (signatures are added per attempt)."""

    url: str
    body: dict[str, Any]
    headers: dict[str, str]


class Notifier:
    """Base of notifiers."""

    name: ClassVar[str] = ""
    options: ClassVar[dict[str, Option]] = {}
    min_interval: ClassVar[float] = 0.0

    def __init__(self, config: NotifierConfig, base_url: str = ""):
        self.config = config
        self.base_url = base_url

    @classmethod
    def check(cls, config: NotifierConfig) -> None:
        """Cross-field checks at config load time; raise options.Invalid."""

    def payload(self, event: dict[str, Any]) -> Outgoing:
        raise NotImplementedError

    def payload_url(self) -> str:
        """Where messages go (from the configuration only; never stored with the message)."""
        return str(self.config.options["url"])

    def sign(self, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
        """Headers that authenticate one attempt (none by default)."""
        return {}

    # -- how events read ---------------------------------------------------------------------------------
    @staticmethod
    def title(event: dict[str, Any]) -> str:
        kind = event.get("type")
        source = str(event.get("source", ""))
        if kind == "changed":
            diff = event.get("diff") or {}
            return f"{diff.get('title') or source} changed ({source.split('/', 1)[-1]})"
        if kind == "mirror_drift":
            return (
                f"Mirror {event.get('mirror')} of {event.get('title') or event.get('document')}: "
                f"{event.get('headline', 'fidelity changed')}"
            )
        if kind == "fetch_failing":
            return f"{source} is failing ({event.get('failures')} checks in a row)"
        if kind == "recovered":
            return f"{source} recovered after {event.get('failures')} failed checks"
        if kind == "digest":
            return f"differ digest: {len(event.get('events', []))} updates"
        if kind == "test":
            return "differ test message"
        return f"differ: {kind}"

    @classmethod
    def lines(cls, event: dict[str, Any]) -> list[str]:
        kind = event.get("type")
        if kind == "changed":
            return [str(x) for x in (event.get("diff") or {}).get("summary", [])]
        if kind == "mirror_drift":
            return [str(x) for x in event.get("summary", [])]
        if kind == "fetch_failing":
            return [f"Last error: {event.get('error', '')}"]
        if kind == "recovered":
            return ["Fetching works again."]
        if kind == "digest":
            out: list[str] = []
            for inner in event.get("events", []):
                out.append(f"• {cls.title(inner)}")
                out.extend(f"  {line}" for line in cls.lines(inner)[1:4])
            return out
        if kind == "test":
            return ["If you can read this, differ can reach this destination."]
        return []

    @staticmethod
    def context(event: dict[str, Any]) -> str:
        diff = event.get("diff") or {}
        parts = [str(event.get("source") or event.get("document") or "differ")]
        if diff:
            frm, to = diff.get("from") or {}, diff.get("to") or {}
            parts.append(f"version {frm.get('version')} → {to.get('version')}")
            if to.get("fetched_at"):
                parts.append(str(to["fetched_at"]))
        elif event.get("at"):
            parts.append(str(event["at"]))
        return " · ".join(parts)


def notifier(name: str) -> Callable[[type[Notifier]], type[Notifier]]:
    """Register a notifier kind under `name`."""

    def register(cls: type[Notifier]) -> type[Notifier]:
        cls.name = name
        NOTIFIERS[name] = cls
        return cls

    return register
