"""Mattermost incoming webhooks: one Markdown post a change, page text escaped so it can neither format the post
nor mention anyone. Mattermost finds mentions in a post's text by splitting it into words at every character that
is not a letter, a digit or one of `@ . - _ :`, and reading `@channel`, `@all`, `@here` and `@name` words; page
text gets a word joiner (U+2060, invisible) after every `@`, which splits `@` from whatever follows."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from differ import options as opt
from differ.notify.base import (
    BASE_URL,
    Notifier,
    Outgoing,
    fit,
    notifier,
    require_http_url,
    require_mentions,
    split_mentions,
)
from differ.options import Invalid, Option

MAX_CHARS = (
    16_000  # Mattermost's longest post is 16,383 characters; a longer webhook text is split into posts
)
# The characters both of Mattermost's Markdown readers (the server's CommonMark and the web app's marked) let a
# backslash escape; a backslash before any other character would show.
_MARKUP = re.compile(r"([\\`*_{}\[\]()#+\-.!>~|])")
# Whom an alert may mention: a user or group (`@name`), or the channel (`@channel`, `@all`, `@here`).
MENTION = re.compile(r"@[a-z0-9][a-z0-9._-]*")


def escape(text: str) -> str:
    """Page text as Mattermost shows it, nothing of it read as markup or as a mention."""
    return split_mentions(_MARKUP.sub(r"\\\1", text))


@notifier("mattermost")
class Mattermost(Notifier):
    """Mattermost incoming webhook; one post with the summary and a link to the full diff, nobody mentioned."""

    options: ClassVar[dict[str, Option]] = {
        "url": Option(
            opt.string, required=True, help="the webhook's URL, https://HOST/hooks/KEY", secret=True
        ),
        "channel": Option(
            opt.string, "", "post to this channel instead of the webhook's (its name in the URL)"
        ),
        "username": Option(
            opt.string, "", "the name posts appear under (if the server lets webhooks set it)"
        ),
        "mention": Option(
            opt.string_list, (), 'whom each alert mentions: "@jane", "@release-team", "@channel" or "@here"'
        ),
        "base_url": BASE_URL,
    }
    min_interval = 1.0

    @classmethod
    def check(cls, config: Any) -> None:
        require_http_url(config, "expected the webhook's https:// URL")
        if "/hooks/" not in str(config.options["url"]):
            raise Invalid("expected the webhook's URL, https://HOST/hooks/KEY", key="url")
        require_mentions(
            config, MENTION, 'Mattermost mentions such as "@jane", "@release-team" or "@channel"'
        )

    def payload(self, event: dict[str, Any]) -> Outgoing:
        link = self.report_link(event)
        mentions = " ".join(self.config.options.get("mention", ()))
        head = f"**{escape(self.title(event))}**" + (f" {mentions}" if mentions else "")
        foot = ([f"[{self.link_label(event)}]({link})"] if link else []) + [
            f"_{escape(self.context(event))}_"
        ]
        room = MAX_CHARS - sum(len(line) + 1 for line in [head, *foot])
        kept, tail = fit([escape(line) for line in self.lines(event)], room, lambda line: len(line) + 1)
        body: dict[str, Any] = {"text": "\n".join([head, *kept, *([tail] if tail else []), *foot])}
        for key in ("channel", "username"):
            if self.config.options[key]:
                body[key] = self.config.options[key]
        return Outgoing(body, {})
