"""Refuse requests to loopback, private, link-local and other non-public addresses (SSRF), hop by hop."""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

from differ.errors import BlockedError
from differ.options import Network

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_CGNAT = ipaddress.ip_network("100.64.0.0/10")


def classify(address: IPAddress) -> str | None:
    """Why an address is not public (`"loopback"`, `"private"`, …), or None for a public address."""
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped or address.sixtofour
        if mapped is not None:
            return classify(mapped)
    checks = (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("shared (carrier-grade NAT)", isinstance(address, ipaddress.IPv4Address) and address in _CGNAT),
        ("private", address.is_private),
        ("reserved", address.is_reserved),
    )
    for reason, hit in checks:
        if hit:
            return reason
    return None


def resolve(host: str, port: int) -> list[IPAddress]:
    """The addresses a name resolves to (an IP literal resolves to itself)."""
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise BlockedError(f"cannot resolve {host}: {exc.strerror}")
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]


def refusal(address: IPAddress, allow: bool | tuple[Network, ...]) -> str | None:
    """Why `address` may not be reached under `allow` (the source's allow_private), or None."""
    if allow is True:
        return None
    reason = classify(address)
    if reason is None or (allow and any(address in net for net in allow)):
        return None
    return reason


ALLOW = "set allow_private for this source to reach it"  # where the caller cannot name the setting itself


def check_url(url: str, allow: bool | tuple[Network, ...], *, proxied: bool = False) -> None:
    """Raise BlockedError when a URL's host resolves to an address that is not allowed. Through a proxy, a name
    that does not resolve here is left to the proxy, which resolves it (and must refuse internal names itself)."""
    if allow is True:
        return
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = resolve(host, port)
    except BlockedError:
        if proxied:
            return
        raise
    for address in addresses:
        reason = refusal(address, allow)
        if reason is not None:
            refused = f"refused {host} ({address}): {reason} address"
            raise BlockedError(f"{refused}; {ALLOW}", refused=refused)


_guard = threading.local()


@contextlib.contextmanager
def guarding(allow: bool | tuple[Network, ...]) -> Iterator[None]:
    """Within the block, every connection this thread makes or reuses is held to `allow` by the address it is
    connected to (check_peer). Checking the name before connecting is not enough: a name can resolve to a public
    address for the check and to a private one for the connection (DNS rebinding)."""
    previous = getattr(_guard, "allow", True)
    _guard.allow = allow
    try:
        yield
    finally:
        _guard.allow = previous


def check_peer(sock: socket.socket) -> None:
    """Raise BlockedError when a connected socket's peer is not allowed in the current `guarding` block."""
    allow = getattr(_guard, "allow", True)
    if allow is True:
        return
    try:
        peer = str(sock.getpeername()[0])
    except (OSError, IndexError):
        return  # not connected: the request fails on its own
    address = ipaddress.ip_address(peer.split("%", 1)[0])
    reason = refusal(address, allow)
    if reason is not None:
        refused = f"refused a connection to {address}: {reason} address (the name resolved to a public one"
        refused += " when checked)"
        raise BlockedError(f"{refused}; {ALLOW}", refused=refused)
