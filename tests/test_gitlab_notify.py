"""The `gitlab` notifier against a local stand-in for GitLab's REST API (v4 issues and their notes, as the
documented endpoints answer): an issue a document, notes for its next alerts, a new issue once it is closed, and
an attempt whose answer was lost never posted twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from differ.check import check
from differ.errors import ConfigError, NotifyError
from differ.notify import NOTIFIERS, Outbox, deliver
from differ.notify.gitlab import GitLab
from tests.conftest import Hit, Reply, Server, article, make_config
from tests.helpers import Tracker
from tests.test_notify import edited_once, three_alerts

PROJECT = "/api/v4/projects/kr%2Fblog"


class Issues(Tracker):
    """GitLab's issues of one project, as its REST API keeps and answers them."""

    def __init__(self, server: Server) -> None:
        super().__init__()
        self.base = server.base
        self.issues: dict[int, dict[str, Any]] = {}
        self.notes: dict[int, list[dict[str, Any]]] = {}
        server.routes[PROJECT] = self.answer
        server.routes[PROJECT + "/*"] = self.answer

    def answer(self, hit: Hit) -> Reply:
        if hit.headers.get("private-token") != "glpat-T":
            return self.json(401, {"message": "401 Unauthorized"})
        parts = urlsplit(hit.path)
        path = parts.path.removeprefix(PROJECT).strip("/").split("/")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if path == [""]:
            return self.json(200, {"path_with_namespace": "kr/blog", "issues_access_level": "enabled"})
        if path == ["issues"] and hit.method == "POST":
            body = json.loads(hit.body)
            iid = len(self.issues) + 1
            self.issues[iid] = {
                "iid": iid,
                "id": 9000 + iid,
                "title": body["title"],
                "description": body["description"],
                "labels": body.get("labels", "").split(",") if body.get("labels") else [],
                "state": "opened",
                "web_url": f"{self.base}/kr/blog/-/issues/{iid}",
                "created_at": self.now(),
            }
            self.notes[iid] = []
            return self.made(self.issues[iid])
        if path == ["issues"]:
            assert query["created_after"] and query["order_by"] == "created_at"
            newest = sorted(self.issues.values(), key=lambda i: -int(i["iid"]))
            return self.paged(self.base, hit.path, newest, size="per_page", default=20)
        iid = int(path[1])
        if iid not in self.issues:
            return self.json(404, {"message": "404 Not found"})
        if path[2:] == [] and hit.method == "GET":
            return self.json(200, self.issues[iid])
        if path[2:] == ["notes"] and hit.method == "POST":
            note = {
                "id": 500 + len(self.notes[iid]),
                "body": json.loads(hit.body)["body"],
                "created_at": self.now(),
            }
            self.notes[iid].append(note)
            return self.made(note)
        if path[2:] == ["notes"]:
            return self.paged(self.base, hit.path, self.notes[iid][::-1], size="per_page", default=20)
        return self.json(404, {"message": "404 Not found"})


def extra(receiver: Server, more: str = "") -> str:
    return f'project = "kr/blog"\ntoken = "glpat-T"\nurl = "{receiver.base}"\n{more}'


def edited(tmp_path: Path, server: Server, receiver: Server) -> tuple[Any, Any]:
    """A page watched with the `gitlab` notifier, edited once and checked: its first alert sent."""
    return edited_once(tmp_path, server, receiver, "gitlab", extra(receiver))


