"""`differ import`: the pages another watcher follows, as differ's documents. urlwatch's job list (`urls.yaml`),
changedetection.io's watches (a backup's zip, its datastore folder, `url-watches.json` or a `watch.json`) and a
plain list of URLs are read by a reader registered for each; each page becomes a `Page` for
`edit.add_documents`, with the settings differ has for what the other tool did (a CSS filter is a `selector`,
subtracted selectors `exclude`, ignored text `ignore`, request headers `headers`, a check interval
`interval`). What has no counterpart is named in a note, never dropped silently; formatting filters (html2text,
strip, …) need none, since differ reads every page to canonical Markdown itself. Alerts differ can send (Slack
and Discord webhooks and SMTP e-mail from urlwatch's reporters, Slack, Discord, Teams workflows and e-mail from
changedetection.io's Apprise URLs) become `Notifier`s; one differ would refuse is listed as left out, with the
reason. Each tool's reader is a module of its own (`urlwatch`, `changedetection`, `urllist`), registered in
`base.READERS` by the name `--from` takes; `apprise` reads notification URLs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from differ.edit import Notifier, Page, address_to_watch, same_page
from differ.errors import ConfigError, UsageError
from differ.migrate import changedetection as _changedetection  # noqa: F401  (registers "changedetection")
from differ.migrate import urllist as _urllist  # noqa: F401  (registers "list")
from differ.migrate import urlwatch as _urlwatch  # noqa: F401  (registers "urlwatch")
from differ.migrate.base import READERS, Found, Watches

__all__ = ["READERS", "Found", "Watches", "guess", "read", "read_all"]


def guess(path: Path) -> str:
    """Which tool wrote `path`: YAML is urlwatch's job list; JSON, a zip or a folder changedetection.io's; a
    text file a list of URLs."""
    if path.suffix.lower() in (".yaml", ".yml"):
        return "urlwatch"
    if path.is_dir() or path.suffix.lower() in (".json", ".zip"):
        return "changedetection"
    if path.suffix.lower() in (".txt", ".list", ""):
        return "list"
    raise UsageError(
        f"{path}: cannot tell which tool wrote it; say --from urlwatch (urls.yaml), --from changedetection "
        "(a backup .zip, its datastore folder, url-watches.json or watch.json) or --from list (a URL a line)"
    )


#: what a file read as each tool's was expected to hold, for one that holds no page at all (changedetection.io's
#: reader says so itself, naming the files it looked for)
_EXPECTED = {
    "urlwatch": "urlwatch's jobs (urls.yaml: a job a YAML document, each with a url)",
    "list": "a list of pages (an http or https URL a line)",
}


def read(path: Path, tool: str | None = None) -> list[Found]:
    """The watches in `path`, read as `tool` wrote them (guessed from the path when not given)."""
    return read_all([path], tool).found


def read_all(paths: list[Path], tool: str | None = None) -> Watches:
    """The watches and alerts of every file in `paths` (urlwatch's job list and its urlwatch.yaml, say)."""
    watches = Watches()
    for path in paths:
        kind = tool or guess(path)
        if kind not in READERS:
            raise UsageError(f"--from: expected one of {', '.join(sorted(READERS))}, found {kind!r}")
        if not path.exists():
            raise UsageError(f"{path}: no such file or folder")
        more = READERS[kind](path)
        watches.found += [_checked(_watched_address(f, more.alerts)) for f in more.found]
        for alert in more.alerts:
            why = _refusal(alert, path)
            if why is None:
                watches.alerts.append(alert)
            else:
                watches.left_out.append(
                    f"{path.name}: its {alert.kind} alert, which differ would refuse: {why}"
                )
        watches.left_out += more.left_out
    if not (watches.found or watches.alerts or watches.left_out):
        raise UsageError(
            f"{' and '.join(map(str, paths))}: no page found in {'them' if len(paths) > 1 else 'it'}; "
            f"expected {_EXPECTED.get(kind, 'a watch list')}"
        )
    first: dict[str, int] = {}
    for n, f in enumerate(watches.found, 1):  # one page watched twice, with other filters: the first stays
        if (  # however spelled (`www.`, `utm_`, a slash)
            f.page is not None
            and (earlier := first.setdefault(same_page(f.page.url, f.page.settings.get("entry")), n)) != n
        ):
            f.page, f.skipped = (
                None,
                f"the same page as {watches.found[earlier - 1].name} above, which is imported",
            )
    return watches


def _watched_address(found: Found, alerts: list[Notifier]) -> Found:
    """`found` at the address differ watches (a forge's page of a file: the file; a link as shared: the page it
    names), said in a note; the alerts for it follow it there."""
    if found.page is None:
        return found
    url, said = address_to_watch(found.page.url)
    if said:
        found.notes.append(said)
        for n, alert in enumerate(alerts):
            if alert.pages is not None and found.page.url in alert.pages:
                alerts[n] = replace(
                    alert, pages=tuple(url if p == found.page.url else p for p in alert.pages)
                )
        found.page = replace(found.page, url=url)
    return found


def _refusal(alert: Notifier, path: Path) -> str | None:
    """Why differ would refuse the [[notify]] table made of `alert` (None when it would take it), so that one
    alert differ cannot send never stops the pages from being imported."""
    from differ.config import check_notifier
    from differ.edit import stand_ins

    table = {"name": alert.kind, "kind": alert.kind, **alert.settings}
    try:
        check_notifier(table, "notify", (), path, stand_ins(table, {}))
    except ConfigError as exc:
        return str(exc).split(": ", 1)[-1].removeprefix("notify.").removeprefix("notify: ")
    return None


def _checked(found: Found) -> Found:
    """`found` with each setting differ would refuse (a selector soupsieve cannot read, a pattern Python's re
    cannot) left out with a note, so one watch's setting never stops the others from being imported."""
    from differ.config import adhoc_source
    from differ.edit import needs, page_kind
    from differ.normalize.feeds import EVERY_POST

    page = found.page
    if page is None:
        return found

    kind = page.kind or page_kind(page.url, page.settings)
    missing = needs(kind, page.settings)
    if kind == "feed" and missing:  # a whole feed, as the other tool watched it: its posts coming and going
        page = Page(page.url, page.title, kind, {**page.settings, "entry": EVERY_POST}, page.id)
        found.notes.append(
            'read as its list of posts (entry = "*"): a new post is a change; to watch one post\'s text, set '
            "entry to its URL"
        )
        found.page, missing = page, None
    if missing:  # what the other tool read whole: differ's json kind reads one field
        page = Page(page.url, page.title, "text", page.settings, page.id)
        found.notes.append(
            f'read as text; to read it as {kind}, set kind = "{kind}" and {missing[0]} ({missing[1]})'
        )
        found.page, kind = page, "text"

    def refusal(settings: Mapping[str, Any]) -> str | None:
        try:
            adhoc_source({"url": page.url, "kind": kind, **settings})
        except ConfigError as exc:
            return str(exc).removeprefix("--set ")
        return None

    try:
        json.dumps([page.url, page.title, page.settings], ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, TypeError, ValueError):
        return Found(
            found.name, None, found.notes, skipped="its settings hold text that is not valid Unicode"
        )
    if refusal(page.settings) is None:
        return found
    settings = dict(page.settings)
    for key, value in page.settings.items():
        why = refusal({key: value})
        if why is not None:
            del settings[key]
            found.notes.append(f"left out its {why}")
    why = refusal(settings)
    if why is not None:
        return Found(found.name, None, found.notes, skipped=why)
    found.page = Page(page.url, page.title, page.kind, settings, page.id)
    return found
