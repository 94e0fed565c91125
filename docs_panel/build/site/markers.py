"""The markers the site rules are written in, and the words of a class name.

A marker is a compound selector: ``tag``, ``.class``, ``.stem_*`` (a CSS
module's class, ``skipToContent_fXgn``), ``[attr]`` or ``[attr=value]``,
combined without spaces (``span.lang``).

    >>> from docs_panel.build.site.html_tree import Element
    >>> matcher("span.lang")(Element("span", {"class": "lang en"}))
    True
    >>> class_words("skipToContent_fXgn"), class_words("theme-doc-toc-desktop")
    (('skip', 'to', 'content'), ('theme', 'doc', 'toc', 'desktop'))

It decides what a marker matches and how a class name splits into words; it never
decides which markers are chrome or content (``theme_rules``, ``generator_rules``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from docs_panel.build.site.html_tree import Element

_MARKER = re.compile(r"([a-z0-9]*)((?:\.[\w-]+\*?|\[[\w-]+(?:=[^\]]*)?\])*)", re.IGNORECASE)
_PART = re.compile(r"\.([\w-]+\*?)|\[([\w-]+)(?:=([^\]]*))?\]")
_CSS_MODULE_HASH = re.compile(r"_[A-Za-z0-9-]{4,6}$")
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def matcher(marker: str) -> Callable[[Element], bool]:
    found = _MARKER.fullmatch(marker)
    if not found or not marker:
        raise ValueError(f"not a marker: {marker!r}")
    tag = found.group(1).lower()
    classes: list[str] = []
    stems: list[str] = []
    attrs: list[tuple[str, str | None]] = []
    for cls, name, value in _PART.findall(found.group(2)):
        if cls.endswith("*"):
            stems.append(cls[:-1])
        elif cls:
            classes.append(cls)
        else:
            attrs.append((name.lower(), value or None))

    def matches(element: Element) -> bool:
        own = element.classes
        return (
            (not tag or element.tag == tag)
            and all(cls in own for cls in classes)
            and all(any(c.startswith(stem) for c in own) for stem in stems)
            and all(
                name in element.attrs and (value is None or element.attrs[name] == value)
                for name, value in attrs
            )
        )

    return matches


@cache
def class_words(name: str) -> tuple[str, ...]:
    """A class name as lower-case words: ``skipToContent_fXgn`` → skip, to, content."""
    return tuple(word.lower() for word in _WORD.findall(_CSS_MODULE_HASH.sub("", name)))
