"""`differ add` and `differ remove`: config.toml edited as text, comments kept, the result valid or nothing written."""

from __future__ import annotations

import io
import os
import tomllib
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from differ.cli import main
from differ.config import load_config
from differ.edit import (
    add_source,
    host_id,
    mirror_id,
    plain_address,
    remove_source,
    set_options,
    slug,
    unique,
)
from differ.errors import ConfigError, ExitCode, UsageError
from differ.tomltext import value
from tests.conftest import Server
from tests.helpers import MESSAGE

EXISTING = """\
# Release posts we watch.
[service]
interval = "1h"

[[documents]]
id = "rust"
title = "Rust 1.66.0"

[documents.canonical]
url = "https://blog.rust-lang.org/2022/12/15/Rust-1.66.0/"

[documents.canonical.headers]
Accept-Language = "en"

[[documents]]
id = "torch"

[documents.canonical]
url = "https://pytorch.org/blog/pytorch-2-13-release-blog/"

# Alerts go to the release channel.
[[notify]]
name = "team"
kind = "slack"
url = "${SLACK_WEBHOOK_URL}"
"""


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out=out, err=err, env={})
    return code, out.getvalue(), err.getvalue()


def test_a_new_file_gets_a_document(tmp_path: Path) -> None:
    config = tmp_path / "new" / "folder" / "watch.toml"  # made where it is told, folders too
    code, out, err = run(
        "--config", str(config), "add", "https://pytorch.org/blog/pytorch-2-13-release-blog/",
        "--set", "selector=article .entry-content", "--title", "PyTorch 2.13",
    )  # fmt: skip
    assert (code, err) == (ExitCode.OK, "")
    assert out == (
        f"added pytorch-2-13-release-blog/canonical to {config} (a new document); "
        f"try it: differ --config {config} fetch pytorch-2-13-release-blog/canonical\n"
    )
    assert config.read_text() == (
        "# differ's configuration; docs/configuration.md lists every option. Check it with: differ config check\n\n"
        '[[documents]]\nid = "pytorch-2-13-release-blog"\ntitle = "PyTorch 2.13"\n\n'
        '[documents.canonical]\nurl = "https://pytorch.org/blog/pytorch-2-13-release-blog/"\n'
        'selector = "article .entry-content"\n'
    )
    assert [s.key for s in load_config(config).sources()] == ["pytorch-2-13-release-blog/canonical"]


def test_a_row_that_only_looks_like_a_header_is_passed_over_in_linear_time(tmp_path: Path) -> None:
    """Rows are read for table headers; one inside a multi-line string that opens like a header and does not
    close (`[` and 20,000 spaces) is passed over at once (it took time cubic in its length)."""
    config = tmp_path / "config.toml"
    text = (
        '[[documents]]\nid = "x"\ntitle = """\n['
        + " " * 20_000
        + 'x\n"""\n[documents.canonical]\nurl = "https://a.example/"\n'
    )
    config.write_text(text)
    assert add_source(config, "https://b.example/", to="x", env={}).key == "x/b-example"
    assert config.read_text().startswith(text)


def test_a_link_as_shared_is_watched_as_its_page_and_another_spelling_of_a_watched_page_is_refused(
    tmp_path: Path,
) -> None:
    """A link pasted from social media or a mail carries tracking parameters and a fragment that are no part of
    the page: left out, and said. The same page spelled otherwise (`http:`, `www.`, a trailing slash, `utm_`) is
    already watched, as a document or as a mirror of the same document."""
    config = tmp_path / "config.toml"
    shared = "https://pytorch.org/blog/post/?utm_source=twitter&id=3&fbclid=IwAR0#top"
    assert run("--config", str(config), "add", shared) == (
        ExitCode.OK,
        "watching https://pytorch.org/blog/post/?id=3: the link's #fragment and tracking parameters left out\n"
        f"added post/canonical to {config} (a new document); try it: differ --config {config} fetch post/canonical\n",
        "",
    )
    assert run("--config", str(config), "add", "https://example.org/a#part")[1].startswith(
        "watching https://example.org/a: the link's #fragment left out\n"
    )
    written = config.read_text()
    for again, to in (
        ("http://www.pytorch.org/blog/post?id=3", ()),
        ("https://pytorch.org/blog/post?id=3", ("--to", "post")),
    ):
        assert run("--config", str(config), "add", again, *to) == (
            ExitCode.USAGE,
            "",
            f"error: {again} is already watched, as post/canonical (https://pytorch.org/blog/post/?id=3)\n",
        )
    assert config.read_text() == written
    assert run("--config", str(config), "add", "https://pytorch.org/blog/post/?id=4")[0] == ExitCode.OK
    code, out, _ = run("--config", str(config), "add", "https://m.example/copy", "--to", shared)  # by its URL
    assert (code, out.split(";")[0]) == (ExitCode.OK, f"added post/m-example to {config} (a mirror of post)")


@pytest.mark.parametrize(
    ("pasted", "page"),
    [
        ("https://x.org/a?id=3&utm_source=chat&fbclid=IwAR0#top", "https://x.org/a?id=3"),
        ("https://x.org/?utm_medium=mail", "https://x.org/"),
        ("https://x.org/a?ref=main&gclid=1", "https://x.org/a?ref=main"),  # ref: some sites read it
        ("https://x.org/a?", "https://x.org/a?"),  # the rest as written
        ("HTTPS://X.org/a;p?b=1&&c=2", "HTTPS://X.org/a;p?b=1&&c=2"),
    ],
)
def test_the_page_a_link_names(pasted: str, page: str) -> None:
    assert plain_address(pasted) == page


