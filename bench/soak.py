"""`make soak`: `differ run` with 200 sources at 1-second intervals against the chaos server for 5 minutes,
while a few pages really change. Afterwards: no crash, every real change recorded and alerted exactly once,
no version for any fault, memory flat, `differ verify` passes; the first 20 pages have a mirror that copies each
edit 10 s later, and each ends up audited as up to date. Prints the figures and writes bench/results/soak.json.
Options: --sources N --minutes M --fault-rate R --seed S --mirrors K."""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.chaos import FAULTS, Chaos
from differ.store import Store

ROOT = Path(__file__).resolve().parent.parent
SECRET = "whsec_" + base64.b64encode(b"s" * 32).decode()


class Receiver(BaseHTTPRequestHandler):
    """Records every webhook it gets."""

    posts: list[tuple[str, dict[str, Any]]] = []  # noqa: RUF012
    lock = threading.Lock()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with self.lock:
            self.posts.append((self.headers.get("webhook-id", ""), json.loads(body)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def write_config(folder: Path, chaos: Chaos, receiver: str, sources: int, mirrors: int = 0) -> Path:
    text = (
        f'[service]\nsnapshots = "{folder / "snapshots"}"\ninterval = "1s"\njitter = 0\nper_host_delay = "0s"\n'
        'per_host_connections = 16\nworkers = 16\ntimeout = "1s"\nretries = 0\nmax_bytes = "1MB"\n'
        'retry_after_cap = "2s"\n'
    )
    for n in range(sources):
        text += (
            f'[[documents]]\nid = "d{n}"\n[documents.canonical]\nid = "page"\nurl = "{chaos.base}/p/{n}"\n'
            'selector = "article"\nrobots = false\nallow_private = ["127.0.0.1"]\n'
        )
        if n < mirrors:
            text += (
                f'[[documents.mirrors]]\nid = "copy"\nurl = "{chaos.base}/m/{n}"\nselector = "article"\n'
                'robots = false\nallow_private = ["127.0.0.1"]\n'
            )
    text += f'[[notify]]\nname = "hooks"\nkind = "webhook"\nurl = "{receiver}/hooks"\nsecret = "{SECRET}"\n'
    path = folder / "config.toml"
    path.write_text(text)
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sources", type=int, default=200)
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--fault-rate", type=float, default=0.25, help="share of requests that meet a fault")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--mirrors", type=int, default=20, help="documents whose page a mirror copies 10 s later")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    chaos = Chaos({f: args.fault_rate / len(FAULTS) for f in FAULTS}, seed=args.seed, slow_seconds=2.0)
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    folder = Path(tempfile.mkdtemp(prefix="differ-soak-"))
    config = write_config(
        folder, chaos, f"http://127.0.0.1:{receiver.server_address[1]}", args.sources, args.mirrors
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = open(folder / "run.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "differ", "--config", str(config), "run"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    started = time.monotonic()
    duration = args.minutes * 60
    changes: Counter[int] = Counter()
    copied: Counter[int] = Counter()  # the times each mirror copied a new revision of its page
    follows: list[tuple[float, int]] = []  # (when, page): a mirror copies its page 10 s after it changed
    rss: list[tuple[float, int]] = []
    next_change, next_sample = 20.0, 10.0
    while time.monotonic() - started < duration:
        elapsed = time.monotonic() - started
        if proc.poll() is not None:
            print(f"differ run exited early with {proc.returncode}; see {folder / 'run.log'}")
            return 1
        if elapsed >= next_change and elapsed < duration - 20:  # real edits, early enough to be seen
            for n in rng.sample(range(args.sources), 3):
                chaos.change(n)
                changes[n] += 1
                if n < args.mirrors:
                    follows.append((elapsed + 10, n))
            next_change += 20
        while follows and follows[0][0] <= elapsed:
            _, n = follows.pop(0)
            copied[n] += chaos.follow(n)
        if elapsed >= next_sample:
            rss.append((round(elapsed), rss_kib(proc.pid)))
            next_sample += 10
        time.sleep(0.2)
    chaos.rates = {}  # a calm last stretch, so the last edits are surely seen
    time.sleep(10)
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=60)
    subprocess.run(
        [sys.executable, "-m", "differ", "--config", str(config), "outbox", "retry"],
        env=env,
        capture_output=True,
        timeout=300,
    )
    verify = subprocess.run(
        [sys.executable, "-m", "differ", "--config", str(config), "verify"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    store = Store(folder / "snapshots")
    versions = {n: len(store.versions(f"d{n}/page")) for n in range(args.sources)}
    expected = {n: 1 + changes[n] for n in range(args.sources)}
    copies = {n: len(store.versions(f"d{n}/copy")) for n in range(args.mirrors)}
    false_versions = sum(max(0, versions[n] - expected[n]) for n in versions)
    lost_versions = sum(max(0, expected[n] - versions[n]) for n in versions)
    false_versions += sum(max(0, copies[n] - 1 - copied[n]) for n in copies)
    lost_versions += sum(max(0, 1 + copied[n] - copies[n]) for n in copies)
    # Every mirror copied its page's last revision: the last audit finds it up to date, and the last drift
    # alert about it (if any) says it caught up.
    behind = []
    last_drift: dict[str, dict[str, Any]] = {}
    for _, payload in Receiver.posts:
        if payload["type"] == "differ.mirror_drift":
            last_drift[payload["data"]["document"]] = payload["data"]
    for n in range(args.mirrors):
        try:
            audited = json.loads((folder / "snapshots" / "audits" / f"d{n}.json").read_text())["copy"]
        except (OSError, ValueError, KeyError):
            audited = {}
        drift = last_drift.get(f"d{n}")
        if audited.get("matches_version") != versions[n] or (
            drift and drift["audit"]["matches_version"] != drift["canonical_version"]
        ):
            behind.append(f"d{n}")
    alerts: Counter[tuple[str, int]] = Counter()
    ids: set[str] = set()
    for msg_id, payload in Receiver.posts:
        if payload["type"] == "differ.changed" and msg_id not in ids:
            ids.add(msg_id)
            data = payload["data"]
            alerts[(data["source"], data["diff"]["to"]["version"])] += 1
    # The receiver answers every post at once, so a webhook-id it gets twice is an alert sent twice, not a
    # retry after a lost answer.
    seen = Counter(msg_id for msg_id, _ in Receiver.posts)
    repeated = sum(count - 1 for count in seen.values())
    real = {(f"d{n}/page", v) for n in versions for v in range(2, versions[n] + 1)}
    real |= {(f"d{n}/copy", v) for n in copies for v in range(2, copies[n] + 1)}
    false_alerts = sum(1 for key in alerts if key not in real) + sum(c - 1 for c in alerts.values() if c > 1)
    lost_alerts = sum(1 for key in real if key not in alerts)
    steady = [k for t, k in rss if t >= 60] or [k for _, k in rss]
    result = {
        "sources": args.sources,
        "minutes": args.minutes,
        "interval_s": 1,
        "fault_rate": args.fault_rate,
        "requests": chaos.requests,
        "faults_injected": sum(chaos.injected.values()),
        "faults_by_kind": dict(sorted(chaos.injected.items())),
        "real_changes": sum(changes.values()),
        "mirrors": args.mirrors,
        "mirror_copies": sum(copied.values()),
        "mirror_versions": sum(copies.values()),
        "drift_alerts": len({i for i, p in Receiver.posts if p["type"] == "differ.mirror_drift"}),
        "mirrors_left_behind": behind,
        "versions": sum(versions.values()),
        "false_versions": false_versions,
        "lost_versions": lost_versions,
        "alerts": sum(alerts.values()),
        "false_alerts": false_alerts,
        "lost_alerts": lost_alerts,
        "deliveries": len(Receiver.posts),
        "repeated_deliveries": repeated,
        "exit_code": code,
        "verify": verify.stdout.strip().splitlines()[-1],
        "rss_kib": rss,
        "rss_growth_after_first_minute": round(steady[-1] / steady[0] - 1, 3) if steady else None,
    }
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    (ROOT / "bench" / "results" / "soak.json").write_text(json.dumps(result, indent=2) + "\n")
    for key in (
        "requests",
        "faults_injected",
        "real_changes",
        "mirror_copies",
        "mirror_versions",
        "drift_alerts",
        "mirrors_left_behind",
        "versions",
        "false_versions",
        "lost_versions",
        "alerts",
        "false_alerts",
        "lost_alerts",
        "deliveries",
        "repeated_deliveries",
        "exit_code",
        "verify",
        "rss_growth_after_first_minute",
    ):
        print(f"{key:30} {result[key]}")
    print(f"{'faults_by_kind':30} {result['faults_by_kind']}")
    print(f"{'rss_kib (t, KiB)':30} {rss}")
    chaos.close()
    receiver.shutdown()
    ok = (
        code == 0
        and verify.returncode == 0
        and false_versions == 0
        and lost_versions == 0
        and false_alerts == 0
        and lost_alerts == 0
        and repeated == 0
        and not behind
    )
    print("soak: PASS" if ok else f"soak: FAIL (store and log in {folder})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
