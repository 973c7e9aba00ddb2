"""`differ import`: urlwatch's and changedetection.io's watches as differ's documents, with what has no
counterpart named, one write or none, and a page imported this way checked for real."""

from __future__ import annotations

import io
import json
import re
import tomllib
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from differ.cli import main
from differ.config import load_config
from differ.errors import ConfigError, ExitCode, UsageError
from differ.migrate import Found, read
from tests.conftest import Server

URLS_YAML = """\
name: "PyTorch 2.13 blog"
url: "https://pytorch.org/blog/pytorch-2-13-release-blog/"
filter:
  - css:
      selector: article .entry-content
      exclude: .share-buttons
  - html2text
  - re.sub: '\\d+ min read'
---
url: "https://blog.rust-lang.org/2026/07/09/Rust-1.97.0/"
filter: css:main,html2text
headers:
  Accept-Language: en
---
name: "disk usage"
command: "df -h"
---
name: "app"
navigate: "https://example.org/app"
filter:
  - element-by-id: content
  - xpath: //div
  - grep: Release
---
url: "https://example.org/broken"
filter:
  - css: "a:contains(x"
"""


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out=out, err=err, env={})
    return code, out.getvalue(), err.getvalue()


def pages(found: list[Found]) -> list[tuple[str, dict[str, object], list[str]] | tuple[str, str]]:
    return [(f.page.url, dict(f.page.settings), f.notes) if f.page else (f.name, f.skipped) for f in found]


def test_urlwatch_jobs_become_pages_with_their_filters_as_settings(tmp_path: Path) -> None:
    (tmp_path / "urls.yaml").write_text(URLS_YAML)
    found = read(tmp_path / "urls.yaml")
    assert pages(found) == [
        (
            "https://pytorch.org/blog/pytorch-2-13-release-blog/",
            {
                "selector": "article .entry-content",
                "exclude": [".share-buttons"],
                "ignore": ["\\d+ min read"],
            },
            [],
        ),
        (
            "https://blog.rust-lang.org/2026/07/09/Rust-1.97.0/",
            {"headers": {"Accept-Language": "en"}, "selector": "main"},
            [],
        ),
        ("disk usage", "a shell command, not a page"),
        (
            "https://example.org/app",
            {"selector": "#content"},
            [
                "was loaded in a browser; differ reads the page as served, without running its scripts (to have a "
                'browser print it: command = ["chromium", "--headless", "--dump-dom", "{url}"])',
                "a second selector (//div) inside #content is left out",
                "its grep filter has no counterpart in differ; left out",
            ],
        ),
        (
            "https://example.org/broken",
            {},
            [
                'left out its selector: expected a CSS selector, found "a:contains(x" (Unclosed pseudo-class at position 12)'
            ],
        ),
    ]
    assert [f.page.title if f.page else None for f in found] == ["PyTorch 2.13 blog", None, None, "app", None]


def test_urlwatch_xpath_filters_become_xpath_selectors(tmp_path: Path) -> None:
    (tmp_path / "urls.yaml").write_text(
        """\
url: "https://example.org/news"
filter:
  - xpath:
      path: "div[@id='post']"
      exclude: "//aside"
---
url: "https://example.org/changelog"
filter: xpath://section[h2],html2text
---
url: "https://example.org/typo"
filter:
  - xpath: "//div[@id='post'"
"""
    )
    assert pages(read(tmp_path / "urls.yaml")) == [
        ("https://example.org/news", {"selector": "xpath:div[@id='post']", "exclude": ["//aside"]}, []),
        ("https://example.org/changelog", {"selector": "//section[h2]"}, []),
        (
            "https://example.org/typo",
            {},
            [
                "left out its selector: expected an XPath expression, found \"//div[@id='post'\" (Invalid predicate)"
            ],
        ),
    ]


WATCHES = {
    "aaaa": {
        "url": "https://pytorch.org/blog/pytorch-2-13-release-blog/",
        "title": "PyTorch 2.13",
        "include_filters": ["article .entry-content"],
        "subtractive_selectors": [".share", "//div[@id='ad']"],
        "ignore_text": ["Views:", "/\\d+ MIN READ/i"],
        "headers": {"Accept-Language": "en"},
        "time_between_check": {"weeks": None, "days": None, "hours": 6, "minutes": None, "seconds": None},
        "time_between_check_use_default": False,
        "processor": "text_json_diff",
        "fetch_backend": "system",
    },
    "bbbb": {"url": "https://shop.example/item", "processor": "restock_diff"},
    "cccc": {"url": "https://paused.example/", "paused": True},
    "dddd": {
        "url": "https://api.example.org/post.json",
        "include_filters": ["json:$.body_md"],
        "fetch_backend": "html_webdriver",
        "trigger_text": ["released", "/v\\d+/"],
        "time_between_check": {"hours": 6},  # the tool's default is used: no interval of its own
    },
}


def datastore(folder: Path) -> Path:
    folder.mkdir()
    (folder / "url-watches.json").write_text(json.dumps({"settings": {}, "watching": WATCHES}))
    (folder / "1111").mkdir()  # a newer release keeps each watch in a folder of its own
    (folder / "1111" / "watch.json").write_text(
        json.dumps(
            {"uuid": "1111", "url": "https://blog.rust-lang.org/releases/", "include_filters": ["//main"]}
        )
    )
    (folder / "1111" / "history.txt").write_text("not read")
    return folder


EXPECTED_WATCHES = [
    (
        "https://blog.rust-lang.org/releases/",
        {"selector": "//main"},
        [],
    ),
    (
        "https://pytorch.org/blog/pytorch-2-13-release-blog/",
        {
            "headers": {"Accept-Language": "en"},
            "selector": "article .entry-content",
            "exclude": [".share", "//div[@id='ad']"],
            "ignore": ["(?i)^.*Views:.*$", "(?i)^.*(?:\\d+ MIN READ).*$"],
            "interval": "6h",
        },
        [],
    ),
    ("https://shop.example/item", "a restock_diff watch (prices and stock), not a page's text"),
    ("https://paused.example/", {"paused": True}, []),  # comes paused, as it was
    (
        "https://api.example.org/post.json",
        {"field": "body_md"},
        [
            "was loaded in a browser; differ reads the page as served, without running its scripts (to have a "
            'browser print it: command = ["chromium", "--headless", "--dump-dom", "{url}"])',
            "was told only of changes with its trigger text; differ tells every change, and a [[notify]] with "
            'words = ["*released*"] hears of those that mention it alone',
            "its /regex/ trigger, extract or must-not-be-present text has no counterpart in differ; left out",
        ],
    ),
]


