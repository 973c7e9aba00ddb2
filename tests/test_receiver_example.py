"""examples/receiver/receive.py, the webhook receiver the docs offer, as a real process taking differ's real
alerts: each verified, kept once however often it is sent, forgeries and replays refused, a crash survived."""

from __future__ import annotations

import base64
import http.client
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from differ.app import App
from differ.check import check
from differ.notify.webhook import signature
from differ.store import Store
from tests.conftest import Server, article, one_doc

RECEIVER = Path(__file__).resolve().parent.parent / "examples" / "receiver" / "receive.py"
SECRET = "whsec_" + base64.b64encode(b"r" * 32).decode()
OLD_SECRET = "whsec_" + base64.b64encode(b"o" * 32).decode()


class Receiver:
    """receive.py running on a free port, writing `out`."""

    def __init__(self, out: Path, **env: str) -> None:
        self.out = out
        self.proc = subprocess.Popen(
            [sys.executable, str(RECEIVER), "--port", "0", "--out", str(out)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "WEBHOOK_SECRET": SECRET, **env},
        )
        self.url = self.line().removeprefix("listening on ")

    def line(self) -> str:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 20)
        assert ready, "receive.py said nothing"
        return self.proc.stdout.readline().strip()

    def post(
        self, msg_id: str, body: bytes, *, secret: str = SECRET, at: int | None = None
    ) -> requests.Response:
        stamp = int(time.time()) if at is None else at
        headers = {
            "webhook-id": msg_id,
            "webhook-timestamp": str(stamp),
            "webhook-signature": signature(secret, msg_id, stamp, body),
            "Content-Type": "application/json",
        }
        return requests.post(self.url, data=body, headers=headers, timeout=10)

    def kept(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.out.read_text().splitlines()]

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


@pytest.fixture
def started(tmp_path: Path) -> Iterator[list[Receiver]]:
    running: list[Receiver] = []
    yield running
    for r in running:
        if r.proc.poll() is None:
            r.kill()
        for pipe in (r.proc.stdout, r.proc.stderr):
            if pipe is not None:
                pipe.close()


def start(started: list[Receiver], out: Path, **env: str) -> Receiver:
    started.append(Receiver(out, **env))
    return started[-1]


def test_differs_alert_is_verified_and_kept_once(
    tmp_path: Path, server: Server, started: list[Receiver]
) -> None:
    receiver = start(started, tmp_path / "events.jsonl")
    server.page("/post", article("<p>Support: CUDA 12.8.</p>"))
    config = one_doc(
        tmp_path,
        server.url("/post"),
        extra="robots = false",
        notify=f'[[notify]]\nname = "hooks"\nkind = "webhook"\nurl = "{receiver.url}"\nsecret = "{SECRET}"\n',
    )
    app = App(config, Store(config.service.snapshots))  # the real clock: the receiver checks the timestamp
    check(app, config.sources())
    server.page("/post", article("<p>Support: CUDA 13.0.</p>"))
    check(app, config.sources())

    assert receiver.line().startswith("differ.changed msg_")
    [kept] = receiver.kept()
    assert kept["type"] == "differ.changed"
    data = kept["data"]
    assert (data["source"], data["document"], data["url"]) == ("doc/canonical", "doc", server.url("/post"))
    assert data["diff"]["schema"] == "differ.diff/1"
    assert data["message"] == {
        "title": "Doc changed (canonical)",
        "lines": [
            "Doc (canonical), version 1 → 2: 1 change.",
            '• "Support: CUDA 12.8."',
            '  → "Support: CUDA 13.0."',
        ],
        "link": None,
    }
    # differ sent it once; the same message again (a retry whose answer was lost) is acknowledged, not kept twice
    sent = next((config.service.snapshots / "outbox" / "hooks" / "sent").iterdir())
    body = json.dumps(json.loads(sent.read_text())["body"]).encode()
    assert receiver.post(kept["id"], body).status_code == 204
    assert len(receiver.kept()) == 1


def test_forged_replayed_and_malformed_requests_are_refused(tmp_path: Path, started: list[Receiver]) -> None:
    receiver = start(started, tmp_path / "events.jsonl")
    body = json.dumps({"type": "differ.test", "timestamp": "2026-12-06T00:00:00Z", "data": {}}).encode()
    other = "whsec_" + base64.b64encode(b"x" * 32).decode()
    assert (
        receiver.post("msg_1", body, secret=other).status_code,
        receiver.post("msg_1", body).status_code,
    ) == (
        401,
        204,
    )
    signed = receiver.post("msg_2", body.replace(b"differ.test", b"differ.tset"))
    signed_headers = dict(signed.request.headers)
    tampered = requests.post(
        receiver.url, data=body.replace(b"test", b"TEST"), headers=signed_headers, timeout=10
    )  # a signed body altered on the way
    assert tampered.status_code == 401
    assert (
        receiver.post("msg_3", body, at=int(time.time()) - 3600).status_code == 400
    )  # an old message replayed
    assert requests.post(receiver.url, data=body, timeout=10).status_code == 400  # unsigned
    assert receiver.post("msg_4", b"not json").status_code == 400
    for length, status in (("abc", 400), (str(10**9), 413)):  # a length that is none, or too much to read
        host, port = receiver.url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.putrequest("POST", "/")
        conn.putheader("Content-Length", length)
        conn.endheaders()
        assert conn.getresponse().status == status
        conn.close()
    assert [k["id"] for k in receiver.kept()] == ["msg_1", "msg_2"]


def test_a_killed_receiver_keeps_what_it_acknowledged_and_its_ids(
    tmp_path: Path, started: list[Receiver]
) -> None:
    out = tmp_path / "events.jsonl"
    receiver = start(started, out)
    body = json.dumps({"type": "differ.test", "timestamp": "2026-12-06T00:00:00Z", "data": {}}).encode()
    assert receiver.post("msg_1", body).status_code == 204
    receiver.kill()
    with out.open("ab") as f:  # a line the crash cut short: never acknowledged, so differ sends it again
        f.write(b'{"id": "msg_2", "type": "differ.te')
    again = start(started, out)
    assert (again.post("msg_1", body).status_code, again.post("msg_2", body).status_code) == (204, 204)
    assert [k["id"] for k in again.kept()] == ["msg_1", "msg_2"]


def test_either_secret_verifies_while_differ_moves_to_a_new_one(
    tmp_path: Path, started: list[Receiver]
) -> None:
    receiver = start(started, tmp_path / "events.jsonl", WEBHOOK_PREVIOUS_SECRET=OLD_SECRET)
    body = json.dumps({"type": "differ.test", "timestamp": "2026-12-06T00:00:00Z", "data": {}}).encode()
    assert (
        receiver.post("msg_1", body, secret=OLD_SECRET).status_code,
        receiver.post("msg_2", body).status_code,
    ) == (
        204,
        204,
    )


def test_without_a_secret_it_does_not_start(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "WEBHOOK_SECRET"}
    done = subprocess.run(
        [sys.executable, str(RECEIVER), "--port", "0"], capture_output=True, text=True, env=env, timeout=30
    )
    assert (done.returncode, done.stderr) == (
        1,
        "receive.py: set WEBHOOK_SECRET to the notifier's secret (whsec_...)\n",
    )
