"""The site owner's vote report opened in Chromium from a file, offline:
it fetches nothing, its charts are images named for screen readers, every figure
stands in a table too, and axe finds nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from docs_panel.build.cli import main
from tests.browser.a11y import axe_violations
from tests.browser.shots import shoot

pytestmark = pytest.mark.browser

VOTES = Path(__file__).parents[1] / "fixtures" / "votes" / "votes.jsonl"


def test_the_report_reads_offline_from_a_file(browser: Browser, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert main(["report", str(VOTES), "--out", str(out)]) == 0
    context = browser.new_context(offline=True)
    try:
        page = context.new_page()
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto(out.as_uri())
        assert requests == [out.as_uri()]
        expect(page.get_by_role("heading", name="Readers' votes")).to_be_visible()
        for name in (
            "Votes per day: Helpful in blue, Not helpful in red",
            'Pages most cited in "Not helpful" answers',
            'Reasons given with "Not helpful"',
            "Questions answered with search results",
        ):
            expect(page.get_by_role("img", name=name)).to_be_visible()
        page.get_by_text("Data").first.click()
        expect(page.get_by_role("cell", name="2025-12-01")).to_be_visible()
        assert axe_violations(page) == []
        shoot(page, "votes-report", whole_page=True)
    finally:
        context.close()
