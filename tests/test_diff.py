"""Diff: the replay's exact changes, formats, properties (hypothesis) and the corpus's changed words."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from html.parser import HTMLParser

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from differ.diff import Versions, apply, diff, is_edit_note, render, split_blocks, summarize, word_ops
from differ.diff.blocks import words
from differ.diff.changes import Change
from differ.diff.summary import quote
from tests.helpers import replay_fetch

V = Versions(
    "PyTorch 2.13 Release Blog",
    "pytorch-2-13/canonical",
    2,
    3,
    "2026-07-08T17:45:00Z",
    "2026-07-08T21:00:00Z",
    "a" * 64,
    "b" * 64,
)


def replay_diff():  # type: ignore[no-untyped-def]
    a, b = replay_fetch(1), replay_fetch(3)
    return diff(a.markdown, b.markdown)


def test_replay_edit_gives_exactly_the_three_changes() -> None:
    d = replay_diff()
    assert [(c.kind, list(c.section), c.label) for c in d.changes] == [
        (
            "modified",
            ["The PyTorch 2.13 release features the following changes"],
            "CuTeDSL “Native DSL” backend",
        ),
        ("modified", ["Non-Feature Updates"], "Python support"),
        ("added", ["Non-Feature Updates"], "Updated (7/8): Removed two instances of …"),
    ]
    assert d.changes[0].ops == [{"op": "delete", "before": "[Prototype]"}]
    assert d.changes[2].at_end


def test_replay_summary() -> None:
    assert summarize(replay_diff(), V) == [
        "PyTorch 2.13 Release Blog (canonical), version 2 → 3: 3 changes.",
        "• author's note (added at the end): \"Updated (7/8): Removed two instances of prototype which is a "
        'designation that we no longer use."',
        "• The PyTorch 2.13 release features the following changes › CuTeDSL “Native DSL” backend: removed "
        '"[Prototype]"',
        '• Non-Feature Updates › Python support: "(Python 3.15 binary support is listed above as a Prototype feature.)"',
        '  → "(Preliminary Python 3.15 and 3.15t binary support is found above.)"',
    ]


def test_page_noise_gives_no_change() -> None:
    assert diff(replay_fetch(1).markdown, replay_fetch(2).markdown).empty
    assert diff(replay_fetch(3).markdown, replay_fetch(4).markdown).empty


def test_formatting_only_is_no_change() -> None:
    a = "Title\n=====\n\n* one *two*\n* three\n\nSome   text __here__.\n"
    b = "# Title\n\n- one _two_\n- three\n\nSome text **here**.\n"
    assert diff(a, b).empty


def test_kinds_moved_link_invisible_and_metadata() -> None:
    a = "# A\n\nalpha para\n\n# B\n\nbeta para\n\nSee [docs](https://x.org/v1).\n"
    b = "# B\n\nbeta para\n\nSee [docs](https://x.org/v2).\n\n# A\n\nalpha para\n"
    d = diff(
        a,
        b,
        a_meta={"title": "T", "updated_at": "1"},
        b_meta={"title": "T", "updated_at": "2"},
        a_invisible=[{"char": "U+0008", "before": "beta"}],
        b_invisible=[],
    )
    kinds = sorted(c.kind for c in d.changes)
    assert kinds == ["invisible", "link", "moved"]
    moved = next(c for c in d.changes if c.kind == "moved")
    assert moved.detail == 'section moved (2 blocks), now after "B"'
    link = next(c for c in d.changes if c.kind == "link")
    assert link.detail == 'link "docs": https://x.org/v1 → https://x.org/v2'
    invisible = next(c for c in d.changes if c.kind == "invisible")
    assert invisible.detail == '1 invisible U+0008 removed before "beta"'
    assert d.metadata == [{"field": "updated_at", "before": "1", "after": "2"}]


def test_a_diff_made_again_of_the_same_texts_is_the_same_without_what_the_other_was_given() -> None:
    """The diff of two texts is kept for the next to ask for it; what one caller gave (invisible characters,
    metadata) is its own, and what it does to its diff's list of changes does not reach the next one's."""
    a, b = "# A\n\nalpha para\n\nbeta para\n", "# A\n\nalpha para, now\n\nbeta para\n"
    first = diff(
        a, b, a_meta={"v": "1"}, b_meta={"v": "2"}, a_invisible=[{"char": "U+0008", "before": "beta"}]
    )
    assert [c.kind for c in first.changes] == ["modified", "invisible"] and first.metadata
    again = diff(a, b)
    assert [c.kind for c in again.changes] == ["modified"] and again.metadata == []
    assert again.changes[0] is first.changes[0]  # made once
    again.changes.clear()
    assert [c.kind for c in diff(a, b).changes] == ["modified"]
    assert [c.kind for c in diff(b, a).changes] == ["modified"]  # the other way round is its own


def test_an_invisible_character_is_placed_in_the_block_it_stood_in() -> None:
    from differ.normalize.canonical import canonicalize

    a = canonicalize("# T\n\nSome text here.\n\n## Later\n\nZero\u200bwidth\x01.\n")
    b = canonicalize("# T\n\nSome text here.\n\n## Later\n\nZerowidth.\n")
    d = diff(a.text, b.text, a_invisible=a.invisible, b_invisible=b.invisible)
    assert [(c.section, c.detail) for c in d.changes] == [
        (("Later",), '1 invisible U+200B removed before "width"'),
        (("Later",), '1 invisible U+0001 removed before "."'),  # not "Some text here.", the first "."
    ]


def test_html_names_an_invisible_character_where_it_stood() -> None:
    """The text is alike on both sides: the character removed is named in the old text before the word it stood
    before, struck out; one added, in the new text, highlighted; one whose place is not said, not placed."""
    from differ.normalize.canonical import canonicalize

    a = canonicalize("# T\n\nZero\u200bwidth.\n\nAt the end.\n\nA third.\n")
    b = canonicalize("# T\n\nZerowidth.\n\nAt the end.\u2060\n\nA \u200dthird.\n")
    page = render(diff(a.text, b.text, a_invisible=a.invisible, b_invisible=b.invisible), V, "html")
    rows = re.findall(
        r"<div class=where>([^<]*)</div></td><td>((?:(?!</td>).)*)</td><td>((?:(?!</td>).)*)</td>", page
    )
    assert sorted(rows) == [
        (
            "1 invisible U+200B removed before &quot;width.&quot;",
            "Zero<del>⟨U+200B⟩</del>width.",
            "Zerowidth.",
        ),
        ("1 invisible U+200D added before &quot;third.&quot;", "A third.", "A <ins>⟨U+200D⟩</ins>third."),
        ("1 invisible U+2060 added", "At the end.", "At the end."),
    ]


def test_metadata_fields_are_named_as_people_write_them_and_summarized_by_what_happened() -> None:
    a_meta = {"title": "T", "tags": ["x", "y"], "author": {"name": "A"}, "draft": True}
    b_meta = {"title": "T", "tags": ["x", "z", "w"], "author": {"name": "B"}, "it's": 2}
    d = diff("Same.\n", "Same.\n", a_meta=a_meta, b_meta=b_meta)
    assert d.metadata == [
        {"field": "author.name", "before": "A", "after": "B"},
        {"field": "draft", "before": True, "after": None},
        {"field": "it's", "before": None, "after": 2},
        {"field": "tags[1]", "before": "y", "after": "z"},
        {"field": "tags[2]", "before": None, "after": "w"},
    ]
    assert summarize(d, V)[1:] == [
        '• metadata › author.name: "A" → "B"',
        "• metadata › draft: removed true",
        "• metadata › it's: added 2",
        '• metadata › tags[1]: "y" → "z"',
        '• metadata › tags[2]: added "w"',
    ]
    page = render(d, V, "html")
    assert "<td>None</td>" not in page and "<td></td><td>w</td>" in page


def test_a_field_that_came_back_under_another_name_is_one_line() -> None:
    """A site's migration that renamed `author` to `authors` (the same name, now in a list) is one line naming
    both; a short value that two fields happen to share (`draft: yes` gone, `featured: yes` come) is not."""
    a_meta = {"author": "The Rust Release Team", "date": "2021-06-17", "draft": "yes"}
    b_meta = {"authors": ["The Rust Release Team"], "featured": "yes"}
    d = diff("Same.\n", "Same.\n", a_meta=a_meta, b_meta=b_meta)
    assert len(d.metadata) == 5  # every field is still said in the JSON
    assert summarize(d, V) == [
        "PyTorch 2.13 Release Blog (canonical), version 2 → 3: 5 metadata fields changed, the text did not.",
        '• metadata › author → authors: ["The Rust Release Team"]',
        '• metadata › date: removed "2021-06-17"',
        '• metadata › draft: removed "yes"',
        '• metadata › featured: added "yes"',
    ]


def test_a_new_title_is_summarized_before_the_text_and_dates_after_it() -> None:
    # a post renamed: what it now calls itself comes before what its text says (a release that changes its
    # tag is another release altogether: test_check's test_a_latest_release_moving_on_is_a_new_release…)
    a = "Fixes one.\n\nFixes two.\n"
    b = "Fixes one, again.\n\nFixes two, again.\n\nUpdate (7/9): fixed a link.\n"
    a_meta = {"title": "PyTorch 2.13 fixes", "published_at": "2026-07-08T17:00:00Z"}
    b_meta = {"title": "PyTorch 2.13.1 fixes", "published_at": "2026-09-08T17:00:00Z"}
    lines = summarize(diff(a, b, a_meta=a_meta, b_meta=b_meta), V, max_lines=3)
    assert lines[1:] == [
        '• author\'s note (added at the end): "Update (7/9): fixed a link."',
        '• metadata › title: "PyTorch 2.13 fixes" → "PyTorch 2.13.1 fixes"',
        '• Fixes one: added ", again"',  # before any heading: placed by the paragraph's first words
        "…and 2 more changes",
    ]


def test_a_long_title_changed_at_its_end_is_quoted_where_it_changed() -> None:
    """Cut at 60 characters, both sides would read the same: the summary shows them around the change."""
    title = "PyTorch 1.10 Release, including CUDA Graphs APIs, Frontend and compiler improvements"
    for old, new, line in [
        (title, title[:-1], '"…compiler improvements" → "…compiler improvement"'),
        (
            title + " for all",
            title.replace("Frontend", "frontend") + " for all",
            '"…including CUDA Graphs APIs, Frontend and compiler…" → "…including CUDA Graphs APIs, frontend and'
            ' compiler…"',
        ),
    ]:
        d = diff("Text.\n", "Text.\n", a_meta={"title": old}, b_meta={"title": new})
        assert summarize(d, V)[1:] == [f"• metadata › title: {line}"]


def test_a_long_sentence_changed_past_what_a_quote_shows_is_quoted_where_it_changed() -> None:
    long = "# Notes\n\n" + "This sentence is long, " * 14 + "and it ends with the old word.\n"
    assert summarize(diff(long, long.replace("old word", "new word")), V)[1:] == [
        '• This sentence is long, This sentence …: "…sentence is long, This sentence is long, This sentence is long, and it ends with the old word."',
        '  → "…sentence is long, This sentence is long, This sentence is long, and it ends with the new word."',
    ]


def test_a_summary_says_a_link_changed_with_the_words_around_it() -> None:
    a = "# T\n\nIt is about about this. See [docs](https://x.org/a). Rust 1.71.\n"
    d = diff(a, a.replace("about about", "about").replace("/a)", "/b)").replace("1.71", "1.81"))
    assert summarize(d, V)[1:] == [
        '• "It is about about this. See docs. Rust 1.71."',
        '  → "It is about this. See docs. Rust 1.81."',
        '  link "docs": https://x.org/a → https://x.org/b',
    ]


def test_an_image_whose_picture_changed_is_named_an_image() -> None:
    """An image's words are its alternative text: the change says an image, not a link, came, went or moved."""
    a = "# T\n\nSee ![the chart](https://x.org/c.png) and [docs](https://x.org/d).\n"
    d = diff(a, a.replace("c.png", "c2.png").replace("x.org/d", "x.org/e"))
    assert [(c.kind, c.detail) for c in d.changes] == [
        (
            "link",
            'image "the chart": https://x.org/c.png → https://x.org/c2.png; link "docs": https://x.org/d → https://x.org/e',
        )
    ]
    d = diff(a, a.replace("the chart", "the speedup chart").replace("See", "Look at"))
    assert summarize(d, V)[1:] == [
        '• "See the chart and docs."',
        '  → "Look at the speedup chart and docs."',
    ]
    assert diff(a, a.replace("![the chart](https://x.org/c.png) and ", "")).changes[0].ops == [
        {"op": "delete", "before": "the chart and"}
    ]


def test_a_link_added_or_taken_out_whole_is_quoted_with_its_address() -> None:
    """A block that is one link (a post in a list of posts, a download) says where it points when it comes or
    goes, and keeps it in its JSON; a link among other words, or an image, does not make the block one."""
    from differ.diff.changes import Diff

    a = "# Posts\n\n- [Release 2.13](https://x.org/2.13)\n- Old: [notes](https://x.org/n)\n- [Gone post](https://x.org/g)\n"
    b = (
        "# Posts\n\n- [Security advisory](https://x.org/s)\n- [Release 2.13](https://x.org/2.13)\n\n"
        "See [it](https://x.org/i) here.\n\n![chart](c.png)\n"
    )
    d = diff(a, b)
    assert summarize(d, V)[1:] == [
        '• added "Security advisory" <https://x.org/s>',
        '• removed "Old: notes"',
        '• removed "Gone post" <https://x.org/g>',
        '• added at the end: "See it here."',
        '• added at the end: "chart"',
    ]
    assert [c.as_json().get("target") for c in d.changes] == [
        "https://x.org/s",
        None,
        "https://x.org/g",
        None,
        None,
    ]
    assert summarize(Diff([Change.from_json(c.as_json()) for c in d.changes]), V) == summarize(d, V)


