"""The modules a cold start imports before copying Pyodide's memory
(docs_panel.worker.preimport)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.fixture_files import ROOT

# Stand-ins for the browser's modules, so that the worker's entry script imports in CPython.
STAND_INS = """
import sys, types
class Anything:
    def __getattr__(self, name): return Anything()
    def __call__(self, *args, **kwargs): return Anything()
ffi = types.ModuleType("pyodide.ffi")
for name in ("JsBuffer", "jsnull", "to_js"): setattr(ffi, name, object)
sys.modules.update({"js": Anything(), "pyodide": types.ModuleType("pyodide"), "pyodide.ffi": ffi})
"""


def modules_after(statement: str, stand_ins: str = "") -> set[str]:
    """The names in sys.modules after ``statement``, in a fresh interpreter."""
    script = f"{stand_ins}\n{statement}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(json.loads(out.stdout))


def test_preimport_pulls_in_nothing_from_the_browser() -> None:
    """What goes into the memory copy imports neither ``js`` nor Pyodide's FFI."""
    loaded = modules_after("import docs_panel.worker.preimport")
    assert not {name for name in loaded if name.split(".")[0] in ("js", "pyodide")}
    assert {"docs_panel.core.render", "markdown_it", "bleach"} <= loaded  # for a model answer


def test_preimport_covers_every_pure_module_the_worker_starts_with() -> None:
    """A warm start finds each core and portable module the worker's entry script imports."""
    worker = modules_after("import docs_panel.worker.main", STAND_INS)
    preimported = modules_after("import docs_panel.worker.preimport")
    pure = ("docs_panel.core", "docs_panel.portable")
    assert {name for name in worker if name.startswith(pure)} <= preimported
