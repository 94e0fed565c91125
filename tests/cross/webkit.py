"""WebKitGTK (Safari's engine) through Selenium and WebKitWebDriver, which drives
MiniBrowser on an X display of its own (Xvfb). A session per test is a fresh
profile; its tabs are the session's windows."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from typing import Any

from selenium.common.exceptions import WebDriverException
from selenium.webdriver import ActionChains, WebKitGTK, WebKitGTKOptions
from selenium.webdriver.webkitgtk.service import Service

from tests.cross.firefox import KEYS
from tests.cross.tabs import ScriptFailed, Tab, as_json_call, with_finder

MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
WEBDRIVER = "/usr/bin/WebKitWebDriver"
SCRIPT_TIMEOUT_S = 300


class Display:
    """An Xvfb server on the first free display number, for MiniBrowser's window."""

    def __init__(self) -> None:
        read, write = os.pipe()
        self.process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
            pass_fds=[write],
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        with os.fdopen(read) as answer:
            self.name = ":" + answer.readline().strip()

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(30)


def start_session(display: Display, env: Mapping[str, str] | None = None) -> WebKitGTK:
    """A fresh profile's session; ``env`` adds to the environment MiniBrowser and its
    web process inherit (the load benchmark sets JavaScriptCore's options there)."""
    options = WebKitGTKOptions()
    options.binary_location = MINIBROWSER
    options.add_argument("--automation")
    environment = {**os.environ, **(env or {}), "DISPLAY": display.name}
    service = Service(executable_path=WEBDRIVER, env=environment)
    driver = WebKitGTK(options=options, service=service)
    driver.set_script_timeout(SCRIPT_TIMEOUT_S)
    driver.set_window_size(1280, 800)
    return driver


class WebKitTab(Tab):
    engine = "webkit"

    def __init__(
        self, driver: WebKitGTK, handle: str, profile_tabs: list[Tab] | None = None
    ) -> None:
        super().__init__(profile_tabs)
        self.driver = driver
        self.handle = handle

    @classmethod
    def in_new_profile(cls, driver: WebKitGTK) -> WebKitTab:
        return cls(driver, driver.current_window_handle)

    def _switch(self) -> WebKitGTK:
        if self.driver.current_window_handle != self.handle:
            self.driver.switch_to.window(self.handle)
        return self.driver

    def goto(self, url: str) -> None:
        self._switch().get(url)

    def reload(self) -> None:
        self._switch().refresh()

    def run(self, script: str, *args: Any) -> Any:
        call = f"""const done = arguments[1];
          ({as_json_call(script)})(arguments[0]).then(done, e => done(JSON.stringify({{
            thrown: String(e && e.stack || e) }})));"""
        try:
            reply = json.loads(self._switch().execute_async_script(call, json.dumps(args)))
        except WebDriverException as error:
            raise ScriptFailed(str(error)) from error
        if isinstance(reply, dict) and set(reply) == {"thrown"}:
            raise ScriptFailed(reply["thrown"])
        return reply

    def _element(self, role: str, name: str, exact: bool = False) -> Any:
        script = "(r, n, e) => find(r, n, e)[0] || null"
        element = self._switch().execute_script(
            f"return ({with_finder(script)})(...arguments)", role, name, exact
        )
        assert element is not None, f"webkit: no visible {role} {name!r}"
        return element

    def click(self, role: str, name: str, *, exact: bool = False) -> None:
        self._element(role, name, exact).click()

    def type(self, role: str, name: str, text: str) -> None:
        self._element(role, name).send_keys(text)

    def press(self, keys: str) -> None:
        *modifiers, key = [KEYS.get(k, k) for k in keys.split("+")]
        actions = ActionChains(self._switch())
        for modifier in modifiers:
            actions.key_down(modifier)
        actions.send_keys(key)
        for modifier in reversed(modifiers):
            actions.key_up(modifier)
        actions.perform()

    def new_tab(self) -> Tab:
        before = set(self.driver.window_handles)
        self.driver.switch_to.new_window("tab")
        (handle,) = set(self.driver.window_handles) - before
        return WebKitTab(self.driver, handle, self.profile_tabs)
