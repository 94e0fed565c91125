"""Site-wide decisions on pages: one address per page, its language, one copy of it.

(``docs_panel.core.addresses`` says which addresses name one page.)
- ``languages_by_path``: ``<html lang>``, else the site's path convention (a first
  segment such as ``/fr/`` in front of a page the site also has without it, or
  beside the same page under another language's folder).
- ``current_versions``: versioned copies (``/docs/next/x`` beside ``/docs/x``,
  ``/en/stable/`` beside ``/en/latest/``, ``/1.2/`` beside ``/latest/``) and the
  one version to keep of each family.

    >>> languages_by_path({"/a.html": "", "/fr/a.html": "", "/b.html": "de"})
    {'/a.html': '', '/fr/a.html': 'fr', '/b.html': 'de'}
    >>> languages_by_path({"/en-US/a.html": "", "/zh-CN/a.html": "", "/api/a.html": ""})
    {'/en-US/a.html': 'en-us', '/zh-CN/a.html': 'zh-cn', '/api/a.html': ''}
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from docs_panel.core.addresses import normal_language, page_key


def languages_by_path(declared: Mapping[str, str]) -> dict[str, str]:
    """Each page's language: the one its ``<html lang>`` declared (``declared``,
    "" where none), else a first segment that is a language tag in front of a page
    the site also has without that segment (``/fr/guide.html`` beside ``/guide.html``)
    or under another language tag (``/ja-JP/guide.html`` beside ``/en-US/guide.html``,
    a site whose every language is a folder)."""
    keys = {page_key(address) for address in declared}
    tags_of: dict[str, set[str]] = defaultdict(set)  # a page's rest → its tag folders
    for address in declared:
        first, _, rest = address.lstrip("/").partition("/")
        tag = _folder_language(first)
        if rest and tag:
            tags_of[page_key("/" + rest)].add(tag)
    found = {}
    for address, language in declared.items():
        if not language:
            first, _, rest = address.lstrip("/").partition("/")
            tag, rest_key = _folder_language(first), page_key("/" + rest)
            if tag and rest and (rest_key in keys or len(tags_of[rest_key]) > 1):
                language = tag
        found[address] = language
    return found


def _folder_language(segment: str) -> str:
    """The language a folder name gives, when it is a tag with a two-letter language
    (``fr``, ``zh-CN``, ``pt_BR``): three-letter folders are ``api``, ``cli``, ``faq``."""
    tag = normal_language(segment)
    return tag if len(tag.partition("-")[0]) == 2 else ""


def main_language(languages: Mapping[str, str]) -> str:
    """The site's main language: its home page's, else the most pages'."""
    for address, language in languages.items():
        if page_key(address) == "" and language:
            return language
    counts = Counter(language for language in languages.values() if language)
    return counts.most_common(1)[0][0] if counts else ""


# --- Versions ----------------------------------------------------------------

VERSION_SEGMENT = re.compile(
    r"v\d+(\.\d+)*(\.x)?|\d+(\.\d+)+|\d+\.x"
    r"|next|latest|stable|dev|devel|main|master|nightly|unstable|canary",
    re.IGNORECASE,
)
#: Which version of a family a site calls current, when several are built: the
#: unversioned copy (Docusaurus's last version at ``/docs/``), then these names,
#: then the highest number; ``prefer="next"`` reverses the named ones.
_RELEASED = ("", "stable", "latest")
_UNRELEASED = ("next", "dev", "devel", "main", "master", "nightly", "unstable", "canary")


@dataclass(frozen=True, slots=True)
class VersionFamily:
    """Pages under ``prefix`` built once per version: ``kept`` is indexed, the
    others' pages (``dropped``: version → pages) are not."""

    prefix: str
    kept: str
    dropped: dict[str, int] = field(default_factory=dict)


def _version_order(version: str, prefer: str = "current") -> tuple[int, tuple[int, ...], str]:
    name = version.lower()
    if prefer == "next" and name in _UNRELEASED:
        return (0, (), name)
    if name in _RELEASED:
        return (1, (_RELEASED.index(name),), name)
    numbers = re.findall(r"\d+", name)
    if numbers:
        return (2, tuple(-int(n) for n in numbers), name)
    return (3 + (name in _UNRELEASED), (), name)


def _copies(versions: Mapping[str, Mapping[str, str]]) -> bool:
    """Whether two versions hold the same pages: at least two names in common, and
    at least half of the smaller one's (a folder named ``next`` or ``main`` among
    other pages is no version)."""
    names = [set(rests) for rests in versions.values()]
    return any(
        len(a & b) >= max(2, min(len(a), len(b)) / 2)
        for n, a in enumerate(names)
        for b in names[n + 1 :]
    )


def current_versions(
    addresses: Iterable[str], prefer: str = "current"
) -> tuple[set[str], list[VersionFamily]]:
    """The addresses to drop as other versions' copies, and each family found.

    A family is a path prefix under which at least two versions (a version
    segment, or none) hold a page of the same name. ``prefer``: ``"current"``
    (what the site serves unversioned, else stable, latest, the highest
    number), ``"next"`` (the unreleased docs), ``"all"`` (keep every version) or
    a path prefix (``"/docs/2.0/"``: that version).
    """
    addresses = list(addresses)
    if prefer == "all":
        return set(), []
    # prefix -> version -> rest -> address; "" is the unversioned copy.
    found: dict[str, dict[str, dict[str, str]]] = defaultdict(lambda: defaultdict(dict))
    for address in addresses:
        parts = page_key(address).split("/")
        for n, part in enumerate(parts[1:], 1):
            if VERSION_SEGMENT.fullmatch(part):
                found["/".join(parts[:n]) + "/"][part]["/".join(parts[n + 1 :])] = address
    for prefix, versions in found.items():
        for address in addresses:
            key = page_key(address)
            rest = key[len(prefix) :] if (key + "/").startswith(prefix) else None
            if rest is not None and not VERSION_SEGMENT.fullmatch(rest.partition("/")[0]):
                versions[""][rest] = address
    shared = {prefix for prefix, versions in found.items() if _copies(versions)}
    by_prefix = {
        prefix: {version: list(rests.values()) for version, rests in found[prefix].items()}
        for prefix in shared
    }
    dropped: set[str] = set()
    families: list[VersionFamily] = []
    for prefix in sorted(shared, key=len):
        pages = by_prefix[prefix]
        if any(prefix.startswith(family.prefix) for family in families):
            continue  # a family's own folders (/docs/1.0/api/v2/) are not a family again
        if prefer.startswith("/") and prefer.startswith(prefix):
            wanted = prefer[len(prefix) :].strip("/").partition("/")[0]
            kept = wanted if wanted in pages else min(pages, key=_version_order)
        else:
            kept = min(pages, key=lambda v: _version_order(v, prefer))
        keep = set(pages[kept])
        others = {version: set(on) - keep for version, on in pages.items() if version != kept}
        for copies in others.values():
            dropped.update(copies)
        families.append(VersionFamily(prefix, kept, {v: len(p) for v, p in sorted(others.items())}))
    return dropped, families
