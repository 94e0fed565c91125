"""The server install as an ASGI app (Starlette): ``create_app(settings)``.

Routes, relative to where a site mounts it (the panel's ``server`` setting):

- ``POST /answer``: a question (``docs_panel.core.server_wire``), answered as a stream.
- ``POST /feedback``: a vote report (the panel's ``feedbackEndpoint``), when a votes
  store is given.
- ``GET /healthz``: the process is up. ``GET /readyz``: it has an index and can answer.
- ``/mcp`` (``settings.mcp_path``): the docs' MCP server for agents, over Streamable HTTP
  (``mcp_mount``), behind the same origin list, rate limits and request log.

Refused before any work: a body over the cap (413), not ``application/json`` (415),
an unknown field or a wrong type (400), a client over its rate limit (429 with
``Retry-After``). ``SIGHUP`` (or ``reload_index``) reads the index again and swaps it
in whole; a question already planned keeps the index it started with. On shutdown
every open stream ends with an ``error`` event, so panels show search results rather
than a cut answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import signal
import time
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docs_panel.core.docs_index import DocsIndex
from docs_panel.core.server_wire import (
    ANSWER_PATH,
    BODY_LIMIT,
    CONTENT_TYPE,
    FEEDBACK_PATH,
    error_event,
    parse_question,
    redacted,
)
from docs_panel.portable.errors import RequestError, WidgetError
from docs_panel.server.answering import Context, Counters, answer
from docs_panel.server.client_key import TrustedProxies, client_key
from docs_panel.server.embedding import embedder_for
from docs_panel.server.index_files import read_index
from docs_panel.server.limits import KEY_PREFIX, Bucket, LimitSettings, open_limiter
from docs_panel.server.limits import retry_after as retry_after_header
from docs_panel.server.mcp_mount import McpMount
from docs_panel.server.report_shape import (
    MAX_REPORT_BYTES,
    ReportError,
    ReportTooLarge,
    parse_report,
)
from docs_panel.server.settings import Settings
from docs_panel.server.upstream import upstream_client
from docs_panel.server.votes.store import VotesError, VotesStore, open_votes

log = logging.getLogger("docs_panel.server")

SHUTDOWN_MESSAGE = "the server is restarting; ask again in a moment"
VOTE_LIMITS = LimitSettings(
    client=Bucket(rate=1, burst=30),
    total=Bucket(rate=100, burst=1000),
    prefix=f"{KEY_PREFIX}:votes",
)
"""A reader votes far less often than they ask, but a vote costs a durable write: a
script posting votes in a loop must not fill the database."""
DEFAULT_VOTES = Path("docs-panel-votes.sqlite3")
"""Where votes go without ``--database``: the working folder, never the served index."""


@dataclass
class Panel:
    """The app's state: the current index, counters, and whether it is shutting down."""

    settings: Settings
    index: DocsIndex | None = None
    counters: Counters = field(default_factory=Counters)
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    loop: asyncio.AbstractEventLoop | None = None
    waiting: set[asyncio.Timeout] = field(default_factory=set)
    """The deadline of each stream waiting for its next chunk: shutdown moves them to now."""

    async def reload_index(self) -> None:
        """Read the index again (in a thread: it is seconds of CPU for a large site) and
        swap it in at once; a failed read keeps the one being served."""
        try:
            fresh = await asyncio.to_thread(read_index, self.settings.index)
        except WidgetError as err:
            log.error("index not reloaded", extra={"problem": str(err)})
            return
        self.index = fresh
        log.info(f"index {fresh.version} loaded ({len(fresh)} sections)")

    def begin_shutdown(self) -> None:
        """End every open stream with an error event; new questions get 503. Safe from
        a signal handler or another thread: the work is done on the app's loop."""
        if self.loop is None or self.loop.is_closed():
            self.stopping.set()
        else:
            self.loop.call_soon_threadsafe(self._stop_streams)

    def _stop_streams(self) -> None:
        self.stopping.set()
        now = asyncio.get_running_loop().time()
        for deadline in self.waiting:
            deadline.reschedule(now)

    def current_index(self) -> DocsIndex:
        if self.index is None:
            raise RuntimeError("no index loaded yet")
        return self.index


