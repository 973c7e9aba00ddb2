"""`differ status --format prometheus`: what `differ status` and `differ sources` know, as Prometheus metrics in
the text exposition format (0.0.4), for node_exporter's textfile collector or any agent that reads such a file:
a dashboard of every page's checks and every mirror's fidelity, and alert rules over them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from differ import options as opt
from differ.app import parse_iso

if TYPE_CHECKING:
    from differ.app import App
    from differ.health import Health

PROBLEM_KINDS = ("never checked", "overdue", "failing", "undelivered", "disabled", "unsent")

# Every metric is a gauge; its HELP line, in the order they are written.
HELP = {
    "differ_ok": "1 when differ status finds no problem, else 0",
    "differ_problems": "problems differ status reports, by kind",
    "differ_sources": "sources watched (paused ones aside)",
    "differ_destinations": "notification destinations configured",
    "differ_last_check_timestamp_seconds": "when the latest check of any source ran",
    "differ_source_info": "1 for each source, its address and kind as labels (to join on source)",
    "differ_source_versions": "versions stored",
    "differ_source_paused": "1 while the source is paused",
    "differ_source_check_interval_seconds": "the time between its checks now (its settled_interval once settled)",
    "differ_source_settled": "1 once the page has gone settled_after unedited, and is checked less often",
    "differ_source_failures": "failed checks in a row (0 when the last one worked)",
    "differ_source_last_check_timestamp_seconds": "when the source was last checked",
    "differ_source_last_change_timestamp_seconds": "when the source's latest version was stored",
    "differ_mirror_coverage_ratio": "share of the canonical the mirror carries, at its last audit",
    "differ_mirror_findings": "findings of the mirror's last audit (accepted ones aside)",
    "differ_mirror_accepted_findings": "findings of the mirror's last audit that its accept option accepts",
    "differ_mirror_versions_behind": "canonical versions since the one the mirror matches (0: up to date)",
    "differ_mirror_passages_behind": "the canonical's passages the mirror has to carry over (0: none)",
    "differ_outbox_messages": "a destination's messages: pending (to send or retry) or failed (given up)",
    "differ_notifier_disabled": "1 while a destination is disabled (it answered 410)",
}


class Metrics:
    """Samples by metric, written in HELP's order, each metric's HELP and TYPE lines once."""

    def __init__(self) -> None:
        self.samples: dict[str, list[str]] = {name: [] for name in HELP}

    def add(self, name: str, value: float | None, **labels: str) -> None:
        """One sample (None leaves it out: a time never reached)."""
        if value is None:
            return
        said = ",".join(f'{k}="{_escaped(v)}"' for k, v in labels.items())
        self.samples[name].append(
            f"{name}{{{said}}} {_number(value)}" if said else f"{name} {_number(value)}"
        )

    def text(self) -> str:
        out = []
        for name, samples in self.samples.items():
            out += [f"# HELP {name} {HELP[name]}", f"# TYPE {name} gauge", *samples]
        return "\n".join(out) + "\n"


def exposition(app: App, found: Health) -> str:
    """The metrics of the watcher (`found`, as `differ status` found it), each source, each mirror's last audit
    and each destination's outbox."""
    from differ.notify import Outbox
    from differ.overview import sources_and_states

    m = Metrics()
    m.add("differ_ok", 1 if found.ok else 0)
    problems = Counter(p.kind for p in found.problems)
    for kind in (*PROBLEM_KINDS, *sorted(set(problems) - set(PROBLEM_KINDS))):
        m.add("differ_problems", problems[kind], kind=kind)
    m.add("differ_sources", found.sources)
    m.add("differ_destinations", found.destinations)
    m.add("differ_last_check_timestamp_seconds", _time(found.last_check))
    report, states = sources_and_states(app)
    for doc in report["documents"]:
        for s in doc["sources"]:
            key = {"document": doc["id"], "source": s["source"], "role": s["role"]}
            m.add("differ_source_info", 1, **key, kind=s["kind"], url=s["url"])
            m.add("differ_source_versions", s["versions"], **key)
            m.add("differ_source_paused", 1 if s["paused"] else 0, **key)
            every = (s["settled"] or {}).get("every") or s["interval"]
            m.add("differ_source_check_interval_seconds", opt.parse_duration(every), **key)
            m.add("differ_source_settled", 1 if s["settled"] else 0, **key)
            m.add("differ_source_failures", int(states[s["source"]].get("failures") or 0), **key)
            m.add("differ_source_last_check_timestamp_seconds", _time(s["last_check"]), **key)
            m.add("differ_source_last_change_timestamp_seconds", _time(s["last_change"]), **key)
            if s["role"] == "mirror" and s["last_audit"]:
                _audit(m, {"document": doc["id"], "mirror": s["source"].split("/", 1)[1]}, s["last_audit"])
    outbox = Outbox(app.store)
    waiting = Counter((msg.notifier, msg.state) for msg in outbox.all())
    for n in app.config.notifiers:
        for state in ("pending", "failed"):
            m.add("differ_outbox_messages", waiting[n.name, state], notifier=n.name, kind=n.kind, state=state)
        off = outbox.disabled(n.name)
        disabled = bool(off) and off.get("fingerprint") == n.fingerprint()  # type: ignore[union-attr]
        m.add("differ_notifier_disabled", 1 if disabled else 0, notifier=n.name, kind=n.kind)
    return m.text()


def _audit(m: Metrics, key: dict[str, str], audit: dict[str, Any]) -> None:
    """A mirror's last audit, as `differ sources` gives it: coverage, findings, how far behind it is."""
    m.add("differ_mirror_coverage_ratio", audit["coverage"], **key)
    m.add("differ_mirror_findings", audit["findings"], **key)
    m.add("differ_mirror_accepted_findings", audit["accepted"], **key)
    matches, canonical = audit.get("matches_version"), audit.get("canonical_version")
    if isinstance(matches, int) and isinstance(canonical, int):
        m.add("differ_mirror_versions_behind", canonical - matches, **key)
        behind = audit.get("passages_behind")
        m.add(
            "differ_mirror_passages_behind",
            behind if isinstance(behind, int) else 0 if matches == canonical else None,
            **key,
        )


def _time(value: object) -> float | None:
    when = parse_iso(value)
    return when.timestamp() if when is not None and when.tzinfo else None


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def write_metrics(app: App, path: Path) -> None:
    """The metrics written to `path` (`[service] metrics`), as `publish` writes them."""
    from differ.health import health

    publish(path, exposition(app, health(app)))


def publish(path: Path, text: str) -> None:
    """A status file written whole, replacing the old one at once (a collector never reads half of it), and
    readable by the collector's own user."""
    from differ.files import atomic_write

    atomic_write(path, text.encode(), durable=False, mode=0o644)
