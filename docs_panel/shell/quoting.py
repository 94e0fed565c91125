"""The passage the reader chose with "Ask about this", attached to the next question
(MicroPython).

embed.js offers the button on the host page (it must work before the shell has
ever loaded) and hands the selected text to ``bridge.quoted``; the worker makes
it what a turn may carry (credentials masked, whitespace collapsed, at most
``caps.QUOTE_CHARS`` characters). The composer shows it above the textbox until it
is sent or removed::

    quoting = Quoting(client, started, spawn)   # started: an Event set once the worker is up
    quoting.attach("selected text")
    quoting.take()                              # the passage for this question; cleared
"""

from docs_panel.shell.dom import h, icon_button
from docs_panel.shell.words import say


class Quoting:
    def __init__(self, client, started, spawn):
        self.client = client
        self.started = started
        self.spawn = spawn
        self.text = ""
        self.passage = h("blockquote", {"class": "quote"})
        self.chip = h(
            "div",
            {"class": "attached", "hidden": True},
            self.passage,
            icon_button(say("remove_quote"), "close", lambda event: self.clear()),
        )

    def attach(self, selected):
        self.spawn(self._attach(selected))

    async def _attach(self, selected):
        await self.started.wait()  # redaction happens in the worker
        quoted = await self.client.call("quote", text=selected)
        self.text = quoted.text
        self.passage.textContent = quoted.text
        self.chip.hidden = not quoted.text

    def take(self):
        text = self.text
        self.clear()
        return text

    def clear(self):
        self.text = ""
        self.passage.textContent = ""
        self.chip.hidden = True
