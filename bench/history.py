"""A check after a long history: a post (the replay's canonical page, about 25 KB) and a mirror of it, both
edited at every check, checked n and then 2n times by `check` in this process against a local server; then one
more check is timed, with the matches the audit remembers (`audits/matches/`) and without them (what every such
check cost before differ remembered them: each audit aligned every mirror version with every canonical
version). Growth when the history doubles: ×2 is linear, ×4 the square.
Run: python -m bench.history [--quick] [--n N]
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.pageserver import page


class Pages:
    """The canonical page and the mirror's copy at their current revision, served on 127.0.0.1."""

    def __init__(self) -> None:
        self.revision = 0
        pages = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = page(0 if self.path == "/post" else 1, pages.revision)
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def config_text(base: str) -> str:
    source = 'selector = "article"\nrobots = false\nallow_private = ["127.0.0.1"]\n'
    return (
        '[service]\nsnapshots = "snapshots"\nper_host_delay = "0s"\n[[documents]]\nid = "post"\n'
        f'[documents.canonical]\nid = "canonical"\nurl = "{base}/post"\n{source}'
        f'[[documents.mirrors]]\nid = "copy"\nurl = "{base}/copy"\n{source}'
    )


def timed_check(app: Any, pages: Pages) -> float:
    from differ.check import check

    pages.revision += 1
    started = time.perf_counter()
    results = check(app, app.config.sources())
    seconds = time.perf_counter() - started
    assert [r.outcome for r in results] == ["new", "new"], [r.line() for r in results]
    return seconds


@contextlib.contextmanager
def watched() -> Iterator[tuple[Any, Pages, Path]]:
    """The post and its mirror served on 127.0.0.1 and watched by an app whose store is in a folder of its own
    (given too), for as long as the block runs."""
    from differ.app import App
    from differ.config import load_config

    pages = Pages()
    try:
        with tempfile.TemporaryDirectory() as work:
            path = Path(work) / "config.toml"
            path.write_text(config_text(pages.base))
            yield App.from_config(load_config(path)), pages, Path(work)
    finally:
        pages.close()


def run(sizes: list[int]) -> list[dict[str, float]]:
    """For each size (increasing), the history grown to that many versions of each page, then one check timed
    with the remembered matches and one without."""
    from differ.audit.matches import matches_path

    rows = []
    with watched() as (app, pages, _):
        for size in sizes:
            while pages.revision < size - 2:
                timed_check(app, pages)
            warm = timed_check(app, pages)
            matches_path(app.store, "post").unlink()
            cold = timed_check(app, pages)
            rows.append({"versions": pages.revision, "warm": warm, "cold": cold})
    return rows


def sizes_asked(description: str | None) -> list[int]:
    """The two sizes of history a benchmark grows to, from its command line: n and 2n (`--n N`, 100 by
    default; `--quick` for 25)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--quick", action="store_true", help="n = 25")
    ap.add_argument("--n", type=int, default=100)
    args = ap.parse_args()
    n = 25 if args.quick else args.n
    return [n, 2 * n]


def main() -> int:
    rows = run(sizes_asked(__doc__))
    print("| versions of each page | check, matches remembered (ms) | check, aligning all again (ms) |")
    print("|---|---|---|")
    for row in rows:
        print(f"| {row['versions']:.0f} | {row['warm'] * 1000:.0f} | {row['cold'] * 1000:.0f} |")
    growth = rows[1]["warm"] / max(rows[0]["warm"], 1e-6)
    cold_growth = rows[1]["cold"] / max(rows[0]["cold"], 1e-6)
    print(
        f"\ngrowth when the history doubles: ×{growth:.1f} remembered, ×{cold_growth:.1f} aligning all again"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
