"""The runtime bundle built from this repository's sources, cached like Node's outputs.

``python build.py --site`` takes the runtime from here; ``python build.py runtimes``
writes the same archive for the wheel (``docs_panel/runtime.zip``), so a site built
either way gets the same bytes. The key covers every file that goes in: the panel's
code and assets, the build, the npm lock (which pins the runtimes) and the worker's
Python dependencies as installed.
"""

from __future__ import annotations

from pathlib import Path

from docs_panel.build.runtime.bundle import runtime_bundle
from docs_panel.build.runtime.node_cache import cached, digest
from docs_panel.build.runtime.paths import ROOT
from docs_panel.build.runtime.python_sources import dependency_files
from docs_panel.build.runtime.runtime_archive import Runtime, read_runtime, runtime_archive

# The archive the wheel carries is this key's output, never its input.
_OUTPUT = ROOT / "docs_panel" / "runtime.zip"


def runtime_key() -> str:
    paths = sorted(
        path
        for path in (ROOT / "docs_panel").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path != _OUTPUT
    )
    parts = [(ROOT / "package-lock.json").read_bytes()]
    for path in paths:
        parts += [path.relative_to(ROOT).as_posix().encode(), path.read_bytes()]
    parts += [part for name, data in dependency_files() for part in (name.encode(), data)]
    return digest(*parts)


def cached_runtime() -> Runtime:
    """The runtime for this checkout, built (Node) only when its sources changed."""

    def make(out: Path) -> None:
        out.write_bytes(runtime_archive(runtime_bundle()))

    return read_runtime(cached("runtime", runtime_key(), ".zip", make).read_bytes())
