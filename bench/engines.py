"""Load benchmark across engines: Chromium, Firefox ESR and WebKitGTK.

    ./dev bench --browsers chromium,firefox,webkit --runs 5
    ./dev bench --browsers chromium,webkit --baseline main   # A/B: main's build, then this tree's

Each round visits the demo site once per engine (and per build, with ``--baseline``),
interleaved, so that the machine's load falls on every column alike: a cold visit
(a fresh profile) and then a warm one (the same tab, its session storage cleared by
the probe so that nothing is restored: the HTTP cache, and where the engine keeps it, Cache
Storage's warm start; a new tab would do, but WebKit does not animate a tab
WebDriver opens behind another). A visit loads the page,
clicks the launcher through the engine's driver, and the page's probe asks once the
composer is usable (no driver round trip in the figures). Reported: click → ready
(composer usable) and click → first answer text, medians (min-max); the bytes sent
by the host; and each engine's median cold and warm breakdown from the worker's
timeline, which the loader broadcasts (``docs-panel:timeline``) because only
Chromium's driver reaches a worker, once the probe answers its hello. Every build
compared runs it alike: it moved Chromium's first answer by about 0.4 s when on in
one build and off in the other (the figures include it).

Beside each breakdown, the CPU seconds each thread of the engine's processes spent
from the page's load to the answer's end (bench/thread_cpu.py): on a shared 2-core
machine, what the engine did, apart from its wait for a core.

A WebKit column can run with options in its environment, as a column of its own in
the same interleaved rounds: ``--browsers chromium,webkit,webkit+JSC_useOMGJIT=0``
(JavaScriptCore reads ``JSC_*``; WebKitGTK ``WEBKIT_*``). They only diagnose: a
reader's Safari sets none of them.

Drivers are the cross-engine suite's (tests/cross). Nothing asserts: figures are
reported; the machine's other work makes them noisy, the min-max columns say how much.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.breakdown import format_phases, phases
from bench.hosts import QUESTIONS, Host, Site, build_site
from bench.thread_cpu import cpu_spent, thread_times
from docs_panel.build.cli import demo_head
from docs_panel.build.serve import CHAT_PATH
from tests.cross.tabs import Tab

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ("chromium", "firefox", "webkit")
ANSWER_TIMEOUT_S = 300.0
KEPT_TIMEOUT_S = 60.0
PAGE = "/bench/visit.html"
CPU_THREADS_SHOWN = 8

# Installed first on the bench page: the launcher click's time, the first frame
# where the composer is usable (then it asks, as a reader who had typed already
# would), the first frame with answer text and the answer's end; and the worker's
# timeline as the loader broadcasts it.
PROBE = """
(() => {
  sessionStorage.clear(); // a visit restores nothing, as in a new tab
  const b = (window.__bench = { t: {}, worker: [] });
  // The loader says hello, and tells its timeline only to a page that answers.
  const timeline = new BroadcastChannel("docs-panel:timeline");
  timeline.onmessage = ({ data }) => data === "hello" ? timeline.postMessage("listening")
    : b.worker.push(...data);
  const tick = () => {
    const host = document.querySelector("[data-docs-panel]");
    const root = host && host.shadowRoot;
    const now = performance.now();
    if (root) {
      const box = root.querySelector('textarea[aria-label="Ask a question"]');
      if (!b.t.composer && box && box.offsetParent !== null && !box.disabled) {
        b.t.composer = now;
        box.value = b.question;
        box.dispatchEvent(new Event("input", { bubbles: true }));
        box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
      }
      const answer = root.querySelector(".thread .answer");
      const results = root.querySelector('.thread [aria-label="Search results"]');
      if (!b.t.answer && ((answer && answer.textContent.trim()) || results)) b.t.answer = now;
      if (b.t.answer && !b.t.done && !root.querySelector('.thread [aria-busy="true"]')) {
        b.t.done = now;
      }
    }
    if (!b.t.done) requestAnimationFrame(tick);
  };
  addEventListener("click", (e) => {
    const path = e.composedPath();
    const onLauncher = path.some((n) => n.classList && n.classList.contains("launcher"));
    if (onLauncher && b.t.click === undefined) {
      b.t.click = e.timeStamp;
      requestAnimationFrame(tick);
    }
  }, true);
})();
"""
DONE = "() => window.__bench && window.__bench.t.done !== undefined"
# The memory copy, the last of the warm start's copies to be kept (builds without a
# timeline to tell, such as a --baseline, are waited for alike).
KEPT = """async () => (await (await caches.open("docs-panel-warm-start")).keys())
  .some((request) => request.url.includes("?memory"))"""
# The page's own requests, and the worker's entries, in ms after the click.
TIMELINE = """() => {
  const b = window.__bench, origin = performance.timeOrigin, click = b.t.click;
  const resources = performance.getEntriesByType("resource").map((e) => ({
    name: e.name, start: e.startTime - click, end: e.responseEnd - click,
    bytes: e.transferSize || 0,
  }));
  const shift = (e) => ({ ...e, start: e.start - origin - click, end: e.end - origin - click });
  const worker = b.worker.map(shift);
  return {
    t: b.t,
    resources: resources.concat(worker.filter((e) => e.type === "resource")),
    marks: worker.filter((e) => e.type !== "resource"),
  };
}"""


@dataclass(frozen=True, slots=True)
class Build:
    """A demo site served by a gzipping host, under a name for the report."""

    name: str
    site: Site
    host: Host


def bench_page(site: Site) -> None:
    html = f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>bench</title><link rel="icon" href="data:,"><script>{PROBE}</script>
{demo_head(CHAT_PATH)}</head><body><h1>bench</h1></body></html>"""
    (site.root / PAGE.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
    (site.root / PAGE.lstrip("/")).write_text(html, encoding="utf-8")


def baseline_site(ref: str, tmp: Path) -> Site:
    """The demo site as ``ref``'s code builds it (a copy of ``ref``'s tree, built there)."""
    tree = tmp / f"tree-{ref}"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True)
    archive.check_returncode()
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    (tree / "node_modules").symlink_to((ROOT / "node_modules").resolve())
    script = (
        "import sys, json; from pathlib import Path; from bench.hosts import build_site; "
        "s = build_site('demo', Path(sys.argv[1])); print(json.dumps([s.pages, s.sections]))"
    )
    out = tmp / f"site-{ref}"
    done = subprocess.run(
        ["python3", "-c", script, str(out)], cwd=tree, capture_output=True, text=True, check=True
    )
    pages, sections = json.loads(done.stdout.strip().splitlines()[-1])
    return Site("demo", out / "demo", "/", QUESTIONS["demo"], pages, sections)


