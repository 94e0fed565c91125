"""The panel on the page: DOM, events, storage, and calls to the worker (MicroPython).

The shell decides nothing that needs a test of its own. It draws the panel in
the Shadow DOM embed.js made, starts the Pyodide worker once the panel is on
screen, passes stored strings to the worker and writes back what it returns::

    panel = Panel()
    panel.start()          # draw, open if the reader clicked, boot the worker

Questions sent while the worker boots wait in ``pending`` and are answered as
soon as it is ready; nothing is stored before then (nothing unredacted, ever).
"""

import asyncio
import io
import json
import sys

import js
from pyscript import create_named_worker, window
from pyscript.ffi import create_proxy, to_js

from shell.dom import clear, h, icon
from shell.storage import Store, locked

WORKER_NAME = "docs-panel-worker"
DRAFT_DELAY_S = 0.4


class Panel:
    def __init__(self):
        self.bridge = window.__docsPanel
        self.root = self.bridge.root
        self.launcher = self.bridge.launcher
        self.local = Store("localStorage")
        self.tab = Store("sessionStorage")
        self.worker = None
        self.keys = {}
        self.lock_name = None
        self.record = False
        self.save_on_unload = False
        self.streaming = None  # the answer streaming now: {"record", "parts"}
        self.answering = None  # set once the answer being made is drawn and stored
        self.session = None  # this tab's value for the "conversation" key, from the worker
        self.scopes = []
        self.pending = []
        self.language = "en"
        self._draft_task = None
        self._proxies = []  # a dropped proxy stops firing: keep them all

    def on(self, element, event, handler):
        proxy = create_proxy(handler)
        self._proxies.append(proxy)
        element.addEventListener(event, proxy)

    def spawn(self, coroutine):
        """Run ``coroutine`` as a task whose failure is reported, never lost."""
        return asyncio.create_task(self._reported(coroutine))

    async def _reported(self, coroutine):
        try:
            await coroutine
        except asyncio.CancelledError:
            raise
        except Exception as err:
            trace = io.StringIO()
            sys.print_exception(err, trace)
            window.console.error("docs-panel: " + trace.getvalue())

    # -- drawing -----------------------------------------------------------

    def start(self):
        self.draw()
        toggle = create_proxy(self.toggle)
        self._proxies.append(toggle)
        self.bridge.toggle = toggle
        self.launcher.removeAttribute("aria-busy")
        if self.bridge.openOnReady:
            self.open()
        # The real window object: pyscript's `window` proxy cannot be the `this`
        # of addEventListener ("Illegal invocation").
        page = js.globalThis
        self.on(page, "pagehide", self.on_pagehide)
        self.on(page, "pageshow", self.on_pageshow)
        self.on(page, "storage", self.on_storage)
        self.spawn(self.boot_worker())

    def button(self, label, name, handler, css="icon"):
        element = h(
            "button",
            {"class": css, "type": "button", "aria-label": label, "title": label},
            icon(name),
        )
        self.on(element, "click", handler)
        return element

    def draw(self):
        self.history_button = self.button("Conversation history", "clock", self.on_history)
        self.history_button.setAttribute("aria-expanded", "false")
        self.history_button.disabled = True
        header = h(
            "div",
            {"class": "header"},
            h("h2", None, "Ask the docs"),
            self.history_button,
            self.button("New chat", "compose", lambda event: self.spawn(self.new_chat())),
            self.button("Close", "close", lambda event: self.close()),
        )
        self.history = h("div", {"class": "history", "hidden": True})
        self.progress = h(
            "div",
            {"class": "progress", "role": "progressbar", "aria-label": "Loading the assistant"},
        )
        self.status = h(
            "p",
            {"class": "status", "role": "status", "hidden": True},
            "The docs have changed since this conversation. Some links may no longer work.",
        )
        self.thread = h("div", {"class": "thread", "aria-live": "polite"})
        self.scope_row = h("label", {"class": "scope", "hidden": True}, "Search in")
        self.scope_select = h("select", {"aria-label": "Search in"})
        self.scope_row.append(self.scope_select)
        self.input = h(
            "textarea",
            {
                "rows": "1",
                "aria-label": "Ask a question",
                "placeholder": "Ask a question…",
                "enterkeyhint": "send",
            },
        )
        self.send = h("button", {"class": "send", "type": "submit"}, "Send")
        self.stop_button = h(
            "button", {"class": "send stop", "type": "button", "hidden": True}, "Stop"
        )
        self.on(self.stop_button, "click", lambda event: self.stop())
        form = h(
            "form",
            {"class": "composer"},
            self.scope_row,
            h("div", {"class": "row"}, self.input, self.send, self.stop_button),
            h("p", {"class": "fineprint"}, "Answers are drawn from these docs only."),
        )
        self.panel = h(
            "section",
            {"class": "panel", "role": "region", "aria-label": "Docs assistant", "hidden": True},
            header,
            self.history,
            self.progress,
            self.status,
            self.thread,
            form,
        )
        self.root.append(self.panel)
        self.show_empty()

        self.on(form, "submit", self.on_submit)
        self.on(self.input, "keydown", self.on_key)
        self.on(self.input, "input", self.on_input)
        self.on(self.panel, "keydown", self.on_panel_key)

    def show_empty(self):
        clear(self.thread)
        self.status.hidden = True
        self.thread.append(
            h(
                "div",
                {"class": "empty"},
                h("strong", None, "Ask about these docs"),
                "Answers link to the sections they come from.",
            )
        )

    def fit_input(self):
        self.input.style.height = "auto"
        self.input.style.height = str(self.input.scrollHeight + 2) + "px"

    # -- open / close --------------------------------------------------------

    def toggle(self, *args):
        if self.panel.hidden:
            self.open()
        else:
            self.close()

    def open(self):
        self.panel.hidden = False
        self.launcher.setAttribute("aria-expanded", "true")
        self.input.focus()

    def close(self):
        self.panel.hidden = True
        self.launcher.setAttribute("aria-expanded", "false")
        self.launcher.focus()

    # -- asking --------------------------------------------------------------

    def on_panel_key(self, event):
        if event.key == "Escape":
            self.close()

    def on_key(self, event):
        if event.key == "Enter" and not event.shiftKey and not event.isComposing:
            event.preventDefault()
            self.submit()

    def on_submit(self, event):
        event.preventDefault()
        self.submit()

    def submit(self):
        question = self.input.value.strip()
        if not question or self.streaming is not None:  # one answer at a time
            return
        self.input.value = ""
        self.fit_input()
        scope = self.scope_select.value if self.scopes else ""
        self.ask(question, scope, "")

    def ask(self, question, scope, quote):
        empty = self.thread.querySelector(".empty")
        if empty:
            empty.remove()
        turn = self.add_turn(question, quote)
        if self.worker is None:
            turn.append(
                h(
                    "p",
                    {"class": "note pending"},
                    "The assistant is loading; your question is next.",
                )
            )
            self.pending.append((question, scope, quote, turn))
        else:
            self.spawn(self.answer(question, scope, quote, turn))
        self.thread.scrollTop = self.thread.scrollHeight

    def add_turn(self, question, quote):
        turn = h("article", {"class": "turn"})
        if quote:
            turn.append(h("blockquote", {"class": "quote"}, quote))
        turn.append(h("p", {"class": "question"}, question))
        self.thread.append(turn)
        return turn

    async def answer(self, question, scope, quote, turn):
        """Answer in ``turn``; ``settle`` waits on ``answering`` until it is drawn and stored."""
        finished = asyncio.Event()
        self.answering = finished
        try:
            await self.make_answer(question, scope, quote, turn)
        finally:
            finished.set()
            if self.answering is finished:
                self.answering = None

    async def make_answer(self, question, scope, quote, turn):
        try:
            reply = json.loads(await self.worker.ask(question, scope, quote))
        except Exception as err:
            window.console.error("docs-panel: search failed", str(err))
            turn.append(
                h(
                    "p",
                    {"class": "note error", "role": "alert"},
                    "Something went wrong while searching. Please try again.",
                )
            )
            return
        self.set_session(reply["session"])
        self.tab.remove(self.keys["composer.draft"])
        if reply["streaming"]:
            # Show what is kept: the question as stored, credentials masked.
            turn.querySelector(".question").textContent = reply["question"]
            final = await self.stream_answer(reply, turn)
            view, failed = final["turn"], final["failed"]
            self.set_session(final["session"])
        else:
            view, failed = reply["turn"], False
            turn.querySelector(".question").textContent = view["question"]
        self.show_answer(turn, view, failed)
        if failed or not reply["streaming"]:  # new content below: show where the turn starts
            self.thread.scrollTop = turn.offsetTop - self.thread.offsetTop - 8
        await self.persist()

    async def stream_answer(self, reply, turn):
        """Draw the answer as it arrives, until the worker sends the final turn."""
        reasoning_text = h("div", {"class": "reasoning-text"})
        reasoning = h(
            "details",
            {"class": "reasoning", "hidden": True},
            h("summary", None, "Reasoning"),
            reasoning_text,
        )
        stable = h("div")
        tail = h("div")
        body = h("div", {"class": "answer"}, stable, tail)
        turn.append(reasoning)
        turn.append(body)
        turn.setAttribute("aria-busy", "true")  # screen readers read the answer once, whole
        self.streaming = {"record": reply["inFlight"], "parts": []}
        self.show_stop(True)
        try:
            while True:
                update = json.loads(await self.worker.pull())
                started = window.performance.now()
                follow = self.near_bottom()
                if update["stable"]:
                    stable.insertAdjacentHTML("beforeend", update["stable"])  # sanitized
                if update["tail"] is not None:
                    tail.innerHTML = update["tail"]  # sanitized by the worker's one Cleaner
                if update["reasoning"]:
                    reasoning.hidden = False
                    reasoning_text.append(update["reasoning"])  # a text node: never markup
                if update["text"]:
                    self.streaming["parts"].append(update["text"])
                if follow:
                    self.thread.scrollTop = self.thread.scrollHeight
                # Devtools and bench/stream_bench.py see what each update costs the page.
                window.performance.measure(
                    "docs-panel:paint",
                    to_js({"start": started, "end": window.performance.now()}),
                )
                if update["checkpoint"]:
                    await self.persist()
                if update["final"] is not None:
                    return update["final"]
        finally:
            turn.removeAttribute("aria-busy")
            self.streaming = None
            self.show_stop(False)

    def near_bottom(self):
        thread = self.thread
        return thread.scrollHeight - thread.scrollTop - thread.clientHeight < 48

    def show_stop(self, streaming):
        """Stop replaces Send while an answer streams; focus on Stop returns to the textbox."""
        had_focus = self.root.activeElement == self.stop_button
        self.send.hidden = streaming
        self.stop_button.hidden = not streaming
        if had_focus:
            self.input.focus()

    def stop(self):
        if self.streaming is not None:
            self.spawn(self.worker.stop())

    async def settle(self):
        """Stop the answer streaming, if any, and wait until it is drawn and stored."""
        answering = self.answering
        if answering is not None:
            if self.streaming is not None:
                await self.worker.stop()
            await answering.wait()

    def show_answer(self, turn, view, failed=False):
        """Draw a finished turn's answer: text, sources, Stopped + Ask again; or results."""
        for old in turn.querySelectorAll(".answer, .after, .sources-block"):
            old.remove()
        if view["status"] == "results":
            if failed:
                turn.append(
                    h(
                        "p",
                        {"class": "note"},
                        "The assistant could not answer just now, "
                        "so here are the best-matching sections.",
                    )
                )
            self.show_results(turn, view["results"], not failed)
            return
        body = h("div", {"class": "answer"})
        body.innerHTML = view["answer"]  # rendered and sanitized by the worker
        turn.append(body)
        if view["status"] == "stopped":
            again = h("button", {"class": "text", "type": "button"}, "Ask again")
            self.on(
                again,
                "click",
                lambda event: self.ask_again(view["question"], view["scope"], view["quote"]),
            )
            turn.append(
                h("div", {"class": "after"}, h("span", {"class": "stopped"}, "Stopped"), again)
            )
        if view["sources"]:
            items = h("ol", {"class": "sources", "aria-label": "Sources"})
            for source in view["sources"]:
                item = h("li", None, h("a", {"href": source["address"]}, source["title"]))
                if source["ref"]:
                    item.setAttribute("value", str(source["ref"]))
                items.append(item)
            turn.append(
                h("div", {"class": "sources-block"}, h("p", {"class": "label"}, "Sources"), items)
            )

    def ask_again(self, question, scope, quote):
        if self.streaming is None:
            self.ask(question, scope, quote)

    def show_results(self, turn, results, intro=True):
        if not results:
            turn.append(
                h("p", {"class": "note"}, "No section of the docs matches that. Try other words.")
            )
            return
        if intro:
            turn.append(h("p", {"class": "note"}, "The best-matching sections of the docs:"))
        items = h("ol", {"class": "results", "aria-label": "Search results"})
        for result in results:
            items.append(
                h(
                    "li",
                    None,
                    h("a", {"href": result["address"]}, result["title"]),
                    h("span", {"class": "page"}, result["page"]) if result["page"] else None,
                    h("p", {"class": "snippet"}, result["snippet"]),
                )
            )
        turn.append(items)

    def show_conversation(self, view):
        clear(self.thread)
        if view is None:
            self.show_empty()
            return
        self.status.hidden = not view["docsChanged"]
        for turn_view in view["turns"]:
            turn = self.add_turn(turn_view["question"], turn_view["quote"])
            self.show_answer(turn, turn_view)
        self.thread.scrollTop = self.thread.scrollHeight

    async def new_chat(self):
        await self.settle()
        self.pending = []
        self.show_empty()
        self.input.focus()
        if self.worker is not None:
            self.set_session(json.loads(await self.worker.new_chat())["session"])

    # -- the worker ----------------------------------------------------------

    async def boot_worker(self):
        # Let the panel paint before Pyodide's start-up work competes for the main thread.
        await asyncio.sleep(0.05)
        urls = self.bridge.urls
        config = {"interpreter": urls.pyodide, "files": {urls.workerZip: "./*"}}
        try:
            worker = await create_named_worker(urls.worker, WORKER_NAME, json.dumps(config))
            reply = json.loads(
                await worker.start(
                    self.bridge.config, self.bridge.lang, urls.index, window.location.href
                )
            )
        except Exception as err:  # the panel must say so, not hang on a progress bar
            self.fail("The assistant could not start. Reload the page to try again.", err)
            return
        for message in reply["errors"]:
            window.console.error(message)
        self.keys = reply["keys"]
        self.record = reply["record"]
        self.save_on_unload = reply["saveOnUnload"]
        self.lock_name = reply["lockName"]
        self.language = reply["language"]
        self.set_scopes(reply["config"]["scopes"])
        self.worker = worker
        if self.record:
            await self.restore()
        else:  # "Record nothing" means nothing: forget what an earlier visit kept.
            for name, key in self.keys.items():
                (self.local if name in ("history", "feedback") else self.tab).remove(key)
        self.progress.remove()
        self.history_button.disabled = False
        pending, self.pending = self.pending, []
        for question, scope, quote, turn in pending:
            turn.querySelector(".pending").remove()
            await self.answer(question, scope, quote, turn)

    async def restore(self):
        reply = json.loads(
            await self.worker.restore(
                self.local.get(self.keys["history"]), self.tab.get(self.keys["conversation"])
            )
        )
        if reply["rewrite"]:
            await locked(self.lock_name, self.normalize)
        draft_key = self.keys["composer.draft"]
        if reply["adopted"]:
            draft = self.tab.get(draft_key)
            if draft and not self.input.value:
                self.input.value = draft
                self.fit_input()
        else:  # a copy of the sessionStorage of the tab that opened this one
            self.tab.remove(draft_key)
        if reply["conversation"] is not None:
            self.show_conversation(reply["conversation"])
            for pending in self.pending:  # asked meanwhile: they follow on
                self.thread.append(pending[3])
        self.set_session(reply["session"])
        if reply["persist"]:  # the answer that was streaming came back as a stopped turn
            await self.persist()

    async def normalize(self, lock):
        value = await self.worker.normalize(self.local.get(self.keys["history"]))
        if value is not None:
            self.local.set(self.keys["history"], value)

    def set_scopes(self, scopes):
        self.scopes = scopes
        for scope in scopes:
            self.scope_select.append(h("option", {"value": scope["id"]}, scope["label"]))
        self.scope_row.hidden = not scopes

    def fail(self, message, err):
        window.console.error("docs-panel: " + message, str(err))
        self.progress.remove()
        self.thread.append(h("p", {"class": "note error", "role": "alert"}, message))

    # -- storage -------------------------------------------------------------

    def set_session(self, session):
        self.session = session
        if self.record:
            self.tab.set(self.keys["conversation"], json.dumps(session))

    async def persist(self):
        """Merge this tab's conversation into the archive, under the cross-tab lock."""
        if self.record:
            await locked(self.lock_name, self.write_history)

    async def write_history(self, lock):
        # A User Timing entry per write (read, merge in the worker, write): devtools
        # and bench/run.py see how long a write takes at a full archive.
        started = window.performance.now()
        key = self.keys["history"]
        # The archive string goes through as it is, never through json here.
        first = value = await self.worker.save(self.local.get(key))
        while value is not None and not self.local.set(key, value):
            value = await self.worker.evict(value)
        if value is None and first is not None:
            window.console.warn("docs-panel: this answer is too large to keep on this device")
        window.performance.measure(
            "docs-panel:history-write", to_js({"start": started, "end": window.performance.now()})
        )

    def on_pagehide(self, event):
        # Synchronous, no worker round trip: the page is going. The next page of
        # this tab finds "left" and carries on; a tab copied from this one does not.
        if self.record and self.session is not None:
            session = dict(self.session)
            session["left"] = True
            session["open"] = not self.panel.hidden
            if self.streaming is not None and self.save_on_unload:
                # The answer so far; the next page of this tab keeps it as a stopped turn.
                record = dict(self.streaming["record"])
                record["answer"] = "".join(self.streaming["parts"])
                session["inflight"] = record
            self.tab.set(self.keys["conversation"], json.dumps(session))

    def on_pageshow(self, event):
        if event.persisted and self.session is not None:  # back from the page cache
            self.set_session(self.session)

    def on_storage(self, event):
        if self.worker is not None and event.key == self.keys.get("history"):
            self.spawn(self.rewrite_if_regressed(event.newValue))

    async def rewrite_if_regressed(self, value):
        if json.loads(await self.worker.check_regressed(value))["regressed"]:
            await self.persist()

    def on_input(self, event):
        self.fit_input()
        if self.worker is not None and self.record:
            if self._draft_task is not None:
                self._draft_task.cancel()
            self._draft_task = self.spawn(self.save_draft())

    async def save_draft(self):
        await asyncio.sleep(DRAFT_DELAY_S)
        text = self.input.value
        key = self.keys["composer.draft"]
        if text.strip():
            self.tab.set(key, await self.worker.redact(text))
        else:
            self.tab.remove(key)

    # -- history list --------------------------------------------------------

    def on_history(self, event):
        if self.history.hidden:
            self.spawn(self.show_history())
        else:
            self.hide_history()

    def hide_history(self):
        self.history.hidden = True
        self.history_button.setAttribute("aria-expanded", "false")

    async def show_history(self):
        reply = json.loads(await self.worker.conversations(self.local.get(self.keys["history"])))
        clear(self.history)
        rows = reply["rows"]
        if rows:
            items = h("ul", {"class": "conversations", "aria-label": "Conversations"})
            for row in rows:
                items.append(self.history_row(row, row["id"] == reply["current"]))
            self.history.append(items)
            self.history.append(self.delete_all_bar())
        else:
            self.history.append(h("p", {"class": "note"}, "No conversations yet."))
        self.history.hidden = False
        self.history_button.setAttribute("aria-expanded", "true")

    def history_row(self, row, current):
        value, unit = row["when"]
        opener = h(
            "button",
            {"class": "open", "type": "button", "aria-current": "true" if current else None},
            h("span", {"class": "title"}, row["title"]),
            h("span", {"class": "when"}, self.bridge.relativeTime(self.language, value, unit)),
        )
        self.on(opener, "click", lambda event: self.spawn(self.open_conversation(row["id"])))
        remove = self.button(
            "Delete conversation",
            "bin",
            lambda event: self.spawn(self.delete_conversation(row["id"])),
            css="icon bin",
        )
        return h("li", None, opener, remove)

    def delete_all_bar(self):
        bar = h("div", {"class": "danger"})
        arm = h("button", {"class": "text", "type": "button"}, "Delete all")
        confirm = h("button", {"class": "text strong", "type": "button"}, "Confirm delete all")
        cancel = h("button", {"class": "text", "type": "button"}, "Cancel")

        def armed(on):
            arm.hidden = on
            confirm.hidden = cancel.hidden = not on
            (cancel if on else arm).focus()

        self.on(arm, "click", lambda event: armed(True))
        self.on(cancel, "click", lambda event: armed(False))
        self.on(confirm, "click", lambda event: self.spawn(self.delete_all()))
        bar.append(arm)
        bar.append(confirm)
        bar.append(cancel)
        confirm.hidden = cancel.hidden = True
        return bar

    async def open_conversation(self, conversation_id):
        await self.settle()
        reply = json.loads(
            await self.worker.open_conversation(
                self.local.get(self.keys["history"]), conversation_id
            )
        )
        self.hide_history()
        self.show_conversation(reply["conversation"])
        self.set_session(reply["session"])
        self.input.focus()

    async def delete_conversation(self, conversation_id):
        await self.settle()

        async def write(lock):
            key = self.keys["history"]
            value = await self.worker.delete_conversation(self.local.get(key), conversation_id)
            if value is not None:
                self.local.set(key, value)

        await locked(self.lock_name, write)
        if self.session is not None and self.session["id"] == conversation_id:
            # It was on screen: the worker let it go too; the panel empties.
            self.show_empty()
            self.set_session(json.loads(await self.worker.new_chat())["session"])
        await self.show_history()

    async def delete_all(self):
        await self.settle()
        reply = json.loads(await self.worker.delete_all())
        self.local.remove(self.keys["history"])
        self.local.remove(self.keys["feedback"])
        self.show_empty()
        self.set_session(reply["session"])
        await self.show_history()
