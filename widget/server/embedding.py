"""The question's vector on the server install: hybrid retrieval as in the browser.

What is sent and what is accepted is ``widget.core.question_embedding``'s, as in the
worker; here only the call, on a client of its own (the upstream model's key is never
sent to the embeddings endpoint, nor its key to the model). Any problem is logged by
its cause and the question is ranked by words alone::

    vector = await question_vector(client, settings, text, index, request_id)  # or None
"""

from __future__ import annotations

import asyncio
import logging

import httpx

from widget.core.docs_index import DocsIndex
from widget.core.question_embedding import LIMIT_S, mismatch, request_body, vector_from
from widget.server.settings import Settings

log = logging.getLogger("docs_panel.server")


def embeddings_client(settings: Settings) -> httpx.AsyncClient | None:
    """The client for ``settings.embeddings`` (None: lexical ranking only)."""
    if settings.embeddings is None:
        return None
    headers = {"Content-Type": "application/json"}
    if settings.embeddings_key:
        headers["Authorization"] = f"Bearer {settings.embeddings_key}"
    return httpx.AsyncClient(headers=headers, timeout=LIMIT_S)


async def question_vector(
    client: httpx.AsyncClient | None,
    settings: Settings,
    text: str,
    index: DocsIndex,
    request_id: str,
) -> list[float] | None:
    """The unit vector of ``text``, or None (logged) when it cannot be had in time."""
    if client is None or settings.embeddings is None:
        return None
    url = settings.embeddings
    vector, problem = None, mismatch(settings.embeddings_model, index)
    if not problem:
        try:
            async with asyncio.timeout(LIMIT_S):
                response = await client.post(
                    url, content=request_body(settings.embeddings_model, text)
                )
        except (httpx.HTTPError, OSError, TimeoutError) as err:
            problem = f"{url}: no answer within {LIMIT_S} s ({type(err).__name__})"
        else:
            if response.status_code // 100 != 2:
                problem = f"{url} answered HTTP {response.status_code}"
            else:
                vector, problem = vector_from(response.text, url, index.embedding_dimension)
    if problem:
        log.warning(
            "lexical ranking only for this question",
            extra={"request_id": request_id, "problem": problem},
        )
    return vector
