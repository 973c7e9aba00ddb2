"""The Wayback Machine destination against a local server that answers as Save Page Now 2 does: a capture job
for a POST to /save with an account's keys (`Authorization: LOW key:secret`), an error in JSON with 200 for a
capture it will not make, and the account's capacity at /save/status/user."""

from __future__ import annotations

import html
import json
import re
import urllib.request
from pathlib import Path
from urllib.parse import parse_qsl

import pytest

from differ.check import check
from differ.errors import ExitCode
from differ.notify import Outbox, deliver, dispatch, probe, send_test
from tests.conftest import Clock, Hit, Reply, Server, article, make_app, one_doc
from tests.helpers import notifier_error
from tests.test_cli import run
from tests.test_notify import config_file, notify_toml

KEYS = 'access_key = "AK"\nsecret_key = "S3CRET"\n'


class SavePageNow:
    """Save Page Now 2 as its API documentation describes it; `refuse` answers the next captures with errors."""

    def __init__(self, server: Server) -> None:
        self.captures: list[dict[str, str]] = []
        self.refuse: list[dict[str, str]] = []
        self.progress: list[dict[str, str]] = []  # what the next status requests say, then "success"
        self.kept: list[bytes] = []  # each capture's body, served at /web/TIMESTAMPid_/URL
        server.routes["/web/*"] = self.copy
        server.routes["/save"] = self.save
        server.routes["/save/status/user"] = self.user
        server.routes["/save/status/*"] = self.status

    def status(self, hit: Hit) -> Reply:
        job = hit.path.rsplit("/", 1)[-1]
        number = int(job.removeprefix("spn2-"), 16)
        if not 0 < number <= len(self.captures):
            return Reply(200, json.dumps({"status": "error", "message": "Job not found"}).encode())
        if self.progress:
            return Reply(200, json.dumps({"job_id": job, **self.progress.pop(0)}).encode())
        url = self.captures[number - 1]["url"]
        answer = {
            "status": "success",
            "job_id": job,
            "original_url": url,
            "timestamp": f"2026070817{number:04}",
        }
        return Reply(200, json.dumps(answer).encode())

    def save(self, hit: Hit) -> Reply:
        if hit.headers.get("authorization") != "LOW AK:S3CRET":
            return Reply(401, b'{"message": "You need to be logged in to use Save Page Now."}')
        form = dict(parse_qsl(hit.body.decode()))
        if self.refuse:
            return Reply(200, json.dumps({"status": "error", **self.refuse.pop(0)}).encode())
        self.captures.append(form)
        with urllib.request.urlopen(form["url"], timeout=10) as page:  # as the archive fetches a page
            self.kept.append(page.read())
        job = f"spn2-{len(self.captures):040x}"
        return Reply(200, json.dumps({"url": form["url"], "job_id": job}).encode())

    def copy(self, hit: Hit) -> Reply:
        number = int(hit.path.split("/")[2].removesuffix("id_")[-4:])
        if not 0 < number <= len(self.kept) or not self.kept[number - 1]:
            return Reply(404, b"not in the archive")
        return Reply(200, self.kept[number - 1], headers={"Content-Type": "text/html; charset=utf-8"})

    def user(self, hit: Hit) -> Reply:
        if hit.headers.get("authorization") != "LOW AK:S3CRET":
            return Reply(401, b'{"message": "You need to be logged in to use Save Page Now."}')
        return Reply(200, b'{"available": 4, "processing": 1}')


def watch(
    tmp_path: Path, server: Server, receiver: Server, extra: str = KEYS, clock: Clock | None = None
) -> tuple[object, Clock]:
    """An app watching /post (served as "Hello." unless it is served already), the archive its destination."""
    if "/post" not in server.routes:
        server.page("/post", article("<p>Hello.</p>"))
    clock = clock or Clock()
    notify = notify_toml(receiver, kind="wayback", path="", extra=extra)
    config = one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=notify)
    return make_app(config, clock), clock


