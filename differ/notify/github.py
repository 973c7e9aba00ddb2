"""GitHub issues: each document's alerts in one issue of a repository, as `differ.notify.issues` tells; GitHub
finds mentions after `@` and references after `#`."""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import quote, urlencode

from differ import options as opt
from differ.errors import NotifyError
from differ.fetch.http import wait_asked
from differ.notify.base import BASE_URL, notifier, require_mentions
from differ.notify.issues import CLOSE, IssueTracker, project_page
from differ.options import Invalid, Option

if TYPE_CHECKING:
    import requests

REPO = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]*)/[A-Za-z0-9._-]+")
# Whom an alert may mention: a user (`@name`) or a team (`@org/team`).
MENTION = re.compile(r"@[A-Za-z0-9](?:[A-Za-z0-9-]*)(?:/[A-Za-z0-9._-]+)?")


@notifier("github")
class GitHub(IssueTracker):
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
        "close_when_caught_up": CLOSE,
        "base_url": BASE_URL,
    }

    @classmethod
    def check(cls, config: Any) -> None:
        repo = str(config.options["repo"])
        if not REPO.fullmatch(repo):
            raise Invalid(f'expected a repository as OWNER/REPO, found "{repo}"', key="repo")
        require_mentions(config, MENTION, 'GitHub mentions such as "@jane" or "@pytorch/release-team"')

    @classmethod
    def from_address(cls, address: str) -> dict[str, str]:
        """A repository's page, https://github.com/OWNER/REPO (on GitHub Enterprise Server, its API beside)."""
        host, path = project_page(address, "the repository's page, https://github.com/OWNER/REPO")
        settings = {"repo": f"{path[0]}/{path[1]}"}
        if host != "https://github.com":
            settings["api"] = f"{host}/api/v3"
        return settings

    def project_url(self) -> str:
        owner, name = self.project().split("/", 1)
        return f"{str(self.config.options['api']).rstrip('/')}/repos/{quote(owner, safe='')}/{quote(name, safe='')}"

    def new_issue(self, title: str, text: str) -> dict[str, Any]:
        labels = list(self.config.options.get("labels", ()))
        return {"title": title, "body": text, **({"labels": labels} if labels else {})}

    def recent_issues_url(self, since: str) -> str:
        query = {"state": "all", "sort": "created", "direction": "desc", "since": since, "per_page": "100"}
        return f"{self.issues_url()}?{urlencode(query)}"

    def recent_comments_url(self, issue: str, since: str) -> str:
        return f"{self.comments_url(issue)}?{urlencode({'since': since, 'per_page': '100'})}"

    def close_request(self, issue: str) -> tuple[str, str, dict[str, Any]]:
        return "PATCH", f"{self.issues_url()}/{issue}", {"state": "closed", "state_reason": "completed"}

    def target(self) -> str:
        return f"{self.config.options['repo']} issues"

    def sign(self, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
        """The token, read from the configuration at each attempt (never kept with the message)."""
        return {
            "Authorization": f"Bearer {self.config.options['token']}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
        }

    def probed(self, project: dict[str, Any]) -> None:
        """The token allowed to open issues: anyone who may read the repository may."""
        permissions = project.get("permissions")
        if isinstance(permissions, dict) and not permissions.get("pull"):
            raise NotifyError(f"the token may not open issues in {self.project()}")

    def rate_limited(self, resp: requests.Response, now: datetime) -> float | None:
        """GitHub refuses with 403 for its rate limits: the secondary one with Retry-After, the primary one with
        `x-ratelimit-remaining: 0` until `x-ratelimit-reset`, as its docs say, and as a page's refusal is read."""
        asked = wait_asked(resp.status_code, resp.headers.get, now.timestamp())
        return asked[0] if asked is not None and resp.status_code in (403, 429) else None
