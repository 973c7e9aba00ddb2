"""`differ export`: the store's versions as a git history, one commit a version in the order they were fetched,
each source's normalized Markdown at `DOCUMENT/SOURCE.md`, dated when it was fetched and tied to its record by
trailers (`Differ-Hash`). Every commit is made from the store alone, so exporting again gives the same commits
and adds the new ones after them: the branch moves on as a fast-forward, and `git log -p`, blame and any git
host show the edits of a post. Written with `git fast-import`, without touching a checked-out tree. With the
bodies and records in it (`--raw`), `verify_git` checks such a history from git alone."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from differ.errors import DifferError, StoreError, UsageError
from differ.options import cut
from differ.site import describe
from differ.store import Store, Version

IDENTITY = b"differ <differ@localhost>"
SUBJECT = 72  # a commit's first line, as git's tools show it whole


class ExportError(DifferError):
    """The history could not be written: git missing, or failing."""


@dataclass(frozen=True)
class Exported:
    """What an export wrote: how many versions of how many sources, the branch's tip now, and how many of its
    commits are new (`None` when the branch was rewritten: its old tip is not among them)."""

    versions: int
    sources: int
    branch: str
    tip: str | None
    created: bool
    new: int | None = 0


def source_keys(store: Store, names: list[str]) -> list[str]:
    """The store's sources named (`DOCUMENT/SOURCE`, or `DOCUMENT` for all of its), every one when none is."""
    known = store.source_keys()
    if not names:
        return known
    keys: list[str] = []
    for name in names:
        found = [k for k in known if k == name or ("/" not in name and k.startswith(name + "/"))]
        if not found:
            raise UsageError(f"the store holds no source {name!r}; it holds {', '.join(known) or 'none'}")
        keys += [k for k in found if k not in keys]
    return keys


def export_git(
    store: Store, repo: Path, keys: list[str], branch: str = "differ", *, raw: bool = False
) -> Exported:
    """Write every version of `keys` to `branch` of the git repository at `repo` (made when missing); with
    `raw`, each commit carries the body as fetched and the version's record too, so the history is evidence
    on its own: the record hashes into the chain and names the body's SHA-256."""
    git = shutil.which("git")
    if git is None:
        raise ExportError("git is not installed; differ export writes a git repository and needs it")
    versions = sorted(
        (v for key in keys for v in store.versions(key)), key=lambda v: (v.fetched_at, v.source, v.number)
    )
    if not versions:
        return Exported(0, 0, branch, None, False)
    created = _repository(git, repo)
    # `git init` and nothing since: no branch, no file
    fresh = created or ({p.name for p in repo.iterdir()} == {".git"} and not _git(git, repo, "for-each-ref"))
    ref = f"refs/heads/{branch}"
    if _git(git, repo, "check-ref-format", ref, check=False) is None:
        raise UsageError(f"--branch: {branch!r} is not a name git takes for a branch")
    checked_out = _git(git, repo, "symbolic-ref", "--quiet", "HEAD", check=False) == ref + "\n"
    if checked_out and _git(git, repo, "status", "--porcelain", "--untracked-files=no"):
        raise UsageError(
            f"{repo}: branch {branch} is checked out with changes not committed; commit or discard them, "
            "or export to another --branch"
        )
    before = (_git(git, repo, "rev-parse", "--verify", "--quiet", ref, check=False) or "").strip()
    _import(git, repo, branch, store, versions, raw)
    if fresh:  # a repository with nothing in it yet shows the branch's files
        _git(git, repo, "symbolic-ref", "HEAD", ref)
    if fresh or checked_out:  # a clean tree on the branch follows it
        _git(git, repo, "reset", "--quiet", "--hard")
    tip = (_git(git, repo, "rev-parse", "--verify", "--quiet", ref, check=False) or "").strip() or None
    new: int | None = len(versions)
    if before and _git(git, repo, "merge-base", "--is-ancestor", before, ref, check=False) is not None:
        new = int(_git(git, repo, "rev-list", "--count", f"{before}..{ref}") or 0)
    elif before:
        new = None  # the store was changed under its old versions (renormalized, or repaired)
    return Exported(len(versions), len({v.source for v in versions}), branch, tip, created, new)


