"""Audit outputs (text, Markdown, JSON `differ.audit/1`, HTML), mirror drift events, and when each canonical
edit reached each mirror."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

from differ.audit import AuditReport, Finding, MirrorAudit, audit_document
from differ.audited import AUDIT_RULES, findings_said, last_audit, passages_said
from differ.diff.blocks import md_text
from differ.languages import language_names
from differ.options import cut, listed, plural
from differ.wildcard import fits

if TYPE_CHECKING:
    from differ.app import App
    from differ.config import SourceConfig

FORMATS = ("text", "markdown", "json", "html")


def _cut(text: str | None, limit: int = 160) -> str:
    return cut(" ".join((text or "").split()), limit)


def corruption(expected: str, found: str, limit: int = 4) -> str:
    """What a corrupted command changed, by its words (`"widget==3.0" → "widgett==3.0"`, `dropped "--pre"`)."""
    a, b, opcodes = _token_opcodes(expected, found)
    parts = []
    for tag, i1, i2, j1, j2 in opcodes:
        old, new = " ".join(m.group() for m in a[i1:i2]), " ".join(m.group() for m in b[j1:j2])
        if tag == "delete":
            parts.append(f'dropped "{old}"')
        elif tag == "insert":
            parts.append(f'added "{new}"')
        elif tag == "replace":
            parts.append(f'"{old}" → "{new}"')
    if not parts:
        return "spacing differs"
    return listed(parts, limit)


def _token_opcodes(a: str, b: str) -> tuple[list[re.Match[str]], list[re.Match[str]], list[Opcode]]:
    """Two texts' runs of non-space (a command's words, as a shell splits them) and how they align."""
    wa, wb = list(_TOKEN.finditer(a)), list(_TOKEN.finditer(b))
    matcher = SequenceMatcher(None, [m.group() for m in wa], [m.group() for m in wb], autojunk=False)
    opcodes: list[Opcode] = list(matcher.get_opcodes())
    return wa, wb, opcodes


_TOKEN = re.compile(r"\S+")
Opcode = tuple[str, int, int, int, int]


def _word_op(op: dict[str, str]) -> str:
    old, new = op.get("before", ""), op.get("after", "")
    # spacing alone is shown as Python writes it, so it can be seen
    spacing = old.split() == new.split()
    q = repr if spacing else (lambda t: f'"{t}"')
    return f"dropped {q(old)}" if not new else f"added {q(new)}" if not old else f"{q(old)} → {q(new)}"


def finding_detail(f: Finding) -> str:
    """What a finding changed, in words: the edits a stale mirror misses, a corrupted command's words, the
    tokens a translation got wrong, an altered passage's words."""
    if f.kind == "code_corrupted":
        return corruption(f.canonical or "", f.mirror or "") + (f" in {f.count} lines" if f.count > 1 else "")
    if f.kind in ("altered", "moved") and f.ops:  # a moved block the copy edited too: where, then how
        edits = "; ".join(_word_op(o) for o in f.ops[:4]) + (" …" if len(f.ops) > 4 else "")
        return f"{f.detail}; {edits}" if f.kind == "moved" else edits
    if f.count > 1 and f.kind == "moved":  # a section moved whole
        return f"{f.count} blocks, {f.detail}"
    if f.count > 1:
        return f'{f.count} blocks in a row, to "{_cut(f.detail, 60)}"'
    return f.detail


