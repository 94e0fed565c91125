"""The composer at the bottom of the panel (MicroPython): the question box, Send or
Stop, and the scope picker::

    composer = Composer(on_ask=ask, on_stop=answering.stop, on_draft=..., above=quote_chip)
    panel.append(composer.form)
    composer.streaming(True)        # Stop takes Send's place while an answer streams

Enter sends, Shift+Enter starts a new line; the box grows with its text.
"""

from docs_panel.shell.dom import h, listen
from docs_panel.shell.words import say

TYPE_CHECKING = False  # MicroPython has no typing module; mypy reads the block
if TYPE_CHECKING:
    from docs_panel.shell.records import Scope


class Composer:
    def __init__(self, on_ask, on_stop, on_draft, above=None):
        self.on_ask = on_ask
        self.on_draft = on_draft
        self.scopes = []
        self.scope_select = h("select", {"aria-label": say("scope")})
        self.scope_row = h(
            "label", {"class": "scope", "hidden": True}, say("scope"), self.scope_select
        )
        self.input = h(
            "textarea",
            {
                "rows": "1",
                "aria-label": say("question"),
                "placeholder": say("question_placeholder"),
                "dir": "auto",  # a question takes the direction of its own first letters
                "enterkeyhint": "send",
            },
        )
        self.send = h("button", {"class": "send", "type": "submit"}, say("send"))
        self.stop = h(
            "button", {"class": "send stop", "type": "button", "hidden": True}, say("stop")
        )
        self.form = h(
            "form",
            {"class": "composer"},
            self.scope_row,
            above,  # e.g. the quoted passage, removable
            h("div", {"class": "row"}, self.input, self.send, self.stop),
            h("p", {"class": "fineprint"}, say("fineprint")),
        )
        listen(self.stop, "click", lambda event: on_stop())
        listen(self.form, "submit", self._on_submit)
        listen(self.input, "keydown", self._on_key)
        listen(self.input, "input", self._on_input)

    def set_scopes(self, scopes: "list[Scope]"):
        self.scopes = scopes
        for scope in scopes:
            self.scope_select.append(h("option", {"value": scope.id}, scope.label))
        self.scope_row.hidden = not scopes

    def follow_scope(self, scope_id):
        """Pick the scope of the turn before, so a follow-up stays in it."""
        if self.scopes:
            self.scope_select.value = scope_id or self.scopes[0].id

    def scope(self):
        """The scope chosen in the picker ("" when the site has none)."""
        return self.scope_select.value if self.scopes else ""

    def set_text(self, text):
        self.input.value = text
        self._fit()

    def focus(self):
        self.input.focus()

    def streaming(self, on):
        """Stop replaces Send while an answer streams; focus on Stop returns to the textbox."""
        had_focus = self.stop.getRootNode().activeElement == self.stop
        self.send.hidden = on
        self.stop.hidden = not on
        if had_focus:
            self.input.focus()

    def _fit(self):
        self.input.style.height = "auto"
        self.input.style.height = str(self.input.scrollHeight + 2) + "px"

    def _on_key(self, event):
        if event.key == "Enter" and not event.shiftKey and not event.isComposing:
            event.preventDefault()
            self._submit()

    def _on_submit(self, event):
        event.preventDefault()
        self._submit()

    def _on_input(self, event):
        self._fit()
        self.on_draft(self.input.value)

    def _submit(self):
        question = self.input.value.strip()
        if question:
            self.set_text("")
            self.on_ask(question, self.scope())
