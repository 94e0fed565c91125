"""The worker's entry script (Pyodide, in a PyScript worker).

The shell creates this worker once the panel is on screen, with worker.zip
unpacked into the working directory (``widget`` and its pure-Python
dependencies). What the shell may call is listed in ``__export__``; every call
returns a promise there.
"""

import js

# bench/ reads how long the worker's imports take from this mark and measure.
js.performance.mark("docs-panel:imports")
# PyScript looks the exported names up in this module's globals.
from widget.worker.service import (  # noqa: E402, F401
    ask,
    check_regressed,
    conversations,
    delete_all,
    delete_conversation,
    evict,
    new_chat,
    normalize,
    open_conversation,
    pull,
    redact,
    restore,
    save,
    start,
    stop,
)

js.performance.measure("docs-panel:imports", "docs-panel:imports")
__export__ = [
    "ask",
    "check_regressed",
    "conversations",
    "delete_all",
    "delete_conversation",
    "evict",
    "new_chat",
    "normalize",
    "open_conversation",
    "pull",
    "redact",
    "restore",
    "save",
    "start",
    "stop",
]