def test_changedetection_watches_from_a_datastore_folder_and_from_a_backup_zip(tmp_path: Path) -> None:
    folder = datastore(tmp_path / "datastore")
    assert pages(read(folder)) == EXPECTED_WATCHES
    with zipfile.ZipFile(tmp_path / "backup.zip", "w") as archive:
        for file in folder.rglob("*"):
            if file.is_file():
                archive.write(file, file.relative_to(folder))
    assert pages(read(tmp_path / "backup.zip")) == EXPECTED_WATCHES
    found = read(folder / "url-watches.json")
    assert [f.page.kind for f in found if f.page] == [None, None, "json"]


def test_ignored_text_removes_the_lines_changedetection_would_ignore() -> None:
    [*_, views, minutes] = EXPECTED_WATCHES[1][1]["ignore"]  # type: ignore[index]
    lines = ["Views: 1,024", "We are happy to announce 2.13.", "4 min read", "Review: 5 MIN READS"]
    kept = [line for line in lines if not any(re.search(p, line) for p in (views, minutes))]
    assert kept == ["We are happy to announce 2.13."]


def test_import_writes_every_page_once_and_names_what_it_left_out(tmp_path: Path) -> None:
    (tmp_path / "urls.yaml").write_text(URLS_YAML)
    config = tmp_path / "config.toml"
    code, out, err = run(
        "--config", str(config), "import", str(tmp_path / "urls.yaml"), "--set", "interval=2h"
    )
    assert (code, err) == (ExitCode.OK, "")
    assert out.splitlines()[0] == f"imported 4 pages from {tmp_path / 'urls.yaml'} into {config}"
    assert "  disk usage: a shell command, not a page" in out.splitlines()
    table = tomllib.loads(config.read_text())
    assert [(d["id"], d.get("title"), d["canonical"]["interval"]) for d in table["documents"]] == [
        ("pytorch-2-13-release-blog", "PyTorch 2.13 blog", "2h"),
        ("rust-1-97-0", None, "2h"),
        ("app", "app", "2h"),
        ("broken", None, "2h"),
    ]
    assert run("--config", str(config), "config", "check")[0] == ExitCode.OK
    before = config.read_text()
    code, out, err = run("--config", str(config), "import", str(tmp_path / "urls.yaml"))
    assert (code, config.read_text()) == (ExitCode.OK, before)
    assert out.splitlines()[:3] == [
        f"imported 0 pages from {tmp_path / 'urls.yaml'} into {config}",
        "already watched, left as they are: 4",
        "  https://pytorch.org/blog/pytorch-2-13-release-blog/ (pytorch-2-13-release-blog/canonical)",
    ]


def test_a_dry_run_prints_the_tables_and_writes_nothing(tmp_path: Path) -> None:
    folder = datastore(tmp_path / "datastore")
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "import", str(folder), "--dry-run")
    assert (code, err, config.exists()) == (ExitCode.OK, "", False)
    assert out.splitlines()[0] == f"would import 4 pages from {folder} into {config}"
    tables = out.split(f"# to be added to {config}:\n\n", 1)[1]
    assert [
        (d["canonical"]["url"], d["canonical"].get("paused")) for d in tomllib.loads(tables)["documents"]
    ] == [
        ("https://blog.rust-lang.org/releases/", None),
        ("https://pytorch.org/blog/pytorch-2-13-release-blog/", None),
        ("https://paused.example/", True),
        ("https://api.example.org/post.json", None),
    ]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("urls.yaml", "url: [unclosed\n", "urls.yaml: not a urlwatch job list: invalid YAML at line 2"),
        (
            "urls.yaml",
            "- just\n- a list\n",
            "urls.yaml: job 1: expected a mapping of job settings, found list",
        ),
        (
            "watches.json",
            "{",
            "watches.json: not valid JSON (Expecting property name enclosed in double quotes",
        ),
        ("watches.json", '{"settings": {}}', "watches.json: no changedetection.io watches found"),
        ("backup.zip", "not a zip", "backup.zip: cannot read the zip: File is not a zip file"),
        ("urls.opml", "", "urls.opml: cannot tell which tool wrote it; say --from urlwatch"),
    ],
)
def test_a_file_that_does_not_read_is_one_line_and_nothing_is_written(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    (tmp_path / name).write_text(content)
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "import", str(tmp_path / name))
    assert code == ExitCode.USAGE and out == "" and not config.exists()
    assert err.startswith(f"error: {tmp_path}/{message}") and err.count("\n") == 1


def test_a_setting_for_every_page_that_differ_refuses_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "urls.yaml").write_text(URLS_YAML)
    config = tmp_path / "config.toml"
    code, out, err = run(
        "--config", str(config), "import", str(tmp_path / "urls.yaml"), "--set", "interval=soon"
    )
    assert (code, out, config.exists()) == (ExitCode.USAGE, "", False)
    assert err.startswith("error: ") and "interval" in err and "(nothing was written)" in err


def test_read_refuses_an_unknown_tool_and_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="expected one of changedetection, list, urlwatch, found .huginn."):
        read(tmp_path / "x.yaml", "huginn")
    with pytest.raises(UsageError, match="no such file or folder"):
        read(tmp_path / "x.yaml")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no changedetection.io watches found"):
        read(tmp_path / "empty")


