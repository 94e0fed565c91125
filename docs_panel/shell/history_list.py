"""The history list under the header (MicroPython): re-read from storage each time
it opens, "Search conversations" atop it, rows to reopen, export or delete a
conversation, and a bar with "Export all", "Import" and a two-step "Delete all"::

    history = HistoryList(container, button, panel)
    await history.show()      # list "Conversations", newest activity first

The worker filters the rows (``conversations`` with the reader's words), writes the
export file and merges an imported one; this module draws and moves files.
"""

from pyscript import window
from pyscript.ffi import to_js

from docs_panel.shell.dom import clear, h, listen
from docs_panel.shell.files import download, read_chosen
from docs_panel.shell.views import history_row, note
from docs_panel.shell.words import LANGUAGE, say

REFUSED = {"other_site": "import_other_site", "newer": "import_newer", "damaged": "import_damaged"}
"""Why the worker refused a file -> the one message the reader gets."""


class HistoryList:
    def __init__(self, container, button, panel):
        self.container = container
        self.button = button
        self.panel = panel  # the wiring: client, keeper, answering, drawing the thread
        self.search = h(
            "input",
            {
                "type": "search",
                "class": "search",
                "aria-label": say("search_conversations"),
                "placeholder": say("search_conversations"),
                "dir": "auto",
            },
        )
        listen(self.search, "input", lambda event: panel.spawn(self._filter(again=True)))
        self.said = h("div", {"class": "said"})  # what an import did
        self.rows = h("div")  # the list, or why there is none
        self.picker = h(
            "input", {"type": "file", "accept": ".json,application/json", "hidden": True}
        )
        listen(self.picker, "change", lambda event: panel.spawn(self._import()))
        self.bar = self._bar()
        for part in (self.search, self.said, self.rows, self.bar, self.picker):
            container.append(part)
        self._asked = 0  # the latest filtering asked for: an older reply is not drawn

    @property
    def shown(self):
        return not self.container.hidden

    def toggle(self):
        if self.shown:
            self.hide()
        else:
            self.said.textContent = ""
            self.panel.spawn(self.show())

    def hide(self):
        self.container.hidden = True
        self.button.setAttribute("aria-expanded", "false")

    async def show(self):
        await self._filter()
        self.container.hidden = False
        self.button.setAttribute("aria-expanded", "true")

    async def _filter(self, again=False):
        """Draw the rows that hold the search box's words (all when it is empty), from the
        archive as stored now, or ``again`` from the one the list last read."""
        panel = self.panel
        self._asked += 1
        asked, started = self._asked, window.performance.now()
        query = self.search.value
        if again:
            listing = await panel.client.call("filter_conversations", query=query)
        else:
            listing = await panel.client.call(
                "conversations", history=panel.keeper.get("history"), query=query
            )
        if asked != self._asked:  # the reader typed on meanwhile
            return
        clear(self.rows)
        if listing.rows:
            items = h("ul", {"class": "conversations", "aria-label": say("conversations")})
            for row in listing.rows:
                when = panel.bridge.relativeTime(LANGUAGE, row.when_value, row.when_unit)
                current = row.id == listing.current
                items.append(
                    history_row(row, current, when, self._open, self._export, self._delete)
                )
            self.rows.append(items)
        else:
            self.rows.append(note(say("no_matches" if query.strip() else "no_conversations")))
        everything = bool(listing.rows) or bool(query.strip())  # something is stored
        self.search.hidden = not everything
        for part in self.bar.querySelectorAll(".stored"):
            part.hidden = not everything
        for part in self.bar.querySelectorAll(".armed"):  # "Delete all" starts unarmed
            part.hidden = True
        # "Record nothing" means nothing: no file is merged into storage then.
        self.bar.querySelector(".import").hidden = not panel.keeper.record
        # Devtools and bench/history_search.py see what filtering costs, typing to drawn.
        window.performance.measure(
            "docs-panel:history-search",
            to_js({"start": started, "end": window.performance.now()}),
        )

    def _open(self, conversation_id):
        self.panel.spawn(self._open_conversation(conversation_id))

    async def _open_conversation(self, conversation_id):
        panel = self.panel
        await panel.answering.settle()
        opened = await panel.client.call(
            "open_conversation", history=panel.keeper.get("history"), id=conversation_id
        )
        self.hide()
        panel.privacy.leave()
        panel.show_conversation(opened.conversation)
        panel.keeper.set_session(opened.session)
        panel.composer.focus()

    def _export(self, conversation_id):
        self.panel.spawn(self._export_file(conversation_id))

    async def _export_file(self, conversation_id):
        panel = self.panel
        exported = await panel.client.call(
            "export", history=panel.keeper.get("history"), id=conversation_id
        )
        await download(panel.root, exported.name, exported.text)

    async def _import(self):
        text = await read_chosen(self.picker)
        if text is None:
            return
        imported = await self.panel.keeper.write("import_file", text=text)
        clear(self.said)
        if imported.refused:
            self.said.append(note(say(REFUSED[imported.refused]), "note error", "alert"))
        else:
            self.said.append(note(say("imported", n=imported.changed), "note", "status"))
            await self._filter()
        self.bar.querySelector(".import").focus()

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
        panel.privacy.leave()
        panel.show_conversation(None)
        panel.keeper.set_session(cleared.session)
        self.search.value = ""
        await self._show_again()

    async def _show_again(self):
        """Redraw the list after a delete; focus was on a button the redraw removed, so it
        goes to the first row left, else back to the clock button."""
        await self.show()
        first = self.container.querySelector("button.open")
        (first or self.button).focus()

    def _bar(self):
        export_all = h("button", {"class": "text stored", "type": "button"}, say("export_all"))
        listen(export_all, "click", lambda event: self._export(""))
        pick = h("button", {"class": "text import", "type": "button"}, say("import"))
        listen(pick, "click", lambda event: self.picker.click())
        arm = h("button", {"class": "text stored", "type": "button"}, say("delete_all"))
        confirm = h(
            "button", {"class": "text strong armed", "type": "button"}, say("confirm_delete_all")
        )
        cancel = h("button", {"class": "text armed", "type": "button"}, say("cancel"))
        danger = h("div", {"class": "danger"}, arm, confirm, cancel)

        def armed(on):
            arm.hidden = on
            confirm.hidden = cancel.hidden = not on
            (cancel if on else arm).focus()

        listen(arm, "click", lambda event: armed(True))
        listen(cancel, "click", lambda event: armed(False))
        listen(confirm, "click", lambda event: self.panel.spawn(self._delete_all()))
        confirm.hidden = cancel.hidden = True
        return h("div", {"class": "tools"}, export_all, pick, danger)