def test_two_links_with_neither_text_nor_target_in_common_are_two_things_however_alike() -> None:
    """A post that drops off a list of posts as a newer one with a like title comes in is one removed and one
    added, wherever they stand; one link whose target alone changed is a link change, whose text alone changed
    an edit."""
    a = "# Blog\n\n- [Team news](http://x/news)\n- [Rust 1.97](http://x/1.97)\n- [Announcing Rust 1.88.0](http://x/1.88)\n"
    b = "# Blog\n\n- [Announcing Rust 1.98.0](http://x/1.98)\n- [Rust 1.97](http://x/1.97)\n"
    assert [(c.kind, c.before or c.after) for c in diff(a, b).changes] == [
        ("removed", "Team news"),
        ("added", "Announcing Rust 1.98.0"),
        ("removed", "Announcing Rust 1.88.0"),
    ]
    alone = diff("[Announcing Rust 1.88.0](http://x/1.88)\n", "[Announcing Rust 1.98.0](http://x/1.98)\n")
    assert [c.kind for c in alone.changes] == ["removed", "added"]  # a paragraph alone in its place too
    download = "- [Download 2.13](http://x/2.13)\n"
    assert [c.kind for c in diff(download, download.replace("2.13)", "2.13b)")).changes] == ["link"]
    assert [c.kind for c in diff(download, download.replace("Download 2.13", "Download 2.15")).changes] == [
        "modified"
    ]


def test_a_table_of_contents_entry_renamed_with_its_heading_is_one_entry_changed() -> None:
    """An entry of a Markdown table of contents points to its heading, its target following its words: renamed
    with the heading, it is that entry changed, not one entry removed and another added; a list of links
    elsewhere (posts, downloads) is still one link each."""
    a = "# Release\n\n- [Install](#install)\n- [Changes](#changes)\n\n## Install\n\nRun it.\n\n## Changes\n\nFaster.\n"
    b = a.replace("[Changes](#changes)", "[What changed](#what-changed)").replace(
        "## Changes", "## What changed"
    )
    assert [(c.kind, c.before, c.after) for c in diff(a, b).changes] == [
        ("modified", "Changes", "What changed"),
        ("modified", "Changes", "What changed"),
    ]
    posts = a.replace("(#changes)", "(http://x/changes)")
    renamed = posts.replace("[Changes](http://x/changes)", "[What changed](http://x/what-changed)")
    assert [c.kind for c in diff(posts, renamed).changes] == ["removed", "added"]


def test_a_change_read_back_from_its_json_is_summarized_as_it_was() -> None:
    from differ.diff.changes import Change, Diff

    a = TABLE + "\n## Notes\n\n- **Linux**: wheels\n  - CUDA 12.9\n\nSee [docs](https://x.org/1).\n"
    a += "\n<small>Figure 1</small> is drawn here.\n"
    b = a.replace("| 12.6 | 3.10-3.13 |\n| macOS", "| 12.8 | 3.10-3.13 |\n| macOS").replace("12.9", "13.0")
    d = diff(a, b.replace("x.org/1", "x.org/2").replace("drawn", "shown") + "\nUpdated (7/8): fixed.\n")
    again = [Change.from_json(c.as_json()) for c in d.changes]
    assert [c.as_json() for c in again] == [c.as_json() for c in d.changes]
    assert summarize(Diff(again), V) == summarize(d, V) and len(d.changes) == 5
    assert d.changes[3].as_json()["bare"] == {
        "before": "Figure 1 is drawn here.",
        "after": "Figure 1 is shown here.",
    }


def test_a_title_is_a_title_wherever_the_json_keeps_it() -> None:
    from differ.diff.summary import names_the_post

    assert [names_the_post(f) for f in ("title", "data.title", "release.tag_name", "name", "names[0]")] == [
        True,
        True,
        True,
        True,
        False,
    ]
    assert [names_the_post(f) for f in ("updated_at", "data.subtitle", "modified", "title_image")] == [
        False
    ] * 4


def test_metadata_is_compared_field_by_field_even_when_most_fields_changed() -> None:
    # front matter of a post whose site renamed `author` to `authors` and dropped `date` in one go
    a_meta = {"date": "2021-06-17", "title": "Announcing Rust 1.53.0", "author": "The Rust Release Team"}
    b_meta = {"title": "Announcing Rust 1.53.0", "authors": ["The Rust Release Team"]}
    assert [m["field"] for m in diff("Same.\n", "Same.\n", a_meta=a_meta, b_meta=b_meta).metadata] == [
        "author",
        "authors",
        "date",
    ]
    assert summarize(diff("Same.\n", "Same.\n", a_meta=a_meta, b_meta=b_meta), V)[1:] == [
        '• metadata › author → authors: ["The Rust Release Team"]',  # one field renamed, its value kept
        '• metadata › date: removed "2021-06-17"',
    ]


def test_small_edits() -> None:
    d = diff("With Rust 1.71, they can be informed.\n", "With Rust 1.81, they can be informed.\n")
    assert d.changes[0].ops == [{"op": "replace", "before": "1.71", "after": "1.81"}]
    d = diff("warn about about confusing situations\n", "warn about confusing situations\n")
    assert d.changes[0].ops == [{"op": "delete", "before": "about"}]


def test_json_schema() -> None:
    data = json.loads(render(replay_diff(), V, "json"))
    assert data["schema"] == "differ.diff/1"
    assert data["source"] == "pytorch-2-13/canonical"
    assert data["from"] == {"version": 2, "fetched_at": "2026-07-08T17:45:00Z", "hash": "a" * 64}
    assert data["to"]["version"] == 3
    change = data["changes"][1]
    assert set(change) >= {"kind", "section", "before", "after", "ops"}
    assert change["section"] == ["Non-Feature Updates"]


class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.bad: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "img", "iframe") or any(k.startswith("on") for k, _ in attrs):
            self.bad.append(tag)
        if any((v or "").strip().lower().startswith("javascript:") for _, v in attrs):
            self.bad.append(tag)


def test_html_output_escapes_page_text() -> None:
    a = "Hello\n"
    b = "Hello <script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3))\n"
    page = render(diff(a, b), V, "html")
    parser = _Scripts()
    parser.feed(page)
    assert parser.bad == []
    assert "&lt;script&gt;" in page


def test_html_output_lays_out_code_as_it_is_and_prose_as_prose() -> None:
    """A code block's cells keep its lines and indentation (white-space: pre-wrap), in a monospace font; a
    paragraph's cells flow as text."""
    a = "```python\nif ok:\n    run()\n```\n\nOne two.\n"
    b = "```python\nif ok:\n    run(fast=True)\n```\n\nOne three.\n"
    page = render(diff(a, b), V, "html")
    assert "td.code{white-space:pre-wrap;" in page
    cells = re.findall(r"<td( class=code)?>((?:(?!</td>).)*)</td>", page, re.DOTALL)
    assert [c for c in cells if "<span class=kind>" not in c[1]] == [
        (" class=code", "if ok:\n    run()"),
        (" class=code", "if ok:\n    run(<ins>fast=True</ins>)"),
        ("", "One <del>two</del>."),
        ("", "One <ins>three</ins>."),
    ]


def test_html_shows_the_targets_of_the_links_that_changed_on_either_side() -> None:
    """A link change's text is alike on both sides: under it, each changed link's old target struck out and its
    new one highlighted, as text (a target is never made a link), escaped."""
    a = "See [the docs](https://a.example/old) and [the <b>faq</b>](https://a.example/faq?a=1&b=2).\n"
    b = "See [the docs](https://a.example/new) and [the <b>faq</b>](https://a.example/faq?a=1&b=3).\n"
    page = render(diff(a, b), V, "html")
    cells = re.findall(r"<td>((?:(?!</td>).)*)</td>", page)
    assert cells[1:] == [
        "See the docs and the &lt;b&gt;faq&lt;/b&gt;."
        "<div class=target>the docs: <del>https://a.example/old</del></div>"
        "<div class=target>the &lt;b&gt;faq&lt;/b&gt;: <del>https://a.example/faq?a=1&amp;b=2</del></div>",
        "See the docs and the &lt;b&gt;faq&lt;/b&gt;."
        "<div class=target>the docs: <ins>https://a.example/new</ins></div>"
        "<div class=target>the &lt;b&gt;faq&lt;/b&gt;: <ins>https://a.example/faq?a=1&amp;b=3</ins></div>",
    ]
    parser = _Scripts()
    parser.feed(page)
    assert parser.bad == []


def test_markdown_shows_the_targets_of_the_links_that_changed() -> None:
    """As the HTML page does: under the text, each changed link's old target struck out, its new one in bold."""
    a = "See [the *docs*](https://a.example/old_1) for more.\n"
    b = "See [the *docs*](https://a.example/new_1) for more.\n"
    [row] = [line for line in render(diff(a, b), V, "markdown").splitlines() if line.startswith("| link |")]
    assert row.split(" | ")[2:] == [
        "See the docs for more.<br>the docs: ~~https://a.example/old\\_1~~",
        "See the docs for more.<br>the docs: **https://a.example/new\\_1** |",
    ]


def test_html_summary_is_a_list_of_changes_each_with_its_continuation() -> None:
    """The page's summary: one item a change, without the text summary's own "•" (the list marks each), a
    rewrite's "→" line in the item of the change it belongs to."""
    page = render(diff("One two.\n", "One three.\n"), V, "html")
    [summary] = re.findall(r"<ul class=summary>(.*?)</ul>", page)
    assert summary == "<li>&quot;One two.&quot;<br>→ &quot;One three.&quot;</li>"


def test_text_output_shows_a_moved_block_as_it_is_not_as_added() -> None:
    """A block that moved unchanged is shown as it is, under where it went, without the `+` of a block added."""
    a = "# A\n\nAlpha text here.\n\n# B\n\nBeta text here.\n\nA last paragraph.\n"
    b = "# B\n\nBeta text here.\n\n# A\n\nAlpha text here.\n\nA last paragraph.\n"
    text = render(diff(a, b), V, "text")
    assert text.split("\n\n", 1)[1] == '[moved] B\n    B\n  section moved (2 blocks), now before "A"\n'


def test_text_and_markdown_outputs() -> None:
    text = render(replay_diff(), V, "text")
    assert "[-[Prototype]-]" in text
    assert "{+Preliminary+}" in text
    md = render(replay_diff(), V, "markdown")
    assert md.startswith("**PyTorch 2.13 Release Blog (canonical), version 2 → 3: 3 changes.**\n")
    assert "| modified | Non-Feature Updates › Python support |" in md


def test_text_output_puts_a_replacement_where_the_page_had_its_words() -> None:
    """Words put in for others are shown a space after them, but a run that starts with a mark standing against
    the word before (`.`, `,`) is shown against it, as the run taken out was."""
    a = "Nested as well, for example to include generated content.\n"
    b = "Nested as well. For example, the concat! macro is used to include substitutions.\n"
    assert render(diff(a, b), V, "text").splitlines()[-1] == (
        "  Nested as well[-, for example-]{+. For example, the concat! macro is used+} to include "
        "[-generated content-] {+substitutions+}."
    )


def test_a_script_written_without_spaces_is_diffed_a_character_a_word() -> None:
    """Chinese and Japanese put no spaces between words: an edit is the characters that changed, shown where
    they stand, not the whole clause between two punctuation marks; Korean, spaced, keeps its words."""
    assert words("PyTorch 2.13 では新しい") == ["PyTorch", "2.13", "で", "は", "新", "し", "い"]
    assert words("PyTorch 2.13에서는 새로운") == ["PyTorch", "2.13에서는", "새로운"]
    ja = "# リリース\n\nPyTorch 2.13 では新しいコンパイラが追加されました。詳細はドキュメントを参照。\n"
    d = diff(ja, ja.replace("では新しい", "では高速な新しい"))
    assert [c.ops for c in d.changes] == [[{"op": "insert", "after": "高速な"}]]
    assert summarize(d, V)[1:] == ['• PyTorch 2.13 では新しいコンパイラが追加されました …: added "高速な"']
    assert render(d, V, "text").splitlines()[-1] == (
        "  PyTorch 2.13 では{+高速な+}新しいコンパイラが追加されました。詳細はドキュメントを参照。"
    )
    zh = "# 发布\n\n我们很高兴地宣布 PyTorch 2.13 发布了。\n"
    d = diff(zh, zh.replace("很", "非常"))
    assert render(d, V, "text").splitlines()[-1] == "  我们[-很-]{+非常+}高兴地宣布 PyTorch 2.13 发布了。"
    assert apply(split_blocks(zh), d) == [b.text_key for b in split_blocks(zh.replace("很", "非常"))]
    # its sentences end at 。！？ with no space after them; a long one is cut where it changed, not at its start
    zh = "# 发布\n\n我们很高兴地宣布 PyTorch 2.13 发布了。这个版本带来了新的编译器。详细信息请参阅文档！\n"
    assert summarize(diff(zh, zh.replace("新的编译器", "更快的新编译器")), V)[1:] == [
        '• 我们很高兴地宣布 PyTorch 2.13 发布了 …: "这个版本带来了新的编译器。"',
        '  → "这个版本带来了更快的新编译器。"',
    ]
    both = zh.replace("新的编译器", "更快的编译器").replace("请参阅", "请见")
    assert summarize(diff(zh, both), V)[2] == '  → "这个版本带来了更快的编译器。详细信息请见文档！"'
    long = (
        "# 发布\n\n"
        + "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会" * 12
        + "。\n"
    )
    edited = long[:-20] + "非常" + long[-18:]
    old, new = summarize(diff(long, edited), V)[1:]
    assert old.split(": ", 1)[1].startswith('"…') and "非常" in new and len(new) < 240


def test_long_summaries_are_cut_visibly() -> None:
    a = "\n\n".join(f"Paragraph number {i} with words." for i in range(30)) + "\n"
    b = "\n\n".join(f"Paragraph number {i} with other words." for i in range(30)) + "\n"
    lines = summarize(diff(a, b), V, max_lines=5)
    assert lines[-1] == "…and 25 more changes"