def test_an_imported_job_is_checked_as_urlwatch_filtered_it(tmp_path: Path, server: Server) -> None:
    server.page(
        "/post",
        "<html><body><nav>Home</nav><article><h1>Widget 3.0</h1><p>Out now. 4 min read</p>"
        "<div class='share-buttons'>Share</div></article><footer>(c)</footer></body></html>",
    )
    (tmp_path / "urls.yaml").write_text(
        f"name: Widget\nurl: {server.url('/post')}\nfilter:\n  - css:\n      selector: article\n"
        "      exclude: .share-buttons\n  - html2text\n  - re.sub: '\\d+ min read'\n"
    )
    config = tmp_path / "config.toml"
    config.write_text(f'[service]\nsnapshots = "{tmp_path / "snapshots"}"\nper_host_delay = "0s"\n')
    code, out, _ = run(
        "--config", str(config), "import", str(tmp_path / "urls.yaml"), "--set", "allow_private=true"
    )
    assert code == ExitCode.OK
    code, out, err = run("--config", str(config), "check")
    assert (code, out, err) == (ExitCode.OK, "post/canonical: new version 1 (first snapshot)\n", "")
    assert run("--config", str(config), "show", "post/canonical")[1] == "# Widget 3.0\n\nOut now.\n"


def test_one_page_watched_twice_is_imported_once(tmp_path: Path) -> None:
    (tmp_path / "urls.yaml").write_text(
        "name: all\nurl: https://example.org/post\n---\nname: intro\nurl: https://example.org/post\n"
        "filter:\n  - css: '#intro'\n---\nname: shared\nurl: http://www.example.org/post/?utm_source=x\n"
        "---\nname: other\nurl: https://example.org/post?page=2\n"
    )
    assert pages(read(tmp_path / "urls.yaml")) == [
        ("https://example.org/post", {}, []),
        ("intro", "the same page as all above, which is imported"),
        ("shared", "the same page as all above, which is imported"),  # however spelled
        ("https://example.org/post?page=2", {}, []),
    ]


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
KEYS = st.sampled_from(
    ["url", "name", "title", "filter", "headers", "navigate", "command", "kind", "method", "data", "include_filters",
     "subtractive_selectors", "ignore_text", "time_between_check", "time_between_check_use_default", "paused",
     "processor", "fetch_backend", "trigger_text", "report", "notification_urls", "slack", "webhook_url",
     "enabled"]
)  # fmt: skip
URLS = st.sampled_from(
    ["https://example.org/a", "https://example.org/b", "http://127.0.0.1/c", "ftp://x/", "", "slack://T1/B2/C3",
     "discord://1/x", "https://hooks.slack.com/services/T/B/C", "mailto://a@b"]
)  # fmt: skip
FILTERS = st.sampled_from(
    ["css:main", "article", "//div", "json:$.body", "/x+/", "a:contains(", "html2text", "[", "#id > p"]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    jobs=st.lists(
        st.dictionaries(KEYS, JSONISH | URLS | FILTERS | st.lists(FILTERS, max_size=3), max_size=6),
        max_size=5,
    ),
    as_json=st.booleans(),
)
def test_any_watch_list_imports_or_is_refused_in_one_line(
    tmp_path: Path, jobs: list[dict[str, object]], as_json: bool
) -> None:
    for file in tmp_path.iterdir():
        file.unlink()
    if as_json:
        source = tmp_path / "url-watches.json"
        source.write_text(json.dumps({"watching": {str(n): job for n, job in enumerate(jobs)}}))
    else:
        import yaml

        source = tmp_path / "urls.yaml"
        source.write_text(yaml.safe_dump_all(jobs))
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "import", str(source))
    if code == ExitCode.OK:
        assert err == "" and out.startswith("imported ")
        imported = int(out.split()[1])
        assert config.exists() == (imported > 0)
        if imported:
            assert run("--config", str(config), "config", "check")[0] == ExitCode.OK
    else:
        assert code == ExitCode.USAGE and out == "" and err.startswith("error: ") and err.count("\n") == 1
        assert not config.exists()


def test_a_list_of_urls_with_titles_and_comments(tmp_path: Path) -> None:
    (tmp_path / "posts.txt").write_text(
        "\ufeff# release posts\nhttps://example.org/a PyTorch 2.13 Release Blog\n\n  https://example.org/b\n"
        "example.org/c\n"
    )
    found = read(tmp_path / "posts.txt")
    assert [(f.page.url, f.page.title) if f.page else (f.name, f.skipped) for f in found] == [
        ("https://example.org/a", "PyTorch 2.13 Release Blog"),
        ("https://example.org/b", None),
        ("example.org/c", "not an http or https URL"),
    ]
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "import", str(tmp_path / "posts.txt"))
    assert (code, err) == (ExitCode.OK, "")
    assert out.splitlines() == [
        f"imported 2 pages from {tmp_path / 'posts.txt'} into {config}",
        "  a/canonical  https://example.org/a",
        "  b/canonical  https://example.org/b",
        "left out: 1",
        "  example.org/c: not an http or https URL",
        f"try them: differ --config {config} check",
    ]


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("posts.txt", "# nothing yet\n\n", "a list of pages (an http or https URL a line)"),
        ("urls.yaml", "", "urlwatch's jobs (urls.yaml: a job a YAML document, each with a url)"),
    ],
)
def test_a_file_with_no_page_in_it_is_refused(tmp_path: Path, name: str, text: str, expected: str) -> None:
    (tmp_path / name).write_text(text)
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "import", str(tmp_path / name))
    assert (code, out, err) == (
        ExitCode.USAGE,
        "",
        f"error: {tmp_path / name}: no page found in it; expected {expected}\n",
    )
    assert not config.exists()


