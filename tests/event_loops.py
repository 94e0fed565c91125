"""Running a coroutine from a test, whatever this thread already runs.

Playwright's sync API holds the main thread's event loop from the first browser test
on, and ``./dev test`` runs the browser tests first: ``asyncio.run`` would then
refuse. Each coroutine runs to its end on a loop of its own, in a thread of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def on_own_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """``coroutine``'s result (or its exception), run on a fresh loop in a fresh thread."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
