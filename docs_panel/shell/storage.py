"""Storage I/O for the shell: degrade, never crash (MicroPython, main thread).

localStorage and sessionStorage exist only here, on the main thread. Each area
is tested once; if it cannot be used (disabled, sandboxed, blocked) the panel
keeps working on memory instead::

    store = Store("localStorage")
    store.set("docs-panel.history", value)   # False on a full quota
    store.get("docs-panel.history")          # None when missing

The calls go through ``window.__docsPanel.storage`` (embed.js), which turns a
thrown DOMException into a value: MicroPython cannot catch a synchronous JS
exception. Decisions about what to write come from the worker; ``store.mjs``
runs a read-merge-write under ``navigator.locks`` so two tabs never interleave.
The memory is a JS ``Map``, so that ``store.mjs`` writes it as it writes storage.
"""

import js
from pyscript import window

PROBE_KEY = "docs-panel.__probe__"


class Store:
    def __init__(self, area_name):
        self.area = area_name
        self.js = window.__docsPanel.storage
        self.memory = None
        if self.js.set(area_name, PROBE_KEY, "1") == "ok":
            self.js.remove(area_name, PROBE_KEY)
        else:  # disabled, sandboxed or blocked: this visit keeps its state in memory
            window.console.warn("docs-panel: " + area_name + " is unavailable; using memory")
            self.memory = js.Map.new()

    def get(self, key):
        if self.memory is not None:
            return self.memory.get(key) if self.memory.has(key) else None
        return self.js.get(self.area, key)

    def set(self, key, value):
        """Write; False only when the quota is full (the caller evicts and retries)."""
        if self.memory is not None:
            self.memory.set(key, value)
            return True
        return written(key, self.js.set(self.area, key, value))

    def remove(self, key):
        if self.memory is not None:
            self.memory.delete(key)
        else:
            self.js.remove(self.area, key)


def written(key, outcome):
    """A write's outcome ("ok", "quota" or "error", said once) as: not refused by the quota."""
    if outcome == "error":
        window.console.warn("docs-panel: could not write " + key)
    return outcome != "quota"
