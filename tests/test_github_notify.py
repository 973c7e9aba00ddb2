"""The `github` notifier against a local stand-in for GitHub's REST API (issues and their comments, as the
documented endpoints answer): an issue a document, comments for its next alerts, a new issue once it is closed,
page text that can mention and reference nothing, and an attempt whose answer was lost never posted twice."""

from __future__ import annotations

import argparse
import io
import json
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from differ.app import parse_iso
from differ.check import check
from differ.errors import ConfigError, NotifyError
from differ.notify import NOTIFIERS, Outbox, deliver
from differ.notify.github import GitHub
from differ.notify.issues import fenced
from tests.conftest import Clock, Hit, Reply, Server, article, make_app, make_config, one_doc
from tests.helpers import Tracker
from tests.test_notify import edited_once, three_alerts

REPO = "/api/v3/repos/o/r"


class Issues(Tracker):
    """GitHub's issues of one repository, as its REST API keeps and answers them."""

    def __init__(self, server: Server) -> None:
        super().__init__()
        self.server = server
        self.issues: dict[int, dict[str, Any]] = {}
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.refusal: Reply | None = None  # the answer to every post, instead of making anything
        self.repo: dict[str, Any] = {"full_name": "o/r", "has_issues": True, "permissions": {"pull": True}}
        self.stamp = self.now  # the time GitHub gives what is made: its own clock
        server.routes[REPO] = self.answer
        server.routes[REPO + "/*"] = self.answer

    def answer(self, hit: Hit) -> Reply:
        if hit.headers.get("authorization") != "Bearer T0KEN":
            return self.json(401, {"message": "Bad credentials"})
        parts = urlsplit(hit.path)
        path = parts.path.removeprefix(REPO).strip("/").split("/")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if path == [""]:
            return self.json(200, self.repo)
        if hit.method == "POST" and self.refusal is not None:
            return self.refusal
        if path == ["issues"] and hit.method == "POST":
            body = json.loads(hit.body)
            if not body.get("title"):
                return self.json(422, {"message": "Validation Failed"})
            number = len(self.issues) + 1
            self.issues[number] = {
                "number": number,
                "title": body["title"],
                "body": body["body"],
                "labels": [{"name": name} for name in body.get("labels", [])],
                "state": "open",
                "html_url": f"https://github.com/o/r/issues/{number}",
                "created_at": self.stamp(),
            }
            self.comments[number] = []
            return self.made(self.issues[number])
        if path == ["issues"]:
            assert query["state"] == "all" and query["since"]
            since = query["since"]  # as GitHub filters: updated at or after it (never updated here: made)
            made = [i for i in self.issues.values() if i.get("created_at", since) >= since]
            newest = sorted(made, key=lambda i: -int(i["number"]))
            return self.paged(self.server.base, hit.path, newest, size="per_page", default=30)
        number = int(path[1])
        if number not in self.issues:
            return self.json(404, {"message": "Not Found"})
        if path[2:] == [] and hit.method == "GET":
            return self.json(200, self.issues[number])
        if path[2:] == [] and hit.method == "PATCH":
            self.issues[number].update(json.loads(hit.body))
            return self.json(200, self.issues[number])
        if path[2:] == ["comments"] and hit.method == "POST":
            comments = self.comments[number]
            comment = {
                "id": 100 + len(comments),
                "body": json.loads(hit.body)["body"],
                "html_url": f"https://github.com/o/r/issues/{number}#issuecomment-{100 + len(comments)}",
                "created_at": self.now(),
            }
            comments.append(comment)
            return self.made(comment)
        if path[2:] == ["comments"]:
            assert query["since"]
            return self.paged(self.server.base, hit.path, self.comments[number], size="per_page", default=30)
        return self.json(404, {"message": "Not Found"})


def extra(receiver: Server, more: str = "") -> str:
    return f'repo = "o/r"\ntoken = "T0KEN"\napi = "{receiver.url("/api/v3")}"\n{more}'


def edited(tmp_path: Path, server: Server, receiver: Server) -> tuple[Any, Any]:
    """A page watched with the `github` notifier, edited once and checked: its first alert sent."""
    return edited_once(tmp_path, server, receiver, "github", extra(receiver))


