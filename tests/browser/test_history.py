"""Conversation history in Chromium: the list, reloads, several tabs, what is stored."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from docs_panel.core.history import dump_archive
from docs_panel.core.history_schema import Archive, Conversation, ResultItem, Turn
from tests.browser.conftest import Site, Watch
from tests.browser.reader import (
    KEYS,
    READY_TIMEOUT_MS,
    age_the_archive,
    archive,
    ask,
    ask_and_wait,
    history_titles,
    new_chat,
    open_history,
    open_panel,
    settled_archive,
    stored,
    wait_ready,
)

pytestmark = pytest.mark.browser

TOKEN = "ghp_" + "FAKE0123456789abcdefghijklmnopqrstuv"


def fresh(page: Page, url: str) -> None:
    page.goto(url)
    open_panel(page)
    wait_ready(page)


def test_reload_comes_back_to_the_conversation(page: Page, site: Site) -> None:
    """After a reload the tab shows its conversation again, panel open, and carries on in it."""
    fresh(page, site.url)
    ask_and_wait(page, "How do I retry a job that failed?")
    ask_and_wait(page, "webhook signatures")
    questions = ["How do I retry a job that failed?", "webhook signatures"]
    assert settled_archive(page, [questions]) == [questions]
    [conversation_id] = archive(page)
    page.reload()
    expect(page.get_by_role("region", name="Docs assistant")).to_be_visible(timeout=60_000)
    expect(page.get_by_role("list", name="Search results")).to_have_count(2, timeout=60_000)
    wait_ready(page)
    ask_and_wait(page, "rate limits")
    assert settled_archive(page, [[*questions, "rate limits"]]) == [[*questions, "rate limits"]]
    assert list(archive(page)) == [conversation_id]


def test_history_list_open_new_chat_and_delete(page: Page, site: Site) -> None:
    """Rows show first questions, newest first; open, new chat and delete do what they say."""
    fresh(page, site.url)
    ask_and_wait(page, "install the command line tool")
    new_chat(page)
    ask_and_wait(page, "rate limits")
    assert history_titles(page) == ["rate limits", "install the command line tool"]
    row = page.get_by_role("list", name="Conversations").get_by_role("listitem").first
    expect(row).to_contain_text("now")  # relative time, in the page's language

    page.get_by_role("button", name="install the command line tool").click()
    expect(page.get_by_role("list", name="Conversations")).to_be_hidden()
    expect(page.locator("article .question")).to_have_text(["install the command line tool"])
    ask_and_wait(page, "upgrade to a new version")
    expected = [
        ["install the command line tool", "upgrade to a new version"],
        ["rate limits"],
    ]
    assert settled_archive(page, expected) == expected

    # Deleting the conversation on screen empties the panel.
    open_history(page)
    rows = page.get_by_role("list", name="Conversations").get_by_role("listitem")
    rows.filter(has_text="install the command line tool").get_by_role(
        "button", name="Delete conversation"
    ).click()
    expect(rows).to_have_count(1)
    expect(page.get_by_role("list", name="Search results")).to_have_count(0)
    assert settled_archive(page, [["rate limits"]]) == [["rate limits"]]


def test_delete_all_needs_two_clicks(page: Page, site: Site) -> None:
    """Delete all arms first; Cancel disarms; Confirm clears list, panel and feedback log."""
    page.goto(site.url)
    page.evaluate("localStorage.setItem('docs-panel.feedback', '[]')")
    open_panel(page)
    wait_ready(page)
    ask_and_wait(page, "rate limits")
    open_history(page)
    page.get_by_role("button", name="Delete all").click()
    page.get_by_role("button", name="Cancel").click()
    expect(page.get_by_role("button", name="Confirm delete all")).to_be_hidden()
    assert archive(page)
    page.get_by_role("button", name="Delete all").click()
    page.get_by_role("button", name="Confirm delete all").click()
    expect(page.get_by_text("No conversations yet.")).to_be_visible()
    expect(page.get_by_role("list", name="Search results")).to_have_count(0)
    assert stored(page, "history") is None and stored(page, "feedback") is None


def test_two_tabs_see_each_others_conversations(context: BrowserContext, site: Site) -> None:
    """Two tabs asking alternately each find the other's conversation when the list opens."""
    first, second = context.new_page(), context.new_page()
    for tab in (first, second):
        fresh(tab, site.url)
    ask_and_wait(first, "retry a failed job")
    ask_and_wait(second, "schedule a job every night")
    ask_and_wait(first, "dead jobs")
    ask_and_wait(second, "time zones")
    assert sorted(history_titles(first)) == ["retry a failed job", "schedule a job every night"]
    assert history_titles(second)[0] == "schedule a job every night"  # newest activity first
    expected = [
        ["retry a failed job", "dead jobs"],
        ["schedule a job every night", "time zones"],
    ]
    assert settled_archive(first, expected) == expected


