"""A Sphinx general index (``genindex.html``) read as words for the sections it points at.

The general index is what a site's authors curated for readers to look
things up by: "walrus operator" points at the paragraph on assignment
expressions, "global" under "statement" at the ``global`` statement. The extractor
adds each entry's words to the section holding its target (``Section.keywords``),
so a reader's words find the section even where its heading uses others.

An entry's words are its own label after the labels of the entries it is
nested in; a link labelled ``[1]`` is another target of the same entry::

    >>> index_entries('''<ul><li>statement<ul>
    ...   <li><a href="reference/simple_stmts.html#index-43">global</a>,
    ...       <a href="faq/programming.html#x">[1]</a></li></ul></li>
    ... <li><a href="reference/expressions.html#index-86">walrus operator</a></li></ul>''')
    [('reference/simple_stmts.html#index-43', 'statement global'), \
('faq/programming.html#x', 'statement global'), \
('reference/expressions.html#index-86', 'walrus operator')]

Both layouts Sphinx has used are read: nested ``<ul><li>`` and ``<dl><dt><dd>``
(where a ``<dd>`` holds the sub-entries of the ``<dt>`` before it). Links
are returned as written (relative to the index page).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

#: Pages that hold a Sphinx general index: the one page, its letter pages, or all in one.
GENINDEX = re.compile(r"genindex(-.*)?\.html?", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_MORE_TARGETS = re.compile(r"\[\d+\]")
_QUALIFIER = re.compile(r"\([^()]*\)")
_ENTRY_TAGS = frozenset({"li", "dt"})


class _Entry:
    __slots__ = ("hrefs", "label", "link_text", "nested")

    def __init__(self, label: str = "") -> None:
        self.label = label
        self.hrefs: list[str] = []
        self.link_text: list[str] | None = None  # text of the link being read
        self.nested = False  # inside a sub-list: text belongs to sub-entries


class _EntryParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.entries: list[tuple[str, str]] = []
        self._open: list[_Entry] = []  # li, dt and dd being read, outermost first
        self._last_term = ""  # the label of the last closed <dt>, for its <dd>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        entry = self._open[-1] if self._open else None
        if tag in _ENTRY_TAGS:
            self._open.append(_Entry())
        elif tag == "dd":
            self._open.append(_Entry(self._last_term))
            self._open[-1].nested = True
        elif tag in ("ul", "dl") and entry is not None:
            entry.nested = True
        elif tag == "a" and entry is not None and not entry.nested:
            href = dict(attrs).get("href")
            if href:
                entry.hrefs.append(href)
                entry.link_text = []

    def handle_data(self, data: str) -> None:
        entry = self._open[-1] if self._open else None
        if entry is None or entry.nested:
            return
        if entry.link_text is not None:
            entry.link_text.append(data)
        elif not entry.hrefs:  # after the first link: only separators and more links
            entry.label += data

    def handle_endtag(self, tag: str) -> None:
        entry = self._open[-1] if self._open else None
        if entry is None:
            return
        if tag == "a" and entry.link_text is not None:
            text = _clean("".join(entry.link_text))
            if not _MORE_TARGETS.fullmatch(text) and len(entry.hrefs) == 1:
                entry.label += " " + text
            entry.link_text = None
        elif tag in _ENTRY_TAGS or tag == "dd":
            self._open.pop()
            if tag == "dd":
                return
            label = _clean(entry.label)
            words = " ".join(filter(None, [*(_clean(e.label) for e in self._open), label]))
            self.entries += ((href, words) for href in entry.hrefs if words)
            if tag == "dt":
                self._last_term = label


def _clean(text: str) -> str:
    """A label without its qualifiers ("(in module os.path)": the target's page says so)."""
    return _SPACES.sub(" ", _QUALIFIER.sub(" ", text)).strip(" ,")


def index_entries(html: str) -> list[tuple[str, str]]:
    """``(href, words)`` for every link of a general index page, in page order."""
    parser = _EntryParser()
    parser.feed(html)
    parser.close()
    return parser.entries
