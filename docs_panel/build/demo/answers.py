"""The demo's answer endpoint: extracts from the docs, streamed like a model would.

``python build.py serve`` has no model to talk to, so it answers ``POST /api/chat``
with this: it reads the numbered sections the panel put in the prompt and
streams, over the OpenAI Chat Completions protocol, the first sentences of the
best ones with their citations. Every answer says it is a demo::

    reply = demo_reply(json.dumps({"messages": [...], "stream": True}).encode())
    b"".join(reply.chunks)      # b'data: {"choices":[{"delta":{"role":"assistant"}...'

The panel cannot tell it from a model server, which is the point: it exercises
the same streaming, citation and rendering path a real endpoint does.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Final

from docs_panel.build.serve import ChatReply

DEMO_NOTICE: Final = "*Demo answer (no model): extracts from the docs.*"
MAX_SECTIONS: Final = 3
MAX_SENTENCES: Final = 2
WORD_DELAY_S: Final = 0.025

# "[n] Page > Heading (/address#anchor)" then the section's text, as answers.py writes it.
_SECTION = re.compile(
    r"^\[(\d+)\] (.+?) \((/[^\s)]*)\)\n(.*?)(?=\n\n\[\d+\] |\Z)", re.MULTILINE | re.DOTALL
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"\S+\s*|\s+")


def demo_answer(messages: list[dict[str, str]]) -> str:
    """The Markdown answer for a Chat Completions ``messages`` list from the panel."""
    system = next((m.get("content", "") for m in messages if m.get("role") == "system"), "")
    parts = [DEMO_NOTICE]
    for number, heading, _address, text in _SECTION.findall(system)[:MAX_SECTIONS]:
        sentences = _SENTENCE_END.split(" ".join(text.split()))
        extract = " ".join(sentences[:MAX_SENTENCES])
        if extract:
            title = heading.rsplit(" > ", 1)[-1]
            parts.append(f"**{title}.** {extract} [{number}]")
    if len(parts) == 1:
        parts.append("The docs given with this question have nothing to quote on it.")
    return "\n\n".join(parts)


def sse_event(delta: dict[str, str], *, model: str, finish: str | None = None) -> bytes:
    """One Chat Completions chunk as an SSE event: ``data: {...}`` and a blank line."""
    chunk = {
        "object": "chat.completion.chunk",
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def sse_chunks(answer: str, *, model: str, delay_s: float) -> Iterator[bytes]:
    """``answer`` as a Chat Completions stream, a word per event, ``delay_s`` apart."""
    yield sse_event({"role": "assistant"}, model=model)
    for word in _WORD.findall(answer):
        if delay_s:
            time.sleep(delay_s)
        yield sse_event({"content": word}, model=model)
    yield sse_event({}, model=model, finish="stop")
    yield b"data: [DONE]\n\n"


def demo_reply(body: bytes, *, delay_s: float = WORD_DELAY_S) -> ChatReply:
    """The demo endpoint: a streamed extractive answer, or HTTP 400 for a bad request."""
    try:
        request = json.loads(body)
        messages = request["messages"]
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        error = {"error": {"message": "expected a JSON chat completions request with messages"}}
        return ChatReply(400, [json.dumps(error).encode()], "application/json")
    model = str(request.get("model") or "demo")
    return ChatReply(200, sse_chunks(demo_answer(messages), model=model, delay_s=delay_s))
