"""What streaming a long answer costs in the real panel: Chromium, worker and shell.

    python3 bench/stream_bench.py                 # 5,000 tokens at 100 tokens/s (~60 s)
    python3 bench/stream_bench.py --rate 400      # a faster model

The demo site is built with answers on; its endpoint streams ``bench/answer_5000.md``
one token per event at ``--rate`` tokens per second (tokens as in render_bench.py).
Reported, from the performance timelines of the page and of the worker:

- ``render``: each pull's incremental Markdown render + sanitizing in the worker
  (``docs-panel:render``), per update and summed over the answer;
- ``paint``: each update's DOM work in the shell on the main thread (``docs-panel:paint``);
- long tasks (> 50 ms) on the main thread while the answer streamed;
- how long after the last token the finished answer (with its Sources) was on screen.

Nothing here asserts: numbers are reported, not tested.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.render_bench import ANSWER, percentile, tokenize  # noqa: E402
from bench.run import LONGTASKS  # noqa: E402
from docs_panel.build.cli import build_demo  # noqa: E402
from docs_panel.build.serve import ChatReply, make_server  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.endpoint import event  # noqa: E402

QUESTION = "How do I retry a job that failed?"
TIMEOUT_MS = 300_000


class TokenEndpoint:
    """Streams the answer a token per event at a fixed rate; notes when the last one left."""

    def __init__(self, tokens: list[str], rate: float) -> None:
        self.tokens, self.rate = tokens, rate
        self.last_token_at = 0.0

    def __call__(self, body: bytes) -> ChatReply:
        def chunks() -> Iterator[bytes]:
            yield event({"role": "assistant"})
            start = time.monotonic()
            for n, token in enumerate(self.tokens):
                time.sleep(max(0.0, start + n / self.rate - time.monotonic()))
                yield event({"content": token})
            self.last_token_at = time.time() * 1000
            yield event({}, "stop")
            yield b"data: [DONE]\n\n"

        return ChatReply(200, chunks())


def summary(durations: list[float]) -> dict[str, float]:
    ordered = sorted(durations)
    if not ordered:
        return {"count": 0}
    return {
        "count": len(ordered),
        "p50": percentile(ordered, 50),
        "p95": percentile(ordered, 95),
        "max": ordered[-1],
        "mean": statistics.fmean(ordered),
        "sum": sum(ordered),
    }


def run(rate: float) -> dict[str, object]:
    tokens = tokenize(ANSWER.read_text(encoding="utf-8"))
    endpoint = TokenEndpoint(tokens, rate)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "site"
        build_demo(root, endpoint="/api/chat")
        server = make_server(root, port=0, chat=endpoint)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.add_init_script(LONGTASKS)
            page.goto(f"http://127.0.0.1:{server.server_port}/")
            page.get_by_role("button", name="Ask the docs").click()
            page.get_by_role("progressbar").wait_for(state="detached", timeout=TIMEOUT_MS)
            tasks_before = page.evaluate("window.__longtasks.length")
            box = page.get_by_role("textbox", name="Ask a question")
            box.fill(QUESTION)
            box.press("Enter")
            page.get_by_role("list", name="Sources").wait_for(timeout=TIMEOUT_MS)
            shown_at = page.evaluate("Date.now()")
            paints = page.evaluate(
                "performance.getEntriesByName('docs-panel:paint').map(e => e.duration)"
            )
            renders: list[float] = []
            for worker in page.workers:
                renders += worker.evaluate(
                    "performance.getEntriesByName('docs-panel:render').map(e => e.duration)"
                )
            long_tasks = page.evaluate(f"window.__longtasks.slice({tasks_before})")
            browser.close()
        server.shutdown()
    return {
        "tokens": len(tokens),
        "rate": rate,
        "stream_s": len(tokens) / rate,
        "render_ms": summary(renders),
        "paint_ms": summary(paints),
        "long_tasks_ms": sorted(long_tasks, reverse=True)[:5],
        "final_after_last_token_ms": shown_at - endpoint.last_token_at,
    }


def report(f: dict[str, object]) -> str:
    def line(name: str, s: object) -> str:
        assert isinstance(s, dict)
        if not s.get("count"):
            return f"{name:<8} none"
        return (
            f"{name:<8} {s['count']:,} updates  p50 {s['p50']:.2f} ms  p95 {s['p95']:.2f} ms  "
            f"max {s['max']:.1f} ms  total {s['sum']:,.0f} ms"
        )

    return "\n".join(
        [
            f"{f['tokens']:,} tokens at {f['rate']:g} tokens/s ({f['stream_s']:.1f} s)",
            line("render", f["render_ms"]) + "  (worker: incremental Markdown + bleach)",
            line("paint", f["paint_ms"]) + "  (main thread: DOM updates)",
            f"long tasks during the stream (top 5, ms): {f['long_tasks_ms']}",
            f"finished answer on screen {f['final_after_last_token_ms']:.0f} ms"
            " after the last token",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=100.0, help="tokens per second")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    figures = run(args.rate)
    print(json.dumps(figures, indent=2) if args.json else report(figures))


if __name__ == "__main__":
    main()
