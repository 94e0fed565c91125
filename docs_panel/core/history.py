"""The conversation archive in ``docs-panel.history``: its format, merge and bounds.

Storage I/O lives in the shell; this module only turns strings into decisions.
Every write is "re-read, merge, write" under a cross-tab lock: the shell reads
the stored string, ``upsert`` merges this tab's conversation into it and returns
the string to write, so two tabs never overwrite each other's turns::

    >>> turn = Turn(question="How do I\\n retry a job?", answer="Call `retry()` [1].",
    ...             status="done", asked_at=1_000, finished_at=2_500)
    >>> mine = Conversation(id="c1", turns=(turn,), index_version="v7")
    >>> written = upsert(None, mine, max_conversations=20, max_bytes=1_048_576)
    >>> listing(load_archive(written.value).archive)
    (ListRow(id='c1', title='How do I retry a job?', last_question_at=1000),)

Rules the functions below share:

- **Recency is write order.** The archive lists conversations most recently
  written first; ``upsert`` moves the one it writes to the front, and bounds evict
  from the end. A vote in an old conversation is activity too, so it protects
  that conversation even though its question times are old. ``listing`` orders
  rows by their turn times instead, which is what the reader sees.
- **A turn is named by when and what was asked** (``Turn.key``) and turns are
  append-only ("Ask again" appends a new turn). A tab's copy wins for the turns it
  has; turns only the stored copy has (the same conversation open in two tabs)
  are kept, merged in by time. Without that, two tabs in one conversation would
  each see the other's write "lose" their turn and rewrite forever.
- **Sizes are counted as the browser counts them**: UTF-16 code units x 2 of the
  stored value (the key, a few dozen bytes, is outside ``max_bytes``).
- **The last value is remembered, never trusted blindly** (``_Last``): a write on
  exactly the string this worker last read or wrote skips the parse and re-encodes
  only the conversation it changes; any other string, even of the same length, is
  read afresh, so another tab's write is never lost to a stale copy.
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
import heapq
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Final, Literal, TypeVar, cast, get_args

from docs_panel.portable.caps import QUOTE_CHARS
from docs_panel.portable.errors import StorageError

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


@dataclass(frozen=True, slots=True)
class LoadResult:
    """A read archive. ``needs_rewrite``: the stored value is readable but not what this
    version would write (older schema, skipped entries, other formatting), so the shell
    should write ``dump_archive(archive)``. ``skipped``: entries that did not parse.
    """

    archive: Archive
    needs_rewrite: bool
    skipped: int


@dataclass(frozen=True, slots=True)
class WriteResult:
    """The string to write under the history key, and the archive it holds."""

    value: str
    archive: Archive


@dataclass(frozen=True, slots=True)
class ListRow:
    """One row of the history list."""

    id: str
    title: str
    last_question_at: int


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


def _conversation_json(conversation: Conversation) -> str:
    return compact_json(conversation_record(conversation))


def _archive_json(conversations: Iterable[str]) -> str:
    """The archive from its conversations' JSON: what ``compact_json`` of the whole record
    gives, so a write that sized each conversation need not encode it again."""
    return f'{{"version":{SCHEMA_VERSION},"conversations":[{",".join(conversations)}]}}'


def dump_archive(archive: Archive) -> str:
    """The archive as the compact, deterministic JSON string to store.

    >>> dump_archive(Archive())
    '{"version":3,"conversations":[]}'
    """
    return _archive_json(_LAST.json_of(c) for c in archive.conversations)


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
class _Decoded:
    archive: Archive
    skipped: int
    newer: bool  # written by a newer schema: unreadable here, and never to be overwritten


_UNREADABLE: Final = _Decoded(Archive(), skipped=1, newer=False)


def _decode(raw: str | None) -> _Decoded:
    return _LAST.decoded(raw)


def _parse(raw: str | None) -> _Decoded:
    if not raw:
        return _Decoded(Archive(), skipped=0, newer=False)
    try:
        document = json.loads(raw, parse_int=_json_int)
    except (ValueError, RecursionError):
        return _UNREADABLE
    if not isinstance(document, dict):
        return _UNREADABLE
    version, entries = document.get("version"), document.get("conversations")
    if type(version) is int and version > SCHEMA_VERSION:
        return _Decoded(Archive(), skipped=1, newer=True)
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
    return _Decoded(Archive(tuple(conversations.values())), skipped=skipped, newer=False)


class _Last:
    """The stored value last read or written here, decoded, and the JSON of each
    conversation last written. A tab's next write mostly finds that very value (no
    other tab wrote in between): it then parses nothing and encodes only the
    conversation it changes. The value is recognized by comparing whole strings, so
    another tab's write, even one of the same length, is always read afresh."""

    def __init__(self) -> None:
        self.raw: str | None = None
        self.decoded_raw = _parse(None)
        self.encoded: dict[str, tuple[Conversation, str]] = {}  # by id: that very object's JSON

    def decoded(self, raw: str | None) -> _Decoded:
        if raw != self.raw:
            self.raw, self.decoded_raw = raw, _parse(raw)
        return self.decoded_raw

    def json_of(self, conversation: Conversation) -> str:
        known = self.encoded.get(conversation.id)
        if known is not None and known[0] is conversation:
            return known[1]
        return _conversation_json(conversation)

    def wrote(self, raw: str, archive: Archive, encoded: list[str]) -> None:
        """``raw`` holds ``archive``, whose conversations' JSON is ``encoded``: what
        reading ``raw`` would give (dump and load round-trip)."""
        self.raw, self.decoded_raw = raw, _Decoded(archive, skipped=0, newer=False)
        pairs = zip(archive.conversations, encoded, strict=True)
        self.encoded = {c.id: (c, text) for c, text in pairs}


