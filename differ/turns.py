"""Whose turn it is: at most `per_host_connections` checks of one host at once (`HostGate`), and, for a check
of many sources, which one a free worker takes next (`Turns`), so that a slow host never holds the others up."""

from __future__ import annotations

import heapq
import threading
from collections import deque


class HostGate:
    """At most `per_host` checks of one host under way at once, so that a slow host, or one with a long
    Crawl-delay, cannot take every worker while the checks of other hosts wait: `differ check` gives a free
    worker another host's source (`Turns`), `differ run` puts the check off."""

    def __init__(self, per_host: int) -> None:
        self.per_host = per_host
        self.busy: dict[str, int] = {}
        self.lock = threading.Lock()

    def enter(self, host: str) -> bool:
        with self.lock:
            if self.busy.get(host, 0) >= self.per_host:
                return False
            self.busy[host] = self.busy.get(host, 0) + 1
            return True

    def free(self, host: str) -> bool:
        """Whether `host` has a check to spare."""
        with self.lock:
            return self.busy.get(host, 0) < self.per_host

    def leave(self, host: str) -> None:
        with self.lock:
            self.busy[host] -= 1


class Turns:
    """Which source a free worker checks next: the first in the given order whose host has a check to spare
    (`HostGate`). A worker thus never waits on a busy host while sources of other hosts are ready, and every
    host still gets its sources in order."""

    def __init__(self, hosts: list[str], per_host: int) -> None:
        self.hosts = hosts
        self.gate = HostGate(per_host)
        self.pending: dict[str, deque[int]] = {}
        for index, host in enumerate(hosts):
            self.pending.setdefault(host, deque()).append(index)
        # A heap of the hosts with a check to spare, by their first waiting source.
        self.ready = [(queue[0], host) for host, queue in self.pending.items()]
        heapq.heapify(self.ready)
        self.left = len(hosts)
        self.stopped = False
        self.changed = threading.Condition()

    def take(self) -> int | None:
        """The index of the next source to check, waiting for a host to be free; None when there is none left."""
        with self.changed:
            while not self.ready and self.left and not self.stopped:
                self.changed.wait()
            if self.stopped or not self.ready:
                return None
            _, host = heapq.heappop(self.ready)
            queue = self.pending[host]
            index = queue.popleft()
            self.left -= 1
            self.gate.enter(host)  # a host among the ready has a check to spare
            if queue and self.gate.free(host):
                heapq.heappush(self.ready, (queue[0], host))
            return index

    def done(self, index: int) -> None:
        with self.changed:
            host = self.hosts[index]
            was_full = not self.gate.free(host)  # then it was not among the ready
            self.gate.leave(host)
            queue = self.pending[host]
            if queue and was_full:
                heapq.heappush(self.ready, (queue[0], host))
            self.changed.notify_all()

    def stop(self) -> None:
        with self.changed:
            self.stopped = True
            self.changed.notify_all()
