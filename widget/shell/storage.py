"""Storage I/O for the shell: degrade, never crash (MicroPython, main thread).

localStorage and sessionStorage exist only here, on the main thread. Each area
is tested once; if it cannot be used (disabled, sandboxed, full of garbage it
refuses to overwrite) the panel keeps working on memory instead::

    store = Store("localStorage")
    store.set("docs-panel.history", value)   # False on a full quota
    store.get("docs-panel.history")          # None when missing

Decisions about what to write come from the worker; ``locked`` runs a
read-merge-write under ``navigator.locks`` so two tabs never interleave.
"""

from pyscript import window
from pyscript.ffi import create_proxy

PROBE_KEY = "docs-panel.__probe__"


class Store:
    def __init__(self, area_name):
        self.memory = {}
        self.area = None
        try:
            area = getattr(window, area_name)
            area.setItem(PROBE_KEY, "1")
            area.removeItem(PROBE_KEY)
            self.area = area
        except Exception as err:  # SecurityError, missing API: fall back to memory
            message = "docs-panel: " + area_name + " is unavailable; using memory"
            window.console.warn(message, str(err))

    def get(self, key):
        if self.area is None:
            return self.memory.get(key)
        try:
            return self.area.getItem(key)
        except Exception:
            return None

    def set(self, key, value):
        """Write; False only when the quota is full (the caller evicts and retries)."""
        if self.area is None:
            self.memory[key] = value
            return True
        try:
            self.area.setItem(key, value)
            return True
        except Exception as err:
            if "quota" in str(err).lower():
                return False
            window.console.warn("docs-panel: could not write " + key, str(err))
            return True

    def remove(self, key):
        self.memory.pop(key, None)
        if self.area is not None:
            try:
                self.area.removeItem(key)
            except Exception:
                pass


async def locked(name, task):
    """Run ``await task(lock)`` holding the cross-tab lock ``name`` where browsers have one."""
    locks = window.navigator.locks
    if locks:
        return await locks.request(name, create_proxy(task))
    return await task(None)
