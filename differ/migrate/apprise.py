"""Apprise notification URLs (changedetection.io's) as differ notifiers: Slack, Discord, Teams workflows, Google
Chat, Zulip, Matrix, Mattermost, Telegram, ntfy and SMTP e-mail; any other is named as left out. A Google Chat
thread key is not carried over: differ keeps each document's alerts in a thread of their own."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from differ.edit import Notifier
from differ.migrate.base import Watches, secret_note

_SLACK_TOKENS = re.compile(r"slack://(?:[^@/]*@)?(T\w+)/(B\w+)/(\w+)/?(?:#?[\w-]*)?")
_DISCORD = re.compile(r"discord://(?:[^@/]*@)?(\d+)/([\w-]+)/?")
# Apprise's short form of a Teams workflow's webhook: workflows://HOST[:PORT]/WORKFLOW/SIGNATURE[?pa=yes&ver=…]
_WORKFLOWS = re.compile(r"workflows?://([\w.-]+(?::\d+)?)/([\w-]+)/([\w-]+)/?")
# Apprise's short form of a Google Chat webhook: gchat://SPACE/KEY/TOKEN[/THREADKEY]
_GCHAT = re.compile(r"gchat://([\w-]+)/([^/?#]+)/([^/?#]+)(?:/[^/?#]*)?/?")


def add(url: str, page: str | None, watches: Watches) -> None:
    """An Apprise notification URL as a differ notifier for `page` (every page when None), or a line saying
    why it is left out. A notifier for several pages is one notifier naming them all."""
    bare = url.split("?", 1)[0]
    target: tuple[str, str] | None = None
    if url.startswith(("mailto://", "mailtos://")):
        table = email_options(url)
        _add_alert(
            watches,
            Notifier("email", table, note=secret_note("password") if table.get("password") else ""),
            page,
        )
        return
    scheme = url.split("://")[0]
    if url.startswith("zulip://"):
        found = zulip_options(url) or "not the form zulip://BOT@ORG/TOKEN[/CHANNEL]"
        _add_all(watches, "zulip", found, page, scheme, lambda _: secret_note("api_key", "API key"))
        return
    if url.startswith(("matrix://", "matrixs://")):
        found = matrix_options(url)
        _add_all(
            watches, "matrix", found, page, scheme, lambda _: secret_note("access_token", "access token")
        )
        return
    if url.startswith("tgram://"):
        _add_all(watches, "telegram", telegram_options(url), page, scheme, lambda _: secret_note("bot_token"))
        return
    if url.startswith(("ntfy://", "ntfys://")) or re.match(r"https?://ntfy\.sh/[^/?]+", url):

        def ntfy_note(table: dict[str, Any]) -> str:
            secret = "token" if "token" in table else "password" if "password" in table else ""
            return secret_note(secret) if secret else ""

        _add_all(watches, "ntfy", ntfy_options(url), page, scheme, ntfy_note)
        return
    if url.startswith(("mmost://", "mmosts://")):
        found = mattermost_options(url) or "not the form mmost://HOST/TOKEN"
        _add_all(watches, "mattermost", found, page, "mmost", lambda _: "")
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
    elif m := _GCHAT.fullmatch(bare):
        target = (
            "googlechat",
            f"https://chat.googleapis.com/v1/spaces/{m[1]}/messages?key={m[2]}&token={m[3]}",
        )
    elif re.fullmatch(r"https?://[^/?#]+(?:/[^?#]*)?/hooks/[a-z0-9]{26}", bare):
        target = ("mattermost", bare)  # a Mattermost webhook's own URL
    elif re.match(r"https://chat\.googleapis\.com/v1/spaces/[\w-]+/messages$", bare) and "token=" in url:
        target = ("googlechat", url)  # the space's own webhook URL, which Apprise takes as it is
    if target is None:
        scheme = url.split("://", 1)[0] if "://" in url else url[:20]
        watches.left_out.append(f"notification URL {scheme}://…: differ has no notifier it can make of it")
        return
    kind, webhook = target
    _add_alert(watches, Notifier(kind, {"url": webhook}), page)


_ZULIP = re.compile(r"zulip://([\w-]{1,32})@([\w-]{1,32})(?:\.([^/]+))?/([A-Za-z0-9]{32})((?:/[^/?#]+)*)/?")


def zulip_options(url: str) -> list[dict[str, Any]] | None:
    """Apprise's `zulip://BOT@ORG[.HOST]/TOKEN[/CHANNEL…][?to=…]` as `zulip` notifiers' options, one a channel,
    as Apprise reads it: the bot's address BOT-bot@ORG.HOST (HOST zulipchat.com unless given), the channel
    `general` when none is named; a target that is an e-mail address (a direct message) is not a channel."""
    bare, _, query = url.partition("?")
    m = _ZULIP.fullmatch(bare)
    if m is None:
        return None
    bot, org, host, token = m[1].removesuffix("-bot"), m[2], m[3] or "zulipchat.com", m[4]
    targets = [unquote(t).lstrip("#") for t in m[5].split("/") if t]
    targets += [t.lstrip("#") for t in re.split(r"[\s,#\\/]+", parse_qs(query).get("to", [""])[-1]) if t]
    channels = [t for t in targets if "@" not in t] or (["general"] if not targets else [])
    return [
        {
            "url": f"https://{org}.{host}",
            "email": f"{bot}-bot@{org}.{host}",
            "api_key": token,
            "channel": channel,
        }
        for channel in channels
    ]


def _add_all(
    watches: Watches,
    kind: str,
    found: list[dict[str, Any]] | str,
    page: str | None,
    scheme: str,
    note: Callable[[dict[str, Any]], str],
) -> None:
    """A notifier of `kind` for each table found (each with its note), or the reason none is, as left out."""
    if isinstance(found, str):
        watches.left_out.append(f"notification URL {scheme}://…: {found}")
        return
    for table in found:
        _add_alert(watches, Notifier(kind, table, note=note(table)), page)


@dataclass
class _URL:
    """An Apprise URL in its parts, as Apprise reads one: the query is taken off before the path, since a room's
    or channel's `#` there is not a fragment."""

    scheme: str
    user: str
    password: str
    host: str  # HOST[:PORT] as written
    path: list[str]  # the path's segments, unquoted
    query: dict[str, list[str]]

    def get(self, key: str) -> str:
        """A query parameter's (last) value, "" when absent."""
        return (self.query.get(key) or [""])[-1]

    def to(self) -> list[str]:
        """The targets a `to=` lists, as Apprise splits them (spaces, commas, slashes)."""
        return [t for t in re.split(r"[\s,/]+", self.get("to")) if t]


