"""Phones and small windows: the demo site fits a 360 px screen, and the panel is a
full-screen sheet there with its composer at the bottom (issue 12)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.browser.conftest import Site, Watch

pytestmark = pytest.mark.browser

# The longest lines of the demo: a wide table, long inline code, long code blocks.
DEMO_PAGES = [
    "index.html",
    "guides/deployment.html",
    "reference/cli.html",
    "reference/python-client.html",
]


def small_context(browser: Browser, watch: Watch, width: int, height: int) -> BrowserContext:
    context = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=True, is_mobile=True
    )
    context.set_default_timeout(15_000)
    context.on("page", watch.attach)
    return context


@pytest.fixture
def narrow(browser: Browser, watch: Watch) -> Iterator[Page]:
    """A 360 px wide touch screen, the narrowest phones in common use."""
    context = small_context(browser, watch, 360, 740)
    page = context.new_page()
    yield page
    watch.check(page)
    context.close()


@pytest.mark.parametrize("path", DEMO_PAGES)
def test_demo_pages_fit_a_360_px_screen(narrow: Page, site: Site, path: str) -> None:
    """No demo page scrolls sideways on a phone (it would push the launcher off-screen)."""
    narrow.goto(site.url + path)
    assert narrow.evaluate("document.documentElement.scrollWidth") <= 360
