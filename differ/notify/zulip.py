"""Zulip channels through a bot: each alert a message in a topic of its own document, so a post's edits, its
mirrors' drift and its failures read as one conversation; page text escaped so it can neither format the
message nor mention anyone (Zulip's mentions are `@**name**` and `@*group*`: an escaped `*` is no mention)."""

from __future__ import annotations

import base64
import re
from typing import Any, ClassVar
from urllib.parse import urlencode

from differ import options as opt
from differ.errors import NotifyError
from differ.notify.base import (
    BASE_URL,
    Notifier,
    Outgoing,
    document_title,
    fit,
    notifier,
    require_http_url,
    require_mentions,
)
from differ.options import Invalid, Option, cut

MAX_BYTES = 9_000  # Zulip refuses a message over 10,000 bytes; the rest is room for the title and the link
TOPIC_MAX = 60  # Zulip's longest topic
# The characters Zulip's Markdown (Python-Markdown's) lets a backslash escape: every other one shows as written.
_MARKUP = re.compile(r"([\\`*_{}\[\]()>#+\-.!])")
# Whom an alert may mention: a user or everyone (`@**Name**`, `@**all**`), or a user group (`@*group*`).
MENTION = re.compile(r"@\*\*[^*]+\*\*|@\*[^*]+\*")


def escape(text: str) -> str:
    """Page text as Zulip shows it, nothing of it read as markup or as a mention."""
    return _MARKUP.sub(r"\\\1", text)


@notifier("zulip")
class Zulip(Notifier):
    """Zulip channel through a bot; a message a change in the document's own topic, nobody mentioned."""

    options: ClassVar[dict[str, Option]] = {
        "url": Option(
            opt.string, required=True, help="the organization's address, https://ORG.zulipchat.com"
        ),
        "email": Option(opt.nonempty_string, required=True, help="the bot's e-mail address"),
        "api_key": Option(opt.nonempty_string, required=True, help="the bot's API key", secret=True),
        "channel": Option(opt.nonempty_string, required=True, help="the channel (stream) the messages go to"),
        "topic": Option(opt.string, "", "one topic for every message (default: the document's title)"),
        "mention": Option(
            opt.string_list, (), 'whom each alert mentions: "@**Name**", "@*group*", "@**all**"'
        ),
        "base_url": BASE_URL,
    }
    encoding = "form"  # Zulip's API reads form fields, not JSON
    min_interval = 0.5

    @classmethod
    def check(cls, config: Any) -> None:
        require_http_url(config, "expected the organization's https:// address")
        if "/api/" in str(config.options["url"]):
            raise Invalid("expected the organization's address alone (https://ORG.zulipchat.com)", key="url")
        require_mentions(
            config, MENTION, 'Zulip mentions such as "@**Jane Doe**", "@*release-team*" or "@**all**"'
        )

    def payload_url(self) -> str:
        return str(self.config.options["url"]).rstrip("/") + "/api/v1/messages"

    def sign(self, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
        """The bot's credentials, read from the configuration at each attempt (never kept with the message)."""
        pair = f"{self.config.options['email']}:{self.config.options['api_key']}".encode()
        return {"Authorization": "Basic " + base64.b64encode(pair).decode()}

    def probe(self) -> str:
        """The bot's credentials (users/me) and the channel (get_stream_id), posting nothing."""
        me = self._get("users/me")
        channel = str(self.config.options["channel"])
        self._get(f"get_stream_id?{urlencode({'stream': channel})}")
        return f"{me.get('full_name') or me.get('email')} can post to #{channel}"

    def _get(self, method: str) -> dict[str, Any]:
        """An API method's answer, or a NotifyError with Zulip's message."""
        answer = self.ask("GET", f"{str(self.config.options['url']).rstrip('/')}/api/v1/{method}")
        if answer.data.get("result") != "success":
            said = answer.data.get("msg") or f"HTTP {answer.status}"
            raise NotifyError(f"{method.partition('?')[0]}: {said}")
        return answer.data

    def payload(self, event: dict[str, Any]) -> Outgoing:
        lines = [escape(line) for line in self.lines(event)]
        kept, tail = fit(lines, MAX_BYTES, lambda line: len(line.encode()) + 1)
        link = self.report_link(event)
        mentions = " ".join(self.config.options.get("mention", ()))
        content = "\n".join(
            [
                f"**{escape(self.title(event))}**" + (f" {mentions}" if mentions else ""),
                *kept,
                *([tail] if tail else []),
                *([f"[{self.link_label(event)}]({link})"] if link else []),
                f"*{escape(self.context(event))}*",
            ]
        )
        body = {
            "type": "stream",
            "to": self.config.options["channel"],
            "topic": cut(self.config.options["topic"] or document_title(event), TOPIC_MAX),
            "content": content,
        }
        return Outgoing(body, {})
