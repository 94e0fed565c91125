"""Property tests for docs_panel.core.history: bounds, merging, round trips, garbage.

Bounds in these tests are tiny (tens of bytes to a few KiB) so that eviction and
shrinking happen in most examples; the rules do not depend on the scale.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from docs_panel.core import history_schema
from docs_panel.core.history import (
    LoadResult,
    apply_bounds,
    dump_archive,
    load_archive,
    regressed,
    upsert,
)
from docs_panel.core.history_schema import (
    Archive,
    Conversation,
    Gate,
    ResultItem,
    Source,
    Turn,
    utf16_bytes,
)

# Shared machines stall now and then: no per-example deadline; fewer, richer examples.
unhurried = settings(deadline=None, max_examples=60)
EMPTY_ARCHIVE_BYTES = utf16_bytes(dump_archive(Archive()))
ROOMY = {"max_conversations": 20, "max_bytes": 10**7}

texts = st.text(max_size=12)
millis = st.integers(min_value=0, max_value=2**53 - 1)
scores = st.floats(allow_nan=False, allow_infinity=False)
turns = st.builds(
    Turn,
    question=texts,
    answer=st.text(max_size=40),
    status=st.sampled_from(["done", "stopped", "results"]),
    asked_at=millis,
    finished_at=millis,
    quote=texts,
    sources=st.lists(st.builds(Source, texts, texts), max_size=2).map(tuple),
    vote=st.sampled_from([None, "up", "down"]),
    vote_id=st.text(max_size=4),
    reasons=st.lists(texts, max_size=2).map(tuple),
    sentence=texts,
    scope=st.none() | texts,
    gate=st.none() | st.builds(Gate, scores, scores),
    results=st.lists(st.builds(ResultItem, texts, texts, texts), max_size=2).map(tuple),
)
conversation_ids = st.text(min_size=1, max_size=4)
conversations = st.builds(
    Conversation,
    id=conversation_ids,
    turns=st.lists(turns, min_size=1, max_size=4).map(tuple),
    index_version=texts,
)
archives = st.lists(conversations, max_size=5, unique_by=lambda c: c.id).map(
    lambda items: Archive(tuple(items))
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
TURN_KEYS = [
    *("question", "quote", "answer", "sources", "vote", "scope", "gate"),
    *("vote_id", "reasons", "sentence"),
    *("asked_at", "finished_at", "status", "results", "q", "a", "at", "stopped"),
]
near_valid_documents = st.fixed_dictionaries(
    {
        "version": st.sampled_from([1, 2]),
        "conversations": st.lists(
            st.fixed_dictionaries(
                {"id": st.text(max_size=2) | json_values},
                optional={
                    "index_version": texts | json_values,
                    "turns": st.lists(
                        st.dictionaries(st.sampled_from(TURN_KEYS), json_values, max_size=8)
                        | json_values,
                        max_size=4,
                    ),
                },
            )
            | json_values,
            max_size=4,
        ),
    }
)


def keys(conversation: Conversation | None) -> list[tuple[int, str]]:
    return [turn.key for turn in conversation.turns] if conversation else []


def assert_loads_cleanly(raw: str) -> LoadResult:
    """Whatever loads is valid: written back, it loads equal, with nothing skipped; and
    a load that skipped nothing of a stored value kept each of its conversations."""
    result = load_archive(raw)
    if raw and not result.skipped:
        entries = json.loads(raw)["conversations"]
        assert len(result.archive.conversations) == len(entries)
        turns = sum(len(c.turns) for c in result.archive.conversations)
        assert turns == sum(len(entry["turns"]) for entry in entries)
    assert load_archive(dump_archive(result.archive)) == LoadResult(result.archive, False, 0)
    return result


@unhurried
@given(archives)
def test_dump_load_round_trips(archive: Archive) -> None:
    """Any archive loads back from its dump equal, with nothing to rewrite or skip."""
    assert load_archive(dump_archive(archive)) == LoadResult(archive, False, 0)


@unhurried
@given(archives)
def test_the_dump_is_compact_json_of_the_whole_record(archive: Archive) -> None:
    """Joined from each conversation's JSON, the dump is what encoding it whole gives."""
    dumped = dump_archive(archive)
    assert dumped == history_schema.compact_json(json.loads(dumped))


@unhurried
@given(st.text())
def test_load_never_raises_on_text(raw: str) -> None:
    """Arbitrary text loads to a valid (usually empty) archive."""
    assert_loads_cleanly(raw)


