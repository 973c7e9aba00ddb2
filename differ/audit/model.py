"""What an audit finds: each way a copy differs from its canonical (`Finding`), a mirror's findings and the canonical
version it matches (`MirrorAudit`), and a document's audit (`AuditReport`), with their JSON (`differ.audit/1`)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

SCHEMA = "differ.audit/1"
KINDS = (
    "stale",
    "missing",
    "moved",
    "extra",
    "replaced",
    "altered",
    "link",
    "code_corrupted",
    "token_mismatch",
)


# Between the texts of blocks a finding is on together (a translation's merged paragraphs, a copy's joined ones)
JOINED = " / "


@dataclass
class Finding:
    """One way a mirror differs from its canonical."""

    kind: str
    section: tuple[str, ...]
    canonical: str | None
    mirror: str | None
    detail: str = ""
    ops: list[dict[str, str]] = field(default_factory=list)
    count: int = 1  # blocks in a row: the first's text as `canonical` or `mirror`, the last's as `detail`
    #: the canonical version whose edit of this passage the copy has not carried over (it reads as before it)
    not_carried: int | None = None

    def as_json(self) -> dict[str, Any]:
        from differ.audit.report import finding_line

        data: dict[str, Any] = {
            "kind": self.kind,
            "section": list(self.section),
            "canonical": self.canonical,
            "mirror": self.mirror,
        }
        if self.detail:
            data["detail"] = self.detail
        if self.ops:
            data["ops"] = self.ops
        if self.count > 1:
            data["count"] = self.count
        if self.not_carried is not None:
            data["not_carried"] = self.not_carried
        data["line"] = finding_line(self)  # as `differ audit` prints it, for a reader that shows findings
        return data

    @property
    def key(self) -> str:
        return (
            f"{self.kind}|{' › '.join(self.section)}|{self.canonical or ''}|{self.mirror or ''}|{self.detail}"
            + (f"|{self.count}" if self.count > 1 else "")
            + (f"|edit {self.not_carried}" if self.not_carried is not None else "")
        )


@dataclass
class MirrorAudit:
    """The findings for one mirror."""

    id: str
    url: str
    version: int | None
    fetched_at: str | None
    matches_version: int | None
    coverage: float
    findings: list[Finding] = field(default_factory=list)
    #: for each canonical edit: which mirror version first carried it, if any
    reached: list[dict[str, Any]] = field(default_factory=list)
    #: behind the canonical but within its `stale_after`: when it is stale unless it catches up
    stale_from: str | None = None
    #: what the reader should know to read the findings (a copy in another language than the canonical)
    note: str | None = None
    #: audited as a translation (block by block, for what a translation keeps) rather than word by word
    translation: bool = False
    #: a bilingual copy audited on its blocks in these languages, the canonical's, with no `languages` set
    read_in: tuple[str, ...] = ()
    #: while it is catching up: the canonical's edits it has to carry over by `stale_from`, summarized
    missed: list[str] = field(default_factory=list)
    #: findings its `accept` patterns match: made on purpose, listed apart from `findings`
    accepted: list[Finding] = field(default_factory=list)
    #: its `accept` patterns that match none of its findings now
    unused: list[str] = field(default_factory=list)
    #: the `accept` patterns it was audited with (an audit made with others is done again)
    accept: list[str] = field(default_factory=list)
    #: how the copy was read (`mirror_reading`: its settings, `languages`, `selector`, `translation`, …): an
    #: audit made with others is done again, and what changed with them alone is no drift
    reading: str = ""
    #: while behind the canonical (or up to date but for edits it lacks): the passages edited since the version
    #: it matches (or of those edits), as they now read, each placed in the copy (`carry.carry_over`; what
    #: `differ blame --after` lists for it); None when not known
    carry_over: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    #: the copy's blocks as audited (what the passages are placed among), and its alignment (word by word) or
    #: pairing (a translation) with the canonical's latest version
    blocks: list[Any] = field(default_factory=list, repr=False, compare=False)
    alignment: Any = field(default=None, repr=False, compare=False)
    #: the canonical's latest blocks it has to carry over: added or edited since the version the copy matches
    #: whose edit it does not carry (`edits.Missed.owed`), or, up to date, those of the edits it lacks
    owed: set[int] | None = field(default=None, repr=False, compare=False)
    #: and how many of the canonical's edits since that version it carries already
    carried: int = field(default=0, repr=False, compare=False)

    @property
    def passages_behind(self) -> int | None:
        """How many passages it has to carry over (None when not known, or up to date with none)."""
        from differ.carry import passages_in

        return None if self.carry_over is None else passages_in(self.carry_over)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "url": self.url,
            "version": self.version,
            "fetched_at": self.fetched_at,
            "matches_version": self.matches_version,
            "coverage": round(self.coverage, 4),
            "findings": [f.as_json() for f in self.findings],
            "reached": self.reached,
            "stale_from": self.stale_from,
            "note": self.note,
            "translation": self.translation,
            **({"read_in": list(self.read_in)} if self.read_in else {}),
            **({"missed": self.missed} if self.missed else {}),
            **({"passages_behind": self.passages_behind} if self.passages_behind is not None else {}),
            **({"accepted": [f.as_json() for f in self.accepted]} if self.accepted else {}),
            **({"accept_unused": self.unused} if self.unused else {}),
        }

    @property
    def signature(self) -> str:
        """Changes whenever the findings change: what mirror_drift alerts on."""
        blob = json.dumps([self.matches_version, sorted(f.key for f in self.findings)])
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass
class AuditReport:
    """The audit of one document: its canonical version and every mirror's findings."""

    document: str
    title: str
    canonical_version: int | None
    canonical_fetched_at: str | None
    mirrors: list[MirrorAudit] = field(default_factory=list)
    #: mirrors a damaged file of their own kept from being audited, and what is damaged
    unread: dict[str, str] = field(default_factory=dict)
    #: mirrors with no version stored yet (added, not checked since)
    unfetched: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "document": self.document,
            "title": self.title,
            "canonical_version": self.canonical_version,
            "canonical_fetched_at": self.canonical_fetched_at,
            # with what each mirror behind the canonical has to carry over (a drift alert carries it apart)
            "mirrors": [
                {**m.as_json(), **({"carry_over": m.carry_over} if m.carry_over else {})}
                for m in self.mirrors
            ],
            **(
                {"unread": [{"mirror": m, "error": why} for m, why in self.unread.items()]}
                if self.unread
                else {}
            ),
            **({"unfetched": self.unfetched} if self.unfetched else {}),
        }
