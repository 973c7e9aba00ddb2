"""`differ import`: the pages another watcher follows, as differ's documents. urlwatch's job list (`urls.yaml`),
changedetection.io's watches (a backup's zip, its datastore folder, `url-watches.json` or a `watch.json`) and a
plain list of URLs are read by a reader registered for each; each page becomes a `Page` for
`edit.add_documents`, with the settings differ has for what the other tool did (a CSS filter is a `selector`,
subtracted selectors `exclude`, ignored text `ignore`, request headers `headers`, a check interval
`interval`). What has no counterpart is named in a note, never dropped silently; formatting filters (html2text,
strip, …) need none, since differ reads every page to canonical Markdown itself. Alerts differ can send (Slack
and Discord webhooks and SMTP e-mail from urlwatch's reporters, Slack, Discord, Teams workflows and e-mail from
changedetection.io's Apprise URLs) become `Notifier`s; one differ would refuse is listed as left out, with the
reason."""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from differ.edit import Notifier, Page
from differ.errors import ConfigError, UsageError
from differ.options import format_duration

# urlwatch filters that only reformat text: differ's own reading of the page does their work
_FORMATTING = {
    "html2text",
    "strip",
    "beautify",
    "pretty-xml",
    "format-xml",
    "format-json",
    "remove-duplicate-lines",
    "reverse",
    "sort",
    "ascii85",
    "base64",
}
_UNITS = {"weeks": 604800, "days": 86400, "hours": 3600, "minutes": 60, "seconds": 1}


@dataclass
class Found:
    """One watch of the other tool: the page differ would add, or why it is left out; and notes on what of
    its settings differ does otherwise or not at all."""

    name: str
    page: Page | None
    notes: list[str] = field(default_factory=list)
    skipped: str = ""


@dataclass
class Watches:
    """What a file holds: the watches, the alerts that become [[notify]] tables, and the alerts left out."""

    found: list[Found] = field(default_factory=list)
    alerts: list[Notifier] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # "where: why", for alerts differ cannot send


Reader = Callable[[Path], Watches]
READERS: dict[str, Reader] = {}


def reader(name: str) -> Callable[[Reader], Reader]:
    def register(fn: Reader) -> Reader:
        READERS[name] = fn
        return fn

    return register


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
        watches.found += [_checked(f) for f in more.found]
        for alert in more.alerts:
            why = _refusal(alert, path)
            if why is None:
                watches.alerts.append(alert)
            else:
                watches.left_out.append(
                    f"{path.name}: its {alert.kind} alert, which differ would refuse: {why}"
                )
        watches.left_out += more.left_out
    first: dict[str, int] = {}
    for n, f in enumerate(watches.found, 1):  # one page watched twice, with other filters: the first stays
        if f.page is not None and (earlier := first.setdefault(f.page.url, n)) != n:
            f.page, f.skipped = (
                None,
                f"the same page as {watches.found[earlier - 1].name} above, which is imported",
            )
    return watches


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

    page = found.page
    if page is None:
        return found

    def refusal(settings: Mapping[str, Any]) -> str | None:
        try:
            adhoc_source({"url": page.url, "kind": page.kind or "html", **settings})
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


# a list of URLs


@reader("list")
def read_list(path: Path) -> Watches:
    """A text file with a URL a line, the page's title after it if wanted; blank lines and `#` comments are
    skipped."""
    try:
        rows = path.read_text(encoding="utf-8-sig").splitlines()
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


# urlwatch


@reader("urlwatch")
def read_urlwatch(path: Path) -> Watches:
    """urlwatch's `urls.yaml`, one YAML document a job, or its `urlwatch.yaml`, whose reporters are alerts."""
    import yaml

    try:
        jobs = [job for job in yaml.safe_load_all(path.read_text(encoding="utf-8")) if job is not None]
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}: not a urlwatch job list: invalid YAML{where}")
    if len(jobs) == 1 and isinstance(jobs[0], dict) and "report" in jobs[0] and "url" not in jobs[0]:
        return _urlwatch_reporters(jobs[0].get("report"), path)
    found = []
    for number, job in enumerate(jobs, 1):
        if not isinstance(job, dict):
            raise ConfigError(
                f"{path}: job {number}: expected a mapping of job settings, found {type(job).__name__}"
            )
        found.append(_urlwatch_job(job, number))
    return Watches(found)


