"""Matrix rooms through a bot account's access token. Each message is a PUT under a transaction id made from
the outbox message's id, so a retry after a lost answer is the same event to the homeserver, never a second
one; every event carries `m.mentions`, which turns off the push rules that would read `@room` or a user's name
in page text as a mention, so only the people the configuration names are pinged."""

from __future__ import annotations

import html
import math
import re
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import quote, urlsplit

from differ import options as opt
from differ.errors import NotifyError
from differ.notify.base import (
    BASE_URL,
    Notifier,
    Outgoing,
    document_of,
    fit,
    json_object,
    notifier,
    require_http_url,
    require_mentions,
)
from differ.options import Invalid, Option

if TYPE_CHECKING:
    import requests

    from differ.notify.outbox import Message

MAX_BYTES = 40_000  # a homeserver refuses an event over 65,536 bytes; each line goes in twice (text and HTML)
# Whom an alert may mention: a user by Matrix ID, or everyone in the room.
MENTION = re.compile(r"@room|@[^:\s]+:\S+")
ROOM = re.compile(r"![^\s]+|#[^:\s]+:\S+")
_API = "/_matrix/client/v3"
_rooms: dict[tuple[str, str], str] = {}  # (homeserver, alias) -> room id, looked up once a process
_servers: dict[str, str] = {}  # configured address -> client API address, looked up once a process


