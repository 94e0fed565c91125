"""A reader's question embedded for hybrid retrieval: what the worker and the server
install both send to the site's embeddings endpoint (OpenAI's ``POST /v1/embeddings``)
and what they accept back. They only do the I/O, each in its own way.

Hybrid retrieval must never make an answer worse or slower than lexical search by
much: the call has ``LIMIT_S`` in all, and any problem (an index without vectors,
another model, passages embedded with a role and questions without one, an answer
that is not one vector of the index's dimension) gives its reason instead of a
vector, and the question is ranked by words alone::

    >>> request_body("m", Role(), question_text("how do I pause", quote=""))
    '{"model": "m", "input": ["how do I pause"]}'
    >>> vector_from('{"data": [{"embedding": [3, 4]}]}', "https://e/v1/embeddings", 2)
    ([0.6, 0.8], '')
    >>> vector_from('{"data": [{"embedding": [3, 4]}]}', "https://e/v1/embeddings", 3)[1]
    'https://e/v1/embeddings gave a vector of 2 dimensions; the index has 3'
"""

from __future__ import annotations

import json
from typing import Final

from docs_panel.core import embedding_roles
from docs_panel.core.docs_index import DocsIndex
from docs_panel.core.embedding_roles import Role
from docs_panel.core.redact import redact_text
from docs_panel.core.vectors import normalized

LIMIT_S: Final = 1.5
"""The most the embedding call may add to a question, in seconds."""


def question_text(question: str, quote: str) -> str:
    """What is embedded: the question and the passage it quotes, credentials masked."""
    return redact_text(f"{question} {quote}" if quote else question)


def query_role(configured: Role | None, index: DocsIndex) -> Role:
    """How questions are asked for: as the panel's config says, else as the index says."""
    return index.embedding_roles.get("query", Role()) if configured is None else configured


def mismatch(model: str, role: Role, index: DocsIndex) -> str:
    """Why ``model``'s vectors asked for as ``role`` cannot rank ``index`` ("" when
    they can)."""
    if not index.embedding_model:
        return "the index has no section vectors (build.py --embeddings URL adds them)"
    if model != index.embedding_model:
        built = index.embedding_model
        return f"embeddings.model is {model!r} but the index was built with {built!r}"
    if index.embedding_roles.get("passage") and not role:
        return (
            "the index's passages were embedded with a role and questions would be sent"
            " without one: set embeddings.query (or build.py --embeddings-query-*)"
        )
    return ""


def request_body(model: str, role: Role, text: str) -> str:
    """The JSON body asking ``model`` for ``text``'s vector as a question."""
    return embedding_roles.request_body(model, role, [text])


def vector_from(answer: str, url: str, dimension: int) -> tuple[list[float] | None, str]:
    """The unit vector in a 2xx ``answer`` from ``url``, or None and the reason."""
    try:
        found = json.loads(answer)["data"][0]["embedding"]
        vector = [float(x) for x in found]
    except (ValueError, KeyError, IndexError, TypeError):
        return None, f"{url} did not answer with an OpenAI embeddings list"
    if len(vector) != dimension:
        return None, (f"{url} gave a vector of {len(vector)} dimensions; the index has {dimension}")
    return normalized(vector), ""
