"""Built docs to sections: one per heading, addressed by the heading's anchor.

``extract_site`` walks a folder of built HTML (Sphinx, MkDocs, plain) or
Markdown; ``extract_sections`` splits one page. Only the page's main content
is read (Sphinx ``div[role=main]``, MkDocs ``.md-content``, ``main``,
``article``, else ``body``), without navigation, headers and footers, scripts,
permalink markers and theme sidebars. Code blocks are kept: readers search for
function names. Besides h1-h6, a definition term that carries its own permalink
(Sphinx's API entries and glossary terms, ``<dt id="json.dumps">…¶</dt>``) starts
a section, so ``/library/functions.html#zip`` is a section of its own.

    >>> html = '''<nav>Home</nav><div role="main"><h1>JSON<a class="headerlink">¶</a></h1>
    ... <p>Encode data.</p><section id="basic-usage"><h2>Basic usage</h2>
    ... <pre>json.dumps(obj)</pre></section></div>'''
    >>> for section in extract_sections("/library/json.html", html):
    ...     print(section.address, "|", section.title, "|", section.text)
    /library/json.html | JSON | Encode data.
    /library/json.html#basic-usage | Basic usage | json.dumps(obj)

Redirect stubs and pages marked ``noindex`` have no sections.

Each section also counts the other pages that link into it (``Section.links``:
a link to an element id counts for the section holding that id), which the
ranking reads as "the docs treat this entry as canonical". Sphinx's heading
numbers ("4.8.1.") are left out of titles, like permalink markers.

The parser is stdlib ``html.parser`` with the few implied end tags that keep
broken pages sane (an unclosed heading ends at the next block); it never
raises on bad markup.
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote, urljoin, urlsplit

from builder.genindex import GENINDEX, index_entries
from builder.markdown_pages import render_markdown
from widget.core.docs_index import Section
from widget.core.errors import DocsIndexError

PAGE_SUFFIXES = (".html", ".htm", ".md")
#: Sphinx's build folders that hold assets and sources, not pages.
SKIPPED_FOLDERS = frozenset({"_static", "_sources", "_images", "_downloads"})
#: Generated pages that are lists of links, not content.
NOT_CONTENT = re.compile(r"(genindex(-.*)?|search|([a-z]+-)?modindex|404)\.html?", re.IGNORECASE)

# Tag and class lists read best as words, hence the noqa: SIM905.
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())  # noqa: SIM905
_BLOCKS = _HEADINGS | frozenset(
    """address article aside blockquote br caption dd details dialog div dl dt fieldset
    figcaption figure footer header hr li main nav ol p pre section summary table tbody
    tfoot thead tr ul""".split()  # noqa: SIM905
)
_CELL_ENDS = frozenset({"td", "th", "tr", "tbody", "thead", "tfoot"})
# Start tags that end an element left open: the implied end tags of HTML that
# matter for text, plus "a block ends an unclosed heading" so one missing </h2>
# cannot swallow the rest of the page into a title.
_ENDED_BY = {
    "p": _BLOCKS,
    **dict.fromkeys(_HEADINGS, _BLOCKS),
    "li": frozenset({"li"}),
    "dt": frozenset({"dt", "dd"}),
    "dd": frozenset({"dt", "dd"}),
    "td": _CELL_ENDS,
    "th": _CELL_ENDS,
    "tr": _CELL_ENDS - {"td", "th"},
    "option": frozenset({"option", "optgroup"}),
}

_CHROME_TAGS = frozenset(
    """aside button canvas dialog form head iframe nav noscript object script select
    style svg template textarea""".split()  # noqa: SIM905
)
#: ``header``/``footer`` are page chrome unless inside an article or section (HTML's rule).
_LANDMARK_TAGS = frozenset({"header", "footer"})
_SECTIONING = frozenset({"article", "aside", "main", "nav", "section"})
_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search"})
_CHROME_CLASSES = frozenset(
    """headerlink sphinxsidebar sphinxsidebarwrapper related footer breadcrumbs
    wy-breadcrumbs rst-footer-buttons prev-next-area toctree-wrapper linenos copybutton
    section-number
    md-sidebar md-header md-footer md-nav md-source-file md-content__button
    skip-link""".split()  # noqa: SIM905
)
#: Sphinx's classes for the parts of a signature that name the object
#: (``gzip.`` and ``GzipFile`` of "class gzip.GzipFile(filename=None)"): the
#: title of its section, without the "class", "coroutine" or C return type
#: before it, words that would match every question about classes or ints.
SIGNATURE_NAME = frozenset({"sig-prename", "descclassname", "sig-name", "descname"})
_SPACES = re.compile(r"\s+")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w.:-]+)""", re.IGNORECASE)


