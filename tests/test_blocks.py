"""Pieces handled once: splitting into blocks and canonicalizing piece by piece (chunked, cached) give
exactly what one pass over the whole document gives."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from differ.diff.blocks import split_blocks, split_blocks_whole
from differ.normalize.canonical import (
    _plain_words,
    canonicalize,
    canonicalize_whole,
    plain_words,
    split_chunks,
)
from tests.helpers import DATA, pytorch_kr, replay_fetch, wpnews


def reference_chunks(markdown: str) -> list[str] | None:
    """The cut rule written as a plain line scan: what split_chunks must give."""
    if "]:" in markdown or re.search(r"^ {0,3}<[A-Za-z/!?]", markdown, re.MULTILINE):
        return None
    lines = markdown.split("\n")
    chunks: list[str] = []
    start = 0
    fence: str | None = None
    for i, line in enumerate(lines):
        m = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip(" `~"):
                fence = None
            continue
        if re.match(r"^[ \t]*(`{3,}|~{3,})", line):
            if line[0].isspace():
                return None  # a fence that may belong to a list item, or an indented one: parse whole
            fence = m.group(1) if m else None
            continue
        if not line.strip(" \t") and i + 1 < len(lines) and lines[i + 1][:1].strip():
            chunks.append("\n".join(lines[start : i + 1]))
            start = i + 1
    chunks.append("\n".join(lines[start:]))
    return chunks


def same(markdown: str) -> None:
    assert split_chunks(markdown) == reference_chunks(markdown)
    assert canonicalize(markdown) == canonicalize_whole(markdown)
    assert plain_words(markdown) == list(_plain_words(markdown))
    chunked, whole = split_blocks(markdown), split_blocks_whole(markdown)
    assert [(b.kind, b.text, b.section, b.level, b.links, b.lead, b.source) for b in chunked] == [
        (b.kind, b.text, b.section, b.level, b.links, b.lead, b.source) for b in whole
    ]


def test_replay_and_mirrors() -> None:
    for result in (replay_fetch(1), replay_fetch(3), wpnews(), pytorch_kr(None)):
        same(result.markdown)


def test_corpus_revisions() -> None:
    for path in sorted((DATA / "corpus").glob("*/rev-*.md")):
        same(canonicalize(path.read_text()).text)
        same(path.read_text())


@pytest.mark.parametrize(
    "example", json.loads((DATA / "commonmark" / "spec.json").read_text()), ids=lambda e: f"ex{e['example']}"
)
def test_commonmark_examples(example: dict[str, object]) -> None:
    same(str(example["markdown"]))
    same(canonicalize(str(example["markdown"])).text)


PIECES = st.sampled_from(
    [
        "# Title",
        "## Part",
        "Intro paragraph:",
        "- item one",
        "- item two",
        "  - nested",
        "1. first",
        "2. second",
        "> quote",
        "```\ncode\n\nmore code\n```",
        "    indented code",
        "| a | b |\n| - | - |\n| 1 | 2 |",
        "***",
        "Plain text here.",
        "  continued",
        "<div>x</div>",
        "Term\n===",
        "- [link](https://x.org) item",
    ]
)


PIECES = st.one_of(
    PIECES,
    st.sampled_from(
        [
            "~~~\nx\n\ny\n~~~",
            "````\n```\n\nz\n````",
            "- a\n\n  para in item\n\n- b",
            "> q1\n>\n> q2",
            "\tTabbed",
            "1) one\n\n2) two",
            "Para\n    not code",
            "```python\nunclosed",
            "    code\n\n    more",
            "a  \nb",
            "* star item",
            "+ plus item",
            "3. third",
            "1) paren one",
            "Intro\n- tight item",
            "Intro\n1. numbered",
            "a\u200bb",
            "\u00a0starts with a no-break space",
            "form\x0cfeed",
            "\x0b",
            "```\n",
            "~~~~\n~~~\n~~~~",
        ]
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(PIECES, max_size=12),
    st.lists(
        st.sampled_from(["\n", "\n\n", "\n\n\n", "\n\n  ", "\n   ", "\n\n    "]), min_size=12, max_size=12
    ),
)
def test_random_documents(pieces: list[str], gaps: list[str]) -> None:
    same("".join(p + g for p, g in zip(pieces, gaps, strict=False)))


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        ("- a\n\n* b\n", "- a\n\n* b\n"),  # two lists stay two: the second takes the other marker
        ("Intro\n- a\n\n+ b\n", "Intro\n\n- a\n\n* b\n"),
        ("1. a\n\n1. b\n", "1. a\n\n2. b\n"),  # one list, numbered through
        ("Intro\n1. a\n\n1. b\n", "Intro\n\n1. a\n\n2. b\n"),
        ("- a\n\nPara\n\n- b\n", "- a\n\nPara\n\n- b\n"),
    ],
)
def test_neighbouring_lists_are_rendered_together(markdown: str, expected: str) -> None:
    assert canonicalize(markdown).text == expected
    same(markdown)


@pytest.mark.parametrize("depth", [5, 19, 20, 21, 39, 40, 41, 60, 300])
@pytest.mark.parametrize("shape", ["quote", "list", "both"])
def test_nothing_nested_however_deep_is_dropped(depth: int, shape: str) -> None:
    """markdown-it drops what is nested past its maxNesting (ten list levels, twenty quotes): every word of a
    deeply nested quote or list is in the blocks, canonical Markdown keeps it, and reads back the same."""

    def line(i: int) -> str:
        if shape == "quote" or (shape == "both" and i % 2):
            return "> " * (i + 1) + f"word{i}\n" + "> " * (i + 1) + "\n"
        return "  " * i + f"- word{i}\n"

    if shape == "list":
        markdown = "# Post\n\n" + "".join("  " * i + f"- word{i}\n" for i in range(depth)) + "\nafter\n"
    elif shape == "quote":
        markdown = "# Post\n\n" + "> " * depth + "deepest words\n\nafter\n"
    else:
        markdown = "# Post\n\n" + "".join(line(i) for i in range(depth)) + "\nafter\n"
    wanted = set(re.findall(r"word\d+|deepest|after", markdown))
    seen = {w for b in split_blocks(markdown) for w in re.findall(r"word\d+|deepest|after", b.text)}
    assert seen == wanted
    once = canonicalize(markdown).text
    assert set(re.findall(r"word\d+|deepest|after", once)) == wanted
    assert canonicalize(once).text == once
    same(markdown)


def test_a_document_split_again_gives_the_same_blocks_in_a_list_of_its_own() -> None:
    """The last documents split are remembered (a history's diffs meet each version twice): the same blocks,
    and a list the caller may change without changing the next caller's."""
    text = "# Title\n\nOne.\n\n- item\n"
    first = split_blocks(text)
    first.append(first[0])
    again = split_blocks(text)
    assert again == split_blocks_whole(text) and len(again) == 3
    assert split_blocks("Other.\n") == split_blocks_whole("Other.\n")
