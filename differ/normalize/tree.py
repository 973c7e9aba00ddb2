"""BeautifulSoup trees built from lxml's tree: the objects `BeautifulSoup(text, "lxml")` makes, in less time.

BeautifulSoup builds its tree from parser events, several Python calls for every tag and string. Here libxml2 (by
way of lxml) builds its tree in C from the same parse, and one pass copies it into BeautifulSoup's own `Tag` and
`NavigableString` objects, following BeautifulSoup's rules: whitespace-only strings collapse to one space or
newline outside <pre> and <textarea>, strings take the class of the element they are in (<script>, <style>, …),
multi-valued attributes (class, rel, …) become lists, and <meta> tags go through BeautifulSoup's own constructor.
A document with parts the copy does not make (processing instructions, content after </html>, comments beside
the root, a doctype that is not first, nesting deeper than libxml2 builds) is parsed the usual way. So is every
document when a probe page, copied once a process, does not come out as BeautifulSoup's (under another
BeautifulSoup release, say). tests/test_tree.py checks both roads give the same tree, node by node, on real and
random markup.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any

from bs4 import BeautifulSoup, Comment, Doctype, Tag
from bs4.element import NavigableString, nonwhitespace_re
from lxml import etree

_SPACES = BeautifulSoup.ASCII_SPACES  # the spacing BeautifulSoup collapses
_DOCTYPE = re.compile("<!doctype", re.IGNORECASE | re.ASCII)
_LEADING = re.compile("\ufeff*[ \n\t\x0c\r]*(?:<!doctype[^>]*>[ \n\t\x0c\r]*)?", re.IGNORECASE | re.ASCII)
_OUTLINE = re.compile(r"<(/?(?:html|head|body))(?=[\s/>]|$)", re.IGNORECASE | re.ASCII)
_PLAIN_OUTLINES = [
    [*html, *head, *body, "/body", "/html"]
    for html in ([], ["html"])
    for head in ([], ["head", "/head"])
    for body in ([], ["body"])
]
_HTML_END = re.compile("</html", re.IGNORECASE | re.ASCII)
_DEEPEST = 1000  # libxml2 stops building its tree at 2048 levels; deeper documents are parsed the usual way
_PER_TAG = (  # each tag's own (a document's tags share its builder's namespace mapping)
    "_namespaces",
    "attrs",
    "contents",
    "parent",
    "previous_element",
    "next_element",
    "next_sibling",
    "previous_sibling",
)


_PROBE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>t</title><script>let a = 1 < 2;</script></head>
<body class="a  b"><!-- c --><p>one <a href="/x" rel="x y">two</a>\t</p> <pre> three\n </pre><!---->
<ruby>漢<rt>kan</rt></ruby><table><td headers="h">4</table><template><p>5</p></template>
</body></html>
"""


def shape(soup: BeautifulSoup) -> list[list[Any]]:
    """Every node in document order: its class, its links as positions, and its name, attributes and contents
    or its text; two trees of the same shape are the same tree to any code that reads them."""
    nodes = [soup, *soup.descendants]
    index = {id(node): i for i, node in enumerate(nodes)}

    def at(node: Any) -> Any:
        return None if node is None else index.get(id(node), "elsewhere")

    rows = []
    for node in nodes:
        row = [type(node).__name__, at(node.next_element), at(node.previous_element), node.hidden]
        if node is not soup:
            row += [at(node.parent), at(node.next_sibling), at(node.previous_sibling)]
        if isinstance(node, Tag):
            row += [
                node.name, node.namespace, node.prefix, node.sourceline, node.sourcepos,
                [(key, type(value).__name__, value) for key, value in node.attrs.items()],
                [at(child) for child in node.contents], node.can_be_empty_element, node.interesting_string_types,
                node.cdata_list_attributes, node.preserve_whitespace_tags, node._namespaces, node.known_xml,
                node.parser_class, node.attribute_value_list_class,
            ]  # fmt: skip
        else:
            row.append(str(node))
        rows.append(row)
    return rows


