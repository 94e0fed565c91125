"""The warm start across engines: the first answer keeps a copy of Python's memory and
the files the worker decoded in Cache Storage, and the next visit of the tab starts
from what is kept and answers, with no error.

Whether the worker restored the copy is seen inside the worker, which only Playwright
reaches (tests/browser/test_warm_start.py): Firefox ESR 153's BiDi lists worker realms
but cannot evaluate in them, and WebKitWebDriver has no BiDi.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import Site
from tests.cross.conftest import page_url
from tests.cross.reader import READY_S, ask, open_panel, wait_answered, wait_ready
from tests.cross.tabs import Tab

pytestmark = [pytest.mark.browser, pytest.mark.cross]

# The kept copies' file names, once there is one starting with each of ``starts``.
KEPT = """async (starts) => {
  const cache = await caches.open("docs-panel-warm-start");
  const names = (await cache.keys()).map(request => request.url.split("/").pop());
  return starts.every(start => names.some(name => name.startsWith(start))) ? names.sort() : null;
}"""
# The memory, the runtime, the standard library, the worker's code and the index.
FILES = [
    "pyodide.body.js?memory",
    "pyodide.asm.wasm",
    "pyodide.asm.js",
    "stdlib",
    "worker",
    "index",
]


def reload_open(tab: Tab) -> None:
    """Reload a tab whose panel was open: it comes back open, and ready."""
    tab.reload()
    tab.wait_count("region", "Docs assistant", 1, timeout_s=READY_S)
    wait_ready(tab)


def answer_and_keep(tab: Tab, site: Site) -> list[str]:
    """Ask on a fresh page; the copies the first answer keeps."""
    tab.goto(page_url(site, "warm", "{chat: false}"))
    open_panel(tab)
    ask(tab, "retry a failed job")
    wait_answered(tab, 1)
    return list(tab.wait_until(KEPT, FILES, timeout_s=READY_S, what="the copies kept"))


@pytest.mark.parametrize("engine", ["chromium", "firefox"], indirect=True)
def test_a_reload_starts_from_the_copies_the_first_answer_kept(tab: Tab, site: Site) -> None:
    kept = answer_and_keep(tab, site)
    reload_open(tab)
    ask(tab, "configure the queue")
    wait_answered(tab, 2)
    assert tab.run(KEPT, FILES) == kept


@pytest.mark.parametrize("engine", ["webkit"], indirect=True)
def test_webkit_loses_the_copies_on_reload_and_starts_cold(tab: Tab, site: Site) -> None:
    """A WebKitWebDriver session's Cache Storage does not outlive the page: after the
    reload nothing is kept, and the worker starts cold, with no error, and answers."""
    answer_and_keep(tab, site)
    reload_open(tab)
    kept = "async () => (await (await caches.open('docs-panel-warm-start')).keys()).length"
    assert tab.run(kept) == 0
    ask(tab, "configure the queue")
    wait_answered(tab, 2)
