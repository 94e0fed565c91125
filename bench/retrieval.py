"""Retrieval quality and cost of the docs index on real docs (DESIGN section 9).

Extracts a built docs site, builds and loads its index, asks the questions of
each question set and reports hit@1 / hit@3 at page level (a hit when a
result's page is one of the question's expected pages), with the time and size
of each step::

    python3 bench/retrieval.py [--docs /usr/share/doc/python3.11/html] [--misses]
        [--questions FILE ...]

Three sets, all written before looking at how the index ranks them; none is
adjusted to fit the ranker:

- ``questions_python_docs.json`` (77): the first set; earlier ranking work was
  tuned on it.
- ``questions_python_docs_dev.json`` (104): more everyday questions, used with
  the first set to choose among ranking changes.
- ``questions_python_docs_heldout.json`` (44): never used for tuning; its
  figures are the honest estimate.

``offtopic`` questions are about things the docs do not cover: the report
shows how many would clear the default ``gate`` of 0.25.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from builder.extract import extract_site
from widget.core.docs_index import DocsIndex, build_index, load_index

QUESTIONS = [
    Path(__file__).with_name(f"questions_python_docs{suffix}.json")
    for suffix in ("", "_dev", "_heldout")
]
GATE = 0.25
T = TypeVar("T")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--docs", type=Path, default=Path("/usr/share/doc/python3.11/html"))
    parser.add_argument("--questions", type=Path, nargs="+", default=QUESTIONS)
    parser.add_argument("--misses", action="store_true", help="list questions missed at 3")
    args = parser.parse_args()

    sections, extract_s = _timed(lambda: extract_site(args.docs))
    payload, build_s = _timed(lambda: build_index(sections))
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    packed = gzip.compress(raw, 9, mtime=0)
    parsed, parse_s = _timed(lambda: json.loads(raw))
    index, load_s = _timed(lambda: load_index(parsed))

    page_count = len({section.page for section in sections})
    print(f"docs: {args.docs} ({page_count} pages, {len(sections)} sections)")
    print(
        f"extract {extract_s:.1f} s · build {build_s:.1f} s · "
        f"json.loads {_ms(parse_s)} · load_index {_ms(load_s)}"
    )
    print(f"index.json {len(raw) / 1e6:.2f} MB raw, {len(packed) / 1e6:.2f} MB gzipped")
    for path in args.questions:
        _report(index, path, misses=args.misses)


def _report(index: DocsIndex, path: Path, *, misses: bool) -> None:
    """hit@1 / hit@3, latency and gate figures for one question set."""
    spec = json.loads(path.read_text(encoding="utf-8"))
    hits1 = hits3 = 0
    latencies: list[float] = []
    top_scores: list[float] = []
    missed: list[str] = []
    for case in spec["questions"]:
        start = time.perf_counter()
        results = index.search(case["q"], limit=8)
        latencies.append(time.perf_counter() - start)
        pages = [hit.section.page for hit in results]
        hits1 += bool(pages[:1]) and pages[0] in case["pages"]
        found = any(page in case["pages"] for page in pages[:3])
        hits3 += found
        top_scores.append(results[0].score if results else 0.0)
        if not found:
            got = ", ".join(f"{hit.section.address} ({hit.score:.2f})" for hit in results[:3])
            missed.append(f"  {case['q']!r}: want {case['pages']}; got {got or 'nothing'}")
    offtopic = [index.search(q, limit=1) for q in spec.get("offtopic", [])]

    count = len(spec["questions"])
    print(
        f"\n{path.name}: hit@1 {hits1 / count:.0%} · hit@3 {hits3 / count:.0%} ({count} questions)"
    )
    print(
        f"search p50 {_ms(statistics.median(latencies))} · "
        f"p95 {_ms(statistics.quantiles(latencies, n=20)[-1])}"
    )
    print(
        f"top score: median {statistics.median(top_scores):.2f}, "
        f"{sum(s >= GATE for s in top_scores)}/{count} clear gate {GATE}; off-topic: "
        f"{sum(bool(r) and r[0].score >= GATE for r in offtopic)}/{len(offtopic)} clear it"
    )
    if misses and missed:
        print("missed at 3:", *missed, sep="\n")


def _timed(work: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    result = work()
    return result, time.perf_counter() - start


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


if __name__ == "__main__":
    main()
