"""The polite HTTP client: conditional GET, per-host limits (`limits`), robots.txt, Retry-After, size and time caps."""

from __future__ import annotations

import http.client
import random
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from urllib3 import Timeout
from urllib3.exceptions import (
    ConnectTimeoutError,
    HTTPError,
    LocationParseError,
    NewConnectionError,
    ProxyError,
    ReadTimeoutError,
    SSLError,
)
from urllib3.response import BaseHTTPResponse
from urllib3.util import parse_url
from urllib3.util.request import ACCEPT_ENCODING

from differ.addresses import joined, page_key
from differ.errors import BlockedError, FetchError, innermost
from differ.fetch import netguard, robots
from differ.fetch.deadline import pool_manager, watchdog
from differ.fetch.limits import MAX_WAIT, HostLimiter, host_key, parse_retry_after, server_time
from differ.options import Network

MAX_REDIRECTS = 5
CRAWL_DELAY_CAP = 60.0  # the longest Crawl-delay honoured between two requests to one host
RETRYABLE_STATUS = {500, 502, 503, 504, 429}
# compressions a server may send though differ asks for gzip or deflate, which urllib3 reads only with packages
# differ does not install (brotli, zstandard): such a body is not the page's text
UNREAD_CODINGS = {"br", "zstd", "compress", "x-compress"} - set(ACCEPT_ENCODING.split(","))


@dataclass
class Response:
    """A fetched response: status, headers, body (decoded from Content-Encoding) and where it ended up."""

    url: str
    final_url: str
    status: int
    headers: dict[str, str]
    body: bytes
    elapsed: float
    attempts: int = 1
    # seconds spent waiting for the host's turn (per-host delay, Crawl-delay, Retry-After)
    waited: float = 0.0
    # where the page now lives: another page (not the same by another spelling: `http:`, a slash), reached by
    # redirects that were each permanent (301, 308)
    moved: str = ""
    # the request's own headers (its source's and its kind's; not the fetcher's, nor the validators)
    sent: Mapping[str, str] = field(default_factory=dict)
    # the program that printed the body, as it was run (`command`); empty for an HTTP response
    command: tuple[str, ...] = ()

    @property
    def not_modified(self) -> bool:
        return self.status == 304

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


