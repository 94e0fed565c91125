"""How the page API's calls and events end when things go wrong, in Chromium: the
``ask`` event's scope and quote, ``newChat()`` during an answer and the question it
drops, ``error`` events of kind ``throttled``, ``start`` and ``search``, and the
rejections of calls that can never be answered (docs/page-api.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from docs_panel.build.cli import build
from docs_panel.portable.i18n import table
from tests.browser.conftest import Site, Watch
from tests.browser.endpoint import FakeEndpoint, hang, http_error
from tests.browser.reader import READY_TIMEOUT_MS
from tests.browser.test_page_api import RECORDER, named

pytestmark = pytest.mark.browser

EN = table("en")
PASSAGE = "Failed jobs are retried with exponential backoff."
SCOPES = [{"id": "all", "label": "All docs"}, {"id": "api", "label": "API", "prefix": "/api/"}]
KEPT = "Kept when I leave [1]"
# A call's outcome as data: what it resolved with, or its error's name and message.
SETTLED = "(p) => p.then((value) => ({value}), (e) => ({error: e.name + ': ' + e.message}))"


def recorded(page: Page) -> list[tuple[str, dict[str, object]]]:
    """Every docs-panel:* event, as RECORDER reported it on the console."""
    seen: list[tuple[str, dict[str, object]]] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.text.startswith("docs-panel-event "):
            name, detail = json.loads(message.text.removeprefix("docs-panel-event "))
            seen.append((name, detail))

    page.add_init_script(RECORDER)
    page.on("console", on_console)
    return seen


def start(page: Page, call: str, name: str) -> None:
    """Make ``call`` (a page API call); how it settles is kept for ``settled``."""
    page.evaluate(
        f"() => {{ window.__settled = window.__settled || {{}};"
        f" ({SETTLED})({call}).then((s) => {{ window.__settled.{name} = s; }}); }}"
    )


def settled(page: Page, name: str) -> dict[str, object]:
    """How the call ``start`` made as ``name`` settled (a failure if it never does)."""
    found = page.wait_for_function(f"() => window.__settled.{name}", timeout=READY_TIMEOUT_MS)
    result: dict[str, object] = found.json_value()
    return result


def test_an_answer_under_way_a_new_chat_and_a_throttled_endpoint(
    page: Page, site: Site, endpoint: FakeEndpoint, watch: Watch
) -> None:
    """In one visit: ask() with a scope chosen and a passage attached (the ask event says
    both, no text); a second ask() waits its turn; newChat() stops the first (it ends
    "stopped"), drops the second (rejected with an Error) and empties the thread; then an
    endpoint that throttles gives an error event of kind "throttled" with retryAfter."""
    events = recorded(page)
    endpoint.queue(hang(KEPT), http_error(429, retry_after="7"))
    watch.expect_bad_request(r"HTTP 429: .*/api/chat")
    config = json.dumps({"chat": True, "gate": 0, "scopes": SCOPES})
    page.goto(site.page_with_config("api-endings", config, f'<p id="passage">{PASSAGE}</p>'))
    page.evaluate('docsPanel.open({scope: "api"})')
    page.locator("#passage").click(click_count=3)  # select the paragraph with the mouse
    page.get_by_role("button", name="Ask about this").click()
    expect(page.locator(".attached .quote")).to_have_text(PASSAGE)

    start(page, 'docsPanel.ask("How do I retry a failed job?")', "first")
    expect(page.locator(".turn .answer")).to_have_text(KEPT, timeout=READY_TIMEOUT_MS)
    start(page, 'docsPanel.ask("And a webhook?")', "second")
    expect(page.locator(".turn")).to_have_count(2)
    expect(page.locator(".turn").nth(1)).to_contain_text(EN["pending"])
    assert page.evaluate("docsPanel.newChat()") is None
    expect(page.locator(".turn")).to_have_count(0)
    first, second = settled(page, "first"), settled(page, "second")
    assert "error" not in first, first
    assert first["value"]["outcome"] == "stopped"  # type: ignore[index]
    assert second == {
        "error": "Error: docs-panel: the question was dropped: a new chat or another"
        " conversation came first"
    }
    (asked,) = named(events, "ask")  # the dropped question never reached the worker
    conversation = first["value"]["conversation"]  # type: ignore[index]
    assert asked == {"conversation": conversation, "scope": "api", "quoted": True}
    (stopped,) = named(events, "answer")
    assert stopped["outcome"] == "stopped" and stopped["conversation"] == conversation

    answered = page.evaluate('docsPanel.ask("How do I retry a failed job?")')
    assert answered["outcome"] == "results"
    assert named(events, "ask")[1] == {
        "conversation": answered["conversation"],
        "scope": "api",
        "quoted": False,
    }
    assert named(events, "error") == [
        {"conversation": answered["conversation"], "kind": "throttled", "retryAfter": 7}
    ]
    assert len(endpoint.requests) == 2


def test_a_page_runtime_that_cannot_load_rejects_the_calls(
    page: Page, site: Site, watch: Watch
) -> None:
    """MicroPython's wasm is missing: ask() rejects with an Error, and so does a call made
    after the failure; the shell never came up to send an event."""
    events = recorded(page)
    broken = r"/micropython\.wasm(\.gz)?$"  # its gzip twin, then the wasm itself
    watch.expect_bad_request(broken.rstrip("$"))
    watch.expect_console_error(r"^docs-panel: ")
    watch.expect_console_error(r"wasm|^falling back|^Aborted\(")
    page.context.route(re.compile(broken), lambda route: route.fulfill(status=404))
    page.goto(site.page_with_config("api-no-shell", "{chat: false}"))
    start(page, 'docsPanel.ask("How do I retry a failed job?")', "asked")
    refused = {"error": "Error: docs-panel: could not load"}
    assert settled(page, "asked") == refused
    start(page, "docsPanel.open()", "opened")  # made after the failure
    assert settled(page, "opened") == refused
    assert events == []


def test_an_assistant_that_cannot_start_rejects_ask_and_says_start(
    page: Page, site: Site, watch: Watch
) -> None:
    """Pyodide's wasm is missing: the shell is up but the worker never starts; ask()
    rejects with the reader's words, and an error event of kind "start" is sent."""
    events = recorded(page)
    watch.expect_bad_request(r"/pyodide\.asm\.wasm\.zst\b")
    watch.expect_console_error(r"^docs-panel: The assistant could not start\. ")
    watch.expect_console_error(r"^MessageEvent$")  # PyScript logs its worker's failed start
    page.context.route(re.compile(r"/pyodide\.asm\.wasm\.zst$"), lambda r: r.fulfill(status=404))
    page.goto(site.page_with_config("api-no-worker", "{chat: false}"))
    start(page, 'docsPanel.ask("How do I retry a failed job?")', "asked")
    assert settled(page, "asked") == {"error": f"Error: docs-panel: {EN['start_failed']}"}
    assert named(events, "error") == [{"conversation": None, "kind": "start"}]
    assert named(events, "ask") == []


