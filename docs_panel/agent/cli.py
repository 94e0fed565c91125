"""``docs-panel mcp SITE_OR_INDEX``: the docs as an MCP server on stdio.

    docs-panel mcp site/                 # a site built with docs-panel build
    docs-panel mcp site/docs-panel       # the folder the build wrote
    docs-panel mcp ~/Downloads/html      # any built docs: indexed in memory first

It decides where the index comes from; the tools are ``agent.mcp_server``'s. Nothing
goes to stdout but the protocol: what the command has to say goes to stderr, and it
never logs a query.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from docs_panel.agent.mcp_server import docs_server
from docs_panel.agent.tools import AgentDocs
from docs_panel.build.index_build import build_index
from docs_panel.build.site.extract import extract_site
from docs_panel.build.site.head_tag import PANEL_FOLDER
from docs_panel.core.docs_index import DocsIndex, load_index
from docs_panel.portable.errors import WidgetError
from docs_panel.server.index_files import read_index


def open_docs(path: Path) -> DocsIndex:
    """The index of ``path``: the panel folder's, the one in the site's panel folder, or
    (for docs the panel was never built into) one made in memory from the pages."""
    for folder in (path, path / PANEL_FOLDER):
        if (folder / "embed.js").is_file():
            return read_index(folder)
    if not path.is_dir():
        raise WidgetError(f"{path}: not a folder of built docs nor a docs-panel build")
    extracted = extract_site(path.resolve())
    if not extracted.sections:
        raise WidgetError(f"{path}: no pages with text to index (HTML or Markdown)")
    print(
        f"docs-panel mcp: no docs-panel build in {path}; indexed "
        f"{extracted.report.pages} pages in memory",
        file=sys.stderr,
    )
    return load_index(build_index(extracted.sections, extracted.report.main_language))


def main(argv: Sequence[str] | None = None, *, prog: str = "docs-panel mcp") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "path",
        type=Path,
        metavar="SITE_OR_INDEX",
        help="built docs (with or without a docs-panel build in them) or the panel folder",
    )
    args = parser.parse_args(argv)
    try:
        index = open_docs(args.path)
    except WidgetError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 1
    docs_server(AgentDocs(lambda: index), version=index.version).run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
