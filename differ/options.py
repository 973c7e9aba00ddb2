"""Small validators for configuration values; each turns a TOML value into a typed one or says why not.

Source kinds and notifiers declare their options with these, so `differ.config` can check every key the same way.
"""

from __future__ import annotations

import difflib
import ipaddress
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult

Validator = Callable[[Any], Any]


class Invalid(ValueError):
    """A value does not fit; the message says what was found and what is expected. `key` names the option
    when the check spans a whole table (a kind's cross-field check)."""

    def __init__(self, message: str, key: str | None = None):
        super().__init__(message)
        self.key = key


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\x00": "\\0", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(ch: str) -> str:
    """A character as an error message shows it: control characters and line breaks written out, so that a
    message stays one line."""
    known = _ESCAPES.get(ch)
    if known is not None:
        return known
    if ch < " " or "\x7f" <= ch <= "\x9f" or ch in "\u2028\u2029\x85":
        return f"\\u{ord(ch):04x}"
    return ch


def plural(n: int, noun: str) -> str:
    """`1 source`, `3 sources`."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def listed(items: Sequence[str], limit: int) -> str:
    """The first `limit` items, comma-separated, and how many more there are (`a, b, c and 2 more`)."""
    more = len(items) - limit
    return ", ".join(items[:limit]) + (f" and {more} more" if more > 0 else "")


def one_line(text: str) -> str:
    """A message as one line: its control characters and line breaks written out (a page's title, a value typed
    on the command line may hold them); quotes and backslashes stay as they are."""
    return "".join(_escaped(ch) if ch not in '\\"' else ch for ch in text)


def cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: cut after its last word that fits (`…will…`, not `…will ha…`),
    or inside a word when no space comes within a fifth of the limit."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    if text[limit - 1] != " " and space >= limit * 4 // 5:  # the last word does not end where the cut is
        head = head[:space]
    return head.rstrip() + "…"


def found(value: Any) -> str:
    """Describe a TOML value for an error message."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = value if len(value) <= 60 else value[:57] + "..."
        return '"' + "".join(_escaped(ch) for ch in shown) + '"'
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return repr(value)


@dataclass(frozen=True)
class Option:
    """One option of a source kind or notifier: its validator, default and one line of help."""

    validate: Validator
    default: Any = None
    help: str = ""
    required: bool = False
    secret: bool = False


_DURATION_UNITS = {
    **dict.fromkeys(("ms", "msec", "msecs", "millisecond", "milliseconds"), 0.001),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1.0),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60.0),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600.0),
    **dict.fromkeys(("d", "day", "days"), 86400.0),
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks"), 604800.0),
}
_NUMBER = r"\d+(?:\.\d+)?"
_PART = rf"({_NUMBER})\s*({'|'.join(sorted(_DURATION_UNITS, key=len, reverse=True))})(?![a-z])\s*"
_DURATION_PART = re.compile(_PART, re.IGNORECASE)
# `90`, `30m`, `5 min`, `1h30m`, `1 hour 30 minutes`: a number of seconds, or parts each a number and its unit
_DURATION = re.compile(rf"\s*(?:{_NUMBER}\s*|(?:{_PART})+)", re.IGNORECASE)
DURATION_EXAMPLES = '"30m", "1h30m" or "5s"'
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|KiB|MiB|GiB)?\s*$", re.IGNORECASE)
_SIZE_UNITS = {"b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "kib": 1024, "mib": 1024**2, "gib": 1024**3}


MAX_DURATION = 366 * 86400.0


def parse_duration(value: Any, longest: float | None = MAX_DURATION) -> float:
    """Seconds from `30m`, `5s`, `1h30m`, `5 min`, `2 hours`, `250ms`, `2d`, `1w` or a plain number of seconds,
    at most `longest` (a setting's; how far back a command looks is not bounded)."""
    if isinstance(value, bool):
        raise Invalid(f"expected a duration such as {DURATION_EXAMPLES}, found {found(value)}")
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str) and _DURATION.fullmatch(value):
        parts = _DURATION_PART.findall(value)
        seconds = (
            sum(float(n) * _DURATION_UNITS[unit.lower()] for n, unit in parts) if parts else float(value)
        )
    else:
        raise Invalid(f"expected a duration such as {DURATION_EXAMPLES}, found {found(value)}")
    if not math.isfinite(seconds):  # TOML's nan and inf
        raise Invalid(f"expected a duration such as {DURATION_EXAMPLES}, found {found(value)}")
    if seconds < 0:
        raise Invalid(f"expected a duration of zero or more, found {found(value)}")
    if (
        longest is not None and seconds > longest
    ):  # a setting longer is a typo, and overflows the scheduler's clock
        raise Invalid(f"expected a duration of at most {format_duration(longest)}, found {found(value)}")
    return seconds


