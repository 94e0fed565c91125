// The worker's interpreter module: PyScript imports it in place of pyodide.mjs
// and calls loadPyodide(). It starts Pyodide from this bundle with less to move
// (and is the one place that changes the worker's `fetch`, for the files below):
// - no pyodide-lock.json request (the panel installs no packages, so an empty
//   lock with the runtime's own `info` is all Pyodide checks);
// - the standard library trimmed to what the worker imports, as bytecode for
//   this exact interpreter (docs_panel/build/runtime/pyodide_bytecode.py);
// - the big files fetched as their Zstandard twins and decoded here as they
//   arrive (no browser decodes anything smaller than gzip: the loader brings
//   Zstandard's own decoder as wasm), so every host sends the same fifth-smaller
//   bytes, compressing or not; a cold start's wasm decoded and compiled in a thread
//   of its own; Pyodide's module and JS glue too, as the bodies of
//   functions (a blob: module would need `blob:` in the site's script-src;
//   `new Function` needs only the 'unsafe-eval' Pyodide needs anyway);
// - later starts warm, from what the first one kept in Cache Storage (see below).
// It leaves `docs-panel:*` performance marks for bench/. build.py fills in M, and
// inlines the modules imported here (pure parts, each with Node tests in tests/js/).
import { withoutZeroPages, withZeroPages } from "./memory-pages.mjs";
import { file, twinRoutes } from "./twin-routes.mjs";
import { zstdTwins } from "./zstd-twins.mjs";

const M = __DOCS_PANEL_LOADER__;
const at = (path) => new URL(path, import.meta.url).href;

// The worker's marks, measures and requests, as they happen, for a page that listens
// (bench/engines.py): only Chromium's driver can read a worker's performance entries.
// Times are absolute (timeOrigin-based), so any realm can place them. Only once a page
// has answered the loader's hello: on a reader's page no one listens, and no entry
// need be copied and posted for no one.
const TIMELINE = { channel: "docs-panel:timeline", hello: "hello", listening: "listening" };
if (globalThis.BroadcastChannel && globalThis.PerformanceObserver) {
  const timeline = new BroadcastChannel(TIMELINE.channel);
  timeline.unref?.(); // in Node, an open channel would keep the process alive
  const shifted = (e) => ({
    type: e.entryType,
    name: e.name,
    start: performance.timeOrigin + e.startTime,
    end: performance.timeOrigin + (e.entryType === "resource" ? e.responseEnd : e.startTime + e.duration),
    bytes: e.transferSize ?? 0,
  });
  timeline.onmessage = ({ data }) => {
    if (data !== TIMELINE.listening) return;
    timeline.onmessage = null;
    const observer = new PerformanceObserver((list) => timeline.postMessage(list.getEntries().map(shifted)));
    for (const type of ["mark", "measure", "resource"]) {
      try {
        observer.observe({ type, buffered: true }); // what the worker did before, too
      } catch {} // an engine that observes none of these: nothing to tell
    }
  };
  timeline.postMessage(TIMELINE.hello);
}

// Signs of this start's progress, for the shell's watch on it (shell/client.py,
// lifecycle.StartWatch): an empty message as a realm of the start begins and after each
// batch of its marks (a file arriving, each second of a long download, a phase ended).
// Only marks, and no copy of them: a reader's page pays next to nothing for it. The
// wasm's thread signs too (compiledWasm): the largest download is made there.
const SIGNS = "docs-panel:start";
function signing(channel) {
  if (!globalThis.BroadcastChannel) return;
  const signs = new BroadcastChannel(channel);
  signs.unref?.(); // in Node, an open channel would keep the process alive
  signs.postMessage(0);
  try {
    new PerformanceObserver(() => signs.postMessage(0)).observe({ type: "mark" });
  } catch {} // an engine that observes no marks: the realm's first sign is all
}
signing(SIGNS);

const { decoded, watched } = zstdTwins(at(M.zstd));

// Requests for these files are answered from their Zstandard twins, decoded (twin-routes.mjs
// says which, and under which keys they are kept).
const { twinOf, keyOf, memoryKey, current } = twinRoutes(M, import.meta.url);
const response = (body, url) => new Response(body, { headers: { "Content-Type": twinOf(url)[1] } });

