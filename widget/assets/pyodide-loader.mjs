// The worker's interpreter module: PyScript imports it in place of pyodide.mjs
// and calls loadPyodide(). It starts Pyodide from this bundle with less to move
// (and is the one place that changes the worker's `fetch`, for the files below):
// - no pyodide-lock.json request (the panel installs no packages, so an empty
//   lock with the runtime's own `info` is all Pyodide checks);
// - the standard library trimmed to what the worker imports, as bytecode for
//   this exact interpreter (builder/pyodide_bytecode.py);
// - the big files fetched as their gzip twins and inflated here with
//   DecompressionStream, so a host that compresses nothing sends gzip bytes too
//   (the JS glue is imported by its URL: a blob: module would need `blob:` in
//   the site's script-src).
// It leaves `docs-panel:*` performance marks for bench/. build.py fills in M.
const M = __DOCS_PANEL_LOADER__;
const at = (path) => new URL(path, import.meta.url).href;
const pyodide = await import(at(M.pyodide));
export const version = pyodide.version;

// A gzip stream, inflated; or the bytes as they came, when the host labelled
// the file Content-Encoding: gzip and the browser inflated it already.
async function inflated(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`docs-panel: could not load ${url}: HTTP ${response.status}`);
  const reader = response.body.getReader();
  const head = [];
  let size = 0;
  while (size < 2) {
    const part = await reader.read();
    if (part.done) break;
    head.push(part.value);
    size += part.value.length;
  }
  const start = new Uint8Array(size);
  head.reduce((offset, chunk) => (start.set(chunk, offset), offset + chunk.length), 0);
  const name = url.split("/").pop();
  const body = new ReadableStream({
    start: (controller) => controller.enqueue(start),
    async pull(controller) {
      const { done, value } = await reader.read();
      if (!done) return controller.enqueue(value);
      controller.close();
      performance.mark(`docs-panel:downloaded ${name}`);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const gzip = start[0] === 0x1f && start[1] === 0x8b;
  return gzip ? body.pipeThrough(new DecompressionStream("gzip")) : body;
}

// Requests for these files are answered from their gzip twins, inflated: Pyodide's
// wasm and standard library (asked for by their usual names) and the docs index
// (fetched by the worker's Python once it runs).
const twins = new Map(Object.entries(M.twins).map(([name, [gz, type]]) => [at(name), [at(gz), type]]));
const plainFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const twin = twins.get(String(input));
  if (!twin) return plainFetch(input, init);
  return inflated(twin[0]).then((body) => new Response(body, { headers: { "Content-Type": twin[1] } }));
};

export async function loadPyodide(options = {}) {
  performance.mark("docs-panel:loader");
  const py = await pyodide.loadPyodide({
    ...options,
    indexURL: at(M.pyodide).replace(/[^/]*$/, ""),
    stdLibURL: at(M.stdlib),
    lockFileContents: { info: M.lockInfo, packages: {} },
  });
  performance.measure("docs-panel:loadPyodide", "docs-panel:loader");
  return py;
}
