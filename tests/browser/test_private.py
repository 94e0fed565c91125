"""A private conversation, in Chromium: never written to localStorage, kept
in this tab's sessionStorage across a reload, marked on screen, and gone once the tab
closes (a new page in the same profile)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.conftest import Site
from tests.browser.reader import (
    answers,
    ask_and_wait,
    history_titles,
    new_chat,
    open_panel,
    reload_open,
    stored,
    wait_ready,
)
from tests.browser.shots import shoot

pytestmark = pytest.mark.browser

SECRET_QUESTION = "How do I rotate webhook secrets privately?"
PRIVATE_KEY = "docs-panel.private"


def local(page: Page) -> str:
    return page.evaluate("JSON.stringify({...localStorage})")  # type: ignore[no-any-return]


def private_copy(page: Page) -> str | None:
    return page.evaluate(f"sessionStorage.getItem('{PRIVATE_KEY}')")  # type: ignore[no-any-return]


def switch(page: Page) -> object:
    return page.get_by_role("switch", name="Private conversation")


def ask_privately(page: Page, question: str) -> None:
    expect(switch(page)).to_be_enabled()
    switch(page).click()  # type: ignore[attr-defined]
    expect(switch(page)).to_have_attribute("aria-checked", "true")
    expect(page.get_by_text("Private", exact=True)).to_be_visible()
    ask_and_wait(page, question, stored=False)
    page.wait_for_function(f"sessionStorage.getItem('{PRIVATE_KEY}')")


def ready_panel(page: Page, site: Site) -> Page:
    page.goto(site.url)
    open_panel(page)
    wait_ready(page)
    return page


def test_a_private_conversation_never_reaches_local_storage(page: Page, site: Site) -> None:
    ready_panel(page, site)
    ask_and_wait(page, "How do I retry a job?")  # an ordinary one, stored
    new_chat(page)
    before = local(page)
    shoot(page, "private-switch-off")
    ask_privately(page, SECRET_QUESTION)
    expect(switch(page)).to_have_count(0)  # only before the first question
    shoot(page, "private-conversation")
    ask_and_wait(page, "And how often?", stored=False)
    page.wait_for_function(
        f"JSON.parse(sessionStorage.getItem('{PRIVATE_KEY}')).conversations[0].turns.length === 2"
    )
    assert local(page) == before
    assert "privately" not in local(page)
    assert history_titles(page) == ["How do I retry a job?"]

    reload_open(page)  # the same tab: the private conversation comes back, still private
    assert answers(page) == 2
    expect(page.get_by_text("Private", exact=True)).to_be_visible()
    ask_and_wait(page, "One more?", stored=False)
    page.wait_for_function(
        f"JSON.parse(sessionStorage.getItem('{PRIVATE_KEY}')).conversations[0].turns.length === 3"
    )
    assert local(page) == before

    new_chat(page)  # leaving it lets it go
    expect(page.get_by_text("Private", exact=True)).to_be_hidden()
    expect(switch(page)).to_have_attribute("aria-checked", "false")
    assert private_copy(page) is None
    assert local(page) == before


def test_a_private_conversation_is_gone_when_the_tab_closes(
    context: BrowserContext, site: Site
) -> None:
    page = ready_panel(context.new_page(), site)
    ask_privately(page, SECRET_QUESTION)
    assert stored(page, "history") is None
    page.close()  # the tab closes: its sessionStorage with it

    again = ready_panel(context.new_page(), site)
    expect(again.get_by_text("Ask about these docs")).to_be_visible()  # the empty state
    expect(again.get_by_text("Private", exact=True)).to_be_hidden()
    assert answers(again) == 0
    assert history_titles(again) == []
    assert stored(again, "history") is None and private_copy(again) is None


def test_a_tab_opened_from_a_private_one_does_not_adopt_it(
    context: BrowserContext, site: Site
) -> None:
    """window.open copies sessionStorage: the copy of the private conversation is dropped."""
    page = ready_panel(context.new_page(), site)
    ask_privately(page, SECRET_QUESTION)
    with context.expect_page() as opened:
        page.evaluate("window.open(location.href)")
    copy = opened.value
    copy.wait_for_load_state()
    open_panel(copy)
    wait_ready(copy)
    assert answers(copy) == 0
    expect(copy.get_by_text("Private", exact=True)).to_be_hidden()
    assert private_copy(copy) is None
    assert json.loads(private_copy(page) or "{}")["conversations"]  # the original keeps it
