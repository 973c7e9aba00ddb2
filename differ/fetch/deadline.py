"""An overall deadline per request. A watchdog shuts the request's socket down when time is up, wherever the
read is blocked: a server that trickles its headers is cut off as surely as one that trickles its body
(per-read timeouts alone never fire while bytes keep coming)."""

from __future__ import annotations

import contextlib
import heapq
import itertools
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import unquote

import certifi
from urllib3 import PoolManager, ProxyManager
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.util import make_headers, parse_url

from differ.fetch import netguard

_lock = threading.Lock()
_sockets: dict[int, socket.socket] = {}  # thread → socket of the response that thread is waiting for
_active: set[object] = set()  # watchdogs whose block has not ended


class _Registering:
    """Note the socket before waiting for a response, so the watchdog of this thread can reach it; and hold
    each connection, new or reused, to the addresses the request may reach (netguard.check_peer)."""

    sock: socket.socket | None

    proxy: Any

    def _new_conn(self) -> socket.socket:
        sock: socket.socket = super()._new_conn()  # type: ignore[misc]
        if self.proxy is None:  # a proxy's address is the operator's to choose; the proxy reaches the page
            try:
                netguard.check_peer(sock)  # before anything is sent, TLS handshake included
            except BaseException:
                sock.close()
                raise
        return sock

    def request(self, *args: Any, **kwargs: Any) -> Any:
        if self.sock is not None and self.proxy is None:  # a pooled connection, made for another request
            netguard.check_peer(self.sock)
        return super().request(*args, **kwargs)  # type: ignore[misc]

    def getresponse(self, *args: Any, **kwargs: Any) -> Any:
        if self.sock is not None:
            with _lock:
                _sockets[threading.get_ident()] = self.sock
        return super().getresponse(*args, **kwargs)  # type: ignore[misc]


class _HTTPConnection(_Registering, HTTPConnection):
    pass


class _HTTPSConnection(_Registering, HTTPSConnection):
    pass


class _HTTPPool(HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


def pool_manager(size: int, proxy: str = "") -> PoolManager:
    """urllib3's pool manager with connections that the watchdog can cut and that netguard holds to the
    addresses a request may reach; certificates are verified against certifi's bundle, as requests does.
    With a proxy, plain HTTP goes to it as absolute URLs and HTTPS through a CONNECT tunnel; credentials in
    the proxy's URL are sent as Proxy-Authorization (Basic)."""
    options: dict[str, Any] = {
        "num_pools": size, "maxsize": size, "cert_reqs": "CERT_REQUIRED", "ca_certs": certifi.where(),
        "retries": False,
    }  # fmt: skip
    manager: PoolManager
    if proxy:
        parts = parse_url(proxy)
        headers = make_headers(proxy_basic_auth=unquote(parts.auth)) if parts.auth else {}
        bare = parts._replace(auth=None).url
        manager = ProxyManager(bare, proxy_headers=headers, **options)
    else:
        manager = PoolManager(**options)
    manager.pool_classes_by_scheme = {"http": _HTTPPool, "https": _HTTPSPool}
    return manager


class _Alarms:
    """One daemon thread for every deadline of the process (a thread a request cost more than the request)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._pending: set[int] = set()
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None

    def call_in(self, seconds: float, action: Callable[[], None]) -> int:
        with self._cond:
            alarm = next(self._ids)
            heapq.heappush(self._heap, (time.monotonic() + seconds, alarm, action))
            self._pending.add(alarm)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="differ-deadlines", daemon=True)
                self._thread.start()
            self._cond.notify()
            return alarm

    def cancel(self, alarm: int) -> None:
        with self._cond:
            self._pending.discard(alarm)

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    while self._heap and self._heap[0][1] not in self._pending:
                        heapq.heappop(self._heap)  # cancelled
                    if not self._heap:
                        self._cond.wait()
                        continue
                    wait = self._heap[0][0] - time.monotonic()
                    if wait <= 0:
                        _, alarm, action = heapq.heappop(self._heap)
                        self._pending.discard(alarm)
                        break
                    self._cond.wait(wait)
            with contextlib.suppress(Exception):
                action()


_alarms = _Alarms()


@contextlib.contextmanager
def watchdog(seconds: float) -> Iterator[threading.Event]:
    """Within the block, the current thread's request is cut off after `seconds`; the event says it was."""
    ident = threading.get_ident()
    fired = threading.Event()
    token = object()

    def fire() -> None:
        with _lock:
            if token not in _active:  # the block ended first: this thread may be on its next request
                return
            fired.set()
            sock = _sockets.get(ident)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    with _lock:
        _active.add(token)
    alarm = _alarms.call_in(seconds, fire)
    try:
        yield fired
    finally:
        _alarms.cancel(alarm)
        with _lock:
            _active.discard(token)
            _sockets.pop(ident, None)
