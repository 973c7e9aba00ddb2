"""Patterns with `*` wildcards (robots.txt rules, heading and word patterns) matched piece by piece, in time
linear in the text: a regular expression backtracks, and a page could make a pattern of a few stars take
minutes (`a*a*a*b` against 2,000 letters: 8 s)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence


def fits(pieces: Sequence[str], text: str) -> bool:
    """Whether the whole of `text` is matched by a pattern split at its stars (`a*b*c` is `a`, `b`, `c`): the
    first piece begins it, the last ends it, and each piece between is taken at its first place after the one
    before, which finds a match whenever there is one."""
    first, last = pieces[0], pieces[-1]
    if len(pieces) == 1:
        return text == first
    stop = len(text) - len(last)
    if stop < len(first) or not text.startswith(first) or not text.endswith(last):
        return False
    at = len(first)
    for piece in pieces[1:-1]:
        found = text.find(piece, at, stop)
        if found < 0:
            return False
        at = found + len(piece)
    return True


class WordPattern:
    """A word pattern: its words, spaced in the text by any white space; in each, `*` any run of characters
    but a space; case aside; set apart from the letters beside it at the ends `bounded` asks for. Found where
    the regular expression `(?<!\\w)cve-\\S*(?!\\w)` would find it, without its backtracking."""

    def __init__(self, word: str, bounded: tuple[bool, bool]) -> None:
        words = [part.split("*") for part in word.split()]
        self.parts = [[re.compile(re.escape(piece), re.IGNORECASE) for piece in part] for part in words]
        self.lengths = [[len(piece) for piece in part] for part in words]
        self.bounded = bounded
        # only the runs of text that hold the pattern's longest piece are looked at closely (any run, for a
        # pattern of stars alone)
        self.key, longest = max(
            ((k, piece) for k, part in enumerate(words) for piece in part), key=lambda pair: len(pair[1])
        )
        self.needed = re.compile(re.escape(longest) if longest else r"\S+", re.IGNORECASE)

    def search(self, text: str) -> tuple[int, int] | None:
        """The first place the pattern stands in `text`, as (start, end), or None."""
        runs = _Runs(text)
        last, tried = len(self.parts) - 1, 0
        for hit in self.needed.finditer(text):
            if hit.start() < tried:
                continue  # in a run tried already
            held = runs.around(hit.start())
            tried = held[1]
            spans = runs.window(held, self.key, last - self.key)
            found = spans and self._window(text, spans)
            if found:
                return found
        return None

    def _window(self, text: str, spans: list[tuple[int, int]]) -> tuple[int, int] | None:
        """Where the pattern stands on these runs of non-space characters, one word of it on each."""
        last = len(spans) - 1
        if last == 0:
            return self._part(0, text, spans[0], (False, False))
        head = self._part(0, text, spans[0], (False, True))
        if not head or not all(self._part(j, text, spans[j], (True, True)) for j in range(1, last)):
            return None
        tail = self._part(last, text, spans[last], (True, False))
        return (head[0], tail[1]) if tail else None

    def _part(
        self, index: int, text: str, span: tuple[int, int], fixed: tuple[bool, bool]
    ) -> tuple[int, int] | None:
        """Where one word of the pattern stands within one run of non-space characters: at its start or end
        where `fixed` says so, else at the first start and the last end the boundaries allow."""
        pieces, lengths = self.parts[index], self.lengths[index]
        lo, hi = span
        check_start = self.bounded[0] and index == 0
        check_end = self.bounded[1] and index == len(self.parts) - 1
        if len(pieces) == 1:
            for start in _places(pieces[0], text, lo, hi, fixed[0]):
                end = start + lengths[0]
                if (not fixed[1] or end == hi) and _apart(text, start, end, check_start, check_end):
                    return start, end
            return None
        starts = (
            s for s in _places(pieces[0], text, lo, hi, fixed[0]) if _apart(text, s, s, check_start, False)
        )
        begin = next(starts, None)
        finish = None
        if fixed[1] or not lengths[-1]:
            finish = hi if hi - lengths[-1] >= lo and pieces[-1].match(text, hi - lengths[-1], hi) else None
        else:
            for place in _places(pieces[-1], text, lo, hi, False):
                if _apart(text, place, place + lengths[-1], False, check_end):
                    finish = place + lengths[-1]
        if begin is None or finish is None:
            return None
        at, stop = begin + lengths[0], finish - lengths[-1]
        if at > stop:
            return None
        for piece in pieces[1:-1]:
            found = piece.search(text, at, stop)
            if not found:
                return None
            at = found.end()
        return begin, finish


class _Runs:
    """The runs of non-space characters of a text, found around a place rather than all from the start (a
    pattern's piece is looked for first, and a long page has few places that hold it)."""

    def __init__(self, text: str) -> None:
        self.text = text

    @functools.cached_property
    def backwards(self) -> str:
        """The text reversed, to search back from a place; made only for a text that holds the piece."""
        return self.text[::-1]

    def around(self, place: int) -> tuple[int, int]:
        """The run that holds the character at `place` (not a space)."""
        n = len(self.text)
        space = _SPACE.search(self.backwards, n - place)
        after = _SPACE.search(self.text, place)
        return (n - space.start() if space else 0), (after.start() if after else n)

    def window(self, held: tuple[int, int], before: int, after: int) -> list[tuple[int, int]] | None:
        """`held` with the `before` runs before it and the `after` runs after it, or None where the text has
        fewer."""
        n = len(self.text)
        spans = [held]
        for _ in range(before):
            end = _NOT_SPACE.search(self.backwards, n - spans[0][0])
            if not end:
                return None
            spans.insert(0, self.around(n - 1 - end.start()))
        for _ in range(after):
            start = _NOT_SPACE.search(self.text, spans[-1][1])
            if not start:
                return None
            spans.append(self.around(start.start()))
        return spans


_SPACE = re.compile(r"\s")
_NOT_SPACE = re.compile(r"\S")


def _places(piece: re.Pattern[str], text: str, lo: int, hi: int, fixed: bool) -> Iterator[int]:
    """Every place a piece stands wholly within text[lo:hi], in order, overlapping ones too (`aa` twice in
    `aaa`); only `lo` when `fixed`."""
    if fixed:
        if piece.match(text, lo, hi):
            yield lo
        return
    at = lo
    while found := piece.search(text, at, hi):
        yield found.start()
        at = found.start() + 1


def _apart(text: str, start: int, end: int, check_start: bool, check_end: bool) -> bool:
    """Whether no letter, digit or `_` touches the span where its boundaries are asked for (as the regular
    expression's `\\w` reads them)."""
    return not (check_start and start > 0 and _word(text[start - 1])) and not (
        check_end and end < len(text) and _word(text[end])
    )


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


@functools.lru_cache(maxsize=256)
def word_pattern(word: str, bounded: tuple[bool, bool]) -> WordPattern:
    """A word pattern, read once for every text it is looked for in."""
    return WordPattern(word, bounded)
