"""What this tab keeps, and when (MicroPython): the archive, the feedback log, the
session, the draft and the reader's instruction.

The worker decides every value; this module reads what is stored, hands it over
and writes back what returns, under the cross-tab lock::

    keeper = Keeper(bridge, client, lifecycle)
    await keeper.write("save", checkpoint=False)       # read, merge in the worker, write
    await keeper.write("delete_conversation", id="c1")
    await keeper.write("drop_feedback", stored="feedback", id="c1")   # the feedback log

It also writes the session on ``pagehide`` (synchronously: no round trip to the
worker can finish then), answers other tabs' ``storage`` events and keeps the
redacted draft.
"""

import asyncio

from pyscript import window
from pyscript.ffi import to_js

from docs_panel.shell.storage import Store

TYPE_CHECKING = False  # MicroPython has no typing module; mypy reads the block
if TYPE_CHECKING:
    from docs_panel.shell.records import StartReply

DRAFT_DELAY_S = 0.4
LOCAL_KEYS = ("history", "feedback", "consent")  # the rest live in sessionStorage


class Keeper:
    def __init__(self, bridge, client, lifecycle):
        self.keys = bridge.keys
        self.client = client
        self.lifecycle = lifecycle
        self.local = Store("localStorage")
        self.tab = Store("sessionStorage")
        self.record = False
        self.keep_in_flight = False
        self.session = None  # this tab's "conversation" value, from the worker
        self.private = False  # the conversation on screen is private (shell/private.py)
        self._draft_task = None

    def area(self, name):
        return self.local if name in LOCAL_KEYS else self.tab

    def get(self, name):
        return self.area(name).get(self.keys[name])

    def remove(self, name):
        self.area(name).remove(self.keys[name])

    def configure(self, started: "StartReply"):
        self.record = started.record
        self.keep_in_flight = started.keep_in_flight
        self.forget(started.forget)

    def forget(self, names):
        """Remove these keys: "record nothing" means nothing (docs_panel.core.consent)."""
        for name in names:
            self.remove(name)

    async def consent(self, choice):
        """The reader chose (docs_panel.core.consent): store the choice, and write what this
        visit kept in memory once recording starts, or forget what was kept."""
        chose = await self.client.call("consent", choice=choice)
        started = chose.record and not self.record
        self.record = chose.record
        self.keep_in_flight = chose.keep_in_flight
        if chose.stored is not None:
            self.local.set(self.keys["consent"], chose.stored)
        self.forget(chose.forget)
        if started:
            if self.session is not None:
                self.set_session(self.session)
            await self.persist()
        return chose.record

    async def restore(self):
        """This tab's conversation (a Conversation record or None) and its draft, if
        the tab is the one that left them; stored values are brought up to date."""
        restored = await self.client.call(
            "restore",
            history=self.get("history"),
            session=self.get("conversation"),
            private=self.get("private"),
        )
        self.private = restored.private
        if restored.rewrite:  # an older schema, or garbage skipped
            await self.write("normalize")
        draft = self.get("composer.draft") if restored.adopted else None
        if not restored.adopted:  # a copy of the sessionStorage of the tab that opened this one
            self.remove("composer.draft")
            self.remove("private")
        self.set_session(restored.session)
        if restored.persist:  # the answer that was streaming came back as a stopped turn
            await self.persist()
        return restored.conversation, draft

    async def write(self, call, stored="history", **args):
        """Run ``call`` on the ``stored`` value (the archive, or the feedback log) and store
        what it returns, under its cross-tab lock, evicting archive entries on a full
        quota; the call's reply."""
        # The stored value and the new one stay in JavaScript (store.mjs): the reply's
        # value says what writing did, None when there was nothing to write. The log is
        # small and bounded: not worth evicting for.
        evict = "evict" if stored == "history" else None
        # A User Timing entry per write: devtools and bench/run.py see what it costs.
        started = window.performance.now()
        reply = await self.client.update(self.local, self.keys[stored], stored, call, evict, **args)
        window.performance.measure(
            "docs-panel:" + stored + "-write",
            to_js({"start": started, "end": window.performance.now()}),
        )
        return reply

    async def persist(self, checkpoint=False):
        """Merge this tab's conversation into the archive (``checkpoint``: with the
        answer streaming now, as a stopped turn); a private one goes to this tab's
        sessionStorage instead, and never to localStorage."""
        if not self.record:
            return
        if self.private:
            value = (await self.client.call("private_copy", checkpoint=checkpoint)).copy
            if value is not None:
                self.tab.set(self.keys["private"], value)
        else:
            await self.write("save", checkpoint=checkpoint)

    def set_private(self, on):
        """The conversation on screen is private from now on (or no longer: another one
        is on screen, and the private one is let go)."""
        self.private = on
        if not on:
            self.remove("private")

    def set_session(self, session):
        self.session = session
        if self.record:
            self.tab.set(self.keys["conversation"], session)

    def set_instruction(self, text):
        """The reader's instruction: this tab's sessionStorage only, and only when recording."""
        if not self.record:
            return
        if text.strip():
            self.tab.set(self.keys["instruction"], text)
        else:
            self.remove("instruction")

    def on_pagehide(self, panel_open):
        # The next page of this tab finds "left" and carries on; a copy does not.
        if self.record and self.session is not None:
            value = self.lifecycle.leaving(self.session, panel_open, self.keep_in_flight)
            self.tab.set(self.keys["conversation"], value)

    def on_pageshow(self, event):
        if event.persisted and self.session is not None:  # back from the page cache
            self.set_session(self.session)

    def on_storage(self, event, spawn):
        if self.client.ready and event.key == self.keys["history"]:
            spawn(self._rewrite_if_regressed(event.newValue))

    async def _rewrite_if_regressed(self, value):
        if (await self.client.call("check_regressed", history=value)).regressed:
            await self.persist()

    def draft_changed(self, text, spawn):
        if self.client.ready and self.record:
            if self._draft_task is not None:
                self._draft_task.cancel()
            self._draft_task = spawn(self._save_draft(text))

    def draft_sent(self):
        """The composer's text went out as a question: it is no draft any more, and the
        write its last keystroke scheduled must not land after this (a question is sent
        sooner than DRAFT_DELAY_S after its last key more often than not)."""
        if self._draft_task is not None:
            self._draft_task.cancel()
            self._draft_task = None
        self.remove("composer.draft")

    async def _save_draft(self, text):
        await asyncio.sleep(DRAFT_DELAY_S)
        if text.strip():
            redacted = await self.client.call("redact", text=text)
            self.tab.set(self.keys["composer.draft"], redacted.text)
        else:
            self.remove("composer.draft")
