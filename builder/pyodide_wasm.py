"""Pyodide's wasm without the C API exports that only packages would link against.

Pyodide exports some 7,400 functions so that packages' C extensions can call into
the interpreter; the panel loads no packages, and its JavaScript (the glue and
Pyodide's API) calls a few hundred of them. ``pyodide_wasm.mjs`` drops the other
exports and, with binaryen, the code that only they reached: 7% of the
wasm's bytes as Zstandard (2836 → 2642 KiB). It starts from the wasm without the
CJK codec tables (``builder.cjk_tables``: 2642 → 2465 KiB)::

    wasm = pruned_wasm(PYODIDE_DIR)   # bytes, cached by builder.node_cache
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from builder.cjk_tables import TABLES, without_cjk_tables
from builder.node_cache import cached, digest, run_node
from widget.core.errors import ConfigError

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "pyodide_wasm.mjs"
BINARYEN = HERE.parent / "node_modules" / "binaryen" / "package.json"


def pruned_wasm(pyodide: Path) -> bytes:
    """``pyodide``'s wasm, keeping the exports its JavaScript names."""
    wasm, *scripts = (
        pyodide / name for name in ("pyodide.asm.wasm", "pyodide.asm.mjs", "pyodide.mjs")
    )
    try:
        parts = [DRIVER, BINARYEN, TABLES, wasm, *scripts]
        key = digest(*(p.read_bytes() for p in parts))
    except OSError as err:
        missing = f"{err.filename} is missing"
        raise ConfigError(f"{missing}; run `npm ci` in {HERE.parent} first") from err

    def make(out: Path) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            lean = Path(scratch) / wasm.name
            lean.write_bytes(without_cjk_tables(wasm.read_bytes()))
            run_node([DRIVER, lean, *scripts, out], "prune Pyodide's wasm (binaryen)")

    return cached("wasm", key, ".wasm", make).read_bytes()