_LAST: Final = _Last()


def load_archive(raw: str | None) -> LoadResult:
    """Read the stored value; never raises (see ``LoadResult``).

    A value written by a newer schema loads as empty and is not to be rewritten.
    """
    decoded = _decode(raw)
    needs_rewrite = bool(raw) and not decoded.newer and dump_archive(decoded.archive) != raw
    return LoadResult(decoded.archive, needs_rewrite=needs_rewrite, skipped=decoded.skipped)


def writable_archive(raw: str | None) -> Archive:
    """The stored archive a write starts from; garbage is overwritten, newer data is not."""
    decoded = _decode(raw)
    if decoded.newer:
        raise StorageError(
            "The saved conversation history was written by a newer version of docs-panel; "
            "this page runs an older one and leaves it untouched. Reload the page to get "
            "the newer panel, or use 'Delete all' to start the history over."
        )
    return decoded.archive


# --- Bounds -------------------------------------------------------------------------


def _size(record: object) -> int:
    return utf16_bytes(compact_json(record))


def _fitting_count(sizes: Iterable[int], empty_size: int, budget: int) -> int:
    """How many leading items fit when put, in order, into a JSON list.

    ``empty_size`` is the container's size with the list empty; compact JSON makes a
    container's size exactly that plus each item's size plus a comma (2 bytes) between.
    """
    total, count = empty_size, 0
    for size in sizes:
        total += size + (2 if count else 0)
        if total > budget:
            break
        count += 1
    return count


def _newest_turns_that_fit(conversation: Conversation, budget: int) -> Conversation | None:
    """The conversation within ``budget`` bytes: without the turns too big to ever fit,
    then without its oldest turns. None if no turn fits."""
    empty_size = _size(conversation_record(replace(conversation, turns=())))
    sized = [(turn, _size(turn_record(turn))) for turn in conversation.turns]
    storable = [(turn, size) for turn, size in sized if empty_size + size <= budget]
    count = _fitting_count((size for _, size in reversed(storable)), empty_size, budget)
    kept = tuple(turn for turn, _ in storable[len(storable) - count :])
    return replace(conversation, turns=kept) if kept else None


def apply_bounds(archive: Archive, *, max_conversations: int, max_bytes: int) -> Archive:
    """Keep the most recently written conversations that fit both bounds.

    Least recently written go first; nothing expires by age. When the most recent
    conversation alone exceeds ``max_bytes``, it is kept alone, without its oldest
    turns. A turn that alone exceeds the ceiling is never stored; the rest of its
    conversation is, and a conversation left with no turn is bounded away like that
    turn. (Under 64 bytes not even an empty archive fits; the config keeps
    ``history.maxBytes`` at 16 KiB or more.)
    """
    return _bounded(archive.conversations, max_conversations, max_bytes)[0]


def _sized(conversations: Iterable[Conversation], encoded: list[str]) -> Iterator[int]:
    """Each conversation's stored size, its JSON appended to ``encoded`` on the way
    (lazily: only as far as the caller reads)."""
    for conversation in conversations:
        encoded.append(_LAST.json_of(conversation))
        yield utf16_bytes(encoded[-1])