def test_a_release_page_is_added_with_its_forges_kind(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    url = "https://github.com/pytorch/pytorch/releases/tag/v2.13.0"
    assert run("--config", str(config), "add", url)[0] == ExitCode.OK
    assert config.read_text().endswith(f'[documents.canonical]\nurl = "{url}"\nkind = "github"\n')
    gitlab = "https://gitlab.com/inkscape/inkscape/-/releases/INKSCAPE_1_4"
    assert run("--config", str(config), "add", gitlab)[0] == ExitCode.OK
    assert config.read_text().endswith(f'[documents.canonical]\nurl = "{gitlab}"\nkind = "gitlab"\n')


@pytest.mark.parametrize(
    ("page", "raw"),
    [
        (
            "https://github.com/rust-lang/blog.rust-lang.org/blob/main/content/Rust-1.66.0.md",
            "https://raw.githubusercontent.com/rust-lang/blog.rust-lang.org/main/content/Rust-1.66.0.md",
        ),
        (
            "https://github.com/pytorch/pytorch.github.io/blob/site/_posts/2021-10-21-pytorch-1.10-released.md?plain=1#L3",
            "https://raw.githubusercontent.com/pytorch/pytorch.github.io/site/_posts/2021-10-21-pytorch-1.10-released.md",
        ),
        (
            "https://gitlab.com/inkscape/inkscape/-/blob/master/NEWS.md",
            "https://gitlab.com/inkscape/inkscape/-/raw/master/NEWS.md",
        ),
    ],
)
def test_a_files_page_on_a_forge_is_watched_as_the_file_itself(tmp_path: Path, page: str, raw: str) -> None:
    config = tmp_path / "config.toml"
    code, out, err = run("--config", str(config), "add", page)
    assert (code, err) == (ExitCode.OK, "")
    assert out.splitlines()[0] == f"watching {raw}: the file itself, not the page the forge shows it in"
    assert config.read_text().endswith(f'[documents.canonical]\nurl = "{raw}"\nkind = "markdown"\n')


def test_a_feed_entry_is_added_as_a_feed_source(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    feed, post = "https://blog.rust-lang.org/feed.xml", "https://blog.rust-lang.org/2026/07/09/Rust-1.97.0/"
    code, out, err = run(
        "--config", str(config), "add", feed, "--set", f"entry={post}", "--title", "Rust 1.97.0"
    )
    assert (code, err) == (ExitCode.OK, "")
    assert config.read_text().endswith(
        f'[[documents]]\nid = "rust-1-97-0"\ntitle = "Rust 1.97.0"\n\n[documents.canonical]\nurl = "{feed}"\n'
        f'kind = "feed"\nentry = "{post}"\n'
    )
    other = "https://blog.rust-lang.org/2026/08/01/Rust-1.98.0/"
    assert (
        run("--config", str(config), "add", feed, "--set", f"entry={other}")[0] == ExitCode.OK
    )  # one feed, two posts
    assert run("--config", str(config), "add", feed, "--set", f"entry={post}")[2] == (
        f"error: {feed} (entry {post}) is already watched, as rust-1-97-0/canonical\n"
    )
    assert [(s.key, s.options["entry"]) for s in load_config(config).sources()] == [
        ("rust-1-97-0/canonical", post),
        ("rust-1-98-0/canonical", other),
    ]
    assert run("--config", str(config), "add", "https://x.example/posts.atom", "--to", "rust-1-97-0")[2] == (
        "error: https://x.example/posts.atom: a feed page needs entry (the post's URL (its link in the feed) or "
        'id; "*" for the list of posts): add it with --set entry=…\n'
    )  # a mirror: which post
    assert run("--config", str(config), "add", feed) == (
        ExitCode.OK,
        f"added blog-rust-lang-org-posts/canonical to {config} (a new document); try it: differ --config "
        f"{config} fetch blog-rust-lang-org-posts/canonical\n"
        'note: watching the feed\'s list of posts (entry = "*"), where a new post is a change; differ --config '
        f"{config} add {feed} --set entry=POST_URL watches one post's text, and differ --config {config} set "
        "blog-rust-lang-org-posts/canonical 'follow=[\"*\"]' each new post as a document of its own\n",
        "",
    )  # a feed named alone: the feed, as other watchers have it; the document named by its host
    assert [(s.key, s.options["entry"]) for s in load_config(config).sources()][-1] == (
        "blog-rust-lang-org-posts/canonical",
        "*",
    )
    other = "https://x.example/feed.json"
    assert run("--config", str(config), "add", other, "--set", "entry=*")[1].splitlines()[1:] == []  # no note
    followed = "https://y.example/feed/"
    code, out, _ = run("--config", str(config), "add", followed, "--set", 'follow=["release*"]')
    assert (code, out.splitlines()[1]) == (
        ExitCode.OK,
        'note: watching the feed\'s list of posts (entry = "*"), where a new post is a change; differ --config '
        f"{config} add {followed} --set entry=POST_URL watches one post's text",
    )  # its new posts followed already: no word of follow
    assert config.read_text().endswith(
        f'url = "{followed}"\nkind = "feed"\nentry = "*"\nfollow = ["release*"]\n'
    )


def test_a_page_on_a_private_address_is_added_with_a_note_saying_what_it_needs(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    code, out, _ = run("--config", str(config), "add", "http://127.0.0.1:8000/post.html")
    assert code == ExitCode.OK
    assert out.splitlines()[1] == (
        "note: 127.0.0.1 is a loopback address, which differ refuses to fetch unless the source allows it: "
        "differ set post/canonical allow_private=true"
    )
    assert run("--config", str(config), *out.splitlines()[1].split(": ")[-1].split()[1:])[0] == ExitCode.OK
    assert load_config(config).sources()[0].allow_private is True  # the command as said
    code, out, _ = run("--config", str(config), "add", "http://10.1.2.3/mirror/", "--to", "post")
    assert out.splitlines()[1].startswith("note: 10.1.2.3 is a private address,")
    code, out, _ = run(
        "--config", str(config), "add", "http://localhost:8000/b/", "--set", "allow_private=true"
    )
    assert (code, len(out.splitlines())) == (ExitCode.OK, 1)
    allowed = ["--set", 'allow_private=["192.168.0.0/16"]']
    assert len(run("--config", str(config), "add", "http://192.168.1.9/c/", *allowed)[1].splitlines()) == 1
    assert (
        run("--config", str(config), "add", "http://[::1]/d/")[1]
        .splitlines()[1]
        .startswith("note: ::1 is a loopback")
    )
    assert len(run("--config", str(config), "add", "https://pytorch.org/blog/x/")[1].splitlines()) == 1


def test_a_mirror_goes_into_its_document_and_a_document_after_the_last(tmp_path: Path) -> None:
    """The file's comments, layout and other tables stay as they were; the secrets that notifiers take from
    the environment are not needed to add a page."""
    config = tmp_path / "config.toml"
    config.write_text(EXISTING)
    added = add_source(
        config, "https://wpnews.pro/news/rust-1-66.md", to="rust", env={}, settings={"robots": False}
    )
    assert (added.key, added.new_document) == ("rust/wpnews-pro", False)
    add_source(config, "https://example.org/posts/rust-1.66.0-ko.html", to="rust", id="ko", env={})
    add_source(config, "https://blog.rust-lang.org/2023/01/10/Rust-1.66.1.html", kind="markdown", env={})
    text = config.read_text()
    mirrors = (
        'Accept-Language = "en"\n\n'
        '[[documents.mirrors]]\nid = "wpnews-pro"\nurl = "https://wpnews.pro/news/rust-1-66.md"\n'
        'kind = "markdown"\nrobots = false\n\n'
        '[[documents.mirrors]]\nid = "ko"\nurl = "https://example.org/posts/rust-1.66.0-ko.html"\n\n'
        '[[documents]]\nid = "torch"\n'
    )
    assert mirrors in text
    document = (
        'url = "https://pytorch.org/blog/pytorch-2-13-release-blog/"\n\n'
        '[[documents]]\nid = "rust-1-66-1"\n\n[documents.canonical]\n'
        'url = "https://blog.rust-lang.org/2023/01/10/Rust-1.66.1.html"\nkind = "markdown"\n\n'
        "# Alerts go to the release channel.\n[[notify]]\n"
    )
    assert document in text
    assert (
        text.replace(mirrors, 'Accept-Language = "en"\n\n[[documents]]\nid = "torch"\n').replace(
            document,
            'url = "https://pytorch.org/blog/pytorch-2-13-release-blog/"\n\n# Alerts go to the release channel.\n'
            "[[notify]]\n",
        )
        == EXISTING
    )  # nothing else moved
    loaded = load_config(config, {"SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T/B/C"})
    assert [s.key for s in loaded.sources()] == [
        "rust/canonical", "rust/wpnews-pro", "rust/ko", "torch/canonical", "rust-1-66-1/canonical",
    ]  # fmt: skip
    assert loaded.document("rust").canonical.headers == {"Accept-Language": "en"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("https://pytorch.org/blog/pytorch-2-13-release-blog/",),
            "error: https://pytorch.org/blog/pytorch-2-13-release-blog/ is already watched, as torch/canonical\n",
        ),
        (
            ("https://m.example/", "--to", "nope"),
            'error: no document "nope"; configured documents: rust, torch\n',
        ),
        (  # an address urllib cannot read: refused as the configuration's check refuses it, as typed
            ("http://[::1",),
            'error: config.toml: documents[2].canonical.url: expected an http:// or https:// URL, found "http://[::1" '
            "(nothing was written)\n",
        ),
        (
            ("https://[x/post?utm_source=chat#top", "--to", "torch"),
            'error: config.toml: documents[1].mirrors[0].url: expected an http:// or https:// URL, found "https://[x/'
            'post?utm_source=chat#top" (nothing was written)\n',
        ),
        (  # an address as a browser's bar takes it: with the scheme it likely lacks
            ("pytorch.org/blog/post", "--to", "torch"),
            'error: config.toml: documents[1].mirrors[0].url: expected an http:// or https:// URL, found "pytorch.'
            'org/blog/post" (did you mean "https://pytorch.org/blog/post"?) (nothing was written)\n',
        ),
        (  # a feed's usual names (a JSON Feed's too, WordPress's feed), as a mirror: which of its posts
            ("https://m.example/feed.json", "--to", "torch"),
            "error: https://m.example/feed.json: a feed page needs entry (the post's URL (its link in the feed) or "
            'id; "*" for the list of posts): add it with --set entry=…\n',
        ),
        (
            ("https://m.example/blog/feed/", "--to", "torch"),
            "error: https://m.example/blog/feed/: a feed page needs entry (the post's URL (its link in the feed) or "
            'id; "*" for the list of posts): add it with --set entry=…\n',
        ),
        (
            ("ftp://m.example/", "--to", "torch"),
            'error: config.toml: documents[1].mirrors[0].url: expected an http:// or https:// URL, found "ftp://m.'
            'example/" (nothing was written)\n',
        ),
        (
            ("https://m.example/", "--to", "torch", "--id", "canonical"),
            'error: config.toml: documents[1].mirrors[0].id: duplicate source id "canonical" in document "torch" '
            "(nothing was written)\n",
        ),
        (
            ("https://m.example/", "--to", "torch", "--title", "T"),
            "error: --title names a new document; a mirror takes its document's title\n",
        ),
    ],
)
def test_what_cannot_be_added_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("config.toml").write_text(EXISTING)
    assert run("add", *args) == (ExitCode.USAGE, "", message)
    assert Path("config.toml").read_text() == EXISTING
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no temporary file left behind


def test_a_json_page_added_without_field_is_read_by_its_body_when_one_text_is_far_the_longest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: Server
) -> None:
    """`differ add` of a JSON page (by its suffix, or `--kind json`) names no `field`: the document is fetched,
    as `differ compare` fetches it, and its longest text is its body when it is far the longest; else the
    longest are named, and a page that cannot be read says why. Nothing is written but a source that reads."""
    import json

    monkeypatch.chdir(tmp_path)
    Path("config.toml").write_text(EXISTING)
    body = "Rust 1.66 is out. " * 30
    server.page(
        "/post.json", json.dumps({"title": "Rust 1.66", "data": {"body_md": body}}), ctype="application/json"
    )
    server.page("/api/post", json.dumps({"en": body, "ko": body[:-20]}), ctype="application/json")
    feed = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Blog",
        "items": [
            {
                "id": "1",
                "url": "https://blog.example.org/rust-1-66/",
                "title": "Rust 1.66",
                "content_html": body,
            }
        ],
    }
    server.page("/api/feed", json.dumps(feed), ctype="application/json")
    local = ("--set", "allow_private=true")
    assert run("add", server.url("/post.json"), "--to", "torch", *local) == (
        ExitCode.OK,
        "added torch/post to config.toml (a mirror of torch); try it: differ fetch torch/post\n"
        "note: reading field = data.body_md, its longest text (540 characters; next: title, 9); differ set "
        "torch/post field=… reads another\n",
        "",
    )
    slack = {"SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T/B/C"}
    (mirror,) = [s for s in load_config(Path("config.toml"), slack).sources() if s.key == "torch/post"]
    assert (mirror.kind, mirror.options["field"]) == ("json", "data.body_md")
    written = Path("config.toml").read_text()
    for args, message in (
        (  # two texts of a length: which is the body is the user's to say
            (server.url("/api/post"), "--kind", "json"),
            f"error: {server.url('/api/post')}: a json page needs field, the path of its body; its longest text "
            "fields: en (540 characters), ko (520 characters): add it with --set field=PATH (e.g. body_md or "
            "data.content), or --kind text to watch it whole\n",
        ),
        (  # a blog's JSON Feed, at an address that does not say so: read as a feed
            (server.url("/api/feed"), "--kind", "json"),
            f'error: {server.url("/api/feed")}: a JSON Feed: kind "feed" reads one of its posts, with entry = the '
            'post\'s link (the first: "Rust 1.66" <https://blog.example.org/rust-1-66/>), or its list of posts, '
            'with entry = "*": add it with --kind feed --set entry=…\n',
        ),
        (
            (server.url("/gone.json"),),
            f"error: {server.url('/gone.json')}: a json page needs field, the path of its body; reading it to "
            "look: HTTP 404 Not Found; add it with --set field=PATH (e.g. body_md or data.content), or --kind text "
            "to watch it whole\n",
        ),
    ):
        assert run("add", *args, *local) == (ExitCode.USAGE, "", message)
    assert Path("config.toml").read_text() == written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]  # looking stored nothing


