"""The docs' MCP server (``agent.mcp_server``) in the server install, over Streamable
HTTP at ``settings.mcp_path`` (``/mcp`` of the app: ``/docs-panel-api/mcp`` where a site
mounts the app at ``/docs-panel-api``).

It decides what the panel's routes already decide, for agents: a request from a page
of an origin the install does not allow is refused (403; agents send no Origin); a
search takes a token from the questions' rate limits (shared over Redis when the
install is) and is refused with an MCP error saying when to ask again; the question is
logged only redacted and only under ``--log-questions``, with the request's id; with
``--embeddings``, searches are ranked by meaning too, as the panel's questions are.
It never calls the model: no upstream key is involved. Requests and their ids are
logged by the app's ``RequestLog`` like every route's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

from mcp.server.mcpserver import Context
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from docs_panel.agent.mcp_server import docs_server
from docs_panel.agent.tools import AgentDocs
from docs_panel.core.docs_index import DocsIndex
from docs_panel.core.question_embedding import question_text
from docs_panel.core.redact import redact_text
from docs_panel.core.server_wire import BODY_LIMIT
from docs_panel.server.client_key import TrustedProxies, client_key
from docs_panel.server.embedding import Embedder, question_vector
from docs_panel.server.limits import Limiter, retry_after
from docs_panel.server.settings import Settings

log = logging.getLogger("docs_panel.server")

RATE_LIMITED: Final = -32029
"""The JSON-RPC error code of a search over the rate limit (in the range JSON-RPC leaves
to servers); its data holds ``retry_after``, the seconds to wait, as HTTP's header would."""


class McpMount:
    """The ASGI app at ``settings.mcp_path``; its session manager runs from the first
    request (or the app's start) until :meth:`stop`."""

    def __init__(
        self,
        settings: Settings,
        index: Callable[[], DocsIndex],
        start_app: Callable[[], Awaitable[None]],
        ready: Callable[[], bool],
        limiter: Limiter,
        proxies: TrustedProxies,
        embedder: Embedder | None,
    ) -> None:
        self.settings, self.index, self.start_app, self.ready = settings, index, start_app, ready
        self.limiter, self.proxies, self.embedder = limiter, proxies, embedder
        self.server = docs_server(AgentDocs(index), before_search=self.before_search)
        # Origins are checked here, against the install's own list, before the SDK's
        # transport (whose Host allow-list a site behind any name cannot fill in).
        self.server.streamable_http_app(
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=BODY_LIMIT,
        )
        self._running: asyncio.Task[None] | None = None
        self._started = asyncio.Event()
        self._stopping = asyncio.Event()

    async def start(self) -> None:
        """Run the session manager (once), in a task of its own: a site that mounts the
        app runs no lifespan of it."""
        if self._running is None:
            self._running = asyncio.create_task(self._run())
        await self._started.wait()

    async def _run(self) -> None:
        async with self.server.session_manager.run():
            self._started.set()
            await self._stopping.wait()

    async def stop(self) -> None:
        self._stopping.set()
        if self._running is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._running

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.start_app()  # the index, as for the panel's routes
        origin = Request(scope).headers.get("origin")
        if origin is not None and origin not in self.settings.origins:
            response = JSONResponse({"error": f"origin {origin} is not allowed"}, 403)
        elif not self.ready() or self._stopping.is_set():
            response = JSONResponse(
                {"error": "the server is not ready"}, 503, headers={"Retry-After": "5"}
            )
        else:
            await self.start()
            await self.server.session_manager.handle_request(scope, receive, send)
            return
        await response(scope, receive, send)

    async def before_search(self, ctx: Context, query: str) -> Sequence[float] | None:
        request = ctx.request_context.request
        assert isinstance(request, Request), "the HTTP transport hands over its request"
        request_id = request.state.request_id
        wait = await self.limiter.take(client_key(request.scope, self.proxies))
        if wait > 0:
            seconds = retry_after(wait)
            raise MCPError(
                RATE_LIMITED,
                f"too many questions; ask again in {seconds} s",
                {"retry_after": seconds},
            )
        if self.settings.log_questions:
            log.info("question", extra={"request_id": request_id, "question": redact_text(query)})
        return await question_vector(
            self.embedder, question_text(query, ""), self.index(), request_id
        )