def _bounded(
    conversations: tuple[Conversation, ...], max_conversations: int, max_bytes: int
) -> tuple[Archive, list[str]]:
    """``apply_bounds``, with the JSON of each conversation kept (made to size it)."""
    empty_size = utf16_bytes(_archive_json(()))
    remaining = conversations
    while remaining and max_conversations > 0:
        window = remaining[:max_conversations]
        encoded: list[str] = []
        count = _fitting_count(_sized(window, encoded), empty_size, max_bytes)
        if count:
            return Archive(window[:count]), encoded[:count]
        shrunk = _newest_turns_that_fit(remaining[0], max_bytes - empty_size)
        if shrunk is not None:
            return Archive((shrunk,)), [_conversation_json(shrunk)]
        remaining = remaining[1:]
    return Archive(), []


# --- Writes -------------------------------------------------------------------------


def _merged(stored: Conversation | None, mine: Conversation) -> Conversation:
    """This tab's copy, plus the turns only the stored copy has, in time order."""
    known = {turn.key for turn in mine.turns}
    theirs = [turn for turn in stored.turns if turn.key not in known] if stored else []
    if not theirs:
        return mine
    # In time order: a later merge with fewer of them (bounds cut some) then orders the
    # rest the same way, so repeated writes settle instead of reshuffling.
    theirs.sort(key=lambda turn: turn.key)
    return replace(mine, turns=tuple(heapq.merge(mine.turns, theirs, key=lambda t: t.asked_at)))


def upsert(
    raw: str | None, conversation: Conversation, *, max_conversations: int, max_bytes: int
) -> WriteResult:
    """Merge this tab's ``conversation`` into the stored value ``raw``, bound, and return
    what to write. The conversation becomes the most recent; it is stored only once it
    has a turn. One deleted elsewhere simply comes back here with its next turn.

    Writing the same copy again changes nothing, with one exception: when bounds cut
    another tab's turns from a conversation too big to keep whole, this tab's older
    turns come back into the gap once, and the second write is the settled value.

    Raises ``StorageError`` when ``raw`` was written by a newer schema.
    """
    stored = writable_archive(raw)
    merged = _merged(stored.find(conversation.id), conversation)
    others = tuple(c for c in stored.conversations if c.id != conversation.id)
    ordered = ((merged,) if merged.turns else ()) + others
    archive, encoded = _bounded(ordered, max_conversations, max_bytes)
    value = _archive_json(encoded)
    _LAST.wrote(value, archive, encoded)
    return WriteResult(value, archive)


def delete(raw: str | None, conversation_id: str) -> str:
    """The value to write once the conversation with that id is removed.

    Raises ``StorageError`` when ``raw`` was written by a newer schema.
    """
    stored = writable_archive(raw)
    kept = tuple(c for c in stored.conversations if c.id != conversation_id)
    return dump_archive(Archive(kept))


def evict_one_more(raw_value: str) -> str | None:
    """A smaller value to retry with after the browser refused ``raw_value`` as over quota.

    Drops the least recently written conversation; once only the current one is left,
    its oldest turn. None when only the current conversation's newest turn is left.
    """
    conversations = _decode(raw_value).archive.conversations
    if len(conversations) > 1:
        return dump_archive(Archive(conversations[:-1]))
    if conversations and len(conversations[0].turns) > 1:
        current = conversations[0]
        return dump_archive(Archive((replace(current, turns=current.turns[1:]),)))
    return None


def listing(archive: Archive) -> tuple[ListRow, ...]:
    """The history list's rows, newest activity first (ties keep write order)."""
    newest_first = sorted(archive.conversations, key=lambda c: c.last_active, reverse=True)
    return tuple(
        ListRow(c.id, c.title, max((t.asked_at for t in c.turns), default=0)) for c in newest_first
    )


def regressed(mine: Conversation, raw_from_storage_event: str | None) -> bool:
    """Whether another tab's write lost this tab's latest turn (then write again).

    Writes carry all of a tab's turns, so a stale overwrite always loses the newest.
    Older turns dropped by bounds, and a conversation gone altogether (deleted or
    evicted elsewhere, which must win until this tab writes its next turn), are not
    a regression.
    """
    stored = _decode(raw_from_storage_event).archive.find(mine.id)
    if stored is None or not mine.turns:
        return False
    return mine.turns[-1].key not in {turn.key for turn in stored.turns}
