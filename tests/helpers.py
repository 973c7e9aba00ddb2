"""Helpers for tests: sources and normalization of the replay files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from differ.config import NotifierConfig, SourceConfig, parse_config
from differ.errors import ConfigError
from differ.normalize import Body, Normalized, normalize

ROOT = Path(__file__).resolve().parent.parent
REPLAY = ROOT / "examples" / "pytorch-2.13"
DATA = Path(__file__).resolve().parent / "data"
TRACKING = ("utm_*", "fbclid", "gclid", "ref")
CANONICAL_URL = "https://pytorch.org/blog/pytorch-2-13-release-blog/"


def source(
    kind: str = "html", url: str = CANONICAL_URL, languages: tuple[str, ...] | None = None, **options: Any
) -> SourceConfig:
    from differ.normalize.kinds import SOURCE_KINDS

    defaults = {name: opt.default for name, opt in SOURCE_KINDS[kind].options.items()}
    defaults.update(options)
    return SourceConfig(document="doc", id="src", url=url, kind=kind, languages=languages, options=defaults)


def canonical_source() -> SourceConfig:
    return source(selector="article .entry-content")


def norm(data: bytes | str, src: SourceConfig, ctype: str | None = "text/html; charset=UTF-8") -> Normalized:
    raw = data.encode() if isinstance(data, str) else data
    return normalize(Body(raw, ctype, src.url, TRACKING), src)


def replay_fetch(n: int) -> Normalized:
    return norm((REPLAY / f"canonical/fetch-{n}.html").read_bytes(), canonical_source())


def wpnews() -> Normalized:
    return norm(
        (REPLAY / "mirrors/wpnews.json").read_bytes(),
        source("json", field="body_md", metadata=("title", "updated_at")),
        "application/json",
    )


def pytorch_kr(languages: tuple[str, ...] | None = ("en",)) -> Normalized:
    return norm(
        (REPLAY / "mirrors/pytorch-kr.txt").read_bytes(),
        source("text", languages=languages),
        "text/plain; charset=utf-8",
    )


def store_as_read_by(
    store: Any, key: str, normalizer: int, *, raw: str, markdown: str, url: str, ctype: str, **record: Any
) -> None:
    """A version as an older normalizer stored it: its raw body, the Markdown it made, and a record without the
    settings digest (so only the normalizer number says it was read otherwise)."""
    store.commit(
        key,
        raw=raw.encode(),
        markdown=markdown,
        record={
            "fetched_at": "2026-07-08T17:45:00Z",
            "normalizer": normalizer,
            "final_url": url,
            "headers": {"content-type": ctype},
            **record,
        },
    )


ONE_PAGE = '[[documents]]\nid = "d"\n[documents.canonical]\nid = "c"\nurl = "https://x.example/"\n'


def notifier_config(tmp: Path, kind: str, options: str) -> NotifierConfig:
    """The notifier of a configuration that watches one page, its settings given as TOML lines."""
    text = ONE_PAGE + f'[[notify]]\nname = "n"\nkind = "{kind}"\n{options}'
    return parse_config(text, tmp / "c.toml").notifiers[0]


def notifier_error(tmp: Path, kind: str, options: str) -> str:
    """The line such a configuration is refused with, the file's name left off."""
    try:
        notifier_config(tmp, kind, options)
    except ConfigError as exc:
        return str(exc).removeprefix("c.toml: ")
    raise AssertionError(f"{kind} notifier accepted: {options!r}")


# a message as the outbox keeps one
MESSAGE = {
    "type": "changed",
    "created": "2026-07-08T21:00:00Z",
    "next_attempt": "2026-07-08T21:00:00Z",
    "attempts": 0,
    "body": {},
}


class Tracker:
    """What the stand-ins for the issue trackers' APIs share: answers in JSON, and an issue or comment made whose
    answer is lost (a gateway that timed out) when `lose_next` says so."""

    def __init__(self) -> None:
        self.lose_next = False
        self.pages_asked = 0

    def made(self, item: dict[str, Any]) -> Any:
        from tests.conftest import Reply

        if self.lose_next:
            self.lose_next = False
            return Reply(502, b"upstream timed out")
        return self.json(201, item)

    @staticmethod
    def json(status: int, data: object) -> Any:
        import json

        from tests.conftest import Reply

        return Reply(status, json.dumps(data).encode(), headers={"Content-Type": "application/json"})

    @staticmethod
    def now() -> str:
        """When an issue or comment is made, as the trackers write it."""
        from datetime import UTC, datetime

        return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    def paged(self, base: str, path: str, items: list[dict[str, Any]], *, size: str, default: int) -> Any:
        """One page of a list as the trackers' APIs page one: `page` and a page size (the query's `size`
        parameter, else `default`), and `Link: <…>; rel="next"` while more follow. `self.pages_asked` counts
        the pages asked for."""
        from urllib.parse import parse_qs, urlencode, urlsplit

        self.pages_asked += 1
        parts = urlsplit(path)
        query = parse_qs(parts.query)
        page, limit = int(query.get("page", ["1"])[-1]), int(query.get(size, [str(default)])[-1])
        reply = self.json(200, items[(page - 1) * limit : page * limit])
        if page * limit < len(items):
            query["page"] = [str(page + 1)]
            reply.headers["Link"] = f'<{base}{parts.path}?{urlencode(query, doseq=True)}>; rel="next"'
        return reply


def config_check(folder: Path, text: str) -> str:
    """What `differ config check` says of a config.toml of `text` written into `folder` (it must pass), its
    path shown as CONFIG."""
    import io

    from differ.cli import main
    from differ.errors import ExitCode

    config = folder / "config.toml"
    config.write_text(text)
    out = io.StringIO()
    assert main(["--config", str(config), "config", "check"], out=out, env={}) == ExitCode.OK
    return out.getvalue().replace(str(config), "CONFIG")
