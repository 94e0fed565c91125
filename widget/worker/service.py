"""What the worker does for the shell: the core's decisions, plus the I/O only a
worker can do (fetching the index, streaming answers). The shell does all storage
I/O: it passes stored strings in and writes the strings that come back. Replies
are JSON strings, so nothing but plain values crosses between Pyodide and
MicroPython::

    reply = json.loads(await worker.start(config_json, "en", index_url, location.href))
    reply["errors"]                     # one message per bad config key
    asked = json.loads(await worker.ask("how do I retry a job", "api", ""))
    if asked["streaming"]:              # the model answers: pull until "final"
        update = json.loads(await worker.pull())
    await worker.save(localStorage.getItem(reply["keys"]["history"]))   # str to store, or None

The worker holds this tab's current conversation; every write merges it into
what another tab may have stored meanwhile (``history.upsert``).
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, replace
from urllib.parse import urljoin, urlsplit

import js  # type: ignore[import-not-found]

from widget.core.answers import Plan, chat_request, plan_answer, turn_view
from widget.core.config import Config, config_to_json, parse_config, resolve_language
from widget.core.docs_index import DocsIndex, load_index
from widget.core.errors import DocsIndexError, StorageError
from widget.core.history import (
    Conversation,
    Status,
    Turn,
    apply_bounds,
    delete,
    dump_archive,
    evict_one_more,
    listing,
    load_archive,
    regressed,
    turn_record,
    upsert,
)
from widget.core.i18n import relative_time
from widget.core.redact import redact_text
from widget.core.render import StreamingRenderer
from widget.core.session import adopts, read_session, session_value, stopped_turn
from widget.worker.streaming import AnswerStream

CHECKPOINT_S = 2.0
"""How often a streaming answer is written to the archive as a stopped turn, so a tab
that is killed mid-answer keeps what reached it."""

STORAGE_KEYS = ("history", "feedback", "conversation", "composer.draft", "instruction")


@dataclass
class _Answer:
    """The answer streaming in this tab, and what it needs to become a turn."""

    plan: Plan
    asked_at: int
    stream: AnswerStream
    checkpointed_at: float
    checkpointed_parts: int = 0


@dataclass
class _Tab:
    config: Config
    index: DocsIndex
    origin: str
    endpoint: str
    conversation: Conversation | None = None
    answer: _Answer | None = None


_tab: _Tab | None = None


def _state() -> _Tab:
    if _tab is None:
        raise RuntimeError("the shell must await start() before any other call")
    return _tab


def _reply(**values: object) -> str:
    return json.dumps(values)


def _now() -> int:
    return int(time.time() * 1000)


async def _fetch_json(url: str) -> object:
    response = await js.fetch(url)
    if not response.ok:
        raise DocsIndexError(f"could not load {url}: HTTP {response.status}; rebuild with build.py")
    return json.loads(await response.text())


def _view(turn: Turn) -> dict[str, object]:
    state = _state()
    return turn_view(turn, state.index, state.origin)


def _conversation_view(conversation: Conversation | None) -> object:
    if conversation is None:
        return None
    return {
        "id": conversation.id,
        "turns": [_view(turn) for turn in conversation.turns],
        "docsChanged": conversation.index_version != _state().index.version,
    }


def _keeps_in_flight() -> bool:
    """Whether an answer still streaming is stored (checkpoints, pagehide, restore)."""
    history = _state().config.history
    return history.enabled and history.save_on_unload


def _session() -> dict[str, object]:
    conversation = _state().conversation
    return session_value(conversation.id if conversation else None)


async def start(config_json: str, html_lang: str, index_url: str, page_url: str) -> str:
    """Validate the page's config and load the docs index; reply with both outcomes."""
    global _tab
    parsed = parse_config(json.loads(config_json))
    index = load_index(await _fetch_json(index_url))
    page = urlsplit(page_url)
    _tab = _Tab(
        config=parsed.config,
        index=index,
        origin=f"{page.scheme}://{page.netloc}",
        endpoint=urljoin(page_url, parsed.config.endpoint),
    )
    return _reply(
        config=config_to_json(parsed.config),
        errors=list(parsed.errors),
        keys={name: parsed.config.storage_key(name) for name in STORAGE_KEYS},
        record=parsed.config.history.enabled,
        saveOnUnload=_keeps_in_flight(),
        language=resolve_language(parsed.config.language, html_lang),
        lockName=parsed.config.storage_key("history"),
    )


