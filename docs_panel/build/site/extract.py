"""Built docs to sections: every page of a site, one copy of each, in its language.

``extract_site`` walks a folder of built HTML (Sphinx, MkDocs, Docusaurus,
VitePress, mdBook, Hugo, Jekyll, plain) or Markdown; ``page_sections`` splits
each page. On the way it decides, for the whole site:

- which pages are not content (``page_kinds``: search, listings, redirects,
  404, partials, …), counted by reason;
- each page's language (``site_pages.languages_by_path``) and the site's main one;
- which pages are copies: a ``<link rel="canonical">`` naming another page of
  the site, or another version of a versioned page (``site_pages.current_versions``);
- which sections repeat another's text word for word (the copy on the preferred
  address stays);
- how many other pages link into each section (``Section.links``: a link to an
  element id counts for the section holding that id; ``/docs/install``,
  ``/docs/install/`` and ``/docs/install/index.html`` are one page), which the
  ranking reads as "the docs treat this entry as canonical";
- a Sphinx general index's words, and a manual's back-of-the-book index's
  (``book_index``), for the sections their entries point at.

``Extracted.report`` says all of it for the build summary.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote, unquote, urljoin, urlsplit

from docs_panel.build.site.genindex import GENINDEX, index_entries
from docs_panel.build.site.page_reading import PageFile, decode, read_bytes, read_pages
from docs_panel.build.site.page_sections import PageContent
from docs_panel.build.site.site_pages import (
    VersionFamily,
    current_versions,
    languages_by_path,
    main_language,
)
from docs_panel.core.addresses import page_key
from docs_panel.core.docs_index import Section
from docs_panel.portable.errors import DocsIndexError

PAGE_SUFFIXES = (".html", ".htm", ".md")
#: A page's text beside it (``guide.html.md``, llmstxt.org's convention, which
#: ``build.py --llms-md`` writes): a copy of that page, never a page of its own.
PAGE_TEXT_SUFFIXES = (".html.md", ".htm.md")
#: Sphinx's build folders that hold assets and sources, not pages.
SKIPPED_FOLDERS = frozenset({"_static", "_sources", "_images", "_downloads"})
#: A section's text this long or longer that repeats another's is a copy;
#: shorter texts ("Returns None.") repeat honestly.
DUPLICATE_LEAST = 40
#: How many of the lines that repeat on most pages the report lists.
REPEATED_LINES = 10
_WORDS = re.compile(r"[^\W\d_]{3,}.*[^\W\d_]{3,}")  # two words of three letters


@dataclass(frozen=True, slots=True)
class SiteReport:
    """What ``extract_site`` kept and left out, for a site owner to act on."""

    pages: int
    sections: int
    skipped: dict[str, int]  # reason -> pages
    languages: dict[str, int]  # language -> pages ("" for pages that do not say)
    main_language: str
    versions: list[VersionFamily]
    duplicates: int  # sections dropped as word-for-word copies
    repeated_lines: list[tuple[int, str]]  # (pages, line): the likely theme leftovers

    def lines(self) -> list[str]:
        """The summary, a line each, for ``build.py`` to print."""
        out = [f"{self.pages} pages, {self.sections} sections indexed"]
        if self.skipped:
            reasons = ", ".join(f"{count} {reason}" for reason, count in _by_count(self.skipped))
            out.append(f"skipped {sum(self.skipped.values())} pages: {reasons}")
        if self.languages:
            named = [
                f"{language or 'not declared'} {count}"
                + (" (main)" if language == self.main_language and len(self.languages) > 1 else "")
                for language, count in _by_count(self.languages)
            ]
            out.append("languages (pages): " + ", ".join(named))
        for family in self.versions:
            dropped = ", ".join(f"{v} ({n} pages)" for v, n in family.dropped.items())
            out.append(
                f"versions under {family.prefix}: kept {family.kept or 'the unversioned pages'};"
                f" dropped {dropped} (build.py --version all keeps them)"
            )
        if self.duplicates:
            out.append(f"duplicate sections dropped: {self.duplicates}")
        if self.repeated_lines:
            out.append("lines on the most pages (theme text the index should not hold?):")
            out += (f"  {pages:5} pages: {line[:100]!r}" for pages, line in self.repeated_lines)
        return out


def _by_count(counts: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


@dataclass(frozen=True, slots=True)
class Extracted:
    sections: list[Section]
    report: SiteReport = field(repr=False)


def extract_site(
    root: Path,
    *,
    exclude: Path | None = None,
    version: str = "current",
    cache: Path | None = None,
) -> Extracted:
    """Sections of every content page under ``root``, pages in sorted path order.

    Skips ``exclude`` (the panel's own output folder), hidden folders, Sphinx's
    asset and source folders. A Markdown page ``a/b.md`` is addressed as
    ``/a/b.html``, the page it builds to; when that HTML page is there too, the
    HTML wins. ``version``: which version of versioned docs to index (see
    ``site_pages.current_versions``). ``cache``: where pages already read are
    kept (``page_reading``); None reads every page.
    """
    if not root.is_dir():
        raise DocsIndexError(f"{root} is not a folder: point it at the folder of built docs")
    files: dict[str, PageFile] = {}
    for path in _page_files(root, exclude):
        relative = path.relative_to(root).as_posix()
        if path.suffix.lower() == ".md":
            relative = relative[: -len(".md")] + ".html"
        files.setdefault("/" + quote(relative), PageFile("/" + quote(relative), path))
    pages: dict[str, PageContent] = {}
    skipped: Counter[str] = Counter()
    book_indexes: dict[str, list[tuple[str, str]]] = {}  # an index page -> its entries
    for address, page in zip(files, read_pages(list(files.values()), cache), strict=True):
        if page.skipped:
            skipped[page.skipped] += 1
            if page.index_entries:
                book_indexes[address] = page.index_entries
        else:
            pages[address] = page
    if not any(page.sections for page in pages.values()):
        raise DocsIndexError(
            f"no pages found under {root}: expected built docs (.html, .htm) or Markdown (.md)"
            " files; point it at the folder that holds them"
        )
    for address in _canonical_copies(pages):
        del pages[address]
        skipped["copy (canonical)"] += 1
    dropped, families = current_versions(pages, version)
    for address in dropped:
        del pages[address]
        skipped["other version"] += 1
    languages = languages_by_path({address: page.language for address, page in pages.items()})
    main = main_language(languages)
    sections = [
        replace(section, language=languages[address] or main)
        for address, page in pages.items()
        for section in page.sections
    ]
    owners: dict[str, str] = {}  # "page key#id" -> the address of the section holding it
    linked: dict[str, set[str]] = {}  # "page key#id" -> the other pages linking to it
    for address, page in pages.items():
        owners[page_key(address)] = address
        owners.update((f"{page_key(address)}#{i}", at) for i, at in page.owners.items())
        for target in filter(None, (_link_target(address, href) for href in page.links)):
            linked.setdefault(target, set()).add(address)
    # A manual's index pointing at a section is a page linking to it.
    for address, entries in book_indexes.items():
        for target in filter(None, (_link_target(address, href) for href, _ in entries)):
            linked.setdefault(target, set()).add(address)
    keywords = _index_keywords(root, owners, book_indexes)
    sections = [
        replace(section, keywords=tuple(keywords[section.address]))
        if section.address in keywords
        else section
        for section in _with_links(sections, owners, linked)
    ]
    kept = _without_duplicates(sections, main)
    report = SiteReport(
        pages=len({section.page for section in kept}),
        sections=len(kept),
        skipped=dict(skipped),
        languages=dict(Counter(language or main for language in languages.values())),
        main_language=main,
        versions=families,
        duplicates=len(sections) - len(kept),
        repeated_lines=_repeated_lines(kept),
    )
    return Extracted(kept, report)


def _canonical_copies(pages: dict[str, PageContent]) -> list[str]:
    """Pages whose ``<link rel="canonical">`` names another page of the site.

    The canonical address may carry the site's base path (``/docs/`` on a
    site built for it): a page is named when the canonical path ends with its key.
    """
    keys = {page_key(address): address for address in pages}
    copies = []
    for address, page in pages.items():
        if not page.canonical:
            continue
        wanted = page_key(unquote(page.canonical))
        own = page_key(unquote(address))
        if wanted == own or (wanted.endswith(own) and own):
            continue
        target = keys.get(quote(wanted)) or next(
            (keys[key] for key in keys if key and wanted.endswith(unquote(key))), None
        )
        if target is not None and target != address:
            copies.append(address)
    return copies


def _without_duplicates(sections: list[Section], main: str) -> list[Section]:
    """``sections`` without those whose title and text repeat another's word for word
    (``DUPLICATE_LEAST``): a page a translation left in the main language is the
    main language's page. The copy that stays is the main language's, then the one
    on the page with fewer sections (a list page that shows its children whole
    repeats them all), then on the shorter address."""
    size = Counter(section.page for section in sections)
    best: dict[tuple[str, str], Section] = {}

    def preference(section: Section) -> tuple[bool, int, int, str]:
        page = section.page
        return (section.language != main, size[page], len(page), section.address)

    for section in sections:
        if len(section.text) < DUPLICATE_LEAST:
            continue
        key = (section.title, section.text)
        other = best.get(key)
        if other is None or preference(section) < preference(other):
            best[key] = section
    return [
        section
        for section in sections
        if len(section.text) < DUPLICATE_LEAST or best[(section.title, section.text)] is section
    ]


def _repeated_lines(sections: Iterable[Section]) -> list[tuple[int, str]]:
    """The lines of words found on the most pages (at least three, and a tenth of them)."""
    lines: dict[str, set[str]] = {}  # each page's lines
    for section in sections:
        lines.setdefault(section.page, set()).update(map(str.strip, section.text.split("\n")))
    pages: Counter[str] = Counter()  # on how many pages each line is
    for own in lines.values():
        pages.update(own)
    total = len(lines)
    counts = sorted(
        ((n, line) for line, n in pages.items() if _WORDS.search(line)),  # not code's "}"
        key=lambda c: (-c[0], c[1]),
    )
    return [(n, line) for n, line in counts[:REPEATED_LINES] if n >= max(3, total // 10)]


def _index_keywords(
    root: Path, owners: dict[str, str], book_indexes: dict[str, list[tuple[str, str]]]
) -> dict[str, dict[str, None]]:
    """Per section address, the words of the index entries pointing into it: Sphinx's
    general index and the back-of-the-book indexes pages were read as (``book_indexes``,
    by page address).

    Sphinx writes its index as one page, as letter pages, or both (then
    ``genindex-all`` has every entry and is the one read); ``dirhtml`` puts each
    in a folder of its own (``genindex/index.html``).
    """
    pages = sorted(
        path
        for path in [*root.glob("genindex*.htm*"), *root.glob("genindex*/index.htm*")]
        if GENINDEX.fullmatch(path.name) or GENINDEX.fullmatch(path.parent.name + ".html")
    )
    everything = [path for path in pages if "genindex-all" in path.as_posix()]
    keywords: dict[str, dict[str, None]] = {}
    found = {
        "/" + quote(path.relative_to(root).as_posix()): decode(path, read_bytes(path))
        for path in everything or pages
    }
    sphinx = {address: index_entries(html) for address, html in found.items()}
    for address, entries in [*sphinx.items(), *book_indexes.items()]:
        for href, words in entries:
            target = _link_target(address, href)
            owner = owners.get(target) if target else None
            if owner is not None:
                keywords.setdefault(owner, {})[words] = None
    return keywords


def _link_target(page: str, href: str) -> str | None:
    """The page key and fragment (``/a/b#x``) an in-site link on ``page`` points at."""
    href = href.strip()
    if href and not href.startswith(("#", "?")):
        # Resolved against the page's folder: pages of one folder share their links.
        return _target_from(page.rpartition("/")[0] + "/", href)
    return _target_from(page, href)


@lru_cache(maxsize=1 << 16)
def _target_from(base: str, href: str) -> str | None:
    parts = urlsplit(urljoin(base, href))
    if parts.scheme or parts.netloc:
        return None
    path = unquote(parts.path) if parts.path else unquote(base)
    if path.lower().endswith(".md"):  # a Markdown page links to the page it builds to
        path = path[: -len(".md")] + ".html"
    fragment = unquote(parts.fragment)
    return page_key(quote(path)) + (f"#{fragment}" if fragment else "")


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
            and not name.lower().endswith(PAGE_TEXT_SUFFIXES)
            and not name.startswith(".")
        )
    return sorted(found, key=lambda path: path.relative_to(root).as_posix())
