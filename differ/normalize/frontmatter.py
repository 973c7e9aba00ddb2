"""Front matter of a Markdown file: the YAML (`---`) or TOML (`+++`) block that static site generators (Jekyll,
Hugo, Zola, Astro) read the title, date and author from. It is metadata, compared apart from the body."""

from __future__ import annotations

import datetime
import math
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_OPEN = re.compile(r"\A\ufeff?(---|\+\+\+)[ \t]*\r?\n")
_CLOSE = {
    "---": re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE),
    "+++": re.compile(r"^\+\+\+[ \t]*$", re.MULTILINE),
}
_LINE = re.compile(r"\b(line) (\d+)")
MAX_BYTES = 65_536  # larger blocks are not front matter a site would write
MAX_NODES = 10_000  # values, keys and items walked: YAML aliases can make a small block enormous
DEFAULT_KEYS = ("title", "date", "updated", "lastmod", "last_modified_at", "author", "authors", "description")


@dataclass
class FrontMatter:
    """The body without its front matter, the fields kept, and what went wrong reading them."""

    body: str
    fields: dict[str, Any] = field(default_factory=dict)
    warning: str = ""


def split(text: str, keep: Iterable[str] = DEFAULT_KEYS) -> FrontMatter:
    """Take the front matter off `text` and keep the fields named in `keep` (`*`: every field). A block that does
    not parse as a mapping stays part of the body, with a warning when it looked like front matter."""
    opening = _OPEN.match(text)
    if not opening:
        return FrontMatter(text)
    fence = opening.group(1)
    closing = _CLOSE[fence].search(text, opening.end())
    if not closing:
        return FrontMatter(text)
    block = text[opening.end() : closing.start()]
    language = "YAML" if fence == "---" else "TOML"
    if len(block.encode()) > MAX_BYTES:
        return FrontMatter(text, warning=f"front matter larger than {MAX_BYTES // 1024} KB, read as body")
    try:
        data = _load(block, fence)
    except ValueError as exc:
        where = _LINE.sub(lambda m: f"{m.group(1)} {int(m.group(2)) + 1}", str(exc))  # lines of the file
        return FrontMatter(text, warning=f"front matter is not valid {language} ({where}), read as body")
    if not isinstance(data, dict):
        # `---` opening a document, a line of text, `---`: a thematic break and a heading, not front matter
        if data is not None or block.strip():
            return FrontMatter(text)
        data = {}
    rest = text[closing.end() :].lstrip("\r\n")
    wanted = set(keep)
    try:
        budget = [MAX_NODES]
        fields = {str(k): plain(v, budget) for k, v in data.items() if "*" in wanted or str(k) in wanted}
    except ValueError as exc:
        return FrontMatter(rest, warning=f"front matter not kept: {exc}")
    return FrontMatter(rest, fields)


def _load(block: str, fence: str) -> Any:
    if fence == "+++":
        try:
            return tomllib.loads(block)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(str(exc))
    import yaml  # only when a page has YAML front matter: start-up stays light

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(block, Loader=loader)  # a safe loader: plain data only
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}: " if mark is not None else ""  # counted in the block
        raise ValueError(f"{where}{exc.problem or exc.context}")
    except (yaml.YAMLError, RecursionError) as exc:
        raise ValueError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)


def plain(value: Any, budget: list[int]) -> Any:
    """The value as JSON holds it: dates and times in ISO 8601, other scalars (binary, NaN) as strings; a
    ValueError past `budget[0]` values."""
    budget[0] -= 1
    if budget[0] < 0:
        raise ValueError(f"more than {MAX_NODES:,} values (aliases repeating one part?)")
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # .nan and .inf are not JSON, and NaN never equals itself
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): plain(v, budget) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [plain(v, budget) for v in value]
    return str(value)