@pytest.mark.parametrize(
    "text",
    [
        "Updated (7/8): Removed two instances of prototype.",
        "**Update**: the download link is fixed.",
        "UPDATE 2: the date was wrong.",
        "Edit: typo.",
        "[Edited to add: the release date.]",
        "Correction: the minimum version is 1.81.",
        "Updated July 8, 2026: the table is complete.",
        "Erratum: one more contributor.",
        "Note: this post was updated on July 8 to remove a paragraph.",
        "Editor's note: an earlier version of this post listed the wrong version.",
        "업데이트(7/8): 더 이상 사용하지 않는 지정(designation)인 prototype이 사용된 두 곳을 제거했습니다.",
        "更新（7/8）：删除了两处 prototype。",
        "追記（2026年7月8日）：リンクを修正しました。",
        "Mise à jour : le lien est corrigé.",
        "Nachtrag: Die Version ist 1.81.",
        "[Updated July 9, 2026] The release date moved.",
        "(Edited) The table lists ROCm 7.",
        "Updated on July 9, 2026 to fix a link.",
        "Updated on 2026-07-09: the wheels are up.",
        "This post has been updated to reflect the new date.",
        "*The post was edited on July 9 to add the Windows wheels.*",
        "An earlier version of this post listed the wrong flag.",
        "Clarification: the beta is opt-in.",
        "【追記】リンクを修正しました。",
        "(업데이트 2026-07-09) 링크를 고쳤습니다.",
    ],
)
def test_an_edit_note_of_the_author_is_recognized(text: str) -> None:
    assert is_edit_note(text)


@pytest.mark.parametrize(
    "text",
    [
        "Note: whereas for field-less enums it is possible to inspect a discriminant via as casting.",
        "Note: the default was changed in 1.66.",
        "Note that the post was updated.",
        "Update the toolchain: run rustup update stable.",
        "Updated dependencies: serde 1.0.",
        "Updates: many.",
        "Editor's note: this is a guest post by Jane.",
        "수정 사항: 여러 버그를 고쳤습니다.",  # "changes:", a heading of the notes
        "Triton 업데이트: 3.7.1로 올렸습니다.",
        "更新日志：见下文。",  # "changelog:"
        "(Updated dependencies) serde 1.0.",
        "Updated on 3 platforms: Linux, macOS and Windows.",
        "The post-processing step was changed to run in parallel.",
        "The page allocator has been revised for large pages.",
        "Clarified error messages: rustc now says which trait is missing.",
        "[수정 사항] 여러 버그를 고쳤습니다.",  # "[changes]"
    ],
)
def test_content_that_begins_like_an_edit_note_is_content(text: str) -> None:
    assert not is_edit_note(text)


def test_a_note_that_is_content_is_not_put_first_as_the_authors() -> None:
    a = "# Enums\n\nFirst paragraph.\n\nLast paragraph.\n"
    b = "# Enums\n\nFirst paragraph here.\n\nLast paragraph.\n\nNote: enums with fields have no cast.\n"
    assert summarize(diff(a, b), V)[1:] == [
        '• First paragraph: added "here"',
        '• added at the end: "Note: enums with fields have no cast."',
    ]


def test_a_paragraph_that_keeps_a_sentence_of_the_old_is_that_paragraph_rewritten() -> None:
    """Ten words in a row in both make two paragraphs one rewritten, however little else they share; paragraphs
    that share only words such as "the", however many, are not."""
    from differ.diff.align import PAIR_THRESHOLD, similarity

    kept = "the new compiler builds every crate of the workspace in one pass"
    old = f"Before this release, {kept}, which took hours on the largest projects we know of and tested."
    new = f"Now {kept}. Caching, signing and uploading artifacts are all faster as well in this version."
    other = "Caching of the artifacts of the build in the cloud is the default in the version of the tool."
    (a,), (b,), (c,) = (split_blocks(text + "\n") for text in (old, new, other))
    assert similarity(a, b) > PAIR_THRESHOLD > similarity(a, c)


def test_long_runs_of_rewritten_blocks_pair_by_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks replaced by others are paired most alike first while there are few enough words to compare each
    with each (PAIR_WORDS); past that, by place: the first removed with the first added, and so on."""
    from differ.diff import align

    one = "Compiler passes are faster now, thanks to caching of their results."
    two = "Linker threads run in parallel across all cores by default."
    old = split_blocks(f"{one}\n\n{two}\n")
    new = split_blocks(f"{two.replace('all', 'most')}\n\n{one.replace('now', 'today')}\n")

    def paired() -> list[tuple[int, int]]:
        removed: list[int] = []
        added: list[int] = []
        modified: list[tuple[int, int]] = []
        align.pair(old, new, [0, 1], [0, 1], removed, added, modified)
        return modified

    assert paired() == [(0, 1)]  # the most alike first; the other pair would cross it
    monkeypatch.setattr(align, "PAIR_WORDS", 100)
    assert paired() == []  # by place: neither is like the one in its place


def test_a_long_run_of_paragraphs_each_split_in_two_is_that_many_splits() -> None:
    """Seventy paragraphs each split in two make one run of 70 blocks replaced by 140, past the blocks compared
    each with each: paired window by window, each is its paragraph split (they were paired by place, the second
    with the first's second half and so on), and the other way round each is joined."""
    paras = [
        f"Paragraph {i} tells of topic {i * 7 % 50}. And then it says more of it, {i}." for i in range(70)
    ]
    a = "\n\n".join(paras) + "\n"
    b = "\n\n".join(p.replace(". And", ".\n\nAnd") for p in paras) + "\n"
    d = diff(a, b)
    assert [(c.kind, c.detail) for c in d.changes] == [
        ("modified", "split: part of it is now a paragraph of its own")
    ] * 70
    assert [c.a_index for c in d.changes] == list(range(70))
    assert [(c.kind, c.detail) for c in diff(b, a).changes] == [
        ("modified", "joined with the paragraph next to it")
    ] * 70
    assert apply(split_blocks(a), d) == [blk.text_key for blk in split_blocks(b)]


def test_a_long_list_with_every_item_edited_and_one_added_on_top_pairs_each_item_with_itself() -> None:
    """A hundred items each bumped and one new item on top: each item is its own edit and the new one added
    (paired by place, each item was taken for its neighbour rewritten: "torch-lib0 0.0" → "torch-new 1.0")."""
    items = [f"- torch-lib{i} {i}.0 for CUDA builds" for i in range(100)]
    bumped = ["- torch-new 1.0 for CUDA builds"] + [item.replace(".0 ", ".1 ") for item in items]
    d = diff("# L\n\n" + "\n".join(items) + "\n", "# L\n\n" + "\n".join(bumped) + "\n")
    assert [(c.kind, c.before, c.after) for c in d.changes[:2]] == [
        ("added", None, "torch-new 1.0 for CUDA builds"),
        ("modified", "torch-lib0 0.0 for CUDA builds", "torch-lib0 0.1 for CUDA builds"),
    ]
    assert all(c.before and c.after and c.before.split()[0] == c.after.split()[0] for c in d.changes[1:])
    assert len(d.changes) == 101


def test_removed_blocks_are_listed_where_they_stood() -> None:
    # a rewritten paragraph, then two paragraphs removed after it: the summary and every output list them in
    # document order, not the removals before the rewrite that preceded them
    a = "# S\n\nKept.\n\nOne two three four five.\n\nGone first.\n\nGone second.\n\nEnd.\n"
    b = "# S\n\nKept.\n\nOne two three four six.\n\nEnd.\n\nNew last.\n"
    d = diff(a, b)
    assert [(c.kind, c.before or c.after) for c in d.changes] == [
        ("modified", "One two three four five."),
        ("removed", "Gone first."),
        ("removed", "Gone second."),
        ("added", "New last."),
    ]
    assert summarize(d, V)[1:] == [
        '• "One two three four five."',
        '  → "One two three four six."',
        '• removed "Gone first."',
        '• removed "Gone second."',
        '• added at the end: "New last."',
    ]


def test_a_summary_names_a_block_by_its_first_words_only_when_it_does_not_quote_it_whole() -> None:
    a = (
        "# Widget\n\n## Highlights\n\n- Faster startup (2x)\n- Plugin API\n- Old importer\n"
        "- Smaller wheels. They are 40% smaller on Linux.\n- Typed API [Beta]\n"
    )
    b = (
        "# Widget\n\n## Highlights\n\n- Faster startup (3x)\n- Plugin API\n- New exporter\n"
        "- Smaller wheels. They are 45% smaller on Linux.\n- Typed API\n"
    )
    assert summarize(diff(a, b), V)[1:] == [
        '• Highlights: "Faster startup (2x)"',  # the quote is the whole item: no label
        '  → "Faster startup (3x)"',
        '• Highlights: removed "Old importer"',  # likewise a whole item removed or added
        '• Highlights: added "New exporter"',
        # one sentence of the item quoted: the label says which item, by its first sentence
        '• Highlights › Smaller wheels …: "They are 40% smaller on Linux."',
        '  → "They are 45% smaller on Linux."',
        '• Highlights › Typed API: removed "[Beta]"',  # words removed: which item they left
    ]
    added = summarize(
        diff("## Highlights\n\n- New plugin API\n", "## Highlights\n\n- New plugin API (beta)\n"), V
    )
    assert added[1:] == ['• Highlights › New plugin API: added "(beta)"']  # words added: the item they joined


def test_a_paragraph_taken_out_in_one_section_and_another_put_in_elsewhere_are_two_changes() -> None:
    """Only one paragraph put in the place of another is that paragraph rewritten whatever its words: one taken
    out of a section and an unrelated one added to another are not one paragraph moved and rewritten, nor is a
    code block taken out here and another added there one example changed."""
    a = (
        "## A\n\nAlpha text stays.\n\nThe old plan is dropped.\n\n```sh\nmake old\n```\n\n## B\n\n"
        "Beta text stays.\n\n## C\n\nGamma text stays.\n"
    )
    b = (
        "## A\n\nAlpha text stays.\n\n## B\n\nBeta text stays.\n\n## C\n\nGamma text stays.\n\n"
        "Wheels for Windows ship today.\n\n```sh\npip install new\n```\n"
    )
    assert sorted((c.kind, c.section, c.block) for c in diff(a, b).changes) == [
        ("added", ("C",), "code"),
        ("added", ("C",), "paragraph"),
        ("removed", ("A",), "code"),
        ("removed", ("A",), "paragraph"),
    ]
    assert sorted((c.kind, c.section, c.block) for c in diff(b, a).changes) == [
        ("added", ("A",), "code"),
        ("added", ("A",), "paragraph"),
        ("removed", ("C",), "code"),
        ("removed", ("C",), "paragraph"),
    ]
    # in its place, one paragraph for another is still that paragraph rewritten
    d = diff(a, a.replace("The old plan is dropped.", "Wheels for Windows ship today."))
    assert [(c.kind, c.section) for c in d.changes] == [("modified", ("A",))]
    # a section renamed as it moved, its words moving with it, is that section; one section taken out and
    # another added elsewhere, nothing of the one under the other, are two
    three = "## A\n\nAlpha.\n\n## B\n\nBeta body here.\n\n## C\n\nGamma.\n"
    renamed = "## A\n\nAlpha.\n\n## C\n\nGamma.\n\n## Bee\n\nBeta body here.\n"
    assert summarize(diff(three, renamed), V)[1:] == [
        '• heading "B" → "Bee", section moved (2 blocks), now after "C"'
    ]
    other = "## A\n\nAlpha.\n\n## C\n\nGamma.\n\n## Dee\n\nDelta words of its own.\n"
    assert sorted((c.kind, c.block) for c in diff(three, other).changes) == [
        ("added", "heading"),
        ("added", "paragraph"),
        ("removed", "heading"),
        ("removed", "paragraph"),
    ]


def test_a_passage_replaced_whole_is_one_item_of_the_summary() -> None:
    """Blocks taken out and others put in their place, between the same two blocks, read as one passage
    replaced: the old and the new, as a person says a section's second half was rewritten, or a paragraph made a
    list. A block taken out here and one put in elsewhere stay two, and so do list items alone (each an entry of
    its own)."""
    a = "## Notes\n\nIntro stays.\n\nOld claim one.\n\n```\nold_code()\n```\n\nOld claim two.\n\nOutro stays.\n"
    b = "## Notes\n\nIntro stays.\n\nA new paragraph says it all now.\n\nOutro stays.\n"
    d = diff(a, b)
    assert sorted(c.kind for c in d.changes) == ["added", "removed", "removed", "removed"]
    assert summarize(d, V)[1:] == [
        '• Notes: replaced 3 blocks: "Old claim one.", …',
        '  → "A new paragraph says it all now."',
    ]
    one = summarize(diff(a, a.replace("```\nold_code()\n```", "Run the new tool instead.")), V)
    assert one[1:] == ['• Notes: replaced "old_code()"', '  → "Run the new tool instead."']
    apart = diff(
        "Intro here.\n\nThe old plan is dropped.\n\nMiddle part.\n\nEnd of it.\n",
        "Intro here.\n\nMiddle part.\n\nWheels for Windows ship today.\n\nEnd of it.\n",
    )
    assert summarize(apart, V)[1:] == [
        '• removed "The old plan is dropped."',
        '• added "Wheels for Windows ship today."',
    ]
    assert summarize(d, V, max_lines=0)[1:] == ["…and 4 more changes"]  # the item stands for its 4 changes
    listed = diff("## A\n\nFirst, second and third.\n", "## A\n\n- First\n- second\n- third\n")
    assert summarize(listed, V)[1:] == ['• A: replaced "First, second and third."', '  → 3 items: "First", …']
    items = diff("## A\n\n- Old importer\n- Plugin API\n", "## A\n\n- New exporter\n- Plugin API\n")
    assert summarize(items, V)[1:] == ['• A: removed "Old importer"', '• A: added "New exporter"']


BLOCK = st.sampled_from(
    [
        "# Intro",
        "## Details",
        "Alpha beta gamma.",
        "Delta epsilon zeta.",
        "- item one",
        "- item two",
        "Numbers 1.71 and 3,328.",
        "```\ncode line\n```",
        "Eta theta iota.",
        "> quoted words",
        "Kappa lambda mu nu.",
    ]
)
DOC = st.lists(BLOCK, max_size=12).map(lambda bs: "\n\n".join(bs) + "\n")


@settings(max_examples=150, deadline=None)
@given(DOC, DOC)
def test_a_summary_stands_for_every_change_once(a: str, b: str) -> None:
    """However its lines group changes (a section added whole, a list reordered, a passage replaced), a summary
    cut before its first line says how many changes it left out: all of them, none counted twice."""
    d = diff(a, b)
    total = len(d.changes) + len(d.metadata)
    lines = summarize(d, V, max_lines=0)
    assert lines[1:] == ([f"…and {total} more change{'s' if total != 1 else ''}"] if total else [])


@settings(max_examples=150, deadline=None)
@given(DOC)
def test_diff_of_a_document_with_itself_is_empty(a: str) -> None:
    assert diff(a, a).empty


@settings(max_examples=150, deadline=None)
@given(DOC, DOC)
def test_applying_a_diff_gives_the_new_version(a: str, b: str) -> None:
    d = diff(a, b)
    assert apply(split_blocks(a), d) == [blk.text_key for blk in split_blocks(b)]


@settings(max_examples=300, deadline=None)
@given(DOC, DOC)
def test_diffs_in_both_directions_are_mirror_images(a: str, b: str) -> None:
    """Added and removed swap, before and after swap. Which of two swapped (or repeated) blocks "moved" is a
    matter of viewpoint, so moves are not compared."""
    forward, backward = diff(a, b), diff(b, a)
    swap = {"added": "removed", "removed": "added"}
    f = sorted(
        (swap.get(c.kind, c.kind), c.after, c.before)
        for c in forward.changes
        if c.kind in ("added", "removed", "link")
    )
    g = sorted(
        (c.kind, c.before, c.after) for c in backward.changes if c.kind in ("added", "removed", "link")
    )
    assert f == g
    assert len([c for c in forward.changes if c.kind == "modified"]) == len(
        [c for c in backward.changes if c.kind == "modified"]
    )


# Blocks made of a few words from a small stock: near-duplicates, coincidences and ties everywhere.
WORD = st.sampled_from(
    [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "the",
        "a",
        "of",
        "1.71",
        "3,328",
        "fast",
        "slow",
        "高速",
        "新しい",
        "的。",
    ]
)
PROSE = st.lists(WORD, min_size=1, max_size=9).map(lambda ws: " ".join(ws).capitalize() + ".")
LINES = st.lists(st.lists(WORD, min_size=1, max_size=4).map(" ".join), min_size=1, max_size=5)
ALIKE = st.lists(
    st.one_of(
        PROSE,
        PROSE.map(lambda p: "- " + p),
        PROSE.map(lambda p: "> " + p),
        LINES.map(lambda ls: "```\n" + "\n".join(ls) + "\n```"),
        st.sampled_from(["# Intro", "## Details"]),
    ),
    max_size=7,
).map(lambda bs: "\n\n".join(bs) + "\n")


# Sentences that open alike, as a release post's do ("Release 2.13 is out. Release 2.13 brings…").
SENTENCES = st.lists(
    st.sampled_from(
        [
            "Release 2.13 is out.",
            "Release 2.13 brings speed.",
            "Release 2.13 brings fixes.",
            "We fixed the parser.",
            "We fixed the lexer.",
            "Then run it.",
            "Then run the tests.",
        ]
    ),
    min_size=2,
    max_size=6,
    unique=True,
)


@settings(max_examples=300, deadline=None)
@given(SENTENCES, st.data())
def test_a_sentence_taken_out_or_put_in_is_said_whole(sentences: list[str], data: st.DataObject) -> None:
    """Where the words beside a sentence repeat its own, the words said removed or added are still that
    sentence, not its end and the start of the next ("is out. Release 2.13")."""
    gone = data.draw(st.integers(0, len(sentences) - 1))
    whole = " ".join(sentences)
    rest = " ".join(s for i, s in enumerate(sentences) if i != gone)
    assert word_ops(whole, rest) == [{"op": "delete", "before": sentences[gone]}]
    assert word_ops(rest, whole) == [{"op": "insert", "after": sentences[gone]}]


def test_a_sentence_that_repeats_the_next_ones_opening_is_removed_whole_in_every_output() -> None:
    d = diff("Release 2.13 is out. Release 2.13 brings speed.\n", "Release 2.13 brings speed.\n")
    assert summarize(d, Versions("Post", "doc/canonical", 1, 2))[1:] == [
        '• Release 2.13 brings speed: removed "Release 2.13 is out."'
    ]
    assert render(d, Versions("Post", "doc/canonical", 1, 2), "text").splitlines()[-1] == (
        "  [-Release 2.13 is out.-] Release 2.13 brings speed."
    )


@settings(max_examples=300, deadline=None)
@given(ALIKE, ALIKE)
def test_word_operations_in_both_directions_are_mirror_images(a: str, b: str) -> None:
    turn = {"insert": "delete", "delete": "insert", "replace": "replace"}

    def turned(op: dict[str, str]) -> dict[str, str]:
        out = {"op": turn[op["op"]]}
        out.update({k: v for k, v in (("before", op.get("after")), ("after", op.get("before"))) if v})
        return out

    forward = [c for c in diff(a, b).changes if c.kind == "modified"]
    backward = [c for c in diff(b, a).changes if c.kind == "modified"]
    assert sorted((c.after, json.dumps([turned(op) for op in c.ops])) for c in forward) == sorted(
        (c.before, json.dumps(c.ops)) for c in backward
    )
    test_diffs_in_both_directions_are_mirror_images.hypothesis.inner_test(a, b)  # type: ignore[attr-defined]
    assert apply(split_blocks(a), diff(a, b)) == [blk.text_key for blk in split_blocks(b)]


def test_a_tie_between_two_alignments_is_broken_the_same_way_in_both_directions() -> None:
    # difflib keeps the first block of its first argument that matches: "Numbers" one way, "Intro" the other
    a = "Numbers 1.71 and 3,328.\n\n# Intro\n\nNumbers 1.71 and 3,328.\n"
    b = "# Intro\n\nAlpha beta gamma.\n\nNumbers 1.71 and 3,328.\n\nAlpha beta gamma.\n"
    forward = [(c.kind, c.before, c.after) for c in diff(a, b).changes]
    backward = [(c.kind, c.after, c.before) for c in diff(b, a).changes]
    swap = {"added": "removed", "removed": "added"}
    assert sorted((swap.get(k, k), x, y) for k, x, y in backward) == sorted(forward)
    assert forward == [
        ("removed", "Numbers 1.71 and 3,328.", None),
        ("added", None, "Alpha beta gamma."),
        ("added", None, "Alpha beta gamma."),
    ]  # the alignment that keeps "Intro" and "Numbers" where they were relative to each other


KEYS = st.lists(st.sampled_from("abcdefg"), max_size=90)  # past ANCHORED: the anchored alignment too


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(KEYS, st.lists(st.sampled_from("abc"), max_size=40)),
    st.one_of(KEYS, st.lists(st.sampled_from("abc"), max_size=40)),
)
@example(list("cbc"), list("cabcbac"))  # either order keeps all of a, at other copies: the nearer ones win
def test_blocks_align_alike_whichever_version_comes_first(ka: list[str], kb: list[str]) -> None:
    from differ.diff.align import either_way

    def kept(ops: Sequence[tuple[str, int, int, int, int]], swap: bool) -> set[tuple[int, int]]:
        return {
            (j1 + k, i1 + k) if swap else (i1 + k, j1 + k)
            for tag, i1, i2, j1, _ in ops
            if tag == "equal"
            for k in range(i2 - i1)
        }

    assert kept(either_way(ka, kb), False) == kept(either_way(kb, ka), True)


