"""The schema of the conversation archive in ``docs-panel.history``: the records a
turn and a conversation are, their JSON, and how a stored value of any schema reads.

It decides what a stored value means; it never decides what to keep or how two tabs'
copies merge (``history`` does) and does no storage I/O (the shell does).

Rules the reader keeps:

- **Reading never raises.** Garbage loads as an empty archive; an entry
  (conversation or turn) that does not parse is skipped and counted. Only a value
  written by a newer schema is refused for writing (``StorageError``), because
  overwriting it would destroy history this version cannot even read.
- **The schema is versioned** (``SCHEMA_VERSION``). An older value loads through
  ``_TURN_UPGRADES``, fields it lacks take their defaults, and ``load_archive``
  reports ``needs_rewrite`` so the shell stores it in the current form.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Final, Literal, TypeVar, cast, get_args

from docs_panel.portable.caps import QUOTE_CHARS

SCHEMA_VERSION: Final = 3
_MAX_MILLIS: Final = 2**53 - 1  # Number.MAX_SAFE_INTEGER: times are JavaScript numbers
_MAX_REF: Final = 999  # citations are [1] to [999]

Status = Literal["done", "stopped", "results"]
Vote = Literal["up", "down"]


@dataclass(frozen=True, slots=True)
class Source:
    """A source link under an answer: a fixed section address, shown as stored.

    ``ref`` is the number the answer cites it by (``[ref]``), so a restored
    answer links its citations again; 0 for a source no citation names.
    """

    address: str
    title: str
    ref: int = 0


@dataclass(frozen=True, slots=True)
class ResultItem:
    """One search result of a turn answered with results instead of a model's text."""

    address: str
    title: str
    snippet: str


@dataclass(frozen=True, slots=True)
class Gate:
    """The retrieval gate a feedback report carries: the best score against the threshold."""

    top_score: float
    threshold: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn:
    """One question and its answer, as stored (contract §4).

    ``question`` and ``quote`` arrive already redacted; ``quote`` is cut to
    ``QUOTE_CHARS`` characters here, so every turn holds the bound however it was
    made. ``results`` is empty except for turns answered with search results.
    """

    question: str
    answer: str
    status: Status
    asked_at: int  # epoch milliseconds
    finished_at: int
    quote: str = ""
    sources: tuple[Source, ...] = ()
    vote: Vote | None = None
    vote_id: str = ""  # names the vote to the feedback endpoint; kept when it changes
    reasons: tuple[str, ...] = ()  # what was wrong, for a "down" vote
    sentence: str = ""  # the reader's words on it, redacted
    scope: str | None = None
    gate: Gate | None = None
    results: tuple[ResultItem, ...] = ()
    citations: str = ""
    """A server install's signed list of what the answer cited (``docs_panel.core.signing``),
    sent back with a follow-up; empty for answers made in the browser."""

    def __post_init__(self) -> None:
        if len(self.quote) > QUOTE_CHARS:
            object.__setattr__(self, "quote", self.quote[:QUOTE_CHARS])

    @property
    def key(self) -> tuple[int, str]:
        """What names this turn across tabs: when and what was asked."""
        return (self.asked_at, self.question)


@dataclass(frozen=True, slots=True)
class Conversation:
    """A conversation's turns in order, and the docs index version its last turn used."""

    id: str
    turns: tuple[Turn, ...]
    index_version: str

    @property
    def title(self) -> str:
        """The first question on one line: what its row in the history list shows."""
        return " ".join(self.turns[0].question.split()) if self.turns else ""

    def with_turn(self, turn: Turn) -> Conversation:
        """This conversation with ``turn`` in place of its turn of the same key, or appended."""
        return replace(self, turns=(*(t for t in self.turns if t.key != turn.key), turn))

    @property
    def last_active(self) -> int:
        """The latest time a turn was asked or finished, in epoch milliseconds."""
        return max((max(turn.asked_at, turn.finished_at) for turn in self.turns), default=0)


