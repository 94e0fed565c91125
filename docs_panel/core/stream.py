"""Incremental parsing of a streamed Chat Completions answer, one network chunk at a time.

The worker reads the endpoint's response body as byte chunks that may split anywhere: inside
a UTF-8 character, between the CR and LF of a line end, in the middle of a line. Nothing here
does I/O; each layer takes what arrived and returns what is now complete:

- :class:`SSEParser` turns bytes into :class:`SSEEvent` values, following the WHATWG
  EventSource parsing rules (any of CRLF/LF/CR ends a line, ``:`` comments, multi-line
  ``data``, a leading BOM skipped, a blank line dispatches).
- :class:`ThinkTagSplitter` separates ``<think>…</think>`` reasoning from answer text inside
  ``content``, even when a tag is split across deltas.
- :class:`ChatStreamDecoder` stacks both and turns the OpenAI Chat Completions protocol into
  typed deltas: :class:`ContentDelta`, :class:`ReasoningDelta`, :class:`Finish` and
  :class:`Done`. Anything that is not that protocol raises :class:`StreamError`, and so does a
  stream that ends before ``data: [DONE]``: the panel then answers with search results.

    >>> decoder = ChatStreamDecoder()
    >>> decoder.feed(b'data: {"choices":[{"delta":{"content":"<thi"}}]}\\n\\n'
    ...              b'data: {"choices":[{"delta":{"content":"nk>hm</think>Hi \\xf0\\x9f')
    []
    >>> decoder.feed(b'\\x91\\x8b"},"finish_reason":"stop"}]}\\n\\n')
    [ReasoningDelta(text='hm'), ContentDelta(text='Hi 👋'), Finish(reason='stop')]
    >>> decoder.feed(b"data: [DONE]\\n\\n")
    [Done()]
    >>> decoder.close()
    []
"""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass
from itertools import groupby
from typing import Any, TypeVar, cast

from docs_panel.portable.errors import StreamError

__all__ = [
    "ChatDelta",
    "ChatStreamDecoder",
    "ContentDelta",
    "Done",
    "Finish",
    "ReasoningDelta",
    "SSEEvent",
    "SSEParser",
    "ThinkTagSplitter",
]

_LINE_END = re.compile(r"\r\n|\r|\n")
_PROTOCOL_HINT = "the endpoint must speak the OpenAI Chat Completions streaming protocol"


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched server-sent event.

    ``event`` is ``"message"`` unless the stream named a type. ``id`` is the stream's last
    event ID, which (as in EventSource) persists across events until the next ``id:`` line;
    ``None`` while the stream has sent none.
    """

    data: str
    event: str = "message"
    id: str | None = None


class SSEParser:
    """Turns a byte stream into :class:`SSEEvent` values, chunk by chunk.

    Work per :meth:`feed` is proportional to the chunk: only the unfinished last line is
    carried over, as a list of pieces joined once when the line ends.

        >>> parser = SSEParser()
        >>> parser.feed(b": keep-alive\\r\\ndata: a\\r")
        []
        >>> parser.feed(b"\\ndata:b\\r\\n\\r\\n")
        [SSEEvent(data='a\\nb', event='message', id=None)]
    """

    __slots__ = ("_data", "_decoder", "_event_type", "_last_id", "_line", "_skip_lf", "retry")

    def __init__(self) -> None:
        # "utf-8-sig" drops one BOM at the very start, even when it arrives split; errors
        # become U+FFFD as in the WHATWG "UTF-8 decode" the EventSource spec asks for.
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        self._line: list[str] = []
        self._skip_lf = False  # the text so far ended in CR, so a leading LF completes a CRLF
        self._data: list[str] = []
        self._event_type = ""
        self._last_id: str | None = None
        # The last ``retry:`` in ms: parsed per the spec, though the worker never reconnects.
        self.retry: int | None = None

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Parse the next chunk; return the events it completed."""
        return self._feed_text(self._decoder.decode(chunk))

    def close(self) -> list[SSEEvent]:
        """Flush at the end of the stream: finish the last line and dispatch a pending event.

        WHATWG drops an event that lacks its closing blank line; this parser delivers it,
        because servers do end with ``data: [DONE]`` and no blank line. A stream cut inside
        an event still shows up, as JSON that does not parse.
        """
        events = self._feed_text(self._decoder.decode(b"", final=True))
        if self._line:
            self._end_line("".join(self._line), events)
            self._line.clear()
        self._dispatch(events)
        return events

    def _feed_text(self, text: str) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        if not text:  # e.g. the first bytes of a multi-byte character; keep _skip_lf as is
            return events
        if self._skip_lf and text[0] == "\n":
            text = text[1:]
        self._skip_lf = text.endswith("\r")
        # Most servers send LF only, and str.split is much faster than a regex split.
        *lines, rest = text.split("\n") if "\r" not in text else _LINE_END.split(text)
        if lines:
            self._line.append(lines[0])
            lines[0] = "".join(self._line)
            self._line.clear()
            for line in lines:
                self._end_line(line, events)
        if rest:
            self._line.append(rest)
        return events

    def _end_line(self, line: str, events: list[SSEEvent]) -> None:
        if not line:
            self._dispatch(events)
            return
        field, colon, value = line.partition(":")
        if not field:  # a comment, e.g. a keep-alive
            return
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event_type = value
        elif field == "id" and "\0" not in value:
            self._last_id = value
        elif field == "retry" and value.isascii() and value.isdigit():
            self.retry = int(value)

    def _dispatch(self, events: list[SSEEvent]) -> None:
        if self._data:
            events.append(
                SSEEvent("\n".join(self._data), self._event_type or "message", self._last_id)
            )
        self._data, self._event_type = [], ""


