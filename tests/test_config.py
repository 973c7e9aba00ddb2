"""Configuration: every mistake is one exact line naming the file, the key path and what is allowed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from differ.config import load_config, parse_config
from differ.errors import ConfigError
from differ.options import Invalid, format_duration, meant, parse_duration, parse_size

ROOT = Path(__file__).resolve().parent.parent

BASE = """
[[documents]]
id = "doc"
[documents.canonical]
id = "canonical"
url = "https://example.org/post/"
"""


def error(text: str, env: dict[str, str] | None = None) -> str:
    with pytest.raises(ConfigError) as info:
        parse_config(text, Path("config.toml"), env or {})
    return str(info.value)


def test_shipped_config_is_valid() -> None:
    config = load_config(ROOT / "config.toml", {})
    assert [s.key for s in config.sources()] == [
        "pytorch-2-13/canonical",
        "pytorch-2-13/wpnews",
        "pytorch-2-13/pytorch-kr",
    ]
    assert config.source("pytorch-2-13/canonical").options["selector"] == "article .entry-content"
    assert config.source("pytorch-2-13/pytorch-kr").languages == ("en",)
    assert config.service.interval == 1800.0
    assert config.service.max_bytes == 10_000_000


def test_a_proxy_may_take_its_url_from_the_environment() -> None:
    text = '[service]\nproxy = "${HTTPS_PROXY}"\n'
    config = parse_config(text, Path("config.toml"), {"HTTPS_PROXY": "http://ops:pw@proxy.corp:3128"})
    assert config.service.proxy == "http://ops:pw@proxy.corp:3128"
    assert parse_config("", Path("config.toml"), {}).service.proxy == ""


def test_defaults_when_service_is_absent() -> None:
    config = parse_config(BASE, Path("/tmp/x/config.toml"), {})
    assert config.service.snapshots == Path("/tmp/x/snapshots")
    assert config.service.per_host_delay == 5.0
    assert config.sources()[0].kind == "html"
    assert config.sources()[0].robots is True
    assert config.sources()[0].allow_private is False


NOTIFY = '[[notify]]\nname = "team"\nkind = "slack"\nurl = "https://h.example/"\n'
HOOK = '[[notify]]\nname = "hooks"\nkind = "webhook"\nurl = "{url}"\nsecret = "{secret}"\n'
ONE = '[documents.canonical]\nid = "c"\nurl = "https://e.org/"\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[service]\njitter = 2\n", "config.toml: service.jitter: expected a number from 0 to 1, found 2"),
        (
            '[service]\nuser_agent = ""\n',
            'config.toml: service.user_agent: expected a non-empty string, found ""',
        ),
        (
            "[service]\nworkers = 100\n",
            "config.toml: service.workers: expected a whole number of at least 1 and at most 64, found 100",
        ),
        ("[service]\nretries = true\n", "config.toml: service.retries: expected a whole number, found true"),
        ("service = 3\n", "config.toml: service: expected a table, found 3"),
        (
            '[[documents]]\nid = "d"\ncolour = 1\n' + ONE,
            "config.toml: documents[0].colour: unknown key; allowed keys: canonical, id, mirrors, title",
        ),
        (
            '[[documents]]\nid = "d"\n' + ONE + '[[documents.mirror]]\nurl = "https://example.org/copy"\n',
            'config.toml: documents[0].mirror: unknown key (did you mean "mirrors"?); allowed keys: canonical, id, '
            "mirrors, title",
        ),
        (
            '[[documents]]\nid = "d"\ntitle = ""\n' + ONE,
            'config.toml: documents[0].title: expected a non-empty string, found ""',
        ),
        (
            '[[documents]]\nid = "d"\nmirrors = 1\n' + ONE,
            "config.toml: documents[0].mirrors: expected a list of tables ([[documents.mirrors]]), found 1",
        ),
        (
            '[[documents]]\nid = "d"\ncanonical = 1\n',
            "config.toml: documents[0].canonical: expected a table, found 1",
        ),
        (
            BASE + 'headers = "x"\n',
            'config.toml: documents[0].canonical.headers: expected a table of strings, found "x"',
        ),
        (
            BASE + 'stale_after = "1d"\n',
            "config.toml: documents[0].canonical.stale_after: only a mirror can be stale; set it on the mirrors",
        ),
        (
            BASE + '[[documents.mirrors]]\nid = "m"\nurl = "https://m.example/"\nstale_after = "soon"\n',
            'config.toml: documents[0].mirrors[0].stale_after: expected a duration such as "30m", "1h30m" or "5s", '
            'found "soon"',
        ),
        (
            BASE + 'accept = ["extra: *"]\n',
            "config.toml: documents[0].canonical.accept: only a mirror's audit has findings; set it on the "
            "mirrors",
        ),
        (
            BASE + '[[documents.mirrors]]\nid = "m"\nurl = "https://m.example/"\naccept = ["  "]\n',
            "config.toml: documents[0].mirrors[0].accept: expected findings as differ audit prints them, or "
            'patterns such as "extra: *Featured*", found a blank one',
        ),
        (
            BASE + "translation = true\n",
            "config.toml: documents[0].canonical.translation: only a mirror can be a translation; set it on the "
            "mirrors",
        ),
        (
            BASE + '[[documents.mirrors]]\nid = "m"\nurl = "https://m.example/"\ntranslation = "de"\n',
            'config.toml: documents[0].mirrors[0].translation: expected true or false, found "de"',
        ),
        (
            BASE + 'interval = "1ms"\n',
            'config.toml: documents[0].canonical.interval: expected at least 1s, found "1ms"',
        ),
        (
            BASE.replace('url = "https://example.org/post/"\n', ""),
            'config.toml: documents[0].canonical: missing key "url" (the page to watch)',
        ),
        (
            BASE + '[[documents.mirrors]]\nid = "m"\nurl = "https://m.example/"\nkind = "wordpress"\n',
            "config.toml: documents[0].mirrors[0].url: cannot derive the post's slug from url; set slug",
        ),
        (
            BASE
            + '[[documents.mirrors]]\nid = "m"\nurl = "https://m.example/x"\nkind = "json"\nfield = "b"\nformat = "pdf"\n',
            'config.toml: documents[0].mirrors[0].format: expected one of markdown, html, text, found "pdf"',
        ),
        (
            BASE.replace(
                'url = "https://example.org/post/"\n',
                'url = "https://example.org/post/"\nignore = ["(\\\\d+"]\n',
            ),
            'config.toml: documents[0].canonical.ignore: "(\\\\d+" is not a regular expression: missing ), '
            "unterminated subpattern at position 0; expected Python's syntax",
        ),
        ("notify = 1\n", "config.toml: notify: expected a list of tables ([[notify]]), found 1"),
        (BASE + NOTIFY + NOTIFY, 'config.toml: notify[1].name: duplicate notifier name "team"'),
        (
            BASE + HOOK.format(url="https://h.example/", secret="whsec_***"),
            'config.toml: notify[0].secret: the part after "whsec_" is not valid base64',
        ),
        (
            BASE + HOOK.format(url="https://h.example/", secret="whsec_YWJj"),
            "config.toml: notify[0].secret: too short; use 24 to 64 random bytes",
        ),
        (
            BASE + HOOK.format(url="ftp://h.example/", secret="whsec_YWJj"),
            "config.toml: notify[0].url: expected an http:// or https:// URL",
        ),
        (
            BASE + NOTIFY.replace("https://h.example/", "hooks.slack.com/x"),
            "config.toml: notify[0].url: expected the webhook's https:// URL (or a bot's token and channel)",
        ),
        (  # a port that is not one: each delivery would fail inside the HTTP library
            BASE + HOOK.format(url="https://h.example:99999/", secret="whsec_YWJj"),
            "config.toml: notify[0].url: expected an http:// or https:// URL",
        ),
        (
            BASE + NOTIFY + 'base_url = "https://[reports/"\n',
            'config.toml: notify[0].base_url: expected an http:// or https:// URL, found "https://[reports/"',
        ),
        (
            '[service]\nbase_url = "reports.example.org"\n' + BASE,
            'config.toml: service.base_url: expected an http:// or https:// URL, found "reports.example.org" (did you mean "https://reports.example.org"?)',
        ),
        (
            '[service]\nsnapshots = "snap\\u0000shots"\n' + BASE,
            'config.toml: service.snapshots: expected a file or folder name, found "snap\\0shots" (it holds a '
            "NUL character)",
        ),
        (
            BASE
            + '[[documents.mirrors]]\nid = "m"\nurl = "https://m.example/p/"\nkind = "wordpress"\napi = "wp-json"\n',
            'config.toml: documents[0].mirrors[0].api: expected an http:// or https:// URL, found "wp-json"',
        ),
        (
            BASE
            + '[[notify]]\nname = "tg"\nkind = "telegram"\nbot_token = "1:a"\nchat = "-1001"\napi = "https://[bot/"\n',
            "config.toml: notify[0].api: expected the Bot API server's https:// address",
        ),
        (
            BASE + NOTIFY + 'digest = "0s"\n',
            'config.toml: notify[0].digest: expected at least 1s, found "0s"',
        ),
        (
            BASE + NOTIFY + "fail_after = 0\n",
            "config.toml: notify[0].fail_after: expected a whole number of at least 1, found 0",
        ),
    ],
)
def test_more_config_errors_are_one_exact_line(text: str, message: str) -> None:
    assert error(text) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[service\n",
            "config.toml: not valid TOML: Expected ']' at the end of a table declaration (at line 1, column 9)",
        ),
        ("colour = 1\n", "config.toml: colour: unknown key; allowed keys: documents, notify, service"),
        (
            '[[document]]\nid = "x"\n',
            'config.toml: document: unknown key (did you mean "documents"?); allowed keys: documents, notify, service',
        ),
        (
            '[service]\ninterval = "soon"\n',
            'config.toml: service.interval: expected a duration such as "30m", "1h30m" or "5s", found "soon"',
        ),
        ('[service]\ninterval = "0s"\n', 'config.toml: service.interval: expected at least 1s, found "0s"'),
        (  # would overflow the scheduler's clock
            '[service]\ninterval = "99999999999999d"\n',
            'config.toml: service.interval: expected a duration of at most 366d, found "99999999999999d"',
        ),
        (
            "[service]\ntimeout = 1e308\n",
            "config.toml: service.timeout: expected a duration of at most 366d, found 1e+308",
        ),
        (
            "[service]\nper_host_delay = nan\n",
            'config.toml: service.per_host_delay: expected a duration such as "30m", "1h30m" or "5s", found nan',
        ),
        (
            '[service]\nheartbeat = "hc-ping.com/abc"\n',
            'config.toml: service.heartbeat: expected an http:// or https:// URL, found "hc-ping.com/abc" (did you mean "https://hc-ping.com/abc"?)',
        ),
        (
            '[service]\nmax_bytes = "lots"\n',
            'config.toml: service.max_bytes: expected a size such as "10MB", found "lots"',
        ),
        (
            '[service]\nproxy = "socks5://127.0.0.1:1080"\n',
            "config.toml: service.proxy: expected a proxy URL such as http://proxy.example:3128, found "
            '"socks5://127.0.0.1:1080"',
        ),
        (
            '[service]\nproxy = "http://proxy.example:port"\n',
            "config.toml: service.proxy: expected a proxy URL such as http://proxy.example:3128, found "
            '"http://proxy.example:port"',
        ),
        (
            "[service]\nper_host_connections = 0\n",
            "config.toml: service.per_host_connections: expected a whole number of at least 1 and at most 16, found 0",
        ),
        ("documents = 3\n", "config.toml: documents: expected a list of tables ([[documents]]), found 3"),
        ('[[documents]]\ntitle = "x"\n', 'config.toml: documents[0]: missing key "id" (the document\'s id)'),
        (
            '[[documents]]\nid = "d"\n',
            'config.toml: documents[0]: missing table "canonical" (the page the mirrors copy)',
        ),
        (
            BASE + 'kind = "htm"\n',
            "config.toml: documents[0].canonical.kind: expected one of discourse, feed, github, gitlab, html, json, markdown, text, wordpress, "
            'found "htm" (did you mean "html"?)',
        ),
        (
            BASE + 'uri = "https://example.org/post"\n',
            'config.toml: documents[0].canonical.uri: unknown key (did you mean "url"?); allowed keys: accept, allow_private, command, exclude, headers, id, '
            "ignore, interval, kind, languages, metadata, paused, robots, selector, settled_after, settled_interval, stale_after, translation, url",
        ),
        (
            BASE + '[[notify]]\nname = "team"\nkind = "Slack"\n',
            "config.toml: notify[0].kind: expected one of discord, email, gitea, github, gitlab, googlechat, matrix, mattermost, ntfy, slack, "
            'teams, telegram, wayback, webhook, zulip, found "Slack" (did you mean "slack"?)',
        ),
        (
            BASE + 'interval = "5min30"\n',
            'config.toml: documents[0].canonical.interval: expected a duration such as "30m", "1h30m" or "5s", found "5min30"',
        ),
        (
            BASE + 'selctor = "main"\n',
            'config.toml: documents[0].canonical.selctor: unknown key (did you mean "selector"?); allowed keys: accept, allow_private, command, exclude, headers, id, '
            "ignore, interval, kind, languages, metadata, paused, robots, selector, settled_after, settled_interval, stale_after, translation, url",
        ),
        (
            BASE + 'languages = ["klingon"]\n',
            "config.toml: documents[0].canonical.languages: expected items from en, de, es, fr, it, nl, pt, sv, pl, tr, id, vi, ko, ja, zh, "
            'ru, uk, el, ar, he, found "klingon"',
        ),
        (
            BASE + 'robots = "no"\n',
            'config.toml: documents[0].canonical.robots: expected true or false, found "no"',
        ),
        (
            BASE + 'allow_private = ["localhost"]\n',
            "config.toml: documents[0].canonical.allow_private: expected true, false or a list of addresses such as "
            '"127.0.0.1/32", found "localhost"',
        ),
        (
            BASE.replace("https://example.org/post/", "ftp://example.org/"),
            'config.toml: documents[0].canonical.url: expected an http:// or https:// URL, found "ftp://example.org/"',
        ),
        (
            BASE + '[[documents.mirrors]]\nid = "m"\nurl = "https://m.example/"\nkind = "json"\n',
            'config.toml: documents[0].mirrors[0]: missing key "field" (path of the body, e.g. body_md or data.content)',
        ),
        (
            BASE + '[[documents.mirrors]]\nid = "canonical"\nurl = "https://m.example/"\n',
            'config.toml: documents[0].mirrors[0].id: duplicate source id "canonical" in document "doc"',
        ),
        (
            BASE + '[[documents.mirrors]]\nid = "m"\nurl = "https://m.example/x"\nkind = "discourse"\n',
            "config.toml: documents[0].mirrors[0].url: not a Discourse topic URL; expected https://HOST/t/SLUG/ID",
        ),
        (BASE + BASE, 'config.toml: documents[1].id: duplicate document id "doc"'),
        (
            BASE + 'selector = "article >> p"\n',
            'config.toml: documents[0].canonical.selector: expected a CSS selector, found "article >> p" '
            "(The combinator '>' at position 9, must have a selector before it)",
        ),
        (
            BASE + 'exclude = ["nav", "div["]\n',
            'config.toml: documents[0].canonical.exclude: expected a CSS selector, found "div[" '
            "(Malformed attribute selector at position 3)",
        ),
        (
            BASE + 'exclude = ["nav", "//div[@class=\'share\'"]\n',
            "config.toml: documents[0].canonical.exclude: expected an XPath expression, found "
            "\"//div[@class='share'\" (Invalid predicate)",
        ),
        (  # lxml refuses a control character with a ValueError, not a syntax error: still one line
            BASE + 'exclude = ["(\\u001b"]\n',
            "config.toml: documents[0].canonical.exclude: expected an XPath expression, found "
            '"(\\u001b" (it holds the control character U+001B, which no XPath expression can)',
        ),
        (  # a list where a name belongs: refused as any other wrong kind, not an internal error
            BASE + '[[notify]]\nname = "team"\nkind = ["slack"]\n',
            "config.toml: notify[0].kind: expected one of discord, email, gitea, github, gitlab, googlechat, matrix, mattermost, ntfy, slack, teams, telegram, wayback, webhook, zulip, found a list",
        ),
        (
            BASE.replace('id = "canonical"', "kind = {a = 1}"),
            "config.toml: documents[0].canonical.kind: expected one of discourse, feed, github, gitlab, html, json, markdown, text, wordpress, "
            "found a table",
        ),
        (
            BASE.replace("https://example.org/post/", "http://[::1"),
            'config.toml: documents[0].canonical.url: expected an http:// or https:// URL, found "http://[::1"',
        ),
        (
            BASE.replace("https://example.org/post/", "https://example.org:99999/"),
            'config.toml: documents[0].canonical.url: expected an http:// or https:// URL, found "https://example.org:99999/"',
        ),
        (
            BASE + '[[notify]]\nname = "team"\nkind = "pager"\n',
            'config.toml: notify[0].kind: expected one of discord, email, gitea, github, gitlab, googlechat, matrix, mattermost, ntfy, slack, teams, telegram, wayback, webhook, zulip, found "pager"',
        ),
        (
            BASE + '[[notify]]\nname = "team"\nkind = "slack"\nurl = "${SLACK_WEBHOOK_URL}"\n',
            "config.toml: notify[0].url: environment variable SLACK_WEBHOOK_URL is not set",
        ),
        (
            BASE
            + '[[notify]]\nname = "hooks"\nkind = "webhook"\nurl = "https://h.example/"\nsecret = "hunter2"\n',
            'config.toml: notify[0].secret: expected "whsec_" followed by base64 (24 to 64 random bytes)',
        ),
        (
            BASE
            + '[[notify]]\nname = "team"\nkind = "slack"\nurl = "https://h.example/"\nevents = ["changd"]\n',
            'config.toml: notify[0].events: expected items from changed, mirror_drift, fetch_failing, recovered, delivery_failed, metadata, translation_found, moved, first_version, found "changd" (did you mean "changed"?)',
        ),
        (
            BASE
            + '[[notify]]\nname = "team"\nkind = "slack"\nurl = "https://h.example/"\ndocuments = ["nope"]\n',
            'config.toml: notify[0].documents: no document "nope"; configured documents: doc',
        ),
    ],
)
def test_config_errors_are_one_exact_line(text: str, message: str) -> None:
    assert error(text) == message


@pytest.mark.parametrize("bad", ["../etc", "/abs", "a/b", "a\x00b", "x" * 65, ".hidden", "sp ace", "é"])
def test_hostile_ids_are_rejected(bad: str) -> None:
    text = BASE.replace('id = "doc"', f"id = {json.dumps(bad)}")
    message = error(text)
    assert message.startswith("config.toml: documents[0].id: ")
    assert (
        "is not a valid id; use 1 to 64 letters, digits, '-' or '_', starting with a letter or digit"
        in message
    )


def test_hostile_source_id_is_rejected() -> None:
    message = error(BASE.replace('id = "canonical"', 'id = "../../x"'))
    assert message == (
        'config.toml: documents[0].canonical.id: "../../x" is not a valid id; use 1 to 64 letters, '
        "digits, '-' or '_', starting with a letter or digit"
    )


def test_environment_substitution_and_secrets() -> None:
    text = BASE + '[[notify]]\nname = "team"\nkind = "slack"\nurl = "${HOOK}"\n'
    config = parse_config(text, Path("config.toml"), {"HOOK": "https://hooks.slack.com/services/T/B/secret"})
    notifier = config.notifiers[0]
    assert notifier.options["url"] == "https://hooks.slack.com/services/T/B/secret"
    assert "url" in notifier.secrets
    assert "secret" not in repr(notifier)


def test_a_token_in_a_sources_headers_or_the_proxy_is_never_printed() -> None:
    text = '[service]\nproxy = "http://u:${PASSWORD}@proxy.example.org:3128"\n' + BASE.replace(
        'id = "canonical"', 'id = "canonical"\nheaders = { Authorization = "Bearer ${TOKEN}" }'
    )
    config = parse_config(text, Path("config.toml"), {"TOKEN": "ghp_s3cr3t", "PASSWORD": "hunter2"})
    source = config.sources()[0]
    assert source.headers == {"Authorization": "Bearer ghp_s3cr3t"}
    assert config.service.proxy == "http://u:hunter2@proxy.example.org:3128"
    assert "ghp_s3cr3t" not in repr(config) and "hunter2" not in repr(config)


def test_missing_file_and_bad_encoding(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError,
        match=re.escape(f"{tmp_path / 'nope.toml'}: no such file; start one with: differ add URL"),
    ):
        load_config(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'[service]\ncontact = "\xff"\n')
    with pytest.raises(ConfigError, match=r"^bad.toml: not UTF-8 text \(byte 21\); save the file as UTF-8$"):
        load_config(bad)
    # a device that never ends (or the wrong file) is read as far as any configuration is, and refused
    with pytest.raises(ConfigError) as info:
        load_config(Path("/dev/zero"))
    assert (
        str(info.value)
        == "/dev/zero: more than 10,000,000 bytes; expected a config.toml file (they are a few KB)"
    )


def test_units() -> None:
    assert parse_duration("30m") == 1800
    assert parse_duration("250ms") == 0.25
    assert parse_duration(5) == 5
    assert parse_duration("2d") == 172800
    assert parse_duration("1w") == 604800
    # as people write them: spaced, in words, in parts
    assert parse_duration("5 min") == parse_duration("5 minutes") == parse_duration("5m") == 300
    assert parse_duration("1h30m") == parse_duration("1h 30m") == parse_duration("1 hour 30 minutes") == 5400
    assert parse_duration("2 Days") == parse_duration("48 hrs") == 172800
    assert parse_duration("1.5h") == 5400
    for typo in ("5 mn", "5min30", "m", "", "1h x", "h1", "30 mins ago", "-5m"):
        with pytest.raises(Invalid, match='expected a duration such as "30m", "1h30m" or "5s"'):
            parse_duration(typo)
    with pytest.raises(Invalid, match="at most 366d"):  # a setting's: longer is a typo
        parse_duration("400d")
    assert parse_duration("400d", longest=None) == 400 * 86400  # how far back a command looks
    assert parse_size("10MB") == 10_000_000
    assert parse_size("512KiB") == 524288
    assert parse_size(1000) == 1000


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(1800, "30m"), (7200, "2h"), (172800, "2d"), (90, "90s"), (5400, "90m"), (0.25, "0.25s")],
)
def test_durations_are_shown_as_they_are_written(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text
    assert parse_duration(text) == seconds


def test_the_canonical_id_goes_without_saying() -> None:
    text = '[[documents]]\nid = "doc"\n[documents.canonical]\nurl = "https://example.org/post"\n'
    config = parse_config(text, Path("config.toml"), {})
    assert [s.key for s in config.select(["doc"])] == ["doc/canonical"]
    mirror = text + '[[documents.mirrors]]\nurl = "https://m.example/"\n'
    with pytest.raises(ConfigError) as caught:
        parse_config(mirror, Path("config.toml"), {})
    assert str(caught.value) == (
        'config.toml: documents[0].mirrors[0]: missing key "id" (the source\'s id within its document)'
    )


def test_select_names_documents_and_sources() -> None:
    text = BASE + '[[documents.mirrors]]\nid = "m"\nurl = "https://m.example/"\n'
    config = parse_config(text, Path("config.toml"), {})
    assert [s.key for s in config.select(["doc"])] == ["doc/canonical", "doc/m"]
    assert [s.key for s in config.select(["doc/m"])] == ["doc/m"]
    with pytest.raises(Exception, match='no source "doc/x"; configured sources: doc/canonical, doc/m'):
        config.select(["doc/x"])


def test_a_store_alone_names_its_documents_and_canonicals() -> None:
    """Records written before roles were recorded fall back to the source named "canonical", else the first."""
    from differ.config import store_config

    records = [
        {"source": "a/canonical", "url": "https://a.org/", "document_title": "A post", "role": "canonical"},
        {"source": "a/copy", "url": "https://b.org/", "document_title": "A post", "role": "mirror"},
        {"source": "b/x", "url": "https://x.org/"},
        {"source": "b/canonical", "url": "https://c.org/"},
        {"source": "c/one", "url": "https://one.org/", "kind": "json"},
        {"source": "c/two", "url": "https://two.org/"},
    ]
    config = store_config(Path("/store"), records)
    assert config.service.snapshots == Path("/store")
    shape = [(d.id, d.title, d.canonical.key, [m.key for m in d.mirrors]) for d in config.documents]
    assert shape == [
        ("a", "A post", "a/canonical", ["a/copy"]),
        ("b", "b", "b/canonical", ["b/x"]),
        ("c", "c", "c/one", ["c/two"]),
    ]
    assert [(s.role, s.kind, s.url) for s in config.document("c").sources] == [
        ("canonical", "json", "https://one.org/"),
        ("mirror", "html", "https://two.org/"),
    ]


def test_css_selectors_are_checked_when_the_configuration_is_read() -> None:
    """Every selector soupsieve accepts passes; a simple one is matched by the HTML reader without it."""
    from differ.normalize.kinds import css_problem

    for selector in (
        "article",
        ".entry-content",
        "div#main.post",
        "article .entry-content",
        "main > div:nth-of-type(2)",
    ):
        assert css_problem(selector) is None
    assert (css_problem("p:unknown") or "").startswith("':unknown' was detected as a pseudo-class")


def test_xpath_selectors_are_told_from_css() -> None:
    """A selector that starts as only XPath can (or says `xpath:`) is XPath; the rest is CSS."""
    from differ.normalize import xpath
    from differ.normalize.selectors import is_xpath

    for selector in ("//article", "(//h2)[1]", "./div", "xpath:div[@id='post']", "xpath1://main"):
        assert is_xpath(selector)
        assert xpath.problem(selector) is None
    for selector in ("article", ".entry-content", "div > p", "[role=main]"):
        assert not is_xpath(selector)


def test_a_notifiers_words_match_a_changes_block_before_or_after(tmp_path: Path) -> None:
    from tests.helpers import notifier_config, notifier_error

    config = notifier_config(
        tmp_path,
        "slack",
        'url = "https://hooks.slack.com/services/T/B/X"\nwords = ["CVE-*", "breaking change"]\n',
    )
    assert config.words == ("CVE-*", "breaking change")

    def diff(before: str | None, after: str | None) -> dict[str, object]:
        return {"changes": [{"kind": "modified", "section": ["Post"], "before": before, "after": after}]}

    assert config.wants_changes(diff("Fixes cve-2026-1.", "Fixes CVE-2026-1 and CVE-2026-2."))  # case aside
    assert config.wants_changes(diff("A breaking\nchange.", None))  # a removed block; a phrase across lines
    assert not config.wants_changes(diff("Unbreaking changes.", "Fixes."))  # whole words only
    assert not config.wants_changes({"changes": []})
    both = notifier_config(
        tmp_path,
        "slack",
        'url = "https://hooks.slack.com/services/T/B/X"\nwords = ["CVE-*"]\nsections = ["Security"]\n',
    )
    assert not both.wants_changes(diff("Fixes.", "Fixes CVE-2026-1."))  # under "Post", not "Security"
    assert (
        notifier_error(tmp_path, "slack", 'url = "https://hooks.slack.com/services/T/B/X"\nwords = [""]\n')
        == 'notify[0].words: expected words or patterns such as "CVE-*", found a blank one'
    )
    assert (
        notifier_error(
            tmp_path, "slack", 'url = "https://hooks.slack.com/services/T/B/X"\nwords = ["CVE", 3]\n'
        )
        == "notify[0].words: expected a list of strings, found 3 as item 2"
    )  # the item that is wrong, not "found a list"


def test_a_notifiers_changes_name_the_kinds_of_change_it_hears_of(tmp_path: Path) -> None:
    from tests.helpers import notifier_config, notifier_error

    hook = 'url = "https://hooks.slack.com/services/T/B/X"\n'
    config = notifier_config(tmp_path, "slack", hook + 'changes = ["removed", "modified"]\n')
    assert config.changes == ("removed", "modified")

    def diff(*kinds: str) -> dict[str, object]:
        return {
            "changes": [{"kind": kind, "section": ["Post"], "before": "A.", "after": "B."} for kind in kinds]
        }

    assert config.wants_changes(diff("added", "modified"))
    assert not config.wants_changes(diff("added", "moved", "link", "invisible"))
    both = notifier_config(tmp_path, "slack", hook + 'changes = ["removed"]\nwords = ["A"]\n')
    assert both.wants_changes(diff("removed")) and not both.wants_changes(diff("modified"))
    assert notifier_config(tmp_path, "slack", hook).wants_changes(diff("invisible"))  # every kind by default
    assert notifier_error(tmp_path, "slack", hook + 'changes = ["deleted"]\n') == (
        "notify[0].changes: expected items from added, removed, modified, moved, link, invisible, found "
        '"deleted"'
    )


def test_a_notifiers_sections_match_any_heading_above_a_change(tmp_path: Path) -> None:
    from tests.helpers import notifier_config

    config = notifier_config(
        tmp_path, "slack", 'url = "https://hooks.slack.com/services/T/B/X"\nsections = ["security*", "API"]\n'
    )
    assert config.sections == ("security*", "API")

    def diff(*sections: list[str]) -> dict[str, object]:
        return {"changes": [{"kind": "modified", "section": list(s)} for s in sections]}

    assert config.wants_changes(diff(["Rust 1.97.0", "Security advisories", "CVE-2026-1"]))
    assert config.wants_changes(diff(["Post"], ["Post", "api"]))  # case aside, any change
    assert not config.wants_changes(diff(["Post", "Stabilized APIs"], []))  # a whole heading, not a part
    assert not config.wants_changes({"changes": []})  # metadata only: no edit in those sections
    assert notifier_config(
        tmp_path, "slack", 'url = "https://hooks.slack.com/services/T/B/X"\n'
    ).wants_changes({})
    from tests.helpers import notifier_error

    assert (
        notifier_error(
            tmp_path,
            "slack",
            'url = "https://hooks.slack.com/services/T/B/X"\nsections = ["Security", " "]\n',
        )
        == 'notify[0].sections: expected headings or patterns such as "Security*", found a blank one'
    )


def toml(value: object) -> str:
    """A value written as TOML (inline tables and arrays), for configurations made up by hypothesis."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "nan" if value != value else repr(value).replace("inf", "inf")
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{" + ", ".join(f"{json.dumps(k)} = {toml(v)}" for k, v in value.items()) + "}"


