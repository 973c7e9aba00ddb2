"""Slack: Block Kit within Slack's limits, page text escaped so it never pings anyone. Posted through an incoming
webhook, or through a Slack app's bot token, which lets each document's alerts share a thread: the first alert
about a document starts it, and its ts is kept beside the notifier's outbox for the next."""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlencode

from differ import options as opt
from differ.bullets import grouped
from differ.errors import NotifyError
from differ.notify.base import (
    BASE_URL,
    Notifier,
    Outgoing,
    changes_in,
    document_of,
    json_object,
    notifier,
    require_http_url,
    require_mentions,
)
from differ.options import Invalid, Option, cut

if TYPE_CHECKING:
    import requests

    from differ.notify.outbox import Message

MAX_BLOCKS = 50
HEADER_MAX = 150
SECTION_MAX = 3000
TEXT_MAX = 3000
# Whom an alert may ping, in Slack's own syntax: a user (<@U…>), a user group (<!subteam^S…>), <!here>, <!channel>.
MENTION = re.compile(r"<(?:@[UW][A-Z0-9]+|!subteam\^[A-Z0-9]+|!here|!channel)>")


def escape(text: str) -> str:
    """Slack's control characters: & < > (in that order). Everything else stays as it is."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": cut(text, SECTION_MAX), "verbatim": True}}


@notifier("slack")
class Slack(Notifier):
    """Slack incoming webhook, or an app's bot (a thread a document); Block Kit: a header, a section a change."""

    options: ClassVar[dict[str, Option]] = {
        "url": Option(opt.string, "", "the incoming webhook URL", secret=True),
        "token": Option(
            opt.string, "", "a Slack app's bot token (xoxb-…), instead of a webhook", secret=True
        ),
        "channel": Option(opt.string, "", "with a token: the channel, by id (C0123ABC) or #name"),
        "threads": Option(opt.boolean, True, "with a token: each document's alerts in one thread"),
        "broadcast": Option(opt.boolean, True, "with threads: each reply also shown in the channel"),
        "api": Option(opt.web_url, "https://slack.com/api", "with a token: Slack's Web API"),
        "base_url": BASE_URL,
        "mention": Option(
            opt.string_list,
            (),
            'whom each alert pings: "<!subteam^S0123ABC>" (a user group), "<@U0456DEF>", "<!here>"',
        ),
    }
    min_interval = 1.0  # Slack allows about one message per second per webhook

    @classmethod
    def check(cls, config: Any) -> None:
        url, token = config.options["url"], config.options["token"]
        if url and token:
            raise Invalid("expected url (an incoming webhook) or token (an app's bot), not both", key="token")
        if not token:
            require_http_url(config, "expected the webhook's https:// URL (or a bot's token and channel)")
            if config.options["channel"]:
                raise Invalid(
                    "a webhook posts to the channel it was made for; channel is for a bot's token",
                    key="channel",
                )
        elif not str(token).startswith(("xoxb-", "xoxp-")):
            raise Invalid('expected a bot token, "xoxb-…"', key="token")
        elif not config.options["channel"]:
            raise Invalid("expected the channel a bot token posts to (C0123ABC or #name)", key="channel")
        require_mentions(
            config,
            MENTION,
            'Slack mentions such as "<!subteam^S0123ABC>", "<@U0456DEF>", "<!here>" or "<!channel>"',
        )

    def payload(self, event: dict[str, Any]) -> Outgoing:
        lines = self.lines(event)
        title = self.title(event)
        blocks: list[dict[str, Any]] = [
            {
                "type": "header",
                "text": {"type": "plain_text", "text": cut(title, HEADER_MAX), "emoji": False},
            },
        ]
        # The operator's mentions, never the page's.
        ping = "".join(f"{m} " for m in self.config.options.get("mention", ()))
        if lines:
            blocks.append(_section(ping + escape(lines[0])))
        elif ping:
            blocks.append(_section(ping.strip()))
        merged = grouped([escape(line) for line in lines[1:]])
        room = MAX_BLOCKS - len(blocks) - 2
        left_out = merged[room:] if len(merged) > room else []
        for text in merged[:room] if left_out else merged:
            blocks.append(_section(text))
        link, label = self.report_link(event), self.link_label(event)
        if left_out:
            more = changes_in(left_out)
            blocks.append(
                _section(
                    f"…and {more} more changes" + (f" — <{escape(link)}|{label.lower()}>" if link else "")
                )
            )
        elif link and merged and merged[-1].startswith("…and "):  # the summary was cut: the link goes there
            blocks[-1] = _section(f"{merged[-1]} — <{escape(link)}|{label.lower()}>")
        elif link:
            blocks.append(_section(f"<{escape(link)}|{label}>"))
        blocks.append(
            {
                "type": "context",
                "elements": [{"type": "mrkdwn", "text": escape(self.context(event)), "verbatim": True}],
            }
        )
        text = cut("\n".join([title, *lines]), TEXT_MAX)
        body = {
            "text": ping + escape(text),
            "blocks": blocks[:MAX_BLOCKS],
            "unfurl_links": False,
            "unfurl_media": False,
        }
        if not self.bot:
            return Outgoing(body, {})
        body["channel"] = self.config.options["channel"]
        return Outgoing(body, {}, document_of(event) if self.config.options["threads"] else "")

    # -- through an app's bot token ----------------------------------------------------------------------
    @property
    def bot(self) -> bool:
        return bool(self.config.options.get("token"))

    def payload_url(self) -> str:
        if not self.bot:
            return super().payload_url()
        return str(self.config.options["api"]).rstrip("/") + "/chat.postMessage"

    def probe(self) -> str | None:
        """With a bot: auth.test (the token), then conversations.info (the channel, where the scope allows)."""
        if not self.bot:
            return None
        api = str(self.config.options["api"]).rstrip("/")
        auth = self.ask("POST", f"{api}/auth.test")
        if not auth.data.get("ok"):
            raise NotifyError(f"auth.test: {auth.data.get('error') or f'HTTP {auth.status}'}")
        who = f"{auth.data.get('user')} in {auth.data.get('team')}"
        channel = str(self.config.options["channel"])
        info = self.ask("GET", f"{api}/conversations.info?{urlencode({'channel': channel})}")
        if info.data.get("ok"):
            return f"{who}; channel #{(info.data.get('channel') or {}).get('name', channel)} found"
        if info.data.get("error") in ("missing_scope", "not_allowed_token_type"):
            return f"{who}; the channel was not checked (the bot may not read channels: {info.data['error']})"
        raise NotifyError(f"conversations.info: {info.data.get('error') or f'HTTP {info.status}'}")

    def target(self) -> str:
        if not self.bot:
            return super().target()
        return f"{self.config.options['api']} {self.config.options['channel']}"

    def sign(self, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
        """The bot's token, read from the configuration at each attempt (never kept with the message)."""
        if not self.bot:
            return {}
        return {
            "Authorization": f"Bearer {self.config.options['token']}",
            "Content-Type": "application/json; charset=utf-8",
        }

    def body_of(self, msg: Message) -> dict[str, Any]:
        """The message, as a reply in its document's thread when one has been started, carrying its outbox id as
        message metadata, by which a retry can find it in the channel."""
        body = super().body_of(msg)
        if not self.bot:
            return body
        body["metadata"] = {"event_type": METADATA_TYPE, "event_payload": {"id": msg.id}}
        started = self.kept_thread(msg)
        if started:
            body["thread_ts"] = started
            body["reply_broadcast"] = bool(self.config.options["broadcast"])
        return body

    def send(self, msg: Message, now: datetime) -> str | None:
        """Post the message; a retry first asks Slack whether an earlier attempt, whose answer was lost, got
        there after all, so it is not posted twice (this needs the channel by id and the bot's history scope,
        channels:history or groups:history; without them a retry posts again, as a webhook's does)."""
        if self.bot and msg.data.get("attempts") and self._posted(msg, now):
            return "found in the channel: an earlier attempt got there, so it was not posted again"
        return super().send(msg, now)

    def _posted(self, msg: Message, now: datetime) -> bool:
        """Whether the channel (or the thread the message replies in) holds a message with this one's id."""
        channel = str(self.config.options["channel"])
        if not re.fullmatch(r"[CGD][A-Z0-9]+", channel):
            return False  # Slack's history takes a channel's id, not its name
        started = self.kept_thread(msg)
        # Every attempt fell within retry_for of the message's creation (`differ outbox retry` resets that), so
        # within that and an hour's slack before now.
        oldest = now.timestamp() - self.config.retry_for - 3600
        query = {
            "channel": channel,
            "oldest": f"{oldest:.6f}",
            "include_all_metadata": "true",
            "limit": "200",
            **({"ts": started} if started else {}),
        }
        method = "conversations.replies" if started else "conversations.history"
        answer = self.ask(
            "GET", f"{str(self.config.options['api']).rstrip('/')}/{method}?{urlencode(query)}"
        ).data
        for found in answer.get("messages", []) if answer.get("ok") else []:
            meta = found.get("metadata") if isinstance(found, dict) else None
            if not isinstance(meta, dict) or meta.get("event_type") != METADATA_TYPE:
                continue
            payload = meta.get("event_payload")
            if isinstance(payload, dict) and payload.get("id") == msg.id:
                self.keep_thread(msg, found.get("ts"))
                return True
        return False

    def accepted(self, resp: requests.Response, msg: Message) -> str | None:
        """Slack's Web API answers 200 with `ok: false` and an error code when it refuses; a message that starts
        its document's thread has its ts kept for the next."""
        if not self.bot:
            return None
        answer = json_object(resp)
        if not answer.get("ok"):
            error = str(answer.get("error") or "") or "an answer that is not Slack's"
            raise NotifyError(f"Slack refused it: {error}", retryable=error in _TRANSIENT)
        self.keep_thread(msg, answer.get("ts"))
        return None


METADATA_TYPE = "differ_alert"  # the message metadata that carries a message's outbox id
# Errors of Slack's Web API worth another try; any other (not_in_channel, invalid_auth, …) needs a person.
_TRANSIENT = ("ratelimited", "service_unavailable", "request_timeout", "fatal_error", "internal_error")
