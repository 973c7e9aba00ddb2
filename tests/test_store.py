"""The store: round trips, hash chain verification, crash consistency under SIGKILL, two writers, hostile names."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from differ.errors import StoreDamage, StoreError
from differ.files import append_line, last_line, open_appending, read_lines, tail_lines
from differ.store import Store, sha256


def commit(store: Store, key: str, raw: bytes, md: str, **extra: object) -> int:
    return store.commit(
        key, raw=raw, markdown=md, record={"fetched_at": "2026-07-08T17:45:00Z", **extra}
    ).number


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(bodies=st.lists(st.tuples(st.binary(max_size=2000), st.text(max_size=500)), min_size=1, max_size=6))
def test_round_trip(tmp_path_factory: pytest.TempPathFactory, bodies: list[tuple[bytes, str]]) -> None:
    store = Store(tmp_path_factory.mktemp("store"))
    for raw, md in bodies:
        commit(store, "doc/src", raw, md)
    versions = store.versions("doc/src")
    assert [v.number for v in versions] == list(range(1, len(bodies) + 1))
    for v, (raw, md) in zip(versions, bodies, strict=True):
        assert store.get_blob(v.raw_sha256) == raw
        assert store.markdown(v) == md
    assert store.verify().ok


def test_identical_bodies_are_stored_once(tmp_path: Path) -> None:
    store = Store(tmp_path)
    commit(store, "doc/a", b"same body", "x")
    commit(store, "doc/b", b"same body", "y")
    assert len(list((tmp_path / "blobs").rglob("*.gz"))) == 1


def test_versions_are_chained(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for i in range(3):
        commit(store, "doc/src", f"body {i}".encode(), f"md {i}")
    v = store.versions("doc/src")
    assert v[0].record["prev"] is None
    assert v[1].record["prev"] == v[0].hash
    assert v[2].record["prev"] == v[1].hash


def _store_with_three(tmp_path: Path) -> Store:
    store = Store(tmp_path)
    for i in range(3):
        commit(store, "doc/src", f"body {i}".encode(), f"md {i}\n")
    return store


def test_verify_detects_altered_record(tmp_path: Path) -> None:
    store = _store_with_three(tmp_path)
    path = tmp_path / "sources/doc/src/versions/000002.json"
    record = json.loads(path.read_text())
    record["fetched_at"] = "2020-01-01T00:00:00Z"
    path.write_text(json.dumps(record))
    assert store.verify().problems == [
        "doc/src version 2: record was altered (hash does not match its content)"
    ]


def test_verify_detects_altered_markdown_and_raw(tmp_path: Path) -> None:
    store = _store_with_three(tmp_path)
    (tmp_path / "sources/doc/src/versions/000001.md").write_text("forged\n")
    blob = store.blob_path(store.versions("doc/src")[2].raw_sha256)
    import gzip

    blob.write_bytes(gzip.compress(b"forged"))
    problems = store.verify().problems
    assert problems[0] == "doc/src version 1: normalized Markdown was altered"
    assert problems[1].startswith("doc/src version 3: raw body ") and problems[1].endswith(" was altered")


def test_verify_detects_missing_and_reordered_versions(tmp_path: Path) -> None:
    store = _store_with_three(tmp_path)
    folder = tmp_path / "sources/doc/src/versions"
    (folder / "000002.json").unlink()
    assert store.verify().problems == [
        "doc/src: version 2 is missing (next found is 3)",
        "doc/src version 3: chain broken (does not follow version 2)",
    ]
    store2 = _store_with_three(tmp_path / "b")
    folder2 = tmp_path / "b/sources/doc/src/versions"
    os.replace(folder2 / "000003.json", folder2 / "000004.json")
    (folder2 / "000001.json").rename(folder2 / "000003.json")
    problems = store2.verify().problems
    assert "doc/src version 3: record says it is doc/src version 1 (reordered or moved)" in problems


def _edited(path: Path, **fields: object) -> None:
    path.write_text(json.dumps({**json.loads(path.read_text()), **fields}))


def _made_a_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


@pytest.mark.parametrize(
    ("damage", "reason", "found"),
    [
        (lambda p: p.write_bytes(b"[]"), "not a JSON object", "is damaged (not a JSON object)"),
        (lambda p: p.write_bytes(b"null"), "not a JSON object", "is damaged (not a JSON object)"),
        (lambda p: p.write_bytes(b'{"\xff": 1}'), "not UTF-8", "is damaged (not UTF-8)"),
        (lambda p: p.write_bytes(b'{"hash": '), "not JSON", "is not valid JSON"),
        (_made_a_folder, "Is a directory", "cannot be read (Is a directory)"),
        (lambda p: _edited(p, fetched_at="soon"), 'its fetched_at is "soon", not a time', None),
        (lambda p: _edited(p, summary="one line"), 'its summary is "one line"', None),
        (lambda p: _edited(p, summary=[1]), "its summary is [1]", None),
        (lambda p: _edited(p, number="2"), 'its number is "2"', None),
        (lambda p: _edited(p, raw_sha256=None), "its raw_sha256 is null", None),
        (lambda p: p.write_text(json.dumps({"number": 2, "source": "doc/src"})), "it has no hash", None),
    ],
)  # fmt: skip
def test_a_damaged_version_record_is_refused_where_it_is_read_and_named_by_verify(
    tmp_path: Path, damage: Callable[[Path], None], reason: str, found: str | None
) -> None:
    """A record that is not one (a list, bytes that are not UTF-8, a folder, a field of another kind) was an
    internal error in whatever read it first, `differ verify` included; now each read refuses it in one line, and
    verify lists it among the store's problems and goes on with the rest."""
    store = _store_with_three(tmp_path)
    path = tmp_path / "sources/doc/src/versions/000002.json"
    damage(path)
    with pytest.raises(StoreDamage) as caught:
        store.version("doc/src", 2)
    assert str(caught.value) == (
        f"{path}: damaged version record ({reason}); differ verify tells what else is damaged"
    )
    assert store.verify().problems[0] == f"doc/src version 2: record {found or f'is damaged ({reason})'}"
    assert store.version("doc/src", 3).number == 3  # the others read as before


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[]", "not a JSON object"),
        ('{"number": "3", "hash": "x"}', "expected a version's number and hash"),
        ('{"number": 3}', "expected a version's number and hash"),
        ("{", "not JSON"),
    ],
)
def test_a_damaged_head_is_one_line_and_one_problem(tmp_path: Path, text: str, reason: str) -> None:
    store = _store_with_three(tmp_path)
    (tmp_path / "sources/doc/src/head.json").write_text(text)
    with pytest.raises(StoreDamage, match=re.escape(f"doc/src: head.json is damaged ({reason})")):
        store.latest("doc/src")
    assert store.verify().problems == [f"doc/src: head.json is damaged ({reason})"]


