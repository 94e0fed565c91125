"""Tab sets: every panel is content, under its tab's label.

Themes show one tab of a set and hide the others (``hidden``, or CSS only),
and put the labels together in a strip ("npmpnpmyarn" when read as text).
``unfold_tabs`` rewrites each set in place: the label goes from the strip to
a line of its own at the top of its panel, and the panel is no longer hidden,
so "yarn add --dev prettier" is found under "yarn" like the default tab.

    >>> from docs_panel.build.site.html_tree import parse, text_of
    >>> root = parse('''<div class="tabs-container"><ul role="tablist">
    ...   <li role="tab">npm</li><li role="tab">Yarn</li></ul>
    ... <div role="tabpanel"><pre>npm i x</pre></div>
    ... <div role="tabpanel" hidden><pre>yarn add x</pre></div></div>''')
    >>> unfold_tabs(root)
    2
    >>> [text_of(panel) for panel in descendants(root) if panel.attrs.get("role") == "tabpanel"]
    ['npmnpm i x', 'Yarnyarn add x']
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from docs_panel.build.site.html_tree import Element, descendants, text_of
from docs_panel.build.site.markers import matcher


@dataclass(frozen=True, slots=True)
class LabelledTabs:
    """A tab set whose labels and panels are matched in order inside ``container``;
    ``panel`` (a marker) or, with ``panels_in``, the children of that element."""

    themes: str
    container: str
    label: str
    panel: str = ""
    panels_in: str = ""


#: Tab sets without ARIA roles, by theme (ARIA ``tablist``/``tab``/``tabpanel``
#: sets, as Docusaurus and sphinx-tabs write them, need no rule).
LABELLED_TABS: tuple[LabelledTabs, ...] = (
    LabelledTabs("MkDocs Material", ".tabbed-set", "label", panel=".tabbed-block"),
    LabelledTabs("MkDocs Material (old style)", ".tabbed-set", "label", panel=".tabbed-content"),
    LabelledTabs("sphinx-design", ".sd-tab-set", "label.sd-tab-label", panel=".sd-tab-content"),
    LabelledTabs("VitePress code groups", ".vp-code-group", "label", panels_in=".blocks"),
)


def unfold_tabs(root: Element) -> int:
    """Rewrite every tab set under ``root`` (see the module doc); how many panels."""
    order = list(descendants(root))
    if not any(e.tag == "label" or e.attrs.get("role") == "tab" for e in order):
        return 0  # most pages: no tab set to read
    parents = {id(child): element for element in order for child in element.children}
    pairs = _aria_pairs(order) + _labelled_pairs(order)
    pairs += _radio_pairs(order, {id(panel) for _, panel in pairs})
    for label, panel in pairs:
        siblings = parents[id(label)].children
        siblings[:] = [child for child in siblings if child is not label]
        panel.attrs.pop("hidden", None)
        panel.attrs.pop("aria-hidden", None)
        heading = Element("p", {})
        heading.children.append(" ".join(text_of(label).split()))
        panel.children.insert(0, heading)
    return len(pairs)


def _aria_pairs(order: list[Element]) -> list[tuple[Element, Element]]:
    """ARIA tabs and their panels (``order``: a page's elements in document order): by
    ``aria-controls``/``aria-labelledby`` ids, else each tab list's tabs with the panels
    that follow it, in order."""
    tabs = [e for e in order if e.attrs.get("role") == "tab"]
    panels = [e for e in order if e.attrs.get("role") == "tabpanel"]
    if not tabs or not panels:
        return []
    by_id = {panel.attrs["id"]: panel for panel in panels if panel.attrs.get("id")}
    pairs: dict[int, tuple[Element, Element]] = {}  # panel id() -> (tab, panel)
    for tab in tabs:
        panel = by_id.get(tab.attrs.get("aria-controls", ""))
        if panel is None:
            panel = next(
                (p for p in panels if p.attrs.get("aria-labelledby") == tab.attrs.get("id", "-")),
                None,
            )
        if panel is not None:
            pairs.setdefault(id(panel), (tab, panel))
    paired_tabs = {id(tab) for tab, _ in pairs.values()}
    position = {id(element): n for n, element in enumerate(order)}
    for tablist in (e for e in order if e.attrs.get("role") == "tablist"):
        own = [t for t in descendants(tablist) if t.attrs.get("role") == "tab"]
        if not own or any(id(tab) in paired_tabs for tab in own):
            continue
        after = [
            p for p in panels if position[id(p)] > position[id(tablist)] and id(p) not in pairs
        ][: len(own)]
        for tab, panel in zip(own, after, strict=False):
            pairs[id(panel)] = (tab, panel)
    return list(pairs.values())


_LABELLED_MATCHERS = tuple(
    (matcher(rule.container), matcher(rule.label), matcher(rule.panels_in or rule.panel))
    for rule in LABELLED_TABS
)


def _labelled_pairs(order: list[Element]) -> list[tuple[Element, Element]]:
    pairs: list[tuple[Element, Element]] = []
    taken: set[int] = set()
    for rule, (is_container, is_label, is_panel) in zip(
        LABELLED_TABS, _LABELLED_MATCHERS, strict=True
    ):
        for container in filter(is_container, order):
            if id(container) in taken:
                continue
            inner = _outside_nested(container, is_container)
            labels = [e for e in inner if is_label(e)]
            if rule.panels_in:
                holder = next(filter(is_panel, inner), None)
                panels = [c for c in holder.children if isinstance(c, Element)] if holder else []
            else:
                panels = list(filter(is_panel, inner))
            if labels and len(labels) == len(panels):
                taken.add(id(container))
                pairs += zip(labels, panels, strict=True)
    return pairs


def _outside_nested(container: Element, is_container: Callable[[Element], bool]) -> list[Element]:
    """The elements inside ``container`` but not inside a tab set nested in it."""
    found: list[Element] = []
    stack = [c for c in reversed(container.children) if isinstance(c, Element)]
    while stack:
        element = stack.pop()
        found.append(element)
        if not is_container(element):
            stack.extend(c for c in reversed(element.children) if isinstance(c, Element))
    return found


def _radio_pairs(order: list[Element], taken: set[int]) -> list[tuple[Element, Element]]:
    """Any theme's radio-button tabs: ``<input type=radio id=x><label for=x>`` and
    the element after the label as its panel (sphinx-design, hugo-book, …)."""
    radios = {
        e.attrs["id"]
        for e in order
        if e.tag == "input" and e.attrs.get("type") == "radio" and e.attrs.get("id")
    }
    pairs = []
    for element in order:
        children = [c for c in element.children if isinstance(c, Element)]
        for label, after in itertools.pairwise(children):
            if (
                label.tag == "label"
                and label.attrs.get("for") in radios
                and after.tag not in ("input", "label")
                and id(after) not in taken
            ):
                pairs.append((label, after))
    return pairs
