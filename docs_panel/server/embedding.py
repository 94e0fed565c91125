"""The question's vector on the server install: hybrid retrieval as in the browser.

What is sent and what is accepted is ``docs_panel.core.question_embedding``'s, as in the
worker; here only the call, on a session of its own (the upstream model's key is
never sent to the embeddings endpoint, nor its key to the model). Any problem is
logged by its cause and the question is ranked by words alone::

    vector = await question_vector(embedder, text, index, request_id)  # or None
"""

from __future__ import annotations

import asyncio
import logging

import aiohttp

from docs_panel.core.docs_index import DocsIndex
from docs_panel.core.question_embedding import (
    LIMIT_S,
    mismatch,
    query_role,
    request_body,
    vector_from,
)
from docs_panel.server.settings import Settings

log = logging.getLogger("docs_panel.server")


class Embedder:
    """The process's client to ``settings.embeddings``, opened on first use on the
    running loop (as ``upstream.Upstream``)."""

    def __init__(self, settings: Settings) -> None:
        assert settings.embeddings is not None
        self.url, self.model = settings.embeddings, settings.embeddings_model
        self._key = settings.embeddings_key
        self._session: aiohttp.ClientSession | None = None

    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            headers = {"Content-Type": "application/json"}
            if self._key:
                headers["Authorization"] = f"Bearer {self._key}"
            self._session = aiohttp.ClientSession(headers=headers)
        return self._session

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def embedder_for(settings: Settings) -> Embedder | None:
    """The client for ``settings.embeddings`` (None: lexical ranking only)."""
    return Embedder(settings) if settings.embeddings is not None else None


async def question_vector(
    embedder: Embedder | None, text: str, index: DocsIndex, request_id: str
) -> list[float] | None:
    """The unit vector of ``text``, or None (logged) when it cannot be had in time."""
    if embedder is None:
        return None
    url = embedder.url
    role = query_role(None, index)  # the server install asks as the index says
    vector, problem = None, mismatch(embedder.model, role, index)
    if not problem:
        try:
            async with asyncio.timeout(LIMIT_S):
                body = request_body(embedder.model, role, text)
                async with embedder.session().post(url, data=body) as response:
                    status, answer = response.status, await response.text()
        except (aiohttp.ClientError, OSError, TimeoutError) as err:
            problem = f"{url}: no answer within {LIMIT_S} s ({type(err).__name__})"
        else:
            if status // 100 != 2:
                problem = f"{url} answered HTTP {status}"
            else:
                vector, problem = vector_from(answer, url, index.embedding_dimension)
    if problem:
        log.warning(
            "lexical ranking only for this question",
            extra={"request_id": request_id, "problem": problem},
        )
    return vector