def finding_line(f: Finding) -> str:
    place = " › ".join(f.section)
    where = f" [{place}]" if place else ""
    if f.kind == "stale":
        return f"stale: {f.detail}"
    if f.kind == "code_corrupted":
        more = f" and {f.count - 1} more line{'s' if f.count > 2 else ''} like it" if f.count > 1 else ""
        slip = corruption(f.canonical or "", f.mirror or "")
        return f'code corrupted{where}: "{_cut(f.mirror)}"{more} ({slip}; expected "{_cut(f.canonical)}")'
    if f.kind == "moved" and f.count > 1:
        return f'moved{where}: the section "{_cut(f.canonical, 80)}" ({finding_detail(f)})'
    if f.count > 1:  # missing or extra blocks in a row
        return (
            f'{f.kind}{where}: "{_cut(f.canonical or f.mirror, 60)}" and what follows ({finding_detail(f)})'
        )
    # a block's kind, where it tells more than its quote: a heading opens a section, a row is of a table
    heading = {"heading": "the heading ", "row": "the row "}.get(f.detail, "")
    if f.kind == "missing":
        return f'missing{where}: {heading}"{_cut(f.canonical)}"'
    if f.kind == "extra":
        return f'extra{where}: {heading}"{_cut(f.mirror)}"'
    if f.kind == "replaced":
        return f'replaced{where}: "{_cut(f.canonical, 100)}" → "{_cut(f.mirror, 100)}"'
    if f.kind == "moved":
        return f'moved{where}: "{_cut(f.canonical)}" ({finding_detail(f)})'
    if f.kind == "link" and f.mirror is None:
        return f'link{where}: "{_cut(f.detail, 60)}" no longer links to {f.canonical}'
    if f.kind == "link":
        return f'link{where}: "{_cut(f.detail, 60)}" goes to {f.mirror} instead of {f.canonical}'
    edit = f"version {f.not_carried}'s edit not carried over" if f.not_carried is not None else ""
    if f.kind == "token_mismatch":
        return f'token mismatch{where}: {f.detail} in "{_cut(f.mirror, 80)}"' + (f" ({edit})" if edit else "")
    return f'altered{where}: "{_cut(f.canonical, 100)}" ({finding_detail(f)}{"; " + edit if edit else ""})'


def mirror_lines(m: MirrorAudit, canonical_version: int | None) -> list[str]:
    head = f"{m.id}: " + audit_headline(
        m.version,
        m.translation,
        m.matches_version,
        canonical_version,
        m.stale_from,
        m.coverage,
        len(m.findings),
        len(m.accepted),
        m.passages_behind,
        m.read_in,
    )
    note = [f"  note: {m.note}"] if m.note else []
    note += [f"  note: {unused_line(m.unused)}"] if m.unused else []
    note += ["  to carry over by then:", *(f"      {line}" for line in m.missed)] if m.missed else []
    found = []
    for f in m.findings:
        first, *under = finding_lines(f)
        found += [f"  • {first}", *(f"      {line}" for line in under)]
    return [head, *note, *found, *(f"  accepted: {finding_line(f)}" for f in m.accepted)]


def accepted(
    findings: list[Finding], patterns: Sequence[str], title: str | None = None
) -> tuple[list[Finding], list[Finding], list[str]]:
    """A mirror's findings split by its `accept` patterns: those still counted, and those made on purpose (its
    own heading, a section it leaves out), matched by their line as `differ audit` prints it (`*` any
    characters, case aside), so a mirror's CI and alerts answer for what it did not mean; and the patterns
    that match none (what the copy no longer does, or a pattern mistyped). With the canonical's `title`, a
    line as it was written while the title headed every section (`extra [Post › Install]: …`) matches too: a
    pattern copied from an audit of before still does."""
    pieces = [p.casefold().split("*") for p in patterns]
    counted: list[Finding] = []
    known: list[Finding] = []
    used: set[int] = set()
    for f in findings:
        lines = [finding_line(f).casefold()]
        if title:
            lines.append(finding_line(replace(f, section=(title, *f.section))).casefold())
        hits = {n for n, p in enumerate(pieces) if any(fits(p, line) for line in lines)}
        used |= hits
        (known if hits else counted).append(f)
    return counted, known, [p for n, p in enumerate(patterns) if n not in used]


def unused_line(patterns: Sequence[str]) -> str:
    """The `accept` patterns of a mirror that match none of its findings now."""
    quoted = ", ".join(json.dumps(p, ensure_ascii=False) for p in patterns)
    return f"accept {quoted} {'matches' if len(patterns) == 1 else 'match'} none of its findings now"


