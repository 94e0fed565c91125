"""The worker's entry script (Pyodide, in a PyScript worker).

The shell creates this worker once the panel is on screen; the loader has put
worker.zip (``widget`` and its pure-Python dependencies) on ``sys.path``. Its
one export is ``call``: every message of ``widget.core.protocol`` goes through
it, checked on the way in and out::

    reply = JSON.parse(await worker.call("ask", "how do I retry?", "", ""))
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

import js  # type: ignore[import-not-found]

# bench/ reads the time the worker's own imports take from this mark and measure.
js.performance.mark("docs-panel:imports")
from pyodide.ffi import JsBuffer, jsnull  # type: ignore[import-not-found]  # noqa: E402

from widget.core.errors import ProtocolError  # noqa: E402
from widget.core.protocol import arguments, encode_reply  # noqa: E402
from widget.worker.tab import Tab  # noqa: E402

js.performance.measure("docs-panel:imports", "docs-panel:imports")

_tab: Tab | None = None  # set by "start": the one tab this worker serves


async def call(name: str, *values: Any) -> str:
    """Run protocol call ``name``; the reply is JSON with exactly its declared fields."""
    global _tab
    args = arguments(name, tuple(_received(value) for value in values))
    if name == "start":
        _tab, reply = await Tab.start(**args)  # type: ignore[arg-type]
    elif _tab is None:
        raise ProtocolError(f"{name} before start: the shell must await start first")
    else:
        result = getattr(_tab, name)(**args)
        reply = await result if isinstance(result, Awaitable) else result
    if reply.get("turn") is not None:  # an answer was kept: the loader may keep its warm start
        js.docsPanelAnswered()
    return encode_reply(name, reply)


def _received(value: Any) -> Any:
    """An argument as Python: null is None; bytes are a stored value that store.mjs
    sent as UTF-8 (a megabyte string is slower to take in)."""
    if value is jsnull:
        return None
    return value.to_bytes().decode() if isinstance(value, JsBuffer) else value


__export__ = ["call"]
