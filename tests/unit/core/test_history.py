"""Tests for docs_panel.core.history: the stored format, schema migration, bounds and merging.

Stored-value cases live in tests/fixtures/history/: ``stored_values.txt`` (markdown-it-py's
fixture format: title, the raw stored value, what loads from it), ``v1_archive.json`` with
its expected current (schema 3) form ``v1_as_v3.json``, and ``utf16_sizes.json``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from docs_panel.core import history
from docs_panel.core.history import (
    ListRow,
    LoadResult,
    apply_bounds,
    delete,
    dump_archive,
    evict_one_more,
    listing,
    load_archive,
    regressed,
    upsert,
)
from docs_panel.core.history_schema import (
    SCHEMA_VERSION,
    Archive,
    Conversation,
    Gate,
    ResultItem,
    Source,
    Turn,
    utf16_bytes,
)
from docs_panel.portable.caps import QUOTE_CHARS
from docs_panel.portable.errors import StorageError
from tests import fixture_files
from tests.fixture_files import fixture_cases

FIXTURES = fixture_files.FIXTURES / "history"
STORED_VALUES = fixture_cases(FIXTURES / "stored_values.txt")
UTF16_SIZES = json.loads((FIXTURES / "utf16_sizes.json").read_text(encoding="utf-8"))
ROOMY = {"max_conversations": 20, "max_bytes": 1_048_576}


def turn(asked_at: int, question: str | None = None, **fields: Any) -> Turn:
    """A done turn asked at ``asked_at`` that finished a second later."""
    return Turn(
        question=question or f"question {asked_at}",
        answer=f"answer {asked_at}",
        status="done",
        asked_at=asked_at,
        finished_at=asked_at + 1000,
        **fields,
    )


def chat(conversation_id: str, *turns: Turn) -> Conversation:
    return Conversation(id=conversation_id, turns=turns, index_version="idx-1")


def stored(*conversations: Conversation) -> str:
    return dump_archive(Archive(conversations))


def ids(archive: Archive) -> list[str]:
    return [c.id for c in archive.conversations]


def keys(conversation: Conversation) -> list[tuple[int, str]]:
    return [t.key for t in conversation.turns]


# --- Format ---------------------------------------------------------------------------


def test_dump_is_compact_deterministic_json() -> None:
    """Every field is written, in a fixed order, without spaces or ASCII escapes."""
    full = Turn(
        question="Où?",
        answer="Ici [1].",
        status="results",
        asked_at=10,
        finished_at=20,
        quote="passage",
        sources=(Source("/a.html#x", "A", ref=1),),
        vote="down",
        vote_id="v1",
        reasons=("wrong",),
        sentence="Too old",
        scope="api",
        gate=Gate(top_score=0.125, threshold=0.25),
        results=(ResultItem("/b.html", "B", "snip"),),
        citations="k1.e30.c2ln",
    )
    assert stored(Conversation("c1", (full,), "idx-9")) == (
        '{"version":3,"conversations":[{"id":"c1","index_version":"idx-9","turns":['
        '{"question":"Où?","quote":"passage","answer":"Ici [1].",'
        '"sources":[{"address":"/a.html#x","title":"A","ref":1}],"vote":"down","vote_id":"v1",'
        '"reasons":["wrong"],"sentence":"Too old","scope":"api",'
        '"gate":{"top_score":0.125,"threshold":0.25},"asked_at":10,"finished_at":20,'
        '"status":"results","results":[{"address":"/b.html","title":"B","snippet":"snip"}],'
        '"citations":"k1.e30.c2ln"}'
        "]}]}"
    )


def test_own_dump_loads_unchanged() -> None:
    """What this version writes loads back equal, with nothing to rewrite or skip."""
    archive = Archive((chat("b", turn(3), turn(4, vote="up")), chat("a", turn(1))))
    assert load_archive(dump_archive(archive)) == LoadResult(archive, False, 0)


@pytest.mark.parametrize("raw", [None, ""])
def test_nothing_stored_loads_empty(raw: str | None) -> None:
    """A missing key or an empty value is an empty archive, nothing skipped or to rewrite."""
    assert load_archive(raw) == LoadResult(Archive(), needs_rewrite=False, skipped=0)


@pytest.mark.parametrize(
    ("line", "title", "raw", "expected"), STORED_VALUES, ids=[case[1] for case in STORED_VALUES]
)
def test_stored_value(line: int, title: str, raw: str, expected: str) -> None:
    """A stored value loads to exactly its valid entries, never raising."""
    result = load_archive(raw.removesuffix("\n"))
    want = json.loads(expected)
    kept = [(c.id, [t.question for t in c.turns]) for c in result.archive.conversations]
    assert kept == list(want["kept"].items())
    assert result.skipped == want["skipped"]
    assert result.needs_rewrite is want["needs_rewrite"]


@pytest.mark.parametrize(
    "raw",
    ["[" * 100_000, '{"a":' * 100_000, "1" * 5000, '{"version":' + "9" * 5000 + "}"],
    ids=["deep list", "deep object", "5000-digit number", "5000-digit version"],
)
def test_values_beyond_python_limits_load_as_garbage(raw: str) -> None:
    """Nesting past the recursion limit and numbers past the digit limit do not raise."""
    assert load_archive(raw) == LoadResult(Archive(), needs_rewrite=True, skipped=1)


def test_a_5000_digit_time_skips_only_its_turn() -> None:
    """A number Python would refuse to parse costs its own turn, not the archive."""
    good = '{"question":"kept","status":"done","asked_at":1}'
    bad = '{"question":"huge","status":"done","asked_at":' + "9" * 5000 + "}"
    raw = '{"version":2,"conversations":[{"id":"a","turns":[' + good + "," + bad + "]}]}"
    result = load_archive(raw)
    assert [t.question for t in result.archive.conversations[0].turns] == ["kept"]
    assert result.skipped == 1


def test_v1_archive_migrates_to_current() -> None:
    """A schema 1 archive loads with defaults for new fields and asks to be rewritten."""
    result = load_archive((FIXTURES / "v1_archive.json").read_text(encoding="utf-8"))
    expected = json.loads((FIXTURES / "v1_as_v3.json").read_text(encoding="utf-8"))
    assert (result.needs_rewrite, result.skipped) == (True, 0)
    assert json.loads(dump_archive(result.archive)) == expected
    assert expected["version"] == SCHEMA_VERSION
    rewritten = load_archive(dump_archive(result.archive))
    assert (rewritten.archive, rewritten.needs_rewrite) == (result.archive, False)


def test_v2_turn_migrates_to_v3_without_citations() -> None:
    """A schema 2 archive (before server installs) loads as is, with no signed citation
    list, and asks to be rewritten in schema 3."""
    record = '{"question":"q","answer":"a [1]","status":"done","asked_at":5,"finished_at":6}'
    result = load_archive('{"version":2,"conversations":[{"id":"a","turns":[' + record + "]}]}")
    (turn,) = result.archive.conversations[0].turns
    assert (turn.answer, turn.citations, result.needs_rewrite) == ("a [1]", "", True)
    assert json.loads(dump_archive(result.archive))["version"] == SCHEMA_VERSION == 3


def test_missing_optional_fields_take_defaults() -> None:
    """A turn with only question, status and asked_at gets the documented defaults."""
    record = '{"question":"q","status":"done","asked_at":5}'
    raw = '{"version":2,"conversations":[{"id":"a","turns":[' + record + "]}]}"
    expected = Turn(question="q", answer="", status="done", asked_at=5, finished_at=5)
    assert load_archive(raw).archive == Archive((Conversation("a", (expected,), ""),))
    assert expected.quote == "" and expected.sources == () and expected.results == ()
    assert (expected.vote, expected.scope, expected.gate) == (None, None, None)


def test_lone_surrogate_is_written_escaped() -> None:
    """A lone surrogate in a question is stored as a JSON escape, so the value is valid Unicode."""
    value = stored(chat("a", turn(1, question="half an emoji: \ud83d")))
    assert "\\ud83d" in value
    value.encode("utf-8")  # raises on a raw lone surrogate
    assert load_archive(value).archive.conversations[0].turns[0].question == "half an emoji: \ud83d"


# --- Values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("quote", "kept"),
    [("x" * 600, "x" * 500), ("x" * 500, "x" * 500), ("😀" * 501, "😀" * 500), ("", "")],
    ids=["over the limit", "at the limit", "emoji count as characters", "no quote"],
)
def test_quote_is_truncated_on_input(quote: str, kept: str) -> None:
    """A turn keeps at most QUOTE_CHARS characters of the quoted passage."""
    assert QUOTE_CHARS == 500
    assert turn(1, quote=quote).quote == kept


def test_long_stored_quote_is_truncated_on_load() -> None:
    """A stored quote over the limit loads truncated and the value asks to be rewritten."""
    record = {"question": "q", "status": "done", "asked_at": 1, "quote": "y" * 700}
    raw = json.dumps({"version": 2, "conversations": [{"id": "a", "turns": [record]}]})
    result = load_archive(raw)
    assert result.archive.conversations[0].turns[0].quote == "y" * 500
    assert result.needs_rewrite


def test_title_is_the_first_question_on_one_line() -> None:
    """The title joins the first question's lines and runs of spaces."""
    conversation = chat("a", turn(1, question="  How do I\n\tretry   a job?\n"), turn(2))
    assert conversation.title == "How do I retry a job?"
    assert chat("empty").title == ""