SCALAR = st.one_of(
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        ["", "x", "30m", "1e400s", "99999999999d", "http://[::1", "https://", "//div[", "article", "${NOPE}"]
    ),
    st.text(max_size=12),
)
VALUE = st.recursive(
    SCALAR,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


def _options(kinds: dict[str, type]) -> st.SearchStrategy[tuple[object, dict[str, object]]]:
    names = sorted(
        {o for k in kinds.values() for o in k.options} | {"interval", "url", "id", "events", "sections"}
    )
    return st.tuples(
        st.one_of(st.sampled_from(sorted(kinds)), SCALAR, st.lists(SCALAR, max_size=2)),
        st.dictionaries(st.sampled_from(names), VALUE, max_size=4),
    )


def _kinds() -> tuple[dict[str, type], dict[str, type]]:
    from differ.normalize.kinds import SOURCE_KINDS
    from differ.notify import NOTIFIERS

    return dict(SOURCE_KINDS), dict(NOTIFIERS)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@example(("\n", {}), ("discord", {}), {})  # a kind with a line break: the message wrote it as one
@example(("html", {"selector": "a\u2028b\x1b"}), ("slack", {"url": "\r"}), {"proxy": "\t"})
@given(
    _options(_kinds()[0]),
    _options(_kinds()[1]),
    st.dictionaries(
        st.sampled_from(["interval", "timeout", "proxy", "heartbeat", "jitter", "workers"]), VALUE, max_size=2
    ),
)
def test_any_configuration_reads_or_is_refused_in_one_line(
    source: tuple[object, dict[str, object]],
    notifier: tuple[object, dict[str, object]],
    service: dict[str, object],
) -> None:
    """Whatever the values, kinds and options, a configuration is read or refused with a ConfigError (the one
    line the CLI prints): never another exception, which would be an internal error."""
    lines = ["[service]", *(f"{k} = {toml(v)}" for k, v in service.items())]
    lines += ["[[documents]]", 'id = "doc"', "[documents.canonical]", f"kind = {toml(source[0])}"]
    lines += [
        f"{k} = {toml(v)}" for k, v in {"url": "https://example.org/p", **source[1]}.items() if k != "kind"
    ]
    lines += ["[[notify]]", 'name = "n"', f"kind = {toml(notifier[0])}"]
    lines += [f"{k} = {toml(v)}" for k, v in notifier[1].items() if k not in ("kind", "name")]
    try:
        parse_config("\n".join(lines) + "\n", Path("config.toml"), {})
    except ConfigError as exc:
        assert "\n" not in str(exc).strip()


def test_a_key_with_a_line_break_is_named_on_one_line() -> None:
    text = '[[documents]]\nid = "d"\n[documents.canonical]\nurl = "https://e.org/"\n"a\\nb\\u001b" = 1\n'
    with pytest.raises(ConfigError) as info:
        parse_config(text, Path("config.toml"), {})
    assert str(info.value).startswith(
        "config.toml: documents[0].canonical.a\\nb\\u001b: unknown key; allowed keys: "
    )


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("selecter", ' (did you mean "selector"?)'),  # mostly alike
        ("uri", ' (did you mean "url"?)'),  # one letter changed
        ("ulr", ' (did you mean "url"?)'),  # two swapped
        ("ur", ' (did you mean "url"?)'),  # one left out
        ("urls", ' (did you mean "url"?)'),  # one added
        ("URL", ' (did you mean "url"?)'),  # case
        ("sel", ' (did you mean "selector"?)'),  # the start of one alone
        ("ki", ""),  # too short a start to tell
        ("colour", ""),  # nothing like it
        ("", ""),
        (3, ""),
    ],
)
def test_a_mistyped_name_is_told_what_was_meant(name: object, said: str) -> None:
    assert meant(name, ["url", "selector", "kind", "id"]) == said


