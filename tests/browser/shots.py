"""Screenshots of panel states for a person to look at, when asked for:

    DOCS_PANEL_SHOTS=/tmp/shots python3 -m pytest tests/browser/test_copy.py

``shoot`` saves the panel (or the whole page) as ``<folder>/<name>.png``; without
the variable it does nothing, so the suite writes no files of its own.
"""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import Page


def shoot(page: Page, name: str, *, whole_page: bool = False) -> None:
    folder = os.environ.get("DOCS_PANEL_SHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    path = str(Path(folder) / f"{name}.png")
    if whole_page:
        page.screenshot(path=path, full_page=True)
    else:  # Playwright's CSS reaches into the open Shadow DOM
        page.locator("[data-docs-panel] .panel").screenshot(path=path)
