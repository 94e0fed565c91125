"""What a server install is told: its flags and environment, checked once at start.

Secrets never come from flags (they would show in ``ps``): the upstream model's key
from ``DOCS_PANEL_UPSTREAM_KEY`` and the citation signing keys from
``DOCS_PANEL_SIGNING_KEYS`` (``id:secret[,id:secret]``, the signing key first)::

    settings = Settings.from_environment(
        index=Path("site/docs-panel"), upstream="http://127.0.0.1:8080/v1/chat/completions",
        model="qwen3", environ=os.environ,
    )
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from docs_panel.core.config import DEFAULTS, Scope
from docs_panel.core.signing import SigningKeys, parse_keys
from docs_panel.portable.errors import ConfigError

UPSTREAM_KEY_ENV: Final = "DOCS_PANEL_UPSTREAM_KEY"
EMBEDDINGS_KEY_ENV: Final = "DOCS_PANEL_EMBEDDINGS_KEY"  # as for build.py --embeddings
SIGNING_KEYS_ENV: Final = "DOCS_PANEL_SIGNING_KEYS"


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Seconds for each step of an upstream call; none is ever unbounded."""

    connect: float = 5.0
    first_byte: float = 30.0
    """From the request to the upstream's response headers."""
    idle: float = 30.0
    """Between two chunks of the upstream's stream."""
    total: float = 300.0
    """A whole answer, however steadily it streams."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """A server install's settings; see ``build.py server --help`` for each."""

    index: Path
    upstream: str
    model: str
    signing: SigningKeys
    upstream_key: str = field(default="", repr=False)
    gate: float = DEFAULTS.gate
    scopes: tuple[Scope, ...] = ()
    origins: tuple[str, ...] = ()
    """Origins allowed by CORS (a page on another origin than the server)."""
    log_questions: bool = False
    timeouts: Timeouts = Timeouts()
    redis: str | None = None
    database: str | None = None
    trusted_proxies: tuple[str, ...] = ()
    embeddings: str | None = None
    """OpenAI-compatible /v1/embeddings URL: questions are ranked by meaning too (hybrid
    retrieval), as in the browser, when the index was built with vectors of its model."""
    embeddings_model: str = ""
    embeddings_key: str = field(default="", repr=False)
    mcp_path: str = "/mcp"
    """Where the app serves the docs' MCP server (Streamable HTTP); "" serves none."""

    def __post_init__(self) -> None:
        if not self.upstream.startswith(("http://", "https://")):
            raise ConfigError(f"--upstream {self.upstream}: expected an http(s) URL")
        if not self.model.strip():
            raise ConfigError("--model: expected the upstream's model name")
        if self.embeddings is not None:
            if not self.embeddings.startswith(("http://", "https://")):
                raise ConfigError(f"--embeddings {self.embeddings}: expected an http(s) URL")
            if not self.embeddings_model.strip():
                raise ConfigError("--embeddings needs --embeddings-model NAME, the index's model")
        if self.mcp_path and not (self.mcp_path.startswith("/") and len(self.mcp_path) > 1):
            raise ConfigError(f"--mcp-path {self.mcp_path}: expected a path such as /mcp")
        for origin in self.origins:
            if not origin.startswith(("http://", "https://")) or origin.count("/") != 2:
                raise ConfigError(
                    f"--origin {origin}: expected an origin such as https://docs.example.org"
                )

    @classmethod
    def from_environment(cls, *, environ: Mapping[str, str], **values: object) -> Settings:
        """Settings from flags (``values``) and the secrets in ``environ``."""
        keys = environ.get(SIGNING_KEYS_ENV, "")
        if not keys:
            raise ConfigError(
                f"${SIGNING_KEYS_ENV} is not set: the server signs citation lists with it; "
                f"set it to id:secret, e.g. k1:$(python -c 'import secrets; "
                "print(secrets.token_urlsafe(32))')"
            )
        return cls(
            signing=parse_keys(keys),
            upstream_key=environ.get(UPSTREAM_KEY_ENV, ""),
            embeddings_key=environ.get(EMBEDDINGS_KEY_ENV, ""),
            **values,  # type: ignore[arg-type]
        )
