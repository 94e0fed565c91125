"""The reader's tools in Chromium, Firefox ESR and WebKitGTK: a private
conversation kept out of localStorage and back after a reload, and Search
conversations filtering the list as the reader types."""

from __future__ import annotations

import pytest

from tests.browser.conftest import Site
from tests.cross.conftest import page_url
from tests.cross.reader import (
    READY_S,
    ask,
    history_titles,
    open_panel,
    stored_questions,
    wait_answered,
    wait_ready,
)
from tests.cross.tabs import Tab

pytestmark = [pytest.mark.browser, pytest.mark.cross]

RESULTS = "{chat: false}"
PRIVATE_TURNS = """n => {
  const kept = JSON.parse(sessionStorage.getItem('docs-panel.private') || 'null');
  const shown = document.querySelector('[data-docs-panel]').shadowRoot
    .querySelectorAll('.turn .results').length;
  return kept !== null && kept.conversations[0].turns.length === n && shown === n;
}"""
MARKED = """() => !document.querySelector('[data-docs-panel]').shadowRoot
  .querySelector('.private-marker').hidden"""
NO_MATCH = """() => [...document.querySelector('[data-docs-panel]').shadowRoot
  .querySelectorAll('.history .note')].some(e => e.textContent === 'No conversations match')"""


def test_a_private_conversation_and_search(tab: Tab, site: Site) -> None:
    tab.goto(page_url(site, "tools", RESULTS))
    open_panel(tab)
    wait_ready(tab)
    ask(tab, "install the command line tool")
    wait_answered(tab, 1)
    tab.click("button", "New chat", exact=True)
    tab.wait_count("article", None, 0)

    tab.click("switch", "Private conversation")
    tab.wait_until(MARKED, what="the Private marker")
    ask(tab, "rate limits privately")
    tab.wait_until(PRIVATE_TURNS, 1, timeout_s=READY_S, what="the private turn kept")
    assert stored_questions(tab) == [["install the command line tool"]]
    tab.reload()
    tab.wait_count("region", "Docs assistant", 1, timeout_s=READY_S)  # it comes back open
    wait_ready(tab)
    tab.wait_until(PRIVATE_TURNS, 1, timeout_s=READY_S, what="the private turn restored")
    tab.wait_until(MARKED, what="the Private marker after the reload")
    assert stored_questions(tab) == [["install the command line tool"]]

    assert history_titles(tab) == ["install the command line tool"]
    tab.type("searchbox", "Search conversations", "zzz")
    tab.wait_until(NO_MATCH, what="No conversations match")
    tab.wait_count("list", "Conversations", 0)
