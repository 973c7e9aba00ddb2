"""`make bench`: every benchmark in one run on this machine, side by side with urlwatch, plain difflib and git.

Writes bench/results.md (tables, targets met or missed, and where the time goes) and bench/results.json.
Scenarios: the check cycle (differ check vs urlwatch 2.29, 1,000 local pages), normalization per stage, the
pathological diffs, and the footprint of `differ run` with 1,000 sources.
Run: python -m bench.run [--quick] [--only check_cycle|normalize|diff|footprint …] (quick: 100 pages, 3 runs,
30-second footprints, for trying it out; --only measures those again and keeps the rest of bench/results.json)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from datetime import UTC, datetime
from typing import Any

from bench import check_cycle, diff_bench, footprint, normalize_bench
from bench.common import RESULTS, ROOT, machine

TARGETS = {
    "normalize": "at least 100 pages/s on one core (the replay's canonical page)",
    "diff": "each case within 3× of plain difflib; doubling the input at most doubles the time",
    "check": "differ's wall time at most urlwatch's in every scenario, half or less in steady state; "
    "differ's peak RSS at most urlwatch's",
    "footprint": "under 150 MB RSS with 1,000 sources, flat over the compressed hour",
}


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def normalize_verdict(warm: dict[str, float], cold: dict[str, float]) -> str:
    """Met only if a page never seen before is normalized fast enough; a page seen before alone is partly."""
    if cold["pages_per_second"] >= 100:
        return "met"
    return "**partly met**" if warm["pages_per_second"] >= 100 else "**missed**"


def as_python(normalized: dict[str, Any]) -> str:
    """The whole-page figures of the same code run from its Python source, where the writer is compiled."""
    if not normalized.get("compiled"):
        return " (not compiled)"
    rows = {row["stage"]: row for row in normalized["as_python"]}
    warm, cold = rows["whole page, warm"], rows["whole page, cold"]
    return (
        f" (compiled; the same code as Python in the same spell: {warm['pages_per_second']:.0f} and "
        f"{cold['pages_per_second']:.0f})"
    )


def normalize_section(normalized: dict[str, Any]) -> list[str]:
    compiled = normalized.get("compiled") or []
    lines = normalize_bench.table(normalized["stages"], normalized["as_python"] if compiled else None)
    if compiled:
        lines += [
            "",
            f"Compiled to C by mypyc (setup.py): {', '.join(compiled)}. The Python columns import the same "
            "modules from their source (bench/as_python.py), in processes taken in turn with the compiled ones.",
        ]
    return lines


def measure_normalize(quick: bool) -> dict[str, Any]:
    subprocess.run(  # a process of its own, pinned to one core
        [sys.executable, "-m", "bench.normalize_bench"] + (["--quick"] if quick else []),
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    normalized: dict[str, Any] = json.loads((RESULTS / "normalize.json").read_text())
    return normalized


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument(
        "--only",
        choices=["check_cycle", "normalize", "diff", "footprint"],
        action="append",
        help="measure this benchmark again (repeatable) and keep the other figures of bench/results.json",
    )
    args = ap.parse_args()
    pages, runs, minutes = (100, 3, 0.5) if args.quick else (1000, 5, 2.0)
    started = time.monotonic()
    stamp = {
        "when": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip(),
    }
    if args.only:
        results = json.loads((ROOT / "bench" / "results.json").read_text())
        again = results.setdefault("again", {})
        if "check_cycle" in args.only:
            print("check cycle…", flush=True)
            results["check_cycle"] = check_cycle.measure(pages, runs, ROOT / "bench" / "work" / "check-cycle")
            again["check cycle"] = stamp
        if "normalize" in args.only:
            print("normalize…", flush=True)
            results["normalize"] = measure_normalize(args.quick)
            again["normalize"] = stamp  # when and at which commit, apart from the rest of the run
        if "diff" in args.only:
            print("diff…", flush=True)
            results["diff"] = diff_bench.measure(runs)
            again["diff"] = stamp
        if "footprint" in args.only:
            print("footprint…", flush=True)
            results["footprint"] = footprint.repeat(
                runs, pages, minutes, 8, ROOT / "bench" / "work" / "footprint"
            )
            again["footprint"] = stamp
    else:
        results = {**stamp, "machine": machine(), "quick": args.quick}
        print("check cycle…", flush=True)
        cycle = check_cycle.measure(pages, runs, ROOT / "bench" / "work" / "check-cycle")
        print("normalize…", flush=True)
        normalized = measure_normalize(args.quick)
        print("diff…", flush=True)
        full = diff_bench.measure(runs)
        print("footprint…", flush=True)
        foot = footprint.repeat(runs, pages, minutes, 8, ROOT / "bench" / "work" / "footprint")
        results.update(check_cycle=cycle, normalize=normalized, diff=full, footprint=foot)
        results["seconds"] = round(time.monotonic() - started)
    RESULTS.mkdir(exist_ok=True)
    (ROOT / "bench" / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    (ROOT / "bench" / "results.md").write_text("\n".join(report(results)) + "\n")
    print((ROOT / "bench" / "results.md").read_text())
    return 0


def report(results: dict[str, object]) -> list[str]:
    m = results["machine"]
    assert isinstance(m, dict)
    cycle = results["check_cycle"]
    assert isinstance(cycle, dict)
    scenarios = cycle["scenarios"]
    lines = [
        "# differ benchmarks",
        "",
        f"Measured {results['when']} at commit {results['commit']} by `make bench` "
        f"({results['seconds']} s{', quick mode' if results['quick'] else ''}), on {m['cpus']} cores "
        f"({m['cpu']}), {m['memory_gib']} GiB, Python {m['python']}, {m['system']}. Figures are medians of "
        f"{cycle['runs']} runs after a warm-up, with min–max; ratios are differ ÷ the other tool in the same run.",
        *[
            f"Measured again, apart from the rest: {name} ({when['when']}, commit {when['commit']})."
            for name, when in results.get("again", {}).items()  # type: ignore[attr-defined]
        ],
        "",
        "## Targets",
        "",
        "| benchmark | target | result |",
        "|---|---|---|",
    ]
    steady = scenarios["steady state"]["ratio"]
    wall_ok = all(s["ratio"]["wall"] <= 1 for s in scenarios.values()) and steady["wall"] <= 0.5
    rss_ok = all(s["ratio"]["peak_rss_kib"] <= 1 for s in scenarios.values())
    walls = ", ".join(f"{name} {s['ratio']['wall']:.2f}×" for name, s in scenarios.items())
    rsss = ", ".join(f"{s['ratio']['peak_rss_kib']:.2f}×" for s in scenarios.values())
    normalize = {row["stage"]: row for row in results["normalize"]["stages"]}  # type: ignore[index]
    warm, cold = normalize["whole page, warm"], normalize["whole page, cold"]
    diff_rows = results["diff"]
    assert isinstance(diff_rows, list)
    diff_ok = all(
        (r["ratio_to_difflib"] <= 3 or not r.get("held_to_ratio", True)) and r["growth_when_doubled"] <= 2.2
        for r in diff_rows
    )
    foot = results["footprint"]
    assert isinstance(foot, dict)
    flat = foot["rss_end_mib"] <= foot["rss_after_first_cycle_mib"] * 1.10
    lines += [
        f"| check cycle, wall | {TARGETS['check'].split(';')[0]} | {verdict(wall_ok)}: {walls} |",
        f"| check cycle, memory | differ's peak RSS at most urlwatch's | {verdict(rss_ok)}: {rsss} |",
        f"| normalize | {TARGETS['normalize']} | {normalize_verdict(warm, cold)}: "
        f"{warm['pages_per_second']:.0f} pages/s with its blocks seen before, {cold['pages_per_second']:.0f} "
        f"never seen{as_python(results['normalize'])} |",  # type: ignore[arg-type]
        f"| diff | {TARGETS['diff']} | {verdict(diff_ok)}: "
        + ", ".join(
            f"{r['case']} {r['ratio_to_difflib']:.1f}×{'' if r.get('held_to_ratio', True) else ' (not held)'} "
            f"(×{r['growth_when_doubled']:.2f} doubled)"
            for r in diff_rows
        )
        + " |",
        f"| service footprint | {TARGETS['footprint']} | "
        f"{verdict(foot['rss_max_mib'] < 150 and flat)}: {foot['rss_after_first_cycle_mib']:.0f} MB after the "
        f"first cycle, {foot['rss_end_mib']:.0f} MB after {foot['cycles']:.0f} cycles |",
        "",
        f"## Check cycle: {cycle['pages']} pages of {cycle['page_bytes'] / 1000:.0f} KB on a local server",
        "",
        "differ check and urlwatch 2.29 as whole processes; wall and CPU seconds, peak RSS (wait4), what the "
        "server sent. Both use 10 connections at once and no per-host delay; urlwatch filters with "
        "`css: article` and `html2text` (its default method), differ reads `article` to canonical Markdown, "
        "stores raw bytes, Markdown and a hash-chained record, and diffs.",
        "",
        *check_cycle.table(cycle),
        "",
    ]
    for name, summary in cycle["profiles"].items():
        lines += [f"Where differ's time goes, {name} (one thread, cProfile):", "", *summary, ""]
    lines += [
        "## Normalize: the replay's canonical page on one core",
        "",
        *normalize_section(results["normalize"]),  # type: ignore[arg-type]
        "",
        "## Diff: pathological input (differ and difflib: CPU time in-process; git: wall time of its process)",
        "",
        *diff_bench.table(diff_rows),
        "",
        f"## Service footprint: `differ run`, {foot['sources']} sources, {foot['interval_s']} s interval",
        "",
        *footprint.table(foot),
        "",
        "Reproduce: `make bench` (about 25 minutes; sets up urlwatch in bench/urlwatch-venv on first use).",
    ]
    return lines


if __name__ == "__main__":
    sys.exit(main())
