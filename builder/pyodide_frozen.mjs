// Runs in Node at build time (builder/pyodide_wasm.py starts it): the modules
// CPython freezes into Pyodide's wasm (importlib's bootstrap, os, site, codecs…),
// compiled again as the worker's standard library is (builder/lean_code.py): no
// docstrings, asserts or line tables, half the bytes as Zstandard.
//
//   node pyodide_frozen.mjs PYODIDE.mjs OUT.zip
//
// OUT holds `was/<name>`, the frozen bytes as the wasm carries them, and
// `now/<name>`, their replacement, for every frozen module whose source ships in
// Pyodide's standard library.
import { readFileSync, writeFileSync } from "node:fs";

const [pyodideUrl, output] = process.argv.slice(2);
const { loadPyodide } = await import(pyodideUrl);
const py = await loadPyodide();
py.runPython(readFileSync(new URL("lean_code.py", import.meta.url), "utf8"));  // lean_code(), ZIP_DATE
py.runPython(`
import _imp, marshal, sys, zipfile
STDLIB = zipfile.ZipFile("/lib/python%d%d.zip" % sys.version_info[:2])
SHIPPED = set(STDLIB.namelist())
RENAMED = {"_frozen_importlib": "importlib/_bootstrap", "_frozen_importlib_external": "importlib/_bootstrap_external"}
out = zipfile.ZipFile("/tmp/frozen.zip", "w", zipfile.ZIP_STORED)
for name in sorted(_imp._frozen_module_names()):
    data, is_package, _ = _imp.find_frozen(name, withdata=True)
    path = RENAMED.get(name, name.replace(".", "/")) + ("/__init__.py" if is_package else ".py")
    if path not in SHIPPED:  # CPython's test modules (__hello__…), aliases
        continue
    lean = marshal.dumps(lean_code(STDLIB.read(path), "<frozen %s>" % name))
    for folder, blob in (("was", bytes(data)), ("now", lean)):
        out.writestr(zipfile.ZipInfo(f"{folder}/{name}", ZIP_DATE), blob)
out.close()
`);
writeFileSync(output, py.FS.readFile("/tmp/frozen.zip"));
