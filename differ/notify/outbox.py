"""The durable outbox: a message is written before it is sent and moved to `sent/` only after a 2xx.

    outbox/<notifier>/pending/<seq>-<id>.json   waiting (with attempts, next attempt, last error)
    outbox/<notifier>/failed/<seq>-<id>.json    given up (4xx, or retried for too long); `outbox retry` revives
    outbox/<notifier>/sent/<seq>-<id>.json      delivered
    outbox/<notifier>/digest/<id>.json          events collected for the next digest message
    outbox/<notifier>/digested/<id>.json        events already in a digest
    outbox/<notifier>/disabled.json             the receiver answered 410; cleared when the config changes
    outbox/<notifier>/failing.json              since when its messages fail for good; cleared by a delivery
    outbox/<notifier>/threads.json              the thread or topic of each document (Slack, Discord, Matrix, Telegram)
    outbox/<notifier>/.sending                  locked by the one thread or process sending this destination's messages
    outbox/<notifier>/ids/<id>                  the file name of the message with this id, whatever its state
    outbox/<notifier>/last                      the file name of the message queued last
    outbox/<notifier>/pruned                    ids of sent messages and digested events deleted after `keep_sent`
    outbox/<notifier>/pruned-at                 when they were last looked for

Message ids are derived from the event, so an event enqueued twice (after a crash) is one message; a message
pruned after `keep_sent` keeps its id in `pruned`, so it is not queued again either.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from differ.files import atomic_write, fsync_folder, lock_within
from differ.shapes import Fields, dict_of, json_object, shape_problem
from differ.store import Store, canonical_json

STATES = ("pending", "failed", "sent")
PRUNE_EVERY = 86400.0  # seconds between two looks for sent messages older than `keep_sent`
_MSG_ID = r"msg_[0-9a-f]{8,64}"
_ID = re.compile(rf"^{_MSG_ID}$")
_DIGESTED = re.compile(rf"^({_MSG_ID})\.json$")
_PRUNED: dict[Path, tuple[tuple[int, int], frozenset[str]]] = {}
_NAME = re.compile(rf"^(\d{{10}})-({_MSG_ID})\.json$")
# What each field of a message must be wherever differ reads it: a file damaged into another shape is not a
# message (as one that is not JSON is not), so the outbox reads past it and `differ verify` names it.
MESSAGE_FIELDS: Fields = {
    "type": (str, type(None)),
    "subject": str,
    "created": str,
    "next_attempt": str,
    "attempts": int,
    "body": dict,
    "headers": dict_of(str),
    "last_error": (str, type(None)),
    "last_attempt": str,
    "sent_at": str,
    "thread": str,
    "note": str,
    "digest_of": list,
}
MESSAGE_REQUIRED = ("created", "next_attempt", "attempts", "body")


def message_problem(data: object) -> str | None:
    """Why what a message's file holds cannot be sent as one (not an object, a field missing or of another
    kind), or None."""
    if not isinstance(data, dict):
        return "not a JSON object"
    return shape_problem(data, MESSAGE_FIELDS, MESSAGE_REQUIRED)


def _marker(index: Path, msg_id: str) -> str | None:
    """The file name a message id's marker in `ids/` holds: None when there is no marker, "" when it does not
    read as a message's file name."""
    try:
        name = (index / msg_id).read_bytes().decode("ascii", "replace")
    except FileNotFoundError:
        return None
    except OSError:
        return ""
    return name if _NAME.match(name) else ""


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except FileNotFoundError:
        return []


def read_message(path: Path) -> dict[str, Any]:
    """The message a file holds; ValueError (with what is wrong) when it holds none, OSError as the system
    raises it."""
    data = json.loads(path.read_bytes())
    problem = message_problem(data)
    if problem:
        raise ValueError(problem)
    return dict(data)


@dataclass
class Message:
    """One notification for one destination."""

    notifier: str
    seq: int
    id: str
    state: str
    data: dict[str, Any]
    path: Path

    @property
    def event_type(self) -> str:
        return str(self.data.get("type", ""))