def _repository(git: str, repo: Path) -> bool:
    """Make `repo` a git repository when it is missing or an empty folder; True when it was made."""
    if repo.exists() and not repo.is_dir():
        raise UsageError(f"{repo}: not a folder")
    if repo.is_dir() and any(repo.iterdir()):
        inside = (_git(git, repo, "rev-parse", "--show-toplevel", check=False) or "").strip()
        if not inside or Path(inside).resolve() != repo.resolve():
            raise UsageError(
                f"{repo}: a folder that is not a git repository's top; give a new or empty folder"
            )
        return False
    repo.mkdir(parents=True, exist_ok=True)
    _git(git, repo, "init", "--quiet")
    return True


def _import(git: str, repo: Path, branch: str, store: Store, versions: list[Version], raw: bool) -> None:
    command = [git, "-C", str(repo), "fast-import", "--quiet", "--force", "--date-format=raw"]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdin is not None and proc.stderr is not None
        try:
            _stream(proc.stdin, branch, store, versions, raw)
            proc.stdin.close()
        except BrokenPipeError:
            pass
        error = proc.stderr.read().decode("utf-8", "replace").strip()
        if proc.wait() != 0:
            raise ExportError(f"git fast-import failed: {error.splitlines()[-1] if error else 'no message'}")


def _stream(out: IO[bytes], branch: str, store: Store, versions: list[Version], raw: bool) -> None:
    """fast-import's input: the branch started anew, then a commit a version (the same commits every time).
    `feature done` makes an input cut short (a version that cannot be read) change no branch at all."""
    ref = f"refs/heads/{branch}".encode()
    out.write(b"feature done\nreset " + ref + b"\n\n")
    for v in versions:
        moment = int(v.fetched_time.timestamp())
        message = _message(v).encode("utf-8")
        content = store.markdown(v).encode("utf-8")
        out.write(b"commit " + ref + b"\n")
        out.write(b"committer " + IDENTITY + f" {moment} +0000\n".encode())
        out.write(f"data {len(message)}\n".encode() + message + b"\n")
        files = [(f"{v.source}.md", content)]
        if raw:
            files.append((f"{v.source}.raw.{_extension_of(v.record)}", store.get_blob(v.raw_sha256)))
            files.append((f"{v.source}.version.json", _record_bytes(v)))
        for path, data in files:
            out.write(f"M 100644 inline {path}\n".encode())
            out.write(f"data {len(data)}\n".encode() + data + b"\n")
        out.write(b"\n")
    out.write(b"done\n")


_EXTENSIONS = {
    "html": "html",
    "xhtml": "html",
    "json": "json",
    "markdown": "md",
    "plain": "txt",
    "xml": "xml",
}


def _extension_of(record: dict[str, object]) -> str:
    """The raw body's file extension, from the type the server gave it."""
    headers = record.get("headers")
    media = (
        str(headers.get("content-type", "") if isinstance(headers, dict) else "")
        .split(";")[0]
        .strip()
        .lower()
    )
    return _EXTENSIONS.get(media.rsplit("/", 1)[-1].rsplit("+", 1)[-1], "bin")


def _record_bytes(v: Version) -> bytes:
    """The version's record as stored, byte for byte (what its hash and the next record's `prev` are of)."""
    try:
        return v.record_path.read_bytes()
    except OSError as exc:
        raise StoreError(f"{v.source} version {v.number}: its record cannot be read ({exc.strerror})")


def _message(v: Version) -> str:
    """The first line as `differ history` says it, the summary, and the record's provenance as trailers."""
    summary = [str(line) for line in v.record.get("summary") or []][1:]
    body = "\n".join(summary)
    trailers = [
        f"Differ-Source: {v.source}",
        f"Differ-Version: {v.number}",
        f"Differ-Hash: {v.hash}",
        f"Fetched-At: {v.fetched_at}",
        f"Url: {v.record.get('final_url') or v.record.get('url', '')}",
        f"Raw-Sha256: {v.raw_sha256}",
    ]
    capture = (v.record.get("archive") or {}).get("capture")
    if capture:  # a version `differ backfill` read from a web archive: where its bytes came from
        trailers.append(f"Archived-At: {capture}")
    subject = f"{v.source}: version {v.number}, {describe(v)}"
    subject = cut(subject, SUBJECT)
    return f"{subject}\n\n" + (f"{body}\n\n" if body else "") + "\n".join(trailers) + "\n"


