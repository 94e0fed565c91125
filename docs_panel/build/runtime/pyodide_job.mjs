// What the Node drivers that run Python in Pyodide share (pyodide_bytecode.mjs,
// pyodide_frozen.mjs): their Python lives in docs_panel/build/runtime/*_job.py, real
// modules ruff and mypy check, mounted into Pyodide's files as `docs_panel.build.runtime`.
import { readFileSync } from "node:fs";

// Pyodide's home, where pyodide_bytecode_job.py also unpacks the worker's own
// `docs_panel` modules: one folder holds the one package, as in the repository (a
// second `docs_panel` folder on sys.path would hide the first's modules).
const HOME = "/home/pyodide";

// docs_panel/build/runtime/<name> for each of `names`, importable in `py` as
// docs_panel.build.runtime.<module>.
export function mountBuilder(py, names) {
  py.FS.mkdirTree(`${HOME}/docs_panel/build/runtime`);
  py.FS.writeFile(`${HOME}/docs_panel/build/__init__.py`, "");
  py.FS.writeFile(`${HOME}/docs_panel/build/runtime/__init__.py`, "");
  for (const name of names) {
    py.FS.writeFile(`${HOME}/docs_panel/build/runtime/${name}`, readFileSync(new URL(name, import.meta.url)));
  }
  py.runPython(`import sys; sys.path.insert(0, "${HOME}")`);
}
