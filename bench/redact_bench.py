"""Redaction: recall on gitleaks' shapes, what it changes in clean text, and its cost.

    python bench/redact_bench.py            # the report
    python bench/redact_bench.py --misses   # also every sample left (partly) unmasked
    python bench/redact_bench.py --json     # the figures as one JSON object
    python bench/redact_bench.py --corpus heldout --kinds azure,sgp  # another corpus, per kind

Recall: every sample of ``tests/fixtures/redact/gitleaks_corpus.json`` (built
from gitleaks' rules and detect-secrets' plugin tests, see
``make_gitleaks_corpus.py`` there) is put in each of the corpus's contexts —
labelled (``token=<X>``), in an ``Authorization: Bearer`` header, and, for
the samples of self-identifying shapes only, bare (the whole question) and in
prose — and counts as masked
when the output is the context with the whole sample replaced by one mask.
The lowest per-rule figure is reported with the overall one; ``--kinds``
adds each context's figure for the rules whose name holds one of the given
words. ``--corpus heldout`` reads ``gitleaks_heldout.json``, the set kept
apart from tuning (see ``make_gitleaks_corpus.py``).

False positives: the inputs of ``clean.txt`` must come back unchanged; the
report counts the cases and the characters that changed.

Cost: 4 KB questions cut from the fixture inputs (prose, code, configs,
secrets), each redacted ``--repeat`` times; p50/p95/max per call, as wall
time (``time.perf_counter``) and as this thread's CPU time
(``time.thread_time``), which other jobs on a shared machine blur less. And
the 100 KB inputs of ``adversarial.json``, built to make a pattern
backtrack: a linear redactor takes tens of milliseconds on each, a
backtracking one seconds or minutes. Timings are noisy: run it a few times
and take the medians. Example (figures vary by machine)::

    corpus         1161 samples from 229 rules
    labelled       99.7% masked (1158/1161), 2 of 229 rules below 95%; lowest: ...
    header         99.8% masked (1159/1161), 1 of 229 rules below 95%; lowest: ...
    bare           100.0% masked (703/703), 0 of 123 rules below 95%; lowest: ...
    prose          100.0% masked (703/703), 0 of 123 rules below 95%; lowest: ...
    clean.txt      0 of 133 cases changed, 0 characters
    runtime        CPython 3.11.7
    4 KB, wall    p50 1.422 ms  p95 1.678 ms  max 4.818 ms (140 calls over 7 questions)
    4 KB, cpu     p50 1.421 ms  p95 1.643 ms  max 1.802 ms (140 calls over 7 questions)
    adversarial    29 inputs of 100,000 chars: median 17.7 ms, slowest 123.4 ms (...)

(on a loaded machine the wall figures grow with other jobs; CPU time does not.)
Nothing here asserts: numbers are reported, not tested.
"""

from __future__ import annotations

import argparse
import difflib
import json
import platform
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.render_bench import percentile  # noqa: E402
from docs_panel.core.redact import redact_text  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "redact"
QUESTION_SIZE = 4096
MASK = r"\[redacted: [^\[\]\n]+\]"
SELF_IDENTIFYING_ONLY = frozenset(("bare", "prose"))  # contexts without a label


def fixture_inputs(name: str, sections: int) -> list[str]:
    """Inputs of a markdown-it-style fixture file (title, ".", input, "." [, expected, "."])."""
    lines = (FIXTURES / name).read_text(encoding="utf-8").split("\n")
    inputs, i = [], 0
    while i < len(lines) - 1:
        if lines[i] != "." and lines[i + 1] == ".":
            end = lines.index(".", i + 2)
            inputs.append("\n".join(lines[i + 2 : end]))
            i = end
            for _ in range(sections - 1):
                i = lines.index(".", i + 1)
        i += 1
    return inputs


def is_masked(context: str, secret: str) -> bool:
    """The context came through with the whole secret replaced by one mask."""
    before, after = context.split("{}")
    wanted = re.escape(before) + MASK + re.escape(after)
    return re.fullmatch(wanted, redact_text(context.format(secret))) is not None


