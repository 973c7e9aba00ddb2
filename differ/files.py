"""Files that survive a crash: whole-file writes that readers see old or new, never in part (temporary file,
fsync, rename), and JSON-lines logs whose torn last line is skipped on reading and closed off before the next
one is appended. The store and everything that writes beside it (reports, feeds, the outbox, config.toml) use
these."""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO


class TooLarge(OSError):
    """A file larger than any of its kind is: a device or a pipe that never ends (`/dev/zero`), or the wrong file."""


def read_capped(path: Path, limit: int) -> bytes:
    """A file's bytes, read as far as `limit` and one byte more, so that what never ends is not read for ever;
    more than `limit` is TooLarge."""
    with path.open("rb") as file:
        return capped(file, limit)


def capped(stream: BinaryIO, limit: int) -> bytes:
    """What an open stream (a file, standard input) holds, read as `read_capped` reads a file."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(f"more than {limit:,} bytes")
    return data


def atomic_write(path: Path, data: bytes, *, durable: bool = True, mode: int | None = None) -> None:
    """Write a file so that readers see the old content or the new, never a part: temp, fsync, rename. A file
    rebuilt from the records anyway (not `durable`) skips the fsyncs; `mode` sets its permissions (else the
    temporary file's, owner only)."""
    try:
        tmp = temp_file(path.parent, f".{path.name}.", data, durable=durable)
    except FileNotFoundError:  # the folder is made on first use only: most writes go to an existing one
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = temp_file(path.parent, f".{path.name}.", data, durable=durable)
    try:
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_folder(path.parent)


def temp_file(folder: Path, prefix: str, data: bytes, *, durable: bool = True) -> str:
    """Write `data` to a new hidden `.tmp` file in `folder` (fsynced if `durable`) for the caller to rename
    into place; a crash leaves the `.tmp` file, which readers and `verify` ignore."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise _where(exc, folder)
    return tmp


def _where(exc: BaseException, path: Path) -> BaseException:
    """A write's error with the place it was refused at: a full disk's (ENOSPC) names no file of its own, and a
    failure said as `FOLDER: No space left on device` tells users what to free, where an `internal error` would
    not."""
    if isinstance(exc, OSError) and exc.filename is None:
        exc.filename = str(path)
    return exc


def lock_within(fd: int, seconds: float) -> bool:
    """Take an exclusive `flock` on `fd`, trying for up to `seconds`; whether it was taken. (A lock belongs to
    an open file description: two opens of one file exclude each other, in one process or two.)"""
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)


def fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def append_line(path: Path, entry: dict[str, Any], *, durable: bool = True) -> int:
    """Append one JSON line; a line torn by a crash is closed off before the next one is written. The file is
    held shared while written, so a `RollingLog` rolling it away waits for the line. Unless `durable` is
    false (a line whose loss in a power cut costs nothing), it is on disk before this returns. The file's size
    after."""
    line = json.dumps(entry, sort_keys=True, ensure_ascii=False).encode() + b"\n"
    fd = open_appending(path)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        view = memoryview(line)
        while view:  # O_APPEND: each write goes to the end
            view = view[os.write(fd, view) :]
        if durable:
            os.fsync(fd)
        return os.fstat(fd).st_size
    except OSError as exc:
        raise _where(exc, path)
    finally:
        os.close(fd)


def open_appending(path: Path) -> int:
    """Open a log for appending, held shared, making sure it is still the file at `path` (not one rolled away
    between the open and the lock)."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT
    while True:
        try:
            fd = os.open(path, flags, 0o666)
        except FileNotFoundError:  # the folder is made on first use only
            path.parent.mkdir(parents=True, exist_ok=True)
            continue
        fcntl.flock(fd, fcntl.LOCK_SH)
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)


