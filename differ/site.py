"""The published reports folder as a small static site: `reports/index.html` lists every document and source with
its latest change, fetch state and mirror fidelity; `reports/DOCUMENT/index.html` gives a document's audit and
each source's newest versions, every version linked to its diff (older ones a hundred a page). Rewritten after
a check that changed what they show, so publishing `snapshots/reports/` at `base_url` gives a dashboard that
needs no server."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from html import escape as e
from pathlib import Path
from typing import TYPE_CHECKING, Any

from differ.audited import carry_after, findings_said, owed, passages_said
from differ.errors import StoreDamage, StoreError
from differ.feed import feed_path, write_site_feed
from differ.files import atomic_write
from differ.languages import language_names
from differ.options import cut, plural
from differ.store import Store, Version
from differ.titles import document_title

if TYPE_CHECKING:
    from differ.app import App
    from differ.blame import Blamed
    from differ.config import Config, DocumentConfig, SourceConfig
    from differ.notify.delivery import Attempt

_STYLE = (
    "body{font:15px/1.5 system-ui,sans-serif;margin:2em;max-width:72em}"
    "table{border-collapse:collapse;margin:.5em 0 1.5em}"
    "td,th{border:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top}"
    ".bad{color:#a40000}.good{color:#1a6b1a}.quiet{color:#666;font-size:small}.when{white-space:nowrap}"
    "td.code{white-space:pre-wrap;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}"
    "del{background:#fdd}ins{background:#dfd;text-decoration:none}"
    "tr.edited td{background:#fff6d5}tr.added td{background:#e3f6e3}td.heading{font-weight:600}"
    "ul.passages pre{white-space:pre-wrap;background:#f6f6f6;padding:.4em .6em;margin:.3em 0 .8em}"
)


def page(title: str, body: str, feed: str = "") -> str:
    """A standalone page in the reports' style: every piece of page text is escaped by the caller; `feed`, the
    Atom feed a feed reader given the page's address finds."""
    from differ.diff.render import standalone

    return standalone(title, _STYLE, body, feed)


def size_text(n: int) -> str:
    return f"{n / 1000:.1f} KB" if n < 1_000_000 else f"{n / 1_000_000:.1f} MB"


def describe(v: Version) -> str:
    """One line for a version: "first snapshot", or its number of changes and the first of them (the first
    metadata field, when only metadata changed), or the new release it is; and what could not be read. A
    version read from a web archive's capture (`differ backfill`) says so first."""
    text = _what_changed(v) + "".join(f"; warning: {w}" for w in v.record.get("warnings") or [])
    if v.record.get("archive"):
        text = "archived capture: " + text
    return shortened(text)


def _what_changed(v: Version) -> str:
    summary = v.record.get("summary") or []
    if v.number == 1 or not summary:
        return "first snapshot" if v.number == 1 else "changed"
    said = str(summary[0]).rsplit(": ", 1)[-1]
    if said.startswith("a new release, "):  # another release's notes, not an edit (releases/latest)
        return said.rstrip(".")
    n = v.record.get("changes", 0)
    first = one_line([str(line) for line in summary[1:3]])[2:]
    back = v.record.get("back_to")
    if isinstance(back, int) and n:  # an edit undone: said first, as the headline says it
        undone = (
            f"edit of version {v.number - 1} undone" if back == v.number - 2 else f"back to version {back}"
        )
        return f"{undone}; {plural(n, 'change')}" + (f": {first}" if first else "")
    if n == 0 and first:  # only metadata changed: say which field
        return first
    if n == 0:  # as its headline says it: `0 changes (formatting only)`
        return said.rstrip(".")
    return plural(n, "change") + (f": {first}" if first else "")


def one_line(lines: Sequence[str]) -> str:
    """A change's summary lines on one line: a modified block with what it became."""
    first = lines[0] if lines else ""
    if len(lines) > 1 and lines[1].startswith("  →"):
        first += " " + lines[1].strip()
    return first


def shortened(text: str, width: int = 110) -> str:
    return cut(text, width)


