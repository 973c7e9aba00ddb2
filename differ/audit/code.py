"""Commands a copy must carry character for character: the command lines of the canonical's code blocks, and
the inline code of its text (`pip install --pre torch` in a sentence). The word-by-word audit reads past
typesetting (curly quotes, dashes) as a reader does; a shell does not, so here `–index-url` for `--index-url`
is a corruption."""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from difflib import SequenceMatcher

from rapidfuzz import fuzz, process

from differ.audit.model import Finding
from differ.diff.blocks import Block

CODE_SIMILAR = 80.0


# What starts a line of code that is a comment, not a command.
COMMENT_MARKS = ("#", "//", "--", ";", "/*", "<!--")


def command_lines(block: Block) -> list[str]:
    return [
        line.strip()
        for line in block.text.split("\n")
        if line.strip() and not line.strip().startswith(COMMENT_MARKS)
    ]


def translated_comment(mirror: Sequence[Block], j: int, canonical: Sequence[Block]) -> bool:
    """Whether block `j` of a translation is a comment of the canonical's code, translated, in code the copy set
    as text (`# CUDA (CUDA 버전으로 치환…` for `# CUDA (substitute the CUDA version…`): it starts with a comment
    mark that starts a comment of that code, and a block beside it is one of the code's commands."""
    text = mirror[j].text.strip()
    marks = {
        mark
        for b in canonical
        if b.kind == "code"
        for line in b.text.split("\n")
        for mark in COMMENT_MARKS
        if line.strip().startswith(mark + " ")
    }
    if not any(text.startswith(mark + " ") for mark in marks):
        return False
    beside = [mirror[k] for k in (j - 1, j + 1) if 0 <= k < len(mirror) and mirror[k].kind != "code"]
    return any(looks_like_command(b, canonical) for b in beside)


def _char_detail(expected: str, found: str) -> str:
    parts = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, expected, found, autojunk=False).get_opcodes():
        if tag != "equal":
            parts.append(f'"{expected[i1:i2]}" → "{found[j1:j2]}"')
    return ", ".join(parts[:5])


def looks_like_command(block: Block, canonical: Sequence[Block]) -> bool:
    lines = [line for b in canonical if b.kind == "code" for line in b.text.split("\n")]
    return any(fuzz.ratio(block.text.strip(), line.strip()) >= CODE_SIMILAR for line in lines if line.strip())


def code_findings(canonical: list[Block], mirror: list[Block], skip: set[int]) -> list[Finding]:
    """Command lines of the canonical's code blocks (but those in `skip`, reported missing whole), compared
    character by character with the mirror's lines. A line the mirror lacks is corrupted when a line of the
    mirror is nearly it (`–index-url` for `--index-url`), and missing when none is: a line that copies another
    command of the canonical exactly (`…/cu128` where `…/cu130` was dropped) is that command, not a corruption.
    Lines of a block corrupted alike (`–index-url` in each install command) are one finding with their count."""
    candidates = [
        " ".join(line.split())
        for b in mirror
        for line in (b.text.split("\n") if b.kind == "code" else [b.text])
        if line.strip()
    ]
    findings: list[Finding] = inline_code_findings(canonical, mirror)
    if not candidates:
        return findings
    present = set(candidates)
    corrupted: dict[tuple[int, str], Finding] = {}
    commands = {" ".join(line.split()) for b in canonical if b.kind == "code" for line in command_lines(b)}
    loose = [c for c in candidates if c not in commands]
    for index, block in enumerate(canonical):
        if block.kind != "code" or index in skip:
            continue
        for line in command_lines(block):
            wanted = " ".join(line.split())
            if wanted in present:
                continue
            match = process.extractOne(wanted, loose, scorer=fuzz.ratio) if loose else None
            if match is None or match[1] < CODE_SIMILAR:
                findings.append(Finding("missing", block.section, wanted, None, "code"))
                continue
            found = match[0]
            detail = _char_detail(wanted, found)
            same = corrupted.get((index, detail))
            if same is not None:  # the same slip in another line of the block: one finding, counted
                same.count += 1
                continue
            corrupted[index, detail] = Finding("code_corrupted", block.section, wanted, found, detail)
            findings.append(corrupted[index, detail])
    return findings


