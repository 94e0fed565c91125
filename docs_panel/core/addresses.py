"""Which addresses name one page, and in which language: rules the build and the
worker share.

- ``page_key``: ``/docs/install``, ``/docs/install/`` and
  ``/docs/install/index.html`` are one page (pretty URLs), and so is
  ``/docs/install.html`` on a host that drops suffixes.
- ``translation_key``: the page key without a leading segment naming the page's
  own language (``/zh/guide/x.html`` in zh-hans), the same for a page and its
  translations.
- ``same_language``: whether a reader's language tag is a page's.

    >>> page_key("/docs/install/index.html"), page_key("/docs/install"), page_key("/a.html")
    ('/docs/install', '/docs/install', '/a')
    >>> translation_key("/zh/guide/x.html", "zh-hans"), translation_key("/guide/x.html", "en")
    ('/guide/x', '/guide/x')
    >>> same_language("fr-CA", "fr"), same_language("zh-hant", "zh-hans"), same_language("en", "")
    (True, False, False)
"""

from __future__ import annotations

import re

_INDEX = re.compile(r"/index\.html?$", re.IGNORECASE)
_SUFFIX = re.compile(r"\.html?$", re.IGNORECASE)
_LANGUAGE_TAG = re.compile(r"[a-z]{2,3}(-[a-z0-9]{2,8})*", re.IGNORECASE)


def page_key(address: str) -> str:
    """The page an address names, however the site spells it (see the module doc)."""
    path = address.partition("#")[0]
    path = _INDEX.sub("", path)
    path = _SUFFIX.sub("", path)
    return path.rstrip("/")


def normal_language(tag: str) -> str:
    """A BCP 47 tag as the index keeps it: lower case, ``_`` as ``-``; "" if not a tag."""
    tag = tag.strip().replace("_", "-").lower()
    return tag if _LANGUAGE_TAG.fullmatch(tag) else ""


def _language_segment(address: str, language: str) -> bool:
    """Whether ``address`` starts with a segment naming ``language`` (``/zh/`` for zh-hans)."""
    first = address.lstrip("/").partition("/")[0].lower()
    return bool(first) and first in (language, language.partition("-")[0])


def same_language(reader: str, page: str) -> bool:
    """Whether a page in ``page`` (normalized) is in the reader's ``reader`` (any BCP 47
    tag): the same tag, or one is the other's language without a region."""
    reader = normal_language(reader)
    if not reader or not page:
        return False
    return reader == page or page == reader.partition("-")[0] or reader == page.partition("-")[0]


def translation_key(address: str, language: str) -> str:
    """``page_key`` without a leading segment naming the page's own language."""
    key = page_key(address)
    if language and _language_segment(address, language):
        key = "/" + key.lstrip("/").partition("/")[2]
    return key.rstrip("/") if key != "/" else ""
