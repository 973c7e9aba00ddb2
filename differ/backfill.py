"""A source's history from before differ watched it, read from a web archive: the captures the Wayback
Machine's CDX index lists (or another archive's that answers at the same addresses) are fetched as they were
captured (`id_`), read as the source's kind reads the live page, and stored in order as its first versions,
each record naming the capture it came from. Captures that read the same (page noise) make no version."""

from __future__ import annotations

import email.utils
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TextIO
from urllib.parse import urlencode

from differ.app import App, iso
from differ.config import WEB_ARCHIVE, SourceConfig
from differ.errors import FetchError, NormalizeError, UsageError
from differ.fetch import Request, Response
from differ.normalize import SOURCE_KINDS, Normalized
from differ.options import plural
from differ.store import Version
from differ.versions import content_identity, read_response, store_version

# `--every`: how many digits of a capture's timestamp name its period; the index keeps the first of each.
EVERY = {"month": 6, "day": 8, "hour": 10}


def _a_time(timestamp: str) -> bool:
    """Whether an index's timestamp is a time (14 digits that make a date: not `20261399999999`)."""
    try:
        datetime.strptime(timestamp, "%Y%m%d%H%M%S")
    except ValueError:
        return False
    return len(timestamp) == 14 and timestamp.isdecimal()


@dataclass(frozen=True)
class Capture:
    """One capture in an archive's index: when (14 digits, UTC), of which address, and its content digest."""

    timestamp: str
    original: str
    digest: str = ""
    mimetype: str = ""

    @property
    def at(self) -> datetime:
        return datetime.strptime(self.timestamp, "%Y%m%d%H%M%S").replace(tzinfo=UTC)

    def url(self, archive: str) -> str:
        """The capture as it was served (`id_`: the archive's raw copy, without its banner or rewritten links)."""
        return f"{archive}/web/{self.timestamp}id_/{self.original}"


@dataclass
class Step:
    """What became of one capture."""

    capture: Capture
    outcome: str  # new, same, failed, stopped (the archive asked to wait)
    version: int | None = None
    changes: int = 0
    detail: str = ""

    def line(self) -> str:
        when = self.capture.at.strftime("%Y-%m-%d %H:%M")
        if self.outcome == "new":
            what = f"version {self.version}" + (
                f" ({plural(self.changes, 'change')})" if self.version != 1 else ""
            )
        elif self.outcome == "same":
            what = "same text (page noise only)"
        elif self.outcome == "stopped":
            what = f"stopped: {self.detail}"
        else:
            what = f"left out: {self.detail}"
        return f"  {when}  {what}"


_WAYBACK = re.compile(r"(https?://[^/]+)/web/(\d{1,14})(?:[a-z]{2}_)?/(https?://.+)")


def raw_capture(url: str) -> tuple[str, str] | None:
    """For a capture's address in the Wayback Machine's form (`…/web/20260707/https://…`, as a browser shows
    it), the address of the capture as it was served (`id_`: no banner, links as the page had them) and the
    page's own address, which its links are read against; None for any other address."""
    m = _WAYBACK.fullmatch(url)
    if not m:
        return None
    archive, timestamp, original = m.groups()
    return f"{archive}/web/{timestamp}id_/{original}", original


def fetched_itself(version: Version) -> bool:
    """Whether a version is one differ fetched (not a capture): no capture can go after it."""
    return not version.record.get("archive")


def stamp(moment: datetime) -> str:
    """A time as the archive's index writes one."""
    return moment.astimezone(UTC).strftime("%Y%m%d%H%M%S")


