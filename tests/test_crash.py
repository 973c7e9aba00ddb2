"""Crash consistency: `differ check` killed with SIGKILL at random moments while pages change, fail and drift,
and at each step of a check (tests/killed.py): no version and no alert is lost."""

from __future__ import annotations

import base64
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from differ.store import Store
from tests.conftest import ROOT, Reply, Server, article

SECRET = "whsec_" + base64.b64encode(b"c" * 32).decode()
SOURCES = 4


class Aim:
    """When to kill a check: moments spread around how long one takes here. That shifts with the machine's load
    (other tests run beside this one), so it is nudged after every round: longer after a check that was killed,
    shorter after one that finished first, which keeps about half of them killed at moments from start-up on."""

    def __init__(self, took: float) -> None:
        self.took = took

    def after(self, killed: bool) -> None:
        self.took *= 1.05 if killed else 0.95


def config(tmp: Path, server: Server, receiver: Server) -> Path:
    text = (
        f'[service]\nsnapshots = "{tmp / "snap"}"\nper_host_delay = "0s"\nretries = 0\nworkers = 4\n'
        'timeout = "5s"\n[[documents]]\nid = "doc"\n[documents.canonical]\nid = "s0"\n'
        f'url = "{server.url("/p/0")}"\nrobots = false\nallow_private = ["127.0.0.1"]\n'
    )
    for i in range(1, SOURCES):
        text += (
            f'[[documents.mirrors]]\nid = "s{i}"\nurl = "{server.url(f"/p/{i}")}"\nrobots = false\n'
            'allow_private = ["127.0.0.1"]\n'
        )
    text += f'[[notify]]\nname = "hooks"\nkind = "webhook"\nurl = "{receiver.url("/hooks")}"\nsecret = "{SECRET}"\n'
    path = tmp / "config.toml"
    path.write_text(text)
    return path


