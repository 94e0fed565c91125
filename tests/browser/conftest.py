"""Shared set-up for browser tests: one demo build, one server, one Chromium.

Every page a test opens is watched: an uncaught page error, a PyScript
``.py-error`` element, an unexpected ``console.error``, a failed or off-site
request or an HTTP error response fails the test, with the Python traceback
in the message.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Error,
    Page,
    Request,
    Response,
)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
# Console noise that is not ours: PyScript's notice that workers cannot reach the DOM
# without SharedArrayBuffer (the design does not need it).
IGNORED_CONSOLE = re.compile(r"SharedArrayBuffer")
# Stop and reloads abort the answer request on purpose, and this Chromium reports a
# streamed fetch read to its end through getReader() as net::ERR_ABORTED too (4 of 5
# identical requests, measured; with .text() it reports them finished). Tests check
# the outcome through what the panel shows and stores instead.
IGNORED_FAILURE = re.compile(r"^failed: .*/api/chat \(net::ERR_ABORTED\)$")


@dataclass
class Site:
    root: Path
    url: str

    def add_page(self, path: str, html: str) -> str:
        """Write an extra page into the built site (sharing its panel bundle); return its URL."""
        target = self.root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
        return self.url + path.lstrip("/")

    def page_with_config(
        self, name: str, config_js: str, body: str = "", html: str = 'lang="en"'
    ) -> str:
        """A page with ``window.docsPanel = config_js``; ``html``: the <html> attributes."""
        return self.add_page(
            f"/tests/{name}.html",
            f"""<!doctype html><html {html}><head><meta charset="utf-8"><title>{name}</title>
<link rel="icon" href="data:,"><script>window.docsPanel = {config_js};</script>
<script src="/docs-panel/embed.js" async></script></head>
<body><h1>{name}</h1>{body}</body></html>""",
        )


@dataclass
class Watch:
    """What a page did that a reader would call broken."""

    origin: str
    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    bad_requests: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    expected_errors: list[re.Pattern[str]] = field(default_factory=list)
    expected_bad_requests: list[re.Pattern[str]] = field(default_factory=lambda: [IGNORED_FAILURE])

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error" and not IGNORED_CONSOLE.search(message.text):
            self.console_errors.append(message.text)

    def on_page_error(self, error: Error) -> None:
        self.page_errors.append(f"{error.name}: {error.message}")

    def on_request(self, request: Request) -> None:
        self.requests.append(request.url)
        if not request.url.startswith((self.origin, "blob:", "data:")):
            self.bad_requests.append(f"off-site request: {request.url}")

    def on_response(self, response: Response) -> None:
        if response.status >= 400:
            self.bad_requests.append(f"HTTP {response.status}: {response.url}")

    def on_failed(self, request: Request) -> None:
        # The warm-start copy's thread (a blob: module worker, started once the first
        # answer has ended) is cut when its page reloads or closes: the next start
        # makes the copy again. Any other failure is a problem.
        if request.url.startswith("blob:") and request.failure == "net::ERR_ABORTED":
            return
        self.bad_requests.append(f"failed: {request.url} ({request.failure})")

    def attach(self, page: Page) -> None:
        page.on("console", self.on_console)
        page.on("pageerror", self.on_page_error)
        page.on("request", self.on_request)
        page.on("response", self.on_response)
        page.on("requestfailed", self.on_failed)

    def expect_console_error(self, pattern: str) -> None:
        self.expected_errors.append(re.compile(pattern))

    def expect_bad_request(self, pattern: str) -> None:
        """A failed request or error response the test causes on purpose (e.g. Stop)."""
        self.expected_bad_requests.append(re.compile(pattern))

    def problems(self, page: Page) -> list[str]:
        found = [f"page error: {e}" for e in self.page_errors]
        found += [f"PyScript error on the page:\n{t}" for t in _py_errors(page)]
        found += [
            f"console.error: {text}"
            for text in self.console_errors
            # "Failed to load resource" repeats a bad response, reported with its URL above.
            if not text.startswith("Failed to load resource")
            and not any(p.search(text) for p in self.expected_errors)
        ]
        return found + [
            problem
            for problem in self.bad_requests
            if not any(p.search(problem) for p in self.expected_bad_requests)
        ]

    def check(self, page: Page) -> None:
        problems = self.problems(page)
        assert not problems, "the page reported problems:\n" + "\n".join(problems)


def _py_errors(page: Page) -> list[str]:
    try:
        return [str(t) for t in page.locator(".py-error").all_inner_texts()]
    except Exception:  # the page is gone (closed or crashed): nothing left to read
        return []


@pytest.fixture
def watch(site: Site) -> Watch:
    return Watch(origin=site.url.rstrip("/"))


@pytest.fixture
def context(browser: Browser, watch: Watch) -> Iterator[BrowserContext]:
    """A fresh profile (empty storage and cache) whose every page is watched."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(15_000)
    context.on("page", watch.attach)
    yield context
    try:
        for page in context.pages:
            watch.check(page)
    finally:
        context.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()
