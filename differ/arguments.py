"""The `differ` command line as argparse reads it: every command, its arguments and their help (the help is the
commands documented in docs/commands.md, in short). Reading it loads no pipeline code, so `differ --help` is quick."""

from __future__ import annotations

import argparse
from pathlib import Path

from differ.config import CHANGE_KINDS, WEB_ARCHIVE

# differ.diff.FORMATS, named here so that reading the command line loads no diff code (a test keeps them equal)
DIFF_FORMATS = ("text", "markdown", "json", "html", "unified")

WHICH = "a number, or a time (2026-07-08, 2026-07-08T18:00Z) or so long ago (7d, 12h) for the version stored by then"


def _section_option(
    parser: argparse.ArgumentParser, picks: str = "the changes", *, kinds: bool = True
) -> None:
    parser.add_argument(
        "--section",
        dest="sections",
        action="append",
        metavar="HEADING",
        help=f"only {picks} under a heading this matches (case aside, * any characters; repeatable)",
    )
    parser.add_argument(
        "--word",
        dest="words",
        action="append",
        metavar="WORD",
        help=f"only {picks} {'whose block has' if kinds else 'with'} this word or phrase"
        f"{', before or after' if kinds else ''} (case aside, * any characters but a space; repeatable)",
    )
    if not kinds:
        return
    parser.add_argument(
        "--change",
        dest="kinds",
        action="append",
        choices=CHANGE_KINDS,
        metavar="KIND",
        help=f"only {picks} of this kind: {', '.join(CHANGE_KINDS)} (repeatable)",
    )


def _set_and_unset(parser: argparse.ArgumentParser, dest: str, after: str) -> None:
    """`--set NAME=VALUE…` (as `differ add` takes them) and `--unset NAME` for a command that changes options."""
    parser.add_argument(
        "--set",
        dest=dest,
        action="extend",
        nargs="+",
        default=[],
        metavar="NAME=VALUE",
        help=f"an option, as after {after}",
    )
    parser.add_argument(
        "--unset",
        action="append",
        default=[],
        metavar="NAME",
        help="take an option out (its default again); repeatable",
    )


