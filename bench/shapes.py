"""Pages shaped to make reading and diffing grow faster than their size: each shape at n and 2n, read on both
sides and diffed as `differ compare` does, in a process of its own (no cache shared between sizes). Time
should double when the page doubles; a growth near 4 is a cost growing with the square of the page.
Run: python -m bench.shapes [--quick]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable

from bench.common import ROOT

# name: (kind, page of size n, source options)
SHAPES: dict[str, tuple[str, Callable[[int], str], dict[str, object]]] = {
    "paragraph of a_a_a_…": ("markdown", lambda n: "a_" * (10 * n), {}),
    "paragraph of **_* …": ("markdown", lambda n: "**_* " * (4 * n), {}),
    "paragraph of links": (
        "markdown",
        lambda n: "".join(f"[l{i}](https://x.org/{i}) " for i in range(n)),
        {},
    ),
    "reference links": (
        "markdown",
        lambda n: (
            "".join(f"[a{i}][r{i}] " for i in range(n))
            + "\n\n"
            + "".join(f"[r{i}]: /u{i}\n" for i in range(n))
        ),
        {},
    ),
    "one long list": ("markdown", lambda n: "".join(f"- item {i} words\n" for i in range(n)), {}),
    "lists nested every which way": (
        "markdown",
        lambda n: "".join(f"{'  ' * (i % 30)}- item {i}\n" for i in range(n)),
        {},
    ),
    "bilingual lists, one language kept": (
        "markdown",
        lambda n: "".join(f"Para {i} text.\n\n- item {i}\n- 항목 {i}\n\n" for i in range(n // 4)),
        {"languages": ["en"]},
    ),
    "English and French paragraphs, one kept": (
        "markdown",
        lambda n: "".join(
            f"## Part {i}\n\nThe release {i} is out and the notes are ready.\n\n"
            f"## Partie {i}\n\nLa version {i} est sortie et les notes sont prêtes.\n\n"
            for i in range(n // 4)
        ),
        {"languages": ["fr"]},
    ),
    "run of <![CDATA[": ("markdown", lambda n: "a<![CDATA[" * (2 * n), {}),
    "sections": ("markdown", lambda n: "".join(f"## S{i}\n\ntext {i}\n\n" for i in range(n)), {}),
    "HTML paragraph of links": (
        "html",
        lambda n: "<article><p>" + "".join(f'<a href="/{i}">l{i}</a> ' for i in range(n)) + "</p></article>",
        {},
    ),
    "HTML emphasis on every word": (
        "html",
        lambda n: (
            "<article><p>"
            + "".join(f"<em>e{i}</em><strong>s{i}</strong>" for i in range(n))
            + "</p></article>"
        ),
        {},
    ),
    "HTML table, ragged rows": (
        "html",
        lambda n: (
            "<article><table>"
            + "".join("<tr>" + "<td>x</td>" * (i % 20 + 1) + "</tr>" for i in range(n // 10))
            + "</table></article>"
        ),
        {},
    ),
}


def one(name: str, n: int) -> dict[str, float]:
    """Read both versions of a shape of size n and diff them; the seconds taken and the peak memory."""
    from differ.compare import adhoc_source
    from differ.diff import diff
    from differ.normalize import Body, normalize

    kind, page, options = SHAPES[name]
    old = page(n)
    new = old.replace("1", "7", 3) + ("\n\nchanged\n" if kind == "markdown" else "<p>changed</p>")
    source = adhoc_source({"id": "shape", "url": "https://example.org/post", "kind": kind, **options})
    media = "text/markdown" if kind == "markdown" else "text/html"
    started = time.process_time()
    a, b = (normalize(Body(text.encode(), media, "https://example.org/post"), source) for text in (old, new))
    diff(a.markdown, b.markdown)
    seconds = time.process_time() - started
    return {"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def measure(n: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for name in SHAPES:
        sizes = []
        for size in (n, 2 * n):
            out = subprocess.run(
                [sys.executable, "-m", "bench.shapes", "--one", name, str(size)],
                cwd=ROOT,
                check=True,
                capture_output=True,
                text=True,
            )
            sizes.append(json.loads(out.stdout))
        growth = sizes[1]["seconds"] / max(sizes[0]["seconds"], 1e-6)
        rows.append({"shape": name, "n": n, "at_n": sizes[0], "at_2n": sizes[1], "growth": growth})
        print(
            f"| {name} | {sizes[0]['seconds']:.2f} | {sizes[1]['seconds']:.2f} | ×{growth:.1f} "
            f"| {sizes[1]['peak_mib']:.0f} |",
            flush=True,
        )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--one", nargs=2, metavar=("SHAPE", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]))))
        return 0
    n = 2000 if args.quick else 10000
    print(f"| shape (n = {n}) | s at n | s at 2n | growth | MiB at 2n |\n|---|---|---|---|---|", flush=True)
    rows = measure(n)
    worst = max(rows, key=lambda row: float(str(row["growth"])))
    print(f"\nworst growth ×{float(str(worst['growth'])):.1f} ({worst['shape']}); linear is ×2, square ×4")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
