"""History write at a full archive, in the real panel, beside a plain-JS baseline.

The panel's write is read (main thread) → merge and bounds (worker) → write
(main thread), measured by the shell as ``docs-panel:history-write``; the
baseline does the same read-append-write in plain JavaScript, on the same
archive, in the same page::

    history_write_figures(browser, site_root, base_url, writes=20)  # {"p50": ..., "js_p50": ...}
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser

from bench.render_bench import percentile
from docs_panel.core.history import dump_archive
from docs_panel.core.history_schema import Archive, Conversation, ResultItem, Turn

# Search results only: no model answer to wait for between writes.
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>history write</title>
<link rel="icon" href="data:,"><script>window.docsPanel = {chat: false};</script>
<script src="/docs-panel/embed.js" async></script></head>
<body><h1>history write</h1></body></html>"""


def full_archive(conversations: int = 20, ceiling: int = 1_048_576) -> str:
    """``conversations`` conversations of five search-result turns, just under ``ceiling``."""
    per_turn = ceiling // 2 // conversations // 5 - 400  # UTF-16: two bytes a character

    def turn(n: int, t: int) -> Turn:
        item = ResultItem("/guides/retries.html#jitter", "Jitter", "x" * per_turn)
        return Turn(
            question=f"question {n}.{t}",
            answer="",
            status="results",
            asked_at=1_000 * n + t,
            finished_at=1_000 * n + t,
            results=(item,),
        )

    archive = Archive(
        tuple(
            Conversation(id=f"c{n}", turns=tuple(turn(n, t) for t in range(5)), index_version="v")
            for n in range(conversations)
        )
    )
    return dump_archive(archive)


# The same read-merge-write in plain JavaScript (no bounds, no validation): the
# baseline for the Python path.
NATIVE_WRITE = """(turn) => {
  const t0 = performance.now();
  const archive = JSON.parse(localStorage.getItem('docs-panel.history'));
  const mine = archive.conversations.shift();
  mine.turns.push(turn);
  archive.conversations.unshift(mine);
  localStorage.setItem('docs-panel.history', JSON.stringify(archive));
  return performance.now() - t0;
}"""


def history_write_figures(
    browser: Browser, root: Path, base_url: str, writes: int
) -> dict[str, float]:
    """p50/p95 of a history write inside the page, at a full archive, and the JS baseline."""
    (root / "bench-history.html").write_text(PAGE, encoding="utf-8")
    page = browser.new_page()
    page.goto(base_url + "bench-history.html")
    page.evaluate("v => localStorage.setItem('docs-panel.history', v)", full_archive())
    page.get_by_role("button", name="Ask the docs").click()
    box = page.get_by_role("textbox", name="Ask a question")
    for n in range(writes):
        box.fill(f"retry a failed job {n}")
        box.press("Enter")
        page.wait_for_function(
            f"performance.getEntriesByName('docs-panel:history-write').length > {n}",
            timeout=120_000,
        )
    panel = sorted(
        page.evaluate(
            "performance.getEntriesByName('docs-panel:history-write').map(e => e.duration)"
        )
    )
    stored = page.evaluate("localStorage.getItem('docs-panel.history').length * 2")
    # The baseline appends the same kind of turn the panel just wrote.
    turn = page.evaluate(
        "JSON.parse(localStorage.getItem('docs-panel.history')).conversations[0].turns.at(-1)"
    )
    native = sorted(page.evaluate(NATIVE_WRITE, turn) for _ in range(writes))
    page.close()
    return {
        "p50": percentile(panel, 50),
        "p95": percentile(panel, 95),
        "js_p50": percentile(native, 50),
        "js_p95": percentile(native, 95),
        "archive_kib": stored / 1024,
    }
