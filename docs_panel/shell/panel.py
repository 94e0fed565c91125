"""The panel on the page (MicroPython): draws it in the Shadow DOM embed.js made and
wires its parts together. It decides nothing that needs a test of its own::

    panel = Panel()
    panel.start()          # draw, open if the reader clicked, boot the worker

The parts: ``client`` (the only door to the worker), ``keeper`` (storage),
``answering`` (the thread, driven by the answer's Lifecycle), ``composer``,
``history`` (the list), ``votes``, ``settings`` (the reader's instruction),
``quoting`` ("Ask about this"), ``sheet`` (the panel on a phone), ``views``
(elements from protocol records), ``events`` (``docs-panel:*`` on the page),
``page_api`` (``window.docsPanel.open`` and the rest) and ``consent`` (the notice);
``startup.boot`` starts the worker and restores the tab. Every string it shows
comes from ``words``, in the page's language.
"""

import asyncio
import io
import sys

import js
from pyscript import window
from pyscript.ffi import create_proxy

from docs_panel.portable.lifecycle import Lifecycle
from docs_panel.shell.answering import Answering
from docs_panel.shell.client import WorkerClient
from docs_panel.shell.composer import Composer
from docs_panel.shell.consent import Consent
from docs_panel.shell.copying import Copier
from docs_panel.shell.dom import clear, h, icon_button, listen
from docs_panel.shell.events import Events
from docs_panel.shell.history_list import HistoryList
from docs_panel.shell.page_api import PageApi
from docs_panel.shell.persistence import Keeper
from docs_panel.shell.private import Privacy
from docs_panel.shell.quoting import Quoting
from docs_panel.shell.settings import Settings
from docs_panel.shell.sheet import Sheet
from docs_panel.shell.startup import boot
from docs_panel.shell.views import answer_elements, empty_state, note, turn_article
from docs_panel.shell.votes import Votes
from docs_panel.shell.words import DIRECTION, LANGUAGE, say

TYPE_CHECKING = False  # MicroPython has no typing module; mypy reads the block
if TYPE_CHECKING:
    from typing import Any

    from docs_panel.shell.records import Conversation


