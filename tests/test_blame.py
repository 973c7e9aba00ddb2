"""`differ blame`: each block of a version with the version that last edited it and the one it came in, exact
output and exit codes; the tracing through diffs (`trace`, `Diff.lineage`) and its invariants (hypothesis)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from differ.blame import Blamed, trace
from differ.diff import diff, split_blocks
from differ.errors import ExitCode
from tests.conftest import Server, article
from tests.test_cli import run, write_config
from tests.test_diff import ALIKE, DOC

PAGES = [
    "<h2>Install</h2><p>Run pip install foo.</p><h2>Security</h2><p>No known issues.</p>"
    "<h2>Thanks</h2><p>To all.</p>",
    # the Install paragraph edited
    "<h2>Install</h2><p>Run pip install foo==2.0.</p><h2>Security</h2><p>No known issues.</p>"
    "<h2>Thanks</h2><p>To all.</p>",
    # Security moved below Thanks as it was, a paragraph added to Thanks, and "To all." set in italics
    "<h2>Install</h2><p>Run pip install foo==2.0.</p><h2>Thanks</h2><p><em>To all.</em></p>"
    "<p>And to the testers.</p><h2>Security</h2><p>No known issues.</p>",
]


def checked(tmp_path: Path, server: Server, pages: list[str]) -> str:
    """A config whose doc/canonical was checked once with each page: a version each."""
    config = str(write_config(tmp_path, server))
    for body in pages:
        server.page("/post", article(body))
        assert run("--config", config, "check", "doc/canonical")[0] == ExitCode.OK
    return config


def rows(out: str) -> list[str]:
    """`differ blame`'s lines with the fetch times taken out (the rest is exact)."""
    return [re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "TIME", line) for line in out.splitlines()[1:]]


def test_blame_names_the_version_that_last_edited_each_block_and_the_one_it_came_in(
    tmp_path: Path, server: Server
) -> None:
    """A section that moved unchanged keeps its versions; a formatting-only difference is no edit."""
    config = checked(tmp_path, server, PAGES)
    code, out, err = run("--config", config, "blame", "doc/canonical")
    assert (code, err) == (ExitCode.OK, "")
    assert out.splitlines()[0] == f"doc/canonical  {server.url('/post')}"
    assert rows(out) == [
        "  version 3 of 3, fetched TIME: 8 blocks: 6 as in version 1, 1 edited since, 1 added since",
        "  ver  edited                since  block",
        "    1  TIME      1  # Post",
        "    1  TIME      1  ## Install",
        "    2  TIME      1  Run pip install foo==2.0.",
        "    1  TIME      1  ## Thanks",
        "    1  TIME      1  *To all.*",
        "    3  TIME      3  And to the testers.",
        "    1  TIME      1  ## Security",
        "    1  TIME      1  No known issues.",
    ]
    # an earlier version, by number or as the second argument
    code, out, _ = run("--config", config, "blame", "doc/canonical", "2")  # an earlier version
    assert (
        rows(out)[0]
        == "  version 2 of 3, fetched TIME: 7 blocks: 6 as in version 1, 1 edited since, 0 added since"
    )
    assert rows(out)[4] == "    2  TIME      1  Run pip install foo==2.0."
    code, out, _ = run("--config", config, "blame", "doc/canonical", "--version", "1")
    assert rows(out)[0] == "  version 1 of 3, fetched TIME: 7 blocks, all as in version 1"


def test_blame_picks_blocks_by_section_word_and_edit_each_under_its_heading(
    tmp_path: Path, server: Server
) -> None:
    config = checked(tmp_path, server, PAGES)
    code, out, _ = run("--config", config, "blame", "doc/canonical", "--after", "1")
    assert (code, rows(out)) == (
        ExitCode.OK,
        [
            "  version 3 of 3, fetched TIME: 8 blocks: 6 as in version 1, 1 edited since, 1 added since",
            "  2 blocks edited after version 1",
            "  ver  edited                since  block",
            "                                    under: Install",
            "    2  TIME      1  Run pip install foo==2.0.",
            "                                    under: Thanks",
            "    3  TIME      3  And to the testers.",
        ],
    )
    code, out, _ = run("--config", config, "blame", "doc/canonical", "--section", "secur*")
    assert rows(out)[1:] == [
        '  2 blocks under "secur*"',  # the heading itself, and what is under it
        "  ver  edited                since  block",
        "    1  TIME      1  ## Security",
        "                                    under: Security",
        "    1  TIME      1  No known issues.",
    ]
    code, out, _ = run("--config", config, "blame", "doc/canonical", "--word", "PIP", "--after", "2")
    assert rows(out)[1:] == ['  0 blocks mentioning "PIP", edited after version 2']


