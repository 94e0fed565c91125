// The worker's interpreter module: PyScript imports it in place of pyodide.mjs
// and calls loadPyodide(). It starts Pyodide from this bundle with less to move:
// - no pyodide-lock.json request (the panel installs no packages, so an empty
//   lock with the runtime's own `info` is all Pyodide checks);
// - the standard library trimmed to what the worker imports, as bytecode for
//   this exact interpreter (builder/pyodide_bytecode.py);
// - the big files fetched as their gzip twins and inflated here with
//   DecompressionStream, so a host that compresses nothing sends gzip bytes too.
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

const response = (body, type) => new Response(body, { headers: { "Content-Type": type } });

export async function loadPyodide(options = {}) {
  performance.mark("docs-panel:loader");
  const indexURL = at(M.pyodide).replace(/[^/]*$/, "");
  // Started at once, side by side; Pyodide asks for them by their usual names.
  const wasm = inflated(at(M.wasm)).then((body) => response(body, "application/wasm"));
  const stdlib = inflated(at(M.stdlib)).then((body) => response(body, "application/zip"));
  const asm = inflated(at(M.asm))
    .then((body) => response(body, "text/javascript").blob())
    .then((blob) => import(URL.createObjectURL(blob)));
  const stdlibURL = indexURL + "python_stdlib.zip";
  const byName = { [indexURL + "pyodide.asm.wasm"]: wasm, [stdlibURL]: stdlib };
  const plainFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => byName[String(input)] || plainFetch(input, init);
  try {
    const py = await pyodide.loadPyodide({
      ...options,
      indexURL,
      stdLibURL: stdlibURL,
      lockFileContents: { info: M.lockInfo, packages: {} },
      createPyodideModule: (await asm).default,
    });
    performance.measure("docs-panel:loadPyodide", "docs-panel:loader");
    return py;
  } finally {
    globalThis.fetch = plainFetch;
  }
}
