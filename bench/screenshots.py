"""Screenshots of the panel's states, to look at as a reader would.

    python3 bench/screenshots.py            # PNGs in bench/out/

closed · loading · thread with results · scope picked · narrow (mobile) ·
dark host page · history list · delete all armed · docs changed after a reload;
and with model answers (a scripted endpoint): streaming with reasoning open,
answer with sources, stopped turn, model failure, narrow and dark; the faults:
a throttled endpoint, a stalled one, a Content Security Policy that blocks; in other
languages: a French page (answer, "Not helpful" form, history list, settings), an
Arabic page right to left (answer, history list) and both on a phone.
"""

from __future__ import annotations

import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from docs_panel.build.cli import build_demo  # noqa: E402
from docs_panel.build.serve import make_server  # noqa: E402
from docs_panel.portable.i18n import table  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, Site  # noqa: E402
from tests.browser.endpoint import FakeEndpoint, hang, http_error, stream  # noqa: E402
from tests.browser.reader import ask  # noqa: E402
from tests.browser.test_csp import WITHOUT_EVAL, page_with_policy  # noqa: E402

OUT = ROOT / "bench" / "out"


def shoot(page: Page, name: str) -> None:
    page.screenshot(path=str(OUT / f"{name}.png"))
    print(OUT / f"{name}.png")


ANSWER = """To retry a job that failed, call `job.retry()` [1] or use the HTTP API:

```bash
curl -X POST https://tide.example/jobs/42/retry
```

- Retries wait longer each time (exponential backoff) [2].
- A dead job keeps its error; see [the retries guide](/guides/retries.html).
"""
CHAT = """{chat: true, scopes: [
  {id: "all", label: "All docs"}, {id: "api", label: "API", prefix: "/api/"}]}"""


def chat_states(browser: Browser, site: Site, endpoint: FakeEndpoint) -> None:
    url = site.page_with_config("chat", CHAT)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(url)
    page.get_by_role("button", name="Ask the docs").click()
    page.get_by_role("progressbar").wait_for(state="detached", timeout=120_000)
    endpoint.queue(stream(ANSWER, reasoning="The reader wants to retry. " * 6, delay_s=0.04))
    ask(page, "How do I retry a job that failed?")
    page.locator(".turn .answer code").first.wait_for()
    page.locator("details.reasoning summary").click()
    shoot(page, "10-streaming")
    page.get_by_role("list", name="Sources").wait_for(timeout=60_000)
    page.locator("details.reasoning summary").click()
    shoot(page, "11-answer")
    endpoint.queue(hang("Schedules use cron syntax [1], and a schedule can"))
    ask(page, "How do I schedule a nightly job?")
    page.get_by_role("button", name="Stop").click()
    page.get_by_text("Stopped", exact=True).wait_for()
    shoot(page, "12-stopped")
    endpoint.queue(http_error(503))
    ask(page, "webhook signatures")
    page.get_by_text("could not answer just now").wait_for(timeout=60_000)
    shoot(page, "13-model-failed")
    endpoint.queue(http_error(429, retry_after="7"))
    ask(page, "How do I add a webhook?")
    page.get_by_text("Too many questions right now").wait_for(timeout=60_000)
    shoot(page, "16-throttled")
    stalled = browser.new_page(viewport={"width": 1280, "height": 800})
    stalled.goto(site.page_with_config("stalled", "{chat: true, idleTimeout: 2}"))
    stalled.get_by_role("button", name="Ask the docs").click()
    endpoint.queue(hang("The first half of an answer that stalls [1]"))
    ask(stalled, "How do I retry a job that failed?")
    stalled.get_by_text("could not answer just now").wait_for(timeout=120_000)
    shoot(stalled, "17-stalled")
    blocked = browser.new_page(viewport={"width": 1280, "height": 800})
    blocked.goto(page_with_policy(site, "csp-blocked", WITHOUT_EVAL))
    blocked.get_by_role("button", name="Ask the docs").click()
    blocked.get_by_role("alert").wait_for()
    shoot(blocked, "18-csp-blocked")
    for name, width, height, scheme in (
        ("14-narrow-answer", 390, 760, "light"),
        ("15-dark-answer", 1280, 800, "dark"),
    ):
        page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
        page.goto(url)
        page.get_by_role("button", name="Ask the docs").click()
        endpoint.queue(stream(ANSWER))
        ask(page, "How do I retry a job that failed?")
        page.get_by_role("list", name="Sources").wait_for(timeout=120_000)
        shoot(page, name)
    endpoint.reset()