def test_similar_blocks_pair_alike_whichever_version_comes_first() -> None:
    # "Alpha." is nearer in place, "Alpha alpha." more alike: the most alike pair first, either way round
    a, b = "Alpha.\n\nAlpha alpha.\n", "Alpha alpha alpha.\n"
    assert [(c.kind, c.before) for c in diff(a, b).changes] == [
        ("removed", "Alpha."),
        ("modified", "Alpha alpha."),
    ]
    assert [(c.kind, c.after) for c in diff(b, a).changes] == [
        ("added", "Alpha."),
        ("modified", "Alpha alpha."),
    ]
    # difflib's ratio of two word lists depends on which comes first; the pairing does not
    a, b = "Alpha.\n\nAlpha beta gamma beta alpha.\n", "Alpha alpha beta beta.\n"
    assert [c.kind for c in diff(a, b).changes] == ["modified", "removed"]
    assert [c.kind for c in diff(b, a).changes] == ["modified", "added"]


def test_an_item_whose_first_word_lost_its_capital_is_that_item_rewritten() -> None:
    a = "## Changes\n\n- Faster startup\n- New API\n"
    b = "## Changes\n\n- Much faster startup\n- New API\n"
    (change,) = diff(a, b).changes
    assert (change.kind, change.before, change.after) == ("modified", "Faster startup", "Much faster startup")
    assert change.ops == [{"op": "replace", "before": "Faster", "after": "Much faster"}]
    (back,) = diff(b, a).changes
    assert (back.kind, back.ops) == (
        "modified",
        [{"op": "replace", "before": "Much faster", "after": "Faster"}],
    )


def test_words_are_found_whole_case_aside_with_stars_and_phrases() -> None:
    from differ.diff.narrow import words_in

    text = "Fixes CVE-2026-41 (a breaking\nchange) in the C++ API; see security.md."
    assert words_in([text], ["cve-*", "breaking change", "C++", "security", "api"]) == [
        "cve-*",
        "breaking change",
        "C++",
        "security",
        "api",
    ]
    assert words_in([text], ["CVE", "2026", "md"]) == ["CVE", "2026", "md"]  # between hyphens, or a dot
    assert words_in([text], ["break*x", "secur", "fixes the", "PI"]) == []  # parts of words are not
    assert words_in(["", "Deprecated."], ["deprecat*"]) == ["deprecat*"]  # either side
    # a pattern's punctuation needs no space beside it: a bracket touches its word, `C++` its comma
    assert words_in(
        ["CuTeDSL backend [Prototype], for C++, and (Python 3.15)"],
        ["[prototype]", "[", "c++", "(python", "ython"],
    ) == [
        "[prototype]",
        "[",
        "c++",
        "(python",
    ]
    # Korean joins particles to words, Chinese and Japanese do not space words: found wherever they stand
    korean = "이번 릴리스는 보안을 강화했습니다. 정보보안 관련 CVE-2026-1 수정."
    assert words_in([korean], ["보안", "cve-*", "강화", "릴리"]) == ["보안", "cve-*", "강화", "릴리"]
    assert words_in(["本版本修复了安全问题。セキュリティ修正。"], ["安全", "セキュリティ", "sec"]) == [
        "安全",
        "セキュリティ",
    ]


def test_heading_patterns_have_one_wildcard_and_fold_case() -> None:
    from differ.diff.narrow import headings_matching

    headings = ["Post", "[Prototype] CuTeDSL", "Security fixes", "What?", "Whatever", "Straße", "P"]
    assert headings_matching(headings, ["[prototype]*", "security*", "what?", "STRASSE", "[pq]"]) == [
        "[Prototype] CuTeDSL",  # brackets and ? are themselves, not shell classes
        "Security fixes",
        "What?",
        "Straße",
    ]
    assert headings_matching(headings, ["*"]) == headings


@settings(max_examples=200, deadline=None)
@given(
    ALIKE, ALIKE, st.lists(st.sampled_from(["Intro", "details", "*"]), max_size=2), st.lists(WORD, max_size=2)
)
def test_a_narrowed_diff_keeps_exactly_the_changes_it_asks_for(
    a: str, b: str, sections: list[str], some: list[str]
) -> None:
    from differ.diff.narrow import headings_matching, picked, words_in

    d = diff(a, b)
    n = picked(d, sections, some)
    assert len(n.changes) + n.left_out == len(d.changes) and not n.metadata

    def asked(c: Change) -> bool:
        return (not sections or bool(headings_matching(c.section, sections))) and (
            not some or bool(words_in((c.before or "", c.after or ""), some))
        )

    assert [c for c in n.changes if asked(c)] == [c for c in d.changes if asked(c)]  # none lost, order kept
    assert all(asked(c) or is_edit_note(c.after) for c in n.changes)  # nothing else, but the author's note
    assert n.explaining == sum(not asked(c) for c in n.changes)  # the note kept to explain, counted apart
    if sections or some:
        counted = len(n.changes) - n.explaining
        assert f": {counted} change{'' if counted == 1 else 's'} " in summarize(n, V)[0]
        assert summarize(n, V)[0].endswith(f"({n.left_out} elsewhere).")


def test_an_authors_note_written_over_a_passage_says_what_it_replaced() -> None:
    a = "# Post\n\nBody text here.\n\nThanks to all contributors!\n"
    b = a.replace("Thanks to all contributors!", "Update (7/9): the wheels for Windows are now up.")
    assert summarize(diff(a, b), V)[1:] == [
        '• author\'s note: "Update (7/9): the wheels for Windows are now up."',
        '  in place of "Thanks to all contributors!"',
    ]
    c = b.replace("are now up.", "are now up, and the Linux ones too.")  # a note edited: the note alone
    assert summarize(diff(b, c), V)[1:] == [
        '• author\'s note: "Update (7/9): the wheels for Windows are now up, and the Linux ones too."'
    ]
    # a note that speaks of one section is said where it stands
    e = "# Post\n\n## Windows\n\nWheels soon.\n\n## Linux\n\nWheels out.\n"
    f = e.replace("Wheels soon.\n", "Wheels soon.\n\n**Update**: the Windows wheels are delayed to 2.14.\n")
    assert summarize(diff(e, f), V)[1:] == [
        '• author\'s note (in Windows): "Update: the Windows wheels are delayed to 2.14."'
    ]


