"""Normalization speed on one core: the replay's canonical page, whole and stage by stage.

Stages: parse (BeautifulSoup on lxml), root (page metadata, content root, chrome removed), write (HTML to
canonical Markdown, the road every block of this page takes), and for comparison the longer road some blocks
and every Markdown source take: convert (HTML to escaped Markdown) then canonicalize (markdown-it-py and
mdformat). Canonicalizing and URL cleaning are cached, so stages are reported cold (caches emptied before each
page: a page never seen) and warm (a page fetched again). Run: python -m bench.normalize_bench [--quick]
"""

from __future__ import annotations

import gc
import json
import sys
import time
from collections.abc import Callable

from bench.common import RESULTS, ROOT, ms, one_core, summary
from differ.config import SourceConfig
from differ.normalize import Body, normalize
from differ.normalize import html as htmlconv
from differ.normalize.canonical import _canonical_chunk, _chunk_words, canonicalize
from differ.normalize.writer import _link_target, write

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
    root = htmlconv.find_root(htmlconv.parse_html(text), None, ())
    markdown = converter.convert(root)

    def fresh_soups() -> None:
        soups[:] = [htmlconv.parse_html(text) for _ in range(BATCH)]

    def find_roots() -> None:
        for soup in soups:
            htmlconv.page_metadata(soup)  # type: ignore[arg-type]
            htmlconv.find_root(soup, None, ())  # type: ignore[arg-type]
        soups.clear()

    def batch(step: Callable[[], object]) -> Callable[[], object]:
        return lambda: [step() for _ in range(BATCH)]

    def cold(step: Callable[[], object]) -> Callable[[], object]:
        def run() -> None:
            for _ in range(BATCH):
                for cache in (_canonical_chunk, _chunk_words, _link_target, htmlconv._clean_url):
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


def measure(runs: int) -> list[dict[str, object]]:
    """Every stage once a round, `runs` rounds after a warm-up round: a slow spell of the machine then touches
    all stages alike instead of one."""
    steps = stages()
    samples: dict[str, list[float]] = {name: [] for name in steps}
    for round_ in range(runs + 1):
        for name, (step, setup) in steps.items():
            gc.collect()
            if setup:
                setup()
            started = time.perf_counter()
            step()
            if round_:
                samples[name].append((time.perf_counter() - started) / BATCH)
    rows = []
    for name, values in samples.items():
        per_page = summary(values)
        rows.append({"stage": name, "seconds_per_page": per_page, "pages_per_second": 1 / per_page["median"]})
    return rows


def table(rows: list[dict[str, object]]) -> list[str]:
    lines = ["| stage | ms per page (median, min–max) | pages/s |", "|---|---|---|"]
    for row in rows:
        t = row["seconds_per_page"]
        lines.append(f"| {row['stage']} | {ms(t)} | {row['pages_per_second']:.0f} |")  # type: ignore[arg-type]
    return lines


def main() -> int:
    runs = 3 if "--quick" in sys.argv else 5
    cpu = one_core()
    rows = measure(runs)
    lines = table(rows)
    RESULTS.mkdir(exist_ok=True)
    payload = {"page": str(PAGE.relative_to(ROOT)), "bytes": PAGE.stat().st_size, "cpu": cpu, "stages": rows}
    (RESULTS / "normalize.json").write_text(json.dumps(payload, indent=2) + "\n")
    (RESULTS / "normalize.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