def test_a_json_document_without_its_field_is_imported_as_text_with_a_note(tmp_path: Path) -> None:
    """The other tool watched an API's JSON, or a whole feed, as text; differ's `json` kind needs the body's field,
    so the page comes as `text` (what it was) with a note saying how to read one, and a whole feed as its list of
    posts (what such a watch is for), and the other pages come with them."""
    (tmp_path / "urls.yaml").write_text(
        "url: https://example.org/api/post.json\n---\nurl: https://example.org/a\n"
        "---\nurl: https://example.org/b.json\nfilter:\n  - jq: .data[0] | .body\n"
        "---\nurl: https://example.org/api/c\nfilter:\n  - jq: .data.content\n"
        "---\nurl: https://example.org/blog/feed/\n"
    )
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "import", str(tmp_path / "urls.yaml"))
    note = 'note: read as text; to read it as json, set kind = "json" and field (path of the body, e.g. body_md or data.content)'
    assert (code, err) == (ExitCode.OK, "")
    assert (
        out.splitlines()
        == [
            f"imported 5 pages from {tmp_path / 'urls.yaml'} into {config}",
            "  post/canonical  https://example.org/api/post.json",
            f"    {note}",
            "  a/canonical  https://example.org/a",
            "  b/canonical  https://example.org/b.json",
            "    note: its jq filter has no counterpart in differ; left out",
            f"    {note}",
            "  c/canonical  https://example.org/api/c",  # a jq query naming one field is the json kind's field
            "  example-org-posts/canonical  https://example.org/blog/feed/",  # a whole feed, as urlwatch watched it
            '    note: read as its list of posts (entry = "*"): a new post is a change; to watch one post\'s text, set '
            "entry to its URL",
            f"try them: differ --config {config} check",
        ]
    )
    loaded = load_config(config, {})
    assert [(s.key, s.kind, s.options.get("field")) for s in loaded.sources()] == [
        ("post/canonical", "text", None), ("a/canonical", "html", None), ("b/canonical", "text", None),
        ("c/canonical", "json", "data.content"), ("example-org-posts/canonical", "feed", None),
    ]  # fmt: skip
    assert loaded.sources()[-1].options["entry"] == "*"


def test_an_imported_link_is_watched_as_the_page_or_file_it_names(tmp_path: Path) -> None:
    """As `differ add` has it: a forge's page of a file is the file itself, a link as shared the page it names,
    each said in a note."""
    (tmp_path / "posts.txt").write_text(
        "https://github.com/rust-lang/blog.rust-lang.org/blob/main/content/Rust-1.66.0.md\n"
        "https://example.org/post?id=3&utm_source=mail#top\n"
    )
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "import", str(tmp_path / "posts.txt"))
    assert (code, err) == (ExitCode.OK, "")
    raw = "https://raw.githubusercontent.com/rust-lang/blog.rust-lang.org/main/content/Rust-1.66.0.md"
    assert out.splitlines()[1:5] == [
        f"  rust-1-66-0/canonical  {raw}",
        "    note: the file itself, not the page the forge shows it in",
        "  post/canonical  https://example.org/post?id=3",
        "    note: the link's #fragment and tracking parameters left out",
    ]
    assert [(s.url, s.kind) for s in load_config(config, {}).sources()] == [
        (raw, "markdown"), ("https://example.org/post?id=3", "html"),
    ]  # fmt: skip


URLWATCH_YAML = """\
display:
  new: true
report:
  text:
    enabled: true
  slack:
    enabled: true
    webhook_url: https://hooks.slack.com/services/T000/B000/XXXX
  discord:
    enabled: false
    webhook_url: https://discord.com/api/webhooks/1/abc
  email:
    enabled: true
    from: me@example.org
  telegram:
    enabled: true
"""


def test_urlwatchs_slack_reporter_becomes_a_notifier_and_the_rest_are_named(tmp_path: Path) -> None:
    (tmp_path / "urls.yaml").write_text(URLS_YAML)
    (tmp_path / "urlwatch.yaml").write_text(URLWATCH_YAML)
    config = tmp_path / "config.toml"
    code, out, err = run(
        "--config", str(config), "import", str(tmp_path / "urls.yaml"), str(tmp_path / "urlwatch.yaml")
    )
    assert (code, err) == (ExitCode.OK, "")
    lines = out.splitlines()
    assert "  notifier slack (slack) for every document" in lines
    assert lines[lines.index("left out: 3") + 1 :] == [
        "  disk usage: a shell command, not a page",
        "  urlwatch.yaml: its email alert, which differ would refuse: to: expected at least one recipient",
        "  urlwatch.yaml report.telegram: expected a bot_token and a chat_id",
        f"try them: differ --config {config} check",
    ]
    table = tomllib.loads(config.read_text())
    assert table["notify"] == [
        {"name": "slack", "kind": "slack", "url": "https://hooks.slack.com/services/T000/B000/XXXX"}
    ]
    assert (
        config.stat().st_mode & 0o777 == 0o600
    )  # made holding a webhook's secret address: its owner's alone
    pages = tmp_path / "pages.toml"
    assert run("--config", str(pages), "import", str(tmp_path / "urls.yaml"))[0] == ExitCode.OK
    assert pages.stat().st_mode & 0o777 == 0o644
    code, out, _ = run("--config", str(config), "import", str(tmp_path / "urlwatch.yaml"))
    assert code == ExitCode.OK and "  notifier " not in out  # the same webhook is not added twice
    assert tomllib.loads(config.read_text())["notify"] == table["notify"]


def test_urlwatchs_mattermost_matrix_and_webhook_reporters_become_notifiers(tmp_path: Path) -> None:
    (tmp_path / "urlwatch.yaml").write_text(
        "report:\n"
        "  mattermost:\n    enabled: true\n    webhook_url: https://chat.example.org/hooks/xgp1w3bsn7ydtqh8ssyaf5nrfa\n"
        "  matrix:\n    enabled: true\n    homeserver: https://matrix.example.org\n"
        "    access_token: syt_token\n    room_id: '!abc:example.org'\n"
        "  webhook:\n    enabled: true\n    webhook_url: https://hooks.slack.com/services/T1/B1/C1\n"
    )
    (tmp_path / "urls.yaml").write_text(URLS_YAML)
    config = tmp_path / "config.toml"
    code, out, err = run(
        "--config", str(config), "import", str(tmp_path / "urls.yaml"), str(tmp_path / "urlwatch.yaml")
    )
    assert (code, err) == (ExitCode.OK, "")
    assert tomllib.loads(config.read_text())["notify"] == [
        {
            "name": "mattermost",
            "kind": "mattermost",
            "url": "https://chat.example.org/hooks/xgp1w3bsn7ydtqh8ssyaf5nrfa",
        },
        {
            "name": "matrix",
            "kind": "matrix",
            "url": "https://matrix.example.org",
            "room": "!abc:example.org",
            "access_token": "syt_token",
        },
        {"name": "slack", "kind": "slack", "url": "https://hooks.slack.com/services/T1/B1/C1"},
    ]
    assert run("--config", str(config), "config", "check")[0] == ExitCode.OK


