"""Mirror audit: the replay's expected findings, properties, and translation pairing on the corpus."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from differ.audit import Stream, best_version, compare, pair_translations, token_mismatches
from differ.diff.blocks import split_blocks
from tests.helpers import pytorch_kr, replay_fetch, wpnews


def audit(mirror_md: str) -> tuple[int, list[tuple[str, str]]]:
    versions = {1: split_blocks(replay_fetch(1).markdown), 2: split_blocks(replay_fetch(3).markdown)}
    number, al = best_version(
        [(n, Stream.of(b)) for n, b in versions.items()], Stream.of(split_blocks(mirror_md))
    )
    findings = compare(versions[number], split_blocks(mirror_md), al)
    return number, [(f.kind, f.canonical or f.mirror or "") for f in findings]


def test_wpnews_matches_version_1_with_corrupted_commands_and_an_extra_heading() -> None:
    number, findings = audit(wpnews().markdown)
    assert number == 1
    assert findings == [("extra", "Featured projects")] + [
        ("code_corrupted", f"pip3 install torch --index-url https://download.pytorch.org/whl/{v}")
        for v in ("cpu", "cu130", "rocm7.2", "xpu")
    ]


def test_korean_repost_matches_version_2_and_lacks_one_heading() -> None:
    number, findings = audit(pytorch_kr().markdown)
    assert number == 2
    assert findings == [("missing", "Large MPS Op Migration to Native Metal")]


def test_korean_repost_translations_keep_their_tokens() -> None:
    blocks = split_blocks(pytorch_kr(None).markdown)
    mismatches = token_mismatches(blocks, {"Hangul"}, {"Latin"})
    assert mismatches == []


BLOCKS = st.lists(
    st.sampled_from(
        [
            "# Title",
            "## Section one",
            "Alpha beta gamma delta.",
            "Epsilon zeta eta.",
            "- first item here",
            "- second item there",
            "Theta iota kappa lambda mu.",
            "```\npip install differ --upgrade\n```",
            "Nu xi omicron pi rho.",
        ]
    ),
    min_size=2,
    max_size=9,
    unique=True,
)


@settings(max_examples=80, deadline=None)
@given(BLOCKS)
def test_identical_mirror_has_full_coverage_and_no_findings(blocks: list[str]) -> None:
    md = "\n\n".join(blocks) + "\n"
    canon = split_blocks(md)
    number, al = best_version([(1, Stream.of(canon))], Stream.of(split_blocks(md)))
    assert al.matched == len(al.canonical.words)
    assert compare(canon, split_blocks(md), al) == []


@settings(max_examples=80, deadline=None)
@given(BLOCKS, st.data())
def test_removing_one_block_gives_exactly_one_missing(blocks: list[str], data: st.DataObject) -> None:
    gone = data.draw(st.integers(0, len(blocks) - 1))
    md = "\n\n".join(blocks) + "\n"
    copy = "\n\n".join(b for i, b in enumerate(blocks) if i != gone) + "\n"
    canon = split_blocks(md)
    _, al = best_version([(1, Stream.of(canon))], Stream.of(split_blocks(copy)))
    findings = compare(canon, split_blocks(copy), al)
    assert [(f.kind, f.canonical) for f in findings] == [("missing", split_blocks(blocks[gone])[0].text)]


def test_corpus_translations_pair_with_their_originals() -> None:
    """PyTorch Korea posts: Korean paragraphs followed by the English original as a quote."""
    from bench.corpus_eval import CORPUS, body
    from tests.helpers import norm, source

    for folder in sorted(CORPUS.glob("PyTorchKR__*")):
        last = sorted(folder.glob("rev-*.md"))[-1]
        md = norm(body(last.read_text()), source("markdown"), "text/markdown").markdown
        blocks = split_blocks(md)
        korean = [
            i
            for i, b in enumerate(blocks)
            if re.search("[가-힣]", b.text)
            and b.kind != "code"
            and len(b.text.split()) >= 4
            and " / " not in b.text
        ]  # "한국어 / English" lines carry both
        pairs = dict(pair_translations(blocks, {"Hangul"}, {"Latin"}))
        paired = [i for i in korean if i in pairs]
        assert len(paired) / len(korean) >= 0.9, (folder.name, len(paired), len(korean))
        for i, j in pairs.items():
            assert abs(i - j) <= 8
