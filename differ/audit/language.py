"""What a copy is written in, against its canonical: a translation (another script, or another language of the
same script), a bilingual copy, or neither, and the note an audit gives it first. It decides whether the audit
reads the copy word by word or block by block (`differ.audit.translation`)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from differ.diff.blocks import Block

_LETTER = re.compile("[A-Za-z]")
# a letter of a script the language filter tells apart from Latin: Greek, Cyrillic, Hebrew, Arabic, Hangul, kana, Han
_BEYOND_LATIN = re.compile(
    "[\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f\u0590-\u05ff\u0600-\u06ff\u0750-\u077f\u1100-\u11ff"
    "\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
)


def _scripts(blocks: Sequence[Block]) -> tuple[Counter[str], Counter[str]]:
    """How many blocks of text (code aside) are in each script, and how many characters, in one look."""
    from differ.normalize.language import block_script

    def script(text: str) -> str | None:  # ASCII text is Latin, or has no letters: no word-by-word look
        return ("Latin" if _LETTER.search(text) else None) if text.isascii() else block_script(text)

    found: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    for b in blocks:
        if b.kind != "code" and (s := script(b.text)) not in (None, "Other"):
            found[s] += 1
            sizes[s] += len(b.text)
    return found, sizes


@dataclass
class _Foreign:
    """A copy with blocks in scripts its canonical does not use, or in languages of its script it is not in."""

    main: str  # the canonical's script
    scripts: list[str]  # the copy's others
    blocks: int  # how many of its blocks of text are in them
    total: int  # of how many
    translation: bool  # under TRANSLATED of its text in the canonical's script: a translation
    # both in one script, told apart by language: `main` and `scripts` name languages, `code` keeps the main one
    by_language: bool = False
    code: str = ""

    @property
    def head(self) -> str:
        """What the copy's blocks are in, for its note."""
        from differ.languages import script_name

        if self.by_language:
            names = " and ".join(self.scripts)
            return f"{self.blocks} of its {self.total} blocks of text are in {names}, the canonical's in {self.main}"
        names = " and ".join(map(script_name, self.scripts))
        return f"{self.blocks} of its {self.total} blocks of text are in {names}, which the canonical does not use"


TRANSLATED = 0.15  # a copy with less of its text than this in the canonical's script is a translation
# a copy with this share of its blocks of text or more in other scripts or languages, not a translation, is a
# bilingual copy: audited on its blocks in the canonical's language, as `languages` set to it would read it
BILINGUAL = 0.25


def _foreign(canonical: Sequence[Block], mirror: Sequence[Block]) -> _Foreign | None:
    """How a copy's scripts differ from its canonical's, if they do enough to say: a tenth of its blocks of text
    (and at least 3) in scripts the canonical uses for at most 2% of its own."""
    if not any(_BEYOND_LATIN.search(b.text) for b in (*mirror, *canonical) if b.kind != "code"):
        return _other_language(canonical, mirror)  # both in Latin script alone (the common case)
    theirs, sizes = _scripts(mirror)
    total = sum(theirs.values())
    if not total:
        return None
    ours = _scripts(canonical)[0]
    if not ours:
        return None
    main = ours.most_common(1)[0][0]
    unused = sorted(s for s, n in theirs.items() if ours[s] <= 0.02 * sum(ours.values()))
    foreign = sum(theirs[s] for s in unused)
    if foreign < max(3, 0.1 * total):
        return None
    return _Foreign(main, unused, foreign, total, sizes[main] < TRANSLATED * sum(sizes.values()))


def _other_language(canonical: Sequence[Block], mirror: Sequence[Block]) -> _Foreign | None:
    """A copy in another language of the canonical's script, told by the short words each uses most
    (`latin_language`): a translation (a German copy of an English post), or, when its blocks are in two such
    languages, one the canonical's, a bilingual copy (an English and French repost of an English post)."""
    from differ.languages import LANGUAGE_NAMES
    from differ.normalize.language import block_language, latin_language, latin_mixed, latin_words

    theirs = latin_language(b.text for b in mirror if b.kind != "code")  # read until it is plain
    if theirs is not None:  # in one language: a translation, if not the canonical's
        ours = latin_language(b.text for b in canonical if b.kind != "code")
        if ours is None or ours == theirs:
            return None
        text = [b for b in mirror if b.kind != "code" and _LETTER.search(b.text)]
        blocks = sum(1 for c in map(latin_words, (b.text for b in text)) if c[theirs] > c[ours])
        return _Foreign(LANGUAGE_NAMES[ours], [LANGUAGE_NAMES[theirs]], blocks, len(text), True, True, ours)
    text = [b for b in mirror if b.kind != "code" and _LETTER.search(b.text)]
    told = Counter(lang for b in text if (lang := block_language(b.text)))
    if not latin_mixed(told):
        return None
    ours = latin_language(b.text for b in canonical if b.kind != "code")
    if ours is None or ours not in told:  # in two languages or more, one the canonical's: a bilingual copy
        return None
    others = [(LANGUAGE_NAMES[lang], n) for lang, n in told.most_common() if lang != ours]
    blocks = sum(n for _, n in others)
    return _Foreign(LANGUAGE_NAMES[ours], [name for name, _ in others], blocks, len(text), False, True, ours)


