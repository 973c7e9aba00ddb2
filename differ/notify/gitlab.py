"""GitLab issues: each document's alerts in one issue of a project, as `differ.notify.issues` tells; GitLab
finds references after `#`, `!`, `~`, `%`, `$`, `&` and `^` as well as mentions after `@`."""

from __future__ import annotations

import re
from typing import Any, ClassVar
from urllib.parse import quote, urlencode

from differ import options as opt
from differ.notify.base import BASE_URL, notifier, require_mentions
from differ.notify.issues import CLOSE, IssueTracker, project_page
from differ.options import Invalid, Option

PROJECT = re.compile(r"[\w.-]+(?:/[\w.-]+)+")
# Whom an alert may mention: a user or a group (`@name`, `@group/subgroup`).
MENTION = re.compile(r"@[\w.-]+(?:/[\w.-]+)*")


@notifier("gitlab")
class GitLab(IssueTracker):
    """GitLab issues: an issue a document, opened by its first alert and commented on by the next ones."""

    options: ClassVar[dict[str, Option]] = {
        "project": Option(
            opt.nonempty_string, required=True, help="the project the issues go to, GROUP/PROJECT"
        ),
        "token": Option(
            opt.nonempty_string,
            required=True,
            help="a token that may open the project's issues (a project access token with the api scope)",
            secret=True,
        ),
        "labels": Option(opt.string_list, (), "the labels of each issue it opens"),
        "mention": Option(opt.string_list, (), 'whom each alert mentions: "@user" or "@group"'),
        "url": Option(opt.web_url, "https://gitlab.com", "the GitLab instance's address"),
        "close_when_caught_up": CLOSE,
        "base_url": BASE_URL,
    }
    referring = "@#!~%$&^"
    name_option = "project"
    comments = "notes"
    comments_newest_first = True
    text_field = "description"

    @classmethod
    def check(cls, config: Any) -> None:
        project = str(config.options["project"])
        if not PROJECT.fullmatch(project):
            raise Invalid(f'expected a project as GROUP/PROJECT, found "{project}"', key="project")
        require_mentions(config, MENTION, 'GitLab mentions such as "@jane" or "@pytorch-kr/translators"')

    @classmethod
    def from_address(cls, address: str) -> dict[str, str]:
        """A project's page, https://HOST/GROUP/PROJECT (its subgroups too; what follows `/-/` left out)."""
        host, path = project_page(
            address.split("/-/", 1)[0], "the project's page, https://gitlab.com/GROUP/PROJECT"
        )
        return {"url": host, "project": "/".join(path)}

    def instance(self) -> str:
        return str(self.config.options["url"]).rstrip("/")

    def project_url(self) -> str:
        return f"{self.instance()}/api/v4/projects/{quote(str(self.config.options['project']), safe='')}"

    def new_issue(self, title: str, text: str) -> dict[str, Any]:
        labels = ",".join(self.config.options.get("labels", ()))
        return {"title": title, "description": text, **({"labels": labels} if labels else {})}

    def recent_issues_url(self, since: str) -> str:
        query = {"created_after": since, "order_by": "created_at", "sort": "desc", "per_page": "100"}
        return f"{self.issues_url()}?{urlencode(query)}"

    def recent_comments_url(self, issue: str, since: str) -> str:
        query = {"order_by": "created_at", "sort": "desc", "per_page": "100"}
        return f"{self.comments_url(issue)}?{urlencode(query)}"

    def opened(self, data: dict[str, Any]) -> tuple[str, str] | None:
        number = data.get("iid")
        return (str(number), str(data.get("web_url") or "")) if isinstance(number, int) else None

    def commented(self, issue: str, data: dict[str, Any]) -> str:
        page = f"{self.instance()}/{self.config.options['project']}/-/issues/{issue}"
        return f"{page}#note_{data['id']}" if isinstance(data.get("id"), int) else page

    def is_open(self, data: dict[str, Any]) -> bool:
        return data.get("state") == "opened"

    def close_request(self, issue: str) -> tuple[str, str, dict[str, Any]]:
        return "PUT", f"{self.issues_url()}/{issue}", {"state_event": "close"}

    def target(self) -> str:
        return f"{self.instance()}/{self.config.options['project']} issues"

    def sign(self, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
        """The token, read from the configuration at each attempt (never kept with the message)."""
        return {"PRIVATE-TOKEN": str(self.config.options["token"])}
