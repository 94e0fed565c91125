"""Runs inside the bundled Pyodide, under Node (``pyodide_frozen.mjs`` starts it): the
modules CPython freezes into the wasm, compiled again as the worker's standard
library is (:mod:`docs_panel.build.runtime.lean_code`).
"""

from __future__ import annotations

import _imp
import marshal
import sys
import zipfile

from docs_panel.build.runtime.lean_code import ZIP_DATE, lean_code

# Frozen names whose source has another name in the standard library.
RENAMED = {
    "_frozen_importlib": "importlib/_bootstrap",
    "_frozen_importlib_external": "importlib/_bootstrap_external",
}


def compile_frozen(out: str) -> None:
    """Write to ``out`` a zip of ``was/<name>`` (the frozen bytes as the wasm carries
    them) and ``now/<name>`` (their replacement) for every frozen module whose source
    ships in Pyodide's standard library."""
    stdlib = zipfile.ZipFile("/lib/python{}{}.zip".format(*sys.version_info[:2]))
    shipped = set(stdlib.namelist())
    archive = zipfile.ZipFile(out, "w", zipfile.ZIP_STORED)
    for name in sorted(_imp._frozen_module_names()):  # type: ignore[attr-defined]
        data, is_package, _ = _imp.find_frozen(name, withdata=True)  # type: ignore[misc]
        path = RENAMED.get(name, name.replace(".", "/")) + ("/__init__.py" if is_package else ".py")
        if path not in shipped:  # CPython's test modules (__hello__…), aliases
            continue
        lean = marshal.dumps(lean_code(stdlib.read(path), f"<frozen {name}>"))
        for folder, blob in (("was", bytes(data)), ("now", lean)):  # type: ignore[arg-type]
            archive.writestr(zipfile.ZipInfo(f"{folder}/{name}", ZIP_DATE), blob)
    archive.close()
