"""Pyodide's CJK codec and musl iconv tables, found in the wasm and zeroed when unused
(docs_panel.build.runtime.cjk_tables)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from docs_panel.build.runtime.cjk_tables import (
    iconv_ranges,
    table_ranges,
    without_cjk_tables,
    without_iconv_tables,
)
from docs_panel.build.runtime.wasm_data import Memory
from docs_panel.portable.errors import ConfigError


def test_musl_iconv_tables_are_found_by_address(tmp_path: Path) -> None:
    """Each iconv.c array, padded to its declared size, is located in the memory image."""
    locale = tmp_path / "src" / "locale"
    locale.mkdir(parents=True)
    (locale / "iconv.c").write_text(
        'static const unsigned short jis[2][2] = {\n#include "jis.h"\n};\n'
        'static const unsigned short rev[] = {\n#include "rev.h"\n};\n'
    )
    (locale / "jis.h").write_text("258, /* a comment, 9 */ 772,\n1285,\n")
    (locale / "rev.h").write_text("17, 0x12,\n")
    jis = b"\x02\x01\x04\x03\x05\x05\0\0"
    memory = Memory([], bytearray(b"head" + jis + b"gap" + b"\x11\0\x12\0" + b"tail"))
    assert iconv_ranges(memory, tmp_path) == [(4, 8), (15, 4)]


def test_iconv_tables_stay_when_pruned_code_still_names_them(tmp_path: Path) -> None:
    """Zeroing is refused if a pruned function still addresses a table; else done."""
    original = b"\0asm\1\0\0\0"
    tables = tmp_path / "tables.json"
    sha = hashlib.sha256(original).hexdigest()
    tables.write_text(json.dumps({"wasm_sha256": sha, "ranges": [], "iconv": [[4, 4]]}))
    memory = Memory([], bytearray(b"headTABLtail"))
    with pytest.raises(ConfigError, match="still reads musl's iconv table at 4"):
        without_iconv_tables(memory, [1, 6, 40], original, tables)
    without_iconv_tables(memory, [1, 8, 40], original, tables)
    assert memory.image == bytearray(b"head\0\0\0\0tail")


def test_an_unknown_wasm_asks_for_the_cjk_tables_to_be_found_again() -> None:
    """Another Pyodide's wasm is refused with the command that maps its tables."""
    with pytest.raises(
        ConfigError, match=r"python -m docs_panel\.build\.runtime\.cjk_tables path/to/cpython"
    ):
        without_cjk_tables(b"\0asm\1\0\0\0")


def test_the_cjk_tables_are_found_in_their_own_bytes(tmp_path: Path) -> None:
    """A header's arrays are located in a wasm, their zero ends left out, and touching
    ranges merged."""
    headers = tmp_path / "Modules" / "cjkcodecs"
    headers.mkdir(parents=True)
    (headers / "mappings_xx.h").write_text(
        "static const ucs2_t __a_decmap[3] = {\n0,258,U};\n"
        "static const DBCHAR __b_encmap[2] = {\n772,N};\n"
        "static const ucs2_t __c_decmap[1] = {\n1285};\n"
    )
    wasm = b"head" + b"\x02\x01\xfe\xff" + b"\x04\x03\xff\xff" + b"gap" + b"\x05\x05" + b"tail"
    assert table_ranges(wasm, tmp_path) == [(4, 8), (15, 2)]
