"""What one question costs the worker, by site size: bytes read and CPU per phase.

    python3 bench/question_cost.py                       # demo, pydocs and pandas
    python3 bench/question_cost.py --sites demo pandas

Each site is built as the load bench builds it (``bench.hosts.build_site``); then
the worker's own steps run in CPython on the built files, as ``worker/tab.py``
runs them: the index head read and parsed (``load_index``), then
``plan_answer`` asked again and again, each time adding the parts it names
(term postings first, then the texts of the sections found), until it plans.
Per site: the head's bytes (raw and as the ``.zst`` the browser fetches) and
parse time, the parts fetched (count, bytes), the time spent adding them, the
time in ``plan_answer`` (ranking), and all a question fetches on the wire (head
and parts: the figure to compare across site sizes). CPython runs this several
times faster than Pyodide; the shares, not the milliseconds, carry over. Nothing
asserts.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.hosts import FOLDERS, QUESTIONS, build_site  # noqa: E402
from docs_panel.build.cli import PANEL_FOLDER  # noqa: E402
from docs_panel.build.runtime.twins import zstd  # noqa: E402
from docs_panel.core.answers import NeedParts, plan_answer  # noqa: E402
from docs_panel.core.config import parse_config  # noqa: E402
from docs_panel.core.docs_index import load_index  # noqa: E402


def compressed_size(path: Path) -> int:
    for suffix in (".zst", ".gz"):
        twin = path.with_name(path.name + suffix)
        if twin.is_file():
            return twin.stat().st_size
    return path.stat().st_size


def raw_bytes(path: Path) -> bytes:
    """A file's bytes; a part shipped only as its ``.zst`` twin, decompressed."""
    if path.is_file():
        return path.read_bytes()
    return zstd.decompress(path.with_name(path.name + ".zst").read_bytes())


def question_cost(panel: Path, question: str) -> dict[str, Any]:
    head = next(p for p in panel.glob("index.*.json") if p.name.count(".") == 2)
    started = time.perf_counter()
    index = load_index(json.loads(head.read_bytes()))
    figures: dict[str, Any] = {
        "head_kib": head.stat().st_size / 1024,
        "head_wire_kib": compressed_size(head) / 1024,
        "head_parse_ms": (time.perf_counter() - started) * 1000,
        "rounds": 0,
        "parts": 0,
        "parts_kib": 0.0,
        "parts_wire_kib": 0.0,
        "parts_add_ms": 0.0,
        "plan_ms": 0.0,
    }
    config = parse_config({}).config
    while True:
        started = time.perf_counter()
        plan = plan_answer(index, config, question, scope_id=None)
        figures["plan_ms"] += (time.perf_counter() - started) * 1000
        if not isinstance(plan, NeedParts):
            break
        figures["rounds"] += 1
        for key in plan.keys:
            path = panel / index.part_file(key)
            figures["parts"] += 1
            data = raw_bytes(path)
            figures["parts_kib"] += len(data) / 1024
            figures["parts_wire_kib"] += compressed_size(path) / 1024
            started = time.perf_counter()
            index.add_part(key, json.loads(data))
            figures["parts_add_ms"] += (time.perf_counter() - started) * 1000
    figures["wire_kib"] = figures["head_wire_kib"] + figures["parts_wire_kib"]
    figures["hits"] = [hit.section.address for hit in plan.hits][:3]
    return figures


COLUMNS = (
    ("head_kib", "head KiB", "{:.0f}"),
    ("head_wire_kib", "head wire", "{:.0f}"),
    ("head_parse_ms", "head parse ms", "{:.0f}"),
    ("parts", "parts", "{}"),
    ("parts_wire_kib", "parts wire KiB", "{:.0f}"),
    ("parts_add_ms", "parts add ms", "{:.0f}"),
    ("plan_ms", "ranking ms", "{:.0f}"),
    ("wire_kib", "question wire", "{:.0f}"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", nargs="+", default=["demo", *FOLDERS])
    args = parser.parse_args()
    print(f"{'site':<8}{'pages':>7}" + "".join(f"{title:>15}" for _, title, _ in COLUMNS))
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.sites:
            site = build_site(name, Path(tmp))
            figures = question_cost(site.root / PANEL_FOLDER, QUESTIONS[name])
            cells = "".join(f"{fmt.format(figures[key]):>15}" for key, _, fmt in COLUMNS)
            print(f"{name:<8}{site.pages:>7}{cells}   top: {figures['hits'][0]}", flush=True)


if __name__ == "__main__":
    main()
