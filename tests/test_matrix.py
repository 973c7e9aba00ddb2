"""The Matrix notifier against a local homeserver that answers as the client-server API does: a bearer token, a
room the bot is in, one event per transaction id, the room directory, 429 with `retry_after_ms`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from differ.check import check
from differ.notify import Outbox, deliver
from tests.conftest import Hit, Reply, Server, article
from tests.helpers import notifier_config, notifier_error
from tests.test_notify import first_failure, setup

TOKEN = "syt_ZGlmZmVy_token"
ROOM = "!abc123:example.org"
SETTINGS = f'room = "{ROOM}"\naccess_token = "{TOKEN}"\n'
API = "/_matrix/client/v3"


@dataclass
class Homeserver:
    """The parts of a homeserver differ talks to; `events` is the room's timeline."""

    rooms: dict[str, str] = field(default_factory=lambda: {"#release:example.org": ROOM})
    events: list[dict[str, Any]] = field(default_factory=list)
    by_txn: dict[str, str] = field(default_factory=dict)
    lose_answers: int = 0  # answers the connection drops after the event is stored
    limited: int = 0  # requests answered 429 M_LIMIT_EXCEEDED

    def serve(self, server: Server) -> None:
        server.routes[f"{API}/rooms/*"] = self.send
        server.routes[f"{API}/directory/room/*"] = self.directory
        server.routes[f"{API}/account/whoami"] = self.whoami
        server.routes[f"{API}/joined_rooms"] = self.joined

    def whoami(self, hit: Hit) -> Reply:
        if hit.headers.get("authorization") != f"Bearer {TOKEN}":
            return Reply(401, b'{"errcode": "M_UNKNOWN_TOKEN", "error": "Invalid access token passed."}')
        return Reply(200, b'{"user_id": "@differ:example.org", "device_id": "DIFFER"}')

    def joined(self, hit: Hit) -> Reply:
        if hit.headers.get("authorization") != f"Bearer {TOKEN}":
            return Reply(401, b'{"errcode": "M_UNKNOWN_TOKEN"}')
        return Reply(200, json.dumps({"joined_rooms": [ROOM]}).encode())

    def send(self, hit: Hit) -> Reply:
        if hit.method != "PUT":
            return Reply(405, b'{"errcode": "M_UNRECOGNIZED"}')
        if hit.headers.get("authorization") != f"Bearer {TOKEN}":
            return Reply(401, b'{"errcode": "M_UNKNOWN_TOKEN", "error": "Invalid access token passed."}')
        room, _, rest = hit.path.removeprefix(f"{API}/rooms/").partition("/send/m.room.message/")
        if unquote(room) != ROOM:
            return Reply(403, b'{"errcode": "M_FORBIDDEN", "error": "User @differ:example.org not in room"}')
        if self.limited:
            self.limited -= 1
            return Reply(
                429, b'{"errcode": "M_LIMIT_EXCEEDED", "error": "Too Many Requests", "retry_after_ms": 2500}'
            )
        content = json.loads(hit.body)
        if (
            len(hit.body) > 65_536
            or not content.get("body")
            or content.get("msgtype") not in ("m.text", "m.notice")
        ):
            return Reply(400, b'{"errcode": "M_BAD_JSON"}')
        txn = unquote(rest)
        if txn not in self.by_txn:  # the same transaction id is the same event
            self.by_txn[txn] = f"$event{len(self.events)}"
            self.events.append(content)
        answer = json.dumps({"event_id": self.by_txn[txn]}).encode()
        if self.lose_answers:
            self.lose_answers -= 1
            return Reply(200, answer, reset=True)
        return Reply(200, answer)

    def directory(self, hit: Hit) -> Reply:
        alias = unquote(hit.path.removeprefix(f"{API}/directory/room/"))
        if alias not in self.rooms:
            return Reply(404, b'{"errcode": "M_NOT_FOUND", "error": "Room alias not found"}')
        return Reply(200, json.dumps({"room_id": self.rooms[alias], "servers": ["example.org"]}).encode())


@pytest.fixture
def homeserver(receiver: Server) -> Homeserver:
    hs = Homeserver()
    hs.serve(receiver)
    return hs


