"""`differ export`: the store as a git history, a commit a version, the same commits on every export."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from differ.cli import main
from differ.errors import ExitCode
from tests.conftest import Server, article


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out=out, err=err, env={})
    return code, out.getvalue(), err.getvalue()


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's store and configuration (3 sources, 4 versions), made once for this module's tests."""
    folder = tmp_path_factory.mktemp("demo")
    assert main(["demo", "--keep", str(folder / "kept")], out=io.StringIO()) == ExitCode.OK
    return folder / "kept" / "demo.toml"


def test_each_version_is_a_commit_dated_when_it_was_fetched(demo: Path, tmp_path: Path) -> None:
    repo = tmp_path / "history"
    code, out, err = run("--config", str(demo), "export", str(repo))
    tip = git(repo, "rev-parse", "differ").strip()
    assert (code, err) == (ExitCode.OK, "")
    assert out == (
        f"exported 4 versions of 3 sources to a new git repository, {repo}: branch differ at {tip[:12]} "
        f"(see git -C {repo} log -p differ)\n"
    )
    log = git(repo, "log", "--reverse", "--format=%aI|%s", "differ").splitlines()
    assert log == [
        "2026-07-08T17:45:00+00:00|pytorch-2-13/canonical: version 1, first snapshot",
        "2026-07-08T17:45:00+00:00|pytorch-2-13/wpnews: version 1, first snapshot",
        "2026-07-08T21:00:00+00:00|pytorch-2-13/canonical: version 2, 3 changes: author's note (added at…",
        "2026-07-09T09:40:00+00:00|pytorch-2-13/pytorch-kr: version 1, first snapshot",
    ]
    history = json.loads(
        run("--config", str(demo), "history", "pytorch-2-13/canonical", "--format", "json")[1]
    )
    body = git(repo, "log", "-1", "--format=%B", "differ~1")
    assert (
        body.splitlines()[2]
        == '• author\'s note (added at the end): "Updated (7/8): Removed two instances of prototype which is a designation that we no longer use."'
    )
    assert f"Differ-Hash: {history['versions'][1]['hash']}\n" in body
    assert "Differ-Version: 2\n" in body and "Fetched-At: 2026-07-08T21:00:00Z\n" in body
    for source in ("canonical", "wpnews", "pytorch-kr"):  # the tree made here is the branch's, checked out
        shown = run("--config", str(demo), "show", f"pytorch-2-13/{source}")[1]
        assert (repo / "pytorch-2-13" / f"{source}.md").read_text() == shown
    assert (
        git(repo, "show", "differ~2:pytorch-2-13/canonical.md")
        == run("--config", str(demo), "show", "pytorch-2-13/canonical", "--version", "1")[1]
    )
    assert run("--config", str(demo), "export", str(repo)) == (
        ExitCode.OK,
        f"{repo}: branch differ has every version already (4), at {tip[:12]}\n",
        "",
    )
    assert run("--config", str(demo), "export", str(repo), "-q") == (ExitCode.OK, "", "")
    assert git(repo, "rev-parse", "differ").strip() == tip  # the same commits again


def test_a_subset_of_sources_on_a_branch_of_an_existing_repository(demo: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "--quiet")
    (repo / "notes.txt").write_text("mine\n")
    git(repo, "add", "notes.txt")
    git(repo, "-c", "user.name=me", "-c", "user.email=me@example.org", "commit", "--quiet", "-m", "notes")
    code, out, err = run(
        "--config", str(demo), "export", str(repo), "pytorch-2-13/wpnews", "--branch", "mirrors"
    )
    assert (code, err) == (ExitCode.OK, "") and out.startswith(
        f"exported 1 version of 1 source (1 new) to {repo}: "
    )
    assert git(repo, "ls-tree", "-r", "--name-only", "mirrors") == "pytorch-2-13/wpnews.md\n"
    assert (repo / "notes.txt").read_text() == "mine\n" and not (repo / "pytorch-2-13").exists()
    assert git(repo, "log", "--format=%s") == "notes\n"  # the branch checked out is as it was