@notifier("matrix")
class Matrix(Notifier):
    """Matrix room through a bot's access token; one notice a change, sent once even when retried."""

    options: ClassVar[dict[str, Option]] = {
        "url": Option(opt.string, required=True, help="the homeserver's address, https://matrix.example.org"),
        "room": Option(
            opt.nonempty_string, required=True, help='the room: its id "!…" or an address "#name:server"'
        ),
        "access_token": Option(
            opt.nonempty_string, required=True, help="the bot account's access token", secret=True
        ),
        "mention": Option(
            opt.string_list, (), 'whom each alert mentions: "@user:server", or "@room" for everyone'
        ),
        "threads": Option(
            opt.boolean, False, "each document's alerts in one thread, which its first alert starts"
        ),
        "base_url": BASE_URL,
    }
    method = "PUT"  # under a transaction id: the homeserver keeps one event per id
    min_interval = 0.5

    @classmethod
    def check(cls, config: Any) -> None:
        require_http_url(config, "expected the homeserver's https:// address")
        if "/_matrix" in str(config.options["url"]):
            raise Invalid("expected the homeserver's address alone (https://matrix.example.org)", key="url")
        room = str(config.options["room"])
        if not ROOM.fullmatch(room):
            raise Invalid(
                f'expected a room id "!…" or a room address "#name:server", found "{room}"', key="room"
            )
        require_mentions(config, MENTION, 'Matrix mentions such as "@jane:example.org" or "@room"')

    def homeserver(self) -> str:
        """The homeserver's client API address: the configured one, or the one its server names in
        `/.well-known/matrix/client` (as `example.org` names `matrix.example.org`), found once a process."""
        url = str(self.config.options["url"]).rstrip("/")
        if url not in _servers:
            parts = urlsplit(url)
            known = f"{parts.scheme}://{parts.netloc}/.well-known/matrix/client"
            answer = self.ask("GET", known, signed=False)  # the server's name, not (yet) the homeserver
            if answer.status == 429 or answer.status >= 500:
                raise NotifyError(f"looking up {known}: HTTP {answer.status}", retryable=True)
            named = (answer.data.get("m.homeserver") or {}) if answer.status == 200 else {}
            base = named.get("base_url") if isinstance(named, dict) else None
            ok = isinstance(base, str) and opt.web_address(base) is not None
            _servers[url] = str(base).rstrip("/") if ok else url  # none named: the server's own address
        return _servers[url]

    def address(self, msg: Message) -> str:
        """The room's send endpoint with this message's transaction id (the room looked up by its address)."""
        room = self.room_id()
        return f"{self.homeserver()}{_API}/rooms/{quote(room, safe='')}/send/m.room.message/{quote(msg.id, safe='')}"

    def probe(self) -> str:
        """whoami (the token), then whether the room (looked up by its address) is among those the bot joined."""
        answer = self.ask("GET", f"{self.homeserver()}{_API}/account/whoami")
        who = answer.data
        if answer.status != 200 or not isinstance(who.get("user_id"), str):
            raise NotifyError(f"whoami: HTTP {answer.status} {who.get('errcode', '')}".rstrip())
        room = self.room_id()
        joined = self.ask("GET", f"{self.homeserver()}{_API}/joined_rooms").data.get("joined_rooms") or []
        if room not in joined:
            raise NotifyError(
                f"{who['user_id']} has not joined {self.config.options['room']}: invite it, then join"
            )
        return f"{who['user_id']} is in {self.config.options['room']}"

    def target(self) -> str:
        """The configured homeserver and room (nothing looked up: `differ sources` makes no request)."""
        return f"{self.config.options['url']} {self.config.options['room']}"

    def room_id(self) -> str:
        """The room's id: as configured, or looked up in the homeserver's room directory by its address."""
        room = str(self.config.options["room"])
        if room.startswith("!"):
            return room
        key = (self.homeserver(), room)
        if key not in _rooms:
            url = f"{self.homeserver()}{_API}/directory/room/{quote(room, safe='')}"
            answer = self.ask("GET", url, signed=False)
            found = answer.data.get("room_id") if answer.status == 200 else None
            if answer.status == 429 or answer.status >= 500:
                wait = self.wait_hint(answer.data)
                raise NotifyError(
                    f"looking up {room}: HTTP {answer.status}", retryable=True, retry_after=wait
                )
            if not isinstance(found, str) or not found.startswith("!"):
                raise NotifyError(
                    f"no room has the address {room} on {self.homeserver()} (HTTP {answer.status})"
                )
            _rooms[key] = found
        return _rooms[key]

    def sign(self, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
        """The access token, read from the configuration at each attempt (never kept with the message)."""
        return {"Authorization": f"Bearer {self.config.options['access_token']}"}

    def wait_hint(self, answer: dict[str, Any]) -> float | None:
        """A homeserver's 429 says how long to wait in `retry_after_ms` (rounded up to the second the outbox
        counts in, so the retry is never early)."""
        wait = answer.get("retry_after_ms")
        return float(math.ceil(wait / 1000)) if isinstance(wait, int | float) and wait >= 0 else None

    def payload(self, event: dict[str, Any]) -> Outgoing:
        lines = self.lines(event)
        kept, tail = fit(
            lines, MAX_BYTES, lambda line: len(line.encode()) + len(html.escape(line).encode()) + 6
        )
        shown = [*kept, tail] if tail else kept
        link = self.report_link(event)
        mentions = list(self.config.options.get("mention", ()))
        title, context = self.title(event), self.context(event)
        text = [title + "".join(f" {m}" for m in mentions), *shown]
        page = [
            f"<strong>{html.escape(title)}</strong>" + "".join(f" {_pill(m)}" for m in mentions),
            *(html.escape(line) for line in shown),
        ]
        if link:
            text.append(f"{self.link_label(event)}: {link}")
            page.append(f'<a href="{html.escape(link)}">{self.link_label(event)}</a>')
        text.append(context)
        page.append(f"<em>{html.escape(context)}</em>")
        users = [m for m in mentions if m != "@room"]
        body = {
            "msgtype": "m.notice",  # a bot's message: clients show it as one, and other bots do not answer it
            "body": "\n".join(text),
            "format": "org.matrix.custom.html",
            "formatted_body": "<br>".join(line.replace("\n", "<br>") for line in page),
            # Always present: without it, the push rules of old would ping whoever page text names.
            "m.mentions": {
                **({"user_ids": users} if users else {}),
                **({"room": True} if "@room" in mentions else {}),
            },
        }
        return Outgoing(body, {}, document_of(event) if self.config.options["threads"] else "")

    def body_of(self, msg: Message) -> dict[str, Any]:
        """The event, in its document's thread when one has been started (with a reply fallback for clients
        that show no threads)."""
        body = super().body_of(msg)
        root = self.kept_thread(msg)
        if root:
            body["m.relates_to"] = {
                "rel_type": "m.thread",
                "event_id": root,
                "is_falling_back": True,
                "m.in_reply_to": {"event_id": root},
            }
        return body

    def accepted(self, resp: requests.Response, msg: Message) -> str | None:
        """An event that starts its document's thread: its id is kept for the document's next alerts."""
        self.keep_thread(msg, json_object(resp).get("event_id"))
        return None


def _pill(mention: str) -> str:
    """A mention as Matrix clients show one: a matrix.to link to the user (`@room` is plain text)."""
    if mention == "@room":
        return mention
    return f'<a href="https://matrix.to/#/{quote(mention, safe="@:")}">{html.escape(mention)}</a>'
