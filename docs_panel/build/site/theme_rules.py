"""What of a built page is theme, not content: one table of markers, by generator.

A docs generator wraps every page in the same chrome (navigation, a table of
contents, edit links, prev/next, bylines, anchor glyphs), and the index must
hold only what a reader reads as the page. The rules below name the markers
each theme uses and why; the general rules after them catch the same things
on a theme no rule names (landmark tags and roles, class words such as
``toc`` or ``breadcrumb``, links that are only a glyph).

A marker is a compound selector (``markers``).

    >>> from docs_panel.build.site.html_tree import Element
    >>> is_chrome(Element("div", {"class": "theme-doc-toc-mobile"}), in_sectioning=True)
    True
    >>> is_chrome(Element("div", {"class": "admonition note"}), in_sectioning=True)
    False
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from docs_panel.build.site.html_tree import Element, descendants, text_of
from docs_panel.build.site.markers import class_words, matcher

# Tag lists read best as words, hence the noqa: SIM905.
#: A ``footer`` is chrome anywhere: inside an article it holds its author, edit link,
#: copyright and prev/next (Docusaurus, Hugo themes, Furo).
_CHROME_TAGS = frozenset(
    """aside button canvas dialog footer form head iframe nav noscript object script
    select style svg template textarea""".split()  # noqa: SIM905
)
SECTIONING = frozenset({"article", "aside", "main", "nav", "section"})
_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search"})


@dataclass(frozen=True, slots=True)
class Rule:
    """Elements matching ``marker`` are ``what`` in ``themes``' output, never content."""

    what: str
    themes: str
    marker: str


#: Theme chrome that sits inside the content element, by theme.
THEME_CHROME: tuple[Rule, ...] = (
    Rule("permalink glyph", "Sphinx, MkDocs Material", ".headerlink"),
    Rule("permalink glyph", "VitePress", ".header-anchor"),
    Rule("permalink glyph", "Docusaurus 3", ".hash-link"),
    Rule("sidebar", "Sphinx classic, Alabaster", ".sphinxsidebar"),
    Rule("sidebar", "Sphinx classic, Alabaster", ".sphinxsidebarwrapper"),
    Rule("prev/next links", "Sphinx classic", ".related"),
    Rule("footer", "Sphinx classic, Alabaster", ".footer"),
    Rule("breadcrumbs", "Read the Docs", ".wy-breadcrumbs"),
    Rule("prev/next links", "Read the Docs", ".rst-footer-buttons"),
    Rule("prev/next links", "pydata, Book", ".prev-next-area"),
    Rule("prev/next links", "pydata, Book", ".prev-next-footer"),
    Rule("on this page", "pydata, Book", ".bd-sidebar-secondary"),
    Rule("article header buttons", "pydata, Book", ".bd-header-article"),
    Rule("article footer", "pydata, Book", ".bd-footer-article"),
    Rule("list of child pages", "Sphinx", ".toctree-wrapper"),
    Rule("line numbers", "Sphinx", ".linenos"),
    Rule("copy button", "sphinx-copybutton", ".copybutton"),
    Rule("heading number", "Sphinx", ".section-number"),
    Rule("sidebar", "MkDocs Material", ".md-sidebar"),
    Rule("header", "MkDocs Material", ".md-header"),
    Rule("footer", "MkDocs Material", ".md-footer"),
    Rule("navigation", "MkDocs Material", ".md-nav"),
    Rule("last updated", "MkDocs Material", ".md-source-file"),
    Rule("edit button", "MkDocs Material", ".md-content__button"),
    Rule("post byline", "MkDocs Material blog", ".md-post__header"),
    Rule("post byline", "MkDocs Material blog", ".md-post__meta"),
    Rule("table of contents", "Docusaurus 3", ".theme-doc-toc-desktop"),
    Rule("table of contents", "Docusaurus 3", ".theme-doc-toc-mobile"),
    Rule("edit link and last update", "Docusaurus 3", ".theme-doc-footer"),
    Rule("version banner", "Docusaurus 3", ".theme-doc-version-banner"),
    Rule("version badge", "Docusaurus 3", ".theme-doc-version-badge"),
    Rule("tag list", "Docusaurus 3", ".theme-tags"),
    Rule("post byline", "Docusaurus 3 blog", ".theme-blog-post-authors"),
    Rule("post byline", "Docusaurus 3 blog", "[itemprop=datePublished]"),
    Rule("post footer", "Docusaurus 3 blog", ".theme-blog-footer-edit-meta-row"),
    Rule("code language label", "VitePress", "span.lang"),
    Rule("admonition label", "VitePress", ".custom-block-title"),
    Rule("admonition label", "Docusaurus 3", ".admonitionHeading_*"),
    Rule("outline", "VitePress", ".VPDocAside"),
    Rule("prev/next links", "VitePress", ".VPDocFooter"),
    Rule("prev/next links", "mdBook", ".nav-wrapper"),
    Rule("prev/next links", "mdBook", ".nav-chapters"),
    Rule("menu bar", "mdBook", ".menu-bar"),
    Rule("prev/up/next links", "DocBook XSL", ".navheader"),
    Rule("prev/up/next links", "DocBook XSL", ".navfooter"),
    Rule("list of tables", "DocBook XSL", ".list-of-tables"),
    Rule("list of figures", "DocBook XSL", ".list-of-figures"),
    Rule("list of examples", "DocBook XSL", ".list-of-examples"),
    Rule("list of procedures", "DocBook XSL", ".list-of-procedures"),
    Rule("list of equations", "DocBook XSL", ".list-of-equations"),
)

