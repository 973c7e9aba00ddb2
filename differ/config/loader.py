"""Read `config.toml`: every mistake becomes one line naming the file, the key path and what was expected."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from differ import __version__
from differ import options as opt
from differ.config.model import (
    CHANGE_KINDS,
    DEFAULT_EVENTS,
    ENV_REFERENCE,
    EVENTS,
    MIRROR_ONLY,
    SERVICE_OPTIONS,
    SOURCE_OPTIONS,
    Config,
    DocumentConfig,
    NotifierConfig,
    ServiceConfig,
    SourceConfig,
)
from differ.errors import ConfigError
from differ.files import TooLarge, read_capped
from differ.options import Invalid, Option, found, meant, not_one_of

# An id is used as a folder name in the store: letters, digits, '-' and '_' only, so it can never escape it.
CONFIG_BYTES = 10_000_000  # a configuration of thousands of pages is a few MB
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


ENV_UNSET_SAYS = "environment variable {} is not set"
ENV_UNSET = re.compile(ENV_UNSET_SAYS.format(r"[A-Za-z_][A-Za-z0-9_]*") + "$")  # the error, as said


class _Loader:
    """Walks the TOML document, keeping the file name for messages."""

    def __init__(self, path: Path, env: Mapping[str, str]):
        self.path = path
        self.env = env

    def fail(self, key: str, message: str) -> ConfigError:
        """The one line that says what is wrong where (a key or value with a line break written out)."""
        return ConfigError(opt.one_line(f"{self.path.name}: {key}: {message}"))

    def expand(self, value: Any, key: str) -> tuple[Any, bool]:
        """Replace `${NAME}` from the environment; says whether anything came from it."""
        if isinstance(value, str):
            used = False

            def sub(m: re.Match[str]) -> str:
                nonlocal used
                used = True
                if m.group(1) not in self.env:
                    raise self.fail(key, ENV_UNSET_SAYS.format(m.group(1)))
                return self.env[m.group(1)]

            return ENV_REFERENCE.sub(sub, value), used
        if isinstance(value, list):
            items = [self.expand(v, f"{key}[{i}]") for i, v in enumerate(value)]
            return [v for v, _ in items], any(u for _, u in items)
        if isinstance(value, dict):
            expanded = {k: self.expand(v, f"{key}.{k}") for k, v in value.items()}
            return {k: v for k, (v, _) in expanded.items()}, any(u for _, u in expanded.values())
        return value, False

    def table(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a table, found {found(value)}")
        return value

    def fields(self, raw: Any, key: str, schema: Mapping[str, Option]) -> tuple[dict[str, Any], set[str]]:
        """Validate a table against a schema: unknown keys, missing keys, bad values."""
        table = self.table(raw, key)
        for name in table:
            if name not in schema:
                allowed = ", ".join(sorted(schema))
                raise self.fail(f"{key}.{name}", f"unknown key{meant(name, schema)}; allowed keys: {allowed}")
        values: dict[str, Any] = {}
        from_env: set[str] = set()
        for name, spec in schema.items():
            path = f"{key}.{name}"
            if name not in table:
                if spec.required:
                    raise self.fail(key, f'missing key "{name}" ({spec.help})')
                values[name] = spec.default
                continue
            value, used = self.expand(table[name], path)
            if used:
                from_env.add(name)
            try:
                values[name] = spec.validate(value)
            except Invalid as exc:
                raise self.fail(path, str(exc))
        return values, from_env

    def identifier(self, value: str, key: str) -> str:
        if not _ID.match(value):
            raise self.fail(
                key,
                f"{found(value)} is not a valid id; use 1 to 64 letters, digits, '-' or '_', "
                "starting with a letter or digit",
            )
        return value

    def url(self, value: str, key: str) -> str:
        if opt.web_address(value) is None:
            raise self.fail(key, opt.not_a_url(value))
        return value

    def program(
        self, command: tuple[str, ...], table: Mapping[str, Any], key: str
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """A source's `command`, its program found beside the config file when named by a relative path
        (`scripts/render`), as `snapshots` is, and the same as written (`${NAME}` not filled in: what its
        versions record); refused with `headers`, which a program would never send."""
        if not command:
            return command, command
        if "headers" in table:
            raise self.fail(
                f"{key}.headers",
                "a source fetched by its command sends no headers of differ's; give them to the command",
            )
        written = opt.command(table["command"])

        def found_here(argv: tuple[str, ...]) -> tuple[str, ...]:
            program = argv[0]
            if "/" in program and not Path(program).is_absolute():
                program = str((self.path.parent / program).absolute())
            return (program, *argv[1:])

        return found_here(command), found_here(written)

    def service(self, raw: Any) -> ServiceConfig:
        values, _ = self.fields(raw if raw is not None else {}, "service", SERVICE_OPTIONS)
        snapshots = Path(values.pop("snapshots"))
        if not snapshots.is_absolute():
            snapshots = self.path.parent / snapshots
        values["user_agent"] = values["user_agent"].replace("{version}", __version__)
        if values["metrics"] and not Path(values["metrics"]).is_absolute():
            values["metrics"] = str(self.path.parent / values["metrics"])
        return ServiceConfig(snapshots=snapshots, **values)

    def source(self, raw: Any, key: str, document: str, role: str, title: str) -> SourceConfig:
        from differ.normalize.kinds import SOURCE_KINDS

        table = self.table(raw, key)
        if role == "canonical":  # one canonical a document: its id can go without saying
            table = {"id": "canonical", **table}
        kind_name = table.get("kind", "html")
        if not isinstance(kind_name, str) or kind_name not in SOURCE_KINDS:
            raise self.fail(f"{key}.kind", not_one_of(kind_name, sorted(SOURCE_KINDS)))
        kind = SOURCE_KINDS[kind_name]
        values, _ = self.fields(table, key, {**SOURCE_OPTIONS, **kind.options})
        common = {name: values.pop(name) for name in SOURCE_OPTIONS}
        command, written = self.program(common["command"], table, key)
        source = SourceConfig(
            document=document,
            id=self.identifier(common["id"], f"{key}.id"),
            url=self.url(common["url"], f"{key}.url"),
            kind=kind_name,
            role=role,
            interval=common["interval"],
            settled_after=common["settled_after"],
            settled_interval=common["settled_interval"],
            headers=common["headers"],
            robots=common["robots"] if "robots" in table else kind.robots,
            allow_private=common["allow_private"],
            command=command,
            command_written=written,
            languages=common["languages"],
            ignore=common["ignore"],
            stale_after=common["stale_after"],
            accept=common["accept"],
            paused=common["paused"],
            translation=common["translation"],
            options=values,
            title=title,
        )
        for name, why in MIRROR_ONLY.items():
            if role == "canonical" and name in table:
                raise self.fail(f"{key}.{name}", f"{why}; set it on the mirrors")
        try:
            kind.check(source)
        except Invalid as exc:
            raise self.fail(f"{key}.{exc.key}" if exc.key else key, str(exc))
        return source

    def document(self, raw: Any, key: str) -> DocumentConfig:
        table = self.table(raw, key)
        allowed = {"id", "title", "canonical", "mirrors"}
        for name in table:
            if name not in allowed:
                raise self.fail(
                    f"{key}.{name}",
                    f"unknown key{meant(name, allowed)}; allowed keys: {', '.join(sorted(allowed))}",
                )
        if "id" not in table:
            raise self.fail(key, 'missing key "id" (the document\'s id)')
        if "canonical" not in table:
            raise self.fail(key, 'missing table "canonical" (the page the mirrors copy)')
        doc_id = self.identifier(opt_str(self, table["id"], f"{key}.id"), f"{key}.id")
        titled = "title" in table
        title = opt_str(self, table.get("title", doc_id), f"{key}.title")
        named = title if titled else ""
        canonical = self.source(table["canonical"], f"{key}.canonical", doc_id, "canonical", named)
        mirrors_raw = table.get("mirrors", [])
        if not isinstance(mirrors_raw, list):
            raise self.fail(
                f"{key}.mirrors",
                f"expected a list of tables ([[documents.mirrors]]), found {found(mirrors_raw)}",
            )
        mirrors = tuple(
            self.source(m, f"{key}.mirrors[{i}]", doc_id, "mirror", named) for i, m in enumerate(mirrors_raw)
        )
        seen: set[str] = set()
        for i, s in enumerate((canonical, *mirrors)):
            where = f"{key}.canonical.id" if i == 0 else f"{key}.mirrors[{i - 1}].id"
            if s.id in seen:
                raise self.fail(where, f'duplicate source id "{s.id}" in document "{doc_id}"')
            seen.add(s.id)
        return DocumentConfig(doc_id, title, canonical, mirrors, titled)

    def notifier(self, raw: Any, key: str, doc_ids: set[str]) -> NotifierConfig:
        from differ.notify import NOTIFIERS

        table = self.table(raw, key)
        kind_name = table.get("kind")
        if not isinstance(kind_name, str) or kind_name not in NOTIFIERS:
            raise self.fail(f"{key}.kind", not_one_of(kind_name, sorted(NOTIFIERS)))
        common = notifier_options()
        kind = NOTIFIERS[kind_name]
        values, from_env = self.fields(table, key, {**common, **kind.options})
        name = self.identifier(values.pop("name"), f"{key}.name")
        for doc in values["documents"]:
            if doc not in doc_ids:
                raise self.fail(
                    f"{key}.documents",
                    f'no document "{doc}"; configured documents: {", ".join(sorted(doc_ids)) or "none"}',
                )
        secrets = {n for n, spec in kind.options.items() if spec.secret} | (from_env & set(kind.options))
        own = {n: values.pop(n) for n in list(values) if n in kind.options}
        events = values["events"] if "events" in table else kind.default_events
        for event in events:  # a destination that acts on some events alone (an archive captures pages)
            if event not in kind.takes:
                raise self.fail(
                    f"{key}.events",
                    f"expected events a {kind_name} destination acts on ({', '.join(kind.takes)}), "
                    f"found {found(event)}",
                )
        notifier = NotifierConfig(
            name=name,
            kind=values["kind"],
            options=own,
            documents=values["documents"],
            sources=values["sources"],
            events=events,
            sections=values["sections"],
            words=values["words"],
            changes=values["changes"],
            digest=values["digest"],
            fail_after=values["fail_after"],
            retry_for=values["retry_for"],
            timeout=values["timeout"],
            secrets=frozenset(secrets),
        )
        try:
            kind.check(notifier)
        except Invalid as exc:
            raise self.fail(f"{key}.{exc.key}" if exc.key else key, str(exc))
        return notifier


def opt_str(loader: _Loader, value: Any, key: str) -> str:
    try:
        return opt.nonempty_string(value)
    except Invalid as exc:
        raise loader.fail(key, str(exc))


def parse_config(
    text: str, path: Path, env: Mapping[str, str] | None = None, *, notifiers: bool = True
) -> Config:
    """Validate configuration text; `path` is used for messages and relative folders. Without `notifiers`,
    the [[notify]] tables are left unread (and their environment variables unneeded)."""
    loader = _Loader(path, os.environ if env is None else env)
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))  # the byte-order mark some editors write
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path.name}: not valid TOML: {exc}")
    allowed = {"service", "documents", "notify"}
    for name in data:
        if name not in allowed:
            raise loader.fail(
                name, f"unknown key{meant(name, allowed)}; allowed keys: {', '.join(sorted(allowed))}"
            )
    service = loader.service(data.get("service"))
    docs_raw = data.get("documents", [])
    if not isinstance(docs_raw, list):
        raise loader.fail("documents", f"expected a list of tables ([[documents]]), found {found(docs_raw)}")
    documents = tuple(loader.document(d, f"documents[{i}]") for i, d in enumerate(docs_raw))
    seen: set[str] = set()
    for i, doc in enumerate(documents):
        if doc.id in seen:
            raise loader.fail(f"documents[{i}].id", f'duplicate document id "{doc.id}"')
        seen.add(doc.id)
    notify_raw = data.get("notify", []) if notifiers else []
    if not isinstance(notify_raw, list):
        raise loader.fail("notify", f"expected a list of tables ([[notify]]), found {found(notify_raw)}")
    read = tuple(loader.notifier(n, f"notify[{i}]", seen) for i, n in enumerate(notify_raw))
    names: set[str] = set()
    for i, n in enumerate(read):
        if n.name in names:
            raise loader.fail(f"notify[{i}].name", f'duplicate notifier name "{n.name}"')
        names.add(n.name)
    return Config(path=path, service=service, documents=documents, notifiers=read)


def check_notifier(
    table: Mapping[str, Any], key: str, documents: Iterable[str], path: Path, env: Mapping[str, str]
) -> NotifierConfig:
    """One [[notify]] table checked as a configuration's are, for a table `differ import` writes."""
    return _Loader(path, env).notifier(dict(table), key, set(documents))


