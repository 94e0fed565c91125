// A worker call that reads a stored value and replaces it, done in JavaScript for
// the MicroPython shell (shell/persistence.py): a megabyte archive crossing into
// MicroPython and back costs ~10 ms a crossing, six per write, where parsing the
// reply here costs ~1 ms (bench/history_write.py). Storage goes through embed.js's
// calls that never throw, or `memory` (a Map) when the area is unusable.
const storage = window.__docsPanel.storage;
let refused = null; // the last value the quota refused: what a `fromRefused` call shrinks

// `worker.call(name, ...values)` with the value stored under `key` (or the refused
// one) as argument `at`; its reply, parsed, with `value` (a new value to store, or
// null) replaced by what writing it did: null (nothing to write), "ok", "quota", "error".
export async function update(worker, name, area, key, memory, at, fromRefused, ...values) {
  const stored = memory ? (memory.has(key) ? memory.get(key) : null) : storage.get(area, key);
  values[at] = fromRefused ? refused : stored;
  const reply = JSON.parse(await worker.call(name, ...values));
  const value = reply.value;
  if (value === null) return reply;
  reply.value = memory ? (memory.set(key, value), "ok") : storage.set(area, key, value);
  refused = reply.value === "quota" ? value : null;
  return reply;
}
