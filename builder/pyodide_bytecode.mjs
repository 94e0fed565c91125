// Runs in Node at build time (builder/pyodide_bytecode.py starts it): loads the
// bundled Pyodide with its whole standard library, imports what the worker
// imports, records which standard-library and dependency modules that pulls in,
// and compiles those and the worker's own modules to bytecode for this exact
// interpreter.
//
//   node pyodide_bytecode.mjs JOB.json      JOB: {pyodide, sources, modules, out}
//
// `sources` is a zip of the worker's Python (unpacked in Pyodide's home: the paths
// tracebacks name), `modules` are further imports to try (PyScript's own Python),
// `out` receives a zip of `stdlib/<entry>.pyc` and `worker/<path>.pyc` files.
import { readFileSync, writeFileSync } from "node:fs";

const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const { loadPyodide } = await import(job.pyodide);
const py = await loadPyodide();
py.FS.writeFile("/tmp/sources.zip", readFileSync(job.sources));
py.globals.set("extra_modules", py.toPy(job.modules));
py.runPython(readFileSync(new URL("lean_code.py", import.meta.url), "utf8"));  // lean_code(), ZIP_DATE
await py.runPythonAsync(`
import sys, zipfile
HOME = "/home/pyodide"
STDLIB = "/lib/python%d%d.zip/" % sys.version_info[:2]
zipfile.ZipFile("/tmp/sources.zip").extractall(HOME)
sys.path.insert(0, HOME)
sys.dont_write_bytecode = True

import widget.worker.main  # noqa: the worker's imports, as PyScript runs them
for name in extra_modules:
    try:
        __import__(name)
    except Exception:  # PyScript's own and JS-backed modules do not exist here
        pass

# Paths that import lazily: an answer streamed and rendered, a history write,
# redaction, config errors, a traceback. A failing step is reported, not fatal.
def exercise():
    from widget.core.config import parse_config
    from widget.core.history import utf16_bytes
    from widget.core.redact import redact_text
    from widget.core.render import render_answer
    from widget.core.stream import ChatStreamDecoder

    decoder = ChatStreamDecoder()
    decoder.feed(b'data: {"choices":[{"delta":{"content":"**x** [1]"}}]}\\n\\ndata: [DONE]\\n\\n')
    decoder.close()
    render_answer("# T\\n\\n**b** [l](/x.html) [1]\\n\\n| a |\\n|---|\\n| b |\\n",
                  site_origin="https://example.org", page_exists=lambda path: True)
    utf16_bytes("x")
    redact_text("token=ghp_" + "a" * 36)
    parse_config({"gate": "high", "chatt": True})  # a bad value, a mistyped key
    try:
        raise ValueError("traced")
    except ValueError:
        traceback.format_exc()

import traceback
try:
    exercise()
except Exception:
    print("pyodide_bytecode: a traced path failed; its lazy imports may be missing:",
          traceback.format_exc(), file=sys.stderr)

import importlib._bootstrap_external as external
from importlib.util import source_hash
# Codecs are looked up by name at run time, so no import shows which: keep Unicode's.
import encodings.ascii, encodings.latin_1, encodings.utf_8_sig, encodings.utf_16
import encodings.utf_16_le, encodings.utf_16_be, encodings.utf_32, encodings.utf_32_le
import encodings.utf_32_be
modules = sorted({
    m.__file__[len(STDLIB):] for m in list(sys.modules.values())
    if (getattr(m, "__file__", None) or "").startswith(STDLIB) and m.__file__.endswith(".py")
})
out = zipfile.ZipFile("/tmp/out.zip", "w", zipfile.ZIP_STORED)

def add(name, source, path):
    code = lean_code(source, path, keep_lines=name.startswith("worker/widget/"))
    pyc = external._code_to_hash_pyc(code, source_hash(source), checked=False)
    out.writestr(zipfile.ZipInfo(name[:-3] + ".pyc", ZIP_DATE), bytes(pyc))

stdlib = zipfile.ZipFile(STDLIB[:-1])
for entry in modules:
    add("stdlib/" + entry, stdlib.read(entry), STDLIB + entry)
# The panel's own modules all ship; of its dependencies, what the traced paths imported
# (bleach's html5lib brings tree builders for lxml and the DOM, filters its cleaner
# never sets, a Genshi adapter: 76 KB of source).
def imported(entry):
    name = entry[:-3].replace("/", ".").removesuffix(".__init__")
    return entry.startswith("widget/") or name in sys.modules

sources = zipfile.ZipFile("/tmp/sources.zip")
for entry in sorted(sources.namelist()):
    if entry.endswith(".py") and imported(entry):
        add("worker/" + entry, sources.read(entry), HOME + "/" + entry)
out.close()
`);
writeFileSync(job.out, py.FS.readFile("/tmp/out.zip"));
