"""The worker's pure-Python modules, imported before Pyodide's memory is copied.

A cold start imports this module just before it copies Pyodide's memory for the
next warm start (``pyodide-loader.mjs``), so a warm start restores these modules
already imported instead of reading them from the zip again. It must stay pure:
no ``js``, no ``pyodide.ffi``, no reader data, since the copy is taken before the
panel's code runs and anything JS it held could not be restored. markdown-it and
bleach (``docs_panel.core.render``) are in it too: a model answer's first words wait
for them, and right after a restore Python runs slowly for a while (the wasm's
code is compiled again), so importing them then took longer than in a cold start.

The worker's own modules import the same names later, for free::

    import docs_panel.worker.preimport  # noqa: F401  (as the loader does)
    from docs_panel.portable.protocol import CALLS  # already in sys.modules
"""

# ruff: noqa: F401  (imported for their side effect: being in sys.modules)
from __future__ import annotations

import docs_panel.core.answers
import docs_panel.core.config
import docs_panel.core.consent
import docs_panel.core.docs_index
import docs_panel.core.feedback
import docs_panel.core.history
import docs_panel.core.history_export
import docs_panel.core.history_search
import docs_panel.core.question_embedding
import docs_panel.core.redact
import docs_panel.core.render
import docs_panel.core.server_wire
import docs_panel.core.session
import docs_panel.core.stream
import docs_panel.core.throttle
import docs_panel.core.views
import docs_panel.portable.errors
import docs_panel.portable.lifecycle
import docs_panel.portable.protocol
