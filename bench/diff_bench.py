"""Diff speed on pathological input, side by side with plain difflib and git, in one run.

Cases: two ~1 MB documents with 100 scattered edits; 10,000 identical lines with one changed; a document
whose sections were shuffled; a 10,000-line code block with one line changed; a 4,000-line lock file in a code
block with every version bumped (not held to the 3× target: where every line changed, difflib's line diff has
no words to align, differ aligns 32,000 on each side); 1 MB of Chinese (a word a character) with 100 scattered
edits; each also at half size. For
each: differ's diff in-process (parse, align, word diff) and a plain `difflib.unified_diff` of the same files'
lines (what urlwatch and changedetection.io compute), both as CPU time, and `git diff --no-index --word-diff`
as the wall time of its process; and differ's audit of the second document as a mirror of the first (CPU
time), which aligns the two word by word. Each figure is the median of 5 rounds after a warm-up round, every step once
a round.
Run: python -m bench.diff_bench [--quick]
"""

from __future__ import annotations

import difflib
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.common import ROOT, ms, publish, summary
from differ.audit import audit_pair
from differ.diff import diff
from differ.diff.engine import forget_recent
from differ.normalize.canonical import canonicalize

BASE = canonicalize((ROOT / "examples/pytorch-2.13/canonical/v1.md").read_text()).text


def big_document(size: int, rng: random.Random) -> str:
    """Sections of the replay article, numbered, until `size` bytes."""
    parts, n = [], 0
    while sum(len(p) for p in parts) < size:
        n += 1
        parts.append(f"## Part {n}\n\n" + BASE.replace("PyTorch 2.13", f"PyTorch 2.{n}"))
    return "\n".join(parts)


def scattered_edits(doc: str, edits: int, rng: random.Random) -> str:
    paragraphs = doc.split("\n\n")
    for index in rng.sample(range(len(paragraphs)), edits):
        words = paragraphs[index].split(" ")
        k = rng.randrange(len(words))
        words[k] = words[k] + "-edited"
        paragraphs[index] = " ".join(words)
    return "\n\n".join(paragraphs)


# Common Chinese characters, commonest first: text drawn from them, each about half as likely as the one
# ten places before it, reads to the diff as Chinese does (a word a character, the commonest recurring often).
HANZI = (
    "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作里"
    "用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前开但因只从想实"
    "日军者意无力它与长把机十民第公此已工使情明性知全三又关点正业外将两高间由问很最重并物手应战向头文体政"
    "美相见被利什二等产或新己制身果加西斯月话合回特代内信表化老给世位次度门任常先海通教儿原东声提立及比员"
)


def chinese_document(size: int, rng: random.Random) -> str:
    """Sections of paragraphs of 100 to 400 characters drawn from HANZI, until `size` bytes of UTF-8."""
    weights = [0.93**k for k in range(len(HANZI))]
    parts: list[str] = []
    n = total = 0
    while total < size:
        n += 1
        paragraphs = [
            "".join(rng.choices(HANZI, weights, k=rng.randint(100, 400))) + "。"
            for _ in range(rng.randint(3, 8))
        ]
        parts.append(f"## 第 {n} 部分\n\n" + "\n\n".join(paragraphs))
        total += len(parts[-1].encode())
    return "\n\n".join(parts) + "\n"


def chinese_edits(doc: str, edits: int, rng: random.Random) -> str:
    """Two characters of as many paragraphs replaced by a word of two others, as an editor's fix."""
    paragraphs = doc.split("\n\n")
    prose = [k for k, p in enumerate(paragraphs) if not p.startswith("#")]
    for index in rng.sample(prose, edits):
        text = paragraphs[index]
        k = rng.randrange(len(text) - 3)
        paragraphs[index] = text[:k] + "非常" + text[k + 2 :]
    return "\n\n".join(paragraphs)


