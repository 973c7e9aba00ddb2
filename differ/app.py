"""The application context: configuration, store, HTTP client, clock and streams, injected so tests control them."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TextIO

from differ.config import Config
from differ.errors import DifferError, StoreDamage, StoreError, refused
from differ.fetch import Fetcher
from differ.store import Store


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """UTC timestamps as stored and shown: 2026-07-08T17:45:00Z."""
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")  # year 1 is 0001


def parse_iso(value: object) -> datetime | None:
    """A stored timestamp read back (`iso`'s form, or any ISO 8601); None for nothing or not a time."""
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


@dataclass
class App:
    """Everything a command needs; tests build one with their own clock, sleep and streams."""

    config: Config
    store: Store
    now: Callable[[], datetime] = utcnow
    sleep: Callable[[float], None] = time.sleep
    monotonic: Callable[[], float] = time.monotonic
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    last_sent: dict[str, float] = field(default_factory=dict)  # per destination, for rate limits
    index_pending: bool = False  # a check changed what reports/index.html shows (differ.site)
    index_written: float | None = None  # when this process last wrote it (monotonic)
    reload: Callable[[], Config] | None = None  # reads the configuration again as the command line did
    debug: bool = False  # --debug: a fault differ goes on past is shown with its traceback
    env: Mapping[str, str] | None = None  # the environment the configuration was read with (None: os.environ)
    _fetcher: Fetcher | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_config(cls, config: Config, **kwargs: object) -> App:
        return cls(config, Store(config.service.snapshots), **kwargs)  # type: ignore[arg-type]

    @property
    def fetcher(self) -> Fetcher:
        with self._lock:
            if self._fetcher is None:
                s = self.config.service
                self._fetcher = Fetcher(
                    user_agent=s.user_agent,
                    contact=s.contact,
                    timeout=s.timeout,
                    max_bytes=s.max_bytes,
                    per_host_delay=s.per_host_delay,
                    per_host_connections=s.per_host_connections,
                    retries=s.retries,
                    retry_after_cap=s.retry_after_cap,
                    clock=self.monotonic,
                    sleep=self.sleep,
                    wall=lambda: self.now().timestamp(),
                    pool_size=max(16, s.workers * 2),
                    proxy=s.proxy,
                )
            return self._fetcher

    @contextlib.contextmanager
    def carry_on(self, what: str) -> Iterator[None]:
        """Go on with the other documents and sources when `what` cannot be done for one (a check's alerts,
        audits, feeds, pages and bookkeeping, each done again by the next check): a damaged file of its
        history, a file the system refuses (a folder in its place, another user's) or a fault of differ's is
        one line on the error stream. The store itself failing (locked, unusable) stops the check."""
        try:
            yield
        except Exception as exc:
            self.tell(what, self.why(exc))

    def tell(self, what: str, why: str) -> None:
        """One line on the error stream: what was left undone, and why."""
        print(f"differ: {what}: {why}", file=self.err, flush=True)

    def why(self, exc: Exception) -> str:
        """A failure differ goes on past, as one line: a damaged file or one of differ's errors as it says it, a
        file the system refuses by its name, anything else as a fault. The store itself failing (locked,
        unusable) is raised again: nothing can be kept."""
        if isinstance(exc, StoreError) and not isinstance(exc, StoreDamage):
            raise exc
        if isinstance(exc, DifferError):
            return str(exc)
        found = refused(exc) if isinstance(exc, OSError) else None
        return found or self.fault(exc)

    def fault(self, exc: BaseException) -> str:
        """A fault of differ's that it goes on past, as one line; with --debug, its traceback first."""
        if self.debug:
            traceback.print_exception(exc, file=self.err)
        return f"internal error: {type(exc).__name__}: {exc}"

    def close(self) -> None:
        if self._fetcher is not None:
            self._fetcher.close()
            self._fetcher = None
