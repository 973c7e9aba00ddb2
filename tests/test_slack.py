"""Slack through an app's bot token against a local Web API that answers as Slack's does: a bearer token, the
channel the bot is in, `ok: false` with an error code at HTTP 200, and a ts for each message; each document's
alerts in one thread, kept across processes."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from differ.check import check
from differ.notify import Outbox, deliver
from tests.conftest import Hit, Reply, Server, article
from tests.helpers import notifier_error
from tests.test_notify import first_failure, setup, three_alerts

TOKEN = "xoxb-1234-5678-abcdefghijklmnop"
BOT = f'token = "{TOKEN}"\nchannel = "C0123ABC"\n'


class WebApi:
    def __init__(self, server: Server, history: bool = True) -> None:
        self.messages: list[dict[str, object]] = []
        self.lose_answers = 0  # answers the connection drops after the message is posted
        self.history = history  # whether the bot has the scope to read the channel's history
        server.routes["/api/chat.postMessage"] = self.post
        server.routes["/api/conversations.history*"] = self.read
        server.routes["/api/conversations.replies*"] = self.read
        server.routes["/api/auth.test"] = self.auth
        server.routes["/api/conversations.info*"] = self.info

    def auth(self, hit: Hit) -> Reply:
        if hit.headers.get("authorization") != f"Bearer {TOKEN}":
            return Reply(200, b'{"ok": false, "error": "invalid_auth"}')
        return Reply(200, b'{"ok": true, "team": "PyTorch", "user": "differ", "bot_id": "B01"}')

    def info(self, hit: Hit) -> Reply:
        query = {k: v[-1] for k, v in parse_qs(urlsplit(hit.path).query).items()}
        if not self.history:
            return Reply(200, b'{"ok": false, "error": "missing_scope", "needed": "channels:read"}')
        if query.get("channel") != "C0123ABC":
            return Reply(200, b'{"ok": false, "error": "channel_not_found"}')
        return Reply(200, b'{"ok": true, "channel": {"id": "C0123ABC", "name": "releases"}}')

    def read(self, hit: Hit) -> Reply:
        query = {k: v[-1] for k, v in parse_qs(urlsplit(hit.path).query).items()}
        if not self.history:
            return Reply(200, b'{"ok": false, "error": "missing_scope", "needed": "channels:history"}')
        if query.get("channel") != "C0123ABC" or query.get("include_all_metadata") != "true":
            return Reply(200, b'{"ok": false, "error": "channel_not_found"}')
        if "ts" in query:  # conversations.replies: the thread's parent and its replies
            shown = [m for m in self.messages if query["ts"] in (m["ts"], m.get("thread_ts"))]
        else:  # conversations.history: the channel's messages and the replies also sent to it
            shown = [m for m in self.messages if "thread_ts" not in m or m.get("reply_broadcast")]
        shown = [m for m in shown if float(str(m["ts"])) >= float(query.get("oldest", 0))]
        found = [{"ts": m["ts"], "text": m["text"], "metadata": m.get("metadata")} for m in shown]
        return Reply(200, json.dumps({"ok": True, "messages": found[::-1], "has_more": False}).encode())

    def post(self, hit: Hit) -> Reply:
        def answer(**data: object) -> Reply:
            return Reply(200, json.dumps(data).encode(), headers={"Content-Type": "application/json"})

        if hit.headers.get("authorization") != f"Bearer {TOKEN}":
            return answer(ok=False, error="invalid_auth")
        body = json.loads(hit.body)
        if body.get("channel") != "C0123ABC":
            return answer(ok=False, error="not_in_channel")
        if not body.get("text") or len(body.get("blocks", [])) > 50:
            return answer(ok=False, error="invalid_blocks")
        ts = f"1783532700.{len(self.messages):06d}"
        self.messages.append({**body, "ts": ts})
        if self.lose_answers:
            self.lose_answers -= 1
            return Reply(200, b"", reset=True)
        return answer(ok=True, channel="C0123ABC", ts=ts)


def test_a_documents_alerts_share_one_thread_across_processes(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    api = WebApi(receiver)
    extra = BOT + f'api = "{receiver.url("/api")}"\nfail_after = 1\n'
    later = three_alerts(tmp_path, server, receiver, "slack", None, extra)
    first, second, failing = api.messages
    assert "thread_ts" not in first and str(first["text"]).startswith("Doc changed (canonical)")
    assert (second["thread_ts"], second["reply_broadcast"]) == (first["ts"], True)
    assert failing["thread_ts"] == first["ts"] and str(failing["text"]).startswith(
        "Doc (canonical) is failing"
    )
    assert Outbox(later.store).threads("team") == {"doc": first["ts"]}
    sent = Outbox(later.store).messages("team", "sent")
    assert TOKEN not in json.dumps([m.data for m in sent])


def test_a_retry_after_a_lost_answer_finds_the_message_instead_of_posting_it_again(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    api = WebApi(receiver)
    api.lose_answers = 1
    extra = BOT + f'api = "{receiver.url("/api")}"\n'
    app, clock = setup(
        tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>", kind="slack", path=None, extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [pending] = Outbox(app.store).messages("team", "pending")  # type: ignore[attr-defined]
    assert pending.data["last_error"] == "connection reset"
    clock.advance(600)
    [attempt] = deliver(app)  # type: ignore[arg-type]
    assert (
        attempt.detail
        == "delivered; found in the channel: an earlier attempt got there, so it was not posted again"
    )
    [message] = api.messages
    assert message["metadata"] == {"event_type": "differ_alert", "event_payload": {"id": pending.id}}
    assert Outbox(app.store).threads("team") == {"doc": message["ts"]}  # type: ignore[attr-defined]
    api.lose_answers = 1  # a reply in the thread, whose answer is lost too: found among the thread's replies
    server.page("/post", article("<p>Three.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    clock.advance(600)
    assert [a.ok for a in deliver(app)] == [True]  # type: ignore[arg-type]
    assert [m.get("thread_ts") for m in api.messages] == [None, message["ts"]]
    assert any("conversations.replies" in h.path and f"ts={message['ts']}" in h.path for h in receiver.hits)


def test_without_the_history_scope_a_retry_posts_again(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """At least once, as a webhook: the alert is never lost, though a lost answer can mean it shows twice."""
    api = WebApi(receiver, history=False)
    api.lose_answers = 1
    extra = BOT + f'api = "{receiver.url("/api")}"\n'
    app, clock = setup(
        tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>", kind="slack", path=None, extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    clock.advance(600)
    assert [a.ok for a in deliver(app)] == [True]  # type: ignore[arg-type]
    assert len(api.messages) == 2


def test_without_threads_each_alert_stands_alone(tmp_path: Path, server: Server, receiver: Server) -> None:
    api = WebApi(receiver)
    extra = BOT + f'api = "{receiver.url("/api")}"\nthreads = false\n'
    app, clock = setup(
        tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>", kind="slack", path=None, extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    server.page("/post", article("<p>Three.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert [("thread_ts" in m) for m in api.messages] == [False, False]


def test_slacks_ok_false_is_a_failed_delivery_with_its_error(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    WebApi(receiver)
    extra = BOT.replace("C0123ABC", "C0999") + f'api = "{receiver.url("/api")}"\n'
    error = first_failure(tmp_path, server, receiver, "slack", None, extra)
    assert error == "Slack refused it: not_in_channel"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ('url = "https://hooks.slack.com/services/T/B/X"\n' + BOT, "notify[0].token: expected url (an incoming webhook) or token (an app's bot), not both"),
        ('token = "abc"\nchannel = "C1"\n', 'notify[0].token: expected a bot token, "xoxb-…"'),
        (f'token = "{TOKEN}"\n', "notify[0].channel: expected the channel a bot token posts to (C0123ABC or #name)"),
        ("", "notify[0].url: expected the webhook's https:// URL (or a bot's token and channel)"),
        ('url = "https://hooks.slack.com/services/T/B/X"\nchannel = "#releases"\n', "notify[0].channel: a webhook posts to the channel it was made for; channel is for a bot's token"),
    ],
)  # fmt: skip
def test_slack_settings_are_checked(tmp_path: Path, options: str, message: str) -> None:
    assert notifier_error(tmp_path, "slack", options) == message


def test_check_asks_slack_about_the_token_and_the_channel(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    from tests.test_cli import run

    api = WebApi(receiver)
    config = tmp_path / "config.toml"

    def with_notify(bot: str) -> Path:
        config.write_text(
            f'[service]\nsnapshots = "{tmp_path / "snap"}"\n'
            '[[documents]]\nid = "doc"\n[documents.canonical]\nid = "c"\nurl = "https://example.org/"\n'
            f'[[notify]]\nname = "bot"\nkind = "slack"\napi = "{receiver.url("/api")}"\n{bot}'
            f'[[notify]]\nname = "hook"\nkind = "slack"\nurl = "{receiver.url("/services/T/B/X")}"\n'
        )
        return config

    assert run("--config", str(with_notify(BOT)), "notify", "check") == (
        0,
        "bot: ok: differ in PyTorch; channel #releases found\n"
        "hook: not asked: slack cannot be asked without a message (differ notify test sends one)\n",
        "",
    )
    assert run("--config", str(with_notify(BOT.replace("C0123ABC", "C0999"))), "notify", "check", "bot") == (
        1,
        "bot: not ok: conversations.info: channel_not_found\n",
        "",
    )
    assert run("--config", str(with_notify(BOT.replace(TOKEN, "xoxb-wrong"))), "notify", "check", "bot")[
        1
    ] == ("bot: not ok: auth.test: invalid_auth\n")
    api.history = False
    assert run("--config", str(with_notify(BOT)), "notify", "check", "bot")[1] == (
        "bot: ok: differ in PyTorch; the channel was not checked (the bot may not read channels: missing_scope)\n"
    )
    assert api.messages == [] and not receiver.requests_to("/services/T/B/X")  # nothing posted
