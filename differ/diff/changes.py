"""What a diff is made of: its changes (`Change`) and the `Diff` that holds them with the alignment behind them,
and a change's JSON form. Summaries and outputs need only these, not the engine that finds them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from differ.diff.blocks import Block


@dataclass
class Change:
    """One change between two versions."""

    kind: str  # added, removed, modified, moved, link, invisible (differ.config.CHANGE_KINDS)
    section: tuple[str, ...]
    before: str | None
    after: str | None
    block: str = "paragraph"
    label: str = ""
    ops: list[dict[str, str]] = field(default_factory=list)
    a_index: int | None = None
    b_index: int | None = None
    detail: str = ""
    at_end: bool = False
    members: list[tuple[int, str, str]] = field(default_factory=list)  # (b_index, block, text) moved along
    parent: str = ""  # a nested list item's: the label of the item it is in
    cells: list[dict[str, str]] = field(default_factory=list)  # a table row's changed cells, by column
    bare: tuple[str, str] = ("", "")  # before and after without inline HTML tags, where a block had any
    # An added or removed block that is one link (a post in a list of posts): where it points.
    target: str = ""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Change:
        """A change read back from its JSON form (a queued event's diff), enough to summarize it again."""
        bare = data["bare"] if isinstance(data.get("bare"), dict) else {}
        return cls(
            str(data.get("kind", "")),
            tuple(str(heading) for heading in data.get("section") or ()),
            data.get("before"),
            data.get("after"),
            str(data.get("block") or "paragraph"),
            str(data.get("label") or ""),
            list(data.get("ops") or []),
            detail=str(data.get("detail") or ""),
            at_end=bool(data.get("at_end")),
            parent=str(data.get("parent") or ""),
            cells=list(data.get("cells") or []),
            bare=(str(bare.get("before") or ""), str(bare.get("after") or "")),
            target=str(data.get("target") or ""),
        )

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "block": self.block,
            "section": list(self.section),
            "label": self.label,
            "before": self.before,
            "after": self.after,
            "ops": self.ops,
        }
        if self.detail:
            data["detail"] = self.detail
        if self.at_end:
            data["at_end"] = True
        if self.parent:
            data["parent"] = self.parent
        if self.cells:
            data["cells"] = self.cells
        if self.target:
            data["target"] = self.target
        if any(self.bare):  # the sides without their inline HTML tags, as summaries quote them
            data["bare"] = {"before": self.bare[0] or None, "after": self.bare[1] or None}
        return data


@dataclass
class Diff:
    """All changes between two Markdown versions, with the block alignment behind them."""

    changes: list[Change]
    metadata: list[dict[str, Any]] = field(default_factory=list)
    equal: list[tuple[int, int]] = field(default_factory=list)
    a_blocks: list[Block] = field(default_factory=list)
    b_blocks: list[Block] = field(default_factory=list)
    a_markdown: str = field(default="", repr=False)  # the two documents, for a line diff (--format unified)
    b_markdown: str = field(default="", repr=False)
    within: tuple[str, ...] = ()  # narrowed to some sections: the headings its changes are under
    mentioning: tuple[str, ...] = ()  # narrowed to changes with some words: the words they have
    kinds: tuple[str, ...] = ()  # narrowed to changes of some kinds (removed, modified, …)
    left_out: int = 0  # and how many changes elsewhere it leaves out
    explaining: int = 0  # the author's notes it keeps only as the edit's explanation (not asked for)

    @property
    def narrowed(self) -> bool:
        return bool(self.within or self.mentioning or self.kinds)

    def narrowing(self) -> dict[str, Any]:
        """The JSON fields of a narrowed diff: what it was narrowed to and how many changes it leaves out."""
        if not self.narrowed:
            return {}
        return {
            **({"within": list(self.within)} if self.within else {}),
            **({"mentioning": list(self.mentioning)} if self.mentioning else {}),
            **({"kinds": list(self.kinds)} if self.kinds else {}),
            "left_out": self.left_out,
        }

    def lineage(self) -> dict[int, tuple[int, bool]]:
        """Where each block of the newer version came from: its index in the older one, and whether it was
        edited on the way; a block added has none. What `differ blame` follows from version to version."""
        a, b = self.a_blocks, self.b_blocks
        out = {y: (x, False) for x, y in self.equal}
        for c in self.changes:
            x, y = c.a_index, c.b_index
            if x is None or y is None:
                continue
            out[y] = (x, c.kind != "moved")
            for k, _, _ in c.members:  # the rest of a section that moved with it, or the part split off
                z = x + k - y
                out[k] = (z, False) if 0 <= z < len(a) and a[z].key == b[k].key else (x, True)
        for c in self.changes:  # an invisible character taken out or put in: its block was edited
            if c.kind == "invisible":
                for k, (x, _) in out.items():
                    if b[k].text == c.after and b[k].section == c.section:
                        out[k] = (x, True)
                        break
        return out

    @property
    def empty(self) -> bool:
        return not self.changes and not self.metadata

    def __len__(self) -> int:
        return len(self.changes) + len(self.metadata)
