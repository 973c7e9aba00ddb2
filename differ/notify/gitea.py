"""Gitea and Forgejo issues (Codeberg's among them): each document's alerts in one issue of a repository, as
`differ.notify.issues` tells. Their API takes labels by id: the names configured are looked up once a process.
They find mentions after `@` and references after `#` and `!`."""

from __future__ import annotations

import re
from typing import Any, ClassVar
from urllib.parse import quote, urlencode

from differ import options as opt
from differ.errors import NotifyError
from differ.notify.base import BASE_URL, notifier, require_mentions
from differ.notify.issues import CLOSE, IssueTracker, project_page
from differ.options import Invalid, Option

REPO = re.compile(r"[\w.-]+/[\w.-]+")
MENTION = re.compile(r"@[\w.-]+")
LABEL_PAGES = 20  # pages of 50 labels looked through for the names configured
# The labels of each repository (by its API address), name to id, looked up once a process.
_labels: dict[str, dict[str, int]] = {}


@notifier("gitea")
class Gitea(IssueTracker):
    """Gitea or Forgejo issues: an issue a document, opened by its first alert and commented on by the next ones."""

    options: ClassVar[dict[str, Option]] = {
        "url": Option(opt.web_url, required=True, help="the instance's address, https://codeberg.org"),
        "repo": Option(
            opt.nonempty_string, required=True, help="the repository the issues go to, OWNER/REPO"
        ),
        "token": Option(
            opt.nonempty_string,
            required=True,
            help="an access token that may write the repository's issues (scope write:issue)",
            secret=True,
        ),
        "labels": Option(
            opt.string_list, (), "the labels of each issue it opens (labels the repository has)"
        ),
        "mention": Option(opt.string_list, (), 'whom each alert mentions: "@user"'),
        "close_when_caught_up": CLOSE,
        "base_url": BASE_URL,
    }
    referring = "@#!"

    issues_newest_first = False  # listed by when they were last updated, from `since` on

    @classmethod
    def check(cls, config: Any) -> None:
        repo = str(config.options["repo"])
        if not REPO.fullmatch(repo):
            raise Invalid(f'expected a repository as OWNER/REPO, found "{repo}"', key="repo")
        require_mentions(config, MENTION, 'mentions such as "@jane"')

    @classmethod
    def from_address(cls, address: str) -> dict[str, str]:
        """A repository's page, https://HOST/OWNER/REPO."""
        host, path = project_page(address, "the repository's page, https://codeberg.org/OWNER/REPO")
        return {"url": host, "repo": f"{path[0]}/{path[1]}"}

    def project_url(self) -> str:
        owner, name = self.project().split("/", 1)
        base = str(self.config.options["url"]).rstrip("/")
        return f"{base}/api/v1/repos/{quote(owner, safe='')}/{quote(name, safe='')}"

    def new_issue(self, title: str, text: str) -> dict[str, Any]:
        ids = self.label_ids()
        return {"title": title, "body": text, **({"labels": ids} if ids else {})}

    def recent_issues_url(self, since: str) -> str:
        query = {"state": "all", "type": "issues", "since": since, "limit": "50"}
        return f"{self.issues_url()}?{urlencode(query)}"

    def recent_comments_url(self, issue: str, since: str) -> str:
        return f"{self.comments_url(issue)}?{urlencode({'since': since})}"

    def close_request(self, issue: str) -> tuple[str, str, dict[str, Any]]:
        return "PATCH", f"{self.issues_url()}/{issue}", {"state": "closed"}

    def target(self) -> str:
        return f"{str(self.config.options['url']).rstrip('/')}/{self.config.options['repo']} issues"

    def sign(self, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
        """The token, read from the configuration at each attempt (never kept with the message)."""
        return {"Authorization": f"token {self.config.options['token']}"}

    def label_ids(self) -> list[int]:
        """The ids of the labels configured, looked up in the repository once a process; a name it does not
        have is an error naming it (the message waits in the outbox until the label is made or unset)."""
        names = list(self.config.options.get("labels", ()))
        if not names:
            return []
        known = _labels.get(self.project_url())
        if known is None or any(name not in known for name in names):
            known = {}
            for page in range(1, LABEL_PAGES + 1):
                url = f"{self.project_url()}/labels?{urlencode({'page': page, 'limit': 50})}"
                items = self.listed(url, "looking up labels", needed=True)
                known.update({str(i.get("name")): i["id"] for i in items if isinstance(i.get("id"), int)})
                if len(items) < 50:
                    break
            _labels[self.project_url()] = known
        missing = [name for name in names if name not in known]
        if missing:
            raise NotifyError(
                f"{self.config.options['repo']} has no label {', '.join(missing)}", retryable=True
            )
        return [known[name] for name in names]

    def probed(self, project: dict[str, Any]) -> None:
        """The labels configured, there in the repository."""
        self.label_ids()
