""" "Search conversations": which stored conversations a reader's words find, by their
title and the text of their turns (question, quote, answer, source and result titles).

Every word must occur somewhere in the conversation, as a prefix or inside a word,
ignoring case and accents; the order of the list stays ``listing``'s::

    >>> turn = Turn(question="Comment réessayer ?", answer="Appelez `retry()`.",
    ...             status="done", asked_at=1, finished_at=2)
    >>> archive = Archive((Conversation("c1", (turn,), "v1"),))
    >>> [row.id for row in matching(archive, "REESSAYER retry")]
    ['c1']
    >>> matching(archive, "delete")
    ()

A conversation's searchable text is folded once and kept while the worker holds
that very conversation object (``load_archive`` hands out the same objects until
the stored value changes), so typing re-folds nothing.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from docs_panel.core.history import ListRow, listing
from docs_panel.core.history_schema import Archive, Conversation, Turn

_FOLDED_KEPT: Final = 64


def fold(text: str) -> str:
    """``text`` compared without case or accents: "Réessayer" and "reessayer" match."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _turn_text(turn: Turn) -> list[str]:
    parts = [turn.question, turn.quote, turn.answer, turn.sentence]
    parts += [source.title for source in turn.sources]
    parts += [f"{result.title} {result.snippet}" for result in turn.results]
    return parts


_folded: dict[str, tuple[Conversation, str]] = {}


def _searchable(conversation: Conversation) -> str:
    kept = _folded.get(conversation.id)
    if kept is not None and kept[0] is conversation:
        return kept[1]
    text = fold("\n".join(part for turn in conversation.turns for part in _turn_text(turn)))
    if len(_folded) >= _FOLDED_KEPT:
        _folded.clear()
    _folded[conversation.id] = (conversation, text)
    return text


def matching(archive: Archive, query: str) -> tuple[ListRow, ...]:
    """The history list's rows whose conversations hold every word of ``query``
    (all rows for a blank query)."""
    words = fold(query).split()
    if not words:
        return listing(archive)
    found = {c.id for c in archive.conversations if all(w in _searchable(c) for w in words)}
    return tuple(row for row in listing(archive) if row.id in found)