def test_a_paragraph_put_in_the_place_of_another_is_that_paragraph_rewritten() -> None:
    a = "# Widget\n\nWe are happy to announce Widget 3.0.\n\n## Install\n\nRun it.\n"
    d = diff(
        a, a.replace("We are happy to announce Widget 3.0.", "Today marks a milestone: our third line ships.")
    )
    assert summarize(d, V)[1:] == [
        '• "We are happy to announce Widget 3.0."',
        '  → "Today marks a milestone: our third line ships."',
    ]
    # not when a heading came with it (a new section, not a rewrite), nor for a list item (a fact of its own)
    d = diff(a, a.replace("We are happy to announce Widget 3.0.", "## News\n\nToday marks a milestone."))
    assert [c.kind for c in d.changes] == ["removed", "added", "added"]
    d = diff("- Old importer\n- Plugin API\n", "- New exporter\n- Plugin API\n")
    assert [c.kind for c in d.changes] == ["removed", "added"]
    # two paragraphs in the place of one: which one would be the rewrite is anyone's guess
    d = diff(
        a, a.replace("We are happy to announce Widget 3.0.", "Today marks a milestone.\n\nOur third line.")
    )
    assert sorted(c.kind for c in d.changes) == ["added", "added", "removed"]


def test_corpus_recall() -> None:
    """Every changed word of every revision pair is reported (front-matter-only pairs report nothing), and at
    least 95% of the reported words are changed by one of the four standard word diffs, as multi-reference
    precision counts; against difflib alone, which matches the words a rewrite happens to share, precision stays
    where it was measured."""
    from bench.corpus_eval import evaluate

    results = evaluate()
    assert len(results) >= 40
    for r in results:
        assert not r.truth - r.reported, (r.post, r.pair, sorted((r.truth - r.reported).elements()))
        if r.kind == "front-matter-only" or not r.truth:
            assert not r.reported, (r.post, r.pair)
    hits = sum(r.hits for r in results)
    reported = sum(sum(r.reported.values()) for r in results)
    assert sum(r.right for r in results) / reported >= 0.95, (
        f"precision {sum(r.right for r in results) / reported:.1%}"
    )
    assert hits / reported >= 0.86, f"precision against difflib {hits / reported:.1%}"


def test_corpus_precision_counts_a_word_as_often_as_the_most_generous_truth() -> None:
    from collections import Counter

    from bench.corpus_eval import PairResult

    r = PairResult(
        "post",
        "rev-01.md→rev-02.md",
        "edit",
        truth=Counter({"1.71": 1, "1.81": 1}),
        reported=Counter({"1.71": 1, "1.81": 1, "the": 3, "Bar": 1}),
        semantic=Counter({"1.71": 1, "1.81": 1, "the": 1}),
        git={"myers": Counter({"the": 2}), "histogram": Counter()},
    )
    assert r.hits == 2  # against difflib alone
    assert r.changed_by_any == Counter({"1.71": 1, "1.81": 1, "the": 2})
    assert r.right == 4  # "the" twice (git's myers), not three times; "Bar" by no truth


def test_words_shared_by_a_sentence_and_its_rewrite_are_not_kept_as_unchanged() -> None:
    ops = word_ops(
        "Each variant will use either the specified discriminant value or default to starting with 0.",
        "Variants without explicit values will have discriminants assigned in order, so the only way to set "
        "the explicit value of C would be to add 41 variants before it!",
    )
    assert len(ops) == 1 and ops[0]["op"] == "replace"
    assert word_ops("the release is out now", "the release was out now") == [
        {"op": "replace", "before": "is", "after": "was"}
    ]
    # a comma or colon alone between two edits is no anchor: one edit, not three around a kept comma
    assert word_ops(
        "Macros can be nested as well, for example to include generated content:",
        "Macros can be nested as well. For example, the concat! macro can be used to include substitutions:",
    ) == [
        {"op": "replace", "before": ", for example", "after": ". For example, the concat! macro can be used"},
        {"op": "replace", "before": "generated content", "after": "substitutions"},
    ]
    # but a mark between edits no longer than it stays, as do words
    assert word_ops("Rust 1.71: out", "Rust 1.81: here") == [
        {"op": "replace", "before": "1.71", "after": "1.81"},
        {"op": "replace", "before": "out", "after": "here"},
    ]


def test_code_is_compared_line_by_line_and_alike_lines_word_by_word() -> None:
    """A corrupted flag is one word in its line; a line added is that line; an example rewritten altogether
    is one replacement, not the `(` and `=` the two happen to share."""
    command = "pip3 install torch --index-url https://download.pytorch.org/whl/cpu"
    assert word_ops(f"{command}\npip3 list", f"{command.replace('--', '–')}\npip3 list", code=True) == [
        {"op": "replace", "before": "--", "after": "–"}
    ]
    assert word_ops("a = 1\nb = 2\n", "a = 1\nc = f(a)\nb = 2\n", code=True) == [
        {"op": "insert", "after": "c = f(a)"}
    ]
    old = '#[path = concat!(env!("OUT_DIR"), "/generated.rs")]\nmod generated;'
    new = '#[doc = concat!("The `", stringify!($name), "` example.")]\npub fn $name() -> i32 {\n    $value\n}'
    assert word_ops(old, new, code=True) == [{"op": "replace", "before": old, "after": new}]
    assert len(word_ops(old, new)) > 1  # prose is compared word by word throughout
    d = diff(f"Intro.\n\n```rust\n{old}\n```\n", f"Intro.\n\n```rust\n{new}\n```\n")
    (change,) = d.changes
    assert change.ops == [{"op": "replace", "before": old, "after": new}]
    assert render(d, V, "text").splitlines()[-5:] == [
        '  [-#[path = concat!(env!("OUT_DIR"), "/generated.rs")]',
        '  mod generated;-] {+#[doc = concat!("The `", stringify!($name), "` example.")]',
        "  pub fn $name() -> i32 {",
        "      $value",
        "  }+}",
    ]


def test_a_line_edited_among_lines_rewritten_is_that_edit() -> None:
    """A command whose version was bumped, with new lines after it, is the bump and the new lines, not one
    replacement of everything; a line that is only somewhat like another (the `#[path …]` and `#[doc …]`
    attributes above) stays rewritten. The same the other way round."""
    old = "pip install torch==2.12\n"
    new = 'pip install torch==2.13\npip install torchvision==0.28\npython -c "import torch"\n'
    assert word_ops(old, new, code=True) == [
        {"op": "replace", "before": "2.12", "after": "2.13"},
        {"op": "insert", "after": 'pip install torchvision==0.28\npython -c "import torch"'},
    ]
    assert word_ops(new, old, code=True) == [
        {"op": "replace", "before": "2.13", "after": "2.12"},
        {"op": "delete", "before": 'pip install torchvision==0.28\npython -c "import torch"'},
    ]
    d = diff(f"# Install\n\n```\n{old}```\n", f"# Install\n\n```\n{new}```\n")
    assert render(d, V, "text").splitlines()[-3:] == [
        "  pip install torch==[-2.12-] {+2.13+}",
        "  {+pip install torchvision==0.28",
        '  python -c "import torch"+}',
    ]


def test_a_run_of_lines_found_alike_is_aligned_word_by_word_once() -> None:
    """The word alignment that found a run of lines alike is the one its ops are made from (a lock file's every
    line edited was aligned twice), handed over in the order the blocks were given, either way round."""
    from differ.diff.words import Known, line_opcodes, word_opcodes

    old = [tuple(words(line)) for line in ["x = f(a, b)", "y = 1", "end"]]
    new = [tuple(words(line)) for line in ["x = f(a, c)", "y = 2", "end"]]
    for p, q in ((old, new), (new, old)):
        known: Known = {}
        ((tag, l1, l2, m1, m2, alike),) = [op for op in line_opcodes(p, q, known) if op[0] != "equal"]
        assert (tag, l1, l2, m1, m2, alike) == ("replace", 0, 2, 0, 2, True) and list(known) == [(0, 0)]
        run_p, run_q = [w for line in p[:2] for w in line], [w for line in q[:2] for w in line]
        assert word_opcodes(run_p, run_q, known[0, 0]) == word_opcodes(run_p, run_q)
        assert [op[0] for op in word_opcodes(run_p, run_q) if op[0] != "equal"] == ["replace"] * 2  # b→c, 1→2


