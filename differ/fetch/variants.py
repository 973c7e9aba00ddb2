"""Which variant of a page a response's validators (`ETag`, `Last-Modified`) belong to: the request headers it
said it varies on (`Vary`). A conditional request for another variant (another `Accept-Language`, another
cookie) could be answered 304 for a page never got, so the validators are sent only for the same one."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from differ.fetch.http import Response


def variant(names: Iterable[str], headers: Mapping[str, str]) -> str:
    """A digest of the request headers named (`*`: all of them), kept rather than their values, since such a
    header may be a credential."""
    sent = {name.lower(): value for name, value in headers.items()}
    wanted = sorted(sent) if "*" in names else sorted({name.lower() for name in names})
    return hashlib.sha256("\n".join(f"{name}: {sent.get(name, '')}" for name in wanted).encode()).hexdigest()


def keyed_by(response: Response) -> dict[str, Any] | None:
    """What keys a response's validators, to be kept with them (None when it varies on nothing)."""
    names = [name.strip().lower() for name in (response.header("vary") or "").split(",") if name.strip()]
    return {"on": names, "sha256": variant(names, response.sent)} if names else None


def same_variant(kept: dict[str, Any] | None, headers: Mapping[str, str]) -> bool:
    """Whether `headers` ask for the variant the validators were given for (yes when the response varied on
    nothing; no when what was kept of it does not read)."""
    if kept is None:
        return True
    names = kept.get("on")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return False
    return variant(names, headers) == kept.get("sha256")