def captures(
    app: App,
    source: SourceConfig,
    archive: str = WEB_ARCHIVE,
    since: datetime | None = None,
    until: datetime | None = None,
    every: str | None = None,
) -> list[Capture]:
    """The archive's captures of what the source fetches that were served with 200, oldest first, runs of
    the same content digest given once (the index's own `collapse=digest`, and again here); with `every`
    (hour, day, month), the first of each such period only."""
    digits = EVERY[every] if every else 0
    query: dict[str, str | list[str]] = {
        "url": SOURCE_KINDS[source.kind].fetch_url(source),
        "output": "json",
        "fl": "timestamp,original,statuscode,mimetype,digest",
        "filter": "statuscode:200",
        "collapse": ["digest", f"timestamp:{digits}"] if digits else "digest",
        **({"from": stamp(since)} if since else {}),
        **({"to": stamp(until)} if until else {}),
    }
    index = f"{archive}/cdx/search/cdx?{urlencode(query, doseq=True)}"
    response = app.fetcher.fetch(archive_request(source, index, "application/json"))
    try:
        rows = json.loads(response.body)
    except ValueError:
        rows = None
    if not isinstance(rows, list) or any(not isinstance(r, list) for r in rows):
        raise FetchError(
            f"{index}: expected the archive's index as a JSON list of captures; found something else"
        )
    if not rows:
        return []
    header = [str(name) for name in rows[0]]
    if "timestamp" not in header or "original" not in header:
        raise FetchError(f"{index}: the archive's index has no timestamp and original fields ({header})")
    found: list[Capture] = []
    for row in rows[1:]:
        if len(row) != len(header):  # the blank row and resume key that may end a long answer
            continue
        fields = dict(zip(header, (str(v) for v in row), strict=True))
        timestamp = fields["timestamp"]
        if fields.get("statuscode", "200") != "200" or not _a_time(timestamp):
            continue
        capture = Capture(timestamp, fields["original"], fields.get("digest", ""), fields.get("mimetype", ""))
        if found and capture.digest and capture.digest == found[-1].digest:
            continue
        if found and digits and timestamp[:digits] == found[-1].timestamp[:digits]:
            continue
        found.append(capture)
    return sorted(found, key=lambda c: c.timestamp)


def plan(
    app: App,
    source: SourceConfig,
    archive: str = WEB_ARCHIVE,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int | None = None,
    every: str | None = None,
) -> list[Capture]:
    """The captures a backfill of the source would read (with `limit`, the latest N; with `every`, the first
    of each hour, day or month). Only for a source differ has not fetched yet, since the record only grows
    and a capture cannot go before a version differ fetched; one an earlier backfill left unfinished goes on
    after its last capture."""
    if not archive.startswith(("https://", "http://")):
        raise UsageError(f'expected the archive\'s http(s) address, found "{archive}"')
    stored = app.store.latest(source.key)
    if stored is not None and fetched_itself(stored):
        raise UsageError(
            f"{source.key} already has {plural(stored.number, 'version')}: captures "
            "can only come before the first (the record only grows); backfill a page right after adding it"
        )
    if stored is not None:  # an earlier backfill stopped: go on after its last capture
        after = stored.fetched_time + timedelta(seconds=1)
        since = max(since, after) if since else after
    found = captures(app, source, archive.rstrip("/"), since, until, every)
    return found[-limit:] if limit is not None else found


def backfill(
    app: App,
    source: SourceConfig,
    found: list[Capture],
    *,
    archive: str = WEB_ARCHIVE,
    dry_run: bool = False,
    progress: Callable[[Step], None] | None = None,
) -> list[Step]:
    """Store the captures `plan` found as the source's versions, oldest first, after those an earlier
    backfill stored; a capture that reads as the one before (page noise) makes none. With `dry_run`, each is
    read and compared but nothing is stored. The archive asking to wait (429, Retry-After) stops it, to be
    taken up again later; a version stored meanwhile by another process (a check) stops it with a
    StoreConflict, so no capture ever goes after a newer version."""
    archive = archive.rstrip("/")
    steps: list[Step] = []
    latest = app.store.latest(source.key)
    identity = latest.record.get("content_sha256") if latest else None
    versions = latest.number if latest else 0
    for capture in found:
        read = _read(app, source, archive, capture)
        if isinstance(read, Step):
            step = read
        else:
            normalized, response, when = read
            now = content_identity(normalized)
            if latest is not None and when <= latest.fetched_time:  # redirected to an older capture
                served = f"the archive served its capture of {iso(when)} instead"
                step = Step(capture, "failed", detail=served)
            elif now == identity:
                step = Step(capture, "same")
            elif dry_run:
                identity, versions = now, versions + 1
                step = Step(capture, "new", versions)
            else:
                fetched = _fetched(source, archive, capture, response)
                version, d = store_version(
                    app, source, latest, normalized, response.body, None, when, fetched, now
                )
                latest, identity = version, now
                step = Step(capture, "new", version.number, len(d.changes) if d else 0)
        steps.append(step)
        if progress is not None:
            progress(step)
        if step.outcome == "stopped":
            break
    if latest is not None:
        from differ.feed import write_feed
        from differ.site import write_site

        write_feed(app.store, app.config.document(source.document), app.config.service.base_url)
        write_site(app, {source.document})
    return steps


