// docs_panel/assets/twin-routes.mjs: which requests the loader answers from Zstandard twins,
// and the keys it keeps them under. The manifest has the shape build.py's `loader` has.
import assert from "node:assert/strict";
import { test } from "node:test";
import { file, twinRoutes } from "../../docs_panel/assets/twin-routes.mjs";

const BASE = "https://docs.example.org/docs-panel/pyodide-loader.0123456789.mjs";
const AT = "https://docs.example.org/docs-panel/";
const M = {
  pyodide: "runtime/pyodide-1.0-abcd/pyodide.body.js",
  stdlib: "stdlib.1111111111.zip",
  workerZip: "worker.2222222222.zip",
  index: "index.3333333333.json",
  indexPart: String.raw`index-(?:terms|text)-\d+\.[0-9a-f]{10}\.json`,
  twins: {
    "application/wasm": ["runtime/pyodide-1.0-abcd/pyodide.asm.wasm"],
    "application/json": ["index.3333333333.json"],
    "application/zip": ["stdlib.1111111111.zip", "worker.2222222222.zip"],
  },
};
const routes = twinRoutes(M, BASE);
const PART = `${AT}index-terms-4.0123456789.json`;

test("a listed file's twin is its name plus .zst, with the file's content type", () => {
  assert.deepEqual(routes.twinOf(`${AT}runtime/pyodide-1.0-abcd/pyodide.asm.wasm`), [
    `${AT}runtime/pyodide-1.0-abcd/pyodide.asm.wasm.zst`,
    "application/wasm",
  ]);
  assert.deepEqual(routes.twinOf(`${AT}worker.2222222222.zip`), [`${AT}worker.2222222222.zip.zst`, "application/zip"]);
});

test("an index part is a twin by its name's rule, as JSON", () => {
  assert.deepEqual(routes.twinOf(PART), [`${PART}.zst`, "application/json"]);
});

test("anything else is not a twin's", () => {
  for (const url of [
    `${AT}embed.js`,
    `${AT}index-terms-4.0123456789.json.zst`, // the twin itself
    `${AT}index-terms-x.0123456789.json`, // not the rule
    `${AT}sub/index-terms-4.0123456789.json`, // not beside the loader
    "https://docs.example.org/other-pane/index-terms-4.0123456789.json", // nor here
    "https://elsewhere.example/docs-panel/index-terms-4.0123456789.json",
    `${AT}index-terms-4.0123456789.jsonp`,
  ]) {
    assert.equal(routes.twinOf(url), null, url);
  }
});

test("a part is kept under its head's name; other files under their own address", () => {
  assert.equal(routes.keyOf(PART), `${PART}?head=index.3333333333.json`);
  assert.equal(routes.keyOf(`${AT}stdlib.1111111111.zip`), `${AT}stdlib.1111111111.zip`);
});

test("the memory's key names the module, the standard library and the worker's zip", () => {
  assert.equal(
    routes.memoryKey,
    `${AT}runtime/pyodide-1.0-abcd/pyodide.body.js?memory&stdlib=stdlib.1111111111.zip&worker=worker.2222222222.zip`,
  );
});

test("only this bundle's keys are current", () => {
  const current = [routes.memoryKey, `${AT}worker.2222222222.zip`, `${PART}?head=index.3333333333.json`];
  for (const key of current) assert.ok(routes.current(key), key);
  const older = twinRoutes({ ...M, stdlib: "stdlib.9999999999.zip", index: "index.4444444444.json" }, BASE);
  const stale = [
    older.memoryKey, // a memory of another standard library
    older.keyOf(PART), // a part listed by another head
    PART, // a part without its head
    `${AT}stdlib.9999999999.zip`, // not in this bundle
    `${AT}embed.js`,
  ];
  for (const key of stale) assert.ok(!routes.current(key), key);
});

test("file is a path's last segment", () => {
  assert.equal(file("runtime/pyodide-1/pyodide.asm.wasm"), "pyodide.asm.wasm");
  assert.equal(file(`${AT}worker.2222222222.zip`), "worker.2222222222.zip");
});
