"""axe-core finds no WCAG 2.2 AA violation in any panel state reachable today, in the
light and the dark theme and on a phone (French and Arabic panels in
test_languages.py); each state is reached the way a reader does."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.a11y import axe_violations
from tests.browser.conftest import Site
from tests.browser.reader import (
    age_the_archive,
    ask_and_wait,
    new_chat,
    open_history,
    open_panel,
    settled_archive,
    wait_ready,
)

pytestmark = pytest.mark.browser

PANEL = "[data-docs-panel]"


def check(page: Page, state: str) -> None:
    """axe on the panel in both colour schemes; the page is left in the light one."""
    found = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        found += [f"{state}, {scheme}: {line}" for line in axe_violations(page, PANEL)]
    page.emulate_media(color_scheme="light")
    assert found == [], "\n".join(found)


def test_every_state_has_no_axe_violations(page: Page, site: Site) -> None:
    """Closed, loading, empty, answered, history, delete-all armed, docs changed, then as
    a phone sheet: 0 violations."""
    page.goto(site.url)
    expect(page.get_by_role("button", name="Ask the docs")).to_be_visible()
    check(page, "closed")

    open_panel(page)
    loading = page.get_by_role("progressbar", name="Loading the assistant")
    if loading.count():  # the worker may already be up on a fast machine
        check(page, "loading")
    wait_ready(page)
    check(page, "empty")

    ask_and_wait(page, "retry a failed job")
    check(page, "search results")

    open_history(page)
    check(page, "history list")
    page.get_by_role("button", name="Delete all").click()
    expect(page.get_by_role("button", name="Confirm delete all")).to_be_visible()
    check(page, "delete all armed")
    page.get_by_role("button", name="Cancel").click()

    assert settled_archive(page, [["retry a failed job"]])
    age_the_archive(page)
    new_chat(page)
    open_history(page)
    page.get_by_role("button", name="retry a failed job").click()
    expect(page.get_by_role("status").filter(has_text="The docs have changed")).to_be_visible()
    check(page, "docs changed")

    page.set_viewport_size({"width": 390, "height": 760})
    check(page, "phone sheet")


def test_axe_sees_inside_the_panels_shadow_root(page: Page, site: Site) -> None:
    """A nameless button and low-contrast text inside the Shadow DOM are reported."""
    page.goto(site.url)
    expect(page.get_by_role("button", name="Ask the docs")).to_be_visible()
    page.evaluate(
        """() => document.querySelector('[data-docs-panel]').shadowRoot.append(
             Object.assign(document.createElement('button'), {className: 'bare'}),
             Object.assign(document.createElement('p'), {
               textContent: 'faint', style: 'color:#ccc;background:#fff'}))"""
    )
    found = axe_violations(page, PANEL)
    assert [line.split(" ")[0] for line in found] == ["button-name", "color-contrast"], found
    assert ">>> .bare" in found[0]
