// docs_panel/assets/memory-pages.mjs: the warm start's memory copy without its zero pages.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PAGE, withoutZeroPages, withZeroPages } from "../../docs_panel/assets/memory-pages.mjs";

// A memory of `length` bytes whose pages in `used` hold bytes (the rest stay zero).
function memoryOf(length, used) {
  const memory = new Uint8Array(length);
  for (const p of used) {
    const end = Math.min(length, (p + 1) * PAGE);
    for (let i = p * PAGE; i < end; i++) memory[i] = (i % 251) + 1;
  }
  return memory;
}

const kept = async (memory) => (await withoutZeroPages(memory)).arrayBuffer();

const CASES = [
  ["empty", 0, []],
  ["one byte", 1, [0]],
  ["one page of zeros", PAGE, []],
  ["a page and one byte, the byte kept", PAGE + 1, [1]],
  ["zero pages between kept ones, a partial last page", 5 * PAGE + 17, [0, 2, 5]],
];

for (const [name, length, used] of CASES) {
  test(`round trip: ${name}`, async () => {
    const memory = memoryOf(length, used);
    assert.deepEqual(withZeroPages(await kept(memory)), memory);
  });
}

test("a zero page costs one byte; a kept page its bytes", async () => {
  const pages = 8;
  const bytes = await kept(memoryOf(pages * PAGE, [3]));
  assert.equal(bytes.byteLength, 4 + pages + PAGE);
});

test("a single non-zero byte keeps its page", async () => {
  const memory = new Uint8Array(3 * PAGE);
  memory[2 * PAGE + PAGE - 1] = 9;
  const bytes = await kept(memory);
  assert.equal(bytes.byteLength, 4 + 3 + PAGE);
  assert.deepEqual(withZeroPages(bytes), memory);
});

test("a copy cut short is refused", async () => {
  const bytes = await kept(memoryOf(4 * PAGE, [1, 3]));
  for (const size of [0, 3, 4 + 2, 4 + 4 + PAGE, bytes.byteLength - 1]) {
    assert.throws(() => withZeroPages(bytes.slice(0, size)), /^Error: the kept memory is cut$/, `${size}`);
  }
});

test("a copy with bytes to spare is refused", async () => {
  const bytes = new Uint8Array(await kept(memoryOf(2 * PAGE, [0])));
  const longer = new Uint8Array(bytes.length + 4);
  longer.set(bytes);
  assert.throws(() => withZeroPages(longer.buffer), /the kept memory is cut/);
});