@dataclass(frozen=True, slots=True)
class ContentDelta:
    """Answer text to append."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """Reasoning text to append to the collapsed "Reasoning" disclosure (never stored)."""

    text: str


@dataclass(frozen=True, slots=True)
class Finish:
    """The model stopped; ``reason`` is the endpoint's ``finish_reason`` (``"length"``: cut)."""

    reason: str


@dataclass(frozen=True, slots=True)
class Done:
    """``data: [DONE]``: the answer is complete."""


ChatDelta = ContentDelta | ReasoningDelta | Finish | Done
TextDelta = ContentDelta | ReasoningDelta

_OPEN_TAG, _CLOSE_TAG = "<think>", "</think>"


class ThinkTagSplitter:
    """Splits ``content`` text into reasoning (inside ``<think>…</think>``) and answer text.

    A tail that could be the start of the awaited tag (``<th``) is held back until the next
    text decides it, so at most a tag's length is ever rescanned.

        >>> splitter = ThinkTagSplitter()
        >>> splitter.feed("<thi")
        []
        >>> splitter.feed("nk>why</th")
        [ReasoningDelta(text='why')]
        >>> splitter.feed("ink>a <th")
        [ContentDelta(text='a ')]
        >>> splitter.close()
        [ContentDelta(text='<th')]
    """

    __slots__ = ("_held", "_inside")

    def __init__(self) -> None:
        self._inside = False
        self._held = ""

    def feed(self, text: str) -> list[TextDelta]:
        """Split the next piece of content; return the deltas it settles."""
        text = self._held + text
        deltas: list[TextDelta] = []
        if "<" not in text:  # no tag and no tag's start: most tokens, one scan
            self._held = ""
            self._emit(text, deltas)
            return deltas
        start = 0
        while True:
            tag = _CLOSE_TAG if self._inside else _OPEN_TAG
            at = text.find(tag, start)
            if at < 0:
                break
            self._emit(text[start:at], deltas)
            start = at + len(tag)
            self._inside = not self._inside
        held = _partial_tag_length(text, start, tag)
        self._emit(text[start : len(text) - held], deltas)
        self._held = text[len(text) - held :]
        return deltas

    def close(self) -> list[TextDelta]:
        """Flush held-back text at the end of the answer: it was not a tag after all."""
        deltas: list[TextDelta] = []
        self._emit(self._held, deltas)
        self._held = ""
        return deltas

    def _emit(self, text: str, deltas: list[TextDelta]) -> None:
        if text:
            deltas.append(ReasoningDelta(text) if self._inside else ContentDelta(text))


