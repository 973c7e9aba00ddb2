"""ntfy (ntfy.sh or a server of your own): a push notification a change, to phones and desktops subscribed to a
topic. Published as JSON to the server's root: the title, the summary as plain text (ntfy reads Markdown only when
told to), a "Full diff" button and the diff opened on a tap."""

from __future__ import annotations

import base64
import re
from typing import Any, ClassVar

from differ import options as opt
from differ.errors import NotifyError
from differ.notify.base import BASE_URL, Notifier, Outgoing, fit, notifier, require_http_url
from differ.options import Invalid, Option, cut

MAX_BYTES = 3_800  # ntfy keeps a message up to 4,096 bytes as text (a longer one becomes an attachment)
TOPIC = re.compile(r"[-_A-Za-z0-9]{1,64}")  # ntfy's topic names
# How urgent each kind of alert is, on ntfy's scale of 1 (min) to 5 (max): an edit is "high", as it asks for a look.
PRIORITY = {
    "changed": 4,
    "mirror_drift": 3,
    "fetch_failing": 4,
    "recovered": 2,
    "delivery_failed": 4,
    "metadata": 2,
}
TAGS = {
    "changed": "memo",
    "metadata": "label",
    "mirror_drift": "mirror",
    "fetch_failing": "warning",
    "delivery_failed": "warning",
    "recovered": "white_check_mark",
}


@notifier("ntfy")
class Ntfy(Notifier):
    """ntfy topic (ntfy.sh or your own server); a push notification with the summary and a "Full diff" button."""

    options: ClassVar[dict[str, Option]] = {
        "url": Option(opt.string, "https://ntfy.sh", "the ntfy server"),
        "topic": Option(opt.nonempty_string, required=True, help="the topic subscribers follow"),
        "token": Option(opt.string, "", "an access token (tk_…), for a topic that needs one", secret=True),
        "username": Option(opt.string, "", "a user, for a topic that needs one (with password)"),
        "password": Option(opt.string, "", "the user's password", secret=True),
        "priority": Option(opt.integer(0, 5), 0, "1 (min) to 5 (max); 0: by the kind of alert"),
        "base_url": BASE_URL,
    }
    min_interval = 1.0

    @classmethod
    def check(cls, config: Any) -> None:
        require_http_url(config, "expected the ntfy server's https:// address")
        if config.options["token"] and config.options["username"]:
            raise Invalid("expected a token or a username and password, not both", key="token")
        if bool(config.options["username"]) != bool(config.options["password"]):
            raise Invalid("expected a username and a password together", key="password")
        topic = str(config.options["topic"])
        if not TOPIC.fullmatch(topic):
            raise Invalid(
                f'expected a topic of letters, digits, "-" and "_" (64 at most), found "{topic}"', key="topic"
            )

    def payload_url(self) -> str:
        """The server's root, which takes a message as JSON naming its topic."""
        return str(self.config.options["url"]).rstrip("/") + "/"

    def target(self) -> str:
        return f"{self.config.options['url']} topic {self.config.options['topic']}"

    def sign(self, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
        """The token or the user's password, read from the configuration at each attempt (never kept with the
        message)."""
        o = self.config.options
        if o["token"]:
            return {"Authorization": f"Bearer {o['token']}"}
        if o["username"]:
            pair = base64.b64encode(f"{o['username']}:{o['password']}".encode()).decode()
            return {"Authorization": f"Basic {pair}"}
        return {}

    def probe(self) -> str:
        """Whether these credentials may publish to the topic (the server's `TOPIC/auth`), posting nothing."""
        base = str(self.config.options["url"]).rstrip("/")
        topic = self.config.options["topic"]
        answer = self.ask("GET", f"{base}/{topic}/auth")
        if answer.status != 200:
            raise NotifyError(f"HTTP {answer.status} {answer.text}".rstrip())
        return f"may publish to {topic} on {base}"

    def payload(self, event: dict[str, Any]) -> Outgoing:
        kind = str(event.get("type"))
        kept, tail = fit(self.lines(event), MAX_BYTES, lambda line: len(line.encode()) + 1)
        body: dict[str, Any] = {
            "topic": self.config.options["topic"],
            "title": cut(self.title(event), 250),
            "message": "\n".join([*kept, *([tail] if tail else [])]) or self.context(event),
            "priority": self.config.options["priority"] or PRIORITY.get(kind, 3),
            "tags": [TAGS[kind]] if kind in TAGS else [],
        }
        link = self.report_link(event)
        if link:
            body["click"] = link
            body["actions"] = [
                {"action": "view", "label": self.link_label(event), "url": link, "clear": True}
            ]
        return Outgoing(body, {})