def not_fetched(report: AuditReport, mirror: str) -> str:
    """What is said of a mirror with no version stored yet: how to fetch it."""
    return f"not fetched yet (differ check {report.document}/{mirror} fetches it)"


def to_carry_over(m: MirrorAudit) -> list[str]:
    """The canonical's edits a mirror behind it has to carry over: its stale finding's, or while it is catching
    up, those it has until then."""
    stale = next((f for f in m.findings if f.kind == "stale"), None)
    return stale.canonical.splitlines() if stale and stale.canonical else m.missed


def finding_lines(f: Finding) -> list[str]:
    """A finding's line, and under a stale mirror's the canonical's changes it misses, as the diff of the two
    versions summarizes them (what a translator or mirror maintainer has to carry over)."""
    if f.kind == "stale" and f.canonical:
        return [f"{finding_line(f)}:", *f.canonical.splitlines()]
    return [finding_line(f)]


def audit_headline(
    version: Any,
    translation: bool,
    matches_version: Any,
    canonical_version: Any,
    stale_from: Any,
    coverage: float,
    findings: int,
    accepted: int = 0,
    passages_behind: int | None = None,
    read_in: Sequence[str] = (),
) -> str:
    """A mirror's audit in a line: `version 3, a translation, matches canonical version 2 — stale (the canonical
    is at version 3); coverage 99.7%; 7 findings` (as `differ audit` and `differ sources` say it; the arguments
    are named as `differ sources` gives them in JSON)."""
    if matches_version == canonical_version:
        state = "up to date"
    elif stale_from:
        state = f"catching up (stale from {stale_from} unless it carries version {canonical_version} by then)"
    else:
        state = f"stale (the canonical is at version {canonical_version})"
    if said := passages_said(matches_version, canonical_version, passages_behind):
        state += f", {said}"
    read = f", its {language_names(read_in)} blocks," if read_in else ""
    return (
        f"version {version}{', a translation,' if translation else read} matches canonical version "
        f"{matches_version} — {state}; coverage {coverage:.1%}; {findings_said(findings, accepted)}"
    )


def render_audit(report: AuditReport, fmt: str) -> str:
    """One document's audit as text, Markdown, JSON (`differ.audit/1`) or a standalone HTML page."""
    if fmt == "json":
        return json.dumps(report.as_json(), ensure_ascii=False, indent=2) + "\n"
    head = _head(report)
    if report.canonical_version is None:
        return _no_canonical(report) + "\n"
    if fmt == "html":
        return html_page(report, head)
    lines = [head]
    md = [f"**{md_text(head, inline=True)}**", ""]
    if not report.mirrors and not report.unread and not report.unfetched:
        lines.append("no mirror versions stored yet")
        md += _markdown_items(lines[-1:])
    for m in report.mirrors:
        said = mirror_lines(m, report.canonical_version)
        lines.extend(said)
        md += _markdown_items(said) + _markdown_passages(m, report.document)
        behind = m.matches_version is not None and m.matches_version < report.canonical_version
        if behind or m.passages_behind:  # where the passages to carry over can be read whole
            lines.append(
                f"  the passages to carry over, as they now read: differ blame {report.document} --after "
                f"{report.document}/{m.id}"
            )
    rest = [f"{mirror}: not audited: {why}" for mirror, why in report.unread.items()]
    rest += [f"{mirror}: {not_fetched(report, mirror)}" for mirror in report.unfetched]
    if fmt == "markdown":
        return "\n".join(md + _markdown_items(rest)).rstrip("\n") + "\n"
    return "\n".join(lines + rest) + "\n"


def _markdown_items(lines: list[str]) -> list[str]:
    """An audit's lines as Markdown list items: a mirror's line, its findings under it, and under a stale
    finding the changes it misses, each with its new text."""
    out: list[str] = []
    for line in lines:
        text = line.strip().removeprefix("• ")
        if text.startswith("→ ") and out:  # a change's new text: with the old, in its item
            out[-1] += f" {md_text(text)}"
        elif line.startswith("      "):  # a change a stale mirror misses, under that finding
            out.append(f"    - {md_text(text)}")
        else:
            out.append(f"  - {md_text(text)}" if line.startswith("  ") else f"- {md_text(line)}")
    return out


