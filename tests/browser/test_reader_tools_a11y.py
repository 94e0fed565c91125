"""The reader's tools (private conversations, copying, history search, export and
import) in English, French and Arabic: every control found by
that language's words, and axe clean (light and dark) with the private switch on,
"Copied" said, the history searched with no match, and an import refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from docs_panel.portable.i18n import table
from tests.browser.conftest import Site
from tests.browser.endpoint import FakeEndpoint, stream
from tests.browser.reader import READY_TIMEOUT_MS, ask, open_history, open_panel, wait_ready
from tests.browser.shots import shoot
from tests.browser.test_a11y import check

pytestmark = pytest.mark.browser

ANSWER = "Use `retry()` [1]:\n\n```python\njob.retry(times=3)\n```"


@pytest.mark.parametrize("language", ["en", "fr", "ar"])
def test_the_reader_tools_in_each_language(
    page: Page, site: Site, endpoint: FakeEndpoint, tmp_path: Path, language: str
) -> None:
    words = table(language)
    endpoint.queue(stream(ANSWER), stream(ANSWER))
    page.goto(site.page_with_config(f"tools-{language}", "{chat: true}", html=f'lang="{language}"'))
    open_panel(page, words)
    wait_ready(page, words)

    switch = page.get_by_role("switch", name=words["private"])
    expect(switch).to_be_enabled()
    switch.press("Space")  # from the keyboard
    expect(switch).to_have_attribute("aria-checked", "true")
    expect(page.get_by_text(words["private_marker"], exact=True)).to_be_visible()
    check(page, f"{language}: private switch on")
    shoot(page, f"private-on-{language}")

    ask(page, "retry a job", words)
    copy = page.get_by_role("button", name=words["copy_answer"])
    expect(copy).to_be_visible(timeout=READY_TIMEOUT_MS)
    expect(page.get_by_role("button", name=words["copy_code"])).to_be_visible()
    copy.click()
    expect(page.get_by_role("status").filter(has_text=words["copied"])).to_be_visible()
    check(page, f"{language}: copied, private marker")
    shoot(page, f"copied-{language}")

    page.get_by_role("button", name=words["new_chat"]).click()
    expect(page.get_by_text(words["private_marker"], exact=True)).to_be_hidden()
    ask(page, "retry a job again", words)
    expect(page.get_by_role("button", name=words["copy_answer"])).to_be_visible(
        timeout=READY_TIMEOUT_MS
    )
    page.wait_for_function("localStorage.getItem('docs-panel.history')")
    open_history(page, words)
    search = page.get_by_role("searchbox", name=words["search_conversations"])
    expect(page.get_by_role("button", name=words["export"], exact=True)).to_have_count(1)
    expect(page.get_by_role("button", name=words["export_all"])).to_be_visible()
    search.fill("zzz")
    expect(page.get_by_text(words["no_matches"])).to_be_visible()
    check(page, f"{language}: no conversations match")
    shoot(page, f"search-no-match-{language}")

    search.fill("")
    garbage = tmp_path / "not-an-export.json"
    garbage.write_text('{"format": "something else"}')
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name=words["import"], exact=True).click()
    chooser.value.set_files(garbage)
    expect(page.get_by_role("alert")).to_have_text(words["import_damaged"])
    check(page, f"{language}: import refused")
    shoot(page, f"import-refused-{language}")
