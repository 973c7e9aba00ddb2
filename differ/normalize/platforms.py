"""Source kinds for publishing platforms read through their APIs rather than their pages: WordPress posts,
Discourse topics, and GitHub and GitLab releases; the page URL a user has is enough, the API address is derived."""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import quote, unquote, urlencode, urlsplit, urlunsplit

from differ import options as opt
from differ.errors import NoContentError, NormalizeError
from differ.normalize.jsondoc import load_json
from differ.normalize.kinds import (
    Body,
    Extracted,
    SourceKind,
    read_html,
    source_kind,
)
from differ.options import Invalid, Option

if TYPE_CHECKING:
    from differ.config import SourceConfig


@source_kind("wordpress")
class WordPressKind(SourceKind):
    """A WordPress post read through the REST API; the page URL is enough (slug and API root are derived)."""

    accept = "application/json"
    options: ClassVar[dict[str, Option]] = {
        "api": Option(opt.web_url, "", "REST API root, when not {site}/wp-json/"),
        "slug": Option(opt.string, "", "the post's slug, when not the last part of the URL"),
    }

    @classmethod
    def check(cls, source: SourceConfig) -> None:
        if not cls.slug(source):
            raise Invalid("cannot derive the post's slug from url; set slug", key="url")

    @classmethod
    def slug(cls, source: SourceConfig) -> str:
        return str(source.option("slug") or urlsplit(source.url).path.rstrip("/").rsplit("/", 1)[-1])

    @classmethod
    def fetch_url(cls, source: SourceConfig) -> str:
        parts = urlsplit(source.url)
        api = source.option("api") or urlunsplit((parts.scheme, parts.netloc, "/wp-json/", "", ""))
        query = urlencode(
            {"slug": cls.slug(source), "_fields": "id,slug,link,title,content,date_gmt,modified_gmt"}
        )
        return api.rstrip("/") + "/wp/v2/posts?" + query

    @classmethod
    def extract(cls, body: Body, source: SourceConfig) -> Extracted:
        data = load_json(body)
        if not isinstance(data, list):
            raise NormalizeError("expected a JSON list of posts from the WordPress API")
        if not data:
            raise NormalizeError(f'no WordPress post with slug "{cls.slug(source)}"')
        post = data[0]
        try:
            content = post["content"]["rendered"]
        except (KeyError, TypeError):
            raise NormalizeError("WordPress post has no content.rendered")
        if not isinstance(content, str):
            raise NormalizeError("WordPress content.rendered is not a string")
        result = read_html(
            f"<article>{content}</article>",
            Body(body.data, body.content_type, str(post.get("link") or source.url), body.tracking),
            source,
            None,
            (),
            (),
        )
        if not any(c.isalnum() for c in result.markdown):  # a post emptied is not a version: a failure, told
            raise NoContentError("the WordPress post has no text (content.rendered)")
        title = post.get("title", {}).get("rendered") if isinstance(post.get("title"), dict) else None
        meta: dict[str, Any] = {}
        if isinstance(title, str):
            meta["title"] = htmllib.unescape(re.sub(r"<[^>]+>", "", title)).strip()
        for key in ("modified_gmt", "date_gmt"):
            value = post.get(key)
            if isinstance(value, str) and value:
                meta[key] = value if value.endswith("Z") else value + "Z"  # *_gmt strings are UTC
        result.metadata = meta
        return result


