"""`differ status`: a watcher that stopped checking, a page failing for a streak, an alert that does not go out,
each one line and exit 1; notes that are not problems; exact output against real pages and receivers."""

from __future__ import annotations

import io
import json
from pathlib import Path

from differ.arguments import build_parser
from differ.check import check
from differ.cli import main
from differ.errors import ExitCode
from differ.health import beat, health, render
from differ.schedule import build_scheduler
from tests.conftest import Clock, Reply, Server, article, make_app, one_doc


def slack(receiver: Server, extra: str = "") -> str:
    return f'[[notify]]\nname = "team"\nkind = "slack"\nurl = "{receiver.url("/hook")}"\n{extra}'


def lines(app: object) -> list[str]:
    return render(health(app)).splitlines()  # type: ignore[arg-type]


def test_a_watcher_checking_on_time_is_ok_and_one_that_stopped_is_overdue(
    tmp_path: Path, server: Server
) -> None:
    server.page("/post", article("<p>Words.</p>"))
    clock = Clock()
    config = one_doc(tmp_path, server.url("/post"), extra='robots = false\ninterval = "10m"')
    app = make_app(config, clock)
    assert lines(app) == [
        "differ: 1 source, 0 destinations, last check never: 1 problem",
        "  never checked: doc/canonical: run differ check or differ run",
    ]
    check(app, config.sources())
    clock.advance(2 * 600 + 300)  # two intervals and the grace: still on time
    assert lines(app) == ["differ: 1 source, 0 destinations, last check 2026-07-08T17:45:00Z: ok"]
    clock.advance(1)
    assert lines(app) == [
        "differ: 1 source, 0 destinations, last check 2026-07-08T17:45:00Z: 1 problem",
        "  overdue: doc/canonical: last checked 2026-07-08T17:45:00Z, 25 minutes ago (every 10m)",
    ]
    clock.advance(3 * 86400)
    assert lines(app)[1].endswith(", 3 days ago (every 10m)")