def test_a_version_missing_below_the_newest_is_damage_and_one_past_it_is_not(tmp_path: Path) -> None:
    """A check passes over one source's damage (StoreDamage) but stops for the store's: a version missing
    below the newest is the first; asking for one that was never stored is neither."""
    store = _store_with_three(tmp_path)
    (tmp_path / "sources/doc/src/versions/000001.json").unlink()
    with pytest.raises(StoreDamage, match=re.escape("doc/src has no version 1 (versions 2 to 3)")):
        store.version("doc/src", 1)
    with pytest.raises(StoreError, match=re.escape("doc/src has no version 4 (versions 2 to 3)")) as caught:
        store.version("doc/src", 4)
    assert not isinstance(caught.value, StoreDamage)


def test_a_damaged_raw_body_is_one_line_and_one_problem(tmp_path: Path) -> None:
    """A raw body whose gzip stream is broken inside (not only at its start, which gzip's own check caught)
    failed as a zlib error."""
    store = _store_with_three(tmp_path)
    version = store.version("doc/src", 2)
    blob = store.blob_path(version.raw_sha256)
    data = blob.read_bytes()
    blob.write_bytes(data[:10] + b"\0" + data[10:])  # "invalid stored block lengths"
    with pytest.raises(StoreDamage, match=f"raw body {version.raw_sha256[:12]} is damaged"):
        store.get_blob(version.raw_sha256)
    [problem] = store.verify().problems
    assert problem.startswith(f"doc/src version 2: raw body {version.raw_sha256[:12]} is damaged: ")


