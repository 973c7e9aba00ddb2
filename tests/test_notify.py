"""Notifications against real local receivers: Block Kit limits, Standard Webhooks signatures (verified with the
`standardwebhooks` package), retries, 429, 4xx, 410, mention injection, secrets, and an outbox that survives."""

from __future__ import annotations

import base64
import email.utils
import html
import json
import os
import re
import socket
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest
from standardwebhooks.webhooks import Webhook

from differ.check import check
from differ.config import Config
from differ.errors import ExitCode
from differ.notify import Outbox, deliver, dispatch, send_test
from differ.notify.delivery import BUSY
from tests.conftest import Clock, Proxy, Reply, Server, article, make_app, one_doc
from tests.helpers import MESSAGE, notifier_config, notifier_error

SECRET = "whsec_" + base64.b64encode(b"k" * 32).decode()


def slack_receiver(hit: object) -> Reply:
    """Answers like Slack and enforces Block Kit limits."""
    body = json.loads(hit.body)  # type: ignore[attr-defined]
    blocks = body.get("blocks", [])
    ok = (
        body.get("text")
        and len(blocks) <= 50
        and all(
            len(b.get("text", {}).get("text", "")) <= (150 if b["type"] == "header" else 3000) for b in blocks
        )
    )
    return Reply(200, b"ok") if ok else Reply(400, b"invalid_blocks")


def notify_toml(
    receiver: Server, kind: str = "slack", path: str | None = "/services/T/B/X", extra: str = ""
) -> str:
    """A [[notify]] table for `receiver`; its `url` at `path` (none when `path` is None)."""
    secret = f'secret = "{SECRET}"\n' if kind == "webhook" else ""
    url = "" if path is None else f'url = "{receiver.url(path)}"\n'
    return f'[[notify]]\nname = "team"\nkind = "{kind}"\n{url}{secret}{extra}'


def config_file(tmp_path: Path, page: str, rest: str, *, title: str = "") -> Path:
    """config.toml with one page (document `doc`, source `c`) and the tables in `rest` after it, for commands
    run as a user runs them; the store in tmp_path/snap."""
    path = tmp_path / "config.toml"
    path.write_text(
        f'[service]\nsnapshots = "{tmp_path / "snap"}"\nper_host_delay = "0s"\nretries = 0\n'
        f'[[documents]]\nid = "doc"\n{title}[documents.canonical]\nid = "c"\nurl = "{page}"\n'
        'robots = false\nallow_private = ["127.0.0.1"]\n' + rest
    )
    return path


def hooks_toml(url: str) -> str:
    """A signed webhook named "hooks" posting to `url`."""
    return f'[[notify]]\nname = "hooks"\nkind = "webhook"\nurl = "{url}"\nsecret = "{SECRET}"\n'


def setup(
    tmp_path: Path, server: Server, receiver: Server, body1: str, body2: str, **kw: str | None
) -> tuple[object, Clock]:
    server.page("/post", article(body1))
    clock = Clock()
    app = make_app(
        one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=notify_toml(receiver, **kw)),
        clock,
    )
    check(app, app.config.sources())
    server.page("/post", article(body2))
    clock.advance(3600)
    return app, clock


