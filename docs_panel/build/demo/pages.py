"""Render a folder of Markdown pages into a small static docs site.

This is how ``site_demo/docs`` (the docs of Tidewater, a made-up job queue)
becomes the HTML site the panel is tried on: ``a/b.md`` is written to
``a/b.html`` inside a layout with a header, a sidebar listing every page, the
page in ``<main>`` and a footer. Relative links to ``.md`` pages are rewritten
to their ``.html`` names, anchors kept; everything else is left alone::

    >>> rewrite_links('<a href="../guides/retries.md#backoff">x</a> <a href="https://a.b/c.md">')
    '<a href="../guides/retries.html#backoff">x</a> <a href="https://a.b/c.md">'

The sidebar needs no front matter: like a Sphinx toctree, the order comes from
the pages themselves. Sections are the top-level folders, ordered by where the
root ``index.md`` first links into them; inside a section, its ``index.md``
comes first (its title labels the section) and the other pages follow in the
order that index links to them. Pages nobody links to come last, by path, so
the output is the same bytes for the same input.

The layout carries a two-line script that sets ``<html data-theme="dark">``
when the URL has ``?theme=dark``; ``site.css`` keys its dark colours on that
attribute, so the panel can be checked on a dark host page.
"""

from __future__ import annotations

import html
import posixpath
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from docs_panel.build.site.markdown_pages import render_markdown
from docs_panel.portable.errors import ConfigError

SITE_CSS = Path(__file__).resolve().parents[3] / "site_demo" / "site.css"

# markdown-it escapes attribute values, so a double-quoted href never holds a quote.
_HREF = re.compile(r'href="([^"]*)"')
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")

_THEME_SCRIPT = (
    "<script>\n"
    'if (new URLSearchParams(location.search).get("theme") === "dark")\n'
    '  document.documentElement.dataset.theme = "dark";\n'
    "</script>"
)


@dataclass(frozen=True, slots=True)
class Page:
    """One Markdown page: its path under the source folder, H1 title and HTML body."""

    source: PurePosixPath
    title: str
    body: str

    @property
    def href(self) -> str:
        """Site-relative address of the rendered page, e.g. ``guides/retries.html``."""
        return self.source.with_suffix(".html").as_posix()

    @property
    def section(self) -> str:
        """Top-level folder the page lives in; ``""`` for pages at the root."""
        return self.source.parts[0] if len(self.source.parts) > 1 else ""

    def linked_pages(self) -> list[str]:
        """Source paths of the local ``.md`` pages this page links to, in reading order."""
        here = posixpath.dirname(self.source.as_posix())
        targets = []
        for href in _HREF.findall(self.body):
            path = _local_md_path(href)
            if path is not None:
                targets.append(posixpath.normpath(posixpath.join(here, path)))
        return targets


@dataclass(frozen=True, slots=True)
class NavSection:
    """A sidebar group: the section's index page (if any) and its other pages in order."""

    label: str
    index: Page | None
    pages: tuple[Page, ...]


def _local_md_path(href: str) -> str | None:
    """The path part of a relative link to a ``.md`` page, or None for any other link."""
    if _SCHEME.match(href) or href.startswith(("/", "#")):
        return None
    path = href.partition("#")[0]
    return path if path.endswith(".md") else None


def rewrite_links(body: str) -> str:
    """Point relative links at ``.md`` pages to the ``.html`` pages they become."""

    def to_html(match: re.Match[str]) -> str:
        href = match.group(1)
        path = _local_md_path(href)
        if path is None:
            return match.group(0)
        return f'href="{path[: -len(".md")]}.html{href[len(path) :]}"'

    return _HREF.sub(to_html, body)


def load_pages(src: Path) -> list[Page]:
    """Read and render every ``*.md`` under ``src``, sorted by path."""
    pages = []
    for file in sorted(src.rglob("*.md")):
        source = PurePosixPath(file.relative_to(src).as_posix())
        rendered = render_markdown(file.read_text(encoding="utf-8"))
        if not rendered.title:
            raise ConfigError(f"{file}: no heading found; start the page with '# Its title'")
        pages.append(Page(source=source, title=rendered.title, body=rendered.body))
    if not pages:
        raise ConfigError(f"{src}: no Markdown pages found; pass the folder holding the .md files")
    return pages


def _link_order(index: Page | None, candidates: Iterable[str]) -> dict[str, int]:
    """Rank each candidate by the first link to it from ``index``; unlinked ones rank last."""
    first_seen: dict[str, int] = {}
    for target in index.linked_pages() if index else ():
        first_seen.setdefault(target, len(first_seen))
    return {name: first_seen.get(name, len(first_seen)) for name in candidates}