def test_a_document_gets_an_issue_and_its_next_alerts_comment_on_it(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    issues = Issues(receiver)
    more = 'labels = ["translation"]\nmention = ["@o/translators"]\nfail_after = 1\n'
    later = three_alerts(tmp_path, server, receiver, "github", None, extra(receiver, more))
    [issue] = issues.issues.values()
    assert issue["title"] == "Doc changed (canonical)"
    assert issue["labels"] == [{"name": "translation"}]
    [sent] = [
        m
        for m in Outbox(later.store).messages("team", "sent")
        if "1 → 2" in json.dumps(m.data, ensure_ascii=False)
    ]  # type: ignore[attr-defined]
    assert issue["body"] == (
        "**Doc changed \\(canonical\\)** @o/translators\n\n"
        "```text\nDoc (canonical), version 1 → 2: 1 change.\n"
        '• "One."\n  → "Two."\n```\n\n'
        "_doc/canonical · version 1 → 2 · 2026\\-07\\-08T18:45:00Z_\n\n"
        f"<!-- differ:{sent.id} -->"
    )
    assert [c["body"].split("\n")[0] for c in issues.comments[1]] == [
        "**Doc changed \\(canonical\\)** @o/translators",
        "**Doc \\(canonical\\) is failing \\(1 check in a row\\)** @o/translators",
    ]
    assert Outbox(later.store).threads("team") == {"doc": "1"}  # type: ignore[attr-defined]
    assert sent.data["note"] == "https://github.com/o/r/issues/1"


def test_page_text_can_neither_format_nor_mention_nor_reference() -> None:
    assert GitHub.inert("Thanks @octocat for #123 and *this*") == (
        "Thanks @\u2060octocat for \\#\u2060123 and \\*this\\*"
    )
    assert fenced(['• Post: added "```sh pip install```"', "plain"]) == (
        '````text\n• Post: added "```sh pip install```"\nplain\n````'
    )


def test_an_answer_lost_is_found_and_not_posted_twice(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    issues = Issues(receiver)
    issues.lose_next = True
    app, clock = edited(tmp_path, server, receiver)
    assert len(issues.issues) == 1  # made, though its answer was lost
    [pending] = Outbox(app.store).messages("team")  # type: ignore[attr-defined]
    assert pending.data["last_error"] == "HTTP 502 upstream timed out"
    clock.advance(3600)
    [attempt] = deliver(app)  # type: ignore[arg-type]
    assert attempt.ok and len(issues.issues) == 1
    [sent] = Outbox(app.store).messages("team", "sent")  # type: ignore[attr-defined]
    assert sent.data["note"] == "posted already, by an earlier attempt: https://github.com/o/r/issues/1"
    assert Outbox(app.store).threads("team") == {"doc": "1"}  # type: ignore[attr-defined]
    issues.lose_next = True  # and a comment's
    server.page("/post", article("<p>Three.</p>"))
    check(app, app.config.sources())  # type: ignore[attr-defined]
    clock.advance(3600)
    deliver(app)
    assert len(issues.comments[1]) == 1
    notes = [m.data["note"] for m in Outbox(app.store).messages("team", "sent")]
    assert notes == [
        "posted already, by an earlier attempt: https://github.com/o/r/issues/1",
        "posted already, by an earlier attempt: https://github.com/o/r/issues/1#issuecomment-100",
    ]


def test_an_answer_lost_is_found_among_many_issues_opened_since(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    issues = Issues(receiver)
    issues.lose_next = True
    app, clock = edited(tmp_path, server, receiver)
    for number in range(2, 152):  # a busy repository: 150 issues opened by others before the retry
        issues.issues[number] = {"number": number, "body": "", "state": "open", "created_at": issues.now()}
    clock.advance(3600)
    issues.pages_asked = 0
    [attempt] = deliver(app)  # type: ignore[arg-type]
    assert attempt.ok and len(issues.issues) == 151  # none opened again
    [sent] = Outbox(app.store).messages("team", "sent")  # type: ignore[attr-defined]
    assert sent.data["note"] == "posted already, by an earlier attempt: https://github.com/o/r/issues/1"
    assert issues.pages_asked == 2  # the second page of 100


def test_a_lost_answer_is_found_though_githubs_clock_is_behind(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """GitHub lists issues updated since a time by its own clock: an attempt made the moment its alert was queued,
    on a GitHub whose clock is 30 seconds behind, was made "before" the alert and was not listed, so it was
    opened again. The lookup reaches an hour back."""
    issues = Issues(receiver)
    issues.stamp = lambda: "2026-07-08T18:44:30Z"  # the alert was queued at 18:45:00 by differ's clock
    issues.lose_next = True
    app, clock = edited(tmp_path, server, receiver)
    [pending] = Outbox(app.store).messages("team")  # type: ignore[attr-defined]
    assert pending.data["created"] == "2026-07-08T18:45:00Z" and len(issues.issues) == 1
    clock.advance(3600)
    [attempt] = deliver(app)  # type: ignore[arg-type]
    assert attempt.ok and len(issues.issues) == 1
    [sent] = Outbox(app.store).messages("team", "sent")  # type: ignore[attr-defined]
    assert sent.data["note"] == "posted already, by an earlier attempt: https://github.com/o/r/issues/1"
    listed = [h for h in receiver.hits if h.method == "GET" and "/issues?" in h.path]  # before each attempt
    assert [parse_qs(urlsplit(h.path).query)["since"] for h in listed] == [["2026-07-08T17:45:00Z"]] * 2


def test_a_next_page_elsewhere_is_not_asked_for(tmp_path: Path, server: Server, receiver: Server) -> None:
    issues = Issues(receiver)
    issues.lose_next = True
    app, clock = edited(tmp_path, server, receiver)
    answer = issues.answer

    def leading_away(hit: Hit) -> Reply:
        reply = answer(hit)
        if "link" in {k.lower() for k in reply.headers}:
            reply.headers["Link"] = f'<{server.url("/api/v3/repos/o/r/issues?page=2")}>; rel="next"'
        return reply

    receiver.routes[REPO + "/*"] = leading_away
    for number in range(2, 152):
        issues.issues[number] = {"number": number, "body": "", "state": "open", "created_at": issues.now()}
    clock.advance(3600)
    deliver(app)
    assert not [h for h in server.hits if h.path.startswith("/api")]  # the token went nowhere else
    assert len(issues.issues) == 152  # the one page it could read did not hold the first attempt


def test_a_closed_issue_is_followed_by_a_new_one(tmp_path: Path, server: Server, receiver: Server) -> None:
    issues = Issues(receiver)
    app, clock = edited(tmp_path, server, receiver)
    issues.issues[1]["state"] = "closed"  # the translators carried the edit over
    server.page("/post", article("<p>Three.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert sorted(issues.issues) == [1, 2] and issues.comments[1] == []
    assert Outbox(app.store).threads("team") == {"doc": "2"}  # type: ignore[attr-defined]


def test_probe_says_whether_the_token_may_open_issues(tmp_path: Path, receiver: Server) -> None:
    issues = Issues(receiver)

    def notifier(token: str = "T0KEN") -> Any:
        config = make_config(
            tmp_path,
            '[[notify]]\nname = "team"\nkind = "github"\n' + extra(receiver).replace("T0KEN", token),
        )
        return NOTIFIERS["github"](config.notifiers[0])

    assert notifier().probe() == "o/r takes issues"
    with pytest.raises(NotifyError, match=r"^o/r: HTTP 401 Bad credentials$"):
        notifier("wrong").probe()
    issues.repo["has_issues"] = False
    with pytest.raises(NotifyError, match="^o/r has issues turned off$"):
        notifier().probe()


@pytest.mark.parametrize(
    ("more", "said"),
    [
        ('repo = "o"\n', 'notify[0].repo: expected a repository as OWNER/REPO, found "o"'),
        ('repo = "o/r"\nmention = ["jane"]\n', 'expected GitHub mentions such as "@jane"'),
    ],
)
def test_settings_that_cannot_work_are_refused_in_one_line(tmp_path: Path, more: str, said: str) -> None:
    with pytest.raises(ConfigError) as info:
        make_config(tmp_path, f'[[notify]]\nname = "team"\nkind = "github"\ntoken = "T"\n{more}')
    assert said in str(info.value) and "\n" not in str(info.value)


def test_a_rate_limit_is_waited_out_and_a_refusal_is_not(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """GitHub says "rate limit" with a 403: the alert waits until the limit resets; another 403 is a refusal."""
    issues = Issues(receiver)
    clock = Clock()
    answered = clock() + timedelta(seconds=3600)  # when the check below asks
    receiver.clock = lambda: answered  # GitHub's answer dated by its clock, as ours
    reset = int(clock().timestamp()) + 3600 + 600  # ten minutes after the check below
    issues.refusal = Reply(
        403,
        b'{"message": "API rate limit exceeded"}',
        headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)},
    )
    app, clock = edited(tmp_path, server, receiver)
    [pending] = Outbox(app.store).messages("team")
    assert pending.data["last_error"] == 'HTTP 403 {"message": "API rate limit exceeded"}'
    assert parse_iso(pending.data["next_attempt"]).timestamp() == reset
    issues.refusal = Reply(403, b'{"message": "Resource not accessible by personal access token"}')
    clock.advance(600)
    deliver(app)
    [failed] = Outbox(app.store).messages("team", "failed")
    assert failed.data["last_error"].endswith('Resource not accessible by personal access token"}')


def test_the_issue_closes_when_the_copy_catches_up(tmp_path: Path, server: Server, receiver: Server) -> None:
    """`close_when_caught_up`: the canonical's edit opens the issue, the copy falling behind is a comment, and its
    catching up a last comment, then the issue closed; the next edit opens a new issue."""
    issues = Issues(receiver)
    one = article(
        "<p>Version one of the announcement text, long enough to align.</p><p>Second paragraph.</p>"
    )
    server.page("/post", one)
    server.page("/copy", one)
    mirror = f'id = "copy"\nurl = "{server.url("/copy")}"\nrobots = false\nallow_private = ["127.0.0.1"]\n'
    more = 'close_when_caught_up = true\nevents = ["changed", "mirror_drift"]\n'
    clock = Clock()
    app = make_app(
        one_doc(
            tmp_path,
            server.url("/post"),
            extra="robots = false",
            mirrors=[mirror],
            notify='[[notify]]\nname = "team"\nkind = "github"\n' + extra(receiver, more),
        ),
        clock,
    )
    check(app, app.config.sources())
    server.page("/post", one.replace("Version one", "Version two"))
    clock.advance(3600)
    check(app, app.config.sources())  # the edit opens the issue; the copy, stale, a comment on it
    assert [i["state"] for i in issues.issues.values()] == ["open"] and len(issues.comments[1]) == 1
    server.page("/copy", one.replace("Version one", "Version two"))
    clock.advance(3600)
    check(app, app.config.sources())
    assert issues.issues[1]["state"] == "closed" and issues.issues[1]["state_reason"] == "completed"
    assert issues.comments[1][-1]["body"].startswith(
        "**Mirror copy of Doc caught up with canonical version 2**"
    )
    assert Outbox(app.store).messages("team", "sent")[-1].data["note"].endswith("; issue #1 closed")
    assert Outbox(app.store).threads("team") == {}
    server.page("/post", one.replace("Version one", "Version three"))
    clock.advance(3600)
    check(app, app.config.sources())
    assert sorted(issues.issues) == [1, 2]


def test_notify_test_opens_an_issue_and_closes_it(tmp_path: Path, receiver: Server) -> None:
    """`differ notify test`: the message reaches the repository as an issue, closed at once, for no one to close."""
    from differ.notify import send_test

    issues = Issues(receiver)
    app = make_app(make_config(tmp_path, '[[notify]]\nname = "team"\nkind = "github"\n' + extra(receiver)))
    [attempt] = send_test(app, "team")
    assert attempt.ok
    [issue] = issues.issues.values()
    assert (issue["title"], issue["state"]) == ("differ test message", "closed")
    [sent] = Outbox(app.store).messages("team", "sent")
    assert sent.data["note"] == "https://github.com/o/r/issues/1; issue #1 closed"
    assert Outbox(app.store).threads("team") == {}


def test_differ_sources_names_each_documents_open_issue(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    from differ.overview import cmd_sources, sources_report

    issues = Issues(receiver)
    app, _ = edited(tmp_path, server, receiver)
    [team] = sources_report(app)["notifiers"]
    assert team["issues"] == {"doc": "1"}
    app.out = io.StringIO()
    cmd_sources(app, argparse.Namespace(sources=[], format="text"))
    assert "notify team  [github]  o/r issues  events: " in app.out.getvalue()
    assert app.out.getvalue().endswith("\n    its alerts go to issues: doc #1\n")
    assert len(issues.issues) == 1


def test_a_stale_copys_comment_gives_the_passages_to_carry_over_as_they_now_read(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """A copy left behind by an edit: its comment names the canonical's passages edited since the version it
    matches, each with its Markdown in a fence to copy, where a mention in the page cannot ping anyone."""
    issues = Issues(receiver)
    one = article(
        "<h2>Install @now</h2><p>Version one of the announcement text, long enough to align.</p>"
        "<p>Second paragraph, with <code>pip install thing</code> in it.</p><p>Third, kept as it is.</p>"
    )
    server.page("/post", one)
    server.page("/copy", one)
    mirror = f'id = "copy"\nurl = "{server.url("/copy")}"\nrobots = false\nallow_private = ["127.0.0.1"]\n'
    clock = Clock()
    app = make_app(
        one_doc(
            tmp_path,
            server.url("/post"),
            extra="robots = false",
            mirrors=[mirror],
            notify='[[notify]]\nname = "team"\nkind = "github"\n'
            + extra(receiver, 'events = ["mirror_drift"]\n'),
        ),
        clock,
    )
    check(app, app.config.sources())
    server.page("/post", one.replace("Version one", "Version two").replace("thing", "thing==2"))
    clock.advance(3600)
    check(app, app.config.sources())
    [issue] = issues.issues.values()
    passages = issue["body"].split("```\n\n", 1)[1].split("\n\n_doc")[0]
    assert passages == (
        "**To carry over**: the canonical's 2 passages edited after version 1, as they now read:\n\n"
        "- Install @\u2060now › Version two of the announcement text, … \\(edited in version 2, "
        "2026\\-07\\-08T18:45:00Z, there since version 1\\)\n\n"
        "  in copy: “Version one of the announcement text, …” \\(under Install @\u2060now\\)\n\n"
        "  ```markdown\n"
        "  Version two of the announcement text, long enough to align.\n"
        "  ```\n\n"
        "- Install @\u2060now › Second paragraph, with pip install thing==2 … \\(edited in version 2, "
        "2026\\-07\\-08T18:45:00Z, there since version 1\\)\n\n"
        "  in copy: “Second paragraph, with pip install thing …” \\(under Install @\u2060now\\)\n\n"
        "  ```markdown\n"
        "  Second paragraph, with `pip install thing==2` in it.\n"
        "  ```"
    )


def test_passages_too_long_for_one_comment_are_cut_with_the_command_that_gives_them_all(
    tmp_path: Path,
) -> None:
    """A comment stays within GitHub's 65,536 characters however long the summary and the passages: as many
    passages as fit, then how many are left out and the command that gives them all."""
    from differ.notify.issues import MAX_CHARS
    from tests.helpers import notifier_config

    at = {"version": 2, "fetched_at": "2026-07-08T21:00:00Z"}
    passages = [
        {
            "block": "paragraph",
            "section": ["Notes"],
            "label": f"Note {i}",
            "text": "",
            "markdown": "word " * 400,
            "since": at,
            "edited": at,
        }
        for i in range(40)
    ]
    event = {
        "type": "mirror_drift",
        "document": "doc",
        "title": "Doc",
        "mirror": "copy",
        "headline": "is stale: matches version 1, canonical is at 2",
        "summary": ["Doc: mirror copy", *(f"• line {i}: {'x' * 80}" for i in range(200))],
        "carry_over": {"after": 1, "passages": passages, "left_out": 5},
    }
    config = notifier_config(tmp_path, "github", 'repo = "o/r"\ntoken = "T"\n')
    body = GitHub(config).payload(event).body["body"]
    assert len(body) + len("\n\n<!-- differ:msg_" + "0" * 32 + " -->") <= MAX_CHARS < 65_536
    kept = body.count("```markdown")
    assert 0 < kept < 40
    assert body.split("\n\n")[-2] == (
        f"…and {45 - kept} more passages (`differ blame doc --after doc/copy --format markdown` gives them all)"
    )