def test_new_versions_extend_the_history_as_a_fast_forward(tmp_path: Path, server: Server) -> None:
    server.page("/post", article("<h1>Widget 3.0</h1><p>Startup is 2x faster.</p>"))
    config = tmp_path / "config.toml"
    config.write_text(
        f'[service]\nsnapshots = "{tmp_path / "snapshots"}"\nper_host_delay = "0s"\n[[documents]]\nid = "post"\n'
        f'[documents.canonical]\nurl = "{server.url("/post")}"\nallow_private = true\n'
    )
    repo = tmp_path / "history"
    assert run("--config", str(config), "export", str(repo)) == (
        ExitCode.OK,
        f"nothing to export: the store holds no versions yet (run: differ check); {repo} left as it was\n",
        "",
    )
    assert run("--config", str(config), "check")[0] == ExitCode.OK
    assert run("--config", str(config), "export", str(repo))[0] == ExitCode.OK
    first = git(repo, "rev-parse", "differ").strip()
    server.page("/post", article("<h1>Widget 3.0</h1><p>Startup is 3x faster.</p>"))
    assert run("--config", str(config), "check")[1] == "post/canonical: new version 2 (1 change)\n"
    code, out, _ = run("--config", str(config), "export", str(repo))
    assert code == ExitCode.OK and out.startswith(f"exported 2 versions of 1 source (1 new) to {repo}: ")
    assert git(repo, "rev-parse", "differ~1").strip() == first
    assert (repo / "post" / "canonical.md").read_text() == run("--config", str(config), "show", "post")[1]
    assert "Startup is 3x faster." in (repo / "post" / "canonical.md").read_text()
    assert git(repo, "status", "--porcelain") == ""
    (repo / "post" / "canonical.md").write_text("edited by hand\n")
    code, out, err = run("--config", str(config), "export", str(repo))
    assert (code, out) == (ExitCode.USAGE, "")
    assert err == (
        f"error: {repo}: branch differ is checked out with changes not committed; commit or discard them, "
        "or export to another --branch\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("pytorch-2-13/nope",),
            "the store holds no source 'pytorch-2-13/nope'; it holds pytorch-2-13/canonical, ",
        ),
        (("--branch", "a..b"), "--branch: 'a..b' is not a name git takes for a branch"),
    ],
)
def test_refusals_are_one_line(demo: Path, tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    code, out, err = run("--config", str(demo), "export", str(tmp_path / "h"), *args)
    assert (
        (code, out) == (ExitCode.USAGE, "") and err.startswith(f"error: {message}") and err.count("\n") == 1
    )


def test_a_folder_that_is_not_a_repository_is_left_alone(demo: Path, tmp_path: Path) -> None:
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "cat.jpg").write_bytes(b"\xff\xd8")
    code, out, err = run("--config", str(demo), "export", str(tmp_path / "photos"))
    assert (code, out) == (ExitCode.USAGE, "")
    assert err == (
        f"error: {tmp_path / 'photos'}: a folder that is not a git repository's top; give a new or empty folder\n"
    )
    assert [p.name for p in (tmp_path / "photos").iterdir()] == ["cat.jpg"]


def test_a_store_alone_is_exported_as_with_its_configuration(demo: Path, tmp_path: Path) -> None:
    code, out, err = run("--snapshots", str(demo.parent / "snapshots"), "export", str(tmp_path / "alone"))
    assert (code, err) == (ExitCode.OK, "") and out.startswith("exported 4 versions of 3 sources to ")
    run("--config", str(demo), "export", str(tmp_path / "with"))
    assert git(tmp_path / "alone", "rev-parse", "differ") == git(tmp_path / "with", "rev-parse", "differ")


def test_a_version_that_cannot_be_read_moves_no_branch(demo: Path, tmp_path: Path) -> None:
    import shutil

    store = tmp_path / "snapshots"
    shutil.copytree(demo.parent / "snapshots", store)
    repo = tmp_path / "history"
    assert run("--snapshots", str(store), "export", str(repo))[0] == ExitCode.OK
    tip = git(repo, "rev-parse", "differ")
    (store / "sources" / "pytorch-2-13" / "pytorch-kr" / "versions" / "000001.md").unlink()
    code, out, err = run("--snapshots", str(store), "export", str(repo))
    assert (code, out) == (ExitCode.STORE, "") and err.startswith("error: ") and err.count("\n") == 1
    assert git(repo, "rev-parse", "differ") == tip
    assert run("--snapshots", str(store), "show", "pytorch-2-13/pytorch-kr") == (
        ExitCode.STORE,
        "",
        "error: pytorch-2-13/pytorch-kr version 1: its Markdown cannot be read (No such file or directory); "
        "differ verify tells what else is damaged\n",
    )