class Outbox:
    """Per-notifier queues inside the store."""

    def __init__(self, store: Store):
        self.store = store
        self.root = store.root / "outbox"

    def folder(self, notifier: str, state: str) -> Path:
        return self.root / notifier / state

    def messages(self, notifier: str, state: str = "pending", last: int | None = None) -> list[Message]:
        """A destination's messages in a state, oldest first; with `last`, only the newest so many (the others
        are not read: a destination's sent messages are kept for `keep_sent`)."""
        folder = self.folder(notifier, state)
        if not folder.is_dir():
            return []
        found = []
        names = sorted(  # by name: its sequence number, zero-padded
            ((m, path) for path in folder.iterdir() if (m := _NAME.match(path.name))), key=lambda m: m[1].name
        )
        for m, path in names[-last:] if last else names:
            try:
                data = read_message(path)
            except (ValueError, OSError):
                continue
            found.append(Message(notifier, int(m.group(1)), m.group(2), state, data, path))
        return sorted(found, key=lambda msg: msg.seq)

    def notifiers(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir())

    def find(self, notifier: str, msg_id: str) -> Message | None:
        """The message with this id in any state: its marker in `ids/` names its file, so finding it costs the
        same with ten messages sent or a hundred thousand."""
        index = self.root / notifier / "ids"
        name = _marker(index, msg_id)
        if name is None:
            return None if index.is_dir() else self._search(notifier, msg_id)
        return self._named(notifier, name) if name else self._search(notifier, msg_id)

    def _named(self, notifier: str, name: str) -> Message | None:
        """The message whose file is `name`, in whichever state it is."""
        m = _NAME.match(name)
        if not m:
            return None
        for state in STATES:
            path = self.folder(notifier, state) / name
            try:
                data = read_message(path)
            except FileNotFoundError:
                continue
            except (ValueError, OSError):
                return None
            return Message(notifier, int(m.group(1)), m.group(2), state, data, path)
        return None  # a marker written by a process that died before the message was

    def _files(self, notifier: str) -> Iterator[re.Match[str]]:
        """The file name of every message, in every state (read from the folders, not the index)."""
        for state in STATES:
            folder = self.folder(notifier, state)
            for path in folder.iterdir() if folder.is_dir() else ():
                if m := _NAME.match(path.name):
                    yield m

    def _search(self, notifier: str, msg_id: str) -> Message | None:
        """The message with this id, looked for in every state's folder (before `ids/` was built)."""
        name = next((m.group(0) for m in self._files(notifier) if m.group(2) == msg_id), "")
        return self._named(notifier, name)

    def _index(self, notifier: str) -> Path:
        """`ids/`: a marker per message id holding its file name, built from the messages the first time (an
        outbox written before it had none) and renamed into place whole."""
        index = self.root / notifier / "ids"
        if index.is_dir():
            return index
        building = self.root / notifier / ".ids-building"
        shutil.rmtree(building, ignore_errors=True)
        building.mkdir(parents=True)
        for m in self._files(notifier):
            atomic_write(building / m.group(2), m.group(0).encode(), durable=False)
        fsync_folder(building)
        os.replace(building, index)
        return index

    def queued(self, notifier: str, msg_id: str) -> bool:
        """Whether a message with this id was ever queued (whether it is there, damaged or pruned)."""
        return self._known(self._index(notifier), notifier, msg_id)

    def enqueue(self, notifier: str, msg_id: str, data: dict[str, Any]) -> Message | None:
        """Add a message unless one with this id exists already (in any state). Its marker and the name of
        the last message are written before it: a process that dies between leaves a marker without a message,
        which counts as none."""
        with self.store.writing():
            index = self._index(notifier)
            if self._known(index, notifier, msg_id):
                return None
            last = self._last_name(notifier)
            seq = int(last[:10]) + 1 if last else 1
            name = f"{seq:010d}-{msg_id}.json"
            atomic_write(index / msg_id, name.encode())
            atomic_write(self.root / notifier / "last", name.encode())
            path = self.folder(notifier, "pending") / name
            atomic_write(path, canonical_json(data) + b"\n")
            return Message(notifier, seq, msg_id, "pending", data, path)

    def _known(self, index: Path, notifier: str, msg_id: str) -> bool:
        """Whether a message with this id was queued: its marker names a file that is there, in any state,
        whether or not it still reads (a message damaged after it was sent must not go out again)."""
        name = _marker(index, msg_id)
        if name is None:  # no marker: never queued, or pruned
            there = False
        elif not name:  # a marker that does not read: the folders say
            there = any(m.group(2) == msg_id for m in self._files(notifier))
        else:
            there = any((self.folder(notifier, state) / name).exists() for state in STATES)
        return there or msg_id in self.pruned(notifier)

    def _last_name(self, notifier: str) -> str:
        """The file name of the message queued last ("" before the first): from `last`, or, where that is
        missing or unreadable, the highest-numbered message in the folders."""
        try:
            name = (self.root / notifier / "last").read_bytes().decode("ascii", "replace")
        except OSError:
            name = ""
        if _NAME.match(name):
            return name
        return max((m.group(0) for m in self._files(notifier)), default="")

    def last(self, notifier: str) -> Message | None:
        """The message queued last, in whatever state."""
        return self._named(notifier, self._last_name(notifier))

    def update(self, msg: Message) -> None:
        with self.store.writing():
            atomic_write(msg.path, canonical_json(msg.data) + b"\n")

    def move(self, msg: Message, state: str) -> Message:
        """Rewrite the message's record, then rename it into its new state's folder."""
        with self.store.writing():
            target = self.folder(msg.notifier, state) / msg.path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(msg.path, canonical_json(msg.data) + b"\n")
            os.replace(msg.path, target)
            return Message(msg.notifier, msg.seq, msg.id, state, msg.data, target)

    @contextlib.contextmanager
    def sending(self, notifier: str, wait: float = 0.0) -> Iterator[bool]:
        """Hold a destination's turn to send: one thread or process at a time reads its pending messages and
        sends them, so two never send the same one. Yields False when another still holds it after `wait`
        seconds (it sends what is due, so the caller can leave it be)."""
        folder = self.root / notifier
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / ".sending", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if not lock_within(fd, wait):
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def give_up(self, notifier: str, reason: str, wait: float = 30.0) -> int:
        """Move what a destination has not delivered from pending to failed, with `reason` (its [[notify]] was
        removed): no longer owed, so `differ status` stops counting it, and `differ outbox retry` can still send
        it. Done in the destination's turn to send, so a running service is not mid-send; how many."""
        if not self.folder(notifier, "pending").is_dir():
            return 0
        with self.sending(notifier, wait) as ours:
            if not ours:
                return 0
            pending = self.messages(notifier, "pending")
            for msg in pending:
                msg.data["last_error"] = reason
                self.move(msg, "failed")
        return len(pending)

    def has_pending(self, notifier: str) -> bool:
        folder = self.folder(notifier, "pending")
        return folder.is_dir() and any(_NAME.match(p.name) for p in folder.iterdir())

    def collecting(self, notifier: str) -> bool:
        """Whether events wait for a digest (without reading them)."""
        return any(self.folder(notifier, "digest").glob("msg_*.json"))

    # -- threads -----------------------------------------------------------------------------------------
    def _threads_path(self, notifier: str) -> Path:
        return self.root / notifier / "threads.json"

    def threads(self, notifier: str) -> dict[str, str]:
        """The thread each document's alerts go to, for a notifier that starts threads itself."""
        try:
            data = json.loads(self._threads_path(notifier).read_bytes())
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def remember_thread(self, notifier: str, key: str, thread: str) -> None:
        """Keep the thread a document's first alert started, for its next alerts."""
        with self.store.writing():
            threads = {**self.threads(notifier), key: thread}
            path = self._threads_path(notifier)
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, canonical_json(threads) + b"\n")

    def forget_thread(self, notifier: str, key: str) -> None:
        """Drop a document's thread that the service no longer has (deleted by a moderator, say)."""
        with self.store.writing():
            threads = self.threads(notifier)
            if threads.pop(key, None) is not None:
                atomic_write(self._threads_path(notifier), canonical_json(threads) + b"\n")

    # -- digest buffer ------------------------------------------------------------------------------------
    def buffer(self, notifier: str, event_id: str, event: dict[str, Any]) -> None:
        """Collect an event for the next digest, unless it is collected already, was in a digest, or is a
        message of its own."""
        with self.store.writing():
            path = self.folder(notifier, "digest") / f"{event_id}.json"
            if (
                not path.exists()
                and not (self.folder(notifier, "digested") / path.name).exists()
                and not self.queued(notifier, event_id)  # pruned from digested/ too
            ):
                atomic_write(path, canonical_json(event) + b"\n")

    def digested(self, notifier: str, paths: list[Path]) -> None:
        """Move collected events into `digested/` once their digest is queued: an event handed over again
        (every check of a failing streak is) goes into no later digest."""
        with self.store.writing():
            folder = self.folder(notifier, "digested")
            folder.mkdir(parents=True, exist_ok=True)
            for path in paths:
                with contextlib.suppress(FileNotFoundError):
                    os.replace(path, folder / path.name)

    def buffered(self, notifier: str) -> list[tuple[Path, dict[str, Any]]]:
        folder = self.folder(notifier, "digest")
        if not folder.is_dir():
            return []
        items = []
        for path in sorted(folder.glob("msg_*.json")):
            try:
                items.append((path, json_object(path)))
            except (ValueError, OSError):
                continue
        return sorted(items, key=lambda item: str(item[1].get("queued_at", "")))

    # -- pruning ----------------------------------------------------------------------------------------
    def pruned(self, notifier: str) -> frozenset[str]:
        """The ids of sent messages and digested events deleted after `keep_sent` (read again only when the
        file changed)."""
        path = self.root / notifier / "pruned"
        try:
            stat = path.stat()
        except OSError:
            return frozenset()
        stamp = (stat.st_mtime_ns, stat.st_size)
        kept = _PRUNED.get(path)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        try:
            text = path.read_bytes().decode("ascii", "replace")
        except OSError:
            return frozenset()
        ids = frozenset(line for line in text.split("\n") if _ID.match(line))
        _PRUNED[path] = (stamp, ids)
        return ids

    def prune(self, notifier: str, keep: float, now: datetime) -> int:
        """Delete the sent messages and digested events older than `keep` seconds (by when they were sent or
        digested), at most once a day a destination; 0 keeps them for good. Their ids are written to `pruned`,
        made durable, before anything is deleted, so a process killed at any point leaves each event queued
        once. How many were deleted."""
        stamp = self.root / notifier / "pruned-at"
        try:
            last = datetime.fromisoformat(stamp.read_text().strip())
        except (OSError, ValueError):
            last = None
        if not keep or (last is not None and 0 <= (now - last).total_seconds() < PRUNE_EVERY):
            return 0
        cutoff = now.timestamp() - keep
        with self.store.writing():
            old = [
                (Path(entry.path), m.group(2) if state == "sent" else m.group(1))
                for state, pattern in (("sent", _NAME), ("digested", _DIGESTED))
                for entry in _entries(self.folder(notifier, state))
                if (m := pattern.match(entry.name)) and entry.stat().st_mtime < cutoff
            ]
            if old:
                with open(self.root / notifier / "pruned", "a+b") as out:
                    end = out.seek(0, os.SEEK_END)
                    # a line a writer killed before its fsync left unfinished
                    cut = end > 0 and os.pread(out.fileno(), 1, end - 1) != b"\n"
                    out.write(("\n" if cut else "").encode() + "".join(f"{m}\n" for _, m in old).encode())
                    out.flush()
                    os.fsync(out.fileno())
                fsync_folder(self.root / notifier)
                index = self.root / notifier / "ids"
                for path, msg_id in old:
                    if path.parent.name == "sent":
                        with contextlib.suppress(FileNotFoundError):
                            (index / msg_id).unlink()
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
            atomic_write(stamp, now.isoformat().encode(), durable=False)
        return len(old)

    # -- failing for good -------------------------------------------------------------------------------
    def failing_since(self, notifier: str) -> str | None:
        """When this destination's run of messages failed for good began (None when it is not in one)."""
        try:
            return str(json.loads((self.root / notifier / "failing.json").read_bytes())["since"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def failing(self, notifier: str, since: str) -> None:
        """Record that a run of failures began at `since` (once its alert is queued: a process that dies
        before that tells it at the next failure)."""
        path = self.root / notifier / "failing.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, canonical_json({"since": since}) + b"\n")

    def delivered(self, notifier: str) -> None:
        """A message reached this destination: a run of failures, if any, is over."""
        with contextlib.suppress(FileNotFoundError):
            (self.root / notifier / "failing.json").unlink()

    # -- disabling --------------------------------------------------------------------------------------
    def disabled(self, notifier: str) -> dict[str, Any] | None:
        try:
            return json_object(self.root / notifier / "disabled.json")
        except (OSError, ValueError):
            return None

    def disable(self, notifier: str, fingerprint: str, reason: str) -> None:
        with self.store.writing():
            atomic_write(
                self.root / notifier / "disabled.json",
                canonical_json({"fingerprint": fingerprint, "reason": reason}) + b"\n",
            )

    def enable(self, notifier: str) -> None:
        with self.store.writing():
            try:
                (self.root / notifier / "disabled.json").unlink()
            except FileNotFoundError:
                pass

    def all(self, states: tuple[str, ...] = ("pending", "failed")) -> Iterator[Message]:
        for notifier in self.notifiers():
            for state in states:
                yield from self.messages(notifier, state)
