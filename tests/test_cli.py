"""The command line: exact output and exit codes, errors as one line, every command documented."""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from differ.arguments import build_parser
from differ.cli import main
from differ.errors import ExitCode
from differ.normalize import NORMALIZER_VERSION
from differ.shapes import RECORD_FIELDS
from differ.store import Store
from tests.conftest import ROOT, Reply, Server, article
from tests.helpers import store_as_read_by

SERVICE = '[service]\nsnapshots = "{store}"\nper_host_delay = "0s"\nretries = 0\n'


def write_config(tmp: Path, server: Server) -> Path:
    path = tmp / "config.toml"
    path.write_text(
        SERVICE.format(store=tmp / "snapshots")
        + f'[[documents]]\nid = "doc"\ntitle = "Doc"\n[documents.canonical]\nid = "canonical"\n'
        f'url = "{server.url("/post")}"\nrobots = false\nallow_private = ["127.0.0.1"]\n'
        f'[[documents.mirrors]]\nid = "gone"\nurl = "{server.url("/gone")}"\nrobots = false\n'
        f'allow_private = ["127.0.0.1"]\n'
    )
    return path


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out=out, err=err, env={})
    return code, out.getvalue(), err.getvalue()


def spawn(config: Path, command: str) -> subprocess.Popen[str]:
    """`differ --config CONFIG COMMAND` as a process of its own, to be sent signals. SIGINT is set back to its
    default in the child: a test run started in the background (`make test &`) ignores it, and so would the child."""
    return subprocess.Popen(
        [sys.executable, "-m", "differ", "--config", str(config), command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def test_check_history_show_diff_verify(tmp_path: Path, server: Server) -> None:
    config = str(write_config(tmp_path, server))
    server.page("/post", article("<p>First words.</p>"))
    code, out, err = run("--config", config, "check")
    assert (code, out) == (
        ExitCode.FAILURE,
        "doc/canonical: new version 1 (first snapshot)\ndoc/gone: failed: HTTP 404 Not Found\n",
    )
    server.page("/post", article("<p>First words, edited.</p>"))
    code, out, _ = run("--config", config, "check", "doc/canonical")
    assert (code, out) == (ExitCode.OK, "doc/canonical: new version 2 (1 change)\n")
    code, out, _ = run("--config", config, "check", "doc/canonical")
    assert out == "doc/canonical: unchanged (same body)\n"
    code, out, _ = run("--config", config, "history", "doc/canonical")
    lines = out.splitlines()
    assert lines[0] == f"doc/canonical  {server.url('/post')}"
    assert re.match(
        r"^    1  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  [0-9a-f]{12}  +0\.\d KB  first snapshot$", lines[2]
    )
    assert (
        lines[3].endswith('1 change: Post › First words, edited.: added "edited"') or "1 change" in lines[3]
    )
    code, out, _ = run("--config", config, "show", "doc/canonical", "--version", "1")
    assert out == "# Post\n\nFirst words.\n"
    code, out, _ = run("--config", config, "diff", "doc/canonical", "--format", "markdown")
    assert out.startswith("**Doc (canonical), version 1 → 2: 1 change.**\n")
    code, out, _ = run("--config", config, "diff", "doc/canonical", "--format", "json")
    assert '"schema": "differ.diff/1"' in out
    code, out, _ = run("--config", config, "diff", "doc/canonical", "--format", "unified")
    lines = out.splitlines()
    assert re.fullmatch(r"--- doc/canonical version 1 \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)", lines[0])
    assert re.fullmatch(r"\+\+\+ doc/canonical version 2 \(.+Z\)", lines[1])
    assert lines[2:] == ["@@ -1,3 +1,3 @@", " # Post", " ", "-First words.", "+First words, edited."]
    code, out, _ = run("--config", config, "verify")
    assert (code, out) == (
        ExitCode.OK,
        f"{tmp_path / 'snapshots'}: 2 sources, 2 versions, 2 raw bodies: ok\n",
    )
    (tmp_path / "snapshots/sources/doc/canonical/versions/000001.md").write_text("forged")
    code, out, _ = run("--config", config, "verify")
    assert code == ExitCode.FAILURE
    assert "damaged: doc/canonical version 1: normalized Markdown was altered\n" in out


def history_rows(config: str, server: Server, pages: list[str]) -> Callable[..., list[str]]:
    """Each page checked as a version of doc/canonical in turn; then `rows(*options)` is `differ history` with
    those options, as its headline and a row a version (number and description; time, hash and size left out)."""
    for body in pages:
        server.page("/post", article(body))
        assert run("--config", config, "check", "doc/canonical")[0] == ExitCode.OK

    def rows(*options: str) -> list[str]:
        code, out, err = run("--config", config, "history", "doc/canonical", *options)
        assert (code, err) == (ExitCode.OK, "")
        lines = out.splitlines()
        assert lines[0] == f"doc/canonical  {server.url('/post')}"
        return [lines[1]] + [
            re.sub(r"^ +(\d+)  \S+Z  [0-9a-f]{12} +\S+ KB  ", r"\1 ", line) for line in lines[3:]
        ]

    return rows


def test_history_narrowed_to_a_word_or_a_section_lists_the_versions_that_touched_it(
    tmp_path: Path, server: Server
) -> None:
    """`history --word` / `--section`: the versions whose edit has such a change (the first version when it has
    such passages), each with how many and the first of them, as `git log -S` finds a string."""
    config = str(write_config(tmp_path, server))
    rows = history_rows(config, server, [
        "<h2>Install</h2><p>Run pip install foo.</p><h2>Security</h2><p>No known issues.</p>",
        "<h2>Install</h2><p>Run pip install foo.</p><h2>Security</h2><p>Fixed CVE-2026-1234 in the parser.</p>",
        "<h2>Install</h2><p>Run pip install foo==2.0.</p><h2>Security</h2><p>Fixed CVE-2026-1234 in the parser.</p>",
        "<h2>Install</h2><p>Run pip install foo==2.0.</p><h2>Security</h2><p>No known issues.</p>",
    ])  # fmt: skip

    assert rows("--word", "cve-*") == [
        '  2 of 4 versions with a change mentioning "cve-*"',
        '2 1 change mentioning "cve-*": Security: "No known issues." → "Fixed CVE-2026-1234 in the parser."',
        '4 1 change mentioning "cve-*": Security: "Fixed CVE-2026-1234 in the parser." → "No known issues."',
    ]
    assert rows("--section", "install") == [
        '  2 of 4 versions with a change under "install"',
        '1 first snapshot: 1 passage under "Install": "Run pip install foo."',
        '3 1 change under "Install": Install: added "==2.0"',
    ]
    assert rows("--section", "install", "--word", "cve-*") == [
        '  0 of 4 versions with a change under "install", mentioning "cve-*"',
    ]
    code, out, _ = run("--config", config, "history", "doc/canonical", "--word", "CVE-*", "--format", "json")
    data = json.loads(out)
    assert (data["mentioning"], "within" in data) == (["CVE-*"], False)
    assert [(v["version"], v["changes"], v["left_out"], v["summary"][0][-38:]) for v in data["versions"]] == [
        (2, 1, 0, 'version 1 → 2: 1 change mentioning "CVE-*" (0 elsewhere).'[-38:]),
        (4, 1, 0, 'version 3 → 4: 1 change mentioning "CVE-*" (0 elsewhere).'[-38:]),
    ]
    page = run("--config", config, "history", "doc/canonical", "--word", "cve-*", "--format", "html")[1]
    assert "<p>2 of 4 versions with a change mentioning &quot;cve-*&quot;</p>" in page
    assert page.count("<tr><td>") == 2
    assert run("--config", config, "history", "doc/canonical", "--word", " ")[2] == (
        'error: --word: expected a word or a pattern such as "CVE-*", found nothing\n'
    )


def test_history_narrowed_to_a_word_finds_a_title_that_has_it(tmp_path: Path, server: Server) -> None:
    config = str(write_config(tmp_path, server))
    page = "<!DOCTYPE html><html><head><title>{}</title></head><body><article><p>Text.</p></article></body></html>"
    for title in ("Widget 3.0", "Widget 3.0 security release"):
        server.page("/post", page.format(title))
        assert run("--config", config, "check", "doc/canonical")[0] == ExitCode.OK
    code, out, _ = run("--config", config, "history", "doc/canonical", "--word", "security")
    row = ' 1 metadata field mentioning "security": metadata › title: "Widget 3.0" → "Widget 3.0 security release"'
    assert (code, out.splitlines()[1], out.splitlines()[3].endswith(row)) == (
        ExitCode.OK,
        '  1 of 2 versions with a change mentioning "security"',
        True,
    )
    data = json.loads(
        run("--config", config, "history", "doc/canonical", "--word", "security", "--format", "json")[1]
    )
    assert [(v["version"], v["changes"], v["metadata"]) for v in data["versions"]] == [(2, 0, 1)]


def test_history_narrowed_to_a_kind_of_change_lists_the_versions_with_one(
    tmp_path: Path, server: Server
) -> None:
    """`history --change removed`: when a passage was taken out; `--change added` starts at the first version,
    whose passages all came then."""
    config = str(write_config(tmp_path, server))
    pages = ["<p>Alpha.</p><p>Beta.</p>", "<p>Alpha.</p>", "<p>Alpha!</p>", "<p>Alpha!</p><p>Gamma.</p>"]
    rows = history_rows(config, server, pages)

    assert rows("--change", "removed") == [
        "  1 of 4 versions with a change of kind removed",
        '2 1 change of kind removed: removed "Beta."',
    ]
    assert rows("--change", "added", "--change", "modified") == [
        "  3 of 4 versions with a change of kinds added, modified",
        '1 first snapshot: 3 passages of kinds added, modified: "Post"',
        '3 1 change of kinds added, modified: "Alpha." → "Alpha!"',
        '4 1 change of kinds added, modified: added at the end: "Gamma."',
    ]
    code, out, _ = run(
        "--config", config, "history", "doc/canonical", "--change", "removed", "--format", "json"
    )
    data = json.loads(out)
    assert (data["kinds"], [(v["version"], v["changes"], v["left_out"]) for v in data["versions"]]) == (
        ["removed"],
        [(2, 1, 0)],
    )
    assert run("--config", config, "history", "doc/canonical", "--change", "deleted")[0] == ExitCode.USAGE


def test_a_followed_feed_s_new_posts_are_watched_as_documents_of_their_own(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """`follow` on a feed's list of posts: each post that comes in with one of its words in its title is added to
    config.toml as `differ add` adds a page (titled, fetched as the feed is), said after the check and checked
    then, so its first version is the post as it came out; the posts there before, and those without the words, are not; a check that follows again (a
    process that died before it kept what it followed) adds nothing twice."""
    import tomllib

    from differ.config import load_config
    from tests.test_notify import notify_toml, slack_receiver

    receiver.routes["/services/T/B/X"] = slack_receiver

    def go(*args: str) -> tuple[int, str, str]:  # differ where the feed's token is set
        out, err = io.StringIO(), io.StringIO()
        code = main(list(args), out=out, err=err, env={"BLOG_TOKEN": "s3cret"})
        return code, out.getvalue(), err.getvalue()

    def feed(*posts: tuple[str, str]) -> str:
        items = "".join(
            f"<item><title>{t}</title><link>{server.url(path)}</link></item>" for t, path in posts
        )
        return f'<rss version="2.0"><channel><title>Blog</title>{items}</channel></rss>'

    config = tmp_path / "config.toml"
    config.write_text(
        SERVICE.format(store=tmp_path / "snapshots")
        + f'[[documents]]\nid = "blog"\n[documents.canonical]\nurl = "{server.url("/feed.xml")}"\nkind = "feed"\n'
        'entry = "*"\nfollow = ["release*"]\nrobots = false\nallow_private = ["127.0.0.1"]\ninterval = "2h"\n'
        'headers = { X-Token = "${BLOG_TOKEN}" }\nfollow_with = { selector = "article", interval = "3h" }\n'
        + notify_toml(receiver)
    )
    old = ("Release 2.13", "/2.13")
    server.page("/feed.xml", feed(old), "application/rss+xml")
    assert go("--config", str(config), "check") == (
        ExitCode.OK,
        "blog/canonical: new version 1 (first snapshot)\n",
        "",
    )
    server.page(
        "/feed.xml", feed(("Team news", "/news"), ("Releases: 2.14", "/2.14"), old), "application/rss+xml"
    )
    server.page("/2.14", article("<p>PyTorch 2.14 is out.</p>", "Releases: 2.14"))
    unfollowed = config.read_text()
    code, out, err = go("--config", str(config), "check")
    assert (code, err) == (ExitCode.OK, "")
    assert out.splitlines() == [
        "blog/canonical: new version 2 (2 changes)",
        'blog/canonical: now watching 1 new post: 2-14/canonical ("Releases: 2.14")',
        "2-14/canonical: new version 1 (first snapshot)",
    ]
    [alert] = [json.loads(hit.body)["blocks"] for hit in receiver.requests_to("/services/T/B/X")]
    assert alert[-1]["elements"][0]["text"].endswith(
        " · now watching 2-14/canonical"
    )  # the alert says so too
    [doc] = tomllib.loads(config.read_text())["documents"][1:]
    assert (doc["id"], doc["title"]) == ("2-14", "Releases: 2.14")
    assert doc["canonical"] == {
        "url": server.url("/2.14"),
        "headers": {"X-Token": "${BLOG_TOKEN}"},  # as the feed's table writes it: no secret written out
        "interval": "3h",  # follow_with's, over the feed's
        "robots": False,
        "allow_private": ["127.0.0.1"],
        "selector": "article",
    }
    assert "s3cret" not in config.read_text()
    assert go("--config", str(config), "check") == (
        ExitCode.OK,
        "blog/canonical: unchanged (same body)\n2-14/canonical: unchanged (same body)\n",
        "",
    )
    state = tmp_path / "snapshots" / "sources" / "blog" / "canonical" / "state.json"
    kept = json.loads(state.read_text())
    assert kept["followed"] == 2
    before = config.read_text()
    config.write_text(unfollowed)
    state.write_text(json.dumps({**kept, "followed": 1}))  # as if it died after storing version 2
    assert go("--config", str(config), "check", "blog/canonical")[1] == (
        "blog/canonical: unchanged (same body)\n"
        'blog/canonical: now watching 1 new post: 2-14/canonical ("Releases: 2.14")\n'
        "2-14/canonical: unchanged (same body)\n"  # its history taken up again
    )  # followed by the next check
    assert config.read_text() == before
    state.write_text(json.dumps({**kept, "followed": 1}))  # as if it died after writing the file
    assert (
        go("--config", str(config), "check", "blog/canonical")[1] == "blog/canonical: unchanged (same body)\n"
    )
    assert config.read_text() == before and json.loads(state.read_text())["followed"] == 2  # nothing twice
    assert [s.key for s in load_config(config, {"BLOG_TOKEN": "s3cret"}).sources()] == [
        "blog/canonical",
        "2-14/canonical",
    ]
    server.page(
        "/feed.xml", feed(("Release 2.15", "/2.15"), ("Releases: 2.14", "/2.14")), "application/rss+xml"
    )
    code, out, _ = go("--config", str(config), "check", "blog/canonical", "--format", "json")
    results = json.loads(out)["results"]
    assert results[0]["followed"] == [
        {"source": "2-15/canonical", "url": server.url("/2.15"), "title": "Release 2.15"}
    ]
    assert (code, [(r["source"], r["outcome"]) for r in results]) == (
        ExitCode.FAILURE,  # the new post is checked with the feed: its page is not there yet
        [("blog/canonical", "new"), ("2-15/canonical", "failed")],
    )
    before = config.read_text()
    config.write_text(before.replace('entry = "*"', f'entry = "{server.url("/2.14")}"'))
    assert go("--config", str(config), "config", "check")[2] == (
        'error: config.toml: documents[0].canonical.follow: only a feed\'s list of posts (entry = "*") has new '
        "posts to follow\n"
    )
    for written, said in (
        ('{ selecter = "article" }', 'selecter: unknown key (did you mean "selector"?); allowed keys: '),
        ('{ url = "https://x.example/" }', "url is each new post's own, not set here"),
        ('{ kind = "json" }', 'missing key "field"'),
        ('"article"', 'expected a table of source options, found "article"'),
    ):
        config.write_text(before.replace('{ selector = "article", interval = "3h" }', written))
        err = go("--config", str(config), "config", "check")[2]
        assert err.startswith(f"error: config.toml: documents[0].canonical.follow_with: {said}"), err


def test_errors_are_one_line_with_exit_codes(tmp_path: Path, server: Server) -> None:
    config = str(write_config(tmp_path, server))
    assert run("--config", str(tmp_path / "none.toml"), "check") == (
        ExitCode.USAGE,
        "",
        f"error: {tmp_path / 'none.toml'}: no such file; start one with: differ add URL (or pass --config FILE)\n",
    )
    assert run("--config", config, "history", "doc/nope") == (
        ExitCode.USAGE,
        "",
        'error: no source "doc/nope"; configured sources: doc/canonical, doc/gone\n',
    )
    assert run("--config", config, "history", "doc/canonicl") == (
        ExitCode.USAGE,
        "",
        'error: no source "doc/canonicl" (did you mean "doc/canonical"?); configured sources: doc/canonical, '
        "doc/gone\n",
    )
    assert run("--config", config, "audit", "dco") == (
        ExitCode.USAGE,
        "",
        'error: no document "dco" (did you mean "doc"?); configured documents: doc\n',
    )
    assert run("--config", config, "show", "doc/canonical") == (
        ExitCode.USAGE,
        "",
        "error: doc/canonical has no versions yet (run: differ check doc/canonical)\n",
    )
    bad = tmp_path / "bad.toml"
    bad.write_text('[[documents]]\nid = "../x"\n')
    code, out, err = run("--config", str(bad), "check")
    assert code == ExitCode.USAGE and err.count("\n") == 1 and "Traceback" not in err


def test_config_check(tmp_path: Path) -> None:
    code = subprocess.run(
        [sys.executable, "-m", "differ", "config", "check", str(ROOT / "config.toml")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert code.returncode == 0
    assert code.stdout == f"{ROOT / 'config.toml'}: ok (1 document, 3 sources, 0 notifiers)\n"


def test_version_says_whether_the_writer_is_compiled() -> None:
    from differ import __version__
    from differ.normalize import compiled_modules

    built = "compiled: html, marks, mdescape, root, tree, writer" if compiled_modules() else "not compiled"
    assert run("--version") == (ExitCode.OK, f"differ {__version__} ({built})\n", "")


def test_every_command_has_help_and_is_documented() -> None:
    """Each command is in the README's table and told in full in docs/commands.md."""
    readme = (ROOT / "README.md").read_text()
    full = (ROOT / "docs" / "commands.md").read_text()
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in sub.choices:  # type: ignore[union-attr]
        assert f"differ {name}" in readme and f"`differ {name}" in full, name
        help_text = subprocess.run(
            [sys.executable, "-m", "differ", name, "--help"], capture_output=True, text=True
        )
        assert help_text.returncode == 0 and help_text.stdout.startswith("usage: differ " + name)


def test_a_missing_argument_names_only_what_is_required() -> None:
    """A positional that may be left out (`SOURCE…`, `N…`) is never named among the required ones."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    parsers = list(sub.choices.values())  # type: ignore[union-attr]
    for p in parsers:
        for action in p._actions:
            if action.option_strings:
                continue
            if action.choices and isinstance(action.choices, dict):
                parsers += action.choices.values()
            elif action.nargs in ("*", "?"):
                assert not action.required, (p.prog, action.metavar)
    said = subprocess.run([sys.executable, "-m", "differ", "export"], capture_output=True, text=True)
    assert (said.returncode, said.stderr.splitlines()[-1]) == (
        ExitCode.USAGE,
        "differ export: error: the following arguments are required: DIR",
    )


DOCS = [ROOT / "README.md", ROOT / "RELIABILITY.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_readme_config_examples_load() -> None:
    from differ.config import parse_config

    blocks = [block for doc in DOCS for block in re.findall(r"```toml\n(.*?)```", doc.read_text(), re.DOTALL)]
    assert len(blocks) >= 2
    for block in blocks:
        parse_config(
            block,
            Path("config.toml"),
            {
                "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T/B/C",
                "WEBHOOK_SECRET": "whsec_" + "a" * 40,
                "SMTP_PASSWORD": "secret",
                "IA_ACCESS_KEY": "AK",
                "IA_SECRET_KEY": "S3CRET",
                "GITHUB_TOKEN": "github_pat_x",
            },
        )


def test_the_docs_links_lead_somewhere() -> None:
    """Every link from the README or a doc to another file of the project names a file there, and a heading
    of it when it names one (as GitHub makes a heading's anchor)."""

    def anchors(doc: Path) -> set[str]:
        headings = re.findall(r"(?m)^#+ (.+)$", doc.read_text())
        return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}

    links = 0
    for doc in DOCS:
        prose = re.sub(r"(?s)```.*?```|`[^`\n]*`", "", doc.read_text())  # code is not a link
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            linked = (doc.parent / path).resolve() if path else doc
            assert linked.is_file(), f"{doc.name}: {target}"
            assert not anchor or anchor in anchors(linked), f"{doc.name}: {target}"
            links += 1
    assert links >= 10


def test_run_service_stops_cleanly_on_sigterm(tmp_path: Path, server: Server) -> None:
    server.page("/post", article("<p>Text.</p>"))
    config = write_config(tmp_path, server)
    text = config.read_text().replace("retries = 0\n", 'retries = 0\ninterval = "1s"\n')
    config.write_text(text)
    proc = spawn(config, "run")
    deadline = time.monotonic() + 30
    # the mirror's third 404 makes it `failing` on the index; its fourth request starts after that check wrote it
    while time.monotonic() < deadline and (
        len(server.requests_to("/post")) < 3 or len(server.requests_to("/gone")) < 4
    ):
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
    assert re.search(rf"^{stamp} doc/canonical: new version 1 \(first snapshot\)$", out, re.M)
    assert re.search(rf"^{stamp} doc/canonical: unchanged \(same body\)$", out, re.M)
    assert err.strip().endswith("differ: stopped")
    assert len(server.requests_to("/post")) >= 3
    assert threading.active_count() >= 1
    index = (
        tmp_path / "snapshots/reports/index.html"
    ).read_text()  # flushed by the service, at the latest on exit
    assert "<td>1</td>" in index and "failing (" in index  # the canonical's version; the mirror's 404s


def test_a_page_added_while_the_service_runs_is_watched_without_a_restart(
    tmp_path: Path, server: Server
) -> None:
    server.page("/post", article("<p>Text.</p>"))
    server.page("/late", article("<p>Added later.</p>"))
    config = write_config(tmp_path, server)
    proc = spawn(config, "run")
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not server.requests_to("/post"):
            time.sleep(0.1)
        code, _, err = run(
            "--config", str(config), "add", server.url("/late"), "--set", 'allow_private=["127.0.0.1"]'
        )
        assert (code, err) == (ExitCode.OK, "")
        while time.monotonic() < deadline and not server.requests_to("/late"):
            time.sleep(0.1)
        assert server.requests_to("/late"), "the added page was never fetched"
        time.sleep(0.5)  # its check writes and logs
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "differ: config.toml reloaded: 3 sources; added late/canonical\n" in err
    assert re.search(r"^\S+ late/canonical: new version 1 \(first snapshot\)$", out, re.M), out


def test_a_page_slower_than_its_interval_leaves_no_scheduler_chatter(tmp_path: Path, server: Server) -> None:
    """A run skipped because the check before it is still going is the design (never overlapping), not news:
    the service's stderr keeps to its own lines."""
    server.page("/post", article("<p>Slow.</p>"), delay=2.5)
    config = write_config(tmp_path, server)
    config.write_text(config.read_text().replace("retries = 0\n", 'retries = 0\ninterval = "1s"\n'))
    proc = spawn(config, "run")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(server.requests_to("/post")) < 2:
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert len(server.requests_to("/post")) >= 2
    assert (proc.returncode, err) == (
        0,
        f"differ: watching 2 sources; store {tmp_path / 'snapshots'}; Ctrl-C to stop\ndiffer: stopped\n",
    )


def test_ctrl_c_during_a_check_starts_no_new_source(tmp_path: Path, server: Server) -> None:
    """SIGINT while six slow pages of one host are checked: the check under way finishes its write, the rest
    are not started, the exit code is 130, and the store is whole."""
    lines = [SERVICE.format(store=tmp_path / "snapshots") + "workers = 2\n"]
    for n in range(6):
        server.page(f"/p{n}", article(f"<p>Page {n}.</p>"), delay=1.0)
        lines.append(
            f'[[documents]]\nid = "d{n}"\n[documents.canonical]\nurl = "{server.url(f"/p{n}")}"\n'
            'robots = false\nallow_private = ["127.0.0.1"]\n'
        )
    config = tmp_path / "config.toml"
    config.write_text("".join(lines))
    proc = spawn(config, "check")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not server.hits:
        time.sleep(0.05)
    time.sleep(0.3)  # the first page is being answered
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert (proc.returncode, err) == (ExitCode.INTERRUPTED, "interrupted\n")
    assert len(server.hits) < 6
    assert run("--config", str(config), "verify")[0] == ExitCode.OK


def test_demo_replays_the_edit() -> None:
    out = io.StringIO()
    assert main(["demo"], out=out) == ExitCode.OK
    text = out.getvalue()
    assert "pytorch-2-13/canonical: unchanged (page noise only)" in text
    assert "pytorch-2-13/canonical: new version 2 (3 changes, 1 metadata field)" in text
    assert "author's note (added at the end): \"Updated (7/8): Removed two instances of prototype" in text
    assert "wpnews: version 1 matches canonical version 1 — stale (the canonical is at version 2)" in text
    assert "pytorch-kr: version 1 matches canonical version 2 — up to date" in text
    assert 'missing [Performance Improvements]: the heading "Large MPS Op Migration to Native Metal"' in text
    assert '    • extra: the heading "Featured projects"\n' in text
    assert "Slack: PyTorch 2.13 Release Blog changed (canonical)" in text
    assert (
        "Slack: Mirror wpnews of PyTorch 2.13 Release Blog is stale: matches version 1, canonical is at 2"
        in text
    )
    assert "webhook: differ.changed" in text and "(signature ok)" in text
    drift = text.split("webhook: differ.mirror_drift", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    assert (
        [re.sub(r" \(edited in .*", "", line) for line in drift]
        == [  # the replay's three edits, and where
            "    to carry over: The PyTorch 2.13 release features the following changes › CuTeDSL “Native DSL” backend",
            # the aggregator joined the list's items into one paragraph
            "      in wpnews, within “FlexAttention lands on Apple Silicon (MPS)” (under Featured projects)",
            "    to carry over: Non-Feature Updates › Python support",
            "      in wpnews, within “Python support” (under Non-Feature Updates)",
            "    to carry over: Non-Feature Updates › Updated (7/8): Removed two instances of …",
            "      new to wpnews: after “Python support” (under Non-Feature Updates)",  # the author's note, new since its copy
        ]
    )
    copies = text.split("copies the web archive keeps", 1)[1].split("\n\n", 1)[0]
    assert re.findall(
        r"^  (\S+ version \d+): http://127\.0\.0\.1:\d+/web/\d{14}/http", copies, re.MULTILINE
    ) == [
        "pytorch-2-13/canonical version 1",
        "pytorch-2-13/canonical version 2",
        "pytorch-2-13/wpnews version 1",
        "pytorch-2-13/pytorch-kr version 1",
    ]
    assert copies.endswith("\n  then differ verify --captures: 4 of 4 copies read as differ's versions")
    readme = (ROOT / "README.md").read_text()
    [shown] = [block for block in re.findall(r"```text\n(.*?)```", readme, re.DOTALL) if "step 3 ·" in block]
    assert shown in text  # the README's excerpt is what the demo prints, word for word
    late = text.split("a watcher who starts after the edit reads the history from a web archive", 1)[1]
    assert (
        "    2026-07-08 18:00  same text (page noise only)\n    2026-07-08 21:00  version 2 (3 changes)\n"
        in late
    )
    assert "  then differ audit: wpnews: version 1 matches canonical version 1 — stale" in late
    assert text.endswith(
        "\n\nto keep the store and its reports site (a page per document, an HTML diff per edit): "
        "differ demo --keep DIR\n"
    )


def test_renormalize_keeps_the_old_form(tmp_path: Path, server: Server) -> None:
    from differ.store import Store

    config = str(write_config(tmp_path, server))
    page = article("<p>Some   <b>text</b>.</p>")
    store = Store(tmp_path / "snapshots")
    html = "text/html; charset=utf-8"
    store_as_read_by(
        store, "doc/canonical", 0, raw=page, markdown="old form\n", url=server.url("/post"), ctype=html
    )
    assert run("--config", config, "renormalize") == (
        ExitCode.OK,
        f"renormalized 1 version with normalizer {NORMALIZER_VERSION}\n",
        "",
    )
    assert run("--config", config, "show", "doc/canonical")[1] == "# Post\n\nSome **text**.\n"
    v = store.latest("doc/canonical")
    assert v is not None and store.markdown(v, 0) == "old form\n"
    assert run("--config", config, "renormalize") == (
        ExitCode.OK,
        f"renormalized 0 versions with normalizer {NORMALIZER_VERSION}\n",
        "",
    )
    assert run("--config", config, "verify")[0] == ExitCode.OK


def test_renormalize_keeps_a_version_that_no_longer_reads_and_does_the_others(
    tmp_path: Path, server: Server
) -> None:
    """A selector set for the page's new layout matches nothing on its older versions: those keep the forms they
    have, are named on stderr by their cause, once for all of them, and the others are read all the same (exit 1)."""
    from differ.store import Store

    config = write_config(tmp_path, server)
    config.write_text(
        config.read_text().replace('id = "canonical"\n', 'id = "canonical"\nselector = "main"\n', 1)
    )
    store = Store(tmp_path / "snapshots")
    html, url = "text/html; charset=utf-8", server.url("/post")
    for n, layout in enumerate(("<div>{}</div>", "<div>{} Again.</div>", "<main>{}</main>")):
        page = "<html><body>" + layout.format(f"<p>Version {n + 1}.</p>") + "</body></html>"
        store_as_read_by(
            store, "doc/canonical", 0, raw=page, markdown=f"old form {n + 1}\n", url=url, ctype=html
        )
    assert run("--config", str(config), "renormalize") == (
        ExitCode.FAILURE,
        f"renormalized 1 version with normalizer {NORMALIZER_VERSION}\n",
        'doc/canonical: versions 1, 2 kept as read before: selector "main" matches nothing on the page\n',
    )
    assert run("--config", str(config), "show", "doc/canonical")[1] == "Version 3.\n"
    assert run("--config", str(config), "show", "doc/canonical", "--version", "1")[1] == "old form 1\n"
    from differ.commands import listed_versions

    assert [listed_versions(n) for n in ([3], [1, 2], [1, 2, 3, 4, 7, 9, 10])] == [
        "version 3",
        "versions 1, 2",
        "versions 1–4, 7, 9, 10",
    ]


def test_audit_json_and_history_reach_on_the_demo_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    monkeypatch.chdir(tmp_path)  # a relative --keep, as people type it
    shown = io.StringIO()
    assert main(["demo", "--keep", "kept"], out=shown) == ExitCode.OK
    site = shown.getvalue().rstrip().splitlines()[-1]
    assert (
        site == "the reports site: kept/snapshots/reports/index.html" and Path(site.split(": ")[1]).is_file()
    )
    config = str(tmp_path / "kept" / "demo.toml")
    # the blame it suggests: the three passages the edit touched, each with its versions
    suggested = shown.getvalue().rstrip().splitlines()[-2]
    assert suggested.endswith(
        "or blame pytorch-2-13/canonical --after 1 for the passages edited since version 1)"
    )
    blamed = json.loads(
        run("--config", config, "blame", "pytorch-2-13/canonical", "--after", "1", "--format", "json")[1]
    )
    assert [(b["edited"]["version"], b["since"]["version"], b["label"]) for b in blamed["blocks"]] == [
        (2, 1, "CuTeDSL “Native DSL” backend"),
        (2, 1, "Python support"),
        (2, 2, "Updated (7/8): Removed two instances of …"),
    ]
    # what a copy has to carry over: the passages edited after the version it matches, as they are now (the
    # audit names the command, for a copy behind alone)
    said = run("--config", config, "audit", "pytorch-2-13")[1].splitlines()
    assert (  # how many: in the mirror's last audit, as `differ sources` gives it
        "    last audit: version 1 matches canonical version 1 — stale (the canonical is at version 2), 3 passages "
        "to carry over; coverage 99.1%; 3 findings"
    ) in run("--config", config, "sources", "pytorch-2-13/wpnews")[1].splitlines()
    hint = "  the passages to carry over, as they now read: differ blame pytorch-2-13 --after pytorch-2-13/wpnews"
    assert [line for line in said if "as they now read" in line] == [hint]
    assert said.index(hint) < said.index(next(line for line in said if line.startswith("pytorch-kr: ")))
    assert run("--config", config, *hint.split(": ", 1)[1].split()[1:]) == run(
        "--config", config, "blame", "pytorch-2-13/canonical", "--after", "pytorch-2-13/wpnews"
    )
    code, out, _ = run(
        "--config", config, "blame", "pytorch-2-13/canonical", "--after", "pytorch-2-13/wpnews"
    )
    assert (code, out.splitlines()[2], len(re.findall(r"^ +2  \S+Z +[12]  ", out, re.M))) == (
        ExitCode.OK,
        "  3 blocks edited after version 1, which pytorch-2-13/wpnews matches",
        3,
    )

    def blamed(fmt: str) -> tuple[int, str, str]:
        after = ("--after", "pytorch-2-13/wpnews", "--format", fmt)
        return run("--config", config, "blame", "pytorch-2-13/canonical", *after)

    as_json = blamed("json")
    assert {k: v for k, v in json.loads(as_json[1]).items() if k.startswith("after")} == {
        "after": 1,
        "after_mirror": "pytorch-2-13/wpnews",
    }
    # each with its place in the copy: where its maintainer finds what to rewrite, or where a new one goes
    assert [line.strip() for line in out.splitlines() if "wpnews" in line][1:] == [
        "in wpnews, within “FlexAttention lands on Apple Silicon (MPS)” (under Featured projects)",
        "in wpnews, within “Python support” (under Non-Feature Updates)",
        "new to wpnews: after “Python support” (under Non-Feature Updates)",
    ]
    assert [b["in_copy"] for b in json.loads(as_json[1])["blocks"]][2] == {
        "renders": False,
        "within": False,
        "block": "paragraph",
        "label": "Python support",
        "section": ["Non-Feature Updates"],
    }
    page = blamed("html")[1]
    assert "<td class=quiet>new to wpnews: after “Python support” (under Non-Feature Updates)</td>" in page
    code, out, _ = run(
        "--config", config, "blame", "pytorch-2-13/canonical", "--after", "pytorch-2-13/pytorch-kr"
    )
    assert (code, out.splitlines()[2:]) == (
        ExitCode.OK,
        ["  0 blocks edited after version 2, which pytorch-2-13/pytorch-kr matches"],
    )
    assert run("--config", config, "blame", "pytorch-2-13/wpnews", "--after", "pytorch-2-13/pytorch-kr")[
        ::2
    ] == (
        ExitCode.USAGE,
        "error: --after pytorch-2-13/pytorch-kr: expected a version, or a mirror of pytorch-2-13 when blaming its "
        "canonical\n",
    )
    # the audit in Markdown, HTML and JSON carries those passages too, under the copy behind
    from markdown_it import MarkdownIt

    as_md = run("--config", config, "audit", "pytorch-2-13", "--format", "markdown")[1]
    rendered = MarkdownIt("commonmark").render(as_md)
    assert rendered.count('<pre><code class="language-markdown">') == 3  # each passage's Markdown, to copy
    assert (
        "  - To carry over: the canonical's 3 passages edited after version 1, as they now read:\n" in as_md
    )
    assert "      new to wpnews: after “Python support” (under Non-Feature Updates)\n" in as_md
    as_html = run("--config", config, "audit", "pytorch-2-13", "--format", "html")[1]
    assert "<details><summary>The 3 passages as they now read</summary>" in as_html
    assert "<br><i>new to wpnews: after “Python support” (under Non-Feature Updates)</i>" in as_html
    audited = json.loads(run("--config", config, "audit", "pytorch-2-13", "--format", "json")[1])
    wp, kr = audited["mirrors"]
    assert (wp["passages_behind"], len(wp["carry_over"]["passages"]), "carry_over" in kr) == (3, 3, False)
    code, out, _ = run("--config", config, "audit", "pytorch-2-13", "--format", "json")
    assert run("--config", config, "audit", "pytorch-2-13", "--format", "json", "--exit-code") == (
        ExitCode.FAILURE,
        out,
        "",
    )
    # Without a document named, every document with mirrors, in one object
    every = run("--config", config, "audit", "--format", "json")
    assert (every[0], json.loads(every[1])) == (
        ExitCode.OK,
        {"schema": "differ.audits/1", "documents": [json.loads(out)]},
    )
    data = json.loads(out)
    assert (code, data["schema"], data["document"], data["canonical_version"]) == (
        0,
        "differ.audit/1",
        "pytorch-2-13",
        2,
    )
    mirrors = {m["id"]: m for m in data["mirrors"]}
    assert mirrors["wpnews"]["matches_version"] == 1 and mirrors["pytorch-kr"]["matches_version"] == 2
    assert [(f["kind"], f.get("count", 1)) for f in mirrors["wpnews"]["findings"]] == [
        ("stale", 1),
        ("extra", 1),
        ("code_corrupted", 4),
    ]
    finding = mirrors["pytorch-kr"]["findings"][0]
    assert finding == {
        "kind": "missing",
        "section": ["Performance Improvements"],
        "canonical": "Large MPS Op Migration to Native Metal",
        "mirror": None,
        "detail": "heading",
        "line": 'missing [Performance Improvements]: the heading "Large MPS Op Migration to Native Metal"',
    }
    assert mirrors["wpnews"]["reached"] == [
        {
            "canonical_version": 2,
            "canonical_fetched_at": "2026-07-08T21:00:00Z",
            "mirror_version": None,
            "mirror_fetched_at": None,
        }
    ]
    code, out, _ = run("--config", config, "history", "pytorch-2-13/pytorch-kr")
    assert out.splitlines()[-2:] == [
        "  canonical edits reaching pytorch-2-13/pytorch-kr:",
        "    canonical version 2 (2026-07-08T21:00:00Z): mirror version 1 (2026-07-09T09:40:00Z)",
    ]
    code, out, _ = run("--config", config, "audit", "--format", "html")
    assert "canonical version 2 (2026-07-08T21:00:00Z): not yet" in out


def test_audit_without_a_document_is_every_document_with_mirrors_in_one_output(
    tmp_path: Path, server: Server
) -> None:
    """Two documents with a mirror each and one page watched alone: text one audit after the other, JSON one
    object, HTML one page; the page alone is not audited, and named, is refused with what would audit it."""
    config = write_config(tmp_path, server)
    local = 'robots = false\nallow_private = ["127.0.0.1"]\n'
    text = config.read_text().replace("/gone", "/copy")
    text += f'[[documents]]\nid = "two"\n[documents.canonical]\nurl = "{server.url("/two")}"\n{local}'
    text += f'[[documents.mirrors]]\nid = "copy"\nurl = "{server.url("/copy")}"\n{local}'
    text += f'[[documents]]\nid = "alone"\n[documents.canonical]\nurl = "{server.url("/alone")}"\n{local}'
    config.write_text(text)
    for path in ("/post", "/two", "/alone", "/copy"):
        server.page(path, article("<p>The same words for everyone.</p>"))
    assert run("--config", str(config), "check")[0] == ExitCode.OK
    code, out, _ = run("--config", str(config), "audit")
    heads = [line.split(":")[0] for line in out.splitlines() if not line.startswith((" ", "copy:", "gone:"))]
    assert (code, heads) == (ExitCode.OK, ["Doc (doc)", "Post (two)"])
    code, out, _ = run("--config", str(config), "audit", "--format", "json")
    data = json.loads(out)
    assert (data["schema"], [d["document"] for d in data["documents"]]) == ("differ.audits/1", ["doc", "two"])
    assert [d["schema"] for d in data["documents"]] == ["differ.audit/1"] * 2
    code, out, _ = run("--config", str(config), "audit", "--format", "html")
    assert (out.count("<!DOCTYPE html>"), out.count("<section>"), "Audit of 2 documents" in out) == (
        1,
        2,
        True,
    )
    code, out, _ = run("--config", str(config), "audit", "--format", "markdown")
    assert "findings\n\n**Post (two)" in out  # apart, so that the second does not join the first's list
    assert run("--config", str(config), "audit", "alone") == (
        ExitCode.USAGE,
        "",
        "error: alone has no mirrors to audit; add one: differ add URL --to alone\n",
    )
    record = tmp_path / "snapshots/sources/doc/canonical/versions/000001.json"
    record.write_text("[]")  # a canonical's history damaged: the other documents are audited
    code, out, err = run("--config", str(config), "audit")
    assert (code, out.splitlines()[0].split(":")[0], err.split(": ")[:2]) == (
        ExitCode.FAILURE,
        "Post (two)",
        ["differ", "doc"],
    )
    assert err.startswith("differ: doc: not audited: ") and err.count("\n") == 1
    assert run("--config", str(config), "audit", "doc")[0] == ExitCode.STORE  # asked for by name: one line


def test_fetch_prints_the_markdown_and_where_it_was_read(
    tmp_path: Path, server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(write_config(tmp_path, server))
    page = article("<p>First words.</p>")
    server.page("/post", page)
    out, err = io.StringIO(), io.StringIO()
    assert main(["--config", config, "fetch", "doc/canonical"], out=out, err=err, env={}) == ExitCode.OK
    assert out.getvalue() == "# Post\n\nFirst words.\n"
    assert err.getvalue() == (
        f"<!-- doc/canonical: HTTP 200, {len(page.encode())} bytes, 3 words, read from <article>, "
        'metadata {"title": "Post"} -->\n'
    )
    assert not (tmp_path / "snapshots" / "sources").exists()  # a dry run stores nothing
    feed = '<link rel="alternate" type="application/rss+xml" title="Blog" href="/feed.xml">'
    server.page("/post", page.replace("</head>", feed + "</head>"))
    out, err = io.StringIO(), io.StringIO()
    assert main(["--config", config, "fetch", "doc/canonical"], out=out, err=err, env={}) == ExitCode.OK
    assert (
        f"read from <article>, the page names a feed <{server.url('/feed.xml')}>, metadata" in err.getvalue()
    )
    # what a blog's theme put under the post, left out, is said (a reader missing the comments knows why)
    themed = "<div id='comments' class='comments-area'><p>Nice!</p></div><div class='sharedaddy'>Share</div>"
    for extra in range(2):
        server.page(
            "/post", article("<p>First words.</p>" + themed + "<div class='share'>Tweet</div>" * extra * 2)
        )
        out, err = io.StringIO(), io.StringIO()
        assert main(["--config", config, "fetch", "doc/canonical"], out=out, err=err, env={}) == ExitCode.OK
        assert out.getvalue() == "# Post\n\nFirst words.\n"
        assert (
            'read from <article> less the theme\'s <div id="comments" class="comments-area">, <div class="sharedaddy">'
            + (', <div class="share"> and 1 more' if extra else "")
            + ", metadata"
        ) in err.getvalue()


def test_fetch_says_a_page_moved_for_good(tmp_path: Path, server: Server) -> None:
    """`differ add` says to try a page with `differ fetch`: there a page that redirects for good says where."""
    config = str(write_config(tmp_path, server))
    server.routes["/post"] = Reply(301, headers={"Location": "/2026/post/"})
    server.page("/2026/post/", article("<p>First words.</p>"))
    out, err = io.StringIO(), io.StringIO()
    assert main(["--config", config, "fetch", "doc/canonical"], out=out, err=err, env={}) == ExitCode.OK
    new = server.url("/2026/post/")
    assert err.getvalue().splitlines()[-1] == (
        f"<!-- note: moved permanently to {new} (update its url: differ set doc/canonical url={new}) -->"
    )


def test_the_command_a_moved_page_names_updates_its_url_and_its_history_goes_on(
    tmp_path: Path, server: Server
) -> None:
    """`differ status` names the `differ set` that follows a page's move; run as said, the same source watches
    the new address: the next check is of the same page (no change), the note is gone, the history goes on."""
    config = str(write_config(tmp_path, server))
    server.page("/2026/post/", article("<p>First words.</p>"))
    server.routes["/post"] = Reply(301, headers={"Location": "/2026/post/"})
    assert run("--config", config, "remove", "doc/gone")[0] == ExitCode.OK  # never checked: a problem
    assert run("--config", config, "check", "doc/canonical")[0] == ExitCode.OK
    code, out, _ = run("--config", config, "status")
    new = server.url("/2026/post/")
    command = f"differ set doc/canonical url={new}"
    assert (code, out.splitlines()[1]) == (
        ExitCode.OK,
        f"  note: moved: doc/canonical: moved permanently to {new} (update its url: {command})",
    )
    assert run("--config", config, *command.split()[1:])[:2] == (
        ExitCode.OK,
        f'doc/canonical: url = "{new}" (was "{server.url("/post")}")\n'
        f"written to {config}; try it: differ --config {config} fetch doc/canonical\n",
    )
    del server.routes["/post"]  # the old address is gone for good
    assert run("--config", config, "check", "doc/canonical")[:2] == (
        ExitCode.OK,
        "doc/canonical: unchanged (same body)\n",
    )
    assert "moved" not in run("--config", config, "status")[1]
    server.page("/2026/post/", article("<p>Second words.</p>"))
    assert run("--config", config, "check", "doc/canonical")[1].startswith(
        "doc/canonical: new version 2 (1 change)"
    )
    history = run("--config", config, "history", "doc/canonical")[1].splitlines()
    assert history[-1].endswith(f"; url now {new}")  # the record says where the source was pointed
    assert not history[-2].endswith(new)
    versions = json.loads(run("--config", config, "history", "doc/canonical", "--format", "json")[1])[
        "versions"
    ]
    assert [v["url"] for v in versions] == [server.url("/post"), new]


def test_fetch_of_a_wordpress_page_read_whole_names_the_kind_that_reads_the_post(
    tmp_path: Path, server: Server
) -> None:
    """The theme around a WordPress post changes with the site; the REST API serves the post alone."""
    config = write_config(tmp_path, server)
    made = '<meta name="generator" content="WordPress 6.8.1">'
    server.page("/post", article("<p>First words.</p>").replace("</head>", made + "</head>"))
    code, _, err = run("--config", str(config), "fetch", "doc/canonical")
    assert (code, err.splitlines()[-1]) == (
        ExitCode.OK,
        "<!-- note: the page is made by WordPress: differ set doc/canonical kind=wordpress reads the post itself "
        "through the site's REST API, without the theme around it (or selector=… the element it is in) -->",
    )
    assert run("--config", str(config), "set", "doc/canonical", "selector=article")[0] == ExitCode.OK
    assert "WordPress" not in run("--config", str(config), "fetch", "doc/canonical")[2]


def test_fetch_of_a_discourse_topics_page_names_the_kind_that_reads_its_first_post(
    tmp_path: Path, server: Server
) -> None:
    """A forum topic's page carries its replies; the `discourse` kind reads its first post alone."""
    config = str(write_config(tmp_path, server))
    topic = server.url("/t/pytorch-2-13/9876")
    server.page(
        "/t/pytorch-2-13/9876",
        '<html><head><meta name="generator" content="Discourse 3.2.0"></head><body><div id="main-outlet">'
        "<p>PyTorch 2.13 is out.</p><p>Congratulations!</p></div></body></html>",
    )
    raw = {
        "post_stream": {
            "posts": [{"raw": 'PyTorch 2.13 is out.\n\n[details="Notes"]\nAll of it.\n[/details]'}]
        }
    }
    server.page("/t/9876.json?include_raw=1", json.dumps(raw), "application/json")
    assert run("--config", config, "set", "doc/canonical", f"url={topic}")[0] == ExitCode.OK
    code, out, err = run("--config", config, "fetch", "doc/canonical")
    assert (code, out, err.splitlines()[-1]) == (
        ExitCode.OK,
        "PyTorch 2.13 is out.\n\nCongratulations!\n",
        "<!-- note: differ set doc/canonical kind=discourse reads the topic's first post alone, through the "
        "forum's API, as its page shows it -->",
    )
    assert run("--config", config, "set", "doc/canonical", "kind=discourse")[0] == ExitCode.OK
    code, out, err = run("--config", config, "fetch", "doc/canonical")
    assert (code, out, "note:" in err) == (
        ExitCode.OK,
        "PyTorch 2.13 is out.\n\nNotes\n\nAll of it.\n",
        False,
    )


def test_fetch_of_a_canonical_names_the_translations_it_links_that_are_not_watched(
    tmp_path: Path, server: Server
) -> None:
    """`<link rel="alternate" hreflang>`: the page's translations, itself and `x-default` aside, less those its
    document already watches as mirrors."""
    config = write_config(tmp_path, server)
    links = (
        f'<link rel="alternate" hreflang="en" href="{server.url("/post")}">'
        '<link rel="alternate" hreflang="x-default" href="/post">'
        '<link rel="alternate" hreflang="ko" href="/ko/post">'
        '<link rel="alternate" hreflang="ja" href="/ja/post#top">'
        '<link rel="alternate" type="application/rss+xml" href="/feed.xml">'
    )
    server.page("/post", article("<p>First words.</p>").replace("</head>", links + "</head>"))
    code, _, err = run("--config", str(config), "fetch", "doc/canonical")
    assert (code, err.splitlines()[-1]) == (
        ExitCode.OK,
        f"<!-- note: the page names 2 translations not watched yet: ko <{server.url('/ko/post')}>, ja "
        f"<{server.url('/ja/post#top')}>; differ add URL --to doc audits one as a mirror of it -->",
    )
    assert run("--config", str(config), "add", server.url("/ko/post"), "--to", "doc")[0] == ExitCode.OK
    code, _, err = run("--config", str(config), "fetch", "doc/canonical")
    assert err.splitlines()[-1] == (
        f"<!-- note: the page names 1 translation not watched yet: ja <{server.url('/ja/post#top')}>; differ "
        "add URL --to doc audits one as a mirror of it -->"
    )
    # the same page however its address is written: a trailing slash, a fragment, tracking parameters
    assert run("--config", str(config), "add", server.url("/ja/post/?utm_source=x"), "--to", "doc")[0] == 0
    assert "note: the page names" not in run("--config", str(config), "fetch", "doc/canonical")[2]


def test_the_translations_a_watched_page_names_are_kept_at_each_check_and_listed_until_watched(
    tmp_path: Path, server: Server
) -> None:
    """A link in the page's head makes no new version, but each check keeps what the page names: `differ sources`
    and the document's report page list the translations no mirror watches."""
    config = str(write_config(tmp_path, server))
    page = article("<p>First words.</p>")
    ko = f'<link rel="alternate" hreflang="ko" href="{server.url("/ko/post")}">'
    server.page("/post", page.replace("</head>", ko + "</head>"))
    assert run("--config", config, "check", "doc/canonical")[0] == ExitCode.OK
    ja = '<link rel="alternate" hreflang="ja" href="/ja/post">'
    server.page("/post", page.replace("</head>", ko + ja + "</head>"))
    code, out, _ = run("--config", config, "check", "doc/canonical")
    assert (code, out) == (ExitCode.OK, "doc/canonical: unchanged (page noise only)\n")
    code, out, _ = run("--config", config, "sources")
    assert (
        f"    translations not watched: ko <{server.url('/ko/post')}>, ja <{server.url('/ja/post')}>" in out
    )
    code, out, _ = run("--config", config, "sources", "--format", "json")
    canonical = json.loads(out)["documents"][0]["sources"][0]
    assert [t["language"] for t in canonical["translations"]] == ["ko", "ja"]
    report = (tmp_path / "snapshots" / "reports" / "doc" / "index.html").read_text()
    assert "<h2>Translations not watched</h2>" in report and f'href="{server.url("/ja/post")}"' in report
    assert run("--config", config, "add", server.url("/ko/post"), "--to", "doc")[0] == ExitCode.OK
    code, out, _ = run("--config", config, "sources")
    assert f"    translations not watched: ja <{server.url('/ja/post')}>" in out
    server.page("/post", page.replace("</head>", "<title>Post</title></head>"))  # names none now
    run("--config", config, "check", "doc/canonical")
    assert "translations not watched" not in run("--config", config, "sources")[1]


def test_a_translation_the_page_names_is_added_under_its_language(tmp_path: Path, server: Server) -> None:
    """`differ add URL --to DOC` names a mirror the canonical page gives as its translation by that language
    (`hreflang`), whatever its address says; another address by the language it gives, else by its host (by
    the page's own name on a host that is a machine's address)."""
    config = str(write_config(tmp_path, server))
    link = '<link rel="alternate" hreflang="pt-BR" href="/traducao/post">'
    server.page("/post", article("<p>First words.</p>").replace("</head>", link + "</head>"))
    assert run("--config", config, "check", "doc/canonical")[0] == ExitCode.OK
    code, out, _ = run("--config", config, "add", server.url("/traducao/post"), "--to", "doc")
    assert (code, out.split(" to ")[0]) == (ExitCode.OK, "added doc/pt-br")
    code, out, _ = run("--config", config, "add", server.url("/ja/post"), "--to", "doc")
    assert (code, out.split(" to ")[0]) == (ExitCode.OK, "added doc/ja")
    code, out, _ = run("--config", config, "add", server.url("/elsewhere/post"), "--to", "doc")
    assert (code, out.split(" to ")[0]) == (
        ExitCode.OK,
        "added doc/post",
    )  # a machine's address: the page's name


def test_front_matter_of_a_markdown_source_is_metadata(tmp_path: Path, server: Server) -> None:
    config = write_config(tmp_path, server)
    config.write_text(
        config.read_text().replace('id = "canonical"\n', 'id = "canonical"\nkind = "markdown"\n')
    )
    post = (
        "---\ntitle: Announcing 1.0\ndate: 2026-07-08\nlayout: post\n---\n\nWe are happy to announce 1.0.\n"
    )
    server.page("/post", post, "text/markdown; charset=utf-8")
    assert run("--config", str(config), "check", "doc/canonical") == (
        ExitCode.OK,
        "doc/canonical: new version 1 (first snapshot)\n",
        "",
    )
    server.page("/post", post.replace("layout: post", "layout: release"), "text/markdown; charset=utf-8")
    assert (
        run("--config", str(config), "check", "doc/canonical")[1]
        == "doc/canonical: unchanged (page noise only)\n"
    )
    server.page("/post", post.replace("Announcing 1.0", "Announcing 1.0.0"), "text/markdown; charset=utf-8")
    assert run("--config", str(config), "check", "doc/canonical")[1] == (
        "doc/canonical: new version 2 (1 metadata field)\n"
    )
    code, out, _ = run("--config", str(config), "diff", "doc/canonical", "--no-color")
    assert out.splitlines()[:2] == [
        "Doc (canonical), version 1 → 2: 1 metadata field changed, the text did not.",
        '• metadata › title: "Announcing 1.0" → "Announcing 1.0.0"',
    ]
    history = run("--config", str(config), "history", "doc/canonical")[1]
    assert history.splitlines()[-1].endswith('  metadata › title: "Announcing 1.0" → "Announcing 1.0.0"')
    # only the date moved: stored, but nothing for cron to mail
    redated = post.replace("Announcing 1.0", "Announcing 1.0.0").replace("2026-07-08", "2026-07-09")
    server.page("/post", redated, "text/markdown; charset=utf-8")
    assert run("--config", str(config), "check", "-q", "doc/canonical") == (ExitCode.OK, "", "")
    history = run("--config", str(config), "history", "doc/canonical")[1]
    assert history.splitlines()[-1].endswith('  metadata › date: "2026-07-08" → "2026-07-09"')
    server.page("/post", "---\ntitle: [unclosed\n---\nBody.\n", "text/markdown; charset=utf-8")
    code, out, err = run("--config", str(config), "fetch", "doc/canonical")
    assert (code, out) == (ExitCode.OK, "***\n\n## title: \\[unclosed\n\nBody.\n")
    warning = "front matter is not valid YAML (line 3: did not find expected ',' or ']'), read as body"
    assert err.splitlines()[1:] == [f"<!-- warning: {warning} -->"]
    assert run("--config", str(config), "check", "doc/canonical")[1] == (
        f"doc/canonical: new version 4 (3 changes, 2 metadata fields; warning: {warning})\n"
    )
    code, out, _ = run("--config", str(config), "history", "doc/canonical", "--format", "json")
    assert [v.get("warnings") for v in json.loads(out)["versions"]] == [None, None, None, [warning]]
    history = run("--config", str(config), "history", "doc/canonical")[1]
    assert history.splitlines()[-1].endswith("; warning: front matter is not valid YAML (line 3: did…")


def test_two_checks_ask_for_robots_txt_once(tmp_path: Path, server: Server) -> None:
    config = tmp_path / "config.toml"
    config.write_text(write_config(tmp_path, server).read_text().replace("robots = false\n", ""))
    server.page("/post", article("<p>Words.</p>"))
    server.page("/gone", article("<p>Copy.</p>"))
    for _ in range(2):
        assert run("--config", str(config), "check")[0] == ExitCode.OK
    assert [h.path for h in server.hits].count("/robots.txt") == 1
    assert [h.path for h in server.hits].count("/post") == 2


def test_log_tells_waiting_for_the_hosts_turn_from_the_hosts_own_time(tmp_path: Path, server: Server) -> None:
    config = write_config(tmp_path, server)
    config.write_text(config.read_text().replace('per_host_delay = "0s"', 'per_host_delay = "1s"'))
    server.page("/post", article("<p>Words.</p>"))
    run("--config", str(config), "check")  # the mirror on the same host waits for the canonical's request
    code, out, _ = run("--config", str(config), "log", "doc/gone", "--format", "json")
    (checked,) = json.loads(out)["sources"][0]["checks"]
    assert 100 <= checked["waited_ms"] <= 1000  # a second from the canonical's request, less its reading
    assert checked["duration_ms"] > checked["waited_ms"]
    code, out, _ = run("--config", str(config), "log", "doc/gone")
    took = int(re.findall(r" (\d+) ms", out)[0])
    assert took == round(checked["duration_ms"] - checked["waited_ms"])
    assert out.splitlines()[2].endswith(
        f"HTTP 404 Not Found (waited {checked['waited_ms'] / 1000:.1f} s for its turn at the host)"
    )
    code, out, _ = run("--config", str(config), "log", "doc/canonical", "--format", "json")
    assert "waited_ms" not in json.loads(out)["sources"][0]["checks"][0]  # the first request waits for none


def test_a_removed_mirror_is_no_longer_checked_and_its_history_stays_readable(
    tmp_path: Path, server: Server
) -> None:
    config = write_config(tmp_path, server)
    server.page("/post", article("<p>Words.</p>"))
    server.page("/gone", article("<p>Copied words.</p>"))
    assert run("--config", str(config), "check")[0] == ExitCode.OK
    assert run("--config", str(config), "remove", "doc/gone") == (
        ExitCode.OK,
        f"removed doc/gone from {config}; the store keeps its history (differ history doc/gone)\n",
        "",
    )
    assert "gone" not in config.read_text()
    run("--config", str(config), "check")
    assert len(server.requests_to("/gone")) == 1
    code, out, _ = run("--config", str(config), "show", "doc/gone")
    assert (code, out) == (ExitCode.OK, "# Post\n\nCopied words.\n")
    code, out, _ = run("--config", str(config), "history", "doc/gone", "--format", "json")
    assert (code, [v["version"] for v in json.loads(out)["versions"]]) == (ExitCode.OK, [1])
    assert run("--config", str(config), "log", "doc/gone", "--format", "json")[0] == ExitCode.OK
    assert "doc/gone" not in run("--config", str(config), "sources")[1]
    assert run("--config", str(config), "remove", "doc")[1] == (
        f"removed doc (doc/canonical) from {config}; the store keeps its history (differ history doc/canonical)\n"
    )
    assert run("--config", str(config), "history", "doc/canonical")[0] == ExitCode.OK
    assert run("--config", str(config), "show", "doc")[0] == ExitCode.OK  # a document names its canonical


def test_a_new_page_never_takes_up_the_history_of_another(tmp_path: Path, server: Server) -> None:
    """An id the store holds for another page is not given to a new one; the same page added again after
    `differ remove` takes its history up again."""
    config = tmp_path / "config.toml"
    config.write_text(SERVICE.format(store=tmp_path / "snapshots"))
    server.page("/news/post", article("<p>News.</p>"))
    server.page("/blog/post", article("<p>Blog.</p>"))
    private = ("--set", 'allow_private=["127.0.0.1"]', "--set", "robots=false")

    def add(path: str) -> str:
        code, out, err = run("--config", str(config), "add", server.url(path), *private)
        assert (code, err) == (ExitCode.OK, ""), err
        return out.split()[1]

    assert add("/news/post") == "post/canonical"
    assert run("--config", str(config), "check")[0] == ExitCode.OK
    run("--config", str(config), "remove", "post")
    assert add("/blog/post") == "post-2/canonical"
    run("--config", str(config), "remove", "post-2")
    assert add("/news/post") == "post/canonical"
    assert run("--config", str(config), "check")[1] == "post/canonical: unchanged (same body)\n"
    # a mirror stored under an id it was given by hand is taken up under that id, not the one its address gives
    server.page("/de/post", article("<p>Nachrichten.</p>"))
    assert (
        run(
            "--config", str(config), "add", server.url("/de/post"), "--to", "post", "--id", "german", *private
        )[0]
        == 0
    )
    assert run("--config", str(config), "check")[0] == ExitCode.OK
    run("--config", str(config), "remove", "post/german")
    code, out, _ = run("--config", str(config), "add", server.url("/de/post"), "--to", "post", *private)
    assert (code, out.split()[1]) == (ExitCode.OK, "post/german")
    assert run("--config", str(config), "check", "post/german")[1] == "post/german: unchanged (same body)\n"


def test_log_shows_the_latest_checks(
    tmp_path: Path, server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(write_config(tmp_path, server))
    assert run("--config", config, "log", "--failures") == (
        ExitCode.OK,
        "no failed checks logged (2 sources)\n",
        "",
    )
    server.page("/post", article("<p>First words.</p>"))
    run("--config", config, "check")
    server.page("/post", article("<p>First words, edited.</p>"))
    run("--config", config, "check")
    run("--config", config, "check", "doc/canonical")

    def plain(out: str) -> str:  # times vary from run to run
        out = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "TIME", out)
        return re.sub(r" +\d+ ms", " N ms", out)

    code, out, err = run("--config", config, "log")
    assert (code, err) == (ExitCode.OK, "")
    assert plain(out) == (
        f"doc/canonical  {server.url('/post')}\n"
        "  checked               status  outcome         size      time  detail\n"
        "  TIME     200  new           0.2 KB N ms  version 1\n"
        "  TIME     200  new           0.2 KB N ms  version 2\n"
        "  TIME     200  unchanged     0.2 KB N ms  same body\n"
        f"doc/gone  {server.url('/gone')}\n"
        "  checked               status  outcome         size      time  detail\n"
        "  TIME     404  failed             - N ms  HTTP 404 Not Found\n"
        "  TIME     404  failed             - N ms  HTTP 404 Not Found\n"
    )
    code, out, _ = run("--config", config, "log", "doc/canonical", "-n", "1", "--failures")
    assert (code, out) == (ExitCode.OK, f"doc/canonical  {server.url('/post')}\n  no failed checks logged\n")
    code, out, _ = run("--config", config, "log", "-n", "1", "--failures")  # every source: the failing ones
    assert plain(out) == (
        f"doc/gone  {server.url('/gone')}\n"
        "  checked               status  outcome         size      time  detail\n"
        "  TIME     404  failed             - N ms  HTTP 404 Not Found\n"
        "no failed checks logged for the other source\n"
    )
    code, out, _ = run("--config", config, "log", "doc", "-n", "1", "--format", "json")
    logged = json.loads(out)
    assert logged["schema"] == "differ.log/1"
    assert [(s["source"], [c["outcome"] for c in s["checks"]]) for s in logged["sources"]] == [
        ("doc/canonical", ["unchanged"]),
        ("doc/gone", ["failed"]),
    ]
    assert logged["sources"][1]["checks"][0]["error"] == "HTTP 404 Not Found"
    capsys.readouterr()
    assert run("--config", config, "log", "-n", "0") == (ExitCode.USAGE, "", "")
    assert capsys.readouterr().err.endswith(  # argparse's own line, on the process's stderr
        "differ log: error: argument -n: expected a whole number of at least 1, found '0'\n"
    )
    # a command or choice mistyped: what was likely meant
    assert run("--config", config, "chek") == (ExitCode.USAGE, "", "")
    assert capsys.readouterr().err.endswith(
        'differ: error: argument COMMAND: invalid choice: "chek" (did you mean "check"?); choose from check, run, '
        "add, import, remove, pause, resume, set, history, log, show, blame, diff, audit, export, verify, sources, "
        "status, kinds, fetch, backfill, renormalize, config, notify, outbox, compare, demo\n"
    )
    assert run("--config", config, "diff", "doc", "--format", "jsn") == (ExitCode.USAGE, "", "")
    assert capsys.readouterr().err.endswith(
        'differ diff: error: argument --format: invalid choice: "jsn" (did you mean "json"?); choose from text, '
        "markdown, json, html, unified\n"
    )


def test_a_logged_check_says_what_it_found() -> None:
    from differ.records import _check_detail

    assert _check_detail({"outcome": "new", "version": 3, "url": "u", "final_url": "u"}) == "version 3"
    assert _check_detail(
        {"outcome": "unchanged", "detail": "not modified", "url": "u", "final_url": "v"}
    ) == ("not modified (redirected to v)")
    assert _check_detail({"outcome": "failed", "error": "HTTP 503 Service Unavailable", "attempts": 3}) == (
        "HTTP 503 Service Unavailable (after 3 attempts)"
    )


def test_a_copied_store_is_read_without_its_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """history, log, show, diff and verify take --snapshots alone when there is no config.toml: the records name
    each source's URL, document title and role, so the output is the same as with the config."""
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--keep", "kept"], out=io.StringIO()) == ExitCode.OK
    store = tmp_path / "copy"
    shutil.copytree(tmp_path / "kept" / "snapshots", store)
    with_config = ("--config", "kept/demo.toml")
    alone = ("--snapshots", "copy")
    for command in (
        ("history", "pytorch-2-13/pytorch-kr"),
        ("history", "pytorch-2-13/wpnews", "--format", "html"),
        ("show", "pytorch-2-13"),
        ("show", "pytorch-2-13/wpnews", "--raw"),
        ("diff", "pytorch-2-13/canonical", "--format", "json"),
        ("diff", "pytorch-2-13", "--from", "1", "--to", "2"),
        ("log", "pytorch-2-13/pytorch-kr", "-n", "2"),
        ("log", "pytorch-2-13/wpnews", "--format", "json"),
    ):
        code, out, err = run(*alone, *command)
        assert (code, out, err) == run(*with_config, *command), command
        assert code == ExitCode.OK and out
    assert run(*alone, "verify") == (ExitCode.OK, "copy: 3 sources, 4 versions, 4 raw bodies: ok\n", "")
    for command in (("diff", "pytorch-2-13", "--from", "5"), ("show", "pytorch-2-13", "--version", "0")):
        number = command[-1]
        assert run(*alone, *command) == (  # a number the store does not hold is a usage error (2)
            ExitCode.USAGE,
            "",
            f"error: pytorch-2-13/canonical has no version {number} (versions 1 to 2)\n",
        )
    assert run("--snapshots", "nowhere", "verify") == (
        ExitCode.USAGE,
        "",
        "error: nowhere: no such folder, and no config.toml here; pass a snapshots folder\n",
    )
    assert run(*alone, "audit")[2] == (
        "error: config.toml: no such file; start one with: differ add URL (or pass --config FILE)\n"
    )
    (tmp_path / "config.toml").write_text('[service]\nsnapshots = "kept/snapshots"\n')
    # A config.toml present is the one read; what it does not name is read from the store, as a page taken
    # out of the configuration is.
    assert run(*alone, "show", "pytorch-2-13") == run(*with_config, "show", "pytorch-2-13")
    assert run(*alone, "audit")[2] == "error: config.toml configures no documents\n"


def test_every_html_output_is_inert_against_a_hostile_page(tmp_path: Path, server: Server) -> None:
    """Script injection into diff, audit and history HTML: all inert, checked with an HTML parser."""
    from tests.test_diff import _Scripts

    evil = (
        '<p>Hello &lt;script&gt;alert(1)&lt;/script&gt; <img src=x onerror="alert(2)"> '
        '<a href="javascript:alert(3)">click</a> <code>&lt;script&gt;alert(4)&lt;/script&gt;</code></p>'
    )
    server.page("/post", article("<p>Calm first version.</p>"))
    server.page("/gone", article("<p>Calm first version.</p>"))
    config = str(write_config(tmp_path, server))
    run("--config", config, "check")
    server.page("/post", article(evil))
    server.page("/gone", article(evil + "<p>More &lt;script&gt;alert(5)&lt;/script&gt; here.</p>"))
    run("--config", config, "check")
    pages = [
        run("--config", config, "diff", "doc/canonical", "--format", "html")[1],
        run("--config", config, "audit", "--format", "html")[1],
        run("--config", config, "history", "doc/canonical", "--format", "html")[1],
        run("--config", config, "history", "doc/gone", "--format", "html")[1],
        (tmp_path / "snapshots/reports/doc/canonical/diff-2.html").read_text(),
        (tmp_path / "snapshots/reports/index.html").read_text(),
        (tmp_path / "snapshots/reports/doc/index.html").read_text(),
        run("--config", config, "history", "--format", "html")[1],
    ]
    for page in pages:
        parser = _Scripts()
        parser.feed(page)
        assert parser.bad == [], page[:300]
        assert "default-src 'none'" in page
        assert '<meta name=viewport content="width=device-width, initial-scale=1">' in page  # phones
    assert "&lt;script&gt;" in pages[0] and "&lt;script&gt;" in pages[4]
    assert "&lt;script&gt;alert(5)" in pages[6]  # the mirror's extra passage, in the document's page
    assert "&lt;script&gt;" in pages[7]  # the timeline of every source: the edit's words


def test_a_diff_can_be_narrowed_to_some_sections(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--section: the changes under the headings it matches, with the author's note, and how many are left
    out; none matching is said so; a line diff of whole documents cannot be narrowed."""
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--keep", "kept"], out=io.StringIO()) == ExitCode.OK
    diff = ("--config", "kept/demo.toml", "diff", "pytorch-2-13/canonical")
    code, out, err = run(*diff, "--section", "non-feature*")
    assert err == ""
    assert (code, out.split("\n\n")[0].splitlines()) == (
        ExitCode.OK,
        [
            'PyTorch 2.13 Release Blog (canonical), version 1 → 2: 2 changes under "Non-Feature Updates" (1'
            " elsewhere).",
            "• author's note (added at the end): \"Updated (7/8): Removed two instances of prototype which is a"
            ' designation that we no longer use."',
            '• Non-Feature Updates › Python support: "(Python 3.15 binary support is listed above as a Prototype'
            ' feature.)"',
            '  → "(Preliminary Python 3.15 and 3.15t binary support is found above.)"',
        ],
    )
    code, out, err = run(*diff, "--section", "Security", "--section", "Deprecations", "--format", "json")
    assert err == (  # on stderr: the output stays the diff
        'note: --section "Security" matches no heading of either version\n'
        'note: --section "Deprecations" matches no heading of either version (did you mean "Deprecations and '
        'Backwards-Incompatible Changes"?)\n'
    )
    data = json.loads(out)
    assert (data["summary"], data["changes"], data["within"], data["left_out"]) == (
        [
            'PyTorch 2.13 Release Blog (canonical), version 1 → 2: 0 changes under "Security", "Deprecations" (3'
            " elsewhere)."
        ],
        [],
        ["Security", "Deprecations"],
        3,
    )
    assert run(*diff, "--section", "Non-Feature Update") == (  # a heading mistyped: the one likely meant
        ExitCode.OK,
        'PyTorch 2.13 Release Blog (canonical), version 1 → 2: 0 changes under "Non-Feature Update" (3 '
        "elsewhere).\n",
        'note: --section "Non-Feature Update" matches no heading of either version (did you mean "Non-Feature '
        'Updates"?)\n',
    )
    assert run(*diff, "--section", " ") == (
        ExitCode.USAGE,
        "",
        'error: --section: expected a heading or a pattern such as "Security*", found nothing\n',
    )
    assert run(*diff, "--section", "x", "--format", "unified") == (
        ExitCode.USAGE,
        "",
        "error: --section picks changes; --format unified is a line diff of the whole documents\n",
    )


def test_a_diff_can_be_narrowed_to_changes_with_some_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--word: the changes whose block has the word, before or after, with the author's note; with --section,
    both must hold; blank is refused, as is a narrowed audit."""
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--keep", "kept"], out=io.StringIO()) == ExitCode.OK
    diff = ("--config", "kept/demo.toml", "diff", "pytorch-2-13/canonical")
    code, out, _ = run(*diff, "--word", "prototype", "--format", "json")
    data = json.loads(out)
    assert (code, data["summary"][0], data["mentioning"], data["left_out"]) == (
        ExitCode.OK,
        'PyTorch 2.13 Release Blog (canonical), version 1 → 2: 3 changes mentioning "prototype" (0 elsewhere).',
        ["prototype"],
        0,
    )
    code, out, _ = run(*diff, "--word", "python 3.15", "--section", "non-feature*")
    assert [line[:16] for line in out.splitlines()[:4]] == [
        "PyTorch 2.13 Rel",
        "• author's note ",  # shown, as it explains the edit, but not counted: it is not under the section
        "• Non-Feature Up",
        '  → "(Preliminar',
    ]
    assert out.splitlines()[0] == (
        'PyTorch 2.13 Release Blog (canonical), version 1 → 2: 1 change under "Non-Feature Updates",'
        ' mentioning "python 3.15" (1 elsewhere).'
    )
    code, out, _ = run(*diff, "--word", "CuTeDSL", "--section", "non-feature*")
    assert out.splitlines()[0].endswith(
        ': 0 changes under "non-feature*", mentioning "CuTeDSL" (3 elsewhere).'
    )
    assert run(*diff, "--word", "") == (
        ExitCode.USAGE,
        "",
        'error: --word: expected a word or a pattern such as "CVE-*", found nothing\n',
    )


def test_a_diff_narrowed_to_words_keeps_a_metadata_field_that_has_them(tmp_path: Path) -> None:
    """A title that now says "security release" is what a reader following "security" wants to see, though it
    is under no heading: kept with --word alone (and of a kind --change names), left out with --section."""
    old, new = tmp_path / "a.md", tmp_path / "b.md"
    old.write_text("---\ntitle: Widget 3.0 released\n---\n# Notes\n\nA crash fixed.\n")
    new.write_text("---\ntitle: Widget 3.0 security release\n---\n# Notes\n\nA crash fixed in the parser.\n")
    title = '• metadata › title: "Widget 3.0 released" → "Widget 3.0 security release"\n'
    assert run("compare", str(old), str(new), "--word", "security") == (
        ExitCode.FAILURE,
        f'{old} → {new}: 1 metadata field mentioning "security" (1 elsewhere).\n{title}',
        "",
    )
    code, out, _ = run("compare", str(old), str(new), "--word", "secur*", "--word", "parser")
    assert (code, out.splitlines()[:3]) == (
        ExitCode.FAILURE,
        [
            f'{old} → {new}: 1 change and 1 metadata field mentioning "parser", "secur*" (0 elsewhere).',
            title.rstrip("\n"),
            '• A crash fixed: added "in the parser"',
        ],
    )
    data = json.loads(run("compare", str(old), str(new), "--word", "security", "--format", "json")[1])
    assert (data["changes"], data["metadata"], data["mentioning"], data["left_out"]) == (
        [],
        [{"field": "title", "before": "Widget 3.0 released", "after": "Widget 3.0 security release"}],
        ["security"],
        1,
    )
    assert (
        run("compare", str(old), str(new), "--word", "security", "--change", "modified")[0]
        == ExitCode.FAILURE
    )
    for narrower in (("--change", "removed"), ("--section", "Notes")):
        assert run("compare", str(old), str(new), "--word", "security", *narrower)[0] == ExitCode.OK


def test_a_diff_can_be_narrowed_to_some_kinds_of_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--change: the changes of those kinds, with the author's note that explains the edit, and how many are
    left out; refused for an audit."""
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--keep", "kept"], out=io.StringIO()) == ExitCode.OK
    diff = ("--config", "kept/demo.toml", "diff", "pytorch-2-13/canonical")
    code, out, _ = run(*diff, "--change", "modified")
    assert (code, out.split("\n\n")[0].splitlines()[0]) == (
        ExitCode.OK,
        "PyTorch 2.13 Release Blog (canonical), version 1 → 2: 2 changes of kind modified (0 left out).",
    )  # the author's note, added, is shown as the edit's explanation but not counted
    code, out, _ = run(*diff, "--change", "added", "--format", "json")
    data = json.loads(out)
    assert (data["summary"][0], [c["kind"] for c in data["changes"]], data["kinds"], data["left_out"]) == (
        "PyTorch 2.13 Release Blog (canonical), version 1 → 2: 1 change of kind added (2 left out).",
        ["added"],
        ["added"],
        2,
    )
    code, out, _ = run(*diff, "--change", "removed", "--change", "moved")
    assert out.splitlines()[0].endswith(": 0 changes of kinds removed, moved (3 left out).")
    assert run(*diff, "--change", "deleted")[0] == ExitCode.USAGE  # argparse names the kinds


@pytest.mark.parametrize(("flag", "value"), [("--section", "x"), ("--word", "x"), ("--change", "added")])
def test_a_narrowed_diff_is_no_line_diff_and_no_audit(tmp_path: Path, flag: str, value: str) -> None:
    old, new = tmp_path / "a.md", tmp_path / "b.md"
    old.write_text("# A\n\nOne.\n")
    new.write_text("# A\n\nTwo.\n")
    assert run("compare", str(old), str(new), flag, value, "--format", "unified")[2] == (
        f"error: {flag} picks changes; --format unified is a line diff of the whole documents\n"
    )
    assert run("compare", str(old), str(new), "--audit", flag, value)[2] == (
        f"error: {flag} narrows a diff; an audit reads the whole copy\n"
    )


def test_history_without_a_source_is_every_source_s_versions_in_the_order_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`differ history` alone: what every page and copy stored, the latest last (the latest 20, or since a time
    or so long ago), narrowed as a source's history is; JSON `differ.timeline/1`."""
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--keep", "kept"], out=io.StringIO()) == ExitCode.OK
    config = ("--config", "kept/demo.toml")
    note = '"Updated (7/8): Removed two instances of prototype which is a…'
    assert run(*config, "history") == (
        ExitCode.OK,
        "4 versions\n"
        "  fetched               source                     #  change\n"
        "  2026-07-08T17:45:00Z  pytorch-2-13/canonical     1  first snapshot\n"
        "  2026-07-08T17:45:00Z  pytorch-2-13/wpnews        1  first snapshot\n"
        f"  2026-07-08T21:00:00Z  pytorch-2-13/canonical     2  3 changes: author's note (added at the end): {note}\n"
        "  2026-07-09T09:40:00Z  pytorch-2-13/pytorch-kr    1  first snapshot\n",
        "",
    )
    code, out, _ = run(*config, "history", "--since", "2026-07-08T20:00Z")
    assert out.splitlines()[0] == "2 versions stored since 2026-07-08T20:00:00Z"
    monkeypatch.setattr("differ.history.LATEST", 3)  # more versions than are listed by default: said so
    assert run(*config, "history")[1].splitlines()[0] == "3 versions (the latest 3; -n N for more)"
    monkeypatch.setattr("differ.history.LATEST", 4)  # as many as there are: nothing more to list
    assert run(*config, "history")[1].splitlines()[0] == "4 versions"
    assert run(*config, "history", "--since", "2026-07-09")[1].splitlines()[::2] == [
        "1 version stored since 2026-07-09T00:00:00Z",  # a date alone: since that day began
        "  2026-07-09T09:40:00Z  pytorch-2-13/pytorch-kr    1  first snapshot",
    ]
    assert run(*config, "history", "--since", "7d")[1].startswith("no versions stored since 2026-")  # by now
    assert run(*config, "history", "--since", "2w")[1].startswith("no versions stored since 2026-")
    for far in ("400d", "99999999d"):  # further back than a setting may be, even before year 1: all of them
        said = run(*config, "history", "--since", far)
        assert said[1].startswith("4 versions stored since "), (far, said)
    assert (
        run(*config, "history", "-n", "1")[1]
        .splitlines()[-1]
        .endswith("pytorch-2-13/pytorch-kr    1  first snapshot")
    )
    code, out, _ = run(*config, "history", "--word", "prototype", "--since", "2026-07-08T18:00Z")
    assert [line[24:50].strip() for line in out.splitlines()[2:]] == [
        "pytorch-2-13/canonical",
        "pytorch-2-13/pytorch-kr",  # its first version has the author's note, which names it
    ]
    assert (
        out.splitlines()[0]
        == '2 versions stored since 2026-07-08T18:00:00Z with a change mentioning "prototype"'
    )
    data = json.loads(run(*config, "history", "--format", "json", "--since", "2026-07-08T20:00Z")[1])
    assert (data["schema"], data["since"], [(v["source"], v["version"]) for v in data["versions"]]) == (
        "differ.timeline/1",
        "2026-07-08T20:00:00Z",
        [("pytorch-2-13/canonical", 2), ("pytorch-2-13/pytorch-kr", 1)],
    )
    assert data["versions"][0]["changes"] == 3 and data["versions"][0]["summary"][0].endswith(
        "3 changes (and 1 metadata field)."
    )
    assert (
        run(*config, "history", "pytorch-2-13/canonical", "-n", "1")[1].splitlines()[2].startswith("    2  ")
    )
    canonical = ("pytorch-2-13/canonical",)
    code, out, _ = run(*config, "history", *canonical, "--since", "2026-07-08T20:00Z", "--word", "prototype")
    assert out.splitlines()[1] == (
        '  1 of 1 version with a change mentioning "prototype", stored since 2026-07-08T20:00:00Z'
    )
    assert run(*config, "history", *canonical, "--since", "2026-07-09")[1].splitlines()[1:] == [
        "  0 versions stored since 2026-07-09T00:00:00Z"
    ]
    assert run(*config, "history", "--since", "last week") == (
        ExitCode.USAGE,
        "",
        'error: expected a duration (7d, 12h) or a time such as 2026-07-08 or 2026-07-08T18:00Z, found "last week"\n',
    )
    assert run(*config, "history", "--since", "2026-13-01")[::2] == (
        ExitCode.USAGE,
        "error: expected a duration (7d, 12h) or a time such as 2026-07-08 or 2026-07-08T18:00Z, found "
        '"2026-13-01" (month must be in 1..12)\n',
    )
    from bs4 import BeautifulSoup

    code, out, _ = run(*config, "history", "--format", "html", "--since", "2026-07-09")
    cells = [
        [c.get_text() for c in tr.find_all(["td", "th"])] for tr in BeautifulSoup(out, "lxml").find_all("tr")
    ]
    assert (code, BeautifulSoup(out, "lxml").h1.get_text(), cells) == (
        ExitCode.OK,
        "1 version stored since 2026-07-09T00:00:00Z",
        [
            ["Fetched", "Source", "#", "Change"],
            ["2026-07-09T09:40:00Z", "pytorch-2-13/pytorch-kr", "1", "first snapshot"],
        ],
    )
    assert "<td class=when>2026-07-09T09:40:00Z</td>" in out  # a time on one line


def test_versions_are_named_by_number_or_by_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--version, --from and --to take a time: the version stored by then (a date alone: the end of that day)."""
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--keep", "kept"], out=io.StringIO()) == ExitCode.OK
    config = ("--config", "kept/demo.toml")  # canonical versions: 2026-07-08T17:45:00Z and T21:00:00Z
    by_number = run(*config, "diff", "pytorch-2-13/canonical", "--from", "1", "--to", "2")
    assert by_number[0] == ExitCode.OK
    assert run(*config, "diff", "pytorch-2-13/canonical", "--from", "2026-07-08T18:00Z") == by_number
    assert run(*config, "diff", "pytorch-2-13/canonical", "--from", "2026-07-08T20:00+02:00") == by_number
    code, out, _ = run(
        *config, "diff", "pytorch-2-13/canonical", "--from", "2026-07-08", "--to", "2026-07-09"
    )
    assert (code, out.splitlines()[0]) == (
        ExitCode.OK,
        "PyTorch 2.13 Release Blog (canonical), version 2 → 2: 0 changes.",
    )
    # The versions may stand after the source, as in git: one for diff is what that version changed
    canonical = ("pytorch-2-13/canonical",)
    assert run(*config, "diff", *canonical, "1", "2") == by_number
    assert run(*config, "diff", *canonical, "2") == by_number
    assert run(*config, "diff", *canonical, "2026-07-08T18:00Z", "2") == by_number
    assert run(*config, "diff", *canonical, "2", "--to", "2") == by_number  # the same twice is no harm
    assert run(*config, "show", *canonical, "1") == run(*config, "show", *canonical, "--version", "1")
    assert run(*config, "diff", *canonical, "1", "2", "2") == (
        ExitCode.USAGE,
        "",
        "error: expected at most two versions (from and to), found 3: 1 2 2\n",
    )
    assert run(*config, "diff", *canonical, "1", "2", "--from", "2") == (
        ExitCode.USAGE,
        "",
        "error: version given twice (1 and --from 2); give one\n",
    )
    assert run(*config, "show", *canonical, "1", "--version", "2") == (
        ExitCode.USAGE,
        "",
        "error: version given twice (1 and --version 2); give one\n",
    )
    first = run(*config, "show", "pytorch-2-13/canonical", "--version", "1")
    assert run(*config, "show", "pytorch-2-13/canonical", "--version", "2026-07-08T17:45:00Z") == first
    assert run(*config, "show", "pytorch-2-13/canonical", "--version", "2026-07-07") == (
        ExitCode.USAGE,
        "",
        "error: pytorch-2-13/canonical had no version yet at 2026-07-07T23:59:59Z (the first was fetched at "
        "2026-07-08T17:45:00Z)\n",
    )
    for when in ("last week", "0001-01-01T00:00+01:00"):  # not a time; before year 1 in UTC
        assert run(*config, "show", "pytorch-2-13/canonical", "--version", when) == (
            ExitCode.USAGE,
            "",
            "error: expected a version number, a duration back from now (7d, 12h) or a time such as 2026-07-08 or "
            f'2026-07-08T18:00Z, found "{when}"\n',
        )
    # so long ago: the version stored by then (the edit of 8 July, 100 days ago by now), or none that early
    assert run(*config, "show", "pytorch-2-13/canonical", "--version", "100d") == run(
        *config, "show", "pytorch-2-13/canonical", "2"
    )
    assert run(*config, "diff", "pytorch-2-13/canonical", "--from", "2w")[1].endswith(
        "version 2 → 2: 0 changes.\n"
    )
    assert run(*config, "show", "pytorch-2-13/canonical", "--version", "9999d")[2].startswith(
        "error: pytorch-2-13/canonical had no version yet at 1999-"
    )
    assert run(*config, "show", "pytorch-2-13/canonical", "--version", "0001-01-01")[2] == (
        "error: pytorch-2-13/canonical had no version yet at 0001-01-01T23:59:59Z (the first was fetched at "
        "2026-07-08T17:45:00Z)\n"
    )
    code, out, _ = run(*config, "history", "pytorch-2-13/wpnews", "--format", "json")
    data = json.loads(out)
    assert (code, data["schema"], data["role"], [v["version"] for v in data["versions"]]) == (
        ExitCode.OK,
        "differ.history/1",
        "mirror",
        [1],
    )
    assert data["canonical_edits"] == [
        {
            "canonical_version": 2,
            "canonical_fetched_at": "2026-07-08T21:00:00Z",
            "mirror_version": None,
            "mirror_fetched_at": None,
        }
    ]
    canonical = json.loads(run(*config, "history", "pytorch-2-13/canonical", "--format", "json")[1])
    assert "canonical_edits" not in canonical
    assert canonical["versions"][1]["changes"] == 3
    assert canonical["versions"][1]["summary"][1].startswith("• author's note (added at the end): ")


def test_compare_two_files_like_diff(tmp_path: Path) -> None:
    """Exit 0 when both read the same (page noise only), 1 when they differ; the diff is check's diff."""
    from tests.helpers import REPLAY

    pages = REPLAY / "canonical"
    selector = ("--set", "selector=article .entry-content")
    first, noise, edited = (str(pages / f"fetch-{n}.html") for n in (1, 2, 3))
    assert run("compare", first, noise, *selector) == (ExitCode.OK, f"{first} → {noise}: 0 changes.\n", "")
    code, out, err = run("compare", first, edited, *selector, "--format", "json")
    data = json.loads(out)
    assert (code, err, len(data["changes"])) == (ExitCode.FAILURE, "", 3)
    assert data["summary"][0] == f"{first} → {edited}: 3 changes (and 1 metadata field)."
    assert data["from"] == {
        "version": None,
        "fetched_at": None,
        "hash": hashlib.sha256(Path(first).read_bytes()).hexdigest(),
        "name": first,
    }
    assert data["to"]["name"] == edited
    # --section: like diff(1) for the sections asked for (exit 1 only for a change there)
    code, out, _ = run("compare", first, edited, *selector, "--section", "Non-Feature*")
    assert (code, out.splitlines()[0]) == (
        ExitCode.FAILURE,
        f'{first} → {edited}: 2 changes under "Non-Feature Updates" (1 elsewhere).',
    )
    assert run("compare", first, edited, "--audit", "--section", "Deprecations") == (
        ExitCode.USAGE,
        "",
        "error: --section narrows a diff; an audit reads the whole copy\n",
    )
    assert run("compare", first, edited, *selector, "--section", "Deprecations")[:2] == (
        ExitCode.OK,
        f'{first} → {edited}: 0 changes under "Deprecations" (3 elsewhere).\n',
    )
    # One --set line serves two kinds: `field` is the JSON mirror's, `selector` the page's.
    code, out, _ = run(
        "compare", str(REPLAY / "mirrors" / "wpnews.json"), edited, "--set", "field=body_md", *selector
    )
    assert code == ExitCode.FAILURE and "Updated (7/8)" in out
    md = tmp_path / "a.md"
    md.write_text("# Title\n\n*Same*  words.\n")
    txt = tmp_path / "b"  # no suffix: sniffed as Markdown
    txt.write_text("Title\n=====\n\n_Same_ words.\n")
    assert run("compare", str(md), str(txt))[0] == ExitCode.OK
    # a page nested 100,000 deep is read (its nesting cut at 400), compiled or run as Python: its text is there
    deep = tmp_path / "deep.html"
    deep.write_text("<p>" + "<b>" * 100_000 + "x" + "</b>" * 100_000 + "</p>")
    (tmp_path / "x.md").write_text("x\n")
    assert run("compare", str(deep), str(tmp_path / "x.md"))[:2] == (
        ExitCode.OK,
        f"{deep} → {tmp_path / 'x.md'}: 0 changes (formatting only).\n",  # its bold, cut deep as it is
    )


def test_compare_local_files_sees_a_relative_links_new_target_as_a_link_change(tmp_path: Path) -> None:
    """A local file's relative links resolve to `file:` addresses, as in a browser. markdown-it refuses those as
    link targets, so they were written as literal text, and a changed target was an edit of that text."""
    page = (
        "<html><body><article><h1>Post</h1><p>See the <a href='{}'>docs</a> now.</p></article></body></html>"
    )
    (tmp_path / "a.html").write_text(page.format("docs/a.html"))
    (tmp_path / "b.html").write_text(page.format("docs/b.html"))
    base = tmp_path.resolve().as_uri()
    assert run("compare", str(tmp_path / "a.html"), str(tmp_path / "b.html"))[:2] == (
        ExitCode.FAILURE,
        f"{tmp_path / 'a.html'} → {tmp_path / 'b.html'}: 1 change.\n"
        f'• See the docs now: link "docs": {base}/docs/a.html → {base}/docs/b.html\n'
        "\n"
        "[link] See the docs now\n"
        f'  link "docs": {base}/docs/a.html → {base}/docs/b.html\n',
    )


def test_compare_reads_two_saved_copies_links_against_one_address(tmp_path: Path) -> None:
    """Two copies of a page kept in two folders: a link written alike in both (a footnote's `#fn1`, a relative
    `img/chart.png`) is the same link, not a change from one folder's address to the other's; a target
    written otherwise is still a link change."""
    page = (
        "<html><body><article><h1>Post</h1><p>Fast<a href='#fn1'>1</a>, see the <a href='{}'>chart</a>.</p>"
        "<p>{}</p></article></body></html>"
    )
    for folder, target, words in (
        ("v1", "img/chart.png", "Old words."),
        ("v2", "img/chart.png", "New words."),
    ):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "post.html").write_text(page.format(target, words))
    old, new = str(tmp_path / "v1" / "post.html"), str(tmp_path / "v2" / "post.html")
    assert run("compare", old, new)[:2] == (
        ExitCode.FAILURE,
        f'{old} → {new}: 1 change.\n• "Old words."\n  → "New words."\n\n[modified] New words\n  [-Old-] {{+New+}} words.\n',
    )
    (tmp_path / "v2" / "post.html").write_text(page.format("img/chart-2.png", "Old words."))
    base = (tmp_path / "v1").resolve().as_uri()
    assert run("compare", old, new)[1].splitlines()[1] == (
        f'• Fast1, see the chart: link "chart": {base}/img/chart.png → {base}/img/chart-2.png'
    )
    # standard input against a file: the file is read against standard input's stand-in address
    done = subprocess.run(
        [sys.executable, "-m", "differ", "compare", "-", new],
        input=Path(old).read_bytes(),
        capture_output=True,
        cwd=tmp_path,
    )
    here = tmp_path.resolve().as_uri()
    assert (done.returncode, done.stdout.decode().splitlines()[:2]) == (
        1,
        [
            f"- → {new}: 1 change.",
            f'• Fast1, see the chart: link "chart": {here}/img/chart.png → {here}/img/chart-2.png',
        ],
    )


def test_compare_as_a_unified_diff_of_the_normalized_documents(tmp_path: Path) -> None:
    """Formatting noise is gone before the line diff: emphasis markers and a reflowed paragraph are no change."""
    old, new = tmp_path / "a.md", tmp_path / "b.md"
    old.write_text("# T\n\nHello *world*,\nsaid the page.\n\nSame.\n")
    new.write_text("T\n=\n\nHello _world_, said the page again.\n\nSame.\n")
    assert run("compare", str(old), str(new), "--format", "unified") == (
        ExitCode.FAILURE,
        f"--- {old}\n+++ {new}\n@@ -1,5 +1,5 @@\n # T\n \n-Hello *world*, said the page.\n"
        "+Hello *world*, said the page again.\n \n Same.\n",
        "",
    )
    same = tmp_path / "c.md"
    same.write_text("T\n=\n\nHello _world_,  said the page.\n\nSame.\n")
    assert run("compare", str(old), str(same), "--format", "unified") == (ExitCode.OK, "", "")
    assert run("compare", str(old), str(new), "--audit", "--format", "unified") == (
        ExitCode.USAGE,
        "",
        "error: --format unified is a diff's; an audit is text, markdown, json or html\n",
    )


def test_the_command_lines_diff_formats_are_the_renderers() -> None:
    from differ.arguments import DIFF_FORMATS
    from differ.diff import FORMATS

    assert DIFF_FORMATS == FORMATS


def test_compare_urls_politely_and_errors_in_one_line(tmp_path: Path, server: Server) -> None:
    server.page("/old", article("<p>Version 1.71 is out.</p>"))
    server.page("/new", article("<p>Version 1.81 is out.</p>"))
    server.page("/notes.md", "# Post\n\nVersion 1.81 is out.\n", ctype="text/plain")
    old, new, notes = server.url("/old"), server.url("/new"), server.url("/notes.md")
    local = ("--set", "allow_private=true")
    assert run("compare", old, new, *local, "--format", "markdown", "--no-color")[:2] == (
        ExitCode.FAILURE,
        f"**{old} → {new}: 1 change.**\n\n"
        '- "Version 1.71 is out."\n  → "Version 1.81 is out."\n\n'
        "| Change | Where | Before | After |\n|---|---|---|---|\n"
        "| modified | Version 1.81 is out | Version ~~1.71~~ is out. | Version **1.81** is out. |\n",
    )
    assert server.requests_to("/robots.txt"), "robots.txt is asked first"
    # text/plain at a .md address is read as Markdown
    assert run("compare", notes, new, *local, "--set", "metadata=[]")[:2] == (
        ExitCode.OK,
        f"{notes} → {new}: 0 changes.\n",
    )
    assert run("compare", old, new) == (
        ExitCode.USAGE,
        "",
        f"error: {old}: refused 127.0.0.1 (127.0.0.1): loopback address; to reach it: --set allow_private=true\n",
    )
    assert run("compare", old, server.url("/gone"), *local)[::2] == (
        ExitCode.USAGE,
        f"error: {server.url('/gone')}: HTTP 404 Not Found\n",
    )
    missing = str(tmp_path / "nope.html")
    assert run("compare", missing, old) == (
        ExitCode.USAGE,
        "",
        f"error: {missing}: no such file; expected a file, an http(s):// URL or -\n",
    )
    endless = "/dev/zero"  # a device (or a pipe) that never ends is read as far as a page may be, and refused
    assert run("compare", endless, missing) == (
        ExitCode.USAGE,
        "",
        f"error: {endless}: more than max_bytes (10,000,000 bytes); a page is compared whole or not at all\n",
    )
    assert run("compare", old, new, "--set", "exclude=3", *local)[::2] == (
        ExitCode.USAGE,
        f"error: {old}: --set exclude: expected a list of strings, found 3\n",
    )
    assert run("compare", old, new, "--set", "colour=red")[::2] == (
        ExitCode.USAGE,
        'error: --set: unknown option "colour"; options: accept, allow_private, api, command, entry, exclude, field, follow, follow_with, format, headers, '
        "ignore, interval, languages, metadata, paused, robots, selector, settled_after, settled_interval, slug, stale_after, translation\n",
    )
    picture = tmp_path / "release.md"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")  # a binary file under a text name
    assert run("compare", str(picture), old, *local) == (
        ExitCode.USAGE,
        "",
        f"error: {picture}: binary content, not text (a NUL byte at position 8); expected an HTML page, JSON, "
        "Markdown or plain text\n",
    )
    assert run("compare", old, new, "--kind", "pdf")[::2] == (
        ExitCode.USAGE,
        'error: --kind: expected one of discourse, feed, github, gitlab, html, json, markdown, text, wordpress, found "pdf"\n',
    )


def test_compare_reads_a_discourse_topic_by_its_first_post(tmp_path: Path, server: Server) -> None:
    """A forum's topic page carries its replies: compared or audited on the spot, the topic is read as the
    `discourse` kind reads it (its first post, through the forum's API), and a line on stderr says so."""
    topic = server.url("/t/pytorch-2-13/9876")
    server.page(
        "/t/pytorch-2-13/9876",
        '<html><head><meta name="generator" content="Discourse 3.2.0"></head><body><div id="main-outlet">'
        "<div class='topic-body crawler-post'><p>PyTorch 2.13 is out with faster builds for everyone.</p></div>"
        "<div class='topic-body crawler-post'><p>Congratulations, great work!</p></div></div></body></html>",
    )
    raw = "PyTorch 2.13 is out with faster builds for everyone.\n\n![chart|690x388](upload://a.png)\n"
    post = {"title": "PyTorch 2.13", "post_stream": {"posts": [{"raw": raw, "version": 1}]}}
    server.page("/t/9876.json?include_raw=1", json.dumps(post), "application/json")
    copy = tmp_path / "copy.html"
    copy.write_text(
        "<html><body><article><h1>PyTorch 2.13</h1><p>PyTorch 2.13 is out with faster builds for everyone.</p>"
        '<p><img src="chart.png" alt="chart"></p></article></body></html>'
    )
    assert run("compare", topic, str(copy), "--audit", "--set", "allow_private=true") == (
        ExitCode.OK,
        f"{copy} against {topic}: coverage 100.0%; 0 findings\n",
        f"warning: {topic}: a Discourse topic: its first post read (kind discourse), not the page with its "
        "replies\n",
    )


def test_compare_audit_checks_a_copy_on_the_spot(tmp_path: Path) -> None:
    """A translator's check before publishing: the copy against the canonical, no config, no store."""
    from differ.diff.blocks import md_text
    from tests.helpers import REPLAY, replay_fetch

    canonical = str(REPLAY / "canonical" / "fetch-3.html")
    repost = str(REPLAY / "mirrors" / "pytorch-kr.txt")
    page = ("--set", "selector=article .entry-content")
    code, out, err = run("compare", canonical, repost, "--audit", *page, "--set", 'languages=["en"]')
    assert (code, out, err) == (
        ExitCode.FAILURE,
        f"{repost} against {canonical}: coverage 99.1%; 1 finding\n"
        '  • missing [Performance Improvements]: the heading "Large MPS Op Migration to Native Metal"\n',
        "",
    )
    code, out, err = run("compare", canonical, repost, "--audit", *page)  # without languages: read the same
    assert (code, out.splitlines(), err) == (
        ExitCode.FAILURE,
        [
            f"{repost} against {canonical}: coverage 99.1%; 1 finding",
            "  note: 97 of its 189 blocks of text are in Korean (Hangul), which the canonical does not use: a "
            "bilingual copy, its blocks in Latin script audited alone, as --set 'languages=[\"en\"]' would, and "
            "each translation's numbers, versions and links against its original (--set 'languages=[]' audits "
            "every block)",
            '  • missing [Performance Improvements]: the heading "Large MPS Op Migration to Native Metal"',
        ],
        "",
    )
    code, out, err = run("compare", canonical, repost, "--audit", *page, "--set", "languages=[]")
    assert (code, out.splitlines()[0], out.count("• extra"), err) == (  # every block: its Korean ones extra
        ExitCode.FAILURE,
        f"{repost} against {canonical}: coverage 99.5%; 81 findings",
        65,
        "",
    )
    code, out, err = run("compare", canonical, repost, "--audit", *page, "--set", 'languages=["ko"]')
    assert (code, out.splitlines()[:2], err) == (  # the canonical is read whole: languages are the copy's
        ExitCode.FAILURE,
        [
            f"{repost}, a translation, against {canonical}: coverage 99.7%; 7 findings",
            "  note: its languages (ko) keep its blocks in Korean (Hangul), which the canonical does not use, so it "
            "is audited as a translation; --set 'languages=[\"en\"]' keeps those in the canonical's Latin script",
        ],
        "",
    )
    aggregator = str(REPLAY / "mirrors" / "wpnews.json")
    code, out, _ = run(
        "compare", canonical, aggregator, "--audit", *page, "--set", "field=body_md", "--format", "json"
    )
    data = json.loads(out)
    assert (code, data["schema"], data["title"]) == (ExitCode.FAILURE, "differ.audit/1", canonical)
    kinds = [(f["kind"], f.get("count", 1)) for f in data["mirrors"][0]["findings"]]
    assert sorted(kinds) == [
        ("altered", 1),
        ("altered", 1),
        ("code_corrupted", 4),
        ("extra", 1),
        ("missing", 1),
    ]
    altered = [
        (f["section"], f["canonical"][:14]) for f in data["mirrors"][0]["findings"] if f["kind"] == "altered"
    ]
    assert altered == [  # the two passages the edit changed, which this copy still has as they were
        (["The PyTorch 2.13 release features the following changes"], "CuTeDSL “Nativ"),
        (["Non-Feature Updates"], "Python support"),
    ]
    code, out, _ = run(
        "compare", canonical, aggregator, "--audit", *page, "--set", "field=body_md", "--format", "html"
    )
    assert code == ExitCode.FAILURE and "<td>code_corrupted</td>" in out and "version None" not in out
    assert "Canonical edits reaching" not in out
    copy = tmp_path / "copy.md"  # a faithful copy: the page's own Markdown
    copy.write_text(replay_fetch(3).markdown)
    code, out, _ = run("compare", canonical, str(copy), "--audit", *page, "--format", "markdown")
    head = md_text(f"{copy} against {canonical}: coverage 100.0%; 0 findings", inline=True)
    assert (code, out) == (ExitCode.OK, f"**{head}**\n\n")


def test_compare_reads_json_kept_as_text_by_the_field_given(tmp_path: Path) -> None:
    """The aggregator's API answer saved as `.txt` (as the seed was): with `field`, read as JSON, so its copy of
    the post is audited; without, as the text it was saved as."""
    import shutil

    from tests.helpers import REPLAY

    canonical = str(REPLAY / "canonical" / "fetch-1.html")
    saved = tmp_path / "wpnews-answer.txt"
    shutil.copy(REPLAY / "mirrors" / "wpnews.json", saved)
    page = ("--set", "selector=article .entry-content")
    code, out, _ = run("compare", canonical, str(saved), "--audit", *page, "--set", "field=body_md")
    assert (code, out.splitlines()[0]) == (
        ExitCode.FAILURE,
        f"{saved} against {canonical}: coverage 100.0%; 2 findings",
    )
    code, out, _ = run("compare", canonical, str(saved), "--audit", *page)
    assert (
        int(out.splitlines()[0].rsplit("; ", 1)[1].split()[0]) > 50
    )  # JSON read as text: findings everywhere


def test_compare_audit_of_a_translation(tmp_path: Path) -> None:
    """The Korean translation is audited as one by its script; `--set translation=…` says what it is instead,
    and is refused where it means nothing."""
    from tests.helpers import DATA, REPLAY

    canonical = str(REPLAY / "canonical" / "fetch-3.html")
    translation = str(DATA / "translation" / "pytorch-kr-translation.txt")
    page = ("--set", "selector=article .entry-content")
    code, out, err = run("compare", canonical, translation, "--audit", *page)
    lines = out.splitlines()
    assert (code, lines[0], err) == (
        ExitCode.FAILURE,
        f"{translation}, a translation, against {canonical}: coverage 99.7%; 5 findings",
        "",
    )
    assert (
        lines[1].startswith("  note: 99 of its 114 blocks of text are in Korean (Hangul)")
        and ": a translation," in lines[1]
    )
    assert (
        lines[2]
        == '  • missing [Performance Improvements]: the heading "Large MPS Op Migration to Native Metal"'
    )
    code, out, _ = run("compare", canonical, translation, "--audit", *page, "--set", "translation=false")
    # word by word: translated words are altered, missing and extra, a translated paragraph alone in its place
    # replaced
    assert (code, out.splitlines()[0]) == (
        ExitCode.FAILURE,
        f"{translation} against {canonical}: coverage 28.6%; 90 findings",
    )
    assert sum(line.startswith("  • replaced [") for line in out.splitlines()) == 7
    assert "note:" not in out
    code, out, _ = run("compare", canonical, translation, "--audit", *page, "--set", "translation=true")
    assert out.splitlines()[0].endswith("5 findings") and "note:" not in out
    assert run("compare", canonical, translation, "--set", "translation=true") == (
        ExitCode.USAGE,
        "",
        "error: --set translation: only an audit reads a copy as a translation; add --audit\n",
    )
    assert run("compare", canonical, translation, "--audit", "--set", "translation=yes") == (
        ExitCode.USAGE,
        "",
        'error: --set translation: expected true or false, found "yes"\n',
    )
    # the heading the repost leaves out on purpose, accepted as a mirror's `accept` does
    accept = ("--set", "accept=['missing *: the heading \"Large MPS Op Migration*']")
    code, out, _ = run("compare", canonical, translation, "--audit", *page, *accept)
    assert (code, out.splitlines()[0], out.splitlines()[-1]) == (
        ExitCode.FAILURE,
        f"{translation}, a translation, against {canonical}: coverage 99.7%; 4 findings, 1 accepted",
        '  accepted: missing [Performance Improvements]: the heading "Large MPS Op Migration to Native Metal"',
    )
    assert "  • missing [Performance Improvements]" not in out
    # a pattern copied from an audit of when the post's title headed every section still accepts its finding
    (tmp_path / "post.md").write_text("# Release\n\nIt is out.\n\n## Install\n\nRun it.\n")
    (tmp_path / "copy.md").write_text(
        "# Release\n\nIt is out.\n\n## Install\n\nRun it.\n\nOur own line here.\n"
    )
    old = ("--set", "accept=['extra [Release › Install]: \"Our own line here.\"']")
    out = run("compare", str(tmp_path / "post.md"), str(tmp_path / "copy.md"), "--audit", *old)[1]
    assert out.splitlines()[-1] == '  accepted: extra [Install]: "Our own line here."'
    assert run("compare", canonical, translation, *accept) == (
        ExitCode.USAGE,
        "",
        "error: --set accept: only an audit has findings to accept; add --audit\n",
    )


def test_a_site_built_from_markdown_with_front_matter_is_a_faithful_copy(tmp_path: Path) -> None:
    """The post's source in its repository (front matter and all) against the page the site built from it:
    the front matter is metadata, not a passage the page is missing."""
    from bench.corpus_eval import body, page
    from tests.helpers import DATA

    source = DATA / "corpus" / "rust-lang__blog.rust-lang.org__Rust-1.72.0" / "rev-03.md"
    built = tmp_path / "post.html"
    built.write_text(page(body(source.read_text())))
    assert run("compare", str(source), str(built), "--audit") == (
        ExitCode.OK,
        f"{built} against {source}: coverage 100.0%; 0 findings\n",
        "",
    )


def test_audit_exit_code_for_ci(tmp_path: Path, server: Server) -> None:
    """--exit-code: 0 while every mirror is faithful and current, 1 once one is stale."""
    one = article("<p>Version one of the announcement text, long enough to align.</p>")
    server.page("/canon", one)
    server.page("/copy", one)
    config = tmp_path / "config.toml"
    config.write_text(
        SERVICE.format(store=tmp_path / "snapshots")
        + '[[documents]]\nid = "doc"\n[documents.canonical]\nid = "canonical"\n'
        + f'url = "{server.url("/canon")}"\nrobots = false\nallow_private = ["127.0.0.1"]\n'
        + f'[[documents.mirrors]]\nid = "copy"\nurl = "{server.url("/copy")}"\nrobots = false\n'
        + 'allow_private = ["127.0.0.1"]\n'
    )
    assert run("--config", str(config), "check")[0] == ExitCode.OK
    code, out, _ = run("--config", str(config), "audit", "--exit-code")
    assert (code, out.splitlines()[1:]) == (
        ExitCode.OK,
        ["copy: version 1 matches canonical version 1 — up to date; coverage 100.0%; 0 findings"],
    )
    server.page("/canon", one.replace("Version one", "Version two"))
    assert run("--config", str(config), "check", "doc/canonical")[0] == ExitCode.OK
    assert run("--config", str(config), "audit", "--exit-code")[0] == ExitCode.FAILURE
    assert run("--config", str(config), "audit")[0] == ExitCode.OK


def test_audit_of_one_mirror_answers_for_it_alone(tmp_path: Path, server: Server) -> None:
    """`differ audit DOCUMENT/MIRROR` (or the mirror's URL): a mirror's maintainer audits their own copy, and
    `--exit-code` fails their CI for it alone, not for another copy that fell behind."""
    one = article("<p>Version one of the announcement text, long enough to align.</p>")
    two = one.replace("Version one", "Version two")
    server.page("/canon", one)
    server.page("/copy", one.replace("long enough", "long enough, we hope,"))  # a text of its own
    server.page("/kept", one)
    mirror = '[[documents.mirrors]]\nid = "{}"\nurl = "{}"\nrobots = false\nallow_private = ["127.0.0.1"]\n'
    config = tmp_path / "config.toml"
    config.write_text(
        SERVICE.format(store=tmp_path / "snapshots")
        + '[[documents]]\nid = "doc"\n[documents.canonical]\nid = "canonical"\n'
        + f'url = "{server.url("/canon")}"\nrobots = false\nallow_private = ["127.0.0.1"]\n'
        + mirror.format("copy", server.url("/copy"))
        + mirror.format("kept", server.url("/kept"))
    )
    assert run("--config", str(config), "check")[0] == ExitCode.OK
    server.page("/canon", two)
    server.page("/kept", two)
    assert run("--config", str(config), "check")[0] == ExitCode.OK
    head = "Post (doc): canonical version 2 of "
    code, out, err = run("--config", str(config), "audit", "doc/kept", "--exit-code")
    assert (code, out.startswith(head), out.splitlines()[1:], err) == (
        ExitCode.OK,
        True,
        ["kept: version 2 matches canonical version 2 — up to date; coverage 100.0%; 0 findings"],
        "",
    )
    code, out, _ = run(
        "--config", str(config), "audit", server.url("/copy"), "--exit-code", "--format", "json"
    )
    assert (code, [m["id"] for m in json.loads(out)["mirrors"]]) == (ExitCode.FAILURE, ["copy"])
    code, out, _ = run("--config", str(config), "audit", "doc", "--exit-code")  # the document: both
    assert (code, [line.split(":")[0] for line in out.splitlines()[1:] if not line.startswith(" ")]) == (
        ExitCode.FAILURE,
        ["copy", "kept"],
    )
    from differ.audit.matches import matches_path

    remembered = matches_path(Store(tmp_path / "snapshots"), "doc")
    both = json.loads(remembered.read_text())["mirrors"]
    assert len(both) == 3 and run("--config", str(config), "audit", "doc/kept")[0] == ExitCode.OK
    assert json.loads(remembered.read_text())["mirrors"] == both  # the other mirror's matches are kept
    assert run("--config", str(config), "audit", "doc/canonical") == (
        ExitCode.USAGE,
        "",
        "error: doc/canonical is the canonical, which the mirrors are audited against: differ audit doc\n",
    )
    assert run("--config", str(config), "audit", "doc/ko") == (
        ExitCode.USAGE,
        "",
        'error: doc has no mirror "ko"; its mirrors: copy, kept\n',
    )


def test_a_bilingual_posts_translated_title_is_no_finding_of_either_half(tmp_path: Path) -> None:
    """A post that keeps its title in front matter in one language and its body in two (a Korean paragraph, its
    English original quoted): audited for its English half, its Korean title is the title translated, not the
    canonical's title altered; audited for its Korean half, it is paired as a translation; an English title
    that says something else is still altered."""
    canonical = tmp_path / "post.md"
    canonical.write_text(
        "# PyTorch 2.12 Release Blog\n\nWe are excited to announce the release of PyTorch 2.12 today.\n\n"
        "## Performance Features\n\nBatched linalg.eigh on CUDA is up to 100x faster.\n"
    )
    body = (
        "PyTorch 2.12의 출시를 발표하게 되어 기쁩니다.\n> We are excited to announce the release of PyTorch 2.12 "
        "today.\n\n## 성능 관련 기능 / Performance Features\n\nCUDA에서 배치 linalg.eigh가 최대 100배 "
        "빨라졌습니다.\n> Batched linalg.eigh on CUDA is up to 100x faster.\n"
    )
    copy = tmp_path / "ko.md"
    copy.write_text('---\ntitle: "PyTorch 2.12 출시 공지"\n---\n\n' + body)
    for language in ("en", "ko"):
        code, out, _ = run(
            "compare", str(canonical), str(copy), "--audit", "--set", f'languages=["{language}"]'
        )
        assert (code, out.splitlines()[0].endswith("coverage 100.0%; 0 findings")) == (ExitCode.OK, True), out
    copy.write_text('---\ntitle: "PyTorch 2.12 Release Notes"\n---\n\n' + body)
    code, out, _ = run("compare", str(canonical), str(copy), "--audit", "--set", 'languages=["en"]')
    assert out.splitlines()[1:] == ['  • altered: "PyTorch 2.12 Release Blog" ("Blog" → "Notes")']


def test_compare_reads_one_side_from_standard_input(tmp_path: Path) -> None:
    """`curl … | differ compare old.md -`: a real process, the page on its standard input."""
    old = tmp_path / "old.md"
    old.write_text("# Notes\n\nVersion 1.71 is out.\n")
    command = [sys.executable, "-m", "differ", "compare", str(old), "-"]
    done = subprocess.run(command, input=b"# Notes\n\nVersion 1.81 is out.\n", capture_output=True, cwd=ROOT)
    assert (done.returncode, done.stderr) == (1, b"")
    assert done.stdout.decode().splitlines()[:3] == [
        f"{old} → -: 1 change.",
        '• "Version 1.71 is out."',
        '  → "Version 1.81 is out."',
    ]
    both = subprocess.run([*command[:-2], "-", "-"], input=b"x", capture_output=True, cwd=ROOT)
    assert (both.returncode, both.stdout, both.stderr) == (
        2,
        b"",
        b"error: only one side can be read from standard input (-)\n",
    )


def test_compare_of_an_address_that_is_none_is_one_line(tmp_path: Path) -> None:
    page = tmp_path / "a.md"
    page.write_text("# Notes\n")
    for bad in ("http://[::1", "https://example.org:99999/"):
        assert run("compare", bad, str(page)) == (
            ExitCode.USAGE,
            "",
            f'error: {bad}: expected an http:// or https:// URL, found "{bad}"\n',
        )


def test_compare_of_xml_says_what_it_is_in_one_line(tmp_path: Path) -> None:
    """An XHTML page with an XML declaration is read as a page without BeautifulSoup's advice to programmers on
    stderr (a real process: a warning is printed by Python's own handler); a feed file is read as its list of
    posts, one post of it with `entry`, and read as a page it is named for what it is."""
    page = tmp_path / "page.xml"
    page.write_text('<?xml version="1.0"?>\n<doc><p>Version 1.81 is out.</p></doc>\n')
    command = [sys.executable, "-m", "differ", "compare", "--kind", "html", str(page), str(page)]
    done = subprocess.run(command, capture_output=True, cwd=ROOT)
    assert (done.returncode, done.stdout.decode(), done.stderr) == (0, f"{page} → {page}: 0 changes.\n", b"")
    feed = tmp_path / "feed.xml"
    feed.write_text(
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><item><title>1.81</title>'
        "<link>https://example.org/1.81</link><description>Out.</description></item></channel></rss>"
    )
    newer = tmp_path / "newer.xml"
    newer.write_text(
        feed.read_text().replace(
            "<item>", "<item><title>1.82</title><link>https://example.org/1.82</link></item><item>", 1
        )
    )
    assert run("compare", str(feed), str(newer)) == (
        ExitCode.FAILURE,
        f'{feed} → {newer}: 1 change.\n• added "1.82" <https://example.org/1.82>\n\n[added] 1.82\n  + 1.82\n',
        "",
    )
    assert run("compare", str(feed), str(feed), "--set", "entry=https://example.org/1.81")[0] == ExitCode.OK
    assert run("compare", str(feed), str(feed), "--kind", "html") == (
        ExitCode.USAGE,
        "",
        f'error: {feed}: expected an HTML page, got an RSS feed: kind "feed" reads one of its posts, with entry = '
        'the post\'s link (the first: "1.81" <https://example.org/1.81>), or its list of posts, with entry = "*"\n',
    )


def test_a_page_that_turns_out_a_feed_or_json_fails_with_the_command_that_watches_it_so(
    tmp_path: Path, server: Server
) -> None:
    """`differ add` cannot know what an address serves before it is fetched: the check that finds a feed or an
    API's JSON says the `differ set` that reads it, and that command, run as said, makes the next check store the
    post; `differ fetch` says the same."""
    import shlex

    config = write_config(tmp_path, server)
    assert run("--config", str(config), "remove", "doc/gone")[0] == ExitCode.OK
    post = server.url("/2026/post?id=3&lang=en")
    server.page(
        "/post",
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><item><title>Out</title>'
        f"<link>{post.replace('&', '&amp;')}</link><description>Version 1.81 is out.</description></item></channel></rss>",
        ctype="application/rss+xml",
    )
    code, out, _ = run("--config", str(config), "check")
    command = f"differ set doc/canonical kind=feed 'entry={post}'"
    assert (code, out) == (
        ExitCode.FAILURE,
        'doc/canonical: failed: expected an HTML page, got an RSS feed: kind "feed" reads one of its posts, with '
        f'entry = the post\'s link (the first: "Out" <{post}>), or its list of posts, with entry = "*"; to watch it'
        f" so: {command}\n",
    )
    code, _, err = run("--config", str(config), "fetch", "doc/canonical")
    assert (code, err.endswith(f"; to watch it so: {command}\n")) == (ExitCode.FAILURE, True)
    assert run("--config", str(config), *shlex.split(command)[1:])[0] == ExitCode.OK
    assert run("--config", str(config), "check")[:2] == (
        ExitCode.OK,
        "doc/canonical: new version 1 (first snapshot)\n",
    )
    assert run("--config", str(config), "show", "doc/canonical")[1] == "Version 1.81 is out.\n"
    server.page(
        "/post", '{"title": "Out", "post": {"text": "Version 1.82 is out."}}', ctype="application/json"
    )
    assert (
        run("--config", str(config), "set", "doc/canonical", "kind=html", "--unset", "entry")[0]
        == ExitCode.OK
    )
    code, out, _ = run("--config", str(config), "check")
    assert out.endswith("; to watch it so: differ set doc/canonical kind=json field=post.text\n")
    assert (
        run("--config", str(config), "set", "doc/canonical", "kind=json", "field=post.text")[0] == ExitCode.OK
    )
    assert run("--config", str(config), "check")[:2] == (
        ExitCode.OK,
        "doc/canonical: new version 2 (1 change)\n",
    )


def test_a_source_can_be_named_by_its_pages_url_however_spelled(tmp_path: Path, server: Server) -> None:
    """Where a command takes DOCUMENT or DOCUMENT/SOURCE it takes the page's URL as pasted (`http:`, `www.`, a
    slash, `utm_`): that source alone is checked, its history and diff shown, its document audited, a mirror
    removed by it; a URL no source watches, or one two documents watch, is one line saying so."""
    server.page("/post", article("<p>Words.</p>"))
    server.page("/gone", article("<p>Words.</p>"))
    config = write_config(tmp_path, server)
    post = server.url("/post/") + "?utm_source=chat"  # as pasted
    code, out, err = run("--config", str(config), "check", post)
    assert (code, out, err) == (ExitCode.OK, "doc/canonical: new version 1 (first snapshot)\n", "")
    assert run("--config", str(config), "history", post)[1].startswith(
        f"doc/canonical  {server.url('/post')}\n"
    )
    assert run("--config", str(config), "audit", post)[1].startswith("Doc (doc): canonical version 1")
    assert run("--config", str(config), "history", "https://example.org/x") == (
        ExitCode.USAGE,
        "",
        "error: no source watches https://example.org/x (to watch it: differ add https://example.org/x); configured "
        "sources: doc/canonical, doc/gone\n",
    )
    assert run("--config", str(config), "remove", server.url("/gone"))[0] == ExitCode.OK
    with config.open("a") as f:  # the same page a mirror of a second document
        f.write(f'[[documents]]\nid = "two"\n[documents.canonical]\nurl = "{server.url("/other")}"\n'
                f'[[documents.mirrors]]\nid = "copy"\nurl = "{server.url("/post")}"\n')  # fmt: skip
    assert run("--config", str(config), "diff", post) == (
        ExitCode.USAGE,
        "",
        f"error: {post} is watched as doc/canonical, two/copy: name one of them\n",
    )


def test_quiet_check_prints_only_what_needs_attention(tmp_path: Path, server: Server) -> None:
    server.page("/post", article("<p>Text.</p>"))
    config = str(write_config(tmp_path, server))
    gone = "doc/gone: failed: HTTP 404 Not Found"
    assert run("--config", config, "check", "-q") == (
        ExitCode.FAILURE,
        f"doc/canonical: new version 1 (first snapshot)\n{gone}\n",
        "",
    )
    assert run("--config", config, "check", "--quiet") == (ExitCode.FAILURE, f"{gone}\n", "")
    assert run("--config", config, "check", "-q", "doc/canonical") == (ExitCode.OK, "", "")
    assert run("--config", config, "check", "doc/canonical") == (
        ExitCode.OK,
        "doc/canonical: unchanged (same body)\n",
        "",
    )


def test_sources_lists_state_feed_and_ignored_text(tmp_path: Path, server: Server) -> None:
    server.page("/post", article("<p>Text.</p>"))
    config = write_config(tmp_path, server)
    config.write_text(
        config.read_text()
        .replace("retries = 0\n", 'retries = 0\nbase_url = "https://reports.example.org/"\n')
        .replace(
            'robots = false\nallow_private = ["127.0.0.1"]\n[[',
            'robots = false\nallow_private = ["127.0.0.1"]\nignore = ["Views: \\\\d+"]\n[[',
            1,
        )
        + 'stale_after = "3d"\n'
    )
    assert run("--config", str(config), "sources")[1].splitlines()[:3] == [
        "doc  Doc",
        f"  doc/canonical  [canonical, html, every 30m]  {server.url('/post')}",
        "    ignore: Views: \\d+",
    ]
    run("--config", str(config), "check")
    code, out, _ = run("--config", str(config), "sources")
    lines = out.splitlines()
    assert (code, lines[:4]) == (
        ExitCode.OK,
        [
            "doc  Doc",
            "  feed: https://reports.example.org/doc/feed.xml",
            f"  doc/canonical  [canonical, html, every 30m]  {server.url('/post')}",
            "    ignore: Views: \\d+",
        ],
    )
    assert re.fullmatch(r"    versions: 1  last check: \S+Z  last change: \S+Z  state: ok", lines[4])
    assert lines[5] == f"  doc/gone  [mirror, html, every 30m, stale after 3d]  {server.url('/gone')}"
    assert re.fullmatch(
        r"    versions: 0  last check: \S+Z  last change: -  state: failing \(1\): HTTP 404 Not Found",
        lines[6],
    )
    # an unchanged check leaves the state as it was; its time is read from the fetch log
    store = Store(tmp_path / "snapshots")
    store.log_fetch("doc/canonical", {"at": "2030-01-02T03:04:05Z", "outcome": "unchanged"})
    lines = run("--config", str(config), "sources")[1].splitlines()
    assert re.fullmatch(
        r"    versions: 1  last check: 2030-01-02T03:04:05Z  last change: \S+Z  state: ok", lines[4]
    )
    store.log_fetch("doc/canonical", {"at": "2020-01-02T03:04:05Z", "outcome": "unchanged"})  # long ago
    lines = run("--config", str(config), "sources")[1].splitlines()
    assert lines[4].endswith("  state: overdue (see differ status)")


def test_sources_as_json_says_what_the_text_says(tmp_path: Path, server: Server, receiver: Server) -> None:
    """`differ sources --format json` (`differ.sources/1`): every document, source and notifier with its settings
    and state, for scripts; a notifier's secrets are left out as in the text."""
    server.page("/post", article("<p>Text.</p>"))
    config = write_config(tmp_path, server)
    config.write_text(
        config.read_text().replace(
            "retries = 0\n", 'retries = 0\nbase_url = "https://reports.example.org/"\n'
        )
        + 'stale_after = "3d"\ntranslation = true\n[[notify]]\nname = "hooks"\nkind = "webhook"\n'
        + f'url = "{receiver.url("/hook/secret-path")}"\nsecret = "whsec_{"A" * 32}"\nwords = ["CVE-*"]\n'
    )
    run("--config", str(config), "check")
    code, out, err = run("--config", str(config), "sources", "--format", "json")
    report = json.loads(out)
    (canonical, gone) = report["documents"][0]["sources"]
    assert (code, err, report["schema"], report["documents"][0]["feed"]) == (
        ExitCode.OK,
        "",
        "differ.sources/1",
        "https://reports.example.org/doc/feed.xml",
    )
    assert {k: v for k, v in canonical.items() if k not in ("last_check", "last_change")} == {
        "source": "doc/canonical",
        "role": "canonical",
        "kind": "html",
        "url": server.url("/post"),
        "entry": None,
        "follow": [],
        "follow_with": {},
        "interval": "30m",
        "settled": None,
        "settles": None,
        "paused": False,
        "stale_after": None,
        "translation": None,
        "ignore": [],
        "command": [],
        "versions": 1,
        "state": "ok",
        "moved": None,
        "translations": [],
        "last_audit": None,
    }
    assert canonical["last_check"] == canonical["last_change"] and canonical["last_check"].endswith("Z")
    assert (
        gone["stale_after"],
        gone["translation"],
        gone["versions"],
        gone["last_change"],
        gone["state"],
    ) == (
        "3d",
        True,
        0,
        None,
        "failing (1): HTTP 404 Not Found",
    )
    (hooks,) = report["notifiers"]
    assert (hooks["name"], hooks["kind"], hooks["words"], hooks["digest"]) == (
        "hooks",
        "webhook",
        ["CVE-*"],
        None,
    )
    assert "secret-path" not in out and "whsec_" not in out
    text = run("--config", str(config), "sources")[1]
    assert (
        f"  doc/gone  [mirror, html, every 30m, stale after 3d, a translation]  {server.url('/gone')}" in text
    )
    assert (
        f"notify hooks  [webhook]  {hooks['target']}  events: {', '.join(hooks['events'])}  words: CVE-*"
        in text
    )


def test_sources_say_how_each_mirror_fared_in_its_last_audit(tmp_path: Path, server: Server) -> None:
    """A mirror's line in `differ sources` is followed by its last audit, as `differ audit` heads it; JSON
    `last_audit` has the figures."""
    config = str(write_config(tmp_path, server))
    server.page("/post", article("<p>First words of the post.</p><p>Second paragraph here.</p>"))
    server.page("/copy", article("<p>First words of the post.</p>"))
    private = ("--set", 'allow_private=["127.0.0.1"]', "--set", "robots=false")
    assert (
        run("--config", config, "add", server.url("/copy"), "--to", "doc", "--id", "copy", *private)[0] == 0
    )
    run("--config", config, "check")
    out = run("--config", config, "sources")[1]
    assert (
        "    last audit: version 1 matches canonical version 1 — up to date; coverage 66.7%; 1 finding\n"
        in out
    )
    report = json.loads(run("--config", config, "sources", "--format", "json")[1])
    (mirror,) = [s for s in report["documents"][0]["sources"] if s["source"] == "doc/copy"]
    assert mirror["last_audit"] == {
        "version": 1,
        "translation": False,
        "matches_version": 1,
        "canonical_version": 1,
        "stale_from": None,
        "coverage": 0.6667,
        "findings": 1,
        "accepted": 0,
        "passages_behind": None,
        "read_in": [],
    }
    # one source (or a document's): its document's line and its own, the others left out
    code, out, _ = run("--config", config, "sources", "doc/copy")
    assert code == 0 and "  doc/copy  [mirror" in out and "doc/canonical" not in out
    one = json.loads(run("--config", config, "sources", "doc/copy", "--format", "json")[1])
    assert [[s["source"] for s in d["sources"]] for d in one["documents"]] == [["doc/copy"]]
    assert run("--config", config, "sources", "doc/ko")[::2] == (
        ExitCode.USAGE,
        'error: no source "doc/ko"; configured sources: doc/canonical, doc/gone, doc/copy\n',
    )
    # the copy leaves the second paragraph out on purpose: the next check audits it again, though no page
    # changed, and its line says so
    assert run("--config", config, "set", "doc/copy", "accept=['missing: *Second paragraph*']")[0] == 0
    run("--config", config, "check")
    assert (
        "    last audit: version 1 matches canonical version 1 — up to date; coverage 66.7%; 0 findings, 1 accepted\n"
        in run("--config", config, "sources")[1]
    )


def test_kinds_needs_no_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no config.toml here
    code, out, err = run("kinds")
    assert (code, err) == (ExitCode.OK, "") and out.startswith("source kinds:\n")


def test_kinds_lists_every_source_kind_and_notifier_with_its_description_in_one_column() -> None:
    from differ.normalize import SOURCE_KINDS
    from differ.notify import NOTIFIERS

    code, out, _ = run("kinds")
    lines = out.splitlines()
    assert code == ExitCode.OK and lines[0] == "source kinds:" and "notifiers:" in lines
    rows = [line for line in lines if line.startswith("  ") and "also takes:" not in line]
    assert [row.split()[0] for row in rows] == [*sorted(SOURCE_KINDS), *sorted(NOTIFIERS)]
    assert [line for line in lines if "also takes:" in line] == [  # the options of every kind, after them
        "  every source also takes: accept, allow_private, command, headers, id, ignore, interval, kind, languages, paused, robots,"
        " settled_after, settled_interval, stale_after, translation, url",
        "  every notifier also takes: changes, digest, documents, events, fail_after, retry_for, sections, sources,"
        " timeout, words",
    ]
    starts = {len(row) - len(row[2:].split(" ", 1)[1].lstrip()) for row in rows}
    assert len(starts) == 1  # every description begins in the same column
    assert (
        "  googlechat  Google Chat incoming webhook;" in out
        and "  feed        One post in its blog's RSS" in out
    )


def test_sources_names_the_post_a_feed_source_watches(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    feed = "https://blog.rust-lang.org/feed.xml"
    for post in (
        "https://blog.rust-lang.org/2026/07/09/Rust-1.97.0/",
        "https://blog.rust-lang.org/2026/08/01/Rust-1.98.0/",
    ):
        assert run("--config", str(config), "add", feed, "--set", f"entry={post}")[0] == ExitCode.OK
    assert run("--config", str(config), "--snapshots", str(tmp_path / "s"), "sources")[1].splitlines() == [
        "rust-1-97-0  rust-1-97-0",
        f"  rust-1-97-0/canonical  [canonical, feed, every 30m]  {feed}",
        "    entry: https://blog.rust-lang.org/2026/07/09/Rust-1.97.0/",
        "    versions: 0  last check: -  last change: -  state: never checked",
        "rust-1-98-0  rust-1-98-0",
        f"  rust-1-98-0/canonical  [canonical, feed, every 30m]  {feed}",
        "    entry: https://blog.rust-lang.org/2026/08/01/Rust-1.98.0/",
        "    versions: 0  last check: -  last change: -  state: never checked",
    ]
    follow = ("--set", 'follow=["Announcing*"]', "--set", 'follow_with={ selector = "article .post" }')
    code, _, _ = run("--config", str(config), "add", feed, "--set", "entry=*", *follow)
    assert code == ExitCode.OK
    listed = run("--config", str(config), "--snapshots", str(tmp_path / "s"), "sources")[1].splitlines()
    assert listed[-4:] == [
        f"  blog-rust-lang-org-posts/canonical  [canonical, feed, every 30m]  {feed}",
        "    entry: * (the list of posts)",
        '    follows new posts with: Announcing* (watched with selector = "article .post")',
        "    versions: 0  last check: -  last change: -  state: never checked",
    ]
    data = json.loads(
        run("--config", str(config), "--snapshots", str(tmp_path / "s"), "sources", "--format", "json")[1]
    )
    assert [(s["follow"], s["follow_with"]) for d in data["documents"] for s in d["sources"]] == [
        ([], {}),
        ([], {}),
        (["Announcing*"], {"selector": "article .post"}),
    ]


def test_text_diff_is_coloured_on_a_terminal_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`differ diff` writing to a real pseudo-terminal colours deleted and inserted words; --no-color and a
    pipe do not."""
    import os
    import pty

    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--keep", "kept"], out=io.StringIO()) == ExitCode.OK
    command = [sys.executable, "-m", "differ", "--config", "kept/demo.toml", "diff", "pytorch-2-13"]

    def on_a_terminal(*extra: str) -> str:
        leader, follower = pty.openpty()
        proc = subprocess.Popen([*command, *extra], stdout=follower, stderr=subprocess.PIPE, cwd=tmp_path)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal is gone once the process has exited
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.wait(timeout=60) == 0
        os.close(leader)
        return b"".join(chunks).decode()

    coloured = on_a_terminal()
    assert "\033[31m[-[Prototype]-]\033[0m" in coloured and "\033[32m{+Preliminary+}\033[0m" in coloured
    assert "\033[" not in on_a_terminal("--no-color")
    piped = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert piped.returncode == 0 and "[-[Prototype]-]" in piped.stdout and "\033[" not in piped.stdout


def test_check_as_json_gives_every_outcome_in_one_document(tmp_path: Path, server: Server) -> None:
    """`differ check --format json` (`differ.check/1`): each source's outcome, version and summary at the end,
    paused ones too; with `-q` only what needs attention, and nothing at all when nothing does."""
    config = str(write_config(tmp_path, server))
    server.page("/post", article("<p>The release is out today.</p>"))
    code, out, err = run("--config", config, "check", "--format", "json")
    first, gone = json.loads(out)["results"]
    assert (code, err, json.loads(out)["schema"]) == (ExitCode.FAILURE, "", "differ.check/1")
    assert first == {
        "source": "doc/canonical",
        "outcome": "new",
        "detail": None,
        "version": 1,
        "previous": None,
        "changes": 0,
        "metadata": 0,
        "warnings": [],
        "summary": [],
    }
    assert (gone["source"], gone["outcome"], gone["detail"]) == ("doc/gone", "failed", "HTTP 404 Not Found")
    assert run("--config", config, "pause", "doc/gone")[0] == ExitCode.OK
    server.page("/post", article("<p>The release is out since Monday.</p>"))
    code, out, _ = run("--config", config, "check", "--format", "json")
    paused, changed = json.loads(out)["results"]
    assert (code, paused["source"], paused["outcome"]) == (ExitCode.OK, "doc/gone", "paused")
    assert (changed["outcome"], changed["version"], changed["previous"], changed["changes"]) == (
        "new",
        2,
        1,
        1,
    )
    assert changed["summary"][1:] == [
        '• "The release is out today."',
        '  → "The release is out since Monday."',
    ]
    assert run("--config", config, "check", "-q", "--format", "json") == (ExitCode.OK, "", "")
    unchanged = json.loads(run("--config", config, "check", "--format", "json", "doc/canonical")[1])
    assert [(r["outcome"], r["detail"]) for r in unchanged["results"]] == [("unchanged", "same body")]


def test_check_due_checks_only_the_sources_whose_interval_has_passed(tmp_path: Path, server: Server) -> None:
    """`differ check --due`, for a cron job run more often than the pages' intervals: a source checked less than
    its interval ago (less the slack a pass takes) waits, said as `not due` (nothing with `-q`, `not_due` in
    JSON); one never checked, or checked long enough ago, is checked."""
    config = write_config(tmp_path, server)
    server.page("/post", article("<p>First words.</p>"))
    assert run("--config", str(config), "set", "doc/gone", "interval=5m")[0] == ExitCode.OK
    assert run("--config", str(config), "check", "--due", "doc/canonical") == (
        ExitCode.OK,
        "doc/canonical: new version 1 (first snapshot)\n",
        "",
    )  # never checked: due
    code, out, err = run("--config", str(config), "check", "--due")
    ago = re.compile(r"checked \d+ seconds? ago, every 30m")  # the seconds a check takes on a busy machine
    assert (code, ago.sub("checked N seconds ago, every 30m", out), err) == (
        ExitCode.FAILURE,
        "doc/canonical: not due (checked N seconds ago, every 30m)\ndoc/gone: failed: HTTP 404 Not Found\n",
        "",
    )  # every 5 minutes: within the slack, so due at every run
    assert run("--config", str(config), "check", "--due", "-q", "doc/canonical") == (ExitCode.OK, "", "")
    code, out, _ = run("--config", str(config), "check", "--due", "--format", "json", "doc/canonical")
    results = json.loads(out)["results"]
    assert ago.fullmatch(results[0]["detail"])
    assert results == [
        {
            "source": "doc/canonical",
            "outcome": "not_due",
            "detail": results[0]["detail"],
            "version": None,
            "previous": None,
            "changes": 0,
            "metadata": 0,
            "warnings": [],
            "summary": [],
        }
    ]


def test_check_due_with_nothing_due_still_beats_the_heartbeat(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """A cron job's pass that finds every page checked in time is a watcher at work: the dead man's switch hears
    from it as from a pass that checked them."""
    config = write_config(tmp_path, server)
    config.write_text(
        config.read_text().replace("[service]\n", f'[service]\nheartbeat = "{receiver.url("/ping")}"\n')
    )
    receiver.routes["/ping"] = Reply(200, b"OK")
    server.page("/post", article("<p>First words.</p>"))
    assert run("--config", str(config), "remove", "doc/gone")[0] == ExitCode.OK
    assert run("--config", str(config), "check", "-q", "--due")[0] == ExitCode.OK
    assert run("--config", str(config), "check", "-q", "--due") == (ExitCode.OK, "", "")  # nothing due
    assert len(receiver.requests_to("/ping")) == 2


def test_a_paused_source_is_checked_only_when_named(tmp_path: Path, server: Server) -> None:
    """`differ pause doc/gone`: `differ check` leaves it out and says so (`-q`: silently), `differ sources`
    shows it paused, and `differ check doc/gone` still checks it."""
    config = write_config(tmp_path, server)
    server.page("/post", article("<p>First words.</p>"))
    assert run("--config", str(config), "pause", "doc/gone")[0] == ExitCode.OK
    assert run("--config", str(config), "check") == (
        ExitCode.OK,
        "doc/gone: paused\ndoc/canonical: new version 1 (first snapshot)\n",
        "",
    )
    assert run("--config", str(config), "check", "-q")[:2] == (ExitCode.OK, "")
    assert server.requests_to("/gone") == []
    code, out, _ = run("--config", str(config), "sources")
    assert f"  doc/gone  [mirror, html, paused]  {server.url('/gone')}\n" in out
    assert run("--config", str(config), "check", "doc/gone")[:2] == (
        ExitCode.FAILURE,
        "doc/gone: failed: HTTP 404 Not Found\n",
    )
    assert run("--config", str(config), "pause", "doc")[0] == ExitCode.OK
    assert run("--config", str(config), "check") == (
        ExitCode.OK,
        "doc/canonical: paused\ndoc/gone: paused\n",
        "",
    )
    assert (
        run("--config", str(config), "config", "check")[1]
        == f"{config}: ok (1 document, 2 sources (2 paused), 0 notifiers)\n"
    )


def test_compare_says_how_reading_a_side_fell_short(tmp_path: Path) -> None:
    """A side read with a warning (a Discourse topic read as a page, front matter that does not read) says so on
    stderr, as `differ fetch` does; the diff on stdout stays as it is."""
    from differ.normalize.kinds import DISCOURSE_PAGE

    topic = tmp_path / "topic.html"
    topic.write_text(
        '<html><head><meta name="generator" content="Discourse 3.2.0"></head><body><main><h1>Release</h1>'
        "<p>The post.</p></main></body></html>"
    )
    post = tmp_path / "post.md"
    post.write_text("# Release\n\nThe post.\n")
    assert run("compare", str(post), str(topic)) == (
        ExitCode.OK,
        f"{post} → {topic}: 0 changes.\n",
        f"warning: {topic}: {DISCOURSE_PAGE}\n",
    )


def test_compare_names_where_a_json_body_is_likely_to_be(tmp_path: Path) -> None:
    """A JSON document compared without `field` (or with one it lacks): the error names its longest text
    fields, so the next command can say which holds the body."""
    from tests.helpers import REPLAY

    copy = str(REPLAY / "mirrors" / "wpnews.json")
    fields = "body_md (19,185 characters), summary (421 characters), alternates.jsonld (56 characters)"
    assert run("compare", copy, copy) == (
        ExitCode.USAGE,
        "",
        f'error: {copy}: --set: missing key "field" (path of the body, e.g. body_md or data.content); its longest '
        f"text fields: {fields}\n",
    )
    assert run("compare", copy, copy, "--set", "field=body") == (
        ExitCode.USAGE,
        "",
        f'error: {copy}: field "body" is missing from the JSON document (no "body"); its longest text fields: '
        f"{fields}\n",
    )
    assert run("compare", copy, copy, "--set", "field=body_md")[0] == ExitCode.OK


def test_a_feed_sorted_by_its_entries_updated_date_lists_its_posts_as_published(tmp_path: Path) -> None:
    """An Atom feed ordered by `updated` puts an edited post on top: the list of posts is newest published
    first, so the edit moves nothing (a post new since is still one added); a feed whose entries do not all say
    when they were published keeps its own order."""

    def atom(*posts: tuple[str, str, str]) -> str:
        entries = "".join(
            f"<entry><title>{t}</title><link href='https://blog.example.org/{t}/'/><id>{t}</id>"
            f"<published>{p}</published><updated>{p}</updated></entry>"
            for t, p, _ in posts
        )
        return f"<feed xmlns='http://www.w3.org/2005/Atom'><title>Blog</title>{entries}</feed>"

    old = tmp_path / "old.xml"
    new = tmp_path / "new.xml"
    a, b = ("a", "2026-07-01T10:00:00Z", ""), ("b", "2026-07-08T10:00:00+02:00", "")
    old.write_text(atom(b, a))
    new.write_text(atom(a, b))  # "a" edited, so on top by its updated date
    assert run("compare", str(old), str(new)) == (ExitCode.OK, f"{old} → {new}: 0 changes.\n", "")
    c = ("c", "Thu, 09 Jul 2026 08:00:00 GMT", "")  # RFC 822, as RSS writes it
    new.write_text(atom(a, c, b))
    code, out, _ = run("compare", str(old), str(new))
    assert (code, out.splitlines()[:2]) == (
        ExitCode.FAILURE,
        [f"{old} → {new}: 1 change.", '• added "c" <https://blog.example.org/c/>'],
    )
    new.write_text(atom(a, b).replace("<published>2026-07-01T10:00:00Z</published>", ""))
    assert run("compare", str(old), str(new))[1].splitlines()[0] == f"{old} → {new}: 1 change."  # "a" moved
    new.write_text(atom(a, ("d", "9999-12-31T23:59:59-05:00", "")))  # a date past year 9999 in UTC: not one
    assert run("compare", str(new), str(new)) == (ExitCode.OK, f"{new} → {new}: 0 changes.\n", "")


def test_compare_of_a_json_feed_reads_its_list_of_posts_or_one_post(tmp_path: Path) -> None:
    """A blog's JSON Feed compared without settings is read as its list of posts, as an RSS or Atom file is;
    with `--set entry=…` the feed kind reads that post; read as JSON (`--kind json`), the error says it is a
    feed, and which post comes first."""
    feed = tmp_path / "feed.json"
    items = [{"id": "2", "url": "https://example.org/1.81", "title": "1.81", "content_text": "Out."}]
    feed.write_text(json.dumps({"version": "https://jsonfeed.org/version/1.1", "items": items}))
    newer = tmp_path / "newer.json"
    added = {"id": "3", "url": "https://example.org/1.82", "title": "1.82", "content_text": "Out."}
    newer.write_text(json.dumps({"version": "https://jsonfeed.org/version/1.1", "items": [added, *items]}))
    assert run("compare", str(feed), str(newer))[:2] == (
        ExitCode.FAILURE,
        f'{feed} → {newer}: 1 change.\n• added "1.82" <https://example.org/1.82>\n\n[added] 1.82\n  + 1.82\n',
    )
    assert run("compare", str(feed), str(feed), "--kind", "json") == (
        ExitCode.USAGE,
        "",
        f'error: {feed}: --set: missing key "field" (path of the body, e.g. body_md or data.content); it is a JSON '
        'Feed: kind "feed" reads one of its posts, with entry = the post\'s link (the first: "1.81" '
        '<https://example.org/1.81>), or its list of posts, with entry = "*"\n',
    )
    assert run("compare", str(feed), str(feed), "--set", "entry=https://example.org/1.81")[0] == ExitCode.OK
    assert (
        run("compare", str(feed), str(feed), "--set", "entry=2")[0] == ExitCode.OK
    )  # its id, read as a number


def test_fetch_of_a_bilingual_mirror_says_what_its_audit_will(tmp_path: Path, server: Server) -> None:
    """`differ add --to` says to try the page with `differ fetch`: there a bilingual copy is first said to be one."""
    english = [f"Paragraph {k} tells of feature {k} in the release." for k in range(6)]
    korean = [f"문단 {k}은 이번 릴리즈의 기능 {k}에 대해 설명합니다." for k in range(6)]
    server.page("/post", article("".join(f"<p>{p}</p>" for p in english)))
    server.page(
        "/copy", "\n\n".join(x for pair in zip(english, korean, strict=True) for x in pair), "text/plain"
    )
    config = tmp_path / "config.toml"
    config.write_text(
        f'[service]\nsnapshots = "{tmp_path / "snap"}"\nper_host_delay = "0s"\n[[documents]]\nid = "doc"\n'
        f'[documents.canonical]\nurl = "{server.url("/post")}"\nrobots = false\nallow_private = true\n'
        f'[[documents.mirrors]]\nid = "copy"\nurl = "{server.url("/copy")}"\nkind = "text"\nrobots = false\n'
        "allow_private = true\n"
    )
    code, _, err = run("--config", str(config), "fetch", "doc/copy")
    assert (code, err.count("note:")) == (ExitCode.OK, 0)  # nothing stored of the canonical yet
    assert run("--config", str(config), "check", "doc/canonical")[0] == ExitCode.OK
    code, _, err = run("--config", str(config), "fetch", "doc/copy")
    assert (code, err.splitlines()[-1]) == (
        ExitCode.OK,
        "<!-- note: 6 of its 12 blocks of text are in Korean (Hangul), which the canonical does not use: a bilingual "
        'copy, its blocks in Latin script audited alone, as languages = ["en"] on it would, and each translation\'s '
        "numbers, versions and links against its original (languages = [] on it audits every block) -->",
    )
    config.write_text(config.read_text() + "translation = false\n")  # what it is, said: nothing to note
    code, _, err = run("--config", str(config), "fetch", "doc/copy")
    assert (code, err.count("note:")) == (ExitCode.OK, 0)


def test_a_mirrors_languages_set_after_it_was_fetched_apply_at_once(tmp_path: Path, server: Server) -> None:
    """A bilingual copy read whole (`languages = []`), then its Korean half (`languages = ["ko"]`): set after the
    copy was fetched, languages apply to the next audit though the page has not changed since (its stored body
    read again as now set), the next check audits it again, and what changed with the setting alone is no drift:
    nothing is alerted."""
    english = [f"Paragraph {k} tells of feature {k} in the release." for k in range(6)]
    korean = [f"문단 {k}은 이번 릴리즈의 기능 {k}에 대해 설명합니다." for k in range(6)]
    server.page("/post", article("".join(f"<p>{p}</p>" for p in english)))
    server.page(
        "/copy", "\n\n".join(x for pair in zip(english, korean, strict=True) for x in pair), "text/plain"
    )
    receiver = server.url("/hook")
    config = tmp_path / "config.toml"
    config.write_text(
        f'[service]\nsnapshots = "{tmp_path / "snap"}"\nper_host_delay = "0s"\n[[documents]]\nid = "doc"\n'
        f'[documents.canonical]\nurl = "{server.url("/post")}"\nrobots = false\nallow_private = true\n'
        f'[[documents.mirrors]]\nid = "copy"\nurl = "{server.url("/copy")}"\nkind = "text"\nrobots = false\n'
        f'allow_private = true\nlanguages = []\n[[notify]]\nname = "hooks"\nkind = "webhook"\nurl = "{receiver}"\n'
        'secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"\nevents = ["mirror_drift"]\n'
    )
    assert run("--config", str(config), "check")[::2] == (ExitCode.OK, "")
    before = run("--config", str(config), "audit", "doc/copy")[1].splitlines()
    assert before[1] == "copy: version 1 matches canonical version 1 — up to date; coverage 98.2%; 7 findings"
    assert run("--config", str(config), "set", "doc/copy", 'languages=["ko"]')[0] == ExitCode.OK
    assert (
        run("--config", str(config), "audit", "doc/copy")[1].splitlines()[1:3]
        == [
            "copy: version 1, a translation, matches canonical version 1 — up to date; coverage 98.2%; 1 finding",  # the title
            "  note: its languages (ko) keep its blocks in Korean (Hangul), which the canonical does not use, so it is "
            'audited as a translation; languages = ["en"] on it keeps those in the canonical\'s Latin script',
        ]
    )
    assert run("--config", str(config), "check")[1].splitlines() == [
        "doc/canonical: unchanged (same body)",
        "doc/copy: unchanged (same body)",
    ]
    sources = run("--config", str(config), "sources")[1]
    assert (
        "    last audit: version 1, a translation, matches canonical version 1 — up to date; coverage 98.2%; 1 finding"
        in sources
    )
    assert server.requests_to("/hook") == []  # the findings went with the setting, not with an edit: no drift


def test_an_error_and_a_check_are_one_line_whatever_they_quote(tmp_path: Path) -> None:
    """A name typed with a line break, a page's title with a control character: written out, so an error
    stays the one line the CLI promises and a check the one line its log keeps."""
    from differ.checked import CheckResult

    config = tmp_path / "config.toml"
    config.write_text('[[documents]]\nid = "doc"\n[documents.canonical]\nurl = "https://example.org/post"\n')
    assert run("--config", str(config), "diff", "doc/x\ny") == (
        ExitCode.USAGE,
        "",
        'error: no source "doc/x\\ny"; configured sources: doc/canonical\n',
    )
    assert run("compare", "a\u2028b.html", "c.html") == (
        ExitCode.USAGE,
        "",
        "error: a\\u2028b.html: no such file; expected a file, an http(s):// URL or -\n",
    )
    failed = CheckResult(
        "doc/canonical", "failed", 'the entry "Release\n1.0\x1b[31m" has no text in the feed'
    )
    assert (
        failed.line() == 'doc/canonical: failed: the entry "Release\\n1.0\\u001b[31m" has no text in the feed'
    )
    from differ.records import _check_detail

    logged = {"outcome": "failed", "error": 'the entry "Release\n1.0" has no text in the feed'}
    assert (
        _check_detail(logged) == 'the entry "Release\\n1.0" has no text in the feed'
    )  # `differ log`: a line


@pytest.mark.parametrize(
    ("place", "message"),
    [
        ("a-file", "{store}: a file, not a folder; snapshots must name a folder"),
        ("a-file/store", "{store}: cannot hold the store (Not a directory); choose another snapshots folder"),
        ("x" * 300, "{store}: cannot hold the store (File name too long); choose another snapshots folder"),
    ],
)
def test_a_store_folder_the_system_cannot_use_is_one_line_for_every_command(
    tmp_path: Path, server: Server, place: str, message: str
) -> None:
    """Each of these failed inside whichever command touched the store first (an internal error, or a version
    record reported damaged); now every command that opens the store says so, exit 3, before any fetch."""
    (tmp_path / "a-file").write_text("a file")
    config = write_config(tmp_path, server)
    store = tmp_path / place
    config.write_text(config.read_text().replace(str(tmp_path / "snapshots"), str(store)))
    for command in (["check"], ["status"], ["sources"], ["log"], ["history", "doc/canonical"], ["verify"]):
        assert run("--config", str(config), *command) == (
            ExitCode.STORE,
            "",
            "error: " + message.format(store=store) + "\n",
        ), command
    assert server.hits == []  # nothing fetched for a store that cannot keep it


def test_sources_names_a_damaged_source_and_lists_the_others(tmp_path: Path, server: Server) -> None:
    """One damaged record made `differ sources` a single line about it, exit 3; now that source's state is the
    damage, the others are listed as they stand, and the exit code is 1."""
    config = str(write_config(tmp_path, server))
    server.page("/gone", article("<p>Copy.</p>"))
    for text in ("<p>First words.</p>", "<p>First words, edited.</p>"):
        server.page("/post", article(text))
        run("--config", config, "check")
    record = tmp_path / "snapshots/sources/doc/canonical/versions/000002.json"
    record.write_text("[]")
    damaged = f"damaged: {record}: damaged version record (not a JSON object); differ verify tells what else is damaged"
    code, out, err = run("--config", config, "sources")
    lines = out.splitlines()
    assert (code, err, lines[0], lines[2][:17], lines[3][-len(damaged) :], lines[4][:15], lines[5][-11:]) == (
        ExitCode.FAILURE,
        "",
        "doc  Doc",
        "  doc/canonical  ",
        damaged,
        "  doc/gone  [mi",
        "  state: ok",
    )
    assert lines[3].startswith("    versions: 2  last check: ") and lines[5].startswith("    versions: 1  ")
    code, out, _ = run("--config", config, "sources", "--format", "json")
    canonical, gone = json.loads(out)["documents"][0]["sources"]
    assert (code, canonical["versions"], canonical["state"], gone["state"]) == (
        ExitCode.FAILURE,
        2,
        damaged,
        "ok",
    )
    code, out, err = run("--config", config, "history")  # every source's: the others listed, exit 1
    assert (code, out.splitlines()[2][24:], err) == (
        ExitCode.FAILURE,
        "doc/gone    1  first snapshot",
        f"differ: doc/canonical: not listed: {damaged.removeprefix('damaged: ')}\n",
    )


def test_damage_beside_the_record_is_one_line_or_read_past(tmp_path: Path, server: Server) -> None:
    """The files beside the versions, damaged: a state or an audit that is not an object, or a folder, reads as
    none (they are kept for the next check, not the record); a fetch log that is a folder is named in one line.
    Each was an internal error in `differ sources`, `status` or `log`."""
    config = str(write_config(tmp_path, server))
    server.page("/post", article("<p>First words.</p>"))
    run("--config", config, "check", "doc/canonical")
    source = tmp_path / "snapshots/sources/doc/canonical"
    (source / "state.json").write_text("null")
    (tmp_path / "snapshots/audits/doc.json").unlink()
    (tmp_path / "snapshots/audits/doc.json").mkdir()
    code, out, err = run("--config", config, "sources")
    assert (code, err) == (ExitCode.OK, "")
    assert "doc/canonical" in out
    (source / "state.json").unlink()
    (source / "state.json").mkdir()
    assert run("--config", config, "status")[0] == ExitCode.FAILURE  # doc/gone never checked, nothing else
    (source / "fetches.jsonl").unlink()
    (source / "fetches.jsonl").mkdir()
    assert run("--config", config, "log", "doc/canonical") == (
        ExitCode.FAILURE,
        "",
        f"error: {source / 'fetches.jsonl'}: Is a directory\n",
    )


def test_fields_of_another_kind_in_a_state_or_the_fetch_log_are_read_as_absent(
    tmp_path: Path, server: Server
) -> None:
    """A source's state with a count that is text, or fetch log lines whose numbers are lists, made every check
    of the source (or `differ log`) an internal error; such fields now read as absent, and the next check
    writes the state whole again."""
    config = str(write_config(tmp_path, server))
    server.page("/post", article("<p>First words.</p>"))
    run("--config", config, "check", "doc/canonical")
    source = tmp_path / "snapshots/sources/doc/canonical"
    state = json.loads((source / "state.json").read_text())
    state.update(failures="x", etag=5, notified=True, translations=[["ko"]])
    (source / "state.json").write_text(json.dumps(state))
    log = source / "fetches.jsonl"
    [entry] = [json.loads(line) for line in log.read_text().splitlines()]
    log.write_text(json.dumps({**entry, "bytes": [1], "duration_ms": "soon", "status": "200"}) + "\n")
    code, out, err = run("--config", config, "log", "doc/canonical")
    assert (code, err) == (ExitCode.OK, "")
    assert re.fullmatch(r"  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ +- +new +- +- +version 1", out.splitlines()[-1])
    server.page("/post", article("<p>First words, edited.</p>"))
    assert run("--config", config, "check", "doc/canonical") == (
        ExitCode.OK,
        "doc/canonical: new version 2 (1 change)\n",
        "",
    )
    state = json.loads((source / "state.json").read_text())
    assert (state["failures"], state.get("etag"), "translations" in state) == (0, None, False)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=5,
)
_READERS = (
    ["history", "doc/canonical"],
    ["history", "doc/canonical", "--format", "json"],
    ["show", "doc/canonical"],
    ["show", "doc/canonical", "--raw"],
    ["diff", "doc/canonical"],
    ["diff", "doc/canonical", "--format", "html"],
    ["verify"],
    ["sources"],
    ["status"],
    ["audit"],
    ["export", "{git}"],
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from([*sorted(RECORD_FIELDS), "added"]),
    value=_JSON,
    command=st.sampled_from(_READERS),
)
@example(name="invisible", value=[None], command=["diff", "doc/canonical"])
def test_any_value_in_any_field_of_a_version_record_is_read_or_refused_in_one_line(
    tmp_path: Path, server: Server, name: str, value: object, command: list[str]
) -> None:
    """Whatever a field of a stored record is changed to, every command that reads the store either reads it
    (a field it does not need) or says in one line what is wrong, exit 1 or 3: never an internal error."""
    config = tmp_path / "config.toml"
    if not config.exists():
        write_config(tmp_path, server)
        for text in ("<p>First words.</p>", "<p>First words, edited.</p>"):
            server.page("/post", article(text))
            run("--config", str(config), "check", "doc/canonical")
    record = tmp_path / "snapshots/sources/doc/canonical/versions/000002.json"
    kept = record.read_bytes()
    try:
        record.write_text(json.dumps({**json.loads(kept), name: value}))
        shutil.rmtree(tmp_path / "git", ignore_errors=True)
        argv = [part.format(git=tmp_path / "git") for part in command]
        code, _, err = run("--config", str(config), *argv)
        assert "internal error" not in err
        assert err == "" or (err.startswith("error: ") and err.count("\n") == 1) or code == ExitCode.FAILURE
        assert code in (ExitCode.OK, ExitCode.FAILURE, ExitCode.STORE)
    finally:
        record.write_bytes(kept)


def test_a_last_audit_with_fields_of_another_kind_is_read_as_without_them(
    tmp_path: Path, server: Server
) -> None:
    """The last audit's findings as objects (unhashable) made the next check that audited an internal error,
    and `differ sources` headed the rest as "matches canonical version None". A mirror's entry that does not
    read is now as no audit of it: nothing shown, no drift told against it, and the next audit writes it anew."""
    config = str(write_config(tmp_path, server))
    server.page("/post", article("<p>First words.</p><p>Second words.</p>"))
    server.page("/gone", article("<p>First words.</p>"))
    run("--config", config, "check")
    record = tmp_path / "snapshots/audits/doc.json"
    audit = json.loads(record.read_text())
    audit["gone"].update(findings=[{"a": 1}], lines=["x"], coverage="most", matches_version="1")
    record.write_text(json.dumps(audit))
    code, out, err = run("--config", config, "sources")
    assert (code, err) == (ExitCode.OK, "")
    assert "last audit:" not in out
    server.page("/post", article("<p>First words.</p><p>Second words, edited.</p>"))
    code, out, err = run("--config", config, "check")
    assert (code, err) == (ExitCode.OK, "")
    assert out == "doc/canonical: new version 2 (1 change)\ndoc/gone: unchanged (same body)\n"
    written = json.loads(record.read_text())["gone"]
    assert written["lines"] != ["x"] and all(isinstance(key, str) for key in written["findings"])  # anew
    assert "    last audit: version 1 matches canonical version 1 — " in run("--config", config, "sources")[1]


def test_a_fault_differ_goes_on_past_shows_its_traceback_only_with_debug(
    tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    import differ.check

    config = str(write_config(tmp_path, server))
    server.page("/post", article("<p>Words.</p>"))

    def faulty(app: object, source: object) -> object:
        raise RuntimeError("a fault")

    monkeypatch.setattr(differ.check, "check_source", faulty)
    code, out, err = run("--config", config, "check")
    assert (code, err) == (ExitCode.FAILURE, "")
    assert out.splitlines()[0] == "doc/canonical: failed: internal error: RuntimeError: a fault"
    code, out, err = run("--debug", "--config", config, "check")
    assert err.startswith("Traceback (most recent call last):\n") and err.endswith("RuntimeError: a fault\n")
    assert out.splitlines()[0] == "doc/canonical: failed: internal error: RuntimeError: a fault"


def test_the_deployment_examples_run_commands_differ_takes() -> None:
    """examples/deploy: the systemd unit and the crontab name commands and options this differ has, so that
    they do not fall behind the command line."""
    import configparser
    import shlex

    from differ.arguments import build_parser

    deploy = Path(__file__).parent.parent / "examples" / "deploy"
    unit = configparser.RawConfigParser(strict=True)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read_string((deploy / "differ.service").read_text())
    assert unit.sections() == ["Unit", "Service", "Install"]
    start = shlex.split(unit["Service"]["ExecStart"])
    assert start[0].endswith("/.venv/bin/differ")
    args = build_parser().parse_args(start[1:])
    assert (args.command, args.quiet, str(args.config)) == ("run", True, "/srv/differ/config.toml")
    assert unit["Service"]["ExecReload"] == "/bin/kill -HUP $MAINPID"  # differ run reads config.toml again
    jobs = [line for line in (deploy / "crontab").read_text().splitlines() if re.match(r"[\d*]", line)]
    commands = [
        shlex.split(
            part.split("$(")[-1].split(">")[0].strip().rstrip(")")
        )  # without its output's redirection
        for job in jobs
        for part in re.split(r"&&|\|\|", job)
        if ".venv/bin/differ" in part
    ]
    parsed = [build_parser().parse_args(c[1:]) for c in commands]
    assert [(a.command, getattr(a, "quiet", None), getattr(a, "due", None), a.format) for a in parsed] == [
        ("check", True, True, "text"),
        ("status", None, None, "text"),
        ("status", None, None, "prometheus"),
    ]
    assert str(parsed[2].output) == "/var/lib/node_exporter/differ.prom"  # the collector's folder


def test_the_notifier_kinds_the_configuration_reference_lists_are_differs() -> None:
    """docs/configuration.md names every notifier kind differ has (and no other) where `[[notify]]` is described,
    and has a row for each in its table of kinds."""
    from differ.notify import NOTIFIERS

    text = (ROOT / "docs" / "configuration.md").read_text()
    listed = re.search(r"\*\*`\[\[notify\]\]`\*\*: `name`, `kind` \(([^)]*)\)", text)
    assert listed is not None
    assert set(re.findall(r"`(\w+)`", listed.group(1))) == set(NOTIFIERS)
    assert {kind for kind in NOTIFIERS if re.search(rf"(?m)^\| `{kind}` \|", text)} == set(NOTIFIERS)
