"""A site's Content Security Policy: the one docs/csp.md documents works, and one that
blocks the runtimes gets a clear alert instead of an endless loading bar."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from docs_panel.portable.i18n import table
from tests.browser.conftest import Site, Watch
from tests.browser.endpoint import FakeEndpoint
from tests.browser.feedback_endpoint import FakeFeedback
from tests.browser.reader import READY_TIMEOUT_MS, ask, open_panel, wait_ready

pytestmark = pytest.mark.browser

CSP_PAGE = Path(__file__).parents[2] / "docs" / "csp.md"
NONCE = "b2YtdGhlLWNvbmZpZw"
WITHOUT_EVAL = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'"
)


def documented_policy(feedback_origin: str) -> str:
    """The docs' policy, as a site would fill it in: the feedback endpoint's origin in
    connect-src, a nonce for the inline config, and nothing else allowed (default-src)."""
    block = CSP_PAGE.read_text(encoding="utf-8").split("```", 2)[1]
    policy = " ".join(block.split())
    policy = re.sub(r"<endpoint and feedbackEndpoint origins[^>]*>", feedback_origin, policy)
    policy = policy.replace("script-src 'self'", f"script-src 'self' 'nonce-{NONCE}'")
    return "default-src 'self'; " + policy.rstrip(";")


class CrossOriginFeedback:
    """``feedback`` served on an origin of its own, answering the CORS preflight."""

    def __init__(self, feedback: FakeFeedback) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_OPTIONS(self) -> None:
                self._reply(204)

            def do_POST(self) -> None:
                self._reply(feedback(self.rfile.read(int(self.headers["Content-Length"]))))

            def _reply(self, status: int) -> None:
                self.send_response(status)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Access-Control-Allow-Headers", "Content-Type")
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.origin = f"http://127.0.0.1:{self.server.server_port}"


@pytest.fixture
def receiver(feedback: FakeFeedback) -> Iterator[CrossOriginFeedback]:
    server = CrossOriginFeedback(feedback)
    yield server
    server.server.shutdown()
    server.server.server_close()


def page_with_policy(
    site: Site, name: str, policy: str, lang: str = "en", config: str = "{chat: false}"
) -> str:
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    return site.add_page(
        f"/tests/{name}.html",
        f"""<!doctype html><html lang="{lang}"><head><meta charset="utf-8">{meta}
<title>{name}</title>
<script nonce="{NONCE}">window.docsPanel = {config};</script>
<script src="/docs-panel/embed.js" async></script></head><body><h1>{name}</h1></body></html>""",
    )


def test_the_documented_policy_lets_the_panel_work(
    page: Page,
    site: Site,
    watch: Watch,
    endpoint: FakeEndpoint,
    feedback: FakeFeedback,
    receiver: CrossOriginFeedback,
) -> None:
    """Under exactly the docs' CSP (its connect-src naming a feedback endpoint on
    another origin) the panel loads, streams an answer, stores it and sends a vote."""
    watch.expect_bad_request(rf"^off-site request: {re.escape(receiver.origin)}/api/feedback$")
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security" in m.text else 0)
    config = json.dumps({"feedbackEndpoint": receiver.origin + "/api/feedback"})
    page.goto(page_with_policy(site, "csp-ok", documented_policy(receiver.origin), config=config))
    open_panel(page)
    wait_ready(page)
    ask(page, "How do I retry a failed job?")
    turn = page.locator(".turn").last
    expect(turn.locator(".answer")).to_contain_text("Demo answer", timeout=READY_TIMEOUT_MS)
    helpful = turn.get_by_role("button", name="Helpful", exact=True)
    with page.expect_request_finished(lambda r: r.url.startswith(receiver.origin)):
        helpful.click()
    assert [r["vote"] for r in feedback.reports] == ["up"]
    page.wait_for_function("() => localStorage.getItem('docs-panel.history') !== null")
    assert endpoint.requests and not violations, violations


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
