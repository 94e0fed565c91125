"""What the reader adds to a question, in Chromium: a quoted passage ("Ask about
this"), their own instruction (Settings) and the scope, now and after a reload."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Site
from tests.browser.endpoint import FakeEndpoint, stream
from tests.browser.reader import (
    READY_TIMEOUT_MS,
    ask,
    ask_and_wait,
    history_titles,
    open_panel,
    reload_open,
    stored,
    wait_ready,
)

pytestmark = pytest.mark.browser

PASSAGE = "Failed jobs are retried   with\n exponential backoff."
SECRET = "ghp_" + "Q1w2E3r4T5y6" * 3
BODY = f"""<p id="passage">{PASSAGE}</p><p id="secret">token {SECRET} {"long text " * 80}</p>
<textarea id="field">text in a form field</textarea>"""
SCOPES = [{"id": "all", "label": "All docs"}, {"id": "api", "label": "API", "prefix": "/api/"}]


def context_page(page: Page, site: Site, chat: bool = True) -> None:
    config = json.dumps({"chat": chat, "scopes": SCOPES})
    page.goto(site.page_with_config(f"context-{chat}", config, BODY))


def ask_about_this(page: Page) -> None:
    button = page.get_by_role("button", name="Ask about this")
    expect(button).to_be_visible()
    button.click()
    expect(page.get_by_role("region", name="Docs assistant")).to_be_visible()


def answered(page: Page, count: int) -> None:
    """Until ``count`` turns show their vote buttons (they are finished) and are stored."""
    expect(page.locator(".turn .votes")).to_have_count(count, timeout=READY_TIMEOUT_MS)
    page.wait_for_function(
        "n => { const v = localStorage.getItem('docs-panel.history');"
        " return v && JSON.parse(v).conversations.flatMap(c => c.turns).length === n; }",
        arg=count,
    )


def test_a_selected_passage_goes_with_the_next_question_and_comes_back(
    page: Page, site: Site, endpoint: FakeEndpoint
) -> None:
    """Shown in the composer, then above the question, sent as quoted context, stored and
    shown again after a reload; the conversation's title stays the question."""
    context_page(page, site)
    page.locator("#passage").click(click_count=3)  # select the paragraph with the mouse
    ask_about_this(page)
    wait_ready(page)
    composer_quote = page.locator(".attached .quote")
    expect(composer_quote).to_have_text("Failed jobs are retried with exponential backoff.")
    endpoint.queue(stream("They back off [1]."))
    ask(page, "what does this mean?")
    answered(page, 1)
    expect(composer_quote).to_be_hidden()
    turn = page.locator(".turn").last
    expect(turn.locator("blockquote")).to_have_text(
        "Failed jobs are retried with exponential backoff."
    )
    sent = endpoint.requests[-1]["messages"][-1]  # type: ignore[index]
    assert sent["content"] == (  # type: ignore[index]
        "About this passage:\n> Failed jobs are retried with exponential backoff.\n\n"
        "what does this mean?"
    )
    assert history_titles(page) == ["what does this mean?"]
    reload_open(page)
    expect(page.locator(".turn blockquote")).to_have_text(
        "Failed jobs are retried with exponential backoff."
    )


def test_the_passage_is_masked_capped_and_removable(page: Page, site: Site) -> None:
    """A credential in the selection is masked, the passage is cut at 500 characters,
    and "Remove quote" takes it off the next question (selected with the keyboard)."""
    context_page(page, site, chat=False)
    page.evaluate("getSelection().selectAllChildren(document.getElementById('secret'))")
    page.keyboard.press("Shift+ArrowLeft")  # as a keyboard user would adjust it
    ask_about_this(page)
    wait_ready(page)
    quote = page.locator(".attached .quote")
    expect(quote).to_contain_text("token [redacted: GitHub token] long text")
    text = quote.inner_text()
    assert SECRET not in text and len(text) <= 500
    page.get_by_role("button", name="Remove quote").click()
    expect(quote).to_be_hidden()
    ask_and_wait(page, "retry")
    expect(page.locator(".turn blockquote")).to_have_count(0)


