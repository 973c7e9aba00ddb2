"""Service footprint: resident memory of `differ run` watching 1,000 sources, after one full cycle and over an
hour of cycles compressed into minutes, in several runs after a warm-up run.

The page server (a separate process) sends validators, so most checks are answered with 304, and 1% of the
pages change every interval, so versions, diffs and alerts keep happening. With an 8-second interval, 2
minutes hold about 13 cycles: an hour of checks at a 5-minute interval. RSS is read from /proc every second.
Run: python -m bench.footprint [--sources N] [--minutes M] [--interval S] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import tools
from bench.common import RESULTS, ROOT
from bench.soak import rss_kib


def write_config(work: Path, base: str, sources: int, interval: int) -> Path:
    text = (
        f'[service]\nsnapshots = "{work / "snapshots"}"\ninterval = "{interval}s"\njitter = 0.1\n'
        'per_host_delay = "0s"\nper_host_connections = 10\nworkers = 10\ntimeout = "30s"\n'
    )
    for n in range(sources):
        text += (
            f'[[documents]]\nid = "post-{n}"\n[documents.canonical]\nid = "canonical"\n'
            f'url = "{base}/p/{n}"\nselector = "article"\nallow_private = ["127.0.0.1"]\n'
        )
    path = work / "differ.toml"
    path.write_text(text)
    return path


def measure(sources: int, minutes: float, interval: int, work: Path) -> dict[str, object]:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    log = work / "stderr.log"
    server, base = tools.start_server(sources, work / "server.log")
    config = write_config(work, base, sources, interval)
    samples: list[tuple[float, int]] = []
    served = 0
    after_first: int | None = None
    first_cycle_s: float | None = None
    proc = subprocess.Popen(
        [str(tools.DIFFER), "--config", str(config), "run"],
        stdout=subprocess.DEVNULL,
        stderr=log.open("ab"),
    )
    try:
        started = time.monotonic()
        next_churn = started + interval
        tools.traffic(base)
        while (elapsed := time.monotonic() - started) < minutes * 60:
            time.sleep(1.0)
            if proc.poll() is not None:
                raise RuntimeError(f"differ run exited with {proc.returncode} (see {log})")
            served += tools.traffic(base)["requests"]
            rss = rss_kib(proc.pid)
            samples.append((round(elapsed, 1), rss))
            if after_first is None and served >= sources:
                after_first, first_cycle_s = rss, elapsed
            if time.monotonic() >= next_churn:
                tools.control(base, f"churn?count={max(1, sources // 100)}")
                next_churn += interval
        proc.send_signal(signal.SIGTERM)
        exit_code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
        server.terminate()
        server.wait()
    versions = sum(1 for _ in (work / "snapshots" / "sources").glob("*/*/versions/*.json"))
    tail = [kib for t, kib in samples if t >= minutes * 60 / 2]
    return {
        "sources": sources,
        "interval_s": interval,
        "minutes": minutes,
        "requests": served,
        "cycles": served / sources,
        "versions": versions,
        "exit_code": exit_code,
        "first_cycle_s": first_cycle_s,
        "rss_after_first_cycle_mib": (after_first or 0) / 1024,
        "rss_end_mib": samples[-1][1] / 1024 if samples else 0,
        "rss_max_mib": max(kib for _, kib in samples) / 1024 if samples else 0,
        "rss_second_half_median_mib": statistics.median(tail) / 1024 if tail else 0,
        "samples": samples,
    }


FIGURES = ("cycles", "rss_after_first_cycle_mib", "rss_second_half_median_mib", "rss_end_mib", "rss_max_mib")


def repeat(runs: int, sources: int, minutes: float, interval: int, work: Path) -> dict[str, object]:
    """`runs` runs after a warm-up run, each a fresh `differ run` and store: each figure is their median, with
    the range under "ranges" (the last run's RSS samples are kept)."""
    tools.compile_bytecode()
    reports = [measure(sources, minutes, interval, work) for _ in range(runs + 1)][1:]
    ranges = {
        key: {
            "median": statistics.median(float(r[key]) for r in reports),  # type: ignore[arg-type]
            "min": min(float(r[key]) for r in reports),  # type: ignore[arg-type]
            "max": max(float(r[key]) for r in reports),  # type: ignore[arg-type]
        }
        for key in FIGURES
    }
    combined: dict[str, object] = {key: ranges[key]["median"] for key in FIGURES}
    combined.update(
        sources=sources,
        interval_s=interval,
        minutes=minutes,
        runs=runs,
        ranges=ranges,
        exit_codes=[r["exit_code"] for r in reports],
        versions=[r["versions"] for r in reports],
        samples=reports[-1]["samples"],
    )
    return combined


def table(report: dict[str, object]) -> list[str]:
    ranges = report.get("ranges")

    def cell(key: str, unit: str = " MB", digits: int = 0) -> str:
        if not isinstance(ranges, dict):
            return f"{report[key]:.{digits}f}{unit}"
        r = ranges[key]
        return f"{r['median']:.{digits}f}{unit} ({r['min']:.{digits}f}–{r['max']:.{digits}f})"

    return [
        "| sources | cycles | RSS after first cycle | RSS median, second half | RSS at end | RSS max |",
        "|---|---|---|---|---|---|",
        f"| {report['sources']} | {cell('cycles', '', 1)} in {report['minutes']} min | "
        f"{cell('rss_after_first_cycle_mib')} | {cell('rss_second_half_median_mib')} | "
        f"{cell('rss_end_mib')} | {cell('rss_max_mib')} |",
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sources", type=int, default=1000)
    ap.add_argument("--minutes", type=float, default=4.0)
    ap.add_argument("--interval", type=int, default=15)
    ap.add_argument("--runs", type=int, default=1, help="runs after a warm-up run (make bench uses 5)")
    args = ap.parse_args()
    work = ROOT / "bench" / "work" / "footprint"
    report = repeat(args.runs, args.sources, args.minutes, args.interval, work)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "footprint.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = table(report)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
