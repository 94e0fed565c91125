"""The wire between the panel and a server install, defined once for both sides.

The worker POSTs a :class:`ServerQuestion` as JSON (``question_body``); the server
reads it with ``parse_question``, which refuses anything else (413 over a cap,
400 for an unknown field or a wrong type). The server answers with server-sent
events, read back by :class:`ServerStreamDecoder`::

    event: sources             {"sources": [{address, title, ref}], "answering": true}
    data: {"choices": [...]}   the answer's tokens, as OpenAI Chat Completions chunks
    event: citations           {"token": "<signed citation list>"}
    data: [DONE]

``answering: false`` means the server's gate stayed shut: no tokens follow and the
panel shows the matching sections. ``event: error`` (``{"message": …}``) ends a
stream that failed after it began; the panel then shows search results too::

    >>> body = question_body(ServerQuestion(question="retry?", language="en"))
    >>> parse_question(json.dumps(body).encode()).question
    'retry?'
    >>> decoder = ServerStreamDecoder()
    >>> decoder.feed(sources_event((Source("/a.html#x", "X", 1),), answering=True)
    ...              + content_event("Use X [1].") + citations_event("t.o.k") + DONE_EVENT)
    ... # doctest: +NORMALIZE_WHITESPACE
    [SourcesDelta(sources=(Source(address='/a.html#x', title='X', ref=1),), answering=True),
     ContentDelta(text='Use X [1].'), CitationsDelta(token='t.o.k'), Done()]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from json.encoder import encode_basestring
from typing import Final

from docs_panel.core.history_schema import Source
from docs_panel.core.redact import redact_text
from docs_panel.core.signing import MAX_TOKEN_CHARS
from docs_panel.core.site_links import may_link
from docs_panel.core.stream import ChatDelta, ChatStreamDecoder, SSEEvent
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

ANSWER_PATH: Final = "/answer"
"""Appended to the panel's ``server`` setting: where questions go."""
FEEDBACK_PATH: Final = "/feedback"
"""Appended to ``server``: where votes go when ``feedbackEndpoint`` is not set."""
CONTENT_TYPE: Final = "application/json"


SOURCES_EVENT: Final = "sources"
CITATIONS_EVENT: Final = "citations"
ERROR_EVENT: Final = "error"
DONE_EVENT: Final = b"data: [DONE]\n\n"


@dataclass(frozen=True, slots=True)
class Exchange:
    """An earlier question and its answer, as the conversation has them (redacted)."""

    question: str
    answer: str
    quote: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerQuestion:
    """Everything the panel sends the server: only what the reader gave, and the last
    signed citation list. Never messages, system text or a model name."""

    question: str
    scope: str = ""
    quote: str = ""
    instruction: str = ""
    page_url: str = ""
    language: str = ""
    history: tuple[Exchange, ...] = field(default=())
    citations: str = ""


# Each field: its JSON type and its cap (characters, or entries for history), the
# panel's own (``caps``), so whatever the panel sends the server takes.
_FIELDS: Final = {
    "question": (str, QUESTION_CHARS),
    "scope": (str, SHORT_CHARS),
    "quote": (str, QUOTE_CHARS),
    "instruction": (str, INSTRUCTION_CHARS),
    "page_url": (str, PAGE_URL_CHARS),
    "language": (str, SHORT_CHARS),
    "history": (list, HISTORY_TURNS),
    "citations": (str, MAX_TOKEN_CHARS),
}
_EXCHANGE_FIELDS: Final = {
    "question": QUESTION_CHARS,
    "answer": HISTORY_ANSWER_CHARS,
    "quote": QUOTE_CHARS,
}
_JSON_BYTES_PER_CHAR: Final = 12
"""The most bytes JSON spends on one character: an astral one as two ``\\uXXXX``."""
BODY_LIMIT: Final = 4096 + _JSON_BYTES_PER_CHAR * (
    sum(cap for kind, cap in _FIELDS.values() if kind is str)
    + HISTORY_TURNS * sum(_EXCHANGE_FIELDS.values())
)
"""Bytes of a question's request body: every field at its cap, however the panel's
JSON escapes it, and room for the keys; more is refused with 413 unread."""


def question_body(asked: ServerQuestion) -> dict[str, object]:
    """The JSON body the panel POSTs for ``asked``."""
    return {
        "question": asked.question,
        "scope": asked.scope,
        "quote": asked.quote,
        "instruction": asked.instruction,
        "page_url": asked.page_url,
        "language": asked.language,
        "history": [
            {"question": e.question, "answer": e.answer, "quote": e.quote} for e in asked.history
        ],
        "citations": asked.citations,
    }


def parse_question(body: bytes) -> ServerQuestion:
    """The request body as a question, or :class:`RequestError` (413, 400) saying why."""
    if len(body) > BODY_LIMIT:
        raise RequestError(413, f"the request body is over {BODY_LIMIT} bytes")
    try:
        raw = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise RequestError(400, "the request body is not JSON") from None
    if not isinstance(raw, dict):
        raise RequestError(400, "the request body must be a JSON object")
    unknown = sorted(set(raw) - set(_FIELDS))
    if unknown:
        raise RequestError(400, f"unknown fields: {', '.join(map(str, unknown))[:200]}")
    if "question" not in raw:
        raise RequestError(400, "question is missing")
    values: dict[str, object] = {}
    for name, value in raw.items():
        kind, cap = _FIELDS[name]
        if not isinstance(value, kind):
            raise RequestError(400, f"{name}: expected a {'string' if kind is str else 'list'}")
        if len(value) > cap:
            raise RequestError(413, f"{name}: longer than {cap}")
        values[name] = tuple(map(_exchange, value)) if name == "history" else value
    if not str(values["question"]).strip():
        raise RequestError(400, "question is blank")
    return ServerQuestion(**values)  # type: ignore[arg-type]