def test_a_search_that_fails_sends_an_error_of_kind_search(
    page: Page, site: Site, watch: Watch, tmp_path: Path
) -> None:
    """A split index whose postings parts cannot be fetched: the question's search fails;
    ask() rejects with the reader's words and an error event of kind "search" is sent."""
    for n in range(240):  # postings past SPLIT_BYTES: the index comes in parts
        words = [" ".join(f"w{n}x{s}y{k}" for k in range(80)) for s in range(3)]
        body = "".join(f"\n\n## Part {s}\n\n{text}" for s, text in enumerate(words))
        (tmp_path / f"p{n}.md").write_text(f"# Page {n}{body}", encoding="utf-8")
    (tmp_path / "valve.md").write_text(
        "# Zephyr valve\n\nThe zephyr valve releases pressure from the boiler.", encoding="utf-8"
    )
    build(tmp_path, site.root / "split" / "docs-panel", base="/split/")
    assert list((site.root / "split" / "docs-panel").glob("index-terms-*"))
    events = recorded(page)
    postings = r"/split/docs-panel/index-terms-"
    watch.expect_bad_request(postings)
    watch.expect_console_error(r"^docs-panel: search failed")
    page.context.route(re.compile(postings), lambda route: route.fulfill(status=404))
    page.goto(
        site.add_page(
            "/split/index.html",
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Split</title>'
            "<script>window.docsPanel = {chat: false};</script>"
            '<script src="/split/docs-panel/embed.js" async></script></head>'
            "<body><h1>Split</h1></body></html>",
        )
    )
    start(page, 'docsPanel.ask("How does the zephyr valve work?")', "asked")
    assert settled(page, "asked") == {"error": f"Error: docs-panel: {EN['search_failed']}"}
    expect(page.get_by_role("alert")).to_have_text(EN["search_failed"])
    assert named(events, "error") == [{"conversation": None, "kind": "search"}]
