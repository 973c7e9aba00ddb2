"""Slack incoming webhooks: Block Kit within Slack's limits, page text escaped so it never pings anyone."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from differ import options as opt
from differ.notify.base import (
    BASE_URL,
    Notifier,
    Outgoing,
    changes_in,
    cut,
    grouped,
    notifier,
    require_http_url,
    require_mentions,
)
from differ.options import Option

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
    """Slack incoming webhook; Block Kit message with a header, the summary and one section per change."""

    options: ClassVar[dict[str, Option]] = {
        "url": Option(opt.string, required=True, help="the incoming webhook URL", secret=True),
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
        require_http_url(config, "expected the webhook's https:// URL")
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
        ping = "".join(
            f"{m} " for m in self.config.options.get("mention", ())
        )  # the operator's, not the page's
        if lines:
            blocks.append(_section(ping + escape(lines[0])))
        elif ping:
            blocks.append(_section(ping.strip()))
        merged = grouped([escape(line) for line in lines[1:]])
        room = MAX_BLOCKS - len(blocks) - 2
        left_out = merged[room:] if len(merged) > room else []
        for text in merged[:room] if left_out else merged:
            blocks.append(_section(text))
        link = self.report_link(event)
        if left_out:
            more = changes_in(left_out)
            blocks.append(
                _section(f"…and {more} more changes" + (f" — <{escape(link)}|full diff>" if link else ""))
            )
        elif link and merged and merged[-1].startswith("…and "):  # the summary was cut: the link goes there
            blocks[-1] = _section(f"{merged[-1]} — <{escape(link)}|full diff>")
        elif link:
            blocks.append(_section(f"<{escape(link)}|Full diff>"))
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
        return Outgoing(body, {})
