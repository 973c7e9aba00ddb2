"""Crash consistency: `differ check` killed with SIGKILL at random moments, 100 times, while pages change."""

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
from pathlib import Path

from differ.store import Store
from tests.conftest import ROOT, Reply, Server, article

SECRET = "whsec_" + base64.b64encode(b"c" * 32).decode()
SOURCES = 4


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
    took = sorted(times)[1]
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
        time.sleep(rng.uniform(0.1, 1.5) * took)  # kills land in start-up, during the check and after it
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
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
    assert kills >= 30, f"only {kills} of 100 checks were killed (a check took {took:.2f} s)"
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
