"""A worker start that makes no progress is not waited for (lifecycle.StartWatch): the
shell ends it and starts the worker again without the warm-start copies, and says the
assistant cannot start only if that start makes none either.

Firefox ESR's worker rarely stops for good as it starts its wasm-compile thread, with no
sign at all (docs/decisions/0001-watch-every-worker-start.md). No
engine can be made to do that on demand, so a start is held here by its loader's module
never arriving: the same silence, the same cure. The second start asks for the loader
with ``?cold``.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, Route, expect

from docs_panel.portable.i18n import table
from docs_panel.portable.lifecycle import FIRST_SIGN_S
from tests.browser.conftest import Site, Watch
from tests.browser.reader import READY_TIMEOUT_MS, ask_and_wait, open_panel, reload_open
from tests.browser.test_warm_start import QUESTION, kept_copies

pytestmark = pytest.mark.browser

# The loader's module was asked for and never answered, or answered as the test ended.
HELD = r"(failed|HTTP \d+): .*/pyodide-loader\.[0-9a-f]+\.mjs"
LOADED = "performance.getEntriesByName('docs-panel:loader').length"
WARM = "performance.getEntriesByName('docs-panel:warm').length"


def hold_loader(page: Page, watch: Watch, *, cold_too: bool) -> list[Route]:
    """Hold requests for the worker's loader unanswered (the cold start's too, if
    ``cold_too``); the held routes, for the test to abort once it is done."""
    routes: list[Route] = []
    watch.expect_bad_request(HELD)
    held = lambda url: "/pyodide-loader." in url and (cold_too or "?cold" not in url)  # noqa: E731
    page.route(held, lambda route: routes.append(route))
    return routes


def test_a_start_that_makes_no_progress_is_made_again_cold(
    page: Page, site: Site, watch: Watch
) -> None:
    """A reload whose worker is held: the panel starts another, which leaves the copies
    the first visit kept alone (a cold start), and answers."""
    page.goto(site.url)
    open_panel(page)
    ask_and_wait(page, QUESTION)
    kept_copies(page)
    routes = hold_loader(page, watch, cold_too=False)
    try:
        reload_open(page)
        assert routes, "the first start's loader was never asked for"
        ask_and_wait(page, "configure the queue")
        started = [w for w in page.workers if w.evaluate(LOADED)]
        assert [w.evaluate(WARM) for w in started] == [0]
    finally:
        for route in routes:
            route.abort()


def test_a_second_start_without_progress_says_the_assistant_cannot_start(
    page: Page, site: Site, watch: Watch
) -> None:
    watch.expect_console_error("could not start")
    routes = hold_loader(page, watch, cold_too=True)
    try:
        page.goto(site.url)
        open_panel(page)
        alert = page.get_by_role("alert").filter(has_text=table("en")["start_failed"])
        expect(alert).to_be_visible(timeout=READY_TIMEOUT_MS + 4 * FIRST_SIGN_S * 1000)
        expect(page.get_by_role("progressbar")).to_have_count(0)
        assert len(routes) >= 2  # the first start's loader and the cold one's
    finally:
        for route in routes:
            route.abort()
