"""Sending vote reports to ``feedbackEndpoint`` (Pyodide, in the worker).

Fire and forget: the vote is already on the turn and in the local log before
anything is sent, so a failing or slow endpoint loses nothing. A report that
fails (network error, HTTP error, no reply within ``TIMEOUT_S``) is tried once
more ``RETRY_S`` later, then given up with a ``console.warn``; the reader never
sees an error::

    deliver("https://docs.example.org/api/feedback", {"id": "3f…", "vote": "up", …})

The POST happens here rather than on the page because the worker already holds
the config and does the answer endpoint's ``fetch``; the shell only does storage.
"""

from __future__ import annotations

import asyncio
import json

import js
from pyodide.ffi import to_js  # type: ignore[import-not-found]

TIMEOUT_S = 10
RETRY_S = 5.0

_sending: set[asyncio.Future[None]] = set()  # kept until done: the loop holds tasks weakly


def deliver(url: str, report: dict[str, object]) -> None:
    """POST ``report`` as JSON in the background, retrying once."""
    task = asyncio.ensure_future(_deliver(url, json.dumps(report)))
    _sending.add(task)
    task.add_done_callback(_sending.discard)


async def _deliver(url: str, body: str) -> None:
    problem = ""
    for attempt in range(2):
        if attempt:
            await asyncio.sleep(RETRY_S)
        problem = await _post(url, body)
        if not problem:
            return
    js.console.warn(f"docs-panel: feedback not delivered to {url}: {problem}")


async def _post(url: str, body: str) -> str:
    """What went wrong; an empty string when the endpoint took the report."""
    options = {
        "method": "POST",
        "headers": {"Content-Type": "application/json"},
        "body": body,
        "signal": js.AbortSignal.timeout(TIMEOUT_S * 1000),
    }
    try:
        response = await js.fetch(url, to_js(options, dict_converter=js.Object.fromEntries))
        # Read to the end: Chromium reports a response whose body is left unread as
        # aborted (net::ERR_ABORTED) once it is collected.
        await response.text()
    except Exception as err:  # network error or timeout: a rejected fetch
        return str(err)
    return "" if response.ok else f"HTTP {response.status}"
