"""What the worker does for the shell: the core's decisions plus the I/O only a
worker can do (fetching the index). Replies are JSON strings, so nothing but
plain values crosses between Pyodide and MicroPython::

    reply = json.loads(await worker.start(config_json, "en", index_url))
    reply["errors"]   # one message per bad config key, for console.error
    json.loads(await worker.ask("how do I retry a job", "api"))["results"]
"""

from __future__ import annotations

import json

import js  # type: ignore[import-not-found]

from widget.core.answers import search_results
from widget.core.config import Config, config_to_json, parse_config
from widget.core.docs_index import DocsIndex, load_index
from widget.core.errors import DocsIndexError


class _State:
    config: Config | None = None
    index: DocsIndex | None = None


_state = _State()


async def _fetch_json(url: str) -> object:
    response = await js.fetch(url)
    if not response.ok:
        raise DocsIndexError(f"could not load {url}: HTTP {response.status}; rebuild with build.py")
    return json.loads(await response.text())


async def start(config_json: str, html_lang: str, index_url: str) -> str:
    """Validate the page's config and load the docs index; reply with both outcomes."""
    parsed = parse_config(json.loads(config_json))
    _state.config = parsed.config
    _state.index = load_index(await _fetch_json(index_url))
    return json.dumps(
        {
            "config": config_to_json(parsed.config),
            "errors": list(parsed.errors),
            "indexVersion": _state.index.version,
        }
    )


async def ask(question: str, scope_id: str) -> str:
    """Answer a question with the best-matching sections (search results)."""
    if _state.config is None or _state.index is None:
        raise RuntimeError("ask() before start(): the shell must wait for start()")
    results = search_results(_state.index, _state.config, question, scope_id or None)
    return json.dumps({"results": results})