def _markdown_passages(m: MirrorAudit, document: str) -> list[str]:
    """Under a mirror behind the canonical: the passages it has to carry over, each named and placed in it, with
    its Markdown in a fence to copy."""
    carry = m.carry_over
    if not carry or not carry["passages"]:
        return []
    from differ.carry import carried_over, more_passages, passage_markdown

    def escape(text: str) -> str:
        return md_text(text, inline=True)

    out = [f"  - {escape(f'To carry over: {carried_over(carry)}:')}", ""]
    for p in carry["passages"]:
        out += [f"    {line}".rstrip() for line in passage_markdown(p, escape, m.id)] + [""]
    left = int(carry.get("left_out") or 0)
    event = {"document": document, "mirror": m.id}
    return out + ([f"    - {escape(more_passages(event, left))}", ""] if left else [])


def render_audits(reports: list[AuditReport], fmt: str) -> str:
    """The audits of every document as one output: one JSON object listing them (`differ.audits/1`), one HTML
    page with a section a document, or their text or Markdown one after the other."""
    if fmt == "json":
        every = {"schema": AUDITS_SCHEMA, "documents": [r.as_json() for r in reports]}
        return json.dumps(every, ensure_ascii=False, indent=2) + "\n"
    if fmt == "html":
        from differ.site import page

        sections = "".join(
            "<section>"
            + (
                _html_body(r, _head(r))
                if r.canonical_version is not None
                else f"<p>{html.escape(_no_canonical(r))}</p>"
            )
            + "</section>"
            for r in reports
        )
        return page(f"Audit of {plural(len(reports), 'document')}", sections)
    return ("\n" if fmt == "markdown" else "").join(render_audit(r, fmt) for r in reports)


AUDITS_SCHEMA = "differ.audits/1"


def _head(report: AuditReport) -> str:
    """An audit's first line: the document and the canonical version it was audited against."""
    return f"{report.title} ({report.document}): canonical version {report.canonical_version}" + (
        f" of {report.canonical_fetched_at}" if report.canonical_fetched_at else ""
    )


def _no_canonical(report: AuditReport) -> str:
    return f"{report.title} ({report.document}): no canonical version stored yet (run: differ check)"


def html_page(report: AuditReport, head: str) -> str:
    """A standalone page; every piece of page text is escaped and no script may run."""
    from differ.site import page

    return page(head, _html_body(report, head))


def _html_body(report: AuditReport, head: str) -> str:
    """An audit as HTML, headed `head`. A mirror with no stored version (a copy audited on the spot by `differ
    compare --audit`) has no version line and no history."""
    e = html.escape
    parts = [f"<h1>{e(head)}</h1>"]
    for m in report.mirrors:
        parts.append(f"<h2>{e(m.id)}</h2>")
        if m.version is not None:
            parts.append(f"<p>{e(mirror_lines(m, report.canonical_version)[0])}</p>")
        if m.note:
            parts.append(f"<p>Note: {e(m.note)}</p>")
        if m.unused:
            parts.append(f"<p>Note: {e(unused_line(m.unused))}</p>")
        if m.missed:
            edits = _lines("\n".join(m.missed))
            parts.append(f"<p>To carry over by {e(m.stale_from or 'then')}:</p><p>{edits}</p>")
        if m.carry_over and m.carry_over["passages"]:
            from differ.carry import passages_html

            carry = m.carry_over
            parts.append(passages_html(carry["passages"], m.id, int(carry.get("left_out") or 0)))
        if m.version is not None:
            parts.append(
                "<p>Canonical edits reaching this mirror:</p><ul>"
                + "".join(f"<li>{e(line)}</li>" for line in reach_text(m.reached))
                + "</ul>"
            )
        rows = "".join(
            f"<tr><td>{e(f.kind)}</td><td>{e(' › '.join(f.section))}</td>{_sides(f)}"
            f"<td>{e(finding_detail(f))}</td></tr>"
            for f in m.findings
        )
        rows += "".join(  # made on purpose, as the mirror's `accept` says: apart, after the others
            f"<tr class=quiet><td>accepted: {e(f.kind)}</td><td>{e(' › '.join(f.section))}</td>{_sides(f)}"
            f"<td>{e(finding_detail(f))}</td></tr>"
            for f in m.accepted
        )
        parts.append(
            "<table><tr><th>Finding</th><th>Section</th><th>Canonical</th><th>Mirror</th><th>Detail</th>"
            f"</tr>{rows}</table>"
        )
    for mirror, why in report.unread.items():
        parts.append(f"<h2>{e(mirror)}</h2><p>Not audited: {e(why)}</p>")
    for mirror in report.unfetched:
        parts.append(f"<h2>{e(mirror)}</h2><p>{e(not_fetched(report, mirror))}</p>")
    return "".join(parts)