class Panel:
    # Drawn by draw(), which start() calls first.
    panel: "Any"
    history: "HistoryList"
    answering: "Answering"

    def __init__(self):
        self.bridge = window.__docsPanel
        self.root = self.bridge.root
        self.launcher = self.bridge.launcher
        self.client = WorkerClient()
        self.lifecycle = Lifecycle(clock=lambda: window.performance.now() / 1000)
        self.keeper = Keeper(self.bridge, self.client, self.lifecycle)
        self.started = asyncio.Event()  # set once the worker is up
        self.booted = asyncio.Event()  # set once it is up or could not start
        self.events = Events(self.keeper)
        self.votes = Votes(self.keeper, self.spawn, self.events)
        self.consent = Consent(self.keeper, self.spawn)
        self.page_api = PageApi(self)
        self.settings = Settings(self.keeper)
        self.quoting = Quoting(self.client, self.started, self.spawn)
        self.copier = Copier(self.root, self.spawn)
        self.privacy = Privacy(self.keeper, self.client, self.spawn)

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
            sys.print_exception(err, trace)  # type: ignore[attr-defined]  # MicroPython's own
            window.console.error("docs-panel: " + trace.getvalue())

    def start(self):
        self.draw()
        # Kept: a dropped proxy stops working.
        self._toggle, self._open = create_proxy(self.toggle), create_proxy(self.open)
        self.bridge.toggle, self.bridge.open = self._toggle, self._open
        self._quoted = create_proxy(self.quoted)
        self.bridge.quoted = self._quoted
        if self.bridge.quote:  # chosen before the shell had loaded
            self.quoting.attach(self.bridge.quote)
        self.launcher.removeAttribute("aria-busy")
        if self.bridge.openOnReady:
            self.open()
        self.page_api.connect()  # the page's calls so far, then each as it comes
        # The real window object: pyscript's `window` proxy cannot be the `this`
        # of addEventListener ("Illegal invocation").
        page = js.globalThis
        listen(page, "pagehide", lambda event: self.keeper.on_pagehide(not self.panel.hidden))
        listen(page, "pageshow", self.keeper.on_pageshow)
        listen(page, "storage", lambda event: self.keeper.on_storage(event, self.spawn))
        self.spawn(boot(self))

    # -- drawing -----------------------------------------------------------

    def draw(self):
        history_button = icon_button(say("history"), "clock", lambda e: self.history.toggle())
        history_button.setAttribute("aria-expanded", "false")
        history_button.disabled = True
        header = h(
            "div",
            {"class": "header"},
            h("h2", None, say("heading")),
            history_button,
            self.settings.button,
            icon_button(say("new_chat"), "compose", lambda event: self.spawn(self.new_chat())),
            icon_button(say("close"), "close", lambda event: self.close()),
        )
        container = h("div", {"class": "history", "hidden": True})
        self.history = HistoryList(container, history_button, self)
        self.progress = h(
            "div",
            {"class": "progress", "role": "progressbar", "aria-label": say("loading")},
        )
        self.status = note(say("docs_changed"), "status", "status")
        self.status.hidden = True
        # Not a live region: a streaming answer would be read token by token. The
        # `announcer` says once that an answer is complete.
        self.thread = h("div", {"class": "thread"})
        listen(self.thread, "click", self.events.on_thread_click)
        self.settings.region.append(self.consent.setting)
        self.announcer = h("p", {"class": "visually-hidden", "role": "status"})
        self.composer = Composer(
            on_ask=self.send,
            on_stop=lambda: self.answering.stop(),
            on_draft=lambda text: self.keeper.draft_changed(text, self.spawn),
            above=self.quoting.chip,
        )
        self.panel = h(
            "section",
            {
                "class": "panel",
                "role": "region",
                "aria-label": say("panel"),
                "lang": LANGUAGE,
                "dir": DIRECTION,
                "hidden": True,
            },
            header,
            self.settings.region,
            container,
            self.progress,
            self.consent.notice,
            self.status,
            self.privacy.marker,
            self.thread,
            self.composer.form,
            self.announcer,
        )
        self.root.append(self.panel)
        self.sheet = Sheet(self.panel)
        self.answering = Answering(
            self.thread,
            self.composer.streaming,
            self.client,
            self.keeper,
            self.lifecycle,
            self.spawn,
            self,
        )
        self.show_conversation(None)
        listen(self.panel, "keydown", self.on_panel_key)

    def show_conversation(self, conversation: "Conversation | None"):
        clear(self.thread)
        self.privacy.shown()
        if conversation is None:
            self.status.hidden = True
            empty = empty_state()
            switch = self.privacy.switch()
            if switch is not None:
                empty.append(switch)
            self.thread.append(empty)
            return
        self.status.hidden = not conversation.docs_changed
        again, votes = self.answering.ask_again, self.votes.bar
        for turn in conversation.turns:
            article = turn_article(turn.question, turn.quote, self.scope_label(turn.scope))
            for element in answer_elements(turn, again, votes, self.copier):
                article.append(element)
            self.thread.append(article)
            self.composer.follow_scope(turn.scope)  # a follow-up keeps the turn's scope
        self.thread.scrollTop = self.thread.scrollHeight

    def scope_label(self, scope_id):
        """The label of the scope a turn was asked in, when the site has scopes."""
        for scope in self.composer.scopes:
            if scope.id == scope_id:
                return scope.label
        return ""

    # -- open / close and keys -------------------------------------------------

    def toggle(self, *args):
        if self.panel.hidden:
            self.open()
        else:
            self.close()

    def quoted(self, selected):
        """embed.js's "Ask about this": open the panel with the passage attached."""
        self.quoting.attach(selected)
        self.open()

    def send(self, question, scope):
        """The composer sent ``question``: the draft goes before the question is asked."""
        self.keeper.draft_sent()
        self.answering.submit(question, scope, self.quoting.take())

    def open(self):
        if self.panel.hidden:
            self.events.emit("open")
        self.panel.hidden = False
        self.sheet.changed()
        self.launcher.setAttribute("aria-expanded", "true")
        self.composer.focus()

    def close(self):
        if not self.panel.hidden:
            self.events.emit("close")
        self.panel.hidden = True
        self.sheet.changed()
        self.launcher.setAttribute("aria-expanded", "false")
        back, self.bridge.returnFocus = self.bridge.returnFocus, None
        (back if back and back.isConnected else self.launcher).focus()

    def on_panel_key(self, event):
        if event.key != "Escape":
            return
        if self.history.shown:  # the innermost layer first
            self.history.hide()
            self.history.button.focus()
        else:
            self.close()

    async def new_chat(self):
        await self.answering.settle()
        self.privacy.leave()
        self.show_conversation(None)
        self.composer.focus()
        if self.client.ready:
            self.keeper.set_session((await self.client.call("new_chat")).session)
