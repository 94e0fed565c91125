"""From a reader's question to a turn.

A question first becomes a :class:`Plan`: the best sections for it within the
reader's scope, the gate numbers, and the numbered context the model would see
(on a follow-up, also the sections the previous answer cited, looked up again in
the current index). Then either the gate is open and the model is asked, or the
answer is the list of matching sections. On a large site's split index,
``plan_answer`` first names the index parts it needs (:class:`NeedParts`)::

    while isinstance(plan := plan_answer(index, config, "retry a job", scope_id="api"), NeedParts):
        for key in plan.keys:
            index.add_part(key, fetch_json(index.part_file(key)))
    if config.chat and plan.gate_open:
        body = chat_request(plan, config, previous=conversation)   # POST to the endpoint
        turn = plan.answer_turn("Call `retry()` [1].", "done", asked_at=t0, finished_at=t1)
        turn.sources      # (Source("/api/jobs.html#retry", "Retry a job", ref=1),)
    else:
        turn = plan.results_turn(asked_at=t0, finished_at=t1)

What the panel shows of a turn is drawn by ``docs_panel.core.views``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from docs_panel.core.citations import CITATION
from docs_panel.core.config import Config
from docs_panel.core.docs_index import DocsIndex, Hit, Section
from docs_panel.core.history_schema import Conversation, Gate, ResultItem, Source, Status, Turn
from docs_panel.core.redact import redact_text
from docs_panel.portable.caps import (
    HISTORY_ANSWER_CHARS,
    HISTORY_TURNS,
    INSTRUCTION_CHARS,
    QUESTION_CHARS,
    QUOTE_CHARS,
)

MAX_RESULTS: Final = 6
"""Search results shown when the answer is a list of sections."""
CONTEXT_SECTIONS: Final = 5
"""Retrieved sections numbered in the prompt."""
PRIMED_SECTIONS: Final = 3
"""Sections the previous answer cited, added on a follow-up."""
SECTION_CHARS: Final = 1_500
"""Text of one section in the prompt; the start of a section carries its point."""
FALLBACK_SOURCES: Final = 3
"""Sources listed for an answer that cites nothing: the sections it was drawn from."""

SYSTEM_PROMPT: Final = (
    "You answer questions about this documentation site, using only the numbered sections "
    "below. After each statement, cite the sections it comes from as [n], e.g. [1] or [2][3]. "
    "If the sections do not answer the question, say so in one sentence and do not guess. "
    "Answer in Markdown, briefly, in the language of the question."
)
READER_INSTRUCTION: Final = (
    "The reader's own instruction for your answers (the rules above still apply):\n"
)
"""Heads the reader's instruction, sent as a system message of its own after the docs."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What a question retrieved: results, gate numbers and the model's numbered context.

    ``question`` and ``quote`` are already redacted. ``context[n - 1]`` is section
    ``[n]`` of the prompt.
    """

    question: str
    quote: str
    scope: str | None
    hits: tuple[Hit, ...]
    gate: Gate
    context: tuple[Section, ...]

    @property
    def gate_open(self) -> bool:
        """Whether retrieval found enough to ask the model at all."""
        return bool(self.context) and self.gate.top_score >= self.gate.threshold

    def cite(self, n: int) -> str | None:
        """The address of section ``[n]`` of the prompt, if there is one."""
        return self.context[n - 1].address if 1 <= n <= len(self.context) else None

    @property
    def context_sources(self) -> tuple[Source, ...]:
        """The numbered context as sources, ``ref`` being each section's number."""
        return tuple(
            Source(address=s.address, title=_title(s), ref=n)
            for n, s in enumerate(self.context, start=1)
        )

    def answer_turn(
        self,
        answer: str,
        status: Status,
        *,
        asked_at: int,
        finished_at: int,
        context: tuple[Source, ...] | None = None,
        citations: str = "",
    ) -> Turn:
        """The model's answer (whole, or as far as it got) as a turn, with its sources.

        ``context``: the numbered sections the answer was made from, when a server
        install numbered them (its own retrieval), else this plan's; ``citations``: the
        server's signed list of what it cited."""
        numbered = self.context_sources if context is None else context
        turn = self._turn(
            status, asked_at, finished_at, answer=answer, sources=cited_sources(answer, numbered)
        )
        return replace(turn, citations=citations) if citations else turn

    def in_flight_turn(self, *, asked_at: int) -> Turn:
        """The answer while it streams, as ``pagehide`` stores it: no text yet, and the
        whole numbered context as sources (what it cites is known once the text is)."""
        return self._turn("stopped", asked_at, asked_at, sources=self.context_sources)

    def results_turn(self, *, asked_at: int, finished_at: int) -> Turn:
        """The matching sections as the answer (no model, closed gate, failed model)."""
        return self._turn(
            "results",
            asked_at,
            finished_at,
            results=tuple(
                ResultItem(
                    address=hit.section.address, title=_title(hit.section), snippet=hit.snippet
                )
                for hit in self.hits
            ),
        )

    def _turn(
        self,
        status: Status,
        asked_at: int,
        finished_at: int,
        *,
        answer: str = "",
        sources: tuple[Source, ...] = (),
        results: tuple[ResultItem, ...] = (),
    ) -> Turn:
        return Turn(
            question=self.question,
            quote=self.quote,
            answer=answer,
            status=status,
            asked_at=asked_at,
            finished_at=finished_at,
            scope=self.scope,
            gate=self.gate,
            sources=sources,
            results=results,
        )