def create_app(
    settings: Settings,
    *,
    limits: LimitSettings | None = None,
    vote_limits: LimitSettings | None = None,
) -> Starlette:
    """The server install, ready to run or to mount under a site's path. ``limits``:
    the questions' rate limits (default: ``LimitSettings``'s, on ``settings.redis`` if
    set); ``vote_limits``: the votes' (default ``VOTE_LIMITS``), buckets of their own."""
    panel = Panel(settings)
    votes: VotesStore | None = None
    limiter = open_limiter(limits or LimitSettings(redis=settings.redis))
    vote_limiter = open_limiter(vote_limits or replace(VOTE_LIMITS, redis=settings.redis))
    proxies = TrustedProxies.parse(settings.trusted_proxies)
    client = upstream_client(settings)
    embedder = embedder_for(settings)
    context = Context(settings, panel.current_index, client, panel.counters, embeddings=embedder)
    mcp = None
    if settings.mcp_path:
        mcp = McpMount(
            settings,
            panel.current_index,
            lambda: start(),
            lambda: panel.index is not None and not panel.stopping.is_set(),
            limiter,
            proxies,
            embedder,
        )

    async def start() -> None:
        """Load the index and open the votes store, once: from the lifespan when the app
        runs on its own, or on the first request when a site mounts it (Starlette runs a
        mounted app's routes, not its lifespan)."""
        nonlocal votes
        if panel.loop is not None:
            return
        loop = panel.loop = asyncio.get_running_loop()  # before any await: one start only
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(
                signal.SIGHUP, lambda: asyncio.ensure_future(panel.reload_index())
            )
        await panel.reload_index()
        votes = await open_votes(settings.database, default_path=DEFAULT_VOTES)
        if mcp is not None:
            await mcp.start()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await start()
        try:
            yield
        finally:
            panel.begin_shutdown()
            if mcp is not None:
                await mcp.stop()
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                asyncio.get_running_loop().remove_signal_handler(signal.SIGHUP)
            await client.aclose()
            if embedder is not None:
                await embedder.aclose()
            await limiter.close()
            await vote_limiter.close()
            if votes is not None:
                await votes.close()

    async def ask(request: Request) -> Response:
        await start()
        request_id = request.state.request_id
        if panel.stopping.is_set() or panel.index is None:
            return _refusal(503, "the server is not ready", retry_after=5)
        try:
            _check_json(request)
            asked = redacted(parse_question(await _body(request)))
        except RequestError as err:
            return _refusal(err.status, str(err))
        wait = await limiter.take(client_key(request.scope, proxies))
        if wait > 0:
            return _refusal(429, "too many questions; ask again later", retry_after=wait)
        if settings.log_questions:
            log.info("question", extra={"request_id": request_id, "question": asked.question})
        stream = answer(asked, context, request_id)
        return StreamingResponse(
            _until_stopping(stream, panel),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    async def feedback(request: Request) -> Response:
        await start()
        try:
            _check_json(request)
            report = parse_report(await _body(request, MAX_REPORT_BYTES))
        except RequestError as err:
            return _refusal(err.status, str(err))
        except ReportTooLarge as err:
            return _refusal(413, str(err))
        except ReportError as err:
            return _refusal(400, str(err))
        if votes is None:  # still taken while shutting down, until the store closes
            return _refusal(503, "the server is not ready", retry_after=5)
        wait = await vote_limiter.take(client_key(request.scope, proxies))
        if wait > 0:
            return _refusal(429, "too many votes; send again later", retry_after=wait)
        try:
            await votes.put(report)
        except VotesError:
            log.exception("vote not kept", extra={"request_id": request.state.request_id})
            return _refusal(503, "the vote could not be kept; send it again", retry_after=5)
        return Response(status_code=204)

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        await start()
        if panel.index is None or panel.stopping.is_set():
            return JSONResponse({"status": "not ready"}, status_code=503)
        counters = panel.counters
        return JSONResponse(
            {
                "status": "ready",
                "index": panel.index.version,
                "questions": counters.questions,
                "primed": counters.primed,
                "refused_citations": counters.refused,
            }
        )

    routes = [
        Route(ANSWER_PATH, ask, methods=["POST"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
    ]
    routes.append(Route(FEEDBACK_PATH, feedback, methods=["POST"]))
    if mcp is not None:
        routes.append(Route(settings.mcp_path, mcp, methods=["GET", "POST", "DELETE"]))
    middleware = [Middleware(RequestLog)]
    if settings.origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(settings.origins),
                allow_methods=["POST"],
                allow_headers=["Content-Type"],
                expose_headers=["Retry-After", "X-Request-Id"],
                max_age=600,
            )
        )
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.panel = panel
    return app


def _check_json(request: Request) -> None:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != CONTENT_TYPE:
        raise RequestError(415, f"expected Content-Type: {CONTENT_TYPE}")


async def _body(request: Request, limit: int = BODY_LIMIT) -> bytes:
    """The body, read no further than the cap (a declared length over it is not read)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise RequestError(413, f"the request body is over {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise RequestError(413, f"the request body is over {limit} bytes")
    return bytes(body)


def _refusal(status: int, message: str, *, retry_after: float | None = None) -> Response:
    headers = {"Retry-After": str(retry_after_header(retry_after))} if retry_after else {}
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def _until_stopping(
    stream: AsyncGenerator[bytes, None], panel: Panel
) -> AsyncIterator[bytes]:
    """``stream``, unless shutdown begins first: then one error event ends it. While it
    waits for its next chunk it is under a deadline that shutdown moves to now (no task
    per chunk, which a few thousand tokens a second would feel)."""
    try:
        while not panel.stopping.is_set():
            try:
                async with asyncio.timeout(None) as deadline:
                    panel.waiting.add(deadline)
                    try:
                        chunk = await anext(stream)
                    finally:
                        panel.waiting.discard(deadline)
            except StopAsyncIteration:
                return
            except TimeoutError:
                if not panel.stopping.is_set():
                    raise
                break
            yield chunk
        yield error_event(SHUTDOWN_MESSAGE)
    finally:
        await stream.aclose()


class RequestLog:
    """Names each request (``X-Request-Id``) and logs it once, as JSON, when it ends."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = secrets.token_hex(8)
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode()),
                ]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            log.info(
                "request",
                extra={
                    "request_id": request_id,
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "ms": round((time.perf_counter() - started) * 1000, 1),
                },
            )
