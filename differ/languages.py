"""The languages a source's `languages` can name: the script each is written in, which the language filter tells
apart, and for those written in Latin script, their names, since the audit tells them apart by their words.
Kept apart from the filter so that reading the configuration does not load the Markdown parser."""

from collections.abc import Iterable

SCRIPT_OF_LANGUAGE = {
    "en": "Latin",
    "de": "Latin",
    "es": "Latin",
    "fr": "Latin",
    "it": "Latin",
    "nl": "Latin",
    "pt": "Latin",
    "sv": "Latin",
    "pl": "Latin",
    "tr": "Latin",
    "id": "Latin",
    "vi": "Latin",
    "ko": "Hangul",
    "ja": "Kana",
    "zh": "Han",
    "ru": "Cyrillic",
    "uk": "Cyrillic",
    "el": "Greek",
    "ar": "Arabic",
    "he": "Hebrew",
}

# How a note names a script: by the language it tells where one does ("Korean (Hangul)"), else as a script
# ("Latin script", never "Latin", a language of its own).
SCRIPT_NAMES = {
    "Latin": "Latin script",
    "Hangul": "Korean (Hangul)",
    "Kana": "Japanese (kana)",
    "Han": "Chinese characters (Han)",
    "Cyrillic": "Cyrillic script",
    "Greek": "Greek script",
    "Arabic": "Arabic script",
    "Hebrew": "Hebrew script",
}


def script_name(script: str) -> str:
    """A script as a note names it (`SCRIPT_NAMES`)."""
    return SCRIPT_NAMES.get(script, f"{script} script")


LANGUAGE_NAMES = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "pt": "Portuguese",
    "it": "Italian",
    "nl": "Dutch",
    "sv": "Swedish",
    "pl": "Polish",
    "tr": "Turkish",
    "id": "Indonesian",
    "vi": "Vietnamese",
}


def language_names(codes: Iterable[object]) -> str:
    """Languages by their codes, as a line names them: `English`, `English and Korean` (an unknown code as is)."""
    return " and ".join(LANGUAGE_NAMES.get(str(code), str(code)) for code in codes)
