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
Javadoc, rustdoc, Asciidoctor) is read with that generator's rules as well
(``generator_rules``): where its sections' ids sit, its members, its labels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from docs_panel.build.site.generator_rules import GeneratorRules, generator_of
from docs_panel.build.site.html_tree import BLOCKS, HEADINGS, Element, descendants, parse, text_of
from docs_panel.build.site.page_kinds import skip_reason
from docs_panel.build.site.tabs import unfold_tabs
from docs_panel.build.site.theme_rules import (
    SECTIONING,
    is_chrome,
    is_chrome_text,
    main_content,
    matcher,
)
from docs_panel.core.addresses import normal_language
from docs_panel.core.docs_index import Section

#: Sphinx's classes for the parts of a signature that name the object
#: (``gzip.`` and ``GzipFile`` of "class gzip.GzipFile(filename=None)"): the
#: title of its section, without the "class", "coroutine" or C return type
#: before it, words that would match every question about classes or ints.
SIGNATURE_NAME = frozenset({"sig-prename", "descclassname", "sig-name", "descname"})
_SPACES = re.compile(r"\s+")
#: Characters with no width that themes put in permalinks (VitePress, Docusaurus).
_ZERO_WIDTH = re.compile("[\u200b\u2060\ufeff]")
#: A link's text that is only a glyph: a permalink ("#", "¶", "§", "🔗"), or nothing.
_GLYPH = re.compile(r"[^\w\[\]()]{0,2}")


class _TextBuffer:
    """Plain text with block boundaries as line breaks; ``pre`` text kept verbatim."""

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: list[str] = []

    def add(self, data: str, *, verbatim: bool) -> None:
        data = _ZERO_WIDTH.sub("", data)
        if not verbatim:
            data = _SPACES.sub(" ", data)
            if not self._parts or self._parts[-1][-1] in " \n":
                data = data.lstrip(" ")
        if data:
            self._parts.append(data)

    def add_block(self, text: str) -> None:
        """Append already extracted text on lines of its own."""
        self.break_line()
        self.add(text, verbatim=True)
        self.break_line()

    def break_line(self) -> None:
        if self._parts and self._parts[-1][-1] != "\n":
            self._parts.append("\n")

    def value(self) -> str:
        lines = "".join(self._parts).split("\n")
        return "\n".join(line.rstrip() for line in lines if line.strip())


@dataclass(slots=True)
class _Draft:
    """A heading and the content up to the next one, before anchors are settled."""

    level: int
    title: str
    anchor: str | None
    body: _TextBuffer = field(default_factory=_TextBuffer)
    ids: list[str] = field(default_factory=list)  # element ids inside it, for links


class _SectionRecord:
    """An open ``<section>`` (or Sphinx's ``div.section``): its id names its first heading."""

    __slots__ = ("anchor", "has_heading")

    def __init__(self, anchor: str | None) -> None:
        self.anchor = anchor
        self.has_heading = False