def _urlwatch_reporters(report: Any, path: Path) -> Watches:
    """urlwatch's enabled reporters: Slack and Discord webhooks and SMTP e-mail become notifiers for every
    page; the others are named as left out."""
    watches = Watches()
    for name, settings in (report or {}).items() if isinstance(report, dict) else []:
        if not isinstance(settings, dict) or not settings.get("enabled"):
            continue
        url = settings.get("webhook_url")
        if name in ("slack", "discord") and isinstance(url, str) and url:
            watches.alerts.append(Notifier(name, {"url": url}))
        elif name in ("text", "html", "markdown", "stdout"):
            continue  # how urlwatch formats or prints its report: differ's own outputs do that
        elif name == "email":
            _urlwatch_email(settings, path, watches)
        else:
            watches.left_out.append(f"{path.name} report.{name}: differ has no {name} notifier")
    return watches


def _urlwatch_email(settings: Mapping[str, Any], path: Path, watches: Watches) -> None:
    """urlwatch's e-mail reporter as an `email` notifier, when it sends through an SMTP relay. urlwatch keeps
    the password in the system keyring, which differ does not read: it is taken from SMTP_PASSWORD."""
    where = f"{path.name} report.email"
    if settings.get("method", "smtp") != "smtp":
        watches.left_out.append(
            f"{where}: sent through {settings.get('method')}; differ sends through an SMTP relay"
        )
        return
    smtp = settings.get("smtp") if isinstance(settings.get("smtp"), dict) else {}
    assert isinstance(smtp, dict)
    port = smtp.get("port") if isinstance(smtp.get("port"), int) else 25
    table: dict[str, Any] = {
        "host": str(smtp.get("host") or "localhost"),
        "port": port,
        "security": "starttls" if smtp.get("starttls", True) else "tls" if port == 465 else "none",
        "from": str(settings.get("from") or ""),
        "to": [a.strip() for a in str(settings.get("to") or "").split(",") if a.strip()],
    }
    note = ""
    if smtp.get("auth") and smtp.get("user"):
        table["username"] = str(smtp["user"])
        if smtp.get("insecure_password"):
            table["password"] = str(smtp["insecure_password"])
        else:
            table["password"] = "${SMTP_PASSWORD}"
            note = "set SMTP_PASSWORD in differ's environment: urlwatch kept the password in a keyring"
    watches.alerts.append(Notifier("email", table, None, note))


def _urlwatch_job(job: Mapping[str, Any], number: int) -> Found:
    url = job.get("url") or job.get("navigate")
    name = str(job.get("name") or url or job.get("command") or f"job {number}")
    if "command" in job or job.get("kind") == "shell":
        return Found(name, None, skipped="a shell command, not a page")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return Found(name, None, skipped=f"not an http or https page ({url!r})")
    settings: dict[str, Any] = {}
    notes: list[str] = []
    if job.get("use_browser") or "navigate" in job or job.get("kind") == "browser":
        notes.append("was loaded in a browser; differ reads the page as served, without running its scripts")
    if isinstance(job.get("headers"), dict):
        settings["headers"] = {str(k): str(v) for k, v in job["headers"].items()}
    if job.get("method", "GET") != "GET" or "data" in job:
        method = str(job.get("method") or "POST")  # urlwatch posts `data` when no method is given
        notes.append(f"was asked with {method}{' and data' if 'data' in job else ''}; differ asks with GET")
    if job.get("ssl_no_verify"):
        notes.append("had ssl_no_verify; differ always verifies certificates")
    for kind, arg in _urlwatch_filters(job.get("filter")):
        _urlwatch_filter(kind, arg, settings, notes)
    title = str(job["name"]) if job.get("name") else None
    return Found(name, Page(url, title=title, settings=settings), notes)


