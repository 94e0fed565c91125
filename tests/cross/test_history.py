"""Conversations in Chromium, Firefox ESR and WebKitGTK: the history list, and two tabs
of one reader that each find the other's conversation there."""

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


def started(tab: Tab, url: str) -> None:
    tab.goto(url)
    open_panel(tab)
    wait_ready(tab)


def test_the_history_list_reopens_a_conversation(tab: Tab, site: Site) -> None:
    """New chat keeps the first conversation in the list, newest first; its row opens it."""
    started(tab, page_url(site, "history", RESULTS))
    ask(tab, "install the command line tool")
    wait_answered(tab, 1)
    tab.click("button", "New chat", exact=True)
    tab.wait_count("article", None, 0)
    ask(tab, "rate limits")
    wait_answered(tab, 1)
    assert history_titles(tab) == ["rate limits", "install the command line tool"]
    tab.click("button", "install the command line tool")  # the row, titled by its question
    tab.wait_count("list", "Conversations", 0)
    questions = tab.run(
        "() => [...document.querySelector('[data-docs-panel]').shadowRoot"
        ".querySelectorAll('article .question')].map(e => e.innerText)"
    )
    assert questions == ["install the command line tool"]


def test_two_tabs_see_each_others_conversations(tab: Tab, site: Site) -> None:
    """Two tabs of one profile asking in turn: each conversation is stored whole, and
    each tab's list shows the other's."""
    url = page_url(site, "two-tabs", RESULTS)
    second = tab.new_tab()
    for each in (tab, second):
        started(each, url)
    for each, question, count in [
        (tab, "retry a failed job", 1),
        (second, "schedule a job every night", 1),
        (tab, "dead jobs", 2),
    ]:
        ask(each, question)
        wait_answered(each, count)
    expected = [["retry a failed job", "dead jobs"], ["schedule a job every night"]]
    tab.wait_until(
        "(want) => { const v = localStorage.getItem('docs-panel.history');"
        " const got = v ? JSON.parse(v).conversations.map(c => c.turns.map(t => t.question)) : [];"
        " return JSON.stringify(got.sort()) === JSON.stringify(want); }",
        sorted(expected),
        timeout_s=READY_S,
        what="both tabs' conversations stored",
    )
    assert stored_questions(second) == sorted(expected)
    assert sorted(history_titles(tab)) == ["retry a failed job", "schedule a job every night"]
    assert history_titles(second)[0] == "retry a failed job"  # newest activity first