def edited_once(tmp_path: Path, server: Server, receiver: Server, kind: str, extra: str) -> tuple[Any, Clock]:
    """A page watched with a notifier of `kind` (its settings `extra`, no path of its own), edited once and
    checked: its first alert sent, or its answer lost."""
    app, clock = setup(
        tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>", kind=kind, path=None, extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    return app, clock


def three_alerts(
    tmp_path: Path, server: Server, receiver: Server, kind: str, path: str | None, extra: str
) -> object:
    """Three alerts about one document: an edit, another edit checked by another process on the same store,
    then the page failing (`extra` should say fail_after = 1). Returns the second process's app."""
    app, clock = setup(
        tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>", kind=kind, path=path, extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    server.page("/post", article("<p>Three.</p>"))
    clock.advance(3600)
    later = make_app(app.config, clock)  # type: ignore[attr-defined]
    check(later, later.config.sources())
    server.routes["/post"] = Reply(500)
    clock.advance(3600)
    check(later, later.config.sources())
    return later


def first_failure(
    tmp_path: Path, server: Server, receiver: Server, kind: str, path: str | None, extra: str
) -> str:
    """The error of the one message that failed when a page changed, for a notifier set up with `extra`."""
    app, _ = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind=kind, path=path, extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [failed] = Outbox(app.store).messages("team", "failed")  # type: ignore[attr-defined]
    return str(failed.data["last_error"])


def test_slack_alert_for_a_change(tmp_path: Path, server: Server, receiver: Server) -> None:
    receiver.routes["/services/T/B/X"] = slack_receiver
    app, _ = setup(tmp_path, server, receiver, "<p>Old text here.</p>", "<p>New text here.</p>")
    check(app, app.config.sources())  # type: ignore[attr-defined]
    hits = receiver.requests_to("/services/T/B/X")
    assert len(hits) == 1
    payload = json.loads(hits[0].body)
    assert payload["blocks"][0] == {
        "type": "header",
        "text": {"type": "plain_text", "text": "Doc changed (canonical)", "emoji": False},
    }
    assert payload["text"].startswith("Doc changed (canonical)\nDoc (canonical), version 1 → 2: 1 change.")
    assert "Post › Old text here.: " not in payload["text"]


def test_a_page_saved_again_without_an_edit_alerts_only_who_asked(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """Only the modified date moved: a version is stored, and a `metadata` event goes to the notifier that lists
    it, not to one with the default events. A new title is a change for everyone."""

    def page(modified: str, title: str = "Post") -> str:
        meta = f'<meta property="article:modified_time" content="{modified}">'
        head = f"<title>{title}</title>{meta}</head>"
        return article("<p>Same words as before.</p>").replace("<title>Post</title></head>", head)

    receiver.routes["/services/T/B/X"] = slack_receiver
    receiver.routes["/hooks"] = Reply(204)
    server.page("/post", page("2026-07-08T17:00:00+00:00"))
    notify = (
        notify_toml(receiver)
        + "\n"
        + notify_toml(receiver, "webhook", "/hooks").replace(
            'name = "team"', 'name = "hooks"\nevents = ["changed", "metadata"]'
        )
    )
    clock = Clock()
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=notify), clock)
    check(app, app.config.sources())
    server.page("/post", page("2026-07-09T08:00:00+00:00"))
    clock.advance(3600)
    [result] = check(app, app.config.sources())
    assert result.line() == "doc/canonical: new version 2 (1 metadata field)"
    assert receiver.requests_to("/services/T/B/X") == []
    [hit] = receiver.requests_to("/hooks")
    payload = json.loads(hit.body)
    assert (payload["type"], payload["data"]["diff"]["summary"]) == (
        "differ.metadata",
        [
            "Doc (canonical), version 1 → 2: 1 metadata field changed, the text did not.",
            '• metadata › modified: "2026-07-08T17:00:00+00:00" → "2026-07-09T08:00:00+00:00"',
        ],
    )
    server.page("/post", page("2026-07-09T08:00:00+00:00", title="Post, corrected"))
    clock.advance(3600)
    [result] = check(app, app.config.sources())
    assert result.line() == "doc/canonical: new version 3 (1 metadata field)"  # the text is the same
    assert len(receiver.requests_to("/services/T/B/X")) == 1
    assert json.loads(receiver.requests_to("/hooks")[1].body)["type"] == "differ.changed"


def test_a_destination_for_some_sections_hears_only_of_edits_there(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/hooks"] = Reply(204)
    page = "<h2>Security fixes</h2><p>{}</p><h2>Other changes</h2><p>{}</p>"
    extra = 'sections = ["security*", "Deprecations"]\n'
    app, clock = setup(
        tmp_path, server, receiver, page.format("A.", "B."), page.format("A.", "B, edited."),
        kind="webhook", path="/hooks", extra=extra,
    )  # fmt: skip
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert receiver.requests_to("/hooks") == []  # an edit under "Other changes" only
    server.page("/post", article(page.format("A, edited.", "B, edited again.")))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [hit] = receiver.requests_to("/hooks")
    diff = json.loads(hit.body)["data"]["diff"]
    assert [c["section"] for c in diff["changes"]] == [["Security fixes"]]  # the other is left out
    assert (diff["summary"], diff["left_out"]) == (
        [
            'Doc (canonical), version 2 → 3: 1 change under "Security fixes" (1 elsewhere).',
            '• Security fixes: added ", edited"',
        ],
        1,
    )


def first_edit_preview(app: object) -> Any:
    """What the one destination would be sent for the edit of doc/canonical's version 1 to 2."""
    from differ.events import change_event
    from differ.notify import preview
    from differ.versions import diff_versions

    store = app.store  # type: ignore[attr-defined]
    old, new = store.version("doc/canonical", 1), store.version("doc/canonical", 2)
    source = app.config.source("doc/canonical")  # type: ignore[attr-defined]
    event = change_event(app, source, old, new, diff_versions(store, old, new, app=app, source=source))  # type: ignore[arg-type]
    [said] = preview(app, event)  # type: ignore[arg-type]
    return said


def test_a_destination_for_some_kinds_of_change_hears_only_of_those(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """`changes = ["removed"]`: a passage taken out is told, with the other changes of that edit left out and
    counted; an edit that only adds or rewords is not told at all (as urlwatch's deletions_only has it)."""
    receiver.routes["/hooks"] = Reply(204)
    app, clock = setup(
        tmp_path, server, receiver, "<p>Kept.</p><p>Beta: a feature.</p>", "<p>Kept, reworded.</p><p>Beta: a feature.</p><p>New.</p>",
        kind="webhook", path="/hooks", extra='changes = ["removed"]\n',
    )  # fmt: skip
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert receiver.requests_to("/hooks") == []  # a rewording and an addition: not what it is for
    server.page("/post", article("<p>Kept, reworded again.</p><p>New.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [hit] = receiver.requests_to("/hooks")
    diff = json.loads(hit.body)["data"]["diff"]
    assert [c["kind"] for c in diff["changes"]] == ["removed"]
    assert (diff["summary"], diff["kinds"], diff["left_out"]) == (
        [
            "Doc (canonical), version 2 → 3: 1 change of kind removed (1 left out).",
            '• removed "Beta: a feature."',
        ],
        ["removed"],
        1,
    )
    said = first_edit_preview(app)
    assert (said.body, said.reason) == (None, "no change of its kinds (removed)")


def test_a_destination_for_some_words_hears_only_of_edits_with_them(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/hooks"] = Reply(204)
    page = "<h2>Fixes</h2><p>{}</p><h2>Other changes</h2><p>{}</p>"
    extra = 'words = ["CVE-*", "security"]\n'
    app, clock = setup(
        tmp_path, server, receiver, page.format("A bug.", "B."), page.format("A crash.", "B, edited."),
        kind="webhook", path="/hooks", extra=extra,
    )  # fmt: skip
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert receiver.requests_to("/hooks") == []  # two edits, neither with those words
    server.page("/post", article(page.format("A crash (CVE-2026-41).", "B, edited again.")))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [hit] = receiver.requests_to("/hooks")
    diff = json.loads(hit.body)["data"]["diff"]
    assert [c["section"] for c in diff["changes"]] == [["Fixes"]]  # the other is left out
    assert (diff["summary"], diff["mentioning"], diff["left_out"], "within" in diff) == (
        [
            'Doc (canonical), version 2 → 3: 1 change mentioning "CVE-*" (1 elsewhere).',
            '• Fixes: added "(CVE-2026-41)"',
        ],
        ["CVE-*"],
        1,
        False,
    )
    said = first_edit_preview(app)
    assert (said.body, said.reason) == (None, "no change with its words (CVE-*, security)")


def test_a_destination_for_some_words_hears_of_a_title_that_has_them(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """A post retitled "… security release", its text unchanged: the title is under no heading, and what a
    destination following "security" is for; one following sections hears nothing of it."""
    receiver.routes["/hooks"] = Reply(204)
    receiver.routes["/fixes"] = Reply(204)
    page = "<!DOCTYPE html><html><head><title>{}</title></head><body><article><h1>Widget</h1><p>Text.</p></article>"
    server.page("/post", page.format("Widget 3.0"))
    clock = Clock()
    notify = notify_toml(receiver, kind="webhook", path="/hooks", extra='words = ["security"]\n')
    notify += notify_toml(receiver, kind="webhook", path="/fixes", extra='sections = ["Fixes"]\n').replace(
        '"team"', '"fixes"'
    )
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=notify), clock)
    check(app, app.config.sources())
    server.page("/post", page.format("Widget 3.0 security release"))
    clock.advance(3600)
    check(app, app.config.sources())
    [hit] = receiver.requests_to("/hooks")
    diff = json.loads(hit.body)["data"]["diff"]
    assert (diff["summary"], diff["changes"], diff["metadata"]) == (
        [
            "Doc (canonical), version 1 → 2: 1 metadata field changed, the text did not.",
            '• metadata › title: "Widget 3.0" → "Widget 3.0 security release"',
        ],
        [],
        [{"field": "title", "before": "Widget 3.0", "after": "Widget 3.0 security release"}],
    )  # all of it is what the destination is for: sent whole
    assert receiver.requests_to("/fixes") == []


def test_mentions_never_ping(tmp_path: Path, server: Server, receiver: Server) -> None:
    receiver.routes["/services/T/B/X"] = slack_receiver
    evil = "<p>Hi &lt;!channel&gt; and &lt;!here&gt; &lt;@U123&gt; &lt;!everyone&gt; &amp; friends</p>"
    app, _ = setup(tmp_path, server, receiver, "<p>Hello.</p>", evil)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    raw = receiver.requests_to("/services/T/B/X")[0].body.decode()
    for mention in ("<!channel>", "<!here>", "<@U123>", "<!everyone>"):
        assert mention not in raw
    assert "&lt;!channel&gt;" in raw and "&amp; friends" in raw


def test_an_alert_pings_whom_the_configuration_names_and_no_one_the_page_names(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/services/T/B/X"] = slack_receiver
    extra = 'mention = ["<!subteam^S0123ABC>", "<@U0456DEF>"]\n'
    evil = "<p>Hi &lt;!channel&gt; and &lt;@U123&gt;.</p>"
    app, _ = setup(tmp_path, server, receiver, "<p>Hello.</p>", evil, extra=extra)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    payload = json.loads(receiver.requests_to("/services/T/B/X")[0].body)
    assert payload["text"].startswith("<!subteam^S0123ABC> <@U0456DEF> Doc changed (canonical)")
    assert payload["blocks"][1]["text"]["text"].startswith("<!subteam^S0123ABC> <@U0456DEF> Doc (canonical)")
    raw = json.dumps(payload)
    assert "<!channel>" not in raw and "<@U123>" not in raw and "&lt;!channel&gt;" in raw


@pytest.mark.parametrize(
    "mention", ["@release-team", "<!everyone>", "<@U1> <@U2>", "<https://evil.example|x>"]
)
def test_a_mention_slack_would_not_read_as_one_is_refused(
    tmp_path: Path, receiver: Server, mention: str
) -> None:
    from differ.config import parse_config
    from differ.errors import ConfigError

    text = '[[documents]]\nid = "doc"\n[documents.canonical]\nurl = "https://example.org/"\n' + notify_toml(
        receiver, extra=f"mention = [{json.dumps(mention)}]\n"
    )
    with pytest.raises(ConfigError) as e:
        parse_config(text, tmp_path / "config.toml", {})
    assert str(e.value) == (
        'config.toml: notify[0].mention: expected Slack mentions such as "<!subteam^S0123ABC>", "<@U0456DEF>", '
        f'"<!here>" or "<!channel>", found {json.dumps(mention)}'
    )


def test_long_changes_fit_block_kit(tmp_path: Path, server: Server, receiver: Server) -> None:
    receiver.routes["/services/T/B/X"] = slack_receiver
    old = "".join(f"<p>Paragraph {i} says something {'long ' * 300}.</p>" for i in range(80))
    new = "".join(f"<p>Paragraph {i} says another thing {'long ' * 300}.</p>" for i in range(80))
    app, _ = setup(tmp_path, server, receiver, old, new)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    payload = json.loads(receiver.requests_to("/services/T/B/X")[0].body)
    assert len(payload["blocks"]) <= 50
    assert any("…and 72 more changes" in (b.get("text") or {}).get("text", "") for b in payload["blocks"])


def test_webhook_is_signed_per_standard_webhooks(tmp_path: Path, server: Server, receiver: Server) -> None:
    receiver.routes["/hooks"] = Reply(204)
    app, _ = setup(tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="webhook", path="/hooks")
    check(app, app.config.sources())  # type: ignore[attr-defined]
    hit = receiver.requests_to("/hooks")[0]
    # The app's clock is July 2026, outside the receiver library's ±5 min window: check the signature over the
    # timestamp that was signed with the library's own signer.
    from datetime import UTC, datetime

    signed_at = datetime.fromtimestamp(int(hit.headers["webhook-timestamp"]), UTC)
    expected = Webhook(SECRET).sign(hit.headers["webhook-id"], signed_at, hit.body.decode())
    assert expected in hit.headers["webhook-signature"].split()
    payload = json.loads(hit.body)
    assert payload["type"] == "differ.changed"
    assert payload["data"]["diff"]["schema"] == "differ.diff/1"


def test_a_webhook_carries_the_alert_as_chat_shows_it_and_the_page(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """Besides the event's own fields: `message` (title, lines, the link to the change's report page) for a
    receiver that passes alerts on, and a version's `document` and page `url`."""
    receiver.routes["/hooks"] = Reply(204)
    extra = 'base_url = "https://differ.example.org/reports/"\n'
    app, _ = setup(
        tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="webhook", path="/hooks", extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    data = json.loads(receiver.requests_to("/hooks")[0].body)["data"]
    assert (data["source"], data["document"], data["url"]) == ("doc/canonical", "doc", server.url("/post"))
    assert data["message"] == {
        "title": "Doc changed (canonical)",
        "lines": ["Doc (canonical), version 1 → 2: 1 change.", '• "Old."', '  → "New."'],
        "link": "https://differ.example.org/reports/doc/canonical/diff-2.html",
    }


def test_every_event_a_webhook_can_get_is_in_its_receivers_guide() -> None:
    """docs/webhooks.md, which a receiver is written from, has a row for each event differ sends (a new event
    without one would reach receivers undocumented)."""
    from differ.config.model import EVENTS

    guide = (Path(__file__).resolve().parent.parent / "docs" / "webhooks.md").read_text()
    rows = set(re.findall(r"(?m)^\| `differ\.(\w+)` \|", guide))
    assert rows == {*EVENTS, "digest", "test"}


def test_alerts_go_through_the_configured_proxy(tmp_path: Path, receiver: Server, proxy: Proxy) -> None:
    receiver.routes["/hooks"] = Reply(200)
    from differ.app import App
    from differ.store import Store
    from tests.conftest import make_config

    text = '[[documents]]\nid = "doc"\n[documents.canonical]\nurl = "https://example.org/"\n' + notify_toml(
        receiver, "webhook", "/hooks"
    )
    config = make_config(tmp_path, text, service=f'proxy = "{proxy.url()}"\n')
    app = App(config, Store(config.service.snapshots))
    assert [a.ok for a in send_test(app)] == [True]
    assert proxy.seen == [f"POST {receiver.url('/hooks')}"]
    hit = receiver.requests_to("/hooks")[0]
    assert Webhook(SECRET).verify(hit.body, hit.headers)["type"] == "differ.test"  # the body arrived whole
    with (
        socket.socket() as probe
    ):  # a proxy that is not there: the alert waits in the outbox, the reason said
        probe.bind(("127.0.0.1", 0))
        gone = make_config(tmp_path, text, service=f'proxy = "http://127.0.0.1:{probe.getsockname()[1]}"\n')
    app = App(gone, Store(gone.service.snapshots))
    assert [(a.ok, a.detail) for a in send_test(app)] == [(False, "proxy failed: Connection refused")]
    assert len(receiver.requests_to("/hooks")) == 1


def test_webhook_verifies_with_the_receiver_library_at_current_time(tmp_path: Path, receiver: Server) -> None:
    """A real-time send (clock = now) passes `standardwebhooks` verification including its ±5 min window."""
    receiver.routes["/hooks"] = Reply(200)
    from differ.app import App
    from differ.store import Store
    from tests.conftest import make_config

    config = make_config(
        tmp_path,
        '[[documents]]\nid = "doc"\n[documents.canonical]\nid = "c"\nurl = '
        '"https://example.org/"\n' + notify_toml(receiver, "webhook", "/hooks"),
    )
    app = App(config, Store(config.service.snapshots))
    assert [a.ok for a in send_test(app)] == [True]
    hit = receiver.requests_to("/hooks")[0]
    assert Webhook(SECRET).verify(hit.body, hit.headers)["type"] == "differ.test"


def test_a_rotated_secret_signs_beside_the_new_one_until_receivers_move(
    tmp_path: Path, receiver: Server
) -> None:
    """`previous_secret` adds a second signature (the spec's space-delimited list): a receiver still on the old
    secret verifies, as does one on the new, with the receiver library itself (real time: its ±5 min window)."""
    from standardwebhooks.webhooks import WebhookVerificationError

    from differ.app import App
    from differ.store import Store
    from tests.conftest import make_config

    receiver.routes["/hooks"] = Reply(204)
    old = "whsec_" + base64.b64encode(b"o" * 32).decode()
    config = make_config(
        tmp_path,
        '[[documents]]\nid = "doc"\n[documents.canonical]\nid = "c"\nurl = "https://example.org/"\n'
        + notify_toml(receiver, "webhook", "/hooks", extra=f'previous_secret = "{old}"\n'),
    )
    assert [a.ok for a in send_test(App(config, Store(config.service.snapshots)))] == [True]
    [hit] = receiver.requests_to("/hooks")
    assert len(hit.headers["webhook-signature"].split(" ")) == 2
    for secret in (SECRET, old):
        assert Webhook(secret).verify(hit.body, hit.headers)["type"] == "differ.test"
    with pytest.raises(WebhookVerificationError):
        Webhook("whsec_" + base64.b64encode(b"x" * 32).decode()).verify(hit.body, hit.headers)


def test_retries_keep_the_same_id_and_order(tmp_path: Path, server: Server, receiver: Server) -> None:
    answers = iter([Reply(500), Reply(502)] + [Reply(200)] * 10)
    receiver.routes["/hooks"] = lambda hit: next(answers)
    app, clock = setup(
        tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>", kind="webhook", path="/hooks"
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    outbox = Outbox(app.store)
    pending = outbox.messages("team", "pending")
    assert (
        len(pending) == 1 and pending[0].data["attempts"] == 1 and pending[0].data["last_error"] == "HTTP 500"
    )
    clock.advance(10)
    deliver(app)  # type: ignore[arg-type]
    clock.advance(60)
    deliver(app)  # type: ignore[arg-type]
    ids = [h.headers["webhook-id"] for h in receiver.requests_to("/hooks")]
    assert len(ids) == 3 and len(set(ids)) == 1
    assert outbox.messages("team", "pending") == []
    assert len(outbox.messages("team", "sent")) == 1


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"null", "not a JSON object"),
        (b'{"created": "x", "next_attempt": "x", "attempts": "1", "body": {}}', 'its attempts is "1"'),
        (b'{"created": "x", "next_attempt": "x", "attempts": 1, "body": {}, "headers": [["a", "b"]]}', "its headers is [[\"a\", \"b\"]]"),
        (b"\xff", "not UTF-8"),
    ],
)  # fmt: skip
def test_a_message_damaged_in_the_outbox_is_read_past_and_named_by_verify(
    tmp_path: Path, server: Server, receiver: Server, content: bytes, why: str
) -> None:
    """A pending message whose file no longer holds a message (a disk's damage, a hand's edit) made every check,
    `differ outbox` and `differ status` an internal error; now the outbox reads past it, as past a file that
    is not JSON, the next alert goes out, and `differ verify` names it: it will never be sent."""
    receiver.routes["/hooks"] = Reply(500)
    app, clock = setup(
        tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>", kind="webhook", path="/hooks"
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    outbox = Outbox(app.store)  # type: ignore[attr-defined]
    [damaged] = outbox.messages("team", "pending")
    damaged.path.write_bytes(content)
    assert outbox.messages("team", "pending") == []
    receiver.routes["/hooks"] = Reply(200)
    server.page("/post", article("<p>Three.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert len(outbox.messages("team", "sent")) == 1
    name = damaged.path.relative_to(tmp_path / "snapshots")
    assert app.store.verify().problems == [  # type: ignore[attr-defined]
        f"{name}: a message that does not read ({why}); it cannot be sent"
    ]


def test_429_honours_retry_after(tmp_path: Path, server: Server, receiver: Server) -> None:
    answers = iter([Reply(429, headers={"Retry-After": "120"}), Reply(200, b"ok")])
    receiver.routes["/services/T/B/X"] = lambda hit: next(answers)
    app, clock = setup(tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>")
    check(app, app.config.sources())  # type: ignore[attr-defined]
    msg = Outbox(app.store).messages("team", "pending")[0]  # type: ignore[attr-defined]
    assert msg.data["next_attempt"] == "2026-07-08T18:47:00Z"
    clock.advance(60)
    assert deliver(app) == []  # type: ignore[arg-type]
    clock.advance(61)
    assert [a.ok for a in deliver(app)] == [True]  # type: ignore[arg-type]


def test_a_retry_after_date_is_read_by_the_receivers_clock(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """Slack's clock two hours behind ours: its "after 2 minutes", said as a date, is two minutes, not none."""
    ahead = datetime(2026, 7, 8, 18, 45, tzinfo=UTC)  # when the check below alerts, by our clock
    behind = ahead - timedelta(hours=2)
    receiver.clock = lambda: behind
    when = email.utils.format_datetime(behind + timedelta(seconds=120), usegmt=True)
    receiver.routes["/services/T/B/X"] = Reply(429, headers={"Retry-After": when})
    app, clock = setup(tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>")
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [msg] = Outbox(app.store).messages("team", "pending")  # type: ignore[attr-defined]
    assert (clock(), msg.data["next_attempt"]) == (ahead, "2026-07-08T18:47:00Z")


def test_a_receiver_asking_to_wait_for_centuries_is_retried_within_a_day(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/services/T/B/X"] = Reply(429, headers={"Retry-After": "99999999999999"})
    app, clock = setup(tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>")
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [msg] = Outbox(app.store).messages("team", "pending")  # type: ignore[attr-defined]
    assert (msg.data["attempts"], msg.data["next_attempt"]) == (1, "2026-07-09T18:45:00Z")
    assert deliver(app) == []  # type: ignore[arg-type]
    assert len(receiver.requests_to("/services/T/B/X")) == 1


def test_client_error_fails_at_once_and_410_disables(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/services/T/B/X"] = Reply(400, b"invalid_payload")
    app, clock = setup(tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>")
    check(app, app.config.sources())  # type: ignore[attr-defined]
    outbox = Outbox(app.store)
    failed = outbox.messages("team", "failed")
    assert failed[0].data["last_error"] == "HTTP 400 invalid_payload"
    receiver.routes["/services/T/B/X"] = Reply(410, b"channel_is_archived")
    assert [a.detail for a in send_test(app)] == ["HTTP 410 channel_is_archived"]  # type: ignore[arg-type]
    assert outbox.disabled("team") is not None
    before = len(receiver.hits)
    send_test(app)  # type: ignore[arg-type]
    assert len(receiver.hits) == before  # disabled until the configuration changes


def test_secrets_stay_out_of_the_store_and_errors(tmp_path: Path, server: Server, receiver: Server) -> None:
    receiver.routes["/services/T/B/X"] = Reply(500, b"rollup_error")
    app, _ = setup(tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>")
    check(app, app.config.sources())  # type: ignore[attr-defined]
    store = Path(app.store.root)  # type: ignore[attr-defined]
    for path in store.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".md"):
            assert "/services/T/B/X" not in path.read_text()


def test_digest_collects_events(tmp_path: Path, server: Server, receiver: Server) -> None:
    receiver.routes["/services/T/B/X"] = slack_receiver
    app, clock = setup(tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>", extra='digest = "1h"\n')
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert receiver.requests_to("/services/T/B/X") == []
    clock.advance(3601)
    dispatch(app, [])  # type: ignore[arg-type]
    payload = json.loads(receiver.requests_to("/services/T/B/X")[0].body)
    assert payload["blocks"][0]["text"]["text"] == "differ digest: 1 update"


def test_a_page_failing_for_days_is_in_one_digest_not_every_one(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """Each check of a failing streak hands its alert over again (so that one a crashed process owed is not
    lost); a digest takes it once."""
    receiver.routes["/services/T/B/X"] = slack_receiver
    app, clock = setup(
        tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>", extra='digest = "1h"\nfail_after = 1\n'
    )
    server.routes["/post"] = Reply(503)
    for n in range(6):  # two and a half digest periods of a page that stays down, then it is back
        if n == 5:
            server.page("/post", article("<p>One.</p>"))
        check(app, app.config.sources())  # type: ignore[attr-defined]
        clock.advance(1800)
        dispatch(app, [])  # type: ignore[arg-type]
    clock.advance(3600)
    dispatch(app, [])  # type: ignore[arg-type]
    lines = [json.loads(h.body)["text"].split("\n")[1:] for h in receiver.requests_to("/services/T/B/X")]
    assert lines == [
        ["• Doc (canonical) is failing (1 check in a row)"],
        ["• Doc (canonical) recovered after 5 failed checks"],
    ]
    assert Outbox(app.store).buffered("team") == []  # type: ignore[attr-defined]


def test_a_digest_queued_by_a_process_that_died_before_clearing_it_is_not_sent_again(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    receiver.routes["/services/T/B/X"] = Reply(503)
    app, clock = setup(tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>", extra='digest = "1h"\n')
    check(app, app.config.sources())  # type: ignore[attr-defined]
    clock.advance(3601)

    def die(*args: object) -> None:
        raise Died

    with monkeypatch.context() as patched:
        patched.setattr(Outbox, "digested", die)
        with pytest.raises(Died):
            dispatch(app, [])  # type: ignore[arg-type]  # the digest is queued; its event is still collected
    server.page("/post", article("<p>Three.</p>"))
    check(app, app.config.sources())  # type: ignore[attr-defined]  # another event joins it
    receiver.routes["/services/T/B/X"] = Reply(200, b"ok")
    clock.advance(3601)
    dispatch(app, [])  # type: ignore[arg-type]
    clock.advance(3601)
    dispatch(app, [])  # type: ignore[arg-type]
    texts = [json.loads(h.body)["text"] for h in receiver.requests_to("/services/T/B/X")]
    assert [re.findall(r"→ \"(\w+)\.\"", text) for text in texts] == [["Two"], ["Two"], ["Three"]]


def test_fetch_failing_once_then_recovered(tmp_path: Path, server: Server, receiver: Server) -> None:
    receiver.routes["/services/T/B/X"] = slack_receiver
    server.routes["/post"] = Reply(500)
    clock = Clock()
    app = make_app(
        one_doc(
            tmp_path,
            server.url("/post"),
            extra="robots = false",
            notify=notify_toml(receiver, extra="fail_after = 2\n"),
        ),
        clock,
    )
    for _ in range(3):
        check(app, app.config.sources())
        clock.advance(60)
    server.page("/post", article("<p>Back.</p>"))
    check(app, app.config.sources())
    titles = [
        json.loads(h.body)["blocks"][0]["text"]["text"] for h in receiver.requests_to("/services/T/B/X")
    ]
    assert titles == [
        "Doc (canonical) is failing (2 checks in a row)",
        "Doc (canonical) recovered after 3 failed checks",
    ]


RESTART = r"""
import sys
from differ.cli import main
sys.exit(main(["--config", sys.argv[1], "check"]))
"""


class Died(BaseException):
    """The process dying at the point where it was raised (nothing after it runs; what was written stays)."""


def dies_before_queueing(monkeypatch: pytest.MonkeyPatch, app: Any) -> None:
    """Check once, the process dying just before its alerts reach the outbox."""

    def die(*args: object, **kwargs: object) -> None:
        raise Died

    with monkeypatch.context() as patched:
        patched.setattr(Outbox, "enqueue", die)
        with pytest.raises(Died):
            check(app, app.config.sources())


def slack_titles(receiver: Server) -> list[str]:
    return [json.loads(h.body)["blocks"][0]["text"]["text"] for h in receiver.requests_to("/services/T/B/X")]


def test_a_failing_alert_owed_by_a_process_that_died_comes_with_the_next_check(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check that reaches `fail_after` records the streak, then dies before queueing its alert; the next
    check, in a new process, owes it and sends it, once. Likewise the recovery."""
    receiver.routes["/services/T/B/X"] = slack_receiver
    server.routes["/post"] = Reply(500)
    clock = Clock()
    config = one_doc(
        tmp_path,
        server.url("/post"),
        extra="robots = false",
        notify=notify_toml(receiver, extra="fail_after = 2\n"),
    )
    check(make_app(config, clock), config.sources())
    clock.advance(60)
    dies_before_queueing(monkeypatch, make_app(config, clock))  # the second failure: the alert is owed
    for _ in range(2):
        clock.advance(60)
        check(make_app(config, clock), config.sources())
    assert slack_titles(receiver) == [
        "Doc (canonical) is failing (3 checks in a row)"
    ]  # told late, not never
    server.page("/post", article("<p>Back.</p>"))
    clock.advance(60)
    dies_before_queueing(monkeypatch, make_app(config, clock))  # back, and the recovery is owed
    clock.advance(60)
    check(make_app(config, clock), config.sources())
    clock.advance(60)
    check(make_app(config, clock), config.sources())
    assert slack_titles(receiver) == [
        "Doc (canonical) is failing (3 checks in a row)",
        "Doc (canonical) recovered after 4 failed checks",
    ]


def test_a_failing_alert_owed_when_the_page_comes_back_is_sent_before_the_recovery(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check that reaches `fail_after` dies before queueing its alert and the next check finds the page
    back: both are told, the failing first, each once (a later failing streak is a new alert)."""
    receiver.routes["/services/T/B/X"] = slack_receiver
    server.routes["/post"] = Reply(500)
    clock = Clock()
    config = one_doc(
        tmp_path,
        server.url("/post"),
        extra="robots = false",
        notify=notify_toml(receiver, extra="fail_after = 2\n"),
    )
    check(make_app(config, clock), config.sources())
    clock.advance(60)
    dies_before_queueing(monkeypatch, make_app(config, clock))  # the second failure: the alert is owed
    server.page("/post", article("<p>Back.</p>"))
    for _ in range(2):
        clock.advance(60)
        check(make_app(config, clock), config.sources())
    told = [
        "Doc (canonical) is failing (2 checks in a row)",
        "Doc (canonical) recovered after 2 failed checks",
    ]
    assert slack_titles(receiver) == told
    server.routes["/post"] = Reply(500)
    for _ in range(2):
        clock.advance(60)
        check(make_app(config, clock), config.sources())
    assert slack_titles(receiver) == [*told, "Doc (canonical) is failing (2 checks in a row)"]


def test_a_recovery_owed_is_not_lost_to_a_short_streak_that_ends_before_it_is_told(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check that finds the page back dies before queueing the recovery; the page fails once more and that
    check dies too; the next finds it back: the first streak's recovery is told (the short streak's is not, it
    never reached `fail_after`)."""
    receiver.routes["/services/T/B/X"] = slack_receiver
    server.routes["/post"] = Reply(500)
    clock = Clock()
    config = one_doc(
        tmp_path,
        server.url("/post"),
        extra="robots = false",
        notify=notify_toml(receiver, extra="fail_after = 2\n"),
    )
    for _ in range(2):
        clock.advance(60)
        check(make_app(config, clock), config.sources())
    failing = ["Doc (canonical) is failing (2 checks in a row)"]
    assert slack_titles(receiver) == failing
    server.page("/post", article("<p>Back.</p>"))
    clock.advance(60)
    dies_before_queueing(monkeypatch, make_app(config, clock))  # the recovery is owed
    server.routes["/post"] = Reply(500)
    clock.advance(60)
    dies_before_queueing(monkeypatch, make_app(config, clock))  # one failure, and still owed
    server.page("/post", article("<p>Back.</p>"))
    for _ in range(2):
        clock.advance(60)
        check(make_app(config, clock), config.sources())
    assert slack_titles(receiver) == [*failing, "Doc (canonical) recovered after 2 failed checks"]
    assert "recoveries" not in make_app(config, clock).store.state("doc/canonical")  # told: no longer owed


def test_a_streak_that_began_before_streaks_had_a_start_is_told_once(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """A state written before `failing_since` (an upgrade mid-streak): told at fail_after exactly, as then."""
    receiver.routes["/services/T/B/X"] = slack_receiver
    server.routes["/post"] = Reply(500)
    clock = Clock()
    config = one_doc(
        tmp_path,
        server.url("/post"),
        extra="robots = false",
        notify=notify_toml(receiver, extra="fail_after = 2\n"),
    )
    app = make_app(config, clock)
    check(app, config.sources())
    state = app.store.state("doc/canonical")
    del state["failing_since"]
    app.store.save_state("doc/canonical", state)
    for _ in range(3):
        clock.advance(60)
        check(app, config.sources())
    assert slack_titles(receiver) == ["Doc (canonical) is failing (2 checks in a row)"]


def mirrored(tmp_path: Path, server: Server, receiver: Server) -> tuple[Config, Clock]:
    """A document whose canonical is served at /canon and its copy at /mirror, drift alerts to a webhook at
    /hooks."""
    receiver.routes["/hooks"] = Reply(200)
    mirror = f'id = "copy"\nurl = "{server.url("/mirror")}"\nrobots = false\nallow_private = ["127.0.0.1"]\n'
    config = one_doc(
        tmp_path,
        server.url("/canon"),
        extra="robots = false",
        mirrors=[mirror],
        notify=notify_toml(receiver, kind="webhook", path="/hooks", extra='events = ["mirror_drift"]\n'),
    )
    return config, Clock()


def test_mirror_drift_owed_by_a_process_that_died_comes_with_the_next_check(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "<p>Version {} of the announcement text, long enough to align.</p><p>Second paragraph here.</p>"
    server.page("/canon", article(text.format("one")))
    server.page("/mirror", article(text.format("one")))
    config, clock = mirrored(tmp_path, server, receiver)
    check(make_app(config, clock), config.sources())
    server.page("/canon", article(text.format("two")))
    clock.advance(3600)
    dies_before_queueing(monkeypatch, make_app(config, clock))  # the mirror is now stale: the alert is owed
    clock.advance(3600)
    check(make_app(config, clock), config.sources())
    clock.advance(3600)
    check(make_app(config, clock), config.sources())
    headlines = [json.loads(h.body)["data"]["headline"] for h in receiver.requests_to("/hooks")]
    assert headlines == ["is stale: matches version 1, canonical is at 2"]


def test_a_mirror_that_falls_back_into_old_findings_is_alerted_again(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """Findings resolved, then back as they were (a copy restored from an old backup): a new alert each time,
    not one taken for the first and left out."""
    full = "<h2>Install</h2><p>Run the installer to get version two of the tools.</p><h2>Notes</h2><p>Read the notes.</p>"
    cut = "<h2>Install</h2><p>Run the installer to get version two of the tools.</p>"
    server.page("/canon", article(full))
    server.page("/mirror", article(cut))
    config, clock = mirrored(tmp_path, server, receiver)
    app = make_app(config, clock)
    check(app, config.sources())  # the first audit: nothing to compare with, no alert
    for page in (full, cut, full, cut):
        server.page("/mirror", article(page))
        clock.advance(3600)
        check(app, config.sources())
    headlines = [json.loads(h.body)["data"]["headline"] for h in receiver.requests_to("/hooks")]
    assert headlines == ["2 findings resolved", "2 new findings", "2 findings resolved", "2 new findings"]


def test_a_stale_mirrors_event_carries_the_canonicals_passages_edited_since_the_version_it_matches(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`carry_over`: the passages a mirror behind the canonical has to carry over, as they now read, with their
    versions; as many as `CARRY_OVER_CHARS` of Markdown holds, the others counted; none once it caught up."""
    import differ.carry

    one = "<h2>Install</h2><p>Run the installer to get version one of the tools.</p><p>Read the notes.</p>"
    server.page("/canon", article(one))
    server.page("/mirror", article(one))
    config, clock = mirrored(tmp_path, server, receiver)
    app = make_app(config, clock)
    check(app, config.sources())
    two = one.replace("version one", "version two")
    server.page("/canon", article(two + "<p>Added later.</p>"))
    clock.advance(3600)
    check(app, config.sources())
    server.page("/canon", article(two.replace("the notes", "the release notes") + "<p>Added later.</p>"))
    clock.advance(3600)
    monkeypatch.setattr(differ.carry, "CARRY_OVER_CHARS", 80)  # room for two of the three passages
    check(app, config.sources())
    server.page("/mirror", article(two.replace("the notes", "the release notes") + "<p>Added later.</p>"))
    clock.advance(3600)
    check(app, config.sources())
    events = [json.loads(h.body)["data"] for h in receiver.requests_to("/hooks")]
    assert [e["headline"] for e in events] == [
        "is stale: matches version 1, canonical is at 2",
        "is stale: matches version 1, canonical is at 3",
        "caught up with canonical version 3",
    ]
    assert events[0]["carry_over"] == {
        "after": 1,
        "passages": [
            {
                "block": "paragraph",
                "section": ["Install"],
                "label": "Run the installer to get version …",
                "text": "Run the installer to get version two of the tools.",
                "markdown": "Run the installer to get version two of the tools.",
                "since": {"version": 1, "fetched_at": "2026-07-08T17:45:00Z"},
                "edited": {"version": 2, "fetched_at": "2026-07-08T18:45:00Z"},
                "in_copy": {  # the copy's paragraph that renders it, before the edit
                    "renders": True,
                    "within": False,
                    "block": "paragraph",
                    "label": "Run the installer to get version …",
                    "section": ["Install"],
                },
            },
            {
                "block": "paragraph",
                "section": ["Install"],
                "label": "Added later.",
                "text": "Added later.",
                "markdown": "Added later.",
                "since": {"version": 2, "fetched_at": "2026-07-08T18:45:00Z"},
                "edited": {"version": 2, "fetched_at": "2026-07-08T18:45:00Z"},
                "in_copy": {  # new: where it goes in the copy
                    "renders": False,
                    "within": False,
                    "block": "paragraph",
                    "label": "Read the notes.",
                    "section": ["Install"],
                },
            },
        ],
        "left_out": 0,
    }
    later = events[1]["carry_over"]
    assert [(p["markdown"], p["edited"]["version"]) for p in later["passages"]] == [
        ("Run the installer to get version two of the tools.", 2),
        ("Read the release notes.", 3),
    ]
    assert later["left_out"] == 1
    assert "carry_over" not in events[2]


def test_a_history_that_cannot_be_followed_leaves_the_passages_out_and_the_alert_goes(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The passages to carry over cannot be found (a fault while following the canonical's versions): the stale
    mirror's alert goes without them, and a line on stderr says what was left out."""
    import differ.blame

    server.page("/canon", article("<p>Run the installer to get version one of the tools.</p>"))
    server.page("/mirror", article("<p>Run the installer to get version one of the tools.</p>"))
    config, clock = mirrored(tmp_path, server, receiver)
    app = make_app(config, clock)
    check(app, config.sources())
    server.page("/canon", article("<p>Run the installer to get version two of the tools.</p>"))
    clock.advance(3600)

    def faulty(*args: object) -> None:
        raise RuntimeError("a fault")

    monkeypatch.setattr(differ.blame, "blame_latest", faulty)
    check(app, config.sources())
    [event] = [json.loads(h.body)["data"] for h in receiver.requests_to("/hooks")]
    assert event["headline"] == "is stale: matches version 1, canonical is at 2" and "carry_over" not in event
    assert app.err.getvalue() == (  # type: ignore[attr-defined]
        "differ: doc: the passages its mirrors have to carry over not counted: internal error: RuntimeError: a "
        "fault\n"
    )


def test_receiver_down_across_a_killed_process(tmp_path: Path, server: Server) -> None:
    """Receiver down, the process is killed, restarted, receiver up: every alert arrives once, in order."""
    import signal
    import socket
    import subprocess
    import sys

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens here yet: the receiver is down
    hook = f"http://127.0.0.1:{port}/hooks"
    config = config_file(tmp_path, server.url("/p"), hooks_toml(hook))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    for n in range(4):
        server.page("/p", article(f"<p>Version {n} of the text.</p>"))
        proc = subprocess.Popen(
            [sys.executable, "-c", RESTART, str(config)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        if n == 3:
            proc.send_signal(signal.SIGKILL)  # the last run dies at once; what it committed must survive
        proc.communicate(timeout=60)
    from differ.notify.outbox import Outbox
    from differ.store import Store

    pending = Outbox(Store(tmp_path / "snap")).messages("hooks", "pending")
    receiver = Server(port=port)  # the receiver comes back where the service sent to
    receiver.routes["/hooks"] = Reply(200)
    try:
        subprocess.run(
            [sys.executable, "-m", "differ", "--config", str(config), "outbox", "retry"],
            env=env,
            check=False,
            capture_output=True,
            timeout=60,
        )
        ids = [h.headers["webhook-id"] for h in receiver.requests_to("/hooks")]
        versions = [
            json.loads(h.body)["data"]["diff"]["to"]["version"] for h in receiver.requests_to("/hooks")
        ]
        assert len(ids) == len(set(ids))
        assert versions == sorted(versions)
        assert len(ids) >= len(pending) >= 2
    finally:
        receiver.close()


def test_checks_finishing_at_once_send_an_alert_once(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """In `differ run` every check ends by delivering; two ending together must not both send the message."""
    import threading

    receiver.routes["/services/T/B/X"] = Reply(500, b"busy")
    app, clock = setup(tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>")
    check(app, app.config.sources())  # type: ignore[attr-defined]
    receiver.routes["/services/T/B/X"] = Reply(200, b"ok", delay=0.5)  # a slow answer: both try meanwhile
    clock.advance(3600)
    results: list[list[Any]] = []
    threads = [threading.Thread(target=lambda: results.append(deliver(app))) for _ in range(3)]  # type: ignore[arg-type]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(receiver.requests_to("/services/T/B/X")) == 2  # the failed attempt, then one delivery
    said = [(a.ok, a.detail) for r in results for a in r]
    assert (
        said.count((True, "delivered")) == 1
    )  # the others found the turn taken (or, started late, nothing due)
    assert set(said) <= {(True, "delivered"), (False, BUSY)}
    assert Outbox(app.store).messages("team", "pending") == []  # type: ignore[attr-defined]


def test_a_message_queued_while_another_sends_goes_with_that_one(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """A caller that finds the destination's turn taken leaves its message to the holder, which reads the
    queue again before it lets go."""
    import threading

    receiver.routes["/services/T/B/X"] = Reply(500, b"busy")
    app, clock = setup(tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>")
    check(app, app.config.sources())  # type: ignore[attr-defined]
    receiver.routes["/services/T/B/X"] = Reply(200, b"ok", delay=1.0)
    clock.advance(3600)
    holder = threading.Thread(target=deliver, args=(app,))
    holder.start()
    while not receiver.requests_to("/services/T/B/X")[1:]:  # the holder is sending the first alert
        holder.join(0.02)
    server.page("/post", article("<p>Three.</p>"))
    check(app, app.config.sources())  # type: ignore[attr-defined]  # queues version 3; its delivery finds the turn taken
    holder.join()
    titles = [json.loads(h.body)["text"] for h in receiver.requests_to("/services/T/B/X")]
    assert [re.findall(r"version \d → \d", t) for t in titles] == [["version 1 → 2"]] * 2 + [
        ["version 2 → 3"]
    ]
    assert Outbox(app.store).messages("team", "pending") == []  # type: ignore[attr-defined]


def test_an_outbox_from_before_its_index_finds_its_messages_and_numbers_on(tmp_path: Path) -> None:
    """Messages written before `ids/` and `last` existed: the first enqueue builds both from the folders, so a
    message already sent is not queued again and a new one comes after the newest."""
    from differ.store import Store

    store = Store(tmp_path / "snap")
    with store.writing():
        pass
    team = tmp_path / "snap/outbox/team"
    for state, seq, n in (("sent", 1, 1), ("sent", 7, 2), ("failed", 3, 3), ("pending", 9, 4)):
        (team / state).mkdir(parents=True, exist_ok=True)
        (team / state / f"{seq:010d}-msg_{n:032x}.json").write_text(json.dumps(MESSAGE) + "\n")
    outbox = Outbox(store)
    assert outbox.enqueue("team", f"msg_{2:032x}", MESSAGE) is None  # sent already
    new = outbox.enqueue("team", f"msg_{5:032x}", MESSAGE)
    assert new is not None and new.path == team / "pending" / f"0000000010-msg_{5:032x}.json"
    assert (team / "ids" / f"msg_{2:032x}").read_text() == f"0000000007-msg_{2:032x}.json"
    assert sorted(p.name for p in (team / "ids").iterdir()) == [f"msg_{n:032x}" for n in range(1, 6)]
    found = outbox.find("team", f"msg_{3:032x}")
    assert found is not None and (found.state, found.seq) == ("failed", 3)
    last = outbox.last("team")
    assert last is not None and last.id == f"msg_{5:032x}"


def test_a_marker_left_by_a_process_that_died_before_its_message_counts_as_none(tmp_path: Path) -> None:
    from differ.store import Store

    store = Store(tmp_path / "snap")
    outbox = Outbox(store)
    first = outbox.enqueue("team", f"msg_{1:032x}", MESSAGE)
    assert first is not None
    first.path.unlink()  # as if the process had died after the marker and before the message
    again = outbox.enqueue("team", f"msg_{1:032x}", MESSAGE)
    assert again is not None and again.seq == 2 and again.path.is_file()
    assert outbox.enqueue("team", f"msg_{1:032x}", MESSAGE) is None
    again.path.write_text("damaged")  # a message that no longer reads was queued all the same
    assert outbox.find("team", f"msg_{1:032x}") is None
    assert outbox.enqueue("team", f"msg_{1:032x}", MESSAGE) is None
    (tmp_path / f"snap/outbox/team/ids/msg_{1:032x}").write_text("damaged")  # and so says its file's name
    assert outbox.enqueue("team", f"msg_{1:032x}", MESSAGE) is None


def test_the_outbox_names_messages_left_for_a_destination_taken_out(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """A [[notify]] renamed or removed while its messages wait: `differ outbox` says they are not sent."""
    import io

    from differ.cli import main

    def run(*args: str) -> tuple[int, str]:
        out = io.StringIO()
        return main(["--config", str(config), *args], out=out, err=io.StringIO(), env={}), out.getvalue()

    receiver.routes["/hooks"] = Reply(503, b"down")
    server.page("/p", article("<p>One.</p>"))
    config = config_file(tmp_path, server.url("/p"), hooks_toml(receiver.url("/hooks")))
    run("check")
    server.page("/p", article("<p>Two.</p>"))
    run("check")
    assert "unsent" not in run("outbox")[1]
    config.write_text(config.read_text().replace('name = "hooks"', 'name = "releases"'))
    code, out = run("outbox")
    assert code == ExitCode.OK and out.splitlines()[-1] == (
        'unsent   hooks: 1 pending, but no [[notify]] is named "hooks" in config.toml; they go out when one is again'
    )


def test_two_processes_retrying_the_outbox_send_each_alert_once(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """`differ outbox retry` run twice at once (or beside `differ run`): each alert reaches the receiver once."""
    import subprocess
    import sys

    from differ.config import load_config

    receiver.routes["/hooks"] = Reply(503, b"down")
    server.page("/p", article("<p>One.</p>"))
    config = config_file(tmp_path, server.url("/p"), hooks_toml(receiver.url("/hooks")))
    clock = Clock()
    app = make_app(load_config(config, {}), clock)
    for n in range(3):
        server.page("/p", article(f"<p>Version {n} of the text.</p>"))
        check(app, app.config.sources())
        clock.advance(3600)
    assert len(Outbox(app.store).messages("hooks", "pending")) == 2
    receiver.routes["/hooks"] = Reply(200, b"ok", delay=0.4)
    failed = len(receiver.requests_to("/hooks"))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "differ", "--config", str(config), "outbox", "retry"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    sent = [h.headers["webhook-id"] for h in receiver.requests_to("/hooks")[failed:]]
    assert len(sent) == len(set(sent)) == 2
    assert Outbox(app.store).messages("hooks", "pending") == []


def test_a_hanging_receiver_times_out_and_is_retried_later(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/services/T/B/X"] = Reply(200, b"ok", delay=3)
    app, _ = setup(tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>", extra='timeout = "0.5s"\n')
    check(app, app.config.sources())  # type: ignore[attr-defined]
    pending = Outbox(app.store).messages("team", "pending")  # type: ignore[attr-defined]
    assert [m.data["last_error"] for m in pending] == ["no answer within 0.5s"]
    assert pending[0].data["next_attempt"] > "2026-07-08T18:45:00Z"


def test_full_diff_link_points_at_the_stored_report(tmp_path: Path, server: Server, receiver: Server) -> None:
    receiver.routes["/services/T/B/X"] = slack_receiver
    old = "".join(f"<p>Paragraph {i} says something {'long ' * 300}.</p>" for i in range(80))
    new = "".join(f"<p>Paragraph {i} says another thing {'long ' * 300}.</p>" for i in range(80))
    app, _ = setup(
        tmp_path, server, receiver, old, new, extra='base_url = "https://reports.example.org/differ/"\n'
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    payload = json.loads(receiver.requests_to("/services/T/B/X")[0].body)
    texts = [(b.get("text") or {}).get("text", "") for b in payload["blocks"]]
    link = "https://reports.example.org/differ/doc/canonical/diff-2.html"
    assert f"…and 72 more changes — <{link}|full diff>" in texts
    report = Path(app.store.root) / "reports/doc/canonical/diff-2.html"  # type: ignore[attr-defined]
    assert "Doc (canonical), version 1 → 2: 80 changes." in report.read_text()


def test_secrets_never_show_in_output_or_reprs(tmp_path: Path, server: Server, receiver: Server) -> None:
    import io

    from differ.cli import main

    receiver.routes["/hooks/secret-path"] = Reply(500, b"rollup_error")
    server.page("/post", article("<p>One.</p>"))
    config = config_file(tmp_path, server.url("/post"), hooks_toml(receiver.url("/hooks/secret-path")))
    outputs = []
    for args in (["check"], ["notify", "test"], ["outbox"], ["sources"], ["sources", "--format", "json"]):
        out, err = io.StringIO(), io.StringIO()
        main(["--config", str(config), *args], out=out, err=err, env={})
        outputs.append(out.getvalue() + err.getvalue())
    from differ.config import load_config

    outputs.append(repr(load_config(config, {})))
    for text in outputs:
        assert "secret-path" not in text and SECRET not in text
    assert "HTTP 500 rollup_error" in outputs[1]


def test_gives_up_after_retry_for(tmp_path: Path, server: Server, receiver: Server) -> None:
    receiver.routes["/services/T/B/X"] = Reply(503, b"busy")
    app, clock = setup(tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>", extra='retry_for = "1h"\n')
    check(app, app.config.sources())  # type: ignore[attr-defined]
    outbox = Outbox(app.store)
    for _ in range(12):
        clock.advance(600)
        deliver(app)  # type: ignore[arg-type]
    assert outbox.messages("team", "pending") == []
    assert (
        outbox.messages("team", "failed")[0].data["last_error"]
        == "HTTP 503 busy; gave up after 1h of retries"
    )


def test_410_destination_comes_back_when_its_configuration_changes(tmp_path: Path, receiver: Server) -> None:
    from tests.conftest import make_config

    doc = '[[documents]]\nid = "doc"\n[documents.canonical]\nid = "c"\nurl = "https://example.org/"\n'
    receiver.routes["/services/T/B/X"] = Reply(410, b"channel_is_archived")
    app = make_app(make_config(tmp_path, doc + notify_toml(receiver)))
    assert [a.detail for a in send_test(app)] == ["HTTP 410 channel_is_archived"]
    assert send_test(app)[0].ok is False  # disabled: nothing sent
    receiver.routes["/services/T/B/Y"] = Reply(200, b"ok")
    moved = make_app(make_config(tmp_path, doc + notify_toml(receiver, path="/services/T/B/Y")))
    assert [a.ok for a in send_test(moved)] == [True]
    assert len(receiver.requests_to("/services/T/B/X")) == 1


def test_at_most_one_slack_message_per_second(tmp_path: Path, receiver: Server) -> None:
    from tests.conftest import make_config

    doc = '[[documents]]\nid = "doc"\n[documents.canonical]\nid = "c"\nurl = "https://example.org/"\n'
    receiver.routes["/services/T/B/X"] = Reply(200, b"ok")
    clock = Clock()
    app = make_app(make_config(tmp_path, doc + notify_toml(receiver)), clock)
    for _ in range(3):
        assert send_test(app)[0].ok
    assert [round(s, 3) for s in clock.slept] == [1.0, 1.0]


def test_filters_by_event_document_and_source() -> None:
    from differ.config import NotifierConfig

    everything = NotifierConfig("all", "slack", {})
    assert everything.wants("changed", "doc/canonical") and everything.wants("mirror_drift", "doc/copy")
    docs = NotifierConfig("docs", "slack", {}, documents=("doc",), events=("changed",))
    assert docs.wants("changed", "doc/copy") and not docs.wants("changed", "other/canonical")
    assert not docs.wants("fetch_failing", "doc/canonical")
    one = NotifierConfig("one", "slack", {}, sources=("doc/canonical",))
    assert one.wants("recovered", "doc/canonical") and not one.wants("recovered", "doc/copy")


def discord_receiver(hit: object) -> Reply:
    """Answers like a Discord webhook (204) and enforces its limits and the no-mentions setting."""
    body = json.loads(hit.body)  # type: ignore[attr-defined]
    embeds = body.get("embeds", [])
    ok = (
        len(body.get("content", "")) <= 2000
        and 1 <= len(embeds) <= 10
        and body.get("allowed_mentions") == {"parse": []}
        and all(len(e.get("title", "")) <= 256 and len(e.get("description", "")) <= 4096 for e in embeds)
        and sum(
            len(e.get("title", "")) + len(e.get("description", "")) + len(e["footer"]["text"]) for e in embeds
        )
        <= 6000
    )
    return Reply(204) if ok else Reply(400, b'{"code": 50035, "message": "Invalid Form Body"}')


def test_discord_alert_mentions_nobody_and_links_nowhere(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/api/webhooks/1/T"] = discord_receiver
    evil = "<p>Hi @everyone and &lt;@123&gt;, see [the fix](https://evil.example/x) **now**.</p>"
    app, _ = setup(
        tmp_path, server, receiver, "<p>Hello.</p>", evil, kind="discord", path="/api/webhooks/1/T"
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [hit] = receiver.requests_to("/api/webhooks/1/T")
    [embed] = json.loads(hit.body)["embeds"]
    assert embed["title"] == "Doc changed (canonical)"
    assert embed["color"] == 0xE67E22
    assert embed["footer"] == {"text": "doc/canonical · version 1 → 2 · 2026-07-08T18:45:00Z"}
    assert embed["timestamp"] == "2026-07-08T18:45:00Z"
    assert embed["description"] == (
        "Doc \\(canonical\\), version 1 → 2\\: 1 change.\n"
        '• "Hello."\n'
        '  → "Hi \\@everyone and \\<\\@123\\>, see \\[the fix\\]\\(https\\://evil.example/x\\) '
        '\\*\\*now\\*\\*."'
    )
    assert [m.data["attempts"] for m in Outbox(app.store).messages("team", "sent")] == [1]  # type: ignore[attr-defined]


def test_discord_alert_pings_exactly_the_configured_role_and_user(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/api/webhooks/1/T"] = discord_receiver
    extra = 'mention = ["<@&111>", "<@222>"]\n'
    evil = "<p>Hi @everyone and &lt;@123&gt;.</p>"
    app, _ = setup(
        tmp_path,
        server,
        receiver,
        "<p>Hello.</p>",
        evil,
        kind="discord",
        path="/api/webhooks/1/T",
        extra=extra,
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    body = json.loads(receiver.requests_to("/api/webhooks/1/T")[0].body)
    assert body["content"] == "<@&111> <@222>"
    assert body["allowed_mentions"] == {"parse": [], "roles": ["111"], "users": ["222"]}
    assert "\\@everyone" in body["embeds"][0]["description"]  # the page's, escaped and not allowed anyway


def test_discord_here_is_allowed_only_when_configured(tmp_path: Path, receiver: Server) -> None:
    from differ.config import parse_config
    from differ.errors import ConfigError
    from differ.notify import NOTIFIERS

    def config(mention: str) -> str:
        return (
            '[[documents]]\nid = "doc"\n[documents.canonical]\nurl = "https://example.org/"\n'
            + notify_toml(
                receiver,
                kind="discord",
                path="/api/webhooks/1/T",
                extra=f"mention = [{json.dumps(mention)}]\n",
            )
        )

    notifier = parse_config(config("@here"), tmp_path / "config.toml", {}).notifiers[0]
    assert NOTIFIERS["discord"](notifier)._allowed() == {"parse": ["everyone"]}
    with pytest.raises(ConfigError) as e:
        parse_config(config("@release-team"), tmp_path / "config.toml", {})
    assert str(e.value) == (
        'config.toml: notify[0].mention: expected Discord mentions such as "<@&ROLE_ID>", "<@USER_ID>", "@here" '
        'or "@everyone", found "@release-team"'
    )


def test_discord_long_summaries_are_cut_with_a_count(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/api/webhooks/1/T"] = discord_receiver
    old = "".join(f"<p>Paragraph {i} says something {'long ' * 60}.</p>" for i in range(80))
    new = "".join(f"<p>Paragraph {i} says another thing {'long ' * 60}.</p>" for i in range(80))
    extra = 'base_url = "https://reports.example.org/"\n'
    app, _ = setup(
        tmp_path, server, receiver, old, new, kind="discord", path="/api/webhooks/1/T", extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [hit] = receiver.requests_to("/api/webhooks/1/T")
    [embed] = json.loads(hit.body)["embeds"]
    assert len(embed["description"]) <= 4096
    assert re.search(r"\n…and \d+ more changes$", embed["description"])
    shown = embed["description"].count("\n• ")
    assert embed["description"].endswith(f"…and {80 - shown} more changes")
    assert embed["url"] == "https://reports.example.org/doc/canonical/diff-2.html"


def teams_receiver(hit: object) -> Reply:
    """Answers like a Teams Workflows webhook (202 Accepted) and refuses what Teams refuses: no Adaptive Card
    attachment, a card of another version, markup where plain text runs are expected, or over 28 KB."""
    body = json.loads(hit.body)  # type: ignore[attr-defined]
    attachments = body.get("attachments") or [{}]
    card = attachments[0].get("content") or {}
    blocks = card.get("body", [])

    def plain(block: dict[str, object]) -> bool:
        if block.get("type") == "Container":
            return all(plain(b) for b in block.get("items", []))  # type: ignore[union-attr]
        runs = block.get("inlines", [])
        return block.get("type") == "RichTextBlock" and all(r["type"] == "TextRun" for r in runs)  # type: ignore[union-attr, index]

    ok = (
        body.get("type") == "message"
        and len(attachments) == 1
        and attachments[0].get("contentType") == "application/vnd.microsoft.card.adaptive"
        and card.get("type") == "AdaptiveCard"
        and card.get("version") == "1.4"
        and blocks
        and all(plain(b) for b in blocks)
        and len(hit.body) <= 28_000  # type: ignore[attr-defined]
    )
    return Reply(202) if ok else Reply(400, b'{"error": {"code": "InvalidRequestContent"}}')


def card_text(hit: object) -> list[str]:
    """The text of each block of the card, as Teams shows it."""
    card = json.loads(hit.body)["attachments"][0]["content"]  # type: ignore[attr-defined]
    out = []
    for block in card["body"]:
        for inner in block.get("items", [block]):
            out.append("".join(run["text"] for run in inner["inlines"]))
    return out


def test_teams_alert_is_an_adaptive_card_of_plain_text(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/workflows/1/triggers/manual"] = teams_receiver
    evil = "<p>See [the fix](https://evil.example/x) **now**, &lt;at&gt;everyone&lt;/at&gt;.</p>"
    extra = 'base_url = "https://reports.example.org/"\n'
    app, _ = setup(
        tmp_path,
        server,
        receiver,
        "<p>Hello.</p>",
        evil,
        kind="teams",
        path="/workflows/1/triggers/manual",
        extra=extra,
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [hit] = receiver.requests_to("/workflows/1/triggers/manual")
    assert card_text(hit) == [
        "Doc changed (canonical)",
        "Doc (canonical), version 1 → 2: 1 change.",
        '• "Hello."',
        '  → "See [the fix](https://evil.example/x) **now**, <at>everyone</at>."',
        "doc/canonical · version 1 → 2 · 2026-07-08T18:45:00Z",
    ]
    card = json.loads(hit.body)["attachments"][0]["content"]
    assert card["body"][0]["style"] == "warning"
    assert card["actions"] == [
        {
            "type": "Action.OpenUrl",
            "title": "Full diff",
            "url": "https://reports.example.org/doc/canonical/diff-2.html",
        }
    ]
    assert [m.data["attempts"] for m in Outbox(app.store).messages("team", "sent")] == [1]  # type: ignore[attr-defined]


def test_teams_long_summaries_are_cut_with_a_count(tmp_path: Path, server: Server, receiver: Server) -> None:
    receiver.routes["/workflows/1/triggers/manual"] = teams_receiver
    old = "".join(f"<p>Paragraph {i} says something {'long ' * 60}.</p>" for i in range(80))
    new = "".join(f"<p>Paragraph {i} says another thing {'long ' * 60}.</p>" for i in range(80))
    app, _ = setup(tmp_path, server, receiver, old, new, kind="teams", path="/workflows/1/triggers/manual")
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [hit] = receiver.requests_to("/workflows/1/triggers/manual")
    text = card_text(hit)
    shown = sum(line.startswith("• ") for line in text)
    assert 0 < shown < 80
    assert text[-2] == f"…and {80 - shown} more changes"
    assert "actions" not in json.loads(hit.body)["attachments"][0]["content"]  # no base_url, no link
    assert [m.data["attempts"] for m in Outbox(app.store).messages("team", "sent")] == [1]  # type: ignore[attr-defined]


def test_teams_needs_a_webhook_url(tmp_path: Path) -> None:
    assert (
        notifier_error(tmp_path, "teams", 'url = "teams.example/hook"\n')
        == "notify[0].url: expected the workflow's https:// webhook URL"
    )


CHAT = "/v1/spaces/AAAA/messages?key=K&token=T"
THREADED = CHAT + "&messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD"


def to_chat(receiver: Server, path: str) -> list[Any]:
    """The requests to a Google Chat webhook at `path`, whatever request id each names."""
    return [h for h in receiver.hits if re.sub(r"&requestId=msg_[0-9a-f]+", "", h.path) == path]


def chat_receiver(hit: object) -> Reply:
    """Answers like a Google Chat webhook (200 and the message) and refuses what it refuses: no text and no card,
    a widget that is not text or buttons, or a message over 32,000 bytes."""
    body = json.loads(hit.body)  # type: ignore[attr-defined]
    cards = body.get("cardsV2") or []
    widgets = [w for c in cards for s in c["card"].get("sections", []) for w in s.get("widgets", [])]
    ok = (
        (body.get("text") or cards)
        and all(set(w) <= {"textParagraph", "buttonList"} for w in widgets)
        and len(hit.body) <= 32_000  # type: ignore[attr-defined]
    )
    return (
        Reply(200, b'{"name": "spaces/AAAA/messages/1"}') if ok else Reply(400, b'{"error": {"code": 400}}')
    )


def chat_text(hit: object) -> list[str]:
    """The card as Google Chat shows it: header title and subtitle, then each paragraph, markup read."""
    card = json.loads(hit.body)["cardsV2"][0]["card"]  # type: ignore[attr-defined]
    shown = [card["header"]["title"], card["header"]["subtitle"]]
    for widget in card["sections"][0]["widgets"]:
        if "textParagraph" in widget:
            text = widget["textParagraph"]["text"].replace("<br>", "\n")
            assert "<" not in text  # no tag of the page's: all of it escaped
            shown.append(html.unescape(text))
    return shown


def test_google_chat_alert_is_a_card_of_escaped_text_in_the_documents_thread(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes[CHAT + "*"] = chat_receiver
    evil = "<p>See <b>now</b> &lt;users/all&gt; and &lt;https://evil.example|the fix&gt;.</p>"
    extra = 'base_url = "https://reports.example.org/"\nmention = ["<users/all>"]\n'
    app, _ = setup(
        tmp_path, server, receiver, "<p>Hello.</p>", evil, kind="googlechat", path=CHAT, extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [hit] = to_chat(receiver, THREADED)
    assert chat_text(hit) == [
        "Doc changed (canonical)",
        "doc/canonical · version 1 → 2 · 2026-07-08T18:45:00Z",
        "Doc (canonical), version 1 → 2: 1 change.",
        '• "Hello."\n  → "See now <users/all> and <https://evil.example|the fix>."',
    ]
    body = json.loads(hit.body)
    assert body["text"] == "<users/all>"  # the configured mention, and nothing of the page's
    assert body["thread"] == {"threadKey": "differ-doc"}
    assert body["cardsV2"][0]["card"]["sections"][0]["widgets"][-1] == {
        "buttonList": {
            "buttons": [
                {
                    "text": "Full diff",
                    "onClick": {"openLink": {"url": "https://reports.example.org/doc/canonical/diff-2.html"}},
                }
            ]
        }
    }
    assert [m.data["attempts"] for m in Outbox(app.store).messages("team", "sent")] == [1]  # type: ignore[attr-defined]


def test_google_chat_without_threads_posts_to_the_webhook_as_given(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes[CHAT + "*"] = chat_receiver
    old = "".join(f"<p>Paragraph {i} says something {'long ' * 60}.</p>" for i in range(80))
    new = "".join(f"<p>Paragraph {i} says another thing {'long ' * 60}.</p>" for i in range(80))
    app, _ = setup(
        tmp_path, server, receiver, old, new, kind="googlechat", path=CHAT, extra="threads = false\n"
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [hit] = to_chat(receiver, CHAT)
    body = json.loads(hit.body)
    assert "thread" not in body and "text" not in body
    text = chat_text(hit)
    shown = sum(line.startswith("• ") for line in text)
    assert 0 < shown < 80
    assert text[-1] == f"…and {80 - shown} more changes"  # no base_url: no link after it
    assert [m.data["attempts"] for m in Outbox(app.store).messages("team", "sent")] == [1]  # type: ignore[attr-defined]


def test_google_chat_keeps_one_message_for_a_retry_after_a_lost_answer(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """Each request names the outbox message as its requestId; Google Chat answers a repeated one with the message
    it made, so the space has one message though the first answer never came."""
    made: dict[str, str] = {}

    def space(hit: Any) -> Reply:
        request = dict(parse_qsl(hit.path.partition("?")[2]))["requestId"]
        name = made.setdefault(request, f"spaces/AAAA/messages/{len(made) + 1}")
        if len(receiver.hits) == 1:  # the first request: the message is made, but its answer is lost
            return Reply(200, b"", reset=True)
        return Reply(200, json.dumps({"name": name}).encode())

    receiver.routes[CHAT + "*"] = space
    app, clock = setup(tmp_path, server, receiver, "<p>Old.</p>", "<p>New.</p>", kind="googlechat", path=CHAT)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    clock.advance(600)
    assert [a.ok for a in deliver(app)] == [True]  # type: ignore[arg-type]
    first, second = (h.path for h in receiver.hits)
    assert first == second and "&requestId=msg_" in first
    assert len(made) == 1


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("", "notify[0].url: expected the space's https:// webhook URL"),
        (
            'mention = ["@all"]\n',
            'notify[0].mention: expected Google Chat mentions such as "<users/123456789>" or "<users/all>", '
            'found "@all"',
        ),
    ],
)
def test_google_chat_settings_are_checked(tmp_path: Path, extra: str, message: str) -> None:
    url = (
        "chat.example/hook" if not extra else "https://chat.googleapis.com/v1/spaces/A/messages?key=K&token=T"
    )
    assert notifier_error(tmp_path, "googlechat", f'url = "{url}"\n{extra}') == message


ZULIP = '\nemail = "differ-bot@rust.zulipchat.com"\napi_key = "k3y"\nchannel = "release"\n'


def zulip_receiver(hit: object) -> Reply:
    """Answers like Zulip's send-message endpoint: the bot's Basic credentials, form fields, 10,000 bytes."""
    fields = dict(parse_qsl(hit.body.decode()))  # type: ignore[attr-defined]
    auth = "Basic " + base64.b64encode(b"differ-bot@rust.zulipchat.com:k3y").decode()
    if hit.headers.get("authorization") != auth:  # type: ignore[attr-defined]
        return Reply(401, b'{"result": "error", "msg": "Invalid API key", "code": "INVALID_API_KEY"}')
    ok = (
        hit.headers.get("content-type") == "application/x-www-form-urlencoded"  # type: ignore[attr-defined]
        and fields.get("type") == "stream"
        and fields.get("to")
        and 0 < len(fields.get("topic", "")) <= 60
        and 0 < len(fields.get("content", "").encode()) <= 10_000
    )
    return Reply(200, b'{"result": "success", "id": 42}') if ok else Reply(400, b'{"result": "error"}')


def test_zulip_alert_goes_to_the_documents_topic_with_page_text_escaped(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/api/v1/messages"] = zulip_receiver
    evil = "<p>Ping @**all** and @*release*, see [the fix](https://evil.example/x) now.</p>"
    extra = ZULIP + 'base_url = "https://reports.example.org/"\nmention = ["@*release-team*"]\n'
    app, _ = setup(tmp_path, server, receiver, "<p>Hello.</p>", evil, kind="zulip", path="", extra=extra)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [hit] = receiver.requests_to("/api/v1/messages")
    fields = dict(parse_qsl(hit.body.decode()))
    assert (fields["type"], fields["to"], fields["topic"]) == ("stream", "release", "Doc")
    assert fields["content"].splitlines() == [
        "**Doc changed \\(canonical\\)** @*release-team*",
        "Doc \\(canonical\\), version 1 → 2: 1 change\\.",
        '• "Hello\\."',
        '  → "Ping @\\*\\*all\\*\\* and @\\*release\\*, see \\[the fix\\]\\(https://evil\\.example/x\\) '
        'now\\."',
        "[Full diff](https://reports.example.org/doc/canonical/diff-2.html)",
        "*doc/canonical · version 1 → 2 · 2026\\-07\\-08T18:45:00Z*",
    ]
    assert "@**" not in fields["content"] and "@*r" not in fields["content"].replace("@*release-team*", "")
    assert [m.data["attempts"] for m in Outbox(app.store).messages("team", "sent")] == [1]  # type: ignore[attr-defined]
    assert "k3y" not in json.dumps([m.data for m in Outbox(app.store).messages("team", "sent")])  # type: ignore[attr-defined]


def test_zulip_refusing_the_bot_is_a_failed_delivery_with_its_answer(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/api/v1/messages"] = zulip_receiver
    extra = ZULIP.replace("k3y", "wrong")
    error = first_failure(tmp_path, server, receiver, "zulip", "", extra)
    assert error == 'HTTP 401 {"result": "error", "msg": "Invalid API key", "code": "INVALID_API_KEY"}'


def test_zulip_puts_a_failing_page_in_its_documents_topic(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/api/v1/messages"] = zulip_receiver
    server.routes["/post"] = Reply(500)
    notify = notify_toml(receiver, kind="zulip", path="", extra=ZULIP + "fail_after = 1\n")
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=notify))
    check(app, app.config.sources())
    [hit] = receiver.requests_to("/api/v1/messages")
    fields = dict(parse_qsl(hit.body.decode()))
    assert (fields["topic"], fields["content"].splitlines()[0]) == (
        "Doc",
        "**Doc \\(canonical\\) is failing \\(1 check in a row\\)**",
    )


def test_zulip_keeps_one_topic_a_document_whatever_the_event(tmp_path: Path) -> None:
    from differ.notify.zulip import Zulip

    zulip = Zulip(notifier_config(tmp_path, "zulip", 'url = "https://rust.zulipchat.com"' + ZULIP))
    events = [
        {"type": "changed", "source": "d/c", "diff": {"title": "Rust 1.97.0", "summary": ["x"]}},
        {"type": "mirror_drift", "document": "d", "title": "Rust 1.97.0", "mirror": "m", "summary": []},
        {
            "type": "fetch_failing",
            "source": "d/c",
            "title": "Rust 1.97.0",
            "failures": 3,
            "error": "HTTP 500",
        },
        {"type": "recovered", "source": "d/c", "title": "Rust 1.97.0", "failures": 3},
    ]
    assert {zulip.payload(event).body["topic"] for event in events} == {"Rust 1.97.0"}
    assert zulip.payload({"type": "test", "document": "differ"}).body["topic"] == "differ"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ('url = "https://rust.zulipchat.com/api/v1/messages"' + ZULIP, "notify[0].url: expected the organization's address alone (https://ORG.zulipchat.com)"),
        ('url = "rust.zulipchat.com"' + ZULIP, "notify[0].url: expected the organization's https:// address"),
        ('url = "https://rust.zulipchat.com"\nemail = "b@x"\nchannel = "c"\n', 'notify[0]: missing key "api_key" (the bot\'s API key)'),
        ('url = "https://rust.zulipchat.com"' + ZULIP + 'mention = ["@all"]\n', 'notify[0].mention: expected Zulip mentions such as "@**Jane Doe**", "@*release-team*" or "@**all**", found "@all"'),
    ],
)  # fmt: skip
def test_zulip_settings_are_checked(tmp_path: Path, options: str, message: str) -> None:
    assert notifier_error(tmp_path, "zulip", options) == message


def test_a_cut_message_counts_the_changes_it_leaves_out() -> None:
    from differ.notify.base import changes_in

    assert changes_in(['• Post: "a"', '  → "b"', "• added at the end: c", "…and 72 more changes"]) == 74
    assert changes_in(["Doc (canonical), version 1 → 2: 3 changes."]) == 0


def test_an_indented_line_of_a_message_stays_with_the_bullet_above_it() -> None:
    from differ.bullets import grouped
    from differ.notify.base import changes_in

    lines = [
        '• Post: "a"',
        '  → "b"',
        '  link "docs": https://x.org/1 → https://x.org/2',
        "• new: stale: …, so the mirror misses 2 changes:",
        '  • Post: "c"',
        '    → "d"',
        "  • added at the end: e",
        "• new: extra: f",
    ]
    assert grouped(lines) == [
        '• Post: "a"\n  → "b"\n  link "docs": https://x.org/1 → https://x.org/2',
        '• new: stale: …, so the mirror misses 2 changes:\n  • Post: "c"\n    → "d"\n  • added at the end: e',
        "• new: extra: f",
    ]
    assert changes_in(lines) == 3  # the changes a stale mirror misses are not the message's own


def test_an_alert_for_a_release_that_moved_on_is_titled_as_a_new_release() -> None:
    from differ.diff import Versions, diff
    from differ.diff.render import as_json
    from differ.notify.base import Notifier

    def event(a_meta: dict[str, str], b_meta: dict[str, str]) -> dict[str, object]:
        d = diff("Notes.\n", "Other notes.\n", a_meta=a_meta, b_meta=b_meta)
        return {
            "type": "changed",
            "source": "torch/canonical",
            "diff": as_json(d, Versions("PyTorch", "torch/canonical", 1, 2)),
        }

    assert Notifier.title(event({"tag_name": "v2.13.0"}, {"tag_name": "v2.14.0"})) == (
        "PyTorch has a new release, v2.14.0 (canonical)"
    )
    assert Notifier.title(event({"name": "A"}, {"name": "B"})) == "PyTorch changed (canonical)"


SECRET_SETTINGS = {
    "telegram": 'bot_token = "123456:S3CRETtoken"\nchat = "-100123"\napi = "{base}"\n',
    "matrix": 'url = "{base}"\nroom = "!room:example.org"\naccess_token = "syt_abS3CRETtoken"\n',
    "zulip": 'url = "{base}"\nemail = "bot@example.org"\napi_key = "abcdefS3CRETtoken"\nchannel = "c"\n',
    "ntfy": 'url = "{base}"\ntopic = "t"\ntoken = "tk_S3CRETtoken"\n',
    "ntfy-user": 'url = "{base}"\ntopic = "t"\nusername = "u"\npassword = "abcdefS3CRETtoken"\n',
    "slack-bot": 'token = "xoxb-S3CRETtoken"\nchannel = "C0123"\napi = "{base}/api"\n',
    "mattermost": 'url = "{base}/hooks/S3CRETtoken"\n',
    "discord": 'url = "{base}/api/webhooks/1/S3CRETtoken"\n',
    "googlechat": 'url = "{base}/v1/spaces/A/messages?key=K&token=S3CRETtoken"\n',
    "teams": 'url = "{base}/workflows/S3CRETtoken/triggers/manual/paths/invoke?sig=x"\n',
}


@pytest.mark.parametrize("name", sorted(SECRET_SETTINGS))
def test_no_notifiers_secret_shows_in_output_or_reprs(
    tmp_path: Path, server: Server, receiver: Server, name: str
) -> None:
    """Every secret a notifier takes (tokens, keys, passwords, webhook URLs) stays out of what differ prints and
    keeps, whether delivery works or the receiver fails (a configuration's repr shows a secret's first six
    characters, to tell which it is, or a URL's host)."""
    import io

    from differ.cli import main
    from differ.config import load_config

    receiver.routes["/*"] = Reply(500, b"down")
    server.page("/post", article("<p>One.</p>"))
    kind = name.split("-")[0]
    config = config_file(
        tmp_path,
        server.url("/post"),
        f'[[notify]]\nname = "n"\nkind = "{kind}"\n' + SECRET_SETTINGS[name].format(base=receiver.base),
    )
    outputs = []
    for args in (
        ["check"],
        ["notify", "test"],
        ["outbox"],
        ["sources"],
        ["sources", "--format", "json"],
        ["config", "check"],
    ):
        out, err = io.StringIO(), io.StringIO()
        main(["--config", str(config), *args], out=out, err=err, env={})
        outputs.append(out.getvalue() + err.getvalue())
    outputs.append(repr(load_config(config, {})))
    outputs.extend(p.read_text() for p in (tmp_path / "snap").rglob("*.json"))
    assert "failed" in outputs[1] or "HTTP 500" in outputs[1]  # the test message reached the failing receiver
    for text in outputs:
        assert "S3CRET" not in text


def test_preview_shows_each_destinations_message_and_sends_nothing(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    from tests.test_cli import run

    receiver.routes["/*"] = Reply(200, b"ok")
    server.page("/post", article("<h2>Fixes</h2><p>One.</p>"))
    config = config_file(
        tmp_path,
        server.url("/post"),
        title='title = "Doc"\n',
        rest=f'[[notify]]\nname = "team"\nkind = "slack"\nurl = "{receiver.url("/hook")}"\nmention = ["<!here>"]\n'
        f'[[notify]]\nname = "security"\nkind = "ntfy"\nurl = "{receiver.base}"\ntopic = "t"\n'
        'sections = ["Security*"]\n'
        f'[[notify]]\nname = "drift"\nkind = "mattermost"\nurl = "{receiver.url("/hooks/k")}"\n'
        'events = ["mirror_drift"]\n',
    )
    assert run("--config", str(config), "check")[0] == 0
    defaults = "changed, mirror_drift, fetch_failing, recovered, delivery_failed"
    assert run("--config", str(config), "notify", "preview", "doc/c") == (
        0,
        "doc/c version 1: a first_version alert, for a destination that asks for it\n"
        f"team (slack): nothing: its events are {defaults}\n"
        f"security (ntfy): nothing: its events are {defaults}\n"
        "drift (mattermost): nothing: its events are mirror_drift\n",
        "",
    )  # a first version has no change: none of these asks for its own alert
    server.page("/post", article("<h2>Fixes</h2><p>One, <b>@here</b>.</p>"))
    assert run("--config", str(config), "check")[0] == 0
    hits = len(receiver.hits)
    code, out, err = run("--config", str(config), "notify", "preview", "doc/c")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "doc/c version 1 → 2: a changed alert"
    assert lines[1] == "team (slack):"
    assert lines[-2:] == [
        "security (ntfy): nothing: no change under its sections (Security*)",
        "drift (mattermost): nothing: its events are mirror_drift",
    ]
    body = json.loads("\n".join(lines[2:-2]))
    assert body["text"].startswith("<!here> Doc changed (c)\nDoc (c), version 1 → 2: 1 change.")
    assert len(receiver.hits) == hits  # nothing sent
    code, out, _ = run("--config", str(config), "notify", "preview", "doc/c", "--name", "drift")
    assert out.splitlines()[1:] == ["drift (mattermost): nothing: its events are mirror_drift"]
    assert run("--config", str(config), "notify", "preview", "doc/c", "--name", "nobody")[2] == (
        'error: no notifier "nobody"; configured notifiers: team, security, drift\n'
    )


def test_a_previous_secret_is_checked_as_the_secret_is(tmp_path: Path) -> None:
    settings = f'url = "https://hooks.example.org/"\nsecret = "{SECRET}"\nprevious_secret = "hunter2"\n'
    assert notifier_error(tmp_path, "webhook", settings) == (
        'notify[0].previous_secret: expected "whsec_" followed by base64 (24 to 64 random bytes)'
    )


def test_preview_of_a_mirrors_drift_alert_as_its_findings_stand(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    from tests.test_cli import run

    server.page("/post", article("<h2>Fixes</h2><p>One fix.</p><h2>Install</h2><p>Run it.</p>"))
    server.page("/copy", article("<h2>Fixes</h2><p>One fix.</p>"))  # the copy dropped a section
    config = config_file(
        tmp_path,
        server.url("/post"),
        title='title = "Doc"\n',
        rest=f'[[documents.mirrors]]\nid = "copy"\nurl = "{server.url("/copy")}"\nrobots = false\n'
        'allow_private = ["127.0.0.1"]\n'
        f'[[notify]]\nname = "translators"\nkind = "ntfy"\nurl = "{receiver.base}"\ntopic = "t"\n',
    )
    assert run("--config", str(config), "check")[0] == 0
    code, out, err = run("--config", str(config), "notify", "preview", "doc/copy", "--drift")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:2] == ["doc/copy: a mirror_drift alert, as its findings stand now", "translators (ntfy):"]
    body = json.loads("\n".join(lines[2:]))
    assert body["title"] == "Mirror copy of Doc: 2 findings"  # its first audit: what it finds, not a change
    assert "• new: missing" in body["message"] and "Install" in body["message"]
    assert receiver.hits == []
    assert run("--config", str(config), "notify", "preview", "doc/c", "--drift")[2] == (
        "error: --drift: doc/c is a canonical page; name a mirror (DOCUMENT/MIRROR)\n"
    )
    record = tmp_path / "snap/sources/doc/copy/versions/000001.json"
    kept = record.read_bytes()
    record.write_text("null")  # one line naming it, where it was an internal error (StopIteration)
    assert run("--config", str(config), "notify", "preview", "doc/copy", "--drift")[::2] == (
        ExitCode.STORE,
        f"error: {record}: damaged version record (not a JSON object); differ verify tells what else is damaged\n",
    )
    record.unlink()
    (record.parent.parent / "head.json").unlink()  # as a mirror not stored yet
    assert run("--config", str(config), "notify", "preview", "doc/copy", "--drift")[::2] == (
        ExitCode.USAGE,
        "error: --drift: doc/copy has no version yet (run: differ check)\n",
    )
    record.write_bytes(kept)
    server.page("/copy", article("<h2>Fixes</h2><p>One fix.</p><h2>Install</h2><p>Run it.</p>"))
    assert run("--config", str(config), "check")[0] == 0
    assert run("--config", str(config), "notify", "preview", "doc/copy", "--drift")[1] == (
        "doc/copy: no finding, so no drift alert\n"
    )


def test_a_drift_alert_links_the_mirrors_audit_on_the_reports_site(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """With reports published (`base_url`), a change's alert links its diff and a mirror's drift alert the
    mirror's audit on its document's page, each link named for what it leads to."""
    from tests.test_cli import run

    server.page("/post", article("<h2>Fixes</h2><p>One fix.</p><h2>Install</h2><p>Run it.</p>"))
    server.page("/copy", article("<h2>Fixes</h2><p>One fix.</p>"))
    base = 'base_url = "https://r.example.org/differ/"\n'
    config = config_file(
        tmp_path,
        server.url("/post"),
        title='title = "Doc"\n',
        rest=f'[[documents.mirrors]]\nid = "copy"\nurl = "{server.url("/copy")}"\nrobots = false\n'
        'allow_private = ["127.0.0.1"]\n'
        + notify_toml(receiver, extra=base)
        + hooks_toml(receiver.url("/hooks")).replace("[[notify]]\n", f"[[notify]]\n{base}", 1),
    )
    assert run("--config", str(config), "check")[0] == 0
    out = run("--config", str(config), "notify", "preview", "doc/copy", "--drift")[1]
    slack, hooks = out.split("\nhooks (webhook):\n")
    link = "https://r.example.org/differ/doc/index.html#mirrors"
    blocks = json.loads(slack.split("\n", 2)[2])["blocks"]
    assert {"type": "mrkdwn", "text": f"<{link}|Mirror audit>", "verbatim": True} in [
        b.get("text") for b in blocks
    ]
    assert json.loads(hooks)["data"]["message"]["link"] == link
    page = (tmp_path / "snap" / "reports" / "doc" / "index.html").read_text()
    assert "<h2 id=mirrors>Mirror fidelity</h2>" in page  # where the link leads


def test_check_asks_discord_zulip_and_ntfy_without_posting(tmp_path: Path, receiver: Server) -> None:
    from differ.app import App
    from differ.notify import probe
    from differ.store import Store
    from tests.conftest import make_config

    def discord(hit: Any) -> Reply:
        if hit.method != "GET":
            return Reply(405, b'{"message": "405: Method Not Allowed", "code": 0}')
        if hit.path != "/api/webhooks/1/T":
            return Reply(401, b'{"message": "Invalid Webhook Token", "code": 50027}')
        return Reply(200, b'{"id": "1", "type": 1, "channel_id": "555", "name": "differ", "guild_id": "9"}')

    zulip_auth = "Basic " + base64.b64encode(b"differ-bot@rust.zulipchat.com:k3y").decode()

    def zulip(hit: Any) -> Reply:
        if hit.headers.get("authorization") != zulip_auth:
            return Reply(401, b'{"result": "error", "msg": "Invalid API key", "code": "INVALID_API_KEY"}')
        if hit.path.startswith("/api/v1/users/me"):
            return Reply(
                200, b'{"result": "success", "full_name": "differ", "email": "differ-bot@rust.zulipchat.com"}'
            )
        if hit.path == "/api/v1/get_stream_id?stream=release":
            return Reply(200, b'{"result": "success", "stream_id": 7}')
        return Reply(400, b'{"result": "error", "msg": "Invalid channel name", "code": "BAD_REQUEST"}')

    def ntfy(hit: Any) -> Reply:
        if hit.path == "/release-edits/auth" and hit.headers.get("authorization") == "Bearer tk_releases":
            return Reply(200, b'{"success": true}')
        return Reply(403, b'{"code": 40301, "http": 403, "error": "forbidden"}')

    receiver.routes["/api/webhooks/*"] = discord
    receiver.routes["/api/v1/*"] = zulip
    receiver.routes["/release-edits/*"] = ntfy
    text = '[[documents]]\nid = "doc"\n[documents.canonical]\nid = "c"\nurl = "https://example.org/"\n'
    base = receiver.base
    for kind, options, said in [
        ("discord", f'url = "{base}/api/webhooks/1/T"\n', (True, 'webhook "differ" posts to channel 555')),
        ("discord", f'url = "{base}/api/webhooks/1/gone"\n', (False, 'HTTP 401 {"message": "Invalid Webhook Token", "code": 50027}')),
        ("zulip", f'url = "{base}"' + ZULIP, (True, "differ can post to #release")),
        ("zulip", f'url = "{base}"' + ZULIP.replace('"release"', '"nope"'), (False, "get_stream_id: Invalid channel name")),
        ("zulip", f'url = "{base}"' + ZULIP.replace("k3y", "bad"), (False, "users/me: Invalid API key")),
        ("ntfy", f'url = "{base}"\ntopic = "release-edits"\ntoken = "tk_releases"\n', (True, f"may publish to release-edits on {base}")),
        ("ntfy", f'url = "{base}"\ntopic = "release-edits"\n', (False, 'HTTP 403 {"code": 40301, "http": 403, "error": "forbidden"}')),
    ]:  # fmt: skip
        config = make_config(tmp_path, text + f'[[notify]]\nname = "n"\nkind = "{kind}"\n{options}')
        [result] = probe(App(config, Store(config.service.snapshots)))
        assert (result.ok, result.detail) == said, kind
    assert all(h.method == "GET" for h in receiver.hits)  # nothing posted


def test_alerts_one_destination_cannot_take_are_told_to_the_others_once_a_run_of_failures(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """Slack refuses for good (404): the webhook hears `delivery_failed` with what was lost, once until Slack
    takes a message again; Slack is never sent its own failure, and a destination can leave the event out."""
    receiver.routes["/services/T/B/X"] = Reply(404, b"channel_not_found")
    receiver.routes["/hooks"] = Reply(200)
    receiver.routes["/quiet"] = Reply(200)
    quiet = (
        f'[[notify]]\nname = "quiet"\nkind = "webhook"\nurl = "{receiver.url("/quiet")}"\nsecret = "{SECRET}"\n'
        'events = ["changed"]\n'
    )
    server.page("/post", article("<p>One.</p>"))
    clock = Clock()
    notify = notify_toml(receiver) + hooks_toml(receiver.url("/hooks")) + quiet
    config = one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=notify)
    app = make_app(config, clock)

    def hooks() -> list[tuple[str, Any]]:
        bodies = [json.loads(h.body) for h in receiver.requests_to("/hooks")]
        return [(b["type"], b["data"].get("lost")) for b in bodies]

    check(app, config.sources())
    for n in ("Two.", "Three."):
        server.page("/post", article(f"<p>{n}</p>"))
        clock.advance(60)
        check(app, config.sources())
    assert hooks() == [
        ("differ.changed", None),
        ("differ.delivery_failed", ["changed of doc/canonical"]),
        ("differ.changed", None),
    ]
    [told] = [json.loads(h.body)["data"] for h in receiver.requests_to("/hooks")][1:2]
    assert (told["notifier"], told["kind"], told["error"]) == ("team", "slack", "HTTP 404 channel_not_found")
    assert [json.loads(h.body)["type"] for h in receiver.requests_to("/quiet")] == ["differ.changed"] * 2
    assert all(b"not getting through" not in h.body for h in receiver.requests_to("/services/T/B/X"))
    for n, answer in (
        ("Four.", slack_receiver),
        ("Five.", Reply(404, b"channel_not_found")),
    ):  # works, then not
        receiver.routes["/services/T/B/X"] = answer
        server.page("/post", article(f"<p>{n}</p>"))
        clock.advance(60)
        check(app, config.sources())
    assert [t for t, _ in hooks()][3:] == ["differ.changed", "differ.changed", "differ.delivery_failed"]


def test_a_failing_webhook_is_told_in_slack_as_block_kit_takes_it(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    receiver.routes["/services/T/B/X"] = slack_receiver
    receiver.routes["/hooks"] = Reply(400, b"bad request")
    server.page("/post", article("<p>One.</p>"))
    clock = Clock()
    config = one_doc(
        tmp_path,
        server.url("/post"),
        extra="robots = false",
        notify=notify_toml(receiver) + hooks_toml(receiver.url("/hooks")),
    )
    app = make_app(config, clock)
    check(app, config.sources())
    server.page("/post", article("<p>Two.</p>"))
    clock.advance(60)
    check(app, config.sources())
    assert slack_titles(receiver) == [
        "Doc changed (canonical)",
        "Alerts to hooks (webhook) are not getting through",
    ]
    text = json.dumps(json.loads(receiver.requests_to("/services/T/B/X")[1].body))
    assert "Last error: HTTP 400 bad request" in text and "Not delivered: changed of doc/canonical" in text
    outbox = Outbox(app.store)
    assert (len(outbox.messages("team", "sent")), outbox.messages("team", "failed")) == (
        2,
        [],
    )  # Block Kit ok


def test_a_delivery_failure_a_process_died_before_telling_is_told_at_the_next_failure(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    receiver.routes["/services/T/B/X"] = Reply(404, b"channel_not_found")
    receiver.routes["/hooks"] = Reply(200)
    server.page("/post", article("<p>One.</p>"))
    clock = Clock()
    notify = notify_toml(receiver) + hooks_toml(receiver.url("/hooks"))
    config = one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=notify)
    check(make_app(config, clock), config.sources())
    enqueue = Outbox.enqueue

    def dies_telling(self: Outbox, notifier: str, msg_id: str, data: dict[str, Any]) -> object:
        if data.get("type") == "delivery_failed":
            raise Died
        return enqueue(self, notifier, msg_id, data)

    server.page("/post", article("<p>Two.</p>"))
    with monkeypatch.context() as patched:
        patched.setattr(Outbox, "enqueue", dies_telling)
        with pytest.raises(Died):
            check(make_app(config, clock), config.sources())
    server.page("/post", article("<p>Three.</p>"))
    clock.advance(60)
    check(make_app(config, clock), config.sources())
    types = [json.loads(h.body)["type"] for h in receiver.requests_to("/hooks")]
    assert types == ["differ.changed", "differ.changed", "differ.delivery_failed"]


def test_a_translation_a_watched_page_starts_to_name_is_told_once(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """`translation_found` (asked for in `events`): the translations a canonical page names with hreflang that
    no mirror watches, each told once, however many checks see it; a new one is told on its own."""
    page = article("<p>Text of the post.</p>")
    ko = f'<link rel="alternate" hreflang="ko" href="{server.url("/ko/post")}">'
    server.page("/post", page.replace("</head>", ko + "</head>"))
    hooks = hooks_toml(receiver.url("/hooks")) + 'events = ["changed", "translation_found"]\n'
    clock = Clock()
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=hooks), clock)
    check(app, app.config.sources())
    clock.advance(3600)
    check(app, app.config.sources())
    told = [json.loads(h.body) for h in receiver.requests_to("/hooks")]
    assert [t["type"] for t in told] == ["differ.translation_found"]  # once, though two checks saw it
    assert told[0]["data"]["translations"] == [{"language": "ko", "url": server.url("/ko/post")}]
    ja = '<link rel="alternate" hreflang="ja" href="/ja/post">'
    server.page("/post", page.replace("</head>", ko + ja + "</head>"))
    clock.advance(3600)
    check(app, app.config.sources())
    told = [json.loads(h.body) for h in receiver.requests_to("/hooks")]
    assert len(told) == 2 and told[1]["data"]["translations"] == [
        {"language": "ja", "url": server.url("/ja/post")}
    ]
    from differ.notify.base import Notifier

    assert Notifier.title(told[1]["data"] | {"type": "translation_found"}) == (
        "Doc names 1 translation differ does not watch"
    )
    many = {"type": "translation_found", "document": "doc"}
    many["translations"] = [{"language": f"l{n}", "url": f"https://example.org/{n}"} for n in range(25)]
    assert Notifier.lines(many)[9:] == [
        "l9: https://example.org/9",
        "…and 15 more (differ sources lists them)",
        "differ add URL --to doc audits one as a mirror of it.",
    ]


def test_a_page_that_moves_for_good_is_told_once_an_address(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """`moved` (asked for in `events`): a page whose every redirect is permanent is told once where it now lives,
    however many checks follow the redirect; a destination that does not ask is not told; with its url
    updated nothing more is told, and a later move is told again."""
    server.page("/2026/post/", article("<p>Text of the post.</p>"))
    server.routes["/post"] = Reply(301, headers={"Location": "/2026/post/"})
    receiver.routes["/hooks"] = receiver.routes["/others"] = Reply(200, b"ok")
    hooks = hooks_toml(receiver.url("/hooks")) + 'events = ["changed", "moved"]\n'
    others = (
        hooks.replace('name = "hooks"', 'name = "others"').replace("/hooks", "/others").split("events")[0]
    )
    clock = Clock()
    app = make_app(
        one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=hooks + others), clock
    )
    for _ in range(2):
        check(app, app.config.sources())
        clock.advance(3600)
    told = [json.loads(h.body) for h in receiver.requests_to("/hooks")]
    assert [(t["type"], t["data"]["moved"]) for t in told] == [("differ.moved", server.url("/2026/post/"))]
    assert [json.loads(h.body)["type"] for h in receiver.requests_to("/others")] == []  # not asked for
    from differ.notify.base import Notifier

    assert (
        Notifier.title(told[0]["data"] | {"type": "moved"})
        == f"Doc (canonical) moved to {server.url('/2026/post/')}"
    )
    app = make_app(one_doc(tmp_path, server.url("/2026/post/"), extra="robots = false", notify=hooks), clock)
    check(app, app.config.sources())  # its url updated: nothing to tell
    server.routes["/2026/post/"] = Reply(308, headers={"Location": "/2027/post/"})
    server.page("/2027/post/", article("<p>Text of the post.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())
    told = [json.loads(h.body)["data"]["moved"] for h in receiver.requests_to("/hooks")]
    assert told == [server.url("/2026/post/"), server.url("/2027/post/")]


_EVERY_KIND = {
    "slack": 'url = "https://hooks.slack.com/services/T/B/X"\n',
    "teams": 'url = "https://example.webhook.office.com/webhookb2/x"\n',
    "googlechat": 'url = "https://chat.googleapis.com/v1/spaces/S/messages?key=k&token=t"\n',
    "zulip": 'url = "https://rust.zulipchat.com"\nemail = "b-bot@rust.zulipchat.com"\napi_key = "k"\nchannel = "s"\n',
    "matrix": 'url = "https://matrix.example.org"\nroom = "!r:example.org"\naccess_token = "t"\n',
    "mattermost": 'url = "https://chat.example.org/hooks/k"\n',
    "telegram": 'bot_token = "123:abc"\nchat = "-1001234567890"\n',
    "discord": 'url = "https://discord.com/api/webhooks/1/x"\n',
    "ntfy": 'topic = "t"\n',
    "email": 'host = "smtp.example.org"\nfrom = "a@example.org"\nto = ["b@example.org"]\n',
    "webhook": f'url = "https://example.org/hook"\nsecret = "{SECRET}"\n',
    "github": 'repo = "o/r"\ntoken = "t"\n',
    "gitlab": 'project = "kr/blog"\ntoken = "t"\n',
    "gitea": 'url = "https://codeberg.org"\nrepo = "kr/blog"\ntoken = "t"\n',
}


@pytest.mark.parametrize("kind", sorted(_EVERY_KIND))
def test_every_notifier_writes_a_translation_found_alert(tmp_path: Path, kind: str) -> None:
    """The newest kind of event reads in every destination: its title and each translation's address."""
    from differ.notify import NOTIFIERS
    from tests.helpers import notifier_config

    assert set(_EVERY_KIND) == {name for name, n in NOTIFIERS.items() if "translation_found" in n.takes}
    config = notifier_config(tmp_path, kind, _EVERY_KIND[kind] + 'events = ["translation_found"]\n')
    event = {
        "type": "translation_found",
        "source": "doc/canonical",
        "document": "doc",
        "title": "Release 3.0",
        "translations": [{"language": "ko", "url": "https://example.org/ko/release-3-0"}],
    }
    body = json.dumps(NOTIFIERS[kind](config).payload(event).body, ensure_ascii=False).replace("\\", "")
    if kind == "webhook":  # the event as it is, for the receiver's own code
        assert '"type": "differ.translation_found"' in body and '"language": "ko"' in body
    else:  # escaped as each destination's markup asks
        assert "Release 3.0 names 1 translation differ does not watch" in body
    assert "https://example.org/ko/release-3-0" in body


@pytest.mark.parametrize("kind", sorted(_EVERY_KIND))
def test_every_notifier_writes_a_moved_alert(tmp_path: Path, kind: str) -> None:
    """A page moved for good reads in every destination: which source, and where it now lives."""
    from differ.notify import NOTIFIERS
    from tests.helpers import notifier_config

    config = notifier_config(tmp_path, kind, _EVERY_KIND[kind] + 'events = ["moved"]\n')
    event = {
        "type": "moved",
        "source": "doc/canonical",
        "title": "Release 3.0",
        "url": "https://example.org/release-3-0",
        "moved": "https://example.org/2026/release-3-0",
    }
    body = json.dumps(NOTIFIERS[kind](config).payload(event).body, ensure_ascii=False).replace("\\", "")
    if kind == "webhook":
        assert '"type": "differ.moved"' in body and '"moved": "https://example.org/2026/release-3-0"' in body
    else:
        assert "Release 3.0 (canonical) moved to https://example.org/2026/release-3-0" in body
        assert "differ set doc/canonical url=https://example.org/2026/release-3-0" in body  # what to do


@pytest.mark.parametrize("kind", sorted(_EVERY_KIND))
def test_every_notifier_writes_a_first_version_alert(tmp_path: Path, kind: str) -> None:
    """A page's first version, for a destination that asks: which page, and that its edits are compared
    with it from now on."""
    from differ.notify import NOTIFIERS
    from tests.helpers import notifier_config

    config = notifier_config(tmp_path, kind, _EVERY_KIND[kind] + 'events = ["first_version"]\n')
    event = {
        "type": "first_version",
        "source": "doc/canonical",
        "title": "Release 3.0",
        "url": "https://example.org/release-3-0",
        "version": {"version": 1, "fetched_at": "2026-07-08T17:45:00Z", "hash": "ab" * 32},
        "words": 812,
    }
    body = json.dumps(NOTIFIERS[kind](config).payload(event).body, ensure_ascii=False).replace("\\", "")
    if kind == "webhook":
        assert '"type": "differ.first_version"' in body and '"words": 812' in body
    else:
        assert "Release 3.0 (canonical) is watched: first version stored" in body
        assert "https://example.org/release-3-0: version 1, 812 words, fetched 2026-07-08T17:45:00Z." in body


def _aged(folder: Path, moment: datetime) -> None:
    """Date every file in `folder` at `moment` (as if written then)."""
    for path in folder.iterdir() if folder.is_dir() else ():
        os.utime(path, (moment.timestamp(), moment.timestamp()))


def test_sent_alerts_are_pruned_after_keep_sent_and_never_sent_again(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """A delivered alert's file is deleted once it is older than `keep_sent` (looked for after a delivery, at
    most once a day); its id is kept, so the same event handed over again (a state read again from nothing
    owes every version) is not sent a second time."""
    receiver.routes["/services/T/B/X"] = slack_receiver
    app, clock = setup(tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>")
    check(app, app.config.sources())  # type: ignore[attr-defined]
    outbox = Outbox(app.store)  # type: ignore[attr-defined]
    sent = outbox.folder("team", "sent")
    [first] = [p.name for p in sent.iterdir()]
    _aged(sent, clock.now - timedelta(days=91))
    clock.advance(86400)  # a day after the delivery that looked for old ones first
    server.page("/post", article("<p>Three.</p>"))
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [second] = [p.name for p in sent.iterdir()]
    assert second != first and outbox.pruned("team") == {first[11:-5]}
    assert not (outbox.root / "team" / "ids" / first[11:-5]).exists()
    state = app.store.source_dir("doc/canonical") / "state.json"  # type: ignore[attr-defined]
    state.unlink()  # read again from nothing: versions 2 and 3 are owed again
    _aged(sent, clock.now - timedelta(days=91))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert len(receiver.requests_to("/services/T/B/X")) == 2  # neither edit told twice
    assert [p.name for p in sent.iterdir()] == [second]  # pruned at most once a day
    clock.advance(86400)
    server.page("/post", article("<p>Four.</p>"))
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert len(receiver.requests_to("/services/T/B/X")) == 3
    assert outbox.pruned("team") == {first[11:-5], second[11:-5]}


def test_keep_sent_zero_keeps_every_sent_alert(tmp_path: Path, server: Server, receiver: Server) -> None:
    receiver.routes["/services/T/B/X"] = slack_receiver
    server.page("/post", article("<p>One.</p>"))
    clock = Clock()
    config = one_doc(
        tmp_path,
        server.url("/post"),
        extra="robots = false",
        notify=notify_toml(receiver),
        service='keep_sent = "0s"\n',
    )
    app = make_app(config, clock)
    sent = Outbox(app.store).folder("team", "sent")
    for n in range(3):
        server.page("/post", article(f"<p>Words {n}.</p>"))
        check(app, app.config.sources())
        _aged(sent, clock.now - timedelta(days=400))
        clock.advance(2 * 86400)
    assert len(list(sent.iterdir())) == 2 and Outbox(app.store).pruned("team") == frozenset()


def test_digested_events_are_pruned_and_a_streak_handed_over_again_is_not_sent_again(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """An event in a digest is kept in `digested/` so that the next checks of a failing streak do not put it in
    another; pruned after `keep_sent`, its id keeps it out still."""
    receiver.routes["/services/T/B/X"] = slack_receiver
    app, clock = setup(
        tmp_path, server, receiver, "<p>One.</p>", "<p>Two.</p>", extra='digest = "1h"\nfail_after = 1\n'
    )
    server.routes["/post"] = Reply(503)
    outbox = Outbox(app.store)  # type: ignore[attr-defined]
    check(app, app.config.sources())  # type: ignore[attr-defined]
    clock.advance(3601)
    dispatch(app, [])  # type: ignore[arg-type]
    digested = outbox.folder("team", "digested")
    [event] = [p.stem for p in digested.iterdir()]
    for state in ("digested", "sent"):
        _aged(outbox.folder("team", state), clock.now - timedelta(days=91))
    clock.advance(86400)  # a day after the delivery that looked for old ones first
    assert outbox.prune("team", 90 * 86400, clock.now) == 2
    assert outbox.prune("team", 90 * 86400, clock.now) == 0  # looked for once a day
    assert event in outbox.pruned("team") and list(digested.iterdir()) == []
    for n in range(3):  # the streak goes on, each check handing its alert over again; then the page is back
        if n == 2:
            server.page("/post", article("<p>One.</p>"))
        clock.advance(3601)
        check(app, app.config.sources())  # type: ignore[attr-defined]
        clock.advance(3601)
        dispatch(app, [])  # type: ignore[arg-type]
    lines = [json.loads(h.body)["text"].split("\n")[1:] for h in receiver.requests_to("/services/T/B/X")]
    assert lines == [
        ["• Doc (canonical) is failing (1 check in a row)"],
        ["• Doc (canonical) recovered after 3 failed checks"],
    ]


def test_a_process_killed_while_pruning_leaves_each_event_queued_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ids go to `pruned`, made durable, before any file is deleted: a process that dies at any point of
    the deletions leaves every pruned event known, and the next prune finishes the job."""
    from differ.store import Store

    outbox = Outbox(Store(tmp_path / "snap"))
    ids = [f"msg_{n:032x}" for n in range(4)]
    for msg_id in ids:
        outbox.move(outbox.enqueue("team", msg_id, dict(MESSAGE)), "sent")  # type: ignore[arg-type]
    now = datetime(2026, 12, 1, tzinfo=UTC)
    _aged(outbox.folder("team", "sent"), now - timedelta(days=100))
    deleted: list[str] = []
    real = os.unlink

    def dies_at_the_third(path: str | os.PathLike[str]) -> None:
        if len(deleted) == 2:
            raise Died
        deleted.append(str(path))
        real(path)

    with monkeypatch.context() as patched:
        patched.setattr("differ.notify.outbox.os.unlink", dies_at_the_third)
        with pytest.raises(Died):
            outbox.prune("team", 90 * 86400, now)
    assert len(deleted) == 2 and outbox.pruned("team") == set(ids)
    assert [outbox.enqueue("team", msg_id, dict(MESSAGE)) for msg_id in ids] == [None] * 4
    assert outbox.prune("team", 90 * 86400, now) == 3  # the dead one never wrote when it looked
    assert list(outbox.folder("team", "sent").iterdir()) == []
    assert [outbox.enqueue("team", msg_id, dict(MESSAGE)) for msg_id in ids] == [None] * 4
    with open(outbox.root / "team" / "pruned", "ab") as cut:
        cut.write(b"msg_0123")  # a line a process killed before its fsync left unfinished
    later = f"msg_{9:032x}"
    outbox.move(outbox.enqueue("team", later, dict(MESSAGE)), "sent")  # type: ignore[arg-type]
    _aged(outbox.folder("team", "sent"), now - timedelta(days=100))
    assert outbox.prune("team", 90 * 86400, now + timedelta(days=1)) == 1
    assert outbox.pruned("team") == {*ids, later} and outbox.enqueue("team", later, dict(MESSAGE)) is None


def test_verify_names_a_list_of_pruned_ids_that_does_not_read(tmp_path: Path) -> None:
    from differ.store import Store

    store = Store(tmp_path / "snap")
    outbox = Outbox(store)
    outbox.move(outbox.enqueue("team", f"msg_{1:032x}", dict(MESSAGE)), "sent")  # type: ignore[arg-type]
    assert store.verify().problems == []
    (outbox.root / "team" / "pruned").mkdir()
    assert store.verify().problems == [
        "outbox/team/pruned: cannot be read (Is a directory); alerts pruned after keep_sent could be sent again"
    ]


def test_a_fault_in_sending_one_message_fails_it_for_good_and_tells_the_others(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception of differ's own while sending (not the receiver's answer) ended every destination's
    deliveries, check after check. Now the message is kept in failed/ with the fault (not retried: it may have
    been posted before the fault), the others hear `delivery_failed`, and `differ outbox retry` sends it once
    the fault is gone."""
    import argparse

    from differ.commands import cmd_outbox
    from differ.notify.slack import Slack

    receiver.routes["/services/T/B/X"] = slack_receiver
    receiver.routes["/hooks"] = Reply(200)
    server.page("/post", article("<p>One.</p>"))
    clock = Clock()
    notify = notify_toml(receiver) + hooks_toml(receiver.url("/hooks"))
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=notify), clock)
    check(app, app.config.sources())
    send = Slack.send

    def faulty(self: Slack, msg: Any, now: datetime) -> str | None:
        raise AttributeError("'NoneType' object has no attribute 'get'")

    monkeypatch.setattr(Slack, "send", faulty)
    server.page("/post", article("<p>Two.</p>"))
    clock.advance(60)
    check(app, app.config.sources())
    [failed] = Outbox(app.store).messages("team", "failed")
    assert (
        failed.data["last_error"]
        == "internal error: AttributeError: 'NoneType' object has no attribute 'get'"
    )
    bodies = [json.loads(h.body) for h in receiver.requests_to("/hooks")]
    assert [(b["type"], b["data"].get("lost")) for b in bodies] == [
        ("differ.changed", None),
        ("differ.delivery_failed", ["changed of doc/canonical"]),
    ]
    monkeypatch.setattr(Slack, "send", send)
    assert cmd_outbox(app, argparse.Namespace(outbox_command="retry", id=failed.id)) == ExitCode.OK
    assert [
        json.loads(h.body)["blocks"][0]["text"]["text"] for h in receiver.requests_to("/services/T/B/X")
    ] == ["Doc changed (canonical)"]


def test_a_fault_in_pruning_one_destination_leaves_the_next_delivering(
    tmp_path: Path, server: Server, receiver: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    receiver.routes["/services/T/B/X"] = slack_receiver
    receiver.routes["/hooks"] = Reply(200)
    server.page("/post", article("<p>One.</p>"))
    clock = Clock()
    notify = notify_toml(receiver) + hooks_toml(receiver.url("/hooks"))
    app = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=notify), clock)
    check(app, app.config.sources())
    prune = Outbox.prune

    def faulty(self: Outbox, notifier: str, keep: float, now: datetime) -> int:
        if notifier == "team":
            raise PermissionError(13, "Permission denied", str(self.folder(notifier, "sent")))
        return prune(self, notifier, keep, now)

    monkeypatch.setattr(Outbox, "prune", faulty)
    server.page("/post", article("<p>Two.</p>"))
    clock.advance(60)
    check(app, app.config.sources())
    sent = Outbox(app.store).folder("team", "sent")
    assert app.err.getvalue() == f"differ: team: old alerts not pruned: {sent}: Permission denied\n"  # type: ignore[attr-defined]
    assert len(receiver.requests_to("/services/T/B/X")) == len(receiver.requests_to("/hooks")) == 1
