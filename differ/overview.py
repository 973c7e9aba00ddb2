"""`differ sources`: every configured document, source and notifier with its settings and state, as text or as
`differ.sources/1` JSON (a notifier named by its target, secrets left out)."""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from differ import options as opt
from differ import tomltext
from differ.app import App, iso
from differ.cadence import Cadence, cadence
from differ.cli import command
from differ.errors import ExitCode, StoreDamage
from differ.titles import document_title

if TYPE_CHECKING:
    from differ.config import SourceConfig


def _fetch_status(
    app: App, source: SourceConfig, state: dict[str, Any], checked: str | None, pace: Cadence
) -> str:
    """How a source's checks go, as `differ sources` says it."""
    from differ.health import moved, timeliness

    if not checked:
        return "never checked"
    failures = state.get("failures", 0)
    late = None if source.paused else timeliness(app, source, state, checked, pace)
    if failures:
        return f"failing ({failures}): {state.get('last_error')}"
    if late and late.kind == "overdue":
        return "overdue (see differ status)"
    fine = f"deferred: {late.detail}" if late else "ok"
    return f"{fine}; {moved(state['moved'], source.key)}" if state.get("moved") else fine


def sources_report(app: App, keys: Sequence[str] = ()) -> dict[str, Any]:
    """Every configured document, source and notifier with its settings and state (or the sources `keys`
    names, DOCUMENT for all of its, with their documents): what `differ sources` shows (`differ.sources/1`). A
    notifier is named by its target with its secrets left out."""
    return sources_and_states(app, keys)[0]


