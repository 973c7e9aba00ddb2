"""The snapshot store: every version of every source, raw and normalized, hash-chained and verifiable.

Layout (see docs/how-it-works.md, "The store"):

    snapshots/
      STORE                          format marker
      .lock                          held while a process writes
      blobs/ab/<sha256>.gz           raw bodies, gzip, named by the hash of the uncompressed bytes
      sources/<document>/<source>/
        versions/000001.json         version record: fetch facts, hashes, link to the previous record
        versions/000001.md           normalized Markdown (plain text, readable by grep and git diff)
        head.json                    number and hash of the newest version (catches a lost tail)
        fetches.jsonl                append-only log of every fetch attempt (the latest, up to 1 MiB)
        fetches/000001.jsonl.gz      the earlier ones, compressed a MiB at a time
        state.json                   conditional-GET validators, failure counts, pending anomalies
        renormalized/000001.n2.md    forms written later by newer normalizers; never replacing the old
        renormalized/log.jsonl       each form written, and each version a newer normalizer could not read
      robots/<origin>.json           robots.txt answers kept a day between runs (a cache, not the record)

A record is written last, atomically, so a killed process leaves either a whole version or none.
"""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import hashlib
import json
import os
import re
import stat
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from differ.errors import StoreConflict, StoreDamage, StoreError
from differ.files import RollingLog, append_line, atomic_write, lock_within, read_lines, temp_file
from differ.shapes import FETCH_FIELDS, STATE_FIELDS, damage, fields_kept, json_object, record_problem

if TYPE_CHECKING:
    from differ.fetch.robots import KeptFiles
    from differ.verify import VerifyReport

