""" "Private conversation" (MicroPython): a switch in a new chat's empty thread, before
its first question, and the "Private" marker above the thread while the conversation
on screen is private::

    privacy = Privacy(keeper, client, spawn)
    panel.append(privacy.marker)
    empty.append(privacy.switch())     # each new chat's empty state gets one
    privacy.ready(record)              # the worker is up: the switch works
    privacy.shown()                    # the marker follows keeper.private

The worker keeps a private conversation out of the archive; the keeper writes it to
this tab's sessionStorage only (``docs-panel.private``), so a reload keeps it and
closing the tab ends it.
"""

from docs_panel.shell.dom import h, listen
from docs_panel.shell.words import say


class Privacy:
    def __init__(self, keeper, client, spawn):
        self.keeper = keeper
        self.client = client
        self.spawn = spawn
        self.available = False  # the worker is up and this visit records history
        self.offered = True  # until the worker says this visit records nothing
        self._switch = None
        self.marker = h(
            "p",
            {"class": "private-marker", "hidden": True},
            h("span", {"class": "badge"}, say("private_marker")),
            " ",
            say("private_note"),
        )

    def switch(self):
        """The switch for the new chat on screen; None when this visit records nothing."""
        if not self.offered:
            return None
        button = h(
            "button",
            {
                "class": "switch",
                "type": "button",
                "role": "switch",
                "aria-checked": "true" if self.keeper.private else "false",
                "disabled": not self.available,
            },
            say("private"),
        )
        listen(button, "click", lambda event: self.spawn(self._toggle(button)))
        self._switch = button
        return h("div", {"class": "private-choice"}, button)

    def ready(self, record):
        """The worker is up: the switch works; without recording there is nothing to keep
        private from, and it goes."""
        self.available = self.offered = record
        if self._switch is not None and self._switch.isConnected:
            if record:
                self._switch.disabled = False
            else:
                self._switch.parentElement.remove()

    async def _toggle(self, button):
        on = button.getAttribute("aria-checked") != "true"
        await self.client.call("set_private", on=on)
        self.keeper.set_private(on)
        button.setAttribute("aria-checked", "true" if on else "false")
        self.shown()

    def shown(self):
        self.marker.hidden = not self.keeper.private

    def leave(self):
        """Another conversation goes on screen (New chat, a row, Delete all)."""
        self.keeper.set_private(False)
        self.shown()