def asked_question(question: str) -> str:
    """A question as it is stored and sent: credentials masked first, then cut to
    ``QUESTION_CHARS`` characters (a cut before masking could leave half a secret).

    >>> asked = asked_question("token=ghp_Zx9Kq2Lm7Pw4Rt8Yb3Nc6Vd1Fg5Hj0Ks2Qe9 " + "x" * 5000)
    >>> "ghp_" in asked, len(asked)
    (False, 4000)
    """
    return redact_text(question).strip()[:QUESTION_CHARS].rstrip()


def reader_instruction(instruction: str) -> str:
    """The reader's instruction as a question carries it: credentials masked, then cut
    to ``INSTRUCTION_CHARS`` characters."""
    return redact_text(instruction).strip()[:INSTRUCTION_CHARS].rstrip()


def quote_passage(selected: str) -> str:
    """A passage selected on the page as a question carries it: credentials masked,
    whitespace collapsed, at most ``QUOTE_CHARS`` characters.

    >>> quote_passage("  Retry   a\\n\\n job  ")
    'Retry a job'
    """
    return " ".join(redact_text(selected).split())[:QUOTE_CHARS].rstrip()


def _title(section: Section) -> str:
    return section.title or section.page_title


def scope_prefix(config: Config, scope_id: str | None) -> str | None:
    """The address prefix of the scope with that id; None searches everything."""
    for scope in config.scopes:
        if scope.id == scope_id:
            return scope.prefix
    return None


@dataclass(frozen=True, slots=True)
class NeedParts:
    """What :func:`plan_answer` needs first on a split index: these parts added
    (``DocsIndex.add_part``); then ask it again (h11's NEED_DATA)."""

    keys: tuple[str, ...]


def plan_answer(
    index: DocsIndex,
    config: Config,
    question: str,
    *,
    scope_id: str | None,
    quote: str = "",
    previous: Conversation | None = None,
    language: str = "",
    question_vector: Sequence[float] | None = None,
) -> Plan | NeedParts:
    """Retrieve for ``question`` (redacted) within the scope, and prime a follow-up;
    or, on a split index, the parts to add first (postings, then the hits' texts).
    ``language``: the reader's page's; answers come from pages in it (``DocsIndex.search``).
    ``question_vector``: the question embedded, for hybrid ranking (None: lexical)."""
    query = _query(question, quote)
    prefix = scope_prefix(config, scope_id)
    primed = [source.address for source in _primed_sources(previous)]
    needed = index.parts_needed(
        query,
        prefix=prefix,
        limit=MAX_RESULTS,
        language=language,
        addresses=primed,
        question_vector=question_vector,
    )
    if needed:
        return NeedParts(tuple(needed))
    hits = tuple(
        index.search(
            query,
            prefix=prefix,
            limit=MAX_RESULTS,
            language=language,
            question_vector=question_vector,
        )
    )
    context = [hit.section for hit in hits[:CONTEXT_SECTIONS]]
    for section in primed_sections(index, previous):
        if section not in context:
            context.append(section)
    return Plan(
        question=question,
        quote=quote,
        scope=scope_id,
        hits=hits,
        gate=Gate(top_score=hits[0].score if hits else 0.0, threshold=config.gate),
        context=tuple(context),
    )


