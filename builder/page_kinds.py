"""Pages that are not content: why a built page is left out of the index.

A generator writes pages a reader never asks about: the search page, lists of
pages (the general index, tags, archives, a blog's pages 2, 3, …), redirect
stubs, a site-verification file, the 404 page, template partials copied
verbatim. ``skip_reason`` names the first rule of ``NOT_CONTENT`` that a page
meets (the build summary counts them by reason), or None for content.

    >>> from builder.html_tree import parse
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

from builder.html_tree import HEADINGS, Element, descendants, text_of
from builder.theme_rules import class_words, is_chrome, main_content


@dataclass(frozen=True, slots=True)
class NotContent:
    reason: str
    why: str
    test: Callable[[list[str], Element], bool]


def _segments(address: str) -> list[str]:
    """The address's path segments, lower-cased, ``index.html`` and the suffix dropped."""
    path = PurePosixPath(address.lower())
    parts = [part for part in path.parts if part != "/"]
    if parts and parts[-1] in ("index.html", "index.htm"):
        parts.pop()
    elif parts:
        parts[-1] = PurePosixPath(parts[-1]).stem
    return parts


def _meta(root: Element, name: str, key: str = "name") -> str:
    for element in descendants(root):
        if element.tag == "meta" and element.attrs.get(key, "").lower() == name:
            return element.attrs.get("content", "").lower()
    return ""


def _page_classes(root: Element) -> set[tuple[str, ...]]:
    """The class words of ``<html>`` and ``<body>`` (Docusaurus names its page kinds there)."""
    return {
        class_words(name)
        for element in descendants(root)
        if element.tag in ("html", "body")
        for name in element.classes
    }


_LISTING_SEGMENTS = frozenset(
    """tags tag categories category archive archives authors author genindex modindex
    py-modindex""".split()  # noqa: SIM905
)
_LISTING_PAGE_KINDS = (("list", "page"), ("archive", "page"), ("posts", "page"))
_VERIFICATION = re.compile(r"google[0-9a-f]{8,}|yandex_[0-9a-f]{8,}|bingsiteauth")
_TEMPLATE = re.compile(r"\{%.*?%\}|\{\{.*?\}\}", re.DOTALL)


def _is_listing(parts: list[str], root: Element) -> bool:
    if parts[-1:] in (["blog"], ["posts"], ["news"]):  # a blog's or news' front page
        return True
    if not _LISTING_SEGMENTS.isdisjoint(parts) or any(
        re.fullmatch(r"genindex(-.*)?|([a-z]+-)?modindex", part) for part in parts
    ):
        return True
    if len(parts) >= 2 and parts[-2] == "page" and parts[-1].isdigit():  # a blog's page 2, 3, …
        return True
    return _links_only(main_content(root)) or any(
        words[-len(kind) :] == kind for words in _page_classes(root) for kind in _LISTING_PAGE_KINDS
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


def _is_partial(_: list[str], root: Element) -> bool:
    tags = {element.tag for element in descendants(root)}
    return not tags & {"html", "head", "body", "title"} and bool(_TEMPLATE.search(text_of(root)))


def _is_redirect(_: list[str], root: Element) -> bool:
    return _meta(root, "refresh", key="http-equiv") != ""


def _is_noindex(_: list[str], root: Element) -> bool:
    return "noindex" in _meta(root, "robots")


#: In order: the first that a page meets names why it is skipped.
NOT_CONTENT: tuple[NotContent, ...] = (
    NotContent(
        "partial", "a template fragment copied as is: no <html>, template tags", _is_partial
    ),
    NotContent("redirect", "a <meta http-equiv=refresh> stub for a moved page", _is_redirect),
    NotContent("noindex", "the site asks robots not to index it", _is_noindex),
    NotContent(
        "verification",
        "a search console's site-verification file",
        lambda parts, _: bool(parts) and bool(_VERIFICATION.fullmatch(parts[-1])),
    ),
    NotContent("search", "the site's search page", lambda parts, _: parts[-1:] == ["search"]),
    NotContent("404", "the not-found page", lambda parts, _: parts[-1:] == ["404"]),
    NotContent(
        "listing", "a list of pages: index, tags, categories, archives, authors", _is_listing
    ),
)


def skip_reason(address: str, root: Element) -> str | None:
    """Why the page at ``address`` (parsed as ``root``) is not content, or None."""
    parts = _segments(address)
    return next((rule.reason for rule in NOT_CONTENT if rule.test(parts, root)), None)
