"""The events a check hands to the notifiers, made from what it stored and what a source's state owes: a new
version's `changed` (or `metadata`) event, a first version's `first_version`, those a crash left unmade, a failing
streak and its recovery, the translations a canonical page starts to name, and a page's move. Each is a plain
dict (`type`, `source`, …), queued once by its id (notify.delivery), so one made again after a crash is the same
message."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from differ.titles import source_title
from differ.versions import diff_versions, version_pair

if TYPE_CHECKING:
    from differ.app import App
    from differ.config import SourceConfig
    from differ.diff import Diff
    from differ.store import Version


def change_event(app: App, source: SourceConfig, old: Version, new: Version, d: Diff) -> dict[str, Any]:
    """The `changed` event for notifiers, the diff in its JSON schema; `metadata` when neither the text nor a
    title changed (only a date, say), which notifiers get only when they ask for it."""
    from differ.diff.render import as_json
    from differ.diff.summary import names_the_post

    named = d.changes or any(names_the_post(m["field"]) for m in d.metadata)
    kind = "changed" if named else "metadata"
    return {
        "type": kind,
        "source": source.key,
        "url": source.page,  # where a reader opens it: a post read from its blog's feed, the post
        "diff": as_json(d, version_pair(source, old, new, source_title(app, source))),
        **_captured(new),
    }


def first_event(app: App, source: SourceConfig, version: Version) -> dict[str, Any]:
    """The `first_version` event of a source whose first version is stored: what a web archive's destination
    captures, so the page as differ first saw it has a copy outside the store too."""
    return {
        "type": "first_version",
        "source": source.key,
        "url": source.page,
        "title": source_title(app, source),
        "version": {"version": version.number, "fetched_at": version.fetched_at, "hash": version.hash},
        "words": version.record.get("words", 0),
        **_captured(version),
    }


def _captured(version: Version) -> dict[str, Any]:
    """`capture`: for a version read from a web archive (`differ backfill`), the capture it was read from."""
    capture = (version.record.get("archive") or {}).get("capture")
    return {"capture": capture} if capture else {}


def first_wanted(app: App, source: SourceConfig) -> bool:
    """Whether a destination takes the `first_version` event of this source (none does unless asked)."""
    return any(n.wants("first_version", source.key) for n in app.config.notifiers)


def missed_events(
    app: App,
    source: SourceConfig,
    known: dict[str, Any] | None = None,
    *,
    latest: int | None = None,
    state: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Change events for versions committed but never handed to the notifiers (a crash in between). The
    source's latest version number and state are read here unless the caller has them."""
    latest = app.store.latest_number(source.key) if latest is None else latest
    if not latest:
        return []
    state = app.store.state(source.key) if state is None else state
    notified = notified_up_to(state, first_wanted(app, source))
    known_version = ((known or {}).get("diff") or {}).get("to", {}).get("version")
    events = []
    for number in range(notified + 1, latest + 1):
        if known and known_version == number:
            events.append(known)
            continue
        if number == 1:
            events.append(first_event(app, source, app.store.version(source.key, 1)))
            continue
        old, new = app.store.version(source.key, number - 1), app.store.version(source.key, number)
        events.append(
            change_event(app, source, old, new, diff_versions(app.store, old, new, app=app, source=source))
        )
    return events


def notified_up_to(state: dict[str, Any], first: bool = False) -> int:
    """The last version whose event was handed to the notifiers. A first version needs none unless a
    destination takes `first_version` (`first`); a source whose state does not say is owed it then."""
    return int(state.get("notified", 0 if first else 1))


def translations_found(app: App, source: SourceConfig, state: dict[str, Any]) -> dict[str, Any] | None:
    """The `translation_found` event of a canonical page that names translations (`hreflang`) no mirror watches
    and that were not told yet (`translations_told`, set once the event is in the outbox: a process that dies
    before queues the same message again)."""
    named = state.get("translations") or []
    told = state.get("translations_told") or []
    doc = app.config.document(source.document)
    new = [t for t in doc.unwatched(named) if list(t) not in told]
    if not new:
        return None
    return {
        "type": "translation_found",
        "source": source.key,
        "document": doc.id,
        "title": source_title(app, source),
        "translations": [{"language": lang, "url": url} for lang, url in new],
    }


def owed_recoveries(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The recoveries a source's state owes, oldest first, each with the streak's `failures` and `since` (its
    start): this check's, and those of earlier streaks a check that died before queueing them left owed. A
    state from an older differ keeps one as `recovered_after` and `recovered_since`."""
    older = (
        [{"failures": state["recovered_after"], "since": state.get("recovered_since")}]
        if state.get("recovered_after")
        else []
    )
    return [*older, *(r for r in state.get("recoveries", []) if isinstance(r.get("failures"), int))]


def streak_events(
    app: App, source: SourceConfig, state: dict[str, Any], failed: str | None
) -> list[dict[str, Any]]:
    """A failing streak's events: `fetch_failing` for a check that failed (`failed` is what went wrong; every
    check of a streak hands it over, queued once, the streak its id), and `recovered` once a check succeeds
    after one (this check's, and those of earlier streaks a process that died before queueing them owes), each
    after its streak's own alert."""
    events: list[dict[str, Any]] = []
    owed = owed_recoveries(state)
    if not owed and failed is None:
        return events  # the common case: its title (a record read) is not needed
    title = source_title(app, source)
    for recovery in owed:
        since = {"since": recovery["since"]} if isinstance(recovery.get("since"), str) else {}
        if since:  # queued once by its id, so owed only if a process died
            events.append(
                {
                    "type": "fetch_failing",
                    "source": source.key,
                    "url": source.url,
                    "title": title,
                    "failures": recovery["failures"],
                    "error": state.get("last_error") or "",
                    **since,
                }
            )
        events.append(
            {
                "type": "recovered",
                "source": source.key,
                "url": source.url,
                "title": title,
                "failures": recovery["failures"],
                **since,
            }
        )
    if failed is not None:
        since = {"since": state["failing_since"]} if state.get("failing_since") else {}
        events.append(
            {
                "type": "fetch_failing",
                "source": source.key,
                "url": source.url,
                "title": title,
                "failures": state.get("failures", 1),
                "error": failed,
                **since,
            }
        )
    return events


def moved_event(app: App, source: SourceConfig, state: dict[str, Any]) -> dict[str, Any] | None:
    """The `moved` event of a page that redirects for good to an address it was not told of yet."""
    if not state.get("moved") or state.get("moved") == state.get("moved_told"):
        return None
    return {
        "type": "moved",
        "source": source.key,
        "title": source_title(app, source),
        "url": source.url,
        "moved": state["moved"],
    }