def test_a_broken_file_is_reported_not_edited(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[[documents]]\nid = "x"\n')
    with pytest.raises(ConfigError, match=r'^config.toml: documents\[0\]: missing table "canonical"'):
        add_source(config, "https://example.org/post", env={})
    assert config.read_text() == '[[documents]]\nid = "x"\n'
    config.write_text('documents = [{id = "x", canonical = {url = "https://example.org/"}}]\n')
    with pytest.raises(ConfigError, match="not all written as \\[\\[documents\\]\\] tables; edit it by hand"):
        add_source(config, "https://example.org/other", to="x", env={})


def test_an_edit_made_meanwhile_is_never_lost(tmp_path: Path) -> None:
    """Another command edits the file while an add is under way (`differ pause` during `differ add
    --backfill`, whose captures are read between reading the file and writing it): the add is made again from
    the file as it is then, without reading the captures twice, and both edits stay. Where the page would now
    get another id than its history was stored under, the add is refused and writes nothing."""
    from differ.edit import set_paused

    config = tmp_path / "config.toml"
    config.write_text(EXISTING)
    calls: list[list[str]] = []

    def pause_meanwhile(new_text: str, keys: list[str]) -> None:
        calls.append(keys)
        assert set_paused(config, ["torch"], True, env={}) == ["torch/canonical"]

    assert (
        add_source(config, "https://example.org/post", env={}, before_write=pause_meanwhile).key
        == "post/canonical"
    )
    assert calls == [["post/canonical"]]
    text = config.read_text()
    assert "paused = true" in text and 'url = "https://example.org/post"' in text

    def take_its_id_meanwhile(new_text: str, keys: list[str]) -> None:
        add_source(config, "https://example.org/other", id="news", env={})

    with pytest.raises(ConfigError) as refused:
        add_source(config, "https://example.net/news", env={}, before_write=take_its_id_meanwhile)
    assert str(refused.value) == (
        f"{config}: changed meanwhile, and the page would now be news-2/canonical, not news/canonical as its "
        "history was stored; nothing was written, run it again"
    )
    assert "example.net" not in config.read_text() and 'id = "news"' in config.read_text()


def test_adds_at_once_in_processes_all_land(tmp_path: Path) -> None:
    """Six `differ add` processes at once: each that finds the file written meanwhile makes its edit again from
    the file as it is then, so every page is in it."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    config = tmp_path / "config.toml"
    config.write_text(EXISTING)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    urls = [f"https://example.org/post-{n}" for n in range(6)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "differ", "--config", str(config), "add", url],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for url in urls
    ]
    outcomes = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in procs]
    assert outcomes == [(0, "")] * 6
    added = set(urls)
    from differ.config import parse_config

    def watched(text: str) -> set[str]:
        return {s.url for s in parse_config(text, config, {}, notifiers=False).sources()}

    assert added and watched(config.read_text()) == watched(EXISTING) | added


def test_ids_from_urls() -> None:
    assert slug("https://pytorch.org/blog/pytorch-2-13-release-blog/") == "pytorch-2-13-release-blog"
    assert slug("https://blog.rust-lang.org/2022/12/15/Rust-1.66.0/") == "rust-1-66-0"
    assert slug("https://blog.rust-lang.org/2023/01/10/Rust-1.66.1.html") == "rust-1-66-1"
    assert slug("https://github.com/pytorch/pytorch/releases/tag/v2.13.0") == "pytorch-v2-13-0"
    assert slug("https://github.com/rust-lang/rust/releases/latest") == "rust-latest"
    assert slug("https://gitlab.com/inkscape/inkscape/-/releases/INKSCAPE_1_4") == "inkscape-inkscape_1_4"
    assert slug("https://www.example.org/") == "example-org"
    assert slug("https://example.org/%ED%95%9C%EA%B8%80") == "example-org"  # 한글: no letter an id takes
    # a forum topic by its slug, not its number; a script's page by its host and query
    assert slug("https://discuss.pytorch.kr/t/pytorch-2-13/1234") == "pytorch-2-13"
    assert slug("https://discuss.pytorch.kr/t/pytorch-2-13/1234/5") == "pytorch-2-13"
    assert slug("https://example.org/news/12345") == "12345"  # "news" is no title
    assert slug("https://example.org/index.php?p=123") == "example-org-123"
    assert slug("https://example.org/index.php?utm_source=feed&p=123") == "example-org-123"
    assert slug("https://example.org/index.html") == "example-org"
    assert host_id("https://www.wpnews.pro/x") == "wpnews-pro"
    # a translation is named by the language its address gives, as sites name them
    assert mirror_id("https://pytorch.org/de/blog/pytorch-2-13/") == "de"
    assert mirror_id("https://ja.example.org/blog/post") == "ja"
    assert mirror_id("https://example.org/blog/zh_CN/post") == "zh-cn"
    # a host that is a machine's address names no site: the page names the mirror
    assert mirror_id("http://10.0.0.5:8000/mirrors/wpnews.json") == "wpnews"
    assert mirror_id("http://[::1]:8000/copy/") == "copy"
    assert mirror_id("http://localhost:8000/") == "localhost"
    assert mirror_id("https://example.org/pt-br/post.html") == "pt-br"
    assert mirror_id("https://example.org/id/42/post") == "example-org"  # a number's place, not Indonesian
    assert mirror_id("https://example.org/blog/de/post") == "de"
    assert mirror_id("https://example.org/a/b/de/post") == "example-org"  # deep in the path: not a site's
    assert mirror_id("https://de.org/post") == "de-org"  # a domain, not a subdomain
    assert mirror_id("https://pytorch.kr/blog/2026/post/") == "pytorch-kr"
    assert unique("post", {"post", "post-2"}) == "post-3"
    assert unique("p" * 64, {"p" * 64}) == "p" * 62 + "-2"
    with pytest.raises(UsageError):
        value(object())


@given(st.one_of(st.text(), st.lists(st.text(max_size=5), max_size=4), st.booleans(), st.integers()))
def test_values_read_back_as_written(v: object) -> None:
    assert tomllib.loads(f"v = {value(v)}")["v"] == v


WATCHED = EXISTING.replace(
    'Accept-Language = "en"\n',
    'Accept-Language = "en"\n\n'
    "# The aggregator's copy.\n"
    '[[documents.mirrors]]\nid = "wpnews"\nurl = "https://wpnews.pro/news/rust-1-66"\n\n'
    '[documents.mirrors.headers]\nAccept-Language = "en"\n\n'
    '[[documents.mirrors]]\nid = "ko"\nurl = "https://example.org/ko/rust-1-66"\n',
)


def test_a_mirror_or_a_document_is_removed_with_its_comments_and_nothing_else(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(WATCHED)
    removed = remove_source(config, "rust/wpnews", env={})
    assert (removed.keys, removed.document) == (("rust/wpnews",), False)
    assert config.read_text() == EXISTING.replace(
        'Accept-Language = "en"\n',
        'Accept-Language = "en"\n\n[[documents.mirrors]]\nid = "ko"\nurl = "https://example.org/ko/rust-1-66"\n',
    )
    removed = remove_source(config, "rust", env={})
    assert (removed.keys, removed.document) == (("rust/canonical", "rust/ko"), True)
    assert (
        config.read_text()
        == EXISTING[: EXISTING.index("[[documents]]")]
        + EXISTING[EXISTING.index('[[documents]]\nid = "torch"') :]
    )
    remove_source(config, "torch", env={})
    assert config.read_text() == (
        '# Release posts we watch.\n[service]\ninterval = "1h"\n\n'
        '# Alerts go to the release channel.\n[[notify]]\nname = "team"\nkind = "slack"\n'
        'url = "${SLACK_WEBHOOK_URL}"\n'
    )


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "rust/canonical",
            "error: rust/canonical is the page the document rust is about; remove the document with its "
            "mirrors: differ remove rust\n",
        ),
        ("nope", 'error: no document "nope"; configured documents: rust, torch\n'),
        ("rust/nope", 'error: no source "rust/nope"; rust has: rust/canonical, rust/wpnews, rust/ko\n'),
        ("rust/", 'error: expected DOCUMENT or DOCUMENT/MIRROR, found "rust/"\n'),
        ("/ko", 'error: expected DOCUMENT or DOCUMENT/MIRROR, found "/ko"\n'),
        ("rust/ko/x", 'error: expected DOCUMENT or DOCUMENT/MIRROR, found "rust/ko/x"\n'),
        ("", 'error: expected DOCUMENT or DOCUMENT/MIRROR, found ""\n'),
    ],
)
def test_what_cannot_be_removed_leaves_the_file_as_it_was(tmp_path: Path, name: str, message: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(WATCHED)
    assert run("--config", str(config), "remove", name) == (ExitCode.USAGE, "", message)
    assert config.read_text() == WATCHED
    config.write_text('documents = [{id = "x", canonical = {url = "https://example.org/"}}]\n')
    code, _, err = run("--config", str(config), "remove", "x")
    assert (code, err) == (ExitCode.USAGE, "error: config.toml: its documents are not all written as "
                           "[[documents]] tables; edit it by hand\n")  # fmt: skip
    assert run("--config", str(tmp_path / "none.toml"), "remove", "x")[2] == (
        f"error: {tmp_path / 'none.toml'}: no such file; there is nothing to remove\n"
    )


ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.sampled_from(["a", "b", "c"]), st.none()),
        st.tuples(
            st.just("mirror"),
            st.sampled_from(["m1.example", "m2.example"]),
            st.sampled_from(["rust", "torch", "a", "b"]),
        ),
        st.tuples(st.just("remove"), st.sampled_from(["rust", "torch", "a", "b", "c"]), st.none()),
        st.tuples(st.just("remove-mirror"), st.sampled_from(["rust", "torch", "a"]), st.none()),
    ),
    max_size=8,
)


@given(ACTIONS)
@example(
    [("remove", "rust", None), ("remove", "torch", None), ("add", "a", None)]
)  # the first document again
@settings(max_examples=60, deadline=None)
def test_adding_and_removing_keep_everything_else_as_it_was(
    actions: list[tuple[str, str, str | None]],
) -> None:
    """Whatever is added and removed, in any order: the file reads as a valid configuration holding exactly
    what was asked, each remaining source with its settings, and the comments of what remains stay."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.toml"
        config.write_text(WATCHED)
        expected = {
            s.key: (s.url, s.headers)
            for s in load_config(
                config, {"SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T/B/C"}
            ).sources()
        }
        for action, name, to in actions:
            try:
                if action == "add":
                    added = add_source(config, f"https://{name}.example/post/{name}/", env={})
                    expected[added.key] = (f"https://{name}.example/post/{name}/", {})
                elif action == "mirror":
                    added = add_source(config, f"https://{name}/{to}/", to=to, env={})
                    expected[added.key] = (f"https://{name}/{to}/", {})
                elif action == "remove":
                    removed = remove_source(config, name, env={})
                    for key in removed.keys:
                        del expected[key]
                else:
                    mirrors = [k for k in expected if k.startswith(f"{name}/") and k != f"{name}/canonical"]
                    if mirrors:
                        remove_source(config, mirrors[0], env={})
                        del expected[mirrors[0]]
            except UsageError:
                pass  # no such document, or a URL already watched: refused, the file as it was
        loaded = load_config(config, {"SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T/B/C"})
        assert {s.key: (s.url, s.headers) for s in loaded.sources()} == expected
        text = config.read_text()
        assert text.startswith("# Release posts we watch.\n[service]\n")
        assert text.endswith(
            '# Alerts go to the release channel.\n[[notify]]\nname = "team"\nkind = "slack"\nurl = "${SLACK_WEBHOOK_URL}"\n'
        )
        assert "\n\n\n" not in text
        assert ("# The aggregator's copy." in text) == ("rust/wpnews" in expected)


def test_a_file_with_crlf_line_endings_keeps_them(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_bytes(WATCHED.replace("\n", "\r\n").encode())
    add_source(config, "https://m.example/rust/", to="rust", env={})
    remove_source(config, "rust/wpnews", env={})
    data = config.read_bytes()
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    assert b'[[documents.mirrors]]\r\nid = "m-example"\r\nurl = "https://m.example/rust/"\r\n' in data


def test_a_file_with_a_byte_order_mark_reads_and_keeps_it(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_bytes(
        b"\xef\xbb\xbf"
        + WATCHED.removeprefix('# Release posts we watch.\n[service]\ninterval = "1h"\n\n').encode()
    )
    slack = {"SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T/B/C"}
    assert load_config(config, slack).sources()[0].key == "rust/canonical"
    remove_source(config, "rust", env={})
    assert config.read_bytes().startswith(b'\xef\xbb\xbf[[documents]]\nid = "torch"')


def test_pause_and_resume_set_one_line_and_nothing_else(tmp_path: Path) -> None:
    """`differ pause` writes `paused = true` under the source's own header (a canonical's, a mirror's, or every
    source of a document); `differ resume` takes the line out again, leaving the file as it was."""
    config = tmp_path / "config.toml"
    config.write_text(WATCHED)
    assert run("--config", str(config), "pause", "rust/wpnews") == (
        ExitCode.OK,
        f"paused rust/wpnews in {config} (no longer checked, its record kept)\n",
        "",
    )
    assert config.read_text() == WATCHED.replace(
        '[[documents.mirrors]]\nid = "wpnews"\n', '[[documents.mirrors]]\npaused = true\nid = "wpnews"\n'
    )
    assert run("--config", str(config), "pause", "rust")[:2] == (
        ExitCode.OK,
        f"paused rust/canonical, rust/ko in {config} (no longer checked, their records kept)\n",
    )
    assert [s.paused for s in load_config(config, {"SLACK_WEBHOOK_URL": "https://h.example/"}).sources()] == [
        True,
        True,
        True,
        False,
    ]
    assert "[documents.canonical]\npaused = true\nurl = " in config.read_text()
    assert run("--config", str(config), "pause", "rust/ko")[:2] == (
        ExitCode.OK,
        "nothing to do: rust/ko is paused already\n",
    )
    assert run("--config", str(config), "resume", "rust", "torch")[:2] == (
        ExitCode.OK,
        f"resumed rust/canonical, rust/wpnews, rust/ko in {config} (checked again)\n",
    )
    assert config.read_text() == WATCHED
    config.write_text(WATCHED.replace('id = "ko"\n', 'id = "ko"\npaused = false  # for now\n'))
    assert run("--config", str(config), "pause", "rust/ko")[0] == ExitCode.OK
    assert 'id = "ko"\npaused = true\n' in config.read_text()  # the line that was there, set


def test_what_cannot_be_paused_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    assert run("--config", str(config), "pause", "rust") == (
        ExitCode.USAGE,
        "",
        f"error: {config}: no such file; there is nothing to pause\n",
    )
    config.write_text(WATCHED)
    assert run("--config", str(config), "pause", "rust/nope")[::2] == (
        ExitCode.USAGE,
        'error: no source "rust/nope"; configured sources: rust/canonical, rust/wpnews, rust/ko, '
        "torch/canonical\n",
    )
    inline = '[[documents]]\nid = "x"\ncanonical = { url = "https://example.org/x" }\n'
    config.write_text(inline)
    assert run("--config", str(config), "pause", "x")[::2] == (
        ExitCode.USAGE,
        "error: config.toml: x/canonical is not written as a [documents.canonical] table; edit it by hand\n",
    )
    assert config.read_text() == inline


def test_notify_add_writes_a_checked_destination_after_the_other_tables(
    tmp_path: Path, receiver: object
) -> None:
    """`differ notify add`: the [[notify]] table goes at the end, checked as config.toml's are; the others may take
    variables set only where differ runs. A name or a destination the file has, an unknown kind, option or document,
    a variable not set here, an invalid value: one line, exit 2, the file as it was."""
    from tests.conftest import Reply, Server
    from tests.test_notify import SECRET

    assert isinstance(receiver, Server)
    receiver.routes["/hooks"] = Reply(200)
    config = tmp_path / "config.toml"
    config.write_text(EXISTING)
    hooks = receiver.url("/hooks")
    code, out, err = run(
        "--config", str(config), "notify", "add", "webhook", hooks, "--set", f"secret={SECRET}"
    )
    assert (code, out, err) == (
        ExitCode.OK,
        f"added notifier webhook (webhook, every document) to {config}; try it: differ --config {config} notify "
        "test webhook\n"
        f"note: config.toml now holds its url and secret, and others can read it (mode 644: chmod 600 {config}): "
        'keep the file private, or write it as "${NAME}" and set NAME in the environment differ runs in\n',
        "",
    )
    assert config.read_text() == EXISTING + (
        f'\n[[notify]]\nname = "webhook"\nkind = "webhook"\nurl = "{hooks}"\nsecret = "{SECRET}"\n'
    )
    env = {"SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T/B/X", "GATE": "https://ntfy.example.org"}
    out, err = io.StringIO(), io.StringIO()
    code = main(["--config", str(config), "notify", "test", "webhook"], out=out, err=err, env=env)
    assert (code, err.getvalue()) == (ExitCode.OK, "") and len(receiver.requests_to("/hooks")) == 1
    out = io.StringIO()
    code = main(
        ["--config", str(config), "notify", "add", "ntfy", "--name", "phone", "--for", "torch",
         "--set", "topic=releases", "--set", "url=${GATE}", "--set", 'events=["changed"]'],
        out=out, err=io.StringIO(), env=env,
    )  # fmt: skip
    assert (code, out.getvalue()) == (
        ExitCode.OK,
        f"added notifier phone (ntfy, torch) to {config}; try it: differ --config {config} notify test phone\n",
    )
    [ntfy] = [n for n in load_config(config, env).notifiers if n.name == "phone"]
    assert (ntfy.kind, ntfy.documents, ntfy.events, ntfy.options["topic"]) == (
        "ntfy",
        ("torch",),
        ("changed",),
        "releases",
    )
    written = config.read_text()
    for args, message in [
        (("webhook", hooks, "--set", f"secret={SECRET}"), 'config.toml sends to this destination already, as notifier "webhook"'),
        (("slack", "https://hooks.slack.com/services/T/B/Y", "--name", "team"), 'config.toml has a notifier named "team" already; choose another --name'),
        (("slak", "https://x.org"), "expected a notifier kind, one of discord, email, gitea, github, gitlab, googlechat, matrix, mattermost, ntfy, slack, teams, telegram, wayback, webhook, zulip, found \"slak\""),
        (("slack", "https://hooks.slack.com/services/T/B/Y", "--for", "nope"), 'no document "nope"; configured documents: rust, torch'),
        (("slack", "${HOOK}"), "HOOK is not set here: the notifier is checked with the values differ will run with before it is written; set it and run this again"),
        (("webhook", "https://e.org/h", "--set", "secret=nope"), 'config.toml: notify (webhook-2).secret: expected "whsec_" followed by base64 (24 to 64 random bytes)'),
    ]:  # fmt: skip
        assert run("--config", str(config), "notify", "add", *args) == (
            ExitCode.USAGE,
            "",
            f"error: {message}\n",
        )
        assert config.read_text() == written
    fresh = tmp_path / "new" / "config.toml"  # a file made to hold a secret is its owner's alone
    code, out, _ = run(
        "--config", str(fresh), "notify", "add", "slack", "https://hooks.slack.com/services/T/B/Y"
    )
    assert (code, out.splitlines()[1], fresh.stat().st_mode & 0o777) == (
        ExitCode.OK,
        'note: config.toml now holds its url: keep the file private, or write it as "${NAME}" and set NAME in the '
        "environment differ runs in",
        0o600,
    )
    code, _, err = run("--config", str(config), "notify", "add", "slack", "https://hooks.slack.com/services/T/B/Y", "--set", "colour=red")  # fmt: skip
    assert (code, err.split(";")[0]) == (ExitCode.USAGE, 'error: --set: unknown option "colour"')
    # plain http across a network: written, with a note (this machine's, a private network's: none)
    code, out, _ = run(
        "--config", str(fresh), "notify", "add", "discord", "http://discord.com/api/webhooks/1/abc"
    )
    assert (code, out.splitlines()[2:]) == (
        ExitCode.OK,
        [
            "note: it posts to discord.com over plain http: its messages, and a webhook URL that is itself the "
            "secret, cross the network unencrypted; give it the https:// address"
        ],
    )


def test_only_plain_http_across_a_network_gets_a_note() -> None:
    from differ.edit.notifiers import plain_http

    for url in ("http://hooks.example.org/h", "http://8.8.8.8/h", "http://[2606:4700::1111]/h"):
        assert plain_http(url).startswith(f"it posts to {url.split('/')[2].strip('[]')} over plain http"), url
    for url in (
        "https://hooks.example.org/h",
        "http://127.0.0.1:8080/h",
        "http://10.0.0.5/h",
        "http://[::1]/h",
        "http://localhost/h",
        "http://alerts:8080/h",  # a name without a dot: a compose service, a host on the local network
        "http://receiver.localhost/h",
        "",
    ):
        assert plain_http(url) == "", url


def test_notify_remove_takes_one_destination_out_with_its_comments(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    hooks = '\n# Signed copies for the archive.\n[[notify]]\nname = "hooks"\nkind = "webhook"\nurl = "https://e.org/h"\n'
    config.write_text(EXISTING + hooks + '\n[notify.headers]\nX-Team = "release"\n')
    from differ.notify import Outbox
    from differ.store import Store

    outbox = Outbox(Store(tmp_path / "snapshots"))  # two alerts the team has not had yet
    for n in (1, 2):
        outbox.enqueue("team", f"msg_{n:032x}", MESSAGE)
    held = tmp_path / "snapshots" / "outbox" / "team" / "failed"
    assert run("--config", str(config), "notify", "remove", "team") == (
        ExitCode.OK,
        f"removed notifier team (slack) from {config}; the 2 alerts it had not delivered are kept in {held} "
        "(differ outbox retry ID sends one to a notifier of that name)\n",
        "",
    )  # no longer owed, so `differ status` does not wait for them; kept, with why
    assert outbox.messages("team", "pending") == []
    assert [m.data["last_error"] for m in outbox.messages("team", "failed")] == [
        "its [[notify]] was removed from the configuration"
    ] * 2
    before, _, _ = EXISTING.partition("# Alerts go to the release channel.")
    assert config.read_text() == before + hooks.lstrip("\n") + '\n[notify.headers]\nX-Team = "release"\n'
    written = config.read_text()
    assert run("--config", str(config), "notify", "remove", "team") == (
        ExitCode.USAGE,
        "",
        'error: no notifier "team"; configured notifiers: hooks\n',
    )
    assert run("--config", str(config), "notify", "remove", "hooks")[0] == ExitCode.OK
    assert config.read_text() == before.rstrip("\n") + "\n"  # its sub-table went with it
    inline = tmp_path / "inline.toml"
    inline.write_text(
        'notify = [{name = "a", kind = "slack", url = "https://hooks.slack.com/services/T/B/C"}]\n'
    )
    assert run("--config", str(inline), "notify", "remove", "a") == (
        ExitCode.USAGE,
        "",
        "error: inline.toml: its notifiers are not all written as [[notify]] tables; edit it by hand\n",
    )
    assert written != config.read_text() and tomllib.loads(inline.read_text())["notify"][0]["name"] == "a"


def test_set_writes_each_option_in_its_source_table_and_nothing_else(tmp_path: Path) -> None:
    """`differ set`: a new option goes after the last line of the source's own table (before the blank lines
    and comments leading into the next); one written already has its line (or lines) replaced or, with
    `--unset`, taken out; the output says what each was."""
    config = tmp_path / "config.toml"
    config.write_text(WATCHED)
    assert run("--config", str(config), "set", "rust/wpnews", "interval=1h", "selector=article .post") == (
        ExitCode.OK,
        'rust/wpnews: interval = "1h" (not set before)\n'
        'rust/wpnews: selector = "article .post" (not set before)\n'
        f"written to {config}; try it: differ --config {config} fetch rust/wpnews\n",
        "",
    )
    wpnews = '[[documents.mirrors]]\nid = "wpnews"\nurl = "https://wpnews.pro/news/rust-1-66"\n'
    assert config.read_text() == WATCHED.replace(
        wpnews, wpnews + 'interval = "1h"\nselector = "article .post"\n'
    )
    assert run("--config", str(config), "set", "rust/wpnews", "interval=2h", "--unset", "selector")[:2] == (
        ExitCode.OK,
        'rust/wpnews: interval = "2h" (was "1h")\n'
        'rust/wpnews: selector taken out (was "article .post"; its default again)\n'
        f"written to {config}; try it: differ --config {config} fetch rust/wpnews\n",
    )
    assert config.read_text() == WATCHED.replace(wpnews, wpnews + 'interval = "2h"\n')
    assert run("--config", str(config), "set", "rust", "interval=2h")[:2] == (
        ExitCode.OK,
        'rust/canonical: interval = "2h" (not set before)\nrust/ko: interval = "2h" (not set before)\n'
        f"written to {config}\n",
    )
    sources = load_config(config, {"SLACK_WEBHOOK_URL": "https://h.example/"}).sources()
    assert [(s.key, s.interval) for s in sources] == [
        ("rust/canonical", 7200.0),
        ("rust/wpnews", 7200.0),
        ("rust/ko", 7200.0),
        ("torch/canonical", None),  # the service's interval
    ]
    assert run("--config", str(config), "set", "rust/ko", "interval=2h")[:2] == (
        ExitCode.OK,
        "nothing to do: rust/ko has those options already\n",
    )
    assert run("--config", str(config), "set", "rust", "--unset", "interval")[0] == ExitCode.OK
    assert config.read_text() == WATCHED
    assert run("--config", str(config), "set", "rust/ko", "--set", "interval=3h")[
        :2
    ] == (  # as `differ add` has it
        ExitCode.OK,
        f'rust/ko: interval = "3h" (not set before)\nwritten to {config}\n',
    )
    assert run("--config", str(config), "set", "rust/ko", "--set", "interval=4h", "stale_after=1d")[:2] == (
        ExitCode.OK,
        f'rust/ko: interval = "4h" (was "3h")\nrust/ko: stale_after = "1d" (not set before)\nwritten to {config}\n',
    )  # a setting after --set's own, as a shell user writes it
    assert run("--config", str(config), "set", "--set", "interval=5h", "rust/ko")[:2] == (
        ExitCode.OK,
        f'rust/ko: interval = "5h" (was "4h")\nwritten to {config}\n',
    )  # the source after --set's pair is still the source


def test_set_on_a_document_gives_a_mirror_s_options_to_its_mirrors_alone(tmp_path: Path) -> None:
    """`differ set DOCUMENT stale_after=3d`: the canonical takes none of a mirror's options (`stale_after`,
    `accept`, `translation`), so they go to the mirrors, the others to every source; the canonical named itself
    is refused, as is a document without mirrors."""
    config = tmp_path / "config.toml"
    config.write_text(WATCHED)
    assert run("--config", str(config), "set", "rust", "stale_after=3d", "interval=2h")[:2] == (
        ExitCode.OK,
        'rust/canonical: interval = "2h" (not set before)\n'
        'rust/wpnews: stale_after = "3d" (not set before)\nrust/wpnews: interval = "2h" (not set before)\n'
        'rust/ko: stale_after = "3d" (not set before)\nrust/ko: interval = "2h" (not set before)\n'
        f"written to {config}\n",
    )
    sources = load_config(config, {"SLACK_WEBHOOK_URL": "https://h.example/"}).sources()
    assert [(s.key, s.stale_after) for s in sources][:3] == [
        ("rust/canonical", 0.0),
        ("rust/wpnews", 3 * 86400.0),
        ("rust/ko", 3 * 86400.0),
    ]
    assert (
        run("--config", str(config), "set", "rust", "--unset", "stale_after", "--unset", "interval")[0] == 0
    )
    assert config.read_text() == WATCHED
    assert run("--config", str(config), "set", "rust/canonical", "stale_after=3d") == (
        ExitCode.USAGE,
        "",
        "error: config.toml: documents[0].canonical.stale_after: only a mirror can be stale; set it on the "
        "mirrors (nothing was written)\n",
    )
    assert run("--config", str(config), "set", "torch", "accept=['extra: *']") == (
        ExitCode.USAGE,
        "",
        "error: torch has no mirrors to take accept (a mirror's option); add one: differ add URL --to torch\n",
    )
    assert config.read_text() == WATCHED


def test_set_replaces_an_option_written_over_several_lines_with_its_comments_in_place(tmp_path: Path) -> None:
    """A list over several lines is one option: replaced or taken out whole, the other lines as they were."""
    written = (
        '[[documents]]\nid = "post"\n\n[documents.canonical]\nurl = "https://example.org/post/"\n'
        'ignore = [\n  \'Views: \\d+\',  # the counter\n  "Share",\n]\nselector = "article"  # the post\n\n'
        '# the copy\n[[documents.mirrors]]\nid = "copy"\nurl = "https://example.net/post.json"\nkind = "json"\n'
        'field = "body_md"'  # no newline at the end
    )
    config = tmp_path / "config.toml"
    config.write_text(written)
    assert run("--config", str(config), "set", "post/canonical", 'ignore=["Views"]')[0] == ExitCode.OK
    assert config.read_text() == written.replace(
        "ignore = [\n  'Views: \\d+',  # the counter\n  \"Share\",\n]\n", 'ignore = ["Views"]\n'
    )
    assert run("--config", str(config), "set", "post/copy", "interval=1d")[0] == ExitCode.OK
    assert config.read_text().endswith('field = "body_md"\ninterval = "1d"\n')
    assert run("--config", str(config), "set", "post/copy", "--unset", "kind")[::2] == (
        ExitCode.USAGE,
        'error: post/copy: kind "html" takes no field: take it out with it (--unset field)\n',
    )  # taken out, the kind is html's
    assert run("--config", str(config), "set", "post/copy", "kind=text", "--unset", "field")[0] == ExitCode.OK
    assert config.read_text().endswith('kind = "text"\ninterval = "1d"\n')
    assert run("--config", str(config), "set", "post/canonical", "--unset", "ignore")[0] == ExitCode.OK
    assert 'url = "https://example.org/post/"\nselector = "article"  # the post\n\n# the copy\n' in (
        config.read_text()
    )


def test_set_url_watches_the_page_a_link_names_and_never_one_watched_already(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(WATCHED)
    new = "https://blog.rust-lang.org/2022/12/15/Rust-1.66.0-moved/"
    assert run("--config", str(config), "set", "rust/canonical", f"url={new}?utm_source=chat#top")[:2] == (
        ExitCode.OK,
        f"watching {new}: the link's #fragment and tracking parameters left out\n"
        'rust/canonical: url = "https://blog.rust-lang.org/2022/12/15/Rust-1.66.0-moved/" '
        '(was "https://blog.rust-lang.org/2022/12/15/Rust-1.66.0/")\n'
        f"written to {config}; try it: differ --config {config} fetch rust/canonical\n",
    )
    assert config.read_text() == WATCHED.replace("Rust-1.66.0/", "Rust-1.66.0-moved/")
    # the same page as another source's, however spelled: refused
    assert run("--config", str(config), "set", "rust/ko", "url=http://www.wpnews.pro/news/rust-1-66/")[
        ::2
    ] == (
        ExitCode.USAGE,
        "error: http://www.wpnews.pro/news/rust-1-66/ is already watched, as rust/wpnews "
        "(https://wpnews.pro/news/rust-1-66)\n",
    )
    assert run("--config", str(config), "set", "torch", f"url={new}")[::2] == (
        ExitCode.USAGE,
        f"error: {new} is already watched, as rust/canonical\n",
    )
    assert run("--config", str(config), "set", "rust", "url=https://example.org/x")[::2] == (
        ExitCode.USAGE,
        "error: url names one page: set it on one source, as DOCUMENT/SOURCE\n",
    )
    assert config.read_text() == WATCHED.replace("Rust-1.66.0/", "Rust-1.66.0-moved/")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["rust/ko", "selecter=article"],
            'error: unknown option "selecter" (did you mean "selector"?); options: accept, allow_private, api, command, entry, '
            "exclude, field, follow, follow_with, format, headers, ignore, interval, kind, languages, metadata, paused, robots, "
            "selector, settled_after, settled_interval, slug, stale_after, title, translation, url\n",
        ),
        (
            ["rust/ko", "interval=soon"],
            'error: config.toml: documents[0].mirrors[1].interval: expected a duration such as "30m", "1h30m" or "5s", '
            'found "soon" (nothing was written)\n',
        ),
        (
            ["rust/ko", "kind=json"],
            "error: rust/ko: a json page needs field (path of the body, e.g. body_md or data.content): set it "
            "too, field=…\n",
        ),
        (
            ["rust/ko", "selector=article", "kind=text"],
            'error: rust/ko: kind "text" takes no selector: take it out with it (--unset selector)\n',
        ),
        (
            ["rust/canonical", "headers={}"],
            "error: config.toml: rust/canonical's headers is not written as a line of its table; edit it by "
            "hand\n",
        ),
        (
            ["rust/nope", "interval=1h"],
            'error: no source "rust/nope"; configured sources: rust/canonical, '
            "rust/wpnews, rust/ko, torch/canonical\n",
        ),
        (
            ["rust/ko"],
            "error: no option given: expected SOURCE… NAME=VALUE… (e.g. differ set pytorch-2-13/canonical "
            "interval=1h), or --unset NAME\n",
        ),
        (
            ["interval=1h"],
            "error: no source named: expected SOURCE… NAME=VALUE… (e.g. differ set pytorch-2-13/canonical "
            "interval=1h), or --service NAME=VALUE… for the [service] table\n",
        ),
        (
            ["rust/ko", "--unset", "url"],
            'error: --unset: no option "url" to take out; options: accept, allow_private, api, command, entry, exclude, field, '
            "follow, follow_with, format, headers, ignore, interval, kind, languages, metadata, paused, robots, selector, settled_after, settled_interval, slug, "
            "stale_after, title, translation\n",
        ),
        (
            ["rust/ko", "interval=1h", "--unset", "interval"],
            "error: interval is both set and taken out: give one of the two\n",
        ),
        (
            ["rust/ko", "allow_private=[127.0.0.1]"],
            "error: config.toml: documents[0].mirrors[1].allow_private: expected true, false or a list of addresses "
            'such as "127.0.0.1/32", found "[127.0.0.1]" (a list whose quotes the shell took out? quote it whole: '
            "'…=[\"127.0.0.1\"]') (nothing was written)\n",
        ),
        (  # `languages=["ko"]` unquoted: the shell took the quotes out
            ["rust/ko", "languages=[ko, ja]"],
            "error: config.toml: documents[0].mirrors[1].languages: expected items from en, de, es, fr, it, nl, pt, "
            'sv, pl, tr, id, vi, ko, ja, zh, ru, uk, el, ar, he, found "[ko, ja]" (a list whose quotes the shell '
            'took out? quote it whole: \'…=["ko", "ja"]\') (nothing was written)\n',
        ),
    ],
)
def test_what_cannot_be_set_leaves_the_file_as_it_was(tmp_path: Path, args: list[str], message: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(WATCHED)
    assert run("--config", str(config), "set", *args)[::2] == (ExitCode.USAGE, message)
    assert config.read_text() == WATCHED


def test_set_title_names_a_document_and_writes_it_in_the_document_s_own_table(tmp_path: Path) -> None:
    """`title` is a document's: written under its [[documents]] header (before its canonical's table), with the
    sources' options of the same command in theirs; named on a source it is refused, saying how to name it."""
    config = tmp_path / "config.toml"
    config.write_text(WATCHED)
    assert run("--config", str(config), "set", "torch", "title=PyTorch 2.13", "interval=1d")[:2] == (
        ExitCode.OK,
        'torch: title = "PyTorch 2.13" (not set before)\ntorch/canonical: interval = "1d" (not set before)\n'
        f"written to {config}\n",
    )
    assert config.read_text() == WATCHED.replace(
        '[[documents]]\nid = "torch"\n\n[documents.canonical]\nurl = "https://pytorch.org/blog/pytorch-2-13-release-blog/"\n',
        '[[documents]]\nid = "torch"\ntitle = "PyTorch 2.13"\n\n[documents.canonical]\n'
        'url = "https://pytorch.org/blog/pytorch-2-13-release-blog/"\ninterval = "1d"\n',
    )
    page = "https://www.pytorch.org/blog/pytorch-2-13-release-blog"  # the canonical page names its document
    assert run("--config", str(config), "set", page, "--unset", "title", "--unset", "interval")[:2] == (
        ExitCode.OK,
        'torch: title taken out (was "PyTorch 2.13"; its default again)\n'
        'torch/canonical: interval taken out (was "1d"; its default again)\n'
        f"written to {config}\n",
    )
    assert config.read_text() == WATCHED
    assert run("--config", str(config), "set", "rust", "title=Rust 1.66")[1].startswith(
        'rust: title = "Rust 1.66" (was "Rust 1.66.0")\n'
    )
    assert 'id = "rust"\ntitle = "Rust 1.66"\n' in config.read_text()
    assert run("--config", str(config), "set", "rust/ko", "title=x")[::2] == (
        ExitCode.USAGE,
        "error: title is a document's, not a source's: name the document (differ set rust title=…)\n",
    )


def test_set_without_a_file_says_how_to_make_one(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    assert run("--config", str(config), "set", "rust", "interval=1h") == (
        ExitCode.USAGE,
        "",
        f"error: {config}: no such file; there is nothing to set (differ add URL makes it)\n",
    )
    assert not config.exists()


def test_set_of_a_value_the_shell_split_at_its_spaces_says_to_quote_it(tmp_path: Path) -> None:
    """`differ set rust stale_after=3 days` reaches differ as `stale_after=3` and a source named `days`: the error
    says which word it was and how to quote it; a source that is not there is said alone, and nothing is
    written."""
    config = tmp_path / "config.toml"
    config.write_text(EXISTING)
    assert run("--config", str(config), "set", "rust", "interval=2", "hours") == (
        ExitCode.USAGE,
        "",
        'error: no document "hours"; configured documents: rust, torch ("hours" came after interval=2: quote a '
        "value with spaces whole, 'interval=2 hours')\n",
    )
    assert run("--config", str(config), "set", "go", "interval=2h")[2] == (
        'error: no document "go"; configured documents: rust, torch\n'
    )
    assert config.read_text() == EXISTING


def test_notify_set_writes_a_destination_s_options_in_its_table(tmp_path: Path) -> None:
    """`differ notify set`: the options go into the [[notify]] table of that name, as `differ set` writes a
    source's; a `${NAME}` the file had and this shell lacks (the webhook URL, set where differ runs) is taken on
    trust, and each option set is checked on its own."""
    config = tmp_path / "config.toml"
    config.write_text(EXISTING)
    assert run("--config", str(config), "notify", "set", "team", 'events=["changed", "moved"]') == (
        ExitCode.OK,
        'team: events = ["changed", "moved"] (not set before)\n'
        f"written to {config}; see what it will send: differ --config {config} notify preview SOURCE --name team\n",
        "",
    )
    assert config.read_text() == EXISTING + 'events = ["changed", "moved"]\n'
    assert run("--config", str(config), "notify", "set", "team", "--unset", "events")[0] == ExitCode.OK
    assert config.read_text() == EXISTING
    assert run("--config", str(config), "notify", "set", "team", "--set", "digest=1h")[0] == ExitCode.OK
    slack = {"SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0/B0/x"}
    assert load_config(config, slack).notifiers[0].digest == 3600.0
    assert run("--config", str(config), "notify", "set", "--set", "digest=2h", "team")[0] == ExitCode.OK
    assert load_config(config, slack).notifiers[0].digest == 7200.0  # the name after --set's pair
    assert run("--config", str(config), "notify", "set", "digest=3h", "team")[0] == ExitCode.OK
    assert load_config(config, slack).notifiers[0].digest == 10800.0  # and before it


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["team", 'events=["changd"]'],
            "error: config.toml: notify[0].events: expected items from changed, mirror_drift, fetch_failing, "
            'recovered, delivery_failed, metadata, translation_found, moved, first_version, found "changd" (did you mean "changed"?) (nothing was written)\n',
        ),
        (
            ["team", 'documents=["rust", "nope"]'],
            'error: config.toml: notify[0].documents: no document "nope"; configured documents: rust, torch '
            "(nothing was written)\n",
        ),
        (
            ["team", "forum=true"],
            'error: config.toml: notify[0].forum: kind "slack" takes no forum (nothing was written)\n',
        ),
        (["team", "evnts=[]"], 'error: unknown option "evnts" (did you mean "events"?); options: '),
        (["team", "name=other"], 'error: unknown option "name"; options: '),
        (["nope", "digest=1h"], 'error: no notifier "nope"; configured notifiers: team\n'),
        (
            ["team", "digest", "1h"],
            "error: expected one destination's NAME and its NAME=VALUE… options (found team, digest, 1h)\n",
        ),
        ([], "error: expected one destination's NAME and its NAME=VALUE… options (found none)\n"),
        (
            ["team", "url=${OTHER_URL}"],
            "error: OTHER_URL is not set here: the notifier is checked with the values differ will run with before "
            "it is written; set it and run this again\n",
        ),
        (
            ["team"],
            "error: no option given: expected NAME NAME=VALUE… (e.g. differ notify set slack "
            '\'events=["changed", "moved"]\'), or --unset NAME\n',
        ),
    ],
)
def test_what_a_destination_cannot_be_set_to_leaves_the_file_as_it_was(
    tmp_path: Path, args: list[str], message: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(EXISTING)
    code, out, err = run("--config", str(config), "notify", "set", *args)
    assert (code, out, err[: len(message)]) == (ExitCode.USAGE, "", message)
    assert config.read_text() == EXISTING


def test_notify_set_shows_secrets_redacted_and_says_where_one_is_written_as_it_is(tmp_path: Path) -> None:
    """Every `${NAME}` set here: the whole table is checked as the configuration's are. A secret is never
    printed; one written into the file as it is gets the same note as `differ notify add` gives."""
    from tests.test_notify import SECRET

    config = tmp_path / "config.toml"
    hook = '[[notify]]\nname = "hook"\nkind = "webhook"\nurl = "https://hooks.example.org/a"\nsecret = "${HOOK_SECRET}"\n'
    config.write_text(EXISTING + "\n" + hook)
    config.chmod(0o644)
    env = {"SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0/B0/x", "HOOK_SECRET": SECRET}
    out, err = io.StringIO(), io.StringIO()
    args = [
        "--config",
        str(config),
        "notify",
        "set",
        "hook",
        "url=https://hooks.example.org/b",
        f"secret={SECRET}",
    ]
    assert main(args, out=out, err=err, env=env) == ExitCode.OK
    assert out.getvalue() == (
        'hook: url = "https://hooks.example.org/…" (was "https://hooks.example.org/…")\n'
        'hook: secret = "whsec_…" (was "${HOOK_SECRET}")\n'
        f"written to {config}; see what it will send: differ --config {config} notify preview SOURCE --name hook\n"
        f"note: config.toml now holds its url and secret, and others can read it (mode 644: chmod 600 {config}): keep the "
        'file private, or write it as "${NAME}" and set NAME in the environment differ runs in\n'
    )
    assert SECRET not in out.getvalue() + err.getvalue()
    assert config.read_text().endswith(f'url = "https://hooks.example.org/b"\nsecret = "{SECRET}"\n')
    out = io.StringIO()  # a new url over plain http across a network: the note `differ notify add` gives
    args = ["--config", str(config), "notify", "set", "hook", "url=http://hooks.example.org/c"]
    assert main(args, out=out, err=io.StringIO(), env=env) == ExitCode.OK
    assert out.getvalue().splitlines()[-1] == (
        "note: it posts to hooks.example.org over plain http: its messages, and a webhook URL that is itself the "
        "secret, cross the network unencrypted; give it the https:// address"
    )
    out, err = io.StringIO(), io.StringIO()
    bad = ["--config", str(config), "notify", "set", "hook", "secret=whsec_!!"]
    assert main(bad, out=out, err=err, env=env) == ExitCode.USAGE
    assert err.getvalue() == (
        'error: config.toml: notify[1].secret: the part after "whsec_" is not valid base64 (nothing was written)\n'
    )


SETTINGS = st.lists(
    st.tuples(
        st.sampled_from(["rust", "rust/wpnews", "rust/ko", "torch/canonical"]),
        st.sampled_from(["interval", "paused", "exclude", "title", "stale_after"]),
        st.one_of(
            st.none(),
            st.sampled_from(["1h", "3d", "Rust 1.66", "#x\"'\\", "키 ✓"]),  # values some options take
            st.text(max_size=12),
            st.booleans(),
            st.lists(st.sampled_from([".share", "nav", "a, b"]) | st.text(max_size=6), max_size=3),
        ),
    ),
    max_size=6,
)


@given(SETTINGS)
@example([("rust", "exclude", "(\x1b")])  # an XPath selector holding a control character: refused in words
@settings(max_examples=60, deadline=None)
def test_setting_and_taking_out_options_leaves_the_rest_as_it_was(
    steps: list[tuple[str, str, object]],
) -> None:
    """Whatever is set, to whatever value, in any order (None: taken out): a value the configuration refuses
    leaves the file as it was; one it takes reads back where it was put; and once every option is taken out
    again, the file is as it was written, byte for byte."""
    import tempfile

    from differ.errors import DifferError

    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.toml"
        config.write_text(WATCHED)
        env = {"SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T/B/C"}
        for name, option, new in steps:
            before = config.read_text()
            names = [name.split("/")[0]] if option == "title" else [name]
            try:
                if new is None:
                    set_options(config, names, {}, [option], env={})
                else:
                    set_options(config, names, {option: new}, env={})
            except DifferError:
                assert config.read_text() == before
                continue
            load_config(config, env)  # valid
            written = tomllib.loads(config.read_text())
            tables = {
                "rust": written["documents"][0],
                "torch": written["documents"][1],
                "rust/canonical": written["documents"][0]["canonical"],
                "rust/wpnews": written["documents"][0]["mirrors"][0],
                "rust/ko": written["documents"][0]["mirrors"][1],
                "torch/canonical": written["documents"][1]["canonical"],
            }
            chosen = (
                [names[0]]
                if option == "title" or "/" in name
                else [  # a document's mirrors alone take a mirror's option
                    k
                    for k in tables
                    if k.startswith(f"{name}/") and not (option == "stale_after" and k.endswith("/canonical"))
                ]
            )
            assert [tables[key].get(option) for key in chosen] == [new] * len(chosen)
        for name in ("rust", "torch"):
            set_options(config, [name], {}, ["interval", "paused", "exclude", "title", "stale_after"], env={})
        assert config.read_text() == WATCHED.replace('title = "Rust 1.66.0"\n', "")


def test_set_keeps_a_file_s_line_endings_and_byte_order_mark(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_bytes(b"\xef\xbb\xbf" + WATCHED.replace("\n", "\r\n").encode())
    assert run("--config", str(config), "set", "torch", "interval=1h", "title=PyTorch")[0] == ExitCode.OK
    assert run("--config", str(config), "notify", "set", "team", "--set", "digest=1h")[0] == ExitCode.OK
    written = config.read_bytes()
    assert written.startswith(b"\xef\xbb\xbf# Release posts")
    assert b"\n" not in written.replace(b"\r\n", b"")
    assert (
        written.decode().removeprefix("\ufeff").replace("\r\n", "\n")
        == WATCHED.replace(
            '[[documents]]\nid = "torch"\n', '[[documents]]\nid = "torch"\ntitle = "PyTorch"\n'
        ).replace(
            'url = "https://pytorch.org/blog/pytorch-2-13-release-blog/"\n',
            'url = "https://pytorch.org/blog/pytorch-2-13-release-blog/"\ninterval = "1h"\n',
        )
        + 'digest = "1h"\n'
    )


def test_set_service_writes_the_service_table_and_makes_one_above_the_documents(tmp_path: Path) -> None:
    """`differ set --service`: [service]'s options, edited as a source's are; a file without the table gets one
    before its first table (and the comments that lead into it). A running service takes them when it starts."""
    from differ.config import SERVICE_OPTIONS

    config = tmp_path / "config.toml"
    config.write_text(WATCHED)
    assert run("--config", str(config), "set", "--service", "interval=2h", "per_host_delay=10s") == (
        ExitCode.OK,
        'service: interval = "2h" (was "1h")\nservice: per_host_delay = "10s" (not set before)\n'
        f"written to {config}; a running differ run takes [service] settings when it starts again\n",
        "",
    )
    assert config.read_text() == WATCHED.replace(
        'interval = "1h"\n', 'interval = "2h"\nper_host_delay = "10s"\n', 1
    )
    assert (
        run("--config", str(config), "set", "--service", "--unset", "per_host_delay", "interval=1h")[0] == 0
    )
    assert config.read_text() == WATCHED
    bare = WATCHED.replace('[service]\ninterval = "1h"\n\n', "")
    config.write_text(bare)
    assert run("--config", str(config), "set", "--service", "--unset", "interval")[1] == (
        "nothing to do: the [service] table has those options already\n"
    )
    assert run("--config", str(config), "set", "--service", "interval=1h")[0] == ExitCode.OK
    assert config.read_text() == '[service]\ninterval = "1h"\n\n' + bare
    assert run("--config", str(config), "set", "--service", "intervl=1h")[::2] == (
        ExitCode.USAGE,
        'error: unknown option "intervl" (did you mean "interval"?); options: '
        + ", ".join(sorted(SERVICE_OPTIONS))
        + "\n",
    )
    assert run("--config", str(config), "set", "--service", "rust", "interval=1h")[::2] == (
        ExitCode.USAGE,
        "error: --service sets the [service] table: name no source with it (found rust)\n",
    )
    assert run("--config", str(config), "set", "--service", "workers=0")[2].endswith(
        "(nothing was written)\n"
    )
    assert config.read_text() == '[service]\ninterval = "1h"\n\n' + bare


def _editor(tmp_path: Path, body: str) -> dict[str, str]:
    """An editor (a real process, as $EDITOR runs) that runs `body` with `path` the file to edit and `n` how many
    times it has been opened before."""
    import sys

    script = tmp_path / "editor.py"
    count = tmp_path / "opened"
    script.write_text(
        "import sys\nfrom pathlib import Path\npath = Path(sys.argv[1])\n"
        f"count = Path({str(count)!r})\nn = int(count.read_text()) if count.exists() else 0\n"
        "count.write_text(str(n + 1))\n" + body
    )
    return {"EDITOR": f"{sys.executable} {script}"}


def test_config_edit_writes_the_file_back_only_when_it_reads(tmp_path: Path) -> None:
    """`differ config edit`: the file in the user's editor; written back when it reads as a configuration, with a
    notifier's variable set only where differ runs taken on trust (and said); else the file as it was and the
    text kept for the user."""
    config = tmp_path / "config.toml"
    config.write_text(EXISTING)
    mirror = '\n[[documents.mirrors]]\nid = "copy"\nurl = "https://example.net/torch"\n'
    env = _editor(
        tmp_path, f"path.write_text(path.read_text().replace('# Alerts', {mirror!r} + '\\n# Alerts'))\n"
    )
    out, err = io.StringIO(), io.StringIO()
    assert main(["--config", str(config), "config", "edit"], out=out, err=err, env=env) == ExitCode.OK
    assert (out.getvalue(), err.getvalue()) == (
        f"{config}: written (2 documents, 3 sources); a running differ run reads it within seconds\n"
        "note: notifier team takes SLACK_WEBHOOK_URL, not set here: taken as it will be where differ runs\n",
        "",
    )
    assert config.read_text() == EXISTING.replace("# Alerts", mirror + "\n# Alerts")
    written = config.read_text()
    env = _editor(
        tmp_path,
        "path.write_text(path.read_text().replace('url = \"https://example.net/torch\"', 'url = 3'))\n",
    )
    out, err = io.StringIO(), io.StringIO()
    assert main(["--config", str(config), "config", "edit"], out=out, err=err, env=env) == ExitCode.USAGE
    draft = err.getvalue().rsplit("your text is in ", 1)[1].strip()
    assert err.getvalue() == (
        "error: config.toml: documents[1].mirrors[0].url: expected a string, found 3\n"
        f"differ: {config} is as it was; your text is in {draft}\n"
    )
    assert config.read_text() == written
    assert "url = 3" in Path(draft).read_text()
    assert (Path(draft).stat().st_mode & 0o777) == 0o600  # a config may hold secrets
    assert Path(draft).parent == config.parent and Path(draft).name.startswith(".config-edit-")


def test_config_edit_opens_the_file_again_while_asked_and_never_writes_over_another_edit(
    tmp_path: Path,
) -> None:
    from differ.configure import config_edit

    config = tmp_path / "config.toml"
    config.write_text(EXISTING)
    # the first time a mistake, the second time mended
    env = _editor(
        tmp_path,
        "import re\n"
        "value = 'soon' if n == 0 else '2h'\n"
        'path.write_text(re.sub(r\'interval = "[^"]*"\', f\'interval = "{value}"\', path.read_text(), count=1))\n',
    )
    asked: list[int] = []
    out, err = io.StringIO(), io.StringIO()
    assert config_edit(config, out, err, env, lambda: not asked.append(1) and len(asked) < 3) == ExitCode.OK
    assert (len(asked), err.getvalue()) == (
        1,
        'error: config.toml: service.interval: expected a duration such as "30m", "1h30m" or "5s", found "soon"\n',
    )
    assert config.read_text() == EXISTING.replace('interval = "1h"', 'interval = "2h"')
    # another command writes the file while it is open: that edit stays, this one is kept aside
    env = _editor(
        tmp_path,
        f"Path({str(config)!r}).write_text(Path({str(config)!r}).read_text() + '# theirs\\n')\n"
        "path.write_text(path.read_text() + '# mine\\n')\n",
    )
    out, err = io.StringIO(), io.StringIO()
    assert config_edit(config, out, err, env) == ExitCode.USAGE
    assert config.read_text().endswith("# theirs\n")
    assert "changed while this edit was being made" in err.getvalue()
    assert err.getvalue().rsplit("your text is in ", 1)[1].strip().endswith(".toml")


def test_config_edit_makes_a_new_file_and_says_what_went_wrong_with_the_editor(tmp_path: Path) -> None:
    config = tmp_path / "new.toml"
    env = _editor(tmp_path, "path.write_text(path.read_text() + '[service]\\ninterval = \"1h\"\\n')\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["--config", str(config), "config", "edit"], out=out, err=err, env=env) == ExitCode.OK
    assert config.read_text().endswith('[service]\ninterval = "1h"\n')
    out, err = io.StringIO(), io.StringIO()
    assert main(["config", "edit", str(config)], out=out, err=err, env=_editor(tmp_path, "")) == ExitCode.OK
    assert out.getvalue() == f"no change: {config} is as it was\n"
    failing = _editor(tmp_path, "path.write_text('x'); sys.exit(3)\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["config", "edit", str(config)], out=out, err=err, env=failing) == ExitCode.FAILURE
    assert err.getvalue().startswith(f"differ: the editor exited with 3; {config} is as it was (your text: ")
    assert config.read_text().endswith('[service]\ninterval = "1h"\n')
    out, err = io.StringIO(), io.StringIO()
    none = {"EDITOR": str(tmp_path / "no-such-editor")}
    assert main(["config", "edit", str(config)], out=out, err=err, env=none) == ExitCode.USAGE
    assert err.getvalue() == (
        f"error: cannot start the editor {tmp_path / 'no-such-editor'}: No such file or directory (set VISUAL or "
        "EDITOR)\n"
    )


def test_a_hand_edited_file_is_checked_as_it_will_run_with_what_is_set_only_there_taken_on_trust() -> None:
    from differ.edit import check_edited

    text = WATCHED.replace(
        'Accept-Language = "en"\n', 'Accept-Language = "en"\nAuthorization = "${TOKEN}"\n', 1
    )
    config, trusted = check_edited(text, Path("config.toml"), {})
    assert [s.key for s in config.sources()] == [
        "rust/canonical",
        "rust/wpnews",
        "rust/ko",
        "torch/canonical",
    ]
    assert trusted == [
        "the sources or the service take TOKEN, not set here",
        "notifier team takes SLACK_WEBHOOK_URL, not set here",
    ]
    with pytest.raises(ConfigError, match=r"^config.toml: notify\[0\].events: expected items from"):
        check_edited(text + 'events = ["changd"]\n', Path("config.toml"), {})  # the rest of it is checked
    hook = '\n[[notify]]\nname = "hook"\nkind = "webhook"\nsecret = "${HOOK_SECRET}"\n'
    with pytest.raises(ConfigError, match=r'^config.toml: notify\[1\]: missing key "url"'):
        check_edited(text + hook, Path("config.toml"), {})
    with pytest.raises(
        ConfigError, match=r"^config.toml: notify\[1\].url: expected an http:// or https:// URL$"
    ):
        check_edited(
            text + hook + 'url = "ftp://hooks.example.org/a"\n', Path("config.toml"), {}
        )  # the kind's
    assert check_edited(text + hook + 'url = "https://hooks.example.org/a"\n', Path("config.toml"), {})[
        1
    ] == [
        "the sources or the service take TOKEN, not set here",
        "notifier team takes SLACK_WEBHOOK_URL, not set here",
        "notifier hook takes HOOK_SECRET, not set here",
    ]  # its secret, a stand-in for which is no "whsec_…", passed over
    both = text + '\n[[notify]]\nname = "team"\nkind = "slack"\nurl = "${X}"\n'
    with pytest.raises(ConfigError, match='duplicate notifier name "team"'):
        check_edited(both, Path("config.toml"), {})


def test_config_check_takes_what_is_set_only_where_differ_runs_on_trust_when_asked(tmp_path: Path) -> None:
    """Where the secrets are not set (CI, a laptop), `config check` says which is missing and how to check the
    rest; `--trust-unset` checks it as `differ config edit` does and names what it took on trust."""
    config = tmp_path / "config.toml"
    config.write_text(WATCHED)
    assert run("--config", str(config), "config", "check") == (
        ExitCode.USAGE,
        "",
        "error: config.toml: notify[0].url: environment variable SLACK_WEBHOOK_URL is not set (where it is set "
        f"only where differ runs: differ config check {config} --trust-unset)\n",
    )
    assert run("--config", str(config), "config", "check", "--trust-unset") == (
        ExitCode.OK,
        f"{config}: ok (2 documents, 4 sources, 1 notifier)\n"
        "note: notifier team takes SLACK_WEBHOOK_URL, not set here: taken as it will be where differ runs\n",
        "",
    )
    config.write_text(WATCHED + 'events = ["changd"]\n')
    code, out, err = run("--config", str(config), "config", "check", "--trust-unset")
    assert (code, out, err[:54]) == (
        ExitCode.USAGE,
        "",
        "error: config.toml: notify[0].events: expected items f",
    )  # the rest of it is checked
    config.write_text(WATCHED.replace('id = "ko"', 'id = "ko"\nrobots = "no"', 1))
    assert run("--config", str(config), "config", "check")[2] == (
        'error: config.toml: documents[0].mirrors[1].robots: expected true or false, found "no"\n'
    )  # a mistake of its own comes first, with no word of --trust-unset


def test_ctrl_c_in_the_editor_is_the_editor_s(tmp_path: Path) -> None:
    """As git does: while the editor runs, Ctrl-C (SIGINT to the terminal's process group) is the editor's to
    take (vi cancels a command with it); differ goes on and writes the file when the editor exits. A real
    process, in a process group of its own."""
    import subprocess
    import sys

    config = tmp_path / "config.toml"
    config.write_text(EXISTING)
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import os, signal, sys, time\nfrom pathlib import Path\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)  # as vi does\n"
        "os.killpg(os.getpgid(0), signal.SIGINT)\ntime.sleep(0.2)\n"
        "path = Path(sys.argv[1])\npath.write_text(path.read_text().replace('\"1h\"', '\"2h\"'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "differ", "--config", str(config), "config", "edit"],
        env={**os.environ, "EDITOR": f"{sys.executable} {editor}"},
        capture_output=True,
        text=True,
        start_new_session=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert config.read_text() == EXISTING.replace('"1h"', '"2h"')


def test_a_page_added_again_with_other_settings_is_told_the_set_that_gives_them(tmp_path: Path) -> None:
    """`differ add URL --set …` of a page already watched: refused, with the `differ set` that changes the
    watching source's settings to those asked (shell-quoted; what it has already, and a feed's entry, left
    out)."""
    config = tmp_path / "config.toml"
    config.write_text(WATCHED)
    page = "https://pytorch.org/blog/pytorch-2-13-release-blog/"
    assert run(
        "--config", str(config), "add", page, "--set", "selector=article .post", "--set", "interval=1h"
    )[::2] == (
        ExitCode.USAGE,
        f"error: {page} is already watched, as torch/canonical; to watch it so: differ set torch/canonical "
        "'selector=article .post' interval=1h\n",
    )
    assert run("--config", str(config), "add", page.replace("https://", "http://www."), "--kind", "html")[
        2
    ] == (
        f"error: {page.replace('https://', 'http://www.')} is already watched, as torch/canonical ({page})\n"
    )
    assert run("--config", str(config), "add", "https://wpnews.pro/news/rust-1-66", "--to", "rust", "--set",
               'exclude=[".share"]')[2] == (
        "error: https://wpnews.pro/news/rust-1-66 is already watched, as rust/wpnews; to watch it so: differ set "
        "rust/wpnews 'exclude=[\".share\"]'\n"
    )  # fmt: skip
    assert config.read_text() == WATCHED


def test_a_configuration_kept_behind_a_symbolic_link_stays_behind_it(tmp_path: Path) -> None:
    """Every edit (add, set, remove, config edit …) writes the file a link names, and the link stays a link."""
    (tmp_path / "dotfiles").mkdir()
    kept = tmp_path / "dotfiles" / "differ.toml"
    kept.write_text(WATCHED)
    config = tmp_path / "config.toml"
    config.symlink_to(Path("dotfiles") / "differ.toml")
    assert run("--config", str(config), "set", "rust/ko", "interval=2h")[0] == ExitCode.OK
    assert run("--config", str(config), "add", "https://example.org/new-post/")[0] == ExitCode.OK
    assert run("--config", str(config), "remove", "new-post")[0] == ExitCode.OK
    assert config.is_symlink()
    assert kept.read_text() == WATCHED.replace(
        'url = "https://example.org/ko/rust-1-66"\n',
        'url = "https://example.org/ko/rust-1-66"\ninterval = "2h"\n',
    )


def test_config_edit_reads_what_any_editor_leaves_and_refuses_an_editor_it_cannot_run(tmp_path: Path) -> None:
    """CRLF line endings or a byte-order mark from the editor are no change of their own (the file keeps its
    own); bytes that are not UTF-8 are said in one line, the file as it was; an EDITOR that does not read as a
    command is one line, exit 2."""
    config = tmp_path / "config.toml"
    config.write_text(EXISTING)
    crlf = _editor(
        tmp_path, "path.write_bytes(b'\\xef\\xbb\\xbf' + path.read_bytes().replace(b'\\n', b'\\r\\n'))\n"
    )
    assert run_with(crlf, "--config", str(config), "config", "edit") == (
        ExitCode.OK, f"no change: {config} is as it was\n", ""
    )  # fmt: skip
    mended = _editor(
        tmp_path, "path.write_bytes(path.read_bytes().replace(b'1h', b'2h').replace(b'\\n', b'\\r\\n'))\n"
    )
    assert run_with(mended, "--config", str(config), "config", "edit")[0] == ExitCode.OK
    assert config.read_bytes() == EXISTING.replace("1h", "2h").encode()  # LF, as the file had them
    latin = _editor(tmp_path, "path.write_bytes(path.read_bytes() + '# café'.encode('latin-1'))\n")
    code, _, err = run_with(latin, "--config", str(config), "config", "edit")
    assert (code, err.splitlines()[0]) == (
        ExitCode.USAGE,
        f"error: config.toml: not UTF-8 text (byte {len(EXISTING.encode()) + 5}); save it as UTF-8",
    )
    assert run_with({"EDITOR": "vi 'unclosed"}, "--config", str(config), "config", "edit") == (
        ExitCode.USAGE,
        "",
        'error: the editor "vi \'unclosed" (VISUAL or EDITOR) does not read as a command: No closing quotation\n',
    )
    assert config.read_bytes() == EXISTING.replace("1h", "2h").encode()


def run_with(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out=out, err=err, env=env)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("kind", "page", "written"),
    [
        ("github", "https://github.com/pytorch-kr/blog", 'repo = "pytorch-kr/blog"\n'),
        (
            "github",
            "https://git.corp.example/docs/blog.git",
            'repo = "docs/blog"\napi = "https://git.corp.example/api/v3"\n',
        ),
        (
            "gitlab",
            "https://gitlab.com/kr/site/blog/-/issues",
            'url = "https://gitlab.com"\nproject = "kr/site/blog"\n',
        ),
        ("gitea", "https://codeberg.org/kr/blog", 'url = "https://codeberg.org"\nrepo = "kr/blog"\n'),
    ],
)
def test_notify_add_reads_an_issue_trackers_project_from_its_page(
    tmp_path: Path, kind: str, page: str, written: str
) -> None:
    """The address a user pastes for an issue tracker is its project's page: it names the project and the host."""
    config = tmp_path / "config.toml"
    config.write_text(EXISTING)
    code, out, err = run_with(
        {"TOKEN": "t"}, "--config", str(config), "notify", "add", kind, page, "--set", "token=${TOKEN}"
    )
    assert (code, err) == (ExitCode.OK, "")
    assert (
        config.read_text()
        == EXISTING + f'\n[[notify]]\nname = "{kind}"\nkind = "{kind}"\n{written}token = "${{TOKEN}}"\n'
    )


def test_notify_add_refuses_an_address_that_is_no_project_page(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(EXISTING)
    assert run_with(
        {"T": "t"},
        "--config",
        str(config),
        "notify",
        "add",
        "gitlab",
        "https://gitlab.com/kr",
        "--set",
        "token=${T}",
    ) == (
        ExitCode.USAGE,
        "",
        "error: gitlab: expected the project's page, https://gitlab.com/GROUP/PROJECT, found 'https://gitlab.com/kr'\n",
    )
    assert config.read_text() == EXISTING
