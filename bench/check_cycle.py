"""Check cycle: `differ check` and `urlwatch`, whole processes, on 1,000 pages served by a local process.

Scenarios: first run (every page new, no state), steady state (nothing changed; the server sends ETag and
Last-Modified and answers conditional requests with 304), churn (5% of the pages changed since the last run;
the server sends no validators). Both tools fetch with 10 connections at once and no per-host delay; urlwatch
filters each page with `css: article` and `html2text`, differ reads `article` with its html kind. Each figure
is the median of the runs after a warm-up, with min and max; ratios are differ ÷ urlwatch in the same run.
Run: python -m bench.check_cycle [--pages N] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from bench import profile, tools
from bench.common import RESULTS, ROOT
from bench.pageserver import page

TOOLS = ("differ", "urlwatch")
SCENARIOS = ("first run", "steady state", "churn 5%")
METRICS = ("wall", "cpu", "peak_rss_kib", "bytes")


class Setup:
    """The work folder: one config for each tool, and their state (the differ store, the urlwatch cache)."""

    def __init__(self, work: Path, base: str, pages: int) -> None:
        self.work = work
        self.base = base
        self.pages = pages
        self.log = work / "stderr.log"
        self.differ_config = work / "differ.toml"
        self.urlwatch_files = {name: work / f"urlwatch-{name}.yaml" for name in ("urls", "config")}
        self.write()

    def write(self) -> None:
        text = (
            f'[service]\nsnapshots = "{self.work / "differ-snapshots"}"\nper_host_delay = "0s"\n'
            'per_host_connections = 10\nworkers = 10\ntimeout = "30s"\n'
        )
        jobs = []
        for n in range(self.pages):
            url = f"{self.base}/p/{n}"
            text += (
                f'[[documents]]\nid = "post-{n}"\n[documents.canonical]\nid = "canonical"\nurl = "{url}"\n'
                'selector = "article"\nallow_private = ["127.0.0.1"]\n'
            )
            jobs.append(f'name: "post {n}"\nurl: "{url}"\nfilter:\n  - css: article\n  - html2text\n')
        self.differ_config.write_text(text)
        self.urlwatch_files["urls"].write_text("---\n".join(jobs))

    def reset(self, tool: str) -> None:
        """Forget everything the tool has seen."""
        if tool == "differ":
            shutil.rmtree(self.work / "differ-snapshots", ignore_errors=True)
        else:
            (self.work / "urlwatch-cache.db").unlink(missing_ok=True)

    def argv(self, tool: str) -> list[str]:
        if tool == "differ":
            return [str(tools.DIFFER), "--config", str(self.differ_config), "check"]
        return [
            str(tools.urlwatch()),
            "--urls",
            str(self.urlwatch_files["urls"]),
            "--config",
            str(self.urlwatch_files["config"]),
            "--hooks",
            str(self.work / "no-hooks.py"),
            "--cache",
            str(self.work / "urlwatch-cache.db"),
        ]

    def run(self, tool: str) -> tools.Run:
        result = tools.run(self.argv(tool), self.base, self.log)
        if result.exit_code != 0:
            raise RuntimeError(f"{tool} exited with {result.exit_code} (see {self.log})")
        return result


def scenario(setup: Setup, runs: int, before: Callable[[str], None]) -> dict[str, list[tools.Run]]:
    """A warm-up round, then `runs` rounds; in each round both tools run, in alternating order."""
    samples: dict[str, list[tools.Run]] = {tool: [] for tool in TOOLS}
    for round_ in range(runs + 1):
        order = TOOLS if round_ % 2 == 0 else TOOLS[::-1]
        before("round")
        for tool in order:
            before(tool)
            result = setup.run(tool)
            if round_:
                samples[tool].append(result)
    return samples


def figures(samples: list[tools.Run]) -> dict[str, dict[str, float]]:
    out = {}
    for metric in METRICS:
        values = [float(getattr(s, metric)) for s in samples]
        out[metric] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    out["requests"] = {"median": statistics.median(float(s.requests) for s in samples)}
    return out


def measure(pages: int, runs: int, work: Path) -> dict[str, object]:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    tools.urlwatch()
    tools.compile_bytecode()
    server, base = tools.start_server(pages, work / "server.log")
    try:
        setup = Setup(work, base, pages)
        setup.run("urlwatch")  # writes urlwatch's default config file once
        results: dict[str, object] = {}

        def first(step: str) -> None:
            if step in TOOLS:
                setup.reset(step)

        tools.control(base, "validators?on=1")
        results["first run"] = scenario(setup, runs, first)
        results["steady state"] = scenario(setup, runs, lambda step: None)
        tools.control(base, "validators?on=0")
        churn = max(1, pages // 20)

        def changed(step: str) -> None:
            if step == "round":
                tools.control(base, f"churn?count={churn}")

        results["churn 5%"] = scenario(setup, runs, changed)
        tools.control(base, "validators?on=1")
        profiles = profile_differ(setup)
    finally:
        server.terminate()
        server.wait()
    report: dict[str, object] = {
        "pages": pages,
        "page_bytes": len(page(0, 0)),
        "runs": runs,
        "scenarios": {},
        "profiles": profiles,
    }
    for name in SCENARIOS:
        samples = results[name]
        assert isinstance(samples, dict)
        entry = {tool: figures(samples[tool]) for tool in TOOLS}
        entry["ratio"] = {
            metric: entry["differ"][metric]["median"] / entry["urlwatch"][metric]["median"]
            if entry["urlwatch"][metric]["median"]
            else None
            for metric in METRICS
        }
        entry["raw"] = {tool: [asdict(s) for s in samples[tool]] for tool in TOOLS}
        report["scenarios"][name] = entry  # type: ignore[index]
    return report


def profile_differ(setup: Setup) -> dict[str, list[str]]:
    """cProfile of `differ check` in one thread: a first run, then a steady-state run."""
    config = setup.work / "differ-profile.toml"
    config.write_text(
        setup.differ_config.read_text()
        .replace("workers = 10", "workers = 1")
        .replace(str(setup.work / "differ-snapshots"), str(setup.work / "profile-snapshots"))
    )
    out = {}
    for name in ("first run", "steady state"):
        if (
            name == "steady state"
        ):  # the check after a first run records the change of outcome; this one has none
            tools.run([str(tools.DIFFER), "--config", str(config), "check"], setup.base, setup.log)
        stats = profile.profile(config, setup.work / f"{name.replace(' ', '-')}.prof", setup.log, setup.base)
        out[name] = profile.summarize(stats, setup.pages)
    return out


def table(report: dict[str, object]) -> list[str]:
    lines = [
        "| scenario | tool | wall s | CPU s | peak RSS MB | MB received | requests |",
        "|---|---|---|---|---|---|---|",
    ]
    scenarios = report["scenarios"]
    assert isinstance(scenarios, dict)
    for name, entry in scenarios.items():
        for tool in TOOLS:
            f = entry[tool]
            lines.append(
                f"| {name} | {tool} | {_cell(f['wall'])} | {_cell(f['cpu'])} | "
                f"{_cell(f['peak_rss_kib'], 1 / 1024, 0)} | {f['bytes']['median'] / 1e6:.1f} | "
                f"{f['requests']['median']:.0f} |"
            )
        r = entry["ratio"]
        lines.append(
            f"| {name} | **differ ÷ urlwatch** | **{r['wall']:.2f}×** | {r['cpu']:.2f}× | "
            f"{r['peak_rss_kib']:.2f}× | {_ratio(r['bytes'])} | |"
        )
    return lines


def _cell(t: dict[str, float], scale: float = 1.0, digits: int = 2) -> str:
    return f"{t['median'] * scale:.{digits}f} ({t['min'] * scale:.{digits}f}–{t['max'] * scale:.{digits}f})"


def _ratio(value: float | None) -> str:
    return f"{value:.2f}×" if value is not None else "–"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    report = measure(args.pages, args.runs, ROOT / "bench" / "work" / "check-cycle")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "check_cycle.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = table(report)
    for name, summary in report["profiles"].items():  # type: ignore[attr-defined]
        lines += ["", f"differ check, {name}, in one thread under cProfile:", "", *summary]
    (RESULTS / "check_cycle.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