// A warm start. Once the reader has a first answer on a cold start
// (`docsPanelAnswered`, called by the worker), the files decoded from their twins go
// into Cache Storage, and then a copy of the memory of an interpreter that has
// imported the panel's pure modules and run none of its code (no question, history
// or page data is in it), made in a thread of its own (memoryThread); later starts take the files from
// there (gzipped: the browser gunzips natively, faster still) and restore the
// memory instead of booting Python again. The memory is kept without its zero
// pages, not gzipped, and read as soon as the loader starts: gunzipping it would
// slow every warm start more than its bytes cost from the cache. Gzip's checksum catches a spoiled file, the
// pages' count a cut memory copy; those and a copy that will not restore give a
// cold start. Keys (twin-routes.mjs) are the files' content-hashed or versioned
// addresses; keeping new copies drops the others.
// A start the shell made again because the first made no progress (its address ends in
// `?cold`, shell/client.py) leaves Cache Storage alone, so a cache that stopped answering
// cannot hold it too (docs/decisions/0001-watch-every-worker-start.md).
const WARM = "docs-panel-warm-start";
const cold = new URL(import.meta.url).searchParams.has("cold");
const warm = globalThis.caches && !cold ? caches.open(WARM).catch(() => null) : Promise.resolve(null);
// A cold start's copies until kept, and whether a memory copy is due.
const fresh = { files: new Map(), memory: false };

const gunzipped = (kept) => new Response(kept.body.pipeThrough(new DecompressionStream("gzip")));

async function keptCopy(url, read = (kept) => gunzipped(kept).arrayBuffer()) {
  try {
    const kept = await (await warm)?.match(url);
    return kept ? await read(kept) : null;
  } catch {
    return null;
  }
}

// The memory is kept without its zero pages (memory-pages.mjs).
// Read at once: it is a warm start's longest wait.
const keptMemory = keptCopy(memoryKey, async (kept) => withZeroPages(await kept.arrayBuffer()));

// A file that cannot be had (an HTTP error, a twin cut short or corrupt) fails the
// start at once: Pyodide catches a wasm that does not arrive and then waits for it
// forever, and the reader's question would wait with it, with no word said.
let fail;
const failed = new Promise((_, reject) => (fail = reject));
failed.catch(() => {}); // reported by loadPyodide, if it is still waiting
const failing = (error) => {
  fail(error);
  throw error;
};

async function twinned(url) {
  const kept = await keptCopy(keyOf(url));
  if (kept) return response(kept, url);
  const body = watched(await decoded(twinOf(url)[0]).catch(failing), fail);
  if (!(await warm)) return response(body, url);
  const [mine, copy] = body.tee();
  const bytes = new Response(copy).arrayBuffer(); // here, not in the browser's blob store
  bytes.catch(() => {}); // the start fails on it (watched), so it is never kept
  fresh.files.set(url, bytes);
  return response(mine, url);
}

// A cold start's wasm is decoded and compiled in a thread of its own, from as soon as
// the loader starts: on the thread that runs Python, its decoding and streaming
// compile waited for the glue's start and then held Python's back (~80-110 ms on
// loopback). Pyodide's request for the wasm gets `COMPILED`, which stands for that
// module when Pyodide instantiates it. A warm start instantiates its kept copy, and
// where a worker cannot start another (Node), the wasm is decoded here as the rest.
function compilerThread({ decoded, watched }) {
  globalThis.onmessage = async ({ data: { url, keep } }) => {
    let cause = null;
    try {
      const body = watched(await decoded(url), (error) => (cause = error));
      const [mine, copy] = keep ? body.tee() : [body, null];
      const headers = { "Content-Type": "application/wasm" };
      const [module, bytes] = await Promise.all([
        WebAssembly.compileStreaming(new Response(mine, { headers })),
        copy && new Response(copy).arrayBuffer(),
      ]);
      const [arrived] = performance.getEntriesByName(`docs-panel:downloaded ${url.split("/").pop()}`);
      const absolute = (time) => performance.timeOrigin + time;
      const times = { downloaded: absolute(arrived?.startTime ?? performance.now()), at: absolute(performance.now()) };
      postMessage({ module, bytes, ...times }, bytes ? [bytes] : []);
    } catch (error) {
      postMessage({ error: (cause ?? error).message });
    }
  };
}

// The one reply of a thread that runs `source`, sent `message`; the thread ends with it.
function threadReply(what, source, message, type = "classic") {
  const script = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  const thread = new Worker(script, { type });
  const end = () => {
    thread.terminate();
    URL.revokeObjectURL(script); // else its blob is kept for as long as the panel's worker lives
  };
  return new Promise((resolve, reject) => {
    thread.onmessage = ({ data }) => {
      end();
      if (data.error) reject(new Error(data.error));
      else resolve(data);
    };
    thread.onerror = () => {
      end();
      reject(new Error(`docs-panel: the ${what}'s thread did not start`));
    };
    thread.postMessage(message);
  });
}