def test_sigkill_during_checks_loses_nothing(tmp_path: Path, server: Server, receiver: Server) -> None:
    rng = random.Random(2026)
    receiver.routes["/hooks"] = Reply(200, b"ok")
    revision = [0] * SOURCES
    for i in range(SOURCES):
        server.page(f"/p/{i}", article(f"<p>Page {i}, revision 0, with enough words to be an article.</p>"))
    path = config(tmp_path, server, receiver)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    reported: set[tuple[str, int]] = set()

    def note(out: str) -> None:
        for m in re.finditer(r"^doc/(s\d): new version (\d+)", out, re.MULTILINE):
            reported.add((m.group(1), int(m.group(2))))

    times = []  # how long a check of one changed page (start-up included) takes here, to aim the kills
    for i in range(3):
        revision[i] += 1
        server.page(
            f"/p/{i}",
            article(f"<p>Page {i}, revision {revision[i]}, with enough words to be an article.</p>"),
        )
        started = time.monotonic()
        note(
            subprocess.run(
                [sys.executable, "-m", "differ", "--config", str(path), "check"],
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            ).stdout
        )
        times.append(time.monotonic() - started)
    aim = Aim(sorted(times)[1])
    kills = 0
    for _ in range(100):
        for i in rng.sample(range(SOURCES), rng.randint(0, 2)):  # a few pages really change each round
            revision[i] += 1
            server.page(
                f"/p/{i}",
                article(f"<p>Page {i}, revision {revision[i]}, with enough words to be an article.</p>"),
            )
        proc = subprocess.Popen(
            [sys.executable, "-m", "differ", "--config", str(path), "check"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(rng.uniform(0.1, 1.5) * aim.took)  # kills land in start-up, during the check and after it
        killed = proc.poll() is None
        if killed:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        aim.after(killed)
        out, _ = proc.communicate()
        note(out)
    final = subprocess.run(
        [sys.executable, "-m", "differ", "--config", str(path), "check"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert final.returncode == 0, final.stderr
    verify = subprocess.run(
        [sys.executable, "-m", "differ", "--config", str(path), "verify"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verify.returncode == 0, verify.stdout
    store = Store(tmp_path / "snap")
    stored = {(f"s{i}", v.number): v for i in range(SOURCES) for v in store.versions(f"doc/s{i}")}
    assert kills >= 30, f"only {kills} of 100 checks were killed (a check took about {aim.took:.2f} s)"
    assert reported <= set(stored)  # every version a completed check reported is there
    for i in range(SOURCES):  # the last revision of every page is stored
        latest = store.latest(f"doc/s{i}")
        assert latest is not None and f"revision {revision[i]}," in store.markdown(latest)
    alerts: dict[str, tuple[str, int]] = {}
    for hit in receiver.requests_to("/hooks"):
        payload = json.loads(hit.body)
        if payload["type"] == "differ.changed":
            data = payload["data"]
            alerts[hit.headers["webhook-id"]] = (data["source"].split("/")[1], data["diff"]["to"]["version"])
    changes = {key for key in stored if key[1] > 1}
    assert sorted(alerts.values()) == sorted(changes)  # one alert (one webhook-id) per change, none missing


def canonical_page(revision: int) -> str:
    return article(
        f"<h2>Highlights</h2><p>Revision {revision} brings faster kernels and a smaller wheel for every "
        "platform we ship.</p><h2>Install</h2><p>Install it with the command below, in a fresh environment.</p>"
        f"<pre><code>pip install torch=={revision}.0</code></pre><h2>Thanks</h2><p>Thanks to the many "
        "contributors who made this release possible.</p>",
        title="Release",
    )


def mirror_page(revision: int, flaw: str) -> str:
    """A mirror's copy of canonical revision `revision`: faithful, without its thanks, or with its command
    mangled (as a careless copy-paste does)."""
    page = canonical_page(revision)
    if flaw == "dropped":
        return page[: page.index("<h2>Thanks</h2>")] + "</article></body></html>"
    if flaw == "mangled":
        return page.replace(f"pip install torch=={revision}.0", f"pip instal torch=={revision}.0")
    return page


def two_documents(tmp_path: Path, server: Server, receiver: Server) -> Path:
    """A release post with a mirror, and a page that goes down, alerting a webhook from the second failure."""
    receiver.routes["/hooks"] = Reply(200, b"ok")
    server.page("/c", canonical_page(1))
    server.page("/m", mirror_page(1, ""))
    server.page("/d", article("<p>A page that is sometimes down, with words enough to be an article.</p>"))
    path = tmp_path / "config.toml"
    path.write_text(
        f'[service]\nsnapshots = "{tmp_path / "snap"}"\nper_host_delay = "0s"\nretries = 0\ntimeout = "5s"\n'
        '[[documents]]\nid = "rel"\n[documents.canonical]\nid = "c"\n'
        f'url = "{server.url("/c")}"\nrobots = false\nallow_private = ["127.0.0.1"]\n'
        f'[[documents.mirrors]]\nid = "m"\nurl = "{server.url("/m")}"\nrobots = false\n'
        'allow_private = ["127.0.0.1"]\n[[documents]]\nid = "down"\n[documents.canonical]\nid = "d"\n'
        f'url = "{server.url("/d")}"\nrobots = false\nallow_private = ["127.0.0.1"]\n'
        f'[[notify]]\nname = "hooks"\nkind = "webhook"\nurl = "{receiver.url("/hooks")}"\nsecret = "{SECRET}"\n'
        "fail_after = 2\n"
    )
    return path


def first_deliveries(receiver: Server) -> dict[str, dict[str, Any]]:
    """Each alert the webhook received (by webhook-id) as it first arrived, in the order of arrival."""
    seen: dict[str, dict[str, Any]] = {}
    for hit in receiver.requests_to("/hooks"):
        seen.setdefault(hit.headers["webhook-id"], json.loads(hit.body))
    return seen


@pytest.mark.parametrize("step", ["stored", "audited", "queued", "remembered", "settled", "delivered"])
def test_sigkill_at_a_step_of_a_check_owes_no_alert(
    step: str, tmp_path: Path, server: Server, receiver: Server
) -> None:
    """`differ check` SIGKILLed at one step, first in the check where a page's failures reach fail_after, then
    in the one where the page is back, the canonical changed and its mirror drifted: the next check sends what
    the dead one owed, each alert once (the same message again only where the receiver had it and the process
    died before filing it as sent)."""
    path = two_documents(tmp_path, server, receiver)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["--config", str(path), "check"]

    def check(exit: int = 0) -> None:
        """`differ check`, or with exit -9 one killed at the step."""
        command = ["tests.killed", step] if exit == -signal.SIGKILL else ["differ"]
        done = subprocess.run(
            [sys.executable, "-m", *command, *args], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == exit, done.stdout + done.stderr

    check()
    down = server.routes["/d"]
    server.routes["/d"] = Reply(500, b"down")
    check(1)
    check(-signal.SIGKILL)  # the second failure
    check(1)
    queued_by = 3 if step in ("stored", "audited") else 2  # the check that died, or the one after it
    failing = [(a["type"], a["data"]["failures"]) for a in first_deliveries(receiver).values()]
    assert failing == [("differ.fetch_failing", queued_by)]
    server.routes["/d"] = down
    server.page("/c", canonical_page(2))
    server.page("/m", mirror_page(1, "dropped"))
    check(-signal.SIGKILL)
    check()
    check()
    alerts = first_deliveries(receiver)
    kinds = sorted(
        (
            a["type"],
            a["data"].get("source") or a["data"].get("mirror"),
            (a["data"].get("diff") or {}).get("to", {}).get("version"),
        )
        for a in alerts.values()
    )
    assert kinds == [
        ("differ.changed", "rel/c", 2),
        ("differ.changed", "rel/m", 2),
        ("differ.fetch_failing", "down/d", None),
        ("differ.mirror_drift", "m", None),
        ("differ.recovered", "down/d", None),
    ]
    record = json.loads((tmp_path / "snap" / "audits" / "rel.json").read_text())["m"]
    drift = next(a["data"] for a in alerts.values() if a["type"] == "differ.mirror_drift")
    assert drift["signature"] == record["signature"]
    hits = len(receiver.requests_to("/hooks"))
    assert hits == len(alerts) + (2 if step == "delivered" else 0)  # the one the receiver had, again


def test_sigkill_during_failures_and_drift_owes_no_alert(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """Failing streaks, recoveries and mirror drift, with `differ check` killed at random moments: every streak
    that reached fail_after in checks that finished is alerted once as failing and once as recovered, no
    alert is for a streak that did not fail that often, and the last drift alert carries the audit's final
    findings."""
    rng = random.Random(78)
    path = two_documents(tmp_path, server, receiver)
    down = server.routes["/d"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "differ", "--config", str(path), "check"]
    subprocess.run(command, env=env, capture_output=True, timeout=120)  # the first versions, the first audit
    times = []  # how long a check takes here (start-up included), to aim the kills
    for _ in range(3):
        started = time.monotonic()
        subprocess.run(command, env=env, capture_output=True, timeout=120)
        times.append(time.monotonic() - started)
    aim = Aim(sorted(times)[1])
    rounds: list[tuple[bool, bool, bool, int, int]] = []  # (page down, fetched, finished, first second, last)
    revision, copied, failing, kills = 1, 1, False, 0
    for round_ in range(50):
        if rng.random() < 0.15:
            revision += 1
            server.page("/c", canonical_page(revision))
        if rng.random() < 0.3:
            copied = rng.choice([copied, revision])
            server.page("/m", mirror_page(copied, rng.choice(["", "", "dropped", "mangled"])))
        was = failing
        failing = rng.random() < (0.7 if failing else 0.3) or round_ < 2  # the first streak: finished checks
        server.routes["/d"] = Reply(500, b"down") if failing else down
        if failing and not was:  # a streak starts in a second of its own: its start second names it
            time.sleep(1 - time.time() % 1 + 0.01)
        hits = len(server.requests_to("/d"))
        first = int(time.time())
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.1, 2.0) * aim.took)
        if round_ >= 2:
            killed = proc.poll() is None
            if killed:
                proc.send_signal(signal.SIGKILL)
                kills += 1
            aim.after(killed)
        finished = proc.wait() != -signal.SIGKILL
        rounds.append((failing, len(server.requests_to("/d")) > hits, finished, first, int(time.time())))
    server.routes["/d"] = down  # the page is back for the last check, which ends the last streak
    final = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert final.returncode == 0, final.stdout + final.stderr
    assert kills >= 15, f"only {kills} of 50 checks were killed (a check took about {aim.took:.2f} s)"

    alerts = list(first_deliveries(receiver).values())
    store = Store(tmp_path / "snap")
    failed_at = {e["at"] for e in store.fetches("down/d") if e["outcome"] == "failed"}
    streak_alerts: dict[str, list[int]] = {"differ.fetch_failing": [], "differ.recovered": []}
    for payload in alerts:
        if payload["type"] in streak_alerts:
            data = payload["data"]
            assert data["failures"] >= 2 and data.get("since") in failed_at, (
                payload
            )  # a streak that reached 2
            streak_alerts[payload["type"]].append(
                int(datetime.strptime(data["since"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp())
            )
    # A streak that must have been alerted: two finished checks found the page down, with no check that found
    # it up between them. It started after the last finished check that found the page up.
    owed: dict[int, int] = {}  # start: the end of the round where its second finished check ended
    start, run = None, 0
    for down_now, fetched, finished, first, last in rounds:
        if not fetched:
            continue
        if not down_now:
            run = 0
            start = None if finished else start
            continue
        start = first if start is None else start
        run += finished
        if run >= 2:
            owed.setdefault(start, last)
    assert owed  # the first streak at least
    for kind, seconds in streak_alerts.items():
        assert len(seconds) == len(set(seconds)), kind  # one alert of each kind a streak
        for low, high in owed.items():
            assert any(low <= s <= high for s in seconds), (kind, low, high, seconds)

    record = json.loads((tmp_path / "snap" / "audits" / "rel.json").read_text())["m"]
    drift = [p["data"] for p in alerts if p["type"] == "differ.mirror_drift"]
    assert drift, "the mirror never drifted; the test needs another seed"
    assert drift[-1]["signature"] == record["signature"]  # the last drift alert is of the final findings


@pytest.mark.parametrize("step", ["stored", "audited", "queued", "settled", "delivered"])
def test_sigkill_at_a_step_of_a_first_check_owes_each_first_version_once(
    step: str, tmp_path: Path, server: Server, receiver: Server
) -> None:
    """A destination that takes `first_version` (as the Wayback Machine's does, to capture each page as first
    seen), with the first `differ check` killed at one step: the next checks send each page's first version
    once, none lost (the same message again only where the receiver had it before the process died)."""
    path = two_documents(tmp_path, server, receiver)
    path.write_text(path.read_text() + 'events = ["first_version", "changed"]\n')  # the [[notify]] table's
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for command in (["tests.killed", step], ["differ"], ["differ"]):
        subprocess.run(
            [sys.executable, "-m", *command, "--config", str(path), "check"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    alerts = first_deliveries(receiver)
    assert sorted((a["type"], a["data"]["source"]) for a in alerts.values()) == [
        ("differ.first_version", "down/d"),
        ("differ.first_version", "rel/c"),
        ("differ.first_version", "rel/m"),
    ]
    assert len(receiver.requests_to("/hooks")) == len(alerts) + (1 if step == "delivered" else 0)