def test_last_active_is_the_latest_turn_time() -> None:
    """last_active is the latest asked_at or finished_at of any turn."""
    late_finish = Turn(question="q", answer="", status="stopped", asked_at=50, finished_at=900)
    assert chat("a", turn(100), late_finish).last_active == 1100
    assert chat("a", late_finish).last_active == 900
    assert chat("empty").last_active == 0


# --- Size -----------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "size", "why"), UTF16_SIZES, ids=[c[2] for c in UTF16_SIZES])
def test_utf16_bytes(text: str, size: int, why: str) -> None:
    """Sizes are UTF-16 code units x 2, as Web Storage counts them."""
    assert utf16_bytes(text) == size


def test_ceiling_counts_utf16_exactly() -> None:
    """An archive exactly at max_bytes is kept; one byte less is not (emoji 4 bytes, € 2)."""
    archive = Archive((chat("a", turn(1, question="😀€" * 500)),))
    size = utf16_bytes(dump_archive(archive))
    assert size == 2 * len(dump_archive(archive)) + 2 * 500  # each emoji is 2 code units
    assert apply_bounds(archive, max_conversations=1, max_bytes=size) == archive
    assert apply_bounds(archive, max_conversations=1, max_bytes=size - 1) != archive


# --- Bounds ---------------------------------------------------------------------------


