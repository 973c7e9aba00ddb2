"""The `json` kind, a field of a JSON document (an aggregator's copy, a CMS's API), and the JSON reading the
platform and feed kinds share: a path into a document, its longest text fields (where a body is likely to be,
named when a `field` is missing), its title and dates as metadata."""

from __future__ import annotations

import hashlib
import json
import re
from typing import TYPE_CHECKING, Any, ClassVar

from differ import options as opt
from differ.errors import NormalizeError
from differ.normalize import frontmatter
from differ.normalize.kinds import Body, Extracted, SourceKind, read_html, source_kind, text_to_markdown
from differ.options import Option

if TYPE_CHECKING:
    from differ.config import SourceConfig


def json_path(data: Any, path: str) -> Any:
    """Follow `a.b.0.c` into parsed JSON; raise KeyError naming the first missing step."""
    current = data
    for step in path.split("."):
        if isinstance(current, dict) and step in current:
            current = current[step]
        elif isinstance(current, list) and step.isdecimal() and int(step) < len(current):
            current = current[int(step)]
        else:
            raise KeyError(step)
    return current


def text_fields(fields: list[tuple[int, str]]) -> str:
    """The longest text fields said (`; its longest text fields: body_md (21,870 characters), …`): where a body
    is likely to be, for a `field` that is not there."""
    named = ", ".join(f"{p} ({n:,} character{'s' if n != 1 else ''})" for n, p in fields)
    return f"; its longest text fields: {named}" if fields else ""


def _unread(data: Any, why: str) -> NormalizeError:
    """A document whose body field cannot be read, said with its longest text fields, the longest offered as
    the field to read it with."""
    fields = longest_fields(data)
    read_with = {"field": fields[0][1]} if fields else None
    return NormalizeError(f"{why}{text_fields(fields)}", read_with=read_with)


def longest_fields(data: Any, most: int = 3) -> list[tuple[int, str]]:
    """The document's longest text fields, longest first, as (length, path)."""
    found: list[tuple[int, str]] = []
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    seen = 0
    while stack and seen < 10_000:  # a huge document is looked at in part
        value, path, depth = stack.pop()
        seen += 1
        if isinstance(value, str) and path:
            found.append((len(value), path))
        elif isinstance(value, dict) and depth < 6:
            stack.extend((v, f"{path}.{k}" if path else str(k), depth + 1) for k, v in value.items())
        elif isinstance(value, list) and depth < 6:
            stack.extend((v, f"{path}.{i}" if path else str(i), depth + 1) for i, v in enumerate(value[:50]))
    return sorted(found, key=lambda f: (-f[0], f[1]))[:most]


