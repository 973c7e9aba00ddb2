"""Precision and recall of changed words over the revision corpus.

Each revision's Markdown body (front matter removed) is rendered to HTML as its site would, read through the
`html` pipeline, and consecutive revisions are diffed. Ground truth is a word-level difference of what the two
bodies show (visible words plus link targets), taken by four standard word diffs: difflib over the whole body,
a Myers diff with semantic cleanup (diff-match-patch), and git's myers and histogram diffs. Where a rewrite
replaced whole passages they disagree on which shared words ("the", ":", "Bar") were kept, so the headline
figures read them together, as multi-reference scores do: recall against difflib, which every pair must meet in
full, and precision counting a reported word as changed when any of the four counts it changed, as many times
as the most generous one does. Each truth's own figures are printed too. Run: python -m bench.corpus_eval
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from urllib.parse import urljoin

from markdown_it import MarkdownIt

from differ.config import SourceConfig
from differ.diff import diff
from differ.diff.blocks import words
from differ.normalize import Body, Normalized, normalize

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "corpus"
_FRONT = re.compile(r"\A(?:---\n.*?\n---\n|\+\+\+\n.*?\n\+\+\+\n)", re.DOTALL)
_SITE = MarkdownIt("commonmark", {"html": True}).enable("table")
SOURCE = SourceConfig(
    document="corpus",
    id="post",
    url="https://blog.example.org/post/",
    kind="html",
    options={"selector": None, "exclude": (), "metadata": ()},
)


def body(text: str) -> str:
    return _FRONT.sub("", text, count=1)


def page(markdown: str) -> str:
    return f"<html><body><article>{_SITE.render(markdown)}</article></body></html>"


def shown(markdown: str) -> list[str]:
    """What a reader of the rendered page gets: visible words, and link targets where links are. Words are read
    from the page's text as a reader sees it, so inline markup does not split one (`Foo::C`'s is "Foo::C's"),
    while blocks stay apart (the renderer puts a newline between them)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(_SITE.render(markdown), "lxml")
    out: list[str] = words(soup.get_text())
    for a in soup.find_all("a"):
        if a.get("href"):
            out.append(urljoin(SOURCE.url, str(a["href"])))  # as a browser resolves it
    return out


def changed(a: list[str], b: list[str]) -> Counter[str]:
    result: Counter[str] = Counter()
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            result.update(a[i1:i2])
            result.update(b[j1:j2])
    return result


def changed_semantic(a: list[str], b: list[str]) -> Counter[str]:
    """The words a Myers diff with semantic cleanup (diff-match-patch's, one character a word) says changed."""
    from diff_match_patch import diff_match_patch

    codes: dict[str, str] = {}

    def encode(ws: list[str]) -> str:
        return "".join(codes.setdefault(w, chr(0xF0000 + len(codes))) for w in ws)

    ea, eb = encode(a), encode(b)
    word = {c: w for w, c in codes.items()}
    dmp = diff_match_patch()
    dmp.Diff_Timeout = 0
    ops = dmp.diff_main(ea, eb, False)
    dmp.diff_cleanupSemantic(ops)
    return Counter(word[c] for op, text in ops if op != 0 for c in text)


def changed_git(a: list[str], b: list[str], algorithm: str) -> Counter[str]:
    """The words `git diff --no-index --diff-algorithm=ALGORITHM` says changed, one word a line: git's own
    word-level difference, as a third yardstick."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        old, new = Path(folder) / "old", Path(folder) / "new"
        old.write_text("".join(f"{w}\n" for w in a))
        new.write_text("".join(f"{w}\n" for w in b))
        out = subprocess.run(
            [
                "git",
                "diff",
                "--no-index",
                "--no-color",
                "-U0",
                f"--diff-algorithm={algorithm}",
                str(old),
                str(new),
            ],
            capture_output=True,
            text=True,
        ).stdout
    return Counter(
        line[1:] for line in out.splitlines() if line[:1] in "+-" and line[:3] not in ("---", "+++")
    )


@dataclass
class PairResult:
    post: str
    pair: str
    kind: str
    truth: Counter[str]
    reported: Counter[str]
    semantic: Counter[str]
    git: dict[str, Counter[str]]

    @property
    def hits(self) -> int:
        return sum((self.truth & self.reported).values())

    @property
    def changed_by_any(self) -> Counter[str]:
        """Each word as many times as the most generous of the four truths counts it changed."""
        out = self.truth | self.semantic
        for counted in self.git.values():
            out |= counted
        return out

    @property
    def right(self) -> int:
        """Reported words that some truth counts as changed: multi-reference precision's hits."""
        return sum((self.changed_by_any & self.reported).values())


