"""The pinned runtimes' files as the panel ships them: PyScript's chunks and its core
without unused plugins, MicroPython's module fetching its gzip twin, Zstandard's
decoder wasm and Pyodide's glue as a function body.

Each patch fails closed: it refuses to run when the code it patches changed shape,
so a new npm release cannot ship half-patched. It never names or compresses files.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

from docs_panel.build.runtime.function_module import DYNAMIC_IMPORT, STATIC_IMPORT
from docs_panel.build.runtime.paths import (
    MICROPYTHON_DIR,
    PYODIDE_DIR,
    PYSCRIPT_DIST,
    ZSTDDEC_DIR,
)
from docs_panel.portable.errors import ConfigError

# The chunks PyScript imports dynamically while the panel runs: the error plugin (it
# shows a Python error on the page). The rest serve features the panel never uses:
# the zip reader for `files` (the shell's modules come as one JSON file), TOML,
# pyodide_graph, and the plugins in PYSCRIPT_PLUGINS_OFF.
PYSCRIPT_DYNAMIC_CHUNKS = ("error",)
# PyScript's plugins the panel does not use, taken out of its core's table of plugins
# (pyscript_core): it loads every plugin on every start, for each script type, unless
# a config turns it off (five requests; the editor, terminal and game loop never run).
PYSCRIPT_PLUGINS_OFF = (
    "deprecations-manager",
    "donkey",
    "py-editor",
    "py-game",
    "py-terminal",
)
# MicroPython's module fetches its wasm here; micropython_module() fetches the gzip twin.
MICROPYTHON_WASM_FETCH = 'var response=fetch(binaryFile,{credentials:"same-origin"});'
# zstddec's streaming module holds its wasm as one base64 string.
ZSTDDEC_WASM = re.compile(r'const wasm = "([A-Za-z0-9+/=]+)";')


def pyscript_chunks(dist: Path = PYSCRIPT_DIST) -> list[str]:
    """``core.js`` and the chunks it reaches: static imports plus the dynamic ones we use."""
    wanted = {"core.js"}
    todo = ["core.js"]
    while todo:
        source = (dist / todo.pop()).read_text(encoding="utf-8")
        found = set(STATIC_IMPORT.findall(source))
        found |= {
            chunk
            for chunk in DYNAMIC_IMPORT.findall(source)
            if chunk.rsplit("-", 1)[0] in PYSCRIPT_DYNAMIC_CHUNKS
        }
        todo.extend(sorted(found - wanted))
        wanted |= found
    return sorted(wanted)


def zstd_wasm() -> bytes:
    """Zstandard's decoder compiled to wasm (59 KiB, 22 gzipped), as the ``zstddec``
    package embeds it in its streaming module.

    The loader runs it through its exports (``ZSTD_decompressStream`` and the buffers it
    fills): in a fresh worker it decodes and compiles Pyodide's wasm in about half the
    time a JavaScript decoder takes, whose code is not yet optimised on any start that
    needs it. The package's own module is not used: it instantiates the wasm from a
    ``data:`` URL, which a site's ``connect-src`` would have to allow.
    """
    source = (ZSTDDEC_DIR / "dist" / "zstddec-stream.mjs").read_text(encoding="utf-8")
    found = ZSTDDEC_WASM.findall(source)
    wasm = base64.b64decode(found[0]) if len(found) == 1 else b""
    if not wasm.startswith(b"\0asm"):
        raise ConfigError("zstddec-stream.mjs changed shape: its wasm was not found")
    return wasm


def micropython_module() -> str:
    """MicroPython's module, its wasm fetched as the gzip twin beside it and decoded by
    embed.js's ``gunzipped`` unless the host decoded it already, so a host that
    compresses nothing sends the gzipped bytes too (the wasm stays, for its fallback)."""
    source = (MICROPYTHON_DIR / "micropython.mjs").read_text(encoding="utf-8")
    if source.count(MICROPYTHON_WASM_FETCH) != 1:
        raise ConfigError("micropython.mjs changed shape: its wasm's fetch was not found")
    twin = 'var response=globalThis.__docsPanel.gunzipped(binaryFile+".gz","application/wasm");'
    return source.replace(MICROPYTHON_WASM_FETCH, twin)


def pyscript_core(path: Path) -> str:
    """PyScript's core chunk without the plugins in PYSCRIPT_PLUGINS_OFF in its table of
    plugins, which it otherwise loads on every start."""
    source = path.read_text(encoding="utf-8")
    for name in PYSCRIPT_PLUGINS_OFF:
        entry = re.compile(rf'(?:"{name}"|{name}):\(\)=>import\("\./{name}-[\w-]+\.js"\),?')
        source, found = entry.subn("", source)
        if found != 1:
            raise ConfigError(f"PyScript's core changed shape: its {name} plugin was not found")
    return source


def glue_body() -> bytes:
    """Pyodide's JS glue (``pyodide.asm.mjs``) as the body of a function of ``importMeta``
    that returns its ``createPyodideModule``, for the loader to build with ``new Function``.

    As a module it could only be imported from its URL, so it would cross the wire as
    the host sends it: 1.2 MB from a host that compresses nothing. As a function body it
    travels as a Zstandard twin like the wasm (the CSP already allows ``'unsafe-eval'``,
    which Pyodide needs).
    """
    source = (PYODIDE_DIR / "pyodide.asm.mjs").read_text(encoding="utf-8")
    name = "_createPyodideModule"
    export = f"export default {name};"
    if source.count(export) != 1 or not source.startswith(f"async function {name}("):
        raise ConfigError("pyodide.asm.mjs changed shape: the loader cannot rebuild it")
    body = source.replace("import.meta", "importMeta").replace(export, f"return {name};")
    return body.encode("utf-8")
