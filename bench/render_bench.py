"""Streaming answer render cost: a 5,000-token answer streamed at 100 tokens/s.

    python bench/render_bench.py                  # CPython, one feed() per token
    python bench/render_bench.py --coalesce 10    # 10 tokens per feed() (a UI that pulls slower)
    python bench/render_bench.py --pyodide        # the same run in Pyodide under Node.js
    python bench/render_bench.py --json           # the figures as one JSON object

The answer (``bench/answer_5000.md``, or ``--answer``) is cut into tokens the
way a model streams them: words with their leading space attached, about four
characters a token. The 100 tokens/s cadence is simulated, not slept (pass
``--realtime`` to sleep for real): every ``StreamingRenderer.feed()`` and the
final ``finish()`` is timed with ``time.perf_counter``, and the sum is set
against the time the stream itself takes (tokens / rate). The mean cost of the
first and the last 500 tokens' calls shows whether a call gets dearer as the
answer grows (it should not: only the still-open block is re-rendered). The
last line checks that the streamed HTML equals ``render_answer()`` of the whole
text. The dearest calls are a table's rows and the first line of the block
after a table or list: a block stays open until the next one has a complete
line, so it is re-rendered with each token of that line. ``max`` is a lone
outlier (a GC pass, the host), not any particular block.
``--pyodide`` needs ``npm ci`` (node_modules/pyodide) and ``node``; it
copies ``docs_panel`` and the pure-Python dependencies into Pyodide's in-memory
file system and runs this file there. Example (CPython, figures vary by machine)::

    answer_5000.md: 20,144 chars, 5,048 tokens streamed at 100 tokens/s (50.5 s)
    runtime        CPython 3.11.7
    feed() calls   5,048 (1 token each)
    per call       p50 0.32 ms  p95 1.01 ms  p99 1.48 ms  max 7.87 ms
    finish()       0.12 ms
    total render   2,030 ms = 4.0% of the 50.5 s stream
    first 500 tok  mean 0.39 ms per call (500 calls)
    last 500 tok   mean 0.39 ms per call (500 calls), 1.00x the first
    largest tail   1,650 chars of HTML
    whole answer   rendered at once by render_answer() in 12.1 ms
    stream == render_answer(whole): yes

Nothing here asserts: numbers are reported, not tested.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from docs_panel.core.render import StreamingRenderer, render_answer  # noqa: E402

ANSWER = Path(__file__).resolve().parent / "answer_5000.md"
PYODIDE = ROOT / "node_modules" / "pyodide"
# What the worker imports besides docs_panel: the project's pure-Python dependencies.
PURE_PYTHON_DEPS = ("markdown_it", "mdurl", "bleach", "webencodings")

SITE_ORIGIN = "https://docs.tidewater.example"
# The pages the answer links to that the docs index still has;
# /guide/legacy-workers.html is left out on purpose (a link to a page that is gone).
PAGES = frozenset(
    {
        "/guide/jobs.html",
        "/guide/idempotency.html",
        "/guide/queues.html",
        "/guide/backends.html",
        "/guide/testing.html",
        "/reference/config.html",
        "/reference/cli.html",
        "/ops/monitoring.html",
    }
)
WINDOW_TOKENS = 500  # the first and the last this many tokens are compared

# GPT-style pre-tokenisation: a word, up to 3 digits or a run of punctuation, each
# with at most one leading space; whitespace before a word leaves that word its space.
_PIECE = re.compile(r" ?[^\W\d_]+| ?\d{1,3}| ?[^\s\w]+|_+|\s+(?!\S)|\s+")
_SUBWORD = 6  # BPE splits long, rare pieces (hashes, long identifiers) into subwords


def tokenize(text: str) -> list[str]:
    """Cut ``text`` into model-like tokens; joined, they give ``text`` back exactly."""
    tokens: list[str] = []
    for piece in _PIECE.findall(text):
        if len(piece) <= 2 * _SUBWORD:
            tokens.append(piece)
        else:
            tokens.extend(piece[i : i + _SUBWORD] for i in range(0, len(piece), _SUBWORD))
    if "".join(tokens) != text:
        raise AssertionError("tokenize() lost or changed characters")
    return tokens


def page_exists(path: str) -> bool:
    return path in PAGES


@dataclass(frozen=True, slots=True)
class Stream:
    """Raw timings of one streamed render, in seconds."""

    feed_seconds: list[float]
    finish_seconds: float
    html: str
    largest_tail: int


def stream(tokens: list[str], coalesce: int, rate: float, realtime: bool) -> Stream:
    """Feed ``tokens`` to a fresh renderer, ``coalesce`` at a time, timing each call."""
    renderer = StreamingRenderer(site_origin=SITE_ORIGIN, page_exists=page_exists)
    feed_seconds: list[float] = []
    parts: list[str] = []
    largest_tail = 0
    started = time.perf_counter()
    for first in range(0, len(tokens), coalesce):
        delta = "".join(tokens[first : first + coalesce])
        if realtime:  # wait for the last token of this call to "arrive"
            arrival = started + (first + coalesce) / rate
            time.sleep(max(0.0, arrival - time.perf_counter()))
        before = time.perf_counter()
        update = renderer.feed(delta)
        feed_seconds.append(time.perf_counter() - before)
        parts.append(update.stable_html)
        largest_tail = max(largest_tail, len(update.tail_html))
    before = time.perf_counter()
    final = renderer.finish()
    finish_seconds = time.perf_counter() - before
    parts += (final.stable_html, final.tail_html)
    return Stream(feed_seconds, finish_seconds, "".join(parts), largest_tail)


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile: a value that was actually measured."""
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def runtime_name() -> str:
    python = platform.python_version()
    if sys.platform == "emscripten":
        import pyodide  # type: ignore[import-not-found]  # only exists inside Pyodide

        return f"Pyodide {pyodide.__version__} (Python {python}) under Node.js"
    return f"{platform.python_implementation()} {python}"