def format_duration(seconds: float) -> str:
    """The way a duration is written in the configuration: `30m` rather than `1800s`."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g}{unit}"
    return f"{seconds:g}s"


def parse_size(value: Any) -> int:
    """Bytes from `10MB`, `512KiB`, `2GB` or a plain number of bytes."""
    if isinstance(value, bool):
        raise Invalid(f'expected a size such as "10MB", found {found(value)}')
    if isinstance(value, int) and value > 0:
        return value
    if isinstance(value, str) and (m := _SIZE.match(value)):
        size = int(float(m.group(1)) * _SIZE_UNITS[(m.group(2) or "b").lower()])
        if size > 0:
            return size
    raise Invalid(f'expected a size such as "10MB", found {found(value)}')


def duration(minimum: float = 0.0) -> Validator:
    def check(value: Any) -> float:
        seconds = parse_duration(value)
        if seconds < minimum:
            raise Invalid(f"expected at least {minimum:g}s, found {found(value)}")
        return seconds

    return check


def size(value: Any) -> int:
    return parse_size(value)


def string(value: Any) -> str:
    if not isinstance(value, str):
        raise Invalid(f"expected a string, found {found(value)}")
    return value


def nonempty_string(value: Any) -> str:
    text = string(value)
    if not text.strip():
        raise Invalid('expected a non-empty string, found ""')
    return text


def entry_key(value: Any) -> str:
    """A feed entry's link or id: a non-empty string, or a whole number (a JSON Feed's id as some feeds write it,
    `--set entry=87`) as its digits."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return nonempty_string(value)


def path(value: Any) -> str:
    """A file's name (empty for none), without NUL, which no file name can hold."""
    text = string(value)
    if "\0" in text:
        raise Invalid(f"expected a file or folder name, found {found(value)} (it holds a NUL character)")
    return text


def folder(value: Any) -> str:
    """A folder's name: a non-empty `path`."""
    return path(nonempty_string(value))


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise Invalid(f"expected true or false, found {found(value)}")
    return value


def integer(minimum: int = 0, maximum: int | None = None) -> Validator:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise Invalid(f"expected a whole number, found {found(value)}")
        if value < minimum or (maximum is not None and value > maximum):
            upper = f" and at most {maximum}" if maximum is not None else ""
            raise Invalid(f"expected a whole number of at least {minimum}{upper}, found {value}")
        return value

    return check