CODE_LINES = st.sampled_from(
    ["pip install torch==2.12", "pip install torch==2.13", "pip list", "import torch", "x = f(a, b)", "y = 1"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(CODE_LINES, max_size=8), st.lists(CODE_LINES, max_size=8))
def test_code_lines_align_as_the_mirror_of_the_other_way_round(a: list[str], b: list[str]) -> None:
    """The opcodes of two code blocks' lines cover both in order, and those of b against a are those of a
    against b turned round, lines paired among rewritten ones included."""
    from differ.diff.words import line_opcodes

    la, lb = [tuple(words(line)) for line in a], [tuple(words(line)) for line in b]
    ops = list(line_opcodes(la, lb))
    i = j = 0
    for tag, i1, i2, j1, j2, alike in ops:
        assert (i1, j1) == (i, j) and (i2 > i1 or j2 > j1)
        assert tag != "equal" or la[i1:i2] == lb[j1:j2]
        assert not alike or tag == "replace"
        i, j = i2, j2
    assert (i, j) == (len(la), len(lb))
    swap = {"insert": "delete", "delete": "insert"}
    assert list(line_opcodes(lb, la)) == [(swap.get(t, t), j1, j2, i1, i2, k) for t, i1, i2, j1, j2, k in ops]


def test_items_before_the_first_heading_are_placed_under_the_sentence_that_introduces_them() -> None:
    a = (
        "PyTorch 1.10 is out. The full release notes are available here. Highlights include:\n\n"
        "- CUDA Graphs APIs are integrated\n- Several frontend APIs moved to stable\n"
    )
    d = diff(a, a.replace("integrated", "integrated."))
    assert d.changes[0].section == ("Highlights include",)
    assert summarize(d, V)[1:] == ['• Highlights include › CUDA Graphs APIs are integrated: added "."']
    one = "The release features the following changes:\n\n- Faster startup\n"  # one sentence: all of it
    assert diff(one, one.replace("Faster", "Quicker")).changes[0].section == (
        "The release features the following changes",
    )


def test_a_posts_title_heads_no_section() -> None:
    """A post's one top-level heading, its first, is its title: no passage's section names it, so a page read
    with its title or without it (a selector on the post's text) places every change alike; two top-level
    headings, or one after another heading, are sections."""
    body = (
        "The release features the following changes:\n\n- Faster startup\n\n"
        "## Install\n\nUse the wheel.\n\n### Linux\n\nRun pip.\n"
    )
    edited = body.replace("Faster", "Quicker").replace("Run pip", "Run uv")
    titled = "# Release 2.13\n\n" + body
    assert [b.section for b in split_blocks(titled)] == [
        (),
        (),
        ("The release features the following changes",),
        (),
        ("Install",),
        ("Install",),
        ("Install", "Linux"),
    ]
    bare, with_title = diff(body, edited), diff(titled, "# Release 2.13\n\n" + edited)
    assert summarize(with_title, V) == summarize(bare, V)
    assert summarize(bare, V)[1:] == [
        '• The release features the following changes: "Faster startup"',
        '  → "Quicker startup"',
        '• Install › Linux: "Run pip."',
        '  → "Run uv."',
    ]
    assert split_blocks(titled)[0].heads == () and split_blocks(titled)[3].heads == ("Install",)
    two = "# Notes\n\nOne.\n\n# Thanks\n\nTwo.\n"  # two top-level headings: both are sections
    assert [b.section for b in split_blocks(two)] == [(), ("Notes",), (), ("Thanks",)]
    late = "## Intro\n\nOne.\n\n# Notes\n\nTwo.\n"  # not the first heading: a section
    assert [b.section for b in split_blocks(late)] == [(), ("Intro",), (), ("Notes",)]
    # the title itself edited is one change
    assert summarize(diff(titled, titled.replace("2.13", "2.14")), V)[1:] == [
        '• heading "Release 2.13" → "Release 2.14"'
    ]


def test_a_block_in_a_script_written_without_spaces_is_named_by_its_first_characters() -> None:
    """Six words of Chinese or Japanese are no six spaced runs (a whole clause is one): such a block is named by
    its first sentence when that ends early, else by its first thirty characters."""
    assert split_blocks("PyTorch 2.13 では新しいコンパイラが追加されました。詳細はドキュメントを参照。")[
        0
    ].label == ("PyTorch 2.13 では新しいコンパイラが追加されました …")
    long = "我们很高兴发布 PyTorch 2.13，这个版本带来了许多新的功能和改进以及性能优化和错误修复。"
    assert split_blocks(long)[0].label == "我们很高兴发布 PyTorch 2.13，这个版本带来了许多 …"
    assert split_blocks("短い。")[0].label == "短い。"  # short: whole
    assert split_blocks("Version 2.13 is here.")[0].label == "Version 2.13 is here."  # spaced text as before


def test_inline_html_tags_are_not_part_of_a_blocks_name_or_section() -> None:
    a = (
        '# Notes <small style="color: grey">beta</small>\n\n'
        '- <small style="line-height: 1.1">Figure 1: The model</small> is drawn here\n'
    )
    d = diff(a, a.replace("here", "here again"))
    assert summarize(d, V)[1:] == ['• Figure 1: The model is drawn …: added "again"']


def test_summaries_quote_text_without_its_inline_html_tags_unless_the_tags_changed() -> None:
    a = '# Notes\n\n<small style="line-height: 1.1">Figure 1: The model</small> is drawn here.\n\nOther.\n'
    assert summarize(diff(a, a.replace("drawn", "shown")), V)[1:] == [
        '• "Figure 1: The model is drawn here."',
        '  → "Figure 1: The model is shown here."',
    ]
    assert summarize(diff(a, a.replace("1.1", "1.2")), V)[2] == (
        '  → "<small style="line-height: 1.2">Figure 1: The model</small> is drawn here."'
    )
    assert summarize(diff(a, a + "\n<b>New</b> paragraph.\n"), V)[1:] == [
        '• added at the end: "New paragraph."'
    ]


def test_a_nested_item_is_placed_under_the_item_it_is_in() -> None:
    a = "# Notes\n\n- **Linux**: wheels for\n  - CUDA 12.8\n  - CUDA 12.9\n- **macOS**: wheels for\n  - arm64\n"
    d = diff(a, a.replace("CUDA 12.9", "CUDA 13.0").replace("arm64", "arm64 and x86_64"))
    assert summarize(d, V)[1:] == [
        '• Linux: "CUDA 12.9"',
        '  → "CUDA 13.0"',
        '• macOS › arm64: added "and x86_64"',
    ]
    assert [c.as_json()["parent"] for c in d.changes] == ["Linux", "macOS"]


MOVES = (
    "# Notes\n\n## Highlights\n\nFaster startup for every model we measured.\n\n"
    "The compiler now caches kernels between runs, so a second start is quick.\n\n"
    "Smaller wheels for every platform.\n\n## Thanks\n\nThanks to the 300 contributors.\n"
)


def test_a_block_moved_and_rewritten_says_where_it_came_from() -> None:
    cache = "The compiler now caches kernels between runs, so a second start is quick.\n\n"
    b = MOVES.replace(cache, "").replace("## Thanks\n\n", "## Thanks\n\n" + cache.replace("quick", "fast"))
    d = diff(MOVES, b)
    assert summarize(d, V)[1:] == [
        '• Thanks (moved from Highlights): "The compiler now caches kernels between runs, so a'
        ' second start is quick."',
        '  → "The compiler now caches kernels between runs, so a second start is fast."',
    ]
    assert [(c.kind, c.detail) for c in d.changes] == [("modified", "moved from Highlights to Thanks")]
    assert render(d, V, "text").splitlines()[-2:] == [
        "  The compiler now caches kernels between runs, so a second start is [-quick-] {+fast+}.",
        "  moved from Highlights to Thanks",
    ]
    assert (
        render(d, V, "markdown")
        .splitlines()[-1]
        .startswith("| modified | Thanks — moved from Highlights to Thanks | The compiler")
    )
    b = MOVES.replace(cache, "").replace(
        "Smaller wheels for every platform.\n",
        "Smaller wheels for every platform.\n\n" + cache.replace("quick", "fast"),
    )
    assert summarize(diff(MOVES, b), V)[1] == (
        '• Highlights (moved within its section, now after "Smaller wheels for every platform."): "The'
        ' compiler now caches kernels between runs, so a second start is quick."'
    )
    # Rewritten where it stood, or in a section that moved whole: not moved
    assert diff(MOVES, MOVES.replace("quick", "fast")).changes[0].detail == ""
    highlights, thanks = MOVES.split("## Thanks")
    b = highlights.replace("## Highlights", "## Thanks" + thanks.rstrip() + " Thank you.\n\n## Highlights")
    d = diff(MOVES, b)
    assert [(c.kind, c.detail) for c in d.changes] == [
        ("moved", 'section moved (2 blocks), now before "Highlights"'),
        ("modified", ""),
    ]


def test_a_section_moved_and_renamed_is_one_line() -> None:
    def section(name: str) -> str:
        return f"## {name}\n\n" + "".join(
            f"{name} paragraph {i} says enough to matter.\n\n" for i in range(3)
        )

    a = "# Post\n\n" + "".join(section(name) for name in ("Alpha", "Beta", "Gamma", "Delta"))
    moved = section("Beta").replace("## Beta", "## Beta changes")
    d = diff(a, "# Post\n\n" + "".join(section(name) for name in ("Alpha", "Gamma", "Delta")) + moved)
    assert summarize(d, V)[1:] == [
        '• heading "Beta" → "Beta changes", section moved (4 blocks), now after "Delta"'
    ]
    assert [(c.kind, c.detail) for c in d.changes] == [
        ("modified", 'section moved (4 blocks), now after "Delta"')
    ]


def test_a_moved_section_says_where_it_now_stands_among_its_siblings() -> None:
    def section(name: str) -> str:
        return f"### {name}\n\n{name} says enough to matter here.\n\n"

    a = "# Post\n\n## Notes\n\n" + section("Alpha") + section("Beta") + "## Thanks\n\n" + section("Gamma")
    # Beta to the top of its section: it now comes before its first sibling
    b = a.replace(section("Alpha") + section("Beta"), section("Beta") + section("Alpha"))
    assert summarize(diff(a, b), V)[1:] == [
        '• Notes: the section "Beta" moved (2 blocks), now before "Alpha"'
    ]
    long = "Alpha, which has a heading far longer than a line about another section should quote"
    b = a.replace("### Alpha", "### " + long)
    d = diff(b, b.replace(section("Beta"), "").replace(f"### {long}", section("Beta") + f"### {long}"))
    assert d.changes[0].detail == (
        'section moved (2 blocks), now before "Alpha, which has a heading far longer than a line about…"'
    )
    # into another section: from where, the line naming where it is now
    b = a.replace(section("Beta"), "") + section("Beta")
    d = diff(a, b)
    assert [c.detail for c in d.changes] == ["section moved from Notes to Thanks (2 blocks)"]
    assert summarize(d, V)[1:] == ['• Thanks: the section "Beta" moved from Notes (2 blocks)']
    # a block: next to what it now stands in its section
    steps = [f"Step {n} comes next in the list of steps.\n\n" for n in ("one", "two", "three", "four")]
    a = "# Post\n\n" + "".join(steps)
    d = diff(a, "# Post\n\n" + "".join([steps[3], *steps[:3]]))
    assert summarize(d, V)[1:] == [
        '• moved within its section, now before "Step one comes next in the …":'
        ' "Step four comes next in the list of steps."'
    ]
    # two moved together: each named by the block that stayed, not by the other
    d = diff(a, "# Post\n\n" + "".join([*steps[2:], *steps[:2]]))
    assert [c.detail for c in d.changes] == 2 * [
        'moved within its section, now before "Step one comes next in the …"'
    ]
    d = diff(a, "# Post\n\n" + "".join([*steps[1:], steps[0]]))
    assert [c.detail for c in d.changes] == [
        'moved within its section, now after "Step four comes next in the …"'
    ]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("AB"), st.booleans()), min_size=1, max_size=30), st.data())
def test_the_blocks_that_stayed_beside_a_moved_one_are_found_as_a_walk_finds_them(
    blocks: list[tuple[str, bool]], data: st.DataObject
) -> None:
    """`_Stayed` remembers where its searches ended; asked in any order, it answers as a plain walk does."""
    from differ.diff.blocks import Block
    from differ.diff.engine import _Stayed

    b = [Block("paragraph", f"p{i}", f"p{i}", (section,)) for i, (section, _) in enumerate(blocks)]
    moving = {i for i, (_, moved) in enumerate(blocks) if moved}
    stayed = _Stayed(b, moving)

    def walk(y: int, step: int) -> int:
        k = y + step
        while 0 <= k < len(b) and k in moving and b[k].section == b[y].section:
            k += step
        return k

    for y in data.draw(st.permutations(sorted(moving))) if moving else []:
        for step in data.draw(st.permutations([-1, 1])):
            assert stayed.nearest(y, step) == walk(y, step)


def test_a_list_put_in_another_order_is_one_line_of_the_summary() -> None:
    items = [f"- {name} support" for name in ("Linux", "Windows", "macOS", "ROCm", "XPU")]
    a = "# Notes\n\n## Platforms\n\n" + "\n".join(items) + "\n\n## Other\n\nText.\n"
    b = a.replace("\n".join(items), "\n".join([items[i] for i in (4, 3, 0, 1, 2)]))
    d = diff(a, b)
    assert [c.kind for c in d.changes] == ["moved", "moved"]  # two moves: not yet "reordered"
    b = a.replace("\n".join(items), "\n".join([items[i] for i in (4, 2, 3, 0, 1)]))
    d = diff(a, b)
    assert len(d.changes) == 3 and summarize(d, V)[1:] == [
        '• Platforms: 3 items moved within the section: "XPU support", "Linux support", "Windows support"'
    ]  # "macOS" and "ROCm" kept, of the two pairs that could be: they stand nearer where they stood


def test_a_section_moved_with_a_block_edited_on_the_way_is_one_move_and_that_edit() -> None:
    def section(name: str) -> str:
        return f"## {name}\n\n" + "".join(
            f"{name} paragraph {i} says enough to matter.\n\n" for i in range(4)
        )

    a = "# Post\n\n" + "".join(section(name) for name in ("Alpha", "Beta", "Gamma", "Delta"))
    edited = section("Beta").replace("paragraph 2 says", "paragraph 2 now says")
    d = diff(a, "# Post\n\n" + "".join(section(name) for name in ("Alpha", "Gamma", "Delta")) + edited)
    assert summarize(d, V)[1:] == [
        '• Beta: added "now"',
        '• the section "Beta" moved (5 blocks), now after "Delta"',
    ]


TABLE = (
    "# Platforms\n\n| Platform | CUDA | Python |\n|---|---|---|\n"
    "| Linux | 12.6 | 3.10-3.13 |\n| Windows | 12.6 | 3.10-3.13 |\n| macOS | – | 3.10-3.13 |\n"
)


def test_a_changed_table_row_is_named_by_its_first_cell_and_its_cells_by_their_column() -> None:
    d = diff(TABLE, TABLE.replace("| Windows | 12.6 | 3.10-3.13 |", "| Windows | 12.8 | 3.10-3.14 |"))
    assert summarize(d, V)[1:] == ['• Windows: CUDA "12.6" → "12.8"; Python "3.10-3.13" → "3.10-3.14"']
    assert d.changes[0].as_json()["cells"] == [
        {"column": "CUDA", "before": "12.6", "after": "12.8"},
        {"column": "Python", "before": "3.10-3.13", "after": "3.10-3.14"},
    ]
    d = diff(TABLE, TABLE.replace("| Linux | 12.6 |", "| Linux |  |"))  # a cell emptied says so
    assert summarize(d, V)[1:] == ['• Linux: CUDA "12.6" → (empty)']
    d = diff(TABLE, TABLE.replace("| macOS | – |", "| macOS 14 | – |"))  # renamed: named as it was
    assert summarize(d, V)[1:] == ['• macOS: Platform "macOS" → "macOS 14"']


def test_a_column_added_or_taken_out_is_said_cell_by_cell_under_its_heading() -> None:
    head = TABLE.replace("| CUDA |", "| ROCm | CUDA |").replace("|---|---|---|", "|---|---|---|---|")
    wider = head.replace("| Linux |", "| Linux | 6.4 |").replace("| Windows |", "| Windows |  |")
    wider = wider.replace("| macOS |", "| macOS | – |")
    d = diff(TABLE, wider)
    assert summarize(d, V)[1:] == [
        '• column headings: column "ROCm" added',
        '• Linux: ROCm "6.4" (a new column)',
        "• Windows: ROCm (a new column, empty)",
        '• macOS: ROCm "–" (a new column)',
    ]
    assert d.changes[1].as_json()["cells"] == [
        {"column": "ROCm", "before": "", "after": "6.4", "column_change": "added"}
    ]
    # taken out, with a cell of a kept column edited in the same row: each under its own heading
    d = diff(wider, TABLE.replace("| Linux | 12.6 |", "| Linux | 12.8 |"))
    assert summarize(d, V)[1:3] == [
        '• column headings: column "ROCm" removed',
        '• Linux: ROCm "6.4" (its column removed); CUDA "12.6" → "12.8"',
    ]
    assert d.changes[2].cells == [{"column": "ROCm", "before": "", "after": "", "column_change": "removed"}]
    # headings that cannot tell the columns apart (one is empty): the row is quoted whole
    d = diff(TABLE.replace("| Platform |", "|  |"), wider.replace("| Platform |", "|  |"))
    assert not any(c.cells for c in d.changes) and len(d.changes) == 4
    d = diff(TABLE, TABLE.replace("| CUDA |", "| CUDA version |"))
    assert summarize(d, V)[1:] == ['• column headings: column 2 "CUDA" → "CUDA version"']
    assert d.changes[0].cells == [{"column": "column 2", "before": "CUDA", "after": "CUDA version"}]


def test_a_row_added_or_taken_out_is_named_by_its_first_cell_and_its_cells_by_their_column() -> None:
    """At the end of the document too: a row belongs to its table's section, not after the last paragraph."""
    longer = TABLE + "| FreeBSD | – | 3.12 |\n"
    d = diff(TABLE, longer)
    assert summarize(d, V)[1:] == ['• added the row "FreeBSD" (CUDA "–", Python "3.12")']
    assert d.changes[0].at_end and d.changes[0].as_json()["cells"] == [
        {"column": "Platform", "before": "", "after": "FreeBSD"},
        {"column": "CUDA", "before": "", "after": "–"},
        {"column": "Python", "before": "", "after": "3.12"},
    ]
    d = diff(longer, TABLE)
    assert summarize(d, V)[1:] == ['• removed the row "FreeBSD" (CUDA "–", Python "3.12")']
    assert [c["before"] for c in d.changes[0].cells] == ["FreeBSD", "–", "3.12"]
    # empty cells are left out; past four, the others are counted
    wide = (
        "# P\n\n| A | B | C | D | E | F | G |\n|---|---|---|---|---|---|---|\n| x | 1 | 2 | 3 | 4 | 5 | 6 |\n"
    )
    d = diff(wide, wide + "| y | 1 |  | 3 | 4 | 5 | 6 |\n")
    assert summarize(d, V)[1:] == ['• added the row "y" (B "1", D "3", E "4", F "5", and 1 more cell)']
    d = diff(wide, wide + "|  | 1 |  |  |  |  |  |\n")  # no first cell to name it by
    assert summarize(d, V)[1:] == ['• added a row (B "1")']
    # headings that cannot tell the columns apart: the row whole
    blank = TABLE.replace("| Platform |", "|  |")
    d = diff(blank, blank + "| FreeBSD | – | 3.12 |\n")
    assert summarize(d, V)[1:] == ['• added the row "FreeBSD | – | 3.12"']
    assert not d.changes[0].cells
    # a list item at the end is of its list's section too
    d = diff("# Thanks\n\nTo all.\n\n- Alice\n", "# Thanks\n\nTo all.\n\n- Alice\n- Bob\n")
    assert summarize(d, V)[1:] == ['• To all: added "Bob"']


