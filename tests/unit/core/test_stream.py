"""Tests for docs_panel.core.stream: the same events and answer however the body is chunked.

Data lives in tests/fixtures/streams/: recorded bodies (``name.sse`` + ``name.expected.json``)
and small rule cases (``sse_cases.json``, ``chat_cases.json``, ``think_cases.json``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from docs_panel.core.stream import (
    ChatDelta,
    ChatStreamDecoder,
    ContentDelta,
    Done,
    Finish,
    ReasoningDelta,
    SSEEvent,
    SSEParser,
    ThinkTagSplitter,
)
from docs_panel.portable.errors import StreamError
from tests import fixture_files

FIXTURES = fixture_files.FIXTURES / "streams"
RECORDED = sorted(FIXTURES.glob("*.sse"))


def _cases(name: str) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return cases


def _expected(recording: Path) -> dict[str, Any]:
    expected: dict[str, Any] = json.loads(
        recording.with_suffix(".expected.json").read_text(encoding="utf-8")
    )
    return expected


def _two_part_splits(raw: bytes) -> Iterator[tuple[int, list[bytes]]]:
    for at in range(len(raw) + 1):
        yield at, [raw[:at], raw[at:]]


def _bytewise(raw: bytes) -> list[bytes]:
    return [raw[i : i + 1] for i in range(len(raw))]


def parse(chunks: Iterable[bytes]) -> tuple[list[SSEEvent], int | None]:
    """All events of a body fed as ``chunks``, and the parser's final ``retry``."""
    parser = SSEParser()
    events = [event for chunk in chunks for event in parser.feed(chunk)]
    events += parser.close()
    return events, parser.retry


def runs(deltas: Iterable[ChatDelta]) -> list[list[str]]:
    """Deltas as JSON-like runs, adjacent text of one kind joined: chunking cannot show."""
    result: list[list[str]] = []
    for delta in deltas:
        match delta:
            case ContentDelta(text):
                run = ["content", text]
            case ReasoningDelta(text):
                run = ["reasoning", text]
            case Finish(reason):
                run = ["finish", reason]
            case Done():
                run = ["done"]
        if result and run[0] in ("content", "reasoning") and result[-1][0] == run[0]:
            result[-1][1] += run[1]
        else:
            result.append(run)
    return result


def decode(chunks: Iterable[bytes]) -> dict[str, Any]:
    """``{"decoded": runs}`` for a body fed as ``chunks``, or ``{"error": message}``."""
    decoder = ChatStreamDecoder()
    deltas: list[ChatDelta] = []
    try:
        for chunk in chunks:
            deltas += decoder.feed(chunk)
        deltas += decoder.close()
    except StreamError as err:
        return {"error": str(err)}
    return {"decoded": runs(deltas)}


def _matches(outcome: dict[str, Any], case: dict[str, Any]) -> bool:
    if "error" in case:
        return case["error"] in outcome.get("error", "")
    return outcome == {"decoded": case["decoded"]}


# --- recorded streams ---------------------------------------------------------------------


def test_every_recording_has_an_expected_result() -> None:
    """Each name.sse has a name.expected.json and no expected file lacks its recording."""
    recordings = {path.name.removesuffix(".sse") for path in RECORDED}
    expectations = {
        path.name.removesuffix(".expected.json") for path in FIXTURES.glob("*.expected.json")
    }
    assert recordings == expectations
    assert len(recordings) >= 10


@pytest.mark.parametrize("recording", RECORDED, ids=lambda path: path.stem)
def test_recording_decodes_to_expected_result(recording: Path) -> None:
    """A recorded body fed whole gives the expected event count and answer or error."""
    raw, expected = recording.read_bytes(), _expected(recording)
    events, _ = parse([raw])
    assert len(events) == expected["events"]
    outcome = decode([raw])
    assert _matches(outcome, expected), outcome


@pytest.mark.parametrize("recording", RECORDED, ids=lambda path: path.stem)
def test_recording_split_in_two_at_every_offset(recording: Path) -> None:
    """Cutting a recorded body in two at any byte changes neither events nor answer."""
    raw = recording.read_bytes()
    events, outcome = parse([raw]), decode([raw])
    for at, parts in _two_part_splits(raw):
        assert parse(parts) == events, f"events differ when split at byte {at}"
        assert decode(parts) == outcome, f"answer differs when split at byte {at}"


@pytest.mark.parametrize("recording", RECORDED, ids=lambda path: path.stem)
def test_recording_fed_one_byte_at_a_time(recording: Path) -> None:
    """Feeding a recorded body byte by byte gives the same events and answer as whole."""
    raw = recording.read_bytes()
    assert parse(_bytewise(raw)) == parse([raw])
    assert decode(_bytewise(raw)) == decode([raw])


