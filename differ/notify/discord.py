"""Discord channel webhooks: one embed within Discord's limits, page text escaped so that it can neither
mention anyone nor become a masked link. A webhook of a forum channel gives each document a post of its own: the
first alert about it starts the post, named after the document, and later alerts reply in it."""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from differ import options as opt
from differ.errors import NotifyError
from differ.notify.base import (
    BASE_URL,
    Notifier,
    Outgoing,
    document_of,
    document_title,
    fit,
    json_object,
    notifier,
    require_http_url,
    require_mentions,
)
from differ.options import Option, cut

if TYPE_CHECKING:
    import requests

    from differ.notify.outbox import Message

TITLE_MAX = 256
THREAD_NAME_MAX = 100  # a forum post's name
DESCRIPTION_MAX = 4096
FOOTER_MAX = 2048
COLOURS = {
    "changed": 0xE67E22,
    "metadata": 0x95A5A6,
    "mirror_drift": 0x9B59B6,
    "fetch_failing": 0xE74C3C,
    "delivery_failed": 0xE74C3C,
    "recovered": 0x2ECC71,
}
# Discord's Markdown: emphasis, code, spoilers, quotes, headings, lists, masked links [text](url), and <…>
# for mentions, channels and custom emoji. A backslash makes each of them literal.
_MARKUP = re.compile(r"([\\*_~`|>\[\]()<#@:-])")
# Whom an alert may ping: a role (<@&id>), a user (<@id>), @here or @everyone.
MENTION = re.compile(r"<@&(\d+)>|<@!?(\d+)>|@here|@everyone")


def escape(text: str) -> str:
    return _MARKUP.sub(r"\\\1", text)


@notifier("discord")
class Discord(Notifier):
    """Discord channel webhook (a forum's: a post a document); one embed with the summary, nobody mentioned."""

    options: ClassVar[dict[str, Option]] = {
        "url": Option(opt.string, required=True, help="the channel webhook's URL", secret=True),
        "username": Option(opt.string, "", "the name the messages are posted under (default: the webhook's)"),
        "base_url": BASE_URL,
        "mention": Option(opt.string_list, (), 'whom each alert pings: "<@&ROLE_ID>", "<@USER_ID>", "@here"'),
        "forum": Option(opt.boolean, False, "the webhook is a forum channel's: a post for each document"),
    }
    min_interval = 1.0  # a webhook may post about 30 messages a minute to a channel

    @classmethod
    def check(cls, config: Any) -> None:
        require_http_url(config, "expected the webhook's https:// URL")
        require_mentions(
            config, MENTION, 'Discord mentions such as "<@&ROLE_ID>", "<@USER_ID>", "@here" or "@everyone"'
        )

    def payload(self, event: dict[str, Any]) -> Outgoing:
        kept, tail = fit(
            [escape(line) for line in self.lines(event)], DESCRIPTION_MAX, lambda line: len(line) + 1
        )
        description = "\n".join([*kept, tail] if tail else kept)
        embed: dict[str, Any] = {
            "title": cut(self.title(event), TITLE_MAX),
            "description": description,
            "color": COLOURS.get(str(event.get("type")), 0x95A5A6),
            "footer": {"text": cut(self.context(event), FOOTER_MAX)},
        }
        link = self.report_link(event)
        if link:
            embed["url"] = link
        fetched = ((event.get("diff") or {}).get("to") or {}).get("fetched_at") or event.get("at")
        if fetched:
            embed["timestamp"] = str(fetched)
        body: dict[str, Any] = {"embeds": [embed], "allowed_mentions": self._allowed()}
        # A mention pings only in the message's content, not in an embed.
        if self.config.options.get("mention"):
            body["content"] = " ".join(self.config.options["mention"])
        if self.config.options["username"]:
            body["username"] = self.config.options["username"]
        if not self.config.options["forum"]:
            return Outgoing(body, {})
        body["thread_name"] = cut(document_title(event), THREAD_NAME_MAX)  # only to start the post
        return Outgoing(body, {}, document_of(event) or "differ")

    def probe(self) -> str:
        """The webhook itself (GET answers with its name and channel, posting nothing)."""
        answer = self.ask("GET", self.payload_url(), signed=False)
        if answer.status != 200 or not answer.data.get("channel_id"):
            raise NotifyError(f"HTTP {answer.status} {answer.text}".rstrip())
        return f'webhook "{answer.data.get("name")}" posts to channel {answer.data["channel_id"]}'

    # -- a forum channel: a post a document ----------------------------------------------------------------
    def address(self, msg: Message) -> str:
        """In a forum, the webhook told to wait for the message (whose channel is the post started) or to reply
        in the document's post."""
        url = self.payload_url()
        if not self.config.options["forum"]:
            return url
        post = self.kept_thread(msg)
        parts = urlsplit(url)
        query = [(k, v) for k, v in parse_qsl(parts.query) if k not in ("wait", "thread_id")]
        query += [("wait", "true"), *([("thread_id", post)] if post else [])]
        return urlunsplit(parts._replace(query=urlencode(query)))

    def send(self, msg: Message, now: datetime) -> str | None:
        try:
            return super().send(msg, now)
        except NotifyError as exc:
            if self.config.options["forum"] and self.kept_thread(msg) and "Unknown Channel" in str(exc):
                raise self.thread_gone(msg, exc) from None
            raise

    def body_of(self, msg: Message) -> dict[str, Any]:
        body = super().body_of(msg)
        if self.kept_thread(msg):
            body.pop("thread_name", None)  # a reply in the post, not a new one
        return body

    def accepted(self, resp: requests.Response, msg: Message) -> str | None:
        """A message that started its document's forum post: the post (the message's channel) is kept."""
        if self.config.options["forum"]:
            channel = json_object(resp).get("channel_id")
            self.keep_thread(msg, channel if isinstance(channel, str) and channel.isdecimal() else None)
        return None

    def _allowed(self) -> dict[str, Any]:
        """Exactly the configured mentions may ping; nothing in the page can (it is escaped besides)."""
        allowed: dict[str, Any] = {"parse": []}
        for mention in self.config.options.get("mention", ()):
            m = MENTION.fullmatch(mention)
            if m and m[1]:
                allowed.setdefault("roles", []).append(m[1])
            elif m and m[2]:
                allowed.setdefault("users", []).append(m[2])
            elif m:
                allowed["parse"] = ["everyone"]  # what lets @here and @everyone ping
        return allowed
