"""GitHub issues: each document's alerts in one issue of a repository (a translation's or a mirror's, where its
maintainers track their work), which the first alert opens and later alerts comment on; a new issue once that
one is closed. Page text goes in a fenced code block, where GitHub reads no Markdown, no mention and no
reference: a release post's `#123`, `@name` or links to pull requests would otherwise ping people and mark
those threads as mentioned. Each message carries its id in an HTML comment, and before posting, the issue (or
the repository's recent issues) is searched for it, so an attempt whose answer was lost is never posted twice."""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import quote, urlencode

from differ import options as opt
from differ.errors import NotifyError
from differ.fetch.limits import parse_retry_after
from differ.notify.base import (
    BASE_URL,
    Notifier,
    Outgoing,
    document_of,
    fit,
    json_object,
    notifier,
    require_mentions,
)
from differ.options import Invalid, Option, cut

if TYPE_CHECKING:
    import requests

    from differ.notify.outbox import Message

TITLE_MAX = 256  # GitHub's longest issue title
MAX_CHARS = 60_000  # GitHub refuses an issue or comment body over 65,536 characters
REPO = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]*)/[A-Za-z0-9._-]+")
# Whom an alert may mention: a user (`@name`) or a team (`@org/team`).
MENTION = re.compile(r"@[A-Za-z0-9](?:[A-Za-z0-9-]*)(?:/[A-Za-z0-9._-]+)?")
# GitHub's Markdown punctuation that a backslash makes literal; `@` and `#` also get a word joiner (U+2060), as
# GitHub finds mentions and references in the text a backslash leaves.
_MARKUP = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~])")
_MARKER = "<!-- differ:{id} -->"


def inert(text: str) -> str:
    """A line of page text (a title) as GitHub shows it: no markup, no mention, no reference."""
    return _MARKUP.sub(r"\\\1", text).replace("@", "@\u2060").replace("#", "#\u2060")


