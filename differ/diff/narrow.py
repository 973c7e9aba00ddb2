"""What a narrowed diff keeps: the changes under the headings a `--section` (or a destination's `sections`)
matches, with the words a `--word` (`words`) names, of the kinds a `--change` (`changes`) names; the author's
note on the edit always with them. Headings match case aside with `*` for any run of characters; words are
found as whole words, but in Korean, Chinese and Japanese, where no space parts them."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from typing import Any

from differ.diff.changes import Change, Diff
from differ.diff.summary import Versions, authors_note, summarize
from differ.wildcard import WordPattern, fits, word_pattern


def picked(
    d: Diff, sections: Sequence[str] = (), words: Sequence[str] = (), kinds: Sequence[str] = ()
) -> Diff:
    """The changes under a heading one of `sections` matches (case aside, `*` any run of characters), whose
    block, before or after, has one of `words` (`words_in`) and whose kind is one of `kinds`, with the author's
    note on the edit wherever it stands: what a reader who follows some sections of a post, or some subject, or
    only what was taken out, wants to see. The metadata is under no heading: a field is kept only when words are
    asked for and no sections, and its value has one (a title that now says "security release")."""
    found = [
        (
            c,
            headings_matching(c.section, sections) if sections else [],
            words_in((c.before or "", c.after or ""), words) if words else [],
        )
        for c in d.changes
    ]
    hits = [
        (c, h, w)
        for c, h, w in found
        if (h or not sections) and (w or not words) and (not kinds or c.kind in kinds)
    ]
    fields = [(m, w) for m in d.metadata if (w := metadata_words(m, sections, words, kinds))]
    kept_ids = {id(c) for c, _, _ in hits}
    kept = [c for c, _, _ in found if id(c) in kept_ids or (hits and authors_note(c))]
    within = tuple(dict.fromkeys(x for _, h, _ in hits for x in h)) or tuple(sections)
    said = [x for _, _, w in hits for x in w] + [x for _, w in fields for x in w]
    mentioning = tuple(dict.fromkeys(said)) or tuple(words)
    return Diff(
        kept,
        [m for m, _ in fields],
        within=within,
        mentioning=mentioning,
        kinds=tuple(kinds),
        left_out=len(d.changes) - len(kept),
        explaining=len(kept) - len(hits),
    )


def words_in(texts: Sequence[str], words: Sequence[str]) -> list[str]:
    """Which of `words` the texts have, as whole words, case aside: `*` stands for any characters but a space
    (`CVE-*`, `deprecat*`), and the words of a phrase may stand on two lines (`breaking change`)."""
    return [w for w in words if any(_word_pattern(w).search(t) for t in texts)]


def meta_kind(meta: dict[str, Any]) -> str:
    """A metadata field's change as a kind of change: `added`, `removed` or `modified`."""
    return "added" if meta.get("before") is None else "removed" if meta.get("after") is None else "modified"


def meta_mentions(meta: dict[str, Any], words: Sequence[str]) -> list[str]:
    """Which of `words` a metadata field's value has, before or after (a list's or a table's as JSON)."""
    return words_in([_value_text(meta.get("before")), _value_text(meta.get("after"))], words)


def _value_text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def around_word(text: str, words: Sequence[str], context: int = 40) -> str:
    """A passage cut to the first of `words` it has, with a few words either side (`…backend [Prototype]
    (#169)…`); the passage whole when it is short or has none of them."""
    text = " ".join(text.split())
    found = [span for w in words if (span := _word_pattern(w).search(text))]
    if len(text) <= 2 * context or not found:
        return text
    hit_start, hit_end = min(found)
    start = text.rfind(" ", 0, max(0, hit_start - context)) + 1
    stop = text.find(" ", min(len(text), hit_end + context))
    stop = len(text) if stop < 0 else stop
    return ("…" if start else "") + text[start:stop] + ("…" if stop < len(text) else "")


def _word_pattern(word: str) -> WordPattern:
    """A word's pattern: whole words where words are spaced; in Korean, Chinese and Japanese, where a particle
    joins a word ("보안을") or no space parts words, the word wherever it stands."""
    word = word.strip()
    return word_pattern(word, (_bounded(word[0]), _bounded(word[-1])))


