"""Pyodide's wasm trimmed: unused exports pruned, doc texts cut, lean frozen modules in
place (docs_panel.build.runtime.pyodide_wasm)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_panel.build.runtime import pyodide_wasm
from docs_panel.build.runtime.bundle import PYODIDE_DIR
from docs_panel.build.runtime.pyodide_wasm import pruned_wasm, with_lean_frozen, without_doc_texts
from docs_panel.build.runtime.wasm_data import Memory
from docs_panel.portable.errors import ConfigError


def test_the_wasm_keeps_only_the_exports_javascript_calls() -> None:
    """Most of Pyodide's C API exports go, and every one the glue calls stays."""
    pruned, whole = (
        exports(wasm) for wasm in (pruned_wasm(PYODIDE_DIR), PYODIDE_DIR / "pyodide.asm.wasm")
    )
    assert pruned < whole and len(pruned) < len(whole) / 2
    assert {"malloc", "free", "PyRun_SimpleString", "PyBuffer_Release", "Py_IncRef"} <= pruned


def test_a_missing_binaryen_says_to_run_npm_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without binaryen in node_modules, the build says what to run, not a traceback."""
    monkeypatch.setattr(pyodide_wasm, "BINARYEN", PYODIDE_DIR / "nowhere" / "package.json")
    with pytest.raises(ConfigError, match=r"nowhere/package\.json is missing; run `npm ci`"):
        pyodide_wasm.pruned_wasm(PYODIDE_DIR)


def exports(wasm: bytes | Path) -> set[str]:
    """The names of a wasm module's exported functions, read from its export section."""
    data = wasm.read_bytes() if isinstance(wasm, Path) else wasm
    at = 8  # past the magic number and version

    def number() -> int:  # unsigned LEB128
        nonlocal at
        value = shift = 0
        while data[at] & 0x80:
            value |= (data[at] & 0x7F) << shift
            at, shift = at + 1, shift + 7
        value |= data[at] << shift
        at += 1
        return value

    while data[at] != 7:  # skip to the export section
        at += 1
        size = number()
        at += size
    at += 1
    number()  # its size
    names = set()
    for _ in range(number()):
        length = number()
        name = data[at : at + length].decode()
        kind = data[at + length]
        at += length + 1
        number()  # the index of what is exported
        if kind == 0:  # a function
            names.add(name)
    return names


def test_doc_texts_go_unless_something_points_into_them() -> None:
    """A clinic docstring keeps `name(sig)\\n--\\n\\n`; one whose text code or a pointer in
    memory names inside is left whole."""
    first = b"\0f($self, /)\n--\n\nDoes f.\0"
    second = b"g(x)\n--\n\nDoes g.\0"
    third = b"h(y)\n--\n\nDoes h.\0\0\0"
    image = bytearray(first + second + third)
    pointer = image.index(b"es h")
    image += bytes(-len(image) % 4) + pointer.to_bytes(4, "little")  # pointers are aligned
    memory = Memory([], image)
    named_by_code = [image.index(b"Does g") + 2]
    without_doc_texts(memory, named_by_code)
    assert memory.image.startswith(b"\0f($self, /)\n--\n\n\0\0\0\0\0\0\0\0")
    assert b"Does g." in memory.image and b"Does h." in memory.image


def test_frozen_modules_give_way_to_lean_ones_in_place() -> None:
    """New bytes go where the old were, zeros after; aliases are replaced once; a module
    that grew is refused."""
    memory = Memory([], bytearray(b"..OLD-OS-BYTES.."))
    with_lean_frozen(memory, {"os": (b"OLD-OS-BYTES", b"NEW"), "os_alias": (b"OLD-OS-BYTES", b"X")})
    assert memory.image == bytearray(b"..NEW" + bytes(9) + b"..")
    with pytest.raises(ConfigError, match="grew"):
        with_lean_frozen(memory, {"site": (b"NEW", b"LONGER")})
