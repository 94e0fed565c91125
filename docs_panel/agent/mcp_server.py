"""The docs as an MCP server, on the official MCP Python SDK: the tools ``search_docs``
and ``read_section``, and a resource per page (``docs://page/{+path}``, listed in
``docs://pages``).

It decides the tools' names, schemas and errors: an argument the tools refuse (too
long, out of range) is a JSON-RPC invalid-params error naming the argument; an address
the index lacks is a tool result marked as an error, which the agent reads. It never
speaks a transport itself (stdio is ``agent.cli``'s, HTTP the server install's), never
calls a model, and logs nothing of a query: ``before_search`` is where a
transport limits, logs (redacted) and embeds::

    server = docs_server(AgentDocs(lambda: index))
    await server.run_stdio_async()
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Final

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, ToolAnnotations
from pydantic import Field

from docs_panel.agent.tools import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    AgentDocs,
    InputRefused,
    NotFound,
    PageEntry,
    SearchHit,
    SectionText,
    check_search,
)

NAME: Final = "docs-panel"
INSTRUCTIONS: Final = (
    "Search these docs with search_docs (ranked sections, each with an address), then "
    "read a section in full with read_section(address). Cite the addresses you used."
)
PAGE_URI: Final = "docs://page/{+path}"
PAGES_URI: Final = "docs://pages"

BeforeSearch = Callable[[Context, str], Awaitable[Sequence[float] | None]]
"""Called with each query (its arguments checked) before it is searched: may refuse it
(raise ``MCPError``), log it, and return the question's vector for hybrid ranking (None:
words only)."""


def docs_server(
    docs: AgentDocs, *, before_search: BeforeSearch | None = None, version: str = ""
) -> MCPServer:
    """An MCP server over ``docs``; ``before_search``: the transport's (see
    :data:`BeforeSearch`)."""
    server: MCPServer = MCPServer(NAME, instructions=INSTRUCTIONS, version=version)
    read_only = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only)
    async def search_docs(
        query: Annotated[str, Field(description="What to look for, in words or a question")],
        ctx: Context,
        scope: Annotated[
            str, Field(description="Only sections whose address starts with this (/api/)")
        ] = "",
        language: Annotated[
            str, Field(description="A BCP 47 tag (fr); the site's main language if empty")
        ] = "",
        limit: Annotated[
            int, Field(description=f"How many sections, 1 to {MAX_LIMIT}")
        ] = DEFAULT_LIMIT,
    ) -> list[SearchHit]:
        """The docs' sections that best answer the query, best first, each with its title,
        its page's title, its address (for read_section), an excerpt and a score (0-1)."""
        try:
            check_search(query, scope, language, limit)
        except InputRefused as err:
            raise MCPError(INVALID_PARAMS, str(err)) from None
        vector = None
        if before_search is not None:
            vector = await before_search(ctx, query)
        return docs.search(query, scope, language, limit, vector)

    @server.tool(annotations=read_only)
    async def read_section(
        address: Annotated[
            str, Field(description="A section's address from search_docs (/guide.html#setup)")
        ],
    ) -> SectionText:
        """The section's whole indexed text, its breadcrumb, and its page's outline (each
        heading's title, address and depth) to read on from."""
        try:
            return docs.read(address)
        except InputRefused as err:
            raise MCPError(INVALID_PARAMS, str(err)) from None
        except NotFound as err:
            raise ToolError(str(err)) from None

    @server.resource(PAGES_URI, mime_type="application/json")
    async def pages() -> list[PageEntry]:
        """Every page of the docs: its path and title (read one as docs://page/PATH)."""
        return docs.pages()

    @server.resource(PAGE_URI, mime_type="text/markdown")
    async def page(path: str) -> str:
        """A page's indexed text as Markdown, its sections under their headings."""
        try:
            return docs.page_markdown("/" + path)
        except InputRefused as err:
            raise MCPError(INVALID_PARAMS, str(err)) from None
        except NotFound as err:
            raise ResourceError(str(err)) from None

    return server
