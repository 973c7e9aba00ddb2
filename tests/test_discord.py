"""Discord forum channels against a local webhook that answers as Discord's does for one: a message needs a
`thread_name` (a new post) or a `thread_id` (a reply in one), and `wait=true` returns the message, whose channel is
the post; each document's alerts go to one post, kept across processes."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from differ.check import check
from differ.notify import Outbox, deliver
from tests.conftest import Hit, Reply, Server, article
from tests.test_notify import first_failure, setup, three_alerts

HOOK = "/api/webhooks/1/T"


class Forum:
    def __init__(self, server: Server) -> None:
        self.posts: dict[str, list[dict[str, object]]] = {}
        self.started = 0
        server.routes[HOOK + "*"] = self.execute

    def execute(self, hit: Hit) -> Reply:
        parts = urlsplit(hit.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        body = json.loads(hit.body)
        if parts.path != HOOK:
            return Reply(404, b'{"code": 10015, "message": "Unknown Webhook"}')
        thread, name = query.get("thread_id"), body.get("thread_name")
        if thread and name:
            return Reply(400, b'{"code": 50035, "message": "Invalid Form Body"}')
        if not thread and not name:
            return Reply(
                400,
                b'{"code": 220001, "message": "Webhooks posted to forum channels must have a thread_name or thread_id"}',
            )
        if thread and thread not in self.posts:
            return Reply(400, b'{"code": 10003, "message": "Unknown Channel"}')
        if not thread:
            thread = str(1_100_000_000_000_000_000 + self.started)
            self.started += 1
            self.posts[thread] = []
        self.posts[str(thread)].append(body)
        if query.get("wait") != "true":
            return Reply(204)
        message = {
            "id": str(1_200_000_000_000_000_000 + sum(map(len, self.posts.values()))),
            "channel_id": thread,
        }
        return Reply(200, json.dumps(message).encode(), headers={"Content-Type": "application/json"})


def test_a_forum_gets_a_post_a_document_and_its_alerts_reply_there(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    forum = Forum(receiver)
    later = three_alerts(tmp_path, server, receiver, "discord", HOOK, "forum = true\nfail_after = 1\n")
    [(post, messages)] = forum.posts.items()
    assert [m.get("thread_name") for m in messages] == ["Doc", None, None]
    assert [m["embeds"][0]["title"] for m in messages] == [  # type: ignore[index]
        "Doc changed (canonical)",
        "Doc changed (canonical)",
        "Doc (canonical) is failing (1 check in a row)",
    ]
    assert Outbox(later.store).threads("team") == {"doc": post}  # type: ignore[attr-defined]


def test_a_deleted_post_is_started_again_by_the_next_alert(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    forum = Forum(receiver)
    app, clock = setup(
        tmp_path,
        server,
        receiver,
        "<p>One.</p>",
        "<p>Two.</p>",
        kind="discord",
        path=HOOK,
        extra="forum = true\n",
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [first] = forum.posts
    del forum.posts[first]  # a moderator deletes the document's post
    server.page("/post", article("<p>Three.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert [a.ok for a in deliver(app)] == [True]  # type: ignore[arg-type]
    [(second, messages)] = forum.posts.items()
    assert second != first and messages[0]["thread_name"] == "Doc"
    assert Outbox(app.store).threads("team") == {"doc": second}  # type: ignore[attr-defined]


def test_a_forum_refuses_a_message_that_names_no_post(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """Why `forum = true` is needed: a forum channel's webhook takes no plain message."""
    Forum(receiver)
    assert first_failure(tmp_path, server, receiver, "discord", HOOK, "") == (
        'HTTP 400 {"code": 220001, "message": "Webhooks posted to forum channels must have a thread_name or thread_id"}'
    )