@dataclass
class Request:
    """What to fetch, with the politeness settings of the source that asks."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    etag: str | None = None
    last_modified: str | None = None
    robots: bool = True
    allow_private: bool | tuple[Network, ...] = False
    # a program that fetches the page instead (a headless browser), `{url}` in its arguments standing for `url`
    command: tuple[str, ...] = ()
    # what a program's output is (its kind's media type, "" for any)
    media_type: str = ""


def asked_to_wait(response: Response, now: float) -> tuple[float, str] | None:
    """How long a refusal of a page asked us to wait, and how it said so (`wait_asked`)."""
    return wait_asked(response.status, response.header, now)


def wait_asked(status: int, header: Callable[[str], str | None], now: float) -> tuple[float, str] | None:
    """How long a refusal (its status, its headers by name) asked us to wait, and how it said so: Retry-After on a
    429 or 503 (or on a 403, as GitHub's secondary rate limit sends it), or a rate limit used up on a 403 or 429
    (`x-ratelimit-remaining: 0` until `x-ratelimit-reset`, as GitHub, GitLab and others send; the reset is a
    Unix time or, when small, a number of seconds). A date or a time is read against the server's own clock
    (`server_time`)."""
    now = server_time(header("date"), now)
    if status in (403, 429, 503):
        wait = parse_retry_after(header("retry-after"), now)
        if wait is not None:
            return wait, f"server asked to wait {wait:.0f}s (Retry-After)"
    if status in (403, 429):
        for prefix in ("x-ratelimit-", "ratelimit-"):
            remaining = (header(prefix + "remaining") or "").strip()
            reset = (header(prefix + "reset") or "").strip()
            if remaining == "0" and reset.isascii() and reset.isdecimal():
                seconds = float(reset)
                wait = min(max(0.0, seconds - now) if seconds >= 1e9 else seconds, MAX_WAIT)
                return wait, f"rate limit used up, resets in {wait:.0f}s ({prefix}reset)"
    return None


class Fetcher:
    """One connection pool shared by every fetch of a run, with per-host politeness. It speaks to urllib3 (the
    HTTP engine under requests) directly: requests' session layer merged settings, cookies and hooks on every
    request, which cost as much CPU as everything else a 304 takes."""

    def __init__(
        self,
        *,
        user_agent: str,
        contact: str = "",
        timeout: float = 30.0,
        max_bytes: int = 10_000_000,
        per_host_delay: float = 5.0,
        per_host_connections: int = 1,
        retries: int = 2,
        retry_after_cap: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        wall: Callable[[], float] = time.time,
        pool_size: int = 16,
        proxy: str = "",
    ):
        self.user_agent = user_agent
        self.timeout = timeout
        self.deadline = timeout * 2
        self.max_bytes = max_bytes
        self.retries = retries
        self.retry_after_cap = retry_after_cap
        self.clock = clock
        self.sleep = sleep
        self.wall = wall
        self.limiter = HostLimiter(per_host_delay, per_host_connections, clock=clock, sleep=sleep)
        # A proxy only when configured (never from the environment): every hop is checked here.
        self.proxy = proxy
        self.pool = pool_manager(pool_size, proxy)
        self.headers = {"User-Agent": user_agent, "Accept-Encoding": "gzip, deflate", "Accept": "*/*"}
        if contact:
            self.headers["From"] = contact
        self.agent_token = user_agent.split("/", 1)[0].strip() or "differ"
        self.robots = robots.Answers(self.agent_token, clock, wall)

    def close(self) -> None:
        self.pool.clear()

    # -- public -----------------------------------------------------------------------------------------
    def fetch(self, request: Request) -> Response:
        """GET with retries: backoff on network faults and 5xx, the wait a server asks for (`asked_to_wait`);
        none on other 4xx, nor on limits of our own (size cap, redirect count, overall deadline), which a retry
        would only hit again. The response (or the error) says how long it waited for the host's turn."""
        before = self.limiter.waited()
        try:
            response = self._fetch(request)
        except FetchError as exc:
            exc.waited = self.limiter.waited() - before
            raise
        response.waited = self.limiter.waited() - before
        return response

    def _fetch(self, request: Request) -> Response:
        if request.command:
            return self._run(request)
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._follow(request)
            except BlockedError:
                raise
            except FetchError as exc:
                if not exc.retryable or attempt > self.retries:
                    raise
                self.sleep(self._backoff(attempt))
                continue
            response.attempts = attempt
            if response.status < 400 or response.status == 304:
                return response
            challenged = (response.header("cf-mitigated") or "").strip().lower() == "challenge"
            if challenged:  # asked again, the same
                raise FetchError(
                    f"HTTP {response.status} {_reason(response.status)}: the site answers with a browser check "
                    "(Cloudflare's challenge), which differ, a robot, does not take; ask the site to let "
                    "differ's User-Agent through, or watch the post in its feed",
                    status=response.status,
                )
            asked = asked_to_wait(response, self.wall())
            if asked is not None:
                wait, why = asked
                if wait > self.retry_after_cap or attempt > self.retries:
                    raise FetchError(
                        f"HTTP {response.status}: {why}", status=response.status, retry_after=wait
                    )
                self.limiter.hold(host_key(response.final_url), wait)
                continue
            if response.status in RETRYABLE_STATUS and attempt <= self.retries:
                self.sleep(self._backoff(attempt))
                continue
            raise FetchError(f"HTTP {response.status} {_reason(response.status)}", status=response.status)

    def allowed_by_robots(self, url: str, allow_private: bool | tuple[Network, ...] = False) -> bool:
        rules, new = self.robots.rules(url, lambda origin: self._load_robots(origin, allow_private))
        if new:
            self.limiter.at_least(host_key(url), min(rules.crawl_delay or 0.0, CRAWL_DELAY_CAP))
        return rules.allows(url)

    def keep_robots(self, kept: robots.Kept) -> None:
        """Keep robots.txt answers in `kept` between runs: a check run from cron then asks each host for
        robots.txt once a day (RFC 9309 §2.4), not once a run."""
        self.robots.kept = kept

    def robots_refusal(self, url: str) -> str:
        """Why robots.txt refuses `url`, in the words of an error line."""
        parts = urlsplit(url)
        cached = self.robots.cached(url)
        if cached is not None and cached.unreadable:
            return (
                f"robots.txt of {parts.netloc} could not be read ({cached.unreadable}), so nothing on that host "
                "is fetched until it can be (RFC 9309); set robots = false for this source to override"
            )
        return (
            f"robots.txt of {parts.netloc} disallows {parts.path or '/'}"
            "; set robots = false for this source to override"
        )

    # -- internals --------------------------------------------------------------------------------------
    def _backoff(self, attempt: int) -> float:
        return float(min(30.0, 2.0 ** (attempt - 1)) * (0.5 + random.random()))

    def _load_robots(self, origin: str, allow_private: bool | tuple[Network, ...]) -> robots.Rules:
        try:
            response = self._follow(
                Request(f"{origin}/robots.txt", robots=False, allow_private=allow_private),
                limit=robots.MAX_BYTES,
                truncate=True,
            )
        except BlockedError:
            raise
        except FetchError as exc:
            return robots.unreadable(str(exc))
        if 400 <= response.status < 500:
            return robots.ALLOW_ALL
        if response.status >= 500:
            return robots.unreadable(f"HTTP {response.status} {_reason(response.status)}")
        return robots.parse(response.body.decode("utf-8", errors="replace"), self.agent_token)

    def _run(self, request: Request) -> Response:
        """The page as a program prints it: asked for under the same rules as a GET of its address (the
        address guard, robots.txt, the host's turn), within the fetch's deadline and `max_bytes`. Output that
        is valid UTF-8 is read as UTF-8 (a browser prints its page so, whatever the page's `<meta charset>`
        said); other bytes as the page says."""
        url = request.url
        started = self.clock()
        netguard.check_url(url, request.allow_private, proxied=bool(self.proxy))
        if request.robots and not self.allowed_by_robots(url, request.allow_private):
            raise BlockedError(self.robots_refusal(url))
        from differ.fetch.command import proxy_environment, run_command

        argv = tuple(arg.replace("{url}", url) for arg in request.command)
        # the program asks for the page through the proxy, as differ would
        env = proxy_environment(self.proxy) if self.proxy else None
        with self.limiter.slot(host_key(url)):
            body = run_command(argv, deadline=self.deadline, limit=self.max_bytes, env=env)  # in real time
        headers = {}
        if request.media_type:
            try:
                body.decode("utf-8")
                headers["content-type"] = f"{request.media_type}; charset=utf-8"
            except UnicodeDecodeError:
                headers["content-type"] = request.media_type
        return Response(url, url, 200, headers, body, self.clock() - started, command=argv)

    def _follow(self, request: Request, *, limit: int | None = None, truncate: bool = False) -> Response:
        url = request.url
        started = self.clock()
        permanent = None  # whether every redirect so far was permanent; None before the first
        for _ in range(MAX_REDIRECTS + 1):
            netguard.check_url(url, request.allow_private, proxied=bool(self.proxy))
            if request.robots and not self.allowed_by_robots(url, request.allow_private):
                raise BlockedError(self.robots_refusal(url))
            headers = dict(request.headers)
            if request.etag:
                headers["If-None-Match"] = request.etag
            if request.last_modified:
                headers["If-Modified-Since"] = request.last_modified
            with self.limiter.slot(host_key(url)), netguard.guarding(request.allow_private):
                status, resp_headers, body = self._get(url, headers, limit or self.max_bytes, truncate)
            if status in (301, 302, 303, 307, 308) and "location" in resp_headers:
                url = joined(url, resp_headers["location"])
                _followable(status, url)
                permanent = permanent is not False and status in (301, 308)
                continue
            moved = url if permanent and page_key(url) != page_key(request.url) else ""
            return Response(
                request.url,
                url,
                status,
                resp_headers,
                body,
                self.clock() - started,
                moved=moved,
                sent=request.headers,
            )
        raise FetchError(f"more than {MAX_REDIRECTS} redirects (last to {url})")

    def _get(
        self, url: str, headers: dict[str, str], limit: int, truncate: bool
    ) -> tuple[int, dict[str, str], bytes]:
        """One GET under the overall deadline: the watchdog cuts it off wherever it is blocked."""
        with watchdog(self.deadline) as fired:
            try:
                result = self._get_once(url, headers, limit, truncate)
            except FetchError:
                if not fired.is_set():
                    raise
            if fired.is_set():  # whatever was parsed from a cut connection is not the page
                raise FetchError(f"response not complete after {self.deadline:g}s; gave up")
            return result

    def _get_once(
        self, url: str, headers: dict[str, str], limit: int, truncate: bool
    ) -> tuple[int, dict[str, str], bytes]:
        deadline = self.clock() + self.deadline
        timeout = Timeout(connect=self.timeout, read=self.timeout)
        try:
            options: dict[str, Any] = {
                "headers": {**self.headers, **headers}, "redirect": False, "preload_content": False,
                "decode_content": False, "timeout": timeout,
            }  # fmt: skip
            if self.proxy:  # the manager sends plain HTTP to the proxy whole, and HTTPS through a tunnel
                resp = self.pool.urlopen("GET", url, **options)
            else:
                target = parse_url(url)
                resp = self.pool.connection_from_url(url).urlopen(
                    "GET", target.request_uri, assert_same_host=False, **options
                )
        except ProxyError as exc:
            proxy = host_key(self.proxy).split("://", 1)[1]  # host and port, never the credentials
            raise FetchError(f"proxy {proxy} failed: {_short(exc)}", retryable=True)
        except NewConnectionError as exc:  # a ConnectTimeoutError by class, but a refusal or a failed lookup
            raise FetchError(f"connection failed: {_short(exc)}", retryable=True)
        except ConnectTimeoutError:
            raise FetchError(f"connection timed out after {self.timeout:g}s", retryable=True)
        except ReadTimeoutError:
            raise FetchError(f"no response within {self.timeout:g}s", retryable=True)
        except SSLError as exc:
            raise FetchError(f"TLS error: {_tls_reason(exc)}")
        except LocationParseError as exc:
            raise FetchError(f"not a URL that can be requested: {_short(exc)}")
        except (HTTPError, OSError, http.client.HTTPException) as exc:
            raise FetchError(f"connection failed: {_short(exc)}", retryable=True)
        try:
            status, resp_headers, body = self._read(resp, limit, truncate, deadline)
        except BaseException:
            _close(resp)
            raise
        resp.release_conn()  # read to its end: the connection goes back to the pool for the next request
        return status, resp_headers, body

    def _read(
        self, resp: BaseHTTPResponse, limit: int, truncate: bool, deadline: float
    ) -> tuple[int, dict[str, str], bytes]:
        resp_headers = {k.lower(): v for k, v in resp.headers.itermerged()}
        declared = resp_headers.get("content-length", "")
        if resp.status == 304:  # never has a body
            return resp.status, resp_headers, b""
        if resp.status in (301, 302, 303, 307, 308) or resp.status >= 400:
            if not (declared.isascii() and declared.isdecimal() and int(declared) <= DRAIN):
                _close(resp)  # a body of unknown or large size is not worth reading to keep the connection
                return resp.status, resp_headers, b""
            self._drain(resp)
            return resp.status, resp_headers, b""
        if declared.isascii() and declared.isdecimal() and int(declared) > limit and not truncate:
            raise FetchError(f"body of {int(declared):,} bytes exceeds max_bytes ({limit:,})")
        coded = [c.strip() for c in resp_headers.get("content-encoding", "").lower().split(",")]
        unread = [c for c in coded if c in UNREAD_CODINGS]
        if unread:  # sent though not asked for: not the page's text
            raise FetchError(
                f"body compressed as {', '.join(unread)}, which differ does not read (it asks for gzip or deflate)"
            )
        chunks: list[bytes] = []
        size = 0
        try:
            while True:
                chunk = resp.read1(65536, decode_content=True)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if size > limit:
                    if truncate:
                        _close(resp)
                        break
                    raise FetchError(f"body exceeds max_bytes ({limit:,} bytes); stopped reading")
                if self.clock() > deadline:
                    raise FetchError(f"response not complete after {self.deadline:g}s; gave up")
        except FetchError:
            raise
        except Exception as exc:  # urllib3 and http.client raise many kinds for broken bodies
            raise FetchError(f"body broken off: {_short(exc)}", retryable=True)
        body = b"".join(chunks)
        if truncate:
            body = body[:limit]
        return resp.status, resp_headers, body

    @staticmethod
    def _drain(resp: BaseHTTPResponse) -> None:
        """Read a small declared body of a response whose body is not wanted, so its connection can be reused."""
        try:
            while resp.read1(DRAIN):
                pass
        except Exception:
            _close(resp)


def _followable(status: int, url: str) -> None:
    """Refuse a redirect to an address differ must not or cannot request, in a line that says which."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as exc:
        raise FetchError(
            f"HTTP {status} redirect to {url[:200]} refused: not a valid address ({exc})"
        ) from None
    if parts.scheme not in ("http", "https"):
        raise FetchError(f"HTTP {status} redirect to {url[:200]} refused: only http and https are followed")


def _close(resp: BaseHTTPResponse) -> None:
    """Give up a response's connection (it may be mid-body) and free its place in the pool."""
    resp.close()
    resp.release_conn()


DRAIN = 65536  # bytes of an unwanted body read to keep the connection


def _short(exc: BaseException) -> str:
    """A one-line reason from a urllib3 exception chain, without object reprs."""
    inner = innermost(exc)
    text = str(inner) or type(inner).__name__
    for marker in (
        "Connection refused",
        "Connection reset",
        "timed out",
        "Name or service not known",
        "Remote end closed connection",
        "IncompleteRead",
        "certificate verify failed",
        "Max retries exceeded",
        "Connection aborted",
    ):
        if marker in text or marker in str(exc):
            return marker[0].lower() + marker[1:]
    return text.splitlines()[0][:200]


_SSL_NOISE = re.compile(r"^\[[A-Z_: ]+\]\s*|\.?\s*\(_ssl\.c:\d+\)$")


def _tls_reason(exc: BaseException) -> str:
    """What OpenSSL said, without its code and source line: "certificate verify failed: IP address mismatch,
    certificate is not valid for '127.0.0.1'" tells a user more than the first half alone."""
    text = str(innermost(exc)) or str(exc)
    return (_SSL_NOISE.sub("", text.splitlines()[0]) if text else "")[:200] or type(exc).__name__


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""
