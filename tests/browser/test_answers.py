"""Answers streamed from the model endpoint, in Chromium, against a scripted fake endpoint."""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable
from email.utils import formatdate

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from docs_panel.build.serve import ChatReply
from tests.browser.conftest import Site, Watch
from tests.browser.endpoint import FakeEndpoint, hang, http_error, stream, then
from tests.browser.reader import (
    READY_TIMEOUT_MS,
    WRITES,
    ask,
    open_history,
    open_panel,
    stored,
    wait_ready,
)
from tests.fixture_files import FIXTURES, fixture_cases

pytestmark = pytest.mark.browser

XSS = fixture_cases(FIXTURES / "render" / "xss.txt")
# Records anything a payload could run; a dialog would also block the page.
TRAPS = """
window.__xss = [];
for (const name of ["alert", "confirm", "prompt", "print", "open"]) {
  window[name] = (...args) => { window.__xss.push(name + ":" + args.join(",")); };
}
"""


CHAT_CONFIG = """{chat: true, scopes: [
  {id: "all", label: "All docs"}, {id: "api", label: "API", prefix: "/api/"}]}"""


def chat_page(page: Page, site: Site, config: str = CHAT_CONFIG) -> None:
    page.goto(site.page_with_config("chat", config))
    open_panel(page)
    wait_ready(page)


def turns(page: Page) -> list[dict[str, object]]:
    """The stored turns of the (only) stored conversation."""
    raw = stored(page, "history")
    conversations = json.loads(raw)["conversations"] if raw else []
    return [turn for c in conversations for turn in c["turns"]]


def settled_turns(page: Page, count: int) -> list[dict[str, object]]:
    """The stored turns once there are ``count`` of them (a checkpoint counts: see
    ``STORED_AS_SHOWN`` to wait for the end)."""
    page.wait_for_function(
        "n => { const v = localStorage.getItem('docs-panel.history');"
        " return v && JSON.parse(v).conversations.flatMap(c => c.turns).length === n; }",
        arg=count,
        timeout=READY_TIMEOUT_MS,
    )
    return turns(page)


STORED_AS_SHOWN = """n => {
  const turns = document.querySelector('[data-docs-panel]').shadowRoot.querySelectorAll('.turn');
  const shown = [...turns].map(t => t.querySelector('.results') ? 'results'
    : t.querySelector('.after .stopped') ? 'stopped' : 'done');
  const v = localStorage.getItem('docs-panel.history');
  const kept = v ? JSON.parse(v).conversations.flatMap(c => c.turns).map(t => t.status) : [];
  return turns.length === n && JSON.stringify(kept) === JSON.stringify(shown);
}"""
"""True once ``n`` turns are on screen and the archive stores each with the status the
reader sees: a checkpoint (stored as "stopped" while the answer streams) is not enough."""


def answer_text(page: Page, turn: int = -1) -> str:
    return page.locator(".turn").nth(turn).locator(".answer").inner_text()


def wait_answered(page: Page, count: int) -> None:
    """Until ``count`` turns show a finished answer and the archive stores them as shown."""
    finished = page.locator(".turn:not([aria-busy]) :is(.answer, .results)")
    expect(finished).to_have_count(count, timeout=READY_TIMEOUT_MS)
    expect(page.get_by_role("button", name="Send")).to_be_visible()
    page.wait_for_function(STORED_AS_SHOWN, arg=count, timeout=READY_TIMEOUT_MS)


