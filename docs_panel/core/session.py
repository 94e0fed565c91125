"""This tab's place in the archive: which conversation it is in, kept in
sessionStorage (``docs-panel.conversation``).

Browsers copy sessionStorage into a tab opened from another (``window.open``,
a citation opened in a new tab, "Duplicate tab"), so the id alone cannot tell
"this tab, reloaded" from "a new tab that got a copy". The value also says
whether the page that wrote it has *left*: the shell writes ``left: true`` on
``pagehide``. A reload or a same-tab navigation finds ``left: true`` and carries
on; a copy taken from a tab that is still open finds ``left: false`` and starts
fresh::

    >>> session = read_session('{"id": "c1", "left": true}')
    >>> adopts(session), session.conversation_id
    (True, 'c1')
    >>> adopts(read_session('{"id": "c1", "left": false}'))
    False

Adopting covers the tab's draft too, even before it has a conversation.

The value also carries the answer that was streaming when the page left
(``inflight``: a stopped turn record whose ``sources`` are the numbered sections
the model was given). It is written synchronously on ``pagehide``, since no
round trip to the worker can finish then, and becomes a stopped turn on the next
load (:func:`stopped_turn`).

Garbage reads as "no conversation", never as an error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from docs_panel.core.answers import cited_sources
from docs_panel.core.history_schema import Turn, read_turn
from docs_panel.portable.session_fields import ID, IN_FLIGHT, LEFT


@dataclass(frozen=True, slots=True)
class Session:
    conversation_id: str | None = None
    left: bool = False
    in_flight: Turn | None = None


def read_session(raw: str | None) -> Session:
    """Parse the stored value; anything unexpected is an empty session."""
    try:
        value = json.loads(raw) if raw else None
    except (ValueError, RecursionError):
        return Session()
    if not isinstance(value, dict):
        return Session()
    conversation_id = value.get(ID)
    in_flight = read_turn(value[IN_FLIGHT]) if IN_FLIGHT in value else None
    return Session(
        conversation_id=conversation_id if isinstance(conversation_id, str) else None,
        left=value.get(LEFT) is True,
        in_flight=in_flight if in_flight is not None and in_flight.status == "stopped" else None,
    )


def adopts(session: Session) -> bool:
    """Whether this tab goes on where the stored value leaves off: only when its own
    earlier page wrote it on leaving."""
    return session.left


def session_value(conversation_id: str | None) -> dict[str, object]:
    """What the shell stores while the page is open; it sets ``left`` on pagehide."""
    return {ID: conversation_id, LEFT: False}


def stopped_turn(in_flight: Turn) -> Turn:
    """The answer that was streaming as a stopped turn: its sources are those it had cited."""
    return replace(in_flight, sources=cited_sources(in_flight.answer, in_flight.sources))