def test_a_change_is_one_notice_in_the_room_and_page_text_pings_no_one(
    tmp_path: Path, server: Server, receiver: Server, homeserver: Homeserver
) -> None:
    evil = '<p>Ping @room and @alice:example.org, <b>see</b> <a href="https://evil.example/">this</a> &lt;img&gt;.</p>'
    extra = SETTINGS + 'base_url = "https://reports.example.org/"\n'
    app, _ = setup(tmp_path, server, receiver, "<p>Hello.</p>", evil, kind="matrix", path="", extra=extra)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [event] = homeserver.events
    assert event["msgtype"] == "m.notice"
    assert event["m.mentions"] == {}  # present and empty: no push rule reads page text as a mention
    assert event["body"].splitlines() == [
        "Doc changed (canonical)",
        "Doc (canonical), version 1 → 2: 1 change.",
        '• "Hello."',
        '  → "Ping @room and @alice:example.org, see this <img>."',
        '  link "this" added: https://evil.example/',
        "Full diff: https://reports.example.org/doc/canonical/diff-2.html",
        "doc/canonical · version 1 → 2 · 2026-07-08T18:45:00Z",
    ]
    assert event["format"] == "org.matrix.custom.html"
    assert event["formatted_body"].split("<br>") == [
        "<strong>Doc changed (canonical)</strong>",
        "Doc (canonical), version 1 → 2: 1 change.",
        "• &quot;Hello.&quot;",
        "  → &quot;Ping @room and @alice:example.org, see this &lt;img&gt;.&quot;",
        "  link &quot;this&quot; added: https://evil.example/",
        '<a href="https://reports.example.org/doc/canonical/diff-2.html">Full diff</a>',
        "<em>doc/canonical · version 1 → 2 · 2026-07-08T18:45:00Z</em>",
    ]
    [hit] = [h for h in receiver.hits if h.path.startswith(f"{API}/rooms/")]
    assert hit.method == "PUT" and hit.path.startswith(
        f"{API}/rooms/%21abc123%3Aexample.org/send/m.room.message/msg_"
    )
    sent = Outbox(app.store).messages("team", "sent")  # type: ignore[attr-defined]
    assert [m.data["attempts"] for m in sent] == [1]
    assert TOKEN not in json.dumps([m.data for m in sent])


def test_a_retry_after_a_lost_answer_is_the_same_event(
    tmp_path: Path, server: Server, receiver: Server, homeserver: Homeserver
) -> None:
    """The homeserver stored the event but its answer never came: the retry carries the same transaction id,
    so the room still has one event."""
    homeserver.lose_answers = 1
    app, clock = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="matrix", path="", extra=SETTINGS
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [pending] = Outbox(app.store).messages("team", "pending")  # type: ignore[attr-defined]
    assert pending.data["last_error"] == "connection reset"
    clock.advance(600)
    [attempt] = deliver(app)  # type: ignore[arg-type]
    assert attempt.ok
    puts = [h.path for h in receiver.hits if h.method == "PUT"]
    assert len(puts) == 2 and puts[0] == puts[1]
    assert len(homeserver.events) == 1


