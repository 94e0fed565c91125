"""Markdown pages to HTML, with an ``id`` on every heading.

Used for a site given as Markdown (indexed as the HTML it becomes) and for
``site_demo``. Anchors follow the GitHub style, so a heading's address is what a
reader would guess::

    >>> page = render_markdown("# Install\\n\\n## On Linux\\n\\nRun it.\\n")
    >>> page.title
    'Install'
    >>> print(page.body, end="")
    <h1 id="install">Install</h1>
    <h2 id="on-linux">On Linux</h2>
    <p>Run it.</p>
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

_NOT_SLUG = re.compile(r"[^\w\- ]+")


@dataclass(frozen=True, slots=True)
class MarkdownPage:
    title: str
    body: str


def slugify(text: str) -> str:
    """GitHub-style anchor: lower case, punctuation dropped, spaces to hyphens."""
    text = unicodedata.normalize("NFKC", text).strip().lower()
    return _NOT_SLUG.sub("", text).replace(" ", "-")


def _heading_ids(tokens: list[Token]) -> str:
    """Give each heading a unique id; return the text of the first one."""
    seen: dict[str, int] = {}
    first = ""
    for i, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        text = "".join(child.content for child in tokens[i + 1].children or ())
        first = first or text
        slug = slugify(text) or "section"
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        token.attrSet("id", slug if count == 0 else f"{slug}-{count}")
    return first


def render_markdown(source: str) -> MarkdownPage:
    """Render CommonMark (tables on, raw HTML off) to an HTML body and its title."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(source)
    title = _heading_ids(tokens)
    return MarkdownPage(title=title, body=md.renderer.render(tokens, md.options, {}))
