"""Keep only the blocks of a page written in the wanted languages, told apart by script.

Rules (documented in docs/how-it-works.md):
- Each word is assigned the script of its letters (a word with any Hangul is Hangul; kana makes it Japanese).
- A block is in a non-Latin script when at least 20% of its words are in that script (Korean prose carries many
  English terms; English prose almost never carries Hangul), otherwise in the script with most words.
- A block with no letters at all (a number, a command made of symbols, an image) follows the block before it.
- Lists are filtered item by item.
- Asked for languages of other scripts alone (["ko"]), a page that has them keeps what was given once for both
  halves: a heading in Latin script whose section holds their blocks (a name, "FlexAttention"), and the code
  (Latin, or no letters), the list items and the tables of names alone (no short word of any language:
  `torch.compile`, "Linux x86_64") in the sections it keeps.
- A heading, a paragraph that is only bold text, or a one-line paragraph of at most 24 words, of the form
  "X / Y" where X and Y are in different scripts and each has balanced brackets
  ("성능 개선 / Performance Improvements") is split at the slash and each side goes to its own language.
- Latin-script languages (en, de, fr, …) cannot be told apart by script: on a page in one of them and another
  script, asking for any of them keeps the Latin text. On a page in two Latin-script languages (a tenth of the
  blocks whose short words tell, and at least 3, in the second), a block is in the language whose short words
  it has (two at least, and twice any other's); one whose words do not tell follows the block before it, and a
  heading the next block told, whose section it opens. An "X / Y" heading is split, each side in the language
  whose blocks alone have its words (or its short words tell), a side not told in the other language.
A whole document's Latin-script language is told by its commonest short words (`latin_language`), which the
audit uses to find a copy translated within one script (a German copy of an English post).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from markdown_it.token import Token

from differ.languages import SCRIPT_OF_LANGUAGE
from differ.normalize.markdownit import parser

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


# Short words common in running text of one language and rare in the others listed, for telling a Latin-script
# document's language (words two languages share often, such as "de", "in", "is", "la" or "to", are left out,
# and so is "com", which addresses have).
FUNCTION_WORDS = {
    "en": "the and of with that this for from which have has be it not can by you we our these are been their "
    "they its into than when or more",
    "de": "der die das und ist mit für von den dem nicht ein eine einen auf sich werden wird zu auch oder wir "
    "sie bei nach durch über können kann sind wurde diese dieser im",
    "fr": "le les et des du une est pour dans sur avec qui pas plus ce cette sont nous vous au aux être été ou "
    "elle leur ces",
    "es": "el los las y del lo muy hay pero también puede fue nuevo nueva nuevos cuando esta estos ahora más",
    "pt": "os do dos em na nos um uma não é ao também pode foi novo nova quando mais isso seu sua você "
    "são está",
    "it": "il gli di e che della delle dei per una non sono è nel nella alla anche più questo questa con essere "
    "stato può degli ai",
    "nl": "het een van dat niet op met voor zijn worden wordt ook naar bij deze maar nog hebben heeft wij je",
    "sv": "och att det som är för med av till på har inte om kan ett vi från också eller nya",
    "pl": "w z się nie jest że od dla oraz jak ale są może czy przez który która które także tym jako",
    "tr": "ve bir bu için ile çok daha olarak olan gibi değil yeni ama veya her kadar sonra ise artık şimdi",
    "id": "dan yang ini itu dengan untuk dari dalam tidak akan pada juga ke adalah atau bisa sudah kami kita baru",
    "vi": "và của là có được cho các những trong với không này để một khi từ đã sẽ người bạn",
}
_LANGUAGE_OF_WORD = {w: lang for lang, words in FUNCTION_WORDS.items() for w in words.split()}
_WORD = re.compile(r"[^\W\d_]+")
_EVIDENCE = 12  # short words of the language at least
_LEAD = 3  # and this many times those of the next
_SURE = 60  # enough to stop reading, when five times those of the next


@lru_cache(maxsize=4096)
def latin_words(text: str) -> Counter[str]:
    """How many of a text's words are short words of each language in FUNCTION_WORDS (cached, since each
    audit reads the canonical's first paragraphs and a mirror's, most of them the same as at the last one:
    read it, never change it)."""
    return Counter(lang for w in _WORD.findall(text.lower()) if (lang := _LANGUAGE_OF_WORD.get(w)))


def latin_language(texts: Iterable[str]) -> str | None:
    """The language whose short words a document's are (its blocks' texts in order), when there are enough of
    them and far more than of any other language's; None when the text is short or mixed. Reading stops once
    one language is far enough ahead: a long post is told by its first paragraphs."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(latin_words(text))
        ranked = counts.most_common(2)
        if ranked and ranked[0][1] >= _SURE and ranked[0][1] >= 5 * (ranked[1][1] if len(ranked) > 1 else 0):
            return ranked[0][0]
    ranked = counts.most_common(2)
    if not ranked or ranked[0][1] < _EVIDENCE:
        return None
    runner = ranked[1][1] if len(ranked) > 1 else 0
    return ranked[0][0] if ranked[0][1] >= _LEAD * runner else None


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