def restore(history_raw: str | None, session_raw: str | None) -> str:
    """At start-up: the conversation this tab goes on with, if it is its own."""
    state = _state()
    loaded = load_archive(history_raw)
    session = read_session(session_raw)
    wanted = session.conversation_id if adopts(session) else None
    state.conversation = loaded.archive.find(wanted) if wanted else None
    # The answer that was streaming when the page left comes back stopped.
    persist = False
    if wanted and session.in_flight is not None and _keeps_in_flight():
        turn = stopped_turn(session.in_flight)
        current = state.conversation or Conversation(wanted, (), state.index.version)
        kept = next((t for t in current.turns if t.key == turn.key), None)
        if kept is None or kept.status == "stopped":  # never undo a finished answer
            state.conversation = current.with_turn(turn)
            persist = True
    return _reply(
        adopted=adopts(session),
        conversation=_conversation_view(state.conversation),
        session=_session(),
        # An older schema or skipped garbage: store the archive in today's form.
        rewrite=loaded.needs_rewrite,
        persist=persist,
    )


def normalize(history_raw: str | None) -> str | None:
    """The archive in the current schema, to write back; None when it is fine as it is."""
    loaded = load_archive(history_raw)
    if not loaded.needs_rewrite:
        return None
    bounds = _state().config.history
    archive = apply_bounds(loaded.archive, max_conversations=bounds.max, max_bytes=bounds.max_bytes)
    return dump_archive(archive)


def redact(text: str) -> str:
    """The text with credentials masked, as it may be stored (drafts)."""
    return redact_text(text)


def ask(question: str, scope_id: str, quote: str) -> str:
    """Start answering; the turn joins this tab's conversation when it is complete.

    With the model (``chat`` on, gate open) the reply says ``streaming``, carries
    the in-flight turn record the shell keeps for ``pagehide``, and the shell then
    calls :func:`pull`; otherwise it carries the finished results turn.
    """
    state = _state()
    if state.answer is not None:  # one answer at a time: the shell stops the last first
        state.answer.stream.stop()
    asked_at = _now()
    plan = plan_answer(
        state.index,
        state.config,
        redact_text(question),
        scope_id=scope_id or None,
        quote=redact_text(quote),
        previous=state.conversation,
    )
    if not (state.config.chat and plan.gate_open):
        turn = plan.results_turn(asked_at=asked_at, finished_at=_now())
        _keep(turn)
        return _reply(streaming=False, turn=_view(turn), session=_session())
    body = chat_request(plan, state.config, state.conversation)
    renderer = StreamingRenderer(
        site_origin=state.origin, page_exists=state.index.has_page, cite=plan.cite
    )
    stream = AnswerStream(state.endpoint, body, renderer)
    state.answer = _Answer(plan, asked_at, stream, checkpointed_at=time.monotonic())
    if state.conversation is None:
        state.conversation = _new_conversation()
    return _reply(
        streaming=True,
        question=plan.question,
        quote=plan.quote,
        inFlight=turn_record(plan.in_flight_turn(asked_at=asked_at)),
        session=_session(),
    )


async def pull() -> str:
    """What the streaming answer has added since the last pull; ``final`` once it ended."""
    state = _state()
    answer = state.answer
    if answer is None:
        raise RuntimeError("pull() without an answer streaming: call ask() first")
    update = await answer.stream.pull(CHECKPOINT_S)
    reply: dict[str, object] = {
        "stable": update.stable,
        "tail": update.tail,
        "reasoning": update.reasoning,
        "text": update.text,
        "checkpoint": False,
        "final": None,
    }
    if update.ended:
        reply["final"] = _finish(answer)
    elif _keeps_in_flight() and _checkpoint_due(answer):
        _keep(_answer_turn(answer, "stopped"))
        reply["checkpoint"] = True
    return json.dumps(reply)