def language_states(browser: Browser, site: Site, endpoint: FakeEndpoint) -> None:
    """The panel in French and in Arabic (right to left), on a desktop and on a phone."""
    for language, html in (("fr", 'lang="fr"'), ("ar", 'lang="ar" dir="rtl"')):
        words = table(language)
        url = site.page_with_config(f"chat-{language}", CHAT, html=html)
        for width, height, suffix in ((1280, 800, ""), (390, 760, "-phone")):
            page = browser.new_page(viewport={"width": width, "height": height}, has_touch=True)
            page.goto(url)
            page.get_by_role("button", name=words["launcher"]).click()
            endpoint.queue(stream(ANSWER))
            ask(page, "How do I retry a job that failed?", words)
            page.get_by_role("list", name=words["sources"]).wait_for(timeout=120_000)
            shoot(page, f"20-{language}{suffix}-answer")
            if suffix:
                continue
            page.get_by_role("button", name=words["not_helpful"]).click()
            page.get_by_role("group", name=words["reasons"]).wait_for()
            shoot(page, f"21-{language}-not-helpful")
            page.get_by_role("button", name=words["settings"]).click()
            shoot(page, f"22-{language}-settings")
            page.get_by_role("button", name=words["settings"]).click()
            page.get_by_role("button", name=words["history"]).click()
            page.get_by_role("list", name=words["conversations"]).wait_for()
            page.get_by_role("button", name=words["delete_all"]).click()
            shoot(page, f"23-{language}-history")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "site"
        build_demo(root)
        endpoint = FakeEndpoint()
        server = make_server(root, port=0, chat=endpoint)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_port}/"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(url + "guides/retries.html")
            shoot(page, "1-closed")
            page.get_by_role("button", name="Ask the docs").click()
            page.get_by_role("progressbar", name="Loading the assistant").wait_for()
            ask(page, "How do I retry a job that failed?")
            shoot(page, "2-loading")
            page.get_by_role("list", name="Search results").wait_for(timeout=120_000)
            shoot(page, "3-thread")
            page.get_by_role("combobox", name="Search in").select_option(label="API")
            ask(page, "authentication tokens")
            page.get_by_role("list", name="Search results").nth(1).wait_for()
            shoot(page, "4-scoped")
            page.get_by_role("button", name="New chat").click()
            ask(page, "rate limits for the HTTP API")
            page.get_by_role("list", name="Search results").first.wait_for()
            page.get_by_role("button", name="Conversation history").click()
            page.get_by_role("list", name="Conversations").wait_for()
            page.get_by_role("button", name="Delete conversation").first.hover()
            shoot(page, "7-history")
            page.get_by_role("button", name="Delete all").click()
            shoot(page, "8-delete-armed")
            page.get_by_role("button", name="Cancel").click()
            page.evaluate(
                """() => { const a = JSON.parse(localStorage.getItem('docs-panel.history'));
                  for (const c of a.conversations) c.index_version = 'older';
                  localStorage.setItem('docs-panel.history', JSON.stringify(a)); }"""
            )
            page.reload()
            changed = page.get_by_role("status").filter(has_text="docs have changed")
            changed.wait_for(timeout=120_000)
            shoot(page, "9-docs-changed")

            for name, width, height, query in (
                ("5-narrow", 390, 760, ""),
                ("6-dark-host", 1280, 800, "?theme=dark"),
            ):
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(url + "getting-started/quickstart.html" + query)
                if name == "6-dark-host":
                    shoot(page, name + "-closed")
                page.get_by_role("button", name="Ask the docs").click()
                ask(page, "schedule a job every night")
                page.get_by_role("list", name="Search results").wait_for(timeout=120_000)
                shoot(page, name)
            chat_states(browser, Site(root=root, url=url), endpoint)
            language_states(browser, Site(root=root, url=url), endpoint)
            browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
