"""One built page to its sections: one per heading, addressed by the heading's anchor.

Only the page's main content is read (``theme_rules.main_content``), without
theme chrome (``theme_rules.is_chrome``); every tab panel is read under its
label (``tabs``). Code blocks are kept: readers search for function names.
Besides h1-h6, a definition term that carries its own permalink (Sphinx's API
entries and glossary terms, ``<dt id="json.dumps">…¶</dt>``) starts a section,
so ``/library/functions.html#zip`` is a section of its own.

    >>> html = '''<nav>Home</nav><div role="main"><h1>JSON<a class="headerlink">¶</a></h1>
    ... <p>Encode data.</p><section id="basic-usage"><h2>Basic usage</h2>
    ... <pre>json.dumps(obj)</pre></section></div>'''
    >>> for section in read_page("/library/json.html", html).sections:
    ...     print(section.address, "|", section.title, "|", section.text)
    /library/json.html | JSON | Encode data.
    /library/json.html#basic-usage | Basic usage | json.dumps(obj)

Sphinx's heading numbers ("4.8.1."), permalink glyphs and zero-width spaces are
left out of titles. A page that is not content (``page_kinds``) has no sections
and says why. A page whose generator names itself (DocBook XSL, Doxygen,
Javadoc, rustdoc, Asciidoctor, TypeDoc, Texinfo) is read with that generator's rules as well
(``generator_rules``): where its sections' ids sit, its members, its labels.
Where a section starts and what it is titled is ``heading_splitter``'s to decide.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from docs_panel.build.site.book_index import book_index_entries
from docs_panel.build.site.generator_rules import generator_of
from docs_panel.build.site.heading_splitter import SPACES, ZERO_WIDTH, Draft, Splitter
from docs_panel.build.site.html_tree import HEADINGS, Element, descendants, parse, text_of
from docs_panel.build.site.page_kinds import skip_reason
from docs_panel.build.site.tabs import unfold_tabs
from docs_panel.build.site.theme_rules import (
    SECTIONING,
    is_chrome,
    is_chrome_text,
    main_content,
)
from docs_panel.core.addresses import normal_language
from docs_panel.core.docs_index import Section

#: A link's text that is only a glyph: a permalink ("#", "¶", "§", "🔗"), or nothing.
_GLYPH = re.compile(r"[^\w\[\]()]{0,2}")


def _is_glyph(element: Element) -> bool:
    """A link to a place on its page whose text is only a glyph (a permalink)."""
    return (
        element.tag == "a"
        and element.attrs.get("href", "").startswith("#")
        and bool(_GLYPH.fullmatch(ZERO_WIDTH.sub("", text_of(element)).strip()))
    )


def _walk(main: Element, splitter: Splitter, generator: str = "") -> None:
    """Feed ``main``'s content to ``splitter`` in document order, skipping chrome."""
    sectioning = int(main.tag in SECTIONING or main.attrs.get("role") == "main")
    stack: list[Element | str | tuple[Element]] = list(reversed(main.children))
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not (generator and is_chrome_text(item, generator)):
                splitter.text(item)
        elif isinstance(item, tuple):
            sectioning -= item[0].tag in SECTIONING
            splitter.close(item[0])
        elif not is_chrome(
            item, in_sectioning=sectioning > 0, generator=generator
        ) and not _is_glyph(item):
            children = item.children
            if item.tag == "header" and sectioning:  # an article's: its title and byline
                children = [child for child in children if _holds_heading(child)]
            sectioning += item.tag in SECTIONING
            splitter.open(item)
            stack.append((item,))
            stack.extend(reversed(children))


def _holds_heading(node: Element | str) -> bool:
    """Whether ``node`` is or holds a heading: in an article's header, the rest is its
    byline (date, reading time, authors), not content."""
    return isinstance(node, Element) and any(e.tag in HEADINGS for e in descendants(node))