def test_blame_as_json(tmp_path: Path, server: Server) -> None:
    config = checked(tmp_path, server, PAGES)
    code, out, _ = run("--config", config, "blame", "doc/canonical", "--word", "testers", "--format", "json")
    data = json.loads(out)
    times = [json.loads(run("--config", config, "history", "doc/canonical", "--format", "json")[1])][0]
    third = times["versions"][2]
    assert (code, data) == (
        ExitCode.OK,
        {
            "schema": "differ.blame/1",
            "source": "doc/canonical",
            "url": server.url("/post"),
            "version": {"version": 3, "fetched_at": third["fetched_at"], "hash": third["hash"]},
            "blocks_total": 8,
            "mentioning": ["testers"],
            "blocks": [
                {
                    "block": "paragraph",
                    "section": ["Thanks"],
                    "label": "And to the testers.",
                    "text": "And to the testers.",
                    "markdown": "And to the testers.",
                    "since": {"version": 3, "fetched_at": third["fetched_at"]},
                    "edited": {"version": 3, "fetched_at": third["fetched_at"]},
                }
            ],
        },
    )


def test_blame_refuses_what_names_nothing_in_one_line(tmp_path: Path, server: Server) -> None:
    config = checked(tmp_path, server, PAGES[:2])
    assert run("--config", config, "blame", "doc/canonical", "1", "--after", "2") == (
        ExitCode.USAGE,
        "",
        "error: --after 2 is version 2, after version 1: blame version 2 or a later one\n",
    )
    assert run("--config", config, "blame", "doc/canonical", "5") == (
        ExitCode.USAGE,
        "",
        "error: doc/canonical has no version 5 (versions 1 to 2)\n",
    )
    assert run("--config", config, "blame", "doc/canonical", "--section", " ") == (
        ExitCode.USAGE,
        "",
        'error: --section: expected a heading or a pattern such as "Security*", found nothing\n',
    )
    assert run("--config", config, "blame", "doc/canonical", "2", "--version", "1") == (
        ExitCode.USAGE,
        "",
        "error: version given twice (2 and --version 1); give one\n",
    )
    assert run("--config", config, "blame", "doc/canonical", "--after", "doc/gone")[::2] == (
        ExitCode.USAGE,
        "error: doc/gone has not been matched to a version of doc/canonical yet (run: differ audit doc/gone)\n",
    )
    assert run("--config", config, "blame", "doc/gone")[2] == (
        "error: doc/gone has no versions yet (run: differ check doc/gone)\n"
    )


def test_blame_reads_a_store_without_its_config(tmp_path: Path, server: Server) -> None:
    checked(tmp_path, server, PAGES[:2])
    code, out, _ = run("--snapshots", str(tmp_path / "snapshots"), "blame", "doc/canonical", "--after", "1")
    assert (code, rows(out)[-1]) == (ExitCode.OK, "    2  TIME      1  Run pip install foo==2.0.")


def test_a_split_paragraph_and_an_invisible_character_are_edits_of_the_block_they_came_from() -> None:
    a = "Alpha beta. Gamma delta.\n\nEpsilon zeta.\n"
    b = "Alpha beta.\n\nGamma delta.\n\nEpsilon zeta.\n"
    d = diff(a, b)
    assert d.lineage() == {0: (0, True), 1: (0, True), 2: (1, False)}
    d = diff(
        "One.\n\nTwo.\n", "One.\n\nTwo.\n", a_invisible=[{"char": "\u200b", "before": "Two", "block": 1}]
    )
    assert d.lineage() == {0: (0, False), 1: (1, True)}


def test_a_section_that_moved_whole_keeps_every_block_unedited() -> None:
    a = "## A\n\nOne.\n\nTwo.\n\n## B\n\nThree.\n"
    b = "## B\n\nThree.\n\n## A\n\nOne.\n\nTwo.\n"
    assert diff(a, b).lineage() == {0: (3, False), 1: (4, False), 2: (0, False), 3: (1, False), 4: (2, False)}


