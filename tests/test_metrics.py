"""`differ status --format prometheus`: the watcher, its sources, its mirrors' audits and its destinations as
metrics a Prometheus parser reads, with the values the other commands report."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from differ.check import check
from differ.cli import main
from differ.errors import ExitCode
from differ.health import health
from differ.metrics import HELP, exposition
from tests.conftest import Clock, Reply, Server, article, make_app, one_doc


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample as the Prometheus client's own parser reads it: (name, labels) → value."""
    out = {}
    for family in text_string_to_metric_families(text):
        assert family.type == "gauge" and family.documentation == HELP[family.name], family.name
        for s in family.samples:
            out[s.name, tuple(sorted(s.labels.items()))] = s.value
    return out


def test_the_demo_store_as_metrics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--keep", "kept"], out=io.StringIO()) == ExitCode.OK
    out = io.StringIO()
    code = main(
        ["--config", "kept/demo.toml", "status", "--format", "prometheus"], out=out, err=io.StringIO()
    )
    assert code == ExitCode.OK  # a problem is a value here (differ_ok 0), not the exit code of the scrape
    got = samples(out.getvalue())
    canonical = (("document", "pytorch-2-13"), ("role", "canonical"), ("source", "pytorch-2-13/canonical"))
    wpnews = (("document", "pytorch-2-13"), ("mirror", "wpnews"))
    kr = (("document", "pytorch-2-13"), ("mirror", "pytorch-kr"))
    assert got["differ_ok", ()] == 0  # the demo's checks were in July: overdue now
    assert got["differ_problems", (("kind", "overdue"),)] == 3
    assert got["differ_problems", (("kind", "failing"),)] == 0
    assert (got["differ_sources", ()], got["differ_destinations", ()]) == (3, 3)  # Slack, webhook, archive
    assert got["differ_source_versions", canonical] == 2
    [info] = [
        labels for name, labels in got if name == "differ_source_info" and ("role", "canonical") in labels
    ]
    assert dict(info)["kind"] == "html" and dict(info)["url"].endswith("/blog/pytorch-2-13-release-blog/")
    assert got["differ_source_last_change_timestamp_seconds", canonical] == 1783544400  # 2026-07-08T21:00:00Z
    assert got["differ_last_check_timestamp_seconds", ()] == 1783590000  # 2026-07-09T09:40:00Z
    assert got["differ_mirror_versions_behind", wpnews] == 1  # stale: it matches version 1 of 2
    assert got["differ_mirror_versions_behind", kr] == 0
    # what it has to carry over: the canonical's three passages edited since (as differ blame --after lists them)
    assert (got["differ_mirror_passages_behind", wpnews], got["differ_mirror_passages_behind", kr]) == (3, 0)
    assert (got["differ_mirror_findings", wpnews], got["differ_mirror_findings", kr]) == (3, 1)
    assert got["differ_mirror_coverage_ratio", wpnews] == 0.9908
    hooks = (("kind", "webhook"), ("notifier", "hooks"))
    assert got["differ_outbox_messages", (*hooks, ("state", "pending"))] == 0
    assert got["differ_notifier_disabled", hooks] == 0
    assert not any(
        name == "differ_mirror_findings" and dict(labels).get("mirror") == "canonical" for name, labels in got
    )


