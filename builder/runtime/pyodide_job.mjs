// What the Node drivers that run Python in Pyodide share (pyodide_bytecode.mjs,
// pyodide_frozen.mjs): their Python lives in builder/*_job.py, real modules ruff and
// mypy check, mounted into Pyodide's files as the package `builder.runtime`.
import { readFileSync } from "node:fs";

// builder/runtime/<name> for each of `names`, importable in `py` as
// builder.runtime.<module>.
export function mountBuilder(py, names) {
  py.FS.mkdirTree("/tmp/job/builder/runtime");
  py.FS.writeFile("/tmp/job/builder/__init__.py", "");
  py.FS.writeFile("/tmp/job/builder/runtime/__init__.py", "");
  for (const name of names) {
    py.FS.writeFile(`/tmp/job/builder/runtime/${name}`, readFileSync(new URL(name, import.meta.url)));
  }
  py.runPython("import sys; sys.path.insert(0, '/tmp/job')");
}
