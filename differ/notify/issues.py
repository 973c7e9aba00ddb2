"""What the issue trackers' notifiers share (GitHub's, GitLab's): each document's alerts in one issue of a
repository (a translation's or a mirror's, where its maintainers track their work), which the first alert opens
and later alerts comment on; a new issue once that one is closed. Page text goes in a fenced code block, where
neither tracker reads Markdown, mentions or references: a release post's `#123`, `@name` or links to pull
requests would otherwise ping people and mark those threads as mentioned. Each message carries its id in an
HTML comment, and before posting, the issue (or the project's recent issues) is searched for it, page after
page, so an attempt whose answer was lost is never posted twice."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar

from differ import options as opt
from differ.app import iso, parse_iso
from differ.errors import NotifyError
from differ.fetch.limits import host_key
from differ.notify.base import Notifier, Outgoing, document_of, fit, json_object
from differ.options import Option, cut

if TYPE_CHECKING:
    import requests

    from differ.notify.outbox import Message

TITLE_MAX = 255  # GitLab's longest issue title (GitHub's is 256)
MAX_CHARS = 60_000  # GitHub refuses a body over 65,536 characters (GitLab's limit is higher)
# Markdown punctuation that a backslash makes literal.
_MARKUP = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$%&])")
_MARKER = "<!-- differ:{id} -->"
# Pages of issues or comments (100 a page, Gitea's 50) looked through for an earlier attempt's post, at most.
LOOKUP_PAGES = 10
# How long before its message was queued an earlier attempt's post is looked for: the tracker's clock may be
# behind this machine's, and an attempt made the second its message was queued would then seem made before.
CLOCK_MARGIN = timedelta(hours=1)
# The option of every tracker that closes the document's issue once its copy has caught up.
CLOSE = Option(
    opt.boolean,
    False,
    "close the document's issue when a mirror's audit finds it caught up with the canonical (with `sources` "
    "naming the canonical and that one mirror: the issue a translation's work)",
)


def caught_up(event: dict[str, Any]) -> bool:
    """Whether an event is a mirror's audit finding it matches the canonical's latest version again, with no
    edit of it left to carry over."""
    from differ.carry import carry_of

    audit = event.get("audit") or {}
    return (
        event.get("type") == "mirror_drift"
        and isinstance(audit, dict)
        and audit.get("matches_version") is not None
        and audit.get("matches_version") == event.get("canonical_version")
        and str(event.get("headline", "")).startswith("caught up")
        and carry_of(event) is None
    )


def passing(status: int) -> bool:
    """Whether a refusal may pass if asked again (a limit, a busy service)."""
    return status == 429 or status >= 500


def refused(what: str, status: int) -> NotifyError:
    """A refusal of the tracker's, `what` was asked, tried again when it may pass."""
    return NotifyError(f"{what}: HTTP {status}", retryable=passing(status))


