"""A Content Security Policy that blocks the runtimes, in Chromium, Firefox ESR and
WebKitGTK: the click shows an alert naming the policy and the fix, not a loading bar."""

from __future__ import annotations

import pytest

from tests.browser.conftest import Site
from tests.browser.test_csp import WITHOUT_EVAL
from tests.cross.conftest import page_url
from tests.cross.tabs import Tab, with_finder

pytestmark = [pytest.mark.browser, pytest.mark.cross]


def test_a_policy_without_eval_gets_an_alert_naming_it(tab: Tab, site: Site) -> None:
    # Each engine words the blocked eval its own way.
    tab.expect_problem(r"(?i)content security policy|unsafe-eval|EvalError|\beval\b|CSP")
    meta = f'<meta http-equiv="Content-Security-Policy" content="{WITHOUT_EVAL}">'
    tab.goto(page_url(site, "csp-blocked", "{chat: false}", head=meta))
    tab.click("button", "Ask the docs")
    alert = str(
        tab.wait_until(
            with_finder("() => find('alert').map(e => e.innerText).join(' ')"),
            timeout_s=60,
            what="an alert",
        )
    )
    assert "Content Security Policy" in alert and "'unsafe-eval'" in alert, alert
    assert tab.count("progressbar") == 0
    assert tab.attribute("button", "Ask the docs", "aria-busy") != "true"
