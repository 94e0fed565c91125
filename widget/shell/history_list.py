"""The history list under the header (MicroPython): re-read from storage each time
it opens, rows to reopen or delete a conversation, and a two-step "Delete all"::

    history = HistoryList(container, button, panel)
    await history.show()      # list "Conversations", newest activity first
"""

from shell.dom import clear, h, listen
from shell.views import history_row, note
from shell.words import LANGUAGE, say


class HistoryList:
    def __init__(self, container, button, panel):
        self.container = container
        self.button = button
        self.panel = panel  # the wiring: client, keeper, answering, drawing the thread

    @property
    def shown(self):
        return not self.container.hidden

    def toggle(self):
        if self.shown:
            self.hide()
        else:
            self.panel.spawn(self.show())

    def hide(self):
        self.container.hidden = True
        self.button.setAttribute("aria-expanded", "false")

    async def show(self):
        panel = self.panel
        listing = await panel.client.call("conversations", history=panel.keeper.get("history"))
        clear(self.container)
        if listing.rows:
            items = h("ul", {"class": "conversations", "aria-label": say("conversations")})
            for row in listing.rows:
                when = panel.bridge.relativeTime(LANGUAGE, row.when_value, row.when_unit)
                items.append(
                    history_row(row, row.id == listing.current, when, self._open, self._delete)
                )
            self.container.append(items)
            self.container.append(self._delete_all_bar())
        else:
            self.container.append(note(say("no_conversations")))
        self.container.hidden = False
        self.button.setAttribute("aria-expanded", "true")

    def _open(self, conversation_id):
        self.panel.spawn(self._open_conversation(conversation_id))

    async def _open_conversation(self, conversation_id):
        panel = self.panel
        await panel.answering.settle()
        opened = await panel.client.call(
            "open_conversation", history=panel.keeper.get("history"), id=conversation_id
        )
        self.hide()
        panel.show_conversation(opened.conversation)
        panel.keeper.set_session(opened.session)
        panel.composer.focus()

    def _delete(self, conversation_id):
        self.panel.spawn(self._delete_conversation(conversation_id))

    async def _delete_conversation(self, conversation_id):
        panel = self.panel
        await panel.answering.settle()
        deleted = await panel.keeper.write("delete_conversation", id=conversation_id)
        await panel.keeper.write("drop_feedback", stored="feedback", id=conversation_id)
        if deleted.on_screen:  # the worker let it go too; the panel empties
            panel.show_conversation(None)
        panel.keeper.set_session(deleted.session)
        await self._show_again()

    async def _delete_all(self):
        panel = self.panel
        await panel.answering.settle()
        cleared = await panel.client.call("delete_all")
        panel.keeper.remove("history")
        panel.keeper.remove("feedback")
        panel.show_conversation(None)
        panel.keeper.set_session(cleared.session)
        await self._show_again()

    async def _show_again(self):
        """Redraw the list after a delete; focus was on a button the redraw removed, so it
        goes to the first row left, else back to the clock button."""
        await self.show()
        first = self.container.querySelector("button.open")
        (first or self.button).focus()

    def _delete_all_bar(self):
        arm = h("button", {"class": "text", "type": "button"}, say("delete_all"))
        confirm = h("button", {"class": "text strong", "type": "button"}, say("confirm_delete_all"))
        cancel = h("button", {"class": "text", "type": "button"}, say("cancel"))

        def armed(on):
            arm.hidden = on
            confirm.hidden = cancel.hidden = not on
            (cancel if on else arm).focus()

        listen(arm, "click", lambda event: armed(True))
        listen(cancel, "click", lambda event: armed(False))
        listen(confirm, "click", lambda event: self.panel.spawn(self._delete_all()))
        confirm.hidden = cancel.hidden = True
        return h("div", {"class": "danger"}, arm, confirm, cancel)
