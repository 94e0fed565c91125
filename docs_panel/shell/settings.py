"""The reader's own instruction for answers, behind the header's "Settings" button
(MicroPython).

It goes with every question from the next one on (the worker sends it to the
model as a system message of its own) and lives only in this tab's
sessionStorage: it survives a reload, dies with the tab, and never reaches the
archive, the feedback log or a feedback report::

    settings = Settings(keeper)
    header.append(settings.button); panel.append(settings.region)
    settings.restore()              # once the keeper knows whether to record
    settings.instruction()          # what the next question carries
"""

from docs_panel.portable.caps import INSTRUCTION_CHARS
from docs_panel.shell.dom import h, icon_button, listen
from docs_panel.shell.words import say


class Settings:
    def __init__(self, keeper):
        self.keeper = keeper
        self.button = icon_button(say("settings"), "sliders", lambda event: self.toggle())
        self.button.setAttribute("aria-expanded", "false")
        self.box = h(
            "textarea",
            {
                "id": "docs-panel-instruction",
                "rows": "2",
                "maxlength": str(INSTRUCTION_CHARS),
                "placeholder": say("instruction_placeholder"),
                "dir": "auto",
            },
        )
        self.region = h(
            "div",
            {"class": "settings", "hidden": True},
            h("label", {"for": "docs-panel-instruction"}, say("instruction")),
            self.box,
            h("p", {"class": "fineprint"}, say("instruction_note")),
        )
        listen(self.box, "input", lambda event: self.keeper.set_instruction(self.box.value))

    def toggle(self):
        opening = self.region.hidden
        self.region.hidden = not opening
        self.button.setAttribute("aria-expanded", "true" if opening else "false")
        if opening:
            self.box.focus()

    def restore(self):
        """Bring back this tab's instruction; one typed while the panel started wins."""
        stored = self.keeper.get("instruction")
        if self.box.value:
            self.keeper.set_instruction(self.box.value)
        elif stored:
            self.box.value = stored

    def instruction(self):
        return self.box.value.strip()
