"""From a reader's question to what the panel shows.

For now an answer is the list of best-matching sections (the ``chat: false``
behaviour of DESIGN 6), searched within the scope the reader picked::

    results = search_results(index, config, "retry a failed job", "api")
    results[0]["address"]   # "/api/jobs.html#retry-a-job"

Each result is a plain dict, ready to cross to the shell as JSON.
"""

from __future__ import annotations

from widget.core.config import Config
from widget.core.docs_index import DocsIndex

MAX_RESULTS = 6


def scope_prefix(config: Config, scope_id: str | None) -> str | None:
    """The address prefix of the scope with that id; None searches everything."""
    for scope in config.scopes:
        if scope.id == scope_id:
            return scope.prefix
    return None


def search_results(
    index: DocsIndex, config: Config, question: str, scope_id: str | None
) -> list[dict[str, object]]:
    """The best sections for ``question`` in the scope, as title / page / snippet / link."""
    hits = index.search(question, prefix=scope_prefix(config, scope_id), limit=MAX_RESULTS)
    return [
        {
            "address": hit.section.address,
            "title": hit.section.title or hit.section.page_title,
            # The page's title only where it adds something to the section's own.
            "page": "" if hit.section.title == hit.section.page_title else hit.section.page_title,
            "snippet": hit.snippet,
            "score": round(hit.score, 4),
        }
        for hit in hits
    ]
