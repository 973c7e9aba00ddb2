"""A receiver for differ's signed webhooks, with nothing but Python's standard library (3.11+).

It checks each request as the Standard Webhooks specification asks (the signature over `id.timestamp.body`
with the shared secret, in constant time; a timestamp within five minutes), takes each message once however
often it is retried (by its `webhook-id`), and appends it to a JSON Lines file before answering 204, so an
alert acknowledged is an alert kept. Run it, then point a `[[notify]]` of kind `webhook` at it:

    WEBHOOK_SECRET=whsec_... python receive.py --port 8080 --out events.jsonl

Each line of the file is one message: {"id", "type", "timestamp", "data"} (docs/webhooks.md has every type).
To act on alerts, change `handle`, or read the file from another program.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import hmac
import json
import os
import sys
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

MAX_BODY = 5 * 1024 * 1024  # differ's messages are far smaller; a larger body is refused unread
TOLERANCE = (
    300  # seconds a message's timestamp may be off this machine's clock (a replayed old message is not)
)


class Refused(Exception):
    """A request that is not a message from differ: its HTTP status and why."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status


def secret_key(secret: str) -> bytes:
    """The HMAC key of a `whsec_…` secret: the base64 after the prefix."""
    raw = secret.removeprefix("whsec_")
    try:
        return base64.b64decode(raw + "=" * (-len(raw) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise SystemExit('receive.py: the secret is not "whsec_" followed by base64')


def verify(keys: list[bytes], headers: Mapping[str, str], body: bytes, now: float) -> str:
    """The message's id, if one of `keys` signed this body at a time near `now`; else Refused."""
    msg_id = headers.get("webhook-id") or ""
    stamp = headers.get("webhook-timestamp") or ""
    if not msg_id or not stamp.isdigit():
        raise Refused(400, "webhook-id or webhook-timestamp missing")
    if abs(now - int(stamp)) > TOLERANCE:
        raise Refused(400, "webhook-timestamp too far from this machine's clock")
    signed = f"{msg_id}.{stamp}.".encode() + body
    expected = [base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()) for key in keys]
    for entry in (headers.get("webhook-signature") or "").split():
        version, _, sig = entry.partition(",")
        if version == "v1" and any(hmac.compare_digest(sig.encode(), e) for e in expected):
            return msg_id
    raise Refused(401, "no valid signature")


class Journal:
    """The messages taken, one JSON line each, appended and synced before the sender is told: the ids in it are
    the messages already taken, read back at start, so a retry of one (its answer lost) is not taken twice."""

    def __init__(self, path: Path):
        self.path = path
        self.seen: set[str] = set()
        if path.exists():
            data = path.read_bytes()
            whole = data[: data.rfind(b"\n") + 1]
            if len(whole) < len(data):  # a line cut short by a crash: that message was never acknowledged
                with path.open("r+b") as f:
                    f.truncate(len(whole))
            self.seen = {json.loads(line)["id"] for line in whole.splitlines() if line.strip()}

    def take(self, msg_id: str, message: dict[str, Any]) -> bool:
        """Append a message not taken before; whether it was new."""
        if msg_id in self.seen:
            return False
        line = json.dumps({"id": msg_id, **message}, ensure_ascii=False) + "\n"
        with self.path.open("ab") as f:
            f.write(line.encode())
            f.flush()
            os.fsync(f.fileno())
        self.seen.add(msg_id)
        return True


def handle(msg_id: str, message: dict[str, Any]) -> None:
    """What to do with a message taken for the first time: here, a line on stdout with the alert's title."""
    said = (message.get("data") or {}).get("message") or {}
    print(f"{message.get('type')} {msg_id} {said.get('title', '')}", flush=True)


def serve(host: str, port: int, keys: list[bytes], journal: Journal) -> None:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            try:
                length = self.headers.get("Content-Length") or "0"
                if not length.isdigit():
                    raise Refused(400, "Content-Length is not a number")
                size = int(length)
                if size > MAX_BODY:
                    raise Refused(413, "body too large")
                body = self.rfile.read(size)
                msg_id = verify(keys, {k.lower(): v for k, v in self.headers.items()}, body, time.time())
                message = json.loads(body)
                if not isinstance(message, dict) or not isinstance(message.get("type"), str):
                    raise Refused(400, "not a {type, timestamp, data} message")
            except Refused as refused:
                self.answer(refused.status, str(refused))
                return
            except ValueError:
                self.answer(400, "body is not JSON")
                return
            if journal.take(msg_id, message):
                handle(msg_id, message)
            self.answer(204, "")

        def answer(self, status: int, reason: str) -> None:
            body = reason.encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # one line a message taken (handle), not one a request

    server = HTTPServer((host, port), Handler)
    print(f"listening on http://{host}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument(
        "--port", type=int, default=8080, help="0 for any free port (the line printed names it)"
    )
    parser.add_argument(
        "--out", type=Path, default=Path("events.jsonl"), help="the JSON Lines file of messages"
    )
    args = parser.parse_args(argv)
    # WEBHOOK_SECRET, and while differ moves to a new one, WEBHOOK_PREVIOUS_SECRET: either verifies
    secrets = [os.environ.get(name, "") for name in ("WEBHOOK_SECRET", "WEBHOOK_PREVIOUS_SECRET")]
    if not secrets[0]:
        sys.exit("receive.py: set WEBHOOK_SECRET to the notifier's secret (whsec_...)")
    serve(args.host, args.port, [secret_key(s) for s in secrets if s], Journal(args.out))


if __name__ == "__main__":
    main()