def test_an_imported_notifier_over_plain_http_across_a_network_is_noted(tmp_path: Path) -> None:
    """As `differ notify add` notes it, and `differ config check` after: its messages cross the network
    unencrypted. One on a private network's address is taken without a word."""
    (tmp_path / "urlwatch.yaml").write_text(
        "report:\n"
        "  mattermost:\n    enabled: true\n    webhook_url: http://chat.example.org/hooks/xgp1w3bsn7ydtqh8ssyaf5\n"
        "  webhook:\n    enabled: true\n    webhook_url: http://10.0.0.5/hooks/slack\n"
    )
    (tmp_path / "urls.yaml").write_text(URLS_YAML)
    config = tmp_path / "config.toml"
    code, out, err = run(
        "--config", str(config), "import", str(tmp_path / "urls.yaml"), str(tmp_path / "urlwatch.yaml")
    )
    assert (code, err) == (ExitCode.OK, "")
    note = (
        "note: it posts to chat.example.org over plain http: its messages, and a webhook URL that is itself the "
        "secret, cross the network unencrypted; give it the https:// address"
    )
    lines = out.splitlines()
    at = lines.index("  notifier mattermost (mattermost) for every document")
    assert lines[at + 1 : at + 3] == [
        f"    {note}",
        "  notifier mattermost-2 (mattermost) for every document",
    ]
    assert out.count("plain http") == 1
    checked = (
        ExitCode.OK,
        f"{config}: ok (4 documents, 4 sources, 2 notifiers)\n"
        f"{note.replace('note: ', 'note: notifier mattermost: ')}\n",
        "",
    )
    assert run("--config", str(config), "config", "check") == checked
    assert run("--config", str(config), "config", "check", "--trust-unset") == checked  # the URLs as written


def test_telegram_in_urlwatch_and_changedetection_becomes_telegram_notifiers(tmp_path: Path) -> None:
    token = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
    (tmp_path / "urlwatch.yaml").write_text(
        f"report:\n  telegram:\n    enabled: true\n    bot_token: '{token}'\n    chat_id: [-1001234567890, '@releases']\n"
    )
    (tmp_path / "urls.yaml").write_text(URLS_YAML)
    config = tmp_path / "config.toml"
    code, out, err = run(
        "--config", str(config), "import", str(tmp_path / "urls.yaml"), str(tmp_path / "urlwatch.yaml")
    )
    assert (code, err) == (ExitCode.OK, "")
    assert tomllib.loads(config.read_text())["notify"] == [
        {"name": "telegram", "kind": "telegram", "bot_token": token, "chat": "-1001234567890"},
        {"name": "telegram-2", "kind": "telegram", "bot_token": token, "chat": "@releases"},
    ]
    (tmp_path / "watch.json").write_text(
        json.dumps(
            {
                "url": "https://example.org/post",
                "notification_urls": [
                    f"tgram://bot{token}/-1009876543210:42/release_notes?silent=yes",
                    f"tgram://{token}",  # the bot's owner, whom Apprise looks up
                    "tgram://not-a-token/-100",
                ],
            }
        )
    )
    code, out, err = run("--config", str(config), "import", str(tmp_path / "watch.json"))
    assert (code, err) == (ExitCode.OK, "")
    added = tomllib.loads(config.read_text())["notify"][2:]
    assert added == [
        {"name": "telegram-3", "kind": "telegram", "bot_token": token, "chat": "-1009876543210", "thread": 42,
         "silent": True, "documents": ["post"]},
        {"name": "telegram-4", "kind": "telegram", "bot_token": token, "chat": "@release_notes", "silent": True,
         "documents": ["post"]},
    ]  # fmt: skip
    lines = out.splitlines()
    assert (
        "  notification URL tgram://…: it names no chat (Apprise would message the bot's owner, whom it finds); "
        "name the chat"
    ) in lines
    assert "  notification URL tgram://…: not the form tgram://BOT_TOKEN/CHAT_ID" in lines
    assert run("--config", str(config), "config", "check")[0] == ExitCode.OK


def test_changedetection_ntfy_urls_become_ntfy_notifiers(tmp_path: Path) -> None:
    (tmp_path / "watch.json").write_text(
        json.dumps(
            {
                "url": "https://example.org/post",
                "notification_urls": [
                    "ntfy://release-edits?priority=high",  # a topic on ntfy.sh
                    "https://ntfy.sh/mirror-drift",
                    "ntfys://tk_abc123@ntfy.example.org/edits/drift",
                    "ntfy://phil:s3cret@localhost:8080/local",
                    "ntfy://bad%20topic",
                ],
            }
        )
    )
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "import", str(tmp_path / "watch.json"))
    assert (code, err) == (ExitCode.OK, "")
    post = {"documents": ["post"]}
    own = {"kind": "ntfy", "url": "https://ntfy.example.org", "token": "tk_abc123"}
    assert tomllib.loads(config.read_text())["notify"] == [
        {"name": "ntfy", "kind": "ntfy", "url": "https://ntfy.sh", "topic": "release-edits", "priority": 4, **post},
        {"name": "ntfy-2", "kind": "ntfy", "url": "https://ntfy.sh", "topic": "mirror-drift", **post},
        {"name": "ntfy-3", **own, "topic": "edits", **post},
        {"name": "ntfy-4", **own, "topic": "drift", **post},
        {"name": "ntfy-5", "kind": "ntfy", "url": "http://localhost:8080", "topic": "local", "username": "phil",
         "password": "s3cret", **post},
    ]  # fmt: skip
    assert "  notification URL ntfy://…: not the form ntfy://TOPIC or ntfy://HOST/TOPIC" in out.splitlines()
    assert run("--config", str(config), "config", "check")[0] == ExitCode.OK


