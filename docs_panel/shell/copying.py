""" "Copy answer" under a finished answer and "Copy code" on each of its code blocks
(MicroPython)::

    copier = Copier(root, spawn)
    answer_bar = copier.answer_button(turn)     # Markdown with its source links
    copier.code_buttons(answer_element)         # a button on every <pre>

The async clipboard API is used where the page has it; where it is missing or
refuses (an insecure origin, a permissions policy), a hidden textarea in the
Shadow DOM is selected and copied with ``execCommand("copy")``. Each button has
a polite live region beside it that says "Copied" (or that copying failed), and
focus comes back to the button.
"""

import asyncio

import js
from pyscript import window

from docs_panel.portable.copy_text import answer_markdown
from docs_panel.shell.dom import h, listen
from docs_panel.shell.words import say

TYPE_CHECKING = False  # MicroPython has no typing module; mypy reads the block
if TYPE_CHECKING:
    from docs_panel.shell.records import Turn

SAID_FOR_S = 2.5  # how long "Copied" stays on screen


class Copier:
    def __init__(self, root, spawn):
        self.root = root  # the shadow root: the fallback's textarea goes in it
        self.spawn = spawn

    def answer_button(self, turn: "Turn"):
        """ "Copy answer" and its status, for a turn with an answer's text."""
        origin = window.location.origin
        sources = [(s.title, origin + s.address, s.ref) for s in turn.sources]
        text = answer_markdown(turn.text, sources, say("sources"))
        return self._button(say("copy_answer"), lambda: text, "copy-answer")

    def code_buttons(self, answer):
        """A "Copy code" button on top of each code block of a drawn answer."""
        for pre in list(answer.querySelectorAll("pre")):
            block = h("div", {"class": "code-block"})
            pre.replaceWith(block)
            block.append(
                self._button(say("copy_code"), lambda pre=pre: pre.textContent, "copy-code")
            )
            block.append(pre)

    def _button(self, label, text, css):
        button = h("button", {"class": "text copy", "type": "button"}, label)
        said = h("span", {"class": "copied", "role": "status"})
        listen(button, "click", lambda event: self.spawn(self._copy(text(), button, said)))
        return h("div", {"class": css}, button, said)

    async def _copy(self, text, button, said):
        copied = await self._clipboard(text) or self._fallback(text)
        button.focus()
        said.textContent = say("copied" if copied else "copy_failed")
        # Cleared later, so the next copy is news to a screen reader again.
        await asyncio.sleep(SAID_FOR_S)
        said.textContent = ""

    async def _clipboard(self, text):
        clipboard = js.navigator.clipboard
        if not clipboard:
            return False
        try:
            await clipboard.writeText(text)
        except Exception as err:  # refused (no permission, insecure page): the fallback
            window.console.warn("docs-panel: clipboard refused; copying by selection", str(err))
            return False
        return True

    def _fallback(self, text):
        box = h("textarea", {"class": "visually-hidden", "readonly": True, "aria-hidden": "true"})
        box.value = text
        self.root.append(box)
        box.select()
        copied = js.document.execCommand("copy")
        box.remove()
        return bool(copied)