def _fetched(source: SourceConfig, archive: str, capture: Capture, response: Response) -> dict[str, Any]:
    """How an archived version was had, for its record: the capture asked for and the one served."""
    kept = {"capture": response.final_url, "timestamp": capture.timestamp, "digest": capture.digest}
    return {
        "fetch_url": capture.url(archive),
        "final_url": SOURCE_KINDS[source.kind].fetch_url(source),  # what its links are read against
        "status": 200,
        "headers": response.headers,
        "archive": {k: v for k, v in kept.items() if v},
    }


def _read(
    app: App, source: SourceConfig, archive: str, capture: Capture
) -> Step | tuple[Normalized, Response, datetime]:
    """One capture fetched and read, or the step that says why it could not be."""
    base = SOURCE_KINDS[source.kind].fetch_url(source)
    try:
        normalized, response = read_capture(app, source, capture.url(archive), base, capture.mimetype)
    except FetchError as exc:
        # Asked to slow down beyond what a check waits: more requests now would not help.
        if exc.status == 429 or exc.retry_after is not None:
            return Step(capture, "stopped", detail=str(exc))
        return Step(capture, "failed", detail=str(exc))
    except NormalizeError as exc:
        return Step(capture, "failed", detail=str(exc))
    return normalized, response, _captured_at(response, capture)


def read_capture(
    app: App, source: SourceConfig, url: str, base: str, media_type: str = ""
) -> tuple[Normalized, Response]:
    """A capture fetched as the archive keeps it (`url`, in its `id_` form) and read as the source reads its
    page, links against `base` (the page's own address); FetchError or NormalizeError when it cannot be."""
    response = app.fetcher.fetch(archive_request(source, url, SOURCE_KINDS[source.kind].accept))
    return read_response(app, source, response, base=base, media_type=media_type), response


def archive_request(source: SourceConfig, url: str, accept: str) -> Request:
    """A request to a web archive (its index, a capture of the source's page): the source's politeness, none
    of its headers (a token for the page's own site is not the archive's business)."""
    return Request(
        url=url, headers={"Accept": accept}, robots=source.robots, allow_private=source.allow_private
    )


def _captured_at(response: Response, capture: Capture) -> datetime:
    """When the copy served was captured: its Memento-Datetime (RFC 7089), which names the capture actually
    served when the archive answered with a neighbouring one, else the index's timestamp."""
    value = response.header("memento-datetime")
    if value:
        try:
            return email.utils.parsedate_to_datetime(value).astimezone(UTC)
        except (TypeError, ValueError, OverflowError):  # not a date, or one past year 9999 in UTC
            pass
    return capture.at


def run(
    app: App,
    source: SourceConfig,
    out: TextIO,
    *,
    archive: str = WEB_ARCHIVE,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int | None = None,
    every: str | None = None,
    dry_run: bool = False,
) -> list[Step]:
    """`differ backfill` (and `differ add --backfill`): plan, say how many captures, then a line each as it is
    read, and what was stored."""
    found = plan(app, source, archive, since, until, limit, every)
    stored = app.store.latest(source.key)
    print(
        f"{source.key}: {plural(len(found), 'capture')} of "
        f"{SOURCE_KINDS[source.kind].fetch_url(source)} in {archive.rstrip('/')}"
        + (f" after {stored.fetched_at}, the last one stored" if stored else ""),
        file=out,
        flush=True,
    )
    steps = backfill(
        app,
        source,
        found,
        archive=archive,
        dry_run=dry_run,
        progress=lambda s: print(s.line(), file=out, flush=True),
    )
    print(summary_line(source, steps, dry_run), file=out)
    return steps


def summary_line(source: SourceConfig, steps: list[Step], dry_run: bool = False) -> str:
    new = sum(s.outcome == "new" for s in steps)
    failed = sum(s.outcome == "failed" for s in steps)
    if not steps:
        return f"{source.key}: nothing to store"
    stored = "would store" if dry_run else "stored"
    line = f"{source.key}: {stored} {plural(new, 'version')} from {plural(len(steps), 'capture')}"
    if failed:
        line += f"; {failed} could not be read"
    if steps[-1].outcome == "stopped":
        return line + f"; the archive asked to wait: run differ backfill {source.key} again later to go on"
    if new and not dry_run:
        last = max(s.capture.at for s in steps if s.outcome == "new")
        line += f"; the next check compares the page with the capture of {iso(last)}"
    return line
