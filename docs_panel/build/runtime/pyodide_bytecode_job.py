"""Runs inside the bundled Pyodide, under Node (``pyodide_bytecode.mjs`` starts it):
imports what the worker imports, records which standard-library and dependency
modules that pulls in, and compiles those and the worker's own modules to bytecode
for this exact interpreter.

It imports nothing the worker does not import itself, so the modules it lists are the
worker's. ``docs_panel.build`` is put on Pyodide's ``sys.path`` by the driver, with this file
and :mod:`docs_panel.build.runtime.lean_code` only.
"""

from __future__ import annotations

import sys
import traceback
import zipfile

from docs_panel.build.runtime.lean_code import ZIP_DATE, lean_code

HOME = "/home/pyodide"
STDLIB = "/lib/python{}{}.zip/".format(*sys.version_info[:2])


def compile_worker(sources: str, extra_modules: list[str], out: str) -> None:
    """Unpack the worker's ``sources`` zip in Pyodide's home (the paths tracebacks name),
    import it and ``extra_modules`` (PyScript's own Python), and write to ``out`` a zip of
    ``stdlib/<entry>.pyc`` and ``worker/<path>.pyc`` files."""
    zipfile.ZipFile(sources).extractall(HOME)
    sys.path.insert(0, HOME)
    sys.dont_write_bytecode = True

    import docs_panel.worker.main  # noqa: F401 (the worker's imports, as PyScript runs them)

    for name in extra_modules:
        try:  # noqa: SIM105 (contextlib would be an import the worker may not make)
            __import__(name)
        except Exception:  # PyScript's own and JS-backed modules do not exist here
            pass
    try:
        _exercise()
    except Exception:
        print(
            "pyodide_bytecode: a traced path failed; its lazy imports may be missing:",
            traceback.format_exc(),
            file=sys.stderr,
        )
    _write(zipfile.ZipFile(sources), out)


def _exercise() -> None:
    """Paths that import lazily: an answer streamed and rendered, a history write,
    redaction, config errors, a traceback. A failing step is reported, not fatal."""
    from docs_panel.core.config import parse_config
    from docs_panel.core.history_schema import utf16_bytes
    from docs_panel.core.redact import redact_text
    from docs_panel.core.render import render_answer
    from docs_panel.core.stream import ChatStreamDecoder

    decoder = ChatStreamDecoder()
    decoder.feed(b'data: {"choices":[{"delta":{"content":"**x** [1]"}}]}\n\ndata: [DONE]\n\n')
    decoder.close()
    render_answer(
        "# T\n\n**b** [l](/x.html) [1]\n\n| a |\n|---|\n| b |\n",
        site_origin="https://example.org",
        page_exists=lambda path: True,
    )
    utf16_bytes("x")
    redact_text("token=ghp_" + "a" * 36)
    parse_config({"gate": "high", "chatt": True})  # a bad value, a mistyped key
    try:
        raise ValueError("traced")
    except ValueError:
        traceback.format_exc()


def _write(sources: zipfile.ZipFile, out: str) -> None:
    # Codecs are looked up by name at run time, so no import shows which: keep Unicode's.
    import encodings.ascii
    import encodings.latin_1
    import encodings.utf_8_sig
    import encodings.utf_16
    import encodings.utf_16_be
    import encodings.utf_16_le
    import encodings.utf_32
    import encodings.utf_32_be
    import encodings.utf_32_le  # noqa: F401
    import importlib._bootstrap_external as external
    from importlib.util import source_hash

    files = (getattr(module, "__file__", None) or "" for module in list(sys.modules.values()))
    modules = sorted({file[len(STDLIB) :] for file in files if file.startswith(STDLIB)})
    modules = [entry for entry in modules if entry.endswith(".py")]
    archive = zipfile.ZipFile(out, "w", zipfile.ZIP_STORED)

    def add(name: str, source: bytes, path: str) -> None:
        code = lean_code(source, path, keep_lines=name.startswith("worker/docs_panel/"))
        pyc = external._code_to_hash_pyc(code, source_hash(source), checked=False)  # type: ignore[attr-defined]
        archive.writestr(zipfile.ZipInfo(name[:-3] + ".pyc", ZIP_DATE), bytes(pyc))

    stdlib = zipfile.ZipFile(STDLIB[:-1])
    for entry in modules:
        add("stdlib/" + entry, stdlib.read(entry), STDLIB + entry)

    # The panel's own modules all ship; of its dependencies, what the traced paths
    # imported (bleach's html5lib brings tree builders for lxml and the DOM, filters its
    # cleaner never sets, a Genshi adapter: 76 KB of source).
    def imported(entry: str) -> bool:
        name = entry[:-3].replace("/", ".").removesuffix(".__init__")
        return entry.startswith("docs_panel/") or name in sys.modules

    for entry in sorted(sources.namelist()):
        if entry.endswith(".py") and imported(entry):
            add("worker/" + entry, sources.read(entry), HOME + "/" + entry)
    archive.close()