def versions(docs: list[str]) -> list[tuple[int, int]]:
    """The (since, edited) of each block of the last of `docs`, traced through their diffs."""
    steps = (diff(x, y) for x, y in zip(docs, docs[1:], strict=False))
    traced = trace(split_blocks(docs[0]), steps, range(1, len(docs) + 1))
    assert [b.text_key for b, _, _ in traced] == [b.text_key for b in split_blocks(docs[-1])]
    return [(since, edited) for _, since, edited in traced]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(DOC, ALIKE.map(lambda bs: "\n\n".join(bs) + "\n")), min_size=1, max_size=5))
def test_a_block_blamed_on_a_version_stands_unchanged_in_every_version_since(docs: list[str]) -> None:
    """Whatever the edits: the last version's blocks, in order, each came in no later than it was last edited,
    and stands as it is now in the version that last edited it and every one after."""
    blocks = split_blocks(docs[-1])
    for block, (since, edited) in zip(blocks, versions(docs), strict=True):
        assert 1 <= since <= edited <= len(docs)
        for doc in docs[edited - 1 :]:
            assert block.key in {b.key for b in split_blocks(doc)}


def test_a_block_taken_out_and_put_back_counts_from_its_return() -> None:
    assert versions(["One.\n\nTwo.\n", "One.\n", "One.\n\nTwo.\n"]) == [(1, 1), (3, 3)]


def test_blame_as_a_page_tints_what_was_edited_and_escapes_the_text(tmp_path: Path, server: Server) -> None:
    config = checked(
        tmp_path,
        server,
        [*PAGES, PAGES[2] + "<p>Run &lt;script&gt;alert(1)&lt;/script&gt; &amp; see.</p>"],
    )
    code, out, _ = run("--config", config, "blame", "doc/canonical", "--format", "html")
    assert code == ExitCode.OK
    assert "<script" not in out and "&lt;script&gt;alert(1)" in out
    rows = re.findall(
        r"<tr id=b\d+( class=\w+)?><td class=when>(\d) · [^<]+</td><td>(\d)</td><td( class=\w+)?>([^<]*)</td></tr>",
        out,
    )
    assert rows[2:] == [  # a heading's text set in bold
        (" class=edited", "2", "1", "", "Run pip install foo==2.0."),
        ("", "1", "1", " class=heading", "## Thanks"),
        ("", "1", "1", "", "*To all.*"),
        (" class=added", "3", "3", "", "And to the testers."),
        ("", "1", "1", " class=heading", "## Security"),
        ("", "1", "1", "", "No known issues."),
        (" class=added", "4", "4", "", "Run \\&lt;script&gt;alert(1)\\&lt;/script&gt; &amp; see."),
    ]
    listed = re.search(r"<p>Edited since version 1 \(the version of the last edit\): (.*?)</p>", out)
    assert (
        listed is not None
    )  # the passages edited since the first version, atop the page, each linked to its row
    assert re.findall(r'<a href="#(b\d+)">([^<]*)</a> \((\d)\)', listed.group(1)) == [
        ("b3", "Run pip install foo==2.0.", "2"),
        ("b6", "And to the testers.", "3"),
        ("b9", "Run &lt;script&gt;alert(1)&lt;/script&gt; &amp; see.", "4"),  # escaped
    ]
    code, out, _ = run(
        "--config", config, "blame", "doc/canonical", "--format", "html", "--section", "thanks"
    )
    assert "<p>3 blocks under &quot;thanks&quot;</p>" in out
    assert out.count("<td colspan=3 class=quiet>under: Thanks") == 1


def test_a_page_names_at_most_twenty_edited_passages_atop_it(tmp_path: Path, server: Server) -> None:
    old = "".join(f"<p>Paragraph {i} says a thing.</p>" for i in range(25))
    new = "".join(f"<p>Paragraph {i} says another thing.</p>" for i in range(25))
    config = checked(tmp_path, server, [old, new])
    out = run("--config", config, "blame", "doc/canonical", "--format", "html")[1]
    listed = re.search(r"<p>Edited since version 1 \(the version of the last edit\): (.*?)</p>", out)
    assert listed is not None and listed.group(1).count("<a href=") == 20
    assert listed.group(1).endswith(", and 5 more") and out.count("<tr id=b") == 26


