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

import aiohttp

from docs_panel.core.stream import ChatDelta, ChatStreamDecoder
from docs_panel.portable.errors import StreamError
from docs_panel.server.settings import Settings


class Upstream:
    """The process's one pooled client to the upstream model (aiohttp: its C HTTP parser
    reads a streamed answer at about half the CPU per token of httpx's h11, which a
    server relaying thousands of tokens a second feels). The session is opened on first
    use, on the running loop; connections are not capped, so no stream waits for one.
    Its timeouts bound the connect and each read (``Timeouts.connect``, ``idle``)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._session: aiohttp.ClientSession | None = None

    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            timeouts = self.settings.timeouts
            headers = {"Accept": "text/event-stream"}
            if self.settings.upstream_key:
                headers["Authorization"] = f"Bearer {self.settings.upstream_key}"
            self._session = aiohttp.ClientSession(
                headers=headers,
                timeout=aiohttp.ClientTimeout(
                    total=None, sock_connect=timeouts.connect, sock_read=timeouts.idle
                ),
                connector=aiohttp.TCPConnector(limit=0),
            )
        return self._session

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def upstream_client(settings: Settings) -> Upstream:
    """The client for ``ask_upstream``; close it with ``aclose`` when the app stops."""
    return Upstream(settings)


async def ask_upstream(
    client: Upstream, settings: Settings, body: dict[str, object]
) -> AsyncIterator[list[ChatDelta]]:
    """The upstream's answer, a list of deltas per read, ending with ``Done``;
    StreamError otherwise. Silence between two reads is bounded by the client's read
    timeout (``Timeouts.idle``); the whole answer's deadline is checked at each read
    (no timer per token: at a few thousand tokens a second, that is the server's CPU)."""
    timeouts = settings.timeouts
    deadline = time.monotonic() + timeouts.total
    decoder = ChatStreamDecoder()
    try:
        async with asyncio.timeout(timeouts.first_byte):  # a deadline, no task per await
            response = await client.session().post(settings.upstream, json=body)
    except (aiohttp.ClientError, OSError, TimeoutError) as err:
        raise StreamError(f"the upstream model did not answer ({type(err).__name__})") from None
    try:
        if response.status != 200:
            raise StreamError(f"the upstream model replied HTTP {response.status}")
        async for chunk in response.content.iter_any():
            if time.monotonic() > deadline:
                raise StreamError(f"the upstream model took over {timeouts.total:g} s")
            deltas = decoder.feed(chunk)
            if deltas:
                yield deltas
        deltas = decoder.close()
        if deltas:
            yield deltas
    except (aiohttp.ClientError, OSError, TimeoutError) as err:
        raise StreamError(f"the upstream model's stream failed ({type(err).__name__})") from None
    finally:
        response.release()