@dataclass(frozen=True, slots=True)
class PageContent:
    """What one built page holds for the index, and what the site needs of it."""

    sections: list[Section]
    links: list[str] = field(default_factory=list)  # hrefs as written
    owners: dict[str, str] = field(default_factory=dict)  # element id -> its section's address
    language: str = ""  # <html lang>, normalized; "" when the page does not say
    canonical: str = ""  # the path of <link rel="canonical">, if any
    skipped: str | None = None  # why the page is not content (page_kinds), if it is not
    #: A back-of-the-book index's entries, (href as written, words), when the page is one.
    index_entries: list[tuple[str, str]] = field(default_factory=list)


def read_page(address: str, html: str) -> PageContent:
    """Split one page, addressed ``address`` from the site root, into sections.

    The first section is the page top (the bare address): the first heading
    and any text before it. A heading without an anchor to link to, or with one
    already used on the page, stays inside the section before it.
    """
    root = parse(html)
    main = main_content(root)
    reason = skip_reason(address, root, main)
    rules = generator_of(root)
    if reason is not None:
        markers = rules.index_markers if rules else ()
        entries = book_index_entries(main, markers) if reason == "listing" and markers else []
        return PageContent([], skipped=reason, index_entries=entries)
    splitter = Splitter(rules)
    unfold_tabs(main)
    _walk(main, splitter, rules.name if rules else "")
    top, *headed = splitter.drafts
    page_title = _page_title(root, headed, address)
    if rules and rules.heading_titles and headed:
        page_title = headed[0].title
    if rules:
        page_title = rules.strip_label(page_title)
    used: set[str | None] = {None}
    if headed:
        first = headed.pop(0)
        top.title, top.anchor = first.title, first.anchor
        top.body.add_block(first.body.value())
        top.ids += first.ids
        used.add(first.anchor)
    kept = [top]
    for draft in headed:
        if draft.anchor in used:
            kept[-1].body.add_block(draft.title)
            kept[-1].body.add_block(draft.body.value())
            kept[-1].ids += draft.ids
        else:
            used.add(draft.anchor)
            kept.append(draft)
    sections = [Section(address, page_title, top.title or page_title, top.body.value())]
    parents: list[Draft] = []
    for draft in kept[1:]:
        while parents and parents[-1].level >= draft.level:
            parents.pop()
        sections.append(
            Section(
                address=f"{address}#{draft.anchor}",
                page_title=page_title,
                title=draft.title,
                text=draft.body.value(),
                breadcrumb=tuple(parent.title for parent in parents),
            )
        )
        parents.append(draft)
    owners = {
        element_id: section.address
        for draft, section in zip(kept, sections, strict=True)
        for element_id in draft.ids
    }
    # A heading's own anchor names its section, even where an earlier
    # <section id> wrapper put that id in the draft before it.
    owners.update((section.address.partition("#")[2], section.address) for section in sections)
    return PageContent(
        sections, splitter.links, owners, language=_language(root), canonical=_canonical(root)
    )


def _language(root: Element) -> str:
    html = next((e for e in descendants(root) if e.tag == "html"), None)
    return normal_language(html.attrs.get("lang", "")) if html else ""


def _canonical(root: Element) -> str:
    for element in descendants(root):
        if element.tag == "link" and "canonical" in element.attrs.get("rel", "").lower().split():
            return urlsplit(element.attrs.get("href", "")).path
    return ""


def _page_title(root: Element, headings: list[Draft], address: str) -> str:
    """The first h1 of the content, else ``<title>``, else the first heading, else the file name."""
    h1 = next((draft.title for draft in headings if draft.level == 1), "")
    title_element = next((e for e in descendants(root) if e.tag == "title"), None)
    title = SPACES.sub(" ", text_of(title_element)).strip() if title_element else ""
    first = headings[0].title if headings else ""
    return h1 or title or first or PurePosixPath(address).stem
