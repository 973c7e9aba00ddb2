"""Telegram chats through a bot: one HTML message a change, page text escaped so it can neither format the
message nor mention anyone. Telegram reads `@name` in a message's text as a mention of that user; page text gets a
word joiner (U+2060, invisible) after every `@`, so no name follows it."""

from __future__ import annotations

import html
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from differ import options as opt
from differ.errors import NotifyError
from differ.notify.base import (
    BASE_URL,
    Notifier,
    Outgoing,
    document_of,
    document_title,
    fit,
    notifier,
    require_mentions,
    split_mentions,
)
from differ.options import Invalid, Option

if TYPE_CHECKING:
    from differ.notify.outbox import Message

MAX_CHARS = 4_096  # Telegram's longest message, counted in the text as shown (markup left out)
CHAT = re.compile(r"-?\d+|@[A-Za-z][A-Za-z0-9_]{4,31}")
# Whom an alert may mention: a user by @username.
MENTION = re.compile(r"@[A-Za-z][A-Za-z0-9_]{4,31}")


def escape(text: str) -> str:
    """Page text as Telegram shows it in an HTML message: `<`, `>`, `&` as entities, no `@` followed by a name."""
    return split_mentions(html.escape(text, quote=False))


@notifier("telegram")
class Telegram(Notifier):
    """Telegram chat, group or channel through a bot; one message a change, nobody mentioned."""

    options: ClassVar[dict[str, Option]] = {
        "bot_token": Option(
            opt.nonempty_string, required=True, help="the bot's token from @BotFather", secret=True
        ),
        "chat": Option(
            opt.nonempty_string, required=True, help='the chat: its id ("-100…") or a channel\'s "@name"'
        ),
        "thread": Option(
            opt.integer(0), 0, "a forum topic's id, for a group with topics (0: the general topic)"
        ),
        "topics": Option(
            opt.boolean, False, "in a group with topics: a topic for each document, made by the bot"
        ),
        "silent": Option(opt.boolean, False, "deliver without a sound"),
        "mention": Option(opt.string_list, (), 'whom each alert mentions: "@username"'),
        "api": Option(
            opt.string, "https://api.telegram.org", "the Bot API server (a local one, if you run it)"
        ),
        "base_url": BASE_URL,
    }
    min_interval = 3.0  # a bot may post about 20 messages a minute to one group

    @classmethod
    def check(cls, config: Any) -> None:
        if opt.web_address(str(config.options["api"])) is None:
            raise Invalid("expected the Bot API server's https:// address", key="api")
        if not re.fullmatch(r"\d+:[\w-]+", str(config.options["bot_token"])):
            raise Invalid('expected the token @BotFather gave, "123456789:AA…"', key="bot_token")
        chat = str(config.options["chat"])
        if not CHAT.fullmatch(chat):
            raise Invalid(
                f'expected a chat id such as "-1001234567890" or a channel\'s "@name", found "{chat}"',
                key="chat",
            )
        require_mentions(config, MENTION, 'Telegram mentions such as "@jane_doe"')
        if config.options["topics"] and config.options["thread"]:
            raise Invalid(
                "expected thread (one topic for all) or topics (a topic a document), not both", key="topics"
            )

    def method_url(self, method: str) -> str:
        """A Bot API method's address (the token read from the configuration at each attempt)."""
        return f"{str(self.config.options['api']).rstrip('/')}/bot{self.config.options['bot_token']}/{method}"

    def payload_url(self) -> str:
        return self.method_url("sendMessage")

    # -- a topic a document ----------------------------------------------------------------------------------
    def send(self, msg: Message, now: datetime) -> str | None:
        """With `topics`, a document's first alert makes its topic (createForumTopic, named after the document)
        before it is posted there; the topic is kept for the document's next alerts."""
        topics = self.config.options["topics"] and self.outbox is not None
        if topics and msg.data.get("thread") and not self.kept_thread(msg):
            name = str(msg.data["body"].get(TOPIC_NAME) or msg.data["thread"])[:128]
            answer = self.ask(
                "POST",
                self.method_url("createForumTopic"),
                {"chat_id": msg.data["body"]["chat_id"], "name": name},
            )
            if answer.status == 429 or answer.status >= 500:
                wait = self.wait_hint(answer.data)
                raise NotifyError(f"making the topic: HTTP {answer.status}", retryable=True, retry_after=wait)
            topic = (
                (answer.data.get("result") or {}).get("message_thread_id") if answer.data.get("ok") else None
            )
            if not isinstance(topic, int):
                raise NotifyError(
                    f"making the topic: {answer.data.get('description') or f'HTTP {answer.status}'}"
                )
            self.keep_thread(msg, str(topic))
        try:
            return super().send(msg, now)
        except NotifyError as exc:
            if (
                self.config.options["topics"]
                and self.kept_thread(msg)
                and any(g in str(exc) for g in _TOPIC_GONE)
            ):
                raise self.thread_gone(msg, exc) from None
            raise

    def body_of(self, msg: Message) -> dict[str, Any]:
        body = super().body_of(msg)
        body.pop(TOPIC_NAME, None)
        topic = self.kept_thread(msg) if self.config.options["topics"] else None
        if topic:
            body["message_thread_id"] = int(topic)
        return body

    def target(self) -> str:
        return f"{self.config.options['api']} chat {self.config.options['chat']}"

    def probe(self) -> str:
        """getMe (the token) and getChat (the bot is in the chat; with `topics`, the chat has topics)."""
        me = self._call("getMe", {})
        chat = str(self.config.options["chat"])
        found = self._call("getChat", {"chat_id": int(chat) if chat.lstrip("-").isdecimal() else chat})
        name = found.get("title") or found.get("username") or chat
        if self.config.options["topics"] and not found.get("is_forum"):
            raise NotifyError(f"{name} has no topics, which topics = true needs")
        return f"@{me.get('username')} can post to {name}"

    def _call(self, method: str, data: dict[str, Any]) -> dict[str, Any]:
        """A Bot API method's result, or a NotifyError with Telegram's description."""
        answer = self.ask("POST", self.method_url(method), data)
        result = answer.data.get("result")
        if not answer.data.get("ok") or not isinstance(result, dict):
            raise NotifyError(f"{method}: {answer.data.get('description') or f'HTTP {answer.status}'}")
        return result

    def wait_hint(self, answer: dict[str, Any]) -> float | None:
        """Telegram's 429 says how long to wait in `parameters.retry_after` (seconds)."""
        wait = (answer.get("parameters") or {}).get("retry_after")
        return float(wait) if isinstance(wait, int | float) and wait >= 0 else None

    def payload(self, event: dict[str, Any]) -> Outgoing:
        link = self.report_link(event)
        mentions = " ".join(self.config.options.get("mention", ()))
        title, context = self.title(event), self.context(event)
        head = f"<b>{escape(title)}</b>" + (f" {mentions}" if mentions else "")
        label = self.link_label(event)
        foot = ([f'<a href="{html.escape(link)}">{label}</a>'] if link else []) + [
            f"<i>{escape(context)}</i>"
        ]
        # Telegram counts the text as shown: markup and entities do not count, the word joiners do.
        shown = len(title) + len(mentions) + 1 + (len(label) + 1 if link else 0) + len(escape(context)) + 1
        room = MAX_CHARS - shown - 16
        kept, tail = fit(self.lines(event), room, lambda line: len(line) + line.count("@") + 1)
        text = "\n".join([head, *(escape(line) for line in kept), *([tail] if tail else []), *foot])
        chat = str(self.config.options["chat"])
        body: dict[str, Any] = {
            "chat_id": int(chat) if chat.lstrip("-").isdecimal() else chat,
            "text": text,
            "parse_mode": "HTML",
            "link_preview_options": {"is_disabled": True},
        }
        if self.config.options["thread"]:
            body["message_thread_id"] = self.config.options["thread"]
        if self.config.options["silent"]:
            body["disable_notification"] = True
        if not self.config.options["topics"]:
            return Outgoing(body, {})
        # The topic's name, should this alert be the one that makes it (taken out before sending).
        body[TOPIC_NAME] = document_title(event)
        return Outgoing(body, {}, document_of(event) or "differ")


TOPIC_NAME = "differ_topic_name"  # kept in the queued body for the document's topic; never sent
# What Telegram answers when a message goes to a topic that was deleted.
_TOPIC_GONE = ("message thread not found", "TOPIC_DELETED", "TOPIC_ID_INVALID")
