"""What a copy behind its canonical has to carry over, as one form for alerts, `differ blame` and the site: the
passages edited after a version, each placed in the copy, cut at `CARRY_OVER_CHARS` with those left out counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from differ.audit.places import Place
from differ.blame import Blamed
from differ.carry import carried_over, carry_over, more_passages, passage_markdown, place_said
from differ.diff.blocks import split_blocks
from differ.store import Version


def version(n: int) -> Version:
    return Version("doc/canonical", n, {"fetched_at": f"2026-07-0{n}T10:00:00Z"}, Path("."))


BLOCKS = split_blocks("## Install\n\nRun ``pip install `x` ``.\n\nRead the notes.\n\nAdded later.\n")
BLAMED = [
    Blamed(BLOCKS[0], version(1), version(1)),
    Blamed(BLOCKS[1], version(1), version(2)),
    Blamed(BLOCKS[2], version(1), version(1)),
    Blamed(BLOCKS[3], version(2), version(3)),
]


def test_the_passages_edited_after_a_version_each_with_its_place_and_those_left_out_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import differ.carry

    where = [
        Place(BLOCKS[0], True),
        Place(BLOCKS[1], True, within=True),
        Place(None, False),
        Place(None, False),
    ]
    carry = carry_over(BLAMED, 1, where)
    assert [(p["label"], p["edited"]["version"], p["in_copy"]["within"]) for p in carry["passages"]] == [
        ("Run pip install `x` .", 2, True),
        ("Added later.", 3, False),
    ]
    assert (carry["after"], carry["left_out"]) == (1, 0)
    assert carried_over(carry) == "the canonical's 2 passages edited after version 1, as they now read"
    assert (
        carried_over(carry_over(BLAMED, 2))
        == "the canonical's 1 passage edited after version 2, as it now reads"
    )
    assert carry_over(BLAMED, 2)["passages"][0]["markdown"] == "Added later."
    assert "in_copy" not in carry_over(BLAMED, 2)["passages"][0]  # no places asked for
    monkeypatch.setattr(differ.carry, "CARRY_OVER_CHARS", 30)  # room for the first alone
    assert [len(carry_over(BLAMED, 1)["passages"]), carry_over(BLAMED, 1)["left_out"]] == [1, 1]


def test_a_place_is_said_as_where_to_rewrite_or_where_a_new_passage_goes() -> None:
    at = Place(BLOCKS[2], True).as_json()
    assert place_said(at, "ko") == "in ko: “Read the notes.” (under Install)"
    assert place_said(Place(BLOCKS[1], True, within=True).as_json(), "ko").startswith(
        "in ko, within “Run pip"
    )
    assert (
        place_said(Place(BLOCKS[2], False).as_json(), "ko")
        == "new to ko: after “Read the notes.” (under Install)"
    )
    assert place_said(Place(None, False).as_json(), "ko") == "new to ko: at its top"
    assert more_passages({"document": "doc", "mirror": "ko"}, 3, lambda c: f"`{c}`") == (
        "…and 3 more passages (`differ blame doc --after doc/ko --format markdown` gives them all)"
    )


def test_a_passage_in_markdown_is_fenced_longer_than_its_backticks() -> None:
    carry = carry_over(BLAMED, 1, [Place(None, False)] * 4)
    lines = passage_markdown(carry["passages"][0], str, "ko")
    assert lines == [
        "- Install › Run pip install `x` . (edited in version 2, 2026-07-02T10:00:00Z, there since version 1)",
        "",
        "  new to ko: at its top",
        "",
        "  ```markdown",
        "  Run ``pip install `x` ``.",
        "  ```",
    ]