def test_a_failing_page_and_a_destination_that_is_gone(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    server.page("/post", article("<p>One.</p>"))
    receiver.routes["/hook"] = Reply(410, b"no_service")
    clock = Clock()
    notify = f'[[notify]]\nname = "team"\nkind = "slack"\nurl = "{receiver.url("/hook")}"\nfail_after = 2\n'
    config = one_doc(tmp_path, server.url("/post"), extra="robots = false", notify=notify)
    app = make_app(config, clock)
    check(app, config.sources())
    server.page("/post", article("<p>Two.</p>"))
    check(app, config.sources())  # its alert: 410, the destination disabled
    server.routes["/post"] = Reply(500)
    for _ in range(2):
        clock.advance(60)
        check(app, config.sources())
    text = exposition(app, health(app))
    got = samples(text)
    page = (("document", "doc"), ("role", "canonical"), ("source", "doc/canonical"))
    team = (("kind", "slack"), ("notifier", "team"))
    assert got["differ_ok", ()] == 0
    problems = {
        dict(labels)["kind"]: value for (name, labels), value in got.items() if name == "differ_problems"
    }
    assert problems == {
        "never checked": 0,
        "overdue": 0,
        "failing": 1,
        "undelivered": 1,
        "disabled": 1,
        "unsent": 0,
    }
    assert got["differ_source_failures", page] == 2
    assert got["differ_source_versions", page] == 2
    assert got["differ_outbox_messages", (*team, ("state", "failed"))] == 1
    assert (
        got["differ_outbox_messages", (*team, ("state", "pending"))] == 1
    )  # the failing streak's alert, held
    assert got["differ_notifier_disabled", team] == 1
    assert 'differ_source_failures{document="doc",source="doc/canonical",role="canonical"} 2\n' in text


def test_label_values_are_escaped_as_the_format_asks() -> None:
    from differ.metrics import Metrics

    m = Metrics()
    m.add("differ_source_versions", 3, source='a"b\\c\nd')
    m.add("differ_source_paused", None, source="x")  # no value: no sample
    assert 'differ_source_versions{source="a\\"b\\\\c\\nd"} 3' in m.text()
    assert samples(m.text()) == {("differ_source_versions", (("source", 'a"b\\c\nd'),)): 3.0}


def test_metrics_written_to_a_file_whole_for_another_user_to_read(tmp_path: Path) -> None:
    """`--output FILE`: the file is replaced at once (a collector never reads half of it), readable by the
    collector's own user; nothing on stdout. A file that cannot be written is one line, exit 2."""
    config = tmp_path / "config.toml"
    config.write_text(f'[service]\nsnapshots = "{tmp_path / "snap"}"\n')
    out, err = io.StringIO(), io.StringIO()
    target = tmp_path / "textfile" / "differ.prom"
    target.parent.mkdir()
    target.write_text("old half-written metrics")
    argv = ["--config", str(config), "status", "--format", "prometheus", "--output", str(target)]
    assert main(argv, out=out, err=err) == ExitCode.OK
    assert (out.getvalue(), err.getvalue()) == ("", "")
    assert samples(target.read_text())["differ_ok", ()] == 1  # nothing configured: nothing wrong
    assert target.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["differ.prom"]  # no temporary file left
    nowhere = config / "differ.prom"  # in a "folder" that is a file
    argv[-1] = str(nowhere)
    assert main(argv, out=out, err=err) == ExitCode.USAGE
    assert err.getvalue() == f"error: {nowhere}: cannot write: Not a directory\n"


def test_the_service_writes_its_metrics_file_from_the_start(tmp_path: Path, server: Server) -> None:
    """`[service] metrics`: `differ run` writes the file at once and every `metrics_every`, as the status command
    would; a file it cannot write is one line on stderr, and the service checks on."""
    import signal
    import time

    from tests.test_cli import spawn

    server.page("/post", article("<p>Words.</p>"))
    config = tmp_path / "config.toml"
    head = (
        f'[service]\nsnapshots = "{tmp_path / "snap"}"\nper_host_delay = "0s"\nretries = 0\n'
        'metrics = "textfile/differ.prom"\nmetrics_every = "5s"\ninterval = "1s"\n'
    )
    page = (
        f'[[documents]]\nid = "doc"\n[documents.canonical]\nurl = "{server.url("/post")}"\nrobots = false\n'
        'allow_private = ["127.0.0.1"]\n'
    )
    config.write_text(head + page)
    target = tmp_path / "textfile" / "differ.prom"  # relative to the config file, as snapshots is
    proc = spawn(config, "run")
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # written again after the first check: one version stored
            if target.is_file() and samples(target.read_text()).get(
                (
                    "differ_source_versions",
                    (("document", "doc"), ("role", "canonical"), ("source", "doc/canonical")),
                )
            ):
                break
            time.sleep(0.2)
        got = samples(target.read_text())
        assert (got["differ_ok", ()], got["differ_sources", ()]) == (1, 1)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    config.write_text(head.replace('"textfile/differ.prom"', '"config.toml/differ.prom"') + page)
    proc = spawn(config, "run")
    time.sleep(3)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    said = [line.split(" ", 1)[1] for line in err.splitlines() if "metrics" in line]
    assert said == [
        f"differ: metrics not written: {tmp_path / 'config.toml' / 'differ.prom'}: Not a directory"
    ]
