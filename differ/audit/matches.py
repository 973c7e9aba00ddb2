"""Which canonical version each stored mirror version reflects best, remembered between audits in
`audits/matches/<document>.json`: a mirror version is aligned once with each canonical version, not with all of
them again at every audit, whose cost grew with the square of the versions stored (a cache: removed, it costs
time only)."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from differ.audit.align import Stream, align
from differ.diff.blocks import Block, split_blocks

if TYPE_CHECKING:
    from differ.store import Store, Version

FORMAT = "differ.matches/1"
CHUNK = 32  # mirror texts aligned together, each canonical version read once for them all


def digest(markdown: str) -> str:
    return hashlib.sha256(markdown.encode("utf-8")).hexdigest()[:32]


class Canonical:
    """A document's canonical versions as the audit reads them: a version's word stream is read when first asked
    for, and only the last few are kept (a new mirror text is aligned with every version once; kept, the streams
    of a long history would fill memory)."""

    KEPT = 8

    def __init__(self, store: Store, versions: Sequence[Version], apart: str | None = None) -> None:
        self.store = store
        # the title it keeps apart from its body (`title_apart`), which a copy has as a heading
        self.apart = apart
        self.versions = list(versions)
        self.numbers = [v.number for v in self.versions]
        self._by = {v.number: v for v in self.versions}
        self._streams: OrderedDict[int, Stream] = OrderedDict()
        self._digests: list[str] | None = None

    def stream(self, number: int) -> Stream:
        kept = self._streams.get(number)
        if kept is None:
            kept = self._streams[number] = Stream.of(split_blocks(self.store.markdown(self._by[number])))
            if len(self._streams) > self.KEPT:
                self._streams.popitem(last=False)
        else:
            self._streams.move_to_end(number)
        return kept

    def blocks(self, number: int) -> list[Block]:
        return self.stream(number).blocks

    def digests(self) -> list[str]:
        """Each version's Markdown digest, oldest first (what a remembered match was made against)."""
        if self._digests is None:
            self._digests = [digest(self.store.markdown(v)) for v in self.versions]
        return self._digests


class Matches:
    """The best canonical match of each mirror text, by the digest of its Markdown: remembered with how many
    canonical versions it was aligned with, so a later audit aligns it only with the versions stored since.
    Remembered matches are used only while those canonical versions read as they did (a renormalized store
    aligns again), and under the same audit rules."""

    def __init__(self, path: Path, canonical: Canonical, rules: int) -> None:
        self.path = path
        self.canonical = canonical
        self.rules = rules
        self.digests = canonical.digests()
        self.entries: dict[str, list[Any]] = {}
        self.asked: set[str] = set()  # the texts whose match was asked for (digests)
        saved = self._load()
        before = saved.get("canonical", [])
        same = 0
        while same < min(len(before), len(self.digests)) and before[same] == self.digests[same]:
            same += 1
        for key, entry in saved.get("mirrors", {}).items():
            if _valid(entry, same):
                self.entries[key] = entry
        self.changed = len(self.entries) != len(saved.get("mirrors", {})) or len(before) != len(self.digests)

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return {}
        ok = isinstance(data, dict) and data.get("format") == FORMAT and data.get("rules") == self.rules
        if not ok or not isinstance(data.get("canonical"), list) or not isinstance(data.get("mirrors"), dict):
            return {}
        return dict(data)

    def best(self, markdown: str, stream: Stream | None = None, translation: bool | None = None) -> int:
        """The canonical version the mirror text reflects best (on a tie, the later version), as `best_version`
        finds it among all the canonical versions."""
        return self.settle([(markdown, stream)], translation)[0]

    def settle(
        self, texts: Sequence[tuple[str, Stream | None]], translation: bool | None = None
    ) -> list[int]:
        """The best match of each mirror text (with its word stream, when at hand). Those not known up to the
        latest canonical version are aligned CHUNK at a time: each canonical version is read once for them all,
        and their streams and a few canonical ones are all that is held. A translation's blocks are paired with
        the canonical's instead, as its audit pairs them: `translation` says whether the texts are translations,
        unset, their scripts do (a text's match is remembered apart for each)."""
        from differ.audit.language import translated
        from differ.audit.translation import pair_blocks

        numbers = self.canonical.numbers
        mode = {None: "", True: ":translation", False: ":words"}[translation]
        keys = [digest(markdown) + mode for markdown, _ in texts]
        self.asked.update(keys)
        todo: dict[str, tuple[str, Stream | None]] = {}
        for key, text in zip(keys, texts, strict=True):
            entry = self.entries.get(key)
            if entry is None or entry[2] < len(numbers):
                todo.setdefault(key, text)
        pending = list(todo)
        for at in range(0, len(pending), CHUNK):
            chunk = pending[at : at + CHUNK]
            found = {k: list(self.entries.get(k) or [-1, -1.0, 0]) for k in chunk}
            mirrors = {k: todo[k][1] or Stream.of(split_blocks(todo[k][0])) for k in chunk}
            latest = self.canonical.blocks(numbers[-1])
            translations = {k for k in chunk if translated(latest, mirrors[k].blocks, translation)}
            for i in range(min(found[k][2] for k in chunk), len(numbers)):
                canonical = self.canonical.stream(numbers[i])
                for k in chunk:
                    if found[k][2] <= i:
                        alike = (
                            pair_blocks(canonical.blocks, mirrors[k].blocks).likeness
                            if k in translations
                            else align(canonical, mirrors[k]).ratio
                        )
                        if alike >= found[k][1]:  # on a tie, the later version
                            found[k][0], found[k][1] = i, alike
            for k in chunk:
                self.entries[k] = [found[k][0], found[k][1], len(numbers)]
            self.changed = True
        return [numbers[self.entries[key][0]] for key in keys]

    def save(self, *, prune: bool = False) -> None:
        """Write what was found; with `prune`, only the matches of the texts asked about (every mirror version
        of the document). Best effort: a store this process cannot write (a copy read elsewhere) is left as it
        is."""
        from differ.files import atomic_write

        entries = {k: v for k, v in self.entries.items() if k in self.asked} if prune else self.entries
        if not self.changed and len(entries) == len(self.entries):
            return
        data = {"format": FORMAT, "rules": self.rules, "canonical": self.digests, "mirrors": entries}
        with contextlib.suppress(OSError):
            atomic_write(self.path, json.dumps(data, sort_keys=True).encode() + b"\n", durable=False)
        self.changed = False


def _valid(entry: object, same: int) -> bool:
    """A remembered match made against canonical versions that still read as they did."""
    if not (isinstance(entry, list) and len(entry) == 3):
        return False
    index, ratio, seen = entry
    return (
        isinstance(index, int)
        and isinstance(seen, int)
        and isinstance(ratio, float)
        and 0 <= index < seen <= same
        and 0.0 <= ratio <= 1.0
    )


def matches_path(store: Store, document: str) -> Path:
    return store.root / "audits" / "matches" / f"{document}.json"