def _scripts_of(parts: Sequence[str]) -> list[str | None]:
    return [block_script(p) for p in parts]


def _split_bilingual(
    block: str, wanted: set[str], tell: Callable[[Sequence[str]], list[str | None]] = _scripts_of
) -> str | None:
    """Split "X / Y" headings, bold-only lines and short one-line paragraphs by script (or what `tell` says the
    sides are in); None when the rule does not apply."""
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
    scripts = tell(parts)
    if len({s for s in scripts if s}) < 2:
        return None
    kept = [p for p, s in zip(parts, scripts, strict=True) if s in wanted]
    if not kept:
        return ""
    text = " / ".join(kept)
    return prefix + (f"**{text}**" if bold else text)


def block_language(text: str) -> str | None:
    """The Latin-script language of a block, by its short words (two at least, and twice any other's), or None
    when they do not tell."""
    ranked = latin_words(text).most_common(2)
    if not ranked or ranked[0][1] < 2:
        return None
    return ranked[0][0] if ranked[0][1] >= 2 * (ranked[1][1] if len(ranked) > 1 else 0) else None


def latin_mixed(languages: Counter[str]) -> bool:
    """Whether blocks told by their short words (how many in each language) are in two Latin-script languages
    or more: the second with a tenth of them, and at least 3, as a page in two languages has, where one in one
    language with a quotation in another does not."""
    ranked = languages.most_common(2)
    return len(ranked) == 2 and ranked[1][1] >= max(3, 0.1 * sum(languages.values()))


def block_labels(texts: Sequence[str]) -> list[str | None]:
    """What each block of a page is written in: its script (None for no letters), and on a page in two
    Latin-script languages (`latin_mixed`), a Latin-script block's language code instead, or None where its short
    words do not tell."""
    scripts = [block_script(text) for text in texts]
    told = [
        block_language(text) if script == "Latin" else None
        for text, script in zip(texts, scripts, strict=True)
    ]
    if not latin_mixed(Counter(lang for lang in told if lang)):
        return scripts
    return [lang if script == "Latin" else script for script, lang in zip(scripts, told, strict=True)]


def in_languages(markdown: str, languages: Sequence[str]) -> str:
    """Canonical Markdown as `languages` reads its page: the blocks in them alone, canonical again."""
    from differ.normalize.canonical import canonicalize

    return canonicalize(filter_languages(markdown, languages)).text


