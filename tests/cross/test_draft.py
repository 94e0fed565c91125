"""The draft (contract §3): a half-typed question survives a reload of the tab, and a sent
one does not come back into the composer, in every engine."""

from __future__ import annotations

import pytest

from tests.browser.conftest import Site
from tests.browser.endpoint import FakeEndpoint, stream
from tests.cross.conftest import page_url
from tests.cross.reader import READY_S, ask, open_panel, stored, wait_answered, wait_ready
from tests.cross.tabs import Tab, with_finder

pytestmark = [pytest.mark.browser, pytest.mark.cross]

COMPOSER = with_finder("() => find('textbox', 'Ask a question', true)[0]?.value")


def test_a_sent_question_leaves_no_draft(tab: Tab, site: Site, endpoint: FakeEndpoint) -> None:
    """Typed key by key and sent, the question is no draft once its answer ends, and a
    reload leaves the composer empty; a question typed and not sent comes back."""
    # An answer streaming for longer than the draft's debounce (persistence.DRAFT_DELAY_S):
    # a draft write the last keystroke scheduled has landed by its end.
    steps = " ".join(f"Retry {n} waits twice as long as retry {n - 1}." for n in range(1, 8))
    endpoint.queue(stream(f"{steps} [1]", delay_s=0.03))
    tab.goto(page_url(site, "draft", "{chat: true}"))
    open_panel(tab)
    wait_ready(tab)
    ask(tab, "How do retries back off?")
    wait_answered(tab, 1)
    assert stored(tab, "draft") is None
    tab.reload()
    tab.wait_count("list", "Sources", 1, timeout_s=READY_S)
    wait_ready(tab)
    assert tab.run(COMPOSER) == ""

    tab.type("textbox", "Ask a question", "and how long at most")
    tab.wait_until(
        "() => sessionStorage.getItem('docs-panel.composer.draft') === 'and how long at most'",
        timeout_s=READY_S,
    )
    tab.reload()
    restored = tab.wait_until(COMPOSER, timeout_s=READY_S, what="the draft back in the composer")
    assert restored == "and how long at most"
