"""The walk of a page's main content cut into drafts, one per heading, with their text.

It decides where a section starts (a heading, a definition term with its own
permalink, a generator's member or title element), which anchor names it, what its
title is (a signature's name, not its "class" keyword) and how its text is spaced;
it never decides what of a page is content (``theme_rules``, ``page_kinds``) nor
settles anchors used twice on a page (``page_sections`` does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docs_panel.build.site.generator_rules import GeneratorRules
from docs_panel.build.site.html_tree import BLOCKS, HEADINGS, Element, descendants
from docs_panel.build.site.markers import matcher

#: Sphinx's classes for the parts of a signature that name the object
#: (``gzip.`` and ``GzipFile`` of "class gzip.GzipFile(filename=None)"): the
#: title of its section, without the "class", "coroutine" or C return type
#: before it, words that would match every question about classes or ints.
SIGNATURE_NAME = frozenset({"sig-prename", "descclassname", "sig-name", "descname"})
SPACES = re.compile(r"\s+")
#: Characters with no width that themes put in permalinks (VitePress, Docusaurus).
ZERO_WIDTH = re.compile("[\u200b\u2060\ufeff]")


class TextBuffer:
    """Plain text with block boundaries as line breaks; ``pre`` text kept verbatim."""

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: list[str] = []

    def add(self, data: str, *, verbatim: bool) -> None:
        data = ZERO_WIDTH.sub("", data)
        if not verbatim:
            data = SPACES.sub(" ", data)
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
class Draft:
    """A heading and the content up to the next one, before anchors are settled."""

    level: int
    title: str
    anchor: str | None
    body: TextBuffer = field(default_factory=TextBuffer)
    ids: list[str] = field(default_factory=list)  # element ids inside it, for links


class _SectionRecord:
    """An open ``<section>`` (or Sphinx's ``div.section``): its id names its first heading."""

    __slots__ = ("anchor", "has_heading")

    def __init__(self, anchor: str | None) -> None:
        self.anchor = anchor
        self.has_heading = False


class Splitter:
    """Receives the walk of the main content and cuts it into drafts at headings.

    A definition term with an id and its own permalink (Sphinx's API entries
    and glossary terms: ``<dt id="json.dumps">…<a class="headerlink">``) is a
    heading too, one level below the headings around it; the text after its
    list goes back to the section the list is in. ``rules`` (a generator's) add
    wrappers whose id names their first heading, lists whose terms are members,
    a title element, anchors written just before a heading, the element naming a
    member in its term, a permalink that makes a term a member in any list, and
    terms that join the member before them (a function's other call forms).
    """

    def __init__(self, rules: GeneratorRules | None = None) -> None:
        self.drafts = [Draft(level=0, title="", anchor=None)]
        self._wrappers = frozenset({"section"}) | (rules.wrappers if rules else frozenset())
        self._member_lists = rules.member_lists if rules else frozenset()
        self._rules = rules
        self._is_title = matcher(rules.title) if rules and rules.title else None
        self._is_name = matcher(rules.member_name) if rules and rules.member_name else None
        self._is_permalink = matcher(rules.permalink) if rules and rules.permalink else None
        self._before: str | None = None  # an empty anchor element's id just read, if alone
        self._current = self.drafts[0]
        self._sections: list[_SectionRecord] = []
        self._lists: list[Draft] = []  # for each open <dl>, the draft it is in
        self._members: list[bool] = []  # for each open <dl>, whether its terms are members
        self._joined: list[bool] = []  # for each open <dl>, whether a member term just ended
        self._joining: Element | None = None  # a term joining the member before it, if read
        self._heading: tuple[Element, Draft] | None = None
        self._heading_text = TextBuffer()
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
        if self._rules and self._rules.anchor_before_heading == tag and "href" not in attrs:
            self._before = attrs.get("id") or attrs.get("name") or None
        if tag == "section" or not self._wrappers.isdisjoint(element.classes):
            self._sections.append(_SectionRecord(attrs.get("id") or None))
        elif tag == "pre":
            self._verbatim += 1
        elif tag == "dl":
            self._lists.append(self._current)
            self._members.append(not self._member_lists.isdisjoint(element.classes))
            self._joined.append(False)
        elif tag == "dd" and self._joined:
            self._joined[-1] = False
        if self._joining is not None and self._is_name and self._is_name(element):
            self._in_name.append(element)
        if self._heading is not None:
            if not SIGNATURE_NAME.isdisjoint(element.classes) or (
                self._is_name and self._is_name(element)
            ):
                self._in_name.append(element)
            if self._heading[1].anchor is None:
                # Last resort: an anchor inside the heading, <h2><a id="x"></a>…</h2>.
                name = attrs.get("name") if tag == "a" else None
                self._heading[1].anchor = attrs.get("id") or name or None
            return
        if tag in HEADINGS or (self._is_title and self._is_title(element)):
            level = int(tag[1]) if tag in HEADINGS else 1
            draft = Draft(level=level, title="", anchor=attrs.get("id") or before)
            if draft.anchor is None:
                draft.anchor = self._section_anchor()
            for record in self._sections:
                record.has_heading = True
        elif tag == "dt" and self._joined and self._joined[-1]:
            # Another call form of the member just named: a line of its section, its
            # name added to the title when it is another (``array`` and ``array_set``).
            self._joining = element
            self._name = []
            return
        elif (
            tag == "dt"
            and attrs.get("id")
            and (
                _has_permalink(element)
                or (self._members and self._members[-1])
                or (self._is_permalink and any(map(self._is_permalink, descendants(element))))
            )
        ):
            draft = Draft(level=6 + len(self._lists), title="", anchor=attrs["id"])
        elif tag == "dt" and self._rules and self._rules.wrapped_terms and self._section_anchor():
            draft = Draft(level=6 + len(self._lists), title="", anchor=self._section_anchor())
            for record in self._sections:
                record.has_heading = True
        else:
            # A term without an id has no anchor: it is read in the list's section, not
            # in the member before it. Where terms one after another join a member, one
            # reaching here follows a description: in any list, not only a member list
            # (elsewhere a term without an id right after a member is its overload).
            joins = self._rules is not None and self._rules.joined_terms
            if (
                tag == "dt"
                and self._lists
                and (self._members[-1] or (joins and self._current.level == 6 + len(self._lists)))
            ):
                self._current = self._lists[-1]
            return
        self._heading = (element, draft)
        self._heading_text = TextBuffer()
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
            self._joined.pop()
        if self._in_name and element is self._in_name[-1]:
            self._in_name.pop()
        if element is self._joining:
            self._joining = None
            name = SPACES.sub("", "".join(self._name))
            if name and name not in self._current.title.split(", "):
                self._current.title += f", {name}"
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
        title = SPACES.sub(" ", self._heading_text.value()).strip()
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
            name = SPACES.sub("", "".join(self._name))
            draft.title = name or title.partition("(")[0].rstrip(" [{") or title
            draft.body.add(title, verbatim=False)
            draft.body.break_line()
            if self._joined and self._rules and self._rules.joined_terms:
                self._joined[-1] = True
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
