"""The one call a server install makes: the upstream model, streamed.

Every step has a timeout (``Timeouts``), and what goes wrong becomes a
:class:`StreamError` whose text names the status or the kind of failure only:
an upstream's error body can quote the key or the prompt, so it is logged by
status and never sent on::

    async for deltas in ask_upstream(client, settings, body):
        ...  # what one read brought: ContentDelta, ReasoningDelta, Finish, Done

It yields what each read of the upstream's body completed, as one list: when events
arrive together (a busy server reads several at once), the caller relays them in one
write instead of one per token.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import httpx

from widget.core.errors import StreamError
from widget.core.stream import ChatDelta, ChatStreamDecoder
from widget.server.settings import Settings


def upstream_client(settings: Settings) -> httpx.AsyncClient:
    """One pooled client for the process; its timeouts bound connect and each read."""
    timeouts = settings.timeouts
    headers = {"Accept": "text/event-stream"}
    if settings.upstream_key:
        headers["Authorization"] = f"Bearer {settings.upstream_key}"
    return httpx.AsyncClient(
        headers=headers,
        timeout=httpx.Timeout(
            connect=timeouts.connect, read=timeouts.idle, write=timeouts.idle, pool=timeouts.idle
        ),
        limits=httpx.Limits(max_connections=None, max_keepalive_connections=100),
    )


async def ask_upstream(
    client: httpx.AsyncClient, settings: Settings, body: dict[str, object]
) -> AsyncIterator[list[ChatDelta]]:
    """The upstream's answer, a list of deltas per read, ending with ``Done``;
    StreamError otherwise. Silence between two reads is bounded by the client's read
    timeout (``Timeouts.idle``); the whole answer's deadline is checked at each read
    (no timer per token: at a few thousand tokens a second, that is the server's CPU)."""
    timeouts = settings.timeouts
    deadline = time.monotonic() + timeouts.total
    decoder = ChatStreamDecoder()
    try:
        request = client.build_request("POST", settings.upstream, json=body)
        async with asyncio.timeout(timeouts.first_byte):  # a deadline, no task per await
            response = await client.send(request, stream=True)
    except (httpx.HTTPError, OSError, TimeoutError) as err:
        raise StreamError(f"the upstream model did not answer ({type(err).__name__})") from None
    try:
        if response.status_code != 200:
            raise StreamError(f"the upstream model replied HTTP {response.status_code}")
        async for chunk in response.aiter_raw():
            if time.monotonic() > deadline:
                raise StreamError(f"the upstream model took over {timeouts.total:g} s")
            deltas = decoder.feed(chunk)
            if deltas:
                yield deltas
        deltas = decoder.close()
        if deltas:
            yield deltas
    except (httpx.HTTPError, OSError, TimeoutError) as err:
        raise StreamError(f"the upstream model's stream failed ({type(err).__name__})") from None
    finally:
        await response.aclose()
