"""Pages that are not content: why a built page is left out of the index.

A generator writes pages a reader never asks about: the search page, lists of
pages (the general index, tags, archives, a blog's pages 2, 3, …), redirect
stubs, a site-verification file, the 404 page, template partials copied
verbatim. ``skip_reason`` names the first rule of ``NOT_CONTENT`` that a page
meets (the build summary counts them by reason), or None for content.

    >>> from docs_panel.build.site.html_tree import parse
    >>> skip_reason("/blog/page/2/index.html", parse("<html><body><h1>Blog</h1></body></html>"))
    'listing'
    >>> skip_reason("/guide/install.html", parse("<html><body><h1>Install</h1></body></html>"))
    >>> skip_reason("/overrides/partials/nav.html", parse("{% for item in nav %}<li>{{ item }}"))
    'partial'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from docs_panel.build.site.book_index import holds_book_index
from docs_panel.build.site.generator_rules import generator_of
from docs_panel.build.site.html_tree import HEADINGS, Element, descendants, text_of
from docs_panel.build.site.markers import class_words
from docs_panel.build.site.theme_rules import is_chrome, main_content


@dataclass(frozen=True, slots=True)
class _Page:
    """What the rules read of a page, gathered in one walk of its tree."""

    parts: list[str]  # the address's segments (``_segments``)
    tags: frozenset[str]
    metas: dict[str, str]  # a <meta>'s name or http-equiv -> its content, lower-cased
    kinds: frozenset[tuple[str, ...]]  # the class words of <html> and <body>
    classes: frozenset[str]  # every class on the page
    root: Element
    main: Element


@dataclass(frozen=True, slots=True)
class NotContent:
    reason: str
    why: str
    test: Callable[[_Page], bool]


def _segments(address: str) -> list[str]:
    """The address's path segments, lower-cased, ``index.html`` and the suffix dropped."""
    path = PurePosixPath(address.lower())
    parts = [part for part in path.parts if part != "/"]
    if parts and parts[-1] in ("index.html", "index.htm"):
        parts.pop()
    elif parts:
        parts[-1] = PurePosixPath(parts[-1]).stem
    return parts


def _page(address: str, root: Element, main: Element) -> _Page:
    tags: set[str] = set()
    metas: dict[str, str] = {}
    kinds: set[tuple[str, ...]] = set()
    classes: set[str] = set()
    for element in descendants(root):
        tags.add(element.tag)
        classes.update(element.classes)
        if element.tag == "meta":
            attrs = element.attrs
            name = (attrs.get("name") or attrs.get("http-equiv") or "").lower()
            metas.setdefault(name, attrs.get("content", "").lower())
        elif element.tag in ("html", "body"):  # Docusaurus names its page kinds there
            kinds.update(map(class_words, element.classes))
    return _Page(
        _segments(address),
        frozenset(tags),
        metas,
        frozenset(kinds),
        frozenset(classes),
        root,
        main,
    )


_LISTING_SEGMENTS = frozenset(
    """tags tag categories category archive archives authors author genindex modindex
    py-modindex""".split()  # noqa: SIM905
)
#: A back-of-the-book index's letter groups: DocBook XSL (``div.indexdiv``).
_INDEX_CLASSES = frozenset({"indexdiv"})
_LISTING_PAGE_KINDS = (("list", "page"), ("archive", "page"), ("posts", "page"))
_VERIFICATION = re.compile(r"google[0-9a-f]{8,}|yandex_[0-9a-f]{8,}|bingsiteauth")
_TEMPLATE = re.compile(r"\{%.*?%\}|\{\{.*?\}\}", re.DOTALL)


def _is_listing(page: _Page) -> bool:
    parts = page.parts
    if parts[-1:] in (["blog"], ["posts"], ["news"]):  # a blog's or news' front page
        return True
    if not _LISTING_SEGMENTS.isdisjoint(parts) or any(
        re.fullmatch(r"genindex(-.*)?|([a-z]+-)?modindex", part) for part in parts
    ):
        return True
    if len(parts) >= 2 and parts[-2] == "page" and parts[-1].isdigit():  # a blog's page 2, 3, …
        return True
    if page.classes & _INDEX_CLASSES:
        return True
    return _links_only(page.main) or any(
        words[-len(kind) :] == kind for words in page.kinds for kind in _LISTING_PAGE_KINDS
    )


def _links_only(main: Element) -> bool:
    """Whether the content, beyond its headings, is list items that start with a link
    (a generator's list of a section's pages, with their summaries)."""
    listed = other = 0
    stack = [(main, False)]
    while stack:
        element, in_item = stack.pop()
        for child in element.children:
            if isinstance(child, str):
                if in_item:
                    listed += len(child.strip())
                else:
                    other += len(child.strip())
            elif not is_chrome(child, in_sectioning=True) and child.tag not in HEADINGS:
                starts_with_link = child.tag == "li" and next(
                    (
                        isinstance(c, Element) and c.tag == "a"
                        for c in child.children
                        if isinstance(c, Element) or c.strip()
                    ),
                    False,
                )
                stack.append((child, in_item or starts_with_link))
    return listed > 0 and other < listed / 4


def _is_partial(page: _Page) -> bool:
    return not page.tags & {"html", "head", "body", "title"} and bool(
        _TEMPLATE.search(text_of(page.root))
    )


#: In order: the first that a page meets names why it is skipped.
NOT_CONTENT: tuple[NotContent, ...] = (
    NotContent(
        "partial", "a template fragment copied as is: no <html>, template tags", _is_partial
    ),
    NotContent(
        "redirect",
        "a <meta http-equiv=refresh> stub for a moved page",
        lambda page: "refresh" in page.metas,
    ),
    NotContent(
        "noindex",
        "the site asks robots not to index it",
        lambda page: "noindex" in page.metas.get("robots", ""),
    ),
    NotContent(
        "verification",
        "a search console's site-verification file",
        lambda page: bool(page.parts) and bool(_VERIFICATION.fullmatch(page.parts[-1])),
    ),
    NotContent("search", "the site's search page", lambda page: page.parts[-1:] == ["search"]),
    NotContent("404", "the not-found page", lambda page: page.parts[-1:] == ["404"]),
    NotContent(
        "listing", "a list of pages: index, tags, categories, archives, authors", _is_listing
    ),
)


def skip_reason(address: str, root: Element, main: Element | None = None) -> str | None:
    """Why the page at ``address`` (parsed as ``root``, its content ``main``, by default
    ``theme_rules.main_content``) is not content, or None."""
    main = main_content(root) if main is None else main
    page = _page(address, root, main)
    reason = next((rule.reason for rule in NOT_CONTENT if rule.test(page)), None)
    rules = generator_of(root) if reason is None else None
    if rules and page.parts:
        path = "/".join(page.parts)
        reason = next((why for why, name in rules.not_content if name.fullmatch(path)), None)
    if rules and reason is None and holds_book_index(main, rules.index_markers):
        reason = "listing"
    return reason