def redacted(asked: ServerQuestion) -> ServerQuestion:
    """``asked`` with every text a client wrote passed through the redactor: the server
    logs, embeds and sends upstream only this, whoever the client is (a panel has
    redacted already; a script posting to the server has not)."""
    return replace(
        asked,
        question=redact_text(asked.question),
        quote=redact_text(asked.quote),
        instruction=redact_text(asked.instruction),
        page_url=redact_text(asked.page_url),
        history=tuple(
            Exchange(redact_text(e.question), redact_text(e.answer), redact_text(e.quote))
            for e in asked.history
        ),
    )


def _exchange(raw: object) -> Exchange:
    if not isinstance(raw, dict):
        raise RequestError(400, "history: each entry is an object")
    unknown = sorted(set(raw) - set(_EXCHANGE_FIELDS))
    if unknown:
        raise RequestError(400, f"history: unknown fields: {', '.join(map(str, unknown))[:200]}")
    for name in ("question", "answer"):
        if name not in raw:
            raise RequestError(400, f"history: {name} is missing")
    for name, value in raw.items():
        if not isinstance(value, str):
            raise RequestError(400, f"history {name}: expected a string")
        if len(value) > _EXCHANGE_FIELDS[name]:
            raise RequestError(413, f"history {name}: longer than {_EXCHANGE_FIELDS[name]}")
    return Exchange(**raw)


# --- The answer stream ---------------------------------------------------------------


def _event(name: str, data: object) -> bytes:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {name}\ndata: {text}\n\n".encode()


def sources_event(sources: Sequence[Source], *, answering: bool) -> bytes:
    """The numbered sections the answer may cite, before any token."""
    listed = [{"address": s.address, "title": s.title, "ref": s.ref} for s in sources]
    return _event(SOURCES_EVENT, {"sources": listed, "answering": answering})


def content_event(text: str) -> bytes:
    """One piece of the answer, as ``data: {"choices":[{"delta":{"content":…}}]}``."""
    return _chunk("content", text)


def reasoning_event(text: str) -> bytes:
    return _chunk("reasoning_content", text)


def _chunk(kind: str, text: str) -> bytes:
    # What json.dumps of the whole chunk gives (compact, UTF-8), with only the text to
    # encode: the server writes one of these per token relayed.
    return f'data: {{"choices":[{{"delta":{{"{kind}":{encode_basestring(text)}}}}}]}}\n\n'.encode()


def citations_event(token: str) -> bytes:
    """The signed list of what the answer cited, after its last token."""
    return _event(CITATIONS_EVENT, {"token": token})


def error_event(message: str) -> bytes:
    """A stream that cannot go on (upstream failure, shutdown): the panel shows results."""
    return _event(ERROR_EVENT, {"message": message})


@dataclass(frozen=True, slots=True)
class SourcesDelta:
    """The server's numbered sections; ``answering`` False: its gate stayed shut."""

    sources: tuple[Source, ...]
    answering: bool


@dataclass(frozen=True, slots=True)
class CitationsDelta:
    """The signed citation list, stored with the turn."""

    token: str


ServerDelta = ChatDelta | SourcesDelta | CitationsDelta


class ServerStreamDecoder(ChatStreamDecoder):
    """:class:`ChatStreamDecoder` plus the server's own two events."""

    __slots__ = ()

    def _decode_event(self, event: SSEEvent, deltas: list[ChatDelta]) -> None:
        out: list[object] = deltas  # type: ignore[assignment]  # ServerDelta widens ChatDelta
        if event.event == SOURCES_EVENT:
            out.append(_sources(event.data))
        elif event.event == CITATIONS_EVENT:
            out.append(CitationsDelta(_token(event.data)))
        else:
            super()._decode_event(event, deltas)


def _payload(data: str) -> dict[str, object]:
    try:
        value = json.loads(data)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise StreamError(f"the server sent an event that is not a JSON object: {data[:120]!r}")
    return value


def _sources(data: str) -> SourcesDelta:
    value = _payload(data)
    listed, answering = value.get("sources"), value.get("answering")
    if not (isinstance(listed, list) and isinstance(answering, bool)):
        raise StreamError("the server's sources event has an unknown shape")
    return SourcesDelta(tuple(map(_source, listed)), answering)


def _source(entry: object) -> Source:
    if isinstance(entry, dict):
        address, title, ref = entry.get("address"), entry.get("title"), entry.get("ref")
        if isinstance(address, str) and isinstance(title, str) and type(ref) is int:
            if not may_link(address):
                raise StreamError("the server sent a source that is not a path on this site")
            return Source(address=address, title=title, ref=ref)
    raise StreamError("a source in the server's sources event has an unknown shape")


def _token(data: str) -> str:
    token = _payload(data).get("token")
    if not isinstance(token, str):
        raise StreamError("the server's citations event has no token")
    return token
