"""Mirror fidelity audit: for each mirror, what it misses, adds, alters or corrupts, and which canonical
version it reflects (and since when the canonical has moved on). This module audits against the store; a copy
is compared with one canonical version in `findings` (word by word) or `translation` (block by block), what
they find is `model`, and `report` says it and tells drift."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from differ.audit.align import Alignment, Stream, align
from differ.audit.code import code_findings, command_lines, looks_like_command
from differ.audit.findings import (
    best_version,
    carried,
    compare,
    in_a_row,
    pair_translations,
    token_detail,
    token_mismatches,
)
from differ.audit.language import reading, translated
from differ.audit.model import JOINED, SCHEMA, AuditReport, Finding, MirrorAudit
from differ.audited import AUDIT_RULES, mirror_reading
from differ.diff.blocks import Block, md_text, split_blocks, title_text
from differ.errors import StoreDamage
from differ.options import plural

__all__ = [
    "AUDIT_RULES",
    "SCHEMA",
    "AuditReport",
    "Finding",
    "MirrorAudit",
    "Stream",
    "audit_document",
    "audit_pair",
    "audit_text",
    "best_version",
    "carried",
    "code_findings",
    "command_lines",
    "compare",
    "copy_blocks",
    "edit_reach",
    "in_a_row",
    "looks_like_command",
    "mirror_text",
    "pair_translations",
    "reach_lines",
    "render_audit",
    "title_apart",
    "token_detail",
    "token_mismatches",
    "translation_findings",
]

if TYPE_CHECKING:
    from differ.app import App
    from differ.audit.edits import Aligned, Missed
    from differ.audit.matches import Canonical, Matches
    from differ.audit.translation import Pairing
    from differ.config import DocumentConfig, SourceConfig


def audit_document(app: App, doc: DocumentConfig, only: str | None = None) -> AuditReport:
    """Audit every mirror of a document (or the one whose id is `only`) against the canonical versions in the
    store; a mirror a damaged file of its own keeps from being read is named in `unread`."""
    from differ.audit.matches import Canonical, Matches, matches_path
    from differ.titles import document_title

    store = app.store
    canon_versions = store.versions(doc.canonical.key)
    latest = canon_versions[-1] if canon_versions else None
    report = AuditReport(
        doc.id,
        document_title(store, doc),
        latest.number if latest else None,
        latest.fetched_at if latest else None,
    )
    if latest is None:
        return report
    canonical = Canonical(store, canon_versions, canonical_apart(app, doc))
    matches = Matches(matches_path(store, doc.id), canonical, AUDIT_RULES)
    for mirror in doc.mirrors:
        if only is not None and mirror.id != only:
            continue
        try:
            mv = store.latest(mirror.key)
            if mv is None:
                report.unfetched.append(mirror.id)
            else:
                report.mirrors.append(audit_mirror(app, mirror, mv, canonical, matches, doc.canonical.url))
        except StoreDamage as exc:
            if exc.key not in (None, mirror.key):
                raise  # the canonical's history: no mirror can be audited against it
            report.unread[mirror.id] = str(exc)  # the other mirrors are audited as ever
    # an unread mirror's matches are kept for when it is mended, as are those of the mirrors not audited
    matches.save(prune=not report.unread and only is None)
    _passages_to_carry(app, doc, latest, report.mirrors)
    return report


def _passages_to_carry(app: App, doc: DocumentConfig, latest: Any, mirrors: list[MirrorAudit]) -> None:
    """For each mirror behind the canonical, the canonical's passages edited since the version it matches, as
    they now read, each placed in the copy (`differ blame`, read from the reports site's record of the latest
    version when it has one; their count is the mirror's `passages_behind`); for each mirror up to date, its
    findings on passages it reads as before their last edit marked so (`Finding.not_carried`), those passages
    being the ones it has to carry over. A history that cannot be followed leaves them unknown (a line on
    stderr); the audit, and its alerts, stand as they are."""
    behind = [m for m in mirrors if isinstance(m.matches_version, int) and m.matches_version < latest.number]
    current = [m for m in mirrors if m.matches_version == latest.number and _edited_findings(m)]
    if not behind and not current:
        return
    from differ.audit.places import places
    from differ.blame import blame_latest, known_blame
    from differ.carry import carry_over

    with app.carry_on(f"{doc.id}: the passages its mirrors have to carry over not counted"):
        key = doc.canonical.key
        blamed = blame_latest(app, doc.canonical, latest) if behind else known_blame(app.store, key, latest)
        blocks = [b.block for b in blamed] if blamed is not None else split_blocks(app.store.markdown(latest))
        for m in behind:
            assert blamed is not None
            where = places(blocks, m.blocks, m.translation, m.alignment)
            m.carry_over = carry_over(blamed, m.matches_version or 0, where, m.owed, m.carried)
        for m in current:  # up to date but for some edits: those passages to carry over
            owed = _not_carried(app, doc, latest, blocks, blamed, m)
            if owed:
                blamed = blamed or blame_latest(app, doc.canonical, latest)
                m.owed = set(owed)
                where = places(blocks, m.blocks, m.translation, m.alignment)
                m.carry_over = carry_over(blamed, min(owed.values()) - 1, where, m.owed)


def _edited_findings(m: MirrorAudit) -> list[Finding]:
    """A mirror's findings on a passage of the canonical that an edit may explain: its words or tokens."""
    return [f for f in m.findings if f.kind in ("altered", "token_mismatch") and f.canonical]


def _not_carried(
    app: App, doc: DocumentConfig, latest: Any, blocks: list[Block], blamed: list[Any] | None, m: MirrorAudit
) -> dict[int, int]:
    """A mirror up to date whose passage reads as the canonical's before its last edit has not carried that
    edit over (rather than altered the passage): its finding says which version's edit (`not_carried`). Those
    passages (by their index in the latest version's `blocks`), each with the version of that edit: `blamed`'s,
    or found by walking back from the latest version only as far as they need."""
    from differ.audit.edits import edit_signs
    from differ.blame import last_edits
    from differ.diff import diff

    at: dict[str, int] = {}
    for k, b in enumerate(blocks):
        at.setdefault(b.text, k)

    def passages(text: str) -> list[int]:
        """The latest version's blocks a finding is on: one, or those a translation merged (`a / b`)."""
        parts = [text] if text in at else text.split(JOINED)
        return [at[part] for part in parts] if all(part in at for part in parts) else []

    findings = [(f, found) for f in _edited_findings(m) if (found := passages(f.canonical or ""))]
    wanted = {i for _, found in findings for i in found}
    edited = (
        {i: blamed[i].edited.number for i in wanted}
        if blamed is not None
        else last_edits(app, doc.canonical, latest, wanted)
    )
    versions = {v.number: v for v in app.store.versions(doc.canonical.key)}
    signs: dict[int, tuple[Any, list[int]]] = {}  # by the version that edited: its diff to now, each way read
    owed: dict[int, int] = {}
    marked: set[int] = set()  # the findings (by id) on a passage it reads as before its last edit
    for f, found in findings:
        for i in found:
            e = edited.get(i, 0)
            if e - 1 not in versions:
                continue
            if e not in signs:
                d = diff(app.store.markdown(versions[e - 1]), app.store.markdown(latest))
                signs[e] = d, edit_signs(d, m.blocks, m.translation, (None, m.alignment))
            d, sign = signs[e]
            if any(c.b_index == i and s < 0 for c, s in zip(d.changes, sign, strict=True)):
                marked.add(id(f))
                owed[i] = e
    for f, found in findings:  # marked once all are known: a fault half way leaves the findings as they were
        if id(f) in marked:
            f.not_carried = max(owed[i] for i in found if i in owed)
    return owed


def audit_mirror(
    app: App,
    mirror: SourceConfig,
    mv: Any,
    canonical: Canonical,
    matches: Matches,
    canonical_url: str = "",
) -> MirrorAudit:
    latest_number = canonical.numbers[-1]
    latest_blocks = canonical.blocks(latest_number)
    read = copy_blocks(app, mirror, mv, latest_blocks, canonical.apart)
    set_as = mirror_reading(app, mirror)  # how its settings read it: a bilingual copy split is still read so
    mirror, markdown, blocks = read.mirror, read.markdown, read.blocks
    mstream = Stream.of(blocks)
    number = matches.best(markdown, mstream, mirror.translation)
    pages = (canonical_url, mirror.url)
    as_translation, note = reading(latest_blocks, blocks, mirror.translation, _OPTION, mirror.languages or ())
    note = read.note or note
    # the page with every language kept
    whole = read.whole if read.note else _whole(app, mirror, mv) if mirror.languages else None
    by = {v.number: v for v in canonical.versions}
    # the copy aligned once (word by word) or paired (a translation) with the latest version and the one it
    # matches, for every use
    latest_al = _aligned(canonical.stream(latest_number), mstream, as_translation)
    number_al = (
        latest_al if number == latest_number else _aligned(canonical.stream(number), mstream, as_translation)
    )
    since = None
    if number != latest_number:
        since = _since(app, by[number], by[latest_number], blocks, as_translation, (number_al, latest_al))
    # told against the version it matches with the edits it carries made, not as altering those passages
    carries = since is not None and since.carries > 0
    coverage, findings = audit_text(
        Stream.of(since.as_carried()) if since and carries else canonical.stream(number),
        canonical.stream(latest_number),
        mstream,
        pages,
        as_translation,
        whole,
        mirror.languages or (),
        (None if carries else number_al, latest_al),
    )
    result = MirrorAudit(
        mirror.id, mirror.url, mv.number, mv.fetched_at, number, coverage, translation=as_translation
    )
    result.blocks, result.alignment = blocks, latest_al
    result.reached = edit_reach(app, canonical, matches, mirror, read.note is not None)
    if since is not None:
        result.owed, result.carried = since.owed, since.carries
        result.stale_from = _stale_from(app, mirror, by, number)
        if result.stale_from is None:
            result.findings.append(_stale(by, number, latest_number, since))
        else:  # no finding yet, but what it has to carry over by then
            result.missed = _missed(since, number, latest_number)
    result.findings.extend(findings)
    if mirror.accept:
        from differ.audit.report import accepted

        result.findings, result.accepted, result.unused = accepted(
            result.findings, mirror.accept, title_text(latest_blocks)
        )
        result.accept = list(mirror.accept)
    result.note = note  # what its scripts or languages say, unless the configuration says what it is
    result.read_in = (mirror.languages or ()) if read.note else ()
    result.reading = set_as
    return result


_OPTION = 'languages = ["{}"] on it'  # how an audit's note names a mirror's setting


@dataclass
class CopyRead:
    """A mirror version as its audit reads it: the mirror as audited (a bilingual copy's with the `languages` its
    audit keeps), its Markdown and blocks; for a bilingual copy split so, the note that says it and the page with
    every language kept."""

    mirror: SourceConfig
    markdown: str
    blocks: list[Block]
    note: str | None = None
    whole: str | None = None


def in_languages(markdown: str, languages: tuple[str, ...]) -> str:
    """Stored Markdown as `languages` reads its page (`normalize.language.in_languages`), remembered for the few
    versions of a bilingual copy each audit reads again (a post's size, not a huge page)."""
    from differ.normalize.language import in_languages as read

    return _kept(markdown, languages) if len(markdown) <= KEPT_SIZE else read(markdown, languages)


KEPT_SIZE = 200_000  # characters of the largest Markdown whose blocks in some languages are remembered


@lru_cache(maxsize=64)
def _kept(markdown: str, languages: tuple[str, ...]) -> str:
    from differ.normalize.language import in_languages as read

    return read(markdown, languages)


def copy_blocks(
    app: App, mirror: SourceConfig, mv: Any, canonical: Sequence[Block], apart: str | None = None
) -> CopyRead:
    """A mirror version's Markdown as the audit reads it (`mirror_text`, `canonical` the latest version's blocks,
    `apart` the title it keeps apart), read as the mirror is set now (`as_read_now`: its `languages` set since it
    was fetched apply at once), and its blocks. A bilingual copy (`bilingual`) whose `languages` and
    `translation` are unset is read as `languages` set to the canonical's language reads it (`languages = []`
    keeps every block)."""
    from differ.versions import as_read_now

    return read_copy(mirror, as_read_now(app, mirror, mv), mv.metadata, canonical, apart)


def read_copy(
    mirror: SourceConfig,
    whole: str,
    metadata: Mapping[str, Any],
    canonical: Sequence[Block],
    apart: str | None = None,
    option: str = _OPTION,
) -> CopyRead:
    """`copy_blocks` of a mirror version's Markdown as read (`whole`) and its metadata (`option`: how a note names
    the `languages` setting, formatted with a code)."""
    from differ.audit.language import bilingual

    markdown = mirror_text(whole, metadata, mirror.kind, canonical[:1], mirror.languages or (), apart)
    blocks = split_blocks(markdown)
    split = None
    if mirror.languages is None and mirror.translation is None:
        split = bilingual(canonical, blocks, option)
    if split is None:
        return CopyRead(mirror, markdown, blocks)
    mirror = replace(mirror, languages=(split[0],))
    kept = in_languages(whole, mirror.languages or ())
    markdown = mirror_text(kept, metadata, mirror.kind, canonical[:1], mirror.languages or (), apart)
    return CopyRead(mirror, markdown, split_blocks(markdown), split[1], whole)


def mirror_text(
    markdown: str,
    metadata: Mapping[str, Any],
    kind: str,
    opening: Sequence[Block],
    languages: Sequence[str] = (),
    apart: str | None = None,
) -> str:
    """A copy's Markdown as the audit compares it: with its title on top where the canonical opens with its title
    and the copy keeps its own apart from the body (a JSON field, a Discourse topic's or a WordPress post's title,
    a feed entry's, front matter), so the canonical's title is not read as missing, and a title the copy changed
    is read as altered. A title in a language the copy's `languages` leave out (a bilingual post's Korean title,
    its English half audited) is its translation, not a change: the canonical's stands for it. Where the canonical
    keeps its title apart (`apart`, `title_apart`), the copy's title heading is its title, as that is, not a
    passage of its own."""
    from differ.normalize.language import filter_languages

    if apart is not None:
        return _untitled(markdown)
    if not opening or opening[0].kind != "heading" or opening[0].level != 1:
        return markdown
    title = title_apart(kind, markdown, metadata)  # none on a page, or in a copy with a heading of its own
    if not title:
        return markdown
    heading = f"# {md_text(title, inline=True)}\n"
    if languages and not filter_languages(heading, languages).strip():
        heading = f"# {md_text(opening[0].text, inline=True)}\n"
    return f"{heading}\n{markdown}"


def title_apart(kind: str, markdown: str, metadata: Mapping[str, Any]) -> str | None:
    """The title a canonical keeps apart from its body (a WordPress post's, a Discourse topic's, a JSON field's,
    a feed entry's, front matter's), which a copy sets as its heading; None for a page (its <title> is not its
    heading) or a body that opens with a heading of its own."""
    from differ.titles import page_title

    if kind == "html" or markdown.startswith("# "):
        return None
    return page_title(metadata, "") or None


def canonical_apart(app: App, doc: DocumentConfig) -> str | None:
    """`title_apart` of a document's canonical, as its latest version reads."""
    latest = app.store.latest(doc.canonical.key)
    if latest is None:
        return None
    return title_apart(doc.canonical.kind, app.store.markdown(latest), latest.metadata)


def _untitled(markdown: str) -> str:
    """A copy's Markdown without the heading that titles it (`Block.title`), if it opens with one."""
    if not markdown.startswith("# "):
        return markdown
    blocks = split_blocks(markdown)
    if not blocks or not blocks[0].title:
        return markdown
    return markdown[len(blocks[0].source) :].lstrip("\n")


def edit_reach(
    app: App, canonical: Canonical, matches: Matches, mirror: SourceConfig, split: bool = False
) -> list[dict[str, Any]]:
    """For each canonical edit (version 2 on), the first mirror version that reflects it, or None. Each mirror
    version's best match is remembered (`matches`), so only the canonical versions stored since are aligned.
    `split`: the mirror is a bilingual copy its audit reads in its `languages` alone, as each version is read."""
    from differ.audit.matches import CHUNK

    def kept(markdown: str) -> str:
        return in_languages(markdown, mirror.languages or ()) if split else markdown

    versions = app.store.versions(mirror.key)
    opening = canonical.blocks(canonical.numbers[-1])[:1]
    found: list[tuple[Any, int]] = []
    for at in range(0, len(versions), CHUNK):  # a few texts read at a time, aligned together
        chunk = versions[at : at + CHUNK]
        texts = [
            (
                mirror_text(
                    kept(app.store.markdown(v)),
                    v.metadata,
                    mirror.kind,
                    opening,
                    mirror.languages or (),
                    canonical.apart,
                ),
                None,
            )
            for v in chunk
        ]
        found += zip(chunk, matches.settle(texts, mirror.translation), strict=True)
    reached = []
    for c in canonical.versions[1:]:
        first = next((v for v, n in found if n >= c.number), None)
        reached.append(
            {
                "canonical_version": c.number,
                "canonical_fetched_at": c.fetched_at,
                "mirror_version": first.number if first else None,
                "mirror_fetched_at": first.fetched_at if first else None,
            }
        )
    return reached


def _stale_from(app: App, mirror: SourceConfig, by: dict[int, Any], number: int) -> str | None:
    """When a mirror that reflects canonical version `number` becomes stale, if that is still to come: its
    `stale_after` from the moment the canonical moved on (`by`: the canonical's versions by number)."""
    from datetime import datetime, timedelta

    from differ.app import iso

    if not mirror.stale_after:
        return None
    moved_on = by.get(number + 1)
    if moved_on is None:
        return None
    since = datetime.fromisoformat(moved_on.fetched_at.replace("Z", "+00:00"))
    deadline = since + timedelta(seconds=mirror.stale_after)
    return iso(deadline) if app.now() < deadline else None


def _aligned(canonical: Stream, copy: Stream, as_translation: bool) -> Alignment | Pairing:
    """A copy's blocks paired with a canonical version's, if it is a translation; else its words aligned."""
    from differ.audit.translation import pair_blocks

    return pair_blocks(canonical.blocks, copy.blocks) if as_translation else align(canonical, copy)


def _since(app: App, old: Any, new: Any, copy: list[Block], as_translation: bool, aligned: Aligned) -> Missed:
    """The canonical's edits from version `old` to `new`, and which of them the copy carries already (`aligned`:
    the copy's words aligned with each version, when the audit has them)."""
    from differ.audit.edits import missed
    from differ.diff import diff

    return missed(diff(app.store.markdown(old), app.store.markdown(new)), copy, as_translation, aligned)


def _missed(since: Missed, old: int, new: int) -> list[str]:
    """The canonical's edits from version `old` to `new` a copy misses, as an alert summarizes them."""
    from differ.diff import Versions, summarize

    return summarize(since.diff, Versions("", "", old, new))[1:]


def _stale(by: dict[int, Any], number: int, latest: int, since: Missed) -> Finding:
    old = by[number]
    moved_on = by.get(number + 1)
    since_at = moved_on.fetched_at if moved_on else by[latest].fetched_at
    carries = f" (and has carried over {since.carries})" if since.carries else ""
    return Finding(
        "stale",
        (),
        "\n".join(_missed(since, number, latest)),
        None,
        f"matches canonical version {number} ({old.fetched_at}); the canonical has moved on since "
        f"{since_at} (now version {latest}), so the mirror misses {plural(len(since.diff), 'change')}{carries}",
    )


def _whole(app: App, mirror: SourceConfig, mv: Any) -> str | None:
    """A bilingual mirror's page with every language kept: its stored raw body read again, if it reads."""
    from differ.errors import DifferError
    from differ.versions import read_version

    try:
        return read_version(app, replace(mirror, languages=None), mv).markdown
    except DifferError:
        return None


def translation_findings(bilingual: str, languages: Sequence[str]) -> list[Finding]:
    """token_mismatch between the blocks of a bilingual page in the kept `languages` and their translations
    (told apart by script, or on a page in two Latin-script languages, by language)."""
    from differ.languages import LANGUAGE_NAMES, SCRIPT_OF_LANGUAGE
    from differ.normalize.language import block_labels

    blocks = split_blocks(bilingual)
    each = block_labels([b.text for b in blocks])
    labels = {label for label in each if label}
    by_language = any(label in LANGUAGE_NAMES for label in labels)
    kept = {
        lang if by_language and SCRIPT_OF_LANGUAGE[lang] == "Latin" else SCRIPT_OF_LANGUAGE[lang]
        for lang in languages
    }
    return token_mismatches(blocks, labels - kept, kept, each)


def _translation_audit(
    canonical: list[Block],
    latest: Stream,
    mirror: list[Block],
    pages: tuple[str, str],
    page: Sequence[Block] = (),
    paired: Aligned = (None, None),
) -> tuple[float, list[Finding]]:
    """A translation's coverage of the latest canonical version, and its findings against the version it
    renders (`canonical`). `page`: the whole page, when `languages` kept a part of it: the names, headings and
    commands no one translates are on it, though not in the part kept. `paired`: its blocks already paired with
    either version's, where they are."""
    from differ.audit import translation

    given = [p if isinstance(p, translation.Pairing) else None for p in paired]
    pairing = given[0] or translation.pair_blocks(canonical, mirror)
    latest_pairing = given[1] or (
        pairing if latest.blocks is canonical else translation.pair_blocks(latest.blocks, mirror)
    )
    coverage = translation.carried(latest, mirror, latest_pairing, page)
    return coverage, translation.compare(canonical, mirror, pairing, pages, page)


def audit_pair(
    canonical: str,
    mirror: str,
    pages: tuple[str, str] = ("", ""),
    translation: bool | None = None,
    whole: str | None = None,
) -> tuple[float, list[Finding]]:
    """Coverage and findings of one mirror text against one canonical text (Markdown), with no history;
    `pages` are their addresses, if any. A translation (`translation`, or unset, as its scripts say) is audited
    for what a translation keeps; `whole` is its page with every language, when `languages` kept a part."""
    canon, copy = Stream.of(split_blocks(canonical)), Stream.of(split_blocks(mirror))
    as_translation = translated(canon.blocks, copy.blocks, translation)
    return audit_text(canon, canon, copy, pages, as_translation, whole)


def audit_text(
    canonical: Stream,
    latest: Stream,
    mirror: Stream,
    pages: tuple[str, str],
    as_translation: bool,
    whole: str | None = None,
    languages: Sequence[str] = (),
    aligned: Aligned = (None, None),
) -> tuple[float, list[Finding]]:
    """A mirror text's coverage of the latest canonical version and its findings against the version it
    matches (`canonical`): block by block for a translation, word by word for any other copy, and then, for a
    copy whose `languages` kept a part of its page (`whole`), each kept block's translation on the page against
    it. `aligned`: the copy already aligned (word by word) or paired (a translation) with either version, where
    it is."""
    if as_translation:
        page = split_blocks(whole) if whole is not None else []
        return _translation_audit(canonical.blocks, latest, mirror.blocks, pages, page, aligned)
    al = aligned[0] if isinstance(aligned[0], Alignment) else align(canonical, mirror)
    latest_al = aligned[1] if isinstance(aligned[1], Alignment) else None
    latest_al = latest_al or (al if latest is canonical else align(latest, mirror))
    findings = compare(canonical.blocks, mirror.blocks, al, pages)
    if whole is not None and languages:
        findings += translation_findings(whole, languages)
    return carried(latest_al), findings


def render_audit(report: AuditReport, fmt: str) -> str:
    from differ.audit.report import render_audit as render

    return render(report, fmt)


def reach_lines(app: App, mirror: SourceConfig) -> list[str]:
    from differ.audit.report import reach_lines as lines

    return lines(app, mirror)