def fenced(lines: list[str]) -> str:
    """Lines in a fenced code block whose fence no line can close (longer than any run of backticks)."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([f"{fence}text", *lines, fence])


@notifier("github")
class GitHub(Notifier):
    """GitHub issues: an issue a document, opened by its first alert and commented on by the next ones."""

    options: ClassVar[dict[str, Option]] = {
        "repo": Option(
            opt.nonempty_string, required=True, help="the repository the issues go to, OWNER/REPO"
        ),
        "token": Option(
            opt.nonempty_string,
            required=True,
            help="a token that may write the repository's issues (fine-grained: Issues read and write)",
            secret=True,
        ),
        "labels": Option(opt.string_list, (), "the labels of each issue it opens"),
        "mention": Option(opt.string_list, (), 'whom each alert mentions: "@user" or "@org/team"'),
        "api": Option(
            opt.web_url,
            "https://api.github.com",
            "the REST API's address (GitHub Enterprise Server: https://HOST/api/v3)",
        ),
        "base_url": BASE_URL,
    }
    min_interval = 1.0  # GitHub asks for a second between requests that create content

    @classmethod
    def check(cls, config: Any) -> None:
        repo = str(config.options["repo"])
        if not REPO.fullmatch(repo):
            raise Invalid(f'expected a repository as OWNER/REPO, found "{repo}"', key="repo")
        require_mentions(config, MENTION, 'GitHub mentions such as "@jane" or "@pytorch/release-team"')

    def api(self) -> str:
        return str(self.config.options["api"]).rstrip("/")

    def repo_url(self) -> str:
        owner, name = str(self.config.options["repo"]).split("/", 1)
        return f"{self.api()}/repos/{quote(owner, safe='')}/{quote(name, safe='')}"

    def payload_url(self) -> str:
        return f"{self.repo_url()}/issues"

    def target(self) -> str:
        return f"{self.config.options['repo']} issues"

    def sign(self, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
        """The token, read from the configuration at each attempt (never kept with the message)."""
        return {
            "Authorization": f"Bearer {self.config.options['token']}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
        }

    def payload(self, event: dict[str, Any]) -> Outgoing:
        link = self.report_link(event)
        mentions = " ".join(self.config.options.get("mention", ()))
        head = f"**{inert(self.title(event))}**" + (f" {mentions}" if mentions else "")
        foot = [*([f"[{self.link_label(event)}]({link})"] if link else []), f"_{inert(self.context(event))}_"]
        room = MAX_CHARS - sum(len(line) + 2 for line in [head, *foot]) - 200  # the fence and the marker
        kept, tail = fit(self.lines(event), room, lambda line: len(line) + 1)
        shown = [*kept, *([tail] if tail else [])]
        text = "\n\n".join([head, *([fenced(shown)] if shown else []), *foot])
        body = {"title": cut(self.title(event), TITLE_MAX), "body": text}
        return Outgoing(body, {}, document_of(event) or "differ")

    def probe(self) -> str:
        """The repository as the token sees it: there, with issues on, and the token allowed to write them."""
        answer = self.ask("GET", self.repo_url())
        if answer.status != 200:
            said = answer.data.get("message") or answer.text
            raise NotifyError(f"{self.config.options['repo']}: HTTP {answer.status} {said}".rstrip())
        if answer.data.get("has_issues") is False:
            raise NotifyError(f"{self.config.options['repo']} has issues turned off")
        permissions = answer.data.get("permissions")
        if isinstance(permissions, dict) and not permissions.get("pull"):  # anyone who may read may open one
            raise NotifyError(f"the token may not open issues in {self.config.options['repo']}")
        return f"{answer.data.get('full_name') or self.config.options['repo']} takes issues"

    # -- an issue a document -------------------------------------------------------------------------------
    def address(self, msg: Message) -> str:
        issue = self.kept_thread(msg)
        return f"{self.payload_url()}/{issue}/comments" if issue else self.payload_url()

    def body_of(self, msg: Message) -> dict[str, Any]:
        """An issue to open (with the labels), or a comment on the document's issue; with the message's id."""
        body = dict(msg.data["body"])
        text = f"{body['body']}\n\n{_MARKER.format(id=msg.id)}"
        if self.kept_thread(msg):
            return {"body": text}
        labels = list(self.config.options.get("labels", ()))
        return {"title": body["title"], "body": text, **({"labels": labels} if labels else {})}

    def send(self, msg: Message, now: datetime) -> str | None:
        """Comment on the document's issue while it is open; otherwise open one. Either is first looked for
        under the message's id, posted by an attempt whose answer was lost."""
        issue = self.kept_thread(msg)
        if issue and not self._open(issue) and self.outbox is not None:
            self.outbox.forget_thread(self.config.name, str(msg.data["thread"]))
            issue = None
        posted = self._posted(msg, issue)
        if posted:
            return f"posted already, by an earlier attempt: {posted}"
        return super().send(msg, now)

    def rate_limited(self, resp: requests.Response, now: datetime) -> float | None:
        """GitHub refuses with 403 (or 429) for its rate limits: the secondary one with Retry-After, the primary
        one with `x-ratelimit-remaining: 0` until `x-ratelimit-reset` (a Unix time), as its docs say."""
        if resp.status_code not in (403, 429):
            return None
        wait = parse_retry_after(resp.headers.get("Retry-After"), now.timestamp())
        if wait is not None:
            return wait
        reset = str(resp.headers.get("x-ratelimit-reset") or "")
        if resp.headers.get("x-ratelimit-remaining") == "0" and reset.isascii() and reset.isdecimal():
            return max(0.0, float(reset) - now.timestamp())
        return None

    def accepted(self, resp: requests.Response, msg: Message) -> str | None:
        """An issue opened is kept as its document's; the remark is where the alert is."""
        data = json_object(resp)
        if not self.kept_thread(msg) and isinstance(data.get("number"), int):
            self.keep_thread(msg, str(data["number"]))
        return str(data.get("html_url") or "") or None

    def _open(self, issue: str) -> bool:
        """Whether the document's issue is there and open (closed, deleted or moved away: a new one)."""
        answer = self.ask("GET", f"{self.payload_url()}/{issue}")
        if answer.status == 429 or answer.status >= 500:
            raise NotifyError(f"looking at issue #{issue}: HTTP {answer.status}", retryable=True)
        if answer.status in (301, 404, 410):
            return False
        if answer.status != 200:
            said = answer.data.get("message") or answer.text
            raise NotifyError(f"looking at issue #{issue}: HTTP {answer.status} {said}".rstrip())
        return answer.data.get("state") == "open"

    def _posted(self, msg: Message, issue: str | None) -> str:
        """Where this message was posted already (its id in an issue or a comment made since it was queued), or
        "" when it was not."""
        marker = _MARKER.format(id=msg.id)
        since = {"since": str(msg.data.get("created") or ""), "per_page": "100"}
        if issue:
            url = f"{self.payload_url()}/{issue}/comments?{urlencode(since)}"
        else:
            query = {"state": "all", "sort": "created", "direction": "desc", **since}
            url = f"{self.payload_url()}?{urlencode(query)}"
        with self.exchange("GET", url, None, self.sign("", 0, b"")) as resp:
            if resp.status_code == 429 or resp.status_code >= 500:
                raise NotifyError(f"looking for an earlier attempt: HTTP {resp.status_code}", retryable=True)
            try:
                items = resp.json() if resp.status_code == 200 else []
            except ValueError:
                items = []
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and marker in str(item.get("body") or ""):
                if not issue and isinstance(item.get("number"), int):
                    self.keep_thread(msg, str(item["number"]))
                return str(item.get("html_url") or "")
        return ""