def test_a_version_that_differs_in_formatting_alone_says_so() -> None:
    """Emphasis taken off, a link's span moved (`[get rustup](…)` → `get [rustup](…)`): stored, as every version
    is, but no change of the words, links or metadata; the headline says why there is a version at all."""
    from differ.checked import CheckResult

    a = "# Post\n\nYou can [get `rustup`](https://rust-lang.org/install) and **read** the notes.\n"
    b = "# Post\n\nYou can get [`rustup`](https://rust-lang.org/install) and read the notes.\n"
    head = "PyTorch 2.13 Release Blog (canonical), version 2 → 3"
    assert summarize(diff(a, b), V) == [f"{head}: 0 changes (formatting only)."]
    assert summarize(diff(a, a), V) == [f"{head}: 0 changes."]
    new = CheckResult("doc/canonical", "new", version=2, previous=1, changes=0)
    assert new.line() == "doc/canonical: new version 2 (formatting only)"
    new.metadata = 1
    assert new.line() == "doc/canonical: new version 2 (1 metadata field)"


def test_a_summary_says_a_heading_changed_and_quotes_it_whole() -> None:
    a = "# Notes\n\nIntro.\n\n## Known Issues\n\nOne.\n"
    d = diff(a, a.replace("## Known Issues", "## Known Issues and Workarounds"))
    assert summarize(d, V)[1:] == ['• heading "Known Issues" → "Known Issues and Workarounds"']
    d = diff(a, a.replace("## Known Issues", "## Caveats"))  # no word shared: still that heading, renamed
    assert summarize(d, V)[1:] == ['• heading "Known Issues" → "Caveats"']
    d = diff(a, a.replace("## Known Issues", "### Caveats"))  # another level: another heading
    assert summarize(d, V)[1:] == [
        '• removed the heading "Known Issues"',
        '• added the heading "Caveats"',
    ]
    # a heading added with its section: one line, the section's, with its first words
    d = diff(a, a + "\n## Thanks\n\nTo all who helped.\n")
    assert summarize(d, V) == [
        "PyTorch 2.13 Release Blog (canonical), version 2 → 3: 2 changes.",
        '• added at the end: the section "Thanks" (2 blocks): "To all who helped."',
    ]


def test_a_section_added_or_taken_out_whole_is_one_line() -> None:
    """A heading added with every block under it (subsections too) is one line where the heading stands, as is
    one taken out; a heading added over blocks that were there already is the heading alone."""
    a = "# T\n\n## A\n\nalpha.\n\n## C\n\ngamma.\n"
    b = "# T\n\n## A\n\nalpha.\n\n## B\n\nbeta one.\n\n- item b\n\n### B2\n\nbeta two.\n\n## C\n\ngamma.\n"
    assert summarize(diff(a, b), V)[1:] == ['• added the section "B" (5 blocks): "beta one."']
    assert summarize(diff(b, a), V)[1:] == ['• removed the section "B" (5 blocks): "beta one."']
    # cut short, the lines left out are counted as the changes they stand for
    assert summarize(diff(a, b.replace("gamma.", "gamma, now.")), V, max_lines=1)[1:] == [
        '• added the section "B" (5 blocks): "beta one."',
        "…and 1 more change",
    ]
    assert summarize(diff(a, "# Z\n\nzeta.\n\n" + b), V, max_lines=1)[1:] == [
        '• added the section "Z" (2 blocks): "zeta."',
        "…and 5 more changes",
    ]
    over = a.replace("## A\n\nalpha.\n\n", "## A\n\n## A2\n\nalpha.\n\n")
    assert summarize(diff(a, over), V)[1:] == ['• added the heading "A2"']
    # with a paragraph edited elsewhere: the section's line, then the edit, in document order
    edited = b.replace("gamma.", "gamma, now.")
    assert summarize(diff(a, edited), V)[1:] == [
        '• added the section "B" (5 blocks): "beta one."',
        '• C: added ", now"',
    ]


def test_a_long_quote_is_cut_after_a_word() -> None:
    text = "so Bar::A will have a discriminant of 0, Bar::B will have one of 1"
    assert quote(text, 18) == '"so Bar::A will…"'  # not "so Bar::A will ha…"
    assert quote(text, 20) == '"so Bar::A will have…"'  # a word that ends where the cut is stays
    assert quote("x" * 30, 20) == '"' + "x" * 19 + '…"'  # no space to cut at: inside the word
    assert quote("a " + "x" * 30, 20) == '"a ' + "x" * 17 + '…"'  # a space too far back: inside the word too
    assert quote(text, 200) == f'"{text}"'


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab .", max_size=60), st.integers(min_value=2, max_value=40))
def test_a_cut_quote_is_a_start_of_the_text_within_its_limit(text: str, limit: int) -> None:
    shown = quote(text, limit)[1:-1]
    flat = " ".join(text.split())
    assert len(shown) <= limit
    assert shown == flat or (shown.endswith("…") and flat.startswith(shown[:-1]))


def test_a_summary_quotes_the_lines_of_code_that_changed() -> None:
    a = "Install:\n\n```sh\npip3 install torch\npip3 install torchvision --index-url https://x.org/cpu\npip3 list\n```\n"
    d = diff(a, a.replace("/cpu", "/cu130"))
    assert summarize(d, V)[1:] == [
        '• sh code: "pip3 install torchvision --index-url https://x.org/cpu"',
        '  → "pip3 install torchvision --index-url https://x.org/cu130"',
    ]


def test_a_summary_says_how_many_lines_a_rewrite_of_code_replaced() -> None:
    """Past three changed lines a side, each side says how many, as well as how it starts."""
    a = '## Example\n\n```rust\n#[path = concat!(env!("OUT_DIR"))]\nmod generated;\n```\n'
    body = "\n".join(f"    let x{n} = {n};" for n in range(5))
    b = f"## Example\n\n```rust\nfn main() {{\n{body}\n}}\n```\n"
    assert summarize(diff(a, b), V)[1:] == [
        '• Example › rust code: 2 lines "#[path = concat!(env!("OUT_DIR"))] … mod generated;"',
        '  → 7 lines "fn main() { … let x0 = 0; … let x1 = 1; … let x2 = 2; … let x3 = 3; … let x4 = 4; … }"',
    ]


def test_a_code_block_without_a_language_is_named_by_its_first_line() -> None:
    """Not by the first words of its lines run together (`pip install torch==2.13 pip install …`)."""
    a = "# Install\n\n```\npip install torch==2.12\npip list\n```\n"
    d = diff(a, a.replace("2.12", "2.13"))
    assert summarize(d, V)[1:] == [
        '• pip install torch==2.13 …: "pip install torch==2.12"',
        '  → "pip install torch==2.13"',
    ]
    one = "# Install\n\n```\npip install torch\n```\n"
    assert summarize(diff(one, one.replace("torch", "torch --pre")), V)[1:] == [
        '• pip install torch: added "--pre"'  # named as it was: the words added are the change
    ]


def test_word_operations_quote_the_block_as_it_is_spelled() -> None:
    assert word_ops("Cast it (e.g. Bar::C as u8) first.", "Cast it first.") == [
        {"op": "delete", "before": "(e.g. Bar::C as u8)"}
    ]
    assert word_ops("a\nassert_eq!(0, x);\nb", "a\nb") == [{"op": "delete", "before": "assert_eq!(0, x);"}]


def test_a_paragraph_split_is_one_change_without_word_operations() -> None:
    a = "A torch.special module is added. Refer to this documentation for more details.\n\nNext.\n"
    b = "A torch.special module is added.\n\nRefer to this documentation for more details.\n\nNext.\n"
    d = diff(a, b)
    assert [(c.kind, c.ops, c.detail) for c in d.changes] == [
        ("modified", [], "split: part of it is now a paragraph of its own")
    ]
    assert apply(split_blocks(a), d) == [blk.text_key for blk in split_blocks(b)]
    back = diff(b, a)
    assert [(c.kind, c.ops, c.detail) for c in back.changes] == [
        ("modified", [], "joined with the paragraph next to it")
    ]


def test_reordered_links_pair_by_unchanged_text() -> None:
    a = (
        "- [core::range::Gone](https://d.org/gone)\n- [core::range::From](https://d.org/ops/From)\n"
        "- [core::range::Iter](https://d.org/ops/Iter)\n"
    )
    b = "- [core::range::From](https://d.org/range/From)\n- [core::range::Iter](https://d.org/range/Iter)\n"
    d = diff(a, b)
    assert sorted((c.kind, c.before or c.after) for c in d.changes) == [
        ("link", "core::range::From"),
        ("link", "core::range::Iter"),
        ("removed", "core::range::Gone"),
    ]
    link = next(c for c in d.changes if c.before == "core::range::From")
    assert link.detail == 'link "core::range::From": https://d.org/ops/From → https://d.org/range/From'


def test_a_rewritten_paragraph_that_keeps_a_sentence_is_modified() -> None:
    a = (
        "Here the Bar enum is guaranteed to have the same layout as u8. Each variant will use either the "
        "specified discriminant value or default to starting with 0.\n"
    )
    b = (
        "Here the Bar enum is guaranteed to have the same layout as u8. In addition, the D variant gets an "
        "implicit discriminant of 43, one more than the variant before it, and a note on layout follows.\n"
    )
    assert [c.kind for c in diff(a, b).changes] == ["modified"]


# Long documents (past ANCHORED blocks) take the anchored alignment: numbered blocks are unique anchors,
# the plain ones repeat, as a release post's sections do.
LONG_BLOCK = st.one_of(BLOCK, st.integers(0, 400).map(lambda n: f"Paragraph {n} of the post."))
LONG = st.lists(LONG_BLOCK, min_size=60, max_size=160).map(lambda bs: "\n\n".join(bs) + "\n")


@settings(max_examples=60, deadline=None)
@given(LONG, st.lists(st.tuples(st.integers(0, 159), LONG_BLOCK), max_size=8), st.randoms())
def test_long_documents_apply_and_mirror(a: str, edits: list[tuple[int, str]], rng: random.Random) -> None:
    blocks = a.rstrip("\n").split("\n\n")
    for at, block in edits:
        blocks.insert(at % (len(blocks) + 1), block)
    if len(blocks) > 4:
        start = rng.randrange(len(blocks) - 3)
        moved = blocks[start : start + 3]
        del blocks[start : start + 3]
        blocks[rng.randrange(len(blocks)) : 0] = moved
    b = "\n\n".join(blocks) + "\n"
    d = diff(a, b)
    assert apply(split_blocks(a), d) == [blk.text_key for blk in split_blocks(b)]
    assert apply(split_blocks(b), diff(b, a)) == [blk.text_key for blk in split_blocks(a)]
    assert diff(a, a).empty


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 30).map(str), min_size=0, max_size=200),
    st.lists(st.integers(0, 30).map(str), min_size=0, max_size=200),
)
def test_anchored_opcodes_cover_both_sides_in_order(ka: list[str], kb: list[str]) -> None:
    from differ.diff.sequences import _unique_runs, anchored_opcodes

    # each anchor a run finds starts the same keys on both sides, found once on each
    for i, j in _unique_runs(ka, kb):
        assert ka[i : i + 4] == kb[j : j + 4]

    i = j = 0
    for tag, i1, i2, j1, j2 in anchored_opcodes(ka, kb):
        assert (i1, j1) == (i, j)
        if tag == "equal":
            assert ka[i1:i2] == kb[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(ka), len(kb))


def test_nth_copies_pair_each_copy_with_its_namesake_as_far_as_both_sides_go() -> None:
    from collections import Counter

    from differ.diff.sequences import _nth_copies

    ka, kb = ["x", "y", "x", "x", "z"], ["y", "x", "x", "w"]
    assert _nth_copies(ka, kb, Counter(kb)) == [(0, 1), (1, 0), (2, 2)]


def test_a_long_text_of_a_small_vocabulary_is_anchored_at_runs_found_once() -> None:
    """No character of a paragraph of Chinese 30,000 characters long, from a vocabulary of twenty, is found once
    on either side: runs of a few characters found once anchor it, so three edits are three operations, each as
    made, not a guess of difflib's spread over the paragraph."""
    from differ.diff.sequences import _unique_runs

    rng = random.Random(7)
    text = "".join(rng.choice("的一是不了人我在有他这中大来上国个到说们") for _ in range(30_000))
    edited = text[:5_000] + "非常好" + text[5_003:17_000] + text[17_002:25_000] + "新" + text[25_000:]
    d = diff(text + "\n", edited + "\n")
    assert [(op["op"], op.get("before"), op.get("after")) for c in d.changes for op in c.ops] == [
        ("replace", text[5_000:5_003], "非常好"),
        ("delete", text[17_000:17_002], None),
        ("insert", None, "新"),
    ]
    # a run found once in each: its start on either side
    assert _unique_runs(list("xyxyabcdxyxy"), list("xyxyxyabcdxy")) == [
        (1, 3),
        (2, 4),
        (3, 5),
        (4, 6),
        (5, 7),
        (6, 8),
    ]
    assert _unique_runs(list("xyxyxyxyxy"), list("xyxyxyxy")) == []  # none: the n-th copies then