def test_verify_detects_lost_tail(tmp_path: Path) -> None:
    store = _store_with_three(tmp_path)
    (tmp_path / "sources/doc/src/versions/000003.json").unlink()
    assert store.verify().problems == [
        "doc/src: versions 3 to 3 are missing (the head names a newer version)"
    ]


@pytest.mark.parametrize(
    "key",
    ["../x/y", "doc/../../etc", "/abs/path", "doc/a\x00b", "doc/" + "x" * 80, "a/b/c", "doc/.hidden", "doc"],
)
def test_hostile_names_never_leave_the_store(tmp_path: Path, key: str) -> None:
    store = Store(tmp_path / "store")
    with pytest.raises(StoreError, match="is not a valid source name"):
        store.commit(key, raw=b"x", markdown="x", record={})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]


def test_a_writer_killed_before_the_marker_leaves_an_empty_store(tmp_path: Path) -> None:
    """Killed after taking the lock and while writing the marker: the lock and a temporary marker remain.
    That is a store with nothing in it yet: it verifies, and the next writer uses it."""
    root = tmp_path / "snapshots"
    root.mkdir()
    (root / ".lock").touch()
    (root / ".STORE.k2j4.tmp").write_text('{"for')
    report = Store(root).verify()
    assert (report.ok, report.problems, report.sources) == (True, [], 0)
    Store(root).commit(
        "doc/src", raw=b"body", markdown="# v\n", record={"fetched_at": "2026-07-08T17:45:00Z"}
    )
    assert Store(root).verify().ok
    (root / "notes.txt").write_text("someone else's")
    (root / "STORE").unlink()
    assert Store(root).verify().problems == [f"{root}: no STORE marker; not a differ store"]


def test_refuses_a_folder_that_is_not_a_store(tmp_path: Path) -> None:
    (tmp_path / "thesis.tex").write_text("precious")
    with pytest.raises(StoreError, match="folder exists and is not a differ store"):
        Store(tmp_path).ensure()


WRITER = r"""
import os
import sys
from differ.store import Store
store = Store(sys.argv[1], lock_timeout=30)
total = int(sys.argv[2])
print("ready", flush=True)
while True:
    have = len(store.versions("doc/src"))
    if have >= total:
        break
    v = store.commit("doc/src", raw=f"body {have} ".encode() + os.urandom(400_000), markdown=f"# v{have}\n" + "text " * 500,
                     record={"fetched_at": "2026-07-08T17:45:00Z"})
    sys.stdout.write(f"{v.number} {v.hash}\n")  # one write: with PYTHONUNBUFFERED, print writes each part
    sys.stdout.flush()
"""


def _spawn(root: Path, total: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root), str(total)], stdout=subprocess.PIPE, text=True
    )


def test_sigkill_during_writes_loses_nothing(tmp_path: Path) -> None:
    """Kill a writer with SIGKILL at random moments until 50 versions are in; verify and nothing lost."""
    rng = random.Random(1234)
    reported: dict[int, str] = {}
    kills = 0
    pace = 0.03  # seconds a version may take; doubled after a writer that wrote nothing (a loaded machine)
    while len(Store(tmp_path).versions("doc/src")) < 50 and kills < 100:
        have = len(Store(tmp_path).versions("doc/src"))
        batch = rng.randint(1, 6)  # this writer may add at most a few versions: it dies within them
        proc = _spawn(tmp_path, min(50, have + batch))
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"  # however slow the start-up
        time.sleep(rng.uniform(0.0, pace * batch))  # then a random point among its writes
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        kills += 1
        for line in out.split("\n")[:-1]:  # whole lines: a writer killed mid-line reported nothing
            number, digest = line.split()
            reported[int(number)] = digest
        if len(Store(tmp_path).versions("doc/src")) == have:
            pace = min(2 * pace, 1.0)
        report = Store(tmp_path).verify()
        assert report.ok, report.problems
    store = Store(tmp_path)
    versions = {v.number: v.hash for v in store.versions("doc/src")}
    assert kills >= 9  # each writer adds at most 6 of the 50 versions
    assert len(versions) >= 50
    for number, digest in reported.items():
        assert versions[number] == digest  # every version a writer reported is there, unchanged


