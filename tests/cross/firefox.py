"""Firefox ESR over WebDriver BiDi: a user context per test is a fresh profile
(its own storage and Cache Storage), a browsing context is a tab."""

from __future__ import annotations

import json
from typing import Any

from tests.cross.bidi import BidiError, Firefox
from tests.cross.tabs import ScriptFailed, Tab, as_json_call, with_finder

VIEWPORT = {"width": 1280, "height": 800}
# WebDriver's codes for the keys the tests press.
KEYS = {
    "Enter": "\ue007",
    "Escape": "\ue00c",
    "Tab": "\ue004",
    "Shift": "\ue008",
    "Control": "\ue009",
}


def key_actions(keys: str) -> list[dict[str, str]]:
    """ "Shift+Tab" → Shift down, Tab down, Tab up, Shift up."""
    codes = [KEYS.get(key, key) for key in keys.split("+")]
    downs = [{"type": "keyDown", "value": code} for code in codes]
    ups = [{"type": "keyUp", "value": code} for code in reversed(codes)]
    return downs + ups


class FirefoxTab(Tab):
    engine = "firefox"

    def __init__(
        self, firefox: Firefox, user_context: str, profile_tabs: list[Tab] | None = None
    ) -> None:
        super().__init__(profile_tabs)
        self.firefox = firefox
        self.user_context = user_context
        self.context = firefox.send("browsingContext.create", type="tab", userContext=user_context)[
            "context"
        ]
        firefox.send("browsingContext.setViewport", context=self.context, viewport=VIEWPORT)

    @classmethod
    def in_new_profile(cls, firefox: Firefox) -> FirefoxTab:
        return cls(firefox, firefox.send("browser.createUserContext")["userContext"])

    def goto(self, url: str) -> None:
        navigate = {"context": self.context, "url": url, "wait": "complete"}
        self.firefox.send("browsingContext.navigate", **navigate)

    def reload(self) -> None:
        self.firefox.send("browsingContext.reload", context=self.context, wait="complete")

    def _call(self, script: str, *args: Any) -> dict[str, Any]:
        reply = self.firefox.send(
            "script.callFunction",
            functionDeclaration=script,
            arguments=[{"type": "string", "value": json.dumps(args)}],
            target={"context": self.context},
            awaitPromise=True,
        )
        if reply["type"] == "exception":
            raise ScriptFailed(reply["exceptionDetails"]["text"])
        return reply["result"]  # type: ignore[no-any-return]

    def run(self, script: str, *args: Any) -> Any:
        try:
            return json.loads(self._call(as_json_call(script), *args)["value"])
        except BidiError as error:  # e.g. the document went away mid-call
            raise ScriptFailed(str(error)) from error

    def _element(self, role: str, name: str, exact: bool) -> dict[str, str]:
        script = """(args) => { const [r, n, e] = JSON.parse(args); const [found] = find(r, n, e);
          if (found) found.scrollIntoView({block: "nearest"}); return found || null; }"""
        node = self._call(with_finder(script), role, name, exact)
        assert node["type"] == "node", f"firefox: no visible {role} {name!r}"
        return {"sharedId": node["sharedId"]}

    def _perform(self, *sources: dict[str, Any]) -> None:
        self.firefox.send("input.performActions", context=self.context, actions=list(sources))

    def click(self, role: str, name: str, *, exact: bool = False) -> None:
        element = self._element(role, name, exact)
        origin = {"type": "element", "element": element}  # the element's centre
        pointer = [
            {"type": "pointerMove", "x": 0, "y": 0, "origin": origin},
            {"type": "pointerDown", "button": 0},
            {"type": "pointerUp", "button": 0},
        ]
        self._perform({"type": "pointer", "id": "mouse", "actions": pointer})

    def type(self, role: str, name: str, text: str) -> None:
        self.click(role, name)
        actions = [{"type": kind, "value": char} for char in text for kind in ("keyDown", "keyUp")]
        self._perform({"type": "key", "id": "keyboard", "actions": actions})

    def press(self, keys: str) -> None:
        self._perform({"type": "key", "id": "keyboard", "actions": key_actions(keys)})

    def new_tab(self) -> Tab:
        return FirefoxTab(self.firefox, self.user_context, self.profile_tabs)

    def close_profile(self) -> None:
        self.firefox.send("browser.removeUserContext", userContext=self.user_context)