def test_blame_in_markdown_gives_each_passage_to_copy_in_a_fence_longer_than_its_backticks(
    tmp_path: Path, server: Server
) -> None:
    """For an issue: each block named as summaries name it, with its versions, and its Markdown as written in a
    fenced block, which a run of backticks in it cannot close; page text outside the fence is escaped."""
    from markdown_it import MarkdownIt

    pages = [
        "<h2>Install</h2><p>Run <code>pip</code>.</p>",
        "<h2>Install *now*</h2><p>Run <code>pip ```x``` install</code>.</p>",
    ]
    config = checked(tmp_path, server, pages)
    code, out, _ = run("--config", config, "blame", "doc/canonical", "--after", "1", "--format", "markdown")
    assert code == ExitCode.OK
    assert out.splitlines()[2:] == [
        "2 blocks edited after version 1",
        "",
        "- Install \\*now\\* (edited in version 2, "
        + out.split("version 2, ")[1].split(",")[0]
        + ", there since version 1)",
        "",
        "  ```markdown",
        "  ## Install \\*now\\*",
        "  ```",
        "",
        "- Install \\*now\\* › Run pip \\`\\`\\`x\\`\\`\\` install. (edited in version 2, "
        + out.split("version 2, ")[2].split(",")[0]
        + ", there since version 1)",
        "",
        "  `````markdown",
        "  Run ```` pip ```x``` install ````.",
        "  `````",
    ]
    fences = [t for t in MarkdownIt("commonmark").parse(out) if t.type == "fence"]
    assert [t.content for t in fences] == ["## Install \\*now\\*\n", "Run ```` pip ```x``` install ````.\n"]


def test_the_latest_versions_blame_is_read_from_its_page_when_that_is_of_it_and_worked_out_when_not(
    tmp_path: Path, server: Server
) -> None:
    """`blame_latest` (a stale mirror's passages to carry over): what the reports site's page knew, while it is of
    the version as it reads now; else every version followed again, to the same blocks and versions."""
    from differ.blame import blame, blame_latest
    from differ.config import load_config
    from tests.conftest import make_app

    config = checked(tmp_path, server, PAGES)
    app = make_app(load_config(Path(config), {}))
    source = app.config.source("doc/canonical")
    latest = app.store.latest(source.key)
    assert latest is not None

    def told(blamed: list[Blamed]) -> list[tuple[str, int, int]]:
        return [(b.block.source, b.since.number, b.edited.number) for b in blamed]

    every = told(blame(app, source, latest))
    known = app.store.blame_path(source.key).with_name("blame.json")
    state = json.loads(known.read_text())
    assert state["blocks"] == [[s, e] for _, s, e in every]
    state["blocks"][2] = [3, 3]  # were it read from the page, this would show
    known.write_text(json.dumps(state))
    assert told(blame_latest(app, source, latest))[2] == ("Run pip install foo==2.0.", 3, 3)
    state["blocks_sha256"] = "0" * 64  # a page of another reading: not read
    known.write_text(json.dumps(state))
    assert told(blame_latest(app, source, latest)) == every
    known.unlink()
    assert told(blame_latest(app, source, latest)) == every


def test_the_last_edit_of_some_blocks_is_found_walking_back_only_as_far_as_they_need(
    tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`last_edits` agrees with `blame` on every block, and a block the latest version edited costs one diff."""
    import differ.versions
    from differ.blame import blame, last_edits
    from differ.config import load_config
    from tests.conftest import make_app

    config = checked(tmp_path, server, PAGES)
    app = make_app(load_config(Path(config)))
    source = app.config.source("doc/canonical")
    latest = app.store.latest(source.key)
    assert latest is not None
    blamed = blame(app, source, latest)
    assert last_edits(app, source, latest, set(range(len(blamed)))) == {
        i: b.edited.number for i, b in enumerate(blamed)
    }
    diffs = []
    real = differ.versions.diff_versions
    monkeypatch.setattr(differ.versions, "diff_versions", lambda *a, **k: diffs.append(1) or real(*a, **k))
    added = next(i for i, b in enumerate(blamed) if b.block.text == "And to the testers.")
    assert (last_edits(app, source, latest, {added}), len(diffs)) == ({added: 3}, 1)
