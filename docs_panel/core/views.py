"""What the shell draws, in the record shapes of ``docs_panel.portable.protocol``.

Views are recomputed from stored turns against the current index every time and
never stored: a citation of a page that is gone comes back as text, and a
conversation from an older index says so::

    view = conversation_view(conversation, index, "https://docs.example.org")
    view["docs_changed"]                 # True when the index was rebuilt since
    view["turns"][0]["answer"]           # sanitized HTML, links checked against the index

    >>> history_row(ListRow("c1", "retry a job", last_question_at=0), now=7_200_000)
    {'id': 'c1', 'title': 'retry a job', 'when_value': -2, 'when_unit': 'hour'}
"""

from __future__ import annotations

from docs_panel.core.docs_index import DocsIndex
from docs_panel.core.history import ListRow
from docs_panel.core.history_schema import Conversation, ResultItem, Source, Turn
from docs_panel.core.site_links import may_link
from docs_panel.portable.i18n import relative_time


def turn_view(turn: Turn, index: DocsIndex, site_origin: str) -> dict[str, object]:
    """A ``Turn`` record: the answer rendered against the current index."""
    refs = {source.ref: source.address for source in turn.sources if source.ref}
    answer = ""
    if turn.answer:
        from docs_panel.core.render import render_answer  # markdown-it and bleach: only now

        answer = render_answer(
            turn.answer, site_origin=site_origin, page_exists=index.has_page, cite=refs.get
        )
    return {
        "key": turn_key(turn),
        "question": turn.question,
        "quote": turn.quote,
        "status": turn.status,
        "scope": turn.scope or "",
        "answer": answer,
        "text": turn.answer,
        "sources": [source_view(source) for source in turn.sources],
        "results": [result_view(item, index) for item in turn.results],
        "feedback": feedback_view(turn),
    }


def turn_key(turn: Turn) -> str:
    """What the shell names a turn by when it votes: when it was asked (unique in a
    conversation, since one tab asks one question at a time)."""
    return str(turn.asked_at)


def feedback_view(turn: Turn) -> dict[str, object]:
    """A ``Feedback`` record: the reader's vote on the turn ("" for none)."""
    return {"vote": turn.vote or "", "reasons": list(turn.reasons), "sentence": turn.sentence}


def source_view(source: Source) -> dict[str, object]:
    """A ``Source`` record as stored: fixed address and title, and its citation number;
    the address is "" (drawn as text) when the panel may not link it."""
    return {"address": _linked(source.address), "title": source.title, "ref": source.ref}


def _linked(address: str) -> str:
    """``address`` when the panel may link it, else "": however a conversation came
    back (restored, imported, from a server), the shell only ever links site paths."""
    return address if may_link(address) else ""


def result_view(item: ResultItem, index: DocsIndex) -> dict[str, object]:
    """A ``Result`` record; the page's title only where it adds to the section's own."""
    page_title = index.page_title(item.address)
    page = page_title if page_title and page_title != item.title else ""
    address = _linked(item.address)
    return {"address": address, "title": item.title, "page": page, "snippet": item.snippet}


def conversation_view(
    conversation: Conversation | None, index: DocsIndex, site_origin: str
) -> dict[str, object] | None:
    """A ``Conversation`` record, or None for no conversation."""
    if conversation is None:
        return None
    return {
        "id": conversation.id,
        "turns": [turn_view(turn, index, site_origin) for turn in conversation.turns],
        "docs_changed": conversation.index_version != index.version,
    }


def history_row(row: ListRow, *, now: int) -> dict[str, object]:
    """A ``Row`` record of the history list: when, as a value and unit for
    ``Intl.RelativeTimeFormat`` in the page's language."""
    value, unit = relative_time(then_ms=row.last_question_at, now_ms=now)
    return {"id": row.id, "title": row.title, "when_value": value, "when_unit": unit}