def test_answer_streams_in_with_reasoning_citations_and_sources(
    page: Page, site: Site, endpoint: FakeEndpoint
) -> None:
    """Text shows as it arrives; reasoning is shown live, then kept nowhere; [n] link."""
    words = " ".join(f"word{n}" for n in range(60))
    endpoint.queue(
        stream(
            f"Retry with `retry()` [1].\n\n{words} [2]",
            reasoning="Thinking about SECRET-REASONING here.",
            delay_s=0.03,
        )
    )
    chat_page(page, site)
    ask(page, "How do I retry a failed job?")
    stop = page.get_by_role("button", name="Stop")
    expect(stop).to_be_visible(timeout=READY_TIMEOUT_MS)
    expect(page.get_by_role("button", name="Send")).to_be_hidden()
    reasoning = page.locator("details.reasoning")
    expect(reasoning).to_contain_text("Reasoning")
    expect(reasoning).not_to_have_attribute("open", "")  # collapsed, a click away
    seen = []
    while stop.is_visible():
        seen.append(len(page.locator(".turn .answer").inner_text()))
        page.wait_for_timeout(150)
    assert len({n for n in seen if n}) >= 3, f"the answer did not grow in steps: {seen}"
    assert seen == sorted(seen)
    wait_answered(page, 1)

    request = endpoint.requests[-1]
    assert request["stream"] is True and request["model"] == "docs-assistant"
    messages = request["messages"]
    assert isinstance(messages, list) and messages[-1]["content"] == "How do I retry a failed job?"
    assert "[1] " in messages[0]["content"] and "[2] " in messages[0]["content"]

    citations = page.locator(".turn .answer a.cite")
    sources = page.get_by_role("list", name="Sources").get_by_role("link")
    expect(citations).to_have_count(2)
    expect(sources).to_have_count(2)
    assert [c.get_attribute("href") for c in citations.all()] == [
        s.get_attribute("href") for s in sources.all()
    ]
    (turn,) = settled_turns(page, 1)
    assert turn["status"] == "done" and str(turn["answer"]).startswith("Retry with `retry()` [1].")
    assert [s["ref"] for s in turn["sources"]] == [1, 2]  # type: ignore[attr-defined]
    everything = page.evaluate("JSON.stringify({...localStorage, ...sessionStorage})")
    assert "SECRET-REASONING" not in everything

    page.reload()
    expect(page.locator(".turn .answer a.cite")).to_have_count(2, timeout=READY_TIMEOUT_MS)
    expect(page.locator("details.reasoning")).to_have_count(0)
    expect(page.get_by_role("list", name="Sources").get_by_role("link")).to_have_count(2)


