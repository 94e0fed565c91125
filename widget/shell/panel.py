"""The panel on the page: DOM, events, and calls to the worker (MicroPython).

The shell decides nothing that needs a test of its own. It draws the panel in
the Shadow DOM embed.js made, starts the Pyodide worker once the panel is on
screen, and shows what the worker returns::

    panel = Panel()
    panel.start()          # draw, open if the reader clicked, boot the worker

Questions sent while the worker boots wait in ``pending`` and are answered as
soon as it is ready; nothing unredacted is stored meanwhile (nothing is stored).
"""

import asyncio
import json

from pyscript import create_named_worker, window
from pyscript.ffi import create_proxy

from shell.dom import clear, h, icon

WORKER_NAME = "docs-panel-worker"


class Panel:
    def __init__(self):
        self.bridge = window.__docsPanel
        self.root = self.bridge.root
        self.launcher = self.bridge.launcher
        self.worker = None
        self.scopes = []
        self.pending = []
        self._proxies = []  # a dropped proxy stops firing: keep them all
        self._tasks = set()  # likewise a running task, until it is done

    def spawn(self, coroutine):
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def on(self, element, event, handler):
        proxy = create_proxy(handler)
        self._proxies.append(proxy)
        element.addEventListener(event, proxy)

    # -- drawing -----------------------------------------------------------

    def start(self):
        self.draw()
        toggle = create_proxy(self.toggle)
        self._proxies.append(toggle)
        self.bridge.toggle = toggle
        self.launcher.removeAttribute("aria-busy")
        if self.bridge.openOnReady:
            self.open()
        self.spawn(self.boot_worker())

    def draw(self):
        self.title = h("h2", {"id": "dp-title"}, "Ask the docs")
        new_chat = h(
            "button",
            {"class": "icon", "type": "button", "aria-label": "New chat", "title": "New chat"},
            icon("compose"),
        )
        close = h(
            "button",
            {"class": "icon", "type": "button", "aria-label": "Close", "title": "Close"},
            icon("close"),
        )
        self.progress = h(
            "div",
            {"class": "progress", "role": "progressbar", "aria-label": "Loading the assistant"},
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
        form = h(
            "form",
            {"class": "composer"},
            self.scope_row,
            h("div", {"class": "row"}, self.input, self.send),
            h("p", {"class": "fineprint"}, "Answers are drawn from these docs only."),
        )
        self.panel = h(
            "section",
            {"class": "panel", "role": "region", "aria-label": "Docs assistant", "hidden": True},
            h("div", {"class": "header"}, self.title, new_chat, close),
            self.progress,
            self.thread,
            form,
        )
        self.root.append(self.panel)
        self.show_empty()

        self.on(close, "click", lambda event: self.close())
        self.on(new_chat, "click", lambda event: self.new_chat())
        self.on(form, "submit", self.on_submit)
        self.on(self.input, "keydown", self.on_key)
        self.on(self.input, "input", lambda event: self.fit_input())
        self.on(self.panel, "keydown", self.on_panel_key)

    def show_empty(self):
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

    def new_chat(self):
        self.pending = []
        clear(self.thread)
        self.show_empty()
        self.input.focus()

    # -- events --------------------------------------------------------------

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
        if not question:
            return
        self.input.value = ""
        self.fit_input()
        empty = self.thread.querySelector(".empty")
        if empty:
            empty.remove()
        turn = h("article", {"class": "turn"}, h("p", {"class": "question"}, question))
        self.thread.append(turn)
        scope = self.scope_select.value if self.scopes else ""
        if self.worker is None:
            turn.append(
                h("p", {"class": "note"}, "The assistant is loading; your question is next.")
            )
            self.pending.append((question, scope, turn))
        else:
            self.spawn(self.answer(question, scope, turn))
        self.thread.scrollTop = self.thread.scrollHeight

    # -- the worker ----------------------------------------------------------

    async def boot_worker(self):
        # Let the panel paint before Pyodide's start-up work competes for the main thread.
        await asyncio.sleep(0.05)
        urls = self.bridge.urls
        config = {"interpreter": urls.pyodide, "files": {urls.workerZip: "./*"}}
        try:
            worker = await create_named_worker(urls.worker, WORKER_NAME, json.dumps(config))
            reply = json.loads(await worker.start(self.bridge.config, self.bridge.lang, urls.index))
        except Exception as err:  # the panel must say so, not hang on a progress bar
            self.fail("The assistant could not start. Reload the page to try again.", err)
            return
        for message in reply["errors"]:
            window.console.error(message)
        self.set_scopes(reply["config"]["scopes"])
        self.worker = worker
        self.progress.remove()
        pending, self.pending = self.pending, []
        for question, scope, turn in pending:
            turn.querySelector(".note").remove()
            await self.answer(question, scope, turn)

    def set_scopes(self, scopes):
        self.scopes = scopes
        for scope in scopes:
            self.scope_select.append(h("option", {"value": scope["id"]}, scope["label"]))
        self.scope_row.hidden = not scopes

    def fail(self, message, err):
        window.console.error("docs-panel: " + message, str(err))
        self.progress.remove()
        self.thread.append(h("p", {"class": "note error", "role": "alert"}, message))

    async def answer(self, question, scope, turn):
        try:
            reply = json.loads(await self.worker.ask(question, scope))
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
        self.show_results(turn, reply["results"])
        # Show the answer from its question down, as a reader reads it (scrolling
        # the thread only: scrollIntoView could move the host page too).
        self.thread.scrollTop = turn.offsetTop - self.thread.offsetTop - 8

    def show_results(self, turn, results):
        if not results:
            turn.append(
                h("p", {"class": "note"}, "No section of the docs matches that. Try other words.")
            )
            return
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