class Parser(argparse.ArgumentParser):
    """argparse's parser, naming the choice a mistyped one was likely meant to be (`chek`: "check")."""

    def _check_value(self, action: argparse.Action, value: object) -> None:
        if action.choices is not None and value not in action.choices:
            from differ.options import meant

            names = [str(c) for c in action.choices]
            raise argparse.ArgumentError(
                action, f'invalid choice: "{value}"{meant(value, names)}; choose from {", ".join(names)}'
            )


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="differ",
        description="Watch release announcements and their mirrors; keep "
        "every version, say what changed, audit mirrors, alert reliably.",
    )
    p.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="configuration file (default: ./config.toml; without one, history, log, show, diff, blame, verify "
        "and export read the --snapshots store alone)",
    )
    p.add_argument(
        "--snapshots", type=Path, metavar="DIR", help="store folder (overrides [service] snapshots)"
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    p.add_argument("--version", action="store_true", help="show the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    c = sub.add_parser("check", help="fetch, store, diff and notify once")
    c.add_argument(
        "sources", nargs="*", default=[], metavar="SOURCE", help="DOCUMENT/SOURCE or DOCUMENT (default: all)"
    )
    c.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print only what needs attention (new versions, failures, held or deferred sources): nothing when "
        "every page is unchanged, so cron mails only then",
    )
    c.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="json: every source's outcome in one document at the end (differ.check/1), for scripts",
    )
    c.add_argument(
        "--due",
        action="store_true",
        help="only the sources whose interval has passed since their last check (for cron run more often)",
    )
    rn = sub.add_parser("run", help="the long-running service: check every source on its schedule")
    rn.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="log only what needs attention (new versions, failures, held or deferred sources); every check "
        "stays in the fetch log (differ log)",
    )
    ad = sub.add_parser("add", help="add a page to config.toml: a new document, or with --to a mirror of one")
    ad.add_argument("url", metavar="URL", help="the page to watch (http or https)")
    ad.add_argument("--to", metavar="DOCUMENT", help="add it as a mirror of this document")
    ad.add_argument("--id", metavar="ID", help="the document's id (or the mirror's); default: from the URL")
    ad.add_argument("--title", help="the new document's title (default: its id)")
    ad.add_argument("--kind", metavar="KIND", help="how to read it, as `differ kinds` lists (default: html)")
    ad.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a source option, as in config.toml (selector=article .post, languages='[\"en\"]')",
    )
    ad.add_argument(
        "--backfill",
        nargs="?",
        const=WEB_ARCHIVE,
        metavar="ARCHIVE",
        help="first store its history from a web archive's captures (default: https://web.archive.org)",
    )
    im = sub.add_parser(
        "import",
        help="add the pages urlwatch or changedetection.io watch (with their chat, push and e-mail alerts), or a "
        "list of URLs, to config.toml as new documents",
    )
    im.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="urlwatch's urls.yaml (and its urlwatch.yaml, for its Slack, Discord, Mattermost, Matrix, Telegram "
        "and e-mail reporters); changedetection.io's backup .zip, datastore folder, url-watches.json or "
        "watch.json; or a text file with a URL (and a title) a line",
    )
    im.add_argument(
        "--from",
        dest="tool",
        choices=("urlwatch", "changedetection", "list"),
        help="which tool wrote FILE (default: from its name: .yaml is urlwatch's, .json, .zip or a folder "
        "changedetection.io's, .txt a list of URLs, one a line)",
    )
    im.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a source option for every page imported, as in config.toml (interval=1h)",
    )
    im.add_argument("--dry-run", action="store_true", help="print what would be added; write nothing")
    rm = sub.add_parser(
        "remove",
        help="take a document, or one of its mirrors, out of config.toml (the store keeps its history)",
    )
    rm.add_argument(
        "name", metavar="DOCUMENT[/MIRROR]", help="a document with all its sources, or one mirror"
    )
    for verb, does in (
        ("pause", "stop checking sources for a while (paused = true in config.toml; their history stays)"),
        ("resume", "check paused sources again (paused = true taken out of config.toml)"),
    ):
        pa = sub.add_parser(verb, help=does)
        pa.add_argument(
            "names", nargs="+", metavar="SOURCE", help="DOCUMENT/SOURCE, or DOCUMENT for all its sources"
        )
    se = sub.add_parser(
        "set",
        help="change sources' options in config.toml (url=NEW after a page moved, selector=…, interval=1h)",
        usage="differ set SOURCE… NAME=VALUE… [--unset NAME]…\n       differ set --service NAME=VALUE… [--unset NAME]…",
    )
    se.add_argument(
        "items",
        nargs="*",
        default=[],
        metavar="SOURCE… NAME=VALUE…",
        help="DOCUMENT/SOURCE, or DOCUMENT for all its sources, then the options as in config.toml",
    )
    _set_and_unset(se, "pairs", "SOURCE")
    se.add_argument(
        "--service",
        action="store_true",
        help="set the [service] table's options (interval, proxy, heartbeat, …)",
    )
    h = sub.add_parser("history", help="the versions of a source, or of every source in the order stored")
    h.add_argument(
        "source", nargs="?", metavar="SOURCE", help="default: every source's versions, the latest last"
    )
    h.add_argument(
        "--since",
        metavar="TIME",
        help="only the versions stored since a time (2026-07-01, 2026-07-01T09:00Z) or so long ago (7d, 12h)",
    )
    h.add_argument(
        "-n",
        dest="count",
        type=_positive,
        metavar="N",
        help="only the latest N versions (of every source, by default 20, or all since --since)",
    )
    h.add_argument("--format", choices=("text", "json", "html"), default="text")
    _section_option(h, "the versions with a change")
    lg = sub.add_parser("log", help="the latest checks of sources: when, HTTP status, outcome, size, time")
    lg.add_argument(
        "sources", nargs="*", default=[], metavar="SOURCE", help="DOCUMENT/SOURCE or DOCUMENT (default: all)"
    )
    lg.add_argument(
        "-n", dest="count", type=_positive, default=20, metavar="N", help="how many (default: 20)"
    )
    lg.add_argument("--failures", action="store_true", help="only checks that failed or were held")
    lg.add_argument("--format", choices=("text", "json"), default="text")
    s = sub.add_parser("show", help="the normalized Markdown (or raw body) of a version")
    s.add_argument("source", metavar="SOURCE")
    s.add_argument("at", nargs="?", metavar="N", help="the version (as --version N)")
    s.add_argument("--version", dest="number", metavar="N", help=f"a version: {WHICH} (default: latest)")
    s.add_argument("--raw", action="store_true", help="the raw body as fetched")
    b = sub.add_parser("blame", help="each block of a version with the version that last edited it")
    b.add_argument("source", metavar="SOURCE")
    b.add_argument("at", nargs="?", metavar="N", help="the version (as --version N)")
    b.add_argument("--version", dest="number", metavar="N", help=f"a version: {WHICH} (default: latest)")
    b.add_argument(
        "--after",
        metavar="N|MIRROR",
        help=f"only the blocks edited or added after a version: {WHICH} (--after 1: since the first), or "
        "DOCUMENT/MIRROR for the version of the canonical that mirror matches (what it has to carry over, each "
        "placed in it)",
    )
    b.add_argument("--format", choices=("text", "markdown", "json", "html"), default="text")
    _section_option(b, "the blocks", kinds=False)
    d = sub.add_parser("diff", help="what changed between two versions")
    d.add_argument("source", metavar="SOURCE")
    d.add_argument(
        "at",
        nargs="*",
        default=[],
        metavar="N",
        help="one version: what it changed (as --to N); two: from the first to the second (--from N --to M)",
    )
    d.add_argument(
        "--from", dest="a", metavar="N", help=f"old version: {WHICH} (default: the one before --to)"
    )
    d.add_argument("--to", dest="b", metavar="M", help=f"new version: {WHICH} (default: latest)")
    d.add_argument("--format", choices=DIFF_FORMATS, default="text")
    _section_option(d)
    d.add_argument("--no-color", action="store_true", help="no colours even on a terminal")
    a = sub.add_parser("audit", help="how faithfully each mirror reproduces its canonical")
    a.add_argument(
        "document",
        nargs="?",
        metavar="DOCUMENT[/MIRROR]",
        help="a document's mirrors, or one of them (default: every document's)",
    )
    a.add_argument("--format", choices=("text", "markdown", "json", "html"), default="text")
    a.add_argument(
        "--exit-code",
        action="store_true",
        help="exit 1 when a mirror audited is stale or has any finding (for CI)",
    )
    ex = sub.add_parser(
        "export",
        help="write the store's versions to a git repository: a commit a version, dated when fetched",
    )
    ex.add_argument("dir", metavar="DIR", help="a git repository, or a new or empty folder to make one in")
    ex.add_argument(
        "sources", nargs="*", default=[], metavar="SOURCE", help="DOCUMENT/SOURCE or DOCUMENT (default: all)"
    )
    ex.add_argument("--branch", default="differ", help="the branch written (default: differ)")
    ex.add_argument(
        "-q", "--quiet", action="store_true", help="print nothing unless versions were added (for cron)"
    )
    ex.add_argument(
        "--raw",
        action="store_true",
        help="also the body as fetched (SOURCE.raw.html) and the version's record (SOURCE.version.json)",
    )
    vf = sub.add_parser("verify", help="re-hash the store and report altered, missing or reordered versions")
    vf.add_argument(
        "--git",
        metavar="DIR",
        help="check a history `differ export --raw` wrote instead, from git alone (no store, no config)",
    )
    vf.add_argument("--branch", default="differ", help="with --git: the branch to check (default: differ)")
    vf.add_argument(
        "--captures",
        nargs="*",
        metavar="SOURCE",
        help="instead, read each version's copy in the Wayback Machine (made by a wayback destination) and "
        "compare it with the version (DOCUMENT/SOURCE or DOCUMENT; default: all)",
    )
    so = sub.add_parser("sources", help="the configured sources and their state")
    so.add_argument(
        "sources", nargs="*", default=[], metavar="SOURCE", help="DOCUMENT/SOURCE or DOCUMENT (default: all)"
    )
    so.add_argument("--format", choices=("text", "json"), default="text")
    st = sub.add_parser(
        "status",
        help="whether every source is checked on time, none is failing and every alert went out; exit 1 if "
        "not (for a monitor)",
    )
    st.add_argument(
        "--format",
        choices=("text", "json", "prometheus"),
        default="text",
        help="prometheus: metrics of every source, mirror and destination, for node_exporter's textfile collector",
    )
    st.add_argument(
        "--output",
        metavar="FILE",
        type=Path,
        help="write to FILE whole, replacing it at once (a collector never reads half of it), not to stdout",
    )
    sub.add_parser("kinds", help="the source kinds and notifiers differ knows")
    f = sub.add_parser(
        "fetch", help="dry run: fetch one source and print its normalized Markdown (stores nothing)"
    )
    f.add_argument("source", metavar="SOURCE")
    bf = sub.add_parser(
        "backfill", help="a page's history from before it was watched, from a web archive's captures"
    )
    bf.add_argument("source", metavar="SOURCE", help="DOCUMENT/SOURCE, or DOCUMENT for all its sources")
    bf.add_argument("--since", metavar="TIME", help="captures from this time on (2026-07-01)")
    bf.add_argument("--until", metavar="TIME", help="captures up to this time")
    bf.add_argument("--limit", type=_positive, metavar="N", help="only the latest N captures")
    bf.add_argument(
        "--every",
        choices=("hour", "day", "month"),
        help="only the first capture of each hour, day or month (a page captured thousands of times)",
    )
    bf.add_argument(
        "--archive",
        default=WEB_ARCHIVE,
        metavar="URL",
        help="an archive with the Wayback Machine's CDX API (default: https://web.archive.org)",
    )
    bf.add_argument("--dry-run", action="store_true", help="read and compare the captures; store nothing")
    r = sub.add_parser("renormalize", help="rebuild normalized Markdown from raw bodies with this normalizer")
    r.add_argument("sources", nargs="*", default=[], metavar="SOURCE")
    cfg = sub.add_parser("config", help="configuration commands")
    cfg_sub = cfg.add_subparsers(dest="config_command", metavar="COMMAND")
    cc = cfg_sub.add_parser("check", help="validate a configuration file without fetching")
    cc.add_argument("file", nargs="?", type=Path, metavar="FILE")
    cc.add_argument(
        "--trust-unset",
        action="store_true",
        help="take a ${NAME} not set here (a secret set only where differ runs) on trust and check the rest",
    )
    ce = cfg_sub.add_parser(
        "edit",
        help="open config.toml in $VISUAL or $EDITOR; written back only if it reads as a configuration",
    )
    ce.add_argument("file", nargs="?", type=Path, metavar="FILE")
    n = sub.add_parser("notify", help="notification commands")
    n_sub = n.add_subparsers(dest="notify_command", metavar="COMMAND")
    na = n_sub.add_parser("add", help="add a destination to config.toml (checked before it is written)")
    na.add_argument("kind", metavar="KIND", help="slack, webhook, teams, … (differ kinds lists them)")
    na.add_argument("url", nargs="?", metavar="URL", help="its url option (a webhook's address)")
    na.add_argument("--name", metavar="NAME", help="its name (default: its kind, made unique)")
    na.add_argument(
        "--for",
        dest="documents",
        action="append",
        default=[],
        metavar="DOCUMENT",
        help="only this document's alerts (again for more; default: every document)",
    )
    na.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an option of the notifier, as in config.toml (secret='${WEBHOOK_SECRET}', events='[\"changed\"]')",
    )
    ns = n_sub.add_parser(
        "set",
        help='change a destination\'s options in config.toml (events=["changed", "moved"], mention=…)',
        usage="differ notify set NAME NAME=VALUE… [--unset NAME]…",
    )
    ns.add_argument("name", nargs="?", metavar="NAME", help="the notifier's name (differ sources lists them)")
    ns.add_argument(
        "pairs", nargs="*", default=[], metavar="NAME=VALUE", help="its options, as in config.toml"
    )
    _set_and_unset(ns, "more", "NAME")
    nr = n_sub.add_parser("remove", help="take a destination out of config.toml")
    nr.add_argument("name", metavar="NAME")
    nt = n_sub.add_parser("test", help="send a sample message")
    nt.add_argument("name", nargs="?", metavar="NAME")
    nc = n_sub.add_parser(
        "check", help="ask each destination's service whether its settings work (posts nothing)"
    )
    nc.add_argument("name", nargs="?", metavar="NAME")
    npv = n_sub.add_parser(
        "preview",
        help="show the message each destination would get for a source's latest change (sends nothing)",
    )
    npv.add_argument("source", metavar="SOURCE")
    npv.add_argument("--from", dest="a", metavar="N", help="old version (default: the one before --to)")
    npv.add_argument("--to", dest="b", metavar="M", help="new version (default: latest)")
    npv.add_argument("--name", metavar="NAME", help="only this destination")
    npv.add_argument(
        "--drift", action="store_true", help="the drift alert of SOURCE, a mirror, as its audit stands now"
    )
    o = sub.add_parser("outbox", help="pending and failed deliveries")
    o_sub = o.add_subparsers(dest="outbox_command", metavar="COMMAND")
    orr = o_sub.add_parser("retry", help="try failed (or waiting) deliveries again now")
    orr.add_argument("id", nargs="?", metavar="ID")
    ose = o_sub.add_parser(
        "sent", help="the latest deliveries: when each went, and what the service answered"
    )
    ose.add_argument("name", nargs="?", metavar="NAME", help="one destination (default: every one)")
    ose.add_argument("-n", "--count", type=int, default=10, help="how many a destination (default: 10)")
    cp = sub.add_parser(
        "compare",
        help="diff two files or URLs on the spot (no config, nothing stored); exit 1 if they differ",
    )
    cp.add_argument("old", metavar="OLD", help="a file, an http(s):// URL, or - for standard input")
    cp.add_argument("new", metavar="NEW", help="a file, an http(s):// URL, or - for standard input")
    cp.add_argument(
        "--kind",
        metavar="KIND",
        help="how to read both, as `differ kinds` lists (default: from the file name or media type)",
    )
    cp.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a source option, as in config.toml (selector=article, exclude='[\"nav\"]', languages='[\"en\"]')",
    )
    cp.add_argument(
        "--audit",
        action="store_true",
        help="audit NEW as a copy of OLD: coverage, missing, extra, altered, corrupted commands and, with "
        "--set languages, translated numbers and names (exit 1 on any finding)",
    )
    cp.add_argument("--format", choices=DIFF_FORMATS, default="text")
    _section_option(cp)
    cp.add_argument("--no-color", action="store_true", help="no colours even on a terminal")
    dm = sub.add_parser("demo", help="replay the PyTorch 2.13 edit through the real pipeline, offline")
    dm.add_argument("--keep", type=Path, metavar="DIR", help="keep the demo's store in DIR")
    return p


def versions_given(args: argparse.Namespace) -> str | None:
    """`differ show SOURCE 3` as `--version 3`, `differ diff SOURCE 2 5` as `--from 2 --to 5` (and `diff SOURCE
    5` as `--to 5`: what version 5 changed); what was wrong, if anything."""
    at = getattr(args, "at", None)
    if not at:
        return None
    if args.command in ("show", "blame"):
        if args.number is not None and args.number != at:
            return f"version given twice ({at} and --version {args.number}); give one"
        args.number = at
        return None
    if len(at) > 2:
        return f"expected at most two versions (from and to), found {len(at)}: {' '.join(at)}"
    named = dict(zip(("a", "b") if len(at) == 2 else ("b",), at, strict=True))
    for dest, value in named.items():
        option = "--from" if dest == "a" else "--to"
        if getattr(args, dest) is not None and getattr(args, dest) != value:
            return f"version given twice ({value} and {option} {getattr(args, dest)}); give one"
        setattr(args, dest, value)
    return None


def _positive(text: str) -> int:
    """A count given on the command line: a whole number of at least 1."""
    if not text.isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, found {text!r}")
    return int(text)
