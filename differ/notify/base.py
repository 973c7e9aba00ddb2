"""What every notifier shares: the registry, how events read as titles and lines, and sending one message
(an HTTP POST of JSON unless a notifier sends another way)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlencode

from differ import options as opt
from differ.config import DEFAULT_EVENTS, EVENTS, VERSION_EVENTS
from differ.errors import NotifyError, innermost
from differ.fetch.limits import MAX_WAIT, parse_retry_after, server_time
from differ.options import Invalid, Option, found, listed
from differ.store import report_url

if TYPE_CHECKING:
    import requests

    from differ.config import NotifierConfig
    from differ.notify.outbox import Message, Outbox

NOTIFIERS: dict[str, type[Notifier]] = {}
# The option of every notifier that links to the published diff.
BASE_URL = Option(opt.web_url, "", "where reports are published, for a link to the full diff")
_session: requests.Session | None = None


def _http() -> requests.Session:
    """The session notifiers post through, made on first use: a check with nothing to send never loads requests."""
    import requests

    global _session
    if _session is None:
        _session = requests.Session()
        _session.trust_env = False
    return _session


def _proxy_reason(exc: Exception) -> str:
    """What the proxy, or the connection to it, said at the bottom of the chain of wrappers."""
    inner = innermost(exc)
    return str(inner.args[-1]) if inner.args else str(inner)


@dataclass
class Answer:
    """A service's answer to a request of a notifier's own: its status, its JSON object ({} when it sent none)
    and its first words."""

    status: int
    data: dict[str, Any]
    text: str


def json_object(resp: requests.Response) -> dict[str, Any]:
    """A response's JSON object, or {} when its body is not one."""
    try:
        data = resp.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def split_mentions(text: str) -> str:
    """`text` with a word joiner (U+2060, invisible) after every `@`: chat services that find `@name` in a
    message's words find no name after it, so page text shows as written and mentions nobody."""
    return text.replace("@", "@\u2060")


@dataclass
class Outgoing:
    """One message as the outbox keeps it: the body (JSON for HTTP notifiers) and extra headers (signatures
    are added per attempt). Where it goes is read from the configuration when it is sent."""

    body: dict[str, Any]
    headers: dict[str, str]
    thread: str = ""  # the document whose thread the message goes to, for a notifier that threads by document


