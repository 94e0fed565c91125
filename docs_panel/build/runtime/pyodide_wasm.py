"""Pyodide's wasm without the C API exports that only packages would link against.

Pyodide exports some 7,400 functions so that packages' C extensions can call into
the interpreter; the panel loads no packages, and its JavaScript (the glue and
Pyodide's API) calls a few hundred of them. ``pyodide_wasm.mjs`` drops the other
exports and, with binaryen, the code that only they reached. It starts from the wasm
without the CJK codec tables (``docs_panel.build.runtime.cjk_tables``). Then its memory
(``docs_panel.build.runtime.wasm_data``) loses what the panel never reads (what each
step saves: bench/results/first_open.md; why: docs/decisions/0003-trim-the-wasm.md):

- musl's iconv tables, which no code left after pruning names (131 KB);
- the text of C functions' docstrings, after their signature line: ``__doc__``
  becomes None and ``inspect.signature`` still works, unless some code names an
  address inside that text (a string the linker shares with it);
- the modules frozen into the wasm (importlib's bootstrap, os, site…) give way
  to the same modules compiled as the worker's are (``pyodide_frozen.mjs``), in
  the same place: the interpreter reads one marshalled object there and
  ignores the zeros after it;
- and it is cut into segments only at long runs of zeros::

    wasm = pruned_wasm(PYODIDE_DIR)   # bytes, cached by docs_panel.build.runtime.node_cache
"""

from __future__ import annotations

import re
import tempfile
import zipfile
from array import array
from collections.abc import Mapping, Sequence
from pathlib import Path

from docs_panel.build.runtime.cjk_tables import TABLES, without_cjk_tables, without_iconv_tables
from docs_panel.build.runtime.import_walk import reachable
from docs_panel.build.runtime.node_cache import cached, digest, run_node
from docs_panel.build.runtime.pyodide_bytecode import LEAN_CODE, MOUNT
from docs_panel.build.runtime.wasm_data import Memory, names_any
from docs_panel.portable.errors import ConfigError

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "pyodide_wasm.mjs"
ADDRESSES = HERE / "wasm_addresses.mjs"
FROZEN = HERE / "pyodide_frozen.mjs"
FROZEN_JOB = HERE / "pyodide_frozen_job.py"  # the Python FROZEN runs in Pyodide


def builder_sources(module: Path) -> list[Path]:
    """``module`` and every docs_panel module it imports, however deep (read, not run),
    with the ``__init__.py`` of the packages they are in."""
    return reachable([module], "docs_panel", HERE.parents[2])


# What makes the wasm, so what its cache key covers: the Node drivers, the file they
# run in Pyodide, and the Python that edits its memory with all it imports.
DRIVERS = tuple(
    dict.fromkeys(
        (
            DRIVER,
            ADDRESSES,
            FROZEN,
            FROZEN_JOB,
            MOUNT,
            LEAN_CODE,
            *builder_sources(HERE / "pyodide_wasm.py"),
        )
    )
)
BINARYEN = HERE.parents[2] / "node_modules" / "binaryen" / "package.json"

# An Argument Clinic docstring: `name($self, /, key)\n--\n\n` and then its text.
_CLINIC_DOC = re.compile(rb"(?<=\0)[A-Za-z_][\w.]*\([^\0\n]*\)\n--\n\n([^\0]+)")


def pruned_wasm(pyodide: Path) -> bytes:
    """``pyodide``'s wasm, keeping the exports its JavaScript names."""
    wasm, *scripts = (
        pyodide / name for name in ("pyodide.asm.wasm", "pyodide.asm.mjs", "pyodide.mjs")
    )
    try:
        parts = [*DRIVERS, BINARYEN, TABLES, wasm, *scripts]
        key = digest(*(p.read_bytes() for p in parts))
    except OSError as err:
        missing = f"{err.filename} is missing"
        raise ConfigError(f"{missing}; run `npm ci` in {HERE.parents[2]} first") from err

    def make(out: Path) -> None:
        with tempfile.TemporaryDirectory() as folder:
            scratch = Path(folder)
            original = wasm.read_bytes()
            lean, pruned, listed, frozen = (
                scratch / name for name in ("lean.wasm", "pruned.wasm", "addresses", "frozen.zip")
            )
            lean.write_bytes(without_cjk_tables(original))
            run_node([DRIVER, lean, *scripts, pruned], "prune Pyodide's wasm (binaryen)")
            run_node([ADDRESSES, pruned, listed], "list the pruned wasm's addresses")
            run_node([FROZEN, scripts[1].as_uri(), frozen], "compile the frozen modules")
            addresses = array("I", listed.read_bytes())
            memory = Memory.of(pruned.read_bytes())
            with_lean_frozen(memory, _frozen_modules(frozen))
            without_iconv_tables(memory, addresses, original)
            without_doc_texts(memory, addresses)
            out.write_bytes(memory.to_wasm())

    return cached("wasm", key, ".wasm", make).read_bytes()


def _frozen_modules(path: Path) -> dict[str, tuple[bytes, bytes]]:
    """What ``pyodide_frozen.mjs`` wrote: each module's bytes, as frozen and as lean."""
    with zipfile.ZipFile(path) as archive:
        names = [entry[4:] for entry in archive.namelist() if entry.startswith("was/")]
        return {name: (archive.read(f"was/{name}"), archive.read(f"now/{name}")) for name in names}


def without_doc_texts(memory: Memory, addresses: Sequence[int]) -> None:
    """Blank the text of every Argument Clinic docstring in ``memory`` whose text no
    code (``addresses``, sorted) and no pointer in memory names: its signature stays."""
    image = memory.image
    pointers = sorted(array("I", bytes(image[: len(image) // 4 * 4])))  # aligned words
    for doc in _CLINIC_DOC.finditer(image):
        start, end = doc.span(1)
        if not any(names_any(found, start, end) for found in (addresses, pointers)):
            image[start:end] = bytes(end - start)


def with_lean_frozen(memory: Memory, frozen: Mapping[str, tuple[bytes, bytes]]) -> None:
    """Put each frozen module's lean bytecode where its old bytes were, zeros after.
    Aliases share their bytes: the first name replaces them."""
    done: set[bytes] = set()
    for name, (was, now) in sorted(frozen.items()):
        if was in done:
            continue
        if len(now) > len(was):
            raise ConfigError(f"frozen module {name!r} grew when compiled lean")
        address = memory.find(was)
        memory.image[address : address + len(was)] = now + bytes(len(was) - len(now))
        done.add(was)