def recall(corpus: dict[str, Any]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for name, context in corpus["contexts"].items():
        per_rule: dict[str, list[bool]] = defaultdict(list)
        misses = []
        for sample in corpus["samples"]:
            if name in SELF_IDENTIFYING_ONLY and not sample["bare"]:
                continue
            ok = is_masked(context, sample["secret"])
            per_rule[sample["source"]].append(ok)
            if not ok:
                misses.append((sample["source"], sample["secret"]))
        results = [ok for oks in per_rule.values() for ok in oks]
        rates = {rule: sum(oks) / len(oks) for rule, oks in per_rule.items()}
        lowest = sorted(rates.items(), key=lambda item: item[1])[:5]
        figures[name] = {
            "rates": rates,
            "masked": sum(results),
            "samples": len(results),
            "rules": len(per_rule),
            "rules_below_95": sum(rate < 0.95 for rate in rates.values()),
            "lowest": lowest,
            "misses": misses,
        }
    return figures


def false_positives() -> dict[str, Any]:
    inputs = fixture_inputs("clean.txt", 1)
    changed = [(text, redact_text(text)) for text in inputs]
    changed = [(a, b) for a, b in changed if a != b]
    chars = sum(
        sum(size for tag, _, size, *_ in _opcodes(a, b) if tag != "equal") for a, b in changed
    )
    return {"cases": len(inputs), "changed": len(changed), "changed_chars": chars}


def _opcodes(a: str, b: str) -> list[tuple[str, int, int, int, int]]:
    """(tag, i1, i2, j1, j2) with the size of the changed input first: i2 - i1."""
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return [(tag, max(i2 - i1, j2 - j1), i1, j1, j2) for tag, i1, i2, j1, j2 in ops]


def questions() -> list[str]:
    """4 KB questions: the fixture inputs one after another, cut every 4,096 characters."""
    text = "\n\n".join(fixture_inputs("secrets.txt", 2) + fixture_inputs("clean.txt", 1))
    return [text[i : i + QUESTION_SIZE] for i in range(0, len(text) - QUESTION_SIZE, QUESTION_SIZE)]


def cost(repeat: int) -> dict[str, Any]:
    """Wall time per call, and this thread's CPU time (what other jobs on the machine blur less)."""
    texts = questions()
    wall, cpu = [], []
    for _ in range(repeat):
        for text in texts:
            started, started_cpu = time.perf_counter(), time.thread_time()
            redact_text(text)
            wall.append((time.perf_counter() - started) * 1000)
            cpu.append((time.thread_time() - started_cpu) * 1000)
    figures: dict[str, Any] = {"questions": len(texts), "calls": len(wall)}
    for name, times in (("wall", sorted(wall)), ("cpu", sorted(cpu))):
        figures[name] = {
            "p50_ms": round(percentile(times, 50), 3),
            "p95_ms": round(percentile(times, 95), 3),
            "max_ms": round(times[-1], 3),
        }
    return figures


def adversarial(repeat: int) -> dict[str, Any]:
    """Each 100 KB input of ``adversarial.json`` redacted ``repeat`` times: the best time each."""
    spec = json.loads((FIXTURES / "adversarial.json").read_text(encoding="utf-8"))
    times = {}
    for name, (head, piece, *_) in {**spec["unchanged"], **spec["masked"]}.items():
        text = head + piece * ((spec["size"] - len(head)) // len(piece))
        best = float("inf")
        for _ in range(repeat):
            started = time.perf_counter()
            redact_text(text)
            best = min(best, (time.perf_counter() - started) * 1000)
        times[name] = round(best, 1)
    slowest = max(times, key=times.__getitem__)
    return {
        "inputs": len(times),
        "size": spec["size"],
        "median_ms": round(sorted(times.values())[len(times) // 2], 1),
        "slowest": slowest,
        "slowest_ms": times[slowest],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="list every sample not masked")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--repeat", type=int, default=20, help="passes over the 4 KB questions")
    parser.add_argument("--corpus", default="corpus", help="gitleaks_<CORPUS>.json: heldout")
    parser.add_argument("--kinds", default="", help="comma-separated words: per-rule figures")
    args = parser.parse_args()
    path = FIXTURES / f"gitleaks_{args.corpus}.json"
    corpus = json.loads(path.read_text(encoding="utf-8"))
    figures = {
        "runtime": f"{platform.python_implementation()} {platform.python_version()}",
        "recall": recall(corpus),
        "clean": false_positives(),
        "cost_4kb": cost(args.repeat),
        "adversarial": adversarial(3),
    }
    if args.json:
        for context in figures["recall"].values():
            del context["misses"], context["rates"]
        print(json.dumps(figures, indent=1))
        return
    rules = {sample["source"] for sample in corpus["samples"]}
    print(f"corpus         {len(corpus['samples'])} samples from {len(rules)} rules")
    print(f"               {corpus['provenance']}")
    for name, r in figures["recall"].items():
        lowest = ", ".join(f"{rule} {rate:.0%}" for rule, rate in r["lowest"][:3])
        print(
            f"{name:<14} {r['masked'] / r['samples']:.1%} masked ({r['masked']}/{r['samples']}), "
            f"{r['rules_below_95']} of {r['rules']} rules below 95%; lowest: {lowest}"
        )
        if args.misses:
            for source, secret in r["misses"]:
                print(f"    miss {source}: {secret!r}")
    for word in filter(None, args.kinds.split(",")):
        for rule in sorted({s["source"] for s in corpus["samples"] if word in s["source"]}):
            cells = [
                f"{name} {r['rates'][rule]:.0%}"
                for name, r in figures["recall"].items()
                if rule in r["rates"]
            ]
            print(f"  {rule:<48} " + "  ".join(cells))
    clean = figures["clean"]
    print(
        f"clean.txt      {clean['changed']} of {clean['cases']} cases changed, "
        f"{clean['changed_chars']} characters"
    )
    c = figures["cost_4kb"]
    print(f"runtime        {figures['runtime']}")
    for name in ("wall", "cpu"):
        t = c[name]
        print(
            f"4 KB, {name:<7} p50 {t['p50_ms']} ms  p95 {t['p95_ms']} ms  max {t['max_ms']} ms "
            f"({c['calls']} calls over {c['questions']} questions)"
        )
    a = figures["adversarial"]
    print(
        f"adversarial    {a['inputs']} inputs of {a['size']:,} chars: median {a['median_ms']} ms, "
        f"slowest {a['slowest_ms']} ms ({a['slowest']}); best of 3 each"
    )


if __name__ == "__main__":
    main()
