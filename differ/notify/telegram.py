"""Telegram chats through a bot: one HTML message a change, page text escaped so it can neither format the
message nor mention anyone. Telegram reads `@name` in a message's text as a mention of that user; page text gets a
word joiner (U+2060, invisible) after every `@`, so no name follows it."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, Any, ClassVar

from differ import options as opt
from differ.notify.base import BASE_URL, Notifier, Outgoing, fit, notifier, require_mentions
from differ.options import Invalid, Option

if TYPE_CHECKING:
    import requests

MAX_CHARS = 4_096  # Telegram's longest message, counted in the text as shown (markup left out)
WORD_JOINER = "\u2060"
CHAT = re.compile(r"-?\d+|@[A-Za-z][A-Za-z0-9_]{4,31}")
# Whom an alert may mention: a user by @username.
MENTION = re.compile(r"@[A-Za-z][A-Za-z0-9_]{4,31}")


def escape(text: str) -> str:
    """Page text as Telegram shows it in an HTML message: `<`, `>`, `&` as entities, no `@` followed by a name."""
    return html.escape(text, quote=False).replace("@", "@" + WORD_JOINER)


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
        if not str(config.options["api"]).startswith(("https://", "http://")):
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

    def payload_url(self) -> str:
        """The bot's sendMessage method (the token read from the configuration at each attempt)."""
        return (
            f"{str(self.config.options['api']).rstrip('/')}/bot{self.config.options['bot_token']}/sendMessage"
        )

    def target(self) -> str:
        return f"{self.config.options['api']} chat {self.config.options['chat']}"

    def wait_hint(self, resp: requests.Response) -> float | None:
        """Telegram's 429 says how long to wait in `parameters.retry_after` (seconds)."""
        try:
            wait = (resp.json().get("parameters") or {}).get("retry_after")
        except (ValueError, AttributeError):
            return None
        return float(wait) if isinstance(wait, int | float) and wait >= 0 else None

    def payload(self, event: dict[str, Any]) -> Outgoing:
        link = self.report_link(event)
        mentions = " ".join(self.config.options.get("mention", ()))
        title, context = self.title(event), self.context(event)
        head = f"<b>{escape(title)}</b>" + (f" {mentions}" if mentions else "")
        foot = ([f'<a href="{html.escape(link)}">Full diff</a>'] if link else []) + [
            f"<i>{escape(context)}</i>"
        ]
        # Telegram counts the text as shown: markup and entities do not count, the word joiners do.
        shown = (
            len(title) + len(mentions) + 1 + (len("Full diff") + 1 if link else 0) + len(escape(context)) + 1
        )
        room = MAX_CHARS - shown - 16
        kept, tail = fit(self.lines(event), room, lambda line: len(line) + line.count("@") + 1)
        text = "\n".join([head, *(escape(line) for line in kept), *([tail] if tail else []), *foot])
        chat = str(self.config.options["chat"])
        body: dict[str, Any] = {
            "chat_id": int(chat) if chat.lstrip("-").isdigit() else chat,
            "text": text,
            "parse_mode": "HTML",
            "link_preview_options": {"is_disabled": True},
        }
        if self.config.options["thread"]:
            body["message_thread_id"] = self.config.options["thread"]
        if self.config.options["silent"]:
            body["disable_notification"] = True
        return Outgoing(body, {})