def test_a_room_address_is_looked_up_in_the_directory(
    tmp_path: Path, server: Server, receiver: Server, homeserver: Homeserver
) -> None:
    extra = SETTINGS.replace(ROOM, "#release:example.org")
    app, clock = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="matrix", path="", extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    server.page("/post", article("<p>Newer.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert len(homeserver.events) == 2
    lookups = [h.path for h in receiver.hits if h.method == "GET"]  # once each: what was found is kept
    assert lookups == ["/.well-known/matrix/client", f"{API}/directory/room/%23release%3Aexample.org"]


def test_an_unknown_room_address_fails_the_message_with_the_reason(
    tmp_path: Path, server: Server, receiver: Server, homeserver: Homeserver
) -> None:
    extra = SETTINGS.replace(ROOM, "#gone:example.org")
    error = first_failure(tmp_path, server, receiver, "matrix", "", extra)
    assert error == f"no room has the address #gone:example.org on {receiver.base} (HTTP 404)"
    assert homeserver.events == []


def test_a_bot_outside_the_room_is_a_failed_delivery_with_the_homeservers_answer(
    tmp_path: Path, server: Server, receiver: Server, homeserver: Homeserver
) -> None:
    extra = SETTINGS.replace(ROOM, "!other:example.org")
    error = first_failure(tmp_path, server, receiver, "matrix", "", extra)
    assert error == 'HTTP 403 {"errcode": "M_FORBIDDEN", "error": "User @differ:example.org not in room"}'


def test_rate_limited_waits_as_long_as_the_homeserver_asks(
    tmp_path: Path, server: Server, receiver: Server, homeserver: Homeserver
) -> None:
    homeserver.limited = 1
    app, clock = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="matrix", path="", extra=SETTINGS
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [pending] = Outbox(app.store).messages("team", "pending")  # type: ignore[attr-defined]
    assert pending.data["next_attempt"] == "2026-07-08T18:45:03Z"  # 2.5 s, to the second after
    clock.advance(2)
    assert deliver(app) == []  # type: ignore[arg-type]  (not yet due)
    clock.advance(1)
    assert [a.ok for a in deliver(app)] == [True]  # type: ignore[arg-type]
    assert len(homeserver.events) == 1


def test_mentions_are_the_configured_ones_as_pills_and_in_m_mentions(
    tmp_path: Path, server: Server, receiver: Server, homeserver: Homeserver
) -> None:
    extra = SETTINGS + 'mention = ["@jane:example.org", "@room"]\n'
    app, _ = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="matrix", path="", extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [event] = homeserver.events
    assert event["m.mentions"] == {"user_ids": ["@jane:example.org"], "room": True}
    assert event["body"].splitlines()[0] == "Doc changed (canonical) @jane:example.org @room"
    assert event["formatted_body"].split("<br>")[0] == (
        '<strong>Doc changed (canonical)</strong> <a href="https://matrix.to/#/@jane:example.org">@jane:example.org</a> @room'
    )


def test_a_long_summary_is_cut_under_the_event_limit(tmp_path: Path) -> None:
    from differ.notify.matrix import Matrix

    config = notifier_config(tmp_path, "matrix", 'url = "https://matrix.example.org"\n' + SETTINGS)
    lines = ["Doc, version 1 → 2: 900 changes."] + [
        f'• Section {i}: added "{"<&>" * 40}"' for i in range(900)
    ]
    body = Matrix(config).payload({"type": "changed", "source": "d/c", "diff": {"summary": lines}}).body
    assert len(json.dumps(body, ensure_ascii=False).encode()) < 65_536 - 1_000
    last = body["body"].splitlines()[-2]
    kept = sum(line.startswith("• Section") for line in body["body"].splitlines())
    assert last == f"…and {900 - kept} more changes" and 0 < kept < 900


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ('url = "matrix.example.org"\n' + SETTINGS, "notify[0].url: expected the homeserver's https:// address"),
        ('url = "https://matrix.example.org/_matrix/client/v3"\n' + SETTINGS, "notify[0].url: expected the homeserver's address alone (https://matrix.example.org)"),
        ('url = "https://matrix.example.org"\n' + SETTINGS.replace(ROOM, "release"), 'notify[0].room: expected a room id "!…" or a room address "#name:server", found "release"'),
        ('url = "https://matrix.example.org"\n' + f'room = "{ROOM}"\n', 'notify[0]: missing key "access_token" (the bot account\'s access token)'),
        ('url = "https://matrix.example.org"\n' + SETTINGS + 'mention = ["jane"]\n', 'notify[0].mention: expected Matrix mentions such as "@jane:example.org" or "@room", found "jane"'),
    ],
)  # fmt: skip
def test_matrix_settings_are_checked(tmp_path: Path, options: str, message: str) -> None:
    assert notifier_error(tmp_path, "matrix", options) == message