@source_kind("discourse")
class DiscourseKind(SourceKind):
    """A Discourse topic's first post as raw Markdown, with its version and updated_at; the topic URL is enough."""

    accept = "application/json"

    @classmethod
    def topic_id(cls, source: SourceConfig) -> str | None:
        m = re.search(r"/t/(?:[^/]+/)?(\d+)(?:/\d+)?/?$", urlsplit(source.url).path)
        return m.group(1) if m else None

    @classmethod
    def check(cls, source: SourceConfig) -> None:
        if not cls.topic_id(source):
            raise Invalid("not a Discourse topic URL; expected https://HOST/t/SLUG/ID", key="url")

    @classmethod
    def topic_page(cls, source: SourceConfig, generator: str) -> bool:
        """Whether a page read as HTML is a topic's, with its replies, that this kind reads by its first post."""
        return source.kind == "html" and generator.startswith("Discourse") and bool(cls.topic_id(source))

    @classmethod
    def fetch_url(cls, source: SourceConfig) -> str:
        parts = urlsplit(source.url)
        # One request returns the first post's raw Markdown together with its version and updated_at.
        return urlunsplit(
            (parts.scheme, parts.netloc, f"/t/{cls.topic_id(source)}.json", "include_raw=1", "")
        )

    @classmethod
    def extract(cls, body: Body, source: SourceConfig) -> Extracted:
        data = load_json(body)
        try:
            post = data["post_stream"]["posts"][0]
        except (KeyError, IndexError, TypeError):
            post = None
        if not isinstance(post, dict):
            raise NormalizeError("Discourse topic JSON has no post_stream.posts[0]")
        raw = post.get("raw")
        if not isinstance(raw, str):
            raise NormalizeError("Discourse post has no raw Markdown (is include_raw supported?)")
        meta = {"version": post.get("version"), "updated_at": post.get("updated_at")}
        if isinstance(data.get("title"), str):
            meta["title"] = data["title"]
        markdown = discourse_markdown(raw)
        if not any(c.isalnum() for c in markdown):
            raise NoContentError("the Discourse post has no text (its raw Markdown)")
        return Extracted(markdown, meta)