@unhurried
@given(json_values)
def test_load_never_raises_on_json(value: Any) -> None:
    """Arbitrary JSON, NaN included, loads to a valid archive."""
    assert_loads_cleanly(json.dumps(value))


@unhurried
@given(near_valid_documents)
def test_load_never_raises_on_near_valid_archives(document: dict[str, Any]) -> None:
    """Archives with arbitrary values in every field load what is valid and skip the rest."""
    result = assert_loads_cleanly(json.dumps(document))
    # Every conversation entry is either kept or counted as skipped.
    kept = len(result.archive.conversations)
    assert kept + result.skipped >= len(document["conversations"])


def test_what_a_load_skips_is_counted() -> None:
    """A broken turn, a conversation left without turns and a repeated id: each is
    counted, so the check above holds only for a load that kept everything."""
    turn = Turn(question="q", answer="a", status="done", asked_at=1, finished_at=2)
    good = json.loads(dump_archive(Archive((Conversation("c1", (turn,), "v1"),))))
    conversation = good["conversations"][0]
    for entries, skipped in (
        ([{**conversation, "turns": [*conversation["turns"], {"question": 7}]}], 1),
        ([{**conversation, "turns": [{"question": 7}]}], 2),  # the turn, then its conversation
        ([conversation, conversation], 1),
    ):
        result = assert_loads_cleanly(json.dumps({**good, "conversations": entries}))
        assert result.skipped == skipped


def fits_alone(conversation: Conversation, turn: Turn, max_bytes: int) -> bool:
    """Whether an archive holding only this turn of the conversation fits ``max_bytes``."""
    alone = Conversation(conversation.id, (turn,), conversation.index_version)
    return utf16_bytes(dump_archive(Archive((alone,)))) <= max_bytes


def storable_turns(conversation: Conversation, max_bytes: int) -> tuple[Turn, ...]:
    """The conversation's turns that could be stored at all under ``max_bytes``."""
    return tuple(turn for turn in conversation.turns if fits_alone(conversation, turn, max_bytes))


def assert_newest_of(kept: Conversation, storable: tuple[Turn, ...]) -> None:
    """``kept`` holds the newest of the storable turns, in order."""
    assert kept.turns == storable[len(storable) - len(kept.turns) :]


@unhurried
@given(
    archives,
    conversations,
    st.integers(min_value=1, max_value=4),
    st.integers(min_value=EMPTY_ARCHIVE_BYTES, max_value=4000),
)
def test_bounds_hold_after_upsert(
    before: Archive, mine: Conversation, max_conversations: int, max_bytes: int
) -> None:
    """After any upsert both bounds hold, the others keep their order, and each kept
    conversation has its newest turns that fit (the turn being written among them,
    unless it alone exceeds the ceiling)."""
    assume(before.find(mine.id) is None)
    written = upsert(
        dump_archive(before), mine, max_conversations=max_conversations, max_bytes=max_bytes
    )
    stored = written.archive.conversations
    assert written.value == dump_archive(written.archive)
    assert len(stored) <= max_conversations
    assert utf16_bytes(written.value) <= max_bytes
    storable = storable_turns(mine, max_bytes)
    if storable:
        kept = stored[0]
        assert kept.id == mine.id
        assert_newest_of(kept, storable)
        assert (mine.turns[-1] in kept.turns) is (mine.turns[-1] in storable)
        others = stored[1:]
    else:
        others = stored
    # Others keep their order (any left out, never reordered); one too big for the
    # ceiling keeps its newest turns that fit.
    originals = iter(before.conversations)
    for kept_other in others:
        original = next(c for c in originals if c.id == kept_other.id)
        assert_newest_of(kept_other, storable_turns(original, max_bytes))


@unhurried
@given(archives, conversations, st.integers(min_value=EMPTY_ARCHIVE_BYTES, max_value=4000))
def test_a_written_value_parses_afresh_as_the_archive_it_holds(
    before: Archive, mine: Conversation, max_bytes: int
) -> None:
    """What upsert writes, parsed afresh, is the archive it returns (what the worker
    remembers the value holds, so the next write need not parse it)."""
    written = upsert(dump_archive(before), mine, max_conversations=4, max_bytes=max_bytes)
    assert history_schema.parse_archive(written.value) == history_schema.Decoded(
        written.archive, 0, newer=False
    )


