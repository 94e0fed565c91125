"""An address the panel may link, as Chromium reads it: the hostile list resolved by
the browser itself, and a stored conversation whose addresses were tampered with,
restored after a reload."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from docs_panel.core.site_links import may_link
from tests.browser.conftest import Site
from tests.browser.reader import ask_and_wait, open_panel, reload_open, wait_ready
from tests.unit.core.test_site_links import HOSTILE, SAFE, resolved

pytestmark = pytest.mark.browser

OFF_SITE = "/\t/evil.example/x"


def test_chromium_resolves_each_address_as_the_rule_and_its_oracle_say(
    page: Page, site: Site
) -> None:
    page.goto(site.url)
    base = site.url + "base/page.html"
    hrefs = page.evaluate(
        """([addresses, base]) => addresses.map(a => {
            const link = document.createElement('a');
            link.setAttribute('href', a);
            document.body.append(link);
            const href = new URL(a, base).href;
            return [href, link.href.startsWith(location.origin + '/') || a === ''];
        })""",
        [HOSTILE + SAFE, base],
    )
    for address, (href, link_on_site) in zip(HOSTILE + SAFE, hrefs, strict=True):
        assert href == resolved(address, base).href, address  # the oracle is the browser's
        on_site = href.startswith(site.url.rstrip("/") + "/")
        if may_link(address):
            assert on_site and link_on_site, address
    assert not may_link(OFF_SITE) and "evil.example" in hrefs[0][0]


def test_a_restored_address_that_leaves_the_site_is_drawn_as_text(page: Page, site: Site) -> None:
    page.goto(site.url)
    open_panel(page)
    wait_ready(page)
    ask_and_wait(page, "retry a job")
    page.evaluate(
        """(hostile) => {
        const key = 'docs-panel.history', archive = JSON.parse(localStorage.getItem(key));
        for (const turn of archive.conversations[0].turns) {
          for (const result of turn.results) result.address = hostile;
        }
        localStorage.setItem(key, JSON.stringify(archive));
    }""",
        OFF_SITE,
    )
    reload_open(page)
    results = page.get_by_role("list", name="Search results")
    expect(results.get_by_role("listitem").first).to_be_visible()
    assert results.get_by_role("link").count() == 0
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
    assert not [href for href in hrefs if "evil.example" in href], json.dumps(hrefs)