class _Splitter:
    """Receives the walk of the main content and cuts it into drafts at headings.

    A definition term with an id and its own permalink (Sphinx's API entries
    and glossary terms: ``<dt id="json.dumps">…<a class="headerlink">``) is a
    heading too, one level below the headings around it; the text after its
    list goes back to the section the list is in. ``rules`` (a generator's) add
    wrappers whose id names their first heading, lists whose terms are members,
    a title element, and anchors written just before a heading.
    """

    def __init__(self, rules: GeneratorRules | None = None) -> None:
        self.drafts = [_Draft(level=0, title="", anchor=None)]
        self._wrappers = frozenset({"section"}) | (rules.wrappers if rules else frozenset())
        self._member_lists = rules.member_lists if rules else frozenset()
        self._rules = rules
        self._is_title = matcher(rules.title) if rules and rules.title else None
        self._before: str | None = None  # an empty <a id> just read, if nothing followed it
        self._current = self.drafts[0]
        self._sections: list[_SectionRecord] = []
        self._lists: list[_Draft] = []  # for each open <dl>, the draft it is in
        self._members: list[bool] = []  # for each open <dl>, whether its terms are members
        self._heading: tuple[Element, _Draft] | None = None
        self._heading_text = _TextBuffer()
        self._name: list[str] = []  # the text of a signature's name parts (SIGNATURE_NAME)
        self._in_name: list[Element] = []  # the name parts being read
        self._verbatim = 0
        self.links: list[str] = []  # every <a href>, as written

    def open(self, element: Element) -> None:
        tag, attrs = element.tag, element.attrs
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if attrs.get("id"):
            self._current.ids.append(attrs["id"])
        before, self._before = self._before, None
        if self._rules and self._rules.anchor_before_heading and tag == "a" and "href" not in attrs:
            self._before = attrs.get("id") or attrs.get("name") or None
        if tag == "section" or not self._wrappers.isdisjoint(element.classes):
            self._sections.append(_SectionRecord(attrs.get("id") or None))
        elif tag == "pre":
            self._verbatim += 1
        elif tag == "dl":
            self._lists.append(self._current)
            self._members.append(not self._member_lists.isdisjoint(element.classes))
        if self._heading is not None:
            if not SIGNATURE_NAME.isdisjoint(element.classes):
                self._in_name.append(element)
            if self._heading[1].anchor is None:
                # Last resort: an anchor inside the heading, <h2><a id="x"></a>…</h2>.
                name = attrs.get("name") if tag == "a" else None
                self._heading[1].anchor = attrs.get("id") or name or None
            return
        if tag in HEADINGS or (self._is_title and self._is_title(element)):
            level = int(tag[1]) if tag in HEADINGS else 1
            draft = _Draft(level=level, title="", anchor=attrs.get("id") or before)
            if draft.anchor is None:
                draft.anchor = self._section_anchor()
            for record in self._sections:
                record.has_heading = True
        elif (
            tag == "dt"
            and attrs.get("id")
            and (_has_permalink(element) or (self._members and self._members[-1]))
        ):
            draft = _Draft(level=6 + len(self._lists), title="", anchor=attrs["id"])
        elif tag == "dt" and self._rules and self._rules.wrapped_terms and self._section_anchor():
            draft = _Draft(level=6 + len(self._lists), title="", anchor=self._section_anchor())
            for record in self._sections:
                record.has_heading = True
        else:
            if tag == "dt" and self._members and self._members[-1]:
                # A member without an id has no anchor: it is read in the list's section,
                # not in the member before it.
                self._current = self._lists[-1]
            return
        self._heading = (element, draft)
        self._heading_text = _TextBuffer()
        self._name = []

    def close(self, element: Element) -> None:
        tag = element.tag
        if tag == "section" or not self._wrappers.isdisjoint(element.classes):
            self._sections.pop()
        elif tag == "pre":
            self._verbatim -= 1
        elif tag == "dl" and self._lists:
            self._current = self._lists.pop()
            self._members.pop()
        if self._in_name and element is self._in_name[-1]:
            self._in_name.pop()
        if self._heading is not None and element is self._heading[0]:
            self._end_heading(element)
        elif tag == "span" and self._heading is not None and self._heading[0].tag in HEADINGS:
            self.text(" ")  # a heading's parts in spans of their own (a hero's name, tagline)
        elif tag in BLOCKS:
            self._current.body.break_line()
        elif tag in ("td", "th"):
            self.text(" ")

    def text(self, data: str) -> None:
        if data.strip():
            self._before = None
        buffer = self._heading_text if self._heading else self._current.body
        if self._in_name:
            self._name.append(data)
        buffer.add(data, verbatim=self._verbatim > 0)

    def _end_heading(self, element: Element) -> None:
        assert self._heading is not None
        draft = self._heading[1]
        self._heading = None
        title = _SPACES.sub(" ", self._heading_text.value()).strip()
        if self._rules and element.tag in HEADINGS:
            title = self._rules.strip_label(title)
        if not title:
            return
        draft.title = title
        member = self._rules.member_anchor if self._rules else None
        found = member.fullmatch(draft.anchor) if member and draft.anchor else None
        if found:  # a heading that is the whole signature: the name titles it
            draft.title = found.group("name")
            draft.body.add(title, verbatim=False)
            draft.body.break_line()
        elif element.tag == "dt":  # a signature: the name is the title, all of it is text
            name = _SPACES.sub("", "".join(self._name))
            draft.title = name or title.partition("(")[0].rstrip(" [{") or title
            draft.body.add(title, verbatim=False)
            draft.body.break_line()
        self.drafts.append(draft)
        self._current = draft

    def _section_anchor(self) -> str | None:
        """The id of the innermost enclosing section this heading is the first of."""
        for record in reversed(self._sections):
            if record.has_heading:
                return None
            if record.anchor:
                return record.anchor
        return None


def _has_permalink(element: Element) -> bool:
    return any(
        isinstance(child, Element) and "headerlink" in child.classes for child in element.children
    )


def _is_glyph(element: Element) -> bool:
    """A link to a place on its page whose text is only a glyph (a permalink)."""
    return (
        element.tag == "a"
        and element.attrs.get("href", "").startswith("#")
        and bool(_GLYPH.fullmatch(_ZERO_WIDTH.sub("", text_of(element)).strip()))
    )


def _walk(main: Element, splitter: _Splitter, generator: str = "") -> None:
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


def read_page(address: str, html: str) -> PageContent:
    """Split one page, addressed ``address`` from the site root, into sections.

    The first section is the page top (the bare address): the first heading
    and any text before it. A heading without an anchor to link to, or with one
    already used on the page, stays inside the section before it.
    """
    root = parse(html)
    main = main_content(root)
    reason = skip_reason(address, root, main)
    if reason is not None:
        return PageContent([], skipped=reason)
    rules = generator_of(root)
    splitter = _Splitter(rules)
    unfold_tabs(main)
    _walk(main, splitter, rules.name if rules else "")
    top, *headed = splitter.drafts
    page_title = _page_title(root, headed, address)
    if rules:
        page_title = rules.strip_label(page_title)
    used: set[str | None] = {None}
    if headed:
        first = headed.pop(0)
        top.title, top.anchor = first.title, first.anchor
        top.body.add_block(first.body.value())
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
    parents: list[_Draft] = []
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


def _page_title(root: Element, headings: list[_Draft], address: str) -> str:
    """The first h1 of the content, else ``<title>``, else the first heading, else the file name."""
    h1 = next((draft.title for draft in headings if draft.level == 1), "")
    title_element = next((e for e in descendants(root) if e.tag == "title"), None)
    title = _SPACES.sub(" ", text_of(title_element)).strip() if title_element else ""
    first = headings[0].title if headings else ""
    return h1 or title or first or PurePosixPath(address).stem
