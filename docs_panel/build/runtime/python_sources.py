"""Which Python goes to the browser: the worker's modules and what they import however
deep, the shell's modules with ``docs_panel.portable``, the worker's pure-Python
dependencies and a site's Snowball stemmers.

It never compiles or zips them (:mod:`.pyodide_bytecode` and :mod:`.bundle` do).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from pathlib import Path

from docs_panel.build.runtime.import_walk import reachable
from docs_panel.build.runtime.lean_source import lean_source
from docs_panel.build.runtime.paths import PACKAGE, ROOT
from docs_panel.build.runtime.twins import gzipped, json_bytes
from docs_panel.core.analyzers import stemmer_module
from docs_panel.portable.errors import ConfigError

# Pure-Python packages the worker imports, shipped as files (no micropip offline).
WORKER_DEPENDENCIES = ("markdown_it", "mdurl", "bleach", "webencodings")
# Shipped beside a site's index, only the stemmers its languages use (``stemmer_files``).
STEMMERS = "snowballstemmer"
# The modules the shell shares with the other runtimes: shipped whole, every file of it.
PORTABLE = PACKAGE / "portable"


def python_files(folder: Path, arcroot: str) -> Iterable[tuple[str, bytes]]:
    for path in sorted(folder.rglob("*.py")):
        if "__pycache__" not in path.parts:
            yield f"{arcroot}/{path.relative_to(folder).as_posix()}", path.read_bytes()


def dependency_files() -> Iterable[tuple[str, bytes]]:
    for name in WORKER_DEPENDENCIES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise ConfigError(f"Python package {name!r} is not installed; run `pip install .`")
        yield from python_files(Path(next(iter(spec.submodule_search_locations))), name)


def stemmer_files(analyzers: object) -> dict[str, str]:
    """The Snowball modules an index's ``analyzers`` import, by path (none for English or
    CJK alone): the worker fetches them with the index (``stemmers`` in its head). Not the
    package's own __init__, which imports all 36 stemmers."""
    needed = {stemmer_module(value) for value in analyzers} if isinstance(analyzers, list) else ()
    modules = sorted(name for name in needed if name)
    if not modules:
        return {}
    spec = importlib.util.find_spec(STEMMERS)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(f"Python package {STEMMERS!r} is not installed; run `pip install .`")
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = {f"{STEMMERS}/__init__.py": '"""The Snowball stemmers a site uses."""\n'}
    for name in ("among", "basestemmer", *(module.rpartition(".")[2] for module in modules)):
        files[f"{STEMMERS}/{name}.py"] = (folder / f"{name}.py").read_text(encoding="utf-8")
    return files


def worker_sources() -> list[tuple[str, bytes]]:
    """The worker's Python: ``docs_panel.worker``, the ``docs_panel.core`` and
    ``docs_panel.portable`` modules it imports however deep (no more: the core's are
    many), every locale (``i18n`` imports them by name), and their dependencies."""
    start = sorted((PACKAGE / "worker").glob("*.py"))
    start += sorted((PORTABLE / "locales").glob("*.py"))
    paths = sorted(reachable(start, "docs_panel", ROOT))
    files = [(path.relative_to(ROOT).as_posix(), path.read_bytes()) for path in paths]
    files += dependency_files()
    return files


def shell_files() -> bytes:
    """The MicroPython shell's modules (``main.py`` is loaded as the script itself) and
    ``docs_panel.portable`` whole, as one gzipped JSON object of sources by path.

    Without comments or docstrings (``lean_source``: a third fewer bytes), line for
    line. ``main.py`` writes them out before its first import. PyScript's ``files`` would
    unpack a zip with a 70 KiB reader of its own, fetched after the zip; and one
    gzip stream over all the sources is a quarter smaller than a zip of them.
    """
    files = [
        f
        for f in python_files(PACKAGE / "shell", "docs_panel/shell")
        if f[0] != "docs_panel/shell/main.py"
    ]
    files += [("docs_panel/__init__.py", b"")]
    files += python_files(PORTABLE, "docs_panel/portable")
    return gzipped(json_bytes({name: lean_source(data.decode("utf-8")) for name, data in files}))
