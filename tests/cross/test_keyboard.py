"""The keyboard in Chromium, Firefox ESR and WebKitGTK: Ctrl+/ opens the panel at the
question box, Esc closes the history list and then the panel, and focus goes back."""

from __future__ import annotations

import pytest

from tests.browser.conftest import Site
from tests.cross.conftest import page_url
from tests.cross.reader import READY_S, wait_ready
from tests.cross.tabs import Tab, with_finder

pytestmark = [pytest.mark.browser, pytest.mark.cross]


def test_the_shortcut_opens_and_escape_closes_layer_by_layer(tab: Tab, site: Site) -> None:
    tab.goto(page_url(site, "keys", "{chat: false}"))
    tab.click("heading", "keys")  # focus on the page itself, not on a form field
    tab.press("Control+/")
    tab.wait_focused("textbox", "Ask a question", timeout_s=READY_S)
    wait_ready(tab)
    tab.click("button", "Conversation history")
    expanded = "() => find('button', 'Conversation history')[0].ariaExpanded"
    tab.wait_until(with_finder(f"() => ({expanded})() === 'true'"))
    tab.press("Escape")
    tab.wait_until(with_finder(f"() => ({expanded})() === 'false'"))
    tab.wait_focused("button", "Conversation history")
    assert tab.count("region", "Docs assistant") == 1
    tab.press("Escape")
    tab.wait_count("region", "Docs assistant", 0)
    tab.wait_focused("button", "Ask the docs")  # the page had no focused control
    tab.press("Control+/")
    tab.wait_focused("textbox", "Ask a question")
