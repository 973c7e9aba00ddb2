"""Wildcard patterns matched piece by piece: the same answers as the regular expressions they replace, without
their backtracking."""

from __future__ import annotations

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from differ.diff.narrow import around_word, headings_matching, words_in
from differ.wildcard import WordPattern, fits


@settings(max_examples=500, deadline=None)
@given(st.text("ab*", max_size=8), st.text("ab", max_size=10))
def test_fits_as_the_regular_expression_fullmatches(pattern: str, text: str) -> None:
    regex = ".*".join(re.escape(piece) for piece in pattern.split("*"))
    assert fits(pattern.split("*"), text) == (re.fullmatch(regex, text, re.DOTALL) is not None)


def _reference(word: str, bounded: tuple[bool, bool]) -> re.Pattern[str]:
    """The regular expression a word pattern stands for; a word of stars alone is a word of any characters."""
    parts = [
        r"\S+" if not part.strip("*") else r"\S*".join(re.escape(piece) for piece in part.split("*"))
        for part in word.split()
    ]
    start = r"(?<!\w)" if bounded[0] else ""
    end = r"(?!\w)" if bounded[1] else ""
    return re.compile(start + r"\s+".join(parts) + end, re.IGNORECASE)


@settings(max_examples=1500, deadline=None)
@given(
    st.text("aB-* ", min_size=1, max_size=9).filter(str.strip),
    st.text("abA_-. \n가", max_size=14),
    st.tuples(st.booleans(), st.booleans()),
)
def test_a_word_pattern_is_found_where_its_regular_expression_is(
    word: str, text: str, bounded: tuple[bool, bool]
) -> None:
    """Same first place, start and end, whichever ends must stand apart from the letters beside them."""
    word = word.strip()
    found = _reference(word, bounded).search(text)
    assert WordPattern(word, bounded).search(text) == (found.span() if found else None)


def test_patterns_of_many_stars_are_found_at_once_in_long_text() -> None:
    """`a*a*a*b` against 2,000 letters took 8 s as a regular expression (each star tried at every length),
    `*cve*` grew with the square of a long run of punctuation; a page could stall every check that follows
    words or sections."""
    started = time.monotonic()
    assert words_in(["a" * 20000], ["a*a*a*a*a*b", "a*a*a*a*a"]) == ["a*a*a*a*a"]
    assert words_in(["/" * 20000 + " x"], ["*cve*", "-*-*-"]) == []
    assert words_in(["word " * 20000 + "cve-1"], ["*cve*"]) == ["*cve*"]
    assert headings_matching(["a" * 20000, "a" * 20000 + "b"], ["a*a*a*a*a*a*b"]) == ["a" * 20000 + "b"]
    assert around_word("x " * 500 + "see CVE-2026-1 here " + "y " * 500, ["cve-*"]).startswith("…")
    assert time.monotonic() - started < 2