def cases(scale: float, rng: random.Random) -> dict[str, tuple[str, str]]:
    doc = big_document(int(1_000_000 * scale), rng)
    chinese = chinese_document(int(1_000_000 * scale), rng)
    same = ["The same line again."] * int(10_000 * scale)
    changed = list(same)
    changed[len(same) // 2] = "One line that changed."
    sections = doc.split("\n## ")
    shuffled = sections[:1] + rng.sample(sections[1:], len(sections) - 1)
    # Code whose words recur on every line (`x = f(1, (2))`): the input on which a word-level difflib is
    # quadratic.
    code = [
        f"x{rng.randint(0, 99)} = f({rng.randint(0, 9)}, ({rng.randint(0, 9)}))"
        for _ in range(int(10_000 * scale))
    ]
    edited = list(code)
    edited[len(code) // 2] = "changed = 1"
    # A lock file whose every line changed (a version bumped, a new hash): its words recur on every line too,
    # and each line edited is a match difflib finds, searching again all the pairs of `"` and `:` (quadratic in
    # lines without a bound on that search).
    lock = int(4_000 * scale)
    pinned = [
        f'    "pkg{i}": {{"version": "1.{i}.0", "sha": "{rng.getrandbits(32):08x}"}},' for i in range(lock)
    ]
    bumped = [
        f'    "pkg{i}": {{"version": "1.{i}.1", "sha": "{rng.getrandbits(32):08x}"}},' for i in range(lock)
    ]
    return {
        "1 MB, 100 scattered edits": (doc, scattered_edits(doc, 100, rng)),
        "10,000 identical lines, one changed": ("\n\n".join(same) + "\n", "\n\n".join(changed) + "\n"),
        "shuffled sections": (doc, "\n## ".join(shuffled)),
        "10,000-line code block, one line changed": (fence(code), fence(edited)),
        LOCK_FILE: (fence(pinned), fence(bumped)),
        "1 MB in Chinese, 100 scattered edits": (chinese, chinese_edits(chinese, 100, rng)),
    }


LOCK_FILE = "4,000-line lock file, every line changed"
UNHELD = {LOCK_FILE}  # cases reported beside the others but not held to the 3× target


def fence(lines: list[str]) -> str:
    return "```\n" + "\n".join(lines) + "\n```\n"


def git_word_diff(a: str, b: str) -> Callable[[], object]:
    folder = Path(tempfile.mkdtemp(prefix="differ-bench-"))
    (folder / "a.md").write_text(a)
    (folder / "b.md").write_text(b)
    return lambda: subprocess.run(
        ["git", "diff", "--no-index", "--word-diff", "a.md", "b.md"],
        cwd=folder,
        capture_output=True,
        check=False,
    )


def measure(runs: int) -> list[dict[str, object]]:
    """Each case at half and full size, differ and difflib (CPU time in this process) and git (wall time of its
    process), all interleaved round by round: a slow spell of the machine touches every figure alike, so the
    ratios and the growth under doubling stay meaningful."""
    sizes = {scale: cases(scale, random.Random(13)) for scale in (0.5, 1.0)}
    tools: dict[str, Callable[[str, str], Callable[[], object]]] = {
        # parsed every time, as a check parses; what it keeps for the next diff let go within its time
        "differ": lambda a, b: lambda: (diff(a, b), forget_recent()),
        "difflib": lambda a, b: lambda: list(difflib.unified_diff(a.splitlines(), b.splitlines())),
        "git": git_word_diff,
        # the second read as a mirror of the first, from their text, as `differ compare --audit` reads them
        "audit": lambda a, b: lambda: (audit_pair(a, b), forget_recent()),
    }
    steps = {
        (name, scale, tool): make(a, b)
        for scale, by_name in sizes.items()
        for name, (a, b) in by_name.items()
        for tool, make in tools.items()
    }
    samples: dict[tuple[str, float, str], list[float]] = {key: [] for key in steps}
    for round_ in range(runs + 1):
        for key, step in steps.items():
            clock = time.perf_counter if key[2] == "git" else time.process_time
            forget_recent()  # nothing another step left to be let go of in this one's time
            started = clock()
            step()
            if round_:
                samples[key].append(clock() - started)
    rows = []
    for name, (a, b) in sizes[1.0].items():
        figures = {tool: summary(samples[(name, 1.0, tool)]) for tool in tools}
        half = summary(samples[(name, 0.5, "differ")])
        audit_half = summary(samples[(name, 0.5, "audit")])
        rows.append(
            {
                "case": name,
                "bytes": len(a.encode()),
                **figures,
                "changes": len(diff(a, b).changes),
                "ratio_to_difflib": figures["differ"]["median"] / figures["difflib"]["median"],
                "held_to_ratio": name not in UNHELD,
                "growth_when_doubled": figures["differ"]["median"] / half["median"],
                "audit_growth_when_doubled": figures["audit"]["median"] / audit_half["median"],
            }
        )
    return rows


def table(rows: list[dict[str, object]]) -> list[str]:
    lines = [
        "| case | size | differ ms (median, min–max) | difflib ms | git --word-diff ms | differ ÷ difflib | "
        "differ, size ×2 | audit ms | audit, size ×2 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for f in rows:
        audit = (  # rows measured before the audit was
            f"{ms(f['audit'], digits=0)} | ×{f['audit_growth_when_doubled']:.2f}"  # type: ignore[arg-type]
            if "audit" in f
            else "– | –"
        )
        lines.append(
            f"| {f['case']} | {int(f['bytes']) / 1e6:.2f} MB | {ms(f['differ'], digits=0)} | "  # type: ignore[arg-type]
            f"{ms(f['difflib'], digits=0)} | {ms(f['git'], digits=0)} | "  # type: ignore[arg-type]
            f"{f['ratio_to_difflib']:.1f}×{'' if f.get('held_to_ratio', True) else ' (not held)'} | "
            f"×{f['growth_when_doubled']:.2f} | {audit} |"
        )
    return lines


def main() -> int:
    runs = 3 if "--quick" in sys.argv else 5
    full = measure(runs)
    publish("diff", full, table(full))
    return 0


if __name__ == "__main__":
    sys.exit(main())