@cache
def _copies_faithfully() -> bool:
    """Whether the copy of a probe page is BeautifulSoup's own tree, with the BeautifulSoup installed."""
    try:
        copied = _build(_PROBE)
        return copied is not None and shape(copied) == shape(BeautifulSoup(_PROBE, "lxml"))
    except Exception:
        return False


def build(text: str) -> BeautifulSoup | None:
    """The tree `BeautifulSoup(text, "lxml")` builds, or None for a document this copy does not make."""
    return _build(text) if _copies_faithfully() else None


def _build(text: str) -> BeautifulSoup | None:
    if "<?" in text:
        return None  # processing instructions: BeautifulSoup joins target and data its own way
    if text[:1] == "\N{BYTE ORDER MARK}":
        text = text[1:]  # as BeautifulSoup's lxml builder does
    doctypes = len(_DOCTYPE.findall(text))
    leading = _LEADING.match(text)
    assert leading is not None  # the pattern matches the empty string
    if doctypes > 1 or (doctypes and "<" not in leading.group()):
        return None  # a doctype in the body: BeautifulSoup keeps it where it stands, lxml drops it
    if text.startswith("</", leading.end()):
        return None  # an end tag first: BeautifulSoup keeps the space after it outside <html>
    after = _after_end(text, leading.end())
    if after is None:
        return None
    parser = etree.HTMLParser(recover=True, default_doctype=False, huge_tree=True)
    try:
        parser.feed(text)
        root = parser.close()
    except (etree.ParserError, ValueError, LookupError):
        return None
    if root is None or root.getprevious() is not None or root.getnext() is not None:
        return None  # comments beside the root: lxml does not keep the strings between them
    soup = BeautifulSoup("", "lxml")
    return soup if _copy(soup, root, after) else None


def _after_end(text: str, first_tag: int) -> str | None:
    """The whitespace after `</html>`, which BeautifulSoup keeps as a string of the document and lxml drops;
    None when something else follows (BeautifulSoup then opens a second <html>), or when the page's outline
    is not plain enough to be sure `</html>` ends the root."""
    end = _HTML_END.search(text)
    if end is None:
        return ""
    close = text.find(">", end.start())
    rest = text[close + 1 :] if close >= 0 else text[end.start() :]
    if rest.strip(_SPACES):
        return None
    if not rest:
        return rest
    # libxml2 leaves </html> open after some misplaced tags; trust it only after a plain outline:
    # <html>?, <head>…</head>?, <body>?, then </body> and </html> with nothing but space between
    outline = [(m.group(1).lower(), m.start()) for m in _OUTLINE.finditer(text)]
    names = [name for name, _ in outline]
    if names not in _PLAIN_OUTLINES or (names[0] == "html" and outline[0][1] != first_tag):
        return None
    between = text[text.find(">", outline[-2][1]) + 1 : outline[-1][1]]
    return rest if not between.strip(_SPACES) else None


@cache
def _model() -> BeautifulSoup:
    """An empty document, whose builder says how BeautifulSoup makes tags."""
    return BeautifulSoup("", "lxml")


@lru_cache(maxsize=1024)  # keyed by tag names, which pages make up: bounded
def _list_attributes(name: str) -> frozenset[str]:
    """The attributes whose values BeautifulSoup splits into lists of words on this tag (class, rel, …)."""
    lists: dict[str, set[str]] = _model().builder.cdata_list_attributes or {}
    return frozenset(lists.get("*", ())) | frozenset(lists.get(name, ()))


@lru_cache(maxsize=1024)
def _template(name: str) -> dict[str, Any]:
    """A tag of this name as BeautifulSoup's constructor makes it, its own fields emptied: copying the whole
    dict and setting those costs less than building it anew."""
    soup = _model()
    made = Tag(soup, soup.builder, name)  # no parent: the model gains no children
    fields = dict(made.__dict__)
    for key in _PER_TAG:
        fields[key] = None
    return fields


