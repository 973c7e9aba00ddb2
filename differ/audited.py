"""The audits kept in the store: where a document's last audit is, what it says, and which documents are due to
be audited again though no page changed. Every check reads these, so this loads no audit engine (the word
alignment, rapidfuzz, markdown-it): a check of unchanged pages stays light."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from differ.errors import StoreDamage
from differ.options import plural
from differ.shapes import AUDIT_FIELDS, AUDIT_REQUIRED, json_object, shape_problem

if TYPE_CHECKING:
    from collections.abc import Mapping

    from differ.app import App
    from differ.config import DocumentConfig, SourceConfig
    from differ.store import Store

# Raised whenever the same two pages can give other findings (how a mirror is read or compared changed): an audit
# recorded under other rules is done again at the next check, and the findings that changed with the rules alone,
# the pages being the same, are not drift.
# 3: word operations aligned in one order whichever side is which; 4: a copy's title kept apart from its body;
# 5: a translation audited block by block; 6: a block the copy put one of its own in place of is `replaced`;
# 7: inline code checked character by character (`code_corrupted`); 8: inline code whose punctuation the copy
# changed (`torch=2.13` for `torch==2.13`) is `code_corrupted` too; 9: and so are the long options and pinned
# versions a text writes as plain words (`--pre`, `torch==2.13` in a sentence not marked as code); 10: the
# canonical's edits a copy carries told apart (a stale copy misses only the others; a passage of a copy up to date
# that reads as before its last edit is that edit not carried over); 11: a translation's comments of the code set
# as text beside its commands are the code's, and two paragraphs it merged are read together though one number
# in them was not brought up to date; 12: a link whose words a copy that keeps links wrote as plain text, and
# Chinese and Japanese read a character a word, and a translation's block alone between two pairs, with as many
# numbers as the canonical's alone there, renders it; full-width digits and letters read as their ASCII selves;
# code lines that start with `/*` or `<!--` are comments; 13: a post's title heads no section (findings name the
# sections under it alone), and a finding's word operations quote the words as each side spells them; 14: a
# table of contents kept in Markdown (a list of in-page links alone, and the heading over it alone) is passed over,
# and so is a footnote's label before its note (`[^1]: `, `[1] `), and a copy's title heading where the canonical
# keeps its title apart from its body; 15: a bilingual copy (a quarter of its blocks of text or more in another
# script or language, not a translation) with `languages` and `translation` unset is audited on its blocks in the
# canonical's language, as that `languages` reads it
AUDIT_RULES = 15


def findings_said(findings: int, accepted: int = 0) -> str:
    """`7 findings`, `1 finding, 2 accepted`: a mirror's findings counted as every output counts them."""
    return plural(findings, "finding") + (f", {accepted} accepted" if accepted else "")


def audit_path(store: Store, document: str) -> Path:
    """Where the last audit of a document is kept, to tell mirror drift (and for the reports site)."""
    return store.root / "audits" / f"{document}.json"


def last_audit(store: Store, document: str) -> dict[str, Any]:
    """The record of a document's last audit, by mirror id (empty when there is none, or it does not read; a
    mirror's entry that does not read is left out, as if that mirror had not been audited)."""
    try:
        audit = json_object(audit_path(store, document))
    except (OSError, ValueError):
        return {}
    return {
        mirror: entry
        for mirror, entry in audit.items()
        if isinstance(entry, dict) and shape_problem(entry, AUDIT_FIELDS, AUDIT_REQUIRED) is None
    }


def owed(entry: Mapping[str, Any], canonical: int) -> set[int] | None:
    """The blocks of the canonical's version `canonical` (by index) that a mirror's last audit (`entry`) found
    it has to carry over: those edited since the version it matches whose edit it does not carry yet. None when
    that audit was of another version, or did not tell."""
    found = entry.get("owed")
    return set(found) if isinstance(found, list) and entry.get("canonical_version") == canonical else None


def carry_after(entry: Mapping[str, Any]) -> int | None:
    """The version after which the canonical's passages a mirror's last audit (`entry`) found it has to carry
    over were edited: the one it matches, or, for a mirror up to date but for some edits, the one before the
    first of them. None when it was not matched."""
    after = entry.get("carry_after", entry.get("matches_version"))
    return after if isinstance(after, int) else None


def passages_said(matches_version: object, canonical_version: object, passages_behind: object) -> str:
    """`3 passages to carry over` for a mirror behind the canonical (nothing when not known), `but for 1 passage
    to carry over` for one up to date that lacks some edit; else nothing."""
    if not isinstance(passages_behind, int) or (matches_version == canonical_version and not passages_behind):
        return ""
    but = "but for " if matches_version == canonical_version else ""
    return f"{but}{plural(passages_behind, 'passage')} to carry over"


def audits_due(app: App, documents: set[str]) -> set[str]:
    """Those of `documents` whose last audit is out of date though no page changed in this check: a mirror's
    time to catch up (`stale_after`) has run out since (so a mirror that stays behind is reported stale), the
    audit is older than the versions stored (a process that stored them died before auditing them), or a
    mirror's `accept` patterns changed since."""
    from differ.app import iso

    now = iso(app.now())
    due = set()
    for doc in app.config.documents:
        if doc.id not in documents or not doc.mirrors:
            continue
        with app.carry_on(f"{doc.id}: not audited"):
            if _due(app, doc, now):
                due.add(doc.id)
    return due


def mirror_reading(app: App, mirror: SourceConfig) -> str:
    """How a mirror is read and audited, as a digest: the settings that read its page (`versions.reading`) and
    whether it is audited as a translation."""
    from differ.versions import reading

    return f"{reading(app, mirror)}:{mirror.translation}"


def _due(app: App, doc: DocumentConfig, now: str) -> bool:
    audit = last_audit(app.store, doc.id)
    if not audit:  # never audited (a process died before its first audit was written)
        return True
    canonical = app.store.latest_number(doc.canonical.key)
    for mirror in doc.mirrors:
        entry = audit.get(mirror.id)
        if not isinstance(entry, dict):
            continue  # a mirror added since: audited with the next change
        try:
            latest = app.store.latest_number(mirror.key)
        except StoreDamage:
            continue  # its own check says so; audited again once it reads
        stale_from = entry.get("stale_from")
        audited = (entry.get("version"), entry.get("canonical_version"), entry.get("rules"))
        # stale from now on, older than the versions stored, by other rules (by another differ), with other
        # findings accepted (the mirror's `accept` edited since), or with the copy read otherwise (its
        # `languages` or `selector` set since)
        if (
            (isinstance(stale_from, str) and stale_from <= now)
            or audited != (latest or None, canonical or None, AUDIT_RULES)
            or (entry.get("accept") or []) != list(mirror.accept)
            or entry.get("reading", read_as := mirror_reading(app, mirror)) != read_as
        ):
            return True
    return False


def remember_audits(app: App, audits: dict[str, dict[str, Any]]) -> None:
    """Write each document's audit record, what the next audit tells drift against."""
    from differ.files import atomic_write
    from differ.store import canonical_json

    with app.store.writing():
        for document, current in audits.items():
            # not kept, its drift is told again by the next check: the same alerts, not sent twice
            with app.carry_on(f"{document}: audit not kept"):
                atomic_write(audit_path(app.store, document), canonical_json(current) + b"\n")