def sources_and_states(
    app: App, keys: Sequence[str] = ()
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """`sources_report`, with each source's state as it was read for it (by key), for a caller that needs more
    of it than the report says (the metrics' failures in a row) without reading every state again."""
    from differ.audited import last_audit
    from differ.feed import feed_path, feed_url
    from differ.health import last_checked
    from differ.notify import NOTIFIERS, Outbox
    from differ.notify.issues import IssueTracker

    interval, base = app.config.service.interval, app.config.service.base_url
    chosen = {s.key for s in app.config.select(list(keys))}
    states: dict[str, dict[str, Any]] = {}
    documents = []
    for doc in app.config.documents:
        if not any(s.key in chosen for s in doc.sources):
            continue
        feed = feed_path(app.store, doc.id)
        audited = last_audit(app.store, doc.id) if doc.mirrors else {}
        sources = []
        for s in doc.sources:
            if s.key not in chosen:
                continue
            state = states[s.key] = app.store.state(s.key)
            checked = last_checked(app, s.key, state)
            pace = cadence(app, s)
            status, number = _fetch_status(app, s, state, checked, pace), 0
            try:
                number = app.store.latest_number(s.key)
                latest = app.store.version(s.key, number) if number else None
            except StoreDamage as exc:  # named, and the other sources listed (`differ verify` tells the rest)
                latest, status = None, f"damaged: {exc}"
            sources.append(
                {
                    "source": s.key,
                    "role": s.role,
                    "kind": s.kind,
                    "url": s.url,
                    "entry": s.option("entry"),  # one feed can carry several watched posts: which one this is
                    "follow": list(s.option("follow") or ()),  # a feed's list of posts: the new posts it adds
                    "follow_with": dict(s.option("follow_with") or {}),  # and their own options
                    "interval": opt.format_duration(s.interval or interval),
                    # once unedited for settled_after: since when, and how often it is checked now; else None
                    "settled": _settled(pace),
                    # when it will settle, unedited till then; None when it has, or never will
                    "settles": iso(pace.settles) if pace.settles else None,
                    "paused": s.paused,
                    "stale_after": opt.format_duration(s.stale_after) if s.stale_after else None,
                    "translation": s.translation,  # as configured: None, as its scripts say
                    "ignore": list(s.ignore),
                    # the program that fetches it, as written; [] for none
                    "command": list(s.command_written),
                    "versions": number,
                    "last_check": checked,
                    "last_change": state.get("last_change") or (latest.fetched_at if latest else None),
                    "state": status,
                    "moved": state.get("moved"),  # where every redirect, permanent, now leads; None if none
                    # a canonical's: the translations its page names that no mirror of the document is
                    "translations": [
                        {"language": lang, "url": url}
                        for lang, url in doc.unwatched(state.get("translations") or [])
                    ]
                    if s.role == "canonical"
                    else [],
                    "last_audit": _audited(audited.get(s.id)) if s.role == "mirror" else None,
                }
            )
        documents.append(
            {
                "id": doc.id,
                "title": document_title(app.store, doc),
                "feed": (feed_url(base, doc.id) if base else str(feed)) if feed.is_file() else None,
                "sources": sources,
            }
        )
    notifiers = [
        {
            "name": n.name,
            "kind": n.kind,
            "target": NOTIFIERS[n.kind](n).target(),
            "events": list(n.events),
            "sections": list(n.sections),
            "words": list(n.words),
            "changes": list(n.changes),
            "digest": opt.format_duration(n.digest) if n.digest else None,
            # an issue tracker's: the issue each document's alerts go to now
            "issues": Outbox(app.store).threads(n.name)
            if issubclass(NOTIFIERS[n.kind], IssueTracker)
            else {},
        }
        for n in app.config.notifiers
    ]
    return {"schema": "differ.sources/1", "documents": documents, "notifiers": notifiers}, states


def _audited(entry: Any) -> dict[str, Any] | None:
    """A mirror's last audit as `differ sources` gives it, from the record the audit keeps."""
    if not isinstance(entry, dict):
        return None
    return {
        "version": entry.get("version"),
        "translation": bool(entry.get("translation")),
        "matches_version": entry.get("matches_version"),
        "canonical_version": entry.get("canonical_version"),
        "stale_from": entry.get("stale_from"),
        "coverage": entry.get("coverage") if isinstance(entry.get("coverage"), int | float) else 0.0,
        "findings": len(entry.get("findings") or []),
        "accepted": len(entry.get("accepted") or []),
        "passages_behind": entry.get("passages_behind")
        if isinstance(entry.get("passages_behind"), int)
        else None,
        "read_in": [c for c in read_in if isinstance(c, str)]
        if isinstance(read_in := entry.get("read_in"), list)
        else [],
    }


@command("sources")
def cmd_sources(app: App, args: argparse.Namespace) -> int:
    from differ.audit.report import audit_headline
    from differ.normalize.feeds import EVERY_POST

    report = sources_report(app, args.sources)
    damaged = any(s["state"].startswith("damaged: ") for doc in report["documents"] for s in doc["sources"])
    done = ExitCode.FAILURE if damaged else ExitCode.OK
    if args.format == "json":
        app.out.write(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
        return done
    for doc in report["documents"]:
        print(f"{doc['id']}  {doc['title']}", file=app.out)
        if doc["feed"]:
            print(f"  feed: {doc['feed']}", file=app.out)
        for s in doc["sources"]:
            grace = f", stale after {s['stale_after']}" if s["stale_after"] else ""
            grace += {True: ", a translation", False: ", word by word", None: ""}[s["translation"]]
            when = "paused" if s["paused"] else f"every {s['interval']}"
            if s["settled"] and not s["paused"]:
                when = f"every {s['settled']['every']}, settled"
            elif s["settles"] and not s["paused"]:
                when += f", settles {s['settles'][:10]}"
            print(f"  {s['source']}  [{s['role']}, {s['kind']}, {when}{grace}]  {s['url']}", file=app.out)
            if s["entry"]:
                every = " (the list of posts)" if s["entry"] == EVERY_POST else ""
                print(f"    entry: {s['entry']}{every}", file=app.out)
            if s["follow"]:
                given = "; ".join(f"{k} = {tomltext.value(v)}" for k, v in s["follow_with"].items())
                read = f" (watched with {given})" if given else ""
                print(f"    follows new posts with: {', '.join(s['follow'])}{read}", file=app.out)
            if s["ignore"]:
                print(f"    ignore: {', '.join(s['ignore'])}", file=app.out)
            if s["command"]:
                print(f"    fetched by: {shlex.join(s['command'])}", file=app.out)
            if s["translations"]:
                named = ", ".join(f"{t['language']} <{t['url']}>" for t in s["translations"])
                print(f"    translations not watched: {named}", file=app.out)
            print(
                f"    versions: {s['versions']}  last check: {s['last_check'] or '-'}  "
                f"last change: {s['last_change'] or '-'}  state: {s['state']}",
                file=app.out,
            )
            if s["last_audit"]:
                print(f"    last audit: {audit_headline(**s['last_audit'])}", file=app.out)
    for n in report["notifiers"]:
        print(
            f"notify {n['name']}  [{n['kind']}]  {n['target']}  events: {', '.join(n['events'])}"
            + (f"  sections: {', '.join(n['sections'])}" if n["sections"] else "")
            + (f"  words: {', '.join(n['words'])}" if n["words"] else "")
            + (f"  changes: {', '.join(n['changes'])}" if n["changes"] else "")
            + (f"  digest: {n['digest']}" if n["digest"] else ""),
            file=app.out,
        )
        if n["issues"]:
            issues = ", ".join(f"{doc} #{number}" for doc, number in sorted(n["issues"].items()))
            print(f"    its alerts go to issues: {issues}", file=app.out)
    return done


def _settled(pace: Cadence) -> dict[str, str] | None:
    if pace.settled is None:
        return None
    return {"since": iso(pace.settled), "every": opt.format_duration(pace.every)}
