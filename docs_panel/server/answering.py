"""One question, answered on the server with the same core the panel's worker runs.

Redaction, retrieval, the gate and the prompt are ``docs_panel.core``'s; this module only
decides what comes from the request and what the server vouches for. The request
gives the reader's words; the previous answer's sections come only from a citation
list this server signed (verified here, then looked up in the current index). The
stream it yields is ``docs_panel.core.server_wire``'s::

    async for chunk in answer(question, context):   # bytes of server-sent events
        await send(chunk)
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field, replace

from docs_panel.core.answers import (
    NeedParts,
    Plan,
    chat_request,
    cited_sources,
    plan_answer,
    quote_passage,
)
from docs_panel.core.config import Config
from docs_panel.core.docs_index import DocsIndex
from docs_panel.core.history_schema import Conversation, Source, Turn
from docs_panel.core.question_embedding import question_text
from docs_panel.core.redact import redact_text
from docs_panel.core.server_wire import (
    DONE_EVENT,
    ServerQuestion,
    citations_event,
    content_event,
    error_event,
    reasoning_event,
    sources_event,
)
from docs_panel.core.signing import sign, verify
from docs_panel.core.stream import ChatDelta, ContentDelta, ReasoningDelta
from docs_panel.portable.errors import SignatureError, StreamError
from docs_panel.server.embedding import Embedder, question_vector
from docs_panel.server.settings import Settings
from docs_panel.server.upstream import Upstream, ask_upstream

log = logging.getLogger("docs_panel.server")

FAILED_MESSAGE = "the model could not answer; here are the matching sections"
"""What a reader's panel is told when the upstream fails: never the upstream's words."""


@dataclass
class Counters:
    """What ``/readyz`` and the logs report: questions, and signed lists refused by reason."""

    questions: int = 0
    primed: int = 0
    refused: dict[str, int] = field(default_factory=dict)

    def refuse(self, reason: str) -> None:
        self.refused[reason] = self.refused.get(reason, 0) + 1


@dataclass(frozen=True, slots=True)
class Context:
    """What every question of this process shares."""

    settings: Settings
    index: Callable[[], DocsIndex]
    """The current index (it may change between two questions, never during one)."""
    client: Upstream
    counters: Counters
    clock: Callable[[], float] = time.time
    embeddings: Embedder | None = None
    """The embeddings endpoint's client (``settings.embeddings``; None: words only)."""


def panel_config(settings: Settings) -> Config:
    """The core's settings for answering, from the server's own (never the page's)."""
    return Config(model=settings.model, gate=settings.gate, scopes=settings.scopes)


def previous_conversation(
    asked: ServerQuestion, context: Context, index_version: str, request_id: str
) -> Conversation:
    """The earlier exchanges the request carries, the last one holding the sections of
    a verified citation list: ``plan_answer`` primes a follow-up with exactly those."""
    turns = [
        Turn(
            question=redact_text(e.question),
            quote=quote_passage(e.quote),
            answer=redact_text(e.answer),
            status="done",
            asked_at=0,
            finished_at=0,
        )
        for e in asked.history
    ]
    if asked.citations:
        try:
            signed = verify(context.settings.signing, asked.citations, now_s=int(context.clock()))
        except SignatureError as err:
            context.counters.refuse(err.reason)
            log.warning(
                "citation list refused", extra={"request_id": request_id, "reason": err.reason}
            )
        else:
            context.counters.primed += 1
            cited = tuple(Source(address=a, title="") for a in signed.addresses)
            last = (
                turns[-1]
                if turns
                else Turn(question="", answer="", status="done", asked_at=0, finished_at=0)
            )
            turns[-1:] = [replace(last, sources=cited)]
    return Conversation(id="", turns=tuple(turns), index_version=index_version)


def plan_for(
    asked: ServerQuestion,
    context: Context,
    index: DocsIndex,
    request_id: str,
    question_vector: list[float] | None = None,
) -> tuple[Plan, dict[str, object] | None]:
    """The plan, and the upstream request when the gate opens (None: results only).
    ``question_vector``: the question embedded, for hybrid ranking (None: words only)."""
    config = panel_config(context.settings)
    previous = previous_conversation(asked, context, index.version, request_id)
    plan = plan_answer(
        index,
        config,
        redact_text(asked.question),
        scope_id=asked.scope or None,
        quote=quote_passage(asked.quote),
        previous=previous,
        language=asked.language,
        question_vector=question_vector,
    )
    if isinstance(plan, NeedParts):  # read_index added every part
        raise RuntimeError(f"the index lacks parts {plan.keys}: read_index adds them all")
    if not plan.gate_open:
        return plan, None
    body = chat_request(
        plan,
        config,
        previous,
        instruction=redact_text(asked.instruction),
        instruction_as_user=True,
    )
    return plan, body


def relayed(deltas: list[ChatDelta], text: list[str]) -> bytes:
    """The events for what one upstream read brought, as one write (in their order),
    each content piece also kept in ``text`` for the citation list."""
    events = bytearray()
    for delta in deltas:
        if isinstance(delta, ContentDelta):
            text.append(delta.text)
            events += content_event(delta.text)
        elif isinstance(delta, ReasoningDelta):
            events += reasoning_event(delta.text)
    return bytes(events)


async def answer(
    asked: ServerQuestion, context: Context, request_id: str
) -> AsyncGenerator[bytes, None]:
    """The answer stream: sources, tokens, the signed citation list, ``[DONE]``."""
    index = context.index()
    embedded = question_text(asked.question, quote_passage(asked.quote))
    vector = await question_vector(context.embeddings, embedded, index, request_id)
    plan, body = plan_for(asked, context, index, request_id, vector)
    context.counters.questions += 1
    yield sources_event(plan.context_sources, answering=body is not None)
    if body is None:
        yield DONE_EVENT
        return
    text: list[str] = []
    try:
        async for deltas in ask_upstream(context.client, context.settings, body):
            events = relayed(deltas, text)
            if events:
                yield events
    except StreamError as err:
        log.warning(
            "upstream failed",
            extra={"request_id": request_id, "problem": redact_text(str(err))[:300]},
        )
        yield error_event(FAILED_MESSAGE)
        return
    cited = cited_sources("".join(text), plan.context_sources)
    token = sign(
        context.settings.signing,
        index.version,
        [s.address for s in cited],
        now_s=int(context.clock()),
    )
    yield citations_event(token)
    yield DONE_EVENT