def test_concurrent_writes_lose_nothing(context: BrowserContext, site: Site) -> None:
    """Two tabs writing at the same moment keep every turn of both."""
    tabs = [context.new_page(), context.new_page()]
    for tab in tabs:
        fresh(tab, site.url)
    for n in range(3):
        for tab, topic in zip(tabs, ("retries", "webhooks"), strict=True):
            ask(tab, f"{topic} {n}")  # no waiting: the writes overlap
    for tab in tabs:
        expect(tab.get_by_role("list", name="Search results")).to_have_count(3, timeout=60_000)
    expected = [["retries 0", "retries 1", "retries 2"], ["webhooks 0", "webhooks 1", "webhooks 2"]]
    assert settled_archive(tabs[0], expected) == expected


def test_deleted_elsewhere_comes_back_when_its_tab_writes(
    context: BrowserContext, site: Site
) -> None:
    """A conversation deleted in one tab returns when its own tab asks its next question."""
    owner, other = context.new_page(), context.new_page()
    fresh(owner, site.url)
    ask_and_wait(owner, "retry a failed job")
    fresh(other, site.url)
    open_history(other)
    other.get_by_role("button", name="Delete conversation").click()
    expect(other.get_by_text("No conversations yet.")).to_be_visible()
    assert archive(other) == {}
    ask_and_wait(owner, "dead jobs")
    expected = [["retry a failed job", "dead jobs"]]
    assert settled_archive(other, expected) == expected


def test_a_tab_opened_from_another_starts_fresh(page: Page, site: Site) -> None:
    """window.open copies sessionStorage, yet the new tab does not adopt the conversation."""
    fresh(page, site.url)
    ask_and_wait(page, "retry a failed job")
    assert settled_archive(page, [["retry a failed job"]])
    with page.context.expect_page() as opened:
        page.evaluate(f"window.open({json.dumps(site.url + 'guides/retries.html')})")
    child = opened.value
    child.wait_for_load_state()
    # Browsers may copy the opener's sessionStorage (Chromium does not always):
    # make sure this tab holds the copy, conversation and draft, as if they did.
    session = stored(page, "conversation")
    assert json.loads(str(session))["id"] in archive(page)
    child.evaluate(
        "s => { sessionStorage.setItem('docs-panel.conversation', s);"
        " sessionStorage.setItem('docs-panel.composer.draft', 'half a question'); }",
        session,
    )
    open_panel(child)
    wait_ready(child)
    expect(child.get_by_role("list", name="Search results")).to_have_count(0)  # not adopted
    expect(child.get_by_role("textbox", name="Ask a question")).to_have_value("")
    assert stored(child, "draft") is None
    ask_and_wait(child, "webhooks")
    expected = [["retry a failed job"], ["webhooks"]]
    assert settled_archive(page, expected) == expected


