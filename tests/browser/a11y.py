"""axe-core (the pinned npm package) run inside a page, on WCAG 2.2 AA rules.

The panel lives in an open Shadow DOM; axe walks open shadow roots itself, so
scoping a run to the panel's host element checks everything inside it::

    assert axe_violations(page, "[data-docs-panel]") == []

A violation comes back as one line per failing element: rule id, impact, what
the rule wants, and the element's selector path (``host >>> inner`` across the
shadow boundary), ready to print in an assertion message.
"""

from __future__ import annotations

from playwright.sync_api import Page

from docs_panel.build.runtime.paths import NODE_MODULES

AXE_SOURCE = NODE_MODULES / "axe-core" / "axe.min.js"
WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]

_RUN = """async ([selector, tags]) => {
  const context = selector ? { include: [[selector]] } : document;
  const result = await axe.run(context, {
    runOnly: { type: "tag", values: tags }, resultTypes: ["violations"],
  });
  const path = (target) => target.map((t) => [].concat(t).join(" >>> ")).join(", ");
  return result.violations.flatMap((v) => v.nodes.map((n) =>
    `${v.id} (${v.impact}): ${v.help} at ${path(n.target)}`
    + (n.failureSummary ? ` (${n.failureSummary.replace(/\\s+/g, " ")})` : "")));
}"""


def axe_violations(page: Page, context_selector: str | None = None) -> list[str]:
    """The WCAG 2.2 AA violations axe finds in the page (or under ``context_selector``)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(content=AXE_SOURCE.read_text(encoding="utf-8"))
    found: list[str] = page.evaluate(_RUN, [context_selector, WCAG_22_AA])
    return found
