"""The ntfy notifier against a local server that answers as ntfy's does for a message published as JSON: a topic,
an access token where the topic needs one, 4,096 bytes of text at most."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from differ.check import check
from differ.notify import Outbox
from tests.conftest import Hit, Reply, Server
from tests.helpers import notifier_config, notifier_error
from tests.test_notify import first_failure, setup


class NtfyServer:
    def __init__(self, server: Server, auth: str = "Bearer tk_releases") -> None:
        self.messages: list[dict[str, object]] = []
        self.auth = auth
        server.routes["/"] = self.publish

    def publish(self, hit: Hit) -> Reply:
        body = json.loads(hit.body)
        if hit.headers.get("authorization") != self.auth:
            return Reply(403, b'{"code":40301,"http":403,"error":"forbidden"}')
        if body.get("topic") != "release-edits":
            return Reply(400, b'{"code":40010,"http":400,"error":"invalid request: topic invalid"}')
        if len(str(body.get("message", "")).encode()) > 4096:
            return Reply(413, b'{"code":41301,"http":413,"error":"message too large"}')
        self.messages.append(body)
        return Reply(200, json.dumps({"id": "a1b2c3", "event": "message", "topic": body["topic"]}).encode())


def test_a_change_is_a_push_with_its_summary_and_a_button_to_the_diff(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    ntfy = NtfyServer(receiver)
    extra = 'topic = "release-edits"\ntoken = "tk_releases"\nbase_url = "https://reports.example.org/"\n'
    app, _ = setup(
        tmp_path,
        server,
        receiver,
        "<p>Hello.</p>",
        "<p>Hello, **again**.</p>",
        kind="ntfy",
        path="",
        extra=extra,
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    link = "https://reports.example.org/doc/canonical/diff-2.html"
    assert (
        ntfy.messages
        == [
            {
                "topic": "release-edits",
                "title": "Doc changed (canonical)",
                "message": 'Doc (canonical), version 1 → 2: 1 change.\n• Hello: added ", **again**"',  # plain text:
                # ntfy reads Markdown only when told
                "priority": 4,
                "tags": ["memo"],
                "click": link,
                "actions": [{"action": "view", "label": "Full diff", "url": link, "clear": True}],
            }
        ]
    )
    sent = Outbox(app.store).messages("team", "sent")  # type: ignore[attr-defined]
    assert "tk_releases" not in json.dumps([m.data for m in sent])


def test_a_user_and_password_are_sent_as_basic_authentication(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    ntfy = NtfyServer(receiver, auth="Basic " + base64.b64encode(b"phil:s3cret").decode())
    extra = 'topic = "release-edits"\nusername = "phil"\npassword = "s3cret"\npriority = 5\n'
    app, _ = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="ntfy", path="", extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert [m["priority"] for m in ntfy.messages] == [5]


def test_a_topic_the_token_may_not_write_fails_with_ntfys_answer(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    NtfyServer(receiver)
    error = first_failure(
        tmp_path, server, receiver, "ntfy", "", 'topic = "release-edits"\ntoken = "tk_other"\n'
    )
    assert error == 'HTTP 403 {"code":40301,"http":403,"error":"forbidden"}'


def test_a_long_summary_is_cut_to_one_message(tmp_path: Path) -> None:
    from differ.notify.ntfy import Ntfy

    ntfy = Ntfy(notifier_config(tmp_path, "ntfy", 'topic = "t"\n'))
    lines = ["Doc, version 1 → 2: 900 changes."] + [f'• Section {i}: added "{"한" * 20}"' for i in range(900)]
    body = ntfy.payload({"type": "changed", "source": "d/c", "diff": {"summary": lines}}).body
    assert len(body["message"].encode()) <= 4096
    kept = sum(line.startswith("• Section") for line in body["message"].splitlines())
    assert body["message"].splitlines()[-1] == f"…and {900 - kept} more changes" and 0 < kept < 900


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ('topic = "release edits"\n', 'notify[0].topic: expected a topic of letters, digits, "-" and "_" (64 at most), found "release edits"'),
        ('topic = "t"\nurl = "ntfy.sh"\n', "notify[0].url: expected the ntfy server's https:// address"),
        ('topic = "t"\ntoken = "tk_x"\nusername = "u"\npassword = "p"\n', "notify[0].token: expected a token or a username and password, not both"),
        ('topic = "t"\nusername = "u"\n', "notify[0].password: expected a username and a password together"),
        ('topic = "t"\npriority = 9\n', "notify[0].priority: expected a whole number of at least 0 and at most 5, found 9"),
    ],
)  # fmt: skip
def test_ntfy_settings_are_checked(tmp_path: Path, options: str, message: str) -> None:
    assert notifier_error(tmp_path, "ntfy", options) == message
