"""The panel as a phone's full-screen sheet (MicroPython): at panel.css's phone width
the page behind it holds still while it is open, and the sheet follows the visual
viewport, so the on-screen keyboard never covers the composer::

    sheet = Sheet(panel_element)
    panel_element.hidden = False
    sheet.changed()     # lock the page's scrolling (at phone width), follow the viewport
    panel_element.hidden = True
    sheet.changed()     # give the page its scrolling back
"""

import js
from pyscript import document, window

from docs_panel.shell.dom import listen

PHONE = "(max-width: 520px)"  # as panel.css's sheet


class Sheet:
    def __init__(self, element):
        self.element = element  # open while not hidden
        self.locked = None  # the page's own overflow value while locked, else None
        self.phone = window.matchMedia(PHONE)
        listen(self.phone, "change", lambda event: self._hold_page())
        viewport = js.globalThis.visualViewport  # the real object: `this` for its listeners
        if viewport:
            listen(viewport, "resize", lambda event: self._follow(viewport))
            listen(viewport, "scroll", lambda event: self._follow(viewport))

    def changed(self):
        """The panel was shown or hidden: hold or free the page, fit the viewport."""
        self._hold_page()
        if js.globalThis.visualViewport:
            self._follow(js.globalThis.visualViewport)

    def _hold_page(self):
        """The page's <html> does not scroll under an open sheet; as it was otherwise."""
        style = document.documentElement.style
        hold = not self.element.hidden and self.phone.matches
        if hold and self.locked is None:
            self.locked = style.overflow
            style.overflow = "hidden"
        elif not hold and self.locked is not None:
            style.overflow = self.locked
            self.locked = None

    def _follow(self, viewport):
        """Top and height of what is visible (the keyboard shrinks it), for panel.css."""
        if not self.element.hidden:
            self.element.style.setProperty("--dp-viewport-top", str(viewport.offsetTop) + "px")
            self.element.style.setProperty("--dp-viewport-height", str(viewport.height) + "px")