_TICKS = re.compile(r"`+")
# What typesetting makes of what a command needs exact: dashes, quotes, three dots, spacing.
_TYPESET = re.compile(
    r"[-\u2010-\u2015\u2212]+|\.\.\.|\u2026|\s+|[\u2018\u2019\u201a\u201b\u2032]|[\u201c-\u201f\u2033]"
)
_WORD = re.compile(r"\w+")
_PUNCTUATION = re.compile(r"[^\w\s]")  # what a copy can lose, add or typeset in inline code
_OPENERS = "([{<\"'\u201c\u2018\u00ab"
_CLOSERS = ".,;:!?)]}>\"'\u201d\u2019\u00bb"


def code_spans(block: Block) -> list[str]:
    """The inline code of a block as its Markdown writes it, spacing made single: as CommonMark reads a code
    span, a run of backticks to the next run as long (an escaped one is text), in one pass over the runs."""
    text = block.source
    runs = [m for m in _TICKS.finditer(text) if not (m.start() and text[m.start() - 1] == "\\")]
    closer: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for k in range(len(runs) - 1, -1, -1):  # each run's next run as long
        length = runs[k].end() - runs[k].start()
        closer[k], last[length] = last.get(length), k
    spans: list[str] = []
    k = 0
    while k < len(runs):
        end = closer[k]
        if end is None:  # no run closes it: backticks as text
            k += 1
            continue
        spans.append(" ".join(text[runs[k].end() : runs[end].start()].split()))
        k = end + 1
    return spans


def untypeset(text: str) -> tuple[str, Sequence[int]]:
    """`text` with typesetting undone (a run of dashes one "-", curly quotes straight, "..." as "…", any spacing
    one space), and for each of its characters where it came from in `text` (and one more for its end), as
    machine integers: a list of Python ints would take 36 bytes a character."""
    out: list[str] = []
    at = array("q")
    pos = 0
    for m in _TYPESET.finditer(text):
        out.append(text[pos : m.start()])
        at.extend(range(pos, m.start()))
        token = m.group()
        if token[0].isspace():
            out.append(" ")
        elif token in ("...", "\u2026"):
            out.append("\u2026")
        elif token[0] in "\u2018\u2019\u201a\u201b\u2032":
            out.append("'")
        elif token[0] in "\u201c\u201d\u201e\u201f\u2033":
            out.append('"')
        else:
            out.append("-")
        at.append(m.start())
        pos = m.end()
    out.append(text[pos:])
    at.extend(range(pos, len(text) + 1))
    return "".join(out), at


# A command's words that a text gives without marking them as code: a long option (`--index-url`, `--pre`) or a
# version pinned (`torch==2.13`, `numpy>=2`), each a word of its own.
_PROSE_COMMAND = re.compile(
    r"(?<![^\s(])(?:--[A-Za-z][\w-]*(?:=[\w/:-]+(?:\.[\w/:-]+)*)?|[A-Za-z][\w.-]*(?:==|>=|<=|~=|!=)[\w*+]+(?:\.[\w*+]+)*)"
    r"(?=[\s,;:)]|[.!?](?:\s|$)|$)"
)


def prose_commands(text: str) -> list[str]:
    """The options and pinned versions a text writes as plain words (`pip install --pre torch==2.13` in a
    sentence): a copy's `–pre` or `torch=2.13` breaks them as it breaks inline code."""
    return _PROSE_COMMAND.findall(text)


def inline_code_findings(canonical: list[Block], mirror: list[Block]) -> list[Finding]:
    """Inline code of the canonical's text (with punctuation, which a copy can lose or typeset) that the copy
    has only typeset (`–upgrade` for `--upgrade`, `’` for `'`) or with its words and other punctuation
    (`torch=2.13` for `torch==2.13`, which the word-by-word audit reads as the same words). A span the copy
    lacks altogether is left to the word-by-word audit, and a writing the canonical itself has somewhere is the
    copy carrying it."""
    spans: dict[str, int] = {}
    for index, block in enumerate(canonical):
        if block.kind != "code":
            marked = code_spans(block)
            for span in marked:
                if len(span) >= 4 and _PUNCTUATION.search(span) and any(c.isalnum() for c in span):
                    spans.setdefault(span, index)
            for command in prose_commands(block.text):
                if not any(command in span for span in marked):
                    spans.setdefault(command, index)
    kept = {span for b in mirror if b.kind != "code" for span in code_spans(b)}  # a copy that kept the markup
    doubtful = [span for span in spans if span not in kept]
    if not doubtful:
        return []
    copy = Typeset("\n".join(b.text for b in mirror))
    own: Typeset | None = None
    findings: list[Finding] = []
    corrupted: dict[tuple[int, str], Finding] = {}
    for span in doubtful:
        forms = copy.forms(span) or copy.altered(span)
        if not forms or span in forms:
            continue
        own = own or Typeset("\n".join(b.text for b in canonical))
        carried = own.forms(span) + own.altered(span)  # the canonical's own writings of it
        found = next((f for f in forms if f not in carried), None)
        if found is None:
            continue
        index = spans[span]
        detail = _char_detail(span, found)
        same = corrupted.get((index, detail))
        if same is not None:  # the same slip in another command of the paragraph: one finding, counted
            same.count += 1
            continue
        corrupted[index, detail] = Finding("code_corrupted", canonical[index].section, span, found, detail)
        findings.append(corrupted[index, detail])
    return findings


