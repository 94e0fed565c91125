"""Votes on answers: the vote kept on the turn, the local feedback log, and the report
a feedback endpoint receives (contract §7).

A vote is "up", "down" or taken back (None). A "down" vote may carry reasons from
the allow-list ``REASONS`` and a sentence, redacted like a question. The vote gets
a random id the first time and keeps it when it changes, so a receiver keeps the
last report per id::

    >>> turn = Turn(question="retry?", answer="Call `retry()`.", status="done",
    ...             asked_at=1, finished_at=2)
    >>> voted = cast_vote(turn, "down", ["wrong", "bogus"], "  Too\\n old ", new_id=lambda: "v1")
    >>> voted.vote, voted.vote_id, voted.reasons, voted.sentence
    ('down', 'v1', ('wrong',), 'Too old')
    >>> cast_vote(voted, "up", [], "", new_id=lambda: "v2").vote_id
    'v1'
    >>> should_send("negative", "up", previous="down")   # the receiver learns it changed
    True

The log (``docs-panel.feedback``) holds one entry per vote id, newest last, bounded
to ``LOG_ENTRIES`` entries and ``LOG_BYTES`` bytes; the oldest go first. Like the
archive, reading it never raises: garbage reads as an empty log.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Final

from docs_panel.core.config import FeedbackSend
from docs_panel.core.history_schema import Turn, Vote, utf16_bytes
from docs_panel.portable.caps import SENTENCE_CHARS

REASONS: Final = ("wrong", "outdated", "not_asked", "missing_source", "hard_to_read")
"""The reasons a "down" vote may tick, by id (the panel shows each as its language's
``reason_<id>``). Any other id is dropped."""
REASON_IDS: Final = frozenset(REASONS)
LOG_ENTRIES: Final = 200
LOG_BYTES: Final = 256 * 1024
"""The log's bounds: entries, and bytes as the browser counts them (UTF-16 x 2)."""
LOG_VERSION: Final = 1


def cast_vote(
    turn: Turn,
    vote: Vote | None,
    reasons: Iterable[str],
    sentence: str,
    *,
    new_id: Callable[[], str],
) -> Turn:
    """``turn`` with this vote; ``sentence`` must already be redacted.

    Reasons and sentence belong to a "down" vote only; the id stays once given.
    """
    down = vote == "down"
    return replace(
        turn,
        vote=vote,
        vote_id=turn.vote_id or new_id(),
        reasons=tuple(r for r in dict.fromkeys(reasons) if r in REASON_IDS) if down else (),
        sentence=" ".join(sentence.split())[:SENTENCE_CHARS] if down else "",
    )


def should_send(send: FeedbackSend, vote: Vote | None, *, previous: Vote | None) -> bool:
    """Whether ``feedback.send`` lets this vote go to the endpoint.

    Under "negative", a change away from "down" is sent too: the receiver already
    has that vote and must learn it no longer stands.
    """
    if send == "none":
        return False
    return send == "all" or "down" in (vote, previous)


def report(turn: Turn, *, retrieved: Sequence[str], page_url: str, now: int) -> dict[str, object]:
    """What the feedback endpoint receives for ``turn``'s vote (docs/votes.md).

    ``retrieved``: the addresses of the sections retrieved for it, empty for a turn
    restored from storage (retrieval is not stored).
    """
    gate = turn.gate and {"top_score": turn.gate.top_score, "threshold": turn.gate.threshold}
    return {
        "id": turn.vote_id,
        "vote": turn.vote,
        "reasons": list(turn.reasons),
        "sentence": turn.sentence,
        "question": turn.question,
        "quote": turn.quote,
        "answer": turn.answer,
        "sources": [{"address": s.address, "title": s.title} for s in turn.sources],
        "scope": turn.scope,
        "gate": gate,
        "retrieved": list(retrieved),
        "page_url": page_url,
        "voted_at": now,
    }


def _entries(raw: str | None) -> list[dict[str, object]]:
    try:
        document = json.loads(raw) if raw else None
    except (ValueError, RecursionError):
        return []
    if not isinstance(document, dict) or document.get("version") != LOG_VERSION:
        return []
    entries = document.get("entries")
    if not isinstance(entries, list):
        return []
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)]


def _dump(entries: list[dict[str, object]]) -> str:
    return json.dumps(
        {"version": LOG_VERSION, "entries": entries}, ensure_ascii=False, separators=(",", ":")
    )


def log_vote(raw: str | None, conversation_id: str, vote_report: dict[str, object]) -> str:
    """The log with this report as its newest entry (replacing its id's earlier one, or
    only removing it when the vote was taken back), within the bounds."""
    entries = [e for e in _entries(raw) if e["id"] != vote_report["id"]]
    if vote_report["vote"] is not None:
        entries.append({**vote_report, "conversation": conversation_id})
    entries = entries[-LOG_ENTRIES:]
    value = _dump(entries)
    while entries and utf16_bytes(value) > LOG_BYTES:
        entries.pop(0)
        value = _dump(entries)
    return value


def drop_conversation(raw: str | None, conversation_id: str) -> str:
    """The log without the entries of a deleted conversation."""
    return _dump([e for e in _entries(raw) if e.get("conversation") != conversation_id])
