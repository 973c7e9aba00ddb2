"""`differ notify add`, `differ notify set`, `differ notify remove` and `differ config edit`'s check: [[notify]]
tables put in, changed and taken out, each checked as the configuration's notifiers are, a `${NAME}` set only
where differ runs taken on trust."""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from differ import tomltext
from differ.config import ENV_REFERENCE, Config, parse_config
from differ.edit.naming import unique
from differ.edit.text import (
    Set,
    Table,
    cut_tables,
    edit_table,
    existing_config,
    existing_text,
    open_config,
    parsed_text,
    read_toml,
    reads_back,
    retried,
    with_edits,
)
from differ.errors import ConfigError, UsageError


@dataclass(frozen=True)
class Notifier:
    """A [[notify]] table to add: its kind and options, and the pages (by URL) it alerts for, every one when
    None."""

    kind: str
    settings: Mapping[str, Any]
    pages: tuple[str, ...] | None = None
    note: str = ""  # what the user still has to do (set an environment variable, say)


@dataclass(frozen=True)
class AddedNotifier:
    """A [[notify]] table written: its name and kind, the documents it alerts for, and the note for the user."""

    name: str
    kind: str
    documents: tuple[str, ...] | None  # None: every document
    note: str = ""
    plain: str = ""  # a note when it posts over plain http across a network (`plain_http`)


def notifier_tables(
    text: str, path: Path, env: Mapping[str, str], notifiers: Sequence[Notifier], documents: Mapping[str, str]
) -> tuple[list[AddedNotifier], list[str], bool]:
    """The [[notify]] tables for `notifiers`, each checked as the configuration's are, and whether one holds a
    secret as it is (not as `${NAME}`); `documents` gives the document of each page's URL."""
    from differ.config import check_notifier

    existing = tomllib.loads(text.removeprefix("\ufeff")).get("notify", [])
    names = {str(n.get("name")) for n in existing if isinstance(n, dict)}
    have = {_identity(str(n.get("kind")), n) for n in existing if isinstance(n, dict)}
    added, tables, secret = [], [], False
    for n in notifiers:
        if _identity(n.kind, n.settings) in have:
            continue
        have.add(_identity(n.kind, n.settings))
        docs = (
            None if n.pages is None else tuple(dict.fromkeys(documents[u] for u in n.pages if u in documents))
        )
        if docs == ():
            continue  # for pages none of which is watched
        name = unique(n.kind, names)
        names.add(name)
        table = {"name": name, "kind": n.kind, **n.settings, **({"documents": list(docs)} if docs else {})}
        checked = check_notifier(
            table, f"notify ({name})", set(documents.values()), path, stand_ins(table, env)
        )
        secret = secret or bool(literal_secrets(table, checked.secrets))
        plain = plain_http(str(checked.options.get("url") or ""))
        added.append(AddedNotifier(name, n.kind, docs, n.note, plain))
        tables.append("[[notify]]\n" + tomltext.lines(table))
    return added, tables, secret


def literal_secrets(table: Mapping[str, Any], secrets: Iterable[str]) -> list[str]:
    """The options of a notifier table that hold a secret as it is, not as `${NAME}`, in the table's order."""
    return [n for n, v in table.items() if n in set(secrets) and isinstance(v, str) and "${" not in v]


def _identity(kind: str, settings: Mapping[str, Any]) -> tuple[str, str]:
    """What makes two notifiers the same destination: a webhook's URL (and the channel, room or topic, for a
    server's address), a chat and its topic, or a relay and its recipients."""
    place = settings.get("channel") or settings.get("room") or settings.get("topic")
    if settings.get("url") and place:
        return kind, f"{settings['url']} #{place}"
    if settings.get("chat"):
        return kind, f"{settings.get('api', '')} {settings['chat']}:{settings.get('thread', 0)}"
    return kind, str(
        settings.get("url") or (settings.get("host"), sorted(map(str, settings.get("to") or [])))
    )


def stand_ins(table: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, str]:
    """`env`, with a stand-in for each `${NAME}` the table takes from an environment that lacks it: a table
    written for the user to complete (a password to set) is checked for everything else."""
    names = set(ENV_REFERENCE.findall(json.dumps(table)))
    return {**{name: "stand-in" for name in names}, **env}


