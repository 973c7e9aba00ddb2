"""The Telegram notifier against a local Bot API server that answers as Telegram's does: the token in the path,
HTML messages read as Telegram reads them (only its tags, entities for `<`, `>`, `&`, 4,096 characters as shown),
mentions found in the text as shown, 429 with `parameters.retry_after`."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from differ.check import check
from differ.notify import Outbox, deliver
from tests.conftest import Hit, Reply, Server, article
from tests.helpers import notifier_config, notifier_error
from tests.test_notify import first_failure, setup

TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
SETTINGS = f'bot_token = "{TOKEN}"\nchat = "-1001234567890"\n'
TAGS = {
    "b",
    "strong",
    "i",
    "em",
    "u",
    "ins",
    "s",
    "strike",
    "del",
    "a",
    "code",
    "pre",
    "tg-spoiler",
    "blockquote",
}
# Telegram finds a mention where `@` and a username (5 to 32 letters, digits, underscores) follow a non-word.
_MENTION = re.compile(r"(?<![\w@])@[A-Za-z][A-Za-z0-9_]{4,31}")


class _Reader(HTMLParser):
    """The text a Telegram HTML message shows, refusing tags Telegram does not know."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.shown: list[str] = []
        self.refused = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in TAGS:
            self.refused = f'Bad Request: can\'t parse entities: Unsupported start tag "{tag}"'

    def handle_data(self, data: str) -> None:
        self.shown.append(data)


def shown(text: str) -> tuple[str, str]:
    reader = _Reader()
    reader.feed(text)
    reader.close()
    return "".join(reader.shown), reader.refused


class BotApi:
    def __init__(self, server: Server, limited: int = 0, forum: bool = False, wait: float = 7) -> None:
        self.messages: list[dict[str, object]] = []
        self.limited = limited
        self.wait = wait  # what a 429 asks for, in seconds
        self.forum = forum  # a group with topics, in which the bot may make them
        self.topics: dict[int, str] = {}
        self.made: list[int] = []
        server.routes["/bot*"] = self.answer

    def create_topic(self, body: dict[str, object]) -> Reply:
        if not self.forum:
            return Reply(
                400, b'{"ok":false,"error_code":400,"description":"Bad Request: the chat is not a forum"}'
            )
        topic = 100 + len(self.made)
        self.made.append(topic)
        self.topics[topic] = str(body["name"])
        answer = {
            "ok": True,
            "result": {"message_thread_id": topic, "name": body["name"], "icon_color": 7322096},
        }
        return Reply(200, json.dumps(answer).encode())

    def answer(self, hit: Hit) -> Reply:
        token, _, method = hit.path.removeprefix("/bot").partition("/")
        if token != TOKEN:
            return Reply(401, b'{"ok":false,"error_code":401,"description":"Unauthorized"}')
        body = json.loads(hit.body)
        if method == "createForumTopic":
            return self.create_topic(body)
        if method == "getMe":
            return Reply(200, b'{"ok":true,"result":{"id":123456,"is_bot":true,"username":"differ_bot"}}')
        if method == "getChat":
            if body.get("chat_id") != -1001234567890:
                return Reply(
                    400, b'{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}'
                )
            chat = {
                "id": -1001234567890,
                "type": "supergroup",
                "title": "Release team",
                "is_forum": self.forum,
            }
            return Reply(200, json.dumps({"ok": True, "result": chat}).encode())
        if method != "sendMessage":
            return Reply(404, b'{"ok":false,"error_code":404,"description":"Not Found"}')
        if "message_thread_id" in body and body["message_thread_id"] not in self.topics:
            return Reply(
                400, b'{"ok":false,"error_code":400,"description":"Bad Request: message thread not found"}'
            )
        if body.get("chat_id") != -1001234567890:
            return Reply(400, b'{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}')
        if self.limited:
            self.limited -= 1
            return Reply(
                429,
                b'{"ok":false,"error_code":429,"description":"Too Many Requests: retry after %g",'
                b'"parameters":{"retry_after":%g}}' % (self.wait, self.wait),
            )
        text, refused = shown(body["text"]) if body.get("parse_mode") == "HTML" else (body["text"], "")
        if refused or not 0 < len(text) <= 4096:
            return Reply(
                400,
                json.dumps({"ok": False, "error_code": 400, "description": refused or "too long"}).encode(),
            )
        self.messages.append({**body, "shown": text, "mentions": set(_MENTION.findall(text))})
        return Reply(200, b'{"ok":true,"result":{"message_id":%d}}' % len(self.messages))


