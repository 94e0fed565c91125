"""The worker's adapter in CPython (with stand-ins for the browser's ``js``): every
reply it gives passes the protocol's check, and its methods take the declared arguments."""

from __future__ import annotations

import inspect
import json
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

from docs_panel.build.index_build import build_index, split_index
from docs_panel.core.docs_index import Section
from docs_panel.core.history_schema import Source
from docs_panel.core.server_wire import ServerQuestion, question_body
from docs_panel.portable.protocol import CALLS, decode_reply, encode_reply
from tests.event_loops import on_own_loop

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
    """docs_panel.worker.tab imported against stand-ins for ``js`` and ``pyodide.ffi``."""
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
    for name in ("docs_panel.worker.tab", "docs_panel.worker.streaming"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    import docs_panel.worker.tab as module

    module.warnings = warnings
    yield module


run = on_own_loop


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

    assert reply("restore", run(tab.restore(None, None, None))).conversation is None
    question = "how do I retry? token=ghp_FAKE0123456789abcdefghijklmnopqrstuv"
    fetched.clear()
    asked = reply("ask", run(tab.ask(question, "", "", "")))
    assert asked.streaming is False and "[redacted" in asked.question
    assert 0 < len(fetched) < len(PARTS)  # only the parts this question reads
    assert asked.turn.results[0].address.startswith("/")
    stored = reply("save", tab.save(None, False)).value
    assert stored is not None

    listing = reply("conversations", tab.conversations(stored, ""))
    [row] = listing.rows
    assert listing.current == row.id and row.when_unit == "second"
    assert reply("check_regressed", tab.check_regressed(stored)).regressed is False
    assert reply("new_chat", tab.new_chat()).session == json.dumps({"id": None, "left": False})
    opened = reply("open_conversation", run(tab.open_conversation(stored, row.id)))
    assert opened.conversation.turns[0].status == "results"
    assert opened.conversation.docs_changed is False

    deleted = reply("delete_conversation", tab.delete_conversation(stored, row.id))
    assert deleted.on_screen is True and json.loads(deleted.value)["conversations"] == []
    assert reply("delete_all", tab.delete_all()).session
    assert reply("normalize", tab.normalize(stored)).value is None
    assert "hunter2" not in reply("redact", tab.redact("password=hunter2hunter2")).text


def test_a_restored_conversation_shows_its_result_pages_titles(tab_module: Any) -> None:
    """A split index sends a page's title with its text: a conversation restored or
    opened in a new tab fetches those parts, so its result rows keep their pages."""
    config = json.dumps({"chat": False})
    tab, _ = run(tab_module.Tab.start(config, "/index.json", PAGE, "en", None))
    asked = reply("ask", run(tab.ask("retry a job", "", "", "")))
    shown = {item.address: item.page for item in asked.turn.results}
    assert shown["/api/jobs.html#retry"] == "Jobs API"
    stored = reply("save", tab.save(None, False)).value
    [row] = reply("conversations", tab.conversations(stored, "")).rows
    session = json.dumps({"id": row.id, "left": True})

    again, _ = run(tab_module.Tab.start(config, "/index.json", PAGE, "en", None))
    restored = reply("restore", run(again.restore(stored, session, None))).conversation
    assert {item.address: item.page for item in restored.turns[0].results} == shown
    fresh, _ = run(tab_module.Tab.start(config, "/index.json", PAGE, "en", None))
    opened = reply("open_conversation", run(fresh.open_conversation(stored, row.id)))
    assert {item.address: item.page for item in opened.conversation.turns[0].results} == shown

    missing.update(f"/index-{key}.json" for key in PARTS if key.startswith("text"))
    try:  # a part that cannot come costs the subtitles, not the conversation
        last, _ = run(tab_module.Tab.start(config, "/index.json", PAGE, "en", None))
        opened = reply("open_conversation", run(last.open_conversation(stored, row.id)))
        assert all(item.page == "" for item in opened.conversation.turns[0].results)
        assert tab_module.warnings
    finally:
        missing.clear()


def test_a_streamed_answer_finishes_as_its_lifecycle_says(tab_module: Any) -> None:
    """finish("stopped") keeps what arrived; finish("failed") gives the sections instead."""
    tab, _ = run(tab_module.Tab.start("{}", "/index.json", PAGE, "en", None))
    # The model path streams with fetch: stand a finished stream in for it.
    stream = finished_stream(["Retry it ", "[1]."])
    tab_module.AnswerStream = lambda url, body, renderer, idle_s, **kw: stream
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


def finished_stream(answer: list[str], **server: object) -> Any:
    """A stand-in for an AnswerStream that has ended; ``server``: what a server sent."""
    fields = {"sources": None, "answering": True, "citations": ""} | server
    return types.SimpleNamespace(answer=answer, error=None, stop=lambda: None, **fields)


def test_in_server_mode_the_worker_sends_only_the_readers_words(tab_module: Any) -> None:
    """With ``server`` set, the question goes to SERVER/answer with the wire's fields only
    (no messages, no model); the server's numbering names the sources, its signed list is
    kept on the turn and sent back with the follow-up, with the earlier exchange."""
    config = json.dumps({"server": "/docs-panel-api/", "model": "never-sent"})
    tab, _ = run(tab_module.Tab.start(config, "/index.json", PAGE, "en", None))
    sent: list[tuple[str, dict[str, Any], bool]] = []
    server_sources = (Source("/guides/retries.html", "Retries", 1),)
    stream = finished_stream(["Back off [1]."], sources=server_sources, citations="k1.p.s")

    def answer_stream(url: str, body: Any, renderer: Any, idle_s: float, **kw: Any) -> Any:
        sent.append((url, body, kw.get("server", False)))
        return stream

    tab_module.AnswerStream = answer_stream
    asked = reply("ask", run(tab.ask("password=hunter2hunter2 retry?", "", "", "be brief")))
    assert asked.streaming is True
    url, body, server = sent[-1]
    assert url == "https://docs.example.org/docs-panel-api/answer" and server is True
    assert sorted(body) == sorted(question_body(ServerQuestion(question="")))
    assert "hunter2" not in json.dumps(body) and body["instruction"] == "be brief"
    assert body["citations"] == "" and body["history"] == []
    done = reply("finish", tab.finish("done"))
    assert [(s.address, s.ref) for s in done.turn.sources] == [("/guides/retries.html", 1)]
    assert tab.conversation.turns[-1].citations == "k1.p.s"

    stream.citations = ""
    run(tab.ask("and how long between attempts?", "", "", ""))
    _, follow_up, _ = sent[-1]
    assert follow_up["citations"] == "k1.p.s"
    assert follow_up["history"][0]["answer"] == "Back off [1]."
    tab.finish("done")

    stream.answering = False  # the server's gate stayed shut: the sections, as results
    shut = reply("finish", (run(tab.ask("retry a job", "", "", "")), tab.finish("done"))[1])
    assert shut.turn.status == "results" and shut.turn.results
    assert tab.feedback_endpoint == "https://docs.example.org/docs-panel-api/feedback"


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


def test_a_private_conversation_stays_out_of_the_archive(tab_module: Any) -> None:
    """Private: save writes nothing, the copy for sessionStorage has the turn, a reload
    of the tab takes it back from that copy, and no vote reaches the local log."""
    tab, _ = run(tab_module.Tab.start('{"chat": false}', "/index.json", PAGE, "en", None))
    reply("set_private", tab.set_private(True))
    asked = reply("ask", run(tab.ask("retry a job", "", "", "")))
    assert reply("save", tab.save(None, False)).value is None
    copy = reply("private_copy", tab.private_copy(False)).copy
    assert json.loads(copy)["conversations"][0]["turns"][0]["question"] == "retry a job"
    voted = reply("vote", tab.vote(None, asked.turn.key, "up", "", ""))
    assert voted.value is None and voted.feedback.vote == "up"
    with pytest.raises(tab_module.ProtocolError, match="first question"):
        tab.set_private(False)

    conversation_id = json.loads(copy)["conversations"][0]["id"]
    left = json.dumps({"id": conversation_id, "left": True})
    again, _ = run(tab_module.Tab.start('{"chat": false}', "/index.json", PAGE, "en", None))
    restored = reply("restore", run(again.restore(None, left, copy)))
    assert restored.private is True and restored.conversation.id == conversation_id
    assert reply("save", again.save(None, False)).value is None
    reply("new_chat", again.new_chat())
    assert again.private is False


def test_export_import_and_search_through_the_worker(tab_module: Any) -> None:
    """An export of this site imports back into an empty archive; another site's file is
    refused with nothing to write; the search finds a conversation by its answer."""
    tab, _ = run(tab_module.Tab.start('{"chat": false}', "/index.json", PAGE, "en", None))
    run(tab.ask("retry a job", "", "", ""))
    stored = reply("save", tab.save(None, False)).value
    exported = reply("export", tab.export(stored, ""))
    assert (
        exported.name.startswith("docs-panel-docs.example.org-") and exported.name[-5:] == ".json"
    )
    merged = reply("import_file", tab.import_file(None, exported.text))
    assert merged.refused == "" and merged.changed == 1
    assert json.loads(merged.value) == json.loads(stored)
    elsewhere = exported.text.replace(json.dumps(tab.origin), '"https://evil.example"')
    refused = reply("import_file", tab.import_file(stored, elsewhere))
    assert (refused.value, refused.changed, refused.refused) == (None, 0, "other_site")
    assert reply("import_file", tab.import_file(stored, "{")).refused == "damaged"
    assert [r.title for r in reply("conversations", tab.conversations(stored, "RETRY")).rows]
    assert reply("conversations", tab.conversations(stored, "nothing-like-it")).rows == []
    # As the reader types: the archive the list last read, filtered again.
    assert len(reply("filter_conversations", tab.filter_conversations("retry")).rows) == 1
    assert reply("conversations", tab.conversations(None, "")).rows == []
    assert reply("filter_conversations", tab.filter_conversations("")).rows == []
    off, _ = run(
        tab_module.Tab.start('{"history": {"enabled": false}}', "/index.json", PAGE, "", None)
    )
    with pytest.raises(tab_module.ProtocolError, match="history off"):
        off.import_file(None, exported.text)