def test_a_failing_streak_is_a_problem_from_fail_after_on_and_a_deferral_is_a_note(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    server.routes["/post"] = Reply(500)
    receiver.routes["/hook"] = Reply(200, b"ok")
    clock = Clock()
    config = one_doc(
        tmp_path, server.url("/post"), extra="robots = false", notify=slack(receiver, "fail_after = 2\n")
    )
    app = make_app(config, clock)
    check(app, config.sources())
    assert health(app).ok
    assert lines(app)[1] == (
        "  note: failed: doc/canonical: 1 failed check in a row since 2026-07-08T17:45:00Z: HTTP 500 Internal Server Error"
    )
    clock.advance(60)
    check(app, config.sources())
    assert lines(app)[1:] == [
        "  failing: doc/canonical: 2 failed checks in a row since 2026-07-08T17:45:00Z: HTTP 500 Internal Server Error"
    ]
    server.routes["/post"] = Reply(503, headers={"Retry-After": "7200"})
    clock.advance(60)
    check(app, config.sources())
    clock.advance(3600)  # past two 30-minute intervals, but the host asked to wait two hours
    found = health(app)
    assert [(p.kind, p.subject) for p in found.problems] == [("failing", "doc/canonical")]
    assert [(n.kind, n.detail) for n in found.notes] == [
        ("deferred", "its host asked to wait until 2026-07-08T19:47:00Z")
    ]
    server.page("/post", article("<p>Back.</p>"))
    clock.advance(7200)
    check(app, config.sources())
    assert lines(app) == ["differ: 1 source, 1 destination, last check 2026-07-08T20:47:00Z: ok"]


def test_an_alert_not_delivered_for_an_hour_or_for_good_is_a_problem(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    server.page("/post", article("<p>One.</p>"))
    receiver.routes["/hook"] = Reply(500, b"down")
    clock = Clock()
    config = one_doc(
        tmp_path, server.url("/post"), extra="robots = false", notify=slack(receiver, 'retry_for = "2h"\n')
    )
    app = make_app(config, clock)
    check(app, config.sources())
    server.page("/post", article("<p>Two.</p>"))
    clock.advance(60)
    check(app, config.sources())  # the change's alert: refused, to be retried
    assert health(app).ok  # retried for a minute: not yet a problem
    clock.advance(3601)
    assert [(p.kind, p.subject, p.detail) for p in health(app).problems] == [
        (
            "undelivered",
            "team",
            "1 message not delivered for over an hour (last error: HTTP 500 down); see differ outbox",
        ),
    ]
    from differ.notify import deliver

    clock.advance(7200)
    deliver(app)  # past retry_for: given up
    assert [p.detail for p in health(app).problems if p.kind == "undelivered"] == [
        "1 message failed for good (last error: HTTP 500 down; gave up after 2h of retries); see differ outbox"
    ]


def test_a_page_that_redirects_for_good_is_checked_and_noted_until_its_url_is_updated(
    tmp_path: Path, server: Server
) -> None:
    """Every redirect permanent (301, 308) to another page: checked there as ever, and `differ status` and
    `differ sources` say where it now lives; a temporary redirect on the way, or one to the same page by
    another spelling (a trailing slash), is no move; once `url` names the new address the note is gone."""
    from differ.overview import sources_report

    server.page("/new/", article("<p>Words.</p>"))
    server.routes["/old"] = Reply(301, headers={"Location": "/older"})
    server.routes["/older"] = Reply(308, headers={"Location": "/new/"})
    server.routes["/moving"] = Reply(301, headers={"Location": "/temp"})
    server.routes["/temp"] = Reply(302, headers={"Location": "/new/"})
    server.routes["/new"] = Reply(301, headers={"Location": "/new/"})
    clock = Clock()
    moved = (
        f"moved permanently to {server.url('/new/')} (update its url: differ set doc/canonical "
        f"url={server.url('/new/')})"
    )
    for n, (url, said) in enumerate([("/old", moved), ("/moving", ""), ("/new", ""), ("/new/", "")]):
        app = make_app(one_doc(tmp_path / str(n), server.url(url), extra="robots = false"), clock)
        assert check(app, app.config.sources())[0].outcome == "new"
        assert lines(app) == [
            "differ: 1 source, 0 destinations, last check 2026-07-08T17:45:00Z: ok",
            *([f"  note: moved: doc/canonical: {said}"] if said else []),
        ]
        reported = sources_report(app)["documents"][0]["sources"][0]
        assert (reported["state"], reported["moved"]) == (
            (f"ok; {said}", server.url("/new/")) if said else ("ok", None)
        )
    app = make_app(one_doc(tmp_path / "0", server.url("/new/"), extra="robots = false"), clock)  # url updated
    clock.advance(60)
    assert check(app, app.config.sources())[0].outcome == "unchanged"
    assert lines(app)[1:] == []


def test_status_on_the_command_line_exits_1_on_a_problem_with_json_for_machines(
    tmp_path: Path, server: Server
) -> None:
    server.page("/post", article("<p>Words.</p>"))
    path = tmp_path / "config.toml"
    path.write_text(
        f'[service]\nsnapshots = "{tmp_path / "snap"}"\nper_host_delay = "0s"\n'
        f'[[documents]]\nid = "doc"\n[documents.canonical]\nid = "c"\nurl = "{server.url("/post")}"\n'
        'robots = false\nallow_private = ["127.0.0.1"]\n'
        f'[[documents.mirrors]]\nid = "m"\nurl = "{server.url("/m")}"\nrobots = false\n'
        'allow_private = ["127.0.0.1"]\npaused = true\n'
    )

    def run(*args: str) -> tuple[int, str]:
        out = io.StringIO()
        return main(["--config", str(path), *args], out=out, err=io.StringIO(), env={}), out.getvalue()

    assert run("status") == (
        ExitCode.FAILURE,
        "differ: 1 source, 0 destinations, last check never: 1 problem\n"
        "  never checked: doc/c: run differ check or differ run\n",
    )  # the paused mirror is not counted
    assert run("check")[0] == ExitCode.OK
    code, out = run("status", "--format", "json")
    data = json.loads(out)
    assert (code, data["schema"], data["ok"], data["sources"], data["problems"], data["notes"]) == (
        ExitCode.OK,
        "differ.status/1",
        True,
        1,
        [],
        [],
    )
    code, out = run("status")
    assert (code, out.endswith(": ok\n")) == (ExitCode.OK, True)


def test_a_destination_that_is_gone_and_alerts_queued_for_a_removed_one_are_problems(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    server.page("/post", article("<p>One.</p>"))
    receiver.routes["/hook"] = Reply(410, b"no_service")
    clock = Clock()
    config = one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=slack(receiver))
    app = make_app(config, clock)
    check(app, config.sources())
    server.page("/post", article("<p>Two.</p>"))
    check(app, config.sources())
    assert [(p.kind, p.subject, p.detail) for p in health(app).problems] == [
        ("disabled", "team", "HTTP 410 no_service (until its configuration changes)"),
        (
            "undelivered",
            "team",
            "1 message failed for good (last error: HTTP 410 no_service); see differ outbox",
        ),
    ]
    receiver.routes["/new"] = Reply(500, b"down")
    moved = slack(receiver).replace("/hook", "/new")
    config = one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=moved)
    assert [p.kind for p in health(make_app(config, clock)).problems] == [
        "undelivered"
    ]  # moved: enabled again
    app = make_app(config, clock)
    server.page("/post", article("<p>Three.</p>"))
    check(app, config.sources())  # a changed configuration enables it again; its alert waits for a retry
    assert [p.kind for p in health(app).problems] == ["undelivered"]  # the old message, failed for good
    renamed = one_doc(
        tmp_path,
        server.url("/post"),
        extra="robots = false",
        notify=moved.replace('"team"', '"release"'),
    )
    assert [(p.kind, p.subject, p.detail) for p in health(make_app(renamed, clock)).problems] == [
        ("unsent", "team", "1 message pending for a [[notify]] no longer configured")
    ]


def test_the_heartbeat_is_sent_while_all_is_well_and_withheld_when_not(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    server.page("/post", article("<p>Words.</p>"))
    receiver.routes["/ping/abc"] = Reply(200, b"OK")
    clock = Clock()
    beating = f'heartbeat = "{receiver.url("/ping/abc")}"\n'
    config = one_doc(tmp_path, server.url("/post"), extra="robots = false", service=beating)
    app = make_app(config, clock)
    assert beat(app) == "withheld: never checked: doc/canonical (see differ status)"
    assert receiver.requests_to("/ping/abc") == []
    check(app, config.sources())
    assert beat(app) == "sent"
    assert [
        (h.method, h.headers["user-agent"].startswith("differ/")) for h in receiver.requests_to("/ping/abc")
    ] == [("GET", True)]
    server.routes["/post"] = Reply(500)
    for _ in range(3):
        clock.advance(60)
        check(app, config.sources())
    assert beat(app) == "withheld: failing: doc/canonical (see differ status)"
    assert len(receiver.requests_to("/ping/abc")) == 1
    server.page("/post", article("<p>Words.</p>"))
    check(app, config.sources())
    receiver.routes["/ping/abc"] = Reply(404, b"not found")
    assert beat(app) == "not sent: the monitor answered HTTP 404"
    gone = one_doc(
        tmp_path, server.url("/post"), extra="robots = false", service='heartbeat = "http://127.0.0.1:9/"\n'
    )
    assert beat(make_app(gone, clock)) == "not sent: connection refused"
    assert beat(make_app(one_doc(tmp_path, server.url("/post"), extra="robots = false"), clock)) == ""


def test_the_service_beats_on_its_own_schedule_and_says_so_only_when_that_changes(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    server.page("/post", article("<p>Words.</p>"))
    receiver.routes["/ping"] = Reply(200)
    clock = Clock()
    service = f'heartbeat = "{receiver.url("/ping")}"\nheartbeat_every = "2m"\n'
    config = one_doc(tmp_path, server.url("/post"), extra="robots = false", service=service)
    app = make_app(config, clock)
    scheduler = build_scheduler(app, start_now=False)
    job = scheduler.get_job("differ:heartbeat")
    assert job.trigger.interval.total_seconds() == 120
    check(app, config.sources())
    assert [job.func() for _ in range(2)] == ["sent", "sent"]
    server.routes["/post"] = Reply(500)
    for _ in range(3):
        check(app, config.sources())
    assert [job.func() for _ in range(2)] == ["withheld: failing: doc/canonical (see differ status)"] * 2
    server.page("/post", article("<p>Words.</p>"))
    check(app, config.sources())
    assert job.func() == "sent"
    assert app.err.getvalue().splitlines() == [  # type: ignore[attr-defined]
        "2026-07-08T17:45:00Z differ: heartbeat withheld: failing: doc/canonical (see differ status)",
        "2026-07-08T17:45:00Z differ: heartbeat sent again",
    ]
    assert len(receiver.requests_to("/ping")) == 3
    assert (
        build_scheduler(make_app(one_doc(tmp_path, server.url("/post")), clock)).get_job("differ:heartbeat")
        is None
    )


def test_a_heartbeat_that_is_not_a_web_address_is_refused(tmp_path: Path) -> None:
    for line, said in (
        (
            'heartbeat = "hc-ping.com/abc"',
            'heartbeat: expected an http:// or https:// URL, found "hc-ping.com/abc" (did you mean "https://hc-ping.com/abc"?)',
        ),
        ('heartbeat_every = "1s"', "heartbeat_every: expected"),
    ):
        path = tmp_path / "config.toml"
        path.write_text(
            f'[service]\n{line}\n[[documents]]\nid = "d"\n[documents.canonical]\nurl = "https://a.example/"\n'
        )
        out, err = io.StringIO(), io.StringIO()
        assert main(["--config", str(path), "status"], out=out, err=err, env={}) == ExitCode.USAGE
        assert err.getvalue().startswith(f"error: config.toml: service.{said}"), err.getvalue()
        assert len(err.getvalue().splitlines()) == 1


def test_differ_check_beats_after_its_pass_and_says_why_when_it_does_not(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    server.page("/post", article("<p>Words.</p>"))
    receiver.routes["/ping"] = Reply(200)
    path = tmp_path / "config.toml"
    path.write_text(
        f'[service]\nsnapshots = "{tmp_path / "snap"}"\nper_host_delay = "0s"\nretries = 0\n'
        f'heartbeat = "{receiver.url("/ping")}"\n'
        f'[[documents]]\nid = "doc"\n[documents.canonical]\nid = "c"\nurl = "{server.url("/post")}"\n'
        'robots = false\nallow_private = ["127.0.0.1"]\n'
    )

    def check_once() -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        code = main(["--config", str(path), "check", "-q"], out=out, err=err, env={})
        return code, out.getvalue(), err.getvalue()

    assert check_once() == (ExitCode.OK, "doc/c: new version 1 (first snapshot)\n", "")
    assert len(receiver.requests_to("/ping")) == 1
    server.routes["/post"] = Reply(500)
    said = [check_once() for _ in range(3)]
    assert [s[2] for s in said] == [
        "",
        "",
        "differ: heartbeat withheld: failing: doc/c (see differ status)\n",
    ]
    assert len(receiver.requests_to("/ping")) == 3


def test_a_problem_is_one_line_whatever_its_error_quotes() -> None:
    from differ.health import Finding, Health

    h = Health(1, 0, "2026-07-08T00:00:00Z", [Finding("failing", "doc/c", 'the entry "A\nB" has no text')])
    assert render(h) == (
        "differ: 1 source, 0 destinations, last check 2026-07-08T00:00:00Z: 1 problem\n"
        '  failing: doc/c: the entry "A\\nB" has no text\n'
    )


def test_a_source_is_due_once_its_interval_less_the_slack_has_passed(tmp_path: Path, server: Server) -> None:
    """`differ check --due`: never checked is due; then not before its interval less the larger of five minutes
    and a tenth of it (a cron job run every hour finds an hourly page due though the last pass took minutes)."""
    from differ.health import not_due

    server.page("/post", article("<p>Words.</p>"))
    clock = Clock()
    app = make_app(one_doc(tmp_path, server.url("/post"), extra='robots = false\ninterval = "2h"'), clock)
    source = app.config.sources()[0]
    assert not_due(app, source) is None
    check(app, [source])
    clock.advance(60)
    assert not_due(app, source) == "checked 1 minute ago, every 2h"
    clock.advance(2 * 3600 - 720 - 61)  # 12 minutes (a tenth of 2 hours) and a second short
    assert not_due(app, source) == "checked 1 hour ago, every 2h"
    clock.advance(1)
    assert not_due(app, source) is None


def test_versions_read_by_an_older_normalizer_are_a_note_until_renormalize_has_read_them(
    tmp_path: Path, server: Server
) -> None:
    """After an upgrade of the normalizer, the sources whose older versions are as the older one read them are a
    note (one line for all): an audit matches copies with them as read then. `differ renormalize` clears it, a
    version it could not read (a selector for a later layout) too, since it has tried."""
    from differ.commands import cmd_renormalize
    from differ.normalize import NORMALIZER_VERSION
    from tests.helpers import store_as_read_by

    server.page("/post", article("<p>Words.</p>"))
    app = make_app(one_doc(tmp_path, server.url("/post"), extra='robots = false\nselector = "article"'))
    key, html = "doc/canonical", "text/html; charset=utf-8"
    for raw in ("<html><body><div><p>Old layout.</p></div></body></html>", article("<p>Words.</p>")):
        store_as_read_by(
            app.store, key, 1, raw=raw, markdown="old form\n", url=server.url("/post"), ctype=html
        )
    assert check(app, app.config.sources())[0].outcome == "unchanged"  # its latest read again, not the first
    note = (
        f"  note: older readings: doc/canonical: versions read by an older normalizer than this differ's "
        f"({NORMALIZER_VERSION}); differ renormalize reads them again"
    )
    assert lines(app) == ["differ: 1 source, 0 destinations, last check 2026-07-08T17:45:00Z: ok", note]
    out, err = io.StringIO(), io.StringIO()
    app.out, app.err = out, err
    assert cmd_renormalize(app, build_parser().parse_args(["renormalize"])) == ExitCode.FAILURE
    assert (
        err.getvalue()
        == 'doc/canonical: version 1 kept as read before: selector "article" matches nothing on the page\n'
    )
    assert lines(app) == ["differ: 1 source, 0 destinations, last check 2026-07-08T17:45:00Z: ok"]
