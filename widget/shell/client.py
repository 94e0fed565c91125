"""The shell's one door to the worker (MicroPython): every protocol message goes
through ``WorkerClient.call``, checked against ``widget.core.protocol``::

    client = WorkerClient()
    started = await client.start(urls, config=..., index_url=..., page_url=..., page_language=...)
    asked = await client.call("ask", question="how do I retry?", scope="", quote="")
    asked.streaming, asked.session        # declared fields only; records nest as Messages

Arguments go as plain values (a megabyte of archive is never JSON-encoded here:
MicroPython takes seconds for that); the reply is parsed by the browser's
``JSON.parse`` and read field by field.
"""

import js
from pyscript import js_import, workers

from widget.core.protocol import CALLS, arguments, decode_reply

WORKER_NAME = "docs-panel-worker"  # embed.js starts it by this name (main.py asks)


def reason(err):
    """What a failed call says, for the console: a JS error's message (MicroPython
    gives a JS error as the arguments (proxy, name, message)), else the error as text."""
    args = getattr(err, "args", ())
    return args[2] if len(args) == 3 and isinstance(args[2], str) else str(err)


class WorkerClient:
    def __init__(self):
        self.worker = None
        self._store = None  # store.mjs, imported as the worker starts
        self.store = None

    @property
    def ready(self):
        return self.worker is not None

    async def start(self, urls, **args):
        """Wait for the worker (Pyodide with the worker's Python), then its ``start`` call."""
        self._store = js_import(urls.store)  # a promise: imported while the worker boots
        worker = await workers[WORKER_NAME]
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
