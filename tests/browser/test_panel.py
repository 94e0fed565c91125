"""The panel end to end in Chromium: what a reader sees, found by role and name."""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, Route, expect

from docs_panel.build.cli import build
from tests.browser.conftest import Site, Watch
from tests.browser.reader import (
    READY_TIMEOUT_MS,
    ask,
    new_chat,
    open_panel,
    result_links,
    wait_ready,
)

pytestmark = pytest.mark.browser

RUNTIME = re.compile(r"/docs-panel/(runtime/|shell\.|worker\.|index\.|panel\.)")


def test_launcher_shows_before_any_runtime_loads(page: Page, site: Site, watch: Watch) -> None:
    """The launcher is drawn at once, and nothing of the runtimes is fetched until it is used."""
    page.goto(site.url + "guides/retries.html")
    expect(page.get_by_role("button", name="Ask the docs")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert not [url for url in watch.requests if RUNTIME.search(url)]
    expect(page.get_by_role("region", name="Docs assistant")).to_have_count(0)


def test_ask_before_ready_then_follow_a_result(page: Page, site: Site) -> None:
    """A question typed while the worker boots is answered once it is ready, with working links."""
    page.goto(site.url)
    open_panel(page)
    expect(page.get_by_role("progressbar", name="Loading the assistant")).to_be_visible()
    ask(page, "How do I retry a job that failed?")
    links = result_links(page)
    wait_ready(page)
    assert links and all(link.startswith("/") for link in links)
    assert any(link.startswith("/guides/retries.html") for link in links[:3]), links

    # The composer stays usable for the next question.
    ask(page, "webhook signature verification")
    assert any("/api/webhooks.html" in link for link in result_links(page, turn=1)[:3])

    first = page.get_by_role("list", name="Search results").first.get_by_role("link").first
    href = str(first.get_attribute("href"))
    first.click()
    page.wait_for_url(site.url.rstrip("/") + href)
    anchor = href.partition("#")[2]
    if anchor:
        expect(page.locator(f"[id='{anchor}']")).to_be_attached()
    expect(page.get_by_role("heading").first).to_be_visible()


def test_a_large_site_fetches_only_the_index_parts_a_question_reads(
    page: Page, site: Site, watch: Watch, tmp_path: Path
) -> None:
    """Past SPLIT_BYTES, the index comes in parts: a question reads a few of them, and
    its results show the right page with its text."""
    for n in range(400):  # 1,200 sections of 80 words no other section uses
        words = [" ".join(f"w{n}x{s}y{k}" for k in range(80)) for s in range(3)]
        body = "".join(f"\n\n## Part {s}\n\n{text}" for s, text in enumerate(words))
        (tmp_path / f"p{n}.md").write_text(f"# Page {n}{body}", encoding="utf-8")
    (tmp_path / "valve.md").write_text(
        "# Zephyr valve\n\nThe zephyr valve releases pressure from the boiler.", encoding="utf-8"
    )
    build(tmp_path, site.root / "large" / "docs-panel", base="/large/")
    parts = list((site.root / "large" / "docs-panel").glob("index-*.zst"))
    page.goto(
        site.add_page(
            "/large/index.html",
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Large</title>'
            '<script src="/large/docs-panel/embed.js" async></script></head>'
            "<body><h1>Large</h1></body></html>",
        )
    )
    open_panel(page)
    ask(page, "How does the zephyr valve release pressure?")  # answered by the demo model
    sources = page.get_by_role("list", name="Sources")
    first_source = sources.get_by_role("link").first  # the first answer: after a cold boot
    expect(first_source).to_have_attribute("href", "/large/valve.html", timeout=READY_TIMEOUT_MS)
    expect(page.get_by_text("The zephyr valve releases pressure from the boiler.")).to_be_visible()
    fetched = [url for url in watch.requests if "/large/docs-panel/index-" in url]
    assert {"text", "terms"} == {re.findall(r"index-(\w+)-", url)[0] for url in fetched}
    assert len(fetched) < len(parts) // 4, fetched
    # The warm-start copy keeps the parts it read under its head's name (a new index
    # drops them), though the loader names no part: they go by a rule.
    keys = "async () => (await (await caches.open('docs-panel-warm-start')).keys()).map(r => r.url)"
    for _ in range(READY_TIMEOUT_MS // 250):  # kept a second after the first answer
        kept = [url for url in page.evaluate(keys) if "/index-" in url]
        if kept:
            break
        page.wait_for_timeout(250)
    head = r"\?head=index\.[0-9a-f]{10}\.json"
    assert kept and all(re.search(rf"/index-\w+-\d+\.[0-9a-f]{{10}}\.json{head}$", u) for u in kept)


def test_scope_limits_results_to_its_prefix(page: Page, site: Site) -> None:
    """With the API scope picked, every result lies under /api/."""
    page.goto(site.url)
    open_panel(page)
    wait_ready(page)
    page.get_by_role("combobox", name="Search in").select_option(label="API")
    ask(page, "How do I retry a job that failed?")
    links = result_links(page)
    assert links and all(link.startswith("/api/") for link in links), links


def test_gzip_twins_load_whether_or_not_the_browser_decoded_them(
    page: Page, site: Site, watch: Watch
) -> None:
    """The shell's modules, MicroPython's wasm and the code of PyScript's core and of
    MicroPython's module come as .gz twins (never PyScript's zip reader or the plugins
    the panel does not use), also from a host that labels them Content-Encoding: gzip,
    so the browser hands them over decoded."""

    def decoded(route: Route) -> None:
        response = route.fetch()
        route.fulfill(response=response, body=gzip.decompress(response.body()))

    page.route(re.compile(r"/docs-panel/.*\.gz$"), decoded)
    page.goto(site.url)
    open_panel(page)
    wait_ready(page)
    ask(page, "rate limits")
    assert result_links(page)
    assert [url for url in watch.requests if url.endswith("/micropython.wasm.gz")]
    assert [url for url in watch.requests if re.search(r"/shell\.\w+\.json\.gz$", url)]
    assert not [url for url in watch.requests if "/zip-" in url or url.endswith(".zip")]
    bodies = [url for url in watch.requests if url.endswith(".body.js.gz")]
    assert {url.rsplit("/", 2)[1].split("-")[0] for url in bodies} == {"pyscript", "micropython"}
    plugins = ("/py-editor-", "/py-terminal-", "/py-game-", "/donkey-", "/deprecations-")
    assert not [url for url in watch.requests if any(name in url for name in plugins)]


def test_config_typo_logs_one_error_and_the_panel_works(
    page: Page, site: Site, watch: Watch
) -> None:
    """A misspelt key gives exactly one console.error naming it; the panel still answers."""
    watch.expect_console_error(r"^docsPanel\.gatee\b")
    watch.expect_console_error(r"^docsPanel\.history\.max\b")
    url = site.page_with_config("typo", '{chat: false, gatee: 0.5, history: {max: "lots"}}')
    page.goto(url)
    open_panel(page)
    wait_ready(page)
    ask(page, "install the command line tool")
    assert result_links(page)
    typo = [e for e in watch.console_errors if e.startswith("docsPanel.gatee")]
    assert len(typo) == 1 and '"gate"' in typo[0], watch.console_errors
    history = [e for e in watch.console_errors if e.startswith("docsPanel.history.max")]
    assert len(history) == 1, watch.console_errors


def _cut_short(route: Route) -> None:
    body = route.fetch().body()
    route.fulfill(status=200, body=body[: len(body) // 2])


@pytest.mark.parametrize(
    ("answer", "cause"),
    [(lambda route: route.fulfill(status=404), "HTTP 404"), (_cut_short, "ended early")],
    ids=["missing", "cut-short"],
)
def test_a_runtime_file_that_cannot_load_is_said_not_waited_for(
    page: Page, site: Site, watch: Watch, answer: Callable[[Route], None], cause: str
) -> None:
    """Pyodide's wasm is missing or cut short: each question says the assistant could not
    start, at once, and the console says why."""
    watch.expect_bad_request(r"/pyodide\.asm\.wasm\.zst\b")
    # The console names the cause in plain words, not as a MicroPython tuple.
    said = r"^docs-panel: The assistant could not start\. [^(]*\bdocs-panel: "
    watch.expect_console_error(said + f".*{cause}")
    watch.expect_console_error(r"^MessageEvent$")  # PyScript logs its worker's failed start too
    page.context.route(re.compile(r"/pyodide\.asm\.wasm\.zst$"), answer)
    page.goto(site.url)
    open_panel(page)
    ask(page, "rate limits")
    failed = re.compile(r"could not start\. Reload the page")
    first = page.locator("article").filter(has_text="rate limits")
    expect(first.get_by_role("alert")).to_have_text(failed, timeout=READY_TIMEOUT_MS)
    # Logged before the alert is drawn, so already seen: required, not only allowed.
    assert [e for e in watch.console_errors if re.search(said + f".*{cause}", e)], (
        watch.console_errors
    )
    expect(page.get_by_role("progressbar")).to_have_count(0)
    ask(page, "retries")  # asked once the start has failed: told at once, never queued
    expect(page.locator("article").filter(has_text="retries").get_by_role("alert")).to_have_text(
        failed
    )
    expect(page.get_by_text(re.compile("your question is next", re.I))).to_have_count(0)
    expect(page.get_by_role("alert").filter(has_text=failed)).to_have_count(2)  # one each


@pytest.mark.parametrize(
    "broken",
    # MicroPython falls back from the wasm's gzip twin to the wasm itself: both missing.
    [r"/micropython\.wasm(\.gz)?$", r"/shell\.[0-9a-f]+\.json\.gz$"],
    ids=["micropython-wasm", "shell-modules"],
)
def test_a_page_runtime_that_cannot_load_is_said_once_the_reader_asks(
    page: Page, site: Site, watch: Watch, broken: str
) -> None:
    """MicroPython's wasm or the shell's modules answer 404: nothing is said on the preload
    (pointer over the launcher), and a click shows the alert at once, not a busy launcher."""
    watch.expect_bad_request(broken.rstrip("$"))
    watch.expect_console_error(r"^docs-panel: ")
    # MicroPython's own reports of the missing wasm, before it gives up.
    watch.expect_console_error(r"wasm|^falling back|^Aborted\(")
    page.context.route(re.compile(broken), lambda route: route.fulfill(status=404))
    page.goto(site.url)
    launcher = page.get_by_role("button", name="Ask the docs")
    with page.expect_console_message(lambda m: m.text.startswith("docs-panel: "), timeout=30_000):
        launcher.hover()
    alert = page.get_by_role("alert").filter(has_text=re.compile(r"could not start\. Reload"))
    expect(alert).to_have_count(0)  # the reader has not asked for the panel yet
    launcher.click()
    expect(alert).to_be_visible()
    expect(launcher).not_to_have_attribute("aria-busy", "true")
    launcher.click()
    expect(alert).to_have_count(1)


def test_close_and_reopen_keep_the_thread(page: Page, site: Site) -> None:
    """Escape closes the panel and gives focus back; reopening shows the same thread."""
    page.goto(site.url)
    open_panel(page)
    wait_ready(page)
    ask(page, "rate limits")
    result_links(page)
    page.keyboard.press("Escape")
    expect(page.get_by_role("region", name="Docs assistant")).to_be_hidden()
    launcher = page.get_by_role("button", name="Ask the docs")
    expect(launcher).to_be_focused()
    launcher.click()
    expect(page.get_by_role("list", name="Search results")).to_have_count(1)
    new_chat(page)
    expect(page.get_by_role("textbox", name="Ask a question")).to_be_focused()


def test_a_python_exception_fails_the_test_with_its_traceback(
    page: Page, site: Site, watch: Watch
) -> None:
    """The harness turns a Python error on the page into a failure that shows the traceback."""
    site.add_page(
        "/tests/boom.py", 'def explode():\n    raise ValueError("boom from Python")\n\nexplode()\n'
    )
    url = site.page_with_config(
        "boom", "{}", body='<script type="mpy" src="/tests/boom.py"></script>'
    )
    page.goto(url)
    open_panel(page)
    expect(page.locator(".py-error")).to_have_count(1, timeout=READY_TIMEOUT_MS)
    with pytest.raises(AssertionError) as failure:
        watch.check(page)
    assert "ValueError: boom from Python" in str(failure.value)
    assert "explode" in str(failure.value)  # the traceback, not just the message
    # This test expects the failure; leave the page clean for the fixture's own check.
    page.evaluate("document.querySelectorAll('.py-error').forEach(e => e.remove())")
    watch.page_errors.clear()
    watch.console_errors.clear()


def test_the_shortcut_opens_and_escape_closes_layer_by_layer(page: Page, site: Site) -> None:
    """Ctrl+/ opens the panel at the question box (never from a form field of the page);
    Esc closes the history list first, then the panel, and focus goes back where it was."""
    url = site.page_with_config("keys", "{chat: false}", '<input aria-label="Page search">')
    page.goto(url)
    launcher = page.get_by_role("button", name="Ask the docs")
    expect(launcher).to_have_attribute("aria-keyshortcuts", "Control+/")
    left_alone(page, lambda: page.get_by_role("textbox", name="Page search").press("Control+/"))

    page.get_by_role("heading", name="keys").click()  # focus back on the page itself
    page.keyboard.press("Control+/")
    box = page.get_by_role("textbox", name="Ask a question")
    expect(box).to_be_focused(timeout=READY_TIMEOUT_MS)
    wait_ready(page)
    history = page.get_by_role("button", name="Conversation history")
    history.click()
    expect(history).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Escape")
    expect(history).to_have_attribute("aria-expanded", "false")
    expect(history).to_be_focused()
    expect(page.get_by_role("region", name="Docs assistant")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("region", name="Docs assistant")).to_be_hidden()
    expect(launcher).to_be_focused()  # the page had no focused control: the launcher
    page.keyboard.press("Control+/")
    expect(box).to_be_focused()


# Records each Ctrl+/ as the page sees it once the panel's document listener is done.
PAGE_KEYS = """() => { window.__keys = [];
  addEventListener("keydown", e => { if (e.key === "/") __keys.push(e.defaultPrevented); }); }"""


def left_alone(page: Page, press: Callable[[], None]) -> None:
    """``press`` a Ctrl+/ that the panel must leave to the page: once the page's own
    listener has it, it is not prevented, the launcher did not start, no panel."""
    page.evaluate(PAGE_KEYS)
    press()
    page.wait_for_function("window.__keys.length === 1")
    assert page.evaluate("window.__keys") == [False]
    launcher = page.get_by_role("button", name="Ask the docs")
    expect(launcher).not_to_have_attribute("aria-busy", "true")
    expect(page.get_by_role("region", name="Docs assistant")).to_have_count(0)


def test_shortcut_null_leaves_ctrl_slash_to_the_page(page: Page, site: Site, watch: Watch) -> None:
    """With shortcut: null, Ctrl+/ is the page's: not prevented, nothing opens or loads,
    and the launcher announces no shortcut."""
    page.goto(site.page_with_config("no-shortcut", "{chat: false, shortcut: null}"))
    launcher = page.get_by_role("button", name="Ask the docs")
    expect(launcher).to_be_visible()
    expect(launcher).not_to_have_attribute("aria-keyshortcuts", re.compile("."))
    page.get_by_role("heading", name="no-shortcut").click()
    left_alone(page, lambda: page.keyboard.press("Control+/"))
    assert not [url for url in watch.requests if RUNTIME.search(url)]
