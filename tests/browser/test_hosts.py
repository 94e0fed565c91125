"""What the docs (docs/serving.md) promise of the hosts that serve the panel: a first open's bytes
from a host that gzips and from one that compresses nothing, a host that labels the
``.zst`` files ``Content-Encoding: zstd``, and a page without Cache Storage."""

from __future__ import annotations

import re
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Request, Route, expect

from docs_panel.build.serve import StaticHandler, make_server
from tests.browser.conftest import Site, Watch
from tests.browser.reader import READY_TIMEOUT_MS, ask_and_wait, open_panel, reload_open
from tests.browser.test_warm_start import started_warm

pytestmark = pytest.mark.browser

SERVING_PAGE = Path(__file__).parents[2] / "docs" / "serving.md"


class ZstdLabelling(StaticHandler):
    """A host that sends ``.zst`` files as what they are: zstd-encoded bodies."""

    def send_header(self, keyword: str, value: str) -> None:
        super().send_header(keyword, value)
        if keyword == "Content-Type" and self.path.split("?")[0].endswith(".zst"):
            super().send_header("Content-Encoding", "zstd")


def serve(site: Site, **options: object) -> Iterator[str]:
    """``site``'s files on another loopback port; its URL."""
    server = make_server(site.root, port=0, **options)  # type: ignore[arg-type]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


@pytest.fixture
def plain_host(site: Site) -> Iterator[str]:
    yield from serve(site, compress=False)


@pytest.fixture
def zstd_host(site: Site) -> Iterator[str]:
    yield from serve(site, handler=ZstdLabelling)


def first_open_limit() -> int:
    """docs/serving.md's "A first open sends under N MB", in bytes."""
    stated = re.search(
        r"A first open\s+sends under (\d+(?:\.\d+)?) MB", SERVING_PAGE.read_text(encoding="utf-8")
    )
    assert stated, "docs/serving.md no longer states what a first open sends"
    return round(float(stated[1]) * 1_000_000)


@pytest.mark.parametrize("host", ["gzip", "plain"])
def test_a_first_open_sends_under_what_the_docs_state(
    page: Page, site: Site, watch: Watch, plain_host: str, host: str
) -> None:
    """Every byte the browser received for the panel (headers and bodies, as sent)
    from the click to the first answer, on a fresh profile."""
    url = site.url if host == "gzip" else plain_host
    watch.origin = url.rstrip("/")
    page.goto(url)
    expect(page.get_by_role("button", name="Ask the docs")).to_be_visible()
    page.wait_for_load_state("networkidle")
    issued: list[Request] = []
    page.on("request", lambda request: issued.append(request))
    open_panel(page)
    ask_and_wait(page, "How do I retry a failed job?")
    panel = [r for r in issued if "/docs-panel/" in r.url]
    assert any(".wasm" in r.url for r in panel), [r.url for r in panel]
    sent = 0
    for request in panel:
        response = request.response()
        assert response is not None, request.url
        response.finished()  # the whole body, for its size
        sizes = request.sizes()
        sent += sizes["responseBodySize"] + sizes["responseHeadersSize"]
    assert 1_000_000 < sent < first_open_limit(), sent


def test_a_host_that_labels_zst_files_zstd_works(page: Page, watch: Watch, zstd_host: str) -> None:
    """The browser decodes the .zst files itself; the panel takes them as they come."""
    watch.origin = zstd_host.rstrip("/")
    labelled: list[str] = []
    page.on(
        "response",
        lambda r: labelled.append(r.url) if r.headers.get("content-encoding") == "zstd" else None,
    )
    page.goto(zstd_host)
    open_panel(page)
    ask_and_wait(page, "How do I retry a failed job?")
    assert any("pyodide.asm.wasm.zst" in url for url in labelled), labelled
    reload_open(page)  # and again from the copies kept for a warm start
    ask_and_wait(page, "configure the queue")


HOST = "http://docs.test"


def from_site(site: Site) -> Callable[[Route], None]:
    """Answers requests to HOST from ``site``'s server, as a plain HTTP host would."""

    def answer(route: Route) -> None:
        path = route.request.url.removeprefix(HOST + "/")
        try:
            with urllib.request.urlopen(site.url + path) as response:
                status, headers, body = response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as err:
            status, headers, body = err.code, dict(err.headers), err.read()
        route.fulfill(status=status, headers=headers, body=body)

    return answer


def test_a_page_without_cache_storage_starts_cold_every_time(
    page: Page, site: Site, watch: Watch
) -> None:
    """Served over plain HTTP (not a secure context: no Cache Storage, no locks), the
    panel answers, and answers again after a reload from a cold start, with no error."""
    watch.origin = HOST
    page.context.route(f"{HOST}/**", from_site(site))
    page.goto(HOST + "/")
    assert page.evaluate("!window.isSecureContext && !('caches' in window)")
    open_panel(page)
    ask_and_wait(page, "How do I retry a failed job?")
    assert started_warm(page) is False
    reload_open(page)
    ask_and_wait(page, "configure the queue")
    assert started_warm(page) is False
    expect(page.get_by_role("alert")).to_have_count(0, timeout=READY_TIMEOUT_MS)