def adhoc_source(table: Mapping[str, Any]) -> SourceConfig:
    """A source described on the command line (`differ compare --set NAME=VALUE`), checked as a config's
    source is checked, so that every option means the same and is refused with the same message."""
    return _CommandLine(Path("--set"), os.environ).source(dict(table), "--set", "compare", "canonical", "")


class _CommandLine(_Loader):
    """Messages name the option as it was typed: `--set exclude: expected a list of strings, found 3`."""

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(opt.one_line(f"{key.replace('--set.', '--set ', 1)}: {message}"))


def load_config(path: Path, env: Mapping[str, str] | None = None) -> Config:
    """Read and validate a configuration file."""
    return parse_config(config_text(path), path, env)


def config_text(path: Path) -> str:
    """A configuration file's text, or the one line that says why it cannot be read."""
    try:
        return read_capped(path, CONFIG_BYTES).decode("utf-8")
    except TooLarge as exc:
        raise ConfigError(f"{path}: {exc}; expected a config.toml file (they are a few KB)")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file; start one with: differ add URL (or pass --config FILE)")
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder; expected a config.toml file")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path.name}: not UTF-8 text (byte {exc.start}); save the file as UTF-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}")


def notifier_options() -> dict[str, Option]:
    """The options every `[[notify]]` takes, whatever its kind."""
    from differ.notify import NOTIFIERS

    return {
        "name": Option(opt.string, required=True, help="the notifier's name"),
        "kind": Option(opt.string, required=True, help=", ".join(sorted(NOTIFIERS))),
        "documents": Option(opt.string_list, (), "only these documents"),
        "sources": Option(opt.string_list, (), "only these sources (DOCUMENT/SOURCE)"),
        "events": Option(opt.choice_list(*EVENTS), DEFAULT_EVENTS, "which events"),
        "sections": Option(opt.heading_list, (), "only edits under these headings (* any characters)"),
        "words": Option(opt.word_list, (), "only edits whose text has one of these words (* any characters)"),
        "changes": Option(
            opt.choice_list(*CHANGE_KINDS), (), "only edits of these kinds (removed, modified, …)"
        ),
        "digest": Option(opt.duration(1), None, "collect events and send one message per period"),
        "fail_after": Option(opt.integer(1), 3, "consecutive failures before fetch_failing"),
        "retry_for": Option(opt.duration(1), 86400.0, "how long to retry a delivery before giving up"),
        "timeout": Option(opt.duration(0.1), 15.0, "how long to wait for the receiver's answer"),
    }
