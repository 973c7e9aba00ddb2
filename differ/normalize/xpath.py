"""XPath selectors for the HTML reader, so urlwatch's `xpath` filters and changedetection.io's XPath include
filters work as written.

BeautifulSoup has no XPath. The document's elements are copied into an lxml tree that remembers the `Tag` each
came from; the expression runs there (XPath 1.0, as libxml2 evaluates it) and the elements it selects are mapped
back. A selector is XPath when it says so (`xpath:` or changedetection.io's `xpath1:`) or starts as only XPath
can (`/`, `(`, `./`); everything else is CSS.
"""

from __future__ import annotations

import re
from functools import lru_cache

from bs4 import BeautifulSoup, Tag
from bs4.element import Comment, NavigableString, PreformattedString
from lxml import etree

from differ.errors import NormalizeError
from differ.normalize.selectors import expression

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # what lxml refuses to hold


@lru_cache(maxsize=256)
def _compiled(selector: str) -> etree.XPath:
    return etree.XPath(expression(selector))


def problem(selector: str) -> str | None:
    """Why `selector` is not an XPath expression lxml can evaluate, or None."""
    if not expression(selector):
        return "nothing after the xpath: prefix"
    bad = _NOT_XML.search(selector)
    if bad:
        return f"it holds the control character U+{ord(bad.group()):04X}, which no XPath expression can"
    try:
        _compiled(selector)
    except etree.XPathSyntaxError as exc:
        return str(exc) or "not valid XPath"
    return None


def select(scope: Tag, selector: str) -> list[Tag]:
    """The elements `selector` selects, in document order, evaluated with `scope` as the context node (the whole
    document when `scope` is one), so `//x` searches the page and `.//x` under `scope`."""
    why = problem(selector)
    if why:
        raise NormalizeError(f'selector "{selector}" is not valid XPath: {why}')
    top = scope
    while top.parent is not None:
        top = top.parent
    tree, origin, mirror = _copy(top)
    if tree is None:
        return []
    context = tree if scope is top else mirror[id(scope)]
    try:
        found = _compiled(selector)(context)
    except etree.XPathError as exc:  # an unknown function, say: found only when evaluated
        raise NormalizeError(f'selector "{selector}" cannot be evaluated: {exc}')
    if not isinstance(found, list):
        what = (
            "a number" if isinstance(found, float) else "true or false" if isinstance(found, bool) else "text"
        )
        raise NormalizeError(
            f'selector "{selector}" evaluates to {what}; expected an XPath that selects elements'
        )
    tags = []
    for node in found:
        if node is tree.getroot() and id(node) not in origin:
            continue  # the element standing for a document with more than one top element
        if not isinstance(node, etree._Element) or id(node) not in origin:
            raise NormalizeError(
                f'selector "{selector}" selects text or attributes; expected an XPath that selects elements'
            )
        tags.append(origin[id(node)])
    return tags


def _copy(top: Tag) -> tuple[etree._ElementTree | None, dict[int, Tag], dict[int, etree._Element]]:
    """An lxml tree of `top`'s elements, attributes and text, with each lxml element's Tag (`origin`) and each
    Tag's element (`mirror`), both by id (`mirror` keeps the elements alive, so lxml hands back the same ones)."""
    roots = (
        [child for child in top.contents if isinstance(child, Tag)]
        if isinstance(top, BeautifulSoup)
        else [top]
    )
    if not roots:
        return None, {}, {}
    origin: dict[int, Tag] = {}
    mirror: dict[int, etree._Element] = {}

    def element(tag: Tag, parent: etree._Element | None) -> etree._Element:
        name = tag.name if _name_ok(tag.name) else "_"
        el = etree.Element(name) if parent is None else etree.SubElement(parent, name)
        for key, value in tag.attrs.items():
            text = " ".join(value) if isinstance(value, list) else str(value)
            try:
                el.set(key, _NOT_XML.sub("", text))
            except ValueError:  # a name XML cannot hold (`@click`, `:class`); no XPath could name it either
                pass
        origin[id(el)], mirror[id(tag)] = tag, el
        return el

    if len(roots) == 1:
        root = element(roots[0], None)
        stack = [(roots[0], root)]
    else:  # a document the parser left with more than one top element
        root = etree.Element("document")
        stack = [(r, element(r, root)) for r in roots]
    while stack:
        tag, el = stack.pop()
        for child in tag.contents:
            if isinstance(child, Tag):
                stack.append((child, element(child, el)))
            elif isinstance(child, NavigableString) and not isinstance(child, (Comment, PreformattedString)):
                _append_text(el, _NOT_XML.sub("", str(child)))
    return etree.ElementTree(root), origin, mirror


def _append_text(el: etree._Element, text: str) -> None:
    """Add text after `el`'s last child (its tail), or inside `el` when it has none yet."""
    if len(el):
        last = el[-1]
        last.tail = (last.tail or "") + text
    else:
        el.text = (el.text or "") + text


@lru_cache(maxsize=1024)
def _name_ok(name: str) -> bool:
    try:
        etree.Element(name)
    except ValueError:
        return False
    return True
