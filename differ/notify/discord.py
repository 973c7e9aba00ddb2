"""Discord channel webhooks: one embed within Discord's limits, page text escaped so that it can neither
mention anyone nor become a masked link."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from differ import options as opt
from differ.notify.base import (
    BASE_URL,
    Notifier,
    Outgoing,
    cut,
    fit,
    notifier,
    require_http_url,
    require_mentions,
)
from differ.options import Option

TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FOOTER_MAX = 2048
COLOURS = {
    "changed": 0xE67E22,
    "metadata": 0x95A5A6,
    "mirror_drift": 0x9B59B6,
    "fetch_failing": 0xE74C3C,
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
    """Discord channel webhook; one embed with the summary, a link to the full diff, and nobody mentioned."""

    options: ClassVar[dict[str, Option]] = {
        "url": Option(opt.string, required=True, help="the channel webhook's URL", secret=True),
        "username": Option(opt.string, "", "the name the messages are posted under (default: the webhook's)"),
        "base_url": BASE_URL,
        "mention": Option(opt.string_list, (), 'whom each alert pings: "<@&ROLE_ID>", "<@USER_ID>", "@here"'),
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
        if self.config.options.get(
            "mention"
        ):  # a mention pings only in the message's content, not in an embed
            body["content"] = " ".join(self.config.options["mention"])
        if self.config.options["username"]:
            body["username"] = self.config.options["username"]
        return Outgoing(body, {})

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