def test_changedetection_notification_urls_become_notifiers_for_their_pages(tmp_path: Path) -> None:
    folder = datastore(tmp_path / "datastore")
    store = json.loads((folder / "url-watches.json").read_text())
    store["settings"] = {
        "application": {"notification_urls": ["slack://T1/B1/C1/#releases", "mailto://u:p@x.org"]}
    }
    store["watching"]["aaaa"]["notification_urls"] = ["discord://123/tok-en", "slack://T1/B1/C1"]
    store["watching"]["aaaa"]["url"] += "?utm_source=feed#top"  # watched as the page it names, its alerts too
    store["watching"]["dddd"]["notification_urls"] = "discord://123/tok-en?avatar=no"
    (folder / "url-watches.json").write_text(json.dumps(store))
    config = tmp_path / "config.toml"
    config.write_text('[[documents]]\nid = "old"\n[documents.canonical]\nurl = "https://example.org/old"\n')
    code, out, err = run("--config", str(config), "import", str(folder))
    assert (code, err) == (ExitCode.OK, "")
    assert (  # an insecure mailto:// with a password: refused as config.toml's would be
        "  datastore: its email alert, which differ would refuse: security: refusing to send a password "
        'unencrypted; expected security = "starttls" or "tls"'
    ) in out.splitlines()
    notify = tomllib.loads(config.read_text())["notify"]
    assert notify == [
        {  # sent for every watch there: here, for the pages imported, not the page watched before
            "name": "slack",
            "kind": "slack",
            "url": "https://hooks.slack.com/services/T1/B1/C1",
            "documents": ["releases", "pytorch-2-13-release-blog", "paused-example", "post"],
        },
        {
            "name": "discord",
            "kind": "discord",
            "url": "https://discord.com/api/webhooks/123/tok-en",
            "documents": ["pytorch-2-13-release-blog", "post"],
        },
    ]
    assert (
        run("--config", str(config), "config", "check")[1]
        == f"{config}: ok (5 documents, 5 sources (1 paused), 2 notifiers)\n"
    )
    assert 'url = "https://pytorch.org/blog/pytorch-2-13-release-blog/"\n' in config.read_text()
    before = config.read_text()
    code, out, _ = run("--config", str(config), "import", str(folder))  # again: nothing new, no webhook twice
    assert (code, config.read_text()) == (ExitCode.OK, before) and "  notifier " not in out


def test_changedetection_mattermost_urls_become_mattermost_notifiers(tmp_path: Path) -> None:
    key = "xgp1w3bsn7ydtqh8ssyaf5nrfa"
    (tmp_path / "watch.json").write_text(
        json.dumps(
            {
                "url": "https://example.org/post",
                "notification_urls": [
                    f"mmosts://differ@chat.example.org/{key}?channel=releases,%23announce",
                    f"mmost://localhost/mm/{key}",  # Apprise's default port for plain mmost://
                    f"https://chat.example.com/hooks/{key}",  # the webhook's own URL
                    "mmosts://chat.example.org",
                ],
            }
        )
    )
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "import", str(tmp_path / "watch.json"))
    assert (code, err) == (ExitCode.OK, "")
    org = {"kind": "mattermost", "url": f"https://chat.example.org/hooks/{key}", "username": "differ"}
    local = {"kind": "mattermost", "url": f"http://localhost:8065/mm/hooks/{key}"}
    own = {"kind": "mattermost", "url": f"https://chat.example.com/hooks/{key}"}
    assert tomllib.loads(config.read_text())["notify"] == [
        {"name": "mattermost", **org, "channel": "releases", "documents": ["post"]},
        {"name": "mattermost-2", **org, "channel": "announce", "documents": ["post"]},
        {"name": "mattermost-3", **local, "documents": ["post"]},
        {"name": "mattermost-4", **own, "documents": ["post"]},
    ]
    assert "  notification URL mmost://…: not the form mmost://HOST/TOKEN" in out.splitlines()
    assert run("--config", str(config), "config", "check")[0] == ExitCode.OK


def test_changedetection_matrix_urls_become_matrix_notifiers_a_room_each(tmp_path: Path) -> None:
    (tmp_path / "watch.json").write_text(
        json.dumps(
            {
                "url": "https://example.org/post",
                "notification_urls": [
                    "matrixs://syt_token@matrix.example.org/#release:example.org/%21abc:example.org/@jane:example.org",
                    "matrix://tok2@localhost:8008/general?to=%23ops:localhost",  # a bare name is #NAME:HOST
                    "matrixs://bot:secret@matrix.example.org/#release:example.org",
                    "matrixs://abcdef0123456789",  # a t2bot webhook
                    "matrixs://tok@matrix.example.org/@jane:example.org",
                ],
            }
        )
    )
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "import", str(tmp_path / "watch.json"))
    assert (code, err) == (ExitCode.OK, "")
    one = {
        "kind": "matrix",
        "url": "https://matrix.example.org",
        "access_token": "syt_token",
        "documents": ["post"],
    }
    two = {"kind": "matrix", "url": "http://localhost:8008", "access_token": "tok2", "documents": ["post"]}
    assert tomllib.loads(config.read_text())["notify"] == [
        {"name": "matrix", **one, "room": "#release:example.org"},
        {"name": "matrix-2", **one, "room": "!abc:example.org"},
        {"name": "matrix-3", **two, "room": "#general:localhost"},
        {"name": "matrix-4", **two, "room": "#ops:localhost"},
    ]
    lines = out.splitlines()
    assert (
        "  notification URL matrixs://…: it logs in with a password; differ posts with the bot account's access "
        "token (log in once and set access_token)"
    ) in lines
    assert (
        "  notification URL matrixs://…: a webhook bridge (t2bot or a Slack-style hook), not a room differ can "
        "post to as a bot"
    ) in lines
    assert "  notification URL matrixs://…: direct messages to users; differ posts to rooms" in lines
    assert run("--config", str(config), "config", "check")[0] == ExitCode.OK


def test_changedetection_zulip_urls_become_zulip_notifiers_a_channel_each(tmp_path: Path) -> None:
    token = "lqn6mpwpam6VZzbCW0o7olmk3hwbQSK1"
    (tmp_path / "watch.json").write_text(
        json.dumps(
            {
                "url": "https://example.org/post",
                "notification_urls": [
                    f"zulip://differ-bot@rust/{token}/t-release/jane@example.org?to=%23announce",
                    f"zulip://differ@chat.example.com/{token}",  # an organization on its own server
                    "zulip://nobody/short",
                ],
            }
        )
    )
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "import", str(tmp_path / "watch.json"))
    assert (code, err) == (ExitCode.OK, "")
    rust = {"url": "https://rust.zulipchat.com", "email": "differ-bot@rust.zulipchat.com", "api_key": token}
    assert tomllib.loads(config.read_text())["notify"] == [
        {"name": "zulip", "kind": "zulip", **rust, "channel": "t-release", "documents": ["post"]},
        {"name": "zulip-2", "kind": "zulip", **rust, "channel": "announce", "documents": ["post"]},
        {
            "name": "zulip-3",
            "kind": "zulip",
            "url": "https://chat.example.com",
            "email": "differ-bot@chat.example.com",
            "api_key": token,
            "channel": "general",
            "documents": ["post"],
        },
    ]
    assert "  notification URL zulip://…: not the form zulip://BOT@ORG/TOKEN[/CHANNEL]" in out.splitlines()
    assert not any(
        "webhook URLs are written" in line for line in out.splitlines()
    )  # an organization's address
    assert run("--config", str(config), "config", "check")[0] == ExitCode.OK


