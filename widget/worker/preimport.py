"""The worker's pure-Python modules, imported before Pyodide's memory is copied.

A cold start imports this module just before it copies Pyodide's memory for the
next warm start (``pyodide-loader.mjs``), so a warm start restores these modules
already imported instead of reading them from the zip again. It must stay pure:
no ``js``, no ``pyodide.ffi``, no reader data, since the copy is taken before the
panel's code runs and anything JS it held could not be restored. markdown-it and
bleach (``widget.core.render``) are in it too: a model answer's first words wait
for them, and right after a restore Python runs slowly for a while (the wasm's
code is compiled again), so importing them then took longer than in a cold start.

The worker's own modules import the same names later, for free::

    import widget.worker.preimport  # noqa: F401  (as the loader does)
    from widget.core.protocol import CALLS  # already in sys.modules
"""

# ruff: noqa: F401  (imported for their side effect: being in sys.modules)
from __future__ import annotations

import widget.core.answers
import widget.core.config
import widget.core.consent
import widget.core.docs_index
import widget.core.errors
import widget.core.feedback
import widget.core.history
import widget.core.history_export
import widget.core.history_search
import widget.core.lifecycle
import widget.core.protocol
import widget.core.question_embedding
import widget.core.redact
import widget.core.render
import widget.core.server_wire
import widget.core.session
import widget.core.stream
import widget.core.throttle
import widget.core.views
