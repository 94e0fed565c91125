"""``build.py``: index a docs site and bundle the panel next to it, or serve the demo.

    python build.py --site path/to/built/html        # → path/to/built/html/docs-panel/
    python build.py --site docs/ --out public/docs-panel --base /
    python build.py --site build/ --version next     # index the unreleased docs
    python build.py --site build/ --embeddings http://127.0.0.1:8080/v1/embeddings \
        --embeddings-model all-MiniLM-L6-v2          # hybrid retrieval
    python build.py serve                            # demo site on http://127.0.0.1:8000/
    python build.py serve --endpoint http://127.0.0.1:8080/v1/chat/completions
    python build.py serve --plain                    # a host that compresses nothing

``serve`` answers with the demo endpoint (extracts from the docs, labelled as a
demo: no model) unless ``--endpoint`` names a real OpenAI-compatible server.

Bad input gets one clear line on stderr and exit status 1; the previous output
folder is only replaced once the new one is complete.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from builder.bundle import ROOT, bundle_files, with_gzip_twins
from builder.demo_answers import demo_reply
from builder.demo_site import render_site
from builder.embeddings import (
    DEFAULT_CACHE,
    EmbeddingsClient,
    EmbeddingsError,
    VectorCache,
    embed_sections,
)
from builder.extract import SiteReport, extract_site
from builder.publish import publish
from builder.serve import CHAT_PATH, make_server
from widget.core.docs_index import Section
from widget.core.errors import WidgetError
from widget.core.index_build import Embedded, build_index

DEMO_SOURCE = ROOT / "site_demo" / "docs"
DEMO_BUILD = ROOT / "site_demo" / "_build"
PANEL_FOLDER = "docs-panel"
DEMO_SCOPES = [{"id": "all", "label": "All docs"}, {"id": "api", "label": "API", "prefix": "/api/"}]


def demo_head(endpoint: str | None, model: str | None = None) -> str:
    """The demo pages' panel snippet: answers from ``endpoint``, or search results only."""
    config: dict[str, object] = {"chat": endpoint is not None, "scopes": DEMO_SCOPES}
    if endpoint is not None:
        config["endpoint"] = endpoint
    if model is not None:
        config["model"] = model
    # "</" would end the script element early.
    config_js = json.dumps(config).replace("</", "<\\/")
    return (
        f"<script>\n  window.docsPanel = {config_js};\n</script>\n"
        '<script src="/docs-panel/embed.js" async></script>'
    )


@dataclasses.dataclass(frozen=True, slots=True)
class BuildReport:
    out: Path
    pages: int
    sections: int
    index_bytes: int
    total_bytes: int
    seconds: float
    site: SiteReport | None = None
    embedded: str = ""  # the embeddings model and dimension, if any

    def summary(self) -> str:
        """What was built, then what the site's pages gave (``SiteReport.lines``)."""
        head = (
            f"docs-panel: {self.sections} sections from {self.pages} pages → {self.out} "
            f"(index {self.index_bytes / 1024:.0f} KiB, bundle {self.total_bytes / 2**20:.1f} MiB, "
            f"{self.seconds:.1f} s)"
        )
        lines = self.site.lines()[1:] if self.site else []
        if self.embedded:
            lines.insert(0, f"section vectors: {self.embedded} (hybrid retrieval)")
        return "\n".join([head, *(f"  {line}" for line in lines)])


def rebase(sections: Sequence[Section], base: str) -> list[Section]:
    """Put addresses under the site's base path (``--base /docs/``)."""
    prefix = "/" + base.strip("/") if base.strip("/") else ""
    return [dataclasses.replace(s, address=prefix + s.address) for s in sections]


@dataclasses.dataclass(frozen=True, slots=True)
class Embedding:
    """``build.py --embeddings``: where and with which model to embed the sections."""

    url: str
    model: str
    cache: Path = DEFAULT_CACHE
    optional: bool = False  # a failing server builds a lexical-only index instead


def build(
    site: Path,
    out: Path | None = None,
    base: str = "/",
    version: str = "current",
    embedding: Embedding | None = None,
) -> BuildReport:
    started = time.perf_counter()
    out = (out or site / PANEL_FOLDER).resolve()
    extracted = extract_site(site.resolve(), exclude=out, version=version)
    sections = rebase(extracted.sections, base)
    vectors = _vectors(sections, embedding) if embedding else None
    files = bundle_files(build_index(sections, extracted.report.main_language, vectors))
    index_bytes = sum(len(data) for name, data in files.items() if name.startswith("index"))
    files = with_gzip_twins(files)
    publish(files, out)
    return BuildReport(
        out=out,
        pages=len({s.address.split("#")[0] for s in sections}),
        sections=len(sections),
        index_bytes=index_bytes,
        total_bytes=sum(len(data) for data in files.values()),
        seconds=time.perf_counter() - started,
        site=extracted.report,
        embedded=f"{vectors.model}, {vectors.dimension} dimensions" if vectors else "",
    )


