"""Microsoft Teams through a Workflows webhook ("When a Teams webhook request is received"): one Adaptive Card
whose page text is set as plain text runs, so nothing a page says can become markup or a link."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from differ import options as opt
from differ.notify.base import BASE_URL, Notifier, Outgoing, fit, notifier, require_http_url
from differ.options import Option, cut

CARD_VERSION = "1.4"  # what Teams renders on desktop, web and mobile
MAX_BYTES = 24_000  # Teams refuses messages over about 28 KB; the rest is room for the envelope
TITLE_MAX = 300
LINE_MAX = 1_000
STYLES = {
    "changed": "warning",
    "metadata": "default",
    "mirror_drift": "accent",
    "fetch_failing": "attention",
    "delivery_failed": "attention",
    "recovered": "good",
}


def _run(text: str, **style: Any) -> dict[str, Any]:
    """A RichTextBlock of one plain text run: unlike a TextBlock, a TextRun is never read as Markdown."""
    return {
        "type": "RichTextBlock",
        "inlines": [{"type": "TextRun", "text": text, **style}],
        "spacing": "None",
    }


def _size(element: dict[str, Any]) -> int:
    return len(json.dumps(element, ensure_ascii=False).encode())


@notifier("teams")
class Teams(Notifier):
    """Microsoft Teams Workflows webhook; one Adaptive Card with the summary and a link to the full diff."""

    options: ClassVar[dict[str, Option]] = {
        "url": Option(opt.string, required=True, help="the workflow's webhook URL", secret=True),
        "base_url": BASE_URL,
    }
    min_interval = 1.0  # a workflow is throttled well before a second a message

    @classmethod
    def check(cls, config: Any) -> None:
        require_http_url(config, "expected the workflow's https:// webhook URL")

    def payload(self, event: dict[str, Any]) -> Outgoing:
        kind = str(event.get("type"))
        header: dict[str, Any] = {
            "type": "Container",
            "style": STYLES.get(kind, "default"),
            "bleed": True,
            "items": [_run(cut(self.title(event), TITLE_MAX), weight="Bolder", size="Medium")],
        }
        lines = [cut(line, LINE_MAX) for line in self.lines(event)]
        context = _run(cut(self.context(event), LINE_MAX), isSubtle=True, size="Small")
        room = MAX_BYTES - _size(header) - _size(context) - 200  # the card's own fields and the link
        kept, tail = fit(lines, room, lambda line: _size(_run(line, isSubtle=True)))
        body = [
            header,
            *(_run(line) for line in kept),
            *([_run(tail, isSubtle=True)] if tail else []),
            context,
        ]
        card: dict[str, Any] = {
            "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "type": "AdaptiveCard",
            "version": CARD_VERSION,
            "body": body,
            "msteams": {"width": "Full"},
        }
        link = self.report_link(event)
        if link:
            card["actions"] = [{"type": "Action.OpenUrl", "title": self.link_label(event), "url": link}]
        message = {
            "type": "message",
            "attachments": [
                {
                    "contentType": "application/vnd.microsoft.card.adaptive",
                    "contentUrl": None,
                    "content": card,
                }
            ],
        }
        return Outgoing(message, {})
