"""The worker's adapter in CPython (with stand-ins for the browser's ``js``): every
reply it gives passes the protocol's check, and its methods take the declared arguments."""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
import types
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from widget.core.docs_index import Section
from widget.core.index_build import build_index, split_index
from widget.core.protocol import CALLS, decode_reply, encode_reply

SECTIONS = [
    Section("/guides/retries.html", "Retries", "Retries", "Failed jobs are retried with backoff."),
    Section("/api/jobs.html#retry", "Jobs API", "Retry a job", "POST /jobs/{id}/retry retries."),
]
PAGE = "https://docs.example.org/guides/index.html"


# The index as the bundle serves it: a head and parts beside it (split small, so a
# question reads some parts, in two rounds).
HEAD, PARTS = split_index(build_index(SECTIONS), part_bytes=40, split_bytes=0)
HEAD["parts"]["files"] = {key: f"index-{key}.json" for key in PARTS}
FILES = {"/index.json": HEAD} | {f"/index-{key}.json": part for key, part in PARTS.items()}


class Response:
    def __init__(self, body: bytes, status: int = 200) -> None:
        self.body, self.status, self.ok = body, status, status == 200

    async def arrayBuffer(self) -> Any:  # the browser's name
        return types.SimpleNamespace(to_bytes=lambda: self.body)  # as a JsBuffer gives it


async def fetch(url: str, *args: object) -> Response:
    fetched.append(url)
    if url in missing:
        return Response(b"", 404)
    return Response(json.dumps(FILES[url]).encode())


fetched: list[str] = []
missing: set[str] = set()  # files the host answers 404 for


