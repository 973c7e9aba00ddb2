"""Google Chat spaces through an incoming webhook: one card whose page text is HTML-escaped (card text reads a
few HTML tags, so a page can neither format the message nor link anywhere), mentions only those configured, and
every alert about one document in a thread of its own, so a post's edits and its mirrors' drift stay together.
Each message names its outbox id as the request id, which Google Chat keeps one message for."""

from __future__ import annotations

import html
import json
import re
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from differ import options as opt
from differ.bullets import grouped
from differ.notify.base import (
    BASE_URL,
    Notifier,
    Outgoing,
    document_of,
    fit,
    notifier,
    require_http_url,
    require_mentions,
)
from differ.options import Option, cut

if TYPE_CHECKING:
    from differ.notify.outbox import Message

MAX_BYTES = 30_000  # Google Chat refuses a message over 32,000 bytes; the rest is room for the envelope
TITLE_MAX = 200
SUBTITLE_MAX = 200
# Whom an alert may mention: a user by id, or everyone in the space.
MENTION = re.compile(r"<users/(?:\d+|all)>")
# What makes a reply go to the thread its key names, or start that thread (query parameters of the webhook).
REPLY = ("messageReplyOption", "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD")


def _paragraph(text: str) -> dict[str, Any]:
    """A text widget of page text: escaped, so `<b>` or `<a href>` in a page stays text; lines kept."""
    return {"textParagraph": {"text": html.escape(text, quote=False).replace("\n", "<br>")}}


def _size(element: Any) -> int:
    return len(json.dumps(element, ensure_ascii=False).encode())


@notifier("googlechat")
class GoogleChat(Notifier):
    """Google Chat incoming webhook; one card with the summary and a link to the full diff, a thread a document."""

    options: ClassVar[dict[str, Option]] = {
        "url": Option(opt.string, required=True, help="the space's webhook URL", secret=True),
        "base_url": BASE_URL,
        "mention": Option(
            opt.string_list, (), 'whom each alert mentions: "<users/USER_ID>" or "<users/all>"'
        ),
        "threads": Option(opt.boolean, True, "each document's alerts in a thread of their own"),
    }
    min_interval = 1.0  # a webhook may post about one message a second to a space

    @classmethod
    def check(cls, config: Any) -> None:
        require_http_url(config, "expected the space's https:// webhook URL")
        require_mentions(config, MENTION, 'Google Chat mentions such as "<users/123456789>" or "<users/all>"')

    def payload_url(self) -> str:
        """The webhook, told to reply in the thread a message names (or start it) when threads are on."""
        url = super().payload_url()
        if not self.config.options["threads"]:
            return url
        parts = urlsplit(url)
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != REPLY[0]]
        return urlunsplit(parts._replace(query=urlencode([*query, REPLY])))

    def address(self, msg: Message) -> str:
        """The webhook with the message's outbox id as its `requestId`: Google Chat answers a repeated request id
        with the message it already made, so a retry after a lost answer is not posted twice."""
        parts = urlsplit(self.payload_url())
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "requestId"]
        return urlunsplit(parts._replace(query=urlencode([*query, ("requestId", msg.id)])))

    def payload(self, event: dict[str, Any]) -> Outgoing:
        lines = grouped(self.lines(event))
        link = self.report_link(event)
        button = (
            {
                "buttonList": {
                    "buttons": [{"text": self.link_label(event), "onClick": {"openLink": {"url": link}}}]
                }
            }
            if link
            else None
        )
        room = MAX_BYTES - _size(button) - 2_000  # the header, the envelope and the line that ends a cut
        kept, tail = fit(lines, room, lambda line: _size(_paragraph(line)) + 1)
        widgets = [_paragraph(line) for line in ([*kept, tail] if tail else kept)]
        if button:
            widgets.append(button)
        card = {
            "header": {
                "title": cut(self.title(event), TITLE_MAX),
                "subtitle": cut(self.context(event), SUBTITLE_MAX),
            },
            "sections": [{"widgets": widgets}],
        }
        body: dict[str, Any] = {"cardsV2": [{"cardId": "differ", "card": card}]}
        mentions = self.config.options.get("mention", ())
        if mentions:  # a mention works only in the message's text, which nothing else goes into
            body["text"] = " ".join(mentions)
        document = document_of(event)
        if self.config.options["threads"] and document:
            body["thread"] = {"threadKey": f"differ-{document}"}
        return Outgoing(body, {})