def reported_words(old_md: str, new_md: str) -> Counter[str]:
    def norm(md: str) -> Normalized:
        return normalize(Body(page(md).encode(), "text/html; charset=utf-8", SOURCE.url), SOURCE)

    a_n, b_n = norm(old_md), norm(new_md)
    d = diff(a_n.markdown, b_n.markdown, a_invisible=a_n.invisible, b_invisible=b_n.invisible)
    out: Counter[str] = Counter()
    for c in d.changes:
        if c.kind == "modified":
            for op in c.ops:
                out.update(words(op.get("before", "")))
                out.update(words(op.get("after", "")))
        elif c.kind in ("added", "removed"):
            out.update(words(c.before or c.after or ""))
            block = d.b_blocks[c.b_index] if c.b_index is not None else d.a_blocks[c.a_index or 0]
            out.update(url for _, url in block.links)
        elif c.kind == "moved":  # a move deletes and inserts the same words
            out.update(words(c.before or ""))
            out.update(words(c.after or ""))
        elif c.kind == "invisible":
            m = re.match(r"(\d+) invisible U\+([0-9A-F]+)", c.detail)
            if m:
                out[chr(int(m.group(2), 16))] += int(m.group(1))
        if c.kind in ("link", "modified") and c.detail:
            out.update(url.rstrip(";") for url in re.findall(r"\S+://\S+", c.detail))
    return out


def wordy(counted: Counter[str]) -> Counter[str]:
    """Of counted words, the words and numbers (and link targets, invisible characters): not punctuation marks."""
    import unicodedata

    def kept(word: str) -> bool:
        invisible = len(word) == 1 and unicodedata.category(word) in ("Cc", "Cf")
        return invisible or not re.fullmatch(r"[^\w\s]+", word)

    return Counter({w: n for w, n in counted.items() if kept(w)})


def _total(counted: Counter[str]) -> int:
    return sum(counted.values())


def pairs() -> Iterator[tuple[str, str, str, str, str]]:
    """Every consecutive pair of revisions: post, pair, the edit's kind, and the two Markdown bodies."""
    import json

    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        revs = json.loads((folder / "meta.json").read_text())["revisions"]
        for prev, cur in zip(revs, revs[1:], strict=False):
            a, b = body((folder / prev["file"]).read_text()), body((folder / cur["file"]).read_text())
            yield folder.name, f"{prev['file']}→{cur['file']}", cur["kind"], a, b


GIT_ALGORITHMS = ("myers", "histogram")


def evaluate() -> list[PairResult]:
    results = []
    for post, pair, kind, a, b in pairs():
        old, new = shown(a), shown(b)
        git = {algorithm: changed_git(old, new, algorithm) for algorithm in GIT_ALGORITHMS}
        results.append(
            PairResult(
                post, pair, kind, changed(old, new), reported_words(a, b), changed_semantic(old, new), git
            )
        )
    return results


def _ratio(part: int, whole: int) -> str:
    return f"{part / whole if whole else 1.0:.1%}"


def main() -> int:
    results = evaluate()
    truth = sum(sum(r.truth.values()) for r in results)
    reported = sum(sum(r.reported.values()) for r in results)
    hits = sum(r.hits for r in results)
    right = sum(r.right for r in results)
    for r in results:
        t, rep = sum(r.truth.values()), sum(r.reported.values())
        flag = (
            "" if r.hits == t else "  <-- missed " + ", ".join(sorted((r.truth - r.reported).elements())[:8])
        )
        extra = r.reported - r.changed_by_any
        if extra:
            flag += "  <-- no truth changed " + ", ".join(sorted(extra.elements())[:8])
        print(f"{r.post[:48]:48} {r.pair:22} {r.kind:18} truth {t:4} reported {rep:4} hit {r.hits:4}{flag}")
    print(
        f"\nchanged words: reported {reported}; recall {_ratio(hits, truth)} of difflib's {truth}, "
        f"precision {_ratio(right, reported)} (a reported word right when any of the four truths changed it)"
    )
    print(f"against the difflib truth alone: precision {_ratio(hits, reported)}")
    # the same truth counting words and numbers alone, not punctuation marks, which the issue lists apart
    words_truth = [wordy(r.truth) for r in results]
    words_reported = [wordy(r.reported) for r in results]
    kept = sum(sum((t & w).values()) for t, w in zip(words_truth, words_reported, strict=True))
    told, said = sum(map(_total, words_truth)), sum(map(_total, words_reported))
    print(
        f"counting words and numbers alone (no punctuation marks): truth {told}, reported {said}; "
        f"recall {kept / told if told else 1.0:.1%}, precision {kept / said if said else 1.0:.1%}"
    )
    semantic = sum(sum(r.semantic.values()) for r in results)
    agreed = sum(sum((r.semantic & r.reported).values()) for r in results)
    print(
        f"against a semantic truth (Myers with semantic cleanup): truth {semantic}; "
        f"recall {agreed / semantic if semantic else 1.0:.1%}, precision {agreed / reported if reported else 1.0:.1%}"
    )
    for algorithm in GIT_ALGORITHMS:  # git's word diff as the truth: it too matches words across blocks
        total = sum(sum(r.git[algorithm].values()) for r in results)
        hit = sum(sum((r.git[algorithm] & r.reported).values()) for r in results)
        print(
            f"against git's word diff ({algorithm}): truth {total}; recall {_ratio(hit, total)}, "
            f"precision {_ratio(hit, reported)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