def _sides(f: Finding) -> str:
    """A finding's canonical and mirror cells: code as it is laid out, and where the two say one thing two ways
    (a corrupted command, an altered passage), the words that differ marked, struck out in the canonical's and
    highlighted in the mirror's."""
    td = "<td class=code>" if f.kind == "code_corrupted" or f.detail == "code" else "<td>"
    if f.kind in ("code_corrupted", "altered") and f.canonical and f.mirror:
        canonical, mirror = _marked_pair(f.canonical, f.mirror)
    else:
        canonical, mirror = _lines(f.canonical), _lines(f.mirror)
    return f"{td}{canonical}</td>{td}{mirror}</td>"


def _marked_pair(a: str, b: str) -> tuple[str, str]:
    """Two texts escaped, each stretch of words (runs of non-space) that differs marked: `<del>` in `a`, `<ins>`
    in `b`; the text between the words kept as it is."""
    wa, wb, opcodes = _token_opcodes(a, b)
    marks_a: list[tuple[int, int]] = []
    marks_b: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag != "equal" and i2 > i1:
            marks_a.append((wa[i1].start(), wa[i2 - 1].end()))
        if tag != "equal" and j2 > j1:
            marks_b.append((wb[j1].start(), wb[j2 - 1].end()))
    return _with_marks(a, marks_a, "del"), _with_marks(b, marks_b, "ins")


def _with_marks(text: str, marks: list[tuple[int, int]], tag: str) -> str:
    out, at = [], 0
    for start, end in marks:
        out += [html.escape(text[at:start]), f"<{tag}>{html.escape(text[start:end])}</{tag}>"]
        at = end
    out.append(html.escape(text[at:]))
    return "".join(out).replace("\n", "<br>")


def _lines(text: str | None) -> str:
    """Text for a table cell, escaped, its lines kept apart (a code block's, the edits a stale mirror misses)."""
    return "<br>".join(html.escape(line) for line in (text or "").splitlines())


def drift_events(app: App, report: AuditReport) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """`mirror_drift` events for mirrors whose findings changed since the last audit, and the record of this
    one, which `remember_audits` writes once the events are in the outbox (written first, a crash in between
    would lose them: the next audit would find nothing changed)."""
    previous = last_audit(app.store, report.document)
    events = []
    current: dict[str, Any] = {}
    for m in report.mirrors:
        keys = sorted(f.key for f in m.findings)
        current[m.id] = {
            "signature": m.signature,
            "matches_version": m.matches_version,
            "findings": keys,
            "lines": {f.key: finding_line(f) for f in m.findings},
            "coverage": round(m.coverage, 4),
            "stale_from": m.stale_from,
            "note": m.note,
            "translation": m.translation,
            **({"read_in": list(m.read_in)} if m.read_in else {}),  # a bilingual copy's half audited
            "version": m.version,  # what was audited: an audit older than the store is due again
            "canonical_version": report.canonical_version,
            "rules": AUDIT_RULES,
            "missed": to_carry_over(m),  # for the reports site
            "passages_behind": m.passages_behind,
            # the canonical's latest blocks it has to carry over (by index): `differ blame --after` and the site
            **({"owed": sorted(m.owed), "carried": m.carried} if m.owed is not None else {}),
            # the version they were edited after: the one it matches, or, up to date, before the first edit it lacks
            **({"carry_after": m.carry_over["after"]} if m.carry_over else {}),
            "accepted": [finding_line(f) for f in m.accepted],
            "accept": m.accept,  # the patterns it was made with: another set makes an audit due
            "reading": m.reading,  # and the settings it read the copy with: others make one due too
        }
        before = previous.get(m.id)
        if (
            not isinstance(before, dict)
            or before.get("signature") == m.signature
            or _only_accepted(before, m)
        ):
            continue
        pages = (before.get("version"), before.get("canonical_version"))
        read_so = before.get("rules") == AUDIT_RULES and before.get("reading", m.reading) == m.reading
        if not read_so and pages == (m.version, report.canonical_version):
            continue  # the same pages, read by another differ or as set otherwise: no doing of the mirror's
        events.append(drift_event(report, m, before))
    for mirror in report.unread:  # a damaged mirror's last audit stands until it can be read again
        if isinstance(previous.get(mirror), dict):
            current[mirror] = previous[mirror]
    return events, current