def test_repeated_sections_reordered_are_moves_and_apply() -> None:
    """No block is found once on each side (every section is the same three blocks but its number, which
    stands in a line of its own): the alignment pairs copies in order, and the diff is still exact."""
    rng = random.Random(7)
    sections = [f"## Notes\n\nThe same text.\n\n- one\n- two\n\nPart {n % 9}." for n in range(60)]
    a = "\n\n".join(sections) + "\n"
    shuffled = sections[:]
    rng.shuffle(shuffled)
    b = "\n\n".join(shuffled) + "\n"
    d = diff(a, b)
    assert d.changes and {c.kind for c in d.changes} == {"moved"}
    assert apply(split_blocks(a), d) == [blk.text_key for blk in split_blocks(b)]
    assert apply(split_blocks(b), diff(b, a)) == [blk.text_key for blk in split_blocks(a)]


def test_a_code_example_replaced_in_place_is_that_block_modified() -> None:
    a = "## Example\n\nLike this:\n\n```rust\nmod generated;\n```\n\nEnd.\n"
    b = "## Example\n\nLike this:\n\n```rust\nmacro_rules! make_function { () => {} }\n```\n\nEnd.\n"
    d = diff(a, b)
    assert [(c.kind, c.block, c.section) for c in d.changes] == [("modified", "code", ("Example",))]
    assert apply(split_blocks(a), d) == [blk.text_key for blk in split_blocks(b)]
    other = b.replace("```rust", "```python")
    assert sorted(c.kind for c in diff(a, other).changes) == ["added", "removed"]


def test_markdown_table_strikes_out_and_bolds_the_changed_words() -> None:
    row = next(
        line
        for line in render(replay_diff(), V, "markdown").splitlines()
        if line.startswith("| modified | Non-Feature Updates › Python support |")
    )
    assert row.split(" | ")[2:] == [
        "Python support: CPython 3.13t dropped from the Linux binary matrix. (Python 3.15 binary support is "
        "~~listed~~ above ~~as a Prototype feature~~.) See #182951.",
        "Python support: CPython 3.13t dropped from the Linux binary matrix. (**Preliminary** Python 3.15 "
        "**and 3.15t** binary support is **found** above.) See #182951. |",
    ]


def test_markdown_table_keeps_a_code_blocks_lines_apart() -> None:
    """A table cell is one line of Markdown: a code block's lines are parted by <br> (GitHub renders it), the
    page's own `<br>` escaped; a paragraph's soft breaks are spaces."""
    a = "# Install\n\n```sh\npip install torch==2.13\necho '<br>'\n```\n\nOne\ntwo.\n"
    b = "# Install\n\n```sh\npip install torch==2.13.1\necho '<br>'\nexport X=1\n```\n\nOne\nthree.\n"
    rows = [
        line for line in render(diff(a, b), V, "markdown").splitlines() if line.startswith("| modified |")
    ]
    assert [row.split(" | ")[2:] for row in rows] == [
        [
            "pip install torch==~~2.13~~<br>echo '\\<br\\>'",
            "pip install torch==**2.13.1**<br>echo '\\<br\\>'<br>**export X=1** |",
        ],
        ["One ~~two~~.", "One **three**. |"],
    ]


def test_markdown_table_keeps_a_code_blocks_indentation() -> None:
    """A table cell collapses the spaces that start a line: a code block's indentation is said as `&nbsp;`, so
    that the cell shows the code as it was laid out, on either side and whichever kind of change."""
    from markdown_it import MarkdownIt

    a = "```python\nif ok:\n    run()\n\treturn 1\n```\n\n```sh\n  make\n```\n"
    b = "```python\nif ok:\n    run(fast=True)\n\treturn 1\n```\n"
    rows = [
        line for line in render(diff(a, b), V, "markdown").splitlines() if line.startswith("| modified |")
    ]
    nbsp = "&nbsp;" * 4
    assert [row.split(" | ")[2:] for row in rows] == [
        [
            f"if ok:<br>{nbsp}run()<br>{nbsp}return 1",
            f"if ok:<br>{nbsp}run(**fast=True**)<br>{nbsp}return 1 |",
        ]
    ]
    [removed] = [
        line for line in render(diff(a, b), V, "markdown").splitlines() if line.startswith("| removed |")
    ]
    assert removed.split(" | ")[2] == "&nbsp;&nbsp;make"
    table = "| Change | Where | Before | After |\n|---|---|---|---|\n" + rows[0] + "\n"
    shown = MarkdownIt("commonmark", {"html": True}).enable("table").render(table)
    assert "run(<strong>fast=True</strong>)<br>\xa0\xa0\xa0\xa0return 1</td>" in shown


def _shown_text(markdown: str) -> str:
    """The text a reader sees where `markdown` is rendered (GitHub's flavour: strikethrough and tables on)."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable(["strikethrough", "table"]).parse(markdown)
    inline = [t for t in tokens if t.type == "inline"]
    return "".join(c.content for t in inline for c in t.children or [] if c.type in ("text", "code_inline"))


@settings(max_examples=300)
@example("&amp; &#35; &copy")
@example("a ~~b~~ ~c~")
@example("1. x")
@example("2) x 3. y")
@example("- x")
@example("+ x")
@example("# x")
@example("> x")
@example("`x` ``y``")
@example("<b>x</b> <http://x.org>")
@example("![x](y) [x]: y")
@example("*** --- ___")
@example("a_b_ *c* **d**")
@example("x \\")
@example("| pipe | table |")
@given(
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1).map(lambda t: " ".join(t.split()))
)
def test_escaped_text_renders_back_to_itself(text: str) -> None:
    """Summary lines and table cells are page text: whatever it holds, a reader sees it as it is, no markup."""
    from differ.diff.blocks import md_text

    if not text:
        return
    assert _shown_text(md_text(text)) == text
    assert _shown_text(f"| h |\n|---|\n| {md_text(text, inline=True)} |\n") == "h" + text
    assert _shown_text(f"**{md_text(text, inline=True)}**") == text


TOKENS = st.sampled_from(
    [
        "one",
        "one!",
        "(x)",
        "a.b",
        "1.71",
        "1.81",
        "**",
        "~~",
        "a_b",
        ",",
        "—",
        "é.",
        "[link]",
        "非常",
        "（高速）",
        "。",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(TOKENS, min_size=1, max_size=8), st.lists(TOKENS, min_size=1, max_size=8))
def test_markdown_marks_always_render(a_words: list[str], b_words: list[str]) -> None:
    """However the changed words sit against punctuation, every mark in a Markdown table cell renders as
    strikethrough or bold (none is left as literal tildes or asterisks), and the cell reads as the block."""
    from markdown_it import MarkdownIt

    from differ.diff.render import _md_cell

    md = MarkdownIt("commonmark").enable(["strikethrough", "table"])
    a, b = "Lead " + "".join(a_words) + " tail.", "Lead " + "".join(b_words) + " tail."
    for change in diff(a + "\n", b + "\n").changes:
        if change.kind != "modified" or not change.ops:
            continue
        for side, wrap in (("before", "s"), ("after", "strong")):
            children = md.parseInline(_md_cell(change, side))[0].children or []
            shown = "".join(c.content for c in children if c.type == "text")
            assert shown == " ".join((getattr(change, side) or "").split())
            marked = any(c.type == f"{wrap}_open" for c in children)
            assert marked == any(op.get(side) for op in change.ops)


PROSE = st.sampled_from(
    ["the", "value", "variant", "will", "Bar", "1.71", "(e.g.", "cast)", "0", "is", "a", "of"]
    + [f"w{n}" for n in range(20)]
)


@settings(max_examples=300, deadline=None)
@example(["w1", "w2", "w3", "w4", "the", "w5", "w6", "w7", "w8"], ["w9", "w10", "w11", "w12", "the", "w13"])
@given(st.lists(PROSE, min_size=1, max_size=12), st.lists(PROSE, min_size=1, max_size=12))
def test_text_output_marks_exactly_what_the_ops_say(a_words: list[str], b_words: list[str]) -> None:
    """A word two rewrites happen to share is folded into the ops; the text output shows the same runs, so what
    a reader sees marked is what the JSON says changed."""
    import re

    lead, tail = " ".join(f"s{n}" for n in range(12)), " ".join(f"t{n}" for n in range(12))
    a, b = (f"Lead {lead} {' '.join(words)} {tail}." for words in (a_words, b_words))
    d = diff(a + "\n", b + "\n")
    text = render(d, V, "text")
    assert a_words == b_words or [c.kind for c in d.changes] == ["modified"]
    for change in d.changes:
        if change.kind == "modified" and change.ops:
            line = next(x for x in text.splitlines() if x.startswith("  Lead"))
            assert re.findall(r"\[-(.*?)-\]", line) == [op["before"] for op in change.ops if "before" in op]
            assert re.findall(r"\{\+(.*?)\+\}", line) == [op["after"] for op in change.ops if "after" in op]


def test_words_that_recur_on_every_line_do_not_make_the_alignment_quadratic() -> None:
    """difflib's work grows with the pairs of equal words: in a 10,000-line code block `(` and `=` make
    billions. The common start and end are set apart, and beyond BIG pairs the sequences are first cut at the
    words found once in each (or the n-th copy of a word at its n-th copy); an ordinary post and its copy stay
    well under BIG and align exactly as difflib does."""
    import random

    from differ.diff.sequences import BIG, Alignment, _equal_pairs

    rng = random.Random(7)
    code = [f"x{rng.randint(0, 99)} = f({rng.randint(0, 9)}, ({rng.randint(0, 9)}))" for _ in range(10_000)]
    rewritten = [
        f"y{rng.randint(0, 99)} = g({rng.randint(0, 9)}, [{rng.randint(0, 9)}])" for _ in range(10_000)
    ]
    tokens = [w for line in code for w in words(line)]
    others = [w for line in rewritten for w in words(line)]
    assert _equal_pairs(tokens, others) > BIG
    assert Alignment(tokens, others).by == "anchored"
    edited = list(code)
    edited[5_000] = "changed = 1"
    one = Alignment(tokens, [w for line in edited for w in words(line)])
    before = sum(len(words(line)) for line in code[:5_000])
    after = sum(len(words(line)) for line in code[5_001:])
    assert (one.head, one.tail) == (before, after)  # only the changed line is left to align
    d = diff("```\n" + "\n".join(code) + "\n```\n", "```\n" + "\n".join(edited) + "\n```\n")
    assert [(c.kind, c.ops) for c in d.changes] == [
        ("modified", [{"op": "replace", "before": code[5_000], "after": "changed = 1"}])
    ]
    post = replay_fetch(3).markdown
    assert _equal_pairs(words(post), words(post)) < BIG // 10


def test_a_lock_file_with_every_line_changed_is_each_lines_edit() -> None:
    """Every line of a lock file edited: each edit found is a match difflib searches around again, visiting
    every pair of `"` and `:` once a line. Past WORK such visits the words are cut first at those found once
    on each side, and each line's edit is still its own: the version and the hash, nothing else."""
    from differ.diff.sequences import WORK, Alignment, _Budgeted, _TooLong

    n = 300
    old = "\n".join(f'    "pkg{i}": {{"version": "1.{i}.0", "sha": "a{i:04d}"}},' for i in range(n))
    new = "\n".join(f'    "pkg{i}": {{"version": "1.{i}.1", "sha": "b{i:04d}"}},' for i in range(n))
    with pytest.raises(_TooLong):  # difflib alone would go past the bound
        _Budgeted(words(old), words(new)).get_matching_blocks()
    assert Alignment(words(old), words(new)).by == "anchored"
    expected = []
    for i in range(n):
        expected += [
            {"op": "replace", "before": f"1.{i}.0", "after": f"1.{i}.1"},
            {"op": "replace", "before": f"a{i:04d}", "after": f"b{i:04d}"},
        ]
    assert word_ops(old, new, code=True) == expected
    # a post against its edited version, word by word, is well within the bound: difflib's own alignment
    post = Alignment(words(replay_fetch(1).markdown), words(replay_fetch(3).markdown))
    assert post.by == "difflib" and len(post.a) > 3_000 and WORK >= 1_000_000


def test_diffs_at_once_pause_the_cycle_collector_and_leave_it_as_they_found_it() -> None:
    """Threads diffing at once share one pause: the collector is off while any diff runs, back on after the
    last, and left off if it was off before."""
    import gc
    import threading

    from differ.diff.engine import collector_paused

    inside: list[bool] = []
    started, release = threading.Barrier(4), threading.Event()

    def work() -> None:
        with collector_paused():
            started.wait()
            release.wait()
            inside.append(gc.isenabled())
            diff("# A\n\nOne two.\n", "# A\n\nOne three.\n")

    assert gc.isenabled()
    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    started.wait()
    assert not gc.isenabled()
    release.set()
    for t in threads:
        t.join()
    assert inside == [False, False, False] and gc.isenabled()
    gc.disable()
    try:
        diff("a\n", "b\n")
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("run", ["a_", "snake_case_"])
def test_a_paragraph_of_many_unpaired_markers_is_diffed_in_little_memory(run: str) -> None:
    """A long paragraph of markers that pair with nothing (`a_a_a_…`): markdown-it-py 3 joined the text they
    leave one piece at a time and kept every partial join until the end, so a 40 KB paragraph took 816 MB to
    diff and 200 KB took 19.6 GB (an out-of-memory kill for the whole service). markdown-it-py 4.3 joins them
    at once."""
    import tracemalloc

    text = run * (40_000 // len(run))
    tracemalloc.start()
    try:
        changes = diff(f"{text}\n", f"{text}end\n").changes
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [c.kind for c in changes] == ["modified"]
    assert peak < 100_000_000


def test_a_heading_whose_level_or_link_changed_is_named() -> None:
    a = "# Notes\n\nIntro.\n\n## New `Range*` types\n\nOne.\n\n## [Docs](https://x.org/a)\n\nTwo.\n"
    d = diff(a, a.replace("## New", "### New"))
    assert summarize(d, V)[1:] == ["• New Range* types: heading level 2 → 3"]
    assert "[modified] New Range* types\n  heading level 2 → 3\n" in render(d, V, "text")
    d = diff(a, a.replace("x.org/a", "x.org/b"))
    assert summarize(d, V)[1:] == ['• Docs: link "Docs": https://x.org/a → https://x.org/b']
