"""Votes: what the turn keeps, which votes are sent, the report and the bounded log."""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import count

import pytest

from docs_panel.core.feedback import (
    LOG_BYTES,
    LOG_ENTRIES,
    cast_vote,
    drop_conversation,
    log_vote,
    report,
    should_send,
)
from docs_panel.core.history_schema import Gate, Source, Turn, Vote, utf16_bytes

TURN = Turn(
    question="How do I retry?",
    answer="Call `retry()` [1].",
    status="done",
    asked_at=10,
    finished_at=20,
    quote="the retry button",
    sources=(Source("/api/jobs.html#retry", "Retry a job", ref=1),),
    scope="api",
    gate=Gate(top_score=0.5, threshold=0.25),
)


def ids() -> Callable[[], str]:
    numbers = count(1)
    return lambda: f"v{next(numbers)}"


def test_a_down_vote_keeps_known_reasons_and_the_sentence_on_one_line() -> None:
    """Unknown or repeated reasons are dropped; the sentence is collapsed and capped."""
    voted = cast_vote(TURN, "down", ["outdated", "hack", "outdated"], "a\n" * 900, new_id=ids())
    assert (voted.vote, voted.reasons) == ("down", ("outdated",))
    assert voted.sentence.startswith("a a") and len(voted.sentence) == 1_000
    assert (voted.question, voted.answer, voted.sources) == (
        TURN.question,
        TURN.answer,
        TURN.sources,
    )


def test_changing_or_taking_back_a_vote_keeps_its_id_and_drops_the_reasons() -> None:
    """The receiver gets the same id for every change; only "down" carries reasons."""
    new_id = ids()
    down = cast_vote(TURN, "down", ["wrong"], "no", new_id=new_id)
    up = cast_vote(down, "up", ["wrong"], "no", new_id=new_id)
    back = cast_vote(up, None, [], "", new_id=new_id)
    assert [t.vote_id for t in (down, up, back)] == ["v1", "v1", "v1"]
    assert (up.vote, up.reasons, up.sentence) == ("up", (), "")
    assert back.vote is None


@pytest.mark.parametrize(
    ("send", "vote", "previous", "sent"),
    [
        ("all", "up", None, True),
        ("all", None, "up", True),
        ("negative", "down", None, True),
        ("negative", "up", None, False),
        ("negative", "up", "down", True),
        ("negative", None, "down", True),
        ("negative", None, "up", False),
        ("none", "down", None, False),
    ],
)
def test_feedback_send_decides_which_votes_leave(
    send: str, vote: Vote | None, previous: Vote | None, sent: bool
) -> None:
    """ "all" sends every vote, "negative" down votes and changes from one, "none" nothing."""
    assert should_send(send, vote, previous=previous) is sent  # type: ignore[arg-type]


def test_the_report_carries_the_turn_and_what_retrieval_found() -> None:
    """Question, answer, sources, scope, gate, retrieved ids, page, time, id and verdict."""
    voted = cast_vote(TURN, "down", ["wrong"], "stale", new_id=lambda: "v9")
    sent = report(voted, retrieved=["/api/jobs.html#retry"], page_url="https://d/x", now=99)
    assert sent == {
        "id": "v9",
        "vote": "down",
        "reasons": ["wrong"],
        "sentence": "stale",
        "question": "How do I retry?",
        "quote": "the retry button",
        "answer": "Call `retry()` [1].",
        "sources": [{"address": "/api/jobs.html#retry", "title": "Retry a job"}],
        "scope": "api",
        "gate": {"top_score": 0.5, "threshold": 0.25},
        "retrieved": ["/api/jobs.html#retry"],
        "page_url": "https://d/x",
        "voted_at": 99,
    }


def entry(vote_id: str, vote: str | None = "up", size: int = 0) -> dict[str, object]:
    return {"id": vote_id, "vote": vote, "answer": "x" * size}


def logged(raw: str) -> list[tuple[object, object]]:
    return [(e["id"], e["conversation"]) for e in json.loads(raw)["entries"]]


def test_a_changed_vote_replaces_its_entry_and_a_taken_back_one_leaves() -> None:
    """One entry per vote id, newest last; taking a vote back removes it."""
    raw = log_vote(None, "c1", entry("a"))
    raw = log_vote(raw, "c2", entry("b"))
    raw = log_vote(raw, "c1", entry("a", "down"))
    assert logged(raw) == [("b", "c2"), ("a", "c1")]
    assert logged(log_vote(raw, "c1", entry("a", None))) == [("b", "c2")]


def test_the_log_keeps_the_newest_entries_within_both_bounds() -> None:
    """At most LOG_ENTRIES entries and LOG_BYTES bytes; the oldest go first."""
    raw = None
    for n in range(LOG_ENTRIES + 5):
        raw = log_vote(raw, "c", entry(str(n)))
    assert [i for i, _ in logged(raw)] == [str(n) for n in range(5, LOG_ENTRIES + 5)]
    for n in range(30):
        raw = log_vote(raw, "c", entry(f"big{n}", size=20_000))
    assert utf16_bytes(raw) <= LOG_BYTES
    assert logged(raw)[-1][0] == "big29" and len(logged(raw)) < 10


@pytest.mark.parametrize("garbage", ["", "{", "[]", '{"version":7,"entries":[]}', '{"version":1}'])
def test_a_garbage_log_reads_as_empty(garbage: str) -> None:
    """Whatever is stored, a vote is logged (over it) and never raises."""
    assert logged(log_vote(garbage, "c", entry("a"))) == [("a", "c")]


def test_deleting_a_conversation_drops_its_entries() -> None:
    """Entries of other conversations stay, in order."""
    raw = log_vote(log_vote(log_vote(None, "c1", entry("a")), "c2", entry("b")), "c1", entry("c"))
    assert logged(drop_conversation(raw, "c1")) == [("b", "c2")]