class _Element:
    """A node of the parse tree (mutable while the parser builds it)."""

    __slots__ = ("attrs", "children", "tag")

    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag = tag
        self.attrs = attrs
        self.children: list[_Element | str] = []

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Element("#document", {})
        self._open = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        while len(self._open) > 1 and tag in _ENDED_BY.get(self._open[-1].tag, ()):
            self._open.pop()
        element = _Element(tag, {name: value or "" for name, value in attrs})
        self._open[-1].children.append(element)
        if tag not in _VOID:
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._open) - 1, 0, -1):
            if self._open[depth].tag == tag:
                del self._open[depth:]
                return  # an end tag with nothing open to end is ignored, as browsers do

    def handle_data(self, data: str) -> None:
        self._open[-1].children.append(data)


def _parse(html: str) -> _Element:
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


def _descendants(root: _Element) -> Iterator[_Element]:
    """Elements under ``root`` in document order (iterative: deep broken pages are fine)."""
    stack = [root]
    while stack:
        element = stack.pop()
        yield element
        stack.extend(child for child in reversed(element.children) if isinstance(child, _Element))


def _main_content(root: _Element) -> _Element:
    """The element holding the page's content, by the conventions of common doc tools."""
    choices: tuple[Callable[[_Element], bool], ...] = (
        lambda e: e.attrs.get("role") == "main",  # Sphinx, MkDocs' default theme, RTD
        lambda e: "md-content" in e.classes,  # MkDocs Material
        lambda e: e.tag == "div" and "body" in e.classes,  # older Sphinx themes
        lambda e: e.tag == "main",
        lambda e: e.tag == "article",
        lambda e: e.tag == "body",
    )
    for chosen in choices:
        found = next((e for e in _descendants(root) if chosen(e)), None)
        if found is not None:
            return found
    return root


def _is_chrome(element: _Element, in_sectioning: bool) -> bool:
    attrs = element.attrs
    return (
        element.tag in _CHROME_TAGS
        or (element.tag in _LANDMARK_TAGS and not in_sectioning)
        or attrs.get("role") in _CHROME_ROLES
        or "hidden" in attrs
        or attrs.get("aria-hidden") == "true"
        or not _CHROME_CLASSES.isdisjoint(element.classes)
    )


class _TextBuffer:
    """Plain text with block boundaries as line breaks; ``pre`` text kept verbatim."""

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: list[str] = []

    def add(self, data: str, *, verbatim: bool) -> None:
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
    list goes back to the section the list is in.
    """

    def __init__(self) -> None:
        self.drafts = [_Draft(level=0, title="", anchor=None)]
        self._current = self.drafts[0]
        self._sections: list[_SectionRecord] = []
        self._lists: list[_Draft] = []  # for each open <dl>, the draft it is in
        self._heading: tuple[_Element, _Draft] | None = None
        self._heading_text = _TextBuffer()
        self._name: list[str] = []  # the text of a signature's name parts (SIGNATURE_NAME)
        self._in_name: list[_Element] = []  # the name parts being read
        self._verbatim = 0
        self.links: list[str] = []  # every <a href>, as written

    def open(self, element: _Element) -> None:
        tag, attrs = element.tag, element.attrs
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if attrs.get("id"):
            self._current.ids.append(attrs["id"])
        if tag == "section" or "section" in element.classes:
            self._sections.append(_SectionRecord(attrs.get("id") or None))
        elif tag == "pre":
            self._verbatim += 1
        elif tag == "dl":
            self._lists.append(self._current)
        if self._heading is not None:
            if not SIGNATURE_NAME.isdisjoint(element.classes):
                self._in_name.append(element)
            if self._heading[1].anchor is None:
                # Last resort: an anchor inside the heading, <h2><a id="x"></a>…</h2>.
                name = attrs.get("name") if tag == "a" else None
                self._heading[1].anchor = attrs.get("id") or name or None
            return
        if tag in _HEADINGS:
            draft = _Draft(level=int(tag[1]), title="", anchor=attrs.get("id") or None)
            if draft.anchor is None:
                draft.anchor = self._section_anchor()
            for record in self._sections:
                record.has_heading = True
        elif tag == "dt" and attrs.get("id") and _has_permalink(element):
            draft = _Draft(level=6 + len(self._lists), title="", anchor=attrs["id"])
        else:
            return
        self._heading = (element, draft)
        self._heading_text = _TextBuffer()
        self._name = []

    def close(self, element: _Element) -> None:
        tag = element.tag
        if tag == "section" or "section" in element.classes:
            self._sections.pop()
        elif tag == "pre":
            self._verbatim -= 1
        elif tag == "dl" and self._lists:
            self._current = self._lists.pop()
        if self._in_name and element is self._in_name[-1]:
            self._in_name.pop()
        if self._heading is not None and element is self._heading[0]:
            self._end_heading(element)
        elif tag in _BLOCKS:
            self._current.body.break_line()
        elif tag in ("td", "th"):
            self.text(" ")

    def text(self, data: str) -> None:
        buffer = self._heading_text if self._heading else self._current.body
        if self._in_name:
            self._name.append(data)
        buffer.add(data, verbatim=self._verbatim > 0)

    def _end_heading(self, element: _Element) -> None:
        assert self._heading is not None
        draft = self._heading[1]
        self._heading = None
        title = _SPACES.sub(" ", self._heading_text.value()).strip()
        if not title:
            return
        draft.title = title
        if element.tag == "dt":  # a signature: the name is the title, all of it is text
            name = _SPACES.sub("", "".join(self._name))
            draft.title = name or title.partition("(")[0].rstrip() or title
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


def _has_permalink(element: _Element) -> bool:
    return any(
        isinstance(child, _Element) and "headerlink" in child.classes for child in element.children
    )


def _walk(main: _Element, splitter: _Splitter) -> None:
    """Feed ``main``'s content to ``splitter`` in document order, skipping chrome."""
    sectioning = int(main.tag in _SECTIONING or main.attrs.get("role") == "main")
    stack: list[_Element | str | tuple[_Element]] = list(reversed(main.children))
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            splitter.text(item)
        elif isinstance(item, tuple):
            sectioning -= item[0].tag in _SECTIONING
            splitter.close(item[0])
        elif not _is_chrome(item, sectioning > 0):
            sectioning += item.tag in _SECTIONING
            splitter.open(item)
            stack.append((item,))
            stack.extend(reversed(item.children))