def test_a_change_is_one_message_whose_page_text_mentions_no_one(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    api = BotApi(receiver)
    evil = "<p>Ping @everyone_here and @jane_doe: &lt;b&gt;bold&lt;/b&gt; &amp; <a href='https://evil.example/'>x</a>.</p>"
    extra = (
        SETTINGS
        + f'api = "{receiver.base}"\nbase_url = "https://reports.example.org/"\nmention = ["@release_team"]\n'
    )
    app, _ = setup(tmp_path, server, receiver, "<p>Hello.</p>", evil, kind="telegram", path=None, extra=extra)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [message] = api.messages
    assert message["mentions"] == {"@release_team"}
    assert message["link_preview_options"] == {"is_disabled": True} and "message_thread_id" not in message
    assert str(message["shown"]).replace("\u2060", "").splitlines() == [
        "Doc changed (canonical) @release_team",
        "Doc (canonical), version 1 → 2: 1 change.",
        '• "Hello."',
        '  → "Ping @everyone_here and @jane_doe: <b>bold</b> & x."',
        '  link "x" added: https://evil.example/',
        "Full diff",
        "doc/canonical · version 1 → 2 · 2026-07-08T18:45:00Z",
    ]
    assert '<a href="https://reports.example.org/doc/canonical/diff-2.html">Full diff</a>' in str(
        message["text"]
    )
    sent = Outbox(app.store).messages("team", "sent")  # type: ignore[attr-defined]
    assert [m.data["attempts"] for m in sent] == [1]
    assert TOKEN not in json.dumps([m.data for m in sent])


def test_a_forum_topic_and_a_silent_message(tmp_path: Path, server: Server, receiver: Server) -> None:
    api = BotApi(receiver, forum=True)
    api.topics[42] = "Releases"  # a topic made in Telegram
    extra = SETTINGS + f'api = "{receiver.base}"\nthread = 42\nsilent = true\n'
    app, _ = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="telegram", path=None, extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [message] = api.messages
    assert (message["message_thread_id"], message["disable_notification"]) == (42, True)


def test_with_topics_each_document_gets_a_topic_the_bot_makes(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    api = BotApi(receiver, forum=True)
    extra = SETTINGS + f'api = "{receiver.base}"\ntopics = true\nfail_after = 1\n'
    app, clock = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="telegram", path=None, extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    server.routes["/post"] = Reply(500)
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert api.topics == {100: "Doc"}
    assert [m["message_thread_id"] for m in api.messages] == [100, 100]
    assert all("differ_topic_name" not in m for m in api.messages)
    assert Outbox(app.store).threads("team") == {"doc": "100"}  # type: ignore[attr-defined]


def test_a_deleted_topic_is_made_again_for_the_next_alert(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    api = BotApi(receiver, forum=True)
    extra = SETTINGS + f'api = "{receiver.base}"\ntopics = true\n'
    app, clock = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="telegram", path=None, extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    del api.topics[100]  # a moderator deletes the document's topic
    server.page("/post", article("<p>Newer.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [pending] = Outbox(app.store).messages("team", "pending")  # type: ignore[attr-defined]
    assert pending.data["last_error"].endswith(
        "the document's thread is gone, so the next attempt starts a new one"
    )
    assert [a.ok for a in deliver(app)] == [True]  # type: ignore[arg-type]  (at once: no wait)
    assert api.topics == {101: "Doc"}
    assert [m["message_thread_id"] for m in api.messages] == [100, 101]


def test_topics_in_a_group_without_them_fail_with_telegrams_answer(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    BotApi(receiver)
    extra = SETTINGS + f'api = "{receiver.base}"\ntopics = true\n'
    error = first_failure(tmp_path, server, receiver, "telegram", None, extra)
    assert error == "making the topic: Bad Request: the chat is not a forum"


def test_rate_limited_waits_as_long_as_telegram_asks(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    api = BotApi(receiver, limited=1)
    extra = SETTINGS + f'api = "{receiver.base}"\n'
    app, clock = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="telegram", path=None, extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [pending] = Outbox(app.store).messages("team", "pending")  # type: ignore[attr-defined]
    assert pending.data["next_attempt"] == "2026-07-08T18:45:07Z"
    clock.advance(7)
    assert [a.ok for a in deliver(app)] == [True]  # type: ignore[arg-type]
    assert len(api.messages) == 1


def test_a_wait_of_centuries_in_telegrams_answer_is_taken_as_a_day(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    BotApi(receiver, limited=1, wait=1e15)
    extra = SETTINGS + f'api = "{receiver.base}"\n'
    app, _ = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="telegram", path=None, extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [pending] = Outbox(app.store).messages("team", "pending")  # type: ignore[attr-defined]
    assert pending.data["next_attempt"] == "2026-07-09T18:45:00Z"


def test_a_chat_the_bot_is_not_in_fails_with_telegrams_answer(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    BotApi(receiver)
    extra = SETTINGS.replace("-1001234567890", "-1009") + f'api = "{receiver.base}"\n'
    error = first_failure(tmp_path, server, receiver, "telegram", None, extra)
    assert error == 'HTTP 400 {"ok":false,"error_code":400,"description":"Bad Request: chat not found"}'


def test_a_long_summary_is_cut_to_one_message(tmp_path: Path) -> None:
    from differ.notify.telegram import Telegram

    telegram = Telegram(notifier_config(tmp_path, "telegram", SETTINGS))
    lines = ["Doc, version 1 → 2: 900 changes."] + [
        f'• Section {i}: added "{"<@&>" * 20}"' for i in range(900)
    ]
    body = telegram.payload({"type": "changed", "source": "d/c", "diff": {"summary": lines}}).body
    text, refused = shown(body["text"])
    assert not refused and len(text) <= 4096
    kept = sum(line.startswith("• Section") for line in text.splitlines())
    assert text.splitlines()[-2] == f"…and {900 - kept} more changes" and 0 < kept < 900


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ('bot_token = "nope"\nchat = "-100"\n', 'notify[0].bot_token: expected the token @BotFather gave, "123456789:AA…"'),
        (f'bot_token = "{TOKEN}"\nchat = "general"\n', 'notify[0].chat: expected a chat id such as "-1001234567890" or a channel\'s "@name", found "general"'),
        (SETTINGS + 'mention = ["jane"]\n', 'notify[0].mention: expected Telegram mentions such as "@jane_doe", found "jane"'),
        (SETTINGS + 'api = "api.telegram.org"\n', "notify[0].api: expected the Bot API server's https:// address"),
        (SETTINGS + "thread = 4\ntopics = true\n", "notify[0].topics: expected thread (one topic for all) or topics (a topic a document), not both"),
    ],
)  # fmt: skip
def test_telegram_settings_are_checked(tmp_path: Path, options: str, message: str) -> None:
    assert notifier_error(tmp_path, "telegram", options) == message


MENTIONY = st.text(alphabet=st.sampled_from(list("@jane_doe channel <b>&amp;</a>;\"' \né한")), max_size=60)


@settings(max_examples=300, deadline=None)
@given(MENTIONY)
def test_any_page_text_shows_as_written_and_mentions_no_one(text: str) -> None:
    from differ.notify.telegram import escape

    text_shown, refused = shown(escape(text))
    assert (text_shown.replace("\u2060", ""), refused) == (text, "")
    assert _MENTION.findall(text_shown) == []


def test_check_asks_telegram_whether_the_bot_can_post_there(tmp_path: Path, receiver: Server) -> None:
    from differ.app import App
    from differ.notify import probe
    from differ.store import Store
    from tests.conftest import make_config

    BotApi(receiver)
    text = '[[documents]]\nid = "doc"\n[documents.canonical]\nid = "c"\nurl = "https://example.org/"\n'
    for options, said in [
        (SETTINGS, (True, "@differ_bot can post to Release team")),
        (SETTINGS + "topics = true\n", (False, "Release team has no topics, which topics = true needs")),
        (SETTINGS.replace("-1001234567890", "-1009"), (False, "getChat: Bad Request: chat not found")),
        (SETTINGS.replace(TOKEN, "123:wrong"), (False, "getMe: Unauthorized")),
    ]:
        notify = f'[[notify]]\nname = "tg"\nkind = "telegram"\napi = "{receiver.base}"\n{options}'
        config = make_config(tmp_path, text + notify)
        [result] = probe(App(config, Store(config.service.snapshots)))
        assert (result.ok, result.detail) == said
    assert all("sendMessage" not in h.path for h in receiver.hits)  # nothing posted