@pytest.fixture
def tab_module(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """widget.worker.tab imported against stand-ins for ``js`` and ``pyodide.ffi``."""
    warnings: list[str] = []
    fake_js = types.SimpleNamespace(
        fetch=fetch, console=types.SimpleNamespace(warn=warnings.append)
    )
    ffi = types.ModuleType("pyodide.ffi")
    ffi.to_js = lambda value, **kw: value  # type: ignore[attr-defined]
    ffi.jsnull = object()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "js", fake_js)
    monkeypatch.setitem(sys.modules, "pyodide", types.ModuleType("pyodide"))
    monkeypatch.setitem(sys.modules, "pyodide.ffi", ffi)
    for name in ("widget.worker.tab", "widget.worker.streaming"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    import widget.worker.tab as module

    module.warnings = warnings
    yield module


def run(coroutine: Any) -> Any:
    """Run ``coroutine`` to its end on a loop of its own (Playwright's sync API may hold
    this thread's loop when the browser tests ran first in the same session)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def reply(name: str, fields: dict[str, object]) -> Any:
    """What the shell would read: the reply checked out and back in."""
    return decode_reply(name, json.loads(encode_reply(name, fields)))


def test_each_call_is_a_method_with_the_declared_arguments(tab_module: Any) -> None:
    """Tab has one method per protocol call, taking exactly the declared arguments in order."""
    for name, (args, _) in CALLS.items():
        method = getattr(tab_module.Tab, name)
        params = [p for p in inspect.signature(method).parameters if p != "self"]
        assert params == [field for field, _ in args], name


def test_a_conversation_through_every_call(tab_module: Any) -> None:
    """start → restore → ask → save → list → open → delete: every reply is as declared."""
    config = json.dumps({"chat": False, "gat": 1})
    tab, fields = run(tab_module.Tab.start(config, "/index.json", PAGE, "en", None))
    started = reply("start", fields)
    assert started.record is True and "not_asked" in started.reasons
    assert started.errors == ['docsPanel.gat: unknown key; did you mean "gate"?']

    assert reply("restore", tab.restore(None, None)).conversation is None
    question = "how do I retry? token=ghp_FAKE0123456789abcdefghijklmnopqrstuv"
    fetched.clear()
    asked = reply("ask", run(tab.ask(question, "", "", "")))
    assert asked.streaming is False and "[redacted" in asked.question
    assert 0 < len(fetched) < len(PARTS)  # only the parts this question reads
    assert asked.turn.results[0].address.startswith("/")
    stored = reply("save", tab.save(None, False)).value
    assert stored is not None

    listing = reply("conversations", tab.conversations(stored))
    [row] = listing.rows
    assert listing.current == row.id and row.when_unit == "second"
    assert reply("check_regressed", tab.check_regressed(stored)).regressed is False
    assert reply("new_chat", tab.new_chat()).session == json.dumps({"id": None, "left": False})
    opened = reply("open_conversation", tab.open_conversation(stored, row.id))
    assert opened.conversation.turns[0].status == "results"
    assert opened.conversation.docs_changed is False

    deleted = reply("delete_conversation", tab.delete_conversation(stored, row.id))
    assert deleted.on_screen is True and json.loads(deleted.value)["conversations"] == []
    assert reply("delete_all", tab.delete_all()).session
    assert reply("normalize", tab.normalize(stored)).value is None
    assert "hunter2" not in reply("redact", tab.redact("password=hunter2hunter2")).text


def test_a_streamed_answer_finishes_as_its_lifecycle_says(tab_module: Any) -> None:
    """finish("stopped") keeps what arrived; finish("failed") gives the sections instead."""
    tab, _ = run(tab_module.Tab.start("{}", "/index.json", PAGE, "en", None))
    # The model path streams with fetch: stand a finished stream in for it.
    stream = types.SimpleNamespace(answer=["Retry it ", "[1]."], error=None, stop=lambda: None)
    tab_module.AnswerStream = lambda url, body, renderer, idle_s: stream
    asked = reply("ask", run(tab.ask("how do I retry a job", "", "", "")))
    assert asked.streaming is True and json.loads(asked.in_flight)["status"] == "stopped"
    stopped = reply("finish", tab.finish("stopped"))
    assert stopped.turn.status == "stopped" and "Retry it" in stopped.turn.answer
    assert stopped.turn.sources[0].ref == 1

    assert reply("ask", run(tab.ask("retry a job with backoff", "", "", ""))).streaming
    stream.error = "HTTP 500"
    failed = reply("finish", tab.finish("failed"))
    assert failed.turn.status == "results" and failed.turn.results
    assert "HTTP 500" in tab_module.warnings[-1]


def test_a_part_that_cannot_be_fetched_fails_that_question_only(tab_module: Any) -> None:
    """A part the host does not send fails the question with a clear error; the index
    stays usable, and the same question works once the part can be fetched."""
    tab, _ = run(tab_module.Tab.start('{"chat": false}', "/index.json", PAGE, "en", None))
    missing.update(f"/index-{key}.json" for key in PARTS if key.startswith("text-"))
    try:
        with pytest.raises(tab_module.DocsIndexError, match="HTTP 404"):
            run(tab.ask("retry a job", "", "", ""))
    finally:
        missing.clear()
    assert reply("ask", run(tab.ask("retry a job", "", "", ""))).turn.results


def test_with_consent_asked_nothing_is_written_until_the_reader_accepts(tab_module: Any) -> None:
    """history.consent "ask": the archive and the feedback log get nothing to write until
    the "consent" call grants it; then the conversation kept in memory is written."""
    config = json.dumps({"chat": False, "history": {"consent": "ask"}})
    tab, fields = run(tab_module.Tab.start(config, "/index.json", PAGE, "en", None))
    started = reply("start", fields)
    assert (started.record, started.consent, started.forget) == (False, "pending", [])
    asked = reply("ask", run(tab.ask("how do I retry a job", "", "", "")))
    assert reply("save", tab.save(None, False)).value is None
    assert reply("vote", tab.vote(None, asked.turn.key, "up", "", "")).value is None
    later = reply("consent", tab.consent("later"))
    assert (later.record, later.stored) == (False, None)
    assert reply("save", tab.save(None, False)).value is None
    granted = reply("consent", tab.consent("granted"))
    assert (granted.record, granted.keep_in_flight, granted.stored) == (True, True, "granted")
    stored = reply("save", tab.save(None, False)).value
    assert json.loads(stored)["conversations"][0]["turns"][0]["vote"] == "up"
    denied = reply("consent", tab.consent("denied"))
    assert (denied.record, denied.stored) == (False, "denied") and "history" in denied.forget
    assert "consent" not in denied.forget
    assert reply("save", tab.save(stored, False)).value is None
