"""What a reader does with the panel, by role and accessible name (contract §3), in
English unless a helper is given another language's ``words`` (``i18n.table``)."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from docs_panel.portable.i18n import table

# Pyodide's cold boot takes ~5 s here, more while the other core is busy.
READY_TIMEOUT_MS = 60_000
KEYS = {
    "history": ("localStorage", "docs-panel.history"),
    "feedback": ("localStorage", "docs-panel.feedback"),
    "conversation": ("sessionStorage", "docs-panel.conversation"),
    "draft": ("sessionStorage", "docs-panel.composer.draft"),
    "instruction": ("sessionStorage", "docs-panel.instruction"),
}


EN = table("en")


def open_panel(page: Page, words: dict[str, str] = EN) -> None:
    page.get_by_role("button", name=words["launcher"]).click()
    expect(page.get_by_role("region", name=words["panel"])).to_be_visible()


def wait_ready(page: Page, words: dict[str, str] = EN) -> None:
    expect(page.get_by_role("progressbar", name=words["loading"])).to_have_count(
        0, timeout=READY_TIMEOUT_MS
    )


def reload_open(page: Page) -> None:
    """Reload a page whose panel was open: it comes back open, and ready."""
    page.reload()
    expect(page.get_by_role("region", name="Docs assistant")).to_be_visible(
        timeout=READY_TIMEOUT_MS
    )
    wait_ready(page)


def ask(page: Page, question: str, words: dict[str, str] = EN) -> None:
    box = page.get_by_role("textbox", name=words["question"])
    box.fill(question)
    box.press("Enter")


def new_chat(page: Page) -> None:
    """Press New chat and wait until the thread is empty: the click settles any answer
    under way before it clears, so the clearing lands after the click returns."""
    page.get_by_role("button", name="New chat").click()
    expect(page.locator(".turn")).to_have_count(0)


def answers(page: Page) -> int:
    return page.get_by_role("list", name="Search results").count()


WRITES = "performance.getEntriesByName('docs-panel:history-write').length"


def ask_and_wait(page: Page, question: str, *, stored: bool = True) -> None:
    """Ask and wait until this question's results are on screen and, if ``stored``,
    until the archive write that follows them is done."""
    before, writes = answers(page), page.evaluate(WRITES)
    ask(page, question)
    expect(page.get_by_role("list", name="Search results")).to_have_count(
        before + 1, timeout=READY_TIMEOUT_MS
    )
    if stored:
        page.wait_for_function(f"{WRITES} > {writes}")


def result_links(page: Page, turn: int = -1) -> list[str]:
    results = page.get_by_role("list", name="Search results").nth(turn)
    expect(results).to_be_visible(timeout=READY_TIMEOUT_MS)
    return [str(link.get_attribute("href")) for link in results.get_by_role("link").all()]


def stored(page: Page, name: str) -> str | None:
    area, key = KEYS[name]
    return page.evaluate(f"{area}.getItem({json.dumps(key)})")  # type: ignore[no-any-return]


def archive(page: Page) -> dict[str, list[str]]:
    """Stored conversations by id, as lists of their questions."""
    raw = stored(page, "history")
    value = json.loads(raw) if raw else {"conversations": []}
    return {c["id"]: [t["question"] for t in c["turns"]] for c in value["conversations"]}


def settled_archive(page: Page, expected: list[list[str]]) -> list[list[str]]:
    """The stored conversations' questions (sorted), once they equal ``expected``; an
    AssertionError naming what was stored if they do not within 10 s.

    Writes happen just after an answer shows, so tests wait for storage to catch up.
    """
    found: list[list[str]] = []
    for _ in range(50):
        found = sorted(archive(page).values())
        if found == sorted(expected):
            return found
        page.wait_for_timeout(200)
    raise AssertionError(f"stored {found}, expected {sorted(expected)}")


def open_history(page: Page, words: dict[str, str] = EN) -> None:
    button = page.get_by_role("button", name=words["history"])
    if button.get_attribute("aria-expanded") == "true":
        button.click()  # close first: the list is re-read each time it opens
    button.click()
    expect(button).to_have_attribute("aria-expanded", "true")


def history_titles(page: Page) -> list[str]:
    open_history(page)
    rows = page.get_by_role("list", name="Conversations").get_by_role("listitem")
    return [row.locator(".title").inner_text() for row in rows.all()]


def age_the_archive(page: Page) -> None:
    """Make the stored conversations look kept before the index was last rebuilt."""
    page.evaluate(
        """() => { const a = JSON.parse(localStorage.getItem('docs-panel.history'));
          for (const c of a.conversations) c.index_version = 'an older build';
          localStorage.setItem('docs-panel.history', JSON.stringify(a)); }"""
    )
