"""Summary lines as a list shows them: each indented line (a "  →" continuation, a change's links, the changes
a stale mirror misses) with the bullet it belongs to. Shared by the HTML diff, the reports site and the
notifiers, so it imports nothing of theirs."""

from __future__ import annotations

import html


def grouped(lines: list[str]) -> list[str]:
    """Summary lines with each indented one (a "  →" continuation, a change's links, the changes a stale mirror
    misses) joined to the bullet before it, which it belongs with."""
    out: list[str] = []
    for line in lines:
        if out and line.startswith(" "):
            out[-1] += "\n" + line
        else:
            out.append(line)
    return out


def grouped_html(group: str) -> str:
    """One of `grouped`'s items as HTML: its lines escaped, each on a line of its own, its bullet left out."""
    return "<br>".join(html.escape(line.strip()) for line in group.split("\n")).removeprefix("•").strip()


def html_items(lines: list[str]) -> str:
    """Summary lines as the items of an HTML list (`<li>`s, for a `<ul>` of the caller's): a change an item,
    its indented lines with it."""
    return "".join(f"<li>{grouped_html(item)}</li>" for item in grouped(lines))
