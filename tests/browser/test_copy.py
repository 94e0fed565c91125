"""Copy answer and Copy code, in Chromium: what reaches the clipboard, said
"Copied" in a live region, from the keyboard, and without the async clipboard API."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.conftest import Site
from tests.browser.endpoint import FakeEndpoint, stream
from tests.browser.reader import READY_TIMEOUT_MS, ask, open_panel, reload_open, wait_ready
from tests.browser.shots import shoot

pytestmark = pytest.mark.browser

ANSWER = "Call `retry()` [1]:\n\n```python\njob.retry(times=3)\n```\n\nThen wait."
CODE = "job.retry(times=3)\n"
# What the page's copy events carried, whichever way the panel copied: the async API's
# writeText, or the fallback's selection in its textarea (a copy event's composed path
# starts at that textarea inside the Shadow DOM).
RECORD_COPIES = """
window.__copied = [];
document.addEventListener("copy", (event) => {
  const origin = event.composedPath()[0];
  window.__copied.push(origin && "value" in origin ? origin.value : String(getSelection()));
}, true);
if (navigator.clipboard) {
  const write = navigator.clipboard.writeText.bind(navigator.clipboard);
  navigator.clipboard.writeText = (text) => { window.__copied.push(text); return write(text); };
}
"""
NO_CLIPBOARD_API = (
    "Object.defineProperty(Navigator.prototype, 'clipboard', {get: () => undefined});"
)
CHAT = "{chat: true}"


def answered(page: Page, site: Site, endpoint: FakeEndpoint) -> None:
    endpoint.queue(stream(ANSWER))
    page.goto(site.page_with_config("copy", CHAT))
    open_panel(page)
    wait_ready(page)
    ask(page, "How do I retry a job?")
    expect(page.get_by_role("button", name="Copy answer")).to_be_visible(timeout=READY_TIMEOUT_MS)


def copies(page: Page) -> list[str]:
    return page.evaluate("window.__copied")  # type: ignore[no-any-return]


def expected_answer(page: Page) -> str:
    source = page.get_by_role("list", name="Sources").get_by_role("link").first
    title, href = source.inner_text(), source.get_attribute("href")
    origin = page.evaluate("location.origin")
    return f"{ANSWER}\n\nSources:\n- [1] [{title}]({origin}{href})"


def test_copy_answer_and_code_with_the_clipboard_api(
    context: BrowserContext, site: Site, endpoint: FakeEndpoint
) -> None:
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    context.add_init_script(RECORD_COPIES)
    page = context.new_page()
    answered(page, site, endpoint)
    page.get_by_role("button", name="Copy answer").click()
    expect(page.get_by_role("status").filter(has_text="Copied")).to_have_count(1)
    assert page.evaluate("navigator.clipboard.readText()") == expected_answer(page)
    shoot(page, "copy-answer-copied")
    page.get_by_role("button", name="Copy code").click()
    expect(page.get_by_role("status").filter(has_text="Copied")).to_have_count(2)
    assert page.evaluate("navigator.clipboard.readText()") == CODE
    assert copies(page) == [expected_answer(page), CODE]


def test_copy_works_without_the_async_clipboard_api_and_from_the_keyboard(
    context: BrowserContext, site: Site, endpoint: FakeEndpoint
) -> None:
    context.add_init_script(NO_CLIPBOARD_API)
    context.add_init_script(RECORD_COPIES)
    page = context.new_page()
    answered(page, site, endpoint)
    assert page.evaluate("navigator.clipboard") is None
    code = page.get_by_role("button", name="Copy code")
    code.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("status").filter(has_text="Copied")).to_have_count(1)
    expect(code).to_be_focused()  # focus came back from the fallback's textarea
    answer = page.get_by_role("button", name="Copy answer")
    answer.focus()
    page.keyboard.press("Space")
    expect(page.get_by_role("status").filter(has_text="Copied")).to_have_count(2)
    assert copies(page) == [CODE, expected_answer(page)]
    shoot(page, "copy-fallback")


def test_a_restored_answer_copies_the_same_markdown(
    context: BrowserContext, site: Site, endpoint: FakeEndpoint
) -> None:
    context.add_init_script(RECORD_COPIES)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    answered(page, site, endpoint)
    expected = expected_answer(page)
    page.wait_for_function("localStorage.getItem('docs-panel.history')")
    reload_open(page)
    page.get_by_role("button", name="Copy answer").click()
    expect(page.get_by_role("status").filter(has_text="Copied")).to_have_count(1)
    assert copies(page) == [expected]