def nav_sections(pages: list[Page]) -> list[NavSection]:
    """Group pages by top-level folder, in the order the index pages give (see module doc)."""
    by_section: dict[str, list[Page]] = {}
    for page in pages:
        by_section.setdefault(page.section, []).append(page)

    def index_of(section: str) -> Page | None:
        wanted = posixpath.join(section, "index.md")
        return next((p for p in by_section[section] if p.source.as_posix() == wanted), None)

    # A section ranks by the earliest root link to any of its pages.
    root_links = _link_order(
        index_of("") if "" in by_section else None, (p.source.as_posix() for p in pages)
    )
    section_rank = {
        name: min(root_links[p.source.as_posix()] for p in members)
        for name, members in by_section.items()
    }
    sections = []
    for name in sorted(by_section, key=lambda s: (s != "", section_rank[s], s)):
        index = index_of(name)
        others = [p for p in by_section[name] if p is not index]
        rank = _link_order(index, (p.source.as_posix() for p in others))
        others.sort(key=lambda p: (rank[p.source.as_posix()], p.source.as_posix()))
        label = index.title if index else name.replace("-", " ").capitalize()
        sections.append(NavSection(label=label, index=index, pages=tuple(others)))
    return sections


def _nav_link(page: Page, current: Page, root: str) -> str:
    here = ' aria-current="page"' if page is current else ""
    return f'<a href="{root}{page.href}"{here}>{html.escape(page.title)}</a>'


def _nav_html(sections: list[NavSection], current: Page, root: str) -> list[str]:
    """Sidebar lines: root pages as a plain list, then one labelled list per folder."""
    lines = ['<nav class="site-nav" aria-label="Documentation">']
    for section in sections:
        items = list(section.pages)
        if section.index is not None and not section.index.section:
            items.insert(0, section.index)  # the home page heads the unlabelled root list
        elif section.index is not None:
            lines.append(f'<p class="nav-section">{_nav_link(section.index, current, root)}</p>')
        else:
            lines.append(f'<p class="nav-section">{html.escape(section.label)}</p>')
        lines.append("<ul>")
        lines.extend(f"<li>{_nav_link(p, current, root)}</li>" for p in items)
        lines.append("</ul>")
    lines.append("</nav>")
    return lines


def render_page(page: Page, sections: list[NavSection], *, product: str, head_snippet: str) -> str:
    """The full HTML document for one page; links are relative, so any base path works."""
    root = "../" * (len(page.source.parts) - 1)
    title = page.title if page.title == product else f"{page.title} · {product}"
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html.escape(title)}</title>",
            _THEME_SCRIPT,
            f'<link rel="stylesheet" href="{root}site.css">',
            # An inline icon: the demo makes no request it does not need (no /favicon.ico 404).
            '<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22'
            " viewBox=%220 0 16 16%22%3E%3Ccircle cx=%228%22 cy=%228%22 r=%227%22"
            ' fill=%22%232f5bd3%22/%3E%3C/svg%3E">',
            head_snippet,
            "</head>",
            "<body>",
            f'<header class="site-header"><a class="site-name" href="{root}index.html">'
            f"{html.escape(product)}</a></header>",
            '<div class="site-layout">',
            *_nav_html(sections, page, root),
            "<main>",
            rewrite_links(page.body).rstrip("\n"),
            "</main>",
            "</div>",
            f'<footer class="site-footer"><p>{html.escape(product)} is a made-up product: '
            "these pages are the demo site of docs-panel.</p></footer>",
            "</body>",
            "</html>",
            "",
        ]
    )


def render_site(
    src: Path, dest: Path, *, head_snippet: str, stylesheet: Path = SITE_CSS
) -> list[Path]:
    """Render every ``src/**/*.md`` to ``dest/**/*.html`` plus ``site.css``; return the files.

    The root ``index.md`` is required: it is the home page and its H1 names the
    product in the header. ``head_snippet`` is raw HTML placed last in ``<head>``.
    """
    pages = load_pages(src)
    home = next((p for p in pages if p.source == PurePosixPath("index.md")), None)
    if home is None:
        raise ConfigError(f"{src}: no index.md; add a home page whose '# Title' names the product")
    sections = nav_sections(pages)
    written = []
    for page in pages:
        target = dest / page.href
        target.parent.mkdir(parents=True, exist_ok=True)
        document = render_page(page, sections, product=home.title, head_snippet=head_snippet)
        target.write_text(document, encoding="utf-8", newline="\n")
        written.append(target)
    dest.mkdir(parents=True, exist_ok=True)
    written.append(Path(shutil.copyfile(stylesheet, dest / "site.css")))
    return sorted(written)
