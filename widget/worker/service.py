"""What the worker does for the shell: the core's decisions, plus the I/O only a
worker can do (fetching the index). The shell does all storage I/O: it passes
stored strings in and writes the strings that come back. Replies are JSON
strings, so nothing but plain values crosses between Pyodide and MicroPython::

    reply = json.loads(await worker.start(config_json, "en", index_url))
    reply["errors"]                     # one message per bad config key
    json.loads(await worker.ask("how do I retry a job", "api"))["turn"]["results"]
    await worker.save(localStorage.getItem(reply["keys"]["history"]))   # str to store, or None

The worker holds this tab's current conversation; every write merges it into
what another tab may have stored meanwhile (``history.upsert``).
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, replace

import js  # type: ignore[import-not-found]

from widget.core.answers import results_turn, turn_view
from widget.core.config import Config, config_to_json, parse_config, resolve_language
from widget.core.docs_index import DocsIndex, load_index
from widget.core.errors import DocsIndexError, StorageError
from widget.core.history import (
    Conversation,
    apply_bounds,
    delete,
    dump_archive,
    evict_one_more,
    listing,
    load_archive,
    regressed,
    upsert,
)
from widget.core.i18n import relative_time
from widget.core.redact import redact_text
from widget.core.session import adopts, read_session, session_value

STORAGE_KEYS = ("history", "feedback", "conversation", "composer.draft", "instruction")


@dataclass
class _Tab:
    config: Config
    index: DocsIndex
    conversation: Conversation | None = None


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


def _conversation_view(conversation: Conversation | None, index: DocsIndex) -> object:
    if conversation is None:
        return None
    return {
        "id": conversation.id,
        "turns": [turn_view(turn, index) for turn in conversation.turns],
        "docsChanged": conversation.index_version != index.version,
    }


def _session() -> dict[str, object]:
    conversation = _state().conversation
    return session_value(conversation.id if conversation else None)


async def start(config_json: str, html_lang: str, index_url: str) -> str:
    """Validate the page's config and load the docs index; reply with both outcomes."""
    global _tab
    parsed = parse_config(json.loads(config_json))
    index = load_index(await _fetch_json(index_url))
    _tab = _Tab(config=parsed.config, index=index)
    return _reply(
        config=config_to_json(parsed.config),
        errors=list(parsed.errors),
        keys={name: parsed.config.storage_key(name) for name in STORAGE_KEYS},
        record=parsed.config.history.enabled,
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
    return _reply(
        adopted=adopts(session),
        conversation=_conversation_view(state.conversation, state.index),
        session=_session(),
        # An older schema or skipped garbage: store the archive in today's form.
        rewrite=loaded.needs_rewrite,
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


def ask(question: str, scope_id: str) -> str:
    """Answer with the best-matching sections; the turn joins this tab's conversation."""
    state = _state()
    asked_at = _now()
    turn = results_turn(
        state.index,
        state.config,
        redact_text(question),
        scope_id or None,
        asked_at=asked_at,
        finished_at=_now(),
    )
    current = state.conversation or Conversation(
        id=secrets.token_hex(8), turns=(), index_version=state.index.version
    )
    state.conversation = replace(
        current, turns=(*current.turns, turn), index_version=state.index.version
    )
    return _reply(turn=turn_view(turn, state.index), session=_session())


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
    return _reply(conversation=_conversation_view(found, state.index), session=_session())


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