def _urlwatch_filters(spec: Any) -> Iterator[tuple[str, Any]]:
    """(filter, argument) pairs of a job's `filter`: a list of names and one-key mappings, or the older
    comma-separated string (`css:div.post,html2text`)."""
    if spec is None:
        return
    if isinstance(spec, str):
        for part in spec.split(","):
            kind, _, arg = part.strip().partition(":")
            yield kind.strip(), arg.strip() or None
        return
    for item in spec if isinstance(spec, list) else [spec]:
        if isinstance(item, str):
            yield item, None
        elif isinstance(item, dict):
            yield from ((str(k), v) for k, v in item.items())


def _urlwatch_filter(kind: str, arg: Any, settings: dict[str, Any], notes: list[str]) -> None:
    if kind in _FORMATTING:
        return
    if kind in ("css", "xpath", "element-by-id", "element-by-class", "element-by-tag"):
        key = "path" if kind == "xpath" else "selector"
        selector, exclude = (arg.get(key), arg.get("exclude")) if isinstance(arg, dict) else (arg, None)
        if not isinstance(selector, str) or not selector.strip():
            notes.append(f"its {kind} filter names no {key}; left out")
            return
        mark = _as_xpath if kind == "xpath" else str.strip
        prefix = {"element-by-id": "#", "element-by-class": "."}.get(kind, "")
        _narrow(settings, notes, prefix + mark(selector))
        if isinstance(exclude, str) and exclude.strip():
            settings.setdefault("exclude", []).append(mark(exclude))
        return
    if kind == "re.sub":
        pattern, repl = (arg.get("pattern"), arg.get("repl", "")) if isinstance(arg, dict) else (arg, "")
        if isinstance(pattern, str) and pattern and not repl:
            settings.setdefault("ignore", []).append(pattern)
            return
    notes.append(f"its {kind} filter has no counterpart in differ; left out")


def _narrow(settings: dict[str, Any], notes: list[str], selector: str, *, either: bool = False) -> None:
    """A content root; a second one is left out with a note: a filter applied inside the first (urlwatch's
    filters run one after another), or, `either`, another rule whose matches were added (changedetection.io's
    include filters)."""
    if "selector" not in settings:
        settings["selector"] = selector
    elif either:
        notes.append(
            f"its include filter {selector} is left out: differ reads one content root ({settings['selector']})"
        )
    else:
        notes.append(f"a second selector ({selector}) inside {settings['selector']} is left out")


# changedetection.io


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
        _apprise(url, None, out)
    for watch in watches.values():
        page = watch.get("url")
        for url in _strings(watch.get("notification_urls")):
            if isinstance(page, str):
                _apprise(url, page, out)
    return out


_SLACK_TOKENS = re.compile(r"slack://(?:[^@/]*@)?(T\w+)/(B\w+)/(\w+)/?(?:#?[\w-]*)?")
_DISCORD = re.compile(r"discord://(?:[^@/]*@)?(\d+)/([\w-]+)/?")
# Apprise's short form of a Teams workflow's webhook: workflows://HOST[:PORT]/WORKFLOW/SIGNATURE[?pa=yes&ver=…]
_WORKFLOWS = re.compile(r"workflows?://([\w.-]+(?::\d+)?)/([\w-]+)/([\w-]+)/?")