def primed_sections(index: DocsIndex, previous: Conversation | None) -> list[Section]:
    """Up to three sections the last answer cited, as the current index has them.

    A section no longer in the index is dropped, never trusted from storage.
    """
    found = (index.lookup(source.address) for source in _primed_sources(previous))
    return [section for section in found if section is not None][:PRIMED_SECTIONS]


def _query(question: str, quote: str) -> str:
    """What a question is searched with: a quoted passage's words count too."""
    return f"{question} {quote}" if quote else question


def _primed_sources(previous: Conversation | None) -> tuple[Source, ...]:
    """The sources the last answer with any cited."""
    answered = [turn for turn in previous.turns if turn.sources] if previous else []
    return answered[-1].sources if answered else ()


def cited_sources(answer: str, context: Sequence[Source]) -> tuple[Source, ...]:
    """The context sections ``answer`` cites, in the order it first cites them.

    An answer that cites none lists the first sections it was drawn from (``ref`` 0).
    """
    by_ref = {source.ref: source for source in context}
    cited: dict[int, Source] = {}
    for match in CITATION.finditer(answer):
        source = by_ref.get(int(match[1]))
        if source is not None:
            cited.setdefault(source.ref, source)
    if cited:
        return tuple(cited.values())
    return tuple(replace(source, ref=0) for source in context[:FALLBACK_SOURCES])


def chat_request(
    plan: Plan,
    config: Config,
    previous: Conversation | None,
    *,
    instruction: str = "",
    instruction_as_user: bool = False,
) -> dict[str, object]:
    """The Chat Completions request body for a plan whose gate is open, with the
    reader's ``instruction`` (redacted) if they gave one.

    ``instruction_as_user``: a server install's system messages hold only text it wrote
    itself and its own index's sections, so the instruction, which comes from the
    request, goes at the head of the reader's message instead."""
    messages: list[dict[str, str]] = [{"role": "system", "content": _system_message(plan)}]
    instruction = instruction.strip()
    if instruction and not instruction_as_user:
        messages.append({"role": "system", "content": READER_INSTRUCTION + instruction})
    earlier = [turn for turn in previous.turns if turn.answer] if previous else []
    for turn in earlier[-HISTORY_TURNS:]:
        messages.append({"role": "user", "content": _user_message(turn.question, turn.quote)})
        messages.append({"role": "assistant", "content": earlier_answer(turn.answer)})
    asked = _user_message(plan.question, plan.quote)
    if instruction and instruction_as_user:
        asked = f"{READER_INSTRUCTION}{instruction}\n\n{asked}"
    messages.append({"role": "user", "content": asked})
    return {"model": config.model, "stream": True, "messages": messages}


def _system_message(plan: Plan) -> str:
    sections = "\n\n".join(
        f"[{n}] {_heading(section)} ({section.address})\n{_clip(section.text, SECTION_CHARS)}"
        for n, section in enumerate(plan.context, start=1)
    )
    return f"{SYSTEM_PROMPT}\n\n{sections}"


def _heading(section: Section) -> str:
    """Where the section sits: "Page > Heading > Subheading"."""
    path = [section.page_title, *section.breadcrumb, section.title]
    return " > ".join(part for i, part in enumerate(path) if part and part not in path[:i])


def _user_message(question: str, quote: str) -> str:
    if not quote:
        return question
    quoted = "\n".join(f"> {line}" for line in quote.splitlines())
    return f"About this passage:\n{quoted}\n\n{question}"


def earlier_answer(text: str) -> str:
    """An earlier answer as a follow-up carries it: at most ``HISTORY_ANSWER_CHARS``."""
    return _clip(text, HISTORY_ANSWER_CHARS)


def _clip(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, an ellipsis marking a cut."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
