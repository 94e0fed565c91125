"""The panel in the reader's language: embed.js picks it (configured, else
the page's, else the browser's), every control is found by that language's words,
Arabic reads right to left, and axe finds nothing in any state of a French or an
Arabic panel. Controls are looked up by the tables' strings, never by English."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from docs_panel.portable.i18n import table
from tests.browser.conftest import Site, Watch
from tests.browser.endpoint import FakeEndpoint, hang, stream
from tests.browser.reader import (
    READY_TIMEOUT_MS,
    age_the_archive,
    ask,
    open_history,
    open_panel,
    wait_ready,
)
from tests.browser.test_a11y import check

pytestmark = pytest.mark.browser

FR, AR = table("fr"), table("ar")


@pytest.mark.parametrize(
    ("configured", "html", "locale", "expected"),
    [
        ('"fr"', 'lang="de"', "es-ES", "fr"),  # the site's choice wins
        ('"pt-BR"', 'lang="en"', "en-US", "pt"),  # a regional tag speaks its language
        ('"nl"', 'lang="fr"', "de-DE", "en"),  # chosen, but no table: English
        ('"auto"', 'lang="ko"', "ja-JP", "ko"),  # the page's language
        ('"auto"', "", "ja-JP", "ja"),  # then the browser's
        ('"auto"', 'lang="nl"', "zh-CN", "zh"),  # the first that has a table
        ('"auto"', 'lang="nl"', "sv-SE", "en"),
        ("42", 'lang="ES"', "en-US", "es"),  # a value the config rejects counts as "auto"
        ('"pt_BR"', 'lang="es"', "en-US", "es"),  # so does a POSIX locale name
    ],
)
def test_the_launcher_speaks_the_chosen_language(
    browser: Browser,
    site: Site,
    watch: Watch,
    configured: str,
    html: str,
    locale: str,
    expected: str,
) -> None:
    """Configured, else page, else browser; a language without a table is English."""
    context = browser.new_context(locale=locale)
    context.on("page", watch.attach)
    page = context.new_page()
    page.goto(site.page_with_config(f"lang-{expected}", f"{{language: {configured}}}", html=html))
    launcher = page.get_by_role("button", name=table(expected)["launcher"], exact=True)
    expect(launcher).to_be_visible()
    expect(page.locator("[data-docs-panel]")).to_have_attribute("lang", expected)
    hint = table(expected)["launcher_title"].format(keys=table(expected)["key_ctrl"] + "+/")
    expect(launcher).to_have_attribute("title", hint)
    context.close()


def test_a_french_panel_in_every_state(page: Page, site: Site, endpoint: FakeEndpoint) -> None:
    """A French page: each state found by French names, announced once, 0 axe violations."""
    endpoint.queue(hang("La première moitié de la réponse [1]"), stream("La réponse entière [1]."))
    page.goto(site.page_with_config("french", "{chat: true}", html='lang="fr"'))
    expect(page.get_by_role("button", name=FR["launcher"])).to_be_visible()
    check(page, "closed")

    open_panel(page, FR)
    panel = page.get_by_role("region", name=FR["panel"])
    expect(panel).to_have_attribute("lang", "fr")
    expect(panel).to_have_attribute("dir", "ltr")
    if page.get_by_role("progressbar", name=FR["loading"]).count():
        check(page, "loading")
    wait_ready(page, FR)
    expect(page.get_by_text(FR["empty_title"])).to_be_visible()
    check(page, "empty")

    ask(page, "retry a job", FR)  # the demo docs are in English
    stop = page.get_by_role("button", name=FR["stop"])
    expect(page.locator(".turn .answer")).to_contain_text("première", timeout=READY_TIMEOUT_MS)
    check(page, "streaming")
    assert page.locator(".thread[aria-live]").count() == 0  # tokens are not read one by one
    stop.click()
    expect(page.get_by_text(FR["stopped"], exact=True)).to_be_visible()
    expect(page.get_by_role("status").filter(has_text=FR["answer_done"])).to_have_count(0)
    check(page, "stopped")

    page.get_by_role("button", name=FR["ask_again"]).click()
    expect(page.get_by_role("status").filter(has_text=FR["answer_done"])).to_have_count(
        1, timeout=READY_TIMEOUT_MS
    )
    expect(page.get_by_role("list", name=FR["sources"])).to_have_count(2)
    check(page, "answer")

    page.get_by_role("button", name=FR["not_helpful"]).last.click()
    expect(page.get_by_role("checkbox", name=FR["reason_wrong"]).last).to_be_focused()
    expect(page.get_by_role("textbox", name=FR["what_was_wrong"]).last).to_be_visible()
    expect(page.get_by_role("button", name=FR["send_feedback"]).last).to_be_visible()
    check(page, "not helpful form")
    page.get_by_role("checkbox", name=FR["reason_wrong"]).last.press("Space")
    page.get_by_role("button", name=FR["send_feedback"]).last.press("Enter")
    expect(page.get_by_role("status").filter(has_text=FR["feedback_thanks"])).to_be_visible()
    expect(page.get_by_role("button", name=FR["not_helpful"]).last).to_be_focused()

    page.get_by_role("button", name=FR["settings"]).click()
    expect(page.get_by_role("textbox", name=FR["instruction"])).to_be_focused()
    check(page, "settings")
    page.get_by_role("button", name=FR["settings"]).click()

    open_history(page, FR)
    row = page.get_by_role("list", name=FR["conversations"]).get_by_role("listitem")
    now = page.evaluate("new Intl.RelativeTimeFormat('fr', {numeric: 'auto'}).format(0, 'second')")
    expect(row.locator(".when")).to_have_text(now)
    check(page, "history list")
    delete_all_armed_then_docs_changed(page, FR)


def test_an_arabic_panel_reads_right_to_left(
    page: Page, site: Site, endpoint: FakeEndpoint
) -> None:
    """An Arabic page: Arabic names, dir=rtl, the launcher and panel at the left, Send left
    of the box, an English answer and its code left to right, 0 axe violations in each
    state through docs changed."""
    endpoint.queue(
        hang("The first half [1]"),
        stream("Call `job.retry()` [1].\n\n- It waits longer each time [1]."),
    )
    page.goto(site.page_with_config("arabic", "{chat: true}", html='lang="ar" dir="rtl"'))
    launcher = page.get_by_role("button", name=AR["launcher"])
    expect(launcher).to_be_visible()
    assert (launcher.bounding_box() or {"x": 1280})["x"] < 640
    check(page, "closed")

    open_panel(page, AR)
    panel = page.get_by_role("region", name=AR["panel"])
    expect(panel).to_have_attribute("dir", "rtl")
    expect(panel).to_have_attribute("lang", "ar")
    assert (panel.bounding_box() or {"x": 0})["x"] == 20
    box = page.get_by_role("textbox", name=AR["question"])
    assert box.evaluate("e => getComputedStyle(e).direction") == "rtl"  # its placeholder
    box.fill("How do I retry?")
    assert box.evaluate("e => getComputedStyle(e).direction") == "ltr"  # dir=auto
    box.fill("")
    send = page.get_by_role("button", name=AR["send"]).bounding_box()
    question = box.bounding_box()
    assert send and question and send["x"] < question["x"]
    if page.get_by_role("progressbar", name=AR["loading"]).count():
        check(page, "loading")
    wait_ready(page, AR)
    check(page, "empty")

    ask(page, "retry a failed job", AR)
    expect(page.locator(".turn .answer")).to_contain_text("first", timeout=READY_TIMEOUT_MS)
    check(page, "streaming")
    page.get_by_role("button", name=AR["stop"]).click()
    expect(page.get_by_text(AR["stopped"], exact=True)).to_be_visible()
    check(page, "stopped")
    page.get_by_role("button", name=AR["ask_again"]).click()
    expect(page.get_by_role("status").filter(has_text=AR["answer_done"])).to_have_count(
        1, timeout=READY_TIMEOUT_MS
    )
    expect(page.get_by_role("list", name=AR["sources"]).last).to_be_visible()
    answer = page.locator(".answer").last
    assert answer.evaluate("a => getComputedStyle(a.querySelector('li')).direction") == "ltr"
    assert answer.evaluate("a => getComputedStyle(a.querySelector('code')).direction") == "ltr"
    expect(page.get_by_role("button", name=AR["helpful"], exact=True).last).to_be_visible()
    check(page, "answer")
    page.get_by_role("button", name=AR["not_helpful"]).last.click()
    expect(page.get_by_role("textbox", name=AR["what_was_wrong"]).last).to_be_visible()
    check(page, "not helpful form")

    page.get_by_role("button", name=AR["settings"]).click()
    expect(page.get_by_role("textbox", name=AR["instruction"])).to_be_focused()
    check(page, "settings")

    open_history(page, AR)
    expect(page.get_by_role("list", name=AR["conversations"])).to_be_visible()
    check(page, "history list")
    delete_all_armed_then_docs_changed(page, AR)


def delete_all_armed_then_docs_changed(page: Page, words: dict[str, str]) -> None:
    """From the open history list: Delete all armed, then cancelled; then a conversation
    kept before the docs were rebuilt, reopened under its status. Axe in both states."""
    page.get_by_role("button", name=words["delete_all"]).click()
    expect(page.get_by_role("button", name=words["confirm_delete_all"])).to_be_visible()
    check(page, "delete all armed")
    page.get_by_role("button", name=words["cancel"]).click()

    age_the_archive(page)
    page.get_by_role("button", name=words["new_chat"]).click()
    open_history(page, words)
    page.get_by_role("list", name=words["conversations"]).get_by_role("button").first.click()
    expect(page.get_by_role("status").filter(has_text=words["docs_changed"])).to_be_visible()
    check(page, "docs changed")
