"""Which conversation a tab goes on with after a reload, and which tabs start fresh."""

from __future__ import annotations

import json

import pytest

from docs_panel.core.history_schema import Source
from docs_panel.core.session import Session, adopts, read_session, session_value, stopped_turn


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"id": "c1", "left": true}', Session("c1", left=True)),
        ('{"id": "c1", "left": false}', Session("c1", left=False)),
        ('{"id": null, "left": true, "open": true}', Session(None, left=True)),
        ('{"id": 7, "left": "yes"}', Session(None, left=False)),
        ("{", Session()),
        ("[1, 2]", Session()),
        ("", Session()),
        (None, Session()),
        ("[" * 100_000, Session()),
    ],
)
def test_read_session_tolerates_anything(raw: str | None, expected: Session) -> None:
    """Stored values parse to what they say; garbage is an empty session, never an error."""
    assert read_session(raw) == expected


def test_only_a_page_that_left_is_followed() -> None:
    """A reload (the page left) carries on; a copy from a live tab does not."""
    assert adopts(read_session('{"id": "c1", "left": true}'))
    assert not adopts(read_session('{"id": "c1", "left": false}'))
    assert not adopts(read_session(None))


def test_the_live_value_round_trips() -> None:
    """What the shell stores while open reads back as this conversation, not yet left."""
    assert read_session(json.dumps(session_value("c9"))) == Session("c9", left=False)


IN_FLIGHT = {
    "question": "how do I retry",
    "quote": "",
    "answer": "Call retry [2].",
    "sources": [
        {"address": "/a.html", "title": "A", "ref": 1},
        {"address": "/b.html#x", "title": "B", "ref": 2},
    ],
    "status": "stopped",
    "asked_at": 5,
    "finished_at": 9,
}


def test_answer_in_flight_reads_back_as_a_stopped_turn_with_its_citations() -> None:
    """The answer written on pagehide becomes a stopped turn citing what it had cited."""
    session = read_session(json.dumps({"id": "c1", "left": True, "inflight": IN_FLIGHT}))
    assert session.in_flight is not None
    turn = stopped_turn(session.in_flight)
    assert (turn.question, turn.answer, turn.status) == (
        "how do I retry",
        "Call retry [2].",
        "stopped",
    )
    assert turn.sources == (Source("/b.html#x", "B", 2),)


@pytest.mark.parametrize(
    "in_flight",
    [None, "text", [], {**IN_FLIGHT, "status": "done"}, {**IN_FLIGHT, "asked_at": "now"}],
)
def test_garbage_in_flight_is_ignored_and_the_rest_kept(in_flight: object) -> None:
    """An in-flight value that is not a stopped turn is dropped; the id still counts."""
    session = read_session(json.dumps({"id": "c1", "left": True, "inflight": in_flight}))
    assert session == Session("c1", left=True)
