"""What every benchmark shares: timing a step several times after a warm-up, and printing the figures."""

from __future__ import annotations

import os
import platform
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def publish(name: str, figures: object, lines: list[str]) -> None:
    """Write a benchmark's figures (`bench/results/NAME.json`) and its table (`NAME.md`), and print the table."""
    import json

    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(figures, indent=2) + "\n")
    (RESULTS / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def summary(samples: list[float]) -> dict[str, float]:
    return {
        "median": statistics.median(samples),
        "min": min(samples),
        "max": max(samples),
        "runs": len(samples),
    }


def ms(t: dict[str, float], scale: float = 1000.0, digits: int = 1) -> str:
    """`12.3 ms (11.9–13.0)`: the median with the range."""
    return f"{t['median'] * scale:.{digits}f} ({t['min'] * scale:.{digits}f}–{t['max'] * scale:.{digits}f})"


def one_core() -> int | None:
    """Pin this process to one CPU (the lowest it may use), so figures are per core; None where unsupported."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def machine() -> dict[str, object]:
    """The machine the figures were measured on."""
    memory = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = int(line.split()[1]) * 1024
    except OSError:
        pass
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu": model or platform.processor(),
        "memory_gib": round(memory / 2**30, 1),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
    }