def engine_options(spec: str) -> tuple[str, dict[str, str]]:
    """``webkit+JSC_useOMGJIT=0`` -> ("webkit", {"JSC_useOMGJIT": "0"}); ValueError if
    the engine is unknown, or a part is no NAME=VALUE, or options go to another engine
    (only WebKit's driver here starts the browser with an environment of ours)."""
    engine, *parts = spec.split("+")
    if engine not in ENGINES:
        raise ValueError(f"unknown browser {engine!r}: expected one of {', '.join(ENGINES)}")
    if parts and engine != "webkit":
        raise ValueError(f"{spec!r}: only webkit takes options (+NAME=VALUE)")
    env = {}
    for part in parts:
        name, equals, value = part.partition("=")
        if not (name and equals):
            raise ValueError(f"{spec!r}: {part!r} is not NAME=VALUE")
        env[name] = value
    return engine, env


@contextlib.contextmanager
def profiles(spec: str) -> Iterator[Callable[[], tuple[Tab, Callable[[], None]]]]:
    """A factory of (first tab of a fresh profile, what closes the profile) in the
    engine ``spec`` names, with its options (engine_options)."""
    engine, env = engine_options(spec)
    if engine == "chromium":
        from playwright.sync_api import sync_playwright

        from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
        from tests.cross.chromium import ChromiumTab

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

            def chromium() -> tuple[Tab, Callable[[], None]]:
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                return ChromiumTab.in_new_profile(context), context.close

            try:
                yield chromium
            finally:
                browser.close()
    elif engine == "firefox":
        from tests.cross.bidi import Firefox
        from tests.cross.firefox import FirefoxTab

        firefox = Firefox.launch()

        def fresh_firefox() -> tuple[Tab, Callable[[], None]]:
            tab = FirefoxTab.in_new_profile(firefox)
            return tab, tab.close_profile

        try:
            yield fresh_firefox
        finally:
            firefox.close()
    else:
        from tests.cross.webkit import Display, WebKitTab, start_session

        display = Display()

        def webkit() -> tuple[Tab, Callable[[], None]]:
            driver = start_session(display, env)
            return WebKitTab.in_new_profile(driver), driver.quit

        try:
            yield webkit
        finally:
            display.close()


def visit(tab: Tab, build: Build, question: str, cold: bool) -> dict[str, Any]:
    build.host.sent = 0
    before = thread_times()
    tab.goto(build.host.url.removesuffix(build.site.page) + PAGE)
    tab.run("(q) => { window.__bench.question = q; }", question)
    tab.click("button", "Ask the docs")
    tab.wait_until(DONE, timeout_s=ANSWER_TIMEOUT_S, what="the answer's end")
    cpu = cpu_spent(before, thread_times())
    kept = False
    if cold:  # the first answer keeps the warm start's copies: wait for them
        with contextlib.suppress(AssertionError):
            kept = bool(tab.wait_until(KEPT, timeout_s=KEPT_TIMEOUT_S, what="the warm copy"))
    timeline = tab.run(TIMELINE)
    t = timeline.pop("t")
    figures = {
        "ready_s": (t["composer"] - t["click"]) / 1000,
        "answer_s": (t["answer"] - t["click"]) / 1000,
        "done_s": (t["done"] - t["click"]) / 1000,
        "wire_kib": build.host.sent / 1024,
    }
    tab.goto("about:blank")  # the panel's worker ends with its page
    return {"figures": figures, "timeline": timeline, "kept": kept, "cpu": cpu}


