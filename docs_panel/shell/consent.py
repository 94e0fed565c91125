"""Asking before anything is kept (MicroPython): with ``history: {consent: "ask"}``
the panel shows a one-line notice, "Keep my conversations on this device" / "Not
now", and Settings holds the same choice as a checkbox. ``docs_panel.core.consent``
decides; the keeper stores the choice and what this visit kept in memory::

    consent = Consent(keeper, spawn)
    panel.append(consent.notice); settings.region.append(consent.setting)
    consent.offer(started.consent)   # once the worker has read the config and the choice
"""

from docs_panel.shell.dom import h, listen
from docs_panel.shell.words import say


class Consent:
    def __init__(self, keeper, spawn):
        self.keeper = keeper
        self.spawn = spawn
        keep = h("button", {"class": "text primary", "type": "button"}, say("consent_keep"))
        later = h("button", {"class": "text", "type": "button"}, say("consent_later"))
        self.notice = h(
            "div",
            {"class": "consent", "hidden": True},
            h("p", None, say("consent_note")),
            h("div", {"class": "consent-actions"}, keep, later),
        )
        self.box = h("input", {"type": "checkbox", "id": "docs-panel-consent"})
        self.setting = h(
            "div",
            {"class": "consent-setting", "hidden": True},
            self.box,
            h("label", {"for": "docs-panel-consent"}, say("consent_keep")),
            h("p", {"class": "fineprint"}, say("consent_setting_note")),
        )
        listen(keep, "click", lambda event: self._choose("granted"))
        listen(later, "click", lambda event: self._choose("later"))
        listen(
            self.box,
            "change",
            lambda event: self._choose("granted" if self.box.checked else "denied"),
        )

    def offer(self, state):
        """``state``: "" (the site does not ask), "pending" (the reader has not chosen:
        the notice shows), "granted" or "denied"; the setting shows whenever the site asks."""
        self.notice.hidden = state != "pending"
        self.setting.hidden = not state
        self.box.checked = state == "granted"

    def _choose(self, choice):
        self.notice.hidden = True
        self.spawn(self._chosen(choice))

    async def _chosen(self, choice):
        self.box.checked = await self.keeper.consent(choice)
