"""Bytecode for the bundled Pyodide, and the standard library trimmed to what runs.

Pyodide ships its standard library as source, so every start compiled some 200
modules before the worker could answer (``loadPyodide`` is several times faster
when they come compiled). Bytecode is tied to the exact interpreter, so it
is made by that interpreter: ``pyodide_bytecode.mjs`` runs the bundled Pyodide
under Node, imports what the worker imports (and what PyScript's own Python
imports), records the standard-library modules that pulled in, and compiles
those and the worker's modules (all of the panel's own, and of its dependencies
the modules that were imported)::

    compiled = compile_worker(worker_sources, pyscript_modules())
    compiled.stdlib      # {"json/decoder.pyc": b"...", ...}: the trimmed standard library
    compiled.worker      # {"docs_panel/core/render.pyc": b"...", "bleach/__init__.pyc": ...}

Hash-based, unchecked ``.pyc`` files (PEP 552) carry no timestamps, so the
same sources give the same bytes. A run takes seconds, so results are cached
by a hash of everything that goes in (``docs_panel.build.runtime.node_cache``); a module imported
only on a path the trace does not take would be missing at run time, which the
browser tests would show.
"""

from __future__ import annotations

import io
import json
import re
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from docs_panel.build.runtime.lean_code import ZIP_DATE
from docs_panel.build.runtime.node_cache import cached, digest, run_node

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "pyodide_bytecode.mjs"
LEAN_CODE = HERE / "lean_code.py"  # the job imports it
JOB = HERE / "pyodide_bytecode_job.py"  # the Python the driver runs in Pyodide
MOUNT = HERE / "pyodide_job.mjs"  # how the drivers give Pyodide the builder's files

# PyScript's Python package sits in its JS bundle as "name.py": "source" pairs.
_PY_FILE = re.compile(r'"[\w]+\.py":"((?:[^"\\]|\\.)*)"')
_IMPORT = re.compile(r"^[ \t]*(?:from\s+([\w.]+)\s+import\b|import\s+([\w., \t]+))", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Compiled:
    stdlib: dict[str, bytes]
    worker: dict[str, bytes]


def pyscript_modules(bundle_sources: Iterable[str]) -> list[str]:
    """The absolute imports in the Python that PyScript's JS bundle carries."""
    found: set[str] = set()
    for source in bundle_sources:
        for body in _PY_FILE.findall(source):
            try:
                python = json.loads(f'"{body}"')
            except ValueError:
                continue
            for source_module, names in _IMPORT.findall(python):
                found.update([source_module] if source_module else _imported(names))
    return sorted(name for name in found if not name.startswith("."))


def _imported(names: str) -> list[str]:
    """``a, b.c as d`` → ``["a", "b.c"]``."""
    return [name.split()[0] for name in names.split(",") if name.strip()]


def compile_worker(
    sources: Iterable[tuple[str, bytes]], modules: list[str], pyodide: Path
) -> Compiled:
    """Bytecode of ``sources`` and of the standard library they import, for ``pyodide``."""
    source_zip = io.BytesIO()
    with zipfile.ZipFile(source_zip, "w") as archive:
        for name, data in sorted(sources):
            archive.writestr(zipfile.ZipInfo(name, ZIP_DATE), data)
    key = digest(
        DRIVER.read_bytes(),
        LEAN_CODE.read_bytes(),
        JOB.read_bytes(),
        MOUNT.read_bytes(),
        (pyodide / "package.json").read_bytes(),
        source_zip.getvalue(),
        "\n".join(modules).encode(),
    )

    def make(out: Path) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            job = Path(scratch) / "job.json"
            (Path(scratch) / "sources.zip").write_bytes(source_zip.getvalue())
            spec = {
                "pyodide": (pyodide / "pyodide.mjs").as_uri(),
                "sources": str(Path(scratch) / "sources.zip"),
                "modules": modules,
                "out": str(out),
            }
            job.write_text(json.dumps(spec))
            run_node([DRIVER, job], "compile the worker's Python in Pyodide")

    result = Compiled({}, {})
    with zipfile.ZipFile(cached("bytecode", key, ".zip", make)) as archive:
        for entry in archive.namelist():
            part, _, name = entry.partition("/")
            (result.stdlib if part == "stdlib" else result.worker)[name] = archive.read(entry)
    return result
