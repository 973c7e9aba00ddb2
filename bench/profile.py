"""Where `differ check` spends its time: one check of every page, in one thread under cProfile, summarized by
pipeline stage and by the functions that cost most."""

from __future__ import annotations

import pstats
import subprocess
import sys
from pathlib import Path

from bench import tools

# (stage, file suffix, function name) as cProfile names them; cumulative times, so stages may nest.
STAGES = [
    ("whole check", "differ/check.py", "check"),
    ("fetch (HTTP)", "differ/fetch/http.py", "fetch"),
    ("normalize", "differ/normalize/__init__.py", "normalize"),
    ("  parse HTML (BeautifulSoup)", "differ/normalize/html.py", "parse_html"),
    ("  content root", "differ/normalize/root.py", "find_root"),
    ("  HTML to canonical Markdown", "differ/normalize/writer.py", "write"),
    ("  HTML to escaped Markdown (longer road)", "differ/normalize/html.py", "convert"),
    ("  canonicalize (longer road)", "differ/normalize/canonical.py", "canonicalize"),
    ("count words", "differ/normalize/canonical.py", "plain_words"),
    ("store a version", "differ/store.py", "commit"),
    ("save state", "differ/store.py", "save_state"),
    ("log the fetch", "differ/store.py", "log_fetch"),
    ("diff", "differ/versions.py", "diff_versions"),
    ("start-up: load config", "differ/config/loader.py", "load_config"),
]


def profile(config: Path, out: Path, log: Path, server: str) -> Path:
    """Run `differ check` once under cProfile (the config must have workers = 1) and keep the stats file."""
    argv = [
        sys.executable,
        "-m",
        "cProfile",
        "-o",
        str(out),
        "-m",
        "differ",
        "--config",
        str(config),
        "check",
    ]
    tools.traffic(server)
    with log.open("ab") as err:
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=err, check=True)
    return out


def summarize(stats_file: Path, pages: int, top: int = 12) -> list[str]:
    stats = pstats.Stats(str(stats_file))
    table = stats.stats  # type: ignore[attr-defined]
    total = max((ct for (_, _, _, ct, _) in table.values()), default=0.0)
    lines = [
        f"Total {total:.2f} s for {pages} pages ({total / pages * 1000:.1f} ms a page).",
        "",
        "| stage | s | ms a page | share |",
        "|---|---|---|---|",
    ]
    for label, suffix, name in STAGES:
        cumulative = sum(
            ct
            for (file, _, func), (_, _, _, ct, _) in table.items()
            if file.endswith(suffix) and func == name
        )
        if cumulative:
            lines.append(
                f"| {label} | {cumulative:.2f} | {cumulative / pages * 1000:.2f} | {cumulative / total:.0%} |"
            )
    own = sorted(table.items(), key=lambda item: item[1][2], reverse=True)[:top]
    lines += ["", "| function (own time) | s | share |", "|---|---|---|"]
    for (file, line, func), (_, _, tottime, _, _) in own:
        where = "/".join(Path(file).parts[-2:]) if file != "~" else "built-in"
        lines.append(f"| `{func}` ({where}:{line}) | {tottime:.2f} | {tottime / total:.0%} |")
    return lines