FORMAT = "differ.store/1"
RECORD_SCHEMA = "differ.version/1"
_SAFE_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
VERSION_FILE = re.compile(r"^(\d{6,})\.json$")
FORM_FILE = re.compile(r"^(\d{6,})\.n(\d+)\.md$")
# A folder's listing is kept only if the folder had not changed for this long before it was listed: its
# modification time may not move for a change made within the same tick (a second, on some file systems).
SETTLED_NS = 2_000_000_000
# a source's fetch log past this size is compressed into fetches/NNNNNN.jsonl.gz: about 2,800 checks, two
# months at the default interval
FETCH_LOG_LIMIT = 1 << 20


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_json(value: Any) -> bytes:
    """The bytes that are hashed: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def record_hash(record: dict[str, Any]) -> str:
    return sha256(canonical_json({k: v for k, v in record.items() if k != "hash"}))


def report_url(base_url: str, key: str, number: int) -> str:
    """Where the HTML diff that made version `number` of `key` is read once `reports/` is published at
    `base_url` (the layout `Store.report_path` writes)."""
    return f"{base_url.rstrip('/')}/{key}/diff-{number}.html"


@dataclass
class Version:
    """One stored version of a source, as its record describes it."""

    source: str
    number: int
    record: dict[str, Any]
    folder: Path

    @property
    def fetched_at(self) -> str:
        return str(self.record["fetched_at"])

    @property
    def fetched_time(self) -> datetime:
        return datetime.fromisoformat(self.fetched_at.replace("Z", "+00:00"))

    @property
    def hash(self) -> str:
        return str(self.record["hash"])

    @property
    def raw_sha256(self) -> str:
        return str(self.record["raw_sha256"])

    @property
    def metadata(self) -> dict[str, Any]:
        return dict(self.record.get("metadata") or {})

    @property
    def markdown_path(self) -> Path:
        return self.folder / f"{self.number:06d}.md"

    @property
    def record_path(self) -> Path:
        return self.folder / f"{self.number:06d}.json"


def _unusable(root: Path, exc: OSError | ValueError) -> str:
    return f"{root}: cannot hold the store ({damage(exc)}); choose another snapshots folder"


def _usable(root: Path) -> None:
    """Refuse at once a store folder that is a file, or that the system cannot reach (a file on the way, a name
    too long): each would fail later inside whatever read or wrote it first. A folder not made yet is fine."""
    try:
        info = os.stat(root)
    except FileNotFoundError:
        return
    except (OSError, ValueError) as exc:
        raise StoreError(_unusable(root, exc)) from exc
    if not stat.S_ISDIR(info.st_mode):
        raise StoreError(f"{root}: a file, not a folder; snapshots must name a folder")


class Store:
    """A folder of snapshots. Readers need no lock; writers hold `writing()`."""

    def __init__(self, root: Path, *, lock_timeout: float = 60.0):
        self.root = Path(root)
        _usable(self.root)
        self.lock_timeout = lock_timeout
        self._thread_lock = threading.RLock()
        self._lock_fd: int | None = None
        self._depth = 0
        self._dirs: dict[str, Path] = {}
        self._forms: dict[Path, tuple[int, dict[int, dict[int, Path]]]] = {}
        self._once = threading.local()  # `reading_once`: what this thread read, while it lasts
        self.fetch_log_limit = FETCH_LOG_LIMIT

    # -- layout -----------------------------------------------------------------------------------------
    def source_dir(self, key: str) -> Path:
        """The folder of `DOCUMENT/SOURCE`; refuses any name that could leave the store (checked once a key)."""
        known = self._dirs.get(key)
        if known is not None:
            return known
        parts = key.split("/")
        if len(parts) != 2 or not all(_SAFE_PART.match(p) for p in parts):
            raise StoreError(
                f'"{key[:80]}" is not a valid source name; expected DOCUMENT/SOURCE made of '
                "letters, digits, '-' and '_'"
            )
        sources = self.root / "sources"
        path = sources / parts[0] / parts[1]
        if any(p.is_symlink() for p in (sources, path.parent, path)):  # the name itself cannot leave it
            raise StoreError(f'"{key}" would be stored outside {self.root}')
        self._dirs[key] = path
        return path

    def blob_path(self, digest: str) -> Path:
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise StoreError(f"{digest[:80]!r} is not a SHA-256 hex digest")
        return self.root / "blobs" / digest[:2] / f"{digest}.gz"

    def ensure(self) -> None:
        """Create the store's folder and marker if missing; refuse a folder that is something else."""
        marker = self.root / "STORE"
        if marker.exists():
            try:
                fmt = json_object(marker).get("format")
            except (ValueError, OSError):
                raise StoreError(f"{marker}: unreadable store marker")
            if fmt != FORMAT:
                raise StoreError(f"{self.root}: store format {fmt!r} is not {FORMAT!r}")
            return
        if not self.unused():
            raise StoreError(
                f"{self.root}: folder exists and is not a differ store; choose another --snapshots folder"
            )
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write(marker, canonical_json({"format": FORMAT}) + b"\n")

    def unused(self) -> bool:
        """Whether the folder holds nothing of anyone's: missing, empty, or only a README, the lock, and the
        temporary file of a marker whose writer was killed before it was in place."""
        return not self.root.exists() or all(
            p.name in ("README.md", ".gitkeep") or p.name.startswith(".") for p in self.root.iterdir()
        )

    # -- locking ----------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the store for writing: one thread of this process, and one process, at a time."""
        with self._thread_lock:
            if self._depth == 0:
                # first the lock, so two processes never both create the store
                try:
                    self.root.mkdir(parents=True, exist_ok=True)
                    self._lock_fd = self._acquire()
                except OSError as exc:
                    raise StoreError(_unusable(self.root, exc)) from exc
                try:
                    self.ensure()
                except BaseException:
                    fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
                    os.close(self._lock_fd)
                    self._lock_fd = None
                    raise
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and self._lock_fd is not None:
                    fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
                    os.close(self._lock_fd)
                    self._lock_fd = None

    def _acquire(self) -> int:
        path = self.root / ".lock"
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        if not lock_within(fd, self.lock_timeout):
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "another process"
            os.close(fd)
            raise StoreError(
                f"{self.root} is being written by process {holder}; gave up after "
                f"{self.lock_timeout:g}s (stop that process or use another --snapshots)"
            )
        os.pwrite(
            fd, f"{os.getpid():<20}".encode(), 0
        )  # fixed width: overwrites, no truncate (a journal write)
        return fd

    # -- blobs ------------------------------------------------------------------------------------------
    def put_blob(self, data: bytes) -> str:
        digest = sha256(data)
        path = self.blob_path(digest)
        if not path.exists():
            atomic_write(path, gzip.compress(data, compresslevel=6, mtime=0))
        return digest

    def get_blob(self, digest: str) -> bytes:
        try:
            return gzip.decompress(self.blob_path(digest).read_bytes())
        except FileNotFoundError:
            raise StoreDamage(f"raw body {digest[:12]} is missing from {self.root / 'blobs'}")
        except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
            raise StoreDamage(f"raw body {digest[:12]} is damaged: {exc}")

    # -- versions ---------------------------------------------------------------------------------------
    def versions(self, key: str) -> list[Version]:
        """Every committed version of a source, oldest first."""
        folder = self.source_dir(key) / "versions"
        if not folder.is_dir():
            return []
        found = []
        for entry in folder.iterdir():
            m = VERSION_FILE.match(entry.name)
            if m:
                found.append(int(m.group(1)))
        return [self.version(key, n) for n in sorted(found)]

    @contextlib.contextmanager
    def reading_once(self) -> Iterator[None]:
        """Within it, this thread reads each version and each source's latest version once: for one who reads
        every source's newest record more than once (the reports index and the site-wide feed, written
        together) and holds the store's lock meanwhile, so that nothing read can change."""
        self._once.read = {}
        try:
            yield
        finally:
            self._once.read = None

    def _read_once(self, what: tuple[str, int | None], read: Callable[[], Any]) -> Any:
        """`read()`, or within `reading_once` what it gave (or raised) the first time."""
        memo: dict[tuple[str, int | None], Any] | None = getattr(self._once, "read", None)
        if memo is None:
            return read()
        if what not in memo:
            try:
                memo[what] = read()
            except StoreError as exc:
                memo[what] = exc
        found = memo[what]
        if isinstance(found, StoreError):
            raise found
        return found

    def version(self, key: str, number: int) -> Version:
        return cast(Version, self._read_once((key, number), lambda: self._version(key, number)))

    def _version(self, key: str, number: int) -> Version:
        folder = self.source_dir(key) / "versions"
        path = folder / f"{number:06d}.json"
        try:
            record = json_object(path)
        except FileNotFoundError:
            have = [v.number for v in self.versions(key)] if folder.is_dir() else []
            known = f"versions {have[0]} to {have[-1]}" if have else "no versions yet"
            gap = bool(have) and 0 < number < have[-1]  # one missing below the newest is damage
            if gap:
                raise StoreDamage(f"{key} has no version {number} ({known})", key)
            raise StoreError(f"{key} has no version {number} ({known})")
        except (OSError, ValueError) as exc:
            problem: str | None = damage(exc)
        else:
            problem = record_problem(record)
        if problem:
            raise StoreDamage(
                f"{path}: damaged version record ({problem}); differ verify tells what else is damaged", key
            )
        return Version(key, number, record, folder)

    def latest(self, key: str) -> Version | None:
        """The newest version, found from the head (one or two reads) rather than by reading every record."""
        return cast("Version | None", self._read_once((key, None), lambda: self._latest(key)))

    def _latest(self, key: str) -> Version | None:
        number = self.latest_number(key)
        return self.version(key, number) if number else None

    def latest_number(self, key: str) -> int:
        """The newest version's number (0 for none) without reading its record."""
        head = self.head(key)
        folder = self.source_dir(key) / "versions"
        number = int(head["number"]) if head else 0
        if number and (folder / f"{number:06d}.json").exists():
            while (folder / f"{number + 1:06d}.json").exists():  # the head lags one behind after a crash
                number += 1
            return number
        versions = self.versions(key)  # no usable head: scan
        if versions:
            return versions[-1].number
        if head:
            raise StoreDamage(f"{key}: head names version {head['number']} but no versions are stored", key)
        return 0

    def version_at(self, key: str, moment: datetime) -> Version | None:
        """The version current at `moment`: the newest fetched at or before it, found by bisection (versions
        are numbered in the order they were fetched); None when the first came later."""
        latest = self.latest(key)
        if latest is None or latest.fetched_time <= moment:
            return latest
        found, lo, hi = None, 1, latest.number - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            v = self.version(key, mid)
            if v.fetched_time <= moment:
                found, lo = v, mid + 1
            else:
                hi = mid - 1
        return found

    def head(self, key: str) -> dict[str, Any] | None:
        try:
            head = json_object(self.source_dir(key) / "head.json")
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise StoreDamage(f"{key}: head.json is damaged ({damage(exc)})", key)
        number, digest = head.get("number"), head.get("hash")
        if type(number) is not int or number < 0 or not isinstance(digest, str):
            raise StoreDamage(f"{key}: head.json is damaged (expected a version's number and hash)", key)
        return head

    def markdown(self, version: Version, normalizer: int | None = None) -> str:
        """The normalized Markdown of a version: the newest form, or the one made by `normalizer`."""
        forms = self.normalized_forms(version)
        chosen = max(forms) if normalizer is None else normalizer
        if chosen not in forms:
            raise StoreError(
                f"{version.source} version {version.number} has no normalizer {chosen} form "
                f"(has {', '.join(map(str, sorted(forms)))})"
            )
        try:
            return forms[chosen].read_bytes().decode("utf-8")  # exactly as written: no newline translation
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
            raise StoreDamage(
                f"{version.source} version {version.number}: its Markdown cannot be read ({why}); "
                "differ verify tells what else is damaged",
                version.source,
            )

    def normalized_forms(self, version: Version) -> dict[int, Path]:
        forms = {int(version.record.get("normalizer", 0)): version.markdown_path}
        forms.update(self._later_forms(version.folder.parent / "renormalized").get(version.number, {}))
        return forms

    def _later_forms(self, folder: Path) -> dict[int, dict[int, Path]]:
        """The forms in a source's `renormalized/` folder, by version and normalizer: listed once and kept while
        the folder is unchanged (looked for a version at a time, the whole folder was listed for each, and
        reading 3,000 renormalized versions took 4 s, growing with the square)."""
        try:
            changed = folder.stat().st_mtime_ns
        except FileNotFoundError:
            return {}
        kept = self._forms.get(folder)
        if kept is not None and kept[0] == changed:
            return kept[1]
        listed_at = time.time_ns()
        found: dict[int, dict[int, Path]] = {}
        with os.scandir(folder) as entries:
            for entry in entries:
                m = FORM_FILE.match(entry.name)
                if m and m.group(1) == f"{int(m.group(1)):06d}":
                    found.setdefault(int(m.group(1)), {})[int(m.group(2))] = folder / entry.name
        if changed < listed_at - SETTLED_NS:
            self._forms[folder] = (changed, found)
        return found

    def commit(
        self,
        key: str,
        *,
        raw: bytes,
        markdown: str,
        record: dict[str, Any],
        after: str | Literal[False] | None = False,
    ) -> Version:
        """Store a new version: the raw body and the Markdown first, the record (the commit point) last, then
        the head. The body and the Markdown are written and made durable before the store's lock is taken (the
        body is named by its hash; the Markdown waits under a temporary name), so threads storing versions at
        once do not queue behind one another's fsyncs; under the lock the version gets its number, the
        Markdown its name, and the record and head are written. With `after` (a version's hash, or None for
        none), the version is stored only if it still follows that one: another process that stored a version
        of the same source meanwhile makes it a StoreError, not a version out of its place."""
        if not (self.root / "STORE").exists():
            with self.writing():  # creates the store under the lock
                pass
        folder = self.source_dir(key) / "versions"
        folder.mkdir(parents=True, exist_ok=True)
        raw_sha = self.put_blob(raw)
        md_bytes = markdown.encode("utf-8")
        pending = temp_file(folder, ".new.", md_bytes)
        try:
            with self.writing():
                previous = self.latest(key)
                if after is not False and (previous.hash if previous else None) != after:
                    raise StoreConflict(
                        f"{key}: version {previous.number if previous else 0} was stored meanwhile by another "
                        "process; nothing stored"
                    )
                number = previous.number + 1 if previous else 1
                os.replace(pending, folder / f"{number:06d}.md")  # made durable with the record's folder
                full = {
                    **record,
                    "schema": RECORD_SCHEMA,
                    "source": key,
                    "number": number,
                    "raw_sha256": raw_sha,
                    "raw_bytes": len(raw),
                    "markdown_sha256": sha256(md_bytes),
                    "prev": previous.hash if previous else None,
                }
                full["hash"] = record_hash(full)
                atomic_write(folder / f"{number:06d}.json", canonical_json(full) + b"\n")
                atomic_write(
                    self.source_dir(key) / "head.json",
                    canonical_json({"number": number, "hash": full["hash"]}) + b"\n",
                )
                return Version(key, number, full, folder)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(pending)

    def report_path(self, key: str, number: int) -> Path:
        """Where the HTML diff that made `number` is kept: `reports/DOCUMENT/SOURCE/diff-N.html`, so that
        `base_url` + `/DOCUMENT/SOURCE/diff-N.html` works once the folder is published."""
        document, source = key.split("/")
        self.source_dir(key)  # validates the name
        return self.root / "reports" / document / source / f"diff-{number}.html"

    def blame_path(self, key: str) -> Path:
        """Where the page of the source's latest version with each passage's last edit is kept, beside its diff
        pages (`reports/DOCUMENT/SOURCE/blame.html`, what it knew in `blame.json` next to it)."""
        return self.report_path(key, 1).with_name("blame.html")

    def write_report(self, key: str, number: int, html: str) -> Path:
        """Written without the store's lock: only the writer that stored version `number` writes its report."""
        path = self.report_path(key, number)
        atomic_write(path, html.encode("utf-8"))
        return path

    def add_normalized(self, version: Version, normalizer: int, markdown: str) -> Path:
        """Keep a form made by a newer normalizer beside the old one (history is never rewritten)."""
        with self.writing():
            folder = version.folder.parent / "renormalized"
            path = folder / f"{version.number:06d}.n{normalizer}.md"
            atomic_write(path, markdown.encode("utf-8"))
            self._forms.pop(folder, None)
            append_line(
                folder / "log.jsonl",
                {
                    "version": version.number,
                    "normalizer": normalizer,
                    "markdown_sha256": sha256(markdown.encode("utf-8")),
                    "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                },
            )
            return path

    def kept_as_read(self, version: Version, normalizer: int, why: str) -> None:
        """Note that `normalizer` could not read a version again (`differ renormalize`), so that it is not
        named again as a version waiting to be read by it."""
        with self.writing():
            append_line(
                version.folder.parent / "renormalized" / "log.jsonl",
                {"version": version.number, "normalizer": normalizer, "kept": why},
            )

    def read_by_older(self, key: str, normalizer: int) -> bool:
        """Whether a source's first version is as an older normalizer read it and `normalizer` has not tried to
        read it again: its history has versions `differ renormalize` would read again."""
        if not self.latest_number(key):
            return False
        first = self.version(key, 1)
        if normalizer in self.normalized_forms(first):
            return False
        log = read_lines(first.folder.parent / "renormalized" / "log.jsonl")
        return not any(e.get("version") == 1 and e.get("normalizer") == normalizer for e in log)

    # -- captures by a web archive ----------------------------------------------------------------------
    def record_capture(self, key: str, number: int, capture: str, at: str) -> None:
        """Note that a web archive holds a capture of a source's version (made at differ's request), beside the
        record: a copy of it that a third party keeps."""
        append_line(self.captures_path(key), {"version": number, "capture": capture, "at": at})

    def captures(self, key: str) -> dict[int, str]:
        """Each version's capture in a web archive, where one was made (a line that does not read left out)."""
        try:
            text = self.captures_path(key).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return {}
        found: dict[int, str] = {}
        for line in text.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if (
                isinstance(entry, dict)
                and isinstance(entry.get("version"), int)
                and isinstance(entry.get("capture"), str)
            ):
                found.setdefault(entry["version"], entry["capture"])
        return found

    def captures_path(self, key: str) -> Path:
        return self.source_dir(key) / "captures.jsonl"

    # -- fetch log and state ----------------------------------------------------------------------------
    # A source's fetch log and state are written only by the one thread checking it, each write whole on its own
    # (an appended line, a renamed file), so they need no store lock, whose holder's fsyncs every other thread
    # would wait for.
    def log_fetch(self, key: str, entry: dict[str, Any]) -> None:
        """Log a check. One that found nothing new is not waited for on disk: its line is all such a check
        writes, and a power cut that loses it loses no version, state or alert (the page is checked again)."""
        self._fetch_log(key).append(entry, durable=entry.get("outcome") != "unchanged")

    def fetches(self, key: str) -> list[dict[str, Any]]:
        """Every entry of the fetch log, oldest first."""
        return [fields_kept(entry, FETCH_FIELDS) for entry in self._fetch_log(key).read()]

    def last_fetch(self, key: str) -> dict[str, Any] | None:
        """The fetch log's latest entry: when the source was last checked, and how it went."""
        last = self.recent_fetches(key, 1)
        return last[0] if last else None

    def recent_fetches(
        self, key: str, count: int, keep: Callable[[dict[str, Any]], bool] | None = None
    ) -> list[dict[str, Any]]:
        """The fetch log's last `count` entries (those `keep` accepts), oldest first."""
        chosen = None if keep is None else (lambda entry: keep(fields_kept(entry, FETCH_FIELDS)))
        return [fields_kept(entry, FETCH_FIELDS) for entry in self._fetch_log(key).tail(count, chosen)]

    def _fetch_log(self, key: str) -> RollingLog:
        return RollingLog(self.source_dir(key) / "fetches.jsonl", self.fetch_log_limit)

    def robots_files(self) -> KeptFiles:
        """Where the fetcher keeps robots.txt answers between runs."""
        from differ.fetch.robots import KeptFiles

        return KeptFiles(self.root / "robots")

    def state(self, key: str) -> dict[str, Any]:
        try:
            return fields_kept(json_object(self.source_dir(key) / "state.json"), STATE_FIELDS)
        except (OSError, ValueError):  # validators and counts, not the record: read again from nothing
            return {}

    def save_state(self, key: str, state: dict[str, Any]) -> None:
        atomic_write(self.source_dir(key) / "state.json", canonical_json(state) + b"\n")

    def latest_records(self, skip: Iterable[str] = ()) -> list[dict[str, Any]]:
        """The newest version record of every source in the store (but those in `skip`): what a store read
        without its configuration knows of each source (its URL, kind, role and document title)."""
        left_out = set(skip)
        return [
            v.record
            for key in self.source_keys()
            if key not in left_out and (v := self.latest(key)) is not None
        ]

    def source_keys(self) -> list[str]:
        base = self.root / "sources"
        if not base.is_dir():
            return []
        return sorted(
            f"{d.name}/{s.name}"
            for d in base.iterdir()
            if d.is_dir()
            for s in d.iterdir()
            if s.is_dir() and _SAFE_PART.match(s.name)
        )

    # -- verification -----------------------------------------------------------------------------------
    def verify(self) -> VerifyReport:
        """Re-hash everything: records, chain, Markdown and raw bodies; report what is altered or missing."""
        from differ.verify import verify

        return verify(self)