@unhurried
@given(archives.filter(lambda archive: bool(archive.conversations)))
def test_the_ceiling_is_exact(archive: Archive) -> None:
    """An archive exactly at max_bytes is kept whole; one byte less drops something."""
    size, count = utf16_bytes(dump_archive(archive)), len(archive.conversations)
    assert apply_bounds(archive, max_conversations=count, max_bytes=size) == archive
    assert apply_bounds(archive, max_conversations=count, max_bytes=size - 1) != archive


@unhurried
@given(
    archives,
    conversations,
    st.booleans(),
    st.integers(min_value=1, max_value=4),
    st.integers(min_value=EMPTY_ARCHIVE_BYTES, max_value=4000),
)
def test_upsert_is_idempotent(
    before: Archive, mine: Conversation, reuse_id: bool, max_conversations: int, max_bytes: int
) -> None:
    """Writing the same conversation again changes nothing, even merged with a stored copy
    of it; only when bounds cut another tab's turns from it does one more write settle it."""
    if reuse_id and before.conversations:
        mine = Conversation(before.conversations[-1].id, mine.turns, mine.index_version)
    bounds = {"max_conversations": max_conversations, "max_bytes": max_bytes}
    once = upsert(dump_archive(before), mine, **bounds)
    twice = upsert(once.value, mine, **bounds)
    assert upsert(twice.value, mine, **bounds) == twice
    theirs = set(keys(before.find(mine.id))) - set(keys(mine))
    if theirs <= set(keys(once.archive.find(mine.id))):
        assert twice == once


def grow(tab: Conversation, writer: str, asked_at: int) -> Conversation:
    """The tab's conversation with one more turn of its own."""
    new = Turn(question=writer, answer="", status="done", asked_at=asked_at, finished_at=asked_at)
    return Conversation(tab.id, (*tab.turns, new), tab.index_version)


@unhurried
@given(archives, st.permutations("aaaabbb"), st.booleans())
def test_interleaved_writers_lose_no_turn(
    before: Archive, order: list[str], same_conversation: bool
) -> None:
    """Two tabs upserting in any order keep every turn of both, in one conversation or two."""
    names = {"a": "tab-a", "b": "tab-a" if same_conversation else "tab-b"}
    assume(all(before.find(name) is None for name in names.values()))
    tabs = {writer: Conversation(name, (), "idx") for writer, name in names.items()}
    raw = dump_archive(before)
    for asked_at, writer in enumerate(order):
        tabs[writer] = grow(tabs[writer], writer, asked_at)
        raw = upsert(raw, tabs[writer], **ROOMY).value
    archive = load_archive(raw).archive
    for tab in tabs.values():
        assert set(keys(tab)) <= set(keys(archive.find(tab.id)))
    if same_conversation:
        assert keys(archive.find("tab-a")) == [(t, w) for t, w in enumerate(order)]


def write(raw: str, tab: Conversation) -> str:
    """One tab's write under roomy bounds."""
    return upsert(raw, tab, **ROOMY).value


def settle(raw: str, tabs: dict[str, Conversation]) -> str:
    """Storage events: each tab whose latest turn is missing writes again, until calm."""
    for _ in range(4):
        behind = [tab for tab in tabs.values() if regressed(tab, raw)]
        if not behind:
            return raw
        for tab in behind:
            raw = write(raw, tab)
    raise AssertionError("the tabs kept rewriting")


@unhurried
@given(st.lists(st.tuples(st.sampled_from("ab"), st.booleans()), max_size=10), st.booleans())
def test_stale_writes_are_repaired_by_regression_checks(
    steps: list[tuple[str, bool]], same_conversation: bool
) -> None:
    """Without a lock a tab may write from a stale read; the tab it wronged writes again
    on the storage event, and in the end no turn of either tab is lost."""
    names = {"a": "tab-a", "b": "tab-a" if same_conversation else "tab-b"}
    tabs = {
        w: grow(Conversation(name, (), "idx"), w, i) for i, (w, name) in enumerate(names.items())
    }
    history = [write(write("", tabs["a"]), tabs["b"])]
    for asked_at, (writer, stale) in enumerate(steps, start=2):
        tabs[writer] = grow(tabs[writer], writer, asked_at)
        base = history[-2] if stale and len(history) > 1 else history[-1]
        history.append(settle(write(base, tabs[writer]), tabs))
    archive = load_archive(history[-1]).archive
    for tab in tabs.values():
        assert set(keys(tab)) <= set(keys(archive.find(tab.id)))