def test_a_countrys_code_among_languages_is_told_the_languages() -> None:
    from differ.config.model import SOURCE_OPTIONS

    check = SOURCE_OPTIONS["languages"].validate
    for country, language in (("kr", "ko"), ("jp", "ja"), ("GR", "el")):
        with pytest.raises(Invalid, match=f'found "{country}" \\(did you mean "{language}"\\?\\)$'):
            check([country])
    assert check(["uk"]) == ("uk",)  # Ukrainian, not the country


def test_a_mistyped_source_is_told_by_the_name_that_tells_it_apart() -> None:
    sources = ["doc/canonical", "doc/gone", "doc/m", "rust/ko"]
    assert meant("doc/canonicl", sources) == ' (did you mean "doc/canonical"?)'
    assert meant("doc/nope", sources) == ""  # "doc/" shared is no likeness
    assert meant("doc/x", sources) == ""  # a one-letter name is not one letter off another
    assert meant("rust/k", sources) == ' (did you mean "rust/ko"?)'
    assert meant("remov", ["added", "removed", "modified", "moved"]) == ' (did you mean "removed"?)'
    assert meant("mo", ["added", "removed", "modified", "moved"]) == ""  # the start of two
    assert meant("kr", ["en", "ko", "fr"]) == ""  # a two-letter code one letter off is another code
    assert meant("chnaged", ["changed", "metadata"]) == ' (did you mean "changed"?)'
