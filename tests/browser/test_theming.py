"""Theming (docs/configuration.md, "Theming"): each --docs-panel-* property set on the page's :root
changes what it names in the panel, and nothing else; the panel follows the reader's
light/dark preference."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Site
from tests.browser.endpoint import FakeEndpoint, stream
from tests.browser.reader import READY_TIMEOUT_MS, ask, open_panel, wait_ready

pytestmark = pytest.mark.browser

CONFIGURATION_PAGE = Path(__file__).parents[2] / "docs" / "configuration.md"
# property: (an element of the panel that shows it, the style read there, a value to set)
PROBES = {
    "--docs-panel-accent": (".send", "backgroundColor", "rgb(200, 0, 1)"),
    "--docs-panel-on-accent": (".send", "color", "rgb(200, 0, 2)"),
    "--docs-panel-bg": (".panel", "backgroundColor", "rgb(200, 0, 3)"),
    "--docs-panel-fg": (".panel", "color", "rgb(200, 0, 4)"),
    "--docs-panel-muted": (".scope", "color", "rgb(200, 0, 5)"),
    "--docs-panel-border": (".composer", "borderTopColor", "rgb(200, 0, 6)"),
    "--docs-panel-soft": (".scope select", "backgroundColor", "rgb(200, 0, 7)"),
    "--docs-panel-focus": (".composer textarea", "outlineColor", "rgb(200, 0, 8)"),
    "--docs-panel-font": (".panel", "fontFamily", "Georgia"),
    "--docs-panel-mono": (".answer code", "fontFamily", "Courier"),
}
READ = """probes => {
  const root = document.querySelector('[data-docs-panel]').shadowRoot;
  root.querySelector('.composer textarea').focus();  // the ring shows on a focused control
  return Object.fromEntries(Object.entries(probes).map(([name, [selector, style]]) =>
    [name, getComputedStyle(root.querySelector(selector))[style]]));
}"""
CONFIG = '{chat: true, scopes: [{id: "all", label: "All docs"}, {id: "api", label: "API"}]}'


def themed_page(page: Page, site: Site, endpoint: FakeEndpoint) -> None:
    """The panel open with an answer that holds code, so every probe has its element."""
    endpoint.queue(stream("Call `retry()` [1]."))
    page.goto(site.page_with_config("theming", CONFIG))
    open_panel(page)
    wait_ready(page)
    ask(page, "How do I retry a failed job?")
    expect(page.locator(".turn .answer code")).to_have_text("retry()", timeout=READY_TIMEOUT_MS)


def styles(page: Page) -> dict[str, str]:
    return page.evaluate(READ, {name: probe[:2] for name, probe in PROBES.items()})  # type: ignore[no-any-return]


def test_every_documented_property_has_a_probe() -> None:
    """The docs' list of properties is the one checked below."""
    page = CONFIGURATION_PAGE.read_text(encoding="utf-8")
    section = page.split("## Theming", 1)[1].split("\n#", 1)[0]
    assert set(re.findall(r"`(--docs-panel-[a-z-]+)`", section)) == set(PROBES)


def test_each_property_changes_what_it_names(
    page: Page, site: Site, endpoint: FakeEndpoint
) -> None:
    """Set on the page's :root, one at a time: its own probe takes the value, the
    others keep the panel's defaults."""
    themed_page(page, site, endpoint)
    default = styles(page)
    for name, (_, _, value) in PROBES.items():
        page.evaluate("([n, v]) => document.documentElement.style.setProperty(n, v)", [name, value])
        assert styles(page) == {**default, name: value}, name
        page.evaluate("n => document.documentElement.style.removeProperty(n)", name)


def luminance(color: str) -> float:
    red, green, blue = (int(c) for c in re.findall(r"\d+", color)[:3])
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


def test_the_panel_follows_the_readers_dark_preference(
    page: Page, site: Site, endpoint: FakeEndpoint
) -> None:
    """Light: dark text on a light panel; dark: the other way round, live."""
    page.emulate_media(color_scheme="light")
    themed_page(page, site, endpoint)
    light = styles(page)
    assert luminance(light["--docs-panel-bg"]) > 0.8 > 0.3 > luminance(light["--docs-panel-fg"])
    page.emulate_media(color_scheme="dark")
    dark = styles(page)
    assert luminance(dark["--docs-panel-bg"]) < 0.2 < 0.7 < luminance(dark["--docs-panel-fg"])
    assert dark["--docs-panel-accent"] != light["--docs-panel-accent"]