def _read(url: str) -> _URL:
    scheme, _, rest = url.partition("://")
    rest, _, query = rest.partition("?")
    netloc, _, path = rest.partition("/")
    userinfo, _, host = netloc.rpartition("@")
    user, _, password = (unquote(part) for part in userinfo.partition(":"))
    return _URL(scheme, user, password, host, [unquote(p) for p in path.split("/") if p], parse_qs(query))


def telegram_options(url: str) -> list[dict[str, Any]] | str:
    """Apprise's `tgram://BOT_TOKEN/CHAT[:TOPIC]/…[?topic=…&silent=yes]` as `telegram` notifiers' options, a chat
    each (a chat's name gets its `@`), or why differ cannot send where it did."""
    parts = _read(url)
    token = parts.host.removeprefix("bot")
    if not re.fullmatch(r"\d+:[\w-]+", token):
        return "not the form tgram://BOT_TOKEN/CHAT_ID"
    targets = parts.path + parts.to()
    if not targets:
        return "it names no chat (Apprise would message the bot's owner, whom it finds); name the chat"
    topic = parts.get("topic") or parts.get("thread")
    silent = parts.get("silent").lower() in ("yes", "true", "1", "on")
    tables = []
    for target in targets:
        m = re.fullmatch(r"(-?\d{1,32}|@?[A-Za-z_-][\w-]*)(?::(\d+))?", target)
        if m is None:
            continue
        chat = m[1] if m[1].lstrip("-").isdecimal() else "@" + m[1].lstrip("@")
        thread = m[2] or topic
        tables.append(
            {
                "bot_token": token,
                "chat": chat,
                **({"thread": int(thread)} if thread.isdecimal() else {}),
                **({"silent": True} if silent else {}),
            }
        )
    return tables


_NTFY_PRIORITY = {"min": 1, "low": 2, "default": 3, "high": 4, "max": 5}


