// Runs in Node at build time (docs_panel/build/runtime/pyodide_wasm.py starts it): every address
// a wasm's code could name, for edits of its memory that must know what the
// code still reads.
//
//   node wasm_addresses.mjs IN.wasm OUT.bin
//
// OUT holds, as sorted little-endian uint32s, every i32 constant and every
// load/store offset in the code and in the initial values of globals and tables:
// a superset of the static addresses the code reaches (a constant need not be an
// address, but an address the code reads appears as one).
import { readFileSync, writeFileSync } from "node:fs";
import binaryen from "binaryen";

const [input, output] = process.argv.slice(2);
const module = binaryen.readBinary(readFileSync(input));
module.setFeatures(binaryen.Features.All);
const found = new Set();
for (const line of module.emitText().split("\n")) {
  if (line.startsWith(" (data ")) continue; // the segments' own addresses
  for (const m of line.matchAll(/(?:i32\.const |offset=)(-?\d+)/g)) found.add(Number(m[1]) >>> 0);
}
writeFileSync(output, new Uint32Array([...found].sort((a, b) => a - b)));
console.log(`${found.size} constants`);