def test_count_bound_evicts_least_recently_written() -> None:
    """Over max_conversations, the conversations at the end (least recent) go."""
    archive = Archive((chat("c", turn(1)), chat("b", turn(3)), chat("a", turn(2))))
    assert ids(apply_bounds(archive, max_conversations=2, max_bytes=10**6)) == ["c", "b"]


def test_byte_bound_evicts_from_the_end_without_skipping() -> None:
    """Over max_bytes, eviction takes from the end and never keeps a later one over an earlier."""
    small, big = "s" * 100, "B" * 2000
    archive = Archive(
        (chat("new", turn(1, small)), chat("big", turn(2, big)), chat("old", turn(3, small)))
    )
    without_big = utf16_bytes(stored(archive.conversations[0], archive.conversations[2]))
    assert ids(apply_bounds(archive, max_conversations=3, max_bytes=without_big)) == ["new"]


def test_no_time_based_expiry() -> None:
    """Conversations from 1970 are kept as long as the bounds allow."""
    archive = Archive((chat("ancient", turn(0)),))
    assert apply_bounds(archive, max_conversations=1, max_bytes=10**6) == archive


def test_conversation_alone_over_the_ceiling_loses_its_oldest_turns() -> None:
    """When the most recent conversation alone is too big, its oldest turns go, others too."""
    turns = [turn(i, "q" * 200) for i in range(5)]
    mine = chat("mine", *turns)
    ceiling = utf16_bytes(stored(chat("mine", *turns[2:])))
    written = upsert(stored(chat("other", turn(99))), mine, max_conversations=5, max_bytes=ceiling)
    assert written.archive == Archive((chat("mine", *turns[2:]),))
    assert utf16_bytes(written.value) <= ceiling


def test_a_turn_alone_over_the_ceiling_is_never_stored() -> None:
    """A turn too big for the ceiling is left out; its conversation's other turns stay."""
    huge = turn(3, "h" * 20_000)
    written = upsert(None, chat("mine", turn(1), huge), max_conversations=5, max_bytes=16_384)
    assert written.archive == Archive((chat("mine", turn(1)),))


def test_a_conversation_with_no_storable_turn_loses_only_itself() -> None:
    """When no turn of the written conversation fits, the rest of the archive stays."""
    others = stored(chat("b", turn(1)), chat("a", turn(2)))
    huge = chat("huge", turn(3, "h" * 20_000))
    written = upsert(others, huge, max_conversations=5, max_bytes=16_384)
    assert ids(written.archive) == ["b", "a"]


# --- Writes ---------------------------------------------------------------------------


