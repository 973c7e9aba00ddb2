"""Addresses compared as the page they point to, and read without ever failing on one urllib cannot parse."""

from __future__ import annotations

import pytest

from differ.addresses import host, joined, page_key


def test_one_page_however_its_address_is_written() -> None:
    key = page_key("https://x.org/blog/post")
    assert page_key("http://www.x.org/blog/post/#top") == key
    assert page_key("https://X.ORG/blog/post?utm_source=feed&utm_medium=rss") == key
    assert page_key("https://x.org/blog/Post") != key  # a path's case is the page's
    assert page_key("https://x.org:8443/blog/post") != key
    assert page_key("https://x.org/blog/post?p=2") != key
    assert page_key("https://x.org/?b=2&a=1") == page_key("https://x.org/?a=1&b=2")


@pytest.mark.parametrize("bad", ["http://[oops/a", "http://x.org:abc/a", "http://[::1/"])
def test_an_address_urllib_cannot_read_is_kept_as_written(bad: str) -> None:
    assert joined("https://x.org/post/", bad) == bad
    assert page_key(bad + "/#top") == page_key(bad) != page_key("http://x.org/a")
    assert host(bad) in ("", "x.org")


def test_a_relative_address_is_read_against_its_page() -> None:
    assert joined("https://x.org/blog/post/", "../other/") == "https://x.org/blog/other/"
    assert joined("", "/a") == "/a"
    assert host("/a") == ""
