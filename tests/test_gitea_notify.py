"""The `gitea` notifier (Gitea, Forgejo, Codeberg) against a local stand-in for their REST API (v1 issues, their
comments and the repository's labels, as the documented endpoints answer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

import differ.notify.gitea
from differ.check import check
from differ.errors import NotifyError
from differ.notify import NOTIFIERS, Outbox, deliver
from tests.conftest import Hit, Server, article, make_config
from tests.helpers import Tracker
from tests.test_notify import edited_once, setup, three_alerts

REPO = "/api/v1/repos/kr/blog"


class Issues(Tracker):
    """A Forgejo repository's issues and labels, as its API keeps and answers them."""

    def __init__(self, server: Server) -> None:
        super().__init__()
        self.base = server.base
        self.issues: dict[int, dict[str, Any]] = {}
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.labels = [{"id": 10 + n, "name": f"label {n}"} for n in range(60)] + [
            {"id": 7, "name": "translation"}
        ]
        differ.notify.gitea._labels.clear()  # looked up once a process: again for each test's repository
        server.routes[REPO] = self.answer
        server.routes[REPO + "/*"] = self.answer

    def answer(self, hit: Hit) -> Any:
        if hit.headers.get("authorization") != "token T":
            return self.json(401, {"message": "token is required"})
        parts = urlsplit(hit.path)
        path = parts.path.removeprefix(REPO).strip("/").split("/")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if path == [""]:
            return self.json(200, {"full_name": "kr/blog", "has_issues": True})
        if path == ["labels"]:
            page, limit = int(query["page"]), int(query["limit"])
            return self.json(200, self.labels[(page - 1) * limit : page * limit])
        if path == ["issues"] and hit.method == "POST":
            body = json.loads(hit.body)
            number = len(self.issues) + 1
            self.issues[number] = {
                "number": number,
                "title": body["title"],
                "body": body["body"],
                "labels": body.get("labels", []),
                "state": "open",
                "html_url": f"{self.base}/kr/blog/issues/{number}",
                "created_at": self.now(),
            }
            self.comments[number] = []
            return self.made(self.issues[number])
        if path == ["issues"]:
            assert query["state"] == "all" and query["since"]
            newest = sorted(self.issues.values(), key=lambda i: -int(i["number"]))
            return self.paged(self.base, hit.path, newest, size="limit", default=30)
        number = int(path[1])
        if path[2:] == [] and hit.method == "GET":
            return self.json(200, self.issues[number])
        if path[2:] == ["comments"] and hit.method == "POST":
            comments = self.comments[number]
            url = f"{self.base}/kr/blog/issues/{number}#issuecomment-{300 + len(comments)}"
            comments.append(
                {
                    "id": 300 + len(comments),
                    "body": json.loads(hit.body)["body"],
                    "html_url": url,
                    "created_at": self.now(),
                }
            )
            return self.made(comments[-1])
        if path[2:] == ["comments"]:
            return self.paged(self.base, hit.path, self.comments[number], size="limit", default=50)
        return self.json(404, {"message": "not found"})


def extra(receiver: Server, more: str = "") -> str:
    return f'repo = "kr/blog"\ntoken = "T"\nurl = "{receiver.base}"\n{more}'


def test_a_document_gets_an_issue_with_its_labels_and_its_next_alerts_comment_on_it(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    issues = Issues(receiver)
    more = 'labels = ["translation", "label 55"]\nfail_after = 1\n'
    later = three_alerts(tmp_path, server, receiver, "gitea", None, extra(receiver, more))
    [issue] = issues.issues.values()
    assert (issue["title"], issue["labels"]) == ("Doc changed (canonical)", [7, 65])  # names looked up
    assert len(issues.comments[1]) == 2
    assert Outbox(later.store).threads("team") == {"doc": "1"}  # type: ignore[attr-defined]


def test_a_label_the_repository_lacks_holds_the_alert_saying_so(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    issues = Issues(receiver)
    app, clock = setup(
        tmp_path,
        server,
        receiver,
        "<p>One.</p>",
        "<p>Two.</p>",
        kind="gitea",
        path=None,
        extra=extra(receiver, 'labels = ["translation", "Übersetzung"]\n'),
    )
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [pending] = Outbox(app.store).messages("team")  # type: ignore[attr-defined]
    assert pending.data["last_error"] == "kr/blog has no label Übersetzung"
    issues.labels.append({"id": 99, "name": "Übersetzung"})  # made by the repository's owner
    clock.advance(3600)
    assert [a.ok for a in deliver(app)] == [True]  # type: ignore[arg-type]
    assert issues.issues[1]["labels"] == [7, 99]


def test_an_answer_lost_is_found_and_not_posted_twice(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    issues = Issues(receiver)
    issues.lose_next = True
    app, clock = edited_once(tmp_path, server, receiver, "gitea", extra(receiver))
    issues.lose_next = True
    server.page("/post", article("<p>Three.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    clock.advance(3600)
    deliver(app)  # type: ignore[arg-type]
    assert len(issues.issues) == 1 and len(issues.comments[1]) == 1
    notes = [m.data["note"] for m in Outbox(app.store).messages("team", "sent")]  # type: ignore[attr-defined]
    assert notes == [
        f"posted already, by an earlier attempt: {receiver.base}/kr/blog/issues/1",
        f"posted already, by an earlier attempt: {receiver.base}/kr/blog/issues/1#issuecomment-300",
    ]


def test_probe_asks_for_the_repository_and_its_labels(tmp_path: Path, receiver: Server) -> None:
    Issues(receiver)

    def notifier(more: str) -> Any:
        config = make_config(tmp_path, '[[notify]]\nname = "team"\nkind = "gitea"\n' + extra(receiver, more))
        return NOTIFIERS["gitea"](config.notifiers[0])

    assert notifier('labels = ["translation"]\n').probe() == "kr/blog takes issues"
    with pytest.raises(NotifyError, match="^kr/blog has no label docs$"):
        notifier('labels = ["docs"]\n').probe()


def test_an_issue_is_closed_as_forgejo_closes_one(tmp_path: Path) -> None:
    config = make_config(
        tmp_path,
        '[[notify]]\nname = "team"\nkind = "gitea"\nurl = "https://codeberg.org"\nrepo = "kr/blog"\ntoken = "T"\n',
    )
    assert NOTIFIERS["gitea"](config.notifiers[0]).close_request("3") == (
        "PATCH",
        "https://codeberg.org/api/v1/repos/kr/blog/issues/3",
        {"state": "closed"},
    )
