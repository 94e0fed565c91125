// Minifies one of the panel's own scripts with terser (from npm, pinned):
//   node docs_panel/build/runtime/minify_js.mjs IN OUT module|script
// Compressed and with local names shortened; a module keeps its exports' names, and
// both keep `M`, the manifest build.py writes in (where a reader of the bundle finds it).
import { readFileSync, writeFileSync } from "node:fs";
import { minify } from "terser";

const [source, out, kind] = process.argv.slice(2);
const result = await minify(readFileSync(source, "utf8"), {
  module: kind === "module",
  compress: { passes: 2 },
  mangle: { reserved: ["M"] },
  format: { comments: false },
});
writeFileSync(out, result.code);
