"""What an agent's tools answer over a docs index: ranked sections for a query, one
section with its page's outline, the pages' text.

It decides the tools' input caps and the shape of each answer, and ranks exactly as
the panel does (``DocsIndex.search`` on the redacted question, the answer planner's
number of results). It never calls a model, never logs and never reads the network:
the transports (``agent.mcp_server``) do the talking and the logging::

    >>> from docs_panel.core.docs_index import Section, load_index
    >>> from docs_panel.build.index_build import build_index
    >>> docs = AgentDocs(lambda: load_index(build_index([
    ...     Section("/json.html", "json", "json", "Encode and decode JSON."),
    ...     Section("/json.html#dumps", "json", "dumps", "json.dumps(obj) makes a str."),
    ... ])))
    >>> [(hit["address"], hit["title"]) for hit in docs.search("json.dumps")]
    [('/json.html#dumps', 'dumps'), ('/json.html', 'json')]
    >>> [entry["title"] for entry in docs.read("/json.html#dumps")["outline"]]
    ['json', 'dumps']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

# Pydantic (the MCP SDK's schemas) reads TypedDicts only from typing_extensions before 3.12.
from typing_extensions import TypedDict

from docs_panel.build.site.llms_txt import heading_depth, page_markdown
from docs_panel.core.addresses import page_key
from docs_panel.core.answers import MAX_RESULTS
from docs_panel.core.docs_index import DocsIndex, Section
from docs_panel.core.redact import redact_text
from docs_panel.portable.caps import QUESTION_CHARS, SHORT_CHARS

QUERY_CHARS: Final = QUESTION_CHARS
"""A query as long as a reader's question may be, and no longer."""
ADDRESS_CHARS: Final = 2_000
"""An address is a path and an anchor: anything longer is not one of the site's."""
LANGUAGE_CHARS: Final = SHORT_CHARS
DEFAULT_LIMIT: Final = MAX_RESULTS
"""As many sections as the panel retrieves for a question."""
MAX_LIMIT: Final = 20


class InputRefused(ValueError):
    """An argument the tools will not take (too long, out of range): the caller's fault,
    answered with a protocol error that names the argument, never its value."""


class NotFound(LookupError):
    """An address the index has no section or page at."""


class SearchHit(TypedDict):
    title: str
    page_title: str
    address: str
    excerpt: str
    score: float


class OutlineEntry(TypedDict):
    title: str
    address: str
    depth: int


class SectionText(TypedDict):
    address: str
    title: str
    page_title: str
    breadcrumb: list[str]
    language: str
    text: str
    outline: list[OutlineEntry]


class PageEntry(TypedDict):
    path: str
    title: str


class AgentDocs:
    """The tools over ``index()``, called on each use: a server that reloads its index
    serves the new one at once."""

    def __init__(self, index: Callable[[], DocsIndex]) -> None:
        self.index = index

    def search(
        self,
        query: str,
        scope: str = "",
        language: str = "",
        limit: int = DEFAULT_LIMIT,
        question_vector: Sequence[float] | None = None,
    ) -> list[SearchHit]:
        """The ``limit`` best sections for ``query`` under the address prefix ``scope``
        ("/api/"), for a reader of ``language`` ("" for the site's main one)."""
        check_search(query, scope, language, limit)
        hits = self.index().search(
            redact_text(query),
            prefix=scope or None,
            limit=limit,
            language=language,
            question_vector=question_vector,
        )
        return [
            SearchHit(
                title=hit.section.title,
                page_title=hit.section.page_title,
                address=hit.section.address,
                excerpt=hit.snippet,
                score=round(hit.score, 4),
            )
            for hit in hits
        ]

    def read(self, address: str) -> SectionText:
        """The section at ``address`` (a page's address reads its first section), its
        whole indexed text, and the outline of its page."""
        _cap("address", address, ADDRESS_CHARS)
        index = self.index()
        section = index.lookup(address) or _page_top(index, address)
        if section is None:
            raise NotFound(f"no section at {address}; search_docs gives the addresses")
        return SectionText(
            address=section.address,
            title=section.title,
            page_title=section.page_title,
            breadcrumb=list(section.breadcrumb),
            language=section.language,
            text=section.text,
            outline=[
                OutlineEntry(title=s.title, address=s.address, depth=heading_depth(s))
                for s in index.page_sections(section.address)
            ],
        )

    def pages(self) -> list[PageEntry]:
        return [PageEntry(path=path, title=title) for path, title in self.index().pages()]

    def page_markdown(self, path: str) -> str:
        """A page's indexed text as Markdown: its sections under their headings."""
        _cap("path", path, ADDRESS_CHARS)
        index = self.index()
        top = _page_top(index, path)
        if top is None:
            raise NotFound(f"no page at {path}; the docs://pages resource lists them")
        return page_markdown(index.page_sections(top.address))


def check_search(query: str, scope: str, language: str, limit: int) -> None:
    """Raise :class:`InputRefused` for arguments ``AgentDocs.search`` will not take:
    checked before a transport spends anything on the query."""
    _cap("query", query, QUERY_CHARS)
    _cap("scope", scope, ADDRESS_CHARS)
    _cap("language", language, LANGUAGE_CHARS)
    if not query.strip():
        raise InputRefused("query: expected words to search for")
    if scope and not scope.startswith("/"):
        raise InputRefused("scope: expected an address prefix starting with /, e.g. /api/")
    if not 1 <= limit <= MAX_LIMIT:
        raise InputRefused(f"limit: expected 1 to {MAX_LIMIT}")


def _page_top(index: DocsIndex, address: str) -> Section | None:
    """The first section of the page ``address`` (no anchor) names, however the site
    spells it."""
    if "#" in address or not index.has_page(address):
        return None
    key = page_key(address)
    for candidate, _ in index.pages():
        if page_key(candidate) == key:
            sections = index.page_sections(candidate)
            return sections[0] if sections else None
    return None


def _cap(name: str, value: str, limit: int) -> None:
    if len(value) > limit:
        raise InputRefused(f"{name}: over {limit} characters")