#: Chrome whose markers are too common a word to hold on every site (``.summary``,
#: ``.reference``): checked only on pages of the generator named in ``themes``, as
#: ``generator_rules.generator_of`` recognises it.
GENERATOR_CHROME: tuple[Rule, ...] = (
    Rule("title area, menus, breadcrumbs", "Doxygen", "div[id=top]"),
    Rule("breadcrumbs", "Doxygen", ".navpath"),
    Rule("links to the member groups", "Doxygen", "div.summary"),
    Rule("search widget", "Doxygen", "[id=MSearchSelectWindow]"),
    Rule("search widget", "Doxygen", "[id=MSearchResultsWindow]"),
    Rule("search widget", "Doxygen", "[id=MSearchBox]"),
    Rule("source links", "Doxygen", "p.definition"),
    Rule("source links", "Doxygen", "p.reference"),
    Rule("inherited members", "Doxygen", "tr.inherit_header"),
    Rule("inherited members", "Doxygen", "tr.inherit"),
    Rule("member separator", "Doxygen", "td.memSeparator"),
    Rule("permalink glyph", "Doxygen", "span.permalink"),
    Rule("footer", "Doxygen", "hr.footer"),
    Rule("footer", "Doxygen", "address.footer"),
    Rule("source tooltips", "Doxygen", "div.ttc"),
    Rule("inherited members", "Javadoc", "div.inherited-list"),
    Rule("source links", "rustdoc", "a.src"),
    Rule("expand toggle label", "rustdoc", "summary.hideme"),
    Rule("auto trait implementations", "rustdoc", "h2[id=synthetic-implementations]"),
    Rule("auto trait implementations", "rustdoc", "[id=synthetic-implementations-list]"),
    Rule("blanket implementations", "rustdoc", "h2[id=blanket-implementations]"),
    Rule("blanket implementations", "rustdoc", "[id=blanket-implementations-list]"),
    Rule("footer, last updated", "Asciidoctor", "div[id=footer]"),
    Rule("byline: author, version, date", "Asciidoctor", "div.details"),
    Rule("sidebar: settings, on this page", "TypeDoc", "div.col-sidebar"),
    Rule("index of the page's members", "TypeDoc", ".tsd-index-panel"),
    Rule("flags (Optional, Readonly)", "TypeDoc", "code.tsd-tag"),
    Rule("members inherited from outside the project", "TypeDoc", "section.tsd-is-external"),
    Rule("node navigation: Next, Previous, Up, Contents, Index", "Texinfo", "div.header"),
    Rule("the manual's title above the Top node's own heading", "Texinfo", "h1.settitle"),
    Rule("table of contents", "Texinfo", "div.contents"),
    Rule("table of contents", "Texinfo", "h2.contents-heading"),
    Rule("short table of contents", "Texinfo", "div.shortcontents"),
    Rule("short table of contents", "Texinfo", "h2.shortcontents-heading"),
    Rule("menu of the node's child nodes", "Texinfo", "table.menu"),
)

#: Text that is chrome on a generator's pages where no marker sets it apart: a
#: link's whole text, or the start of a text run. Doxygen's "More..." links to a
#: member's documentation, and its closing list of the files a class came from.
GENERATOR_CHROME_TEXT: dict[str, tuple[str, ...]] = {
    "Doxygen": (
        "More...",
        "Go to the source code of this file.",
        "The documentation for this class was generated from the following file",
        "The documentation for this struct was generated from the following file",
        "The documentation for this union was generated from the following file",
        "The documentation for this namespace was generated from the following file",
    ),
    "rustdoc": ("Read more",),
}

#: Class words (a class split at ``-``, ``_`` and case changes, a CSS module's
#: hash left off) that mark chrome on any theme: runs of words, each a tuple.
GENERAL_CLASS_WORDS: tuple[tuple[str, ...], ...] = (
    ("toc",),
    ("breadcrumb",),
    ("breadcrumbs",),
    ("pagination",),
    ("prev", "next"),
    ("edit", "this", "page"),
    ("edit", "page"),
    ("edit", "link"),
    ("editlink",),
    ("on", "this", "page"),
    ("onthispage",),
    ("last", "updated"),
    ("skip", "link"),
    ("skip", "to", "content"),
    ("skip", "to", "main"),
    ("byline",),
    ("tags",),
    ("tag", "list"),
    ("post", "list"),
    ("rss",),
    ("copy", "button"),
    ("visually", "hidden"),
    ("sr", "only"),
    ("screen", "reader", "text"),
)


