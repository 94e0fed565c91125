"""When the runtimes start loading before the first click: config ``preload``."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Site, Watch
from tests.browser.reader import ask, open_panel, result_links

pytestmark = pytest.mark.browser

RUNTIME = re.compile(r"/docs-panel/(runtime/|shell\.|worker\.|index\.|stdlib\.|pyodide-loader\.)")
READY_TIMEOUT_MS = 60_000


def runtime_requests(watch: Watch) -> list[str]:
    return [url for url in watch.requests if RUNTIME.search(url)]


def test_pointer_over_the_launcher_starts_loading_and_the_panel_stays_closed(
    page: Page, site: Site, watch: Watch
) -> None:
    """Default "intent": hovering fetches the runtimes; the panel opens only on the click."""
    page.goto(site.page_with_config("intent", "{chat: false}"))
    page.get_by_role("button", name="Ask the docs").hover()
    page.wait_for_function("window.__docsPanel.toggle !== null", timeout=READY_TIMEOUT_MS)
    assert any("/runtime/pyodide-" in url for url in runtime_requests(watch))
    expect(page.get_by_role("region", name="Docs assistant")).to_be_hidden()
    open_panel(page)
    ask(page, "retry a failed job")
    assert result_links(page)


def test_preload_none_waits_for_the_click(page: Page, site: Site, watch: Watch) -> None:
    """ "none": neither hovering nor focusing the launcher fetches anything."""
    page.goto(site.page_with_config("preload-none", '{preload: "none"}'))
    launcher = page.get_by_role("button", name="Ask the docs")
    launcher.hover()
    launcher.focus()
    page.wait_for_load_state("networkidle")
    assert runtime_requests(watch) == []


def test_preload_idle_loads_without_a_reader(page: Page, site: Site, watch: Watch) -> None:
    """ "idle": once the page is idle the runtimes load, untouched, and the panel stays closed."""
    page.goto(site.page_with_config("preload-idle", '{preload: "idle"}'))
    page.wait_for_function("window.__docsPanel.toggle !== null", timeout=READY_TIMEOUT_MS)
    assert any("/runtime/pyodide-" in url for url in runtime_requests(watch))
    expect(page.get_by_role("region", name="Docs assistant")).to_be_hidden()
