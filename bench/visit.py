"""One reader's visit, timed in the page: load, click the launcher, ask, read.

The page records its own times (``PROBE``, installed before any of its scripts):
the launcher click's event time, the first frame where the composer is usable,
the first frame with answer text (or search results) and the frame where the
answer is complete, plus every long task. Times therefore do not include
Playwright's polling. After the answer, the boot breakdown is read from the
resource timing of the page and of the Pyodide worker (``page.workers``) and
from the ``docs-panel:*`` marks the loader leaves, all relative to the click.

Network profiles go through a CDP session on each page
(``Network.emulateNetworkConditions``), which keeps the HTTP cache working;
``page.route`` would disable it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playwright.sync_api import BrowserContext, Page
from playwright.sync_api import Error as PlaywrightError

from bench.hosts import Host

ANSWER_TIMEOUT_MS = 180_000
# A reader reads the answer before leaving; meanwhile the panel keeps its warm start
# (a second after the answer), which the next (warm) visit restores.
READING_MS = 3_000


@dataclass(frozen=True, slots=True)
class Network:
    name: str
    latency_ms: float  # added to each request's round trip
    down_bps: float  # bytes per second; 0: no limit
    up_bps: float


NETWORKS = {
    "loopback": Network("loopback", 0, 0, 0),
    # Chrome DevTools' "Fast 4G": 9 Mbps down, 1.5 Mbps up, 60 ms RTT.
    "4g": Network("4g", 60, 9_000_000 / 8, 1_500_000 / 8),
}

PROBE = """
(() => {
  const b = (window.__bench = { t: {}, longtasks: [], kind: null });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) b.longtasks.push([e.startTime, e.duration]);
  }).observe({ type: "longtask", buffered: true });
  const tick = () => {
    const host = document.querySelector("[data-docs-panel]");
    const root = host && host.shadowRoot;
    const now = performance.now();
    if (root) {
      const box = root.querySelector('textarea[aria-label="Ask a question"]');
      if (!b.t.composer && box && box.offsetParent !== null && !box.disabled) b.t.composer = now;
      const answer = root.querySelector(".thread .answer");
      const results = root.querySelector('.thread [aria-label="Search results"]');
      if (!b.t.answer && ((answer && answer.textContent.trim()) || results)) {
        b.t.answer = now;
        b.kind = answer ? "answer" : "results";
      }
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

# Resource entries and docs-panel marks of a realm, in ms since the page's time origin.
TIMELINE = """(origin) => {
  const shift = performance.timeOrigin - origin;
  const resources = performance.getEntriesByType("resource").map((e) => ({
    name: e.name.replace(/^https?:\\/\\/[^/]+/, ""),
    start: e.startTime + shift,
    end: e.responseEnd + shift,
    bytes: e.transferSize,
    body: e.encodedBodySize,
  }));
  const marks = performance.getEntriesByType("mark").concat(performance.getEntriesByType("measure"))
    .filter((e) => e.name.startsWith("docs-panel:"))
    .map((e) => ({
      name: e.name, start: e.startTime + shift, end: e.startTime + e.duration + shift,
    }));
  return { resources, marks };
}"""


# Sets `preload` on whatever config object the page assigns to window.docsPanel.
PRELOAD = """(preload) => {
  let config;
  Object.defineProperty(window, "docsPanel", {
    configurable: true,
    get: () => config,
    set: (value) => { config = { ...value, preload }; },
  });
}"""


def emulate(page: Page, network: Network) -> None:
    if network.down_bps == 0:
        return
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": network.latency_ms,
            "downloadThroughput": network.down_bps,
            "uploadThroughput": network.up_bps,
        },
    )


def blocking_ms(longtasks: list[list[float]], start: float, end: float) -> tuple[float, float]:
    """The longest task and the total blocking time (the part of each task over 50 ms)."""
    inside = [d for t, d in longtasks if start <= t <= end]
    return max(inside, default=0.0), sum(max(0.0, d - 50) for d in inside)


def visit(
    context: BrowserContext, host: Host, network: Network, question: str, hover_ms: int = 0
) -> dict[str, Any]:
    """Open the host's page in a new tab of ``context``, open the panel and ask ``question``.

    ``hover_ms`` rests the pointer on the launcher that long before the click (the
    "intent" a reader shows); 0 clicks at once, as Playwright does.
    """
    page = context.new_page()
    emulate(page, network)
    host.sent = 0
    page.goto(host.url)
    launcher = page.get_by_role("button", name="Ask the docs")
    launcher.wait_for()
    page.wait_for_load_state("networkidle")
    page_bytes = host.sent
    if hover_ms:
        launcher.hover()
        page.wait_for_timeout(hover_ms)
    launcher.click()
    box = page.get_by_role("textbox", name="Ask a question")
    box.fill(question)
    box.press("Enter")
    page.wait_for_function("window.__bench.t.done !== undefined", timeout=ANSWER_TIMEOUT_MS)
    probe = page.evaluate("window.__bench")
    t = probe["t"]
    origin = page.evaluate("performance.timeOrigin")
    realms = [page.evaluate(TIMELINE, origin)]
    for worker in page.workers:
        try:
            realms.append(worker.evaluate(TIMELINE, origin))
        except PlaywrightError:  # a short-lived worker (PyScript's probes) ended meanwhile
            continue
    longest, tbt = blocking_ms(probe["longtasks"], 0, t["done"])
    figures = {
        "composer_s": (t["composer"] - t["click"]) / 1000,
        "answer_s": (t["answer"] - t["click"]) / 1000,
        "done_s": (t["done"] - t["click"]) / 1000,
        "wire_kib": host.sent / 1024,
        "page_kib": page_bytes / 1024,
        "longest_task_ms": longest,
        "tbt_ms": tbt,
    }
    page.wait_for_timeout(READING_MS)
    page.close()
    return {
        "figures": figures,
        "kind": probe["kind"],
        "timeline": shift_to_click(realms, t["click"]),
    }


def shift_to_click(realms: list[dict[str, Any]], click: float) -> dict[str, list[dict[str, Any]]]:
    """Resource entries and marks of all realms, in ms after the click, by start time."""
    resources = [
        {**r, "start": r["start"] - click, "end": r["end"] - click}
        for realm in realms
        for r in realm["resources"]
    ]
    marks = [
        {**m, "start": m["start"] - click, "end": m["end"] - click}
        for realm in realms
        for m in realm["marks"]
    ]
    return {
        "resources": sorted(resources, key=lambda r: r["start"]),
        "marks": sorted(marks, key=lambda m: m["start"]),
    }
