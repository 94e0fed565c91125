"""Built HTML as a small tree: parsed once, read and rewritten by the extractor's rules.

libxml2's HTML parser (through lxml) reads the markup; the tree is built here from
its start, end and text events with the few implied end tags that keep broken
pages sane (an unclosed heading ends at the next block). The ``html``, ``head``
and ``body`` elements libxml2 adds to a fragment are left out, so a fragment stays
a fragment. It never raises on bad markup.

    >>> root = parse("<main><h2 class='x y'>Hi<p>there</main>")
    >>> [(e.tag, e.classes) for e in descendants(root)][1:]
    [('main', []), ('h2', ['x', 'y']), ('p', [])]
    >>> text_of(root)
    'Hithere'
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from lxml import etree

if TYPE_CHECKING:
    _Target = etree.ParserTarget["Element"]  # the stubs' name for lxml's target protocol
else:
    _Target = object

HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())  # noqa: SIM905
BLOCKS = HEADINGS | frozenset(
    """address article aside blockquote br caption dd details dialog div dl dt fieldset
    figcaption figure footer header hr li main nav ol p pre section summary table tbody
    tfoot thead tr ul""".split()  # noqa: SIM905
)
_CELL_ENDS = frozenset({"td", "th", "tr", "tbody", "thead", "tfoot"})
# Start tags that end an element left open: the implied end tags of HTML that
# matter for text, plus "a block ends an unclosed heading" so one missing </h2>
# cannot swallow the rest of the page into a title.
_ENDED_BY = {
    "p": BLOCKS,
    **dict.fromkeys(HEADINGS, BLOCKS),
    "li": frozenset({"li"}),
    "dt": frozenset({"dt", "dd"}),
    "dd": frozenset({"dt", "dd"}),
    "td": _CELL_ENDS,
    "th": _CELL_ENDS,
    "tr": _CELL_ENDS - {"td", "th"},
    "option": frozenset({"option", "optgroup"}),
}


class Element:
    """A node of the parse tree (mutable: the extractor's rules rewrite tab sets, but
    never an element's ``class``, so its split is kept once asked for)."""

    __slots__ = ("_classes", "attrs", "children", "tag")

    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag = tag
        self.attrs = attrs
        self.children: list[Element | str] = []
        self._classes: list[str] | None = None

    @property
    def classes(self) -> list[str]:
        found = self._classes
        if found is None:
            found = self._classes = self.attrs.get("class", "").split()
        return found

    def __repr__(self) -> str:
        return f"<{self.tag} {self.attrs}>"


#: The elements libxml2 adds to a page that lacks them, and adds again for markup
#: after ``</html>``: only the first of each that the markup itself opens is kept.
_DOCUMENT_TAGS = ("html", "head", "body")
_DOCUMENT_TAG = re.compile(r"<(html|head|body)[\s/>]", re.IGNORECASE)


class _TreeBuilder(_Target):
    """An lxml parser target: builds ``Element``s from libxml2's events."""

    def __init__(self, written: frozenset[str]) -> None:
        self.root = Element("#document", {})
        self._open = [self.root]
        self._dropped = {tag for tag in _DOCUMENT_TAGS if tag not in written}

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if tag in _DOCUMENT_TAGS:
            if tag in self._dropped:
                return
            self._dropped.add(tag)
        opened = self._open
        # The root's tag ends nothing, so the loop stops at it.
        while tag in _ENDED_BY.get(opened[-1].tag, ()):
            opened.pop()
        element = Element(tag, dict(attrs) if attrs else {})
        opened[-1].children.append(element)
        if tag not in VOID:
            opened.append(element)

    def end(self, tag: str) -> None:
        opened = self._open
        for depth in range(len(opened) - 1, 0, -1):
            if opened[depth].tag == tag:
                del opened[depth:]
                return  # an end tag with nothing open to end is ignored, as browsers do

    def data(self, data: str) -> None:
        children = self._open[-1].children
        if children and type(children[-1]) is str:
            children[-1] += data  # libxml2 hands long text over in pieces
        else:
            children.append(data)

    def close(self) -> Element:
        # lxml's parser and its target refer to each other: the tree must not hang
        # on that cycle, or it outlives the page until the garbage collector runs.
        root, self.root, self._open = self.root, Element("#document", {}), []
        return root


def _written(html: str) -> frozenset[str]:
    """Which of ``_DOCUMENT_TAGS`` the markup opens itself."""
    return frozenset(tag.lower() for tag in _DOCUMENT_TAG.findall(html))


def parse(html: str) -> Element:
    """The tree of ``html`` under a ``#document`` root."""
    builder = _TreeBuilder(_written(html))
    if not html.strip():
        return builder.root
    parser = etree.HTMLParser(
        target=builder, recover=True, no_network=True, huge_tree=True, remove_comments=True
    )
    parser.feed(html)
    return parser.close()


def descendants(root: Element) -> Iterator[Element]:
    """Elements under ``root`` (itself first) in document order (iterative: deep
    broken pages are fine)."""
    stack = [root]
    while stack:
        element = stack.pop()
        yield element
        children = element.children
        if children:
            stack += [child for child in reversed(children) if type(child) is Element]


def texts(element: Element) -> Iterator[str]:
    """The text nodes under ``element``, in order."""
    stack: list[Element | str] = [element]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            yield node
        else:
            stack.extend(reversed(node.children))


def text_of(element: Element) -> str:
    return "".join(texts(element))