def add_notifier(
    path: Path,
    kind: str,
    settings: Mapping[str, Any],
    *,
    name: str | None = None,
    documents: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> AddedNotifier:
    """Add one [[notify]] table after every other table: for `documents`, or every document when none is
    named; named `name`, or after its kind. Checked as the configuration's notifiers are, with the values
    differ will run with (a `${NAME}` the environment lacks is refused), and refused when the file has its name
    or its destination already."""
    return retried(lambda: _add_notifier(path, kind, settings, name, documents, env))


def _add_notifier(
    path: Path,
    kind: str,
    settings: Mapping[str, Any],
    name: str | None,
    documents: Sequence[str],
    env: Mapping[str, str] | None,
) -> AddedNotifier:
    from differ.config import check_notifier
    from differ.notify import NOTIFIERS

    env = os.environ if env is None else env
    if kind not in NOTIFIERS:
        raise UsageError(f'expected a notifier kind, one of {", ".join(sorted(NOTIFIERS))}, found "{kind}"')
    text, config, read_as = open_config(path, env)
    for doc in documents:
        config.document(doc)  # an unknown one is refused, the configured ones named
    existing = [
        n for n in tomllib.loads(text.removeprefix("\ufeff")).get("notify", []) if isinstance(n, dict)
    ]
    names = {str(n.get("name")) for n in existing}
    if name is not None and name in names:
        raise UsageError(f'{path.name} has a notifier named "{name}" already; choose another --name')
    same = next((n for n in existing if _identity(str(n.get("kind")), n) == _identity(kind, settings)), None)
    if same is not None:
        raise UsageError(f'{path.name} sends to this destination already, as notifier "{same.get("name")}"')
    name = name or unique(kind, names)
    table = {"name": name, "kind": kind, **settings, **({"documents": list(documents)} if documents else {})}
    _set_here(table, env)
    notifier = check_notifier(table, f"notify ({name})", {d.id for d in config.documents}, path, env)
    new_text = text.rstrip("\n") + ("\n\n" if text.strip() else "") + "[[notify]]\n" + tomltext.lines(table)
    try:
        parse_config(new_text, path, env, notifiers=False)  # the others may take variables set elsewhere
        tables = tomllib.loads(new_text.removeprefix("\ufeff")).get("notify", [])
    except (ConfigError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{exc} (nothing was written)")
    if not tables or tables[-1] != table:
        raise ConfigError(f"{path.name}: the new notifier did not land where expected; add it by hand")
    written = literal_secrets(settings, notifier.secrets)
    tomltext.write(path, new_text, read_as=read_as, private=bool(written))
    plain = plain_http(str(notifier.options.get("url") or ""))
    return AddedNotifier(name, kind, tuple(documents) or None, _secret_note(path, written), plain)


def plain_http(url: str) -> str:
    """What to know when a notifier posts over plain http to a host that is not plainly this machine or one
    of a private network (an IP literal of one, `localhost`, a name without a dot such as a compose service):
    its messages, and a webhook URL that is itself the secret, cross the network unencrypted ("" otherwise)."""
    import ipaddress
    from urllib.parse import urlsplit

    from differ.fetch.netguard import classify

    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme != "http":
        return ""
    try:
        if classify(ipaddress.ip_address(host)) is not None:  # loopback, private, link-local, …: not public
            return ""
    except ValueError:  # a name
        if "." not in host or host.endswith(".localhost"):
            return ""
    return (
        f"it posts to {host} over plain http: its messages, and a webhook URL that is itself the secret, "
        "cross the network unencrypted; give it the https:// address"
    )


def _secret_note(path: Path, written: Sequence[str]) -> str:
    """What to do about a notifier's secrets written into the file as they are ("" when none is)."""
    if not written:
        return ""
    mode = path.stat().st_mode
    shared = f", and others can read it (mode {mode & 0o777:o}: chmod 600 {path})" if mode & 0o077 else ""
    return (
        f"{path.name} now holds its {' and '.join(written)}{shared}: keep the file private, or write it as "
        '"${NAME}" and set NAME in the environment differ runs in'
    )


def remove_notifier(path: Path, name: str, env: Mapping[str, str] | None = None) -> tuple[str, Path]:
    """Take the [[notify]] table named `name` out of the configuration at `path`, with the comments just above
    it; everything else stays as written. Returns its kind, and the store's folder the file names."""
    return retried(lambda: _remove_notifier(path, name, env))


def _remove_notifier(path: Path, name: str, env: Mapping[str, str] | None) -> tuple[str, Path]:
    env = os.environ if env is None else env
    text = existing_text(path)
    snapshots = parse_config(text, path, env, notifiers=False).service.snapshots  # a broken file is reported
    tables = read_toml(text).get("notify", [])
    rows = text.splitlines(keepends=True)
    headers = tomltext.headers(rows)
    index, start = _notifier_at(tables, headers, name, path)
    end = next((i for i, _, table in headers if i > start and not table.startswith("notify.")), len(rows))
    new_text = cut_tables(rows, start, end)
    try:
        parse_config(new_text, path, env, notifiers=False)
        left = tomllib.loads(new_text.removeprefix("\ufeff")).get("notify", [])
    except (ConfigError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{exc} (nothing was written)")
    if left != tables[:index] + tables[index + 1 :]:
        raise ConfigError(f"{path.name}: {name} could not be taken out cleanly; remove it by hand")
    tomltext.write(path, new_text, read_as=text)
    return str(tables[index].get("kind")), snapshots


@dataclass(frozen=True)
class NotifierSet:
    """What `set_notifier` changed (secrets shown redacted), and a note when a secret is now written as it is."""

    done: list[Set]
    note: str = ""
    plain: str = ""  # a note when its new url is plain http across a network (`plain_http`)


def set_notifier(
    path: Path,
    name: str,
    settings: Mapping[str, Any],
    unset: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> NotifierSet:
    """Write `settings` into the [[notify]] table named `name`, and take the options `unset` names out, in one
    write that changes nothing else. Checked as `differ notify add` checks a table: a `${NAME}` a new value
    takes must be set here; those the file had may be set only where differ runs."""
    return retried(lambda: _set_notifier(path, name, settings, unset, env))


def _set_notifier(
    path: Path, name: str, settings: Mapping[str, Any], unset: Sequence[str], env: Mapping[str, str] | None
) -> NotifierSet:
    """`set_notifier`, from the file as it is now."""
    from differ.config import redact
    from differ.notify import NOTIFIERS

    env = os.environ if env is None else env
    text, _, read_as = existing_config(path, env, "differ notify add KIND makes one")
    written, expected, rows, headers = parsed_text(text)
    index, start = _notifier_at(written.get("notify", []), headers, name, path)
    _set_here(settings, env)
    end = next((i for i, _, _ in headers if i > start), len(rows))
    table = Table(name, start, end, partial(_notify_table, index), path.name)
    edits: list[tuple[int, int, str]] = []
    done = edit_table(table, {**settings, **{n: None for n in unset}}, rows, written, expected, edits)
    if not done:
        return NotifierSet(done)
    new_text = with_edits(rows, edits)
    # The other notifiers may take variables set only where differ runs: they are not read here.
    config = reads_back(new_text, path, env, expected)
    try:
        _check_notifier(table.find(expected), index, config, path, env)
    except ConfigError as exc:
        raise ConfigError(f"{exc} (nothing was written)")
    kind = NOTIFIERS[str(table.find(expected)["kind"])]
    secrets = {n for n, spec in kind.options.items() if spec.secret}
    tomltext.write(path, new_text, read_as=read_as)

    def shown(value: Any) -> Any:
        return redact(value) if isinstance(value, str) and "${" not in value else value

    done = [
        replace(d, before=shown(d.before), after=shown(d.after)) if d.name in secrets else d for d in done
    ]
    url = settings.get("url")
    plain = plain_http(url) if isinstance(url, str) else ""
    return NotifierSet(done, _secret_note(path, literal_secrets(settings, secrets)), plain)


def _check_notifier(
    table: dict[str, Any], index: int, config: Config, path: Path, env: Mapping[str, str]
) -> list[str]:
    """A [[notify]] table as edited, checked as the configuration's are. A `${NAME}` not set here (set only where
    differ runs) is taken on trust: the options that take one are checked with a stand-in and an error about
    them passed over; every other option, the documents named and the kind's own checks are checked. Returns
    the names taken on trust."""
    from differ.config import check_notifier, notifier_options
    from differ.notify import NOTIFIERS
    from differ.options import Invalid

    key = f"notify[{index}]"
    documents = {d.id for d in config.documents}
    untold = _untold(table, env)
    if not untold:
        check_notifier(table, key, documents, path, env)
        return []
    kind = NOTIFIERS.get(str(table.get("kind")))
    if kind is None:
        raise ConfigError(
            f"{path.name}: {key}.kind: expected one of {', '.join(sorted(NOTIFIERS))}, found {table.get('kind')!r}"
        )
    schema = {**notifier_options(), **kind.options}
    trusted = {name for name, value in table.items() if _untold(value, env)}
    for name, value in table.items():  # each on its own first: an error about a trusted one stops the rest
        if name not in schema:
            raise ConfigError(f"{path.name}: {key}.{name}: kind {json.dumps(table['kind'])} takes no {name}")
        if name not in trusted:
            try:
                schema[name].validate(value)
            except Invalid as exc:
                raise ConfigError(f"{path.name}: {key}.{name}: {exc}")
    named = table.get("documents", [])
    unknown = next((d for d in named if d not in documents), None) if isinstance(named, list) else None
    if unknown is not None:
        raise ConfigError(
            f'{path.name}: {key}.documents: no document "{unknown}"; configured documents: '
            f"{', '.join(sorted(documents)) or 'none'}"
        )
    try:  # the whole table, the kind's own checks with it, a stand-in for each value not set here
        check_notifier(table, key, documents, path, {**env, **dict.fromkeys(untold, STAND_IN)})
    except ConfigError as exc:
        about = str(exc).removeprefix(f"{path.name}: {key}").lstrip(".").split(":", 1)[0]
        if about not in trusted:
            raise
    return untold


STAND_IN = "https://stand-in.invalid/"  # a `${NAME}` outside the notifiers not set here, to check the rest by


def check_edited(text: str, path: Path, env: Mapping[str, str]) -> tuple[Config, list[str]]:
    """A configuration edited by hand (`differ config edit`), checked as it will run, and what was taken on
    trust: a notifier's `${NAME}` set only where differ runs (its options that take none are checked)."""
    data = read_toml(text)
    rest = {key: value for key, value in data.items() if key != "notify"}
    untold = _untold(rest, env)
    config = parse_config(text, path, {**env, **dict.fromkeys(untold, STAND_IN)}, notifiers=False)
    tables = data.get("notify", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        parse_config(text, path, env)  # says what is wrong with them
    names: set[str] = set()
    trusted = [f"the sources or the service take {', '.join(untold)}, not set here"] if untold else []
    for index, table in enumerate(tables):
        untold = _check_notifier(table, index, config, path, env)
        if str(table.get("name")) in names:
            raise ConfigError(
                f'{path.name}: notify[{index}].name: duplicate notifier name "{table.get("name")}"'
            )
        names.add(str(table.get("name")))
        if untold:
            trusted.append(f"notifier {table.get('name')} takes {', '.join(untold)}, not set here")
    return config, trusted


def _notifier_at(
    tables: list[Any], headers: list[tuple[int, str, str]], name: str, path: Path
) -> tuple[int, int]:
    """Where the [[notify]] table named `name` is: its place among the notifiers, and its header's row."""
    names = [str(t.get("name")) if isinstance(t, dict) else "" for t in tables]
    if name not in names:
        raise UsageError(f'no notifier "{name}"; configured notifiers: {", ".join(names) or "none"}')
    starts = [i for i, brackets, table in headers if brackets == "[[" and table == "notify"]
    if len(starts) != len(tables):
        raise ConfigError(
            f"{path.name}: its notifiers are not all written as [[notify]] tables; edit it by hand"
        )
    index = names.index(name)
    return index, starts[index]


def _untold(value: Any, env: Mapping[str, str]) -> list[str]:
    """The `${NAME}`s a value (a table, a list, a string) takes that `env` does not set, sorted."""
    return sorted(set(ENV_REFERENCE.findall(json.dumps(value, default=str))) - set(env))


def _set_here(values: Mapping[str, Any], env: Mapping[str, str]) -> None:
    """A notifier's new values are checked with what differ will run with: each `${NAME}` they take must be set."""
    unset = _untold(dict(values), env)
    if unset:
        raise UsageError(
            f"{', '.join(unset)} {'is' if len(unset) == 1 else 'are'} not set here: the notifier is checked with "
            f"the values differ will run with before it is written; set {'it' if len(unset) == 1 else 'them'} "
            "and run this again"
        )


def _notify_table(index: int, data: dict[str, Any]) -> dict[str, Any]:
    """The `index`-th [[notify]] table in the configuration's parsed TOML."""
    table: dict[str, Any] = data["notify"][index]
    return table
