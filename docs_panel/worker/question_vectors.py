"""The question's vector from the site's embeddings endpoint (Pyodide, in the worker).

What is sent and what is accepted is ``docs_panel.core.question_embedding``'s (the server
install asks the same way); here only the fetch. Any failure gives None, so the
question is answered by lexical ranking, with one ``console.warn`` naming the cause::

    vector = await question_vector(embeddings, url, "how do I pause", index)   # or None
"""

from __future__ import annotations

import js
from pyodide.ffi import to_js  # type: ignore[import-not-found]

from docs_panel.core.config import EmbeddingsConfig
from docs_panel.core.docs_index import DocsIndex
from docs_panel.core.question_embedding import (
    LIMIT_S,
    mismatch,
    query_role,
    request_body,
    vector_from,
)


async def question_vector(
    embeddings: EmbeddingsConfig, url: str, text: str, index: DocsIndex
) -> list[float] | None:
    """The unit vector of ``text`` from ``url`` (the configured endpoint, resolved),
    or None after one warning when it cannot be had."""
    role = query_role(embeddings.query, index)
    vector, problem = None, mismatch(embeddings.model, role, index)
    if not problem:
        body = request_body(embeddings.model, role, text)
        vector, problem = await _fetch_vector(url, body, index)
    if problem:
        js.console.warn(f"docs-panel: lexical ranking only for this question: {problem}")
    return vector


async def _fetch_vector(url: str, body: str, index: DocsIndex) -> tuple[list[float] | None, str]:
    options = {
        "method": "POST",
        "headers": {"Content-Type": "application/json"},
        "body": body,
        "signal": js.AbortSignal.timeout(int(LIMIT_S * 1000)),
    }
    try:
        response = await js.fetch(url, to_js(options, dict_converter=js.Object.fromEntries))
        answer = await response.text()
    except Exception as err:  # network error, or the time limit
        name = getattr(err, "name", "") or type(err).__name__
        cause = f"no answer within {LIMIT_S} s" if name == "TimeoutError" else f"{name}"
        return None, f"{url}: {cause}"
    if not response.ok:
        return None, f"{url} answered HTTP {response.status}"
    return vector_from(answer, url, index.embedding_dimension)