def translated(canonical: Sequence[Block], mirror: Sequence[Block], setting: bool | None = None) -> bool:
    """Whether a copy is a translation of its canonical, audited block by block for what a translation keeps
    (`differ.audit.translation`) rather than word by word: as its `translation` setting says, or unset, as its
    scripts do."""
    if setting is not None:
        return setting
    found = _foreign(canonical, mirror)
    return found is not None and found.translation


def language_note(
    canonical: Sequence[Block],
    mirror: Sequence[Block],
    option: str,
    languages: Sequence[str] | None = None,
) -> str | None:
    """Said of a copy whose blocks are in a script the canonical does not use: a bilingual copy, which its audit
    splits while `languages` is unset (None) and `option` (formatted with a language code) would split; a
    translation, audited for what a translation keeps; or a copy whose `languages` keep the blocks in another
    script than the canonical's. Either way its findings need that said first."""
    if languages:
        return _kept_note(canonical, option, languages)
    found = _foreign(canonical, mirror)  # once, for both the split and the note
    if languages is None and (split := _split(found, option)):
        return split[1]
    return _found_note(found, option)


def reading(
    canonical: Sequence[Block],
    mirror: Sequence[Block],
    setting: bool | None,
    option: str,
    languages: Sequence[str] = (),
) -> tuple[bool, str | None]:
    """How a copy is audited, as a translation or word by word (`translated`), and the note that says why when
    its `translation` setting does not (`language_note`), from one look at its scripts and languages."""
    if setting is not None:
        return setting, None
    found = _foreign(canonical, mirror)
    as_translation = found is not None and found.translation
    return as_translation, _kept_note(canonical, option, languages) if languages else _found_note(
        found, option
    )


def _kept_note(canonical: Sequence[Block], option: str, languages: Sequence[str]) -> str | None:
    """Said of a copy whose `languages` keep its blocks in another script than the canonical's."""
    from differ.languages import script_name
    from differ.normalize.language import language_of, wanted_scripts

    ours = _scripts(canonical)[0]
    main = ours.most_common(1)[0][0] if ours else None
    kept = wanted_scripts(languages)
    if main is None or main in kept:
        return None
    return (
        f"its languages ({', '.join(languages)}) keep its blocks in {' and '.join(map(script_name, sorted(kept)))}, "
        f"which the canonical does not use, so it is audited as a translation; {option.format(language_of(main))} "
        f"keeps those in the canonical's {script_name(main)}"
    )


def bilingual(canonical: Sequence[Block], mirror: Sequence[Block], option: str) -> tuple[str, str] | None:
    """For a bilingual copy (a quarter of its blocks of text or more in other scripts or languages than the
    canonical's, and not a translation), the code of the canonical's language, whose blocks alone its audit reads,
    and the note that says so (`option`, as 'languages = ["{}"]', formatted with a code: how it is set); None
    for any other copy."""
    return _split(_foreign(canonical, mirror), option)


def _split(found: _Foreign | None, option: str) -> tuple[str, str] | None:
    """`bilingual`, from what `_foreign` found."""
    if found is None or found.translation or found.blocks < BILINGUAL * found.total:
        return None
    code, kept = _kept(found)
    every = option.replace('"{}"', "")
    return code, (
        f"{found.head}: a bilingual copy, its {kept} audited alone, as {option.format(code)} would, and each "
        f"translation's numbers, versions and links against its original ({every} audits every block)"
    )


def _kept(found: _Foreign) -> tuple[str, str]:
    """The code of a bilingual copy's language that its canonical is in, and its blocks in it, named."""
    from differ.languages import script_name
    from differ.normalize.language import language_of

    if found.by_language:
        return found.code, f"{found.main} blocks"
    return language_of(found.main), f"blocks in {script_name(found.main)}"


def _found_note(found: _Foreign | None, option: str) -> str | None:
    """Said of a copy in scripts or languages its canonical is not in: a translation, or a bilingual copy."""
    if found is None:
        return None
    head = found.head
    if found.translation:
        return (
            f"{head}: a translation, its blocks paired with the canonical's by place, kind, length, numbers, "
            "names, code and links; a passage left out or added is found, a reworded one is not"
        )
    code, kept = _kept(found)
    return (
        f"{head}; if it is a bilingual copy, {option.format(code)} audits its {kept} alone, and each "
        "translation's numbers, versions and links against its original"
    )
