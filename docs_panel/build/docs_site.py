"""This repository's docs site (``mkdocs.yml``, ``docs/``): built with MkDocs and the
project's own MkDocs plugin, so every page carries the panel, and served like the demo.

It decides where the site goes and that it builds with ``--strict``; it never edits
the pages (MkDocs and the plugin do all the work)::

    python3 -m docs_panel.build.docs_site            # ./dev docs: build, then serve on :8001
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from docs_panel.build.cli import RUNTIME_ARCHIVE, build_runtimes
from docs_panel.build.runtime.paths import ROOT
from docs_panel.build.serve import make_server
from docs_panel.portable.errors import ConfigError

CONFIG = ROOT / "mkdocs.yml"
SITE = ROOT / "build" / "docs-site"


def build_docs_site(dest: Path = SITE) -> str:
    """Build the docs into ``dest`` and return MkDocs' log; a warning is a ConfigError
    that quotes MkDocs' log.

    The plugin bundles the runtime an installation carries, so a checkout writes its
    own first (``build.py runtimes``, cached by every file that goes in).
    """
    build_runtimes(RUNTIME_ARCHIVE)
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(CONFIG)]
    done = subprocess.run(
        [*command, "-d", str(dest)], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise ConfigError(f"mkdocs build --strict of {CONFIG.name} failed:\n{done.stderr}")
    return done.stderr


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev docs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8001, help="port (0 picks one)")
    args = parser.parse_args(argv)
    try:
        print(build_docs_site(), end="")
    except ConfigError as err:
        print(f"./dev docs: {err}", file=sys.stderr)
        return 1
    server = make_server(SITE, host=args.host, port=args.port)
    print(
        f"Serving the docs with the panel on http://{args.host}:{server.server_port}/"
        " (Ctrl+C stops)"
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
