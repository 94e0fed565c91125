"""The shell's one door to the worker (MicroPython): every protocol message goes
through ``WorkerClient.call``, checked against ``docs_panel.portable.protocol``::

    client = WorkerClient()
    started = await client.start(urls, config=..., index_url=..., page_url=..., page_language=...)
    asked = await client.call("ask", question="how do I retry?", scope="", quote="")
    asked.streaming, asked.session        # declared fields only; records nest as Messages

The worker's start is watched (``docs_panel.portable.lifecycle.StartWatch``): one that makes
no progress is ended and made again without the warm-start copies.

Arguments go as plain values (a megabyte of archive is never JSON-encoded here:
MicroPython takes seconds for that); the reply is parsed by the browser's
``JSON.parse`` and read field by field.
"""

import asyncio

import js
from pyscript import js_import, workers

from docs_panel.portable.errors import WidgetError
from docs_panel.portable.lifecycle import COLD_START, STUCK, StartWatch
from docs_panel.portable.protocol import CALLS, arguments, decode_reply

TYPE_CHECKING = False  # MicroPython has no typing module; mypy reads the block
if TYPE_CHECKING:
    from typing import Any

WORKER_NAME = "docs-panel-worker"  # embed.js starts it by this name (main.py asks)
COLD = "?cold"  # on the loader's address: a start without the warm-start copies
WATCH_S = 0.5  # how often a start's progress is looked at (none is waited for)


def reason(err):
    """What a failed call says, for the console: a JS error's message (MicroPython
    gives a JS error as the arguments (proxy, name, message)), else the error as text."""
    args: tuple[object, ...] = getattr(err, "args", ())
    return args[2] if len(args) == 3 and isinstance(args[2], str) else str(err)


class WorkerClient:
    def __init__(self):
        self.worker = None
        self._store: Any = None  # store.mjs's import (a JS promise), made as the worker starts
        self.store = None

    @property
    def ready(self):
        return self.worker is not None

    async def start(self, urls, **args):
        """Wait for the worker (Pyodide with the worker's Python), then its ``start`` call."""
        self._store = js_import(urls.store)  # a promise: imported while the worker boots
        worker = await _worker_up(js.window.__docsPanel)
        started = await self._send(worker, "start", args)
        self.worker = worker
        return started

    async def call(self, name, **args):
        return await self._send(self.worker, name, args)

    async def update(self, store, storage_key, field, name, evict, **args):
        """``call`` with the value ``store`` keeps under ``storage_key`` as argument
        ``field``, read and written back by ``store.mjs`` under the cross-tab lock
        ``storage_key``, without crossing into MicroPython: the reply's ``value`` is then
        what writing did (None: nothing to write; "ok", "quota" or "error"). On "quota"
        the call ``evict`` (None: none) shrinks the refused value until one fits. The
        parameters' names are none of the protocol's argument names (a vote has a ``key``)."""
        if self.store is None:
            self.store = (await self._store)[0]
        args[field] = ""  # checked as a string here; store.mjs puts the real one in
        values = self._values(name, args)
        at = [f for f, kind in CALLS[name][0]].index(field)
        area = None if store.memory is not None else store.area
        reply = await self.store.update(
            self.worker, name, area, storage_key, store.memory, at, evict, *values
        )
        return decode_reply(name, reply)

    def _values(self, name, args):
        values = tuple(args[field] for field, kind in CALLS[name][0])
        arguments(name, values)  # a wrong argument fails here, named, not in the worker
        return values

    async def _send(self, worker, name, args):
        raw = await worker.call(name, *self._values(name, args))
        return decode_reply(name, js.JSON.parse(raw))


async def _worker_up(bridge):
    """The worker's exports once it is up. main.py started it and keeps the time of the
    loader's latest sign in ``bridge.signed``; a start quiet for too long is ended and made
    again cold, and a second quiet one raises."""
    watch = StartWatch(clock=lambda: js.performance.now() / 1000)
    up = asyncio.Event()
    outcome: list[tuple[int, object, Exception | None]] = []  # [(start, exports, error)]
    asyncio.create_task(_settled(0, workers[WORKER_NAME], outcome, up))  # noqa: RUF006
    start, seen = 0, 0
    while True:
        try:
            await asyncio.wait_for(up.wait(), WATCH_S)
        except asyncio.TimeoutError:  # noqa: UP041 (MicroPython's asyncio has its own)
            pass
        for settled, exports, error in outcome:
            if settled == start:  # a late answer from an ended start is not this one
                watch.up()
                if error is not None:
                    raise error
                return exports
        up.clear()
        if bridge.signed != seen:
            seen = bridge.signed
            watch.sign()
        state = watch.check()
        if state == STUCK:
            _end(bridge.worker)
            raise WidgetError("the worker's start made no progress, twice")
        if state == COLD_START and start == 0:
            start = 1
            js.console.warn("docs-panel: the worker's start made no progress; starting it cold")
            cold = _exports(_cold_start(bridge))
            asyncio.create_task(_settled(1, cold, outcome, up))  # noqa: RUF006 (the loop holds it)


async def _settled(start, exports, outcome, up):
    try:
        outcome.append((start, await exports, None))
    except Exception as err:  # the start failed: said where it is awaited
        outcome.append((start, None, err))
    up.set()


def _cold_start(bridge):
    """End the stuck worker and start another whose loader leaves Cache Storage alone
    (embed.js's startWorker reads the loader's address as it starts one)."""
    _end(bridge.worker)
    bridge.urls.pyodide = bridge.urls.pyodide.split("?")[0] + COLD
    bridge.worker = bridge.startWorker()
    return bridge.worker


def _end(element):
    """End the worker PyScript made for ``element``, if it made one yet."""
    if js.Reflect.has(element, "xworker"):
        element.xworker.terminate()
    element.remove()


async def _exports(element):
    """The exports of the worker that PyScript makes for ``element`` (its ``xworker``,
    set once PyScript has read the element's config)."""
    while not js.Reflect.has(element, "xworker"):
        await asyncio.sleep(0.05)
    return (await element.xworker.ready).sync
