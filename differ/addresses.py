"""Addresses as pages give them: read against the page they are on, and compared as the page they point to,
so that a link, a feed entry, a translation a page names and a watched source are matched alike. An address
urllib cannot read (`http://[oops/`, a port that is not a number) is kept as written, never an error."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit


def joined(base: str, href: str) -> str:
    """`href` read against the page at `base`, as a browser does."""
    try:
        return urljoin(base, href) if base else href
    except ValueError:
        return href


def host(url: str) -> str:
    """The address's host, lower-case, without `www.` ("" for a relative address)."""
    try:
        return (urlsplit(url).hostname or "").removeprefix("www.")
    except ValueError:
        return ""


# the tracking parameters of a link shared on social media or by mail, which name no page
SHARED_TRACKING = ("utm_", "fbclid", "gclid", "mc_cid", "mc_eid")


def page_key(url: str) -> str:
    """What an address points to: its scheme, `www.`, a trailing slash, the fragment and tracking parameters
    (`utm_…`, `fbclid`) aside (`https://www.x.org/a/?utm_source=feed#top` is `x.org:/a?`)."""
    try:
        parts = urlsplit(url)
        port = parts.port or ""
    except ValueError:
        return url.split("#", 1)[0].rstrip("/")
    query = "&".join(
        sorted(q for q in parts.query.split("&") if q and not q.lower().startswith(SHARED_TRACKING))
    )
    return f"{host(url)}:{port}{parts.path.rstrip('/')}?{query}"