def test_changedetection_google_chat_urls_become_googlechat_notifiers(tmp_path: Path) -> None:
    native = "https://chat.googleapis.com/v1/spaces/BBBB/messages?key=K2&token=T2%3D"
    (tmp_path / "watch.json").write_text(
        json.dumps(
            {
                "url": "https://example.org/post",
                "notification_urls": ["gchat://AAAA/K1/T1/release-thread", native],
            }
        )
    )
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "import", str(tmp_path / "watch.json"))
    assert (code, err) == (ExitCode.OK, "")
    assert tomllib.loads(config.read_text())["notify"] == [
        {
            "name": "googlechat",
            "kind": "googlechat",
            "url": "https://chat.googleapis.com/v1/spaces/AAAA/messages?key=K1&token=T1",
            "documents": ["post"],
        },
        {"name": "googlechat-2", "kind": "googlechat", "url": native, "documents": ["post"]},
    ]
    assert run("--config", str(config), "config", "check")[0] == ExitCode.OK


@pytest.mark.parametrize(
    ("url", "table"),
    [
        (
            "mailtos://release:s%40cret@example.org/team@example.org/ops@example.org"
            "?smtp=smtp.example.org&mode=ssl&name=Release%20watch",
            {
                "host": "smtp.example.org",
                "security": "tls",
                "from": "Release watch <release@example.org>",
                "to": ["team@example.org", "ops@example.org"],
                "username": "release",
                "password": "s@cret",
            },
        ),
        (  # a provider Apprise knows: its relay, and the whole address as the login
            "mailtos://me:pw@gmail.com?to=a@example.org,b@example.org",
            {
                "host": "smtp.gmail.com",
                "port": 587,
                "security": "starttls",
                "from": "me@gmail.com",
                "to": ["a@example.org", "b@example.org"],
                "username": "me@gmail.com",
                "password": "pw",
            },
        ),
        (  # no recipient: to the sender, as Apprise sends it
            "mailtos://me:pw@example.org:2525?from=bot@example.org",
            {
                "host": "example.org",
                "security": "starttls",
                "from": "bot@example.org",
                "to": ["bot@example.org"],
                "port": 2525,
                "username": "me",
                "password": "pw",
            },
        ),
        (  # a local relay without a login
            "mailto://localhost?from=differ@example.org&to=team@example.org",
            {
                "host": "localhost",
                "security": "none",
                "from": "differ@example.org",
                "to": ["team@example.org"],
            },
        ),
    ],
)
def test_changedetection_mailto_urls_become_email_notifiers(
    tmp_path: Path, url: str, table: dict[str, object]
) -> None:
    (tmp_path / "watch.json").write_text(
        json.dumps({"url": "https://example.org/post", "notification_urls": [url, url]})
    )
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "import", str(tmp_path / "watch.json"))
    assert (code, err) == (ExitCode.OK, "")
    notify = tomllib.loads(config.read_text())["notify"]
    assert notify == [{"name": "email", "kind": "email", **table, "documents": ["post"]}]
    note = (
        "    note: its password is written as the notification URL held it; to keep it out of the file, put it "
        'in an environment variable and write password = "${NAME}"'
    )
    assert (note in out.splitlines()) == ("password" in table)
    assert run("--config", str(config), "config", "check")[0] == ExitCode.OK


@pytest.mark.parametrize(
    ("job", "note"),
    [
        ({"method": "PUT"}, "was asked with PUT; differ asks with GET"),
        ({"data": "a=1"}, "was asked with POST and data; differ asks with GET"),
        ({"ssl_no_verify": True}, "had ssl_no_verify; differ always verifies certificates"),
        (
            {"kind": "browser"},
            "was loaded in a browser; differ reads the page as served, without running its scripts (to have a "
            'browser print it: command = ["chromium", "--headless", "--dump-dom", "{url}"])',
        ),
    ],
)
def test_what_a_page_was_fetched_with_is_named(tmp_path: Path, job: dict[str, object], note: str) -> None:
    import yaml

    (tmp_path / "urls.yaml").write_text(yaml.safe_dump({"url": "https://example.org/post", **job}))
    assert read(tmp_path / "urls.yaml")[0].notes == [note]


@pytest.mark.parametrize(
    ("name", "watch", "note"),
    [
        (
            "urls.yaml",
            {"additions_only": True},
            "was told of additions (additions_only) only; differ tells every change, and a [[notify]] with changes "
            '= ["added", "modified"] hears of those alone',
        ),
        (
            "urls.yaml",
            {"deletions_only": True},
            "was told of deletions (deletions_only) only; differ tells every change, and a [[notify]] with changes "
            '= ["removed", "modified"] hears of those alone',
        ),
        (
            "watch.json",
            {"filter_text_added": False, "filter_text_replaced": False},
            "was told of lines removed only; differ tells every change, and a [[notify]] with changes = "
            '["removed"] hears of those alone',
        ),
        (
            "watch.json",
            {"filter_text_added": False, "filter_text_removed": False, "filter_text_replaced": False},
            "was told of no change (filter_text_added, _removed and _replaced off); differ tells every one",
        ),
        ("watch.json", {"filter_text_added": True, "filter_text_removed": True}, None),
    ],
)
def test_a_watch_told_of_some_kinds_of_change_only_names_the_notify_setting_that_does_it(
    tmp_path: Path, name: str, watch: dict[str, object], note: str | None
) -> None:
    """urlwatch's additions_only and deletions_only, changedetection.io's filter_text_added, _removed and
    _replaced: a setting of the alert in differ (a destination's `changes`), not of the page, so named."""
    import yaml

    job = {"url": "https://example.org/post", **watch}
    (tmp_path / name).write_text(yaml.safe_dump(job) if name.endswith(".yaml") else json.dumps(job))
    assert read(tmp_path / name)[0].notes == ([note] if note else [])