def test_stop_keeps_what_arrived_and_ask_again_repeats_the_question(
    page: Page, site: Site, endpoint: FakeEndpoint, watch: Watch
) -> None:
    """Stop aborts the request; the turn keeps its text, says Stopped, and can be asked again."""
    endpoint.queue(
        hang("The first half of the answer [1]", probe_s=0.1), stream("Second try, whole [1].")
    )
    chat_page(page, site)
    page.get_by_label("Search in").select_option(label="API")
    ask(page, "retry a job")
    expect(page.locator(".turn .answer")).to_contain_text("first half", timeout=READY_TIMEOUT_MS)
    assert not endpoint.closed.is_set()
    page.get_by_role("button", name="Stop").click()
    assert endpoint.closed.wait(10), "Stop left the request open"
    expect(page.get_by_text("Stopped", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Send")).to_be_visible()
    assert answer_text(page).strip() == "The first half of the answer [1]"
    (turn,) = settled_turns(page, 1)
    assert (turn["status"], turn["answer"]) == ("stopped", "The first half of the answer [1]")

    page.get_by_role("button", name="Ask again").click()
    expect(page.locator(".turn")).to_have_count(2)
    wait_answered(page, 2)
    assert answer_text(page) == "Second try, whole [1]."
    first, second = endpoint.requests
    assert first["messages"][-1] == second["messages"][-1]  # type: ignore[index]
    stored_turns = settled_turns(page, 2)
    assert [t["status"] for t in stored_turns] == ["stopped", "done"]
    assert [t["question"] for t in stored_turns] == ["retry a job"] * 2
    assert [t["scope"] for t in stored_turns] == ["api"] * 2


def test_a_reader_following_an_answer_down_sees_how_it_ends(
    page: Page, site: Site, endpoint: FakeEndpoint
) -> None:
    """Answers longer than the thread, followed to the bottom as they arrive: once one ends,
    what is drawn below it is in view (Stopped and Ask again; the sources and the votes)."""
    steps = "\n\n".join(f"Step {n}: wait a little longer, then retry [1]." for n in range(1, 25))
    endpoint.queue(hang(steps), stream(steps + "\n\nDone [1]."))
    chat_page(page, site)
    ask(page, "retry a job")
    expect(page.locator(".turn .answer")).to_contain_text("Step 24", timeout=READY_TIMEOUT_MS)
    page.get_by_role("button", name="Stop").click()
    expect(page.get_by_role("button", name="Ask again")).to_be_in_viewport(ratio=1)
    page.get_by_role("button", name="Ask again").click()
    wait_answered(page, 2)
    expect(page.get_by_role("list", name="Sources").last).to_be_in_viewport(ratio=1)
    expect(page.get_by_role("button", name="Not helpful").last).to_be_in_viewport(ratio=1)


def ask_into_a_stall(
    page: Page, site: Site, endpoint: FakeEndpoint, text: str, config: str = CHAT_CONFIG
) -> None:
    """Ask on a chat page whose endpoint streams ``text`` and then sends nothing more."""
    endpoint.queue(hang(text))
    chat_page(page, site, config)
    ask(page, "How do I retry a failed job?")
    shown = text.rpartition("</think>")[2]
    expect(page.locator(".turn .answer")).to_have_text(shown, timeout=READY_TIMEOUT_MS)


def test_reload_mid_answer_comes_back_as_a_stopped_turn(
    page: Page, site: Site, endpoint: FakeEndpoint
) -> None:
    """A reload keeps the text that had arrived as a stopped turn; Ask again works."""
    ask_into_a_stall(page, site, endpoint, "<think>PRIVATE-THOUGHT</think>Half of it [1]")
    expect(page.locator("details.reasoning")).to_contain_text("PRIVATE-THOUGHT")
    page.reload()

    expect(page.get_by_role("region", name="Docs assistant")).to_be_visible()
    expect(page.get_by_text("Stopped", exact=True)).to_be_visible(timeout=READY_TIMEOUT_MS)
    assert answer_text(page).strip() == "Half of it [1]"
    expect(page.locator("details.reasoning")).to_have_count(0)
    (turn,) = settled_turns(page, 1)
    assert (turn["status"], turn["answer"]) == ("stopped", "Half of it [1]")
    everything = page.evaluate("JSON.stringify({...localStorage, ...sessionStorage})")
    assert "PRIVATE-THOUGHT" not in everything
    assert "inflight" not in str(stored(page, "conversation"))

    page.get_by_role("button", name="Ask again").click()
    wait_answered(page, 2)
    assert "Demo answer" in answer_text(page)
    assert [t["status"] for t in settled_turns(page, 2)] == ["stopped", "done"]


def test_new_chat_mid_answer_stops_and_keeps_it(
    page: Page, site: Site, endpoint: FakeEndpoint
) -> None:
    """New chat while an answer streams stops it and stores it, stopped, in the old conversation."""
    ask_into_a_stall(page, site, endpoint, "Kept when I leave [1]")
    page.get_by_role("button", name="New chat").click()
    expect(page.locator(".turn")).to_have_count(0)
    expect(page.get_by_role("button", name="Send")).to_be_visible()
    (turn,) = settled_turns(page, 1)
    assert (turn["status"], turn["answer"]) == ("stopped", "Kept when I leave [1]")
    open_history(page)
    expect(page.get_by_role("list", name="Conversations").get_by_role("listitem")).to_have_count(1)


def test_save_on_unload_off_keeps_no_answer_in_flight(
    page: Page, site: Site, endpoint: FakeEndpoint
) -> None:
    """history.saveOnUnload: false: no checkpoints, and a reload drops the streaming answer."""
    config = "{chat: true, history: {saveOnUnload: false}}"
    ask_into_a_stall(page, site, endpoint, "Not to be kept [1]", config)
    # The shell still offers the checkpoint CHECKPOINT_S in; once that write is done:
    writes = page.evaluate(WRITES)
    page.wait_for_function(f"{WRITES} > {writes}", timeout=READY_TIMEOUT_MS)
    assert turns(page) == []
    page.reload()
    expect(page.get_by_role("region", name="Docs assistant")).to_be_visible()
    wait_ready(page)
    expect(page.get_by_text("Stopped", exact=True)).to_have_count(0)
    expect(page.locator(".turn")).to_have_count(0)
    assert turns(page) == []


def test_a_tab_killed_mid_answer_keeps_what_had_arrived(
    page: Page, site: Site, endpoint: FakeEndpoint, watch: Watch
) -> None:
    """Checkpoints store the answer while it streams: a crashed tab's turn is in the history."""
    ask_into_a_stall(page, site, endpoint, "Everything up to here [1]")
    settled = settled_turns(page, 1)  # the checkpoint, a couple of seconds in
    assert (settled[0]["status"], settled[0]["answer"]) == ("stopped", "Everything up to here [1]")
    watch.expect_bad_request(r"chrome://crash")
    crashes: list[bool] = []
    page.on("crash", lambda _: crashes.append(True))
    with contextlib.suppress(PlaywrightError):  # the navigation "fails": the renderer is gone
        page.goto("chrome://crash")  # kills the tab's renderer: no pagehide, nothing runs
    crashed = page.context.new_page()  # a new tab of the same site reads what was kept
    for _ in range(100):  # the crash is reported a moment later, longer on a busy machine
        if crashes:
            break
        crashed.wait_for_timeout(100)
    assert crashes == [True]
    crashed.goto(site.page_with_config("chat", CHAT_CONFIG))
    open_panel(crashed)
    wait_ready(crashed)
    open_history(crashed)
    crashed.get_by_role("button", name="How do I retry a failed job?").click()
    expect(crashed.get_by_text("Stopped", exact=True)).to_be_visible()
    expect(crashed.locator(".turn .answer")).to_have_text("Everything up to here [1]")


FAILURES = {
    "HTTP 500": http_error(500),
    "network drop": then("Partial", None),
    "malformed event": then("Partial", b"data: {not json\n\n"),
    "error event": then("Partial", b'data: {"error": {"message": "boom"}}\n\n'),
    "no [DONE]": stream("Complete-looking text.", done=False),
}


def test_every_failure_mode_becomes_search_results_and_the_panel_goes_on(
    page: Page, site: Site, endpoint: FakeEndpoint, watch: Watch
) -> None:
    """Endpoint error, drop, malformed event, error event, missing [DONE]: results instead."""
    watch.expect_bad_request(r"HTTP 500: .*/api/chat")
    watch.expect_bad_request(r"failed: .*/api/chat \(net::ERR_INCOMPLETE_CHUNKED_ENCODING\)")
    endpoint.queue(*FAILURES.values())
    chat_page(page, site)
    for count, mode in enumerate(FAILURES, start=1):
        ask(page, f"How do I retry a failed job? ({mode})")
        results = page.get_by_role("list", name="Search results")
        expect(results, mode).to_have_count(count, timeout=READY_TIMEOUT_MS)
        turn = page.locator(".turn").last
        expect(turn, mode).to_contain_text("could not answer just now")
        expect(turn.locator(".answer"), mode).to_have_count(0)
        assert results.last.get_by_role("link").count() > 0, mode
    expect(page.get_by_role("button", name="Send")).to_be_visible()
    ask(page, "How do I retry a failed job?")
    wait_answered(page, len(FAILURES) + 1)
    assert "Demo answer" in answer_text(page)
    statuses = [t["status"] for t in settled_turns(page, len(FAILURES) + 1)]
    assert statuses == ["results"] * len(FAILURES) + ["done"]


def test_a_stalled_endpoint_is_given_up_after_idle_timeout(
    page: Page, site: Site, endpoint: FakeEndpoint
) -> None:
    """No byte for idleTimeout seconds: the request is aborted and the turn becomes results."""
    endpoint.queue(hang("The first half [1]", probe_s=0.1, cue=True))
    chat_page(page, site, "{chat: true, idleTimeout: 2}")
    ask(page, "How do I retry a failed job?")
    expect(page.get_by_text("could not answer just now")).to_be_visible(timeout=READY_TIMEOUT_MS)
    endpoint.cue.set()  # the panel has given up: probe the connection
    assert endpoint.closed.wait(10), "the given-up request was left open"
    expect(page.get_by_role("list", name="Search results")).to_have_count(1)
    page.wait_for_function(STORED_AS_SHOWN, arg=1, timeout=READY_TIMEOUT_MS)
    assert [t["status"] for t in settled_turns(page, 1)] == ["results"]


# When "Ask again" is first seen, and whether it was off then; when it turns on (Date.now()).
WATCH_ASK_AGAIN = """() => {
  const root = document.querySelector('[data-docs-panel]').shadowRoot;
  const seen = (window.__askAgain = {});
  const look = () => {
    const again = [...root.querySelectorAll('.turn button')].find(
      b => b.textContent.trim() === 'Ask again');
    if (!again) return;
    seen.shown ??= [Date.now(), again.disabled];
    if (!again.disabled) seen.enabled ??= Date.now();
  };
  new MutationObserver(look).observe(root, {subtree: true, childList: true, attributes: true});
}"""


@pytest.mark.parametrize(
    ("status", "header", "wait_s"),
    [
        (429, lambda now: "3", 3),
        (503, lambda now: "3", 3),
        (503, lambda now: formatdate(now + 4, usegmt=True), 3),
    ],
    ids=["429-seconds", "503-seconds", "503-http-date"],
)
def test_a_throttled_endpoint_says_when_to_ask_again(
    page: Page,
    site: Site,
    endpoint: FakeEndpoint,
    watch: Watch,
    status: int,
    header: Callable[[float], str],
    wait_s: int,
) -> None:
    """HTTP 429, or 503 with Retry-After in seconds or as a date: the wait is named and
    Ask again stays off until then (timed by the page's own clock from the endpoint's
    reply, so a slow machine only makes it later; an HTTP date counts whole seconds,
    hence at least ``wait_s``, not 4)."""
    watch.expect_bad_request(rf"HTTP {status}: .*/api/chat")
    replied: list[float] = []

    def throttled(fake: FakeEndpoint) -> ChatReply:
        replied.append(time.time())
        return http_error(status, retry_after=header(replied[0]))(fake)

    endpoint.queue(throttled)
    chat_page(page, site)
    page.evaluate(WATCH_ASK_AGAIN)
    ask(page, "How do I retry a failed job?")
    notice = page.get_by_text(re.compile(r"Too many questions right now\. Try again in [34] s\."))
    expect(notice).to_be_visible(timeout=READY_TIMEOUT_MS)
    expect(page.get_by_role("list", name="Search results")).to_have_count(1)
    page.wait_for_function("() => window.__askAgain.enabled", timeout=(wait_s + 20) * 1000)
    seen = page.evaluate("window.__askAgain")
    (reply_ms,) = (1000 * t for t in replied)
    shown_ms, off_when_shown = seen["shown"]
    assert off_when_shown or shown_ms >= reply_ms + wait_s * 1000, seen
    assert seen["enabled"] >= reply_ms + wait_s * 1000, (seen, reply_ms)
    page.get_by_role("button", name="Ask again").click()
    wait_answered(page, 2)
    assert "Demo answer" in answer_text(page)


def xss_answer() -> str:
    return "\n\n".join(case[2] for case in XSS) + "\n\nSee [1]."


def assert_harmless(page: Page, watch: Watch) -> None:
    assert page.evaluate("window.__xss") == []
    hrefs = page.locator(".turn .answer a").evaluate_all("els => els.map(a => a.href)")
    origin = watch.origin
    bad = [h for h in hrefs if not re.match(r"(https?://|mailto:)", h) or "javascript" in h]
    assert bad == []
    sources = page.locator(".turn .answer img").evaluate_all("els => els.map(i => i.src)")
    assert all(src.startswith(origin) for src in sources), sources
    handlers = page.locator(".turn .answer *").evaluate_all(
        "els => els.flatMap(e => [...e.attributes].map(a => a.name))"
        ".filter(n => n.startsWith('on'))"
    )
    assert handlers == []
    assert page.locator(".turn .answer :is(script, iframe, svg, math, form, style)").count() == 0


def test_xss_corpus_streamed_as_an_answer_does_nothing_live_or_after_reload(
    page: Page, site: Site, endpoint: FakeEndpoint, watch: Watch
) -> None:
    """Every payload streamed, split anywhere: nothing runs, nothing loads from off the site."""
    page.add_init_script(TRAPS)
    endpoint.queue(stream(xss_answer(), size=7))
    chat_page(page, site)
    ask(page, "How do I retry a failed job?")
    wait_answered(page, 1)
    assert_harmless(page, watch)
    assert len(page.locator(".turn .answer").inner_text()) > 1000
    assert settled_turns(page, 1)[0]["answer"] == xss_answer()

    page.reload()
    expect(page.locator(".turn .answer")).to_have_count(1, timeout=READY_TIMEOUT_MS)
    wait_ready(page)
    assert_harmless(page, watch)
    # watch.check (at teardown) fails the test on any off-site request or page error.
