"""The commands that need no store, only a configuration file: `differ add`, `differ import`, `differ set`,
`differ notify add`, `differ notify remove` and `differ remove` edit it (the differ.edit package does the editing),
`differ config check` reads it."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from differ import tomltext
from differ.cadence import pace_settings, slows
from differ.config import DEFAULT_CONFIG, Config, SourceConfig, load_config
from differ.errors import ConfigError, ExitCode, UsageError
from differ.options import Invalid, format_duration, meant, plural

if TYPE_CHECKING:
    import subprocess

    from differ.edit import Set


def add(
    args: argparse.Namespace,
    path: Path,
    out: TextIO,
    env: Mapping[str, str] | None,
    snapshots: Path | None = None,
) -> int:
    """`differ add`: needs no store, only a configuration file to edit (made if missing); with `--backfill`,
    the page's captures in a web archive are stored as its first versions before the file is written, so a
    running `differ run`, which checks an added page at once, finds its history already there."""
    from differ.compare import parse_settings
    from differ.edit import add_source, address_to_watch, page_kind
    from differ.normalize.feeds import EVERY_POST

    def backfill(text: str, keys: list[str]) -> None:
        from differ.app import App
        from differ.backfill import run
        from differ.config import parse_config

        config = parse_config(text, path, os.environ if env is None else env, notifiers=False)  # none is sent
        if snapshots is not None:
            config = replace(config, service=replace(config.service, snapshots=snapshots))
        run(App.from_config(config, out=out), config.source(keys[0]), out, archive=args.backfill)

    url, why = address_to_watch(args.url)
    if why:
        print(f"watching {url}: {why}", file=out)
    settings = parse_settings(args.set)
    whole_feed = (
        args.to is None and "entry" not in settings and (args.kind or page_kind(url, settings)) == "feed"
    )
    # A feed added as a document of its own, no post named: the feed, as other watchers have it.
    if whole_feed:
        settings = {"entry": EVERY_POST, **settings}
    picked = None
    if (args.kind or page_kind(url, settings)) == "json" and "field" not in settings:
        picked = json_body_field(url, settings, path, env)
        settings = {**settings, "field": picked[0]}
    added = add_source(
        path,
        url,
        to=args.to,
        id=args.id,
        title=args.title,
        kind=args.kind,
        settings=settings,
        env=env,
        before_write=backfill if args.backfill else None,
    )
    what = "a new document" if added.new_document else f"a mirror of {added.key.split('/')[0]}"
    config = _config_option(path)
    print(f"added {added.key} to {path} ({what}); try it: differ {config}fetch {added.key}", file=out)
    if whole_feed:
        follow = (
            ""
            if "follow" in settings
            else f", and differ {config}set {added.key} 'follow=[\"*\"]' each new post as a document of its own"
        )
        print(
            f'note: watching the feed\'s list of posts (entry = "*"), where a new post is a change; differ '
            f"{config}add {url} --set entry=POST_URL watches one post's text{follow}",
            file=out,
        )
    if picked is not None:
        print(f"note: {picked[1]}; differ {config}set {added.key} field=… reads another", file=out)
    if added.note:
        print(f"note: {added.note}", file=out)
    return ExitCode.OK


# A JSON document's longest text is its body when it is this many times longer than any other, and this long
# (a paragraph's characters) at least.
BODY_AHEAD = 2
BODY_AT_LEAST = 200


def json_body_field(
    url: str, settings: Mapping[str, Any], path: Path, env: Mapping[str, str] | None
) -> tuple[str, str]:
    """For a JSON page added without `field`: the document fetched (as `differ compare` fetches, politely) and
    its body's path when one text field is far the longest (`BODY_AHEAD`, `BODY_AT_LEAST`), with what is said
    of it; else a UsageError naming its longest text fields, or a JSON Feed's first post and how the feed kind
    reads it, or, when it cannot be fetched, saying why and how to name the field."""
    from differ.app import App
    from differ.compare import read_side
    from differ.config import ServiceConfig
    from differ.config.loader import config_text, parse_config
    from differ.errors import DifferError
    from differ.normalize.jsondoc import load_json, longest_fields, text_fields
    from differ.normalize.kinds import a_feed, is_json_feed

    how = "add it with --set field=PATH (e.g. body_md or data.content), or --kind text to watch it whole"
    # the service's settings (proxy, user agent, timeout) as a check has them, alerts none of this; one
    # person's command, as `differ compare` is, without the watcher's pause between requests to a host
    config = (
        parse_config(config_text(path), path, env, notifiers=False)
        if path.exists()
        else Config(path, ServiceConfig(Path("snapshots")))
    )
    config = replace(config, service=replace(config.service, per_host_delay=0.0))
    app = App.from_config(config)
    try:
        read = read_side(app, url, "page", "text", dict(settings))
        data = load_json(read.body)
    except DifferError as exc:
        raise UsageError(
            f"{url}: a json page needs field, the path of its body; reading it to look: {exc}; {how}"
        )
    finally:
        app.close()
    if is_json_feed(data):  # a blog's JSON Feed: its posts are read by the feed kind
        raise UsageError(
            f"{url}: {a_feed('a JSON Feed', read.body)[0]}: add it with --kind feed --set entry=…"
        )
    fields = longest_fields(data)
    if (
        fields
        and fields[0][0] >= BODY_AT_LEAST
        and all(fields[0][0] >= BODY_AHEAD * n for n, _ in fields[1:])
    ):
        (length, name), *rest = fields
        said = f"reading field = {name}, its longest text ({length:,} characters"
        return name, said + (f"; next: {rest[0][1]}, {rest[0][0]:,})" if rest else ")")
    raise UsageError(f"{url}: a json page needs field, the path of its body{text_fields(fields)}: {how}")


def notify_add(args: argparse.Namespace, path: Path, out: TextIO, env: Mapping[str, str] | None) -> int:
    """`differ notify add KIND [URL]`: a [[notify]] table written into config.toml, checked first."""
    from differ.compare import parse_settings
    from differ.config import notifier_options
    from differ.edit import add_notifier
    from differ.notify import NOTIFIERS

    kind = NOTIFIERS.get(args.kind)
    options = set(notifier_options()) | set(kind.options) if kind is not None else set()
    settings = parse_settings(args.set, options - {"name", "kind", "documents"})
    if args.url is not None:
        try:
            given = kind.from_address(args.url) if kind is not None else {"url": args.url}
        except Invalid as exc:
            raise UsageError(f"{args.kind}: {exc}")
        settings = {**given, **settings}
    added = add_notifier(path, args.kind, settings, name=args.name, documents=args.documents, env=env)
    which = ", ".join(added.documents) if added.documents else "every document"
    config = _config_option(path)
    print(
        f"added notifier {added.name} ({added.kind}, {which}) to {path}; try it: differ {config}notify test "
        f"{added.name}",
        file=out,
    )
    _notes(out, added.note, added.plain)
    return ExitCode.OK


def notify_remove(args: argparse.Namespace, path: Path, out: TextIO, env: Mapping[str, str] | None) -> int:
    """`differ notify remove NAME`: its [[notify]] table taken out of config.toml; what it has not delivered is
    moved to its failed messages, no longer owed."""
    from differ.edit import remove_notifier
    from differ.notify import Outbox
    from differ.store import Store

    kind, snapshots = remove_notifier(path, args.name, env)
    said = f"removed notifier {args.name} ({kind}) from {path}"
    held = Outbox(Store(snapshots)).give_up(args.name, "its [[notify]] was removed from the configuration")
    if held:
        said += (
            f"; the {plural(held, 'alert')} it had not delivered {'are' if held != 1 else 'is'} "
            f"kept in {snapshots / 'outbox' / args.name / 'failed'} (differ outbox retry ID sends one to a "
            "notifier of that name)"
        )
    print(said, file=out)
    return ExitCode.OK


def import_pages(args: argparse.Namespace, path: Path, out: TextIO, env: Mapping[str, str] | None) -> int:
    """`differ import`: another watcher's pages as new documents, and the alerts differ can send as
    notifiers, in one write (or none, with --dry-run)."""
    from differ.compare import parse_settings
    from differ.edit import add_documents
    from differ.migrate import read_all

    settings = parse_settings(args.set)
    watches = read_all([Path(f) for f in args.files], args.tool)
    found = watches.found
    for f in found:
        if f.page is not None and settings:
            f.page = replace(f.page, settings={**f.page.settings, **settings})
    done = add_documents(
        path,
        [f.page for f in found if f.page is not None],
        env,
        notifiers=watches.alerts,
        skip_watched=True,
        write=not args.dry_run,
    )
    added, alerts, tables, watched = done.sources, done.notifiers, done.tables, done.watched
    pages = [f for f in found if f.page is not None and f.page.url not in watched]
    verb = "would import" if args.dry_run else "imported"
    files = " and ".join(args.files)
    print(f"{verb} {plural(len(added), 'page')} from {files} into {path}", file=out)
    for f, a in zip(pages, added, strict=True):
        assert f.page is not None
        print(f"  {a.key}  {f.page.url}", file=out)
        _notes(out, *f.notes, a.note, indent="    ")
    for n in alerts:
        which = "every document" if n.documents is None else ", ".join(n.documents)
        print(f"  notifier {n.name} ({n.kind}) for {which}", file=out)
        _notes(out, n.note, n.plain, indent="    ")
    from differ.notify import NOTIFIERS

    secret_urls = [n for n in alerts if (o := NOTIFIERS[n.kind].options.get("url")) is not None and o.secret]
    if secret_urls:  # a webhook's address is its credential
        print(
            f"    note: webhook URLs are written into {path} as the other tool kept them; to keep one out of the "
            'file, put it in an environment variable and write url = "${NAME}"',
            file=out,
        )
    again = [f for f in found if f.page is not None and f.page.url in watched]
    if again:
        print(f"already watched, left as they are: {len(again)}", file=out)
        for f in again:
            assert f.page is not None
            print(f"  {f.page.url} ({watched[f.page.url]})", file=out)
    skipped = [f for f in found if f.page is None]
    if skipped or watches.left_out:
        print(f"left out: {len(skipped) + len(watches.left_out)}", file=out)
        for f in skipped:
            print(f"  {f.name}: {f.skipped}", file=out)
        for line in watches.left_out:
            print(f"  {line}", file=out)
    if args.dry_run and tables:
        print(f"\n# to be added to {path}:\n\n{tables}", file=out, end="")
    elif added:
        config = _config_option(path)
        print(f"try them: differ {config}check", file=out)
    return ExitCode.OK


def remove(args: argparse.Namespace, path: Path, out: TextIO, env: Mapping[str, str] | None) -> int:
    """`differ remove`: edits the configuration only; the store keeps every version of what was watched."""
    from differ.edit import remove_source

    removed = remove_source(path, args.name, env)
    what = f"{removed.name} ({', '.join(removed.keys)})" if removed.document else removed.name
    their = "their" if len(removed.keys) > 1 else "its"
    print(
        f"removed {what} from {path}; the store keeps {their} history (differ history {removed.keys[0]})",
        file=out,
    )
    return ExitCode.OK


def pause(args: argparse.Namespace, path: Path, out: TextIO, env: Mapping[str, str] | None) -> int:
    """`differ pause` and `differ resume`: `paused = true` set or taken out; a running `differ run` reads the
    file again within seconds and stops or starts checking them."""
    from differ.edit import set_paused

    paused = args.command == "pause"
    changed = set_paused(path, args.names, paused, env)
    verb = "paused" if paused else "resumed"
    if not changed:
        print(
            f"nothing to do: {', '.join(args.names)} {'is' if len(args.names) == 1 else 'are'} {verb} already",
            file=out,
        )
        return ExitCode.OK
    kept = "their records" if len(changed) > 1 else "its record"
    what = f"no longer checked, {kept} kept" if paused else "checked again"
    print(f"{verb} {', '.join(changed)} in {path} ({what})", file=out)
    return ExitCode.OK


def _split_value(items: Sequence[str], error: str) -> str:
    """What to add to an `error` naming a source not found, when the word it names came right after NAME=VALUE:
    a value the shell split at its spaces (`stale_after=3 days`)."""
    for before, word in pairwise(items):
        if _SETTING.match(before) and not _SETTING.match(word) and f'"{word}"' in error:
            return f" (\"{word}\" came after {before}: quote a value with spaces whole, '{before} {word}')"
    return ""


def set_options(args: argparse.Namespace, path: Path, out: TextIO, env: Mapping[str, str] | None) -> int:
    """`differ set`: options written into (or, `--unset`, taken out of) sources' tables, or with `--service` the
    [service] table; a running `differ run` reads the file again within seconds (and takes [service] settings
    when it starts again). A new `url` is the page a link names, as `differ add` watches it."""
    from differ.compare import settable
    from differ.config import SERVICE_OPTIONS
    from differ.edit import DOCUMENT_SET, SET_ALSO, address_to_watch, set_service
    from differ.edit import set_options as write

    words = args.items + args.pairs  # `--set a=1 SOURCE` takes SOURCE after the pair as --set's
    names = [word for word in words if not _SETTING.match(word)]
    pairs = [word for word in words if _SETTING.match(word)]
    usage = "expected SOURCE… NAME=VALUE… (e.g. differ set pytorch-2-13/canonical interval=1h)"
    if args.service and names:
        raise UsageError(f"--service sets the [service] table: name no source with it (found {names[0]})")
    if not names and not args.service:
        raise UsageError(f"no source named: {usage}, or --service NAME=VALUE… for the [service] table")
    if not pairs and not args.unset:
        raise UsageError(f"no option given: {usage}, or --unset NAME")
    known = set(SERVICE_OPTIONS) if args.service else settable() | SET_ALSO | DOCUMENT_SET
    settings = _changes(pairs, args.unset, known, set() if args.service else {"url"})
    if "url" in settings and not args.service:
        url, why = address_to_watch(str(settings["url"]))
        if why:
            print(f"watching {url}: {why}", file=out)
        settings["url"] = url
    try:
        done = (
            set_service(path, settings, args.unset, env)
            if args.service
            else write(path, names, settings, args.unset, env)
        )
    except UsageError as e:
        raise UsageError(f"{e}{_split_value(args.items, str(e))}") from None
    if not done:
        what = (
            "the [service] table has"
            if args.service
            else f"{', '.join(names)} {'has' if len(names) == 1 else 'have'}"
        )
        print(f"nothing to do: {what} those options already", file=out)
        return ExitCode.OK
    _say(done, out)
    keys = list(dict.fromkeys(change.key for change in done if "/" in change.key))
    read = sorted({change.name for change in done if "/" in change.key} - _SCHEDULE)
    config = _config_option(path)
    tail = f"; try it: differ {config}fetch {keys[0]}" if read and len(keys) == 1 else ""
    if args.service:
        tail = "; a running differ run takes [service] settings when it starts again"
    print(f"written to {path}{tail}", file=out)
    return ExitCode.OK


def notify_set(args: argparse.Namespace, path: Path, out: TextIO, env: Mapping[str, str] | None) -> int:
    """`differ notify set NAME NAME=VALUE…`: options written into (or, `--unset`, taken out of) a [[notify]]
    table; a running `differ run` takes them at once when it reads the file again."""
    from differ.config import notifier_options
    from differ.edit import set_notifier
    from differ.notify import NOTIFIERS

    fixed = {"name", "kind"}  # what names a destination's messages and says how they are sent
    known = set(notifier_options()).union(*(kind.options for kind in NOTIFIERS.values())) - fixed
    words = [*filter(None, [args.name]), *args.pairs, *args.more]  # `--set a=1 NAME` takes NAME as --set's
    names = [word for word in words if not _SETTING.match(word)]
    if len(names) != 1:
        found = f"found {', '.join(names)}" if names else "found none"
        raise UsageError(f"expected one destination's NAME and its NAME=VALUE… options ({found})")
    name = names[0]
    pairs = [word for word in words if _SETTING.match(word)]
    if not pairs and not args.unset:
        raise UsageError(
            "no option given: expected NAME NAME=VALUE… "
            '(e.g. differ notify set slack \'events=["changed", "moved"]\'), or --unset NAME'
        )
    settings = _changes(pairs, args.unset, known, set())
    result = set_notifier(path, name, settings, args.unset, env)
    if not result.done:
        print(f"nothing to do: {name} has those options already", file=out)
        return ExitCode.OK
    _say(result.done, out)
    config = _config_option(path)
    print(
        f"written to {path}; see what it will send: differ {config}notify preview SOURCE --name {name}",
        file=out,
    )
    _notes(out, result.note, result.plain)
    return ExitCode.OK


def _say(done: Sequence[Set], out: TextIO) -> None:
    """One line a changed option, with its value before."""
    for change in done:
        was = "not set before" if change.before is None else f"was {tomltext.value(change.before)}"
        if change.after is None:
            print(f"{change.key}: {change.name} taken out ({was}; its default again)", file=out)
        else:
            print(f"{change.key}: {change.name} = {tomltext.value(change.after)} ({was})", file=out)


# Options that decide when a source is checked or how its alerts go, not how its page is read.
_SCHEDULE = {"interval", "paused", "stale_after", "translation"}
_SETTING = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _config_option(path: Path) -> str:
    """`--config FILE ` for the commands a line suggests, when the file is not the default one."""
    return "" if path == DEFAULT_CONFIG else f"--config {path} "


def _changes(pairs: list[str], unset: list[str], known: set[str], required: set[str]) -> dict[str, Any]:
    """`NAME=VALUE` pairs as a table of the options `known` names, and the options `--unset` takes out (not a
    `required` one, nor one also set) checked."""
    from differ.compare import parse_settings

    settings = parse_settings(pairs, known, given="")
    optional = sorted(known - required)
    for name in unset:
        if name not in optional:
            raise UsageError(
                f'--unset: no option "{name}" to take out{meant(name, optional)}; options: {", ".join(optional)}'
            )
        if name in settings:
            raise UsageError(f"{name} is both set and taken out: give one of the two")
    return settings


def config_edit(
    path: Path,
    out: TextIO,
    err: TextIO,
    env: Mapping[str, str] | None,
    again: Callable[[], bool] | None = None,
) -> int:
    """`differ config edit [FILE]`: the file opened in $VISUAL or $EDITOR (vi), checked as it will run when the
    editor exits, and written back only then (a new file made from differ's first line); one that does not
    read is said, and opened again while `again` (asked on a terminal) says so, else kept beside for the user to
    mend. An edit made meanwhile by another command is never overwritten."""
    import shlex
    import tempfile

    from differ.edit import NEW_FILE, check_edited

    env = os.environ if env is None else env
    try:
        read_as: str | None = tomltext.read(path)
    except FileNotFoundError:
        read_as = None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}")
    named = env.get("VISUAL") or env.get("EDITOR") or ""
    try:
        editor = shlex.split(named) or ["vi"]
    except ValueError as exc:  # an unclosed quote
        raise UsageError(f"the editor {named!r} (VISUAL or EDITOR) does not read as a command: {exc}")
    try:  # beside the file, where a copy kept after a mistake is found; readable by its owner alone
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-edit-", suffix=".toml")
    except OSError as exc:
        raise ConfigError(f"{path.parent}: cannot write a copy to edit: {exc.strerror or exc}")
    draft = Path(name)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(NEW_FILE if read_as is None else read_as)
    while True:
        try:
            done = _run_editor([*editor, str(draft)], env)
        except OSError as exc:
            draft.unlink()
            raise UsageError(
                f"cannot start the editor {shlex.join(editor)}: {exc.strerror or exc} (set VISUAL or EDITOR)"
            )
        if done.returncode != 0:
            print(
                f"differ: the editor exited with {done.returncode}; {path} is as it was (your text: {draft})",
                file=err,
            )
            return ExitCode.FAILURE
        try:
            text = _draft_text(draft, path)
            if text == (NEW_FILE if read_as is None else read_as):
                draft.unlink()
                print(f"no change: {path} is as it was", file=out)
                return ExitCode.OK
            config, trusted = check_edited(text, path, env)
            break
        except ConfigError as exc:
            print(f"error: {exc}", file=err)
            if again is None or not again():
                print(f"differ: {path} is as it was; your text is in {draft}", file=err)
                return ExitCode.USAGE
    try:
        tomltext.write(path, text, read_as=read_as)
    except ConfigError as exc:
        print(f"error: {exc}; your text is in {draft}", file=err)
        return ExitCode.USAGE
    draft.unlink()
    print(f"{path}: written ({_counted(config)}); a running differ run reads it within seconds", file=out)
    _say_trusted(trusted, out)
    return ExitCode.OK


def _draft_text(draft: Path, path: Path) -> str:
    """The text the editor left, with its line endings as differ reads a configuration's (the file's own are
    given back when it is written)."""
    try:
        return draft.read_text(encoding="utf-8").replace("\r\n", "\n").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path.name}: not UTF-8 text (byte {exc.start}); save it as UTF-8")


def _run_editor(command: list[str], env: Mapping[str, str]) -> subprocess.CompletedProcess[bytes]:
    """Run the editor as git does: Ctrl-C is the editor's while it runs (vi cancels a command with it), so it
    neither stops differ nor kills the editor; the editor itself takes it as it would from a shell."""
    import signal
    import subprocess

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return subprocess.run(
            command,
            env=dict(env),
            check=False,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    finally:
        signal.signal(signal.SIGINT, previous)


def config_check(
    path: Path, out: TextIO, env: Mapping[str, str] | None = None, *, trust_unset: bool = False
) -> int:
    """`differ config check [FILE]`: validate without fetching; needs no store, so it takes no App. With
    `trust_unset` (where the secrets are not set: CI, a laptop), a `${NAME}` not set here is taken as it will be
    where differ runs, and the rest checked."""
    from differ.config.loader import ENV_UNSET, config_text
    from differ.edit import check_edited, plain_http

    env = os.environ if env is None else env
    trusted: list[str] = []
    try:
        if trust_unset:
            text = config_text(path)
            config, trusted = check_edited(text, path, env)
            tables = tomllib.loads(text.removeprefix("\ufeff")).get("notify") or []
            notifiers = len(tables)
            urls = [  # as written: one taken from the environment is not known here
                (str(t.get("name")), t["url"])
                for t in tables
                if isinstance(t.get("url"), str) and "${" not in t["url"]
            ]
        else:
            config = load_config(path, env)
            notifiers = len(config.notifiers)
            urls = [(n.name, str(n.options.get("url") or "")) for n in config.notifiers]
    except ConfigError as exc:
        if trust_unset or not ENV_UNSET.search(str(exc)):
            raise
        where = "" if path == DEFAULT_CONFIG else f" {path}"
        raise ConfigError(
            f"{exc} (where it is set only where differ runs: differ config check{where} --trust-unset)"
        )
    paused = sum(s.paused for s in config.sources())
    print(
        f"{path}: ok ({_counted(config)}{f' ({paused} paused)' if paused else ''}, "
        f"{plural(notifiers, 'notifier')})",
        file=out,
    )
    _say_trusted(trusted, out)
    for name, url in urls:
        if note := plain_http(url):
            print(f"note: notifier {name}: {note}", file=out)
    for source in config.sources():
        if source.command and shutil.which(source.command[0], path=env.get("PATH")) is None:
            program = source.command_written[0]
            print(
                f"note: {source.key}: its command's program {program} is not found here (not a file, nor on "
                "PATH); install it where differ runs",
                file=out,
            )
        for note in (_never_settles(config, source), _too_often(config, source)):
            if note:
                print(f"note: {source.key}: {note}", file=out)
    return ExitCode.OK


def _too_often(config: Config, source: SourceConfig) -> str:
    """A source checked more than once a minute: a host may take it for an attack, and a bare number is
    seconds, where `5` may have meant five minutes ("" otherwise)."""
    every = pace_settings(config.service, source)[0]
    if every >= 60:
        return ""
    return (
        f"checked every {format_duration(every)}, which a site may take for an attack; "
        f'a number alone is seconds ("{format_duration(every * 60)}" for every {every:g} minutes)'
    )


def _never_settles(config: Config, source: SourceConfig) -> str:
    """A source asked to settle whose settled_interval is no longer than its interval: it is never checked
    less often, so it never settles ("" otherwise)."""
    every, after, slower = pace_settings(config.service, source)
    if not after or slows(every, after, slower):
        return ""
    return (
        f"settled_interval ({format_duration(slower)}) is not longer than its interval "
        f"({format_duration(every)}), so it is never checked less often"
    )


def _notes(out: TextIO, *notes: str | None, indent: str = "") -> None:
    """A line for each note that says something (none, or an empty one, is no note)."""
    for note in notes:
        if note:
            print(f"{indent}note: {note}", file=out)


def _counted(config: Config) -> str:
    """`2 documents, 4 sources`: what a configuration watches."""
    return f"{plural(len(config.documents), 'document')}, {plural(len(config.sources()), 'source')}"


def _say_trusted(trusted: Sequence[str], out: TextIO) -> None:
    """What a check of the file took on trust (a `${NAME}` set only where differ runs), one note each."""
    for note in trusted:
        print(f"note: {note}: taken as it will be where differ runs", file=out)