# The offer runs in a timer the page's mouseup starts; a timer started after it (by a
# listener the page adds later) runs after it. The count starts from zero in a timer
# too, after those an earlier action's mouseups left pending (one of those landing
# after the reset made the count overshoot and the wait time out on a busy machine).
COUNT_MOUSEUPS = """() => new Promise((done) => setTimeout(() => {
  if (!("__mouseups" in window)) addEventListener("mouseup", () => setTimeout(() => __mouseups++));
  window.__mouseups = 0;
  done();
}))"""


def after_mouseups(page: Page, count: int, action: Callable[[], None]) -> None:
    """Do ``action`` and wait until the offer has run for its ``count`` mouseups."""
    page.evaluate(COUNT_MOUSEUPS)
    action()
    page.wait_for_function(f"window.__mouseups >= {count}")


def test_ask_about_this_is_never_offered_in_the_panel_or_a_field(page: Page, site: Site) -> None:
    """Selecting text in the panel's thread or in a form field on the page offers nothing."""
    context_page(page, site, chat=False)
    open_panel(page)
    wait_ready(page)
    ask_and_wait(page, "retry a failed job")
    offered = page.get_by_role("button", name="Ask about this")
    after_mouseups(page, 3, lambda: page.locator(".turn .question").click(click_count=3))
    expect(offered).to_be_hidden()
    page.locator("#field").click()
    page.keyboard.press("ControlOrMeta+a")  # the offer runs on the keyup itself
    expect(offered).to_be_hidden()
    after_mouseups(page, 3, lambda: page.locator("#field").click(click_count=3))
    expect(offered).to_be_hidden()
    page.locator("#passage").click(click_count=3)
    expect(page.get_by_role("button", name="Ask about this")).to_be_visible()  # control


def test_the_readers_instruction_is_sent_kept_in_the_tab_only_and_restored(
    page: Page, site: Site, endpoint: FakeEndpoint
) -> None:
    """Settings reveals the instruction; it goes to the model as its own system message,
    lives in sessionStorage only, and is there again after a reload."""
    context_page(page, site)
    open_panel(page)
    settings = page.get_by_role("button", name="Settings")
    expect(settings).to_have_attribute("aria-expanded", "false")
    settings.click()
    expect(settings).to_have_attribute("aria-expanded", "true")
    page.get_by_role("textbox", name="Instruction for answers").fill("answer in French")
    wait_ready(page)
    endpoint.queue(stream("Réessayez [1]."))
    ask(page, "how do I retry a job?")
    answered(page, 1)
    messages = endpoint.requests[-1]["messages"]
    assert isinstance(messages, list)
    assert [m["role"] for m in messages] == ["system", "system", "user"]
    assert messages[1]["content"].endswith("answer in French")
    assert stored(page, "instruction") == "answer in French"
    local = page.evaluate("JSON.stringify(Object.entries(localStorage))")
    assert "French" not in local
    reload_open(page)
    page.get_by_role("button", name="Settings").click()
    expect(page.get_by_role("textbox", name="Instruction for answers")).to_have_value(
        "answer in French"
    )
    endpoint.queue(stream("Encore [1]."))
    ask(page, "and with a delay?")
    answered(page, 2)
    assert endpoint.requests[-1]["messages"][1]["content"].endswith("answer in French")  # type: ignore[index]


def test_each_turn_keeps_its_scope_and_a_follow_up_carries_it_on(page: Page, site: Site) -> None:
    """The thread names each turn's scope, after a reload too, where the picker is set to
    the last turn's scope."""
    context_page(page, site, chat=False)
    open_panel(page)
    wait_ready(page)
    picker = page.get_by_role("combobox", name="Search in")
    picker.select_option("api")
    ask_and_wait(page, "retry a failed job")
    picker.select_option("all")
    ask_and_wait(page, "schedule a cron job")
    picker.select_option("api")
    ask_and_wait(page, "list queues")
    labels = ["In API", "In All docs", "In API"]
    expect(page.locator(".turn .asked-in")).to_have_text(labels)
    reload_open(page)
    expect(page.locator(".turn .asked-in")).to_have_text(labels)
    expect(page.get_by_role("combobox", name="Search in")).to_have_value("api")
