"""The wire between the panel and a server install: what the worker sends is exactly
what the server reads, and the server's stream decodes back to what it meant."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docs_panel.core.history_schema import Source
from docs_panel.core.server_wire import (
    _FIELDS,
    BODY_LIMIT,
    DONE_EVENT,
    CitationsDelta,
    Exchange,
    ServerQuestion,
    ServerStreamDecoder,
    SourcesDelta,
    citations_event,
    content_event,
    error_event,
    parse_question,
    question_body,
    reasoning_event,
    sources_event,
)
from docs_panel.core.signing import MAX_TOKEN_CHARS
from docs_panel.core.stream import ContentDelta, Done, ReasoningDelta
from docs_panel.portable.caps import (
    HISTORY_ANSWER_CHARS,
    HISTORY_TURNS,
    INSTRUCTION_CHARS,
    PAGE_URL_CHARS,
    QUESTION_CHARS,
    QUOTE_CHARS,
    SHORT_CHARS,
)
from docs_panel.portable.errors import RequestError, StreamError

FULL = ServerQuestion(
    question="how?",
    scope="api",
    quote="a passage",
    instruction="be brief",
    page_url="https://docs.example.org/a.html",
    language="fr",
    history=(Exchange("q1", "a1 [1]", "quoted"), Exchange("q2", "a2")),
    citations="k1.p.s",
)


def test_what_the_worker_sends_is_what_the_server_reads() -> None:
    body = question_body(FULL)
    assert sorted(body) == sorted(_FIELDS)  # one list of fields for both sides
    assert parse_question(json.dumps(body).encode()) == FULL


def test_a_question_at_every_cap_fits_the_body_limit() -> None:
    """The panel's caps are the server's, and the body cap holds every field at its cap
    as the worker's JSON escapes it (an astral character is twelve bytes)."""
    wide = "\U0001f600"
    turn = Exchange(wide * QUESTION_CHARS, wide * HISTORY_ANSWER_CHARS, wide * QUOTE_CHARS)
    asked = ServerQuestion(
        question=wide * QUESTION_CHARS,
        scope="s" * SHORT_CHARS,
        quote=wide * QUOTE_CHARS,
        instruction=wide * INSTRUCTION_CHARS,
        page_url=wide * PAGE_URL_CHARS,
        language="l" * SHORT_CHARS,
        history=(turn,) * HISTORY_TURNS,
        citations="c" * MAX_TOKEN_CHARS,
    )
    body = json.dumps(question_body(asked)).encode()
    assert len(body) <= BODY_LIMIT
    assert parse_question(body) == asked
    for name, cap in [("question", QUESTION_CHARS), ("instruction", INSTRUCTION_CHARS)]:
        with pytest.raises(RequestError, match=f"{name}: longer than {cap}"):
            parse_question(json.dumps({"question": "q", name: "x" * (cap + 1)}).encode())


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"question": "q", "history": [{"question": "q", "answer": "a"}] * 4}, 413),
        ({"question": "q", "history": [{"question": "q", "answer": "a" * 1201}]}, 413),
        ({"question": "q", "history": [{"question": "q"}]}, 400),
        ({"question": "q", "history": ["q"]}, 400),
        ({"question": "q", "citations": None}, 400),
        ({"question": "   "}, 400),
        ({"scope": "api"}, 400),
        ([], 400),
    ],
)
def test_bad_bodies_are_refused_with_their_status(body: object, status: int) -> None:
    with pytest.raises(RequestError) as refused:
        parse_question(json.dumps(body).encode())
    assert refused.value.status == status


def test_the_servers_stream_decodes_split_at_every_byte() -> None:
    wire = (
        sources_event((Source("/a.html#x", "X é", 1),), answering=True)
        + reasoning_event("hm")
        + content_event("Use X [1].")
        + citations_event("k1.p.s")
        + DONE_EVENT
    )
    for at in range(len(wire)):
        decoder = ServerStreamDecoder()
        got = [*decoder.feed(wire[:at]), *decoder.feed(wire[at:]), *decoder.close()]
        texts = "".join(d.text for d in got if isinstance(d, ContentDelta))
        assert got[0] == SourcesDelta((Source("/a.html#x", "X é", 1),), True)
        assert texts == "Use X [1]." and ReasoningDelta("hm") in got
        assert got[-2:] == [CitationsDelta("k1.p.s"), Done()]


@pytest.mark.parametrize(
    "wire",
    [
        error_event("the model could not answer"),
        b'event: sources\ndata: {"sources": [{"address": 1}], "answering": true}\n\n',
        b"event: sources\ndata: [1]\n\n",
        b'event: citations\ndata: {"token": 7}\n\n',
    ],
)
def test_an_error_or_a_malformed_event_fails_the_stream(wire: bytes) -> None:
    with pytest.raises(StreamError):
        ServerStreamDecoder().feed(wire)


@given(st.text(), st.sampled_from(["content", "reasoning_content"]))
def test_a_token_event_is_what_json_dumps_gives_for_the_whole_chunk(text: str, kind: str) -> None:
    whole = {"choices": [{"delta": {kind: text}}]}
    dumped = json.dumps(whole, ensure_ascii=False, separators=(",", ":"))
    made = content_event(text) if kind == "content" else reasoning_event(text)
    assert made == f"data: {dumped}\n\n".encode()


@pytest.mark.parametrize("address", ["/\t/evil.example/x", "//evil.example/x", "https://e.x/"])
def test_a_source_the_panel_may_not_link_ends_the_stream(address: str) -> None:
    """A server's sources are held to the panel's link rule: one that would leave the
    site ends the stream (the panel shows its own search results)."""
    with pytest.raises(StreamError, match="not a path on this site"):
        ServerStreamDecoder().feed(sources_event((Source(address, "X", 1),), answering=True))
