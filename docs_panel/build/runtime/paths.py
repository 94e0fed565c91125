"""Where the build finds the panel's sources and the pinned npm runtimes it bundles.

It decides no content: every module of the build that reads this checkout or its
``node_modules`` takes the folders from here.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
NODE_MODULES = ROOT / "node_modules"
PACKAGE = ROOT / "docs_panel"
PYSCRIPT_DIST = NODE_MODULES / "@pyscript" / "core" / "dist"
MICROPYTHON_DIR = NODE_MODULES / "@micropython" / "micropython-webassembly-pyscript"
PYODIDE_DIR = NODE_MODULES / "pyodide"
ZSTDDEC_DIR = NODE_MODULES / "zstddec"
