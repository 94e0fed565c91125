"""Building DOM nodes from MicroPython, in one call per element.

    >>> button = h("button", {"type": "button", "aria-label": "Close"}, "Close")

Text children become text nodes (never parsed as HTML), so anything that came
from a reader or the docs index is safe to pass. ``icon`` is the one place that
sets markup, and only from the constant ICONS below. ``listen`` binds a handler
and keeps its proxy alive (a dropped proxy stops firing)::

    listen(button, "click", lambda event: panel.close())
"""

from pyscript import document
from pyscript.ffi import create_proxy

ICONS = {
    "compose": '<path d="M12 20h9"/><path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z"/>',
    "close": '<path d="M18 6 6 18M6 6l12 12"/>',
    "clock": '<circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/>',
    "sliders": '<path d="M4 21v-7M4 10V3M12 21v-9M12 8V3M20 21v-5M20 12V3M1 14h6M9 8h6M17 16h6"/>',
    "download": '<path d="M12 4v11M7 10l5 5 5-5M5 20h14"/>',
    "bin": '<path d="M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3"/>',
}


def h(tag, attrs=None, *children):
    element = document.createElement(tag)
    if attrs:
        for name, value in attrs.items():
            if value is True:
                element.setAttribute(name, "")
            elif value is not None and value is not False:
                element.setAttribute(name, str(value))
    for child in children:
        if child is None:
            continue
        element.append(document.createTextNode(child) if isinstance(child, str) else child)
    return element


def icon(name):
    span = document.createElement("span")
    span.innerHTML = (
        '<svg viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor"'
        ' stroke-width="2" stroke-linecap="round" stroke-linejoin="round">' + ICONS[name] + "</svg>"
    )
    return span.firstChild


def clear(element):
    while element.firstChild:
        element.firstChild.remove()


_kept: list[object] = []  # every listener's proxy, for the page's lifetime


def listen(target, event, handler):
    proxy = create_proxy(handler)
    _kept.append(proxy)
    target.addEventListener(event, proxy)
    return proxy


def icon_button(label, name, handler, css="icon"):
    """A header-style button: an icon, named by ``label`` for screen readers and on hover."""
    element = h(
        "button", {"class": css, "type": "button", "aria-label": label, "title": label}, icon(name)
    )
    listen(element, "click", handler)
    return element
