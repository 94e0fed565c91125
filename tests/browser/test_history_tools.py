"""Search conversations, Export and Import, in Chromium, by role and name:
filtering as the reader types, the file an export downloads, an import in a fresh
profile, and the files an import refuses with nothing changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.conftest import Site
from tests.browser.reader import (
    archive,
    ask_and_wait,
    new_chat,
    open_history,
    open_panel,
    stored,
    wait_ready,
)
from tests.browser.shots import shoot

pytestmark = pytest.mark.browser

# Each with a word of its own that the docs do not have, to search for.
QUESTIONS = [
    "Retry a job (alpha)",
    "Schedule a cron job (beta)",
    "Rotate webhook secrets (beta gamma)",
]


def with_conversations(page: Page, site: Site) -> None:
    """Three stored conversations, one question each (the demo answers with results)."""
    page.goto(site.url)
    open_panel(page)
    wait_ready(page)
    for number, question in enumerate(QUESTIONS):
        if number:
            new_chat(page)
        ask_and_wait(page, question)


def rows(page: Page) -> list[str]:
    listed = page.get_by_role("list", name="Conversations").get_by_role("listitem")
    return [row.get_by_role("button").first.inner_text().split("\n")[0] for row in listed.all()]


def export(page: Page, button: str, tmp_path: Path, row: str | None = None) -> Path:
    scope = page.get_by_role("listitem").filter(has_text=row) if row else page
    with page.expect_download() as download:
        scope.get_by_role("button", name=button, exact=True).click()
    folder = tmp_path / str(len(list(tmp_path.iterdir())))  # two exports share a name
    folder.mkdir()
    path = folder / download.value.suggested_filename
    download.value.save_as(path)
    return path


def import_file(page: Page, path: Path) -> None:
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Import", exact=True).click()
    chooser.value.set_files(path)


def test_search_filters_rows_as_the_reader_types(page: Page, site: Site) -> None:
    with_conversations(page, site)
    open_history(page)
    assert rows(page) == QUESTIONS[::-1]
    search = page.get_by_role("searchbox", name="Search conversations")
    listed = page.get_by_role("list", name="Conversations").get_by_role("listitem")
    search.press_sequentially("BETA")
    expect(listed).to_have_count(2)
    assert rows(page) == QUESTIONS[:0:-1]
    search.press_sequentially(" gam")
    expect(listed).to_have_count(1)
    assert rows(page) == QUESTIONS[2:]
    # A word of the turn's text (here: a result drawn), not of the title, finds it too.
    result = page.get_by_role("list", name="Search results").first.get_by_role("link").first
    word = result.inner_text().split()[-1]
    search.fill(f"{word} gamma")
    expect(listed).to_have_count(1)
    search.fill("zzz nothing like it")
    expect(page.get_by_text("No conversations match")).to_be_visible()
    expect(page.get_by_role("list", name="Conversations")).to_have_count(0)
    shoot(page, "history-search-no-match")
    search.fill("")
    expect(listed).to_have_count(3)
    shoot(page, "history-tools")


def test_export_one_and_all_then_import_into_a_fresh_profile(
    page: Page, site: Site, context: BrowserContext, tmp_path: Path
) -> None:
    with_conversations(page, site)
    open_history(page)
    one = export(page, "Export", tmp_path, row=QUESTIONS[0])
    whole = export(page, "Export all", tmp_path)
    origin = site.url.rstrip("/")
    host = origin.partition("://")[2].replace(":", "-")
    assert one.name.startswith(f"docs-panel-{host}-") and one.suffix == ".json"
    single, full = json.loads(one.read_text()), json.loads(whole.read_text())
    assert single["origin"] == full["origin"] == origin
    assert [c["turns"][0]["question"] for c in single["conversations"]] == [QUESTIONS[0]]
    # What is stored, as stored.
    assert full["conversations"] == json.loads(stored(page, "history") or "")["conversations"]

    fresh = context.browser.new_context()  # type: ignore[union-attr]
    try:
        other = fresh.new_page()
        other.goto(site.url)
        open_panel(other)
        wait_ready(other)
        open_history(other)
        expect(other.get_by_text("No conversations yet.")).to_be_visible()
        import_file(other, one)
        expect(
            other.get_by_role("status").filter(has_text="Conversations imported: 1")
        ).to_be_visible()
        listed = other.get_by_role("list", name="Conversations").get_by_role("listitem")
        expect(listed).to_have_count(1)  # the status can be said before the list is drawn
        assert rows(other) == [QUESTIONS[0]]
        import_file(other, whole)  # merged by id: the one already there is not doubled
        expect(
            other.get_by_role("status").filter(has_text="Conversations imported: 2")
        ).to_be_visible()
        expect(listed).to_have_count(len(QUESTIONS))
        assert sorted(rows(other)) == sorted(QUESTIONS)
        shoot(other, "imported")
        assert sorted(archive(other).values()) == sorted([q] for q in QUESTIONS)
        other.get_by_role("button", name=QUESTIONS[1]).click()  # an imported one opens
        expect(other.get_by_role("list", name="Search results")).to_have_count(1)
    finally:
        fresh.close()


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (
            lambda doc: doc["conversations"][0]["turns"][0]["results"][0].update(
                address="javascript:alert(1)"
            ),
            "This file is not a conversation export, or it is damaged, so nothing was imported.",
        ),
        (
            lambda doc: doc["conversations"][0]["turns"][0]["results"][0].update(
                address="/\t/evil.example/x"  # a browser drops the tab: another site
            ),
            "This file is not a conversation export, or it is damaged, so nothing was imported.",
        ),
        (
            lambda doc: doc.update(origin="https://docs.other.example"),
            "This file comes from another site, so nothing was imported.",
        ),
        (
            lambda doc: doc.update(version=99),
            "This file was made by a newer version of the assistant, so nothing was imported.",
        ),
        (
            lambda doc: doc["conversations"][0]["turns"][0].update(asked_at="soon"),
            "This file is not a conversation export, or it is damaged, so nothing was imported.",
        ),
    ],
    ids=["tampered link", "link with a tab", "another site", "newer schema", "broken turn"],
)
def test_an_import_refused_changes_nothing(
    page: Page, site: Site, tmp_path: Path, tamper: object, message: str
) -> None:
    with_conversations(page, site)
    open_history(page)
    document = json.loads(export(page, "Export all", tmp_path).read_text())
    # A new conversation in the file too: a refused file adds nothing of it either.
    added = json.loads(json.dumps(document["conversations"][0]))
    added["id"] = "from-the-file"
    document["conversations"].append(added)
    tamper(document)  # type: ignore[operator]
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(document))
    before = page.evaluate("JSON.stringify({...localStorage})")
    import_file(page, bad)
    expect(page.get_by_role("alert")).to_have_text(message)
    assert page.evaluate("JSON.stringify({...localStorage})") == before
    assert rows(page) == QUESTIONS[::-1]
    shoot(page, "import-refused")


def test_garbage_is_refused_in_an_empty_archive_too(page: Page, site: Site, tmp_path: Path) -> None:
    page.goto(site.url)
    open_panel(page)
    wait_ready(page)
    open_history(page)
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\n not json at all")
    import_file(page, garbage)
    expect(page.get_by_role("alert")).to_have_text(
        "This file is not a conversation export, or it is damaged, so nothing was imported."
    )
    assert stored(page, "history") is None


def test_recording_nothing_offers_no_import_and_no_private_switch(page: Page, site: Site) -> None:
    """history.enabled: false: nothing may be written, so no file is merged in either."""
    page.goto(site.page_with_config("no-history", "{history: {enabled: false}}"))
    open_panel(page)
    wait_ready(page)
    expect(page.get_by_role("switch", name="Private conversation")).to_have_count(0)
    open_history(page)
    expect(page.get_by_text("No conversations yet.")).to_be_visible()
    expect(page.get_by_role("button", name="Import", exact=True)).to_be_hidden()
    assert page.evaluate("localStorage.length") == 0