def _copy(soup: BeautifulSoup, root: Any, after: str) -> bool:
    """Copy lxml's tree under `soup`, in document order; False where it meets a node it does not copy."""
    builder: Any = soup.builder
    containers = builder.string_containers
    keep_spaces = builder.preserve_whitespace_tags
    attribute_dict = builder.attribute_dict_class
    value_list = builder.attribute_value_list_class
    namespaces = builder.active_namespace_prefixes[-1]
    new_tag = Tag.__new__
    new_string = str.__new__
    last: Any = None  # BeautifulSoup's next_element/previous_element chain runs in parse order
    open_tags: list[Tag] = [soup]
    kinds: list[type[NavigableString]] = [NavigableString]  # the string class inside each open tag
    keeping = 0  # open <pre>/<textarea> tags
    # "</html" in a string or attribute: the one found in the text may then not end the root
    quoted = False

    def string(value: str, parent: Tag, kind: type[NavigableString]) -> None:
        """Append a string to `parent`, as BeautifulSoup would have."""
        nonlocal last, quoted
        if after and "</" in value and "</html" in value.lower():
            quoted = True
        if not keeping and not value.strip(_SPACES):
            value = "\n" if "\n" in value else " "
        node = new_string(kind, value)
        contents = parent.contents
        sibling = contents[-1] if contents else None
        # one by one, in the order NavigableString sets them: the string then keeps no dict object of its own
        node.hidden = False
        node.parent = parent
        node.previous_element = last
        node.next_element = None
        node.next_sibling = None
        node.previous_sibling = sibling
        if sibling is not None:
            sibling.next_sibling = node
        if last is not None:
            last.next_element = node
        contents.append(node)
        last = node

    doctype = root.getroottree().docinfo
    if doctype.doctype:
        ids = Doctype._string_for_name_and_ids(doctype.root_name, doctype.public_id, doctype.system_url)
        string(ids, soup, Doctype)
    parent: Any = soup
    for event, node in etree.iterwalk(root, events=("start", "end", "comment", "pi")):
        if event == "start":
            name = node.tag
            if name.__class__ is not str or len(open_tags) > _DEEPEST:
                return False
            items = node.items()
            contents = parent.contents
            if name == "meta":  # its charset becomes a substitution placeholder in the constructor
                attrs = attribute_dict()
                for key, value in items:
                    attrs[key] = value
                tag = Tag(soup, builder, name, None, None, attrs, parent, last, namespaces=namespaces)
            else:
                if items:
                    attrs = attribute_dict(items)
                    lists = _list_attributes(name)
                    if not lists.isdisjoint(attrs):
                        for key in lists.intersection(attrs):
                            attrs[key] = value_list(nonwhitespace_re.findall(attrs[key]))
                else:
                    attrs = attribute_dict()
                sibling = contents[-1] if contents else None
                tag = new_tag(Tag)
                fields = _template(name).copy()
                fields["_namespaces"] = namespaces
                fields["attrs"] = attrs
                fields["contents"] = []
                fields["parent"] = parent
                fields["previous_element"] = last
                fields["previous_sibling"] = sibling
                tag.__dict__ = fields
                if sibling is not None:
                    sibling.next_sibling = tag
                if last is not None:
                    last.next_element = tag
            if items and after and not quoted:
                for _, value in items:
                    if "</" in value and "</html" in value.lower():
                        quoted = True
            contents.append(tag)
            open_tags.append(tag)
            kind = containers.get(name, kinds[-1])
            kinds.append(kind)
            if name in keep_spaces:
                keeping += 1
            last = parent = tag
            if node.text:
                string(node.text, tag, kind)
        elif event == "end":
            tag = open_tags.pop()
            kinds.pop()
            if tag.name in keep_spaces:
                keeping -= 1
            parent = open_tags[-1]
            if node.tail:
                string(node.tail, parent, kinds[-1])
        elif event == "comment":
            string(node.text or "", parent, Comment)
            if node.tail:
                string(node.tail, parent, kinds[-1])
        else:
            return False
    if after:
        if quoted:
            return False
        string(after, soup, NavigableString)
    soup._most_recent_element = last
    return True
