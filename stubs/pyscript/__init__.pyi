"""What the shell imports from PyScript (``@pyscript/core``, pinned in package.json):
the page's ``window`` and ``document`` as JavaScript objects, opaque to mypy."""

from typing import Any

document: Any
window: Any
workers: Any

async def js_import(*urls: str) -> Any: ...
