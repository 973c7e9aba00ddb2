"""The programs the benchmarks compare, set up and run as whole processes: differ, and urlwatch 2.29 in its own
virtual environment under bench/ (installed from PyPI on first use)."""

from __future__ import annotations

import compileall
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from bench.common import ROOT

URLWATCH_VERSION = "2.29"
URLWATCH_VENV = ROOT / "bench" / "urlwatch-venv"
DIFFER = Path(sys.executable).with_name("differ")


def urlwatch() -> Path:
    """The urlwatch executable, installing urlwatch (with html2text and cssselect for its filters) if needed."""
    exe = URLWATCH_VENV / "bin" / "urlwatch"
    stamp = URLWATCH_VENV / f".urlwatch-{URLWATCH_VERSION}"
    if not stamp.exists():
        shutil.rmtree(URLWATCH_VENV, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(URLWATCH_VENV)], check=True)
        subprocess.run(
            [
                str(URLWATCH_VENV / "bin" / "python"),
                "-m",
                "pip",
                "install",
                "--quiet",
                f"urlwatch=={URLWATCH_VERSION}",
                "html2text",
                "cssselect",
            ],
            check=True,
        )
        stamp.touch()
    return exe


@dataclass
class Run:
    """One whole-process run: wall and CPU seconds, peak RSS, bytes and requests the page server sent."""

    wall: float
    cpu: float
    peak_rss_kib: int
    bytes: int
    requests: int
    exit_code: int


def traffic(server: str) -> dict[str, int]:
    """Bytes and requests served since the last call (and reset the counters)."""
    with urllib.request.urlopen(f"{server}/_bench/traffic", timeout=10) as reply:
        return dict(json.loads(reply.read()))


def control(server: str, command: str) -> dict[str, object]:
    with urllib.request.urlopen(f"{server}/_bench/{command}", timeout=10) as reply:
        return dict(json.loads(reply.read()))


def run(argv: list[str], server: str, log: Path, cwd: Path | None = None) -> Run:
    """Run a command to its end, measuring it through wait4 (its own CPU time and peak RSS, not ours)."""
    traffic(server)
    with log.open("ab") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    served = traffic(server)
    return Run(
        wall=wall,
        cpu=usage.ru_utime + usage.ru_stime,
        peak_rss_kib=usage.ru_maxrss,
        bytes=served["bytes"],
        requests=served["requests"],
        exit_code=proc.returncode,
    )


def compile_bytecode() -> None:
    """Compile differ's modules to bytecode, as installing a package does (urlwatch's were, by pip): with
    PYTHONDONTWRITEBYTECODE set, an editable install would otherwise compile them again in every process."""
    compileall.compile_dir(ROOT / "differ", quiet=1)


def start_server(pages: int, log: Path) -> tuple[subprocess.Popen[str], str]:
    """The page server in a process of its own; returns it with its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.pageserver", "--pages", str(pages)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=log.open("ab"),
        text=True,
    )
    assert proc.stdout is not None
    base = proc.stdout.readline().strip()
    if not base.startswith("http://127.0.0.1:"):
        proc.kill()
        raise RuntimeError(f"page server did not start (see {log})")
    return proc, base
