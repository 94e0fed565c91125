""" "Search conversations" at a full archive (20 conversations, ~1 MiB), in the real
panel in Chromium, beside a plain-JS baseline and the core alone in CPython.

The panel's figure is what the reader waits for: from the keystroke's ``input``
event to the filtered rows drawn (storage read on the main thread, the filter in
the worker, the rows drawn), measured by the shell as ``docs-panel:history-search``.
The target is under 50 ms::

    python3 -m bench.history_search              # prints p50/p95 of each, in ms
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench.render_bench import percentile
from docs_panel.build.cli import build_demo
from docs_panel.build.serve import make_server
from docs_panel.core.history import dump_archive
from docs_panel.core.history_schema import Archive, Conversation, Source, Turn, utf16_bytes
from docs_panel.core.history_search import matching
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>history search</title>
<link rel="icon" href="data:,"><script>window.docsPanel = {chat: false};</script>
<script src="/docs-panel/embed.js" async></script></head>
<body><h1>history search</h1></body></html>"""
WORDS = [
    "job",
    "retry",
    "queue",
    "worker",
    "schedule",
    "cron",
    "webhook",
    "secret",
    "rotate",
    "token",
    "deploy",
    "cluster",
    "node",
    "timeout",
    "backoff",
    "jitter",
    "payload",
    "header",
    "request",
    "response",
    "error",
    "status",
    "config",
    "option",
    "install",
    "upgrade",
    "migrate",
    "database",
    "index",
    "cache",
    "memory",
    "limit",
    "region",
    "replica",
    "snapshot",
]
QUERIES = ["retry", "webhook secret", "zzz", "jitter backoff", "question 7", "cluster node"]


def full_archive(conversations: int = 20, ceiling: int = 1_048_576) -> str:
    """``conversations`` of five answered turns of docs-like prose, just under ``ceiling``."""
    rng = random.Random(33)
    words_per_answer = ceiling // 2 // conversations // 5 // 8

    def turn(n: int, t: int) -> Turn:
        answer = " ".join(rng.choice(WORDS) for _ in range(words_per_answer))
        return Turn(
            question=f"question {n}.{t} about {rng.choice(WORDS)} and {rng.choice(WORDS)}",
            answer=answer + " [1].",
            status="done",
            asked_at=1_000 * n + t,
            finished_at=1_000 * n + t,
            sources=(Source("/guides/retries.html#jitter", "Jitter and backoff", 1),),
        )

    archive = Archive(
        tuple(
            Conversation(id=f"c{n}", turns=tuple(turn(n, t) for t in range(5)), index_version="v")
            for n in range(conversations)
        )
    )
    return dump_archive(archive)


NATIVE_FILTER = """(query) => {
  const t0 = performance.now();
  const words = query.toLowerCase().split(/\\s+/).filter(Boolean);
  const archive = JSON.parse(localStorage.getItem('docs-panel.history'));
  const found = archive.conversations.filter((c) => {
    const text = c.turns.map((t) => [t.question, t.quote, t.answer,
      ...t.sources.map((s) => s.title)].join('\\n')).join('\\n').toLowerCase();
    return words.every((w) => text.includes(w));
  });
  return [performance.now() - t0, found.length];
}"""


def core_figures(value: str, rounds: int = 20) -> list[float]:
    """The core's ``matching`` alone in CPython, archive already decoded (as in the worker)."""
    from docs_panel.core.history import load_archive

    archive = load_archive(value).archive
    times = []
    for _ in range(rounds):
        for query in QUERIES:
            started = time.perf_counter()
            matching(archive, query)
            times.append((time.perf_counter() - started) * 1000)
    return sorted(times)


def main() -> None:
    value = full_archive()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "site"
        build_demo(root)
        (root / "bench-search.html").write_text(PAGE, encoding="utf-8")
        server = make_server(root, port=0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_port}/bench-search.html")
            page.evaluate("v => localStorage.setItem('docs-panel.history', v)", value)
            page.get_by_role("button", name="Ask the docs").click()
            history = page.get_by_role("button", name="Conversation history")
            history.click(timeout=120_000)
            search = page.get_by_role("searchbox", name="Search conversations")
            page.evaluate("performance.clearMeasures('docs-panel:history-search')")
            count = "performance.getEntriesByName('docs-panel:history-search').length"
            for _ in range(3):
                for query in QUERIES:
                    # Each prefix as typed, then cleared: every value differs from the last.
                    for text in [query[:n] for n in range(1, len(query) + 1)] + [""]:
                        before = page.evaluate(count)
                        search.fill(text)
                        page.wait_for_function(f"{count} > {before}")
            panel = sorted(
                page.evaluate(
                    "performance.getEntriesByName('docs-panel:history-search').map(e => e.duration)"
                )
            )
            native = sorted(page.evaluate(NATIVE_FILTER, q)[0] for q in QUERIES * 5)
            browser.close()
        server.shutdown()
        server.server_close()
    core = core_figures(value)
    figures = {
        "archive_kib": round(utf16_bytes(value) / 1024),
        "filterings": len(panel),
        "panel_p50_ms": round(percentile(panel, 50), 1),
        "panel_p95_ms": round(percentile(panel, 95), 1),
        "panel_max_ms": round(max(panel), 1),
        "js_baseline_p50_ms": round(percentile(native, 50), 1),
        "js_baseline_p95_ms": round(percentile(native, 95), 1),
        "core_cpython_p50_ms": round(statistics.median(core), 2),
        "core_cpython_p95_ms": round(percentile(core, 95), 2),
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