def test_draft_survives_reload_masked(page: Page, site: Site) -> None:
    """A half-typed question comes back after a reload, with the credential masked."""
    fresh(page, site.url)
    box = page.get_by_role("textbox", name="Ask a question")
    box.fill(f"why does {TOKEN} fail")
    page.wait_for_function("sessionStorage.getItem('docs-panel.composer.draft') !== null")
    draft = stored(page, "draft")
    assert draft == "why does [redacted: GitHub token] fail"
    page.reload()  # the panel was open: it comes back open
    expect(page.get_by_role("textbox", name="Ask a question")).to_have_value(draft, timeout=60_000)


def test_a_sent_question_is_stored_masked(page: Page, site: Site) -> None:
    """The question is stored and shown with its credential masked; the secret is nowhere."""
    fresh(page, site.url)
    ask_and_wait(page, f"auth fails with token {TOKEN}")
    expect(page.locator("article .question")).to_have_text(
        "auth fails with token [redacted: GitHub token]"
    )
    assert TOKEN not in json.dumps(page.evaluate("() => ({...localStorage, ...sessionStorage})"))
    assert history_titles(page) == ["auth fails with token [redacted: GitHub token]"]


def test_history_disabled_records_nothing(page: Page, site: Site) -> None:
    """With history.enabled false no key is written, and what an earlier visit kept is removed."""
    url = site.page_with_config("nohistory", "{chat: false, history: {enabled: false}}")
    page.goto(url)
    for area, key in KEYS.values():
        page.evaluate(f"{area}.setItem({json.dumps(key)}, 'old')")
    open_panel(page)
    wait_ready(page)
    ask_and_wait(page, "retry a failed job", stored=False)
    page.get_by_role("textbox", name="Ask a question").fill("a draft")
    # A recording tab typed into after this one has stored its draft: this one's would be
    # stored by then too.
    control = page.context.new_page()
    fresh(control, site.url)
    control.get_by_role("textbox", name="Ask a question").fill("a later draft")
    control.wait_for_function("sessionStorage.getItem('docs-panel.composer.draft') !== null")
    assert {name: stored(page, name) for name in KEYS} == dict.fromkeys(KEYS)


GARBAGE = [
    "{",
    "null",
    "[]",
    '{"version": 99, "conversations": []}',
    "\u0000",
    '{"version":2,"conversations":["\ud800"]}',  # a lone surrogate: crosses as a string, not UTF-8
    "x" * 5000,
    '{"conversations": 7}',
]


def test_garbage_in_every_key_is_survived(page: Page, site: Site, watch: Watch) -> None:
    """Garbage in each key: the panel works, and the list shows the valid conversation."""
    page.goto(site.url)
    open_panel(page)
    wait_ready(page)
    ask_and_wait(page, "retry a failed job")
    assert settled_archive(page, [["retry a failed job"]])
    valid = json.loads(str(stored(page, "history")))
    broken = {**valid, "conversations": [*valid["conversations"], {"id": 3, "turns": "x"}]}
    # Written as the next page starts (after this one's pagehide has saved its state).
    page.add_init_script(
        "if (!sessionStorage.getItem('garbage-written')) {"
        " sessionStorage.setItem('garbage-written', '1');"
        f" localStorage.setItem('docs-panel.history', {json.dumps(json.dumps(broken))});"
        " localStorage.setItem('docs-panel.feedback', '{');"
        " for (const k of ['docs-panel.conversation', 'docs-panel.composer.draft',"
        " 'docs-panel.instruction']) sessionStorage.setItem(k, '{'); }"
    )
    page.reload()
    open_panel(page)
    wait_ready(page)
    assert history_titles(page) == ["retry a failed job"]
    ask_and_wait(page, "rate limits")
    for garbage in GARBAGE:
        page.evaluate("g => localStorage.setItem('docs-panel.history', g)", garbage)
        ask_and_wait(page, "webhooks")
    expected = [["rate limits", *["webhooks"] * len(GARBAGE)]]
    assert settled_archive(page, expected) == expected


