"""The shapes of the files differ keeps: what each field of a version record, a source's state and a fetch log
line must be, checked as they are read, so that a file damaged or edited into another shape is refused (or its
field read as absent) where it is read, in words, not met deep in whatever used it."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

# a field's kind: a type (or types) its value must be an instance of, or a check of the value
Kind = type | tuple[type, ...] | Callable[[object], bool]
Fields = dict[str, Kind]


def list_of(kind: Kind) -> Callable[[object], bool]:
    """The kind of a list each item of which is of `kind`."""
    return lambda value: isinstance(value, list) and all(of_kind(item, kind) for item in value)


def dict_of(kind: Kind) -> Callable[[object], bool]:
    """The kind of an object each value of which is of `kind`."""
    return lambda value: isinstance(value, dict) and all(of_kind(item, kind) for item in value.values())


def _pair(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(part, str) for part in value)


def json_object(path: Path) -> dict[str, Any]:
    """The JSON object a file of the store holds: ValueError when it holds anything else (bytes that are not
    UTF-8 or not JSON, a list, a number), OSError as the system raises it (FileNotFoundError: not there)."""
    data = json.loads(path.read_bytes())
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return data


def damage(exc: OSError | ValueError) -> str:
    """What is wrong with a file that did not read, in a few words."""
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8"
    return "not JSON" if isinstance(exc, json.JSONDecodeError) else str(exc)


# What each field of a version record must be wherever differ reads it, and the fields every record has: a
# record damaged or edited into another shape is refused where it is read, not met deep in whatever used it.
RECORD_FIELDS: Fields = {
    "number": int,
    "source": str,
    "hash": str,
    "prev": (str, type(None)),
    "fetched_at": str,
    "raw_sha256": str,
    "markdown_sha256": str,
    "content_sha256": str,
    "normalizer": int,
    "url": str,
    "fetch_url": str,
    "final_url": str,
    "status": int,
    "headers": dict,
    "metadata": dict,
    "invisible": list_of(dict),
    "summary": list_of(str),
    "warnings": list_of(str),
    "changes": int,
    "words": int,
    "raw_bytes": int,
    "reading": str,
    "document_title": str,
    "role": str,
    "kind": str,
    "archive": dict,
    "back_to": int,
    "command": list_of(str),
}
RECORD_REQUIRED = ("number", "source", "hash", "raw_sha256", "markdown_sha256")  # what `commit` writes


# What each mirror's entry in a document's last audit (`audits/DOCUMENT.json`) must be: what drift is told
# against and `differ sources` heads; an entry that is not is read as no audit of that mirror.
AUDIT_FIELDS: Fields = {
    "signature": str,
    "matches_version": (int, type(None)),
    "findings": list_of(str),
    "lines": dict_of(str),
    "coverage": (int, float),
    "stale_from": (str, type(None)),
    "note": (str, type(None)),
    "translation": bool,
    "version": int,
    "canonical_version": int,
    "rules": int,
    "missed": list_of(str),
    "passages_behind": (int, type(None)),
    "owed": list_of(int),
    "carried": int,
    "carry_after": int,
    "accepted": list_of(str),
    "accept": list_of(str),
}
AUDIT_REQUIRED = ("signature", "findings")  # what drift is told by; the rest came in later versions


def of_kind(value: object, kind: Kind) -> bool:
    """Whether a stored value is of a field's kind (true and false are no type's but bool's)."""
    if not isinstance(kind, (type, tuple)):
        return kind(value)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return isinstance(value, kind) and (not isinstance(value, bool) or bool in kinds or object in kinds)


def shape_problem(data: dict[str, Any], fields: Fields, required: tuple[str, ...]) -> str | None:
    """What keeps `data` from being what a table of fields describes (a field it needs missing, one of another
    kind), or None."""
    for name in required:
        if name not in data:
            return f"it has no {name}"
    for name, kind in fields.items():
        if name in data and not of_kind(data[name], kind):
            return f"its {name} is {json.dumps(data[name])[:40]}"
    return None


def record_problem(record: dict[str, Any]) -> str | None:
    """Why a version record cannot be read as one (a field missing or of another kind, a time that is no
    time), or None."""
    problem = shape_problem(record, RECORD_FIELDS, RECORD_REQUIRED)
    if problem:
        return problem
    try:
        datetime.fromisoformat(record.get("fetched_at", "1970-01-01T00:00:00Z").replace("Z", "+00:00"))
    except ValueError:
        return f"its fetched_at is {json.dumps(record['fetched_at'])[:40]}, not a time"
    return None


# What each field of a source's state and of its fetch log's entries must be: a field damaged into another
# kind is read as absent (they hold validators, counts, what the next check owes and how checks went, not the
# record: losing a field costs a request or a line of `differ log`, while reading it would fail every check).
STATE_FIELDS: Fields = {
    "url": str,
    "etag": (str, type(None)),
    "last_modified": (str, type(None)),
    "body_sha256": str,
    "failures": int,
    "failing_since": str,
    "last_error": (str, type(None)),
    "last_outcome": str,
    "last_check": str,
    "last_change": str,
    "notified": int,
    "followed": int,
    "pending": str,
    "pending_since": str,
    "recovered_after": int,  # a recovery owed, as an older differ kept it (with recovered_since)
    "recovered_since": str,
    "recoveries": list_of(dict),  # the recoveries owed, each streak's (events.owed_recoveries)
    "retry_not_before": str,
    "reread": dict,
    "normalizer": int,  # which read the latest version of a page unchanged since (check._read_by_this_normalizer)
    "translations": list_of(_pair),
    "translations_told": list_of(_pair),
    "moved": str,
    "moved_told": str,
    "vary": dict,
}
FETCH_FIELDS: Fields = {
    "at": str,
    "url": str,
    "final_url": str,
    "status": int,
    "exit": int,
    "bytes": int,
    "attempts": int,
    "duration_ms": (int, float),
    "waited_ms": (int, float),
    "outcome": str,
    "version": int,
    "detail": str,
    "error": str,
    "body_sha256": str,
}


def fields_kept(data: dict[str, Any], fields: Fields) -> dict[str, Any]:
    """The fields of `data` that are of their kind in `fields` (others as they are)."""
    return {name: value for name, value in data.items() if of_kind(value, fields.get(name, object))}