def fraction(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise Invalid(f"expected a number from 0 to 1, found {found(value)}")
    return float(value)


def not_one_of(value: Any, allowed: Sequence[str]) -> str:
    """`expected one of a, b, found "c"`, with the one likely meant."""
    return f"expected one of {', '.join(allowed)}, found {found(value)}{meant(value, allowed)}"


def choice(*allowed: str) -> Validator:
    def check(value: Any) -> str:
        if value not in allowed:
            raise Invalid(not_one_of(value, allowed))
        return str(value)

    return check


def string_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise Invalid(f"expected a list of strings, found {found(value)}")
    for n, item in enumerate(value, 1):
        if not isinstance(item, str):
            raise Invalid(f"expected a list of strings, found {found(item)} as item {n}")
    return tuple(value)


def command(value: Any) -> tuple[str, ...]:
    """A program and its arguments: a list of strings, or one string split into words as a shell would (no
    shell runs it)."""
    if isinstance(value, str):
        import shlex

        try:
            items = shlex.split(value)
        except ValueError as exc:
            raise Invalid(
                f"{found(value)} does not split into words ({exc}); expected a program and its arguments"
            )
    else:
        items = list(string_list(value))
    if not items or not items[0].strip():
        raise Invalid("expected a program and its arguments, found no program")
    if any("\0" in item for item in items):
        raise Invalid("expected a program and its arguments, found a NUL character in them")
    return tuple(items)


def nonblank_list(expected: str) -> Validator:
    """A list of strings none of which may be blank: a blank heading pattern matches no heading, a blank word
    every text. `expected` says what the items are, for the error."""

    def validate(value: Any) -> tuple[str, ...]:
        items = string_list(value)
        if not all(item.strip() for item in items):
            raise Invalid(f"expected {expected}, found a blank one")
        return items

    return validate


heading_list = nonblank_list('headings or patterns such as "Security*"')
word_list = nonblank_list('words or patterns such as "CVE-*"')
finding_list = nonblank_list('findings as differ audit prints them, or patterns such as "extra: *Featured*"')


def pattern_list(value: Any) -> tuple[str, ...]:
    """Regular expressions (Python syntax), each checked here so that a typo is a config error, not a crash."""
    items = string_list(value)
    for item in items:
        try:
            re.compile(item)
        except re.error as exc:
            raise Invalid(f"{found(item)} is not a regular expression: {exc}; expected Python's syntax")
    return items


def choice_list(*allowed: str, aliases: dict[str, str] | None = None) -> Validator:
    """Items from `allowed`; `aliases`: what an item people write for one of them likely meant (`kr`: "ko")."""

    def check(value: Any) -> tuple[str, ...]:
        items = string_list(value)
        for item in items:
            if item not in allowed:
                alias = (aliases or {}).get(item.lower(), "")
                hint = f' (did you mean "{alias}"?)' if alias in allowed else meant(item, allowed)
                raise Invalid(
                    f"expected items from {', '.join(allowed)}, found {found(item)}{_unquoted(item) or hint}"
                )
        return items

    return check


def _unquoted(item: str) -> str:
    """A hint for a list whose quotes a shell took out (`--set events=["changed"]` arrives as `[changed]`)."""
    if not (item.startswith("[") and item.endswith("]")):
        return ""
    names = [part.strip() for part in item[1:-1].split(",") if part.strip()]
    written = "[" + ", ".join(f'"{name}"' for name in names) + "]"
    return f" (a list whose quotes the shell took out? quote it whole: '…={written}')"


def string_table(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise Invalid(f"expected a table of strings, found {found(value)}")
    return dict(value)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def web_address(text: str) -> SplitResult | None:
    """The parts of an http:// or https:// URL with a host and a port that is a number, else None."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:  # "http://[::1" and the like
        return None
    return parts if parts.scheme in ("http", "https") and parts.hostname else None


def proxy_url(value: Any) -> str:
    """An HTTP proxy's URL, `http://[user:password@]host:port` (or https://); empty for none."""
    text = string(value).strip()
    if not text:
        return ""
    parts = web_address(text)
    if parts is None or parts.path not in ("", "/"):
        raise Invalid(f"expected a proxy URL such as http://proxy.example:3128, found {found(value)}")
    return text


def web_url(value: Any) -> str:
    """An http:// or https:// URL with a host; empty for none."""
    text = string(value).strip()
    if text and web_address(text) is None:
        raise Invalid(not_a_url(value))
    return text


_HOST = re.compile(r"[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}(?::\d+)?")  # a name a browser would look up


def not_a_url(value: Any) -> str:
    """What is wrong with a value given for a web address; one a browser would take without its scheme
    (`pytorch.org/blog/post`) is shown with it, as what was likely meant."""
    said = f"expected an http:// or https:// URL, found {found(value)}"
    text = value.strip() if isinstance(value, str) else ""
    host = text.split("/", 1)[0]
    if "://" not in text and _HOST.fullmatch(host) and web_address(f"https://{text}") is not None:
        said += f' (did you mean "https://{text}"?)'
    return said


def meant(name: Any, names: Iterable[str]) -> str:
    """` (did you mean "selector"?)` for a name mistyped (`selecter`, `uri`, `Slack`, `remov`) among those taken,
    else "": one letter off (left out, added, changed, or two swapped), the same but for case, the start of one
    name alone, or mostly alike."""
    if not isinstance(name, str) or not name:
        return ""
    taken = list(names)
    close = [
        n for n in taken if n.lower() == name.lower() or _one_edit(*_told_apart(name.lower(), n.lower()))
    ]
    starting = [n for n in taken if len(name) >= 3 and n.lower().startswith(name.lower())]
    close = close or (starting if len(starting) == 1 else []) or [n for n in taken if _alike(name, n)]
    return f' (did you mean "{close[0]}"?)' if close else ""


def _shared_start(a: str, b: str) -> int:
    """How many letters two names share at their start."""
    return next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def _alike(a: str, b: str) -> bool:
    """Mostly alike where they differ: the start they share left out, so that `doc/nope` is not `doc/gone`."""
    shared = _shared_start(a, b)
    return difflib.SequenceMatcher(None, a[shared:], b[shared:]).ratio() >= 0.75


def _told_apart(a: str, b: str) -> tuple[str, str]:
    """The parts of two names that tell them apart: the last of `DOCUMENT/SOURCE` when the document is the same."""
    head_a, slash, tail_a = a.rpartition("/")
    head_b, _, tail_b = b.rpartition("/")
    return (tail_a, tail_b) if slash and head_a == head_b else (a, b)


def _one_edit(a: str, b: str) -> bool:
    """Whether `b` is `a` with one letter left out or added, or, in names of three letters or more, one changed
    or two neighbours swapped (`kr` is no mistyped `fr`, nor `x` an `m`)."""
    if abs(len(a) - len(b)) > 1 or a == b or (min(len(a), len(b)) < 3 and len(a) == len(b)):
        return False
    start = _shared_start(a, b)
    if len(a) == len(b):
        swapped = a[start + 1 : start + 2] + a[start : start + 1] + a[start + 2 :] == b[start:]
        return a[start + 1 :] == b[start + 1 :] or swapped
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[start + 1 :] == shorter[start:]


def private_access(value: Any) -> bool | tuple[Network, ...]:
    """`allow_private`: true, false, or a list of addresses/networks that may be reached."""
    if isinstance(value, bool):
        return value
    items = string_list(value)
    networks: list[Network] = []
    for item in items:
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise Invalid(
                f'expected true, false or a list of addresses such as "127.0.0.1/32", found {found(item)}'
                + _unquoted(item)
            )
    return tuple(networks)


@dataclass
class Schema:
    """The options a kind accepts, by name."""

    options: dict[str, Option] = field(default_factory=dict)

    def names(self) -> Sequence[str]:
        return sorted(self.options)