def measure(answer: Path, coalesce: int, rate: float, realtime: bool) -> dict[str, Any]:
    """Stream ``answer`` once and return the figures (milliseconds unless named otherwise)."""
    text = answer.read_text(encoding="utf-8")
    tokens = tokenize(text)
    run = stream(tokens, coalesce, rate, realtime)
    before = time.perf_counter()
    whole = render_answer(text, site_origin=SITE_ORIGIN, page_exists=page_exists)
    whole_seconds = time.perf_counter() - before

    ms = [s * 1000 for s in run.feed_seconds]
    ordered = sorted(ms)
    window = max(1, min(len(ms) // 2, WINDOW_TOKENS // coalesce))
    first, last = sum(ms[:window]) / window, sum(ms[-window:]) / window
    total_ms = sum(ms) + run.finish_seconds * 1000
    stream_seconds = len(tokens) / rate
    return {
        "answer": answer.name,
        "runtime": runtime_name(),
        "chars": len(text),
        "tokens": len(tokens),
        "rate_tokens_per_s": rate,
        "stream_s": round(stream_seconds, 2),
        "coalesce": coalesce,
        "feed_calls": len(ms),
        "per_call_ms": {
            "p50": round(percentile(ordered, 50), 4),
            "p95": round(percentile(ordered, 95), 4),
            "p99": round(percentile(ordered, 99), 4),
            "max": round(ordered[-1], 4),
            "mean": round(sum(ms) / len(ms), 4),
        },
        "finish_ms": round(run.finish_seconds * 1000, 4),
        "total_render_ms": round(total_ms, 2),
        "fraction_of_stream": round(total_ms / 1000 / stream_seconds, 5),
        "window_calls": window,
        "first_window_mean_ms": round(first, 4),
        "last_window_mean_ms": round(last, 4),
        "last_over_first": round(last / first, 3),
        "largest_tail_html_chars": run.largest_tail,
        "render_answer_whole_ms": round(whole_seconds * 1000, 2),
        "equal_to_render_answer": run.html == whole,
        # The reference-definition exception does not apply: the answer defines none.
        "first_difference_at": _first_difference(run.html, whole),
    }


def _first_difference(a: str, b: str) -> int | None:
    """Index of the first character where ``a`` and ``b`` differ; None when equal."""
    if a == b:
        return None
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))


