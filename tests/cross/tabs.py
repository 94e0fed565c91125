"""One browser tab, whatever engine drives it: what the cross-engine tests do with a
page, by role and accessible name (contract §3).

An engine's adapter implements the few primitives (navigation, running a script,
clicking, typing and pressing keys); reads go through the same script in every
engine (``finder.js`` finds elements by role and name through the panel's shadow
root), and so do waits, which poll a condition until it holds or time runs out.
"""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

FINDER = (Path(__file__).parent / "finder.js").read_text(encoding="utf-8")
PROBLEMS_KEY = "tests.problems"  # where recorder.js keeps what went wrong
POLL_S = 0.1


def with_finder(body: str) -> str:
    """A script ``(...args) => …`` whose body can call ``find(role, name, exact)``."""
    return f"(...args) => {{ const find = {FINDER}; return ({body})(...args); }}"


class Tab(ABC):
    """A tab with a fresh profile (or one opened by ``new_tab`` in the same profile)."""

    engine: str

    def __init__(self, profile_tabs: list[Tab] | None = None) -> None:
        self.expected_problems: list[re.Pattern[str]] = []
        self.profile_tabs = profile_tabs if profile_tabs is not None else []
        self.profile_tabs.append(self)

    # The engine's primitives.

    @abstractmethod
    def goto(self, url: str) -> None: ...

    @abstractmethod
    def reload(self) -> None: ...

    @abstractmethod
    def run(self, script: str, *args: Any) -> Any:
        """``script`` is a JavaScript function; its (awaited) result, as JSON values."""

    @abstractmethod
    def click(self, role: str, name: str, *, exact: bool = False) -> None:
        """Click the first visible element of ``role`` and ``name``, as a pointer does."""

    @abstractmethod
    def type(self, role: str, name: str, text: str) -> None:
        """Focus the element and type ``text`` key by key (an input event each)."""

    @abstractmethod
    def press(self, keys: str) -> None:
        """Press keys on the focused element: "Enter", "Shift+Tab", "Control+/"."""

    @abstractmethod
    def new_tab(self) -> Tab:
        """Another tab in the same profile (storage shared as between a reader's tabs),
        listed in ``profile_tabs``."""

    # Reads, the same script in every engine.

    def count(self, role: str, name: str | None = None, *, exact: bool = False) -> int:
        return int(self.run(with_finder("(r, n, e) => find(r, n, e).length"), role, name, exact))

    def attribute(self, role: str, name: str, attribute: str) -> str | None:
        script = "(r, n, a) => { const [e] = find(r, n); return e ? e.getAttribute(a) : null; }"
        value = self.run(with_finder(script), role, name, attribute)
        return None if value is None else str(value)

    def links(self, list_name: str, nth: int = -1) -> list[str]:
        """The hrefs of the links in the ``nth`` visible list called ``list_name``."""
        script = """(name, nth) => { const lists = find("list", name, true);
          const list = lists[nth < 0 ? lists.length + nth : nth];
          const links = list ? [...list.querySelectorAll("a[href]")] : [];
          return links.map(a => a.getAttribute("href")); }"""
        return list(self.run(with_finder(script), list_name, nth))

    def focused(self, role: str, name: str) -> bool:
        """Whether the focused element, looked for through shadow roots, is that one."""
        script = """(r, n) => { let e = document.activeElement;
          while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
          return find(r, n, true).includes(e); }"""
        return bool(self.run(with_finder(script), role, name))

    def stored(self, area: str, key: str) -> str | None:
        value = self.run("(area, key) => globalThis[area].getItem(key)", area, key)
        return None if value is None else str(value)

    def wait_until(self, script: str, *args: Any, timeout_s: float = 30, what: str = "") -> Any:
        """Poll ``script`` (a JavaScript function) until it returns something truthy;
        that value. A page that is navigating is polled again."""
        deadline = time.monotonic() + timeout_s
        last: Any = None
        while time.monotonic() < deadline:
            try:
                last = self.run(script, *args)
            except ScriptFailed:
                last = None  # between two documents
            if last:
                return last
            time.sleep(POLL_S)
        raise AssertionError(f"{self.engine}: waited {timeout_s} s for {what or script}")

    def wait_count(self, role: str, name: str | None, count: int, *, timeout_s: float = 30) -> None:
        self.wait_until(
            with_finder("(r, n, c) => find(r, n).length === c"),
            role,
            name,
            count,
            timeout_s=timeout_s,
            what=f"{count} of {role} {name!r}",
        )

    def wait_focused(self, role: str, name: str, *, timeout_s: float = 30) -> None:
        deadline = time.monotonic() + timeout_s
        while not self.focused(role, name):
            assert time.monotonic() < deadline, f"{self.engine}: {role} {name!r} never focused"
            time.sleep(POLL_S)

    # What went wrong on the page.

    def expect_problem(self, pattern: str) -> None:
        """A console.error or page error the test causes on purpose."""
        self.expected_problems.append(re.compile(pattern))

    def problems(self) -> list[str]:
        """Unexpected errors this tab recorded, and PyScript's error boxes."""
        script = """key => [...JSON.parse(sessionStorage.getItem(key) || "[]"),
          ...[...document.querySelectorAll(".py-error")].map(e => "PyScript: " + e.innerText)]"""
        found = [str(text) for text in self.run(script, PROBLEMS_KEY)]
        return [p for p in found if not any(e.search(p) for e in self.expected_problems)]


class ScriptFailed(Exception):
    """A script threw, or the document it ran in went away."""


def as_json_call(script: str) -> str:
    """``script`` called with arguments given as one JSON string, its result as JSON:
    every engine passes strings the same way."""
    return (
        f"(args) => Promise.resolve(({script})(...JSON.parse(args)))"
        ".then(value => JSON.stringify(value === undefined ? null : value))"
    )
