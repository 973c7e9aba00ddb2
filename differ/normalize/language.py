"""Keep only the blocks of a page written in the wanted languages, told apart by script.

Rules (documented in the README):
- Each word is assigned the script of its letters (a word with any Hangul is Hangul; kana makes it Japanese).
- A block is in a non-Latin script when at least 20% of its words are in that script (Korean prose carries many
  English terms; English prose almost never carries Hangul), otherwise in the script with most words.
- A block with no letters at all (a number, a command made of symbols, an image) follows the block before it.
- Lists are filtered item by item.
- A heading, a paragraph that is only bold text, or a one-line paragraph of at most 24 words, of the form
  "X / Y" where X and Y are in different scripts and each has balanced brackets
  ("성능 개선 / Performance Improvements") is split at the slash and each side goes to its own language.
Latin-script languages (en, de, fr, …) cannot be told apart by script: asking for any of them keeps Latin text.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

from markdown_it.token import Token

from differ.normalize.markdownit import parser

SCRIPT_OF_LANGUAGE = {
    "en": "Latin",
    "de": "Latin",
    "es": "Latin",
    "fr": "Latin",
    "it": "Latin",
    "nl": "Latin",
    "pt": "Latin",
    "ko": "Hangul",
    "ja": "Kana",
    "zh": "Han",
    "ru": "Cyrillic",
    "uk": "Cyrillic",
    "el": "Greek",
    "ar": "Arabic",
    "he": "Hebrew",
}
_SHARE = 0.2
_SPLIT = re.compile(r"\s+/\s+")
_SHORT_WORDS = 24


def char_script(ch: str) -> str | None:
    """The script of one letter, or None for digits, punctuation and symbols."""
    code = ord(ch)
    if 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF or 0x3130 <= code <= 0x318F:
        return "Hangul"
    if 0x3040 <= code <= 0x30FF or 0x31F0 <= code <= 0x31FF:
        return "Kana"
    if 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0xF900 <= code <= 0xFAFF:
        return "Han"
    if not ch.isalpha():
        return None
    name = unicodedata.name(ch, "")
    for script in ("LATIN", "CYRILLIC", "GREEK", "ARABIC", "HEBREW"):
        if name.startswith(script):
            return script.capitalize()
    return "Other"


def word_script(word: str) -> str | None:
    scripts = {s for ch in word if (s := char_script(ch))}
    for strong in ("Hangul", "Kana", "Han", "Cyrillic", "Greek", "Arabic", "Hebrew"):
        if strong in scripts:
            return "Kana" if strong == "Han" and "Kana" in scripts else strong
    return "Latin" if "Latin" in scripts else ("Other" if scripts else None)


def block_script(text: str) -> str | None:
    """The script a block is written in, or None when it has no letters."""
    counts = Counter(s for w in text.split() if (s := word_script(w)))
    if not counts:
        return None
    total = sum(counts.values())
    foreign = [(n, s) for s, n in counts.items() if s not in ("Latin", "Other") and n / total >= _SHARE]
    if foreign:
        return max(foreign)[1]
    return counts.most_common(1)[0][0]


def language_of(script: str) -> str:
    """The code `languages` takes for a script's text (Latin: `en`, which keeps any Latin-script language)."""
    return next(lang for lang, s in SCRIPT_OF_LANGUAGE.items() if s == script)


def wanted_scripts(languages: Sequence[str]) -> set[str]:
    """The scripts whose blocks `languages` keep."""
    scripts = {SCRIPT_OF_LANGUAGE[lang] for lang in languages}
    if "Kana" in scripts:
        scripts.add("Han")  # Japanese text uses kanji
    return scripts


def _balanced(text: str) -> bool:
    return all(text.count(o) == text.count(c) for o, c in ("()", "[]", "{}"))


def _split_bilingual(block: str, wanted: set[str]) -> str | None:
    """Split "X / Y" headings, bold-only lines and short one-line paragraphs by script; None when the rule
    does not apply."""
    prefix = ""
    body = block
    m = re.match(r"^(#{1,6} )(.*)$", block, re.DOTALL)
    if m:
        prefix, body = m.group(1), m.group(2)
    bold = body.startswith("**") and body.endswith("**") and body.count("**") == 2
    short = "\n" not in body and len(body.split()) <= _SHORT_WORDS
    if not (prefix or bold or short):
        return None
    inner = body[2:-2] if bold else body
    parts = _SPLIT.split(inner)
    if len(parts) != 2 or not all(_balanced(p) for p in parts):
        return None
    scripts = [block_script(p) for p in parts]
    if len({s for s in scripts if s}) < 2:
        return None
    kept = [p for p, s in zip(parts, scripts, strict=True) if s in wanted]
    if not kept:
        return ""
    text = " / ".join(kept)
    return prefix + (f"**{text}**" if bold else text)


def filter_languages(markdown: str, languages: Sequence[str]) -> str:
    """Canonical Markdown with only the blocks (and list items) in the given languages."""
    wanted = wanted_scripts(languages)
    lines = markdown.split("\n")
    tokens = parser().parse(markdown)
    kept: list[str] = []
    previous_kept = True
    for at, token in enumerate(tokens):
        if token.level != 0 or token.nesting == -1 or token.map is None:
            continue
        start, end = token.map
        block = "\n".join(lines[start:end]).strip("\n")
        if token.type in ("bullet_list_open", "ordered_list_open"):
            items = _list_items(tokens, at, lines)
            chosen = []
            for item in items:
                script = block_script(item)
                if (script in wanted) if script else previous_kept:
                    chosen.append(item)
            if chosen:
                kept.append("\n".join(chosen))
            previous_kept = bool(chosen)
            continue
        split = _split_bilingual(block, wanted)
        if split is not None:
            if split:
                kept.append(split)
            previous_kept = bool(split)
            continue
        script = block_script(block)
        keep = (script in wanted) if script else previous_kept
        if keep:
            kept.append(block)
        previous_kept = keep
    return "\n\n".join(kept) + "\n" if kept else ""


def _list_items(tokens: list[Token], start: int, lines: list[str]) -> list[str]:
    """Source lines of each top-level item of the list that opens at `tokens[start]` (by its place: a token
    found by comparison, every field of it, made a page of 2,000 lists take 15 s)."""
    items = []
    for at in range(start + 1, len(tokens)):
        token = tokens[at]
        if token.type in ("bullet_list_close", "ordered_list_close") and token.level == 0:
            break
        if token.type == "list_item_open" and token.level == 1 and token.map:
            a, b = token.map
            items.append("\n".join(lines[a:b]).rstrip("\n"))
    return items