def report(f: dict[str, Any]) -> str:
    call = f["per_call_ms"]
    per_token = "1 token each" if f["coalesce"] == 1 else f"{f['coalesce']} tokens each"
    window = f"{WINDOW_TOKENS} tok"
    calls = f"{f['window_calls']} call" + "s" * (f["window_calls"] != 1)
    equal = "yes" if f["equal_to_render_answer"] else f"no, from char {f['first_difference_at']}"
    return "\n".join(
        [
            f"{f['answer']}: {f['chars']:,} chars, {f['tokens']:,} tokens streamed at "
            f"{f['rate_tokens_per_s']:g} tokens/s ({f['stream_s']:.1f} s)",
            f"runtime        {f['runtime']}",
            f"feed() calls   {f['feed_calls']:,} ({per_token})",
            f"per call       p50 {call['p50']:.2f} ms  p95 {call['p95']:.2f} ms  "
            f"p99 {call['p99']:.2f} ms  max {call['max']:.2f} ms",
            f"finish()       {f['finish_ms']:.2f} ms",
            f"total render   {f['total_render_ms']:,.0f} ms = {f['fraction_of_stream']:.1%} "
            f"of the {f['stream_s']:.1f} s stream",
            f"first {window}  mean {f['first_window_mean_ms']:.2f} ms per call ({calls})",
            f"last {window}   mean {f['last_window_mean_ms']:.2f} ms per call ({calls}), "
            f"{f['last_over_first']:.2f}x the first",
            f"largest tail   {f['largest_tail_html_chars']:,} chars of HTML",
            f"whole answer   rendered at once by render_answer() in "
            f"{f['render_answer_whole_ms']:.1f} ms",
            f"stream == render_answer(whole): {equal}",
        ]
    )


# Runs this file inside Pyodide. Files are copied into Pyodide's in-memory file
# system rather than mounted, so nothing (not even a .pyc) is written to the host.
NODE_DRIVER = r"""
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const config = JSON.parse(process.argv[2]);
const { loadPyodide } = await import(config.pyodide);
const py = await loadPyodide();

function copy(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.name === "__pycache__") continue;
    if (entry.isDirectory()) copy(join(from, entry.name), `${to}/${entry.name}`);
    else if (entry.isFile()) copyFile(join(from, entry.name), `${to}/${entry.name}`);
  }
}
function copyFile(from, to) {
  py.FS.mkdirTree(dirname(to));
  py.FS.writeFile(to, readFileSync(from));
}
for (const [from, to] of config.trees) copy(from, to);
for (const [from, to] of config.files) copyFile(from, to);

py.globals.set("bench_config", py.toPy(config));
try {
  const status = await py.runPythonAsync(`
import runpy, sys
sys.dont_write_bytecode = True
sys.path.insert(0, bench_config["site"])
bench = runpy.run_path(bench_config["script"], run_name="render_bench")
bench["main"](list(bench_config["argv"]))
`);
  process.exitCode = status;
} catch (error) {
  console.error(error.message);
  process.exitCode = 1;
}
"""


def run_in_pyodide(answer: Path, argv: list[str]) -> int:
    """Run this file with ``argv`` in Pyodide under Node.js; its report goes to our stdout."""
    node = shutil.which("node")
    if node is None or not (PYODIDE / "pyodide.mjs").exists():
        print(f"--pyodide needs node on PATH and {PYODIDE} (run: cd {ROOT} && npm ci)")
        return 1
    trees = [[str(ROOT / "docs_panel"), "/repo/docs_panel"]]
    for name in PURE_PYTHON_DEPS:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            print(f"--pyodide needs {name} installed here (pip install -e '.[dev]')")
            return 1
        trees.append([spec.submodule_search_locations[0], f"/site/{name}"])
    config = {
        "pyodide": (PYODIDE / "pyodide.mjs").as_uri(),
        "site": "/site",
        "script": "/repo/bench/render_bench.py",
        "trees": trees,
        "files": [
            [str(Path(__file__).resolve()), "/repo/bench/render_bench.py"],
            [str(answer.resolve()), f"/answer/{answer.name}"],
        ],
        "argv": [*argv, "--answer", f"/answer/{answer.name}"],
    }
    with tempfile.TemporaryDirectory() as scratch:
        driver = Path(scratch) / "render_bench_driver.mjs"
        driver.write_text(NODE_DRIVER, encoding="utf-8")
        return subprocess.run([node, str(driver), json.dumps(config)], check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--answer", type=Path, default=ANSWER, help="Markdown answer to stream")
    parser.add_argument("--coalesce", type=int, default=1, help="tokens per feed() call")
    parser.add_argument("--rate", type=float, default=100.0, help="stream rate, tokens/s")
    parser.add_argument("--realtime", action="store_true", help="sleep to the cadence for real")
    parser.add_argument("--pyodide", action="store_true", help="run in Pyodide under Node.js")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.coalesce < 1 or args.rate <= 0:
        parser.error("--coalesce must be at least 1 and --rate positive")

    if args.pyodide:
        forwarded = ["--coalesce", str(args.coalesce), "--rate", repr(args.rate)]
        forwarded += ["--realtime"] * args.realtime + ["--json"] * args.json
        return run_in_pyodide(args.answer, forwarded)

    figures = measure(args.answer, args.coalesce, args.rate, args.realtime)
    print(json.dumps(figures, indent=2) if args.json else report(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
