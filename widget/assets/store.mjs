// A worker call that reads a stored value and replaces it, done in JavaScript for
// the MicroPython shell (shell/persistence.py): a megabyte archive crossing into
// MicroPython and back costs ~10 ms a crossing, six per write, where parsing the
// reply here costs ~1 ms (bench/history_write.py). Storage goes through embed.js's
// calls that never throw, or `memory` (a Map) when the area is unusable.
const storage = window.__docsPanel.storage;
const utf8 = new TextEncoder();
let refused = null; // the last value the quota refused: what a `fromRefused` call shrinks
// By key, the value last written from a worker reply: found still stored, it goes to the
// worker as `true` (worker/main.py keeps that reply), so the archive crosses once a write.
// Another tab's write, even of the same length, is a different string and goes whole.
const written = new Map();

// `worker.call(name, ...values)` with the value stored under `key` (or the refused
// one) as argument `at`; its reply, parsed, with `value` (a new value to store, or
// null) replaced by what writing it did: null (nothing to write), "ok", "quota", "error".
export async function update(worker, name, area, key, memory, at, fromRefused, ...values) {
  const stored = memory ? (memory.has(key) ? memory.get(key) : null) : storage.get(area, key);
  const unchanged = !fromRefused && stored !== null && stored === written.get(key);
  values[at] = unchanged || crossing(fromRefused ? refused : stored);
  const reply = JSON.parse(await worker.call(name, ...values));
  const value = reply.value;
  if (value === null) return reply;
  reply.value = memory ? (memory.set(key, value), "ok") : storage.set(area, key, value);
  refused = reply.value === "quota" ? value : null;
  if (reply.value === "ok") written.set(key, value);
  else written.delete(key);
  return reply;
}

// A stored value as it goes to the worker: UTF-8 bytes, which Pyodide takes in at ~1 ms
// a megabyte where a string costs ~4 ms (worker/main.py decodes them); a value with a
// lone surrogate, which UTF-8 cannot carry, goes as the string it is.
const crossing = value => (value?.isWellFormed?.() ? utf8.encode(value) : value);