def seeded_archive(conversations: int, turn_bytes: int) -> str:
    """A valid stored archive of old conversations, each one turn of about ``turn_bytes``."""
    archive = Archive(
        tuple(
            Conversation(
                id=f"old{n}",
                turns=(
                    Turn(
                        question=f"old question {n}",
                        answer="",
                        status="results",
                        asked_at=1_000 + n,
                        finished_at=1_000 + n,
                        results=(ResultItem("/index.html", "Home", "x" * turn_bytes),),
                    ),
                ),
                index_version="old",
            )
            for n in range(conversations)
        )
    )
    return dump_archive(archive)


def test_full_quota_evicts_old_conversations_and_keeps_the_new_turn(page: Page, site: Site) -> None:
    """With the storage quota full, the new turn is written by evicting the oldest conversations."""
    fresh(page, site.url)
    page.evaluate("h => localStorage.setItem('docs-panel.history', h)", seeded_archive(10, 20_000))
    # Fill what is left of the origin's quota, so the next write cannot grow the archive.
    page.evaluate(
        """() => { let size = 1 << 22, n = 0;
          while (size > 16) { try { localStorage.setItem('filler-' + n++, 'f'.repeat(size)); }
            catch (e) { size >>= 1; } } }"""
    )
    ask_and_wait(page, "retry a failed job")
    page.wait_for_function("performance.getEntriesByName('docs-panel:history-write').length > 0")
    kept = archive(page)
    assert ["retry a failed job"] in kept.values()
    assert 0 < len(kept) <= 10  # something old made room; the archive is still there
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('filler')).length")


def test_a_tab_rewrites_its_turn_lost_to_a_stale_write(context: BrowserContext, site: Site) -> None:
    """If another tab writes an archive missing this tab's newest turn, this tab writes it again."""
    mine, other = context.new_page(), context.new_page()
    fresh(mine, site.url)
    ask_and_wait(mine, "retry a failed job")
    stale = stored(mine, "history")
    ask_and_wait(mine, "dead jobs")
    assert settled_archive(mine, [["retry a failed job", "dead jobs"]])
    other.goto(site.url)
    other.evaluate("v => localStorage.setItem('docs-panel.history', v)", stale)
    expected = [["retry a failed job", "dead jobs"]]
    assert settled_archive(other, expected) == expected


def test_a_write_elsewhere_of_the_same_length_is_kept(page: Page, site: Site) -> None:
    """Another tab's write that keeps the archive's length is read whole, never taken for
    this tab's last write: the next write keeps it."""
    fresh(page, site.url)
    page.evaluate("h => localStorage.setItem('docs-panel.history', h)", seeded_archive(1, 100))
    ask_and_wait(page, "retry a failed job")
    mine = [["old question 0"], ["retry a failed job"]]
    assert settled_archive(page, mine) == mine
    theirs = str(stored(page, "history")).replace("old question 0", "old question 9")
    page.evaluate("h => localStorage.setItem('docs-panel.history', h)", theirs)
    ask_and_wait(page, "dead jobs")
    expected = [["old question 9"], ["retry a failed job", "dead jobs"]]
    assert settled_archive(page, expected) == expected


def test_unusable_storage_falls_back_to_memory(page: Page, site: Site) -> None:
    """When storage refuses every write, the panel still answers and lists this visit's chat."""
    page.add_init_script(
        "Storage.prototype.setItem = function () {"
        " throw new DOMException('blocked', 'SecurityError'); };"
    )
    fresh(page, site.url)
    ask_and_wait(page, "retry a failed job")
    assert history_titles(page) == ["retry a failed job"]
    assert stored(page, "history") is None


def test_a_conversation_from_older_docs_says_so(page: Page, site: Site) -> None:
    """Opening a conversation kept before the index was rebuilt shows the docs-changed status."""
    fresh(page, site.url)
    ask_and_wait(page, "retry a failed job")
    assert settled_archive(page, [["retry a failed job"]])
    status = page.get_by_role("status").filter(has_text="The docs have changed")
    expect(status).to_be_hidden()
    age_the_archive(page)
    new_chat(page)
    open_history(page)
    page.get_by_role("button", name="retry a failed job").click()
    expect(status).to_have_text(
        "The docs have changed since this conversation. Some links may no longer work."
    )
    expect(page.get_by_role("list", name="Search results")).to_have_count(1)


