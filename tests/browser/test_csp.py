"""A site's Content Security Policy: the one the README documents works, and one that
blocks the runtimes gets a clear alert instead of an endless loading bar."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Site, Watch
from tests.browser.reader import ask_and_wait, open_panel, wait_ready
from widget.core.i18n import table

pytestmark = pytest.mark.browser

# The README's policy, plus 'unsafe-inline' for this test page's own config script.
DOCUMENTED = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval' 'wasm-unsafe-eval'; "
    "worker-src 'self' blob:; connect-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:"
)
WITHOUT_EVAL = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'"
)


def page_with_policy(site: Site, name: str, policy: str, lang: str = "en") -> str:
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    return site.add_page(
        f"/tests/{name}.html",
        f"""<!doctype html><html lang="{lang}"><head><meta charset="utf-8">{meta}
<title>{name}</title><link rel="icon" href="data:,">
<script>window.docsPanel = {{chat: false}};</script>
<script src="/docs-panel/embed.js" async></script></head><body><h1>{name}</h1></body></html>""",
    )


def test_the_documented_policy_lets_the_panel_work(page: Page, site: Site) -> None:
    """Under the README's CSP the panel loads, answers and stores as usual."""
    page.goto(page_with_policy(site, "csp-ok", DOCUMENTED))
    open_panel(page)
    wait_ready(page)
    ask_and_wait(page, "How do I retry a failed job?")


def test_a_policy_without_eval_gets_an_alert_naming_it(
    page: Page, site: Site, watch: Watch
) -> None:
    """Without 'unsafe-eval' the click shows an alert that names the CSP and the fix."""
    watch.expect_console_error(r"Content Security Policy|unsafe-eval|EvalError")
    page.goto(page_with_policy(site, "csp-blocked", WITHOUT_EVAL))
    page.get_by_role("button", name="Ask the docs").click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Content Security Policy", timeout=20_000)
    expect(alert).to_contain_text("'unsafe-eval'")
    expect(page.get_by_role("progressbar")).to_have_count(0)
    expect(page.get_by_role("button", name="Ask the docs")).not_to_have_attribute(
        "aria-busy", "true"
    )


def test_the_alert_speaks_the_pages_language(page: Page, site: Site, watch: Watch) -> None:
    """On a French page the alert comes in French (its words fetched only then)."""
    watch.expect_console_error(r"Content Security Policy|unsafe-eval|EvalError")
    page.goto(page_with_policy(site, "csp-blocked-fr", WITHOUT_EVAL, lang="fr"))
    words = table("fr")
    page.get_by_role("button", name=words["launcher"]).click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(words["csp_blocked"].split("{missing}")[0], timeout=20_000)
    expect(alert).to_contain_text("script-src 'unsafe-eval'")
