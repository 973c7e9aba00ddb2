"""Versions: how a fetched body becomes a source's next stored version, and how two versions are compared.
A version is read with the settings a digest names (`reading`); one stored with other settings or an older
normalizer is read again from its raw body before it is compared, so neither an upgrade nor an edited selector
is ever reported as a change of the page. `differ check` and `differ backfill` store through `store_version`;
`differ diff` compares through `diff_versions`."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import TYPE_CHECKING, Any

from differ.app import App, iso
from differ.config import SourceConfig
from differ.errors import NormalizeError, StoreError
from differ.fetch import Response
from differ.normalize import NORMALIZER_VERSION, Body, Normalized, normalize
from differ.store import Store, Version, canonical_json, sha256
from differ.titles import page_title, source_title

if TYPE_CHECKING:
    from differ.diff import Diff, Versions

# Response headers are kept with every version as provenance, except cookies: session secrets, not evidence.
DROPPED_HEADERS = frozenset({"set-cookie", "set-cookie2"})


def content_identity(n: Normalized) -> str:
    """What makes two fetches the same version: Markdown, metadata and invisible characters."""
    return sha256(
        n.markdown.encode() + b"\0" + canonical_json(n.metadata) + b"\0" + canonical_json(n.invisible)
    )


NOT_READING = {
    "follow",
    "follow_with",
}  # options of a kind that say what to do with what was read, not how to read it


def reading(app: App, source: SourceConfig) -> str:
    """A digest of the settings that decide how a body is read (kind, its options, languages, ignored text,
    tracking parameters). A version read with other settings is read again before it is compared, so that editing
    a selector or an exclude list is never reported as a change of the page."""
    settings = {
        "kind": source.kind,
        "options": {name: value for name, value in source.options.items() if name not in NOT_READING},
        "languages": source.languages,
        "tracking": app.config.service.tracking_params,
    }
    if source.ignore:  # only where set, so that records from before the option keep their digest
        settings["ignore"] = source.ignore
    return sha256(canonical_json(settings))[:16]


def read_differently(app: App, source: SourceConfig, version: Version, normalizer: int) -> bool:
    """Whether `version` was read by another normalizer or with other settings (a record from before
    settings were recorded counts as read with the current ones)."""
    how = reading(app, source)
    return version.record.get("normalizer") != normalizer or version.record.get("reading", how) != how


def read_response(
    app: App, source: SourceConfig, response: Response, *, base: str | None = None, media_type: str = ""
) -> Normalized:
    """A fetched body read the way the source's kind says; its links against `base` when it is not the page
    the response came from (a web archive's copy), `media_type` when the response names none."""
    return normalize(response_body(app, response, base=base, media_type=media_type), source)


def response_body(app: App, response: Response, *, base: str | None = None, media_type: str = "") -> Body:
    """A fetched body as the normalizer reads it: its media type (`media_type` when the response names none),
    the address its links are read against (`base`, else where the response came from), and whether a
    program printed it."""
    return Body(
        response.body,
        response.header("content-type") or media_type or None,
        base or response.final_url,
        app.config.service.tracking_params,
        printed=bool(response.command),
    )


def read_version(app: App, source: SourceConfig, version: Version) -> Normalized:
    """A stored version's raw body read again with the current normalizer (and the source as given)."""
    body = Body(
        app.store.get_blob(version.raw_sha256),
        (version.record.get("headers") or {}).get("content-type"),
        version.record.get("final_url") or source.url,
        app.config.service.tracking_params,
        printed=bool(version.record.get("command")),
    )
    return normalize(body, source)


def latest_identity(
    app: App, source: SourceConfig, state: dict[str, Any], latest: Version, normalizer: int
) -> tuple[str | None, Normalized | None]:
    """The latest version's identity as this normalizer and these settings read it, and that reading when it
    was made now: after an upgrade that changes the canonical form, or an edit of the source's settings, an
    unchanged page still reads as unchanged."""
    if not read_differently(app, source, latest, normalizer):
        return latest.record.get("content_sha256"), None
    how = reading(app, source)
    known = state.get("reread") or {}
    if (known.get("version"), known.get("normalizer"), known.get("reading", how)) == (
        latest.number,
        normalizer,
        how,
    ):
        return known.get("content_sha256"), None
    again = read_again(app, source, latest)
    if again is None:
        return latest.record.get("content_sha256"), None
    identity = content_identity(again)
    state["reread"] = {
        "version": latest.number,
        "normalizer": normalizer,
        "reading": how,
        "content_sha256": identity,
    }
    if normalizer not in app.store.normalized_forms(latest):
        app.store.add_normalized(latest, normalizer, again.markdown)
    return identity, again


# Versions read again as set now, by store, source, number, body and reading; at most READ_NOW_KEPT of them, so
# that a mirror's audit reads its copy once a process, not each time.
_READ_NOW: dict[tuple[str, str, int, str, str], str] = {}
_READ_NOW_LOCK = threading.Lock()
READ_NOW_KEPT = 64


def as_read_now(app: App, source: SourceConfig, version: Version) -> str:
    """A version's Markdown as the source's settings read it now: as stored when it was read with them (a record
    from before settings were recorded counts as so read), else read again from its body (a mirror's `languages`
    or `selector` set after it was fetched: its audit reads the copy as it is now set, not as it was when
    fetched, though the page has not changed since), or as stored when it no longer reads."""
    how = reading(app, source)
    if version.record.get("reading", how) == how:
        return app.store.markdown(version)
    key = (str(app.store.root), source.key, version.number, version.raw_sha256, how)
    with _READ_NOW_LOCK:  # the service's checks audit in threads of their own
        known = _READ_NOW.get(key)
    if known is not None:
        return known
    again = read_again(app, source, version)  # not under the lock: two threads may read one page twice
    if again is None:
        return app.store.markdown(version)
    with _READ_NOW_LOCK:
        while len(_READ_NOW) >= READ_NOW_KEPT:
            del _READ_NOW[next(iter(_READ_NOW))]
        _READ_NOW[key] = again.markdown
    return again.markdown


def read_again(app: App, source: SourceConfig, version: Version) -> Normalized | None:
    try:
        return read_version(app, source, version)
    except NormalizeError:
        return None  # not readable now: compared as it was stored


LOOKBACK = 100  # how many versions before the latest a new one is compared with, to tell an edit undone


def back_to(store: Store, key: str, latest: Version, markdown: str) -> int | None:
    """The newest version before `latest` whose text (its Markdown) a new reading has again, among the last
    LOOKBACK: an edit undone, a page flipping between two editions (caches that disagree). None for none."""
    digest = sha256(markdown.encode("utf-8"))
    for number in range(latest.number - 1, max(0, latest.number - 1 - LOOKBACK), -1):
        try:
            if store.version(key, number).record.get("markdown_sha256") == digest:
                return number
        except StoreError:  # a damaged record is no match; `differ verify` names it
            continue
    return None


def store_version(
    app: App,
    source: SourceConfig,
    latest: Version | None,
    normalized: Normalized,
    raw: bytes,
    again: Normalized | None,
    when: datetime,
    fetched: dict[str, Any],
    identity: str,
) -> tuple[Version, Diff | None]:
    """Store a new reading of a source as its next version, with what changed since `latest` (its summary in
    the record, the HTML diff among the reports). `fetched` says how the body was had (`fetch_url`,
    `final_url`, `status`, `headers`, `archive` for a capture a web archive kept, `command` instead of
    `status` for a page a program printed); `when` is when the body
    was as it is (a capture's time for an archived one)."""
    store, key = app.store, source.key
    summary: list[str] = []
    d = None
    back = None  # an earlier version whose text this one has again
    title = source_title(app, source)
    if (
        latest is None and source.role == "canonical" and not source.title
    ):  # the first: what the page calls itself
        title = page_title(normalized.metadata, normalized.markdown) or title
    if latest is not None:
        from differ.diff import Versions, diff, summarize  # a check that finds nothing new never loads it

        if again is None and read_differently(app, source, latest, normalized.normalizer):
            again = read_again(app, source, latest)
        d = diff(
            again.markdown if again else store.markdown(latest, latest.record["normalizer"]),
            normalized.markdown,
            a_meta=again.metadata if again else latest.metadata,
            b_meta=normalized.metadata,
            a_invisible=again.invisible if again else latest.record.get("invisible") or [],
            b_invisible=normalized.invisible,
        )
        back = back_to(store, key, latest, normalized.markdown)
        versions = Versions(title, key, latest.number, latest.number + 1, back_to=back)
        summary = summarize(d, versions)
    headers = fetched["headers"]
    record = {
        "fetched_at": iso(when),
        "url": source.url,
        "document_title": title,
        "role": source.role,
        "kind": source.kind,
        **fetched,
        "headers": {k: v for k, v in headers.items() if k not in DROPPED_HEADERS},
        "normalizer": normalized.normalizer,
        "reading": reading(app, source),
        **({"ignored": normalized.ignored} if source.ignore else {}),
        "metadata": normalized.metadata,
        "invisible": normalized.invisible,
        "encoding": normalized.encoding,
        "words": normalized.words,
        "content_sha256": identity,  # content_identity(normalized), which the caller compared already
        "warnings": normalized.warnings,
        "changes": len(d.changes) if d is not None else 0,
        "summary": summary,
        **({"back_to": back} if back is not None else {}),
    }
    version = store.commit(
        key, raw=raw, markdown=normalized.markdown, record=record, after=latest.hash if latest else None
    )
    if latest is not None and d is not None:
        from differ.diff.render import to_html
        from differ.site import diff_nav, link_forward

        pair = version_pair(source, latest, version, title)
        # the version stands, and its alert is made, without its page (which the site then does not link to)
        with app.carry_on(f"{key}: diff page of version {version.number} not written"):
            nav = diff_nav(store, source, version.number, title)
            store.write_report(key, version.number, to_html(d, pair, nav))
            link_forward(store, source, version.number, title)
    from differ.blame import write_blame

    with app.carry_on(f"{key}: page of each passage's last edit not written"):  # written at the next version
        write_blame(app, source, version, d)
    return version, d


def version_pair(source: SourceConfig, old: Version, new: Version, title: str) -> Versions:
    """Which two stored versions a diff is between, as summaries and reports name them (`title`: the
    document's, differ.titles)."""
    from differ.diff import Versions

    back = new.record.get("back_to") if new.number == old.number + 1 else None
    return Versions(
        title,
        source.key,
        old.number,
        new.number,
        old.fetched_at,
        new.fetched_at,
        old.hash,
        new.hash,
        back_to=back if isinstance(back, int) else None,
    )


def diff_versions(
    store: Store,
    old: Version,
    new: Version,
    *,
    app: App | None = None,
    source: SourceConfig | None = None,
    metadata: bool = True,
) -> Diff:
    """The diff between two stored versions, on the newest normalized form both have. Given the app and the
    source, an old version read with other settings than the new one, which is read as the source is now, is
    read again first, as the check that stored the new one did. Without `metadata`, the text's alone."""
    from differ.diff import diff

    settings = old.record.get("reading"), new.record.get("reading")
    again = None
    if (
        app is not None
        and source is not None
        and None not in settings
        and settings[0] != settings[1]
        and not read_differently(app, source, new, NORMALIZER_VERSION)
    ):
        again = read_again(app, source, old)
    if again is not None:
        return diff(
            again.markdown,
            store.markdown(new, NORMALIZER_VERSION),
            a_meta=again.metadata if metadata else None,
            b_meta=new.metadata if metadata else None,
            a_invisible=again.invisible,
            b_invisible=new.record.get("invisible") or [],
        )
    forms = set(store.normalized_forms(old)) & set(store.normalized_forms(new))
    normalizer = max(forms) if forms else None
    return diff(
        store.markdown(old, normalizer),
        store.markdown(new, normalizer),
        a_meta=old.metadata if metadata else None,
        b_meta=new.metadata if metadata else None,
        a_invisible=old.record.get("invisible") or [],
        b_invisible=new.record.get("invisible") or [],
    )
