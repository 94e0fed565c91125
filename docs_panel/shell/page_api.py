"""The page API's calls, made good (MicroPython): ``open``, ``close``, ``newChat`` and
``ask`` on ``window.docsPanel`` (embed.js queues them until the shell is up, then
hands each over here). ``docs_panel.portable.page_api`` checks the arguments; each call's
promise settles when it is done::

    api = PageApi(panel)
    api.connect()        # take the calls made so far, then each as it comes

open: the panel is shown (with ``submit``, the question is in the thread); close: it
is hidden; newChat: the thread is empty; ask: the answer has ended, with
``{conversation, turn, outcome, latencyMs, sources}``.
"""

import asyncio
import json

import js
from pyscript.ffi import create_proxy

from docs_panel.portable.errors import PageApiError
from docs_panel.portable.page_api import parse_call, unknown_scope
from docs_panel.shell.client import reason


class Answered:
    """What an ``ask`` waits for: the answer's figures, or why there is none."""

    def __init__(self):
        self._event = asyncio.Event()
        self.figures = None
        self.error = None

    def settle(self, figures=None, error=None):
        self.figures, self.error = figures, error
        self._event.set()

    async def wait(self):
        await self._event.wait()
        if self.error is not None:
            raise RuntimeError(self.error)
        return self.figures


class PageApi:
    def __init__(self, panel):
        self.panel = panel
        self._take = create_proxy(self.take)  # kept: a dropped proxy stops working

    def connect(self):
        bridge = self.panel.bridge
        bridge.call = self._take
        for call in bridge.calls.splice(0):
            self.take(call)

    def take(self, call):
        self.panel.spawn(self._run(call))

    async def _run(self, call):
        try:
            name, options = parse_call(call.name, json.loads(call.args))
            result = await getattr(self, "_" + name)(options)
        except PageApiError as err:
            call.reject(js.TypeError.new(str(err)))
            return
        except Exception as err:
            call.reject(js.Error.new("docs-panel: " + reason(err)))
            return
        call.resolve(None if result is None else js.JSON.parse(json.dumps(result)))

    async def _open(self, options):
        panel, scope = self.panel, options["scope"]
        if scope is not None:  # the site's scopes are known once the worker has read them
            await panel.booted.wait()
            known = [s.id for s in panel.composer.scopes]
            if scope not in known:
                raise unknown_scope(scope, known)
            panel.composer.scope_select.value = scope
        panel.open()
        question = options["question"]
        if options["submit"]:
            panel.send(question, panel.composer.scope())
        elif question:
            panel.composer.set_text(question)

    async def _close(self, options):
        if not self.panel.panel.hidden:
            self.panel.close()

    async def _newChat(self, options):
        await self.panel.new_chat()

    async def _ask(self, options):
        panel = self.panel
        panel.open()
        answered = Answered()
        panel.answering.submit(
            options["question"], panel.composer.scope(), panel.quoting.take(), answered.settle
        )
        return await answered.wait()