# Discourse's own Markdown: an image's size after its alt text (`![shot|690x388, 50%](upload://…)`, `|video`), and
# the BBCode-like tags of a block on lines of their own (`[details="Notes"]` … `[/details]`, `[quote="alice,
# post:3, topic:12"]`, `[poll]`, `[wrap=…]`, `[grid]`) or around words (`[spoiler]`).
_DISCOURSE_IMAGE = re.compile(r"(!\[[^\]\n|]{0,500})\|(?:\d+x\d+(?:,\s*\d+%)?|video|audio)\]\(")
_DISCOURSE_TAG = re.compile(
    r"^ {0,3}\[(/?)(details|quote|poll|wrap|grid|spoiler)(?:[= ]([^\]\n]*))?\][ \t]*$"
)
_DISCOURSE_INLINE = re.compile(r"\[/?spoiler\]")
# a date shown in each reader's time zone, or a range of two (`[date-range from=… to=…]`), and a tag's attributes
_DISCOURSE_DATE = re.compile(r"\[date(=|-range[ \t]+)([^\]\n]{1,300})\]")
_TAG_ATTRIBUTE = re.compile(r'(\w+)=(?:"([^"\n]*)"|([^\s"\]]+))')
_INLINE_CODE = re.compile(r"(`+)(?:.*?[^`])?\1(?!`)")
# a link alone on its line, which Discourse previews
_BARE_URL = re.compile(r"^ {0,3}(https?://[^\s<>]+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _with_code(markdown: str) -> Iterator[tuple[str, bool]]:
    """Each line of Markdown, and whether it is fenced code (its fences too), for a reader that leaves code as
    it is written."""
    fence = ""
    for line in markdown.split("\n"):
        if fence:
            if line.lstrip(" \t").startswith(fence):
                fence = ""
            yield line, True
        elif m := _FENCE.match(line):
            fence = m[1]
            yield line, True
        else:
            yield line, False


QUOTES_SHOWN = 8  # quotes within quotes shown as such, as deep as a reader follows them


def discourse_markdown(raw: str) -> str:
    """A Discourse post's raw Markdown as Markdown reads it, as its page shows it: an image's alt text without its
    size, a collapsed block's summary as a paragraph over what it hides, a quoted post as a block quote, a link
    alone on its line (which the page previews) as a link, and the tags of polls, spoilers and layouts left out
    (their contents kept). Code is left as it is."""
    out: list[str] = []
    opened = 0  # quotes open around the line
    quoted = 0  # and how many of them are shown (QUOTES_SHOWN at most: the rest read as the innermost)
    for line, code in _with_code(raw):
        if code:
            out.append("> " * quoted + line)
            continue
        tag = _DISCOURSE_TAG.match(line)
        if tag:
            closing, name, value = tag[1], tag[2], tag[3] or ""
            if name == "quote":
                opened = max(0, opened - 1) if closing else opened + 1
                quoted = min(opened, QUOTES_SHOWN)
                out.append(">" * quoted)
            elif name == "details" and not closing:
                summary = re.sub(r"\s+open$", "", value.strip()).strip('"')
                out += ["> " * quoted + summary, ">" * quoted] if summary else [">" * quoted]
            else:
                out.append(">" * quoted)
            continue
        line = _BARE_URL.sub(r"<\1>", _DISCOURSE_INLINE.sub("", _DISCOURSE_IMAGE.sub(r"\1](", line)))
        if "[date" in line:
            line = _local_dates(line)
        out.append(("> " * quoted + line) if line else ">" * quoted)
    return "\n".join(out)


def _local_dates(line: str) -> str:
    """A line's `[date=…]` and `[date-range …]` tags, outside its code, as `marks.local_date` reads the page's
    dates: the date as its author set it, not in each reader's time zone (a range's two joined by `→`, as the
    page joins them)."""
    from differ.normalize.marks import ISO_DAY, local_date

    def date(match: re.Match[str]) -> str:
        written = ("date=" if match[1] == "=" else "") + match[2]
        attrs = {name: quoted or bare for name, quoted, bare in _TAG_ATTRIBUTE.findall(written)}
        zone = attrs.get("timezone")
        ends = [attrs.get("date", "")] if match[1] == "=" else [attrs.get(end, "") for end in ("from", "to")]
        days = [end.partition("T") for end in ends if end]
        if not days or not all(ISO_DAY.fullmatch(day) for day, _, _ in days):
            return match[0]  # no date, as Discourse reads it: left as written
        if match[1] == "=":
            return local_date(days[0][0], attrs.get("time"), zone)
        return "→".join(local_date(day, time, zone) for day, _, time in days)

    out, at = [], 0
    for code in _INLINE_CODE.finditer(line):
        out.append(_DISCOURSE_DATE.sub(date, line[at : code.start()]))
        out.append(code[0])
        at = code.end()
    out.append(_DISCOURSE_DATE.sub(date, line[at:]))
    return "".join(out)


class ReleaseKind(SourceKind):
    """Base of the forges' release kinds: a release page URL names an API object whose `notes` field holds the
    release notes in Markdown. An API for programs, governed by the rate limits its forge documents (which differ
    keeps to), not a site for crawlers: robots.txt is not asked unless the source says `robots = true`."""

    robots = False
    forge: ClassVar[str] = ""
    notes: ClassVar[str] = ""
    page: ClassVar[str] = ""  # the URL forms, as the refusal of another URL says them
    hosts: ClassVar[tuple[str, ...]] = ()  # the forge's own site, where a release page names the kind alone
    # A release page's path: the project (`repo` or `project`) and the release (`tag`, or `latest`).
    PAGE: ClassVar[re.Pattern[str]]

    @classmethod
    def release(cls, source: SourceConfig) -> tuple[str, ...] | None:
        raise NotImplementedError

    @classmethod
    def names(cls, url: str) -> bool:
        """Whether `url` is a release page of the forge's own site (a self-hosted one says `kind` itself)."""
        parts = urlsplit(url)
        return parts.hostname in cls.hosts and cls.PAGE.match(parts.path) is not None

    @classmethod
    def document_id(cls, url: str) -> str | None:
        """A release page's project and release, `pytorch-v2.13.0` or `rust-latest`, for naming its document."""
        m = cls.PAGE.match(urlsplit(url).path)
        if not m:
            return None
        project = unquote(m.groupdict().get("repo") or m["project"]).rsplit("/", 1)[-1]
        return f"{project}-{unquote(m['tag'] or m['latest']).rsplit('/', 1)[-1]}"

    @classmethod
    def check(cls, source: SourceConfig) -> None:
        if not cls.release(source):
            raise Invalid(
                f"not a {cls.forge} release page; expected {cls.page}, found {opt.found(source.url)}",
                key="url",
            )

    @classmethod
    def extract(cls, body: Body, source: SourceConfig) -> Extracted:
        data = load_json(body)
        if not isinstance(data, dict) or "tag_name" not in data:
            raise NormalizeError(f"expected a {cls.forge} release object (with tag_name) from the API")
        notes = data.get(cls.notes) or ""
        if not isinstance(notes, str):
            raise NormalizeError(f"{cls.forge} release {cls.notes} is not a string")
        meta = {name: data.get(name) for name in source.option("metadata") or ()}
        return Extracted(cls.shown(notes.replace("\r\n", "\n"), source), meta)

    @classmethod
    def shown(cls, notes: str, source: SourceConfig) -> str:
        """The notes as the forge's release page shows them, where that differs from their Markdown."""
        return notes


@source_kind("github")
class GitHubKind(ReleaseKind):
    """A GitHub release's notes through the REST API, with name, tag and dates; the release page URL is enough."""

    accept = "application/vnd.github+json"
    headers: ClassVar[dict[str, str]] = {"X-GitHub-Api-Version": "2022-11-28"}
    forge, notes = "GitHub", "body"
    page = "https://github.com/OWNER/REPO/releases/tag/TAG or …/releases/latest"
    hosts = ("github.com", "www.github.com")
    options: ClassVar[dict[str, Option]] = {
        "api": Option(
            opt.web_url,
            "",
            "REST API root, when not https://api.github.com (GitHub Enterprise: https://HOST/api/v3)",
        ),
        "metadata": Option(
            opt.string_list,
            ("name", "tag_name", "prerelease", "published_at"),
            "fields of the release to keep and compare",
        ),
    }
    PAGE = re.compile(
        r"^/(?P<owner>[^/]+)/(?P<repo>[^/]+)/releases/(?:tag/(?P<tag>.+?)|(?P<latest>latest))/?$"
    )

    @classmethod
    def release(cls, source: SourceConfig) -> tuple[str, ...] | None:
        """Owner, repository and `tags/TAG` or `latest`, from a release page URL."""
        m = cls.PAGE.match(urlsplit(source.url).path)
        if not m:
            return None
        return m["owner"], m["repo"], f"tags/{m['tag']}" if m["tag"] else "latest"

    @classmethod
    def fetch_url(cls, source: SourceConfig) -> str:
        parts = urlsplit(source.url)
        owner, repo, which = cls.release(source) or ("", "", "")
        api = source.option("api") or (
            "https://api.github.com"
            if parts.hostname in cls.hosts
            else urlunsplit((parts.scheme, parts.netloc, "/api/v3", "", ""))
        )
        return f"{api.rstrip('/')}/repos/{owner}/{repo}/releases/{which}"

    @classmethod
    def shown(cls, notes: str, source: SourceConfig) -> str:
        owner, repo, _ = cls.release(source) or ("", "", "")
        return github_references(notes, urlsplit(source.url).hostname or "github.com", owner, repo)


_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:")  # a link reference definition: its address stays as written


def github_references(notes: str, host: str, owner: str, repo: str) -> str:
    """A release's notes with the bare addresses of issues, pull requests and commits on its forge shown as
    GitHub shows them, as links: `#26` (`owner/repo#26` in another repository), a commit by its first seven
    characters (`owner/repo@a5c3785`), as "Fix it by @ana in #26" reads on the release page and in any copy of
    it. An address in a link or in code, or to a part of one (`…/pull/26/files`), stays as written."""
    found = re.compile(
        rf"(?<!\]\()(?<![<\w/=\"'])https?://(?:www\.)?{re.escape(host.removeprefix('www.'))}/([\w.-]+)/([\w.-]+)/"
        r"(?:(?:pull|issues)/(\d+)|commit/([0-9a-f]{7,40}))(?![\w/#?-])",
        re.IGNORECASE,
    )

    def short(m: re.Match[str]) -> str:
        theirs, number, sha = f"{m[1]}/{m[2]}", m[3], m[4]
        same = theirs.lower() == f"{owner}/{repo}".lower()
        label = (
            (f"#{number}" if same else f"{theirs}#{number}")
            if number
            else (sha[:7] if same else f"{theirs}@{sha[:7]}")
        )
        return f"[{label}]({m[0]})"

    return _bare_addresses(notes, found, short)


def gitlab_references(notes: str, host: str, project: str) -> str:
    """A release's notes with the bare addresses of issues, merge requests and commits on its GitLab shown as
    GitLab shows them, as links: `#26` and `!45` (`group/project#26` in another project), a commit by its first
    eight characters (`group/project@a5c3785e`). An address in a link or in code, or to a part of one (a comment,
    `…/diffs`), stays as written."""
    found = re.compile(
        rf"(?<!\]\()(?<![<\w/=\"'])https?://{re.escape(host)}/([\w.-]+(?:/[\w.-]+)+?)/(?:-/)?"
        r"(?:(issues|work_items|merge_requests)/(\d+)|commit/([0-9a-f]{7,40}))(?![\w/#?-])",
        re.IGNORECASE,
    )

    def short(m: re.Match[str]) -> str:
        theirs, what, number, sha = m[1], m[2], m[3], m[4]
        same = theirs.lower() == project.lower()
        if sha:
            label = sha[:8] if same else f"{theirs}@{sha[:8]}"
        else:
            label = ("" if same else theirs) + ("!" if what.lower() == "merge_requests" else "#") + number
        return f"[{label}]({m[0]})"

    return _bare_addresses(notes, found, short)


def _bare_addresses(notes: str, found: re.Pattern[str], short: Callable[[re.Match[str]], str]) -> str:
    """Notes with each address `found` alone in its text (not in a link, code or a link definition) as `short`
    writes it."""
    out: list[str] = []
    for line, code in _with_code(notes):
        if not code and "://" in line and not _DEFINITION.match(line):
            parts = line.split("`")  # code spans are the odd parts
            parts[::2] = [found.sub(short, part) for part in parts[::2]]
            line = "`".join(parts)
        out.append(line)
    return "\n".join(out)


@source_kind("gitlab")
class GitLabKind(ReleaseKind):
    """A GitLab release's notes through the REST API, with name, tag and dates; the release page URL is enough."""

    accept = "application/json"
    forge, notes = "GitLab", "description"
    page = "https://HOST/GROUP/PROJECT/-/releases/TAG or …/-/releases/permalink/latest"
    hosts = ("gitlab.com",)
    options: ClassVar[dict[str, Option]] = {
        "api": Option(opt.web_url, "", "REST API root, when not {site}/api/v4"),
        "metadata": Option(
            opt.string_list,
            ("name", "tag_name", "released_at", "upcoming_release"),
            "fields of the release to keep and compare",
        ),
    }
    PAGE = re.compile(r"^/(?P<project>.+?)/-/releases/(?:permalink/(?P<latest>latest)|(?P<tag>[^/]+))/?$")

    @classmethod
    def release(cls, source: SourceConfig) -> tuple[str, ...] | None:
        """The project's path and `TAG` or `permalink/latest`, both as the API takes them, from a release page."""
        m = cls.PAGE.match(urlsplit(source.url).path)
        if not m:
            return None
        which = "permalink/latest" if m["latest"] else quote(unquote(m["tag"]), safe="")
        return quote(unquote(m["project"]), safe=""), which

    @classmethod
    def fetch_url(cls, source: SourceConfig) -> str:
        parts = urlsplit(source.url)
        project, which = cls.release(source) or ("", "")
        api = source.option("api") or urlunsplit((parts.scheme, parts.netloc, "/api/v4", "", ""))
        return f"{api.rstrip('/')}/projects/{project}/releases/{which}"

    @classmethod
    def shown(cls, notes: str, source: SourceConfig) -> str:
        parts = urlsplit(source.url)
        m = cls.PAGE.match(parts.path)
        project = unquote(m["project"]) if m else ""
        return gitlab_references(notes, parts.netloc, project)
