"""Which selectors are XPath: read when the configuration is checked, so it loads no page reader (BeautifulSoup
and lxml load when a page is read, or an XPath selector is checked)."""

from __future__ import annotations

PREFIXES = ("xpath:", "xpath1:")
_STARTS = ("/", "(", "./", "../")


def is_xpath(selector: str) -> bool:
    """Whether `selector` is read as XPath rather than CSS: it says so (`xpath:`, changedetection.io's
    `xpath1:`) or starts as only XPath can (`/`, `(`, `./`)."""
    text = selector.strip()
    return text.startswith(PREFIXES) or text.startswith(_STARTS)


def expression(selector: str) -> str:
    """The XPath expression of `selector`, its `xpath:` prefix taken off."""
    text = selector.strip()
    for prefix in PREFIXES:
        if text.startswith(prefix):
            return text[len(prefix) :].strip()
    return text