def summary(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def run(engines: list[str], builds: list[Build], question: str, runs: int) -> list[dict[str, Any]]:
    """``runs`` rounds; in each, every engine and build once, cold then warm."""
    visits: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    with contextlib.ExitStack() as stack:
        opened = {engine: stack.enter_context(profiles(engine)) for engine in engines}
        for round_ in range(runs):
            for engine in engines:
                for build in builds:
                    first, close = opened[engine]()
                    try:
                        cold = visit(first, build, question, cold=True)
                        warm = visit(first, build, question, cold=False)
                    finally:
                        close()
                    for kind, result in (("cold", cold), ("warm", warm)):
                        visits.setdefault((engine, build.name, kind), []).append(result)
                        print(f"round {round_ + 1} {engine} {build.name} {kind}: ", end="")
                        print(json.dumps(result["figures"]), flush=True)
    rows = []
    for (engine, build_name, kind), results in visits.items():
        keys = results[0]["figures"]
        figures = {key: summary([r["figures"][key] for r in results]) for key in keys}
        row = {"engine": engine, "build": build_name, "visit": kind}
        rows.append(row | {"runs": results, "figures": figures})
    return rows


def _cell(figure: dict[str, float], fmt: str) -> str:
    low, high = fmt.format(figure["min"]), fmt.format(figure["max"])
    return f"{fmt.format(figure['median'])} ({low}-{high})"


def table(rows: list[dict[str, Any]]) -> str:
    """Medians (min-max), and the first answer's median as a multiple of Chromium's."""
    width = max(9, *(len(r["engine"]) + 1 for r in rows))
    lines = [
        f"{'engine':<{width}}{'build':<10}{'visit':<6}{'ready s':>20}{'1st answer s':>20}"
        f"{'wire KiB':>20}{'/ chromium':>12}   medians (min-max)"
    ]
    chromium = {(r["build"], r["visit"]): r for r in rows if r["engine"] == "chromium"}
    for row in rows:
        figures = row["figures"]
        cells = [_cell(figures["ready_s"], "{:.2f}"), _cell(figures["answer_s"], "{:.2f}")]
        cells.append(_cell(figures["wire_kib"], "{:.0f}"))
        base = chromium.get((row["build"], row["visit"]))
        ratio = figures["answer_s"]["median"] / base["figures"]["answer_s"]["median"] if base else 0
        lines.append(
            f"{row['engine']:<{width}}{row['build']:<10}{row['visit']:<6}"
            + "".join(f"{c:>20}" for c in cells)
            + f"{ratio:>12.2f}"
        )
    return "\n".join(lines)


def format_cpu(spent: dict[str, float]) -> str:
    """The threads that spent the most CPU in a visit, and all of them together."""
    lines = [f"  {'CPU by thread, load to answer end':<58} {sum(spent.values()):8.2f} s"]
    for name, seconds in list(spent.items())[:CPU_THREADS_SHOWN]:
        lines.append(f"    {name:<56} {seconds:8.2f} s")
    return "\n".join(lines)


def median_run(row: dict[str, Any]) -> dict[str, Any]:
    ordered: list[dict[str, Any]] = sorted(row["runs"], key=lambda v: v["figures"]["answer_s"])
    return ordered[len(ordered) // 2]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--browsers", required=True, help="e.g. chromium,firefox,webkit")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", help="a git ref whose build runs beside this tree's (A/B)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "engines.json")
    args = parser.parse_args(argv)
    engines = args.browsers.split(",")
    for spec in engines:
        try:
            engine_options(spec)
        except ValueError as err:
            parser.error(str(err))
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as hosts:
        sites = {"tree": build_site("demo", Path(tmp))}
        if args.baseline:
            sites = {args.baseline: baseline_site(args.baseline, Path(tmp))} | sites
        builds = []
        for name, site in sites.items():
            bench_page(site)
            builds.append(Build(name, site, hosts.enter_context(Host(site, compress=True))))
        rows = run(engines, builds, QUESTIONS["demo"], args.runs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"runs": args.runs, "load_average": os.getloadavg(), "engines": engines}
    args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1), encoding="utf-8")
    print()
    print(table(rows))
    for row in rows:
        best = median_run(row)
        title = f"\nbreakdown: {row['engine']}, {row['build']}, {row['visit']} (median run)"
        figures = best["figures"] | {"composer_s": best["figures"]["ready_s"]}
        print(format_phases(title, phases(best["timeline"], figures)))
        print(format_cpu(best["cpu"]))
    print(f"\nwritten to {args.out}")