class Notifier:
    """Base of notifiers."""

    name: ClassVar[str] = ""
    options: ClassVar[dict[str, Option]] = {}
    min_interval: ClassVar[float] = 0.0
    encoding: ClassVar[str] = (
        "json"  # how the body is sent: JSON, or "form" (application/x-www-form-urlencoded)
    )
    method: ClassVar[str] = "POST"
    takes: ClassVar[tuple[str, ...]] = EVENTS  # the events it acts on (`events` may name no other)
    default_events: ClassVar[tuple[str, ...]] = DEFAULT_EVENTS  # its `events` when the table names none
    shown_in_reports: ClassVar[bool] = False  # whether what it delivers is shown on the reports site
    # whether it is owed each page's latest version, not only those stored once it was set up (an archive
    # that keeps a copy of every page watched): `catch_up`
    catches_up: ClassVar[bool] = False

    def __init__(
        self, config: NotifierConfig, base_url: str = "", proxy: str = "", outbox: Outbox | None = None
    ):
        self.config = config
        self.base_url = base_url
        self.proxy = proxy  # the service's proxy, which HTTP notifiers post through
        self.outbox = outbox  # where a notifier that threads by document keeps its threads

    @classmethod
    def check(cls, config: NotifierConfig) -> None:
        """Cross-field checks at config load time; raise options.Invalid."""

    @classmethod
    def from_address(cls, address: str) -> dict[str, str]:
        """The settings an address pasted after `differ notify add KIND` stands for: its `url`, unless the kind
        reads more from it (a repository's page names the repository and its host); options.Invalid says what
        address was expected."""
        return {"url": address}

    def payload(self, event: dict[str, Any]) -> Outgoing:
        raise NotImplementedError

    def payload_url(self) -> str:
        """Where messages go (from the configuration only; never stored with the message)."""
        return str(self.config.options["url"])

    def address(self, msg: Message) -> str:
        """Where one message goes: `payload_url` unless the address names the message (as an idempotent PUT
        does)."""
        return self.payload_url()

    def target(self) -> str:
        """Where messages go, secrets redacted, for `differ sources`."""
        from differ.config import redact

        url = str(self.config.options.get("url", ""))
        return redact(url) if "url" in self.config.secrets else url

    def sign(self, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
        """Headers that authenticate one attempt (none by default)."""
        return {}

    def send(self, msg: Message, now: datetime) -> str | None:
        """Deliver a message once: send its body to its address. NotifyError says whether to retry, give up, or
        disable the destination; a returned text is a remark on a delivery that succeeded."""
        data = self.body_of(msg)
        if self.encoding == "form":
            body, content_type = urlencode(data).encode(), "application/x-www-form-urlencoded"
        else:
            body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
            content_type = "application/json"
        headers = {
            "Content-Type": content_type,
            "User-Agent": "differ-notify",
            **msg.data.get("headers", {}),
            **self.sign(msg.id, int(now.timestamp()), body),
        }
        with self.exchange(self.method, self.address(msg), body, headers) as resp:
            answer = " ".join(resp.text[:200].split()) if resp.content else ""
            if 200 <= resp.status_code < 300:
                return self.accepted(resp, msg)
            said = f"HTTP {resp.status_code}" + (f" {answer}" if answer else "")
            if resp.status_code == 429 or resp.status_code >= 500:
                served = server_time(resp.headers.get("Date"), now.timestamp())  # a date is by its clock
                wait = parse_retry_after(resp.headers.get("Retry-After"), served)
                if wait is None:
                    hint = self.wait_hint(json_object(resp))
                    wait = None if hint is None else min(hint, MAX_WAIT)  # a body asking for years: a day
                raise NotifyError(said, retryable=True, retry_after=wait)
            limited = self.rate_limited(resp, now)
            if limited is not None:
                raise NotifyError(said, retryable=True, retry_after=min(limited, MAX_WAIT))
            if resp.status_code == 410:
                raise NotifyError(said, disable=True)
            if 300 <= resp.status_code < 400:
                raise NotifyError(f"{said} (redirects are not followed)")
            raise NotifyError(said)

    def thread_gone(self, msg: Message, exc: NotifyError) -> NotifyError:
        """What to raise when the service says the thread a message went to is gone (a topic or post deleted): the
        thread is forgotten, so the next attempt, at once, starts a new one instead of failing for good."""
        if self.outbox is not None and msg.data.get("thread"):
            self.outbox.forget_thread(self.config.name, str(msg.data["thread"]))
        return NotifyError(
            f"{exc}; the document's thread is gone, so the next attempt starts a new one",
            retryable=True,
            retry_after=0,
        )

    @classmethod
    def refusal(cls, event: dict[str, Any]) -> str:
        """Why this destination has nothing to do with an event it takes ("" when it has), said where the event
        is not sent to it."""
        return ""

    def probe(self) -> str | None:
        """What the service says of these settings, asked without posting anything (None: it cannot tell short of
        a message, which `differ notify test` sends); a NotifyError names what is wrong."""
        return None

    def body_of(self, msg: Message) -> dict[str, Any]:
        """The body to send for a message: as queued, unless a notifier adds what is known only when it is sent."""
        return dict(msg.data["body"])

    def accepted(self, resp: requests.Response, msg: Message) -> str | None:
        """A 2xx answer read: a remark on the delivery, or a NotifyError for a service that says "no" with 200."""
        return None

    def wait_hint(self, answer: dict[str, Any]) -> float | None:
        """How long a receiver that answered 429 without Retry-After asks to wait, read from its JSON body."""
        return None

    def rate_limited(self, resp: requests.Response, now: datetime) -> float | None:
        """How long a service that refused a message for its rate limit with another status than 429 (GitHub's
        403) asks to wait; None when the refusal is not that."""
        return None

    def ask(
        self, method: str, url: str, data: dict[str, Any] | None = None, *, signed: bool = True
    ) -> Answer:
        """A request of the notifier's own (a lookup, a check, a thread to start), with its credentials unless
        `signed` is false (a request to another host than the service's), `data` sent as JSON."""
        headers = {"User-Agent": "differ-notify"}
        body = None
        if data is not None:
            body, headers["Content-Type"] = json.dumps(data).encode(), "application/json"
        if signed:
            headers.update(self.sign("", 0, b""))
        with self.exchange(method, url, body, headers) as resp:
            said = " ".join(resp.text[:200].split()) if resp.content else ""
            return Answer(resp.status_code, json_object(resp), said)

    # -- a thread a document -----------------------------------------------------------------------------
    def kept_thread(self, msg: Message) -> str | None:
        """The thread (topic, post) this message's document already has; None when it starts one, or when the
        message goes to no thread of a document."""
        thread = msg.data.get("thread")
        return self.outbox.threads(self.config.name).get(str(thread)) if thread and self.outbox else None

    def keep_thread(self, msg: Message, thread_id: object) -> None:
        """Keep the thread this message started, for its document's next messages (the first one kept stays)."""
        thread = msg.data.get("thread")
        if not thread or self.outbox is None or not isinstance(thread_id, str) or not thread_id:
            return
        if self.kept_thread(msg) is None:
            self.outbox.remember_thread(self.config.name, str(thread), thread_id)

    def exchange(
        self, method: str, url: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> requests.Response:
        """One HTTP request through the notifiers' session (no redirects, the service's proxy); a request that
        gets no answer is a NotifyError to retry, named by what went wrong."""
        import requests

        timeout = self.config.timeout
        try:
            return _http().request(
                method,
                url,
                data=body,
                headers=headers,
                timeout=timeout,
                allow_redirects=False,
                proxies={"http": self.proxy, "https": self.proxy} if self.proxy else None,
            )
        except requests.exceptions.Timeout:
            raise NotifyError(f"no answer within {timeout:g}s", retryable=True)
        except requests.exceptions.ProxyError as exc:
            raise NotifyError(f"proxy failed: {_proxy_reason(exc)}", retryable=True)
        except requests.exceptions.ConnectionError as exc:
            text = str(exc).lower()
            reason = (
                "connection refused"
                if "refused" in text
                else ("connection reset" if "reset" in text or "aborted" in text else "connection failed")
            )
            raise NotifyError(reason, retryable=True)
        except requests.exceptions.RequestException as exc:
            raise NotifyError(f"request failed: {type(exc).__name__}", retryable=True)

    # -- how events read ---------------------------------------------------------------------------------
    @staticmethod
    def title(event: dict[str, Any]) -> str:
        kind = event.get("type")
        source = str(event.get("source", ""))
        if kind in VERSION_EVENTS:
            from differ.diff.summary import new_release

            diff = event.get("diff") or {}
            what = "changed" if kind == "changed" else "metadata changed"
            back, frm = diff.get("back_to"), (diff.get("from") or {}).get("version")
            if kind == "changed" and isinstance(back, int) and isinstance(frm, int):  # an edit undone
                what = "changed back" if back == frm - 1 else f"changed back to version {back}"
            release = new_release(
                [m for m in diff.get("metadata") or [] if isinstance(m, dict) and "field" in m]
            )
            if release is not None:  # releases/latest moved on: another release, not an edit
                what = f"has a new release, {release[1]}"
            return f"{diff.get('title') or source} {what} ({source.split('/', 1)[-1]})"
        if kind == "mirror_drift":
            headline = str(event.get("headline", "fidelity changed"))
            # a headline that ends a sentence reads on ("… is stale: …"), a count after a colon ("…: 2 findings")
            said = " " if headline.startswith(("is ", "caught up")) else ": "
            return f"Mirror {event.get('mirror')} of {event.get('title') or event.get('document')}{said}{headline}"
        # a page's own events: by its post's title, as a change is ("Widget 3.0 (canonical) is failing")
        named = f"{event['title']} ({source.split('/', 1)[-1]})" if event.get("title") else source
        if kind == "fetch_failing":
            n = int(event.get("failures") or 0)
            return f"{named} is failing ({opt.plural(n, 'check')} in a row)"
        if kind == "recovered":
            n = int(event.get("failures") or 0)
            return f"{named} recovered after {opt.plural(n, 'failed check')}"
        if kind == "delivery_failed":
            where = f" ({event.get('kind')})" if event.get("kind") else ""
            return f"Alerts to {event.get('notifier')}{where} are not getting through"
        if kind == "translation_found":
            n = len(event.get("translations") or [])
            return (
                f"{event.get('title') or event.get('document')} names {opt.plural(n, 'translation')} "
                "differ does not watch"
            )
        if kind == "moved":
            return f"{named} moved to {event.get('moved')}"
        if kind == "first_version":
            return f"{named} is watched: first version stored"
        if kind == "digest":
            n = len(event.get("events", []))
            return f"differ digest: {opt.plural(n, 'update')}"
        if kind == "test":
            return "differ test message"
        return f"differ: {kind}"

    @classmethod
    def lines(cls, event: dict[str, Any]) -> list[str]:
        kind = event.get("type")
        if kind in VERSION_EVENTS:
            return [str(x) for x in (event.get("diff") or {}).get("summary", [])]
        if kind == "mirror_drift":
            return [str(x) for x in event.get("summary", [])]
        if kind == "fetch_failing":
            return [f"Last error: {event.get('error', '')}"]
        if kind == "recovered":
            return [f"Checks of {event.get('source')} succeed again."]
        if kind == "delivery_failed":
            lost = [str(x) for x in event.get("lost") or []]
            return [
                f"Last error: {event.get('error', '')}",
                f"Not delivered: {listed(lost, 5)}",
                "They wait in differ's outbox: once the destination works, `differ outbox retry` sends them.",
            ]
        if kind == "translation_found":
            found = [f"{t.get('language')}: {t.get('url')}" for t in event.get("translations") or []]
            more = [f"…and {len(found) - 10} more (differ sources lists them)"] if len(found) > 10 else []
            return [
                *found[:10],
                *more,
                f"differ add URL --to {event.get('document')} audits one as a mirror of it.",
            ]
        if kind == "moved":
            return [
                f"{event.get('url')} now redirects there for good (HTTP 301 or 308); differ follows it and checks "
                f"the page there as ever.",
                f"Its url in config.toml can now name the new address: differ set {event.get('source')} "
                f"url={event.get('moved')}",
            ]
        if kind == "first_version":
            version = event.get("version") or {}
            read = (
                f"read from {event['capture']}"
                if event.get("capture")
                else f"fetched {version.get('fetched_at')}"
            )
            return [
                f"{event.get('url')}: version 1, {opt.plural(int(event.get('words') or 0), 'word')}, {read}.",
                "Its edits from now on are compared with it.",
            ]
        if kind == "digest":
            out: list[str] = []
            for inner in event.get("events", []):
                out.append(f"• {cls.title(inner)}")
                out.extend(f"  {line}" for line in cls.lines(inner)[1:4])
            return out
        if kind == "test":
            return ["If you can read this, differ can reach this destination."]
        return []

    def report_link(self, event: dict[str, Any]) -> str:
        """Where the reports site shows what an alert is about (the notifier's `base_url`, else the service's):
        a change's HTML diff, a drifting mirror's audit on its document's page; or ""."""
        base = self.config.options.get("base_url") or self.base_url
        if base and event.get("type") == "mirror_drift" and event.get("document"):
            return f"{base.rstrip('/')}/{event['document']}/index.html#mirrors"
        to = ((event.get("diff") or {}).get("to") or {}).get("version")
        if not base or not isinstance(to, int):
            return ""
        return report_url(base, str(event.get("source", "")), to)

    @staticmethod
    def link_label(event: dict[str, Any]) -> str:
        """What `report_link` leads to, as its link or button says it."""
        return "Mirror audit" if event.get("type") == "mirror_drift" else "Full diff"

    @staticmethod
    def context(event: dict[str, Any]) -> str:
        diff = event.get("diff") or {}
        parts = [str(event.get("source") or event.get("document") or "differ")]
        if diff:
            frm, to = diff.get("from") or {}, diff.get("to") or {}
            parts.append(f"version {frm.get('version')} → {to.get('version')}")
            if to.get("fetched_at"):
                parts.append(str(to["fetched_at"]))
        elif event.get("at"):
            parts.append(str(event["at"]))
        if event.get("followed"):  # a feed's new posts differ began to watch
            parts.append(f"now watching {', '.join(str(key) for key in event['followed'])}")
        return " · ".join(parts)


def document_of(event: dict[str, Any]) -> str:
    """The document an event is about ("" for a digest)."""
    return str(event.get("document") or str(event.get("source") or "").split("/", 1)[0])


def document_title(event: dict[str, Any]) -> str:
    """The title of the document an event is about, where the event carries it, else its id ("differ" for a
    digest): what names a document's topic, thread or forum post."""
    return str(event.get("title") or (event.get("diff") or {}).get("title") or document_of(event) or "differ")


def require_mentions(config: NotifierConfig, pattern: re.Pattern[str], expected: str) -> None:
    """The check of a notifier's `mention` list: each one must be what its service reads as a mention."""
    for mention in config.options["mention"]:
        if not pattern.fullmatch(mention):
            raise Invalid(f"expected {expected}, found {found(mention)}", key="mention")


def require_http_url(config: NotifierConfig, expected: str) -> None:
    """The cross-field check of a notifier that posts to its `url`."""
    if opt.web_address(str(config.options["url"])) is None:
        raise Invalid(expected, key="url")


_MORE = re.compile(r"^…and (\d+) more changes")


def changes_in(lines: list[str]) -> int:
    """How many changes summary lines stand for: a bullet each, and the count of a "…and N more" line (for a
    message cut shorter than the summary)."""
    return sum(
        1 if line.startswith("•") else int(m.group(1)) if (m := _MORE.match(line)) else 0 for line in lines
    )


def fit(lines: list[str], room: int, size: Callable[[str], int]) -> tuple[list[str], str | None]:
    """As many of `lines` as fit in `room` (`size` measures each), keeping room for the line that ends a cut:
    "…and N more changes" for the changes left out, or "…" (None when nothing is cut)."""
    left = [0] * (len(lines) + 1)  # changes from each line to the end, counted once
    for i in range(len(lines) - 1, -1, -1):
        left[i] = left[i + 1] + changes_in(lines[i : i + 1])
    kept: list[str] = []
    for i, line in enumerate(lines):
        more = left[i]
        tail = f"…and {more} more changes" if more else "…"
        if size(line) + (size(tail) if i < len(lines) - 1 else 0) > room:
            return kept, tail
        kept.append(line)
        room -= size(line)
    return kept, None


def notifier(name: str) -> Callable[[type[Notifier]], type[Notifier]]:
    """Register a notifier kind under `name`."""

    def register(cls: type[Notifier]) -> type[Notifier]:
        cls.name = name
        NOTIFIERS[name] = cls
        return cls

    return register
