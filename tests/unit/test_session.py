"""Which conversation a tab goes on with after a reload, and which tabs start fresh."""

from __future__ import annotations

import json

import pytest

from widget.core.session import Session, adopts, read_session, session_value


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
