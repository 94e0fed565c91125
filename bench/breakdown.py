"""Where the time between the click and the first answer goes.

A visit's timeline (``bench.visit``) lists every request of the page and of the
worker, and the ``docs-panel:*`` marks, in ms after the click. ``phases`` turns
it into steps a reader of the report can act on: each download, the gaps
between them that are pure work (the interpreter starting, the worker's
imports, loading the index and searching), and the answer endpoint. A gap is
named by the requests around it, since the worker only asks for the next file
once the previous step is done (a file fetched ahead into the cache counts from
the worker's own request for it)::

    for phase in phases(timeline, figures):
        print(phase.name, phase.start_ms, phase.end_ms, phase.kib)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Phase:
    name: str
    start_ms: float
    end_ms: float
    kib: float = 0.0


# A download's label, by the file it fetched (first match wins).
DOWNLOADS = (
    ("pyscript", re.compile(r"/runtime/pyscript-[^/]+/")),
    ("micropython", re.compile(r"/runtime/micropython-[^/]+/")),
    ("shell", re.compile(r"/shell\.")),
    ("worker script", re.compile(r"/worker\.[0-9a-f]+\.py")),
    ("loader", re.compile(r"/pyodide-loader\.")),
    ("pyodide.asm.wasm", re.compile(r"pyodide\.asm\.wasm")),
    ("pyodide.asm.js", re.compile(r"pyodide\.asm\.js")),
    ("python_stdlib", re.compile(r"stdlib")),
    ("pyodide.mjs", re.compile(r"pyodide\.mjs")),
    ("worker.zip", re.compile(r"/worker\.[0-9a-f]+\.zip")),
    ("index", re.compile(r"/index\.[0-9a-f]+\.")),
    ("answer endpoint", re.compile(r"/api/chat")),
)
# Work between two steps (a request, or a measure the panel leaves): (name, the
# step it follows, the step it precedes).
GAPS = (
    ("PyScript's worker setup, after Pyodide", "docs-panel:loadPyodide", "docs-panel:imports"),
    ("start: config, index load, first search", "docs-panel:imports", "answer endpoint"),
)

# Marks the panel leaves for every answer update and write: not boot steps.
ANSWER_MARKS = frozenset(("docs-panel:render", "docs-panel:paint", "docs-panel:history-write"))


def _label(url: str) -> str | None:
    return next((label for label, pattern in DOWNLOADS if pattern.search(url)), None)


def phases(timeline: dict[str, Any], figures: dict[str, float]) -> list[Phase]:
    spans: dict[str, Phase] = {}
    asked: dict[str, float] = {}  # the last request for a file: the worker's own, after a prefetch
    for entry in timeline["resources"]:
        label = _label(entry["name"])
        if label is None or entry["start"] < 0:  # before the click: the host page
            continue
        asked[label] = max(asked.get(label, entry["start"]), entry["start"])
        seen = spans.get(label, Phase(label, entry["start"], entry["end"]))
        spans[label] = Phase(
            label,
            min(seen.start_ms, entry["start"]),
            max(seen.end_ms, entry["end"]),
            seen.kib + entry["bytes"] / 1024,
        )
    out = list(spans.values())
    measures = [
        Phase(m["name"], m["start"], m["end"])
        for m in timeline["marks"]
        if m["name"] not in ANSWER_MARKS and m["end"] > m["start"]
    ]
    ends = {p.name: p.end_ms for p in out + measures}
    asked |= {p.name: p.start_ms for p in measures}
    for name, after, before in GAPS:
        if after in ends and before in asked:
            out.append(Phase(name, ends[after], asked[before]))
    out += measures
    out.append(Phase("composer usable", 0, figures["composer_s"] * 1000))
    out.append(Phase("first answer text", 0, figures["answer_s"] * 1000))
    return sorted(out, key=lambda p: (p.end_ms, p.start_ms))


def format_phases(title: str, rows: list[Phase]) -> str:
    lines = [title, f"  {'step':<48} {'start ms':>9} {'end ms':>9} {'took ms':>8} {'KiB':>8}"]
    for p in rows:
        kib = f"{p.kib:8.0f}" if p.kib else " " * 8
        lines.append(
            f"  {p.name:<48} {p.start_ms:9.0f} {p.end_ms:9.0f} {p.end_ms - p.start_ms:8.0f} {kib}"
        )
    return "\n".join(lines)