def _checkpoint_due(answer: _Answer) -> bool:
    """Whether text arrived since the last checkpoint, at least CHECKPOINT_S ago."""
    parts = len(answer.stream.answer)
    if (
        parts == answer.checkpointed_parts
        or time.monotonic() - answer.checkpointed_at < CHECKPOINT_S
    ):
        return False
    answer.checkpointed_at, answer.checkpointed_parts = time.monotonic(), parts
    return True


def stop() -> None:
    """The reader pressed Stop: the answer ends as a stopped turn with what arrived."""
    answer = _state().answer
    if answer is not None:
        answer.stream.stop()


def _answer_turn(answer: _Answer, status: Status) -> Turn:
    text = "".join(answer.stream.answer)
    return answer.plan.answer_turn(text, status, asked_at=answer.asked_at, finished_at=_now())


def _finish(answer: _Answer) -> dict[str, object]:
    state = _state()
    state.answer = None
    outcome = answer.stream.outcome
    if isinstance(outcome, str):
        turn = _answer_turn(answer, outcome)
    else:  # the model failed mid-answer: the reader gets the matching sections
        js.console.warn(f"docs-panel: answering with search results instead: {outcome}")
        turn = answer.plan.results_turn(asked_at=answer.asked_at, finished_at=_now())
    _keep(turn)
    return {"turn": _view(turn), "failed": not isinstance(outcome, str), "session": _session()}


def _new_conversation() -> Conversation:
    return Conversation(id=secrets.token_hex(8), turns=(), index_version=_state().index.version)


def _keep(turn: Turn) -> None:
    """Add ``turn`` to this tab's conversation (or replace its checkpointed copy)."""
    state = _state()
    current = state.conversation or _new_conversation()
    state.conversation = replace(current.with_turn(turn), index_version=state.index.version)


def save(history_raw: str | None) -> str | None:
    """The archive with this tab's conversation merged in and bounds applied (None: no write)."""
    state = _state()
    if state.conversation is None or not state.config.history.enabled:
        return None
    bounds = state.config.history
    try:
        return upsert(
            history_raw,
            state.conversation,
            max_conversations=bounds.max,
            max_bytes=bounds.max_bytes,
        ).value
    except StorageError as err:  # a newer version's archive: never overwrite it
        js.console.warn(f"docs-panel: {err}")
        return None


def evict(value: str) -> str | None:
    """A smaller archive after a full quota; None when only this turn is left."""
    return evict_one_more(value)


def conversations(history_raw: str | None) -> str:
    """The history list: newest activity first, with the relative time of the last question."""
    now = _now()
    state = _state()
    rows = [
        {
            "id": row.id,
            "title": row.title,
            "when": relative_time(then_ms=row.last_question_at, now_ms=now),
        }
        for row in listing(load_archive(history_raw).archive)
    ]
    current = state.conversation.id if state.conversation else None
    return _reply(rows=rows, current=current)


def open_conversation(history_raw: str | None, conversation_id: str) -> str:
    """Switch this tab to a stored conversation; the reader carries on in it."""
    state = _state()
    found = load_archive(history_raw).archive.find(conversation_id)
    if found is not None:
        state.conversation = found
    return _reply(conversation=_conversation_view(found), session=_session())


def new_chat() -> str:
    """Start afresh; the old conversation stays in the archive."""
    _state().conversation = None
    return _reply(session=_session())


def delete_conversation(history_raw: str | None, conversation_id: str) -> str | None:
    """The archive without that conversation (None: leave it); one on screen is let go."""
    state = _state()
    if state.conversation is not None and state.conversation.id == conversation_id:
        state.conversation = None
    try:
        return delete(history_raw, conversation_id)
    except StorageError as err:
        js.console.warn(f"docs-panel: {err}")
        return None


def delete_all() -> str:
    """Forget everything: the shell removes the archive and the feedback log."""
    _state().conversation = None
    return _reply(session=_session())


def check_regressed(history_raw: str | None) -> str:
    """Whether another tab's write lost this tab's newest turn (then write again)."""
    conversation = _state().conversation
    return _reply(regressed=conversation is not None and regressed(conversation, history_raw))
