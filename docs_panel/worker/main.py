"""The worker's entry script (Pyodide, in a PyScript worker).

The shell creates this worker once the panel is on screen; the loader has put
worker.zip (``docs_panel`` and its pure-Python dependencies) on ``sys.path``. Its
one export is ``call``: every message of ``docs_panel.portable.protocol`` goes through
it, checked on the way in and out::

    reply = JSON.parse(await worker.call("ask", "how do I retry?", "", ""))
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

import js

# bench/ reads the time the worker's own imports take from this mark and measure.
js.performance.mark("docs-panel:imports")
from pyodide.ffi import JsBuffer, jsnull  # type: ignore[import-not-found]  # noqa: E402

from docs_panel.portable.errors import ProtocolError  # noqa: E402
from docs_panel.portable.protocol import CALLS, STORED, arguments, encode_reply  # noqa: E402
from docs_panel.worker.tab import Tab  # noqa: E402

js.performance.measure("docs-panel:imports", "docs-panel:imports")

_tab: Tab | None = None  # set by "start": the one tab this worker serves
# Each stored argument's last replied ``value``: store.mjs sends ``true`` for a stored
# value it wrote from that reply and finds unchanged, so the archive is not sent back.
_replied: dict[str, str] = {}


async def call(name: str, *values: Any) -> str:
    """Run protocol call ``name``; the reply is JSON with exactly its declared fields."""
    global _tab
    # Each value with its argument's name ("" past the declared ones: arguments refuses them).
    fields = [field for field, _ in CALLS[name][0]] if name in CALLS else []
    args = arguments(name, tuple(map(_received, fields + [""] * len(values), values)))
    if name == "start":
        _tab, reply = await Tab.start(**args)  # type: ignore[arg-type]
    elif _tab is None:
        raise ProtocolError(f"{name} before start: the shell must await start first")
    else:
        result = getattr(_tab, name)(**args)
        reply = await result if isinstance(result, Awaitable) else result
    # The reader has a first answer (its first words, or search results): the loader may
    # keep its warm start now. Waiting for the answer's end lost the copy when the tab
    # closed soon after: for the Python docs it takes about two seconds to keep.
    if reply.get("turn") is not None or (name == "pull" and reply.get("text")):
        js.docsPanelAnswered()
    encoded = encode_reply(name, reply)
    value = reply.get("value")
    for field in STORED:
        if field in args and isinstance(value, str):
            _replied[field] = value
    return encoded


def _received(field: str, value: Any) -> Any:
    """An argument as Python: null is None; bytes are a stored value that store.mjs
    sent as UTF-8 (a megabyte string is slower to take in); ``true`` for a stored
    value is the one last replied for it."""
    if value is jsnull:
        return None
    if value is True and field in STORED:
        if field not in _replied:
            raise ProtocolError(f"{field}: no value was replied for it yet")
        return _replied[field]
    return value.to_bytes().decode() if isinstance(value, JsBuffer) else value


__export__ = ["call"]
