"""A document's title: the one configured, else the one its canonical page gives itself when first stored (its
first heading, or its own title), else its id."""

from __future__ import annotations

import io
import json
from pathlib import Path

from differ.cli import main
from differ.titles import LONGEST, page_title
from tests.conftest import Server
from tests.test_notify import config_file, hooks_toml


def test_a_page_is_called_by_its_first_heading_unless_its_own_title_says_otherwise() -> None:
    blog = "# Announcing Rust 1.72.0\n\nText.\n"
    assert page_title({"title": "Announcing Rust 1.72.0 | Rust Blog"}, blog) == "Announcing Rust 1.72.0"
    assert page_title({"title": "announcing rust 1.72.0"}, blog) == "Announcing Rust 1.72.0"
    release = "# Highlights\n\nText.\n"
    assert (
        page_title({"title": "Release v2.13.0 · pytorch/pytorch"}, release)
        == "Release v2.13.0 · pytorch/pytorch"
    )
    assert page_title({}, "Intro.\n\n# The  *new*\\_post\n\nText.\n") == "The new_post"
    assert page_title({"data.title": "  A\n post ", "updated_at": "2026-07-08"}, "Text.\n") == "A post"
    assert page_title({"release.tag_name": "v2", "release.name": "Two"}, "Text.\n") == "Two"
    assert page_title({"title": "   "}, "Text.\n") is None
    assert page_title({}, "```sh\n# a comment in a command\n```\n\nText.\n") is None
    assert page_title({}, "~~~~\n```\n# still code\n~~~~\n\n# Heading\n") == "Heading"
    assert page_title({}, "## A second level only\n") is None
    assert page_title({}, "Text.\n\n" * 300 + "# Too far down\n") is None
    long = page_title({"title": "word " * 60}, "Text.\n")
    assert long is not None and len(long) == LONGEST and long.endswith("…")


PAGE = (
    "<!DOCTYPE html><html><head><title>{title} – Example Blog</title></head><body><nav>Home</nav>"
    "<article><h1>{title}</h1><p>{text}</p></article></body></html>"
)


def _run(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out=out, err=err, env={})
    return code, out.getvalue() + err.getvalue()


def test_a_document_without_a_title_is_called_as_its_page_first_called_itself(
    tmp_path: Path, server: Server, receiver: Server
) -> None:
    """Alerts, summaries, the audit, reports and `differ sources` name the post, not its id; a page retitled
    later keeps the name its alerts (and the threads and topics named after it) had, and a configured title wins."""
    server.page("/post", PAGE.format(title="Release 1.0", text="One."))
    config = str(config_file(tmp_path, server.url("/post"), hooks_toml(receiver.url("/hooks"))))
    assert _run("--config", config, "check") == (0, "doc/c: new version 1 (first snapshot)\n")
    server.page("/post", PAGE.format(title="Release 1.0 is out", text="Two."))
    code, out = _run("--config", config, "check")
    assert (code, out) == (0, "doc/c: new version 2 (2 changes, 1 metadata field)\n")
    [hit] = receiver.requests_to("/hooks")
    assert json.loads(hit.body)["data"]["diff"]["title"] == "Release 1.0"
    records = sorted((tmp_path / "snap/sources/doc/c/versions").glob("*.json"))
    assert [json.loads(p.read_text())["document_title"] for p in records] == ["Release 1.0", "Release 1.0"]
    code, out = _run("--config", config, "sources", "--format", "json")
    assert json.loads(out)["documents"][0]["title"] == "Release 1.0"
    assert "<h1>Release 1.0</h1>" in (tmp_path / "snap/reports/doc/index.html").read_text()
    assert _run("--config", config, "diff", "doc/c", "--no-color")[1].startswith(
        "Release 1.0 (c), version 1 → 2"
    )
    from differ.app import App
    from differ.audit import audit_document
    from differ.config import load_config

    loaded = load_config(Path(config), {})
    app = App.from_config(loaded)
    try:
        assert audit_document(app, loaded.documents[0]).title == "Release 1.0"
    finally:
        app.close()
    assert "<title>Release 1.0: versions</title>" in (tmp_path / "snap/reports/doc/feed.xml").read_text()
    titled = str(config_file(tmp_path, server.url("/post"), "", title='title = "Our release"\n'))
    assert _run("--config", titled, "diff", "doc/c", "--no-color")[1].startswith(
        "Our release (c), version 1 → 2"
    )


def test_a_first_version_that_cannot_be_read_leaves_the_document_its_id(tmp_path: Path) -> None:
    from differ.config import DocumentConfig, SourceConfig
    from differ.store import Store
    from differ.titles import document_title

    store = Store(tmp_path / "snap")
    canonical = SourceConfig(document="doc", id="c", url="https://example.org/post")
    doc = DocumentConfig("doc", "doc", canonical, titled=False)
    assert document_title(store, doc) == "doc"  # nothing stored yet
    markdown = "# Release 1.0\n\nText.\n"
    store.commit(
        "doc/c", raw=markdown.encode(), markdown=markdown, record={"fetched_at": "2026-07-08T00:00:00Z"}
    )
    assert document_title(store, doc) == "Release 1.0"
    record = store.source_dir("doc/c") / "versions" / "000001.json"
    record.write_text("{damaged")
    assert document_title(store, doc) == "doc"
    other = DocumentConfig(
        "other", "other", SourceConfig(document="other", id="c", url="https://e.org/"), titled=False
    )
    store.commit(  # what it was called when stored stands, without reading the page again
        "other/c",
        raw=b"x",
        markdown=markdown,
        record={"fetched_at": "2026-07-08T00:00:00Z", "document_title": "Ours"},
    )
    assert document_title(store, other) == "Ours"