def test_one_content_root_and_the_other_selectors_named(tmp_path: Path) -> None:
    (tmp_path / "urls.yaml").write_text(
        "url: https://example.org/a\nfilter:\n  - css: main\n  - css: .post\n"
    )
    assert read(tmp_path / "urls.yaml")[0].notes == ["a second selector (.post) inside main is left out"]
    watch = {"url": "https://example.org/b", "include_filters": ["article", "#sidebar"]}
    (tmp_path / "watch.json").write_text(json.dumps(watch))
    [found] = read(tmp_path / "watch.json")
    assert found.page is not None and found.page.settings == {"selector": "article"}
    assert found.notes == ["its include filter #sidebar is left out: differ reads one content root (article)"]


def test_urlwatchs_email_reporter_becomes_an_email_notifier_with_its_password_from_the_environment(
    tmp_path: Path,
) -> None:
    (tmp_path / "urlwatch.yaml").write_text(
        "report:\n  email:\n    enabled: true\n    from: urlwatch <me@example.org>\n"
        "    to: a@example.org, b@example.org\n    method: smtp\n    smtp:\n      host: smtp.example.org\n"
        "      port: 587\n      starttls: true\n      auth: true\n      user: me\n      insecure_password: ''\n"
    )
    (tmp_path / "posts.txt").write_text("https://example.org/post\n")
    config = tmp_path / "config.toml"
    code, out, err = run(
        "--config", str(config), "import", str(tmp_path / "posts.txt"), str(tmp_path / "urlwatch.yaml")
    )
    assert (code, err) == (ExitCode.OK, "")
    assert out.splitlines()[2:4] == [
        "  notifier email (email) for every document",
        "    note: set SMTP_PASSWORD in differ's environment: urlwatch kept the password in a keyring",
    ]
    assert tomllib.loads(config.read_text())["notify"] == [
        {
            "name": "email",
            "kind": "email",
            "host": "smtp.example.org",
            "port": 587,
            "security": "starttls",
            "from": "urlwatch <me@example.org>",
            "to": ["a@example.org", "b@example.org"],
            "username": "me",
            "password": "${SMTP_PASSWORD}",
        }
    ]
    assert run("--config", str(config), "config", "check")[2] == (
        "error: config.toml: notify[0].password: environment variable SMTP_PASSWORD is not set (where it is set "
        f"only where differ runs: differ config check {config} --trust-unset)\n"
    )
    out_ = io.StringIO()
    assert (
        main(["--config", str(config), "config", "check"], out=out_, env={"SMTP_PASSWORD": "s"})
        == ExitCode.OK
    )
    (tmp_path / "sendmail.yaml").write_text("report:\n  email:\n    enabled: true\n    method: sendmail\n")
    code, out, _ = run("--config", str(config), "import", str(tmp_path / "sendmail.yaml"))
    assert (
        "  sendmail.yaml report.email: sent through sendmail; differ sends through an SMTP relay"
        in out.splitlines()
    )


def test_teams_workflow_notification_urls_become_teams_notifiers(tmp_path: Path) -> None:
    """Apprise's `workflows://HOST/WORKFLOW/SIGNATURE` (and `?pa=yes` for Power Automate) is the workflow's
    https webhook as Apprise posts to it; the webhook's own URL comes as it is."""
    raw = (
        "https://prod-1.westeurope.logic.azure.com:443/workflows/f00/triggers/manual/paths/invoke"
        "?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=RAW"
    )
    folder = datastore(tmp_path / "datastore")
    store = json.loads((folder / "url-watches.json").read_text())
    store["watching"]["aaaa"]["notification_urls"] = [
        "workflows://prod-2.westus.logic.azure.com:443/abc123/S1g-n_ature/",
        "workflow://prod-3.example.com/def456/S2?pa=yes",
        raw,
    ]
    (folder / "url-watches.json").write_text(json.dumps(store))
    config = tmp_path / "config.toml"
    assert run("--config", str(config), "import", str(folder))[::2] == (ExitCode.OK, "")
    notify = tomllib.loads(config.read_text())["notify"]
    assert [(n["kind"], n["url"], n["documents"]) for n in notify] == [
        (
            "teams",
            "https://prod-2.westus.logic.azure.com:443/workflows/abc123/triggers/manual/paths/invoke"
            "?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=S1g-n_ature",
            ["pytorch-2-13-release-blog"],
        ),
        (
            "teams",
            "https://prod-3.example.com/powerautomate/automations/direct/workflows/def456/triggers/manual/paths/"
            "invoke?api-version=2022-03-01-preview&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=S2",
            ["pytorch-2-13-release-blog"],
        ),
        ("teams", raw, ["pytorch-2-13-release-blog"]),
    ]


@pytest.mark.parametrize("tool", ["list", "urlwatch", "changedetection"])
def test_a_file_that_never_ends_is_read_as_far_as_any_watch_list_and_refused(tool: str) -> None:
    """`/dev/zero` (or a pipe left open) is read as far as 100 MB, not until memory runs out."""
    with pytest.raises(ConfigError, match=r"^/dev/zero: .*more than 100,000,000 bytes"):
        read(Path("/dev/zero"), tool)


def test_a_backup_zip_member_larger_than_a_datastore_file_is_not_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import differ.migrate.changedetection as changedetection

    monkeypatch.setattr(changedetection, "IMPORT_BYTES", 1000)  # the limit, made small enough to test
    backup = tmp_path / "backup.zip"
    with zipfile.ZipFile(backup, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("url-watches.json", json.dumps({"watching": {}, "pad": " " * 5000}))
    with pytest.raises(ConfigError) as info:
        read(backup, "changedetection")
    assert str(info.value) == (
        f"{backup}: url-watches.json: more than 1,000 bytes; not a changedetection.io datastore file"
    )
