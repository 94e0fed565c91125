"""A generator's back-of-the-book index read as entries: words for the places they point at.

A manual's index is what its authors wrote for readers to look things up by:
Texinfo's concept index points "loops, counting" at the paragraph on ``forloop``.
Its page is a listing, never a result (``page_kinds``); its entries become
keywords of the sections holding their targets (``extract``), as a Sphinx general
index's do (``genindex``). This module reads the entries of a page the
generator's ``index_markers`` mark (``generator_rules``); it never decides which
pages are indexes nor which section a link lands in.

Each row of an index table is one entry: its first link, whose text is the
entry's words (a Texinfo ``@subentry`` is written "entry, subentry" there)::

    >>> from docs_panel.build.site.html_tree import parse
    >>> page = parse('''<table class="index-cp"><tr><th>Index Entry</th><th>Section</th></tr>
    ... <tr><td><a href="Forloop.html#index-loops_002c-counting">loops, counting</a>:</td>
    ... <td><a href="Forloop.html">Forloop</a></td></tr></table>''')
    >>> book_index_entries(page, ("table.index-*",))
    [('Forloop.html#index-loops_002c-counting', 'loops, counting')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docs_panel.build.site.html_tree import Element, descendants, text_of
from docs_panel.build.site.markers import matcher

_SPACES = re.compile(r"\s+")


def holds_book_index(main: Element, markers: Sequence[str]) -> bool:
    """Whether ``main`` holds an element one of ``markers`` matches."""
    found = [matcher(marker) for marker in markers]
    return any(matches(element) for element in descendants(main) for matches in found)


def book_index_entries(main: Element, markers: Sequence[str]) -> list[tuple[str, str]]:
    """``(href, words)`` of every entry of the indexes ``markers`` mark in ``main``, in
    page order; hrefs as written (relative to the page)."""
    found = [matcher(marker) for marker in markers]
    entries: list[tuple[str, str]] = []
    for table in descendants(main):
        if not any(matches(table) for matches in found):
            continue
        for row in descendants(table):
            if row.tag != "tr":
                continue
            link = next((e for e in descendants(row) if e.tag == "a" and e.attrs.get("href")), None)
            words = _SPACES.sub(" ", text_of(link)).strip() if link is not None else ""
            if link is not None and words:
                entries.append((link.attrs["href"], words))
    return entries
