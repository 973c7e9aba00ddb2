"""changedetection.io's watches (a backup's zip, its datastore folder, `url-watches.json` or a `watch.json`):
include and subtractive selectors, ignored text, headers and a watch's own interval become a source's settings,
its Apprise notification URLs notifiers (`migrate.apprise`)."""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from differ.edit import Page
from differ.errors import ConfigError
from differ.files import TooLarge
from differ.migrate import apprise
from differ.migrate.base import (
    IMPORT_BYTES,
    IN_A_BROWSER,
    Found,
    Watches,
    kinds_note,
    narrow,
    read_file,
    reader,
    strings,
)
from differ.options import format_duration

_UNITS = {"weeks": 604800, "days": 86400, "hours": 3600, "minutes": 60, "seconds": 1}


@reader("changedetection")
def read_changedetection(path: Path) -> Watches:
    """changedetection.io's watches: `url-watches.json` (`{"watching": {uuid: watch}}`, with the
    notification URLs of every watch in its settings), one watch's `watch.json`, a datastore folder holding
    either, or a backup zip of one. Notification URLs (Apprise's) for Slack and Discord become notifiers."""
    everyone: list[str] = []
    watches = dict(_changedetection_watches(path, everyone))
    if not watches:
        raise ConfigError(f"{path}: no changedetection.io watches found (url-watches.json or */watch.json)")
    out = Watches([_changedetection_watch(watch, uuid) for uuid, watch in watches.items()])
    for url in everyone:
        apprise.add(url, None, out)
    for watch in watches.values():
        page = watch.get("url")
        for url in strings(watch.get("notification_urls")):
            if isinstance(page, str):
                apprise.add(url, page, out)
    return out


def _member(archive: zipfile.ZipFile, name: str) -> bytes:
    """A file of a backup zip, unless it says it is larger than any datastore file (a zip bomb is not opened)."""
    if archive.getinfo(name).file_size > IMPORT_BYTES:
        raise TooLarge(f"more than {IMPORT_BYTES:,} bytes")
    return archive.read(name)


