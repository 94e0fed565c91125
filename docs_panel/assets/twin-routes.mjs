// Which requests pyodide-loader.mjs answers from Zstandard twins, and under which keys
// it keeps them in Cache Storage, from the loader's manifest `M` (build.py's `loader`)
// and the loader's own URL `base`. Names only: nothing here fetches or stores.
// build.py inlines this module into the loader; tests/js/twin-routes.test.mjs runs it.

// The last segment of a path or URL.
export const file = (path) => path.split("/").pop();

export function twinRoutes(M, base) {
  const at = (path) => new URL(path, base).href;
  // Pyodide's wasm and standard library (asked for by their usual names), its module
  // and JS glue, the worker's zip and the docs index, listed by content type; and a
  // large index's parts, by their names' rule (hundreds of them).
  const twins = new Map(
    Object.entries(M.twins).flatMap(([type, names]) => names.map((name) => [at(name), [at(`${name}.zst`), type]])),
  );
  const here = at("./");
  const partName = new RegExp(`^${M.indexPart}$`);
  const part = (url) => url.startsWith(here) && partName.test(url.slice(here.length));
  // A URL's twin and its content type, or null: not a twin's.
  const twinOf = (url) => twins.get(url) ?? (part(url) ? [`${url}.zst`, "application/json"] : null);
  // Keys are the files' content-hashed or versioned addresses; an index part's carries
  // the name of the head that lists it.
  const keyOf = (url) => (part(url) ? `${url}?head=${file(M.index)}` : url);
  // The memory's: Pyodide's module, in a folder named by its version and wasm, the
  // standard library and the worker's zip, whose modules it holds.
  const memoryKey = `${at(M.pyodide)}?memory&stdlib=${file(M.stdlib)}&worker=${file(M.workerZip)}`;
  // Whether a kept key belongs to this bundle (keeping new copies drops the others).
  const current = (key) => {
    const plain = key.split("?")[0];
    return key === memoryKey || (key === keyOf(plain) && twinOf(plain) !== null);
  };
  return { twinOf, keyOf, memoryKey, current };
}
