// A worker call that reads a stored value and replaces it, done in JavaScript for
// the MicroPython shell (shell/persistence.py): a megabyte archive crossing into
// MicroPython and back costs ~10 ms a crossing, six per write, where parsing the
// reply here costs ~1 ms (bench/history_write.py); holding the cross-tab lock here
// spares each write some ~5 ms of hops between MicroPython and JavaScript. Storage
// goes through embed.js's calls that never throw, or `memory` (a Map) when the area
// is unusable.
const storage = window.__docsPanel.storage;
const utf8 = new TextEncoder();
// By key, the value last written from a worker reply: found still stored, it goes to the
// worker as `true` (worker/main.py keeps that reply), so the archive crosses once a write.
// Another tab's write, even of the same length, is a different string and goes whole.
const written = new Map();

// `worker.call(name, ...values)` with the value stored under `key` as argument `at`, under
// the cross-tab lock `key`; its reply, parsed, with `value` (a new value to store, or
// null) replaced by what writing it did: null (nothing to write), "ok", "quota", "error".
// On "quota" the call `evict` (null: none) shrinks the refused value until one fits, or
// until it has nothing left to drop.
export function update(worker, name, area, key, memory, at, evict, ...values) {
  return locked(key, async () => {
    const stored = memory ? (memory.has(key) ? memory.get(key) : null) : storage.get(area, key);
    const [reply, value] = await exchange(worker, name, area, key, memory, at, values, stored);
    let [outcome, refused] = [reply.value, value];
    while (outcome === "quota" && evict) {
      const [evicted, smaller] = await exchange(worker, evict, area, key, memory, 0, [], refused);
      [outcome, refused] = [evicted.value, smaller];
    }
    if (outcome === "error") console.warn(`docs-panel: could not write ${key}`);
    if (outcome === null && reply.value !== null) {
      console.warn("docs-panel: this conversation is too large to keep here");
    }
    return reply;
  });
}

// The call on `stored`, and its reply's value written: the reply with `value` saying what
// writing did, and the value itself.
async function exchange(worker, name, area, key, memory, at, values, stored) {
  const unchanged = stored !== null && stored === written.get(key);
  values[at] = unchanged || crossing(stored);
  const reply = JSON.parse(await worker.call(name, ...values));
  const value = reply.value;
  if (value === null) return [reply, null];
  reply.value = memory ? (memory.set(key, value), "ok") : storage.set(area, key, value);
  if (reply.value === "ok") written.set(key, value);
  else written.delete(key);
  return [reply, value];
}

// A stored value as it goes to the worker: UTF-8 bytes, which Pyodide takes in at ~1 ms
// a megabyte where a string costs ~4 ms (worker/main.py decodes them); a value with a
// lone surrogate, which UTF-8 cannot carry, goes as the string it is.
const crossing = value => (value?.isWellFormed?.() ? utf8.encode(value) : value);

// `task()` holding the cross-tab lock `name` where browsers have one, so two tabs never
// interleave a read-merge-write. If the lock cannot be had at all (no API, or the request
// itself fails, as Chromium's "callback is no longer runnable" does), the task runs
// unlocked: the merge still keeps other tabs' turns, and losing this one would be worse.
async function locked(name, task) {
  let started = false;
  if (navigator.locks) {
    try {
      return await navigator.locks.request(name, () => ((started = true), task()));
    } catch (err) {
      if (started) throw err;
      console.warn("docs-panel: writing without the cross-tab lock:", String(err));
    }
  }
  return task();
}
