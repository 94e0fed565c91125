"""The worker's side of each protocol call, for the one tab it serves (Pyodide).

Each public method is one call of ``docs_panel.portable.protocol.CALLS``, takes its
declared arguments and returns its declared reply fields; ``main.call`` checks
both. The methods are the core's decisions plus the I/O only a worker can do
(fetching the index, streaming answers); the shell does all storage I/O and
passes stored strings in. Whether an answer is under way, stopping or how it
ended is the shell's lifecycle (``docs_panel.portable.lifecycle``); the worker keeps only
this tab's conversation and the stream it was told to start::

    tab = await Tab.start(config_json, index_url, page_url, page_language)
    tab.ask("how do I retry a job", "", "")      # {"streaming": True, ...}
    await tab.pull()                             # until "ended"
    tab.finish("done")                           # the turn, kept in the conversation
    tab.save(localStorage_value, False)          # {"value": the archive to write}
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

import js

from docs_panel.core.answers import (
    NeedParts,
    Plan,
    asked_question,
    chat_request,
    earlier_answer,
    plan_answer,
    quote_passage,
    reader_instruction,
)
from docs_panel.core.config import Config, parse_config
from docs_panel.core.consent import choose, decide
from docs_panel.core.docs_index import DocsIndex, load_index
from docs_panel.core.feedback import (
    REASONS,
    cast_vote,
    drop_conversation,
    log_vote,
    report,
    should_send,
)
from docs_panel.core.history import (
    apply_bounds,
    delete,
    dump_archive,
    evict_one_more,
    load_archive,
    regressed,
    upsert,
)
from docs_panel.core.history_export import ImportRefused, export_file, merge_import, read_export
from docs_panel.core.history_schema import Archive, Conversation, Status, Turn, turn_record
from docs_panel.core.history_search import matching
from docs_panel.core.question_embedding import question_text
from docs_panel.core.redact import redact_text
from docs_panel.core.server_wire import (
    ANSWER_PATH,
    FEEDBACK_PATH,
    Exchange,
    ServerQuestion,
    question_body,
)
from docs_panel.core.session import adopts, read_session, session_value, stopped_turn
from docs_panel.core.views import conversation_view, feedback_view, history_row, turn_key, turn_view
from docs_panel.portable.caps import HISTORY_TURNS, PAGE_URL_CHARS, QUESTION_CHARS
from docs_panel.portable.errors import DocsIndexError, ProtocolError, StorageError
from docs_panel.portable.lifecycle import CHECKPOINT_S
from docs_panel.worker.delivery import deliver
from docs_panel.worker.question_vectors import question_vector
from docs_panel.worker.stemmers import add_stemmers
from docs_panel.worker.streaming import AnswerStream

if TYPE_CHECKING:
    from docs_panel.core.render import StreamingRenderer

Reply = dict[str, object]


@dataclass
class _Answer:
    """The answer streaming now, and what it needs to become a turn."""

    plan: Plan
    asked_at: int
    stream: AnswerStream


def _now() -> int:
    return int(time.time() * 1000)


def _needs_terms(plan: Plan | NeedParts) -> bool:
    """Whether ``plan`` still asks for postings (the question's vector is not needed yet)."""
    return isinstance(plan, NeedParts) and any(key.startswith("terms-") for key in plan.keys)


async def _fetch_json(url: str) -> object:
    response = await js.fetch(url)
    if not response.ok:
        raise DocsIndexError(f"could not load {url}: HTTP {response.status}; rebuild with build.py")
    # As bytes: json.loads decodes UTF-8 in C, where taking in the index as one JS
    # string cost the Python docs' 9 MB index 130 ms more.
    return json.loads((await response.arrayBuffer()).to_bytes())


class Tab:
    """This tab's config, index and conversation, and the answer streaming in it."""

    def __init__(
        self, config: Config, index: DocsIndex, page_url: str, index_url: str, language: str = ""
    ) -> None:
        page = urlsplit(page_url)
        self.language = language  # the reader's page's language: answers come from pages in it
        self.config = config
        self.index = index
        self.index_url = index_url  # a split index's parts lie beside it
        self.origin = f"{page.scheme}://{page.netloc}"
        self.endpoint = urljoin(page_url, config.endpoint)
        self.page_url = redact_text(page_url)[:PAGE_URL_CHARS]  # as a vote report names it
        embeddings = config.embeddings
        self.embeddings_url = urljoin(page_url, embeddings.endpoint) if embeddings else None
        # A server install answers at SERVER/answer and, unless told otherwise, takes votes.
        server = config.server.rstrip("/") if config.server else None
        self.server_url = urljoin(page_url, server + ANSWER_PATH) if server else None
        feedback = config.feedback_endpoint or (server + FEEDBACK_PATH if server else None)
        self.feedback_endpoint = urljoin(page_url, feedback) if feedback else None
        # Whether this tab writes to storage: history.enabled, and the reader's consent
        # when the site asks for it (docs_panel.core.consent).
        self.record = config.history.enabled
        self.conversation: Conversation | None = None
        # A private conversation is never merged into the archive; the shell keeps it in
        # sessionStorage (``private_copy``) for reloads of this tab only.
        self.private = False
        self.answer: _Answer | None = None
        self.listed = Archive()  # what the history list last read, for filtering as one types
        # The sections retrieved for each turn asked here, by turn key: a vote report
        # carries them (a restored turn has none; retrieval is never stored).
        self.retrieved: dict[str, tuple[str, ...]] = {}

    @staticmethod
    async def start(
        config: str, index_url: str, page_url: str, page_language: str, consent: str | None
    ) -> tuple[Tab, Reply]:
        """Validate the page's config and load the docs index."""
        parsed = parse_config(json.loads(config))
        payload = await _fetch_json(index_url)
        stemmers = payload.get("stemmers") if isinstance(payload, dict) else None
        if isinstance(stemmers, str):  # the Snowball stemmers of the site's languages
            add_stemmers(await _fetch_json(urljoin(index_url, stemmers)))
        index = load_index(payload)
        language = index.reader_language(page_language, urlsplit(page_url).path)
        tab = Tab(parsed.config, index, page_url, index_url, language)
        chosen = decide(parsed.config.history, consent)
        tab.record = chosen.record
        return tab, {
            "errors": list(parsed.errors),
            "record": chosen.record,
            "consent": chosen.state,
            "forget": list(chosen.forget),
            "events_text": parsed.config.events.text,
            "keep_in_flight": tab.keeps_in_flight,
            "scopes": [{"id": s.id, "label": s.label} for s in parsed.config.scopes],
            "reasons": list(REASONS),
        }

    @property
    def keeps_in_flight(self) -> bool:
        """Whether an answer still streaming is stored (checkpoints, pagehide, restore)."""
        return self.record and self.config.history.save_on_unload

    def _session(self) -> str:
        return json.dumps(session_value(self.conversation.id if self.conversation else None))

    def _view(self, conversation: Conversation | None) -> object:
        return conversation_view(conversation, self.index, self.origin)

    async def _add_parts(self, keys: Iterable[str]) -> None:
        """Fetch the index parts ``keys`` (beside the index) and add them to it."""
        keys = list(keys)
        files = [urljoin(self.index_url, self.index.part_file(key)) for key in keys]
        payloads = await asyncio.gather(*map(_fetch_json, files))
        for key, payload in zip(keys, payloads, strict=True):
            self.index.add_part(key, payload)

    async def _shown(self, conversation: Conversation | None) -> object:
        """``conversation``'s view, once the index parts holding its result pages' titles
        are in (a split index sends a page's title with the page's text)."""
        if conversation is not None:
            addresses = [item.address for turn in conversation.turns for item in turn.results]
            try:
                await self._add_parts(self.index.parts_needed("", addresses=addresses))
            except Exception as error:  # a part that cannot come costs subtitles, not the view
                js.console.warn(f"docs-panel: page titles not loaded: {error}")
        return self._view(conversation)

    async def restore(self, history: str | None, session: str | None, private: str | None) -> Reply:
        """At start-up: the conversation this tab goes on with, if it is its own (from
        the archive, or this tab's ``private`` copy)."""
        loaded = load_archive(history)
        left = read_session(session)
        wanted = left.conversation_id if adopts(left) else None
        kept_private = load_archive(private).archive.find(wanted) if wanted and private else None
        self.private = kept_private is not None
        self.conversation = kept_private or (loaded.archive.find(wanted) if wanted else None)
        # The answer that was streaming when the page left comes back stopped.
        persist = False
        if wanted and left.in_flight is not None and self.keeps_in_flight:
            turn = stopped_turn(left.in_flight)
            current = self.conversation or Conversation(wanted, (), self.index.version)
            kept = next((t for t in current.turns if t.key == turn.key), None)
            if kept is None or kept.status == "stopped":  # never undo a finished answer
                self.conversation = current.with_turn(turn)
                persist = True
        return {
            "adopted": adopts(left),
            "private": self.private,
            "conversation": await self._shown(self.conversation),
            "session": self._session(),
            # An older schema or skipped garbage: store the archive in today's form.
            "rewrite": loaded.needs_rewrite,
            "persist": persist,
        }

    def normalize(self, history: str | None) -> Reply:
        """The archive in the current schema, to write back; null when it is fine as it is."""
        loaded = load_archive(history)
        if not loaded.needs_rewrite:
            return {"value": None}
        bounds = self.config.history
        archive = apply_bounds(
            loaded.archive, max_conversations=bounds.max, max_bytes=bounds.max_bytes
        )
        return {"value": dump_archive(archive)}

    def redact(self, text: str) -> Reply:
        """The text with credentials masked, as it may be stored (drafts)."""
        return {"text": redact_text(text)}

    def quote(self, text: str) -> Reply:
        """A passage selected on the page, as the next question will carry it."""
        return {"text": quote_passage(text)}

    async def ask(self, question: str, scope: str, quote: str, instruction: str) -> Reply:
        """Plan the answer: a results turn at once, or a model answer to ``pull``.
        ``instruction``: the reader's own, sent to the model and never stored."""
        if self.answer is not None:
            raise ProtocolError("ask while an answer streams: the shell finishes it first")
        asked_at = _now()
        # The question's vector (hybrid retrieval) is asked for while the first parts
        # come; a split index needs the parts with the question's postings, then the
        # candidate pages' vectors, then the texts of the sections found.
        embedding = self._embedding(question, quote)
        vector = None
        while True:
            plan = self._plan(question, scope, quote, vector)
            if embedding is not None and not _needs_terms(plan):
                vector, embedding = await embedding, None  # then plan again with it
                continue
            if not isinstance(plan, NeedParts):
                break
            await self._add_parts(plan.keys)
        if self.conversation is None:
            self.conversation = self._new_conversation()
        self.retrieved[str(asked_at)] = tuple(hit.section.address for hit in plan.hits)
        if self.config.chat and self.server_url:  # the server retrieves again and decides
            return self._ask_server(plan, asked_at, question, scope, quote, instruction)
        if not (self.config.chat and plan.gate_open):
            turn = plan.results_turn(asked_at=asked_at, finished_at=_now())
            self._keep(turn)
            return self._asked(plan, turn_view(turn, self.index, self.origin), None)
        body = chat_request(
            plan, self.config, self.conversation, instruction=reader_instruction(instruction)
        )

        def renderer() -> StreamingRenderer:
            from docs_panel.core.render import StreamingRenderer  # markdown-it and bleach: only now

            return StreamingRenderer(
                site_origin=self.origin, page_exists=self.index.has_page, cite=plan.cite
            )

        stream = AnswerStream(self.endpoint, body, renderer, self.config.idle_timeout)
        self.answer = _Answer(plan, asked_at, stream)
        in_flight = json.dumps(turn_record(plan.in_flight_turn(asked_at=asked_at)))
        return self._asked(plan, None, in_flight)

    def _ask_server(
        self, plan: Plan, asked_at: int, question: str, scope: str, quote: str, instruction: str
    ) -> Reply:
        """Stream the answer from the server install. It is sent only what the reader
        gave; ``plan`` (this tab's own retrieval) is the search results if it fails."""
        assert self.server_url is not None
        answered = [turn for turn in self._turns() if turn.answer]
        signed = [turn.citations for turn in self._turns() if turn.sources]
        asked = ServerQuestion(
            question=plan.question,
            scope=scope,
            quote=plan.quote,
            instruction=reader_instruction(instruction),
            page_url=self.page_url,
            language=self.language,
            history=tuple(
                Exchange(
                    question=t.question[:QUESTION_CHARS],
                    answer=earlier_answer(t.answer),
                    quote=t.quote,
                )
                for t in answered[-HISTORY_TURNS:]
            ),
            citations=signed[-1] if signed else "",
        )
        stream: AnswerStream | None = None

        def renderer() -> StreamingRenderer:
            from docs_panel.core.render import StreamingRenderer  # markdown-it and bleach: only now

            def cite(n: int) -> str | None:
                return stream.cite(n) if stream is not None else None

            return StreamingRenderer(
                site_origin=self.origin, page_exists=self.index.has_page, cite=cite
            )

        stream = AnswerStream(
            self.server_url, question_body(asked), renderer, self.config.idle_timeout, server=True
        )
        self.answer = _Answer(plan, asked_at, stream)
        in_flight = json.dumps(turn_record(plan.in_flight_turn(asked_at=asked_at)))
        return self._asked(plan, None, in_flight)

    def _embedding(self, question: str, quote: str) -> asyncio.Task[list[float] | None] | None:
        """The question's vector, being fetched (None: lexical only, as configured)."""
        embeddings, url = self.config.embeddings, self.embeddings_url
        if embeddings is None or url is None:
            return None
        text = question_text(question, quote)
        return asyncio.ensure_future(question_vector(embeddings, url, text, self.index))

    def _plan(
        self, question: str, scope: str, quote: str, vector: list[float] | None = None
    ) -> Plan | NeedParts:
        return plan_answer(
            self.index,
            self.config,
            asked_question(question),
            scope_id=scope or None,
            quote=quote_passage(quote),
            previous=self.conversation,
            language=self.language,
            question_vector=vector,
        )

    def _asked(self, plan: Plan, turn: object, in_flight: str | None) -> Reply:
        return {
            "streaming": turn is None,
            "question": plan.question,
            "turn": turn,
            "in_flight": in_flight,
            "session": self._session(),
        }

    def _streaming(self) -> _Answer:
        if self.answer is None:
            raise ProtocolError("no answer is streaming: the shell must ask() first")
        return self.answer

    async def pull(self) -> Reply:
        """What the streaming answer added since the last pull (waits for news a while)."""
        update = await self._streaming().stream.pull(CHECKPOINT_S)
        return {
            "stable": update.stable,
            "tail": update.tail,
            "reasoning": update.reasoning,
            "text": update.text,
            "ended": update.ended,
            "error": str(update.error) if update.error else None,
            "retry_after": update.error.retry_after_s if update.error else None,
        }

    def stop(self) -> Reply:
        """Abort the request; the answer keeps what arrived."""
        if self.answer is not None:
            self.answer.stream.stop()
        return {}

    def finish(self, outcome: str) -> Reply:
        """The ended answer as a turn of ``outcome``: "done", "stopped" or "failed"."""
        answer = self._streaming()
        self.answer = None
        # A server whose gate stayed shut answers with no text: the matching sections.
        shut = outcome == "done" and not answer.stream.answering
        if outcome == "failed" or shut:  # the model failed mid-answer: the sections instead
            if not shut:
                js.console.warn(
                    f"docs-panel: answering with search results instead: {answer.stream.error}"
                )
            turn = answer.plan.results_turn(asked_at=answer.asked_at, finished_at=_now())
        elif outcome in ("done", "stopped"):
            turn = self._answer_turn(answer, "done" if outcome == "done" else "stopped")
        else:
            raise ProtocolError(f"finish: unknown outcome {outcome!r}")
        self._keep(turn)
        return {"turn": turn_view(turn, self.index, self.origin), "session": self._session()}

    def _answer_turn(self, answer: _Answer, status: Status) -> Turn:
        text, stream = "".join(answer.stream.answer), answer.stream
        return answer.plan.answer_turn(
            text,
            status,
            asked_at=answer.asked_at,
            finished_at=_now(),
            context=stream.sources,
            citations=stream.citations,
        )

    def _new_conversation(self) -> Conversation:
        return Conversation(id=secrets.token_hex(8), turns=(), index_version=self.index.version)

    def _keep(self, turn: Turn) -> None:
        """Add ``turn`` to this tab's conversation (or replace its checkpointed copy)."""
        current = self.conversation or self._new_conversation()
        self.conversation = replace(current.with_turn(turn), index_version=self.index.version)

    def save(self, history: str | None, checkpoint: bool) -> Reply:
        """The archive with this tab's conversation merged in, bounds applied (null: no
        write). ``checkpoint``: the answer streaming now goes in as a stopped turn first."""
        self._checkpoint(checkpoint)
        if self.conversation is None or not self.record or self.private:
            return {"value": None}
        bounds = self.config.history
        try:
            value = upsert(
                history,
                self.conversation,
                max_conversations=bounds.max,
                max_bytes=bounds.max_bytes,
            ).value
        except StorageError as err:  # a newer version's archive: never overwrite it
            js.console.warn(f"docs-panel: {err}")
            value = None
        return {"value": value}

    def _checkpoint(self, checkpoint: bool) -> None:
        if checkpoint and self.answer is not None and self.keeps_in_flight:
            self._keep(self._answer_turn(self.answer, "stopped"))

    def set_private(self, on: bool) -> Reply:
        """Make the new chat's conversation private (or not): only before its first turn."""
        if self._turns():
            raise ProtocolError("set_private after the first question: the shell hides it then")
        self.private = on
        return {}

    def private_copy(self, checkpoint: bool) -> Reply:
        """The private conversation as this tab's sessionStorage keeps it (null: none),
        in the archive's format; ``checkpoint`` as for ``save``."""
        self._checkpoint(checkpoint)
        if not (self.private and self.conversation and self.conversation.turns):
            return {"copy": None}
        return {"copy": dump_archive(Archive((self.conversation,)))}

    def export(self, history: str | None, id: str) -> Reply:
        """The export file of one stored conversation (``id``), or of all (``id`` "")."""
        archive = load_archive(history).archive
        exported = export_file(archive, [id] if id else None, origin=self.origin, now_ms=_now())
        return {"name": exported.name, "text": exported.text}

    def import_file(self, history: str | None, text: str) -> Reply:
        """The archive with an export file merged in; a file refused changes nothing."""
        bounds = self.config.history
        if not self.record:  # history off, or no consent (yet): nothing is written
            raise ProtocolError("import_file with history off or no consent: no Import is offered")
        try:
            merged = merge_import(
                history,
                read_export(text, origin=self.origin),
                max_conversations=bounds.max,
                max_bytes=bounds.max_bytes,
            )
        except ImportRefused as err:
            js.console.warn(f"docs-panel: import refused: {err}")
            return {"value": None, "changed": 0, "refused": err.reason}
        except StorageError as err:  # a newer version's archive: never overwrite it
            js.console.warn(f"docs-panel: {err}")
            return {"value": None, "changed": 0, "refused": "newer"}
        return {"value": merged.value, "changed": merged.changed, "refused": ""}

    def evict(self, history: str) -> Reply:
        """A smaller archive after a full quota; null when only this turn is left."""
        return {"value": evict_one_more(history)}

    def conversations(self, history: str | None, query: str) -> Reply:
        """The history list: newest activity first, with when its last question was asked;
        only the conversations holding every word of ``query`` when it is not blank."""
        self.listed = load_archive(history).archive
        return self.filter_conversations(query)

    def filter_conversations(self, query: str) -> Reply:
        """The rows of the archive the list last read that hold every word of ``query``."""
        now = _now()
        rows = [history_row(row, now=now) for row in matching(self.listed, query)]
        return {"rows": rows, "current": self.conversation.id if self.conversation else None}

    async def open_conversation(self, history: str | None, id: str) -> Reply:
        """Switch this tab to a stored conversation; the reader carries on in it."""
        found = load_archive(history).archive.find(id)
        if found is not None:
            self.conversation, self.private = found, False
        return {"conversation": await self._shown(found), "session": self._session()}

    def new_chat(self) -> Reply:
        """Start afresh; the old conversation stays in the archive."""
        self.conversation, self.private = None, False
        return {"session": self._session()}

    def delete_conversation(self, history: str | None, id: str) -> Reply:
        """The archive without that conversation; the one on screen is let go."""
        on_screen = self.conversation is not None and self.conversation.id == id
        if on_screen:
            self.conversation = None
        try:
            value = delete(history, id)
        except StorageError as err:
            js.console.warn(f"docs-panel: {err}")
            value = None
        return {"value": value, "on_screen": on_screen, "session": self._session()}

    def delete_all(self) -> Reply:
        """Forget everything: the shell removes the archive and the feedback log."""
        return self.new_chat()

    def vote(self, feedback: str | None, key: str, vote: str, reasons: str, sentence: str) -> Reply:
        """Put the reader's vote on a turn of this conversation, send it if
        ``feedback.send`` allows, and return the feedback log to write."""
        turn = next((t for t in self._turns() if turn_key(t) == key), None)
        if turn is None or vote not in ("up", "down", ""):
            raise ProtocolError(f"vote: no turn {key!r} on screen, or vote {vote!r} unknown")
        voted = cast_vote(
            turn,
            "up" if vote == "up" else "down" if vote == "down" else None,
            reasons.split(","),
            redact_text(sentence),
            new_id=lambda: secrets.token_hex(8),
        )
        self._keep(voted)
        sent = report(
            voted, retrieved=self.retrieved.get(key, ()), page_url=self.page_url, now=_now()
        )
        endpoint = self.feedback_endpoint
        if endpoint and should_send(self.config.feedback.send, voted.vote, previous=turn.vote):
            deliver(endpoint, sent)
        conversation_id = self.conversation.id if self.conversation else ""
        # A private conversation's votes stay off the device too (the endpoint still gets them).
        logs = self.record and not self.private
        logged = log_vote(feedback, conversation_id, sent) if logs else None
        return {"value": logged, "feedback": feedback_view(voted)}

    def _turns(self) -> tuple[Turn, ...]:
        return self.conversation.turns if self.conversation else ()

    def drop_feedback(self, feedback: str | None, id: str) -> Reply:
        """The feedback log without a deleted conversation's votes (null: nothing stored)."""
        return {"value": drop_conversation(feedback, id) if feedback else None}

    def consent(self, choice: str) -> Reply:
        """The reader chose in the notice or in Settings (``docs_panel.core.consent``)."""
        chosen, value = choose(self.config.history, choice)
        self.record = chosen.record
        return {
            "record": chosen.record,
            "keep_in_flight": self.keeps_in_flight,
            "stored": value,
            "forget": list(chosen.forget),
        }

    def check_regressed(self, history: str | None) -> Reply:
        """Whether another tab's write lost this tab's newest turn (then write again)."""
        mine = self.conversation
        return {"regressed": mine is not None and regressed(mine, history)}