// The wasm behind twin `url`, as {module, bytes}: its bytes only if `keep` (for Cache Storage).
async function compiledWasm(url, keep) {
  const source = `(${signing})(${JSON.stringify(SIGNS)});
(${compilerThread})((${zstdTwins})(${JSON.stringify(at(M.zstd))}))`;
  const { downloaded, at: done, ...wasm } = await threadReply("wasm", source, { url, keep });
  const [arrived, compiled] = [downloaded, done].map((time) => time - performance.timeOrigin);
  performance.mark(`docs-panel:downloaded ${file(url)}`, { startTime: arrived });
  performance.measure("docs-panel:wasm compile", { start: arrived, end: compiled });
  return wasm;
}

const wasmUrl = `${at(M.pyodide).replace(/[^/]*$/, "")}pyodide.asm.wasm`;
// A kept wasm is compiled at once, beside the memory's reading and the glue's start:
// WebKit keeps no compiled code, and compiling it when Pyodide asks held a warm start
// back by the compile's whole length (~1.5 s).
const keptModule = keptCopy(wasmUrl).then(async (bytes) => {
  if (!bytes) return null;
  const started = performance.now();
  const module = await WebAssembly.compile(bytes);
  performance.measure("docs-panel:wasm compile", { start: started });
  return module;
});
const compiled = keptModule
  .catch(() => null) // a spoiled copy: the twin instead
  .then(async (kept) => {
    if (kept) return kept;
    if ((await keptMemory) || !globalThis.Worker) return null;
    const { module, bytes } = await compiledWasm(twinOf(wasmUrl)[0], Boolean(await warm));
    if (bytes) fresh.files.set(wasmUrl, bytes);
    return module;
  })
  .catch(failing);
compiled.catch(() => {}); // reported by loadPyodide (failing)
const COMPILED = new Response(null);
const instantiateStreaming = WebAssembly.instantiateStreaming;
let wasmModule = null; // the one Pyodide runs, for the memory copy's thread
WebAssembly.instantiateStreaming = async (source, imports) => {
  const answer = await source;
  if (answer !== COMPILED) {
    const made = await instantiateStreaming(answer, imports);
    wasmModule = made.module;
    return made;
  }
  wasmModule = await compiled;
  return { module: wasmModule, instance: await WebAssembly.instantiate(wasmModule, imports) };
};

// The warm start's memory copy is made in a thread of its own once the first answer
// has ended: a second interpreter, booted in snapshot mode from the module and files
// this start used, with the worker's zip on its path and the panel's pure modules
// imported, and nothing else run (no question, history or page data is in it).
// Made in the start itself, it would hold the first answer back (most in WebKit,
// under load: bench/engines.py measures it).
function memoryThread() {
  globalThis.onmessage = async ({ data }) => {
    const { code, glue, module, stdlib, workerZip, urls, lockInfo, python } = data;
    try {
      const plainFetch = globalThis.fetch;
      globalThis.fetch = (url, init) => {
        if (String(url) === urls.stdlib) return Promise.resolve(new Response(stdlib));
        if (String(url) === urls.wasm) return Promise.resolve(new Response(null));
        return plainFetch(url, init);
      };
      WebAssembly.instantiateStreaming = async (_, imports) => ({
        module,
        instance: await WebAssembly.instantiate(module, imports),
      });
      const pyodide = await new (async () => {}).constructor("importMeta", code)({ url: urls.pyodide });
      const py = await pyodide.loadPyodide({
        createPyodideModule: new Function("importMeta", glue)({ url: urls.glue }),
        indexURL: urls.index,
        stdLibURL: urls.stdlib,
        lockFileContents: { info: lockInfo, packages: {} },
        _makeSnapshot: true,
      });
      py.FS.writeFile(urls.zip, new Uint8Array(workerZip));
      python.forEach((source) => py.runPython(source));
      const memory = py.makeMemorySnapshot();
      postMessage({ memory }, [memory.buffer]);
    } catch (error) {
      postMessage({ error: String(error?.message ?? error) });
    }
  };
}

async function madeMemory(stdlib) {
  const urls = { pyodide: at(M.pyodide), glue: at(M.glue), stdlib: at(M.stdlib), wasm: wasmUrl };
  const message = {
    code,
    glue: await glue,
    module: wasmModule,
    stdlib,
    workerZip: await workerZip,
    urls: { ...urls, index: indexURL, zip: zipPath },
    lockInfo: M.lockInfo,
    python: [onPathPython, "import docs_panel.worker.preimport"],
  };
  // A module thread: Pyodide refuses to start in a classic one.
  return (await threadReply("memory copy", `(${memoryThread})()`, message, "module")).memory;
}

