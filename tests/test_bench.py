"""The benchmark harness measures what it says: the page server's validators and churn, whole-process figures,
the profile summary and the footprint sampler, on a few pages (urlwatch itself is not installed here)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bench import check_cycle, footprint, profile, shapes, tools


@pytest.fixture
def pages(tmp_path: Path):  # type: ignore[no-untyped-def]
    server, base = tools.start_server(3, tmp_path / "server.log")
    yield base
    server.terminate()
    server.wait()


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, dict(reply.headers), reply.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), b""


def test_page_server_validators_churn_and_traffic(pages: str) -> None:
    status, headers, body = get(f"{pages}/p/1")
    assert status == 200 and headers["ETag"] == '"1-0"' and 20_000 < len(body) < 30_000
    assert b"PyTorch 2.13 (post 1)" in body
    assert get(f"{pages}/p/1", {"If-None-Match": '"1-0"'})[0] == 304
    assert tools.traffic(pages) == {"bytes": len(body), "requests": 2}
    assert tools.control(pages, "churn?count=2") == {"changed": [0, 1]}
    status, headers, changed = get(f"{pages}/p/1", {"If-None-Match": '"1-0"'})
    assert status == 200 and headers["ETag"] == '"1-1"' and changed != body
    tools.control(pages, "validators?on=0")
    assert "ETag" not in get(f"{pages}/p/2")[1]
    assert get(f"{pages}/p/3")[0] == 404


def test_differ_check_is_measured_as_a_whole_process(pages: str, tmp_path: Path) -> None:
    setup = check_cycle.Setup(tmp_path, pages, 3)
    first = setup.run("differ")
    assert first.exit_code == 0 and first.wall > 0 and first.cpu > 0 and first.peak_rss_kib > 10_000
    assert first.requests == 4 and first.bytes > 60_000  # three full pages and one robots.txt
    steady = setup.run("differ")
    assert steady.requests == 3 and steady.bytes < 100  # three 304s; robots.txt is kept from the first run
    assert len(list((tmp_path / "differ-snapshots" / "sources").glob("*/*/versions/*.json"))) == 3


def test_profile_summary_names_the_stages(pages: str, tmp_path: Path) -> None:
    setup = check_cycle.Setup(tmp_path, pages, 3)
    config = tmp_path / "one-thread.toml"
    config.write_text(setup.differ_config.read_text().replace("workers = 10", "workers = 1"))
    stats = profile.profile(config, tmp_path / "check.prof", tmp_path / "err.log", pages)
    lines = profile.summarize(stats, 3)
    assert lines[0].startswith("Total ") and "for 3 pages" in lines[0]
    stages = [line.split("|")[1].strip() for line in lines if line.startswith("| ")]
    assert {"whole check", "fetch (HTTP)", "normalize", "store a version", "start-up: load config"} <= set(
        stages
    )


def test_every_profiled_stage_names_a_function_that_exists() -> None:
    """A stage whose function moved to another module would silently vanish from the profile summary."""
    import re

    root = Path(__file__).resolve().parent.parent
    for stage, path, function in profile.STAGES:
        text = (root / path).read_text()
        assert re.search(rf"^\s*def {function}\(", text, re.MULTILINE), f"{stage}: no {function} in {path}"


def test_footprint_samples_a_running_service(tmp_path: Path) -> None:
    report = footprint.repeat(1, 3, 0.12, 2, tmp_path / "footprint")  # a warm-up run, then one measured
    assert report["exit_codes"] == [0] and report["runs"] == 1
    assert report["cycles"] >= 2 and report["versions"][0] >= 3  # type: ignore[index,operator]
    assert 10 < report["rss_max_mib"] < 500  # type: ignore[operator]
    assert report["ranges"]["rss_end_mib"]["median"] == report["rss_end_mib"]  # type: ignore[index]
    assert json.dumps(report)  # what bench/results.json holds


@pytest.mark.parametrize("name", list(shapes.SHAPES))
def test_every_pathological_shape_is_read_and_diffed(name: str) -> None:
    """Each shape of bench/shapes.py is a page differ reads on both sides and diffs (small here)."""
    from differ.compare import adhoc_source
    from differ.normalize import Body, normalize

    kind, page, options = shapes.SHAPES[name]
    source = adhoc_source({"id": "shape", "url": "https://example.org/post", "kind": kind, **options})
    media = "text/markdown" if kind == "markdown" else "text/html"
    read = normalize(Body(page(40).encode(), media, "https://example.org/post"), source)
    assert len("".join(read.markdown.split())) >= 40  # the page's text, not an empty reading
    figures = shapes.one(name, 40)
    assert figures["seconds"] > 0 and figures["peak_mib"] > 0


def test_the_history_benchmark_times_a_check_with_and_without_the_remembered_matches() -> None:
    """Grown to 4 and then 8 versions of each page: one check timed each way at each size."""
    from bench import history

    rows = history.run([4, 8])
    assert [row["versions"] for row in rows] == [4, 8]
    assert all(row["warm"] > 0 and row["cold"] > 0 for row in rows)


def test_the_blame_benchmark_times_differ_and_git_on_the_same_history() -> None:
    """Grown to 3 and then 6 versions: differ's blame and git's of the exported history timed at each size."""
    from bench import blame

    rows = blame.run([3, 6])
    assert [row["versions"] for row in rows] == [3, 6]
    assert all(row["differ"] > 0 and row["git"] > 0 for row in rows)


def test_the_translation_benchmark_audits_each_case_as_a_translation() -> None:
    """Each case read and audited as a translation: the replay post's translation gives its 5 findings, and each
    repetition of it as many again."""
    from bench import translation_bench
    from differ.audit import audit_pair

    findings = {
        name: len(audit_pair(a, b, translation=True)[1]) for name, (a, b) in translation_bench.cases().items()
    }
    first = findings["Korean translation of the replay post"]
    assert first == 5
    assert [findings[f"the same, ×{n}"] for n in (2, 4, 8)] == [2 * first, 4 * first, 8 * first]
    assert translation_bench.table([])[0].startswith("| case |")


def test_the_pace_benchmark_watches_each_history_by_differs_own_rule() -> None:
    """A made-up history: published, edited an hour later and again 40 days later. Every 30 minutes, each
    edit is found within half an hour; settled after 7 days, the late edit waits for the 6-hour check, and
    far fewer checks are made."""
    from datetime import UTC, datetime, timedelta

    from bench import pace

    start = datetime(2026, 7, 8, 17, 0, tzinfo=UTC)
    history = [(start, ""), (start + timedelta(hours=1), "edit"), (start + timedelta(days=40), "edit")]
    always, waits = pace.watch(history, 0.0)
    assert always == 70 * 48 + 1 and all(hours <= 0.5 for hours, _ in waits)
    settled, late = pace.watch(history, 7 * 86400.0)
    assert settled < always / 3
    assert [kind for _, kind in late] == ["edit", "edit"] and late[0][0] <= 0.5 < late[1][0] <= 6
    assert len(pace.histories()) == 10  # every corpus post with dated revisions
