"""How the server relays the upstream's tokens: what arrived together leaves in one
write with every byte in order, and an upstream that fails mid-answer still ends in
the server's own error event (never the upstream's words). A fake upstream that
speaks the real OpenAI streaming protocol, on a real socket."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from docs_panel.build.serve import ChatReply
from docs_panel.core.server_wire import (
    ServerStreamDecoder,
    content_event,
    error_event,
    reasoning_event,
)
from docs_panel.core.stream import ChatDelta, ContentDelta, Done, ReasoningDelta
from docs_panel.server.answering import FAILED_MESSAGE, relayed
from docs_panel.server.app import create_app
from docs_panel.server.upstream import ask_upstream, upstream_client
from tests.browser.conftest import Site
from tests.browser.endpoint import FakeEndpoint, event, pieces
from tests.event_loops import on_own_loop
from tests.server.test_app import UPSTREAM_KEY, settings_for

ANSWER = "Call retry() [1], then wait — «ça marche» 🎉.\n"


def in_one_write(*events: bytes) -> ChatReply:
    return ChatReply(200, [b"".join(events)])


async def reads(site: Site) -> list[list[ChatDelta]]:
    settings = settings_for(site)
    client = upstream_client(settings)
    try:
        return [d async for d in ask_upstream(client, settings, {"messages": []})]
    finally:
        await client.aclose()


def test_events_that_arrive_together_are_relayed_as_one_write(
    site: Site, endpoint: FakeEndpoint
) -> None:
    events = [event({"content": p}) for p in pieces(ANSWER, 3)]
    endpoint.queue(lambda e: in_one_write(*events, event({}, "stop"), b"data: [DONE]\n\n"))
    (deltas,) = on_own_loop(reads(site))  # one read, one list
    text: list[str] = []
    assert relayed(deltas, text) == content_event(ANSWER)  # one event for the run of tokens
    assert "".join(text) == ANSWER and isinstance(deltas[-1], Done)


@given(st.lists(st.tuples(st.booleans(), st.text(min_size=1, max_size=20)), max_size=12))
def test_a_relayed_write_keeps_every_piece_in_order(pieces_: list[tuple[bool, str]]) -> None:
    deltas: list[ChatDelta] = [ReasoningDelta(t) if r else ContentDelta(t) for r, t in pieces_]
    text: list[str] = []
    written = relayed(deltas, text)
    expected = b"".join(reasoning_event(t) if r else content_event(t) for r, t in pieces_)
    assert written == expected
    assert text == [t for r, t in pieces_ if not r]


def test_an_upstream_error_mid_answer_becomes_the_servers_error_event(
    site: Site, endpoint: FakeEndpoint
) -> None:
    leak = json.dumps({"message": f"quota of {UPSTREAM_KEY} spent"})
    upstream_error = f"event: error\ndata: {leak}\n\n".encode()
    endpoint.queue(
        lambda e: ChatReply(
            200, [event({"content": "Call "}), event({"content": "retry"}), upstream_error]
        )
    )
    with TestClient(create_app(settings_for(site))) as client:
        body = client.post("/answer", json={"question": "how do I retry a job"}).content
    decoder = ServerStreamDecoder()
    out = decoder.feed(body[: body.index(b"event: error")])
    relayed_text = "".join(d.text for d in out if isinstance(d, ContentDelta))
    assert "Call retry".startswith(relayed_text)  # what came before the error, if read apart
    assert body.endswith(error_event(FAILED_MESSAGE))
    assert UPSTREAM_KEY.encode() not in body and b"quota" not in body
    assert b"event: citations" not in body


def test_an_upstream_cut_mid_answer_ends_in_the_error_event(
    site: Site, endpoint: FakeEndpoint
) -> None:
    endpoint.queue(lambda e: ChatReply(200, [event({"content": "Call retry"})]))  # no [DONE]
    with TestClient(create_app(settings_for(site))) as client:
        body = client.post("/answer", json={"question": "how do I retry a job"}).content
    assert b"Call retry" in body and body.endswith(b"\n\n")
    assert b"event: error" in body and b"event: citations" not in body


def test_the_upstream_pool_does_not_cap_concurrent_streams(site: Site) -> None:
    async def limit() -> int:
        client = upstream_client(settings_for(site))
        try:
            connector = client.session().connector
            assert connector is not None
            return connector.limit
        finally:
            await client.aclose()

    assert on_own_loop(limit()) == 0  # no cap: streams 101-200 must not queue
