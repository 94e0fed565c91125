"""Chromium through Playwright, as in the main browser suite (same binary and flags)."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import BrowserContext, Page
from playwright.sync_api import Error as PlaywrightError

from tests.cross.tabs import ScriptFailed, Tab, as_json_call


class ChromiumTab(Tab):
    engine = "chromium"

    def __init__(self, page: Page, profile_tabs: list[Tab] | None = None) -> None:
        super().__init__(profile_tabs)
        self.page = page

    @classmethod
    def in_new_profile(cls, context: BrowserContext) -> ChromiumTab:
        return cls(context.new_page())

    def goto(self, url: str) -> None:
        self.page.goto(url)

    def reload(self) -> None:
        self.page.reload()

    def run(self, script: str, *args: Any) -> Any:
        try:
            return json.loads(self.page.evaluate(as_json_call(script), json.dumps(args)))
        except PlaywrightError as error:
            raise ScriptFailed(str(error)) from error

    def click(self, role: str, name: str, *, exact: bool = False) -> None:
        self.page.get_by_role(role, name=name, exact=exact).first.click()  # type: ignore[arg-type]

    def type(self, role: str, name: str, text: str) -> None:
        self.page.get_by_role(role, name=name).first.press_sequentially(text)  # type: ignore[arg-type]

    def press(self, keys: str) -> None:
        self.page.keyboard.press(keys)

    def new_tab(self) -> Tab:
        return ChromiumTab(self.page.context.new_page(), self.profile_tabs)