def fenced(lines: list[str]) -> str:
    """Lines in a fenced code block whose fence no line can close (longer than any run of backticks)."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([f"{fence}text", *lines, fence])


def project_page(address: str, expected: str) -> tuple[str, list[str]]:
    """The host's address and the path's parts of a project's page (`https://HOST/OWNER/REPO/…`, `.git` or not);
    options.Invalid saying what was `expected` when it is not one."""
    from differ.options import Invalid, web_address

    parts = web_address(address)
    path = [p for p in (parts.path if parts else "").split("/") if p]
    if parts is None or len(path) < 2:
        raise Invalid(f"expected {expected}, found {address!r}")
    path[-1] = path[-1].removesuffix(".git")
    return f"{parts.scheme}://{parts.netloc}", path


class IssueTracker(Notifier):
    """An issue a document in a tracker's project: the requests each tracker names its own way."""

    min_interval = 1.0  # GitHub asks for a second between requests that create content
    # The characters after which the tracker finds a mention or a reference in text a backslash leaves.
    referring: ClassVar[str] = "@#"
    text_field: ClassVar[str] = "body"  # where an issue's text is, in what the tracker answers

    name_option: ClassVar[str] = "repo"  # the option naming the project
    comments: ClassVar[str] = "comments"  # what an issue's comments are called in its API's addresses

    # -- what each tracker names its own way ---------------------------------------------------------------
    def project_url(self) -> str:
        """The project's address in the tracker's API."""
        raise NotImplementedError

    def project(self) -> str:
        return str(self.config.options[self.name_option])

    def issues_url(self) -> str:
        return f"{self.project_url()}/issues"

    def comments_url(self, issue: str) -> str:
        return f"{self.issues_url()}/{issue}/{self.comments}"

    def new_issue(self, title: str, text: str) -> dict[str, Any]:
        """The body of a request that opens an issue."""
        raise NotImplementedError

    def recent_issues_url(self, since: str) -> str:
        """Where the project's issues made since `since` are listed, newest first."""
        raise NotImplementedError

    def recent_comments_url(self, issue: str, since: str) -> str:
        raise NotImplementedError

    # Whether the tracker lists issues, and an issue's comments, newest first by when they were made: such a
    # list is looked through only as far back as the message (GitLab's notes cannot be listed from a time on).
    issues_newest_first: ClassVar[bool] = True
    comments_newest_first: ClassVar[bool] = False

    def opened(self, data: dict[str, Any]) -> tuple[str, str] | None:
        """The number and address of an issue as the tracker answers it (as GitHub's API and those modelled on
        it do: `number`, `html_url`); None when it is not one."""
        number = data.get("number")
        return (str(number), str(data.get("html_url") or "")) if isinstance(number, int) else None

    def commented(self, issue: str, data: dict[str, Any]) -> str:
        """The address of a comment as the tracker answers it."""
        return str(data.get("html_url") or "")

    def is_open(self, data: dict[str, Any]) -> bool:
        return data.get("state") == "open"

    def close_request(self, issue: str) -> tuple[str, str, dict[str, Any]]:
        """The method, address and body of a request that closes an issue."""
        raise NotImplementedError

    def probed(self, project: dict[str, Any]) -> None:
        """What the tracker checks besides, in the project as the token sees it; NotifyError when wrong."""

    def probe(self) -> str:
        """The project as the token sees it: there, with issues on, and what the tracker checks besides."""
        name = self.project()
        answer = self.ask("GET", self.project_url())
        if answer.status != 200:  # GitLab's message starts with the status ("401 Unauthorized"): said once
            said = str(answer.data.get("message") or answer.text).removeprefix(str(answer.status)).strip()
            raise NotifyError(f"{name}: HTTP {answer.status} {said}".rstrip())
        data = answer.data
        if (
            data.get("has_issues") is False
            or data.get("issues_enabled") is False
            or data.get("issues_access_level") == "disabled"
        ):
            raise NotifyError(f"{name} has issues turned off")
        self.probed(data)
        return f"{data.get('full_name') or data.get('path_with_namespace') or name} takes issues"

    # -- shared ----------------------------------------------------------------------------------------------
    @classmethod
    def inert(cls, text: str) -> str:
        """A line of page text (a title) as the tracker shows it: no markup, no mention, no reference (a word
        joiner, U+2060, after each character that starts one)."""
        escaped = _MARKUP.sub(r"\\\1", text)
        for ch in cls.referring:
            escaped = escaped.replace(ch, ch + "\u2060")
        return escaped

    def payload(self, event: dict[str, Any]) -> Outgoing:
        link = self.report_link(event)
        mentions = " ".join(self.config.options.get("mention", ()))
        head = f"**{self.inert(self.title(event))}**" + (f" {mentions}" if mentions else "")
        foot = [
            *([f"[{self.link_label(event)}]({link})"] if link else []),
            f"_{self.inert(self.context(event))}_",
        ]
        room = MAX_CHARS - sum(len(line) + 2 for line in [head, *foot]) - 200  # the fence and the marker
        kept, tail = fit(self.lines(event), room, lambda line: len(line) + 1)
        shown = [*kept, *([tail] if tail else [])]
        passages = self.passages(event, room - sum(len(line) + 1 for line in shown))
        text = "\n\n".join([head, *([fenced(shown)] if shown else []), *passages, *foot])
        body: dict[str, Any] = {"title": cut(self.title(event), TITLE_MAX), "body": text}
        if self.config.options.get("close_when_caught_up") and caught_up(event):
            body["close"] = True  # once posted, the issue is closed (the copy carries the edits over)
        # `differ notify test`: an issue opened and closed at once, for no one to close
        if event.get("type") == "test":
            body["closed"] = True
        return Outgoing(body, {}, document_of(event) or "differ")

    def passages(self, event: dict[str, Any], room: int) -> list[str]:
        """A stale mirror's alert: the canonical's passages edited since the version it matches, as they now
        read, each a list item naming its section with its Markdown in a fence to copy (where nothing mentions
        or references), as many as `room` holds, the others counted."""
        from differ.carry import carried_over, carry_of, more_passages, passage_markdown, passages_in

        carry = carry_of(event)
        if carry is None:
            return []
        left = passages_in(carry)
        head = f"**To carry over**: {carried_over(carry)}:"
        room -= len(head) + 100  # the line that counts those left out
        items = []
        for p in carry["passages"]:
            item = "\n".join(passage_markdown(p, self.inert, str(event.get("mirror") or "")))
            room -= len(item) + 2
            if room < 0:
                break
            items.append(item)
            left -= 1
        return [head, *items, *([more_passages(event, left, lambda c: f"`{c}`")] if left else [])]

    def payload_url(self) -> str:
        return self.issues_url()

    def address(self, msg: Message) -> str:
        issue = self.kept_thread(msg)
        return self.comments_url(issue) if issue else self.issues_url()

    def body_of(self, msg: Message) -> dict[str, Any]:
        """An issue to open, or a comment on the document's issue; with the message's id."""
        body = dict(msg.data["body"])
        text = f"{body['body']}\n\n{_MARKER.format(id=msg.id)}"
        return {"body": text} if self.kept_thread(msg) else self.new_issue(str(body["title"]), text)

    def send(self, msg: Message, now: datetime) -> str | None:
        """Comment on the document's issue while it is open; otherwise open one. Either is first looked for
        under the message's id, posted by an attempt whose answer was lost. A message that closes the issue (a
        copy caught up) is a last comment, then the issue closed; with no issue open, nothing is posted."""
        issue = self.kept_thread(msg)
        if issue and not self._open(issue) and self.outbox is not None:
            self.outbox.forget_thread(self.config.name, str(msg.data["thread"]))
            issue = None
        closing = bool(msg.data["body"].get("close"))
        if closing and not issue:
            return "no issue open for the document: nothing to close"
        posted = self._posted(msg, issue)
        remark = f"posted already, by an earlier attempt: {posted}" if posted else super().send(msg, now)
        if msg.data["body"].get("closed") and not issue:
            issue = self.kept_thread(msg)  # the one it opened
            closing = issue is not None
        if closing and issue:
            method, url, data = self.close_request(issue)
            answer = self.ask(method, url, data)
            if not 200 <= answer.status < 300:  # tried again: the comment is found, the issue closed then
                raise refused(f"closing issue #{issue}", answer.status)
            if self.outbox is not None:
                self.outbox.forget_thread(self.config.name, str(msg.data["thread"]))
            remark = f"{remark or 'posted'}; issue #{issue} closed"
        return remark

    def accepted(self, resp: requests.Response, msg: Message) -> str | None:
        """An issue opened is kept as its document's; the remark is where the alert is."""
        data = json_object(resp)
        issue = self.kept_thread(msg)
        if issue:
            return self.commented(issue, data) or None
        made = self.opened(data)
        if made is None:
            return None
        self.keep_thread(msg, made[0])
        return made[1] or None

    def _open(self, issue: str) -> bool:
        """Whether the document's issue is there and open (closed, deleted or moved away: a new one)."""
        answer = self.ask("GET", f"{self.issues_url()}/{issue}")
        if passing(answer.status):
            raise refused(f"looking at issue #{issue}", answer.status)
        if answer.status in (301, 404, 410):
            return False
        if answer.status != 200:
            said = answer.data.get("message") or answer.text
            raise NotifyError(f"looking at issue #{issue}: HTTP {answer.status} {said}".rstrip())
        return self.is_open(answer.data)

    def listed(self, url: str, what: str, *, needed: bool = False) -> list[dict[str, Any]]:
        """The objects of the list the API answers at `url` (`what` it is, for an error): none when the API
        refuses for good, unless the list is `needed`; a refusal that may pass is a NotifyError to retry."""
        return self._page(url, what, needed=needed)[0]

    def _page(self, url: str, what: str, *, needed: bool = False) -> tuple[list[dict[str, Any]], str | None]:
        """One page of a list, as `listed` reads it, and the address of the next (its `Link: rel="next"`), if
        there is one on the API's own host: the token goes nowhere else."""
        with self.exchange("GET", url, None, self.sign("", 0, b"")) as resp:
            if resp.status_code != 200 and (needed or passing(resp.status_code)):
                raise refused(what, resp.status_code)
            if resp.status_code != 200:
                return [], None
            following = resp.links.get("next", {}).get("url")
            try:
                data = resp.json()
            except ValueError:
                return [], None
        items = [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []
        return items, following if following and _same_origin(following, url) else None

    def looked_through(
        self, url: str, what: str, since: datetime | None, newest_first: bool
    ) -> Iterator[dict[str, Any]]:
        """The items of a list, page after page, at most LOOKUP_PAGES pages; a list given newest first only as
        far as the page that reaches back before `since`."""
        for _ in range(LOOKUP_PAGES):
            items, following = self._page(url, what)
            yield from items
            if not following or (
                newest_first and since is not None and any(_made_before(i, since) for i in items)
            ):
                return
            url = following

    def _posted(self, msg: Message, issue: str | None) -> str:
        """Where this message was posted already (its id in an issue or a comment made since it was queued), or
        "" when it was not."""
        marker = _MARKER.format(id=msg.id)
        queued = _moment(msg.data.get("created"))
        after = queued - CLOCK_MARGIN if queued is not None else None
        since = iso(after) if after else str(msg.data.get("created") or "")
        url = self.recent_comments_url(issue, since) if issue else self.recent_issues_url(since)
        newest_first = self.comments_newest_first if issue else self.issues_newest_first
        for item in self.looked_through(url, "looking for an earlier attempt", after, newest_first):
            if issue and marker in str(item.get("body") or ""):
                return self.commented(issue, item)
            if not issue and marker in str(item.get(self.text_field) or ""):
                made = self.opened(item)
                if made is not None:
                    self.keep_thread(msg, made[0])
                    return made[1]
        return ""


def _moment(value: object) -> datetime | None:
    """A time as a tracker writes one (ISO 8601, `Z` or an offset, perhaps without either: UTC), or None."""
    moment = parse_iso(value)
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


def _made_before(item: dict[str, Any], since: datetime) -> bool:
    """Whether an issue or comment was made before `since` (one that does not say when: not)."""
    made = _moment(item.get("created_at"))
    return made is not None and made < since


def _same_origin(url: str, base: str) -> bool:
    """Whether two addresses are on one scheme, host and port (a default port said or not)."""
    try:
        return host_key(url) == host_key(base)
    except ValueError:  # a port that is no number
        return False