def _git(git: str, repo: Path, *args: str, check: bool = True) -> str | None:
    """git's output; None when it fails and `check` is false, ExportError with its last line when true."""
    done = subprocess.run([git, "-C", str(repo), *args], capture_output=True, text=True)
    if done.returncode != 0:
        if not check:
            return None
        lines = done.stderr.strip().splitlines()
        raise ExportError(f"git {args[0]} failed: {lines[-1] if lines else 'no message'}")
    return done.stdout


@dataclass
class Checked:
    """What `verify_git` found in an exported history: damage, and how much it could check."""

    problems: list[str]
    commits: int
    records: int


class _Objects:
    """Files of any commit, read through one `git cat-file --batch` process."""

    def __init__(self, git: str, repo: Path) -> None:
        self.proc = subprocess.Popen(
            [git, "-C", str(repo), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def read(self, commit: str, path: str) -> bytes | None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{commit}:{path}\n".encode())
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) != 3:  # "<name> missing"
            return None
        data = self.proc.stdout.read(int(header[2]))
        self.proc.stdout.read(1)  # the newline after the content
        return data

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


def verify_git(repo: Path, branch: str = "differ") -> Checked:
    """Check a history `differ export --raw` wrote, from git alone: each record hashes to its `Differ-Hash`,
    names the previous record of its source and the SHA-256 of the body beside it; versions follow one another."""
    from differ.store import record_hash, sha256

    git = shutil.which("git")
    if git is None:
        raise ExportError("git is not installed; checking an exported history needs it")
    if not repo.is_dir():
        raise UsageError(f"{repo}: no such folder")
    log = _git(
        git, repo, "log", "--reverse", "--format=%H%x00%(trailers:only,unfold)%x01", branch, "--", check=False
    )
    if log is None:
        raise UsageError(f"{repo}: no branch {branch} (differ export writes it; --branch names another)")
    problems: list[str] = []
    last: dict[str, tuple[int, str | None]] = {}  # source → (version, record hash)
    commits = records = 0
    objects = _Objects(git, repo)
    try:
        for entry in log.split("\x01"):
            if not entry.strip():
                continue
            commit, _, text = entry.strip().partition("\x00")
            trailers = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
            source, number = trailers.get("Differ-Source"), trailers.get("Differ-Version", "")
            if not source or not number.isdecimal():
                problems.append(f"commit {commit[:12]}: not a version exported by differ (no Differ-Source)")
                continue
            commits += 1
            where = f"{source} version {number} (commit {commit[:12]})"
            before, prev_hash = last.get(source, (0, None))
            if int(number) != before + 1:
                problems.append(f"{where}: follows version {before}")
            raw_record = objects.read(commit, f"{source}.version.json")
            if raw_record is None:
                last[source] = (int(number), trailers.get("Differ-Hash"))
                continue
            records += 1
            try:
                record = json.loads(raw_record)
            except ValueError:
                problems.append(f"{where}: its record is not JSON")
                continue
            if record_hash(record) != record.get("hash") or record.get("hash") != trailers.get("Differ-Hash"):
                problems.append(
                    f"{where}: its record does not hash to {trailers.get('Differ-Hash', '?')[:12]}"
                )
            if int(number) > 1 and prev_hash is not None and record.get("prev") != prev_hash:
                problems.append(f"{where}: its record does not name version {before}'s as the one before it")
            body = objects.read(commit, f"{source}.raw.{_extension_of(record)}")
            if body is None or sha256(body) != record.get("raw_sha256"):
                problems.append(f"{where}: the body beside it is not the one its record names")
            last[source] = (int(number), record.get("hash"))
    finally:
        objects.close()
    return Checked(problems, commits, records)
