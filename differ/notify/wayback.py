"""The Wayback Machine (Save Page Now): a capture of each new version of a page, asked for as soon as differ
stores it, so that every version a record names, the first one included, has a copy that a third party keeps and
dates. A capture request goes through the outbox as an alert does: it is sent once the archive says the capture
is made (its job followed at the next attempts), asked for again when a capture fails for a reason that passes."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from differ import options as opt
from differ.app import iso, parse_iso
from differ.errors import NotifyError, StoreError
from differ.notify.base import Notifier, Outgoing, json_object, notifier, require_http_url
from differ.options import Option

if TYPE_CHECKING:
    import requests

    from differ.notify.outbox import Message

# The capture errors that may pass: the archive or the page busy for now, not the page refused for good.
PASSING = {
    "error:bad-gateway",
    "error:browsing-timeout",
    "error:cannot-fetch",
    "error:capture-location-error",
    "error:celery",
    "error:gateway-timeout",
    "error:internal-server-error",
    "error:job-failed",
    "error:no-browsers-available",
    "error:proxy-error",
    "error:protocol-error",
    "error:read-timeout",
    "error:service-unavailable",
    "error:soft-time-limit-exceeded",
    "error:too-many-daily-captures",
    "error:too-many-requests",
    "error:user-session-limit",
}
LATER = 3600.0  # how long to wait after a refusal that a day's or an hour's limit makes
FOLLOW = 30.0  # how often to ask how a capture goes (the archive takes up to two minutes a page)


@notifier("wayback")
class Wayback(Notifier):
    """The Wayback Machine's Save Page Now: each new version of a page captured by the archive, as it is."""

    options: ClassVar[dict[str, Option]] = {
        "url": Option(opt.string, "https://web.archive.org", "the archive (its Save Page Now API)"),
        "access_key": Option(
            opt.nonempty_string,
            required=True,
            help="your archive.org S3 access key (archive.org/account/s3.php)",
        ),
        "secret_key": Option(opt.nonempty_string, required=True, help="its secret key", secret=True),
    }
    encoding = "form"
    min_interval = 5.0  # the archive takes 12 captures a minute from an account; differ asks for far fewer
    takes = ("first_version", "changed", "metadata")
    default_events = ("first_version", "changed")
    shown_in_reports = True  # a version's page links its capture
    catches_up = True  # a page watched before the destination was set up is captured as it is now
    _now: datetime  # the attempt's time, set by `send`

    @classmethod
    def check(cls, config: Any) -> None:
        require_http_url(config, "expected the archive's https:// address")
        if config.digest:
            raise opt.Invalid("expected no digest: each version is captured as it is stored", key="digest")

    @classmethod
    def refusal(cls, event: dict[str, Any]) -> str:
        if event.get("type") == "test":
            return ""
        if not event.get("url"):
            return "the event names no page to capture"
        if event.get("capture"):  # a version `differ backfill` read from a web archive
            return "its version is a web archive's capture already"
        return ""

    def payload_url(self) -> str:
        return str(self.config.options["url"]).rstrip("/") + "/save"

    def target(self) -> str:
        return f"{str(self.config.options['url']).rstrip('/')} (Save Page Now)"

    def sign(self, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
        """The account's keys, read from the configuration at each attempt (never kept with the request)."""
        o = self.config.options
        return {"Authorization": f"LOW {o['access_key']}:{o['secret_key']}"}

    def payload(self, event: dict[str, Any]) -> Outgoing:
        if event.get("type") == "test":
            return Outgoing({}, {"Accept": "application/json"})  # `differ notify test` asks about the keys
        version = (
            ((event.get("diff") or {}).get("to") or {}) if "diff" in event else event.get("version") or {}
        )
        body = {
            "url": str(event.get("url") or ""),
            **{field: version[field] for field in ("version", "fetched_at") if version.get(field)},
            "source": str(event.get("source") or ""),  # whose version the capture is, for its record
        }
        return Outgoing(body, {"Accept": "application/json"})

    def send(self, msg: Message, now: datetime) -> str | None:
        """Ask for the capture, then, at the next attempts, how it went: the request is sent once the archive
        has the page, and asked for again when the capture failed in a way that may pass."""
        if not msg.data["body"].get("url"):
            return self.probe()
        job = msg.data.get("job")
        self._now = now
        if isinstance(job, str) and job:
            return self._followed(msg, job)
        super().send(msg, now)  # an answer names the job (kept with the request by `accepted`) or raises
        raise NotifyError(f"capture {msg.data['job']} under way", retryable=True, retry_after=FOLLOW)

    def _followed(self, msg: Message, job: str) -> str:
        """How the capture job of an earlier attempt went (`/save/status/JOB`): done, under way, or failed."""
        base = str(self.config.options["url"]).rstrip("/")
        answer = self.ask("GET", f"{base}/save/status/{job}")
        if answer.status == 429 or answer.status >= 500:
            raise NotifyError(f"capture {job}: HTTP {answer.status}", retryable=True)
        status = answer.data.get("status")
        if status == "success" and answer.data.get("timestamp"):
            page = answer.data.get("original_url") or msg.data["body"]["url"]
            capture = f"{base}/web/{answer.data['timestamp']}/{page}"
            return f"captured: {capture}{self._recorded(msg, capture)}"
        if status == "pending":
            raise NotifyError(f"capture {job} under way", retryable=True, retry_after=FOLLOW)
        # failed, or forgotten by the archive (it keeps a job's status an hour or so): asked for anew
        msg.data.pop("job", None)
        if status == "error" and answer.data.get("status_ext"):
            raise self._refused(answer.data, f"capture {job}: ")
        said = " ".join(str(answer.data.get("message") or f"HTTP {answer.status}").split())
        raise NotifyError(f"capture {job}: {said}; asked for again", retryable=True, retry_after=0)

    def _recorded(self, msg: Message, capture: str) -> str:
        """Note the capture beside the version's record (`differ history` and the reports show it); "" once
        noted, else why not, for the delivery's remark: the capture is made either way."""
        body = msg.data["body"]
        if self.outbox is None or not body.get("source") or not isinstance(body.get("version"), int):
            return ""
        try:
            self.outbox.store.record_capture(str(body["source"]), body["version"], capture, iso(self._now))
        except (OSError, StoreError) as exc:
            return f" (not noted beside the version: {exc})"
        return ""

    def body_of(self, msg: Message) -> dict[str, Any]:
        """The page, and how recent a capture already made may be and still stand for the version: one made
        since differ fetched it (the archive then names that one instead of capturing the page again)."""
        body = {"url": msg.data["body"]["url"], "skip_first_archive": "1"}
        fetched = parse_iso(msg.data["body"].get("fetched_at"))
        if fetched is not None:
            body["if_not_archived_within"] = str(max(1, int((self._now - fetched).total_seconds())))
        return body

    def accepted(self, resp: requests.Response, msg: Message) -> str | None:
        """Save Page Now answers 200 with a job, kept with the request to follow, or 200 with an error in JSON."""
        answer = json_object(resp)
        job = answer.get("job_id")
        if isinstance(job, str) and job:
            msg.data["job"] = job
            return None
        raise self._refused(answer, "", resp.text)

    @staticmethod
    def _refused(answer: dict[str, Any], lead: str, text: str = "") -> NotifyError:
        """A capture the archive would not make or did not make: asked for again when the reason may pass (a
        limit, a busy archive, a page slow to answer), after an hour for a limit of the day or of captures at
        once; given up with the archive's reason when not (a blocked address, a page not found)."""
        status = str(answer.get("status_ext") or "")
        said = " ".join(str(answer.get("message") or answer.get("status") or text[:200] or "no job").split())
        error = f"{lead}{status}: {said}" if status else f"{lead}{said}"
        if status in PASSING:
            later = LATER if "daily" in status or "session" in status else None
            return NotifyError(error, retryable=True, retry_after=later)
        return NotifyError(error)

    def probe(self) -> str:
        """Whether the archive takes captures with these keys (`/save/status/user`: how many it may run now)."""
        base = str(self.config.options["url"]).rstrip("/")
        answer = self.ask("GET", f"{base}/save/status/user")
        if answer.status != 200 or "available" not in answer.data:
            said = answer.data.get("message") or answer.text or "no answer"
            raise NotifyError(f"HTTP {answer.status} {said}".strip())
        return (
            f"the archive takes captures with these keys ({answer.data.get('available')} at once now, "
            f"{answer.data.get('processing', 0)} under way)"
        )
