// Runs in Node at build time (docs_panel/build/runtime/pyodide_wasm.py starts it): Pyodide's wasm
// without the exports only a package's C extension would use.
//
//   node pyodide_wasm.mjs IN.wasm GLUE.mjs API.mjs OUT.wasm
//
// Pyodide exports its whole C API so that packages' extension modules can link
// against it; the panel installs no packages. What JavaScript calls is named in
// the glue (GLUE, pyodide.asm.mjs) and in Pyodide's API (API, pyodide.mjs): an
// export stays when its name, or the glue's `_name` for it, appears there
// outside the lines that merely bind every export. Binaryen then drops the
// functions nothing reaches any more. Data exports (addresses) and `__` internals
// stay: the glue reads those by name as it starts.
import { readFileSync, writeFileSync } from "node:fs";
import binaryen from "binaryen";

const [input, gluePath, apiPath, output] = process.argv.slice(2);
const glue = readFileSync(gluePath, "utf8");
const api = readFileSync(apiPath, "utf8");

const bound = [...glue.matchAll(/wasmExports\["([^"]+)"\]/g)].map((m) => m[1]);
if (bound.length < 1000) throw new Error("the glue's export bindings changed shape");
const calls = glue
  .replace(/[\w$]+=Module\["[^"]+"\]=wasmExports\["[^"]+"\];?/g, "") // _x=Module["_x"]=wasmExports["x"]
  .replace(/wasmExports\["[^"]+"\]=makeWrapper_\w+\(wasmExports\["[^"]+"\]\);?/g, "")
  .replace(/var _[\w$]+(,[\w$]+){20,};/g, ""); // the declarations of those bindings
const named = new Set((calls + api).match(/[A-Za-z_$][\w$]*/g));
const used = (name) => named.has(name) || named.has(`_${name}`) || name.startsWith("__");

const module = binaryen.readBinary(readFileSync(input));
const F = binaryen.Features;
// What Pyodide's build uses; binaryen's newer encodings (Features.All) are not read
// by today's browsers.
module.setFeatures(
  F.MVP | F.MutableGlobals | F.SignExt | F.BulkMemory | F.BulkMemoryOpt | F.NontrappingFPToInt
    | F.Multivalue | F.ReferenceTypes | F.ExceptionHandling | F.CallIndirectOverlong | F.SIMD128,
);
const dropped = [];
for (let i = 0; i < module.getNumExports(); i++) {
  const { kind, name } = binaryen.getExportInfo(module.getExportByIndex(i));
  if (kind === binaryen.ExternalFunction && !used(name)) dropped.push(name);
}
dropped.forEach((name) => module.removeExport(name));
module.runPasses(["remove-unused-module-elements"]);
const pruned = module.emitBinary();
if (!WebAssembly.validate(pruned)) throw new Error("the pruned wasm does not validate");
writeFileSync(output, pruned);
console.log(`${dropped.length} exports dropped, ${pruned.length} bytes`);
