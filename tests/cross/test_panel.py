"""The panel in Chromium, Firefox ESR and WebKitGTK: open it, ask, get a streamed answer
with its sources, stop one, and find a stopped turn again after a reload."""

from __future__ import annotations

import pytest

from tests.browser.conftest import Site
from tests.browser.endpoint import FakeEndpoint, hang, stream
from tests.cross.conftest import page_url
from tests.cross.reader import READY_S, ask, open_panel, wait_answered, wait_ready
from tests.cross.tabs import Tab

pytestmark = [pytest.mark.browser, pytest.mark.cross]

CHAT = "{chat: true}"


def test_open_and_ask_for_search_results(tab: Tab, site: Site) -> None:
    """The launcher opens the panel; a question sent while the worker starts gets the
    sections that answer it, with links into the docs."""
    tab.goto(page_url(site, "results", "{chat: false}"))
    open_panel(tab)
    ask(tab, "How do I retry a job that failed?")
    wait_answered(tab, 1)
    wait_ready(tab)
    links = tab.links("Search results")
    assert any(link.startswith("/guides/retries.html") for link in links[:3]), links


def test_a_streamed_answer_cites_its_sources(tab: Tab, site: Site, endpoint: FakeEndpoint) -> None:
    """The answer streams in behind Stop, then shows Send again, its [n] citations
    linking to the same pages as its list of sources."""
    endpoint.queue(stream("Retry with `retry()` [1], backing off [2].", delay_s=0.02))
    tab.goto(page_url(site, "chat", CHAT))
    open_panel(tab)
    wait_ready(tab)
    ask(tab, "How do retries back off?")
    wait_answered(tab, 1)
    assert tab.count("button", "Send", exact=True) == 1
    sources = tab.links("Sources")
    cites = tab.run(
        "() => [...document.querySelector('[data-docs-panel]').shadowRoot"
        ".querySelectorAll('.answer a.cite')].map(a => a.getAttribute('href'))"
    )
    assert len(sources) == 2 and cites == sources, (cites, sources)


def test_stop_then_reload_keeps_the_stopped_turn(
    tab: Tab, site: Site, endpoint: FakeEndpoint
) -> None:
    """Stop keeps what arrived and says Stopped; a reload shows the same stopped turn."""
    endpoint.queue(hang("The first half of the answer [1]"))
    tab.goto(page_url(site, "stop", CHAT))
    open_panel(tab)
    wait_ready(tab)
    ask(tab, "retry a job")
    tab.wait_count("button", "Stop", 1, timeout_s=READY_S)
    tab.wait_until(
        "() => document.querySelector('[data-docs-panel]').shadowRoot"
        ".querySelector('.turn .answer')?.innerText.includes('first half')",
        timeout_s=READY_S,
    )
    tab.click("button", "Stop", exact=True)
    wait_answered(tab, 1)
    assert tab.count("button", "Ask again") == 1

    tab.reload()
    tab.wait_count("button", "Ask again", 1, timeout_s=READY_S)
    answer = tab.run(
        "() => document.querySelector('[data-docs-panel]').shadowRoot"
        ".querySelector('.turn .answer').innerText.trim()"
    )
    assert answer == "The first half of the answer [1]"
