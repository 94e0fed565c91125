"""``python build.py server``: run the server install with uvicorn.

    DOCS_PANEL_SIGNING_KEYS=k1:… DOCS_PANEL_UPSTREAM_KEY=sk-… \\
    python build.py server --site public/ --upstream https://llm.example/v1/chat/completions \\
        --model docs-assistant --port 8100

``--index`` is the folder ``build.py --site`` wrote (default ``SITE/docs-panel``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import FrameType

import uvicorn

from docs_panel.core.config import Scope
from docs_panel.portable.errors import WidgetError
from docs_panel.server import logs
from docs_panel.server.app import VOTE_LIMITS, Panel, create_app
from docs_panel.server.index_files import current_index_name
from docs_panel.server.limits import Bucket, LimitSettings
from docs_panel.server.settings import SIGNING_KEYS_ENV, UPSTREAM_KEY_ENV, Settings, Timeouts

DEFAULT_LIMITS = LimitSettings()
SHUTDOWN_GRACE_S = 5
"""After the streams' error events, how long open connections get before they are closed."""


def parser(prog: str = "build.py server") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Answer the panel's questions on this server: retrieval, prompt and the "
        f"model call happen here. Secrets come from ${SIGNING_KEYS_ENV} and ${UPSTREAM_KEY_ENV}.",
    )
    p.add_argument("--site", type=Path, help="the built docs (the index is SITE/docs-panel)")
    p.add_argument("--index", type=Path, help="the folder build.py wrote (default SITE/docs-panel)")
    p.add_argument("--upstream", required=True, help="OpenAI-compatible chat completions URL")
    p.add_argument("--model", required=True, help="the model name to ask the upstream for")
    p.add_argument(
        "--gate", type=float, default=0.25, help="minimum retrieval score to ask the model"
    )
    p.add_argument(
        "--scope",
        action="append",
        default=[],
        metavar="ID=/PREFIX/",
        help="a scope of the page's picker and the addresses it searches (repeat), "
        "e.g. api=/api/; a scope the server does not know searches everything",
    )
    p.add_argument(
        "--embeddings",
        metavar="URL",
        help="an OpenAI-compatible /v1/embeddings URL: rank by meaning too (hybrid retrieval), "
        "for an index built with build.py --embeddings (API key in $DOCS_PANEL_EMBEDDINGS_KEY)",
    )
    p.add_argument("--embeddings-model", default="", metavar="NAME", help="the index's model")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8100)
    p.add_argument(
        "--origin", action="append", default=[], help="a page origin allowed by CORS (repeat)"
    )
    p.add_argument("--redis", help="redis:// URL: rate limits shared by every instance")
    p.add_argument(
        "--database",
        help="postgresql:// URL for votes (default: SQLite, docs-panel-votes.sqlite3 in the "
        "working folder, never the served one)",
    )
    p.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        help="a proxy address or network whose X-Forwarded-For is believed (repeat)",
    )
    p.add_argument(
        "--client-rate",
        type=float,
        default=DEFAULT_LIMITS.client.rate,
        help="questions a second one reader may ask, once their burst is spent",
    )
    p.add_argument("--client-burst", type=float, default=DEFAULT_LIMITS.client.burst)
    p.add_argument(
        "--total-rate",
        type=float,
        default=DEFAULT_LIMITS.total.rate,
        help="questions a second for the whole site (every instance on one --redis)",
    )
    p.add_argument("--total-burst", type=float, default=DEFAULT_LIMITS.total.burst)
    p.add_argument(
        "--vote-rate",
        type=float,
        default=VOTE_LIMITS.client.rate,
        help="votes a second one reader may send, once their burst is spent",
    )
    p.add_argument("--vote-burst", type=float, default=VOTE_LIMITS.client.burst)
    p.add_argument(
        "--mcp-path",
        default="/mcp",
        help="where the docs' MCP server answers agents, under the app's mount "
        "(default %(default)s; '' serves none)",
    )
    p.add_argument(
        "--log-questions", action="store_true", help="log each question's (redacted) text"
    )
    p.add_argument(
        "--timeout", type=float, default=30.0, help="seconds the upstream may stay silent"
    )
    return p


def settings_from(args: argparse.Namespace) -> Settings:
    if args.index is None and args.site is None:
        raise WidgetError("give --site DIR (or --index DIR, the folder build.py wrote)")
    index = args.index or args.site / "docs-panel"
    return Settings.from_environment(
        environ=os.environ,
        index=index,
        upstream=args.upstream,
        model=args.model,
        gate=args.gate,
        origins=tuple(args.origin),
        redis=args.redis,
        database=args.database,
        trusted_proxies=tuple(args.trusted_proxy),
        scopes=tuple(map(_scope, args.scope)),
        log_questions=args.log_questions,
        mcp_path=args.mcp_path,
        embeddings=args.embeddings,
        embeddings_model=args.embeddings_model,
        timeouts=Timeouts(first_byte=args.timeout, idle=args.timeout),
    )


def _scope(flag: str) -> Scope:
    scope_id, equals, prefix = flag.partition("=")
    if not (scope_id and equals and prefix.startswith("/")):
        raise WidgetError(f"--scope {flag}: expected ID=/PREFIX/, e.g. api=/api/")
    return Scope(id=scope_id, label=scope_id, prefix=prefix)


class _Server(uvicorn.Server):
    """Uvicorn, telling the app as soon as a shutdown signal comes, so open streams end
    with an error event instead of waiting for their last token."""

    panel: Panel

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.panel.begin_shutdown()
        super().handle_exit(sig, frame)


def main(argv: Sequence[str] | None = None, prog: str = "build.py server") -> int:
    args = parser(prog).parse_args(argv)
    try:
        settings = settings_from(args)
        current_index_name(settings.index)  # a folder without a build: say so, do not start
        limits = LimitSettings(
            client=Bucket(rate=args.client_rate, burst=args.client_burst),
            total=Bucket(rate=args.total_rate, burst=args.total_burst),
            redis=args.redis,
        )
        vote_client = Bucket(rate=args.vote_rate, burst=args.vote_burst)
        vote_limits = replace(VOTE_LIMITS, client=vote_client, redis=args.redis)
    except WidgetError as err:
        print(f"{prog}: {err}", file=sys.stderr)
        return 1
    logs.configure()
    app = create_app(settings, limits=limits, vote_limits=vote_limits)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_config=None,
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
        proxy_headers=False,  # the client address is decided by --trusted-proxy alone
    )
    server = _Server(config)
    server.panel = app.state.panel
    server.run()
    return 0
