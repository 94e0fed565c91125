// Runs in Node at build time (docs_panel/build/runtime/pyodide_bytecode.py starts it): loads the
// bundled Pyodide with its whole standard library, imports what the worker
// imports, records which standard-library and dependency modules that pulls in,
// and compiles those and the worker's own modules to bytecode for this exact
// interpreter.
//
//   node pyodide_bytecode.mjs JOB.json      JOB: {pyodide, sources, modules, out}
//
// `sources` is a zip of the worker's Python, `modules` are further imports to try
// (PyScript's own Python), `out` receives the bytecode: see pyodide_bytecode_job.py.
import { readFileSync, writeFileSync } from "node:fs";
import { mountBuilder } from "./pyodide_job.mjs";

const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const { loadPyodide } = await import(job.pyodide);
const py = await loadPyodide();
py.FS.writeFile("/tmp/sources.zip", readFileSync(job.sources));
mountBuilder(py, ["lean_code.py", "pyodide_bytecode_job.py"]);
py.globals.set("job", py.toPy(job));
await py.runPythonAsync(`
from docs_panel.build.runtime.pyodide_bytecode_job import compile_worker
compile_worker("/tmp/sources.zip", job["modules"], "/tmp/out.zip")
`);
writeFileSync(job.out, py.FS.readFile("/tmp/out.zip"));
