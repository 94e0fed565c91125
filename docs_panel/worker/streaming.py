"""One answer streaming from the model endpoint, read in the worker (Pyodide).

``fetch`` + ``body.getReader()`` feed the core's decoder as bytes arrive; the
shell pulls what changed since its last pull, so however fast the model
streams, the panel renders once per pull (updates coalesce while it draws)::

    answer = AnswerStream(url, body, renderer, idle_s=30)
    update = await answer.pull(2.0)  # waits for news: rendered HTML, reasoning, raw text
    answer.stop()                    # the reader pressed Stop: abort the request
    update.ended, update.error       # how it ended: the StreamError that ended it, if any

Every way a stream can fail (HTTP error, network drop, a malformed event, no
``[DONE]``, no byte for ``idle_s`` seconds, the abort of ``stop``) ends it with a
:class:`StreamError`; one for HTTP 429/503 says when to ask again. What that
means for the turn (stopped, or search results instead) is decided by the answer's
lifecycle (``docs_panel.portable.lifecycle``), not here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import js
from pyodide.ffi import to_js  # type: ignore[import-not-found]

from docs_panel.core.history_schema import Source
from docs_panel.core.server_wire import CitationsDelta, ServerStreamDecoder, SourcesDelta
from docs_panel.core.stream import ChatStreamDecoder, ContentDelta, ReasoningDelta
from docs_panel.core.throttle import retry_after
from docs_panel.portable.errors import StreamError

if TYPE_CHECKING:
    from docs_panel.core.render import StreamingRenderer


@dataclass(frozen=True, slots=True)
class Update:
    """What changed since the last pull. ``tail`` None: the tail is as it was."""

    stable: str
    tail: str | None
    reasoning: str
    text: str
    ended: bool
    error: StreamError | None


UPDATE_INTERVAL_S = 0.05
"""At most one update every 50 ms (20 a second): a model at 100 tokens/s would otherwise
cost a render in the worker and a layout on the page per token, for no visible gain."""


def _js(value: dict[str, object]) -> object:
    return to_js(value, dict_converter=js.Object.fromEntries)


class AnswerStream:
    """The request, its decoded deltas and their rendering, until the shell has them all."""

    def __init__(
        self,
        url: str,
        body: dict[str, object],
        renderer: Callable[[], StreamingRenderer],
        idle_s: float,
        *,
        server: bool = False,
    ) -> None:
        self._make_renderer = renderer  # called once the request is out (a slow import)
        self._renderer: StreamingRenderer | None = None
        self._idle_s = idle_s
        self._controller = js.AbortController.new()
        self._changed = asyncio.Event()
        self._text: list[str] = []  # content not yet pulled
        self._reasoning: list[str] = []
        self.answer: list[str] = []  # all content so far: what a stopped turn keeps
        # From a server install (``server``): its numbered sections, whether its gate
        # opened, and its signed list of what the answer cited.
        self._server = server
        self.sources: tuple[Source, ...] | None = None
        self.answering = True
        self.citations = ""
        self.ended = False
        self.error: StreamError | None = None
        self._pulled_at = 0.0
        self._task = asyncio.ensure_future(self._run(url, json.dumps(body)))

    def stop(self) -> None:
        """Abort the request (nothing happens once it has ended); ``answer`` keeps what arrived."""
        self._controller.abort()

    async def pull(self, wait_s: float) -> Update:
        """Wait until something changed (at most ``wait_s``), then hand it all over at once."""
        # Nothing new in time: the caller may still want to checkpoint.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), wait_s)
        loop = asyncio.get_running_loop()
        await asyncio.sleep(self._pulled_at + UPDATE_INTERVAL_S - loop.time())  # let more arrive
        self._pulled_at = loop.time()
        self._changed.clear()
        text, reasoning = "".join(self._text), "".join(self._reasoning)
        self._text.clear()
        self._reasoning.clear()
        update = None
        if text:
            assert self._renderer is not None  # text comes only once the request is out
            started = js.performance.now()
            update = self._renderer.feed(text)
            # Seen by devtools and bench/ (the worker's own performance timeline).
            js.performance.measure(
                "docs-panel:render", _js({"start": started, "end": js.performance.now()})
            )
        return Update(
            stable=update.stable_html if update else "",
            tail=update.tail_html if update else None,
            reasoning=reasoning,
            text=text,
            ended=self.ended,
            error=self.error,
        )

    async def _run(self, url: str, body: str) -> None:
        try:
            request = js.fetch(
                url,
                _js(
                    {
                        "method": "POST",
                        "headers": _js(
                            {"Content-Type": "application/json", "Accept": "text/event-stream"}
                        ),
                        "body": body,
                        "signal": self._controller.signal,
                        "cache": "no-store",
                    }
                ),
            )
            self._renderer = self._make_renderer()  # while the endpoint thinks
            response = await self._within_idle(request, url)
            if not response.ok:
                header = response.headers.get("Retry-After")
                raise StreamError(
                    f"the answer endpoint {url} replied HTTP {response.status}; check that it "
                    "is up and speaks the OpenAI Chat Completions streaming protocol",
                    retry_after(response.status, header or None, now_s=time.time()),
                )
            reader = response.body.getReader()
            decoder = ServerStreamDecoder() if self._server else ChatStreamDecoder()
            while not (chunk := await self._within_idle(reader.read(), url)).done:
                self._take(decoder.feed(chunk.value.to_bytes()))
            self._take(decoder.close())
        except StreamError as err:
            self.error = err
        except Exception as err:  # a JS TypeError (network) or the AbortError of stop()
            self.error = StreamError(f"the connection to the answer endpoint {url} failed: {err}")
        finally:
            self.ended = True
            self._changed.set()

    async def _within_idle(self, step: Awaitable[Any], url: str) -> Any:
        """``await step``, unless the endpoint sends nothing for ``idle_s``: then abort."""
        try:
            return await asyncio.wait_for(step, self._idle_s)
        except TimeoutError:
            self._controller.abort()
            raise StreamError(
                f"the answer endpoint {url} sent nothing for {self._idle_s:g} s, so the "
                "answer was given up (docsPanel.idleTimeout)"
            ) from None

    def cite(self, n: int) -> str | None:
        """The address of the server's section ``[n]`` (None: not from a server, or no such)."""
        found = [s.address for s in self.sources or () if s.ref == n]
        return found[0] if found else None

    def _take(self, deltas: Sequence[object]) -> None:
        for delta in deltas:
            if isinstance(delta, SourcesDelta):
                self.sources, self.answering = delta.sources, delta.answering
            elif isinstance(delta, CitationsDelta):
                self.citations = delta.token
            elif isinstance(delta, ContentDelta):
                self._text.append(delta.text)
                self.answer.append(delta.text)
            elif isinstance(delta, ReasoningDelta):
                self._reasoning.append(delta.text)
        if deltas:
            self._changed.set()