class Typeset:
    """A text read past its typesetting (`untypeset`), its words indexed: where it has a span, however typeset,
    is found from the span's rarest word, so a copy with thousands of commands is searched in linear time."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.plain, self.at = untypeset(text)
        self.tokens = array("q")  # each word's start and end in `plain`, one after the other
        self.words: dict[str, list[int]] = {}  # a word's places: its indexes in the text's sequence of words
        for k, m in enumerate(_WORD.finditer(self.plain)):
            self.tokens.extend((m.start(), m.end()))
            self.words.setdefault(m.group(), []).append(k)

    def _places(self, want: str) -> tuple[list[tuple[str, int]], int, list[int]]:
        """The words of `want` with their offsets, which of them is the text's rarest, and that word's places."""
        inner = [(m.group(), m.start()) for m in _WORD.finditer(want)]
        if not inner:
            return inner, 0, []
        rarest = min(range(len(inner)), key=lambda k: len(self.words.get(inner[k][0], ())))
        return inner, rarest, self.words.get(inner[rarest][0], [])

    def _written(self, start: int, end: int) -> str:
        return " ".join(self.text[self.at[start] : self.at[end]].split())

    def forms(self, span: str) -> list[str]:
        """Each way the text writes `span` on its own (not a piece of a longer word or option: `--pre` is not in
        "non-prerelease"), spacing made single, in the order they come."""
        want = untypeset(span)[0]
        inner, rarest, places = self._places(want)
        out: list[str] = []
        for place in places:
            start = self.tokens[2 * place] - inner[rarest][1]
            end = start + len(want)
            if start < 0 or not self.plain.startswith(want, start):
                continue
            before = self.plain[start - 1] if start else " "
            after = self.plain[end] if end < len(self.plain) else " "
            if (want[0].isalnum() or want[0] == "-") and (before.isalnum() or before == "-"):
                continue
            if want[-1].isalnum() and after.isalnum():
                continue
            found = self._written(start, end)
            if found not in out:
                out.append(found)
        return out

    def altered(self, span: str) -> list[str]:
        """Each place the text has the words of `span`, in order and nothing else between them, but not its
        punctuation (`torch=2.13` for `torch==2.13`, `-pre` for `--pre`), as written there. Sentence punctuation
        around it is not the span's: `(-pre).` is read as `-pre`."""
        want = untypeset(span)[0]
        inner, rarest, places = self._places(want)
        if not inner:
            return []
        head, tail = want[: inner[0][1]].lstrip(), want[inner[-1][1] + len(inner[-1][0]) :].rstrip()
        out: list[str] = []
        for place in places:
            first, last = place - rarest, place - rarest + len(inner) - 1
            if first < 0 or 2 * last + 1 >= len(self.tokens):
                continue
            if any(
                self.plain[self.tokens[2 * (first + k)] : self.tokens[2 * (first + k) + 1]] != w
                for k, (w, _) in enumerate(inner)
            ):
                continue
            start, end = self.tokens[2 * first], self.tokens[2 * last + 1]
            if head:
                lead = start
                while lead and not self.plain[lead - 1].isspace() and not self.plain[lead - 1].isalnum():
                    lead -= 1
                while lead < start and self.plain[lead] in _OPENERS and not head.startswith(self.plain[lead]):
                    lead += 1
                start = start - len(head) if self.plain[lead:start].endswith(head) else lead
            if tail:
                trail = end
                while (
                    trail < len(self.plain)
                    and not self.plain[trail].isspace()
                    and not self.plain[trail].isalnum()
                ):
                    trail += 1
                while (
                    trail > end
                    and self.plain[trail - 1] in _CLOSERS
                    and not self.plain[end:trail].startswith(tail)
                ):
                    trail -= 1
                end = end + len(tail) if self.plain[end:trail].startswith(tail) else trail
            found = self._written(start, end)
            if untypeset(found)[0] != want and found not in out:
                out.append(found)
        return out
