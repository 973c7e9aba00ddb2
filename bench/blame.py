"""`differ blame` after a long history, beside `git blame` of the same history: a post (the replay's 25 KB page)
edited at every check, checked n and then 2n times against a local server; at each size differ's blame of the
latest version is timed in-process (every version read and diffed against the one before), and `git blame` of the
post's Markdown in the repository `differ export` writes from the store (a commit a version) as a whole process,
the tool a user would reach for. Each figure is the median of 3. Growth when the history doubles: ×2 is linear.
Run: python -m bench.blame [--quick] [--n N]
"""

from __future__ import annotations

import statistics
import subprocess
import time
from collections.abc import Callable

from bench.history import sizes_asked, timed_check, watched


def _median(run: Callable[[], object], times: int = 3) -> float:
    """The median of `times` timings of `run`, in seconds."""
    seconds = []
    for _ in range(times):
        started = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds)


def run(sizes: list[int]) -> list[dict[str, float]]:
    """For each size (increasing), the history grown to that many versions, then both blames timed."""
    from differ.blame import blame
    from differ.export import export_git

    rows = []
    with watched() as (app, pages, work):
        source = app.config.sources()[0]
        for size in sizes:
            while pages.revision < size:
                timed_check(app, pages)
            latest = app.store.latest(source.key)
            assert latest is not None and latest.number == size
            blocks = blame(app, source, latest)
            assert blocks and blocks[0].edited.number == 1  # the title: never edited
            differ_s = _median(lambda: blame(app, source, latest))  # noqa: B023
            repo = work / f"git-{size}"
            export_git(app.store, repo, [source.key], "differ", raw=False)
            command = [
                "git",
                "-C",
                str(repo),
                "blame",
                "--line-porcelain",
                "differ",
                "--",
                f"{source.key}.md",
            ]
            lines = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            assert lines.count("\nfilename ") + lines.startswith("filename ") > 0
            git_s = _median(lambda: subprocess.run(command, capture_output=True, check=True))  # noqa: B023
            rows.append({"versions": size, "differ": differ_s, "git": git_s})
    return rows


def main() -> int:
    rows = run(sizes_asked(__doc__))
    print(
        "| versions | differ blame, in-process (ms) | git blame of the export, whole process (ms) | differ ÷ git |"
    )
    print("|---|---|---|---|")
    for row in rows:
        ratio = row["differ"] / max(row["git"], 1e-6)
        print(
            f"| {row['versions']:.0f} | {row['differ'] * 1000:.0f} | {row['git'] * 1000:.0f} | {ratio:.2f}× |"
        )
    growth = rows[1]["differ"] / max(rows[0]["differ"], 1e-6)
    git_growth = rows[1]["git"] / max(rows[0]["git"], 1e-6)
    print(f"\ngrowth when the history doubles: ×{growth:.2f} differ, ×{git_growth:.2f} git")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