def _bounded(char: str) -> bool:
    """Whether a pattern that begins or ends with this character must stand apart from the word beside it: a
    letter, digit or `*` must (`api` is not in `rapid`); punctuation need not (`[` in `[Prototype]`, `C++`
    before a comma); nor a Korean, Chinese or Japanese character."""
    return (char == "*" or char.isalnum() or char == "_") and not _unspaced(char)


def _unspaced(char: str) -> bool:
    """Whether a character is of a script whose words are not set apart by spaces alone (Hangul, Han, kana)."""
    return unicodedata.name(char, "").startswith(("HANGUL", "CJK", "HIRAGANA", "KATAKANA"))


def headings_matching(section: Sequence[str], patterns: Sequence[str]) -> list[str]:
    """The headings of a section path that one of `patterns` matches, case aside: `*` any run of characters,
    everything else itself (`[Prototype]*`, `What?`), where shell patterns would read `[…]` and `?` as
    wildcards."""
    pieces = [p.casefold().split("*") for p in patterns]
    return [h for h in section if any(fits(p, str(h).casefold()) for p in pieces)]


def under(change: dict[str, Any], patterns: Sequence[str]) -> list[str]:
    """The headings above a change (its JSON form) that one of `patterns` matches: a destination that follows
    some sections only hears of the changes with any."""
    return headings_matching([str(h) for h in change.get("section") or ()], patterns)


def mentions(change: dict[str, Any], words: Sequence[str]) -> list[str]:
    """Which of `words` a change (its JSON form) has in its block, before or after: a destination that follows
    some words only hears of the changes with any."""
    return words_in([str(change.get(side) or "") for side in ("before", "after")], words)


def asked_for(
    change: dict[str, Any], sections: Sequence[str], words: Sequence[str], kinds: Sequence[str] = ()
) -> bool:
    """Whether a change (its JSON form) is under a heading one of `sections` matches, has one of `words` and is
    of one of `kinds` (any left empty asks for nothing of it): what a destination that follows them hears of."""
    return (
        (not sections or bool(under(change, sections)))
        and (not words or bool(mentions(change, words)))
        and (not kinds or change.get("kind") in kinds)
    )


def metadata_asked_for(
    meta: dict[str, Any], sections: Sequence[str], words: Sequence[str], kinds: Sequence[str] = ()
) -> bool:
    """Whether a metadata field's change (its JSON form) is what a destination that follows words hears of: one
    whose value has one of them, of one of `kinds`, for a destination that follows no sections."""
    return bool(metadata_words(meta, sections, words, kinds))


def metadata_words(
    meta: dict[str, Any], sections: Sequence[str], words: Sequence[str], kinds: Sequence[str] = ()
) -> list[str]:
    """The `words` a metadata field's value has, when the field is asked for (`metadata_asked_for`); else none."""
    if sections or not words or (kinds and meta_kind(meta) not in kinds):
        return []
    return meta_mentions(meta, words)


def narrowed(
    diff: dict[str, Any], sections: Sequence[str], words: Sequence[str] = (), kinds: Sequence[str] = ()
) -> dict[str, Any]:
    """A diff's JSON for a destination that follows some sections, words or kinds of change: the changes under
    those headings, with those words and of those kinds, summarized anew, its headline naming them and counting
    the changes left out (`left_out`)."""
    changes = [c for c in diff.get("changes") or [] if isinstance(c, dict)]
    metadata = [m for m in diff.get("metadata") or [] if isinstance(m, dict)]
    if all(asked_for(c, sections, words, kinds) for c in changes) and all(
        metadata_asked_for(m, sections, words, kinds) for m in metadata
    ):
        return diff
    sides: list[dict[str, Any]] = [
        side if isinstance(side := diff.get(name), dict) else {} for name in ("from", "to")
    ]
    versions = Versions(
        str(diff.get("title") or ""),
        str(diff.get("source") or ""),
        sides[0].get("version"),
        sides[1].get("version"),
        a_name=str(sides[0].get("name") or ""),
        b_name=str(sides[1].get("name") or ""),
    )
    d = picked(Diff([Change.from_json(c) for c in changes], metadata), sections, words, kinds)
    kept = [c.as_json() for c in d.changes]
    return {
        **diff,
        "summary": summarize(d, versions),
        "changes": kept,
        "metadata": d.metadata,
        **d.narrowing(),
    }