def extract_sections(address: str, html: str) -> list[Section]:
    """Split one page, addressed ``address`` from the site root, into sections.

    The first section is the page top (the bare address): the first heading
    and any text before it. A heading without an anchor to link to, or with one
    already used on the page, stays inside the section before it.
    """
    return _extract_page(address, html).sections


@dataclass(frozen=True, slots=True)
class _Page:
    sections: list[Section]
    links: list[str]  # hrefs as written
    owners: dict[str, str]  # element id -> address of the section it is in


def _extract_page(address: str, html: str) -> _Page:
    """A page's sections, its links, and which section each element id is in."""
    root = _parse(html)
    if _not_for_indexing(root):
        return _Page([], [], {})
    splitter = _Splitter()
    _walk(_main_content(root), splitter)
    top, *headed = splitter.drafts
    page_title = _page_title(root, headed, address)
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
    return _Page(sections, splitter.links, owners)


def _not_for_indexing(root: _Element) -> bool:
    """A redirect stub (``<meta http-equiv="refresh">``, as MkDocs writes for moved
    pages) or a page its site asks robots not to index: no content of its own."""
    for element in _descendants(root):
        if element.tag == "meta":
            attrs = {name: value.lower() for name, value in element.attrs.items()}
            if attrs.get("http-equiv") == "refresh" or (
                attrs.get("name") == "robots" and "noindex" in attrs.get("content", "")
            ):
                return True
    return False


def _page_title(root: _Element, headings: list[_Draft], address: str) -> str:
    """The first h1 of the content, else ``<title>``, else the first heading, else the file name."""
    h1 = next((draft.title for draft in headings if draft.level == 1), "")
    title_element = next((e for e in _descendants(root) if e.tag == "title"), None)
    title = _SPACES.sub(" ", "".join(_texts(title_element))).strip() if title_element else ""
    first = headings[0].title if headings else ""
    return h1 or title or first or PurePosixPath(address).stem


def _texts(element: _Element) -> Iterator[str]:
    for child in element.children:
        if isinstance(child, str):
            yield child
        else:
            yield from _texts(child)