# Checked for every element of every page: one-class rules as a set, CSS-module
# stems as one startswith, and only the few other markers as matchers.
_THEME_CLASSES = frozenset(
    r.marker[1:] for r in THEME_CHROME if re.fullmatch(r"\.[\w-]+", r.marker)
)
_THEME_STEMS = tuple(r.marker[1:-1] for r in THEME_CHROME if re.fullmatch(r"\.[\w-]+\*", r.marker))
_OTHER_MATCHERS = tuple(
    matcher(r.marker)
    for r in THEME_CHROME
    if r.marker[1:] not in _THEME_CLASSES and r.marker[1:-1] not in _THEME_STEMS
)
_GENERATOR_MATCHERS = {
    name: tuple(matcher(r.marker) for r in GENERATOR_CHROME if r.themes == name)
    for name in {r.themes for r in GENERATOR_CHROME}
}


#: On a link, only these runs mark it chrome: a link's text is the heading or term
#: it wraps (Sphinx wraps FAQ headings in ``a.toc-backref``).
_LINK_WORDS = tuple(run for run in GENERAL_CLASS_WORDS if run[0] in ("skip", "edit", "editlink"))


@cache
def _general_chrome_class(name: str, link: bool = False) -> bool:
    words = class_words(name)
    return any(
        words[start : start + len(run)] == run
        for run in (_LINK_WORDS if link else GENERAL_CLASS_WORDS)
        for start in range(len(words) - len(run) + 1)
    )


def is_chrome(element: Element, *, in_sectioning: bool, generator: str = "") -> bool:
    """Whether ``element`` (and all it holds) is theme chrome, by the rules above.

    ``in_sectioning``: it is inside an article, section or main, where a
    ``header`` belongs to the content (HTML's rule: there it holds the title).
    ``generator``: the page's generator (``generator_rules``), whose
    ``GENERATOR_CHROME`` rules then apply too.
    """
    attrs = element.attrs
    classes = element.classes
    return not _holds_pages(element) and (
        element.tag in _CHROME_TAGS
        or (element.tag == "header" and not in_sectioning and not _has_title(element))
        or attrs.get("role") in _CHROME_ROLES
        or "hidden" in attrs
        or attrs.get("aria-hidden") == "true"
        or not _THEME_CLASSES.isdisjoint(classes)
        or any(name.startswith(_THEME_STEMS) for name in classes)
        or any(matches(element) for matches in _OTHER_MATCHERS)
        or any(_general_chrome_class(name, element.tag == "a") for name in classes)
        or any(matches(element) for matches in _GENERATOR_MATCHERS.get(generator, ()))
        or (
            generator in GENERATOR_CHROME_TEXT
            and element.tag == "a"
            and is_chrome_text(text_of(element), generator)
        )
    )


def is_chrome_text(text: str, generator: str) -> bool:
    """Whether ``text`` (a link's, or a run of text) is ``generator``'s chrome."""
    texts = GENERATOR_CHROME_TEXT.get(generator, ())
    return bool(texts) and text.strip().startswith(texts)


#: Where a page's content is, by generator, most specific first; the first that
#: a page has wins. An ``article`` counts only when it is the page's one article
#: (a home page's feature cards are articles each).
CONTENT_ROOTS: tuple[Rule, ...] = (
    Rule("content", "Sphinx, MkDocs default, Read the Docs", "[role=main]"),
    Rule("content", "MkDocs Material", ".md-content"),
    Rule("content", "older Sphinx themes", "div.body"),
    Rule("content", "HTML, Docusaurus, VitePress, mdBook, Hugo, Jekyll", "main"),
    Rule("content", "HTML", "article"),
)
_ROOT_MATCHERS = tuple(matcher(rule.marker) for rule in CONTENT_ROOTS)


def _holds_pages(element: Element) -> bool:
    """Sphinx's ``singlehtml`` puts the child pages themselves, not links to them, in
    its list of child pages: one holding sections is content."""
    return "toctree-wrapper" in element.classes and any(
        e.tag == "section" or "section" in e.classes for e in descendants(element)
    )


def _has_title(element: Element) -> bool:
    """A page header that holds the page's ``h1`` (a landing page's hero) is content."""
    return any(e.tag == "h1" for e in descendants(element))


def main_content(root: Element) -> Element:
    """The element holding the page's content (``CONTENT_ROOTS``), else ``<body>``;
    within it, its one ``article`` if it has one (a theme's menu and page header
    beside the article are chrome: Docusaurus, hugo-book, MkDocs Material)."""
    elements = list(descendants(root))
    chosen = next((element for element in elements if element.tag == "body"), root)
    for rule, matches in zip(CONTENT_ROOTS, _ROOT_MATCHERS, strict=True):
        found = [element for element in elements if matches(element)]
        if found and (rule.marker != "article" or len(found) == 1):
            chosen = found[0]
            break
    body = next((element for element in elements if element.tag == "body"), root)
    if chosen is not body and not _has_title(chosen) and _has_title(body):
        return body  # the title is outside: a landing page's hero above its <main>
    articles = [element for element in descendants(chosen) if element.tag == "article"]
    if len(articles) == 1 and articles[0] is not chosen:
        return articles[0]
    return chosen
