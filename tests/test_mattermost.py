"""The Mattermost notifier against a local receiver that answers as an incoming webhook does and finds mentions
the way Mattermost's server does: Markdown escapes resolved, then words split at every character that is not a
letter, a digit or one of `@ . - _ :`."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from differ.check import check
from differ.notify import Outbox
from tests.conftest import Hit, Reply, Server
from tests.helpers import notifier_config, notifier_error
from tests.test_notify import setup

HOOK = "/hooks/xgp1w3bsn7ydtqh8ssyaf5nrfa"
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark: a backslash before ASCII punctuation


def shown(text: str) -> str:
    """The text of a post as a reader sees it: escapes resolved, the invisible word joiner gone."""
    return _ESCAPED.sub(r"\1", text).replace("\u2060", "")


def mentions(text: str) -> set[str]:
    """The words Mattermost reads as mentions: `@` followed by a name, in the text its Markdown parser yields."""
    words = re.split(r"[^\w@.\-:]", _ESCAPED.sub(r"\1", text))
    found = set()
    for word in words:
        word = word.lstrip(":.-_").rstrip(".-:_")
        if (
            word.startswith("@")
            and len(word) > 1
            and all(c in "@.-_:" or unicodedata.category(c)[0] in "LN" for c in word)
        ):
            found.add(word.lower())
    return found


def receiver_of(posts: list[dict[str, object]]):  # type: ignore[no-untyped-def]
    def answer(hit: Hit) -> Reply:
        try:
            body = json.loads(hit.body)
        except ValueError:
            return Reply(400, b'{"id": "web.incoming_webhook.parse.app_error"}')
        if not isinstance(body.get("text"), str) or len(body["text"]) > 16_383:
            return Reply(400, b'{"id": "web.incoming_webhook.text.app_error"}')
        posts.append({**body, "mentions": mentions(body["text"])})
        return Reply(200, b"ok", headers={"Content-Type": "text/plain"})

    return answer


def test_a_change_is_one_post_whose_page_text_mentions_no_one(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    posts: list[dict[str, object]] = []
    receiver.routes[HOOK] = receiver_of(posts)
    evil = (
        "<p>Ping @channel, @all and @here: @jane.doe see [the fix](https://evil.example/) **now** #tag "
        "~town-square, mail jane@example.org.</p>"
    )
    extra = 'base_url = "https://reports.example.org/"\nmention = ["@release-team"]\nchannel = "releases"\n'
    app, _ = setup(
        tmp_path, server, receiver, "<p>Hello.</p>", evil, kind="mattermost", path=HOOK, extra=extra
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [post] = posts
    assert post["mentions"] == {"@release-team"}
    assert post["channel"] == "releases" and "username" not in post
    text = str(post["text"])
    assert [shown(line) for line in text.splitlines()] == [
        "**Doc changed (canonical)** @release-team",
        "Doc (canonical), version 1 → 2: 1 change.",
        '• "Hello."',
        '  → "Ping @channel, @all and @here: @jane.doe see [the fix](https://evil.example/) **now** #tag ~town-square, mail '
        'jane@example.org."',
        "[Full diff](https://reports.example.org/doc/canonical/diff-2.html)",
        "_doc/canonical · version 1 → 2 · 2026-07-08T18:45:00Z_",
    ]
    assert "\\[the fix\\]" in text and "\\#tag" in text and "\\~town\\-square" in text
    sent = Outbox(app.store).messages("team", "sent")  # type: ignore[attr-defined]
    assert [m.data["attempts"] for m in sent] == [1]


def test_a_long_summary_is_cut_to_one_post(tmp_path: Path) -> None:
    from differ.notify.mattermost import Mattermost

    config = notifier_config(tmp_path, "mattermost", 'url = "https://chat.example.org/hooks/k"\n')
    lines = ["Doc, version 1 → 2: 900 changes."] + [f'• Section {i}: added "{"*_" * 30}"' for i in range(900)]
    body = Mattermost(config).payload({"type": "changed", "source": "d/c", "diff": {"summary": lines}}).body
    assert len(body["text"]) <= 16_383
    kept = sum(line.startswith("• Section") for line in body["text"].splitlines())
    assert body["text"].splitlines()[-2] == f"…and {900 - kept} more changes" and 0 < kept < 900


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ('url = "chat.example.org/hooks/k"\n', "notify[0].url: expected the webhook's https:// URL"),
        ('url = "https://chat.example.org/api/v4/posts"\n', "notify[0].url: expected the webhook's URL, https://HOST/hooks/KEY"),
        ('url = "https://chat.example.org/hooks/k"\nmention = ["channel"]\n', 'notify[0].mention: expected Mattermost mentions such as "@jane", "@release-team" or "@channel", found "channel"'),
    ],
)  # fmt: skip
def test_mattermost_settings_are_checked(tmp_path: Path, options: str, message: str) -> None:
    assert notifier_error(tmp_path, "mattermost", options) == message


def test_the_receivers_mention_finder_finds_what_escaping_hides() -> None:
    """The finder reads mentions in plain text (so the test above can fail); escaped, the same text has none."""
    from differ.notify.mattermost import escape

    text = "Ping @channel, (@all) and @here: @jane.doe, jane@example.org, `@x`"
    assert mentions(text) == {"@channel", "@all", "@here", "@jane.doe", "@x"}
    assert mentions(escape(text)) == set()
    assert shown(escape(text)) == text


MENTIONY = st.text(
    alphabet=st.sampled_from(list("@channel here all jane.doe_-:\\*`[]()#~|>!{}+.,\n é한")), max_size=60
)


@settings(max_examples=300, deadline=None)
@given(MENTIONY)
def test_any_page_text_shows_as_written_and_mentions_no_one(text: str) -> None:
    from differ.notify.mattermost import escape

    assert shown(escape(text)) == text
    assert mentions(escape(text)) == set()
