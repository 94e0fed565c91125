"""A fake answer endpoint for browser tests: the site owner's model server, scripted.

It speaks the real protocol (OpenAI Chat Completions streaming: SSE ``data:``
events, ``[DONE]``) through the test server's ``POST /api/chat``. A test queues
what the next requests get; with nothing queued, the demo endpoint answers::

    endpoint.queue(stream("Use `retry()` [1].", delay_s=0.05))
    endpoint.queue(hang("Partial [1]"))        # streams, then waits until released
    endpoint.queue(hang("Partial [1]", probe_s=0.1))  # ... and sets endpoint.closed on abort
    endpoint.queue(http_error(500))
    endpoint.queue(http_error(429, retry_after="3"))
    endpoint.requests[-1]["messages"]           # what the panel sent
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator

from docs_panel.build.demo.answers import demo_reply, sse_event
from docs_panel.build.serve import ChatReply, DropConnection

Script = Callable[["FakeEndpoint"], ChatReply]
HANG_LIMIT_S = 60.0


def event(delta: dict[str, str], finish: str | None = None) -> bytes:
    return sse_event(delta, model="fake", finish=finish)


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def content_events(text: str, *, size: int, delay_s: float) -> Iterator[bytes]:
    for piece in pieces(text, size):
        if delay_s:
            time.sleep(delay_s)
        yield event({"content": piece})


def stream(
    text: str, *, reasoning: str = "", size: int = 4, delay_s: float = 0.0, done: bool = True
) -> Script:
    """A model answering ``text`` (after ``reasoning``) ``size`` characters per event."""

    def reply(endpoint: FakeEndpoint) -> ChatReply:
        def chunks() -> Iterator[bytes]:
            yield event({"role": "assistant"})
            for piece in pieces(reasoning, size):
                yield event({"reasoning_content": piece})
            yield from content_events(text, size=size, delay_s=delay_s)
            if done:
                yield event({}, "stop")
                yield b"data: [DONE]\n\n"

        return ChatReply(200, chunks())

    return reply


def hang(text: str, *, size: int = 4, probe_s: float | None = None, cue: bool = False) -> Script:
    """Streams ``text``, then keeps the connection open until the test releases it.

    With ``probe_s``, an SSE comment goes out that often, so that a connection the
    panel closed is noticed (a write to it fails): ``endpoint.closed`` is then set.
    With ``cue``, probing starts only once the test sets ``endpoint.cue``, so that
    its bytes do not keep an idle answer alive.
    """

    def reply(endpoint: FakeEndpoint) -> ChatReply:
        def chunks() -> Iterator[bytes]:
            yield event({"role": "assistant"})
            yield from content_events(text, size=size, delay_s=0.0)
            if cue:
                endpoint.cue.wait(HANG_LIMIT_S)
            if probe_s is None or endpoint.released.is_set():
                endpoint.released.wait(HANG_LIMIT_S)
                raise DropConnection
            try:
                while not endpoint.released.wait(probe_s):
                    yield b": still here\n\n"
            except GeneratorExit:  # the server stopped sending: the reader closed it
                endpoint.closed.set()
                raise
            raise DropConnection

        return ChatReply(200, chunks())

    return reply


def then(text: str, failure: bytes | None) -> Script:
    """Streams ``text``, then ``failure`` (raw bytes), then drops the connection."""

    def reply(endpoint: FakeEndpoint) -> ChatReply:
        def chunks() -> Iterator[bytes]:
            yield event({"role": "assistant"})
            yield from content_events(text, size=4, delay_s=0.01)
            if failure is not None:
                yield failure
            raise DropConnection

        return ChatReply(200, chunks())

    return reply


def http_error(status: int, retry_after: str | None = None) -> Script:
    """The endpoint refuses: an HTTP error with an OpenAI-style JSON body."""
    body = json.dumps({"error": {"message": "model overloaded", "type": "server_error"}}).encode()
    headers = {"Retry-After": retry_after} if retry_after else {}
    return lambda endpoint: ChatReply(status, [body], "application/json", headers)


class FakeEndpoint:
    """The test server's chat handler; one per test run, reset for each test."""

    def __init__(self) -> None:
        self.scripts: list[Script] = []
        self.requests: list[dict[str, object]] = []
        self.released = threading.Event()
        self.closed = threading.Event()  # a probing hang's connection was closed by the panel
        self.cue = threading.Event()  # a hang(cue=True) may start probing

    def reset(self) -> None:
        self.released.set()  # let a connection a test left hanging go
        self.cue.set()
        self.scripts.clear()
        self.requests.clear()
        self.released = threading.Event()
        self.closed = threading.Event()
        self.cue = threading.Event()

    def queue(self, *scripts: Script) -> None:
        self.scripts.extend(scripts)

    def __call__(self, body: bytes) -> ChatReply:
        self.requests.append(json.loads(body))
        if self.scripts:
            return self.scripts.pop(0)(self)
        return demo_reply(body, delay_s=0.0)