def _only_accepted(before: dict[str, Any], m: MirrorAudit) -> bool:
    """Whether all a mirror's audit changed since `before` is findings its `accept` now matches: no alert, the
    user said they are made on purpose."""
    old, now = set(before.get("findings", [])), {f.key for f in m.findings}
    same = before.get("matches_version") == m.matches_version
    return same and now < old and old - now <= {f.key for f in m.accepted}


def drift_event(report: AuditReport, m: MirrorAudit, before: dict[str, Any]) -> dict[str, Any]:
    """The `mirror_drift` event of a mirror whose findings are no longer those of the audit `before` (its
    recorded findings, their lines and the version it matched; empty: every finding is new)."""
    keys = sorted(f.key for f in m.findings)
    lines = {f.key: finding_line(f) for f in m.findings}
    old = set(before.get("findings", []))
    said = passages_said(m.matches_version, report.canonical_version, m.passages_behind)
    behind = f", {said}" if said else ""
    summary = [
        f"{report.title}: mirror {m.id} ({'a translation, ' if m.translation else ''}coverage {m.coverage:.1%}, "
        f"matches canonical version {m.matches_version} of {report.canonical_version}{behind})"
    ]
    added = [lines[k] for k in keys if k not in old]
    # findings the mirror's `accept` now matches are not resolved: they are there, made on purpose
    gone_keys = sorted(old - set(keys) - {f.key for f in m.accepted})
    # still stale, with other edits to carry over (some carried since, or more made): its stale finding as it now
    # is, not one resolved and one new
    still = before.get("matches_version") == m.matches_version and any(
        k.startswith("stale|") for k in gone_keys
    )
    gone = [before.get("lines", {}).get(k, k) for k in gone_keys if not (still and k.startswith("stale|"))]
    summary += [f"• note: {m.note}"] if m.note and added else []
    by_key = {f.key: f for f in m.findings}
    for key in (k for k in keys if k not in old):  # as `added`, with the changes a stale mirror misses
        first, *under = finding_lines(by_key[key])
        said = "now" if still and key.startswith("stale|") else "new"
        summary += [f"• {said}: {first}", *(f"  {line}" for line in under)]
    summary += [f"• resolved: {line}" for line in gone]
    headline = _headline(before, m, report.canonical_version, added, gone, still)
    return {
        "type": "mirror_drift",
        "document": report.document,
        "title": report.title,
        "mirror": m.id,
        "signature": m.signature,
        "canonical_version": report.canonical_version,
        "headline": headline,
        "summary": summary,
        "audit": m.as_json(),
        # behind the canonical: its passages to carry over, as they now read, each placed in the copy
        **({"carry_over": m.carry_over} if m.carry_over else {}),
    }