def test_upsert_inserts_first_and_replaces_by_id() -> None:
    """A written conversation goes first; writing it again replaces its stored copy."""
    raw = stored(chat("a", turn(1)))
    first = upsert(raw, chat("b", turn(2)), **ROOMY)
    assert ids(first.archive) == ["b", "a"]
    voted = chat("a", turn(1, vote="up"))
    second = upsert(first.value, voted, **ROOMY)
    assert second.archive == Archive((voted, chat("b", turn(2))))
    assert load_archive(second.value).archive == second.archive


def test_writing_an_old_conversation_protects_it_from_eviction() -> None:
    """A vote in the least recent conversation makes it the most recent for the bounds."""
    raw = stored(chat("c", turn(3)), chat("b", turn(2)), chat("a", turn(1)))
    voted = chat("a", turn(1, vote="down"))
    written = upsert(raw, voted, max_conversations=3, max_bytes=10**6)
    assert ids(written.archive) == ["a", "c", "b"]
    assert ids(
        upsert(written.value, chat("d", turn(4)), max_conversations=3, max_bytes=10**6).archive
    ) == ["d", "a", "c"]


def test_upsert_without_an_answer_stores_nothing() -> None:
    """A conversation with no turn yet is not stored."""
    written = upsert(stored(chat("a", turn(1))), chat("fresh"), **ROOMY)
    assert ids(written.archive) == ["a"]
    assert upsert(None, chat("fresh"), **ROOMY).archive == Archive()


def test_a_write_on_the_last_written_value_parses_nothing_and_encodes_one_conversation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The next write on the value this worker just wrote re-encodes only the changed one."""
    first = upsert(stored(chat("b", turn(2)), chat("c", turn(3))), chat("a", turn(1)), **ROOMY)
    parsed: list[object] = []
    encoded: list[str] = []
    real_parse, real_json = history.parse_archive, history.conversation_json
    monkeypatch.setattr(history, "parse_archive", lambda raw: parsed.append(raw) or real_parse(raw))
    monkeypatch.setattr(
        history, "conversation_json", lambda c: encoded.append(c.id) or real_json(c)
    )
    second = upsert(first.value, chat("a", turn(1), turn(4)), **ROOMY)
    assert (parsed, encoded) == ([], ["a"])
    assert second.value == stored(
        chat("a", turn(1), turn(4)), chat("b", turn(2)), chat("c", turn(3))
    )


def test_another_tabs_write_of_the_same_length_is_read_afresh() -> None:
    """A stored value that differs from the last written one by a character is parsed again."""
    first = upsert(stored(chat("b", turn(2, "before"))), chat("a", turn(1)), **ROOMY)
    theirs = first.value.replace('"before"', '"behind"')
    assert len(theirs) == len(first.value)
    written = upsert(theirs, chat("a", turn(1), turn(4)), **ROOMY)
    assert written.archive.conversations[1] == chat("b", turn(2, "behind"))
    garbage = "x" * len(written.value)
    assert upsert(garbage, chat("a", turn(5)), **ROOMY).archive == Archive((chat("a", turn(5)),))


@pytest.mark.parametrize("raw", ["not json", '{"version":0}', "[]"])
def test_upsert_overwrites_garbage(raw: str) -> None:
    """An unreadable stored value is replaced by a fresh archive."""
    mine = chat("a", turn(1))
    assert upsert(raw, mine, **ROOMY).archive == Archive((mine,))


def test_writes_refuse_to_overwrite_a_newer_schema() -> None:
    """A value from a newer version is never overwritten; the error says how to fix it."""
    newer = '{"version":4,"conversations":[]}'
    with pytest.raises(StorageError, match="Reload the page"):
        upsert(newer, chat("a", turn(1)), **ROOMY)
    with pytest.raises(StorageError, match="Delete all"):
        delete(newer, "a")


def test_same_conversation_in_two_tabs_keeps_both_tabs_turns() -> None:
    """Two tabs in one conversation each keep the other's turns, merged by time."""
    shared = (turn(1),)
    tab_a = chat("x", *shared, turn(10, "from a"))
    tab_b = chat("x", *shared, turn(5, "from b"))
    raw = upsert(None, tab_a, **ROOMY).value
    written = upsert(raw, tab_b, **ROOMY)
    questions = [t.question for t in written.archive.conversations[0].turns]
    assert questions == ["question 1", "from b", "from a"]
    assert not regressed(tab_a, written.value)


def test_tab_copy_wins_for_turns_it_has() -> None:
    """For a turn both copies hold, the writing tab's version (its vote) is stored."""
    raw = stored(chat("x", turn(1, vote="up"), turn(2)))
    written = upsert(raw, chat("x", turn(1, vote="down")), **ROOMY)
    assert [t.vote for t in written.archive.conversations[0].turns] == ["down", None]


