"""Fetch pages politely: conditional GET, per-host limits, robots.txt, Retry-After, SSRF guard, charset."""

from differ.fetch.charset import Decoded, decode
from differ.fetch.http import Fetcher, Request, Response
from differ.fetch.limits import HostLimiter, parse_retry_after

__all__ = ["Decoded", "Fetcher", "HostLimiter", "Request", "Response", "decode", "parse_retry_after"]