def test_the_first_version_and_each_edit_are_captured_as_differ_stores_them(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    archive = SavePageNow(receiver)
    app, clock = watch(tmp_path, server, receiver)
    outbox = Outbox(app.store)  # type: ignore[attr-defined]
    check(app, app.config.sources())  # type: ignore[attr-defined]
    page = server.url("/post")
    assert archive.captures == [{"url": page, "skip_first_archive": "1", "if_not_archived_within": "1"}]
    [asked] = outbox.messages("team", "pending")  # until the archive says the capture is made
    assert asked.data["last_error"] == f"capture spn2-{1:040x} under way"
    archive.progress.append({"status": "pending"})
    clock.advance(30)
    deliver(app)  # type: ignore[arg-type]
    assert [m.data["type"] for m in outbox.messages("team", "pending")] == ["first_version"]
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]  # the same page: nothing more to capture
    server.page("/post", article("<p>Hello, again.</p>"))
    clock.advance(3600)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    clock.advance(30)
    deliver(app)  # type: ignore[arg-type]
    assert [c["url"] for c in archive.captures] == [page, page]
    sent = outbox.messages("team", "sent")
    assert [(m.data["type"], m.data["note"]) for m in sent] == [
        ("first_version", f"captured: {receiver.url('')}/web/20260708170001/{page}"),
        ("changed", f"captured: {receiver.url('')}/web/20260708170002/{page}"),
    ]
    assert "S3CRET" not in json.dumps([m.data for m in sent])


