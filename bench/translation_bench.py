"""The audit of a translation, whose blocks are paired with the canonical's (differ.audit.translation): timed on
the Korean translation of the replay post (tests/data/translation) against the post, on both repeated 2, 4 and 8
times (each repetition's PR numbers renumbered, as the sections of a longer post), on a German translation of the
Rust 1.93.0 post (a translation within the post's script), and on posts of 1,000 and 2,000 blocks with no number or
name on either side to pin a pair (the worst case: every stretch paired block by block).
Beside each, a plain `difflib.unified_diff` of the two texts' lines (what urlwatch or changedetection.io would
compute if pointed at the two pages) and differ's word-by-word audit of the same pair (what it did with a
translation before). CPU time, median of 5 rounds after a warm-up round.
Run: python -m bench.translation_bench [--quick]
"""

from __future__ import annotations

import difflib
import random
import re
import sys
import time
from collections.abc import Callable

from bench.common import ROOT, ms, publish, summary
from differ.audit import audit_pair
from differ.config import adhoc_source
from differ.diff.engine import forget_recent
from differ.normalize import Body, normalize


def _read(path: str, kind: str, selector: str = "") -> str:
    data = (ROOT / path).read_bytes()
    options = {"selector": selector} if selector else {}
    source = adhoc_source({"id": "x", "url": "https://localhost/", "kind": kind, **options})
    ctype = "text/html; charset=UTF-8" if kind == "html" else "text/plain; charset=utf-8"
    return normalize(Body(data, ctype, "https://localhost/", ()), source).markdown


def _repeated(text: str, times: int, part: str) -> str:
    """`text` `times` over, each time under a paragraph of its own and with its PR numbers renumbered."""
    return "\n\n".join(
        f"{part} {n}\n\n" + re.sub(r"#(\d+)", lambda m, n=n: f"#{n}{m[1]}", text) for n in range(1, times + 1)
    )


def _unpinned(blocks: int, rng: random.Random) -> tuple[str, str]:
    """An English post and its "translation" of as many blocks (a heading every fifth), with no number, name
    or identifier on either side: nothing for the pairing to pin."""
    words = ["the", "release", "adds", "support", "for", "faster", "builds", "and", "new", "kernels"]

    def english(n: int) -> str:
        return " ".join(rng.choice(words) for _ in range(n))

    def korean(n: int) -> str:
        return " ".join(
            "".join(chr(0xAC00 + rng.randrange(11172)) for _ in range(rng.randint(1, 4))) for _ in range(n)
        )

    a = "\n\n".join(f"## {english(4)}" if k % 5 == 0 else english(rng.randint(10, 60)) for k in range(blocks))
    b = "\n\n".join(f"## {korean(3)}" if k % 5 == 0 else korean(rng.randint(6, 40)) for k in range(blocks))
    return a, b


def cases() -> dict[str, tuple[str, str]]:
    canonical = _read("examples/pytorch-2.13/canonical/fetch-3.html", "html", "article .entry-content")
    translation = _read("tests/data/translation/pytorch-kr-translation.txt", "text")
    out = {"Korean translation of the replay post": (canonical, translation)}
    for times in (2, 4, 8):
        out[f"the same, ×{times}"] = (
            _repeated(canonical, times, "Part"),
            _repeated(translation, times, "파트"),
        )
    rust = (ROOT / "tests/data/corpus/rust-lang__blog.rust-lang.org__Rust-1.93.0/rev-03.md").read_text()
    german = (ROOT / "tests/data/translation/rust-1.93.0-de.md").read_text()
    out["German translation of the Rust 1.93.0 post"] = (rust.split("+++\n", 2)[2], german)
    rng = random.Random(7)
    for blocks in (1000, 2000):
        out[f"{blocks:,} blocks, nothing to pin"] = _unpinned(blocks, rng)
    return out


def measure(runs: int) -> list[dict[str, object]]:
    """Every case and tool, interleaved round by round."""
    tools: dict[str, Callable[[str, str], Callable[[], object]]] = {
        # from their text each time, as `differ compare --audit` reads them
        "translation": lambda a, b: lambda: (audit_pair(a, b, translation=True), forget_recent()),
        "word_by_word": lambda a, b: lambda: (audit_pair(a, b, translation=False), forget_recent()),
        "difflib": lambda a, b: lambda: list(difflib.unified_diff(a.splitlines(), b.splitlines())),
    }
    pairs = cases()
    steps = {(name, tool): make(a, b) for name, (a, b) in pairs.items() for tool, make in tools.items()}
    samples: dict[tuple[str, str], list[float]] = {key: [] for key in steps}
    for round_ in range(runs + 1):
        for key, step in steps.items():
            forget_recent()  # nothing another step left to be let go of in this one's time
            started = time.process_time()
            step()
            if round_:
                samples[key].append(time.process_time() - started)
    rows = []
    for name, (a, b) in pairs.items():
        coverage, findings = audit_pair(a, b, translation=True)
        rows.append(
            {
                "case": name,
                "blocks": (a.count("\n\n") + 1, b.count("\n\n") + 1),
                "findings": len(findings),
                "coverage": round(coverage, 4),
                **{tool: summary(samples[(name, tool)]) for tool in tools},
            }
        )
    return rows


def table(rows: list[dict[str, object]]) -> list[str]:
    lines = [
        "| case | blocks (canonical, copy) | translation audit ms | findings | word-by-word audit ms | difflib ms |",
        "|---|---|---|---|---|---|",
    ]
    for f in rows:
        a, b = f["blocks"]  # type: ignore[misc]
        lines.append(
            f"| {f['case']} | {a:,}, {b:,} | {ms(f['translation'])} | {f['findings']} | "  # type: ignore[arg-type]
            f"{ms(f['word_by_word'])} | {ms(f['difflib'])} |"  # type: ignore[arg-type]
        )
    return lines


def main() -> int:
    rows = measure(3 if "--quick" in sys.argv else 5)
    publish("translation", rows, table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