def load_json(body: Body) -> Any:
    """The JSON a body holds; an empty body, bytes that are not UTF-8 or text that is not JSON is a NormalizeError.
    A lone surrogate escape (`\\ud800`, half of a pair) is no character: U+FFFD, as a browser shows it."""
    if not body.data.strip():
        raise NormalizeError("empty body")
    try:
        text = body.data.decode("utf-8-sig")
        data = json.loads(text)
        return _mended(data) if _SURROGATE_ESCAPE.search(text) else data
    except UnicodeDecodeError as exc:
        raise NormalizeError(f"JSON is not UTF-8 (byte {exc.start})")
    except ValueError as exc:
        raise NormalizeError(f"not valid JSON: {exc}")
    except RecursionError:
        raise NormalizeError("JSON nested too deeply")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _mended(value: Any) -> Any:
    """Parsed JSON with every lone surrogate in its strings (a pair is one character by now) made U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_mended(v) for v in value]
    if isinstance(value, dict):
        return {_mended(k): _mended(v) for k, v in value.items()}
    return value


@source_kind("json")
class JsonKind(SourceKind):
    """A JSON document's field (`field`; `format`: Markdown, HTML or text), its title and dates as metadata.

    `metadata` names other fields to keep instead."""

    accept = "application/json,*/*;q=0.5"
    options: ClassVar[dict[str, Option]] = {
        "field": Option(
            opt.nonempty_string, required=True, help="path of the body, e.g. body_md or data.content"
        ),
        "format": Option(
            opt.choice("markdown", "html", "text"),
            None,
            "what the field holds (default: HTML when most of its lines are HTML, else Markdown)",
        ),
        "metadata": Option(
            opt.string_list,
            None,
            "other fields to keep and compare (default: its title and dates at the top)",
        ),
    }

    @classmethod
    def extract(cls, body: Body, source: SourceConfig) -> Extracted:
        data = load_json(body)
        path = source.option("field")
        if not isinstance(path, str):  # a source known from the store alone, not its configuration
            raise _unread(data, "no field named to read")
        try:
            value = json_path(data, path)
            wrong = "" if isinstance(value, str) else f"holds {type(value).__name__}, expected a string"
        except KeyError as exc:
            wrong = f'is missing from the JSON document (no "{exc.args[0]}")'
        if wrong:
            raise _unread(data, f'field "{path}" {wrong}')
        meta: dict[str, Any] = {}
        warnings: list[str] = []
        names = source.option("metadata")
        for name in title_and_dates(data) if names is None else names:
            try:
                meta[name] = _metadata_field(name, json_path(data, name), warnings)
            except KeyError:
                meta[name] = None
        fmt = source.option("format") or ("html" if mostly_html(value) else "markdown")
        if fmt == "html":
            result = read_html(value, body, source, None, (), ())
            result.metadata = meta
            result.warnings.extend(warnings)
        else:
            result = Extracted(text_to_markdown(value) if fmt == "text" else value, meta, warnings=warnings)
        result.root = f'field "{path}"' + (
            "" if source.option("format") else f", which holds {_FORMATS[fmt]}"
        )
        return result


_FORMATS = {"html": "HTML", "markdown": "Markdown"}


def mostly_html(text: str) -> bool:
    """Whether a field holds HTML (a CMS's rendered content) rather than Markdown: most of its non-blank lines lie
    in HTML blocks as CommonMark reads them. Markdown with a `<details>` block or an image centred in a
    `<p align=center>` stays Markdown."""
    if "<" not in text:
        return False
    from differ.normalize.markdownit import parser

    head = text[:100_000]  # tells as well as the whole, which may be larger than differ compares
    lines = [bool(line.strip()) for line in head.splitlines()]
    html = sum(
        sum(lines[t.map[0] : t.map[1]])
        for t in parser().parse(head)
        if t.type == "html_block" and t.map is not None
    )
    return html * 2 > sum(lines)


# A top-level field that names the post's title or one of its dates, however the API spells it (`updated_at`,
# `dateModified`, `pubDate`, `last-modified`), compared by lower case without `_` and `-`.
_TITLE_OR_DATE = re.compile(
    r"title|date|pubdate|(date)?(published|updated|modified|created)(at|on|date|time)?|"
    r"(publish|update|modify|create)(d)?(date|time)|lastmodified|lastupdated"
)


def title_and_dates(data: Any) -> list[str]:
    """The metadata a JSON source keeps when `metadata` names none: the fields at the document's top whose names
    say a title or a date and that hold a string or a number, as a page's title and dates are kept. A counter,
    a list or a nested object is left out, so a post's views or replies never make a version of it."""
    if not isinstance(data, dict):
        return []
    return [
        name
        for name, value in data.items()
        if isinstance(value, str | int | float)
        and not isinstance(value, bool)
        and _TITLE_OR_DATE.fullmatch(name.lower().replace("_", "").replace("-", ""))
    ]


def _metadata_field(name: str, value: Any, warnings: list[str]) -> Any:
    """A JSON field kept as metadata: itself, value by value, up to the front matter's limit; past it, its
    digest (a field of 200,000 values took 10 s and 480 MB to compare, and was stored with every version)."""
    try:
        return frontmatter.plain(value, [frontmatter.MAX_NODES])
    except ValueError:
        whole = json.dumps(value, sort_keys=True, ensure_ascii=False).encode()
        warnings.append(
            f'metadata field "{name}" holds more than {frontmatter.MAX_NODES:,} values: compared by its digest'
        )
        return {"sha256": hashlib.sha256(whole).hexdigest()}
