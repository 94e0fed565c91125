"""The panel with the keyboard alone: the shortcut opens it at the question
box, Tab reaches every control in reading order both ways, Esc closes the history
list and then the panel, and focus goes back to where it was on the page."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import Site
from tests.browser.reader import READY_TIMEOUT_MS, wait_ready

pytestmark = pytest.mark.browser


def tab_through(page: Page, key: str, controls: list[Locator]) -> None:
    for control in controls:
        page.keyboard.press(key)
        expect(control).to_be_focused()


def test_a_keyboard_only_walk_through_the_panel(page: Page, site: Site) -> None:
    """Ctrl+/ from a page link, Tab order through header, answer and composer both ways,
    the history's search box, rows, Export all, Import and Delete all, deleting a row
    keeps focus in the panel, Esc twice, focus back on the link."""
    page.goto(site.page_with_config("walk", "{chat: false}", '<a href="#walk">Page link</a>'))
    page.keyboard.press("Tab")
    link = page.get_by_role("link", name="Page link")
    expect(link).to_be_focused()
    page.keyboard.press("Control+/")
    box = page.get_by_role("textbox", name="Ask a question")
    expect(box).to_be_focused(timeout=READY_TIMEOUT_MS)
    wait_ready(page)
    page.keyboard.type("retry a failed job")
    page.keyboard.press("Enter")
    results = page.get_by_role("list", name="Search results").get_by_role("link")
    expect(results.first).to_be_visible(timeout=READY_TIMEOUT_MS)

    header = [
        page.get_by_role("button", name=name, exact=True)
        for name in ("Conversation history", "Settings", "New chat", "Close")
    ]
    votes = [page.get_by_role("button", name=n, exact=True) for n in ("Helpful", "Not helpful")]
    answer = [*results.all(), *votes]
    reading_order = [*header, *answer, box, page.get_by_role("button", name="Send")]
    tab_through(page, "Shift+Tab", list(reversed(reading_order[:-2])))
    tab_through(page, "Tab", reading_order[1:])

    history = header[0]
    tab_through(page, "Shift+Tab", list(reversed(reading_order[:-1])))
    expect(history).to_be_focused()
    page.keyboard.press("Enter")
    expect(history).to_have_attribute("aria-expanded", "true")
    row = page.get_by_role("list", name="Conversations").get_by_role("listitem")
    tab_through(
        page,
        "Tab",
        [
            *header[1:],  # the list opens under the header: after its last button
            page.get_by_role("searchbox", name="Search conversations"),
            row.get_by_role("button", name="retry a failed job"),
            row.get_by_role("button", name="Export", exact=True),
            row.get_by_role("button", name="Delete conversation"),
            page.get_by_role("button", name="Export all"),
            page.get_by_role("button", name="Import"),
            page.get_by_role("button", name="Delete all"),
        ],
    )
    tab_through(
        page,
        "Shift+Tab",
        [
            page.get_by_role("button", name="Import"),
            page.get_by_role("button", name="Export all"),
            row.get_by_role("button", name="Delete conversation"),
        ],
    )
    page.keyboard.press("Enter")  # Delete conversation: its row, and focus, go
    expect(page.get_by_text("No conversations yet.")).to_be_visible()
    expect(history).to_be_focused()
    page.keyboard.press("Escape")
    expect(history).to_have_attribute("aria-expanded", "false")
    expect(history).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.get_by_role("region", name="Docs assistant")).to_be_hidden()
    expect(link).to_be_focused()
