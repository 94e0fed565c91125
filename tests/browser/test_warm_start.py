"""The warm start: Pyodide's memory after start and the panel's imports, in Cache Storage."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from tests.browser.conftest import Site
from tests.browser.reader import READY_TIMEOUT_MS, ask_and_wait, open_panel, reload_open

pytestmark = pytest.mark.browser

CACHE = "docs-panel-warm-start"

# The kept copies, gzipped: [url, stored size, whether the ungzipped bytes contain `needle`].
KEPT = """async ([name, needle]) => {
  const cache = await caches.open(name);
  const kept = [];
  for (const request of await cache.keys()) {
    const stored = await (await cache.match(request)).blob();
    // The memory is kept as it is, the files gzipped (junk may be neither).
    const head = new Uint8Array(await stored.slice(0, 2).arrayBuffer());
    const gzipped = head[0] === 0x1f && head[1] === 0x8b;
    const body = gzipped ? stored.stream().pipeThrough(new DecompressionStream("gzip")) : stored;
    const text = new TextDecoder("latin1").decode(await new Response(body).arrayBuffer());
    kept.push([request.url, stored.size, text.includes(needle)]);
  }
  return kept;
}"""

CUT = """async ([name, url]) => {
  const cache = await caches.open(name);
  const kept = await (await cache.match(url)).arrayBuffer();
  await cache.put(url, new Response(kept.slice(0, kept.byteLength / 2)));
}"""

JUNK_WASM = """async ([name, url]) => {
  const junk = new Blob([new Uint8Array(1000).fill(7)], { type: "application/wasm" });
  await (await caches.open(name)).put(url, new Response(junk));
}"""

QUESTION = "retry a failed job with jitter"
WARM = "performance.getEntriesByName('docs-panel:warm').length"
LOADED = "performance.getEntriesByName('docs-panel:loader').length"


# What a warm start keeps besides the memory copy, by the start of each file's name.
FILES = {"pyodide.asm.wasm", "pyodide.asm.js", "pyodide.body.js", "stdlib", "worker", "index"}


def kept_copies(page: Page, *, larger_than: int = 1_000_000) -> dict[str, list[Any]]:
    """What Cache Storage holds, by file name, once the memory copy is kept over
    ``larger_than`` bytes and every file beside it (a second after the answer's first
    words; the files gzipped)."""
    for _ in range(READY_TIMEOUT_MS // 250):
        kept = {
            url.rsplit("/", 1)[-1]: [url, size, found]
            for url, size, found in page.evaluate(KEPT, [CACHE, QUESTION])
        }
        memory = any(
            name.startswith("pyodide.body.js?memory") and kept[name][1] > larger_than
            for name in kept
        )
        if memory and all(any(name.startswith(f) for name in kept) for f in FILES):
            return kept
        page.wait_for_timeout(250)
    raise AssertionError(f"no warm-start memory copy over {larger_than} bytes and its files")


def started_warm(page: Page) -> bool:
    """Whether the panel's worker (the one whose loader ran) restored a kept copy;
    an error if no worker is the panel's. PyScript's short-lived probe workers may be
    gone by the time they are asked."""
    for worker in page.workers:
        try:
            loaded, warm = worker.evaluate(f"[{LOADED}, {WARM}]")
        except PlaywrightError:
            continue
        if loaded:
            return bool(warm)
    raise AssertionError(f"none of the page's {len(page.workers)} workers ran the panel's loader")


def test_the_next_visit_starts_warm_and_a_cut_copy_starts_cold(page: Page, site: Site) -> None:
    """The first answer keeps the memory copy (with no question in it) and the decoded
    runtime, code and index; a memory copy cut short gives a cold start that answers and
    replaces it; the next visit restores the copy and answers; a kept wasm that is
    junk is passed over for its twin and replaced."""
    page.goto(site.url)
    open_panel(page)
    ask_and_wait(page, QUESTION)
    assert not started_warm(page)
    kept = kept_copies(page)
    (memory,) = [name for name in kept if "?memory" in name]
    assert {"pyodide.asm.wasm", "pyodide.asm.js"} < set(kept)
    assert not any(found for *_, found in kept.values())

    url, size, _ = kept[memory]
    page.evaluate(CUT, [CACHE, url])
    reload_open(page)
    ask_and_wait(page, "configure the queue")
    assert not started_warm(page)
    assert kept_copies(page, larger_than=size // 2)[memory][1] > size // 2

    reload_open(page)
    ask_and_wait(page, "retry a failed job")
    assert started_warm(page)

    wasm_url, wasm_size, _ = kept["pyodide.asm.wasm"]
    page.evaluate(JUNK_WASM, [CACHE, wasm_url])
    reload_open(page)
    ask_and_wait(page, "configure the queue")
    assert started_warm(page)  # the memory copy is sound
    for _ in range(READY_TIMEOUT_MS // 250):
        if kept_copies(page)["pyodide.asm.wasm"][1] == wasm_size:
            break
        page.wait_for_timeout(250)
    else:
        raise AssertionError("the junk wasm copy was not replaced")