def extract_site(root: Path, *, exclude: Path | None = None) -> list[Section]:
    """Sections of every page under ``root``, pages in sorted path order.

    Skips ``exclude`` (the panel's own output folder), hidden folders, Sphinx's
    asset and source folders and generated non-content pages. A Markdown page
    ``a/b.md`` is addressed as ``/a/b.html``, the page it builds to; when that
    HTML page is there too, the HTML wins.
    """
    if not root.is_dir():
        raise DocsIndexError(f"{root} is not a folder: point it at the folder of built docs")
    sections: list[Section] = []
    addresses: set[str] = set()
    owners: dict[str, str] = {}  # "/page.html#id" -> the address of the section holding it
    linked: dict[str, set[str]] = {}  # "/page.html#id" -> the other pages linking to it
    for path in _page_files(root, exclude):
        markdown = path.suffix.lower() == ".md"
        relative = path.relative_to(root).as_posix()
        if markdown:
            relative = relative[: -len(".md")] + ".html"
        address = "/" + quote(relative)
        if address in addresses:
            continue
        addresses.add(address)
        source = _read(path)
        if markdown:
            source = render_markdown(source).body
        page = _extract_page(address, source)
        sections += page.sections
        owners[address] = address
        owners.update((f"{address}#{element_id}", at) for element_id, at in page.owners.items())
        for target in filter(None, (_link_target(address, href) for href in page.links)):
            linked.setdefault(target, set()).add(address)
    if not sections:
        raise DocsIndexError(
            f"no pages found under {root}: expected built docs (.html, .htm) or Markdown (.md)"
            " files; point it at the folder that holds them"
        )
    keywords = _index_keywords(root, owners)
    return [
        replace(section, keywords=tuple(keywords[section.address]))
        if section.address in keywords
        else section
        for section in _with_links(sections, owners, linked)
    ]


def _index_keywords(root: Path, owners: dict[str, str]) -> dict[str, dict[str, None]]:
    """Per section address, the words of the general index entries pointing into it.

    Sphinx writes its index as one page, as letter pages, or both (then
    ``genindex-all.html`` has every entry and is the one read).
    """
    pages = sorted(path for path in root.glob("genindex*.htm*") if GENINDEX.fullmatch(path.name))
    everything = [path for path in pages if path.stem == "genindex-all"]
    keywords: dict[str, dict[str, None]] = {}
    for path in everything or pages:
        for href, words in index_entries(_read(path)):
            target = _link_target("/" + quote(path.name), href)
            owner = owners.get(target) if target else None
            if owner is not None:
                keywords.setdefault(owner, {})[words] = None
    return keywords


def _link_target(page: str, href: str) -> str | None:
    """The site-root address (``/a/b.html#x``) an in-site link on ``page`` points at."""
    parts = urlsplit(urljoin(page, href.strip()))
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = unquote(parts.path)
    if path.endswith("/"):
        path += "index.html"
    elif path.lower().endswith(".md"):  # a Markdown page links to the page it builds to
        path = path[: -len(".md")] + ".html"
    fragment = unquote(parts.fragment)
    return quote(path) + (f"#{fragment}" if fragment else "")


def _with_links(
    sections: list[Section], owners: dict[str, str], linked: dict[str, set[str]]
) -> list[Section]:
    """``sections`` with ``links``: how many other pages link into each one."""
    sources: dict[str, set[str]] = {}
    for target, pages in linked.items():
        owner = owners.get(target)
        if owner is not None:
            sources.setdefault(owner, set()).update(pages - {owner.partition("#")[0]})
    return [
        replace(section, links=len(sources[section.address]))
        if sources.get(section.address)
        else section
        for section in sections
    ]


def _page_files(root: Path, exclude: Path | None) -> list[Path]:
    excluded = exclude.resolve() if exclude is not None else None
    found: list[Path] = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [
            name
            for name in subfolders
            if not name.startswith(".")
            and name not in SKIPPED_FOLDERS
            and Path(folder, name).resolve() != excluded
        ]
        found += (
            Path(folder, name)
            for name in files
            if name.lower().endswith(PAGE_SUFFIXES)
            and not name.startswith(".")
            and not NOT_CONTENT.fullmatch(name)
        )
    return sorted(found, key=lambda path: path.relative_to(root).as_posix())


def _read(path: Path) -> str:
    """A page's text: UTF-8, else the charset its ``<meta>`` declares."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise DocsIndexError(f"cannot read {path}: {err.strerror or err}") from err
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        declared = _META_CHARSET.search(data[:4096])
        charset = declared.group(1).decode("ascii", "replace") if declared else ""
        try:
            if charset and codecs.lookup(charset).name != "utf-8":
                return data.decode(charset)
        except (LookupError, UnicodeDecodeError):
            pass
        raise DocsIndexError(
            f"cannot decode {path}: not valid UTF-8 (byte {err.start})"
            + (f" nor {charset}" if charset else "")
            + "; save it as UTF-8 or declare its encoding with <meta charset>"
        ) from err
