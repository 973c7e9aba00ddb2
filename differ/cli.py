"""The `differ` command: a thin layer over the library. Errors are one line; tracebacks only with --debug."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from differ import __version__
from differ import options as opt
from differ.app import App
from differ.arguments import build_parser, versions_given
from differ.config import (
    DEFAULT_CONFIG,
    Config,
    ServiceConfig,
    load_config,
    store_config,
)
from differ.errors import ConfigError, DifferError, ExitCode, UsageError, refused

Handler = Callable[[App, argparse.Namespace], int]
COMMANDS: dict[str, Handler] = {}


def command(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        COMMANDS[name] = fn
        return fn

    return register


def version_line() -> str:
    """The version, and whether the Markdown writer runs compiled (which changes its speed, never its output)."""
    from differ.normalize import compiled_modules

    compiled = compiled_modules()
    return f"differ {__version__} ({'compiled: ' + ', '.join(compiled) if compiled else 'not compiled'})"


# Commands that only read the store: given --snapshots and no config file, they read the store alone.
READS_THE_STORE = frozenset({"history", "log", "show", "diff", "blame", "verify", "export"})


def _load(args: argparse.Namespace, env: dict[str, str] | None) -> Config:
    if args.config is None:
        if args.command == "kinds":  # what differ knows, the same with any configuration or none
            return Config(DEFAULT_CONFIG, ServiceConfig(Path("snapshots")))
        if args.command == "compare":  # reads no store; a config is used only when named
            # One person's command fetching two pages: one request at a time per host and robots.txt as
            # always, but not the watcher's pause between requests (5 s by default).
            return Config(DEFAULT_CONFIG, ServiceConfig(Path("snapshots"), per_host_delay=0.0))
        if args.snapshots is not None and args.command in READS_THE_STORE and not DEFAULT_CONFIG.exists():
            return _store_config(args.snapshots)
        args.config = DEFAULT_CONFIG
    config = load_config(args.config, env)
    if args.snapshots is not None:
        from dataclasses import replace

        config = replace(config, service=replace(config.service, snapshots=args.snapshots))
    if args.command in READS_THE_STORE:
        names = [args.source] if getattr(args, "source", None) else getattr(args, "sources", None) or []
        config = _with_removed(config, names)
    return config


def _with_removed(config: Config, names: Sequence[str]) -> Config:
    """`config` with the sources it no longer names but the store still holds, when a command reading the
    store asks for one of them by name: a page taken out of config.toml keeps its history readable."""
    from differ.config import with_stored

    configured = {s.key for s in config.sources()} | {d.id for d in config.documents}
    if all(name in configured for name in names) or not config.service.snapshots.is_dir():
        return config
    from differ.store import Store

    return with_stored(config, Store(config.service.snapshots).latest_records(skip=configured))


def _store_config(snapshots: Path) -> Config:
    from differ.store import Store

    if not snapshots.is_dir():
        raise ConfigError(f"{snapshots}: no such folder, and no config.toml here; pass a snapshots folder")
    return store_config(snapshots, Store(snapshots).latest_records())


def _ask(err: TextIO) -> Callable[[], bool] | None:
    """On a terminal, a question whether to edit again a file that did not read (yes unless told no)."""
    if not (sys.stdin.isatty() and err.isatty()):
        return None

    def again() -> bool:
        print("edit it again? [Y/n] ", end="", file=err, flush=True)
        try:
            return not sys.stdin.readline().strip().lower().startswith("n")
        except (EOFError, KeyboardInterrupt):
            return False

    return again


def main(
    argv: Sequence[str] | None = None,
    *,
    out: TextIO | None = None,
    err: TextIO | None = None,
    env: dict[str, str] | None = None,
    app_factory: Callable[[Config], App] | None = None,
) -> int:
    """Run the command line; returns the exit code (tests call this directly)."""
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.version:
        print(version_line(), file=out)
        return ExitCode.OK
    if not args.command:
        parser.print_help(out)
        return ExitCode.USAGE
    if said := versions_given(args):
        print(f"error: {said}", file=err)
        return ExitCode.USAGE
    import differ.blame
    import differ.commands
    import differ.history
    import differ.overview
    import differ.records  # noqa: F401
    from differ.configure import config_check

    try:
        if args.command == "add":
            from differ.configure import add

            return add(args, args.config or DEFAULT_CONFIG, out, env, snapshots=args.snapshots)
        if args.command == "import":
            from differ.configure import import_pages

            return import_pages(args, args.config or DEFAULT_CONFIG, out, env)
        if args.command in ("pause", "resume"):
            from differ.configure import pause

            return pause(args, args.config or DEFAULT_CONFIG, out, env)
        if args.command == "set":
            from differ.configure import set_options

            return set_options(args, args.config or DEFAULT_CONFIG, out, env)
        if args.command == "remove":
            from differ.configure import remove

            return remove(args, args.config or DEFAULT_CONFIG, out, env)
        if args.command == "notify" and args.notify_command == "add":
            from differ.configure import notify_add

            return notify_add(args, args.config or DEFAULT_CONFIG, out, env)
        if args.command == "notify" and args.notify_command == "set":
            from differ.configure import notify_set

            return notify_set(args, args.config or DEFAULT_CONFIG, out, env)
        if args.command == "notify" and args.notify_command == "remove":
            from differ.configure import notify_remove

            return notify_remove(args, args.config or DEFAULT_CONFIG, out, env)
        if args.command == "config":
            if args.config_command == "edit":
                from differ.configure import config_edit

                return config_edit(args.file or args.config or DEFAULT_CONFIG, out, err, env, _ask(err))
            if args.config_command != "check":
                raise UsageError("usage: differ config check [FILE] | differ config edit [FILE]")
            return config_check(
                args.file or args.config or DEFAULT_CONFIG, out, env, trust_unset=args.trust_unset
            )
        if args.command == "verify" and args.git:
            from differ.records import verify_export

            return verify_export(Path(args.git), args.branch, out)
        if args.command == "demo":
            from differ.demo import run_demo

            return run_demo(out, keep=args.keep)
        config = _load(args, env)
        app = app_factory(config) if app_factory else App.from_config(config, out=out, err=err)
        app.out, app.err = out, err
        app.reload = lambda: _load(args, env)
        app.debug = args.debug
        app.env = env
        try:
            return COMMANDS[args.command](app, args)
        finally:
            app.close()
    except DifferError as exc:
        if args.debug:
            raise
        print(f"error: {opt.one_line(str(exc))}", file=err)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=err)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return ExitCode.OK
    except Exception as exc:
        if args.debug:
            raise
        if isinstance(exc, OSError) and (said := refused(exc)):  # the system refused a file: say which
            print(f"error: {said}", file=err)
        else:
            print(
                f"error: internal error: {type(exc).__name__}: {exc} (run with --debug for details)", file=err
            )
        return ExitCode.FAILURE