def filter_languages(markdown: str, languages: Sequence[str]) -> str:
    """Canonical Markdown with only the blocks (and list items) in the given languages. Latin-script blocks are
    told apart by their short words when the page has two such languages and `languages` names one."""
    wanted = wanted_scripts(languages)
    lines = markdown.split("\n")
    tokens = parser().parse(markdown)
    blocks = [
        (at, token, "\n".join(lines[token.map[0] : token.map[1]]).strip("\n"))
        for at, token in enumerate(tokens)
        if token.level == 0 and token.nesting != -1 and token.map is not None
    ]
    latin = {lang for lang in languages if SCRIPT_OF_LANGUAGE[lang] == "Latin"}
    told = [block_language(block) if latin else None for _, _, block in blocks]
    by_language = latin_mixed(Counter(lang for lang in told if lang))
    # on such a page, the side of an "X / Y" heading in a Latin-script language is told by the words the page's
    # blocks of that language alone have ("Nouveautés / What's new": "new" is in its English paragraphs)
    vocabulary = _vocabularies(blocks, told) if by_language else {}

    def side(text: str) -> str | None:
        script = block_script(text)
        if script != "Latin":
            return script
        words = set(_WORD.findall(text.lower()))
        found = Counter({lang: len(words & own) for lang, own in vocabulary.items()}).most_common(2)
        if not found or found[0][1] == 0 or (len(found) > 1 and found[0][1] == found[1][1]):
            return block_language(text)
        return found[0][0]

    def sides(parts: Sequence[str]) -> list[str | None]:
        """Each side's language; on a page in two, a side not told is in the language the other is not."""
        labels = [side(p) for p in parts]
        others = [lang for lang in vocabulary if lang not in labels]
        if len(vocabulary) == 2 and labels.count(None) == 1 and len(others) == 1:
            labels[labels.index(None)] = others[0]
        return labels

    def keeps(text: str) -> bool | None:
        """Whether a block is in a wanted language; None for one with no letters, or in Latin script in a
        language its words do not tell on a page of two such languages."""
        script = block_script(text)
        if script is None:
            return None
        if script == "Latin" and by_language:
            lang = block_language(text)
            return lang in latin if lang else None
        return script in wanted

    # asked for languages of other scripts alone, on a page that has them: what was not translated belongs to
    # their half too, code (Latin or no letters) and a Latin heading whose section holds their blocks (a name,
    # "FlexAttention", heading a Korean paragraph)
    scripts = [block_script(block) for _, _, block in blocks] if "Latin" not in wanted and not latin else []
    shared = any(script in wanted for script in scripts)
    heads = _headings_over(blocks, scripts, wanted) if shared else []

    # for each block, whether the next block told is kept (a heading goes with the section it opens)
    ahead: list[bool | None] = [None] * (len(blocks) + 1)
    if by_language:
        for place in range(len(blocks) - 1, -1, -1):
            decided = keeps(blocks[place][2])
            ahead[place] = ahead[place + 1] if decided is None else decided

    kept: list[str] = []
    previous_kept = section_kept = True  # the block before, and the heading of the section, kept
    for place, (at, token, block) in enumerate(blocks):
        if token.type in ("bullet_list_open", "ordered_list_open"):
            chosen = []
            for item in _list_items(tokens, at, lines):
                keep = keeps(item)
                if shared and keep is False and section_kept and _names_only(item):
                    keep = True  # names given once for both halves (`torch.compile`, "Linux x86_64")
                if previous_kept if keep is None else keep:
                    chosen.append(item)
            if chosen:
                kept.append("\n".join(chosen))
            previous_kept = bool(chosen)
            continue
        if by_language:
            split = _split_bilingual(block, (wanted - {"Latin"}) | latin, sides)
        else:
            split = _split_bilingual(block, wanted)
        if split is not None:
            if split:
                kept.append(split)
            previous_kept = bool(split)
            section_kept = previous_kept if token.type == "heading_open" else section_kept
            continue
        keep = keeps(block)
        if keep is None and token.type == "heading_open":
            keep = ahead[place + 1]
        if shared and scripts[place] in ("Latin", None):
            if token.type == "heading_open" and heads[place]:
                keep = True
            elif token.type in ("fence", "code_block"):
                keep = section_kept  # code in a section of the half, not in one left untranslated
            elif token.type == "table_open" and _names_only(block):
                keep = section_kept  # a table of names and figures, given once for both halves
            elif token.type == "paragraph_open" and (names := _line_of_names(block)):
                # "TorchVision, TorchAudio, TorchText" after both halves' sentences, a label ("CUDA") over a
                # Korean paragraph; not the English side of the Korean block before it ("API Unstable" after
                # "API 안정성: Unstable"), which already has its names
                said = (
                    place > 0
                    and scripts[place - 1] in wanted
                    and all(w in blocks[place - 1][2] for w in names)
                )
                keep = section_kept and not said
        previous_kept = bool(previous_kept if keep is None else keep)
        if previous_kept:
            kept.append(block)
        if token.type == "heading_open":
            section_kept = previous_kept
    return "\n\n".join(kept) + "\n" if kept else ""


def _names_only(text: str) -> bool:
    """Whether a Latin-script text has no short word of any language (`torch.compile`, "Linux x86_64",
    "FlexAttention"): names, which a bilingual page gives once for both of its halves."""
    return block_script(text) == "Latin" and not latin_words(text)


_NAME_PART = re.compile(r"[A-Z0-9_]|\w[.:/-]\w")


def _line_of_names(text: str) -> list[str]:
    """The names a Latin-script paragraph is made of, when it is names alone, as a bilingual page gives them once
    for both halves (else none): no short word of any language, and every word capitalized or written as a name
    (`x86_64`, `torch.compile`); a word alone must be written as a name ("FlexAttention"): an "Enjoy!" or
    "Highlights" is the English half's."""
    if not _names_only(text):
        return []
    found = re.findall(r"[^\s,;()]+", text)
    if not found or not all(w[0].isupper() or w[0].isdigit() or _NAME_PART.search(w[1:]) for w in found):
        return []
    return found if len(found) > 1 or _NAME_PART.search(found[0][1:]) else []


def _headings_over(
    blocks: Sequence[tuple[int, Token, str]], scripts: Sequence[str | None], wanted: set[str]
) -> list[bool]:
    """For each block, whether it is a heading whose section (up to the next heading of its level or above)
    holds a block in a wanted script; in one pass from the end."""
    heads = [False] * len(blocks)
    found = [False] * 7  # found[k]: a wanted block since the last heading of level k or above
    for place in range(len(blocks) - 1, -1, -1):
        token = blocks[place][1]
        if token.type != "heading_open":
            if scripts[place] in wanted:
                found = [True] * 7
            continue
        level = int(token.tag[1])
        heads[place] = found[level]
        found[level:] = [False] * (7 - level)
        if scripts[place] in wanted:
            found[:level] = [True] * level
    return heads


def _vocabularies(
    blocks: Sequence[tuple[int, Token, str]], told: Sequence[str | None]
) -> dict[str, set[str]]:
    """The words each language's told blocks have and no other language's do."""
    words: dict[str, set[str]] = {}
    for (_, _, block), lang in zip(blocks, told, strict=True):
        if lang:
            words.setdefault(lang, set()).update(_WORD.findall(block.lower()))
    return {
        lang: own - set().union(*(w for other, w in words.items() if other != lang))
        for lang, own in words.items()
    }


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
