"""Bytecode for the bundled Pyodide, and the standard library trimmed to what runs.

Pyodide ships its standard library as source, so every start compiled some 200
modules before the worker could answer (12 s → 2.4 s for ``loadPyodide`` under
Node when they come compiled). Bytecode is tied to the exact interpreter, so it
is made by that interpreter: ``pyodide_bytecode.mjs`` runs the bundled Pyodide
under Node, imports what the worker imports (and what PyScript's own Python
imports), records the standard-library modules that pulled in, and compiles
those and the worker's modules::

    compiled = compile_worker(worker_sources, pyscript_modules())
    compiled.stdlib      # {"json/decoder.pyc": b"...", ...}: the trimmed standard library
    compiled.worker      # {"widget/core/render.pyc": b"...", ...}

Hash-based, unchecked ``.pyc`` files (PEP 552) carry no timestamps, so the
same sources give the same bytes. A run takes seconds, so results are cached
by a hash of everything that goes in (``~/.cache/docs-panel``, or
``$XDG_CACHE_HOME``); a module imported only on a path the trace does not take
would be missing at run time, which the browser tests would show.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from widget.core.errors import ConfigError

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "pyodide_bytecode.mjs"
CACHE_ENTRIES_KEPT = 8

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


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "docs-panel"


def compile_worker(
    sources: Iterable[tuple[str, bytes]], modules: list[str], pyodide: Path
) -> Compiled:
    """Bytecode of ``sources`` and of the standard library they import, for ``pyodide``."""
    source_zip = io.BytesIO()
    with zipfile.ZipFile(source_zip, "w") as archive:
        for name, data in sorted(sources):
            archive.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), data)
    key = hashlib.sha256()
    for pinned in (DRIVER.read_bytes(), (pyodide / "package.json").read_bytes()):
        key.update(hashlib.sha256(pinned).digest())
    key.update(source_zip.getvalue())
    key.update("\n".join(modules).encode())
    cached = _cache_dir() / f"bytecode-{key.hexdigest()[:24]}.zip"
    if not cached.is_file():
        _run_node(source_zip.getvalue(), modules, pyodide, cached)
    result = Compiled({}, {})
    with zipfile.ZipFile(cached) as archive:
        for entry in archive.namelist():
            part, _, name = entry.partition("/")
            (result.stdlib if part == "stdlib" else result.worker)[name] = archive.read(entry)
    return result


def _run_node(source_zip: bytes, modules: list[str], pyodide: Path, target: Path) -> None:
    node = shutil.which("node")
    if node is None:
        raise ConfigError("build.py needs Node.js (`node`) to compile the worker's Python")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        job = Path(scratch) / "job.json"
        (Path(scratch) / "sources.zip").write_bytes(source_zip)
        out = Path(scratch) / "out.zip"
        job.write_text(
            json.dumps(
                {
                    "pyodide": (pyodide / "pyodide.mjs").as_uri(),
                    "sources": str(Path(scratch) / "sources.zip"),
                    "modules": modules,
                    "out": str(out),
                }
            )
        )
        run = subprocess.run([node, str(DRIVER), str(job)], capture_output=True, text=True)
        if run.returncode != 0 or not out.is_file():
            raise ConfigError(f"compiling the worker's Python in Pyodide failed:\n{run.stderr}")
        if run.stderr:  # a traced path that failed: say so, the build still works
            print(run.stderr, file=sys.stderr)
        partial = target.with_suffix(".partial")
        shutil.copyfile(out, partial)
        partial.replace(target)  # never a half-written cache entry
    entries = sorted(target.parent.glob("bytecode-*.zip"), key=lambda p: p.stat().st_mtime)
    for old in entries[:-CACHE_ENTRIES_KEPT]:
        old.unlink(missing_ok=True)