class RollingLog:
    """A JSON-lines log that keeps every line without keeping them in one ever-growing file: past `limit`
    bytes the file is compressed into the next `NAME/000001.jsonl.gz` (a tenth of its size or less), and reading
    goes on into those. A line being appended while the file is rolled is waited for, never lost; a process
    killed while rolling leaves the lines in `.NAME.rolling` (read, and rolled by the next), or once in each
    place, which rolling again settles."""

    def __init__(self, path: Path, limit: int) -> None:
        self.path = path
        self.limit = limit
        self.folder = path.with_suffix("")
        self.rolling = path.with_name(f".{path.stem}.rolling")

    def append(self, entry: dict[str, Any], *, durable: bool = True) -> None:
        if append_line(self.path, entry, durable=durable) > self.limit:
            self.roll()

    def roll(self) -> None:
        """Compress the log into the next segment (one process or thread at a time; another's roll in
        progress is left to finish)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.folder / ".rolling.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if not lock_within(fd, 0):
                return
            self._settle()
            try:
                if os.stat(self.path).st_size <= self.limit:
                    return  # rolled by another process just now
            except FileNotFoundError:
                return
            os.replace(self.path, self.rolling)
            self._settle()
        finally:
            os.close(fd)

    def _settle(self) -> None:
        """Write the rolled-away file as the next segment, once its last writer is done, and remove it."""
        try:
            fd = os.open(self.rolling, os.O_RDONLY)
        except FileNotFoundError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # a line begun before the file was rolled away is written first
            with os.fdopen(os.dup(fd), "rb") as handle:
                data = handle.read()
            segments = self.segments()
            if data and not self._in_last(data, segments):
                number = int(segments[-1].name.split(".")[0]) + 1 if segments else 1
                atomic_write(self.folder / f"{number:06d}.jsonl.gz", gzip.compress(data, mtime=0))
            os.unlink(self.rolling)
            fsync_folder(self.path.parent)
        finally:
            os.close(fd)

    def segments(self) -> list[Path]:
        """The compressed segments, oldest first."""
        return sorted(p for p in self.folder.glob("[0-9]*.jsonl.gz") if p.name.split(".")[0].isdigit())

    def read(self) -> list[dict[str, Any]]:
        """Every entry, oldest first; lines torn by a crash are skipped."""
        entries = [e for p in self.segments() for e in _parse(gzip.decompress(p.read_bytes()))]
        return entries + _parse(self._rolled()) + read_lines(self.path)

    def tail(self, count: int, keep: Callable[[dict[str, Any]], bool] | None = None) -> list[dict[str, Any]]:
        """The last `count` entries (those `keep` accepts), oldest first: the segments are opened only when the
        file has too few."""
        found = tail_lines(self.path, count, keep)
        if len(found) < count:
            found = _last(_parse(self._rolled()), count - len(found), keep) + found
        for segment in reversed(self.segments() if len(found) < count else []):
            found = _last(_parse(gzip.decompress(segment.read_bytes())), count - len(found), keep) + found
            if len(found) >= count:
                break
        return found

    def _rolled(self) -> bytes:
        """The rolled-away file not yet in a segment; nothing where a roll killed after writing its segment
        left the file behind (the next roll removes it), so its lines are not read twice."""
        try:
            data = self.rolling.read_bytes()
        except FileNotFoundError:
            return b""
        return b"" if data and self._in_last(data, self.segments()) else data

    @staticmethod
    def _in_last(data: bytes, segments: list[Path]) -> bool:
        """Whether the last segment holds these bytes: a roll killed after writing it left them behind."""
        return bool(segments) and gzip.decompress(segments[-1].read_bytes()) == data


def _last(
    entries: list[dict[str, Any]], count: int, keep: Callable[[dict[str, Any]], bool] | None
) -> list[dict[str, Any]]:
    kept = [e for e in entries if keep is None or keep(e)]
    return kept[max(0, len(kept) - count) :]


def read_lines(path: Path) -> list[dict[str, Any]]:
    """Read a JSON-lines log, skipping a line torn by a crash."""
    try:
        return _parse(path.read_bytes())
    except FileNotFoundError:
        return []


def _parse(raw: bytes) -> list[dict[str, Any]]:
    entries = []
    for line in raw.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def last_line(path: Path, *, window: int = 65536) -> dict[str, Any] | None:
    """The last whole entry of a JSON-lines log; a line torn by a crash is skipped."""
    last = tail_lines(path, 1, window=window)
    return last[0] if last else None


def tail_lines(
    path: Path,
    count: int,
    keep: Callable[[dict[str, Any]], bool] | None = None,
    *,
    window: int = 65536,
) -> list[dict[str, Any]]:
    """The last `count` whole entries of a JSON-lines log (those `keep` accepts), oldest first, read from its
    end so that a long log costs no more than a short one; lines torn by a crash are skipped."""
    found: list[dict[str, Any]] = []
    try:
        with open(path, "rb") as handle:
            end = handle.seek(0, os.SEEK_END)
            while True:
                start = max(0, end - window)
                handle.seek(start)
                lines = handle.read(end - start).splitlines()
                if start:  # the first may be cut by the window: it is read whole with the next one
                    end = start + len(lines[0])
                    lines = lines[1:]
                else:
                    end = 0
                for line in reversed(lines):
                    try:
                        entry = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(entry, dict) and (keep is None or keep(entry)):
                        found.append(entry)
                        if len(found) == count:
                            return found[::-1]
                if not end:
                    return found[::-1]
                window *= 4
    except FileNotFoundError:
        return []