def _partial_tag_length(text: str, start: int, tag: str) -> int:
    """Length of the longest tail of ``text[start:]`` that is a proper prefix of ``tag``."""
    for size in range(min(len(tag) - 1, len(text) - start), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0


class ChatStreamDecoder:
    """Decodes a streamed Chat Completions response body into :data:`ChatDelta` values.

    Feed it the body's byte chunks, then call :meth:`close` when the body ends. Reasoning comes
    from ``delta.reasoning_content`` (llama.cpp, DeepSeek, older vLLM) or ``delta.reasoning``
    (Ollama, newer vLLM; when a server sends both they carry the same text, so only the first
    counts) and from ``<think>`` blocks in ``delta.content``. Chunks without choices (usage)
    or with empty deltas (the role-only first chunk) yield nothing; events after ``[DONE]``
    are ignored. Adjacent text of one kind is joined, so one network chunk that carries many
    events costs the panel one update per kind.

        >>> decoder = ChatStreamDecoder()
        >>> decoder.feed(b'data: {"choices":[{"delta":{"content":"Hi"}}]}\\n\\n')
        [ContentDelta(text='Hi')]
        >>> decoder.finished
        False
        >>> decoder.close()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
          ...
        docs_panel.portable.errors.StreamError: the answer stream ended before `data: [DONE]`: ...
    """

    __slots__ = ("_finished", "_sse", "_think")

    def __init__(self) -> None:
        self._sse = SSEParser()
        self._think = ThinkTagSplitter()
        self._finished = False

    @property
    def finished(self) -> bool:
        """Whether ``data: [DONE]`` has arrived."""
        return self._finished

    def feed(self, chunk: bytes) -> list[ChatDelta]:
        """Decode the next body chunk; raise :class:`StreamError` on anything off-protocol."""
        return self._decode(self._sse.feed(chunk))

    def close(self) -> list[ChatDelta]:
        """Decode what the end of the body completes; raise if ``[DONE]`` never came."""
        deltas = self._decode(self._sse.close())
        if not self._finished:
            raise StreamError(
                "the answer stream ended before `data: [DONE]`: the connection dropped or the "
                f"endpoint stopped early; check the endpoint's logs ({_PROTOCOL_HINT})"
            )
        return deltas

    def _decode(self, events: list[SSEEvent]) -> list[ChatDelta]:
        deltas: list[ChatDelta] = []
        for event in events:
            if not self._finished:
                self._decode_event(event, deltas)
        return _join_text(deltas)

    def _decode_event(self, event: SSEEvent, deltas: list[ChatDelta]) -> None:
        if event.event == "error":
            raise StreamError(f"the endpoint sent an error event: {_clip(event.data)}")
        if event.event != "message":  # a type the protocol does not define: not for us
            return
        if event.data.strip() == "[DONE]":
            deltas.extend(self._think.close())
            deltas.append(Done())
            self._finished = True
            return
        choice = _first_choice(_parse_chunk(event.data))
        if choice is None:
            return
        delta = _optional(choice, "delta", dict, "choices[0]") or {}
        reasoning = _optional(delta, "reasoning_content", str, "choices[0].delta") or _optional(
            delta, "reasoning", str, "choices[0].delta"
        )
        if reasoning:
            deltas.append(ReasoningDelta(reasoning))
        content = _optional(delta, "content", str, "choices[0].delta")
        if content:
            deltas.extend(self._think.feed(content))
        reason = _optional(choice, "finish_reason", str, "choices[0]")
        if reason:
            deltas.append(Finish(reason))


def _parse_chunk(data: str) -> dict[str, Any]:
    """The event's JSON object, or StreamError for bad JSON and for an error the server sent."""
    try:
        chunk = json.loads(data)
    except json.JSONDecodeError as err:
        raise StreamError(
            f"a stream event is not valid JSON ({err.msg} at character {err.pos}): "
            f"{_clip(data)}; {_PROTOCOL_HINT}"
        ) from None
    if not isinstance(chunk, dict):
        raise StreamError(
            f"a stream event should be a JSON object, got {_JSON_NAMES[type(chunk)]}: "
            f"{_clip(data)}; {_PROTOCOL_HINT}"
        )
    if chunk.get("error") is not None:  # llama.cpp, Ollama, OpenRouter: {"error": {...}}
        raise StreamError(f"the endpoint reported an error mid-answer: {_describe(chunk['error'])}")
    if chunk.get("object") == "error":  # older vLLM: the error fields at the top level
        raise StreamError(f"the endpoint reported an error mid-answer: {_describe(chunk)}")
    return chunk


def _first_choice(chunk: dict[str, Any]) -> dict[str, Any] | None:
    choices = _optional(chunk, "choices", list, "")
    if not choices:
        return None
    if not isinstance(choices[0], dict):
        raise StreamError(
            f"choices[0] should be an object, got {_JSON_NAMES[type(choices[0])]}; {_PROTOCOL_HINT}"
        )
    return choices[0]


_T = TypeVar("_T")


def _optional(obj: dict[str, Any], key: str, kind: type[_T], where: str) -> _T | None:
    """``obj[key]`` if it is a ``kind``; ``None`` if absent or null; StreamError otherwise.

    ``where`` is the path to ``obj`` inside the chunk, for the message ("" at the top).
    """
    value = obj.get(key)
    if value is None or isinstance(value, kind):
        return value
    path = f"{where}.{key}" if where else key
    raise StreamError(
        f"{path} should be {_JSON_NAMES[kind]}, got {_JSON_NAMES[type(value)]}; {_PROTOCOL_HINT}"
    )


_JSON_NAMES: dict[type, str] = {  # every type json.loads returns
    type(None): "null",
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
}


def _describe(error: object) -> str:
    """The server's own words for an error: its message with its code or type, else the JSON."""
    if isinstance(error, str) and error:
        return error
    if isinstance(error, dict) and isinstance(error.get("message"), str) and error["message"]:
        label = error.get("code") or error.get("type")
        return f"{error['message']} ({label})" if label else str(error["message"])
    return _clip(json.dumps(error, ensure_ascii=False))


def _clip(text: str, limit: int = 120) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "…"


def _join_text(deltas: list[ChatDelta]) -> list[ChatDelta]:
    """Merge each run of same-kind text deltas into one, joining the run's pieces once."""
    joined: list[ChatDelta] = []
    for kind, run in groupby(deltas, key=type):
        if kind is ContentDelta or kind is ReasoningDelta:
            text = "".join(delta.text for delta in cast("list[TextDelta]", list(run)))
            joined.append(ContentDelta(text) if kind is ContentDelta else ReasoningDelta(text))
        else:
            joined.extend(run)
    return joined