def index_path(store: Store, document: str | None = None) -> Path:
    """`reports/index.html`, or a document's `reports/DOCUMENT/index.html`."""
    folder = store.root / "reports"
    return folder / document / "index.html" if document else folder / "index.html"


def _link(href: str, text: str) -> str:
    return f'<a href="{e(href)}">{e(text)}</a>'


def web_link(url: str, text: str) -> str:
    """A link to an http(s) address; any other is its text alone (a stored URL never becomes a `javascript:`
    link)."""
    return _link(url, text) if url.startswith(("https://", "http://")) else e(text)


def external(url: str) -> str:
    """A page's address as a link, only for http(s) (`web_link`)."""
    return web_link(url, url)


def diff_nav(store: Store, source: SourceConfig, number: int, title: str, *, newer: bool = False) -> str:
    """The links atop the page of the diff that made version `number` (`reports/DOCUMENT/SOURCE/diff-N.html`):
    its document's page, the edit before it where that has a page, the edit after it once there is one
    (`newer`), the page of each passage's last edit once there is one, and every document."""
    links = [_link("../index.html", f"{title} ({source.id})")]
    if number > 2 and store.report_path(source.key, number - 1).is_file():
        before = f"the edit before: version {number - 2} → {number - 1}"
        links.append(_link(f"diff-{number - 1}.html", before))
    if newer:
        links.append(_link(f"diff-{number + 1}.html", f"the edit after: version {number} → {number + 1}"))
    if store.blame_path(source.key).is_file():
        links.append(_link("blame.html", "the post now, each passage with its last edit"))
    return " · ".join([*links, _link("../../index.html", "All documents")])


def blame_nav(source: SourceConfig, title: str) -> str:
    """The links atop a source's page of each passage's last edit (`reports/DOCUMENT/SOURCE/blame.html`): its
    document's page and every document."""
    links = [_link("../index.html", f"{title} ({source.id})"), _link("../../index.html", "All documents")]
    return f"<p class=nav>{' · '.join(links)}</p>"


_NAV = re.compile(r"<p class=nav>.*?</p>", re.DOTALL)


def link_forward(store: Store, source: SourceConfig, number: int, title: str) -> None:
    """Give the page of the diff before version `number` a link to the one that made it, so that a reader who
    comes to an older edit (from an old alert) sees that the page was edited again. The page is a rendering
    of the records: rewritten in place, without fsync."""
    path = store.report_path(source.key, number - 1)
    if number <= 2 or not path.is_file():
        return
    page = path.read_text(encoding="utf-8")
    if not _NAV.search(page):  # a page written before diff pages had links: left as it is
        return
    nav = f"<p class=nav>{diff_nav(store, source, number - 1, title, newer=True)}</p>"
    atomic_write(path, _NAV.sub(lambda _: nav, page, count=1).encode(), durable=False)


def _fetch_state(store: Store, source: SourceConfig) -> tuple[str, bool]:
    if source.paused:
        return "paused", True
    state = store.state(source.key)
    failures = int(state.get("failures") or 0)
    if failures:
        return f"failing ({failures} in a row): {state.get('last_error') or 'unknown error'}", False
    return ("ok", True) if state.get("last_check") else ("not checked yet", True)


def _fidelity(audit: dict[str, Any], mirror: str, canonical: int | None) -> tuple[str, bool]:
    """How a mirror stands against the canonical, from the last audit."""
    entry = audit.get(mirror)
    if not isinstance(entry, dict) or canonical is None:
        return "not audited yet", True
    matches = entry.get("matches_version")
    findings = len(entry.get("findings") or [])
    coverage = entry.get("coverage")
    behind = isinstance(entry.get("stale_from"), str)
    parts = [
        "up to date"
        if matches == canonical
        else f"catching up: matches version {matches} of {canonical}, stale from {entry['stale_from']}"
        if behind
        else f"stale: matches version {matches} of {canonical}",
        findings_said(findings, len(entry.get("accepted") or [])),
    ]
    if said := passages_said(matches, canonical, entry.get("passages_behind")):
        parts.insert(1, said)
    if isinstance(coverage, int | float):
        parts.append(f"coverage {coverage:.1%}")
    if entry.get("translation") is True:
        parts.append("read as a translation")
    elif isinstance(read_in := entry.get("read_in"), list) and read_in:
        parts.append(f"its {language_names(read_in)} blocks read")
    return ", ".join(parts), (matches == canonical or behind) and not findings


