"""urlwatch's job list (`urls.yaml`) and its reporters (`urlwatch.yaml`): a job's filters become a source's
settings, its Slack, Discord, Mattermost, Matrix, Telegram and SMTP reporters notifiers."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from differ.edit import Notifier, Page
from differ.errors import ConfigError
from differ.migrate.base import (
    IN_A_BROWSER,
    Found,
    Watches,
    kinds_note,
    narrow,
    read_file,
    reader,
    secret_note,
)

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


@reader("urlwatch")
def read_urlwatch(path: Path) -> Watches:
    """urlwatch's `urls.yaml`, one YAML document a job, or its `urlwatch.yaml`, whose reporters are alerts."""
    import yaml

    try:
        jobs = [job for job in yaml.safe_load_all(read_file(path).decode("utf-8")) if job is not None]
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
    """urlwatch's enabled reporters: Slack, Discord and Mattermost webhooks, Matrix rooms, Telegram chats and SMTP
    e-mail become notifiers for every page; the others are named as left out."""
    watches = Watches()
    for name, settings in (report or {}).items() if isinstance(report, dict) else []:
        if not isinstance(settings, dict) or not settings.get("enabled"):
            continue
        url = settings.get("webhook_url")
        if name in ("slack", "discord", "mattermost") and isinstance(url, str) and url:
            watches.alerts.append(Notifier(name, {"url": url}))
        elif name == "webhook" and isinstance(url, str) and url:  # {"text": …} to a Slack-style webhook
            if url.startswith("https://hooks.slack.com/"):
                watches.alerts.append(Notifier("slack", {"url": url}))
            elif "/hooks/" in url:
                watches.alerts.append(Notifier("mattermost", {"url": url}))
            else:
                watches.left_out.append(
                    f"{path.name} report.webhook: a Slack-style webhook differ cannot tell the service of; "
                    "differ's own webhooks are signed JSON events"
                )
        elif name == "telegram":
            chats = settings.get("chat_id")
            chats = chats if isinstance(chats, list) else [] if chats is None else [chats]
            if not isinstance(settings.get("bot_token"), str) or not chats:
                watches.left_out.append(f"{path.name} report.telegram: expected a bot_token and a chat_id")
            for chat in chats if isinstance(settings.get("bot_token"), str) else []:
                table = {"bot_token": settings["bot_token"], "chat": str(chat)}
                note = secret_note("bot_token", "bot token", "urlwatch.yaml")
                watches.alerts.append(Notifier("telegram", table, note=note))
        elif name == "matrix" and all(isinstance(settings.get(k), str) for k in ("homeserver", "room_id")):
            table = {
                "url": settings["homeserver"],
                "room": settings["room_id"],
                "access_token": str(settings.get("access_token") or ""),
            }
            note = secret_note("access_token", "access token", "urlwatch.yaml")
            watches.alerts.append(Notifier("matrix", table, note=note))
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
        notes.append(IN_A_BROWSER)
    if isinstance(job.get("headers"), dict):
        settings["headers"] = {str(k): str(v) for k, v in job["headers"].items()}
    if job.get("method", "GET") != "GET" or "data" in job:
        method = str(job.get("method") or "POST")  # urlwatch posts `data` when no method is given
        notes.append(f"was asked with {method}{' and data' if 'data' in job else ''}; differ asks with GET")
    if job.get("ssl_no_verify"):
        notes.append("had ssl_no_verify; differ always verifies certificates")
    for kind, arg in _urlwatch_filters(job.get("filter")):
        _urlwatch_filter(kind, arg, settings, notes)
    if job.get("additions_only"):
        notes.append(kinds_note("additions (additions_only)", ["added", "modified"]))
    elif job.get("deletions_only"):
        notes.append(kinds_note("deletions (deletions_only)", ["removed", "modified"]))
    title = str(job["name"]) if job.get("name") else None
    read_as = "json" if "field" in settings else None
    return Found(name, Page(url, title=title, kind=read_as, settings=settings), notes)


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
        narrow(settings, notes, prefix + mark(selector))
        if isinstance(exclude, str) and exclude.strip():
            settings.setdefault("exclude", []).append(mark(exclude))
        return
    if kind == "jq" and isinstance(arg, str) and (path := _JQ_PATH.fullmatch(arg.strip())):
        settings["field"] = path.group(1)  # read by the json kind
        return
    if kind == "re.sub":
        pattern, repl = (arg.get("pattern"), arg.get("repl", "")) if isinstance(arg, dict) else (arg, "")
        if isinstance(pattern, str) and pattern and not repl:
            settings.setdefault("ignore", []).append(pattern)
            return
    notes.append(f"its {kind} filter has no counterpart in differ; left out")


# A jq query that names one field (`.data.content`): the json kind's `field`.
_JQ_PATH = re.compile(r"\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)")


def _as_xpath(path: str) -> str:
    """urlwatch's XPath as a differ selector: marked `xpath:` where it does not start as only XPath can."""
    from differ.normalize.selectors import is_xpath

    return path.strip() if is_xpath(path) else f"xpath:{path.strip()}"