def ntfy_options(url: str) -> list[dict[str, Any]] | str:
    """Apprise's `ntfy[s]://[USER:PASSWORD@|TOKEN@]HOST[:PORT]/TOPIC…` (a server of your own) or `ntfy://TOPIC`
    and `https://ntfy.sh/TOPIC` (ntfy.sh) as `ntfy` notifiers' options, a topic each, as Apprise reads them: a
    user that starts with `tk_`, or `token=`, is an access token; `priority=` by name or number."""
    parts = _read(url)
    user, password, topics = parts.user, parts.password, parts.path
    if parts.host.lower() == "ntfy.sh" or not topics:  # ntfy.sh: a name alone is the topic
        server, topics = "https://ntfy.sh", topics or [parts.host]
    else:
        server = f"{'http' if parts.scheme == 'ntfy' else 'https'}://{parts.host}"
    token = parts.get("token") or (user if user.startswith("tk_") and not password else "")
    if not token and parts.get("auth") == "token":
        token = password or user
    auth = (
        {"token": token} if token else {"username": user, "password": password} if user and password else {}
    )
    level = parts.get("priority").lower()
    priority = _NTFY_PRIORITY.get(level) or (int(level) if level in ("1", "2", "3", "4", "5") else 0)
    tables = [
        {"url": server, "topic": topic, **auth, **({"priority": priority} if priority else {})}
        for topic in topics
        if re.fullmatch(r"[-_A-Za-z0-9]{1,64}", topic)
    ]
    return tables or "not the form ntfy://TOPIC or ntfy://HOST/TOPIC"


def mattermost_options(url: str) -> list[dict[str, Any]]:
    """Apprise's `mmost[s]://[BOTNAME@]HOST[:PORT][/PATH]/TOKEN[?channel=…&to=…]` as `mattermost` notifiers'
    options, a channel each (one for the webhook's own channel when none is named): the webhook
    `http[s]://HOST[:PORT][/PATH]/hooks/TOKEN` (a plain `mmost://` without a port on Mattermost's 8065, as Apprise
    has it), BOTNAME as the username posts appear under."""
    parts = _read(url)
    if not parts.path:
        return []
    host = parts.host if parts.scheme != "mmost" or ":" in parts.host else parts.host + ":8065"
    prefix = "".join(f"/{p}" for p in parts.path[:-1])
    hook = f"{'https' if parts.scheme == 'mmosts' else 'http'}://{host}{prefix}/hooks/{parts.path[-1]}"
    named = [
        c.lstrip("#")
        for key in ("channel", "to")
        for v in parts.query.get(key, [])
        for c in re.split(r"[\s,]+", v)
    ]
    base = {"url": hook, **({"username": parts.user} if parts.user else {})}
    return [{**base, **({"channel": c} if c else {})} for c in [c for c in named if c] or [""]]


def matrix_options(url: str) -> list[dict[str, Any]] | str:
    """Apprise's `matrix[s]://TOKEN@HOST[:PORT]/ROOM…[?to=…]` as `matrix` notifiers' options, a room each, as
    Apprise reads it (a `token=` in the query, or the one name before `@`, is the access token; a bare room name
    is `#NAME:HOST`), or why differ cannot post where it did: a login with a password, a webhook bridge (`mode=`,
    or a URL with neither token nor room), or direct messages alone."""
    parts = _read(url)
    user, password, hostport = parts.user, parts.password, parts.host
    token = parts.get("token") or password or user
    targets = parts.path + parts.to()
    if user and password and not parts.get("token"):
        return (
            "it logs in with a password; differ posts with the bot account's access token (log in once and "
            "set access_token)"
        )
    if (
        parts.get("mode") or "off"
    ).lower() != "off" or not targets:  # Apprise's t2bot: a name and nothing else
        return "a webhook bridge (t2bot or a Slack-style hook), not a room differ can post to as a bot"
    host = hostport.rsplit(":", 1)[0] if hostport.count(":") == 1 else hostport
    rooms = [t if t[0] in "!#" else f"#{t}:{host}" for t in targets if not t.startswith("@")]
    if not rooms:
        return "direct messages to users; differ posts to rooms"
    base = f"{'https' if parts.scheme == 'matrixs' else 'http'}://{hostport}"
    return [{"url": base, "room": room, "access_token": token} for room in rooms]


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


def email_options(url: str) -> dict[str, Any]:
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
