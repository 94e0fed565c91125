"""Bytecode made smaller for shipping, run inside the bundled Pyodide.

Bytecode is tied to the interpreter that reads it, so the build makes it in
that interpreter: ``pyodide_bytecode.mjs`` (the worker's modules and the
standard library) and ``pyodide_frozen.mjs`` (the modules frozen into the wasm)
run this file in Pyodide under Node before their own steps::

    code = lean_code(source, "/lib/python314.zip/os.py")              # no line table
    code = lean_code(source, path, keep_lines=True)                    # the panel's own

``OPTIMIZE = 2`` drops docstrings and asserts: a fifth fewer bytes. Every zip the
build writes, here or in CPython (``docs_panel.build.runtime.bundle``), dates its
entries ``ZIP_DATE`` so that the same sources give the same bytes.
"""

from __future__ import annotations

from types import CodeType

OPTIMIZE = 2
ZIP_DATE = (2020, 1, 1, 0, 0, 0)


def at_first_lines(code: CodeType) -> CodeType:
    """``code`` with every instruction placed on its function's first line.

    Line tables are a fifth of the bytecode and compress worst of all (a third of
    the zipped bytes). This one costs 2 bytes per 8 instructions, which compress
    to almost nothing, and a traceback still names each file and function.
    """
    units = len(code.co_code) // 2

    def entry(count: int) -> bytes:
        return bytes((0x80 | 13 << 3 | count - 1, 0))  # no columns, line +0

    table = entry(8) * (units // 8) + (entry(units % 8) if units % 8 else b"")
    consts = tuple(at_first_lines(c) if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_linetable=table, co_consts=consts)


def lean_code(source: bytes, path: str, *, keep_lines: bool = False) -> CodeType:
    """``source`` compiled without docstrings or asserts (and line tables, unless kept)."""
    code = compile(source, path, "exec", dont_inherit=True, optimize=OPTIMIZE)
    return code if keep_lines else at_first_lines(code)
