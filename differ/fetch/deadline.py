"""An overall deadline per request. A watchdog shuts the request's socket down when time is up, wherever the
read is blocked: a server that trickles its headers is cut off as surely as one that trickles its body
(per-read timeouts alone never fire while bytes keep coming)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import Any

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

_lock = threading.Lock()
_sockets: dict[int, socket.socket] = {}  # thread → socket of the response that thread is waiting for


class _Registering:
    """Note the socket before waiting for a response, so the watchdog of this thread can reach it."""

    sock: socket.socket | None

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


class DeadlineAdapter(HTTPAdapter):
    """requests' adapter with connections that the watchdog can cut."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _HTTPPool, "https": _HTTPSPool}


@contextlib.contextmanager
def watchdog(seconds: float) -> Iterator[threading.Event]:
    """Within the block, the current thread's request is cut off after `seconds`; the event says it was."""
    ident = threading.get_ident()
    fired = threading.Event()

    def fire() -> None:
        fired.set()
        with _lock:
            sock = _sockets.get(ident)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield fired
    finally:
        timer.cancel()
        with _lock:
            _sockets.pop(ident, None)
