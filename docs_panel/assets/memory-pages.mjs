// The warm start's memory copy as pyodide-loader.mjs keeps it in Cache Storage: its
// length (a 32-bit word), a byte per 4 KiB page (1: kept, 0: all zeros), then the kept
// pages. Half of Pyodide's memory is zero pages; skipping them beats gzip, whose
// gunzip would slow every warm start. The page count catches a cut copy.
// build.py inlines this module into the loader; tests/js/memory-pages.test.mjs runs it.
export const PAGE = 4096;

// `memory` (a Uint8Array) as a Blob without its zero pages.
export function withoutZeroPages(memory) {
  const pages = Math.ceil(memory.length / PAGE);
  const kept = new Uint8Array(pages);
  const parts = [new Uint32Array([memory.length]), kept];
  for (let p = 0; p < pages; p++) {
    const page = memory.subarray(p * PAGE, (p + 1) * PAGE);
    for (let i = 0; i < page.length; i++) {
      if (page[i]) {
        kept[p] = 1;
        parts.push(page);
        break;
      }
    }
  }
  return new Blob(parts);
}

// What withoutZeroPages kept (an ArrayBuffer), as the memory; a copy whose size is not
// what its page list says throws "the kept memory is cut".
export function withZeroPages(buffer) {
  const cut = () => new Error("the kept memory is cut");
  if (buffer.byteLength < 4) throw cut();
  const length = new Uint32Array(buffer, 0, 1)[0];
  const pages = Math.ceil(length / PAGE);
  if (buffer.byteLength < 4 + pages) throw cut();
  const kept = new Uint8Array(buffer, 4, pages);
  const memory = new Uint8Array(length);
  let at = 4 + pages;
  for (let p = 0; p < pages; p++) {
    if (!kept[p]) continue;
    const size = Math.min(PAGE, length - p * PAGE);
    if (at + size > buffer.byteLength) throw cut();
    memory.set(new Uint8Array(buffer, at, size), p * PAGE);
    at += size;
  }
  if (at !== buffer.byteLength) throw cut();
  return memory;
}