def _vectors(sections: list[Section], embedding: Embedding) -> Embedded | None:
    """The sections' vectors from ``embedding``'s server; None when it fails and
    ``optional`` allows a lexical-only build (said on stderr)."""
    cache = VectorCache(embedding.cache)
    try:
        return embed_sections(sections, EmbeddingsClient(embedding.url, embedding.model), cache)
    except EmbeddingsError as err:
        if not embedding.optional:
            raise
        print(f"build.py: warning: {err}; building a lexical-only index", file=sys.stderr)
        return None
    finally:
        cache.close()


def build_demo(
    dest: Path = DEMO_BUILD, *, endpoint: str | None = None, model: str | None = None
) -> BuildReport:
    """Render site_demo's Markdown to HTML pages and bundle the panel into them.

    ``endpoint`` None builds the panel with search results only (``chat: false``).
    """
    if dest.exists():
        shutil.rmtree(dest)
    render_site(DEMO_SOURCE, dest, head_snippet=demo_head(endpoint, model))
    return build(dest)


def serve(
    host: str,
    port: int,
    endpoint: str | None = None,
    model: str | None = None,
    *,
    compress: bool = True,
) -> None:
    """Build the demo and serve it; answers come from ``endpoint`` or the demo endpoint.

    ``compress=False`` plays a host that sends files as they are (no gzip).
    """
    print(build_demo(endpoint=endpoint or CHAT_PATH, model=model).summary())
    chat = None if endpoint else demo_reply
    server = make_server(DEMO_BUILD, host=host, port=port, chat=chat, compress=compress)
    answers = f"answers from {endpoint}" if endpoint else "demo answers (no model)"
    print(
        f"Serving the demo docs with the panel on http://{host}:{server.server_port}/"
        f" with {answers} (Ctrl+C stops)"
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["server"]:  # the server install has flags of its own
        from widget.server.cli import main as server_main  # Starlette, uvicorn: only then

        return server_main(argv[1:])
    parser = argparse.ArgumentParser(prog="build.py", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "command",
        nargs="?",
        choices=["build", "serve", "server"],
        default="build",
        help="server: the server install (see build.py server --help)",
    )
    parser.add_argument("--site", type=Path, help="folder of built HTML (or Markdown) docs")
    parser.add_argument("--out", type=Path, help="output folder (default: SITE/docs-panel)")
    parser.add_argument("--base", default="/", help="URL path the site is served under")
    parser.add_argument(
        "--version",
        default="current",
        help="versioned docs: index 'current' (what the site serves unversioned, else "
        "stable, latest, the highest number), 'next' (the unreleased docs), 'all', or the "
        "path prefix of one version (/docs/2.0/)",
    )
    parser.add_argument(
        "--embeddings",
        metavar="URL",
        help="an OpenAI-compatible /v1/embeddings URL to embed every section with, for "
        "hybrid retrieval (API key, if any, in $DOCS_PANEL_EMBEDDINGS_KEY)",
    )
    parser.add_argument("--embeddings-model", metavar="NAME", help="the model to ask for")
    parser.add_argument(
        "--embeddings-cache",
        type=Path,
        default=DEFAULT_CACHE,
        help="vectors already made, by model and text (default: %(default)s)",
    )
    parser.add_argument(
        "--embeddings-optional",
        action="store_true",
        help="if the embeddings server fails, build a lexical-only index (and say so)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="serve: address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="serve: port (0 picks one)")
    parser.add_argument(
        "--endpoint",
        help="serve: an OpenAI-compatible chat completions URL to answer with "
        "(default: the demo endpoint, extracts from the docs, no model)",
    )
    parser.add_argument("--model", help="serve: the model name to send with --endpoint")
    parser.add_argument(
        "--plain",
        action="store_true",
        help="serve: send files as they are, like a host that compresses nothing",
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "serve":
            if args.endpoint and not args.endpoint.startswith(("http://", "https://")):
                raise WidgetError(f"--endpoint {args.endpoint}: expected an http(s) URL")
            serve(args.host, args.port, args.endpoint, args.model, compress=not args.plain)
            return 0
        if args.site is None:
            parser.error("--site DIR is required (or use `serve` for the demo)")
        if not args.site.is_dir():
            raise WidgetError(f"--site {args.site}: not a folder of built HTML or Markdown docs")
        if not (args.version in ("current", "next", "all") or args.version.startswith("/")):
            raise WidgetError(
                f"--version {args.version}: expected current, next, all or a path prefix"
            )
        embedding = None
        if args.embeddings:
            if not args.embeddings.startswith(("http://", "https://")):
                raise WidgetError(f"--embeddings {args.embeddings}: expected an http(s) URL")
            if not args.embeddings_model:
                raise WidgetError("--embeddings needs --embeddings-model NAME")
            embedding = Embedding(
                args.embeddings,
                args.embeddings_model,
                args.embeddings_cache,
                args.embeddings_optional,
            )
        print(build(args.site, args.out, args.base, args.version, embedding).summary())
        return 0
    except WidgetError as err:
        print(f"build.py: error: {err}", file=sys.stderr)
        return 1