def _state_cell(text: str, good: bool) -> str:
    return f'<td class="{"good" if good else "bad"}">{e(text)}</td>'


def _latest_cell(store: Store, source: SourceConfig, latest: Version | None, prefix: str) -> str:
    if latest is None:
        return "<td>no versions yet</td>"
    text = f"{latest.fetched_at}: {describe(latest)}"
    if latest.number > 1 and store.report_path(source.key, latest.number).is_file():
        return f"<td>{_link(f'{prefix}{source.id}/diff-{latest.number}.html', text)}</td>"
    return f"<td>{e(text)}</td>"


def _through(source: SourceConfig) -> str:
    """Where a source is read from, when that is not the page itself (a post read from its blog's feed)."""
    return f" (read from its feed, {external(source.url)})" if source.page != source.url else ""


PAGE_VERSIONS = 100  # a source's versions on one page of its history


def shown_from(latest: int) -> int:
    """The oldest version the document's page lists: the newest 100 to 199, so that the older ones fall in
    pages of exactly 100 (`versions-1-100.html` …), which never change once written. Listing every version
    made each check read every record and rewrite a page that grew with the history."""
    return max(1, (latest // PAGE_VERSIONS - 1) * PAGE_VERSIONS + 1)


def _archive_name(lo: int) -> str:
    return f"versions-{lo}-{lo + PAGE_VERSIONS - 1}.html"


def _versions_table(store: Store, source: SourceConfig, numbers: Iterable[int], prefix: str) -> str:
    """Rows of versions, newest first as given, each linked to the diff that made it (`prefix` + diff-N.html) and
    to a web archive's copy of it where one was made."""
    rows = []
    copies = store.captures(source.key)
    for n in numbers:
        try:
            v = store.version(source.key, n)
        except StoreError:
            continue  # a gap in a damaged store (`differ verify` names it) costs its row, not the page
        number = e(str(n))
        if n > 1 and store.report_path(source.key, n).is_file():
            number = _link(f"{prefix}diff-{n}.html", str(n))
        known = copies.get(n, "").startswith(("https://", "http://"))  # never a `javascript:` link
        copy = f" · {_link(copies[n], 'archived copy')}" if known else ""
        rows.append(
            f"<tr><td>{number}</td><td class=when>{e(v.fetched_at)}</td>"
            f"<td class=when>{e(size_text(int(v.record.get('raw_bytes', 0))))}</td><td>{e(describe(v))}{copy}</td></tr>"
        )
    return f"<table><tr><th>#</th><th>Fetched</th><th>Size</th><th>Change</th></tr>{''.join(rows)}</table>"


def write_archives(store: Store, doc: DocumentConfig, generated: str) -> None:
    """Each source's older versions in pages of 100, `reports/DOCUMENT/SOURCE/versions-LO-HI.html`: a page is
    written once, when its versions leave the document's page (or when it is missing)."""
    title = document_title(store, doc)
    for source in doc.sources:
        try:
            start = shown_from(store.latest_number(source.key))  # the head alone, not the newest record
        except StoreDamage:
            continue  # its pages wait until it is mended
        for lo in range(1, start, PAGE_VERSIONS):
            path = store.report_path(source.key, lo).with_name(_archive_name(lo))
            if path.is_file():
                continue
            hi = lo + PAGE_VERSIONS - 1
            body = (
                f"<h1>{e(title)}: {e(source.id)}, versions {lo}–{hi}</h1>"
                f"<p>{_link('../index.html', 'The document and its newest versions')} · "
                f"{external(source.page)}</p>"
                + _versions_table(store, source, range(hi, lo - 1, -1), "")
                + f"<p class=quiet>Written by differ at {e(generated)}.</p>"
            )
            atomic_write(
                path, page(f"{title}: {source.id}, versions {lo}–{hi}", body).encode(), durable=False
            )


def _missed(lines: list[str], passages: list[Blamed] | None = None, copy: str = "") -> str:
    """The canonical's edits a mirror has to carry over, a change an item (its "→" line with it), then the
    passages they leave, as they now read, folded away: each named, with its place in the mirror `copy`, and
    its Markdown to copy (the passages alone for a mirror up to date but for some edits, its findings say
    which)."""
    from differ.bullets import html_items

    if not lines and not passages:
        return ""
    shown = "<p>To carry over:</p>" + (f"<ul>{html_items(lines)}</ul>" if lines else "")
    if passages:
        from differ.carry import passage, passages_html

        shown += passages_html([passage(b) for b in passages], copy)
    return shown


def _edited_after(
    app: App, doc: DocumentConfig, canonical: Version | None
) -> Callable[[SourceConfig, dict[str, Any]], list[Blamed]]:
    """The canonical's passages a mirror has to carry over (edited after the version its audit `entry` found it
    matches), as the canonical's page of each passage's last edit knows them, each placed in the mirror (none
    when there is no such page of its latest version)."""
    known: list[Blamed] | None = None

    def after(mirror: SourceConfig, entry: dict[str, Any]) -> list[Blamed]:
        nonlocal known
        number = carry_after(entry)
        if canonical is None or number is None or number >= canonical.number:
            return []
        from dataclasses import replace

        from differ.audit.places import mirror_places
        from differ.blame import known_blame
        from differ.carry import due

        if known is None:
            known = known_blame(app.store, doc.canonical.key, canonical) or []
        picked = due(known, number, owed(entry, canonical.number))
        if not picked:
            return []
        try:
            where = mirror_places(app, mirror, entry, [b.block for b in known])
        except StoreError:  # the mirror's version damaged or gone: the passages without their places
            return [b for _, b in picked]
        return [replace(b, place=where[i]) for i, b in picked]

    return after


def document_page(app: App, doc: DocumentConfig, generated: str) -> str:
    """A document's page: its mirrors' fidelity and every source's history, each version linked to its diff."""
    from differ.audited import last_audit

    store = app.store
    audit = last_audit(store, doc.id)
    canonical, _ = _newest(store, doc.canonical.key)
    title = document_title(store, doc)
    parts = [f"<h1>{e(title)}</h1>", f"<p>Canonical: {external(doc.canonical.page)}</p>"]
    links = [_link("../index.html", "All documents")]
    feed = "feed.xml" if feed_path(store, doc.id).is_file() else ""
    if feed:
        links.append(_link(feed, "Atom feed"))
    parts.append(f"<p>{' · '.join(links)}</p>")
    if doc.mirrors:
        rows = []
        edited_after = _edited_after(app, doc, canonical)
        for m in doc.mirrors:
            text, good = _fidelity(audit, m.id, canonical.number if canonical else None)
            entry = audit.get(m.id)
            entry = entry if isinstance(entry, dict) else {}
            note = f"<p>Note: {e(str(entry['note']))}</p>" if entry.get("note") else ""
            missed = entry.get("missed") or []  # the canonical's edits it misses, summarized
            found = "".join(f"<li>{e(str(line))}</li>" for line in (entry.get("lines") or {}).values())
            found += "".join(  # made on purpose, as the mirror's `accept` says: after the others
                f"<li class=quiet>accepted: {e(str(line))}</li>" for line in entry.get("accepted") or []
            )
            rows.append(
                f"<tr><td>{e(m.id)}</td>{_state_cell(text, good)}<td>{note}{f'<ul>{found}</ul>' if found else ''}"
                f"{_missed(missed, edited_after(m, entry), m.id)}</td></tr>"
            )
        parts.append(
            "<h2 id=mirrors>Mirror fidelity</h2><table><tr><th>Mirror</th><th>Against the canonical</th>"
            f"<th>Findings</th></tr>{''.join(rows)}</table>"
        )
    unwatched = doc.unwatched(store.state(doc.canonical.key).get("translations") or [])
    if unwatched:
        named = "".join(f"<li>{e(lang)}: {external(url)}</li>" for lang, url in unwatched)
        parts.append(
            "<h2>Translations not watched</h2><p>The page names these translations; "
            f"<code>differ add URL --to {e(doc.id)}</code> audits one as a mirror.</p><ul>{named}</ul>"
        )
    for source in doc.sources:
        state, good = _fetch_state(store, source)
        passages = (
            f" · {_link(f'{source.id}/blame.html', 'each passage with its last edit')}"
            if store.blame_path(source.key).is_file()
            else ""
        )
        parts.append(
            f"<h2>{e(source.id)} <span class=quiet>({e(source.role)}, {e(source.kind)})</span></h2>"
            f"<p>{external(source.page)}{_through(source)} · fetching: "
            f"<span class={'good' if good else 'bad'}>{e(state)}</span>{passages}</p>"
        )
        newest, damage = _newest(store, source.key)
        latest = newest.number if newest else 0
        if damage:
            parts.append(f"<p class=bad>{e(f'Damaged: {damage}')}</p>")
            continue
        if not latest:
            parts.append("<p>No versions yet.</p>")
            continue
        start = shown_from(latest)
        parts.append(_versions_table(store, source, range(latest, start - 1, -1), f"{source.id}/"))
        if start > 1:
            older = [
                _link(f"{source.id}/{_archive_name(lo)}", f"{lo}–{lo + PAGE_VERSIONS - 1}")
                for lo in range(start - PAGE_VERSIONS, 0, -PAGE_VERSIONS)
            ]
            parts.append(f"<p>Older versions: {', '.join(older)}</p>")
    parts.append(f"<p class=quiet>Written by differ at {e(generated)}.</p>")
    return page(f"{title}: versions and mirrors", "".join(parts), feed)


LATEST_EDITS = 10  # the sources edited last, at the top of the index


def index_page(store: Store, config: Config, generated: str) -> str:
    """Every document and source: versions, the latest change, fetch state and, for mirrors, fidelity; above
    them, the sources edited last (their latest versions, which the rows read anyway)."""
    rows: list[str] = []
    edited: list[tuple[Version, DocumentConfig, SourceConfig]] = []
    for doc in config.documents:
        more, latest_edits = _document_rows(store, doc)
        rows += more
        edited += latest_edits
    edited.sort(key=lambda found: (found[0].fetched_at, found[2].key), reverse=True)
    latest = "".join(
        f"<tr><td>{_link(f'{doc.id}/index.html', document_title(store, doc))}</td><td>{e(source.id)}</td>"
        f"{_latest_cell(store, source, v, doc.id + '/')}</tr>"
        for v, doc, source in edited[:LATEST_EDITS]
    )
    edits = (
        f"<h2>Latest edits</h2><table><tr><th>Document</th><th>Source</th><th>Change</th></tr>{latest}</table>"
        if latest
        else ""
    )
    table = (
        "<table><tr><th>Document</th><th>Source</th><th>Versions</th><th>Latest change</th><th>State</th></tr>"
        + "".join(rows)
        + "</table>"
        if rows
        else "<p>No documents configured.</p>"
    )
    feed = f"<p>{_link('feed.xml', 'Atom feed of every document')}</p>" if edits else ""
    return page(
        "differ: documents",
        f"<h1>Documents</h1>{feed}{edits}{'<h2>Every source</h2>' if edits else ''}{table}"
        f"<p class=quiet>Written by differ at {e(generated)}.</p>",
        "feed.xml" if edits else "",
    )


def _newest(store: Store, key: str) -> tuple[Version | None, str]:
    """A source's newest version, or what damage keeps it from being read (its page and its row say so, and
    the other sources' are written as ever; `differ verify` tells what else is damaged)."""
    try:
        return store.latest(key), ""
    except StoreDamage as exc:
        return None, str(exc)


def _document_rows(
    store: Store, doc: DocumentConfig
) -> tuple[list[str], list[tuple[Version, DocumentConfig, SourceConfig]]]:
    """A document's rows of the index, a row a source, and the sources whose latest version is an edit (not the
    first), with it: read here anyway, they head the index."""
    from differ.audited import last_audit

    rows = []
    edited = []
    audit = last_audit(store, doc.id)
    canonical, damaged = _newest(store, doc.canonical.key)
    for i, source in enumerate(doc.sources):
        latest, damage = (canonical, damaged) if i == 0 else _newest(store, source.key)
        if latest is not None and latest.number > 1:
            edited.append((latest, doc, source))
        state, good = _fetch_state(store, source)
        if damage:
            state, good = f"damaged: {damage}", False
        elif good and source.role == "mirror":
            state, good = _fidelity(audit, source.id, canonical.number if canonical else None)
            state = f"paused; {state}" if source.paused else state
        first = (
            f'<td rowspan="{len(doc.sources)}">{_link(f"{doc.id}/index.html", document_title(store, doc))}</td>'
            if i == 0
            else ""
        )
        versions = str(latest.number if latest else 0)
        if latest is not None and latest.number > 1 and store.blame_path(source.key).is_file():
            # the post now, each passage with its last edit
            versions = _link(f"{doc.id}/{source.id}/blame.html", versions)
        rows.append(
            f"<tr>{first}<td>{e(source.id)} <span class=quiet>{e(source.role)}</span></td>"
            f"<td>{versions}</td>{_latest_cell(store, source, latest, doc.id + '/')}"
            f"{_state_cell(state, good)}</tr>"
        )
    return rows, edited


INDEX_EVERY = 5.0  # seconds: the least time between two rewrites of the index in one process


def write_site(app: App, documents: set[str]) -> None:
    """Rewrite these documents' pages (every page, when there is no index yet; nothing when there are none and
    the index is there) and then the index, under the
    store's lock so that sources checked at once never write a page that misses one another's version. The
    index is rewritten at most every INDEX_EVERY seconds: a service checks its sources one at a time, and
    rebuilding the index of 1,000 sources after each check would cost more than the checks; `flush_index`
    writes one left pending."""
    from differ.app import iso

    store, config = app.store, app.config
    if not documents and index_path(store).is_file():
        return  # nothing a page shows changed
    with store.writing():
        if not index_path(store).is_file():
            documents = {doc.id for doc in config.documents}
            app.index_written = None
        generated = iso(app.now())
        for doc in config.documents:
            if doc.id in documents:
                with app.carry_on(f"{doc.id}: page not written"):
                    page = document_page(app, doc, generated).encode()
                    atomic_write(index_path(store, doc.id), page, durable=False)
                    write_archives(store, doc, generated)
        app.index_pending = True
        flush_index(app)


def after_delivery(app: App, attempts: Iterable[Attempt]) -> None:
    """Rewrite the pages of the documents a delivery added to (a version's copy in a web archive)."""
    shown = {a.shown for a in attempts if a.shown}
    if shown:
        write_site(app, shown)


def flush_index(app: App, *, now: bool = False) -> None:
    """Write the index if a check changed what it shows, unless it was written less than INDEX_EVERY ago (or
    `now`)."""
    from differ.app import iso

    with app.store.writing(), app.store.reading_once():  # every source's newest record read once for both
        last = app.index_written
        if not app.index_pending or (not now and last is not None and app.monotonic() - last < INDEX_EVERY):
            return
        with app.carry_on("reports feed not written"):  # written again with the index
            write_site_feed(app.store, app.config, app.config.service.base_url)
        with app.carry_on("reports index not written"):  # still pending: written by the next check
            page = index_page(app.store, app.config, iso(app.now())).encode()
            atomic_write(index_path(app.store), page, durable=False)
            app.index_pending, app.index_written = False, app.monotonic()
