"""Load benchmark: how long a reader waits, and what it costs the page.

    python3 bench/run.py                                  # the whole matrix, 3 runs (~25 min)
    python3 bench/run.py --sites demo --networks loopback --hosts gzip --runs 5
    python3 bench/run.py --out bench/out/before.json      # keep a "before"
    python3 bench/run.py --compare bench/out/before.json  # before → after, side by side
    python3 bench/run.py --hover-ms 300                   # rest on the launcher first (intent)
    python3 bench/run.py --preload idle                   # the runtimes load once the page is idle
    python3 bench/run.py --browsers chromium,firefox,webkit  # across engines (bench/engines.py)
    python3 bench/run.py --sites demo pandas --runs 1     # the 4,100-page pandas docs too
    python3 bench/run.py --scale                          # build time by site size (bench/scale.py)

For each site (the demo; the whole Python docs), host (one that gzips, one that
sends files as they are), network (loopback; Chrome's "Fast 4G") and visit
(cold: a fresh browser profile; warm: a new tab of the same profile, so the
HTTP cache is warm and nothing is restored), a reader loads the page, clicks
the launcher, asks at once and reads the answer from the demo endpoint. Each
run visits every site in turn (A B A B …), so the machine's load falls on all
of them alike. The
table gives the median (min-max) over the runs of: click → usable composer,
click → first answer text, bytes on the wire for the whole visit (the
worker's requests included), the longest main-thread task and the total
blocking time from page load to the end of the answer. Then the boot
breakdown of the median cold and warm runs on each network (``bench.breakdown``), the
sizes, and history-write p50/p95 beside a plain-JS baseline.

Everything is written to ``bench/out/latest.json`` (or ``--out``). Nothing
here asserts: figures are reported, not tested. Other work on the machine makes
them noisy; the min-max columns show how much.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Browser, sync_playwright  # noqa: E402

from bench.breakdown import format_phases, phases  # noqa: E402
from bench.history_write import history_write_figures  # noqa: E402
from bench.hosts import FOLDERS, Host, Site, build_site  # noqa: E402
from bench.visit import NETWORKS, PRELOAD, PROBE, visit  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

OUT = ROOT / "bench" / "out"
HOSTS = {"gzip": True, "plain": False}
# (JSON key, column title, format of one value)
COLUMNS = (
    ("composer_s", "composer s", "{:.2f}"),
    ("answer_s", "1st answer s", "{:.2f}"),
    ("wire_kib", "wire KiB", "{:.0f}"),
    ("longest_task_ms", "longest ms", "{:.0f}"),
    ("tbt_ms", "TBT ms", "{:.0f}"),
)


def summary(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def run_matrix(
    browser: Browser, sites: list[Site], args: argparse.Namespace
) -> list[dict[str, Any]]:
    """Every site, host and network, ``args.runs`` cold + warm visits each. Each run
    visits every site in turn, so what other work loads the machine falls on all
    the sites alike and their figures compare side by side."""
    cells = [
        (site, host_name, network_name)
        for site in sites
        for host_name in args.hosts
        for network_name in args.networks
    ]
    runs: dict[tuple[str, str, str], dict[str, list[dict[str, Any]]]] = {
        (site.name, host, network): {"cold": [], "warm": []} for site, host, network in cells
    }
    with ExitStack() as stack:
        hosts = {
            (site.name, name): stack.enter_context(Host(site, compress=HOSTS[name]))
            for site in sites
            for name in args.hosts
        }
        for number in range(args.runs):
            for site, host_name, network_name in cells:
                context = browser.new_context()
                context.add_init_script(PROBE)
                if args.preload:
                    context.add_init_script(f"({PRELOAD})({json.dumps(args.preload)})")
                visits = runs[(site.name, host_name, network_name)]
                for done in visits.values():  # cold first: a fresh profile; then a new tab
                    host = hosts[(site.name, host_name)]
                    network = NETWORKS[network_name]
                    done.append(visit(context, host, network, site.question, args.hover_ms))
                context.close()
            print(f"run {number + 1} of {args.runs} done", flush=True)
    rows = []
    for (site_name, host_name, network_name), visits_by_kind in runs.items():
        for kind, visits in visits_by_kind.items():
            row = {"site": site_name, "host": host_name, "network": network_name}
            row |= {"visit": kind, "runs": visits}
            row["figures"] = {
                key: summary([v["figures"][key] for v in visits]) for key in visits[0]["figures"]
            }
            rows.append(row)
            print(format_row(row, None), flush=True)
    return rows


def _key(row: dict[str, Any]) -> tuple[str, str, str, str]:
    return (row["site"], row["host"], row["network"], row["visit"])


def format_row(row: dict[str, Any], before: dict[str, Any] | None) -> str:
    cells = [f"{row['site']:<7}{row['host']:<6}{row['network']:<9}{row['visit']:<5}"]
    for key, _, fmt in COLUMNS:
        now = row["figures"][key]
        cell = (fmt + " ({}-{})").format(
            now["median"], fmt.format(now["min"]), fmt.format(now["max"])
        )
        if before is not None:
            cell = fmt.format(before["figures"][key]["median"]) + " → " + fmt.format(now["median"])
        cells.append(f"{cell:>22}")
    return " ".join(cells)


def table(rows: list[dict[str, Any]], before: list[dict[str, Any]] | None) -> str:
    old = {_key(r): r for r in before or []}
    head = f"{'site   host  network  visit':<27}" + "".join(
        f" {title:>22}" for _, title, _ in COLUMNS
    )
    note = "medians (min-max)" if before is None else "before → after (medians)"
    lines = [f"{head}   {note}"]
    lines += [format_row(r, old.get(_key(r)) if before is not None else None) for r in rows]
    return "\n".join(lines)


def median_run(row: dict[str, Any]) -> dict[str, Any]:
    ordered = sorted(row["runs"], key=lambda v: v["figures"]["answer_s"])
    return ordered[len(ordered) // 2]


def bundle_sizes(site: Site) -> dict[str, float]:
    """Each file once: a compressed twin counts only where it ships alone (the wasm)."""
    panel = site.root / "docs-panel"
    every = [p for p in panel.rglob("*") if p.is_file()]
    files = [p for p in every if p.suffix not in (".gz", ".zst") or not p.with_suffix("").exists()]
    index = [p for p in files if p.name.startswith("index.")]
    return {
        "bundle_mib": sum(p.stat().st_size for p in files) / 2**20,
        "index_kib": sum(p.stat().st_size for p in index) / 1024,
        "embed_js_gzip_kib": len(gzip.compress((panel / "embed.js").read_bytes(), 9)) / 1024,
    }


def main() -> None:
    if "--scale" in sys.argv[1:]:  # build time by site size: its own run
        from bench.scale import main as by_size

        sys.argv.remove("--scale")
        by_size()
        return
    if any(arg.startswith("--browsers") for arg in sys.argv[1:]):  # across engines: its own run
        from bench.engines import main as across_engines

        across_engines()
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--sites", nargs="+", default=["demo", "pydocs"], choices=["demo", *FOLDERS]
    )
    parser.add_argument("--hosts", nargs="+", default=list(HOSTS), choices=list(HOSTS))
    parser.add_argument("--networks", nargs="+", default=list(NETWORKS), choices=list(NETWORKS))
    parser.add_argument("--hover-ms", type=int, default=0, help="rest on the launcher first")
    parser.add_argument(
        "--preload", choices=["intent", "idle", "none"], help="override the sites' preload key"
    )
    parser.add_argument("--no-history", action="store_true", help="skip the history-write figures")
    parser.add_argument("--out", type=Path, default=OUT / "latest.json")
    parser.add_argument("--compare", type=Path, help="a JSON file of an earlier run")
    args = parser.parse_args()
    for name in args.sites:
        if name in FOLDERS and not FOLDERS[name].is_dir():
            parser.error(f"--sites {name} needs {FOLDERS[name]} (apt-get install its -doc package)")

    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    result: dict[str, Any] = {
        "meta": {
            "commit": commit,
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "runs": args.runs,
            "hover_ms": args.hover_ms,
            "preload": args.preload,
            "load_average": os.getloadavg(),
        },
        "sites": {},
        "rows": [],
    }
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        sites = []
        for name in args.sites:
            site = build_site(name, Path(tmp))
            result["sites"][name] = {"pages": site.pages, "sections": site.sections}
            result["sites"][name] |= bundle_sizes(site)
            print(f"{name}: {site.pages} pages, {site.sections} sections", flush=True)
            sites.append(site)
        result["rows"] += run_matrix(browser, sites, args)
        for site in sites:
            if site.name == "demo" and not args.no_history:
                with Host(site, compress=True) as host:
                    base = host.url.rsplit("/", 1)[0] + "/"
                    result["history_write"] = history_write_figures(browser, site.root, base, 20)
        browser.close()

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    before = json.loads(args.compare.read_text()) if args.compare else None
    print()
    print(table(result["rows"], before["rows"] if before else None))
    for row in result["rows"]:
        if row["host"] == args.hosts[0]:
            run = median_run(row)
            title = f"\nboot breakdown: {row['site']}, {row['network']}, {row['host']} host"
            title += f", {row['visit']}"
            print(format_phases(title, phases(run["timeline"], run["figures"])))
    for name, sizes in result["sites"].items():
        print(
            f"\n{name}: bundle {sizes['bundle_mib']:.1f} MiB raw, "
            f"index {sizes['index_kib']:.0f} KiB; "
            f"embed.js {sizes['embed_js_gzip_kib']:.2f} KiB gzipped"
        )
    writes = result.get("history_write")
    if writes:
        print(
            f"history write at a full archive ({writes['archive_kib']:.0f} KiB stored): "
            f"p50 {writes['p50']:.0f} ms, p95 {writes['p95']:.0f} ms in the panel; "
            f"plain-JS baseline p50 {writes['js_p50']:.1f} ms, p95 {writes['js_p95']:.1f} ms"
        )
    print(f"\nwritten to {args.out}")


if __name__ == "__main__":
    main()