# --- SSE parsing rules ----------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("sse_cases.json"), ids=lambda case: case["name"])
def test_sse_case_under_every_chunking(case: dict[str, Any]) -> None:
    """An SSE rule case gives its events (and retry) fed whole, split anywhere, or bytewise."""
    raw = case["input"].encode("utf-8")
    expected = ([SSEEvent(**event) for event in case["events"]], case.get("retry"))
    assert parse([raw]) == expected
    assert parse(_bytewise(raw)) == expected
    for at, parts in _two_part_splits(raw):
        assert parse(parts) == expected, f"split at byte {at}"


def test_invalid_utf8_becomes_replacement_character() -> None:
    """Bytes that are not UTF-8 decode to U+FFFD instead of failing the stream."""
    events, _ = parse([b"data: a\xffb\xc3(\n\n"])
    assert events == [SSEEvent("a\ufffdb\ufffd(")]


def test_utf8_cut_off_at_end_of_stream_becomes_replacement_character() -> None:
    """A multi-byte character cut off by the end of the stream becomes U+FFFD at close."""
    parser = SSEParser()
    assert parser.feed(b"data: a\xf0\x9f\x91") == []
    assert parser.close() == [SSEEvent("a\ufffd")]


def test_utf8_character_completed_by_next_chunk_is_not_replaced() -> None:
    """The first bytes of a character wait for the rest instead of becoming U+FFFD."""
    parser = SSEParser()
    assert parser.feed(b"data: \xe6\x96") == []
    assert parser.feed(b"\x87\xe6\xa1\xa3\n\n") == [SSEEvent("文档")]


def test_cr_at_chunk_end_dispatches_before_the_lf_arrives() -> None:
    """A CR ends the line at once; the LF that completes the CRLF adds no blank line."""
    parser = SSEParser()
    assert parser.feed(b"data: a\r\n\r") == [SSEEvent("a")]
    assert parser.feed(b"\ndata: b\r") == []
    assert parser.feed(b"\n") == []
    assert parser.close() == [SSEEvent("b")]


# --- Chat Completions decoding --------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("chat_cases.json"), ids=lambda case: case["name"])
def test_chat_case_under_every_chunking(case: dict[str, Any]) -> None:
    """A protocol case gives its answer or error fed whole, split anywhere, or bytewise."""
    raw = case["body"].encode("utf-8")
    outcome = decode([raw])
    assert _matches(outcome, case), outcome
    assert decode(_bytewise(raw)) == outcome
    for at, parts in _two_part_splits(raw):
        assert decode(parts) == outcome, f"split at byte {at}"


def test_feed_joins_adjacent_text_of_one_kind() -> None:
    """One chunk carrying many events yields one delta per run of same-kind text."""
    events = ["a", "b", "<think>r", "s</think>", "c"]
    body = "".join(
        f'data: {{"choices":[{{"delta":{{"content":{json.dumps(text)}}}}}]}}\n\n' for text in events
    )
    deltas = ChatStreamDecoder().feed(body.encode())
    assert deltas == [ContentDelta("ab"), ReasoningDelta("rs"), ContentDelta("c")]


def test_finished_only_after_done() -> None:
    """``finished`` turns true at [DONE]; later feeds and close yield nothing."""
    decoder = ChatStreamDecoder()
    assert decoder.feed(b'data: {"choices":[{"delta":{"content":"a"}}]}\n\n') == [ContentDelta("a")]
    assert not decoder.finished
    assert decoder.feed(b"data: [DONE]\n\n") == [Done()]
    assert decoder.finished
    assert decoder.feed(b'data: {"choices":[{"delta":{"content":"b"}}]}\n\n') == []
    assert decoder.close() == []


def test_error_mid_stream_keeps_what_was_already_decoded() -> None:
    """Deltas returned before an error stand; the error surfaces on the chunk that holds it."""
    decoder = ChatStreamDecoder()
    first = decoder.feed(b'data: {"choices":[{"delta":{"content":"partial"}}]}\n\n')
    with pytest.raises(StreamError, match="Out of memory"):
        decoder.feed(b'data: {"error":{"message":"Out of memory","code":500}}\n\n')
    assert first == [ContentDelta("partial")]


# --- think tags -----------------------------------------------------------------------------


def split_think(pieces: Iterable[str]) -> list[list[str]]:
    """Runs of a content text fed to a ThinkTagSplitter as ``pieces``."""
    splitter = ThinkTagSplitter()
    deltas: list[ChatDelta] = [delta for piece in pieces for delta in splitter.feed(piece)]
    deltas.extend(splitter.close())
    return runs(deltas)


@pytest.mark.parametrize("case", _cases("think_cases.json"), ids=lambda case: case["name"])
def test_think_tags_split_at_every_pair_of_offsets(case: dict[str, Any]) -> None:
    """Think-tag splitting is the same whole, per character, and cut at any two offsets."""
    text, expected = case["text"], case["runs"]
    assert split_think([text]) == expected
    assert split_think(list(text)) == expected
    for first in range(len(text) + 1):
        for second in range(first, len(text) + 1):
            pieces = [text[:first], text[first:second], text[second:]]
            assert split_think(pieces) == expected, f"cut at {first} and {second}"