def test_a_capture_that_fails_in_a_way_that_passes_is_asked_for_again(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    archive = SavePageNow(receiver)
    archive.progress.append(
        {
            "status": "error",
            "status_ext": "error:soft-time-limit-exceeded",
            "message": "Capture took over 45 s.",
        }
    )
    app, clock = watch(tmp_path, server, receiver)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    clock.advance(30)
    deliver(app)  # type: ignore[arg-type]
    [pending] = Outbox(app.store).messages("team", "pending")  # type: ignore[attr-defined]
    job = f"spn2-{1:040x}"
    assert (
        pending.data["last_error"]
        == f"capture {job}: error:soft-time-limit-exceeded: Capture took over 45 s."
    )
    clock.advance(60)
    deliver(app)  # type: ignore[arg-type]  # asked for again
    clock.advance(30)
    deliver(app)  # type: ignore[arg-type]
    assert len(archive.captures) == 2
    [sent] = Outbox(app.store).messages("team", "sent")  # type: ignore[attr-defined]
    assert sent.data["note"].startswith(f"captured: {receiver.url('')}/web/20260708170002/")


def test_a_capture_refused_for_now_is_asked_for_again_and_no_older_capture_stands_for_the_version(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    archive = SavePageNow(receiver)
    archive.refuse.append({"status_ext": "error:user-session-limit", "message": "Too many captures at once."})
    app, clock = watch(tmp_path, server, receiver)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [pending] = Outbox(app.store).messages("team", "pending")  # type: ignore[attr-defined]
    assert pending.data["last_error"] == "error:user-session-limit: Too many captures at once."
    clock.advance(3700)  # past the hour such a limit asks for
    deliver(app)  # type: ignore[arg-type]
    # a capture the archive made since differ fetched the page stands for it; an older one does not
    assert archive.captures == [
        {"url": server.url("/post"), "skip_first_archive": "1", "if_not_archived_within": "3700"}
    ]


def test_a_capture_the_archive_will_never_make_is_given_up_with_its_reason(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    archive = SavePageNow(receiver)
    archive.refuse.append({"status_ext": "error:blocked-url", "message": "This URL is in the block list."})
    app, _ = watch(tmp_path, server, receiver)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    [failed] = Outbox(app.store).messages("team", "failed")  # type: ignore[attr-defined]
    assert failed.data["last_error"] == "error:blocked-url: This URL is in the block list."


def test_wrong_keys_are_said_by_the_test_and_the_check_and_no_page_is_captured(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    archive = SavePageNow(receiver)
    app, _ = watch(tmp_path, server, receiver, extra='access_key = "AK"\nsecret_key = "wrong"\n')
    [attempt] = send_test(app)  # type: ignore[arg-type]
    assert (attempt.ok, attempt.detail) == (
        False,
        "HTTP 401 You need to be logged in to use Save Page Now.",
    )
    [asked] = probe(app)  # type: ignore[arg-type]
    assert (asked.ok, asked.detail) == (False, "HTTP 401 You need to be logged in to use Save Page Now.")
    good, _ = watch(tmp_path / "good", server, receiver)
    [attempt] = send_test(good)  # type: ignore[arg-type]
    [asked] = probe(good)  # type: ignore[arg-type]
    said = "the archive takes captures with these keys (4 at once now, 1 under way)"
    assert (attempt.ok, asked.ok, asked.detail) == (True, True, said)
    assert archive.captures == []


def test_a_page_watched_before_the_archive_was_named_is_captured_once(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """Its first version was stored with no destination taking `first_version`; the next check owes it."""
    archive = SavePageNow(receiver)
    server.page("/post", article("<p>Hello.</p>"))
    clock = Clock()
    plain = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)
    check(plain, plain.config.sources())
    app, _ = watch(tmp_path, server, receiver)
    for _ in range(2):
        clock.advance(3600)
        check(app, app.config.sources())  # type: ignore[attr-defined]
    assert [c["url"] for c in archive.captures] == [server.url("/post")]


def test_a_page_edited_before_the_archive_was_named_is_captured_as_it_is_now(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """Its latest version is owed, not only the versions stored from now on; once, however often checked."""
    archive = SavePageNow(receiver)
    server.page("/post", article("<p>Hello.</p>"))
    clock = Clock()
    plain = make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)
    check(plain, plain.config.sources())
    server.page("/post", article("<p>Hello, again.</p>"))
    clock.advance(600)
    check(plain, plain.config.sources())
    app, _ = watch(tmp_path, server, receiver, clock=clock)
    for _ in range(3):
        clock.advance(600)
        check(app, app.config.sources())  # type: ignore[attr-defined]
    # version 2, fetched 10 minutes before the first check that had the archive to tell
    assert archive.captures == [
        {"url": server.url("/post"), "skip_first_archive": "1", "if_not_archived_within": "600"}
    ]
    assert app.store.captures("doc/canonical") == {
        2: f"{receiver.url('')}/web/20260708170001/{server.url('/post')}"
    }  # type: ignore[attr-defined]


def test_a_version_read_from_a_web_archive_is_not_captured_again(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    SavePageNow(receiver)
    app, _ = watch(tmp_path, server, receiver)
    capture = "https://web.archive.org/web/20260707000000id_/https://blog.example.org/post/"
    event = {
        "type": "changed",
        "source": "doc/canonical",
        "url": "https://blog.example.org/post/",
        "capture": capture,
    }
    event["diff"] = {"to": {"version": 2, "fetched_at": "2026-07-07T00:00:00Z"}}
    dispatch(app, [event])  # type: ignore[arg-type]
    assert Outbox(app.store).messages("team", "pending") == []  # type: ignore[attr-defined]
    assert Outbox(app.store).messages("team", "sent") == []  # type: ignore[attr-defined]


def test_a_capture_the_archive_forgot_is_asked_for_again(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """The archive keeps a job's status for an hour or so: asked for again, a capture made since differ fetched
    the page stands for it (`if_not_archived_within`)."""
    archive = SavePageNow(receiver)
    archive.progress.append({"status": "error", "message": "Job not found"})
    app, clock = watch(tmp_path, server, receiver)
    check(app, app.config.sources())  # type: ignore[attr-defined]
    clock.advance(7200)  # nobody delivered for two hours
    deliver(app)  # type: ignore[arg-type]
    [pending] = Outbox(app.store).messages("team", "pending")  # type: ignore[attr-defined]
    assert pending.data["last_error"] == f"capture spn2-{1:040x}: Job not found; asked for again"
    deliver(app)  # type: ignore[arg-type]  # at once
    # two hours, and the 5 s the archive is given between two requests
    assert [c["if_not_archived_within"] for c in archive.captures] == ["1", "7205"]


def test_each_captured_version_names_its_copy_in_history_and_on_its_page(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """As a user runs it: a check asks for the capture, `differ outbox retry` (or the next delivery) hears it
    is made; `differ history` and the document's page then name the copy, and its JSON form has it."""
    archive = SavePageNow(receiver)
    server.page("/post", article("<p>Hello.</p>"))
    rest = f'[[notify]]\nname = "archive"\nkind = "wayback"\nurl = "{receiver.url("")}"\n{KEYS}'
    config = str(config_file(tmp_path, server.url("/post"), rest))
    assert run("--config", config, "check")[0] == ExitCode.OK
    assert run("--config", config, "outbox", "retry")[:2] == (
        ExitCode.OK,
        "retried 1: 1 delivered, 0 failed\n",
    )
    copy = f"{receiver.url('')}/web/20260708170001/{server.url('/post')}"
    assert [c["url"] for c in archive.captures] == [server.url("/post")]
    code, out, _ = run("--config", config, "history", "doc/c")
    assert out.splitlines()[3:] == [f"       archived copy: {copy}"]
    code, out, _ = run("--config", config, "history", "doc/c", "--format", "json")
    assert json.loads(out)["versions"][0]["capture"] == copy
    code, out, _ = run("--config", config, "history", "doc/c", "--format", "html")  # a link, as on the site
    assert f'<td>first snapshot</td><td><a href="{html.escape(copy)}">archived copy</a></td>' in out
    assert f'<p><a href="{html.escape(server.url("/post"))}">' in out
    assert re.search(r"<td class=when>\d{4}-\d\d-\d\dT[\d:]+Z</td>", out)  # a time on one line
    page = (tmp_path / "snap" / "reports" / "doc" / "index.html").read_text()
    assert f'first snapshot · <a href="{html.escape(copy)}">archived copy</a>' in page
    code, out, _ = run("--config", config, "outbox", "sent", "archive")  # what the archive answered
    assert re.fullmatch(
        rf"\S+Z  archive      msg_\w{{32}}  first_version  doc/c  captured: {re.escape(copy)}\n", out
    )
    assert run("--config", config, "outbox", "sent", "archive", "-n", "0")[:2] == (ExitCode.USAGE, "")
    code, out, _ = run("--config", config, "notify", "preview", "doc/c")  # a first version has no change
    assert (code, out.splitlines()[:3]) == (
        ExitCode.OK,
        [
            "doc/c version 1: a first_version alert, for a destination that asks for it",
            "archive (wayback):",
            "{",
        ],
    )
    assert json.loads(out.split("\n", 2)[2])["url"] == server.url("/post")


def test_verify_captures_reads_each_copy_as_the_page_and_says_which_differ(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """`differ verify --captures`: each version's copy, fetched as the archive keeps it and read as the page
    is, against the version differ stored; exit 1 when one reads otherwise or cannot be read."""
    archive = SavePageNow(receiver)
    server.page("/post", article("<p>Release 3.0 is out.</p>"))
    rest = f'[[notify]]\nname = "archive"\nkind = "wayback"\nurl = "{receiver.url("")}"\n{KEYS}'
    config = str(config_file(tmp_path, server.url("/post"), rest))
    for text in ("Release 3.0 is out.", "Release 3.0 is out today."):
        server.page("/post", article(f"<p>{text}</p>"))
        assert run("--config", config, "check")[0] == ExitCode.OK
        assert run("--config", config, "outbox", "retry")[0] == ExitCode.OK
    page = server.url("/post")
    copies = [f"{receiver.url('')}/web/2026070817000{n}/{page}" for n in (1, 2)]
    assert run("--config", config, "verify", "--captures") == (
        ExitCode.OK,
        f"doc/c version 1: the archive's copy reads the same ({copies[0]})\n"
        f"doc/c version 2: the archive's copy reads the same ({copies[1]})\n"
        "2 copies compared: 2 the same, 0 different, 0 not read\n",
        "",
    )
    archive.kept[0] = article("<p>Release 3.0 is out now.</p>").encode()  # a copy that says otherwise
    archive.kept[1] = b""  # and one the archive no longer has
    code, out, _ = run("--config", config, "verify", "--captures", "doc")
    assert (code, out.splitlines()) == (
        ExitCode.FAILURE,
        [
            f'doc/c version 1: the archive\'s copy reads differently: 1 change; Release 3.0 is out: added "now" ({copies[0]})',
            f"doc/c version 2: the archive's copy could not be read: HTTP 404 Not Found ({copies[1]})",
            "2 copies compared: 0 the same, 1 different, 1 not read",
        ],
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ('access_key = "AK"\n', 'notify[0]: missing key "secret_key" (its secret key)'),
        (KEYS + 'events = ["changed", "mirror_drift"]\n', 'notify[0].events: expected events a wayback destination acts on (first_version, changed, metadata), found "mirror_drift"'),
        (KEYS + 'digest = "1d"\n', "notify[0].digest: expected no digest: each version is captured as it is stored"),
        (KEYS + 'url = "web.archive.org"\n', "notify[0].url: expected the archive's https:// address"),
    ],
)  # fmt: skip
def test_wayback_settings_are_checked(tmp_path: Path, options: str, message: str) -> None:
    assert notifier_error(tmp_path, "wayback", options) == message