@dataclass(frozen=True, slots=True)
class Archive:
    """The stored conversations, most recently written first."""

    conversations: tuple[Conversation, ...] = ()

    def find(self, conversation_id: str) -> Conversation | None:
        """The conversation with that id, or None."""
        return next((c for c in self.conversations if c.id == conversation_id), None)


# --- Size ---------------------------------------------------------------------------


def utf16_bytes(text: str) -> int:
    """Bytes ``text`` takes in Web Storage: 2 per UTF-16 code unit (an emoji is 4)."""
    # surrogatepass: a lone surrogate is one code unit in JavaScript too.
    return len(text.encode("utf-16-le", "surrogatepass"))


# --- Writing the format -------------------------------------------------------------

_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def compact_json(value: object) -> str:
    """Compact JSON keeping non-ASCII as is ("é" costs 2 bytes stored, "\\u00e9" 12)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # A lone surrogate can only sit inside a JSON string; escaping it keeps the value
    # well-formed Unicode, which every JS <-> Python string conversion accepts.
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def turn_record(turn: Turn) -> dict[str, object]:
    """The turn as the archive stores it (a JSON-ready dict); ``read_turn`` reads it back."""
    gate = turn.gate and {"top_score": turn.gate.top_score, "threshold": turn.gate.threshold}
    return {
        "question": turn.question,
        "quote": turn.quote,
        "answer": turn.answer,
        "sources": [{"address": s.address, "title": s.title, "ref": s.ref} for s in turn.sources],
        "vote": turn.vote,
        "vote_id": turn.vote_id,
        "reasons": list(turn.reasons),
        "sentence": turn.sentence,
        "scope": turn.scope,
        "gate": gate,
        "asked_at": turn.asked_at,
        "finished_at": turn.finished_at,
        "status": turn.status,
        "results": [
            {"address": r.address, "title": r.title, "snippet": r.snippet} for r in turn.results
        ],
        "citations": turn.citations,
    }


def conversation_record(conversation: Conversation) -> dict[str, object]:
    return {
        "id": conversation.id,
        "index_version": conversation.index_version,
        "turns": [turn_record(turn) for turn in conversation.turns],
    }


def conversation_json(conversation: Conversation) -> str:
    return compact_json(conversation_record(conversation))


def archive_json(conversations: Iterable[str]) -> str:
    """The archive from its conversations' JSON: what ``compact_json`` of the whole record
    gives, so a write that sized each conversation need not encode it again."""
    return f'{{"version":{SCHEMA_VERSION},"conversations":[{",".join(conversations)}]}}'


# --- Reading the format -------------------------------------------------------------


class _Invalid(Exception):
    """An entry does not parse; the reader skips it."""


_T = TypeVar("_T")


def _object(value: object) -> dict[str, object]:
    if not isinstance(value, dict):
        raise _Invalid
    return value


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise _Invalid
    return value


def _optional_text(value: object) -> str | None:
    return None if value is None else _text(value)


def _millis(value: object) -> int:
    if type(value) is not int or not 0 <= value <= _MAX_MILLIS:
        raise _Invalid
    return value


def _score(value: object) -> float:
    if type(value) not in (int, float) or not math.isfinite(cast(float, value)):
        raise _Invalid
    return float(cast(float, value))


def _status(value: object) -> Status:
    # A tuple, not a set: membership by ==, so an unhashable value is just "not in".
    if value not in get_args(Status):
        raise _Invalid
    return cast(Status, value)


def _vote(value: object) -> Vote | None:
    if value is not None and value not in get_args(Vote):
        raise _Invalid
    return cast("Vote | None", value)


def _gate(value: object) -> Gate | None:
    if value is None:
        return None
    fields = _object(value)
    return Gate(
        top_score=_score(fields.get("top_score")), threshold=_score(fields.get("threshold"))
    )


def _ref(value: object) -> int:
    if type(value) is not int or not 0 <= value <= _MAX_REF:
        raise _Invalid
    return value


def _source(value: object) -> Source:
    fields = _object(value)
    return Source(
        address=_text(fields.get("address")),
        title=_text(fields.get("title")),
        ref=_optional(fields, "ref", _ref, 0),
    )


def _result(value: object) -> ResultItem:
    fields = _object(value)
    return ResultItem(
        address=_text(fields.get("address")),
        title=_text(fields.get("title")),
        snippet=_text(fields.get("snippet")),
    )


def _tuple_of(parse: Callable[[object], _T]) -> Callable[[object], tuple[_T, ...]]:
    def parse_list(value: object) -> tuple[_T, ...]:
        if not isinstance(value, list):
            raise _Invalid
        return tuple(parse(item) for item in value)

    return parse_list


def _optional(
    fields: dict[str, object], key: str, parse: Callable[[object], _T], default: _T
) -> _T:
    """A field that may be missing (an older writer did not have it): ``default`` then."""
    return parse(fields[key]) if key in fields else default


def read_turn(record: object) -> Turn | None:
    """A turn from its stored record, or None when the record does not parse."""
    try:
        return _parse_turn(record)
    except _Invalid:
        return None


def _parse_turn(record: object) -> Turn:
    fields = _object(record)
    asked_at = _millis(fields.get("asked_at"))
    return Turn(
        question=_text(fields.get("question")),
        answer=_optional(fields, "answer", _text, ""),
        status=_status(fields.get("status")),
        asked_at=asked_at,
        finished_at=_optional(fields, "finished_at", _millis, asked_at),
        quote=_optional(fields, "quote", _text, ""),
        sources=_optional(fields, "sources", _tuple_of(_source), ()),
        vote=_optional(fields, "vote", _vote, None),
        vote_id=_optional(fields, "vote_id", _text, ""),
        reasons=_optional(fields, "reasons", _tuple_of(_text), ()),
        sentence=_optional(fields, "sentence", _text, ""),
        scope=_optional(fields, "scope", _optional_text, None),
        gate=_optional(fields, "gate", _gate, None),
        results=_optional(fields, "results", _tuple_of(_result), ()),
        citations=_optional(fields, "citations", _text, ""),
    )


def _v1_source(pair: object, ref: int) -> dict[str, object]:
    if not isinstance(pair, list) or len(pair) != 2:
        raise _Invalid
    return {"address": pair[0], "title": pair[1], "ref": ref}


# Schema 1 turn key -> schema 2 turn key.
_V1_KEYS: Final = {"q": "question", "a": "answer", "vote": "vote", "scope": "scope"}


def _upgrade_v1_turn(record: object) -> object:
    """Schema 1 turn -> schema 2 turn record.

    Schema 1 stored ``q`` and ``a``, sources as ``[address, title]`` pairs (in the
    order of their numbers: the first is ``[1]``), one time
    ``at`` (when the answer finished) and a ``stopped`` flag; it had no quote, gate or
    results, which take their defaults.
    """
    fields = _object(record)
    stopped = fields.get("stopped", False)
    if not isinstance(stopped, bool):
        raise _Invalid
    upgraded = {new: fields[old] for old, new in _V1_KEYS.items() if old in fields}
    if "sources" in fields:
        pairs = fields["sources"]
        if not isinstance(pairs, list):
            raise _Invalid
        upgraded["sources"] = [_v1_source(pair, n) for n, pair in enumerate(pairs, start=1)]
    upgraded["asked_at"] = upgraded["finished_at"] = fields.get("at")
    upgraded["status"] = "stopped" if stopped else "done"
    return upgraded


def _unchanged(record: object) -> object:
    return record


# Each readable schema version -> how its turn records become the current shape.
# Conversations and the envelope have kept their shape since version 1. Schema 3
# added a turn's ``citations`` (a server install's signed list): a schema 2 turn
# has none, its default, so it reads unchanged.
_TURN_UPGRADES: Final[dict[int, Callable[[object], object]]] = {
    1: _upgrade_v1_turn,
    2: _unchanged,
    SCHEMA_VERSION: _unchanged,
}


def _parse_conversation(
    record: object, upgrade: Callable[[object], object]
) -> tuple[Conversation, int]:
    """The conversation and how many of its turns were skipped."""
    fields = _object(record)
    conversation_id = _text(fields.get("id"))
    records = fields.get("turns")
    if not conversation_id or not isinstance(records, list):
        raise _Invalid
    turns: list[Turn] = []
    for entry in records:
        with contextlib.suppress(_Invalid):
            turns.append(_parse_turn(upgrade(entry)))
    conversation = Conversation(
        id=conversation_id,
        turns=tuple(turns),
        index_version=_optional(fields, "index_version", _text, ""),
    )
    return conversation, len(records) - len(turns)


def conversations_strictly(version: object, entries: object) -> tuple[Conversation, ...]:
    """Conversations written by schema ``version``, all or nothing: an imported file is
    refused whole (``ValueError`` naming what is wrong) where the archive skips an entry.

    >>> conversations_strictly(2, [{"id": "c1", "turns": []}])
    Traceback (most recent call last):
    ...
    ValueError: conversation 1 has no turn, an id seen before, or a turn that does not parse
    """
    upgrade = _TURN_UPGRADES.get(version) if type(version) is int else None
    if upgrade is None or not isinstance(entries, list):
        raise ValueError("no conversations list of a known schema version")
    found: dict[str, Conversation] = {}
    for number, entry in enumerate(entries, start=1):
        try:
            conversation, skipped = _parse_conversation(entry, upgrade)
        except _Invalid:
            raise ValueError(f"conversation {number} does not parse") from None
        if skipped or not conversation.turns or conversation.id in found:
            raise ValueError(
                f"conversation {number} has no turn, an id seen before, "
                "or a turn that does not parse"
            )
        found[conversation.id] = conversation
    return tuple(found.values())


def _json_int(digits: str) -> int | float:
    # JavaScript reads any digit string as a number, Python refuses one over 4300
    # digits: as a float it fails only its own entry's check, not the whole value.
    return int(digits) if len(digits) <= 20 else float(digits)


@dataclass(frozen=True, slots=True)
class Decoded:
    archive: Archive
    skipped: int
    newer: bool  # written by a newer schema: unreadable here, and never to be overwritten


_UNREADABLE: Final = Decoded(Archive(), skipped=1, newer=False)


def parse_archive(raw: str | None) -> Decoded:
    if not raw:
        return Decoded(Archive(), skipped=0, newer=False)
    try:
        document = json.loads(raw, parse_int=_json_int)
    except (ValueError, RecursionError):
        return _UNREADABLE
    if not isinstance(document, dict):
        return _UNREADABLE
    version, entries = document.get("version"), document.get("conversations")
    if type(version) is int and version > SCHEMA_VERSION:
        return Decoded(Archive(), skipped=1, newer=True)
    upgrade = _TURN_UPGRADES.get(version) if type(version) is int else None
    if upgrade is None or not isinstance(entries, list):
        return _UNREADABLE
    conversations: dict[str, Conversation] = {}
    skipped = 0
    for entry in entries:
        try:
            conversation, skipped_turns = _parse_conversation(entry, upgrade)
        except _Invalid:
            skipped += 1
            continue
        skipped += skipped_turns
        # Only conversations with an answer are stored; the first of an id wins.
        if not conversation.turns or conversation.id in conversations:
            skipped += 1
        else:
            conversations[conversation.id] = conversation
    return Decoded(Archive(tuple(conversations.values())), skipped=skipped, newer=False)