COUNTER = r"""
import sys
from differ.store import Store
store = Store(sys.argv[1], lock_timeout=30)
for i in range(int(sys.argv[2])):
    store.commit("doc/src", raw=f"{sys.argv[3]} {i}".encode(), markdown="x", record={})
"""


def test_two_processes_share_one_store(tmp_path: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", COUNTER, str(tmp_path), "20", name]) for name in "ab"]
    for p in procs:
        assert p.wait(timeout=120) == 0
    store = Store(tmp_path)
    assert [v.number for v in store.versions("doc/src")] == list(range(1, 41))
    assert store.verify().ok


def test_lock_timeout_says_who_holds_it(tmp_path: Path) -> None:
    holder = Store(tmp_path)
    other = Store(tmp_path, lock_timeout=0.2)
    with (
        holder.writing(),
        pytest.raises(StoreError, match=rf"is being written by process {os.getpid()}; gave up after 0.2s"),
        other.writing(),
    ):
        pass


def test_renormalized_forms_keep_the_old(tmp_path: Path) -> None:
    store = Store(tmp_path)
    commit(store, "doc/src", b"raw", "old form\n", normalizer=1)
    v = store.versions("doc/src")[0]
    store.add_normalized(v, 2, "new form\n")
    assert store.markdown(v) == "new form\n"
    assert store.markdown(v, 1) == "old form\n"
    assert store.verify().ok
    assert sha256(b"raw") == v.raw_sha256


def test_renormalized_forms_are_listed_once_and_a_form_another_process_adds_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading every version of a renormalized history lists its `renormalized/` folder once (a listing a
    version made 3,000 versions take 4 s); a listing is kept only while the folder is unchanged, and only when
    it had not changed for a while before (a change within the same tick may leave its time as it was)."""
    reader, writer = Store(tmp_path), Store(tmp_path)
    for n in range(30):
        commit(reader, "doc/src", f"raw {n}".encode(), f"old {n}\n", normalizer=1)
    versions = reader.versions("doc/src")
    for v in versions[:20]:
        writer.add_normalized(v, 2, f"new {v.number}\n")
    folder = versions[0].folder.parent / "renormalized"
    settled = time.time_ns() - 10_000_000_000
    os.utime(folder, ns=(settled, settled))
    listings = []
    real = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path: listings.append(path) or real(path))
    read = [reader.markdown(v) for v in versions]
    assert read == [f"new {n}\n" for n in range(1, 21)] + [f"old {n}\n" for n in range(20, 30)]
    assert [reader.markdown(v) for v in versions] == read
    assert len(listings) == 1
    writer.add_normalized(versions[25], 2, "new 26\n")  # another process: the folder's time moves
    assert reader.markdown(versions[25]) == "new 26\n"
    assert len(listings) == 2
    # a form added within the same tick as the listing: the folder's time is as it was, but that listing was
    # not kept, since the folder had just changed
    writer.add_normalized(versions[26], 2, "new 27\n")
    stamp = folder.stat().st_mtime_ns
    assert reader.markdown(versions[26]) == "new 27\n"
    writer.add_normalized(versions[27], 2, "new 28\n")
    os.utime(folder, ns=(stamp, stamp))
    assert reader.markdown(versions[27]) == "new 28\n"


def test_the_version_current_at_a_moment(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    store = Store(tmp_path)
    times = ["2026-07-08T17:45:00Z", "2026-07-08T21:00:00Z", "2026-07-09T09:40:00Z", "2026-07-10T00:00:00Z"]
    for n, at in enumerate(times):
        store.commit("doc/src", raw=f"r{n}".encode(), markdown=f"v{n}\n", record={"fetched_at": at})

    def at(text: str) -> int | None:
        found = store.version_at("doc/src", datetime.fromisoformat(text).replace(tzinfo=UTC))
        return found.number if found else None

    assert at("2026-07-08T17:44:59") is None
    assert at("2026-07-08T17:45:00") == 1
    assert at("2026-07-08T20:59:59") == 1
    assert at("2026-07-08T21:00:00") == 2
    assert at("2026-07-09T12:00:00") == 3
    assert at("2026-07-10T00:00:00") == 4
    assert at("2030-01-01T00:00:00") == 4
    assert Store(tmp_path / "empty").version_at("doc/src", datetime.now(UTC)) is None


def test_last_line_reads_a_log_from_its_end(tmp_path: Path) -> None:
    log = tmp_path / "fetches.jsonl"
    assert last_line(log) is None
    log.write_bytes(b"")
    assert last_line(log) is None
    for n in range(3000):  # far longer than the window read at once
        append_line(log, {"n": n, "pad": "x" * 50})
    assert last_line(log, window=256) == {"n": 2999, "pad": "x" * 50}
    with log.open("ab") as handle:
        handle.write(b'{"n": 3000, "pa')  # torn by a crash
    assert last_line(log, window=256) == {"n": 2999, "pad": "x" * 50}
    assert read_lines(log)[-1] == {"n": 2999, "pad": "x" * 50}
    append_line(log, {"n": 3001})  # the torn line is closed off first, so this one stays whole
    assert log.read_bytes().endswith(b'{"n": 3000, "pa\n{"n": 3001}\n')
    assert [e["n"] for e in read_lines(log)[-2:]] == [2999, 3001]
    assert last_line(log, window=256) == {"n": 3001}


def test_last_line_of_one_line_longer_than_the_window(tmp_path: Path) -> None:
    log = tmp_path / "fetches.jsonl"
    append_line(log, {"long": "y" * 5000})
    assert last_line(log, window=100) == {"long": "y" * 5000}
    log.write_bytes(b"not json\n[1, 2]\n")
    assert last_line(log, window=4) is None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(st.one_of(st.integers(0, 400), st.just(-1)), max_size=40),
    count=st.integers(1, 45),
    window=st.integers(1, 300),
    odd=st.booleans(),
)
def test_tail_lines_are_the_last_whole_entries(
    tmp_path: Path, lines: list[int], count: int, window: int, odd: bool
) -> None:
    """Whatever the window, the last `count` entries (or those `keep` accepts) come back whole, oldest
    first; torn lines (-1) are skipped."""
    log = tmp_path / "tail.jsonl"
    raw, whole = b"", []
    for n, pad in enumerate(lines):
        if pad < 0:
            raw += b'{"torn": tr\n'
        else:
            entry = {"n": n, "pad": "z" * pad}
            whole.append(entry)
            raw += json.dumps(entry).encode() + b"\n"
    log.write_bytes(raw)
    assert tail_lines(log, count, window=window) == whole[-count:]
    keep = (lambda e: e["n"] % 2 == 1) if odd else (lambda e: len(e["pad"]) > 200)
    assert tail_lines(log, count, keep, window=window) == [e for e in whole if keep(e)][-count:]


def test_a_source_folder_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    store = Store(tmp_path / "snapshots")
    (tmp_path / "snapshots/sources/doc").mkdir(parents=True)
    (tmp_path / "snapshots/sources/doc/canonical").symlink_to(outside)
    with pytest.raises(StoreError, match=r'"doc/canonical" would be stored outside'):
        store.source_dir("doc/canonical")
    (tmp_path / "snapshots/sources/other").symlink_to(outside)
    with pytest.raises(StoreError, match=r'"other/canonical" would be stored outside'):
        store.source_dir("other/canonical")
    assert store.source_dir("doc/mirror") == tmp_path / "snapshots/sources/doc/mirror"


def _check(i: int, outcome: str = "unchanged") -> dict[str, object]:
    """A fetch log entry as a check writes it."""
    return {
        "at": f"2026-07-{1 + i // 1440:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00Z",
        "attempts": 1,
        "body_sha256": "75f9333cf8dee6173b8281a13fe4d92065c286629a6a0727d53865e3742acec2",
        "bytes": 37317,
        "duration_ms": 60.3 + i % 7,
        "final_url": "https://pytorch.org/blog/pytorch-2-13-release-blog/",
        "i": i,
        "outcome": outcome,
        "status": 503 if outcome == "failed" else 304,
        "url": "https://pytorch.org/blog/pytorch-2-13-release-blog/",
    }


def test_a_long_fetch_log_is_compressed_and_still_read_whole(tmp_path: Path) -> None:
    """Past its limit the log goes into compressed segments; every entry is still read, in order, and the
    latest ones without opening the segments."""
    store = Store(tmp_path)
    store.fetch_log_limit = 20_000
    for i in range(1000):
        store.log_fetch("doc/src", _check(i, "failed" if i % 100 == 7 else "unchanged"))
    folder = store.source_dir("doc/src")
    segments = sorted(p.name for p in (folder / "fetches").iterdir() if not p.name.startswith("."))
    assert len(segments) >= 10 and segments[0] == "000001.jsonl.gz"
    assert (folder / "fetches.jsonl").stat().st_size <= 20_000
    assert [e["i"] for e in store.fetches("doc/src")] == list(range(1000))
    assert [e["i"] for e in store.recent_fetches("doc/src", 3)] == [997, 998, 999]
    assert store.last_fetch("doc/src") == _check(999)
    failed = store.recent_fetches("doc/src", 8, lambda e: e["outcome"] == "failed")
    assert [e["i"] for e in failed] == [207, 307, 407, 507, 607, 707, 807, 907]
    assert [e["i"] for e in store.recent_fetches("doc/src", 5000)] == list(range(1000))
    raw = sum(len(json.dumps(_check(i), sort_keys=True)) + 1 for i in range(1000))
    kept = sum(p.stat().st_size for p in folder.rglob("fetches*") if p.is_file())
    kept += sum(p.stat().st_size for p in (folder / "fetches").iterdir())
    assert kept < raw / 8  # what a year of checks every 5 minutes costs: 38 MB as lines, a few MB compressed


def test_the_fetch_log_is_read_whole_right_after_it_was_rolled(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.fetch_log_limit = 10**9
    for i in range(5):
        store.log_fetch("doc/src", _check(i))
    store.fetch_log_limit = 1
    store._fetch_log("doc/src").roll()
    folder = store.source_dir("doc/src")
    assert not (folder / "fetches.jsonl").exists() and (folder / "fetches" / "000001.jsonl.gz").exists()
    assert store.last_fetch("doc/src") == _check(4)
    assert [e["i"] for e in store.fetches("doc/src")] == [0, 1, 2, 3, 4]


def test_a_line_being_written_when_the_log_rolls_away_is_waited_for(tmp_path: Path) -> None:
    """A writer holds the log (as `append_line` does between opening it and its last byte) while another
    thread rolls it: the file is renamed at once, but compressed only when the writer is done, line and all."""
    store = Store(tmp_path)
    store.fetch_log_limit = 10**9
    for i in range(3):
        store.log_fetch("doc/src", _check(i))
    writer = open_appending(store.source_dir("doc/src") / "fetches.jsonl")
    store.fetch_log_limit = 1
    rolling = threading.Thread(target=store._fetch_log("doc/src").roll)
    rolling.start()
    time.sleep(0.3)
    assert rolling.is_alive() and not (store.source_dir("doc/src") / "fetches.jsonl").exists()
    os.write(writer, json.dumps(_check(3)).encode() + b"\n")
    os.close(writer)
    rolling.join(10)
    assert not rolling.is_alive()
    assert [e["i"] for e in store.fetches("doc/src")] == [0, 1, 2, 3]
    assert len(list((store.source_dir("doc/src") / "fetches").glob("*.gz"))) == 1


def test_a_roll_killed_after_writing_its_segment_leaves_no_line_twice(tmp_path: Path) -> None:
    """Killed between writing the segment and removing the rolled-away file, a roll leaves the lines in both
    places: readers take them once, and the next roll removes the file without a second segment."""
    store = Store(tmp_path)
    store.fetch_log_limit = 10**9
    for i in range(5):
        store.log_fetch("doc/src", _check(i))
    folder = store.source_dir("doc/src")
    kept = (folder / "fetches.jsonl").read_bytes()
    store.fetch_log_limit = 1
    store._fetch_log("doc/src").roll()
    (folder / ".fetches.rolling").write_bytes(kept)  # as the killed roll left it
    store.fetch_log_limit = 10**9
    store.log_fetch("doc/src", _check(5))
    assert [e["i"] for e in store.fetches("doc/src")] == [0, 1, 2, 3, 4, 5]
    assert [e["i"] for e in store.recent_fetches("doc/src", 4)] == [2, 3, 4, 5]
    store.fetch_log_limit = 1
    store.log_fetch("doc/src", _check(6))
    assert not (folder / ".fetches.rolling").exists()
    assert sorted(p.name for p in (folder / "fetches").glob("*.gz")) == ["000001.jsonl.gz", "000002.jsonl.gz"]
    assert [e["i"] for e in store.fetches("doc/src")] == [0, 1, 2, 3, 4, 5, 6]


APPENDER = r"""
import sys
from differ.store import Store
store = Store(sys.argv[1])
store.fetch_log_limit = int(sys.argv[4])
start = int(sys.argv[2])
print("ready", flush=True)
for i in range(start, int(sys.argv[3])):
    store.log_fetch("doc/src", {"i": i, "by": sys.argv[5]})
"""


def test_two_processes_appending_while_the_log_rolls_lose_no_line(tmp_path: Path) -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", APPENDER, str(tmp_path), "0", "600", "1000", name])
        for name in "ab"
    ]
    for p in procs:
        assert p.wait(timeout=120) == 0
    entries = Store(tmp_path).fetches("doc/src")
    for name in "ab":
        assert [e["i"] for e in entries if e["by"] == name] == list(range(600))
    assert len(list((Store(tmp_path).source_dir("doc/src") / "fetches").glob("*.gz"))) >= 10


def test_a_writer_killed_while_the_log_rolls_loses_and_repeats_no_line(tmp_path: Path) -> None:
    """SIGKILL at random moments of appending to a log that rolls every few lines (rename, compress, remove):
    each new writer goes on after the last line the log has; the log then has every line once."""
    rng = random.Random(99)
    kills = 0
    while kills < 30:
        logged = Store(tmp_path).fetches("doc/src")
        start = logged[-1]["i"] + 1 if logged else 0
        proc = subprocess.Popen(
            [sys.executable, "-c", APPENDER, str(tmp_path), str(start), "100000", "400", "k"],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.0, 0.05))
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        kills += 1
    entries = Store(tmp_path).fetches("doc/src")
    assert [e["i"] for e in entries] == list(range(len(entries)))
    assert len(entries) > 30
    assert len(list((Store(tmp_path).source_dir("doc/src") / "fetches").glob("*.gz"))) >= 3


@pytest.mark.parametrize("marker", ["[]", "null", '"differ.store/1"'])
def test_a_store_marker_that_is_not_an_object_is_unreadable(tmp_path: Path, marker: str) -> None:
    _store_with_three(tmp_path)
    (tmp_path / "STORE").write_text(marker)
    with pytest.raises(StoreError, match=re.escape(f"{tmp_path / 'STORE'}: unreadable store marker")):
        commit(Store(tmp_path), "doc/src", b"body 4", "md 4\n")
