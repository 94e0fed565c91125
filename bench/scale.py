"""Build time by site size, beside Pagefind's indexing time on the same folders.

    apt-get install python-pandas-doc      # a Sphinx + pydata-theme site of 4,123 pages
    npm install --no-save --prefix .pagefind pagefind@1.6.0
    python3 bench/run.py --scale                       # 50, 500, 4,000 and all pages
    python3 bench/scale.py --sizes 50 500 --pagefind .pagefind/node_modules/.bin/pagefind

Each site is N pages spread evenly over ``--source``'s sorted pages, copied to a
scratch folder. Per site, in one run: a full build with an empty page cache
(the runtime bundle comes from its own cache: it is site-independent), a
rebuild after one page's text changed (the page cache warm), a full build with
no page cache at all, and Pagefind's ``--site`` indexing. ``--copies K`` adds a
site of K copies of the whole source under ``copy-1/`` … ``copy-K/``, each
page's text marked with its copy's number so no section is dropped as a
duplicate of another copy's (a synthetic 20,000-page site from 5 copies).

Figures go to ``bench/out/scale.json``; nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.hosts import PANDAS_DOCS  # noqa: E402
from docs_panel.build.cli import build  # noqa: E402
from docs_panel.build.runtime.runtime_cache import cached_runtime  # noqa: E402
from docs_panel.build.site.page_reading import workers  # noqa: E402

PAGEFIND = ROOT / ".pagefind" / "node_modules" / ".bin" / "pagefind"
OUT = ROOT / "bench" / "out" / "scale.json"
_PARAGRAPH = re.compile(r"<p>")


def pages_of(source: Path) -> list[Path]:
    return sorted(
        path.relative_to(source)
        for path in source.rglob("*.html")
        if not any(part.startswith(("_", ".")) for part in path.relative_to(source).parts[:-1])
    )


def spread(pages: list[Path], size: int) -> list[Path]:
    """``size`` of ``pages`` spread evenly over the sorted list, so a small site holds
    the same mix of guides, references and redirects as the whole."""
    step = len(pages) / size
    return [pages[int(at * step)] for at in range(size)]


def make_site(source: Path, pages: list[Path], dest: Path, copies: int = 0) -> None:
    """``pages`` of ``source`` under ``dest``; ``copies`` > 0: that many marked copies."""
    for copy in range(1, copies + 1) if copies else [0]:
        for page in pages:
            target = dest / (f"copy-{copy}" if copy else "") / page
            target.parent.mkdir(parents=True, exist_ok=True)
            if copy:
                html = (source / page).read_text("utf-8")
                target.write_text(_PARAGRAPH.sub(f"<p>copy{copy} ", html), "utf-8")
            else:
                shutil.copyfile(source / page, target)


def touch_one(site: Path) -> None:
    """Change one page's text, as an edit would."""
    page = sorted(site.rglob("*.html"))[len(list(site.rglob("*.html"))) // 2]
    html = page.read_text("utf-8")
    page.write_text(html.replace("<p>", "<p>Edited for the bench. ", 1), "utf-8")


def timed_build(site: Path, cache: Path | None) -> tuple[float, Any]:
    started = time.perf_counter()
    report = build(site, out=site.parent / "panel", page_cache=cache)
    return time.perf_counter() - started, report


def pagefind_seconds(binary: Path, site: Path) -> float:
    out = site.parent / "pagefind"
    started = time.perf_counter()
    subprocess.run(
        [str(binary), "--site", str(site), "--output-path", str(out)],
        check=True,
        capture_output=True,
    )
    seconds = time.perf_counter() - started
    shutil.rmtree(out)
    return seconds


def measure(name: str, site: Path, binary: Path | None) -> dict[str, Any]:
    cache = site.parent / "pages.sqlite3"
    full, report = timed_build(site, cache)
    touch_one(site)
    rebuild, _ = timed_build(site, cache)
    uncached, _ = timed_build(site, None)
    row = {
        "site": name,
        "pages": report.pages,
        "sections": report.sections,
        "full_s": full,
        "rebuild_one_page_s": rebuild,
        "full_no_cache_s": uncached,
        "pagefind_s": pagefind_seconds(binary, site) if binary else None,
    }
    print(format_row(row), flush=True)
    return row


def format_row(row: dict[str, Any]) -> str:
    pagefind = row["pagefind_s"]
    versus = f"{pagefind:9.1f} {row['full_s'] / pagefind:6.1f}x" if pagefind else f"{'-':>17}"
    return (
        f"{row['site']:<10}{row['pages']:>7}{row['sections']:>9}{row['full_s']:9.1f}"
        f"{row['rebuild_one_page_s']:10.1f}{row['full_no_cache_s']:10.1f}{versus}"
    )


HEAD = (
    f"{'site':<10}{'pages':>7}{'sections':>9}{'full s':>9}{'rebuild s':>10}"
    f"{'no cache':>10}{'pagefind s':>10}{'ratio':>7}"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=PANDAS_DOCS, help="a folder of built HTML")
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 500, 4000, 0])
    parser.add_argument("--copies", type=int, default=0, help="also a site of K marked copies")
    parser.add_argument("--pagefind", type=Path, default=PAGEFIND if PAGEFIND.exists() else None)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if not args.source.is_dir():
        parser.error(f"--source {args.source}: apt-get install python-pandas-doc, or name a site")
    every = pages_of(args.source)
    rows = []
    print(f"{workers()} cores; pagefind: {args.pagefind or 'not installed'}\n{HEAD}", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        cached_runtime()  # built once before the clock starts: it is site-independent
        sites = [(size or len(every), 0) for size in args.sizes]
        sites += [(len(every), args.copies)] if args.copies else []
        for size, copies in sites:
            folder = Path(scratch) / f"{size}-{copies}"
            site = folder / "site"
            make_site(args.source, spread(every, size), site, copies)
            name = f"{size}x{copies}" if copies else str(size)
            rows.append(measure(name, site, args.pagefind))
            shutil.rmtree(folder)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"cores": workers(), "source": str(args.source)}
    args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
