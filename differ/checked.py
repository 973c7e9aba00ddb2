"""What a check of one source found (`CheckResult`), and how it is told: one line for a person, an object for
`differ check --format json`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class CheckResult:
    """What one check of one source found."""

    source: str
    outcome: str  # new, unchanged, failed, held, deferred (and paused, not_due, for `differ check` alone)
    detail: str = ""
    version: int | None = None
    previous: int | None = None
    changes: int = 0
    metadata: int = 0  # metadata fields changed, apart from the body's changes
    warnings: list[str] = field(default_factory=list)  # how reading the page fell short (front matter, bytes)
    summary: list[str] = field(default_factory=list)
    event: dict[str, Any] | None = None
    translations: bool = False  # the translations the page names changed (its report page is written again)
    followed: list[dict[str, str]] = field(default_factory=list)  # new posts of a followed feed now watched

    @property
    def failed(self) -> bool:
        return self.outcome == "failed"

    def as_json(self) -> dict[str, Any]:
        """The result as `differ check --format json` gives it (`differ.check/1`)."""
        return {
            "source": self.source,
            "outcome": self.outcome,
            "detail": self.detail or None,
            "version": self.version,
            "previous": self.previous,
            "changes": self.changes,
            "metadata": self.metadata,
            "warnings": self.warnings,
            "summary": self.summary,
            **({"followed": self.followed} if self.followed else {}),
        }

    @property
    def quiet(self) -> bool:
        """Nothing a person need read (what `-q` leaves out): unchanged, or a new version whose text and title
        are as they were (only a date moved; alerted only where asked for)."""
        quiet = self.outcome in ("unchanged", "not_due")
        return quiet or bool(self.event and self.event.get("type") == "metadata")

    def line(self) -> str:
        """The check as one line (what a page or a server said is in it, written out where it breaks lines)."""
        from differ.options import one_line

        return one_line(self._line())

    def follow_line(self) -> str:
        """The new posts of a followed feed now watched, as one line ("" when none)."""
        from differ.diff.summary import quote
        from differ.options import one_line, plural

        if not self.followed:
            return ""
        posts = ", ".join(f"{p['source']} ({quote(p['title'], 80)})" for p in self.followed)
        return one_line(f"{self.source}: now watching {plural(len(self.followed), 'new post')}: {posts}")

    def _line(self) -> str:
        from differ.options import plural

        if self.outcome == "new":
            warned = f"; warning: {'; '.join(self.warnings)}" if self.warnings else ""
            if self.previous is None:
                return f"{self.source}: new version {self.version} (first snapshot{warned})"
            fields = [plural(self.metadata, "metadata field")] if self.metadata else []
            # no change of its words or links: its metadata, or else its markup alone, changed
            said = (
                [plural(self.changes, "change"), *fields] if self.changes else fields or ["formatting only"]
            )
            return f"{self.source}: new version {self.version} ({', '.join(said)}{warned})"
        if self.detail:
            if self.outcome in ("unchanged", "not_due"):
                return f"{self.source}: {self.outcome.replace('_', ' ')} ({self.detail})"
            return f"{self.source}: {self.outcome}: {self.detail}"
        return f"{self.source}: {self.outcome}"
