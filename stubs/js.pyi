"""The page's (or the worker's) JavaScript globals as ``import js`` shows them, in the
shell (MicroPython) and in the worker (Pyodide): every one is a JavaScript object,
opaque to mypy. Only the names the panel uses are declared, so a misspelt global is
an error here rather than in a reader's browser."""

from typing import Any

AbortController: Any
AbortSignal: Any
Blob: Any
BroadcastChannel: Any
CustomEvent: Any
Error: Any
JSON: Any
Map: Any
Object: Any
Reflect: Any
TypeError: Any
URL: Any
console: Any
document: Any
fetch: Any
globalThis: Any
navigator: Any
performance: Any
window: Any

def docsPanelAnswered() -> None:
    """The worker's sign that an answer finished (``pyodide-loader.mjs`` defines it)."""