def test_a_document_gets_an_issue_and_its_next_alerts_are_notes_on_it(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    issues = Issues(receiver)
    more = 'labels = ["translation", "docs"]\nfail_after = 1\n'
    later = three_alerts(tmp_path, server, receiver, "gitlab", None, extra(receiver, more))
    [issue] = issues.issues.values()
    assert (issue["title"], issue["labels"]) == ("Doc changed (canonical)", ["translation", "docs"])
    assert issue["description"].startswith(
        "**Doc changed \\(canonical\\)**\n\n```text\nDoc (canonical), version 1 → 2: 1 change.\n"
    )
    assert [n["body"].split("\n")[0] for n in issues.notes[1]] == [
        "**Doc changed \\(canonical\\)**",
        "**Doc \\(canonical\\) is failing \\(1 check in a row\\)**",
    ]
    assert Outbox(later.store).threads("team") == {"doc": "1"}  # type: ignore[attr-defined]
    notes = [m.data["note"] for m in Outbox(later.store).messages("team", "sent")]  # type: ignore[attr-defined]
    assert notes == [
        f"{receiver.base}/kr/blog/-/issues/1",
        f"{receiver.base}/kr/blog/-/issues/1#note_500",
        f"{receiver.base}/kr/blog/-/issues/1#note_501",
    ]


def test_an_answer_lost_is_found_and_a_closed_issue_is_followed_by_a_new_one(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    issues = Issues(receiver)
    issues.lose_next = True
    app, clock = edited(tmp_path, server, receiver)
    clock.advance(3600)
    [attempt] = deliver(app)  # type: ignore[arg-type]
    assert attempt.ok and len(issues.issues) == 1
    issues.issues[1]["state"] = "closed"
    server.page("/post", article("<p>Three.</p>"))
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert sorted(issues.issues) == [1, 2] and issues.notes[1] == []
    assert Outbox(app.store).threads("team") == {"doc": "2"}  # type: ignore[attr-defined]


def test_a_lost_note_is_found_under_newer_ones_and_old_notes_are_not_read(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    issues = Issues(receiver)
    app, clock = edited(tmp_path, server, receiver)
    old = [{"id": n, "body": "", "created_at": "2020-01-01T00:00:00.000Z"} for n in range(300)]
    issues.notes[1] = old + issues.notes[1]  # a long-lived issue: 300 notes from years before
    issues.pages_asked = 0
    server.page("/post", article("<p>Three.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    assert len(issues.notes[1]) == 301
    assert issues.pages_asked == 1  # newest first: the first page already reached back before the alert
    issues.lose_next = True
    server.page("/post", article("<p>Four.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    others = [{"id": 2000 + n, "body": "+1", "created_at": issues.now()} for n in range(150)]
    issues.notes[1] += others  # a busy issue: 150 notes by others before the retry
    clock.advance(3600)
    issues.pages_asked = 0
    [attempt] = deliver(app)  # type: ignore[arg-type]
    assert attempt.ok and len(issues.notes[1]) == 452  # not posted again
    notes = [m.data["note"] for m in Outbox(app.store).messages("team", "sent")]  # type: ignore[attr-defined]
    assert notes[-1] == f"posted already, by an earlier attempt: {receiver.base}/kr/blog/-/issues/1#note_801"
    assert issues.pages_asked == 2


def test_references_in_page_text_refer_to_nothing() -> None:
    assert GitLab.inert("Fixes #12, !34 and ~bug for @jane in %v1 $5 &7") == (
        "Fixes \\#\u206012, \\!\u206034 and \\~\u2060bug for @\u2060jane in \\%\u2060v1 \\$\u20605 \\&\u20607"
    )


def test_probe_says_whether_the_project_takes_issues(tmp_path: Path, receiver: Server) -> None:
    Issues(receiver)

    def notifier(token: str) -> Any:
        config = make_config(
            tmp_path,
            '[[notify]]\nname = "team"\nkind = "gitlab"\n' + extra(receiver).replace("glpat-T", token),
        )
        return NOTIFIERS["gitlab"](config.notifiers[0])

    assert notifier("glpat-T").probe() == "kr/blog takes issues"
    with pytest.raises(NotifyError, match=r"^kr/blog: HTTP 401 Unauthorized$"):
        notifier("wrong").probe()


def test_a_project_that_is_no_path_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        make_config(tmp_path, '[[notify]]\nname = "team"\nkind = "gitlab"\nproject = "blog"\ntoken = "T"\n')
    assert str(info.value) == (
        'config.toml: notify[0].project: expected a project as GROUP/PROJECT, found "blog"'
    )


def test_an_issue_is_closed_as_gitlab_closes_one(tmp_path: Path) -> None:
    config = make_config(
        tmp_path,
        '[[notify]]\nname = "team"\nkind = "gitlab"\nproject = "kr/blog"\ntoken = "T"\nclose_when_caught_up = true\n',
    )
    assert NOTIFIERS["gitlab"](config.notifiers[0]).close_request("3") == (
        "PUT",
        "https://gitlab.com/api/v4/projects/kr%2Fblog/issues/3",
        {"state_event": "close"},
    )
