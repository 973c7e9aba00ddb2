"""How politely differ waits: per host, at most N requests in flight and a least delay between them (longer
where robots.txt's Crawl-delay asks, none before a Retry-After has passed), and the Retry-After header read."""

from __future__ import annotations

import contextlib
import email.utils
import threading
import time
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

# The longest wait a server is taken at its word for: a Retry-After or a rate limit's reset further off (years,
# a mistake or a hostile page) would leave a page unwatched, or an alert unsent, for as long.
MAX_WAIT = 86400.0


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a Retry-After header: delay-seconds or an HTTP-date (RFC 9110 §10.2.3), at most
    MAX_WAIT."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdecimal():  # ASCII digits (RFC 9110), which float() reads
        return min(float(value), MAX_WAIT)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return min(max(0.0, when.timestamp() - now), MAX_WAIT)


def server_time(date: str | None, now: float) -> float:
    """Now by the clock of the server that answered (its `Date` header): a Retry-After date or a rate limit's
    reset time is set by that clock, so read against it the wait is what the server meant however far our
    clock is from its own. `now` (ours) when the answer has no date that reads."""
    if not date:
        return now
    try:
        when = email.utils.parsedate_to_datetime(date.strip())
    except (TypeError, ValueError):
        return now
    return now if when is None else when.timestamp()


def host_key(url: str) -> str:
    """What requests are counted per: scheme, host and port (`https://pytorch.org:443`)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}:{parts.port or (443 if parts.scheme == 'https' else 80)}"


class HostLimiter:
    """At most N requests in flight per host, and at least `delay` seconds between them."""

    def __init__(
        self,
        delay: float,
        connections: int = 1,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.delay = delay
        self.connections = connections
        self.clock = clock
        self.sleep = sleep
        self._lock = threading.Lock()
        self._slots: dict[str, threading.BoundedSemaphore] = {}
        self._last: dict[str, float] = {}
        self._not_before: dict[str, float] = {}
        self._delays: dict[str, float] = {}  # hosts that asked for more than `delay`
        self._local = threading.local()

    def waited(self) -> float:
        """Seconds this thread has spent waiting for hosts' turns, so far: what a fetch's time owes to
        politeness rather than to the host."""
        return float(getattr(self._local, "waited", 0.0))

    def at_least(self, host: str, delay: float) -> None:
        """At least `delay` seconds between two requests to `host` (its robots.txt's Crawl-delay), and never
        less than the configured delay."""
        with self._lock:
            self._delays[host] = max(self.delay, delay)

    def hold(self, host: str, seconds: float) -> None:
        """No request to `host` before `seconds` from now (a Retry-After the server asked for)."""
        with self._lock:
            self._not_before[host] = max(self._not_before.get(host, 0.0), self.clock() + seconds)

    @contextlib.contextmanager
    def slot(self, host: str) -> Iterator[None]:
        with self._lock:
            sem = self._slots.setdefault(host, threading.BoundedSemaphore(self.connections))
        sem.acquire()
        try:
            with self._lock:
                delay = self._delays.get(host, self.delay)
                ready = max(self._last.get(host, -1e18) + delay, self._not_before.get(host, -1e18))
                wait = ready - self.clock()
            if wait > 0:
                self.sleep(wait)
                self._local.waited = self.waited() + wait
            yield
        finally:
            with self._lock:
                self._last[host] = self.clock()
            sem.release()
