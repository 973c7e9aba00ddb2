"""Signed JSON webhooks per the Standard Webhooks specification (webhook-id, -timestamp, -signature)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from typing import Any, ClassVar

from differ import options as opt
from differ.notify.base import BASE_URL, Notifier, Outgoing, document_of, notifier, require_http_url
from differ.options import Invalid, Option


def secret_key(secret: str) -> bytes:
    """The HMAC key of a `whsec_…` secret (base64 after the prefix)."""
    raw = secret.removeprefix("whsec_")
    return base64.b64decode(raw + "=" * (-len(raw) % 4), validate=True)


def signature(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """`v1,<base64 HMAC-SHA256 of id.timestamp.body>`, exactly over the bytes sent."""
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


@notifier("webhook")
class Webhook(Notifier):
    """A JSON POST {type, timestamp, data} signed with HMAC-SHA256 per Standard Webhooks."""

    options: ClassVar[dict[str, Option]] = {
        "url": Option(opt.string, required=True, help="where to POST", secret=True),
        "secret": Option(opt.string, required=True, help='signing secret, "whsec_" + base64', secret=True),
        "previous_secret": Option(
            opt.string,
            "",
            "while a receiver moves to a new secret: the old one, which also signs",
            secret=True,
        ),
        "base_url": BASE_URL,
    }

    @classmethod
    def check(cls, config: Any) -> None:
        require_http_url(config, "expected an http:// or https:// URL")
        for name in ("secret", "previous_secret"):
            secret = config.options[name]
            if name == "previous_secret" and not secret:
                continue
            if not secret.startswith("whsec_"):
                raise Invalid('expected "whsec_" followed by base64 (24 to 64 random bytes)', key=name)
            try:
                key = secret_key(secret)
            except (binascii.Error, ValueError):
                raise Invalid('the part after "whsec_" is not valid base64', key=name)
            if len(key) < 16:
                raise Invalid("too short; use 24 to 64 random bytes", key=name)

    def payload(self, event: dict[str, Any]) -> Outgoing:
        kind = str(event.get("type", "event"))
        data = {k: v for k, v in event.items() if k not in ("type", "id", "queued_at")}
        if "source" in event:
            data.setdefault("document", document_of(event))
        # what a chat destination shows, for a receiver that passes any event on without reading its fields
        link = self.report_link(event) or None
        data["message"] = {"title": self.title(event), "lines": self.lines(event), "link": link}
        body = {"type": f"differ.{kind}", "timestamp": event.get("queued_at"), "data": data}
        return Outgoing(body, {})

    def sign(self, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
        return {
            "webhook-id": msg_id,
            "webhook-timestamp": str(timestamp),
            # One signature a secret, space-delimited (the spec's rotation): a receiver holding either verifies.
            "webhook-signature": " ".join(
                signature(secret, msg_id, timestamp, body)
                for secret in (self.config.options["secret"], self.config.options["previous_secret"])
                if secret
            ),
        }
