"""Pyodide's wasm without the CJK character tables, which the panel never reads.

Pyodide links CPython's CJK codecs (``_codecs_jp``, ``_codecs_cn``…) into its
wasm, and their mapping tables are 585 KB of data that compresses badly: 177 KiB
of the wasm's Zstandard bytes. The panel decodes only Unicode; its trimmed
standard library has no ``encodings.shift_jis`` or the like, so no codec lookup
reaches them. The build zeroes the tables (zeros compress to almost nothing) and
blanks those modules' names in the interpreter's table of built-in modules, so
``import _codecs_jp`` fails with ModuleNotFoundError instead of decoding with
empty tables.

The C library's ``iconv`` (musl's) brings its own such tables, 131 KB: JIS,
GB 18030, Big5, HKSCS, KS C and legacy code pages. CPython never calls
``iconv``, and once the wasm is pruned (``docs_panel.build.runtime.pyodide_wasm``) no code is
left that names them: ``without_iconv_tables`` checks that against the pruned
code's addresses before it zeroes them, and refuses otherwise.

A wasm carries no names for its data, so where the tables lie is found once per
Pyodide release, by matching the sources (CPython's ``Modules/cjkcodecs/
mappings_*.h``, musl's ``src/locale/iconv.c`` and its headers) against the
wasm, and kept in ``cjk_tables.json`` beside the hash of the wasm it describes
(CPython's as offsets in the wasm file, musl's as memory addresses)::

    python -m docs_panel.build.runtime.cjk_tables path/to/cpython path/to/musl   # after an upgrade
    wasm = without_cjk_tables(wasm_bytes)                        # in the build
    without_iconv_tables(Memory.of(pruned), addresses)           # after pruning
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docs_panel.build.runtime.wasm_data import Memory, names_any
from docs_panel.portable.errors import ConfigError

HERE = Path(__file__).resolve().parent
TABLES = HERE / "cjk_tables.json"
PYODIDE_WASM = HERE.parents[2] / "node_modules" / "pyodide" / "pyodide.asm.wasm"
MODULES = ("_codecs_cn", "_codecs_hk", "_codecs_iso2022", "_codecs_jp", "_codecs_kr", "_codecs_tw")

# The headers' arrays of 16-bit code units, and the macros they use for gaps.
_ARRAY = re.compile(r"static const (?:ucs2_t|DBCHAR) (\w+)\[(\d+)\] = \{(.*?)\};", re.DOTALL)
_VALUE = re.compile(r"0x[0-9A-Fa-f]+|\d+|\b[UNMD]\b")
_MACROS = {"U": 0xFFFE, "N": 0xFFFF, "M": 0xFFFE, "D": 0xFFFD}
# musl's iconv.c: `static const unsigned short jis0208[84][94] = {\n#include "jis0208.h"`.
_ICONV_ARRAY = re.compile(
    r'static const unsigned short (\w+)\[(\d*)\](?:\[(\d+)\])? = \{\s*#include "([\w.]+)"'
)
_NUMBER = re.compile(r"0x[0-9A-Fa-f]+|\d+")
_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def without_cjk_tables(wasm: bytes, tables: Path = TABLES) -> bytes:
    """``wasm`` with the CJK tables zeroed and the CJK codec modules unimportable."""
    known = _known(tables, wasm)
    out = bytearray(wasm)
    for offset, length in known["ranges"]:
        out[offset : offset + length] = bytes(length)
    for name in MODULES:
        found = [m.start() + 1 for m in re.finditer(b"\0" + name.encode() + b"\0", out)]
        if len(found) != 1:
            raise ConfigError(f"{name!r} is in Pyodide's wasm {len(found)} times, not once")
        out[found[0]] = 0  # "" matches no import
    return bytes(out)


def _known(tables: Path, wasm: bytes) -> dict[str, Any]:
    known: dict[str, Any] = json.loads(tables.read_text(encoding="utf-8"))
    if hashlib.sha256(wasm).hexdigest() != known["wasm_sha256"]:
        raise ConfigError(
            f"Pyodide's wasm is not the one {tables.name} describes; after an upgrade of "
            "Pyodide, run `python -m docs_panel.build.runtime.cjk_tables path/to/cpython "
            "path/to/musl`"
        )
    return known


def without_iconv_tables(
    memory: Memory, addresses: Sequence[int], original: bytes, tables: Path = TABLES
) -> None:
    """Zero musl's iconv tables in ``memory`` (of the pruned ``original`` wasm), unless
    the pruned code still names an address in one of them (``addresses``, sorted)."""
    for address, length in _known(tables, original)["iconv"]:
        if names_any(addresses, address, address + length):
            raise ConfigError(
                f"the pruned wasm still reads musl's iconv table at {address}; "
                "keep its tables or prune iconv again"
            )
        memory.image[address : address + length] = bytes(length)


def iconv_ranges(memory: Memory, musl: Path) -> list[tuple[int, int]]:
    """Where each of musl's iconv arrays lies in ``memory``: (address, length)."""
    source = (musl / "src" / "locale" / "iconv.c").read_text(encoding="utf-8")
    ranges = []
    for name, rows, columns, header in _ICONV_ARRAY.findall(source):
        text = _COMMENT.sub("", (musl / "src" / "locale" / header).read_text(encoding="utf-8"))
        values = [int(v, 0) for v in _NUMBER.findall(text)]
        size = int(rows) * int(columns or 1) if rows else len(values)
        if len(values) > size:
            raise ValueError(f"{header}: {name} has {len(values)} values, more than {size}")
        data = struct.pack(f"<{size}H", *values, *[0] * (size - len(values)))
        ranges.append((memory.find(data), len(data)))
    return sorted(ranges)


def table_ranges(wasm: bytes, cpython: Path) -> list[tuple[int, int]]:
    """Where each of CPython's mapping arrays lies in ``wasm``, merged where they touch.

    Zeros at an array's ends may sit outside the wasm's data segments (memory is
    zero to begin with), so those are left out of the match.
    """
    ranges = []
    for header in sorted((cpython / "Modules" / "cjkcodecs").glob("mappings_*.h")):
        for name, size, body in _ARRAY.findall(header.read_text(encoding="utf-8")):
            values = [_MACROS.get(v) or int(v, 0) for v in _VALUE.findall(body)]
            if len(values) != int(size):
                raise ValueError(f"{header.name}: {name} has {len(values)} values, not {size}")
            data = struct.pack(f"<{len(values)}H", *values).strip(b"\0")
            start = wasm.find(data)
            if start < 0 or wasm.find(data, start + 1) >= 0:
                raise ValueError(f"{name} is not in the wasm exactly once")
            ranges.append((start, len(data)))
    merged: list[tuple[int, int]] = []
    for start, length in sorted(ranges):
        if merged and merged[-1][0] + merged[-1][1] >= start:
            last_start, last_length = merged.pop()
            length = max(last_start + last_length, start + length) - last_start
            start = last_start
        merged.append((start, length))
    return merged


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(
            "usage: python -m docs_panel.build.runtime.cjk_tables path/to/cpython path/to/musl",
            file=sys.stderr,
        )
        return 2
    wasm = PYODIDE_WASM.read_bytes()
    ranges = table_ranges(wasm, Path(argv[0]))
    iconv = iconv_ranges(Memory.of(wasm), Path(argv[1]))
    record = {"wasm_sha256": hashlib.sha256(wasm).hexdigest(), "ranges": ranges, "iconv": iconv}
    TABLES.write_text(json.dumps(record) + "\n", encoding="utf-8")
    print(f"{len(ranges)} + {len(iconv)} ranges → {TABLES}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