def test_merge_with_out_of_order_stored_turns_settles() -> None:
    """A stored copy whose turns are out of time order merges the same way on every write."""
    mine = chat("x", turn(1, "a"), turn(2, "a"))
    raw = stored(chat("x", turn(3, "a"), turn(1, "b"), turn(0, "a")))
    bounds = {"max_conversations": 1, "max_bytes": utf16_bytes(stored(mine))}  # two turns
    once = upsert(raw, mine, **bounds)
    assert keys(once.archive.conversations[0]) == [(2, "a"), (3, "a")]
    assert upsert(once.value, mine, **bounds) == once


def test_deleted_elsewhere_comes_back_with_the_next_turn() -> None:
    """After another tab deletes a conversation, its own tab's next write restores it whole."""
    mine = chat("a", turn(1))
    raw = delete(stored(mine, chat("b", turn(2))), "a")
    assert not regressed(mine, raw)
    grown = chat("a", turn(1), turn(3))
    assert upsert(raw, grown, **ROOMY).archive == Archive((grown, chat("b", turn(2))))


def test_delete_removes_only_that_conversation() -> None:
    """delete drops the conversation with that id; an unknown id changes nothing."""
    raw = stored(chat("a", turn(1)), chat("b", turn(2)))
    assert ids(load_archive(delete(raw, "a")).archive) == ["b"]
    assert delete(raw, "zzz") == raw
    assert load_archive(delete(None, "a")).archive == Archive()


def test_evict_one_more_shrinks_until_only_the_newest_turn_is_left() -> None:
    """Quota retries drop the least recent conversations, then the current one's oldest turns."""
    value: str | None = stored(
        chat("cur", turn(5), turn(6)), chat("b", turn(2)), chat("a", turn(1))
    )
    steps = []
    while value is not None:
        steps.append([(c.id, len(c.turns)) for c in load_archive(value).archive.conversations])
        value = evict_one_more(value)
    assert steps == [
        [("cur", 2), ("b", 1), ("a", 1)],
        [("cur", 2), ("b", 1)],
        [("cur", 2)],
        [("cur", 1)],
    ]


def test_evict_one_more_on_garbage_gives_up() -> None:
    """A value with nothing readable in it has nothing to evict."""
    assert evict_one_more("garbage") is None


def test_listing_is_newest_activity_first() -> None:
    """Rows are ordered by turn times (ties keep write order), titled by the first question."""
    archive = Archive(
        (
            chat("voted-old", turn(1, "old\nquestion")),
            chat("new", turn(50), turn(70)),
            chat("tie-2", turn(20)),
            chat("tie-1", turn(20)),
        )
    )
    assert listing(archive) == (
        ListRow("new", "question 50", 70),
        ListRow("tie-2", "question 20", 20),
        ListRow("tie-1", "question 20", 20),
        ListRow("voted-old", "old question", 1),
    )


# --- Regression after another tab's write -------------------------------------------------


def test_stale_overwrite_is_a_regression() -> None:
    """Another tab writing from a value read before this tab's last write loses its turn."""
    before = stored(chat("mine", turn(1)), chat("other", turn(2)))
    mine = chat("mine", turn(1), turn(3))
    upsert(before, mine, **ROOMY)  # this tab's write, then the other tab's stale one:
    stale = upsert(before, chat("other", turn(2), turn(4)), **ROOMY).value
    assert regressed(mine, stale)
    assert not regressed(mine, upsert(stale, mine, **ROOMY).value)


@pytest.mark.parametrize(
    "raw",
    [None, "garbage", stored(chat("other", turn(2)))],
    ids=["deleted all", "garbage", "deleted or evicted"],
)
def test_conversation_gone_elsewhere_is_not_a_regression(raw: str | None) -> None:
    """A conversation deleted or evicted elsewhere stays gone until its next turn."""
    assert not regressed(chat("mine", turn(1)), raw)


def test_oldest_turns_dropped_by_bounds_are_not_a_regression() -> None:
    """Bounds that drop this conversation's oldest turns do not trigger a rewrite."""
    mine = chat("mine", turn(1), turn(2), turn(3))
    assert not regressed(mine, stored(chat("mine", turn(3))))


def test_a_conversation_without_turns_never_regresses() -> None:
    """Nothing written, nothing lost."""
    assert not regressed(chat("mine"), stored(chat("mine", turn(1))))