async function keepWarmCopy({ files, memory: due }) {
  const gzipped = (blob) => new Response(blob.stream().pipeThrough(new CompressionStream("gzip")));
  const started = performance.now();
  try {
    const cache = await warm;
    const stale = (await cache.keys()).filter((r) => !current(r.url));
    await Promise.all(stale.map((r) => cache.delete(r)));
    // The files first: the memory takes seconds to make, and the reader may leave.
    for (const [url, bytes] of files) await cache.put(keyOf(url), gzipped(new Blob([await bytes])));
    if (due) {
      const making = performance.now();
      const stdlib = (await files.get(at(M.stdlib))) ?? (await keptCopy(at(M.stdlib)));
      if (!stdlib) throw new Error("the standard library is neither fresh nor kept");
      const memory = await madeMemory(stdlib);
      performance.measure("docs-panel:memory copy", { start: making });
      await cache.put(memoryKey, new Response(withoutZeroPages(memory)));
    }
    performance.measure("docs-panel:keep warm copy", { start: started });
  } catch (error) {
    console.info(`docs-panel: the next start will be cold (${error.message})`);
  }
}

globalThis.docsPanelAnswered = () => {
  const copy = { ...fresh };
  [fresh.files, fresh.memory] = [new Map(), false];
  if (copy.files.size || copy.memory) setTimeout(() => keepWarmCopy(copy), 1000); // once drawn
};

// Fetched and decoded at once, while the interpreter starts, and handed over on the
// first request: the glue, needed first; and the worker's Python (docs_panel and its
// dependencies), which goes onto sys.path as one zip, where PyScript's `files`
// would extract its 600 files one by one in Python. The index waits for the
// worker's Python to ask: fetched beside the wasm, a large one slows the wasm
// down on a slow network (embed.js's lanes fetch it after the wasm).
const early = new Map(M.early.map((name) => [at(name), twinned(at(name)).then((r) => r.arrayBuffer())]));
early.forEach((body) => body.catch(() => {})); // a failure is reported where it is used

const plainFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = String(input);
  if (url === wasmUrl) return compiled.then((module) => (module ? COMPILED : twinned(url)));
  const body = early.get(url);
  early.delete(url);
  if (body) return body.then((buffer) => response(buffer, url));
  return twinOf(url) ? twinned(url) : plainFetch(input, init);
};
// Pyodide's module (build.py's function_module).
const code = await (await fetch(at(M.pyodide))).text();
const pyodide = await new (async () => {}).constructor("importMeta", code)({ url: at(M.pyodide) });
export const version = pyodide.version;
const glue = fetch(at(M.glue)).then((r) => r.text());
const workerZip = fetch(at(M.workerZip)).then((r) => r.arrayBuffer());

// The worker's zip, written where Python finds it (a restored copy has it on
// sys.path already, but the file system is not part of the copy).
const zipPath = `/lib/${file(M.workerZip)}`;
const onPathPython = `import sys\nif ${JSON.stringify(zipPath)} not in sys.path:\n    sys.path.insert(0, ${JSON.stringify(zipPath)})`;
const indexURL = at(M.pyodide).replace(/[^/]*$/, "");
async function onPath(py) {
  py.FS.writeFile(zipPath, new Uint8Array(await workerZip));
  py.runPython(onPathPython);
}

export async function loadPyodide(options = {}) {
  performance.mark("docs-panel:loader");
  const settings = {
    ...options,
    createPyodideModule: new Function("importMeta", await glue)({ url: at(M.glue) }),
    indexURL,
    stdLibURL: at(M.stdlib),
    lockFileContents: { info: M.lockInfo, packages: {} },
  };
  const load = (more) => Promise.race([pyodide.loadPyodide({ ...settings, ...more }), failed]);
  const memory = await keptMemory;
  let py = null;
  if (memory) {
    const started = performance.now();
    py = await load({ _loadSnapshot: memory }).catch((error) => {
      console.info(`docs-panel: a cold start, the warm one failed (${error.message})`);
      return null;
    });
    if (py) performance.measure("docs-panel:warm", { start: started });
  }
  if (!py) {
    const started = performance.now();
    py = await load();
    performance.measure("docs-panel:python start", { start: started });
    // A memory copy to make once the first answer has ended (memoryThread).
    fresh.memory = Boolean((await warm) && globalThis.Worker && wasmModule);
  }
  await onPath(py);
  performance.measure("docs-panel:loadPyodide", "docs-panel:loader");
  return py;
}
