"""Benchmarks for the closing notes: sizes, load timings, index build figures.

    python3 bench/run.py                 # everything (about two minutes)
    python3 bench/run.py --runs 5        # more browser runs per figure

Figures are medians over the runs. "cold" is a fresh browser profile (empty
HTTP cache); "warm" opens the page in a new tab of the same profile, so
content-hashed files come from the cache. Bytes are counted by the server as sent on the wire.
Nothing here asserts: numbers are reported, not tested.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from builder.cli import build, build_demo  # noqa: E402
from builder.serve import StaticHandler, make_server  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from widget.core.history import Archive, Conversation, ResultItem, Turn, dump_archive  # noqa: E402

PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")
QUESTION = "How do I retry a job that failed?"

# Long tasks on the main thread, recorded from the first byte of the page on.
LONGTASKS = """
window.__longtasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longtasks.push(entry.duration);
}).observe({ type: "longtask", buffered: true });
"""


class CountingHandler(StaticHandler):
    """Counts the body bytes the server sends (304s and cache hits send none)."""

    sent = 0

    def send_header(self, keyword: str, value: str) -> None:
        if keyword == "Content-Length":
            CountingHandler.sent += int(value)
        super().send_header(keyword, value)


def serve(root: Path) -> str:
    handler = type("Handler", (CountingHandler,), {"root": root.resolve()})
    server = make_server(root, port=0)
    server.RequestHandlerClass = handler
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}/"


def one_visit(page: Page, url: str) -> dict[str, float]:
    """Load, open the panel, ask at once; time the panel and the first answer."""
    CountingHandler.sent = 0
    page.goto(url)
    page.get_by_role("button", name="Ask the docs").wait_for()
    page.wait_for_load_state("networkidle")
    page_bytes = CountingHandler.sent
    start = time.perf_counter()
    page.get_by_role("button", name="Ask the docs").click()
    box = page.get_by_role("textbox", name="Ask a question")
    box.wait_for()
    panel = time.perf_counter() - start
    box.fill(QUESTION)
    box.press("Enter")
    page.get_by_role("list", name="Search results").wait_for(timeout=120_000)
    answer = time.perf_counter() - start
    longest = page.evaluate("Math.max(0, ...window.__longtasks)")
    return {
        "panel_s": panel,
        "answer_s": answer,
        "longest_task_ms": float(longest),
        "page_kib": page_bytes / 1024,
        "panel_kib": (CountingHandler.sent - page_bytes) / 1024,
    }


def browser_figures(browser: Browser, url: str, runs: int) -> dict[str, dict[str, float]]:
    cold: list[dict[str, float]] = []
    warm: list[dict[str, float]] = []
    for _ in range(runs):
        context = browser.new_context()
        context.add_init_script(LONGTASKS)
        cold.append(one_visit(context.new_page(), url))
        # A new tab in the same profile: the HTTP cache is warm, nothing to restore.
        warm.append(one_visit(context.new_page(), url))
        context.close()
    return {
        name: {key: statistics.median(r[key] for r in rows) for key in rows[0]}
        for name, rows in (("cold", cold), ("warm", warm))
    }


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


def history_write_figures(browser: Browser, url: str, writes: int) -> dict[str, float]:
    """p50/p95 of a history write inside the page, at a full archive, and a JS baseline."""
    page = browser.new_page()
    page.goto(url)
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
    panel = page.evaluate(
        "performance.getEntriesByName('docs-panel:history-write').map(e => e.duration)"
    )
    stored = page.evaluate("localStorage.getItem('docs-panel.history').length * 2")
    # The baseline appends the same kind of turn the panel just wrote.
    turn = page.evaluate(
        "JSON.parse(localStorage.getItem('docs-panel.history')).conversations[0].turns.at(-1)"
    )
    native = [page.evaluate(NATIVE_WRITE, turn) for _ in range(writes)]
    page.close()

    def p(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {
        "p50": p(panel, 0.5),
        "p95": p(panel, 0.95),
        "js_p50": p(native, 0.5),
        "js_p95": p(native, 0.95),
        "archive_kib": stored / 1024,
    }


def size_figures(out: Path) -> dict[str, float]:
    files = [p for p in out.rglob("*") if p.is_file() and p.suffix != ".gz"]
    embed = (out / "embed.js").read_bytes()
    return {
        "bundle_mib": sum(p.stat().st_size for p in files) / 2**20,
        "embed_js_gzip_kib": len(gzip.compress(embed, 9)) / 1024,
    }


def index_figures(site: Path, out: Path) -> str:
    report = build(site, out)
    index = next(out.glob("index.*.json"))
    gz = index.with_name(index.name + ".gz")
    return (
        f"{report.pages} pages, {report.sections} sections, build {report.seconds:.1f} s, "
        f"index {index.stat().st_size / 2**20:.2f} MiB"
        + (f" ({gz.stat().st_size / 2**20:.2f} MiB gzipped)" if gz.exists() else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(tmp) / "demo"
        demo_report = build_demo(demo)
        print(f"demo index: {index_figures(demo, Path(tmp) / 'demo-panel')}")
        if PYTHON_DOCS.is_dir():
            print(f"Python docs index: {index_figures(PYTHON_DOCS, Path(tmp) / 'pydocs-panel')}")
        sizes = size_figures(demo_report.out)
        print(
            f"bundle: {sizes['bundle_mib']:.1f} MiB raw; "
            f"embed.js {sizes['embed_js_gzip_kib']:.2f} KiB gzipped"
        )

        url = serve(demo)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            figures = browser_figures(browser, url, args.runs)
            writes = history_write_figures(browser, url, writes=20)
            browser.close()
    print(
        f"history write at a full archive ({writes['archive_kib']:.0f} KiB stored): "
        f"p50 {writes['p50']:.0f} ms, p95 {writes['p95']:.0f} ms in the panel "
        f"(read, merge in the worker, write); plain-JS baseline p50 {writes['js_p50']:.1f} ms, "
        f"p95 {writes['js_p95']:.1f} ms"
    )
    for name, row in figures.items():
        print(
            f"{name}: click→panel {row['panel_s'] * 1000:.0f} ms, click→first answer "
            f"{row['answer_s']:.2f} s, longest main-thread task {row['longest_task_ms']:.0f} ms, "
            f"page load {row['page_kib']:.1f} KiB, opening {row['panel_kib']:.0f} KiB on the wire"
        )


if __name__ == "__main__":
    main()
