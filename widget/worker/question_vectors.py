"""The question's vector from the site's embeddings endpoint (Pyodide, in the worker).

Hybrid retrieval must never make an answer worse or slower than lexical search
by much: the call has ``LIMIT_S`` in all, and any failure (no connection,
an HTTP error, a time-out, an answer that is not one vector of the index's
dimension, a configured model other than the index's) gives None, so the
question is answered by lexical ranking, with one ``console.warn`` naming the
cause::

    vector = await question_vector(embeddings, "how do I pause", index)   # or None
"""

from __future__ import annotations

import json

import js  # type: ignore[import-not-found]
from pyodide.ffi import to_js  # type: ignore[import-not-found]

from widget.core.config import EmbeddingsConfig
from widget.core.docs_index import DocsIndex
from widget.core.vectors import normalized

#: The most the embedding call may add to a question, in seconds.
LIMIT_S = 1.5


async def question_vector(
    embeddings: EmbeddingsConfig, url: str, question: str, index: DocsIndex
) -> list[float] | None:
    """The unit vector of ``question`` from ``url`` (the configured endpoint, resolved),
    or None after one warning when it cannot be had."""
    problem = _mismatch(embeddings, index)
    vector = None
    if not problem:
        vector, problem = await _fetch_vector(url, embeddings.model, question)
    if vector is not None and len(vector) != index.embedding_dimension:
        problem = (
            f"{url} gave a vector of {len(vector)} dimensions; the index's"
            f" {index.embedding_model} has {index.embedding_dimension}"
        )
    if problem:
        js.console.warn(f"docs-panel: lexical ranking only for this question: {problem}")
        return None
    assert vector is not None
    return normalized(vector)


def _mismatch(embeddings: EmbeddingsConfig, index: DocsIndex) -> str:
    if not index.embedding_model:
        return "the index has no section vectors (build.py --embeddings URL adds them)"
    if embeddings.model != index.embedding_model:
        return (
            f"embeddings.model is {embeddings.model!r} but the index was built with"
            f" {index.embedding_model!r}"
        )
    return ""


async def _fetch_vector(url: str, model: str, question: str) -> tuple[list[float] | None, str]:
    options = {
        "method": "POST",
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps({"model": model, "input": [question]}),
        "signal": js.AbortSignal.timeout(int(LIMIT_S * 1000)),
    }
    try:
        response = await js.fetch(url, to_js(options, dict_converter=js.Object.fromEntries))
        text = await response.text()
    except Exception as err:  # network error, or the time limit
        name = getattr(err, "name", "") or type(err).__name__
        cause = f"no answer within {LIMIT_S} s" if name == "TimeoutError" else f"{name}"
        return None, f"{url}: {cause}"
    if not response.ok:
        return None, f"{url} answered HTTP {response.status}"
    try:
        vector = json.loads(text)["data"][0]["embedding"]
        return [float(x) for x in vector], ""
    except (ValueError, KeyError, IndexError, TypeError):
        return None, f"{url} did not answer with an OpenAI embeddings list"
