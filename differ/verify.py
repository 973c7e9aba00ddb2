"""`differ verify`: re-hash a store, its records, their chain, the Markdown and the raw bodies, and report what
is altered, missing or out of order (problems) apart from harmless leftovers of an interrupted write (notes)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from differ.errors import StoreError
from differ.shapes import damage, json_object, record_problem
from differ.store import VERSION_FILE, Store, record_hash, sha256


@dataclass
class VerifyReport:
    """What `differ verify` found: problems (damage) and notes (harmless leftovers)."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sources: int = 0
    versions: int = 0
    blobs: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(store: Store) -> VerifyReport:
    """Re-hash everything: records, chain, Markdown and raw bodies; report what is altered or missing."""
    report = VerifyReport()
    if not (store.root / "STORE").exists():
        if not store.unused():
            report.problems.append(f"{store.root}: no STORE marker; not a differ store")
        return report
    checked_blobs: set[str] = set()
    for key in store.source_keys():
        report.sources += 1
        _verify_source(store, key, report, checked_blobs)
    report.blobs = len(checked_blobs)
    _verify_outbox(store, report)
    for tmp in store.root.rglob("*.tmp"):
        report.notes.append(
            f"{tmp.relative_to(store.root)}: leftover temporary file from an interrupted write (harmless)"
        )
    return report


def _verify_source(store: Store, key: str, report: VerifyReport, checked_blobs: set[str]) -> None:
    folder = store.source_dir(key) / "versions"
    numbers = (
        sorted(int(m.group(1)) for p in folder.glob("*.json") if (m := VERSION_FILE.match(p.name)))
        if folder.is_dir()
        else []
    )
    prev_hash: str | None = None
    hashes: dict[int, object] = {}
    expected = 1
    for number in numbers:
        where = f"{key} version {number}"
        if number != expected:
            report.problems.append(f"{key}: version {expected} is missing (next found is {number})")
            expected = number
        expected += 1
        problem: str | None = None
        try:
            record = json_object(folder / f"{number:06d}.json")
        except json.JSONDecodeError:
            problem = "is not valid JSON"
        except OSError as exc:
            problem = f"cannot be read ({damage(exc)})"
        except ValueError as exc:  # not UTF-8, not an object
            problem = f"is damaged ({damage(exc)})"
        else:
            found = record_problem(record)
            problem = found and f"is damaged ({found})"
        if problem:
            report.problems.append(f"{where}: record {problem}")
            prev_hash = None
            continue
        report.versions += 1
        hashes[number] = record.get("hash")
        if record.get("number") != number or record.get("source") != key:
            report.problems.append(
                f"{where}: record says it is {record.get('source')} version "
                f"{record.get('number')} (reordered or moved)"
            )
        if record.get("hash") != record_hash(record):
            report.problems.append(f"{where}: record was altered (hash does not match its content)")
        if number > 1 and prev_hash is not None and record.get("prev") != prev_hash:
            report.problems.append(f"{where}: chain broken (does not follow version {number - 1})")
        prev_hash = record.get("hash")
        md = folder / f"{number:06d}.md"
        try:
            if sha256(md.read_bytes()) != record.get("markdown_sha256"):
                report.problems.append(f"{where}: normalized Markdown was altered")
        except FileNotFoundError:
            report.problems.append(f"{where}: normalized Markdown is missing")
        except OSError as exc:
            report.problems.append(f"{where}: normalized Markdown cannot be read ({damage(exc)})")
        digest = record.get("raw_sha256")
        if isinstance(digest, str) and digest not in checked_blobs:  # a shared body is checked once
            try:
                if sha256(store.get_blob(digest)) != digest:
                    report.problems.append(f"{where}: raw body {digest[:12]} was altered")
                checked_blobs.add(digest)
            except StoreError as exc:
                report.problems.append(f"{where}: {exc}")
    try:
        head = store.head(key)
    except StoreError as exc:
        report.problems.append(str(exc))
        return
    if head:
        last = numbers[-1] if numbers else 0
        if head.get("number", 0) > last:
            report.problems.append(
                f"{key}: versions {last + 1} to {head['number']} are missing (the head names a newer version)"
            )
        elif head["number"] in hashes and hashes[head["number"]] != head["hash"]:
            report.problems.append(f"{key}: version {head['number']} differs from the one the head recorded")
    elif numbers:
        report.notes.append(f"{key}: head.json missing; will be rewritten at the next version")


def _verify_outbox(store: Store, report: VerifyReport) -> None:
    """A message waiting to be sent, or kept as failed for `differ outbox retry`, that no longer reads as one:
    the outbox reads past it, so it would never go out without a word; and a list of pruned ids that cannot be
    read, whose alerts could go out again."""
    from differ.notify.outbox import Outbox, read_message

    outbox = Outbox(store)
    for notifier in outbox.notifiers():
        pruned = outbox.root / notifier / "pruned"
        try:
            pruned.read_bytes()
        except FileNotFoundError:
            pass
        except OSError as exc:  # the ids it keeps from being queued again are not known
            report.problems.append(
                f"{pruned.relative_to(store.root)}: cannot be read ({damage(exc)}); alerts pruned after "
                "keep_sent could be sent again"
            )
        for state in ("pending", "failed"):
            folder = outbox.folder(notifier, state)
            for path in sorted(folder.glob("*-msg_*.json")) if folder.is_dir() else ():
                try:
                    read_message(path)
                except json.JSONDecodeError:
                    why = "not valid JSON"
                except (OSError, ValueError) as exc:
                    why = damage(exc)
                else:
                    continue
                report.problems.append(
                    f"{path.relative_to(store.root)}: a message that does not read ({why}); it cannot be sent"
                )
