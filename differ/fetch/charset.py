"""Turn a fetched body into text: Content-Type charset, then BOM, then <meta charset>, then detection."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

_META = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
# Labels that browsers treat as a wider superset; decoding with the superset loses nothing.
_SUPERSETS = {
    "euc-kr": "cp949",
    "ks_c_5601-1987": "cp949",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "iso-8859-1": "cp1252",
    "latin-1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "shift_jis": "cp932",
    "sjis": "cp932",
}
_WESTERN = {"cp1252", "utf-8"}


@dataclass(frozen=True)
class Decoded:
    """Text with the encoding used and how it was chosen."""

    text: str
    encoding: str
    source: str  # "header", "bom", "meta", "utf-8", "detected", "fallback"
    replaced: int = 0


def _codec(label: str | None) -> str | None:
    if not label:
        return None
    label = label.strip().strip("\"'").lower()
    label = _SUPERSETS.get(label, label)
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def header_charset(content_type: str | None) -> str | None:
    if not content_type:
        return None
    m = re.search(r"charset\s*=\s*\"?([^\s;\"]+)", content_type, re.IGNORECASE)
    return m.group(1) if m else None


def _strict(body: bytes, encoding: str) -> str | None:
    try:
        return body.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


def decode(body: bytes, content_type: str | None = None, *, html: bool = True) -> Decoded:
    """Decode a body without mojibake; a Korean page in UTF-8 or EUC-KR with no header comes out right."""
    declared = _codec(header_charset(content_type))
    if declared:
        text = _strict(body, declared)
        # A page declared as Latin-1/Windows-1252 whose bytes are valid UTF-8 is UTF-8 (a common server slip).
        if text is not None and declared == "cp1252" and not body.isascii():
            utf8 = _strict(body, "utf-8")
            if utf8 is not None:
                return Decoded(utf8, "utf-8", "utf-8")
        if text is not None:
            return Decoded(text, declared, "header")
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return Decoded(body.decode(encoding, errors="replace"), encoding, "bom")
    if html:
        m = _META.search(body[:8192])
        meta = _codec(m.group(1).decode("ascii", "replace")) if m else None
        if meta:
            text = _strict(body, meta)
            if text is not None and not (
                meta in _WESTERN
                and not body.isascii()
                and _strict(body, "utf-8") is not None
                and meta != "utf-8"
            ):
                return Decoded(text, meta, "meta")
    text = _strict(body, "utf-8")
    if text is not None:
        return Decoded(text, "utf-8", "utf-8")
    detected = _detect(body)
    if detected:
        text = _strict(body, detected)
        if text is not None:
            return Decoded(text, detected, "detected")
    text = body.decode(declared or "utf-8", errors="replace")
    return Decoded(text, declared or "utf-8", "fallback", text.count("\ufffd"))


def _detect(body: bytes) -> str | None:
    from charset_normalizer import from_bytes

    best = from_bytes(body[:200_000]).best()
    if best is None:
        return None
    return _codec(best.encoding)
