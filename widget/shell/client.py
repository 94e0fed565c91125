"""The shell's one door to the worker (MicroPython): every protocol message goes
through ``WorkerClient.call``, checked against ``widget.core.protocol``::

    client = WorkerClient()
    started = await client.start(urls, config=..., index_url=..., page_url=...)
    asked = await client.call("ask", question="how do I retry?", scope="", quote="")
    asked.streaming, asked.session        # declared fields only; records nest as Messages

Arguments go as plain values (a megabyte of archive is never JSON-encoded here:
MicroPython takes seconds for that); the reply is parsed by the browser's
``JSON.parse`` and read field by field.
"""

import json

import js
from pyscript import create_named_worker

from widget.core.protocol import CALLS, arguments, decode_reply

WORKER_NAME = "docs-panel-worker"


class WorkerClient:
    def __init__(self):
        self.worker = None

    @property
    def ready(self):
        return self.worker is not None

    async def start(self, urls, **args):
        """Boot Pyodide in a worker with the worker's Python, then its ``start`` call."""
        config = {"interpreter": urls.pyodide, "files": {urls.workerZip: "./*"}}
        worker = await create_named_worker(urls.worker, WORKER_NAME, json.dumps(config))
        started = await self._send(worker, "start", args)
        self.worker = worker
        return started

    async def call(self, name, **args):
        return await self._send(self.worker, name, args)

    async def _send(self, worker, name, args):
        values = tuple(args[field] for field, kind in CALLS[name][0])
        arguments(name, values)  # a wrong argument fails here, named, not in the worker
        raw = await worker.call(name, *values)
        return decode_reply(name, js.JSON.parse(raw))
