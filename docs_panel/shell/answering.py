"""Asking and answering in the thread (MicroPython), driven by the answer's
lifecycle (``docs_panel.portable.lifecycle``): this module draws and does the calls; the
Lifecycle decides what may happen next and how an answer ended::

    answering = Answering(thread, controls, client, keeper, lifecycle, spawn, panel)
    answering.submit("How do I retry?", scope="", quote="")   # the panel: votes, scope
                                                              # labels, the instruction
    answering.submit(question, scope, quote, done)  # done(figures) when it has ended,
                                                    # done(None, why) if it never will
    await answering.settle()     # before New chat / open / delete: the answer is stopped,
                                 # drawn and stored first
"""

import asyncio

from pyscript import window
from pyscript.ffi import to_js

from docs_panel.portable.lifecycle import SETTLED, UNAVAILABLE
from docs_panel.shell.client import reason
from docs_panel.shell.views import (
    answer_elements,
    note,
    streaming_answer,
    throttle_notice,
    turn_article,
)
from docs_panel.shell.words import say

TYPE_CHECKING = False  # MicroPython has no typing module; mypy reads the block
if TYPE_CHECKING:
    from docs_panel.shell.records import Turn


class Answering:
    def __init__(self, thread, controls, client, keeper, lifecycle, spawn, panel):
        self.thread = thread
        self.panel = panel
        self.controls = controls  # shows Stop instead of Send while an answer streams
        self.client = client
        self.keeper = keeper
        self.lifecycle = lifecycle
        self.spawn = spawn
        self._idle = asyncio.Event()  # set whenever no answer is under way
        self._idle.set()

    def submit(self, question, scope, quote, done=None):
        """Ask; a question asked while the worker starts or another is answered waits.
        ``done``: told the answer's figures (the ``answer`` event's) once it has ended."""
        empty = self.thread.querySelector(".empty")
        if empty:
            empty.remove()
        article = turn_article(question, quote, self.panel.scope_label(scope))
        self.thread.append(article)
        item = (question, scope, quote, article, done or _ignored)
        if self.lifecycle.ask(item):
            self._start(item)
        elif self.lifecycle.state == UNAVAILABLE:  # said under the question, not twice
            for said in list(self.thread.querySelectorAll(".unavailable")):
                said.remove()
            article.append(_cannot_start())
            item[4](None, say("start_failed"))
        else:
            waiting = "pending" if self.client.ready else "pending_loading"
            article.append(note(say(waiting), "note pending"))
        self.thread.scrollTop = self.thread.scrollHeight

    def ready(self):
        """The worker is up: answer what was asked while it started."""
        self.lifecycle.ready()
        self._answer_next()

    def unavailable(self):
        """The worker could not start: each question that waited for it says so, and
        any asked later; with none waiting, the thread says it until one is asked."""
        waited = self.lifecycle.broken()
        self.panel.events.emit("error", {"kind": "start"})
        for item in waited:
            item[3].querySelector(".pending").remove()
            item[3].append(_cannot_start())
            item[4](None, say("start_failed"))
        if not waited:
            self.thread.append(_cannot_start("note error unavailable"))

    def _answer_next(self):
        item = self.lifecycle.next_question()
        if item is not None:
            pending = item[3].querySelector(".pending")
            if pending:
                pending.remove()
            self._start(item)

    async def settle(self):
        """Stop the answer under way, if any, and wait until it is drawn and stored;
        questions still waiting their turn are dropped."""
        for item in self.lifecycle.discard():
            item[4](None, "the question was dropped: a new chat or another conversation came first")
        if self.lifecycle.stop():
            await self.client.call("stop")
        # Only wait when something is under way: a needless await would let a question
        # asked right after New chat land in the thread that New chat then clears.
        if not self._idle.is_set():
            await self._idle.wait()

    def stop(self):
        if self.lifecycle.stop():
            self.spawn(self.client.call("stop"))

    def _start(self, item):
        self._idle.clear()  # now, not when the task runs: settle() must see it under way
        self.spawn(self.answer(item))

    async def answer(self, item):
        try:
            await self._answer(*item)
        except Exception:
            item[4](None, say("search_failed"))  # a page's ask() is never left waiting
            raise
        finally:
            if self.lifecycle.state == SETTLED:  # else an error is on its way to the log
                self.lifecycle.stored()
            self._idle.set()
        self._answer_next()

    async def _answer(self, question, scope, quote, article, done):
        self.panel.announcer.textContent = ""  # the next "answer done" is news again
        asked_at = window.performance.now()
        events = self.panel.events
        try:
            asked = await self.client.call(
                "ask",
                question=question,
                scope=scope,
                quote=quote,
                instruction=self.panel.settings.instruction(),
            )
        except Exception as err:
            self.lifecycle.failed()
            window.console.error("docs-panel: search failed", reason(err))
            article.append(note(say("search_failed"), "note error", "alert"))
            events.emit("error", {"kind": "search"})
            done(None, say("search_failed"))
            return
        self.keeper.set_session(asked.session)
        events.emit("ask", {"scope": scope, "quoted": bool(quote)}, {"question": asked.question})
        # Show what is kept: the question as stored, credentials masked.
        article.querySelector(".question").textContent = asked.question
        failed, wait_s, text = False, None, ""
        if asked.streaming:
            if self.lifecycle.started(True, asked.in_flight):  # stopped before it began
                await self.client.call("stop")
            turn, wait_s, text = await self._stream(article)
            failed = turn.status == "results"  # the model failed: the sections instead
        else:
            self.lifecycle.started(False)
            turn = asked.turn
        follow = self._near_bottom()  # the reader followed the answer down as it came
        self._draw(article, turn, failed)
        # Said once, politely: the thread is not a live region (it would read every token).
        # A stopped answer is not news: the reader stopped it.
        if turn.status != "stopped":
            self.panel.announcer.textContent = say("answer_done")
        if wait_s is not None:  # the endpoint throttles: say when to ask again
            self._throttled(article, turn, wait_s)
            events.emit("error", {"kind": "throttled", "retryAfter": wait_s})
        elif failed:
            events.emit("error", {"kind": "answer"})
        figures = {
            "turn": turn.key,
            "outcome": turn.status,
            "latencyMs": int(window.performance.now() - asked_at),
            "sources": len(turn.sources),
        }
        events.emit("answer", figures, {"question": asked.question, "answer": text})
        if turn.status == "results":  # new content below: show where the turn starts
            self.thread.scrollTop = article.offsetTop - self.thread.offsetTop - 8
        elif follow:  # and on to what its end drew: sources, votes, Stopped
            self.thread.scrollTop = self.thread.scrollHeight
        await self.keeper.persist()
        figures["conversation"] = self.panel.events.conversation()
        done(figures)

    async def _stream(self, article):
        """Draw the answer as it arrives; the finished turn, the seconds to wait
        before asking again when the endpoint throttles (else None), and the answer's
        Markdown as received."""
        reasoning, reasoning_text, stable, tail, body = streaming_answer()
        article.append(reasoning)
        article.append(body)
        article.setAttribute("aria-busy", "true")  # screen readers read the answer once, whole
        received = []  # the Markdown, as it arrived
        self.controls(True)
        try:
            while True:
                update = await self.client.call("pull")
                started = window.performance.now()
                follow = self._near_bottom()
                if update.stable:
                    stable.insertAdjacentHTML("beforeend", update.stable)  # sanitized
                if update.tail is not None:
                    tail.innerHTML = update.tail  # sanitized by the worker's one Cleaner
                if update.reasoning:
                    reasoning.hidden = False
                    reasoning_text.append(update.reasoning)  # a text node: never markup
                if follow:
                    self.thread.scrollTop = self.thread.scrollHeight
                # Devtools and bench/stream_bench.py see what each update costs the page.
                window.performance.measure(
                    "docs-panel:paint",
                    to_js({"start": started, "end": window.performance.now()}),
                )
                received.append(update.text)
                if self.lifecycle.update(update.text):
                    await self.keeper.persist(checkpoint=True)
                if update.ended:
                    outcome = self.lifecycle.end(failed=update.error is not None)
                    finished = await self.client.call("finish", outcome=outcome)
                    self.keeper.set_session(finished.session)
                    return finished.turn, update.retry_after, "".join(received)
        finally:
            article.removeAttribute("aria-busy")
            self.controls(False)

    def _draw(self, article, turn: "Turn", failed):
        for old in article.querySelectorAll(
            ".answer, .after, .sources-block, .copy-answer, .votes"
        ):
            old.remove()
        panel = self.panel
        for element in answer_elements(turn, self.ask_again, panel.votes.bar, panel.copier, failed):
            article.append(element)

    def _throttled(self, article, turn: "Turn", wait_s):
        block, again = throttle_notice(wait_s, lambda: self.ask_again(turn))
        article.querySelector(".note").replaceWith(block)
        if wait_s:
            self.spawn(self._enable_after(again, wait_s))

    async def _enable_after(self, button, wait_s):
        await asyncio.sleep(wait_s)
        button.disabled = False

    def ask_again(self, turn: "Turn"):
        self.submit(turn.question, turn.scope, turn.quote)

    def _near_bottom(self):
        thread = self.thread
        return thread.scrollHeight - thread.scrollTop - thread.clientHeight < 48


def _ignored(figures, error=None):
    """A question asked by the reader, not the page: no one waits for its end."""


def _cannot_start(css="note error"):
    return note(say("start_failed"), css, "alert")
