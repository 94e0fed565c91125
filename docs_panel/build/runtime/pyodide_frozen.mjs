// Runs in Node at build time (docs_panel/build/runtime/pyodide_wasm.py starts it): the modules
// CPython freezes into Pyodide's wasm (importlib's bootstrap, os, site, codecs…),
// compiled again as the worker's standard library is (docs_panel/build/runtime/pyodide_frozen_job.py):
// no docstrings, asserts or line tables, half the bytes as Zstandard.
//
//   node pyodide_frozen.mjs PYODIDE.mjs OUT.zip
//
// OUT holds `was/<name>`, the frozen bytes as the wasm carries them, and
// `now/<name>`, their replacement, for every frozen module whose source ships in
// Pyodide's standard library.
import { readFileSync, writeFileSync } from "node:fs";
import { mountBuilder } from "./pyodide_job.mjs";

const [pyodideUrl, output] = process.argv.slice(2);
const { loadPyodide } = await import(pyodideUrl);
const py = await loadPyodide();
mountBuilder(py, ["lean_code.py", "pyodide_frozen_job.py"]);
py.runPython(`
from docs_panel.build.runtime.pyodide_frozen_job import compile_frozen
compile_frozen("/tmp/frozen.zip")
`);
writeFileSync(output, py.FS.readFile("/tmp/frozen.zip"));
