"""Normalization speed on one core: the replay's canonical page, whole and stage by stage.

Stages: parse (BeautifulSoup on lxml), root (page metadata, content root, chrome removed), write (HTML to
canonical Markdown, the road every block of this page takes), and for comparison the longer road some blocks
and every Markdown source take: convert (HTML to escaped Markdown) then canonicalize (markdown-it-py and
mdformat). Canonicalizing and URL cleaning are cached, so stages are reported cold (caches emptied before each
page: a page never seen) and warm (a page fetched again). Where differ's writer is compiled (setup.py), each
round runs twice, in two processes taken in turn: compiled, and with the same modules imported from their
Python source (bench/as_python.py), so the two are compared under the same spell of the machine.
Run: python -m bench.normalize_bench [--quick]
"""

from __future__ import annotations

import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from bench.common import ROOT, ms, one_core, publish, summary
from differ.config import SourceConfig
from differ.normalize import Body, compiled_modules, normalize
from differ.normalize import html as htmlconv
from differ.normalize.canonical import _canonical_chunk, _chunk_words, canonicalize
from differ.normalize.mdescape import link_target
from differ.normalize.root import find_root
from differ.normalize.writer import write

PAGE = ROOT / "examples/pytorch-2.13/canonical/fetch-1.html"
URL = "https://pytorch.org/blog/pytorch-2-13-release-blog/"
BATCH = 20  # pages per timed run; figures are per page


def stages() -> dict[str, tuple[Callable[[], object], Callable[[], object] | None]]:
    """Each stage as (timed step over BATCH pages, untimed set-up before it)."""
    data = PAGE.read_bytes()
    text = data.decode()
    source = SourceConfig(document="bench", id="canonical", url=URL)
    body = Body(data, "text/html; charset=UTF-8", URL)
    converter = htmlconv.Converter(URL)
    soups: list[object] = []
    root = find_root(htmlconv.parse_html(text), None, ())
    markdown = converter.convert(root)

    def fresh_soups() -> None:
        soups[:] = [htmlconv.parse_html(text) for _ in range(BATCH)]

    def find_roots() -> None:
        for soup in soups:
            htmlconv.page_head(soup, URL)  # type: ignore[arg-type]
            find_root(soup, None, ())  # type: ignore[arg-type]
        soups.clear()

    def batch(step: Callable[[], object]) -> Callable[[], object]:
        return lambda: [step() for _ in range(BATCH)]

    def cold(step: Callable[[], object]) -> Callable[[], object]:
        def run() -> None:
            for _ in range(BATCH):
                for cache in (_canonical_chunk, _chunk_words, link_target, htmlconv._clean_url):
                    cache.cache_clear()
                step()

        return run

    return {
        "parse": (batch(lambda: htmlconv.parse_html(text)), None),
        "root": (find_roots, fresh_soups),
        "write": (cold(lambda: write(converter, root)), None),
        "convert (longer road)": (batch(lambda: converter.convert(root)), None),
        "canonicalize (longer road), cold": (cold(lambda: canonicalize(markdown)), None),
        "canonicalize (longer road), warm": (batch(lambda: canonicalize(markdown)), None),
        "whole page, cold": (cold(lambda: normalize(body, source)), None),
        "whole page, warm": (batch(lambda: normalize(body, source)), None),
    }


PASSES = 3  # timed passes over every stage in each round, after a warm-up pass


def one_round() -> dict[str, float]:
    """Every stage PASSES times over, after a warm-up pass, in this process: seconds per page by stage, the
    median of its passes. Taking the stages in turn spreads a burst of the machine's slowness over them."""
    steps = stages()
    timings: dict[str, list[float]] = {name: [] for name in steps}
    for pass_ in range(PASSES + 1):
        for name, (step, setup) in steps.items():
            gc.collect()
            if setup:
                setup()
            started = time.perf_counter()
            step()
            if pass_:
                timings[name].append((time.perf_counter() - started) / BATCH)
    return {name: statistics.median(values) for name, values in timings.items()}


def measure(runs: int) -> dict[str, list[dict[str, object]]]:
    """`runs` rounds, each in a process of its own, pinned to one core; a slow spell of the machine then
    touches all stages (and both builds) alike. Returns rows by build: "compiled" and "python", or "python"
    alone where nothing is compiled."""
    builds = {"compiled": ["bench.normalize_bench"]} if compiled_modules() else {}
    builds["python"] = ["bench.as_python", "bench.normalize_bench"]
    samples: dict[str, dict[str, list[float]]] = {build: {} for build in builds}
    for round_ in range(runs):
        order = list(builds) if round_ % 2 == 0 else list(reversed(builds))
        for build in order:
            done = subprocess.run(
                [sys.executable, "-m", *builds[build], "--round"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            )
            answer = json.loads(done.stdout)
            if bool(answer["compiled"]) != (build == "compiled"):
                raise RuntimeError(f"the {build} round ran with compiled modules {answer['compiled']}")
            for name, seconds in answer["seconds"].items():
                samples[build].setdefault(name, []).append(seconds)
    return {
        build: [_row(name, values) for name, values in by_stage.items()]
        for build, by_stage in samples.items()
    }


def _row(stage: str, samples: list[float]) -> dict[str, object]:
    per_page = summary(samples)
    return {"stage": stage, "seconds_per_page": per_page, "pages_per_second": 1 / per_page["median"]}


def table(rows: list[dict[str, object]], python: list[dict[str, object]] | None = None) -> list[str]:
    """The stages' figures; with `python`, the same stages run as Python beside them."""
    if python is None:
        lines = ["| stage | ms per page (median, min–max) | pages/s |", "|---|---|---|"]
        for row in rows:
            t = row["seconds_per_page"]
            lines.append(f"| {row['stage']} | {ms(t)} | {row['pages_per_second']:.0f} |")  # type: ignore[arg-type]
        return lines
    lines = [
        "| stage | ms per page, compiled | pages/s | ms per page, as Python | pages/s | Python ÷ compiled |",
        "|---|---|---|---|---|---|",
    ]
    for row, slow in zip(rows, python, strict=True):
        t, u = row["seconds_per_page"], slow["seconds_per_page"]
        lines.append(
            f"| {row['stage']} | {ms(t)} | {row['pages_per_second']:.0f} | {ms(u)} | "  # type: ignore[arg-type]
            f"{slow['pages_per_second']:.0f} | {u['median'] / t['median']:.2f} |"  # type: ignore[index]
        )
    return lines


def main() -> int:
    cpu = one_core()
    if "--round" in sys.argv:
        json.dump({"compiled": compiled_modules(), "seconds": one_round()}, sys.stdout)
        return 0
    runs = 3 if "--quick" in sys.argv else 5
    builds = measure(runs)
    rows = builds.get("compiled", builds["python"])
    lines = table(rows, builds["python"] if "compiled" in builds else None)
    payload = {
        "page": str(PAGE.relative_to(ROOT)),
        "bytes": PAGE.stat().st_size,
        "cpu": cpu,
        "compiled": compiled_modules(),
        "stages": rows,
        "as_python": builds["python"],
    }
    publish("normalize", payload, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
