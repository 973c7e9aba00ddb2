"""Tokens that must survive translation unchanged: numbers and versions, PR and issue numbers, code
identifiers and URLs. Month names count as their numbers, since translations write dates with digits."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from differ.audit.align import fold

_URL = re.compile(r"https?://[!#-'*-;=?-Z_a-z~]+")  # ASCII only: a Korean particle may follow directly
_ISSUE = re.compile(r"#\d+")
# ASCII classes only: in Korean text a particle follows a term directly ("nn.Linear가", "3,328회").
_IDENT = re.compile(
    r"(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?"
    r"|(?<![A-Za-z0-9_])[a-z]+_[a-z_0-9]+(?![A-Za-z0-9_])|(?<![A-Za-z0-9_])[a-z]+[A-Z][A-Za-z0-9]*"
)
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.#])(\d+(?:[.,]\d+)*)([A-Za-z]{0,3})(?![A-Za-z0-9_])")
_ABBREVIATION = re.compile(r"^[A-Za-z]{1,2}(\.[A-Za-z]{1,2})+$")  # e.g, i.e, a.m
# Month names of the Latin-script languages the audit tells apart (Vietnamese writes months with digits), each
# its number.
_MONTH_NAMES = (
    "january february march april may june july august september october november december",  # en
    "januar februar märz april mai juni juli august september oktober november dezember",  # de
    "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",  # fr
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",  # es
    "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro",  # pt
    "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",  # it
    "januari februari maart april mei juni juli augustus september oktober november december",  # nl
    "januari februari mars april maj juni juli augusti september oktober november december",  # sv
    "styczeń luty marzec kwiecień maj czerwiec lipiec sierpień wrzesień październik listopad grudzień",  # pl
    "stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia",  # pl
    "ocak şubat mart nisan mayıs haziran temmuz ağustos eylül ekim kasım aralık",  # tr
    "januari februari maret april mei juni juli agustus september oktober november desember",  # id
)
_MONTHS = {name: str(i) for names in _MONTH_NAMES for i, name in enumerate(names.split(), start=1)}
# A month name counts only next to a day or a year ("July 22", "22 July", "22. Juli", "22 de julio de 2026",
# "October 2026"): "may" is usually a verb.
_MONTH = re.compile(  # a day and a word, or a word before a day or a year: a month if its name is one
    r"(?P<day>(?<![\d.])\d{1,2}\.?\s+(?:de\s+)?)(?P<named>[^\W\d_]{3,12})\b"
    r"|\b(?P<dated>[^\W\d_]{3,12})(?=\s+(?:de\s+)?(?:\d{1,2}|\d{4})\b)"
)


def _month(m: re.Match[str]) -> str:
    number = _MONTHS.get((m["named"] or m["dated"]).lower())
    return m[0] if number is None else f"{m['day'] or ''} {number} "


# Scaled numbers written differently in each language: "100K" and "10만" are both 100000.
_SCALE = {"K": 1_000, "M": 1_000_000, "B": 1_000_000_000, "만": 10_000, "억": 100_000_000}
_SCALED = re.compile(r"(?<![A-Za-z0-9_.])(\d+(?:\.\d+)?)\s?([KMB](?![A-Za-z])|만|억)")


def _expand(m: re.Match[str]) -> str:
    value = float(m.group(1)) * _SCALE[m.group(2)]
    return f" {value:.0f} "


# Digits grouped by thousands with a no-break or thin space, as French writes them ("4 000").
_SPACED = re.compile("(?<![\\d.,])\\d{1,3}(?:[\u00a0\u202f\u2009]\\d{3})+(?![\\d])")


def _number(digits: str) -> str:
    """A number as every language writes it: thousands grouped by a comma or a dot are one number ("4,000",
    "4.000": 4000), and a decimal comma is a point ("1,5" and "0,125": 1.5 and 0.125). A version ("3.7.1",
    "2.13") is as it is."""
    if re.fullmatch(r"[1-9]\d{0,2}([.,])\d{3}(\1\d{3})*", digits):
        return re.sub(r"\D", "", digits)
    if re.fullmatch(r"\d+,\d{1,2}|0,\d+", digits):
        return digits.replace(",", ".")
    return digits


# Chinese and Japanese set numbers and Latin letters full width (３.１４, ＡＰＩ): the same characters to a reader.
_FULL_WIDTH = {0xFF01 + k: 0x21 + k for k in range(0x5E)} | {0x3000: 0x20}
_ANY_FULL_WIDTH = re.compile("[\uff01-\uff5e\u3000]")


def half_width(text: str) -> str:
    """Text with its full-width digits, Latin letters and marks as their ASCII selves (`３.１４` is `3.14`)."""
    return text.translate(_FULL_WIDTH) if _ANY_FULL_WIDTH.search(text) else text


def invariant_tokens(text: str) -> Counter[str]:
    """The tokens of a block that a faithful translation keeps as they are (full width or not)."""
    tokens: Counter[str] = Counter()
    rest = half_width(text)
    for url in _URL.findall(rest):
        tokens["url:" + url.rstrip(".,;")] += 1
    rest = _URL.sub(" ", rest)
    for issue in _ISSUE.findall(rest):
        tokens[issue] += 1
    rest = _ISSUE.sub(" ", rest)
    for ident in _IDENT.findall(rest):
        if not _ABBREVIATION.match(ident):
            tokens["id:" + ident.removesuffix("()")] += 1
    rest = _IDENT.sub(" ", rest)
    rest = _MONTH.sub(_month, rest)
    rest = _SCALED.sub(_expand, rest)
    rest = _SPACED.sub(lambda m: re.sub(r"\D", "", m[0]), rest)
    for digits, suffix in _NUMBER.findall(rest):
        value = _number(digits)
        # A one-letter suffix on a version is part of it (3.15t, 0.12b); units are not ("35ms", "12x").
        version = len(suffix) == 1 and suffix.islower() and "." in value and suffix != "x"
        tokens[value + suffix if version else value] += 1
    return tokens


def overlap(a: str, b: str, *, names: bool = False) -> float:
    """How likely two blocks are a translation pair: shared invariant tokens and Latin words, discounted
    when their lengths are far apart (a heading is not the translation of a paragraph). Between two Latin-script
    languages (`names`), only the Latin words a translation keeps count: names and identifiers (a capital, a
    digit, `_` or `.` in them), their short words aside."""
    ta, tb = invariant_tokens(a), invariant_tokens(b)
    la, lb = latin_words(a, names), latin_words(b, names)
    shared = sum((ta & tb).values()) + len(la & lb)
    size = min(sum(ta.values()) + len(la), sum(tb.values()) + len(lb))
    if not size:
        return 0.0
    lengths = min(len(a), len(b)) / max(len(a), len(b))
    return shared / size * (0.5 + 0.5 * lengths)


_NAME = re.compile(r"[A-Z0-9_.]")


def latin_words(text: str, names: bool) -> set[str]:
    """A text's Latin-script words, case-folded; with `names`, only those a translation keeps (a capital, a
    digit, `_` or `.` in them), short words aside."""
    found = re.findall(r"[A-Za-z][A-Za-z0-9_.-]+[A-Za-z0-9_]", text)  # a sentence's full stop is not a name's
    if names:
        short = _short_words()
        found = [w for w in found if _NAME.search(w) and w.lower() not in short]
    return {fold(w) for w in found}


@lru_cache(maxsize=1)
def _short_words() -> frozenset[str]:
    """The short words of every Latin-script language the audit tells apart ("The", "Les" open sentences)."""
    from differ.normalize.language import FUNCTION_WORDS

    return frozenset(w for words in FUNCTION_WORDS.values() for w in words.split())
