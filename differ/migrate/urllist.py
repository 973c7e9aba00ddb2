"""A plain list of pages: a URL a line, with its title after it if wanted."""

from __future__ import annotations

from pathlib import Path

from differ.edit import Page
from differ.errors import ConfigError
from differ.migrate.base import Found, Watches, read_file, reader


@reader("list")
def read_list(path: Path) -> Watches:
    """A text file with a URL a line, the page's title after it if wanted; blank lines and `#` comments are
    skipped."""
    try:
        rows = read_file(path).decode("utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}")
    found = []
    for row in rows:
        url, _, title = row.strip().partition(" ")
        if not url or url.startswith("#"):
            continue
        if not url.startswith(("http://", "https://")):
            found.append(Found(row.strip(), None, skipped="not an http or https URL"))
            continue
        found.append(Found(title.strip() or url, Page(url, title=title.strip() or None)))
    return Watches(found)