def _headline(
    before: dict[str, Any],
    m: MirrorAudit,
    canonical: int | None,
    added: list[str],
    gone: list[str],
    still: bool = False,
) -> str:
    """A drift alert's headline from the mirror's audit `before` and now; `still`: stale before and now, with
    other edits to carry over."""
    if still and before.get("canonical_version") == canonical:  # the copy carried some over, not all
        carried = f"; {plural(m.carried, 'edit')} since carried over" if m.carried else ""
        return f"is still stale: matches version {m.matches_version}, canonical is at {canonical}{carried}"
    matched = before.get("matches_version")
    if matched is None and m.matches_version == canonical:  # no audit before it (a preview): what it finds
        return plural(len(added), "finding") if added else f"matches canonical version {canonical}"
    lacks = passages_said(m.matches_version, canonical, m.passages_behind)  # edits an up-to-date copy lacks
    if matched != m.matches_version or any(line.startswith("stale") for line in added):
        if m.matches_version == canonical:
            return f"caught up with canonical version {canonical}" + (f", {lacks}" if lacks else "")
        return f"is stale: matches version {m.matches_version}, canonical is at {canonical}"
    if (
        m.matches_version == canonical
        and not lacks
        and passages_said(matched, canonical, before.get("passages_behind"))
    ):
        return f"caught up with canonical version {canonical}"  # the last edits it lacked carried over
    if added and not gone:
        return plural(len(added), "new finding")
    if gone and not added:
        return f"{plural(len(gone), 'finding')} resolved"
    return "findings changed"


def audit_after_check(
    app: App, documents: set[str]
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """Audit the documents whose sources changed: the drift events, and the records `remember_audits` writes
    once they are queued. A document whose canonical has a damaged file is passed over, its last audit kept as
    it is; a mirror that has one keeps its last audit while the others are audited (a line on stderr each)."""
    events: list[dict[str, Any]] = []
    audits: dict[str, dict[str, Any]] = {}
    for doc in app.config.documents:
        if doc.id in documents and doc.mirrors:
            with app.carry_on(f"{doc.id}: not audited"):
                report = audit_document(app, doc)
                found, audits[doc.id] = drift_events(app, report)
                events.extend(found)
                for mirror, why in report.unread.items():
                    app.tell(f"{doc.id}/{mirror}: not audited", why)
    return events, audits


def reach_text(reached: list[dict[str, Any]]) -> list[str]:
    """One line per canonical edit: which mirror version first carried it."""
    if not reached:
        return ["(the canonical has not been edited since its first snapshot)"]
    return [
        f"canonical version {r['canonical_version']} ({r['canonical_fetched_at']}): "
        + (
            f"mirror version {r['mirror_version']} ({r['mirror_fetched_at']})"
            if r["mirror_version"]
            else "not yet"
        )
        for r in reached
    ]


def reach(app: App, mirror: SourceConfig) -> list[dict[str, Any]] | None:
    """When (which mirror version) each canonical edit reached this mirror, if ever; None before both have a
    version."""
    from differ.audit import canonical_apart, edit_reach, read_copy
    from differ.audit.matches import Canonical, Matches, matches_path

    doc = app.config.document(mirror.document)
    canon = app.store.versions(doc.canonical.key)
    latest = app.store.latest(mirror.key)
    if not canon or latest is None:
        return None
    canonical = Canonical(app.store, canon, canonical_apart(app, doc))
    matches = Matches(matches_path(app.store, doc.id), canonical, AUDIT_RULES)
    # a bilingual copy's versions read in the canonical's language, as its audit reads them (as stored: the store
    # may be read without the configuration that would read them again)
    newest = canonical.blocks(canonical.numbers[-1])
    read = read_copy(mirror, app.store.markdown(latest), latest.metadata, newest, canonical.apart)
    reached = edit_reach(app, canonical, matches, read.mirror, read.note is not None)
    matches.save()
    return reached


def reach_lines(app: App, mirror: SourceConfig) -> list[str]:
    """For `differ history`: the canonical edits reaching this mirror, a line each."""
    reached = reach(app, mirror)
    if reached is None:
        return []
    return [f"  canonical edits reaching {mirror.key}:", *(f"    {line}" for line in reach_text(reached))]
