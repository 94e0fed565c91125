"""How a generator that names itself marks its sections: one table, by generator.

The general rules read any theme's headings, with their anchor on the heading,
inside it, or on the ``<section>`` they open (``page_sections``). Some
generators, recognised by the ``<meta name="generator">`` they write, wrap
sections, number headings and list members in ways of their own; the rules
below say how, and apply only to pages of that generator, so no other
site's reading changes. What is chrome is decided in ``theme_rules``
(``THEME_CHROME``, and ``GENERATOR_CHROME`` for markers only one generator's
pages may be judged by), never here.

    >>> from docs_panel.build.site.html_tree import parse
    >>> page = parse('<head><meta name="generator" content="DocBook XSL Stylesheets V1.79.2">')
    >>> rules = generator_of(page)
    >>> rules.name, rules.strip_label("5.11.2. Declarative Partitioning")
    ('DocBook XSL', 'Declarative Partitioning')
    >>> rules.strip_label("Chapter 5. Data Definition"), rules.strip_label("F.1. adminpack")
    ('Data Definition', 'adminpack')
    >>> texinfo = generator_of(parse('<meta name="Generator" content="makeinfo">'))
    >>> [texinfo.strip_label(t) for t in ("5.1 Defining macros", "Appendix C Indices", "C.2 Index")]
    ['Defining macros', 'Indices', 'Index']
    >>> texinfo.strip_label("A Sample Function Description"), texinfo.strip_label("3D Plots")
    ('A Sample Function Description', '3D Plots')
    >>> generator_of(parse('<meta name="generator" content="Docusaurus v3.10.2">')) is None
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docs_panel.build.site.html_tree import Element, descendants
from docs_panel.build.site.markers import matcher


@dataclass(frozen=True, slots=True)
class GeneratorRules:
    """What pages whose generator meta starts with ``meta`` add to the general rules."""

    name: str
    meta: str  # the start of <meta name="generator" content>, lower-case
    #: Classes of the elements whose id names the first heading inside them (besides
    #: ``<section>`` and Sphinx's ``div.section``, which every page has).
    wrappers: frozenset[str]
    #: Classes of the definition lists whose terms with an id are members, a section each
    #: (an option, a parameter, a setting), the term kept as the section's first line.
    member_lists: frozenset[str]
    #: The number the generator writes before a heading ("5.11.2. ", "Chapter 5. "),
    #: left out of titles as Sphinx's ``.section-number`` is.
    label: re.Pattern[str]
    #: The element holding the page's title when it is not a heading (a marker of
    #: ``markers.matcher``), read as the page's ``h1``; "" for none.
    title: str = ""
    #: The tag of an empty element whose id, just before a heading, is its anchor
    #: (Doxygen writes ``<a id>`` there, Texinfo ``<span id>``, never on the heading); "" for none.
    anchor_before_heading: str = ""
    #: Pages that are not content: the reason (as ``page_kinds`` counts it) and the
    #: pattern (``pages``) their path matches, lower-case and without its suffix.
    not_content: tuple[tuple[str, re.Pattern[str]], ...] = ()
    #: Markers (``markers.matcher``) of an element that makes its page a listing: a
    #: back-of-the-book index.
    index_markers: tuple[str, ...] = ()
    #: A marker of the element in a member's term that holds its name (the section's
    #: title, without the category or return values around it); "" for none.
    member_name: str = ""
    #: A marker of the permalink inside a term that makes the term with an id a member
    #: in any list (an indexed ``@item`` of a ``@table``), as Sphinx's ``headerlink`` does.
    permalink: str = ""
    #: Whether member terms written one after another (a function's other call forms)
    #: are one member: the first names the section, the others join it as lines.
    joined_terms: bool = False
    #: Whether the page's first heading titles it: its ``<title>`` adds the manual's name.
    heading_titles: bool = False
    #: Anchors of members whose heading is their whole signature: the section is
    #: titled by the ``name`` group and the signature becomes its first line.
    member_anchor: re.Pattern[str] | None = None
    #: Whether a term that opens a wrapper with an id (before any heading in it) is a
    #: member named by that id: Asciidoctor writes ``[[id]]`` before a list there.
    wrapped_terms: bool = False
    #: A marker (``markers.matcher``) of an element in ``<head>`` that names the
    #: generator when it writes no generator meta; "" for none.
    head_marker: str = ""

    def strip_label(self, title: str) -> str:
        return self.label.sub("", title, count=1) or title


def pages(pattern: str) -> re.Pattern[str]:
    """Paths ending in ``pattern``: ``files`` is /files.html and /api/files.html."""
    return re.compile(rf"(?:.+/)?(?:{pattern})")


#: DocBook XSL (chunked and single-page HTML): every division is a ``div`` named by
#: its element (``sect1``, ``refsect1``, ``chapter``…) carrying the id, its heading
#: inside ``div.titlepage > div > div > h2.title``; a ``variablelist`` term with an
#: id is an option or setting (PostgreSQL's ``GUC-WAL-LEVEL``).
DOCBOOK = GeneratorRules(
    name="DocBook XSL",
    meta="docbook xsl",
    wrappers=frozenset(
        """sect1 sect2 sect3 sect4 sect5 section simplesect refsect1 refsect2 refsect3
        refsection chapter appendix preface part reference refentry article glossary
        bibliography colophon partintro""".split()  # noqa: SIM905
    ),
    member_lists=frozenset({"variablelist"}),
    label=re.compile(r"^(?:(?:Chapter|Appendix|Part)\s+)?(?:[A-Z]|[IVXLC]+|\d+)(?:\.\d+)*\.\s+"),
)

#: Doxygen: a class or file page is a title in ``div.headertitle``, group headings
#: (``h2.groupheader``: Public Member Functions…) over tables of declarations, then
#: each member's documentation under an ``h2.memtitle`` with its anchor in the
#: ``<a id>`` before it, the signature in ``div.memproto``. The indexes of classes,
#: files, directories and members, the "List of all members" pages (inherited
#: members included) and the highlighted source files are not content.
DOXYGEN = GeneratorRules(
    name="Doxygen",
    meta="doxygen",
    wrappers=frozenset(),
    member_lists=frozenset(),
    label=re.compile(r"(?!)"),
    title="div.title",
    anchor_before_heading="a",
    not_content=(
        ("source", pages(r".+_source")),
        (
            "listing",
            pages(
                r"files|annotated|classes|hierarchy|namespaces|pages|modules|dir_[0-9a-f]+"
                r"|(functions|globals|namespacemembers)(_\w+)?|.+-members"
            ),
        ),
    ),
)

#: Javadoc's standard doclet (JDK 17 and later): the general rules already read its
#: ``<section id>`` per member ("has(java.lang.String)") with the signature
#: first; its chrome is in ``theme_rules.GENERATOR_CHROME``. The indexes, trees,
#: usage lists, the deprecated list and the doclet's own help are not content.
JAVADOC = GeneratorRules(
    name="Javadoc",
    meta="javadoc/",
    wrappers=frozenset(),
    member_lists=frozenset(),
    label=re.compile(r"(?!)"),
    not_content=(
        (
            "listing",
            pages(
                r"allclasses(-index)?|allpackages-index|overview-tree|package-tree|index-all"
                r"|index-files/index-\d+|deprecated-list|package-use|class-use/.+"
            ),
        ),
        ("help", pages(r"help-doc")),
    ),
)

#: rustdoc: each item's page is one ``<main>`` whose members sit in ``<section id>``
#: (``method.is_left``, ``variant.Left``) around an ``h4.code-header`` holding the
#: whole signature, the docs after it. Its chrome (source links, toggles, the auto
#: trait and blanket implementations every type repeats) is in
#: ``theme_rules.GENERATOR_CHROME``; its source pages and own help are not content
#: (``all.html``, a list of links, is a listing by the general rule).
RUSTDOC = GeneratorRules(
    name="rustdoc",
    meta="rustdoc",
    wrappers=frozenset(),
    member_lists=frozenset(),
    label=re.compile(r"(?!)"),
    not_content=(
        ("source", pages(r"src/.+")),
        ("help", pages(r"help|settings")),
    ),
    member_anchor=re.compile(
        r"(?:method|tymethod|structfield|variant|associatedtype|associatedconstant)"
        r"\.(?P<name>\w+)(?:-\d+)?"
    ),
)

#: Asciidoctor (HTML5 backend): headings carry their ids; a description list with an
#: id (``div.dlist#config_base_dir``, one option each) is a member titled by its
#: term. Its contents list is a ``toc`` (general rule); its footer and the
#: header's byline are in ``theme_rules.GENERATOR_CHROME``.
ASCIIDOCTOR = GeneratorRules(
    name="Asciidoctor",
    meta="asciidoctor",
    wrappers=frozenset({"dlist"}),
    member_lists=frozenset(),
    label=re.compile(r"(?!)"),
    wrapped_terms=True,
)

#: TypeDoc (default theme): no generator meta, but its search script's id in
#: ``<head>``. Members are ``h3`` headings with ids, read by the general rules;
#: its sidebar, member index, flags and members inherited from outside the
#: project are in ``theme_rules.GENERATOR_CHROME``. ``modules.html`` and
#: ``hierarchy.html`` are listings.
TYPEDOC = GeneratorRules(
    name="TypeDoc",
    meta="typedoc",
    wrappers=frozenset(),
    member_lists=frozenset(),
    label=re.compile(r"(?!)"),
    not_content=(("listing", pages(r"modules|hierarchy")),),
    head_marker="script[id=tsd-search-script]",
)

#: Texinfo's ``makeinfo --html`` (6.8, split by node): one page per node in a ``div``
#: named by its sectioning command, its heading numbered ("5.1 ", "Appendix C ",
#: "C.2 ") after an empty ``<span id>`` holding the node's anchor; a heading without
#: a node of its own sits in a ``div.subsection`` carrying its id. Each ``@deffn`` or
#: ``@deftypefn`` is a ``dl.def`` whose terms carry the entry's id (``index-zeros``),
#: the name in ``<strong>``, its ``@deffnx`` call forms in the terms after it; a
#: ``@table`` item with an index entry has that id and a permalink too. Index nodes
#: (``table.index-cp``, ``index-fn``…) are listings; its node navigation and table
#: of contents are in ``theme_rules.GENERATOR_CHROME``.
TEXINFO = GeneratorRules(
    name="Texinfo",
    meta="makeinfo",
    wrappers=frozenset(
        """top part chapter section subsection subsubsection appendix appendixsec
        appendixsubsec appendixsubsubsec unnumbered unnumberedsec unnumberedsubsec
        unnumberedsubsubsec""".split()  # noqa: SIM905
    ),
    member_lists=frozenset({"def"}),
    label=re.compile(r"^(?:Appendix\s+[A-Z]|[A-Z](?:\.\d+)+|\d+(?:\.\d+)*)\s+"),
    anchor_before_heading="span",
    index_markers=("table.index-*",),
    member_name="strong",
    permalink="a.copiable-anchor",
    joined_terms=True,
    heading_titles=True,
)

GENERATORS: tuple[GeneratorRules, ...] = (
    DOCBOOK,
    DOXYGEN,
    JAVADOC,
    RUSTDOC,
    ASCIIDOCTOR,
    TYPEDOC,
    TEXINFO,
)
_HEAD_MARKERS = tuple(
    (rules, matcher(rules.head_marker)) for rules in GENERATORS if rules.head_marker
)


def generator_of(root: Element) -> GeneratorRules | None:
    """The rules of the generator the page names in its generator meta (or marks in
    its ``<head>``), if any."""
    for element in descendants(root):
        if element.tag == "meta" and element.attrs.get("name", "").lower() == "generator":
            content = element.attrs.get("content", "").lower()
            return next((rules for rules in GENERATORS if content.startswith(rules.meta)), None)
        marked = next((rules for rules, matches in _HEAD_MARKERS if matches(element)), None)
        if marked or element.tag == "body":
            return marked
    return None
