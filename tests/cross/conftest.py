"""The cross-engine suite's set-up: the demo build, server, fake model endpoint and
Chromium it shares with the browser suite (tests/conftest.py), and a ``tab`` in each
engine (Chromium through Playwright, Firefox ESR over WebDriver BiDi, WebKitGTK
through WebKitWebDriver).

Every tab a test opens is checked at its end: a console.error, an uncaught error or
rejection, or a PyScript error box fails the test (recorder.js keeps them).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import Site
from tests.cross.bidi import Firefox
from tests.cross.chromium import ChromiumTab
from tests.cross.firefox import FirefoxTab
from tests.cross.tabs import Tab
from tests.cross.webkit import Display, WebKitTab, start_session

#: The engines each test runs in; DOCS_PANEL_ENGINES=chromium,webkit picks some. A
#: Firefox ESR start that stalls is ended and made again cold by the shell, so its test
#: is slower, not failed (docs/decisions/0001-watch-every-worker-start.md).
ENGINES = os.environ.get("DOCS_PANEL_ENGINES", "chromium,firefox,webkit").split(",")
RECORDER = Path(__file__).with_name("recorder.js")


@pytest.fixture(scope="session")
def firefox() -> Iterator[Firefox]:
    browser = Firefox.launch()
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def display() -> Iterator[Display]:
    screen = Display()
    yield screen
    screen.close()


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """This run's engine; a test of one engine's own behaviour names it, and runs only
    when that engine is in DOCS_PANEL_ENGINES."""
    if request.param not in ENGINES:
        pytest.skip(f"{request.param} is not in DOCS_PANEL_ENGINES")
    return str(request.param)


Opened = tuple[Tab, Callable[[], None]]


def _chromium(request: pytest.FixtureRequest) -> Opened:
    context = request.getfixturevalue("browser").new_context(
        viewport={"width": 1280, "height": 800}
    )
    return ChromiumTab.in_new_profile(context), context.close


def _firefox(request: pytest.FixtureRequest) -> Opened:
    tab = FirefoxTab.in_new_profile(request.getfixturevalue("firefox"))
    return tab, tab.close_profile


def _webkit(request: pytest.FixtureRequest) -> Opened:
    driver = start_session(request.getfixturevalue("display"))
    return WebKitTab.in_new_profile(driver), driver.quit


OPENERS: dict[str, Callable[[pytest.FixtureRequest], Opened]] = {
    "chromium": _chromium,
    "firefox": _firefox,
    "webkit": _webkit,
}
"""How each engine opens a tab in a fresh profile, and what closes the profile."""
_UNKNOWN = sorted(set(ENGINES) - OPENERS.keys())
if _UNKNOWN:  # a misspelt engine must not run the suite in another one under its name
    raise pytest.UsageError(
        f"DOCS_PANEL_ENGINES: unknown engine {', '.join(_UNKNOWN)}; expected some of "
        f"{', '.join(OPENERS)}"
    )


def first_tab(engine: str, request: pytest.FixtureRequest) -> Opened:
    """A tab in a fresh profile of ``engine``, and what closes the profile."""
    return OPENERS[engine](request)


@pytest.fixture
def tab(engine: str, request: pytest.FixtureRequest) -> Iterator[Tab]:
    """A tab in a fresh profile; it and every tab opened beside it are checked at the end."""
    first, close = first_tab(engine, request)
    try:
        yield first
        problems = [f"{t.engine}: {p}" for t in first.profile_tabs for p in t.problems()]
        assert not problems, "the page reported problems:\n" + "\n".join(problems)
    finally:
        close()


def page_url(site: Site, name: str, config: str = "{}", head: str = "", body: str = "") -> str:
    """A page of the demo site with ``window.docsPanel = config`` whose errors are kept."""
    (site.root / "tests").mkdir(exist_ok=True)
    (site.root / "tests" / RECORDER.name).write_text(RECORDER.read_text(encoding="utf-8"))
    return site.add_page(
        f"/tests/{name}.html",
        f"""<!doctype html><html lang="en"><head><meta charset="utf-8">{head}
<script src="/tests/{RECORDER.name}"></script><title>{name}</title>
<link rel="icon" href="data:,"><script>window.docsPanel = {config};</script>
<script src="/docs-panel/embed.js" async></script></head>
<body><h1>{name}</h1>{body}</body></html>""",
    )
