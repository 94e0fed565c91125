"""The conversation archive in ``docs-panel.history``: merge and bounds.

Storage I/O lives in the shell, and what a stored value means lives in
``history_schema``; this module only decides what to write next.

Every write is "re-read, merge, write" under a cross-tab lock: the shell reads
the stored string, ``upsert`` merges this tab's conversation into it and returns
the string to write, so two tabs never overwrite each other's turns::

    >>> from docs_panel.core.history_schema import Conversation, Turn
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
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Final

from docs_panel.core.history_schema import (
    Archive,
    Conversation,
    Decoded,
    archive_json,
    compact_json,
    conversation_json,
    conversation_record,
    parse_archive,
    turn_record,
    utf16_bytes,
)
from docs_panel.portable.errors import StorageError


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


def dump_archive(archive: Archive) -> str:
    """The archive as the compact, deterministic JSON string to store.

    >>> dump_archive(Archive())
    '{"version":3,"conversations":[]}'
    """
    return archive_json(_LAST.json_of(c) for c in archive.conversations)


def _decode(raw: str | None) -> Decoded:
    return _LAST.decoded(raw)


class _Last:
    """The stored value last read or written here, decoded, and the JSON of each
    conversation last written. A tab's next write mostly finds that very value (no
    other tab wrote in between): it then parses nothing and encodes only the
    conversation it changes. The value is recognized by comparing whole strings, so
    another tab's write, even one of the same length, is always read afresh."""

    def __init__(self) -> None:
        self.raw: str | None = None
        self.decoded_raw = parse_archive(None)
        self.encoded: dict[str, tuple[Conversation, str]] = {}  # by id: that very object's JSON

    def decoded(self, raw: str | None) -> Decoded:
        if raw != self.raw:
            self.raw, self.decoded_raw = raw, parse_archive(raw)
        return self.decoded_raw

    def json_of(self, conversation: Conversation) -> str:
        known = self.encoded.get(conversation.id)
        if known is not None and known[0] is conversation:
            return known[1]
        return conversation_json(conversation)

    def wrote(self, raw: str, archive: Archive, encoded: list[str]) -> None:
        """``raw`` holds ``archive``, whose conversations' JSON is ``encoded``: what
        reading ``raw`` would give (dump and load round-trip)."""
        self.raw, self.decoded_raw = raw, Decoded(archive, skipped=0, newer=False)
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
    empty_size = utf16_bytes(archive_json(()))
    remaining = conversations
    while remaining and max_conversations > 0:
        window = remaining[:max_conversations]
        encoded: list[str] = []
        count = _fitting_count(_sized(window, encoded), empty_size, max_bytes)
        if count:
            return Archive(window[:count]), encoded[:count]
        shrunk = _newest_turns_that_fit(remaining[0], max_bytes - empty_size)
        if shrunk is not None:
            return Archive((shrunk,)), [conversation_json(shrunk)]
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
    value = archive_json(encoded)
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