def _changedetection_watches(path: Path, everyone: list[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    files: dict[str, Callable[[], bytes]]
    if path.is_dir():
        files = {str(p.relative_to(path)): partial(read_file, p) for p in path.rglob("*.json") if p.is_file()}
    elif path.suffix.lower() == ".zip":
        try:
            archive = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise ConfigError(f"{path}: cannot read the zip: {exc}")
        files = {n: partial(_member, archive, n) for n in archive.namelist() if n.endswith(".json")}
    else:
        files = {path.name: partial(read_file, path)}
    for name, load in sorted(files.items()):
        base = name.rsplit("/", 1)[-1]
        if base not in ("url-watches.json", "watch.json") and len(files) > 1:
            continue
        inside = f" {name}:" if name != path.name else ""
        try:
            data = json.load(io.BytesIO(load()))
        except TooLarge as exc:
            raise ConfigError(f"{path}:{inside} {exc}; not a changedetection.io datastore file")
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{path}:{inside} not valid JSON ({exc})")
        if isinstance(data, dict) and isinstance(data.get("watching"), dict):
            settings = data.get("settings")
            application = settings.get("application") if isinstance(settings, dict) else None
            if isinstance(application, dict):
                everyone += strings(application.get("notification_urls"))
            yield from ((str(k), v) for k, v in data["watching"].items() if isinstance(v, dict))
        elif isinstance(data, dict) and "url" in data:
            yield str(data.get("uuid") or name), data


def _changedetection_watch(watch: Mapping[str, Any], uuid: str) -> Found:
    url = watch.get("url")
    title = watch.get("title") or None
    name = str(title or url or uuid)
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return Found(name, None, skipped=f"not an http or https page ({url!r})")
    if watch.get("processor", "text_json_diff") != "text_json_diff":
        return Found(
            name, None, skipped=f"a {watch['processor']} watch (prices and stock), not a page's text"
        )
    settings: dict[str, Any] = {"paused": True} if watch.get("paused") else {}
    notes: list[str] = []
    if watch.get("fetch_backend") not in (None, "system", "html_requests") or watch.get("browser_steps"):
        notes.append(IN_A_BROWSER)
    if isinstance(watch.get("headers"), dict) and watch["headers"]:
        settings["headers"] = {str(k): str(v) for k, v in watch["headers"].items()}
    if watch.get("method", "GET") != "GET":
        notes.append(f"was asked with {watch['method']}; differ asks with GET")
    for rule in strings(watch.get("include_filters")):
        _changedetection_filter(rule, settings, notes)
    subtract = strings(watch.get("subtractive_selectors"))
    if subtract:
        settings["exclude"] = subtract
    ignore = [_ignored_line(t) for t in strings(watch.get("ignore_text"))]
    if ignore:
        settings["ignore"] = ignore
    triggers = [t.strip() for t in strings(watch.get("trigger_text")) if t.strip()]
    plain = [t for t in triggers if not re.fullmatch(r"/.*/[a-z]*", t)]
    if plain:  # a line with the text anywhere, case aside: differ's words with * on both sides
        words = ", ".join(json.dumps(f"*{t}*", ensure_ascii=False) for t in plain)
        notes.append(
            "was told only of changes with its trigger text; differ tells every change, and a [[notify]] with "
            f"words = [{words}] hears of those that mention it alone"
        )
    if len(plain) < len(triggers) or watch.get("text_should_not_be_present") or watch.get("extract_text"):
        notes.append(
            "its /regex/ trigger, extract or must-not-be-present text has no counterpart in differ; left out"
        )
    # Its filter_text_added, _removed and _replaced, as differ's kinds of change.
    lines = {"added": "added", "removed": "removed", "replaced": "modified"}
    told = [name for name in lines if watch.get(f"filter_text_{name}", True) is not False]
    if not told:
        notes.append(
            "was told of no change (filter_text_added, _removed and _replaced off); differ tells every one"
        )
    elif len(told) < len(lines):
        notes.append(kinds_note(f"lines {' or '.join(told)}", [lines[name] for name in told]))
    interval = _interval(watch)
    if interval:
        settings["interval"] = interval
    kind = "json" if "field" in settings else None
    if kind == "json":
        for key in ("selector", "exclude"):
            if settings.pop(key, None):
                notes.append(f"its CSS {key} is left out: a json source reads one field")
    return Found(name, Page(url, title=str(title) if title else None, kind=kind, settings=settings), notes)


def _changedetection_filter(rule: str, settings: dict[str, Any], notes: list[str]) -> None:
    if not rule:
        return
    if rule.startswith(("json:", "jq:", "jqraw:")):
        field = re.fullmatch(r"json:\$\.([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)", rule)
        if field and "field" not in settings:
            settings["field"] = field.group(1)  # read by the json kind
        else:
            notes.append(f"its JSON filter ({rule}) is left out; a json source reads one field by its path")
    else:
        narrow(settings, notes, rule, either=True)


def _ignored_line(text: str) -> str:
    """changedetection.io ignores each line that contains the text (case folded), or that a `/regex/` finds;
    differ's `ignore` removes what its pattern matches, so the pattern takes the whole line."""
    regex = re.fullmatch(r"/(.*)/([a-z]*)", text.strip())
    if regex:
        flags = "(?i)" if "i" in regex.group(2) else ""
        return f"{flags}^.*(?:{regex.group(1)}).*$"
    return f"(?i)^.*{re.escape(text.strip())}.*$"


def _interval(watch: Mapping[str, Any]) -> str | None:
    """A watch's own time between checks, unless it uses the tool's default."""
    if watch.get("time_between_check_use_default", True):
        return None
    spec = watch.get("time_between_check")
    if not isinstance(spec, dict):
        return None
    seconds = 0
    for unit, size in _UNITS.items():
        count = spec.get(unit)
        if isinstance(count, int | float | str) and str(count).strip().isdecimal():
            seconds += int(str(count).strip()) * size
    return format_duration(seconds) if seconds > 0 else None
