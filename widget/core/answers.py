"""From a reader's question to a turn, and from a turn to what the panel shows.

For now an answer is the list of best-matching sections (the ``chat: false``
behaviour of DESIGN 6), searched within the scope the reader picked; the gate
numbers are kept on the turn for feedback reports::

    turn = results_turn(index, config, "retry a failed job", "api", asked_at=t0, finished_at=t1)
    turn.results[0].address          # "/api/jobs.html#retry-a-job"
    turn_view(turn, index)           # plain dict for the shell, as JSON

Views are recomputed from the stored turn against the current index every time,
never stored.
"""

from __future__ import annotations

from widget.core.config import Config
from widget.core.docs_index import DocsIndex
from widget.core.history import Gate, ResultItem, Turn

MAX_RESULTS = 6


def scope_prefix(config: Config, scope_id: str | None) -> str | None:
    """The address prefix of the scope with that id; None searches everything."""
    for scope in config.scopes:
        if scope.id == scope_id:
            return scope.prefix
    return None


def results_turn(
    index: DocsIndex,
    config: Config,
    question: str,
    scope_id: str | None,
    *,
    asked_at: int,
    finished_at: int,
) -> Turn:
    """Answer ``question`` (already redacted) with the best sections in the scope."""
    hits = index.search(question, prefix=scope_prefix(config, scope_id), limit=MAX_RESULTS)
    return Turn(
        question=question,
        answer="",
        status="results",
        asked_at=asked_at,
        finished_at=finished_at,
        scope=scope_id,
        gate=Gate(top_score=hits[0].score if hits else 0.0, threshold=config.gate),
        results=tuple(
            ResultItem(
                address=hit.section.address,
                title=hit.section.title or hit.section.page_title,
                snippet=hit.snippet,
            )
            for hit in hits
        ),
    )


def turn_view(turn: Turn, index: DocsIndex) -> dict[str, object]:
    """What the shell draws for a turn: question, quote and results with page titles."""
    return {
        "question": turn.question,
        "quote": turn.quote,
        "status": turn.status,
        "results": [_result_view(item, index) for item in turn.results],
    }


def _result_view(item: ResultItem, index: DocsIndex) -> dict[str, str]:
    section = index.lookup(item.address)
    # The page's title only where it adds something to the section's own.
    page = section.page_title if section and section.page_title != item.title else ""
    return {"address": item.address, "title": item.title, "page": page, "snippet": item.snippet}