def _apprise(url: str, page: str | None, watches: Watches) -> None:
    """An Apprise notification URL as a differ notifier for `page` (every page when None), or a line saying
    why it is left out. A notifier for several pages is one notifier naming them all."""
    bare = url.split("?", 1)[0]
    target: tuple[str, str] | None = None
    if url.startswith(("mailto://", "mailtos://")):
        table = _apprise_email(url)
        note = (
            "its password is written as the notification URL held it; to keep it out of the file, put it in an "
            'environment variable and write password = "${NAME}"'
            if table.get("password")
            else ""
        )
        _add_alert(watches, Notifier("email", table, note=note), page)
        return
    if m := _SLACK_TOKENS.fullmatch(bare):
        target = ("slack", f"https://hooks.slack.com/services/{m[1]}/{m[2]}/{m[3]}")
    elif bare.startswith("https://hooks.slack.com/services/"):
        target = ("slack", bare)
    elif m := _DISCORD.fullmatch(bare):
        target = ("discord", f"https://discord.com/api/webhooks/{m[1]}/{m[2]}")
    elif re.match(r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/", bare):
        target = ("discord", bare)
    elif m := _WORKFLOWS.fullmatch(bare):
        target = ("teams", _workflow_url(m[1], m[2], m[3], url))
    elif url.startswith("https://") and "/workflows/" in bare and "/triggers/" in bare and "sig=" in url:
        target = ("teams", url)  # a Teams workflow's own webhook URL, which Apprise takes as it is
    if target is None:
        scheme = url.split("://", 1)[0] if "://" in url else url[:20]
        watches.left_out.append(f"notification URL {scheme}://…: differ has no notifier it can make of it")
        return
    kind, webhook = target
    _add_alert(watches, Notifier(kind, {"url": webhook}), page)


def _add_alert(watches: Watches, alert: Notifier, page: str | None) -> None:
    """`alert` for `page` (every page when None), joined to the same alert for other pages when there is one."""
    for k, known in enumerate(watches.alerts):
        if (known.kind, dict(known.settings)) == (alert.kind, dict(alert.settings)):
            if known.pages is not None:
                pages = None if page is None else (*known.pages, page)
                watches.alerts[k] = Notifier(known.kind, known.settings, pages, known.note)
            return
    watches.alerts.append(Notifier(alert.kind, alert.settings, None if page is None else (page,), alert.note))


# Apprise's defaults for well-known providers, used when its URL names no `smtp` server (mailto://me:pw@gmail.com):
# the relay, its port and security, and whether the login is the whole address
_MAIL_PROVIDERS = [
    (re.compile(r"gmail\.com"), "smtp.gmail.com", 587, "starttls", True),
    (re.compile(r"(?:hotmail|live)\.com"), "smtp.live.com", 587, "starttls", True),
    (re.compile(r"yahoo\.(?:ca|com)"), "smtp.mail.yahoo.com", 465, "tls", True),
    (re.compile(r"fastmail\.(?:com|fm)"), "smtp.fastmail.com", 465, "tls", True),
    (re.compile(r"zoho\.com"), "smtp.zoho.com", 465, "tls", True),
]


def _apprise_email(url: str) -> dict[str, Any]:
    """Apprise's `mailto://USER:PASSWORD@DOMAIN[:PORT][/TO…][?to=&from=&name=&smtp=&mode=ssl|starttls]` (`mailtos`:
    over TLS) as an `email` notifier's options, as Apprise reads it: the sender is USER@DOMAIN unless `from`
    says otherwise, the relay DOMAIN (or a provider's, or `smtp`), the recipients the sender when none is named.
    The password is written as the URL kept it; differ checks the table as it checks config.toml's."""
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    user = unquote(parts.username or query.get("user", ""))
    password = unquote(parts.password or query.get("pass", ""))
    domain = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:
        port = None
    sender = query.get("from") or (f"{user.split('@')[0]}@{domain}" if user else "")
    to = [unquote(p) for p in parts.path.split("/") if p] + [
        a for a in re.split(r"[\s,]+", query.get("to", "")) if a
    ]
    secure = parts.scheme == "mailtos"
    security = ("tls" if query.get("mode", "").lower() == "ssl" else "starttls") if secure else "none"
    host = query.get("smtp") or query.get("smtp_host")
    if not host:
        host = domain
        known = next((p for p in _MAIL_PROVIDERS if p[0].fullmatch(domain.lower())), None)
        if known:
            _, host, port, security, whole_address = known
            if whole_address and "@" not in user:
                user = f"{user}@{domain}"
    table: dict[str, Any] = {
        "host": host,
        "security": security,
        "from": f"{query['name']} <{sender}>" if query.get("name") else sender,
        "to": to or [sender],
    }
    if port:
        table["port"] = (
            port  # else the port of its security, as Apprise's (465 where it would try 587 for TLS)
        )
    if user and password:
        table["username"], table["password"] = user, password
    return table


def _workflow_url(host: str, workflow: str, signature: str, url: str) -> str:
    """The https URL Apprise posts to for `workflows://HOST/WORKFLOW/SIGNATURE` (a Power Automate one with
    `pa=yes`, another API version with `ver=`)."""
    query = parse_qs(urlsplit(url).query)
    automate = (query.get("pa") or query.get("powerautomate") or ["no"])[0].lower() in (
        "yes",
        "true",
        "1",
        "on",
    )
    version = (query.get("ver") or query.get("api-version") or [""])[0]
    version = version or ("2022-03-01-preview" if automate else "2016-06-01")
    path = "/powerautomate/automations/direct" if automate else ""
    return (
        f"https://{host}{path}/workflows/{workflow}/triggers/manual/paths/invoke?api-version={version}"
        f"&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={signature}"
    )


def _changedetection_watches(path: Path, everyone: list[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    files: dict[str, Callable[[], bytes]]
    if path.is_dir():
        files = {str(p.relative_to(path)): p.read_bytes for p in path.rglob("*.json") if p.is_file()}
    elif path.suffix.lower() == ".zip":
        try:
            archive = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise ConfigError(f"{path}: cannot read the zip: {exc}")
        files = {n: partial(archive.read, n) for n in archive.namelist() if n.endswith(".json")}
    else:
        files = {path.name: path.read_bytes}
    for name, load in sorted(files.items()):
        base = name.rsplit("/", 1)[-1]
        if base not in ("url-watches.json", "watch.json") and len(files) > 1:
            continue
        try:
            data = json.load(io.BytesIO(load()))
        except (OSError, ValueError) as exc:
            inside = f" {name}:" if name != path.name else ""
            raise ConfigError(f"{path}:{inside} not valid JSON ({exc})")
        if isinstance(data, dict) and isinstance(data.get("watching"), dict):
            settings = data.get("settings")
            application = settings.get("application") if isinstance(settings, dict) else None
            if isinstance(application, dict):
                everyone += _strings(application.get("notification_urls"))
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
        notes.append("was loaded in a browser; differ reads the page as served, without running its scripts")
    if isinstance(watch.get("headers"), dict) and watch["headers"]:
        settings["headers"] = {str(k): str(v) for k, v in watch["headers"].items()}
    if watch.get("method", "GET") != "GET":
        notes.append(f"was asked with {watch['method']}; differ asks with GET")
    for rule in _strings(watch.get("include_filters")):
        _changedetection_filter(rule, settings, notes)
    subtract = _strings(watch.get("subtractive_selectors"))
    if subtract:
        settings["exclude"] = subtract
    ignore = [_ignored_line(t) for t in _strings(watch.get("ignore_text"))]
    if ignore:
        settings["ignore"] = ignore
    if watch.get("trigger_text") or watch.get("text_should_not_be_present") or watch.get("extract_text"):
        notes.append(
            "its trigger, extract or must-not-be-present text has no counterpart in differ; left out"
        )
    interval = _interval(watch)
    if interval:
        settings["interval"] = interval
    kind = "json" if "field" in settings else None
    if kind == "json":
        for key in ("selector", "exclude"):
            if settings.pop(key, None):
                notes.append(f"its CSS {key} is left out: a json source reads one field")
    return Found(name, Page(url, title=str(title) if title else None, kind=kind, settings=settings), notes)


def _strings(value: Any) -> list[str]:
    """A list setting's non-empty strings (one string stands for a list of one)."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [item.strip() for item in items if isinstance(item, str) and item.strip()]


def _as_xpath(path: str) -> str:
    """urlwatch's XPath as a differ selector: marked `xpath:` where it does not start as only XPath can."""
    from differ.normalize import xpath

    return path.strip() if xpath.is_xpath(path) else f"xpath:{path.strip()}"


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
        _narrow(settings, notes, rule, either=True)


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
        if isinstance(count, int | float | str) and str(count).strip().isdigit():
            seconds += int(str(count).strip()) * size
    return format_duration(seconds) if seconds > 0 else None