def test_a_delete_in_another_tab_is_not_undone(context: BrowserContext, site: Site) -> None:
    """Deleting another tab's conversation removes it at once; its tab does not write it back."""
    owner, other = context.new_page(), context.new_page()
    fresh(owner, site.url)
    ask_and_wait(owner, "retry a failed job")
    ask_and_wait(owner, "dead jobs")
    fresh(other, site.url)
    assert history_titles(other) == ["retry a failed job"]
    owner.evaluate("window.__storage = 0; addEventListener('storage', () => __storage++)")
    other.get_by_role("button", name="Delete conversation").click()
    expect(other.get_by_text("No conversations yet.")).to_be_visible()
    # The owner's panel heard the event before this listener (added later), and asked its
    # worker whether it regressed; two history lists later, both worker round trips queued
    # behind that check and the write it would start, a write-back would be done.
    owner.wait_for_function("window.__storage > 0")
    assert history_titles(owner) == [] and history_titles(owner) == []
    assert archive(other) == {} and archive(owner) == {}
    assert history_titles(other) == []
    ask_and_wait(owner, "rate limits")
    expected = [["retry a failed job", "dead jobs", "rate limits"]]
    assert settled_archive(other, expected) == expected


def test_a_rejected_storage_prefix_still_restores(page: Page, site: Site, watch: Watch) -> None:
    """A storagePrefix the config rejects falls back to the default in loader and worker alike."""
    watch.expect_console_error(r"docsPanel\.storagePrefix")
    url = site.page_with_config("badprefix", "{chat: false, storagePrefix: 'my docs!'}")
    fresh(page, url)
    ask_and_wait(page, "retry a failed job")
    assert settled_archive(page, [["retry a failed job"]]) == [["retry a failed job"]]
    page.reload()
    expect(page.get_by_role("list", name="Search results")).to_have_count(1, timeout=60_000)
    expect(page.locator("article .question")).to_have_text(["retry a failed job"])


def test_a_start_that_fails_keeps_what_is_stored(page: Page, site: Site, watch: Watch) -> None:
    """Pyodide's wasm is missing: the panel says it could not start and writes nothing, so
    the stored conversations and this tab's own are all there once a start succeeds."""
    wasm = re.compile(r"/pyodide\.asm\.wasm\.zst$")
    watch.expect_bad_request(r"/pyodide\.asm\.wasm\.zst\b")
    # The start fails at once, before the early downloads of the runtime are all read
    # (the stdlib's twin, the decoder): leaving the page aborts those.
    watch.expect_bad_request(r"/docs-panel/\S+ \(net::ERR_ABORTED\)$")
    watch.expect_console_error(r"^docs-panel: The assistant could not start\.")
    watch.expect_console_error(r"^MessageEvent$")  # PyScript logs its worker's failed start too
    page.context.route(wasm, lambda route: route.fulfill(status=404))
    page.goto(site.url)
    page.evaluate("h => localStorage.setItem('docs-panel.history', h)", seeded_archive(2, 100))
    # This tab's conversation, as a reload finds it (the page before marked it left).
    session = json.dumps({"id": "old1", "left": True})
    page.evaluate("s => sessionStorage.setItem('docs-panel.conversation', s)", session)
    kept = {name: stored(page, name) for name in KEYS}
    open_panel(page)
    ask(page, "rate limits")
    expect(
        page.locator("article").filter(has_text="rate limits").get_by_role("alert")
    ).to_have_text(re.compile(r"could not start\. Reload the page"), timeout=READY_TIMEOUT_MS)
    assert {name: stored(page, name) for name in KEYS} == kept

    page.context.unroute(wasm)
    fresh(page, site.url)
    expect(page.locator("article .question")).to_have_text(["old question 1"])
    assert archive(page) == {"old0": ["old question 0"], "old1": ["old question 1"]}