def test_with_raw_each_commit_is_evidence_on_its_own(demo: Path, tmp_path: Path) -> None:
    import hashlib

    from differ.store import record_hash

    repo = tmp_path / "evidence"
    code, _, err = run("--config", str(demo), "export", str(repo), "pytorch-2-13/canonical", "--raw")
    assert (code, err) == (ExitCode.OK, "")
    assert git(repo, "ls-tree", "-r", "--name-only", "differ").splitlines() == [
        "pytorch-2-13/canonical.md",
        "pytorch-2-13/canonical.raw.html",
        "pytorch-2-13/canonical.version.json",
    ]
    for rev in ("differ~1", "differ"):
        trailers = dict(
            line.split(": ", 1)
            for line in git(repo, "log", "-1", "--format=%(trailers:only)", rev).splitlines()
            if line
        )
        raw = subprocess.run(
            ["git", "-C", str(repo), "show", f"{rev}:pytorch-2-13/canonical.raw.html"],
            capture_output=True,
            check=True,
        ).stdout
        assert hashlib.sha256(raw).hexdigest() == trailers["Raw-Sha256"]
        record = json.loads(git(repo, "show", f"{rev}:pytorch-2-13/canonical.version.json"))
        assert record_hash(record) == record["hash"] == trailers["Differ-Hash"]
        assert record["raw_sha256"] == trailers["Raw-Sha256"]
    first = json.loads(git(repo, "show", "differ~1:pytorch-2-13/canonical.version.json"))
    assert (
        json.loads(git(repo, "show", "differ:pytorch-2-13/canonical.version.json"))["prev"] == first["hash"]
    )


def test_an_exported_history_is_checked_from_git_alone(demo: Path, tmp_path: Path) -> None:
    import gzip
    import shutil

    repo = tmp_path / "evidence"
    assert run("--config", str(demo), "export", str(repo), "--raw")[0] == ExitCode.OK
    assert run("verify", "--git", str(repo)) == (
        ExitCode.OK,
        f"{repo} differ: 4 versions, 4 records checked: ok\n",
        "",
    )
    # A store altered after the fact exports a history that says so.
    store = tmp_path / "snapshots"
    shutil.copytree(demo.parent / "snapshots", store)
    canonical = store / "sources" / "pytorch-2-13" / "canonical" / "versions"
    record = json.loads((canonical / "000002.json").read_text())
    record["status"] = 203
    (canonical / "000002.json").write_text(json.dumps(record))
    wpnews = json.loads(
        (store / "sources" / "pytorch-2-13" / "wpnews" / "versions" / "000001.json").read_text()
    )
    blob = store / "blobs" / wpnews["raw_sha256"][:2] / f"{wpnews['raw_sha256']}.gz"
    blob.write_bytes(gzip.compress(b'{"body_md": "rewritten"}'))
    altered = tmp_path / "altered"
    assert run("--snapshots", str(store), "export", str(altered), "--raw")[0] == ExitCode.OK
    code, out, err = run("verify", "--git", str(altered))
    lines = out.splitlines()
    assert (code, err) == (ExitCode.FAILURE, "")
    assert [line.split(" (commit ")[0] for line in lines[:-1]] == [
        "damaged: pytorch-2-13/wpnews version 1",
        "damaged: pytorch-2-13/canonical version 2",
    ]
    assert lines[0].endswith("the body beside it is not the one its record names")
    assert lines[1].endswith(f"its record does not hash to {record['hash'][:12]}")
    assert lines[-1] == f"{altered} differ: 4 versions, 4 records checked: 2 problems"


def test_verify_git_refuses_what_is_not_an_export(tmp_path: Path) -> None:
    assert run("verify", "--git", str(tmp_path / "none")) == (
        ExitCode.USAGE,
        "",
        f"error: {tmp_path / 'none'}: no such folder\n",
    )
    git(tmp_path, "init", "--quiet")
    code, out, err = run("verify", "--git", str(tmp_path))
    assert (code, out) == (ExitCode.USAGE, "")
    assert err == f"error: {tmp_path}: no branch differ (differ export writes it; --branch names another)\n"


def test_a_store_read_anew_rewrites_the_branch_and_says_so(demo: Path, tmp_path: Path) -> None:
    import shutil

    store = tmp_path / "snapshots"
    shutil.copytree(demo.parent / "snapshots", store)
    repo = tmp_path / "history"
    run("--snapshots", str(store), "export", str(repo))
    folder = store / "sources" / "pytorch-2-13" / "wpnews" / "renormalized"
    folder.mkdir()
    (folder / "000001.n99.md").write_text("# Read anew\n")  # as a newer normalizer would write it
    code, out, err = run("--snapshots", str(store), "export", str(repo))
    assert (code, err) == (ExitCode.OK, "")
    assert out.startswith(
        "exported 4 versions of 3 sources (the branch rewritten: the store's versions changed) "
    )
    assert git(repo, "show", "differ:pytorch-2-13/wpnews.md") == "# Read anew\n"
