"""Requests and delay with `settled_after`, on the corpus's real revision histories: each post watched from its
first revision until the last one and 30 days more, checked every `interval` (30 minutes), or with
`settled_after` and `settled_interval` (6 hours) as differ's own rule (`differ.cadence.pace`) paces it. A
revision counts as an edit found at the first check after it (the version's time, as the store keeps it);
every revision counts, site-wide ones too, so that a page is never taken for more settled than it was. For
each setting: the requests made and, for each revision, how long after it was made the check that found it
came. Run: python -m bench.pace
"""

from __future__ import annotations

import json
import statistics
from datetime import datetime, timedelta
from pathlib import Path

from differ.cadence import pace

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "corpus"
INTERVAL = 1800.0
SLOWER = 21600.0
AFTER = (0.0, 3 * 86400.0, 7 * 86400.0, 14 * 86400.0, 30 * 86400.0)
TAIL = timedelta(days=30)


Revision = tuple[datetime, str]  # when, and its kind in the corpus (`edit`, `site-wide`, …)


def histories() -> dict[str, list[Revision]]:
    """Each post's revisions, oldest first (a post with an undated revision is left out)."""
    out = {}
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        revisions = json.loads((folder / "meta.json").read_text())["revisions"]
        times = [r.get("commit_date") or r.get("author_date") for r in revisions]
        if all(times):
            out[folder.name] = sorted(
                (datetime.fromisoformat(t.replace("Z", "+00:00")), str(r.get("kind") or ""))
                for t, r in zip(times, revisions, strict=True)
            )
    return out


def watch(revisions: list[Revision], after: float) -> tuple[int, list[tuple[float, str]]]:
    """Checks made from the first revision to TAIL after the last, and each later revision's wait, in hours,
    until the check that found it, with its kind."""
    now, end = revisions[0][0], revisions[-1][0] + TAIL
    edited, pending, checks, waits = now, list(revisions[1:]), 0, []
    while now <= end:
        checks += 1
        found = [r for r in pending if r[0] <= now]
        if found:
            waits += [((now - t).total_seconds() / 3600, kind) for t, kind in found]
            pending = pending[len(found) :]
            edited = now  # a new version, stored at this check
        now += timedelta(seconds=pace(INTERVAL, after, SLOWER, edited, now).every)
    return checks, waits


def main() -> int:
    posts = histories()
    edits = sum(kind == "edit" for revisions in posts.values() for _, kind in revisions)
    print(
        f"{len(posts)} posts, {sum(len(r) - 1 for r in posts.values())} revisions after the first ({edits} edits)"
    )
    print(
        "| settled_after | requests | of every 30m | edits: median wait | longest | every revision: longest |"
    )
    print("|---|---|---|---|---|---|")
    base = 0
    for after in AFTER:
        checks, waits = 0, []
        for revisions in posts.values():
            c, w = watch(revisions, after)
            checks, waits = checks + c, waits + w
        base = base or checks
        edited = [hours for hours, kind in waits if kind == "edit"]
        name = f"{after / 86400:g}d" if after else "0 (never)"
        print(
            f"| {name} | {checks:,} | {checks / base:.1%} | {statistics.median(edited):.2f} h | "
            f"{max(edited):.2f} h | {max(hours for hours, _ in waits):.2f} h |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
