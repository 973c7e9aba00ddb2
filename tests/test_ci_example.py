"""examples/ci: the pull request check that audits the posts a change adds or edits against the originals their
front matter names, run for real: a git repository with a base branch, a local server as the original site,
differ as a process."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import Server, article

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "ci"
ORIGINAL = (
    "<p>PyTorch 2.13 is out.</p><h2>Install</h2><p>Run pip3 install torch --index-url https://x.org/whl.</p>"
)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def post(repo: Path, name: str, front: str, body: str) -> None:
    path = repo / "_posts" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"---\n{front}---\n\n{body}", encoding="utf-8")


def test_a_pull_request_fails_on_the_post_that_is_not_faithful(tmp_path: Path, server: Server) -> None:
    server.page("/post", article(ORIGINAL, "PyTorch 2.13"))
    link = f"title: PyTorch 2.13\norg_link: {server.url('/post')}\n"  # the title heading is the post's title
    repo = tmp_path / "site"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.org")
    git(repo, "config", "user.name", "t")
    faithful = "PyTorch 2.13 is out.\n\n## Install\n\nRun pip3 install torch --index-url https://x.org/whl.\n"
    post(repo, "2026-07-01-old.md", link, "PyTorch 2.13 is out.\n")  # on main already: not the change's
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "change")
    post(repo, "2026-07-08-faithful.md", link, faithful)
    post(
        repo,
        "2026-07-09-dropped.md",
        link,
        "PyTorch 2.13 is out.\n\nRun pip3 install torch –index-url https://x.org/whl.\n",
    )
    post(repo, "2026-07-10-own.md", "title: Our own post\n", "Nothing copied.\n")
    (repo / "notes.md").write_text("not a post\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "change")
    summary = tmp_path / "summary.md"
    differ = shlex.join([sys.executable, "-m", "differ"])
    options = [
        "--base",
        "main",
        "--glob",
        "_posts/*.md",
        "--set",
        "allow_private=true",
        "--set",
        "selector=article",
    ]
    done = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "audit_posts.py"),
            *options,
            "--differ",
            differ,
            "--summary",
            str(summary),
            "--annotate",
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr  # the dropped post; the faithful one alone would pass
    dropped = "_posts/2026-07-09-dropped.md"
    heading = 'missing: the heading "Install"'
    command = 'code corrupted [Install]: "–index-url" ("--index-url" → "–index-url"; expected "--index-url")'
    assert done.stdout.splitlines() == [  # the post on main already and notes.md are not the change's posts
        "_posts/2026-07-08-faithful.md: coverage 100.0%; 0 findings",
        f"{dropped}: coverage 95.0%; 2 findings",
        f"  • {heading}",
        f"  • {command}",
        f"::error file={dropped},title=differ audit::{heading}",  # shown on the post in the pull request
        f"::error file={dropped},title=differ audit::{command}",
        "_posts/2026-07-10-own.md: no org_link in its front matter; not audited",
    ]
    text = summary.read_text()
    assert [line for line in text.splitlines() if line.startswith("### ")] == [
        "### \\_posts/2026-07-08-faithful.md",
        "### \\_posts/2026-07-09-dropped.md",
    ]
    assert '- missing: the heading "Install"\n' in text  # Markdown shows it as it is


def test_the_workflow_runs_the_script_with_options_it_takes() -> None:
    """translation-audit.yml is a workflow GitHub reads, and its command is one audit_posts.py parses."""
    workflow = yaml.safe_load((EXAMPLES / "translation-audit.yml").read_text())
    steps = workflow["jobs"]["audit"]["steps"]
    command = shlex.split(steps[-1]["run"].replace("${{ github.base_ref }}", "main"))
    assert command[:2] == ["python", ".github/audit_posts.py"]
    sys.path.insert(0, str(EXAMPLES))
    try:
        import audit_posts
    finally:
        sys.path.remove(str(EXAMPLES))
    args = audit_posts.arguments().parse_args(command[2:])
    assert (args.base, args.glob, args.key, args.set) == (
        "origin/main",
        "_posts/*.md",
        "org_link",
        ['languages=["ko"]'],
    )
    assert str(args.summary) == "$GITHUB_STEP_SUMMARY"  # the shell expands it on the runner