def test_a_server_that_names_its_homeserver_in_well_known_is_reached_there(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """`url` may be the server's name, as a client's login asks for it; `/.well-known/matrix/client` names the
    homeserver that serves the API."""
    homeserver = Homeserver()
    with_api = Server()
    try:
        homeserver.serve(with_api)
        known = json.dumps({"m.homeserver": {"base_url": with_api.base + "/"}})
        receiver.page("/.well-known/matrix/client", known, "application/json")
        app, _ = setup(
            tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="matrix", path="", extra=SETTINGS
        )
        check(app, app.config.sources())  # type: ignore[attr-defined]
        assert len(homeserver.events) == 1
        assert [h.path for h in receiver.hits] == ["/.well-known/matrix/client"]
    finally:
        with_api.close()


def test_a_well_known_answer_naming_no_valid_address_leaves_the_server_its_own_homeserver(
    tmp_path: Path, server: Server, receiver: Server, homeserver: Homeserver
) -> None:
    """A `base_url` that is no address (`https://[matrix/`: the HTTP library cannot even parse it) is as if none
    were named: the alert goes to the configured server, not into an error at every attempt."""
    known = json.dumps({"m.homeserver": {"base_url": "https://[matrix/"}})
    receiver.page("/.well-known/matrix/client", known, "application/json")
    app, _ = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="matrix", path="", extra=SETTINGS
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert len(homeserver.events) == 1


def test_sources_lists_a_matrix_notifier_without_asking_the_homeserver(
    tmp_path: Path, receiver: Server
) -> None:
    """`differ sources` names the configured homeserver and room and makes no request (no .well-known, no
    directory); the token is not shown."""
    from tests.test_cli import run

    config = tmp_path / "config.toml"
    config.write_text(
        '[[documents]]\nid = "d"\n[documents.canonical]\nid = "c"\nurl = "https://x.example/"\n\n'
        f'[[notify]]\nname = "mx"\nkind = "matrix"\nurl = "{receiver.base}"\n'
        + SETTINGS.replace(ROOM, "#release:example.org")
    )
    code, out, _ = run("--config", str(config), "--snapshots", str(tmp_path / "s"), "sources")
    assert code == 0
    assert out.splitlines()[-1] == (
        f"notify mx  [matrix]  {receiver.base} #release:example.org  "
        "events: changed, mirror_drift, fetch_failing, recovered, delivery_failed"
    )
    assert receiver.hits == [] and TOKEN not in out


def test_with_threads_a_documents_alerts_follow_its_first(
    tmp_path: Path, server: Server, receiver: Server, homeserver: Homeserver
) -> None:
    extra = SETTINGS + "threads = true\n"
    app, clock = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="matrix", path="", extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    server.page("/post", article("<p>Newer.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    first, second = homeserver.events
    assert "m.relates_to" not in first
    assert second["m.relates_to"] == {
        "rel_type": "m.thread",
        "event_id": "$event0",
        "is_falling_back": True,
        "m.in_reply_to": {"event_id": "$event0"},
    }
    assert Outbox(app.store).threads("team") == {"doc": "$event0"}  # type: ignore[attr-defined]


def test_check_asks_the_homeserver_whether_the_bot_is_in_the_room(
    tmp_path: Path, receiver: Server, homeserver: Homeserver
) -> None:
    from differ.app import App
    from differ.notify import probe
    from differ.store import Store
    from tests.conftest import make_config

    text = '[[documents]]\nid = "doc"\n[documents.canonical]\nid = "c"\nurl = "https://example.org/"\n'
    for options, said in [
        (SETTINGS.replace(ROOM, "#release:example.org"), (True, "@differ:example.org is in #release:example.org")),
        (SETTINGS.replace(ROOM, "!other:example.org"), (False, "@differ:example.org has not joined !other:example.org: invite it, then join")),
        (SETTINGS.replace(TOKEN, "syt_wrong"), (False, "whoami: HTTP 401 M_UNKNOWN_TOKEN")),
    ]:  # fmt: skip
        config = make_config(
            tmp_path, text + f'[[notify]]\nname = "mx"\nkind = "matrix"\nurl = "{receiver.base}"\n{options}'
        )
        [result] = probe(App(config, Store(config.service.snapshots)))
        assert (result.ok, result.detail) == said
    assert homeserver.events == []  # nothing posted
