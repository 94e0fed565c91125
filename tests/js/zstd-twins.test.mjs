// docs_panel/assets/zstd-twins.mjs: Zstandard twins decoded with zstd's own decoder (the wasm
// the zstddec package embeds, as build.py ships it), fetched through a stand-in `fetch`
// that answers real bytes in chunks of a chosen size.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { zstdTwins } from "../../docs_panel/assets/zstd-twins.mjs";

const here = (path) => new URL(path, import.meta.url);
const zstddec = readFileSync(here("../../node_modules/zstddec/dist/zstddec-stream.mjs"), "utf8");
const DECODER = Buffer.from(zstddec.match(/const wasm = "([A-Za-z0-9+/=]+)";/)[1], "base64");
// fixtures/pattern.bin.zst is this pattern, compressed by Python's zstd at level 19:
// longer than zstd's output buffer (128 KiB), so one input fills it more than once.
const PATTERN = Uint8Array.from({ length: 300_000 }, (_, i) => ((i * 7) ^ (i >> 9)) & 0xff);
const TWIN = readFileSync(here("fixtures/pattern.bin.zst"));
// fixtures/zeros.bin.zst: 1,000 bytes of an LCG, then 999,000 zeros, in about a thousand:
// a small input whose last chunk fills the output buffer several times over.
const ZEROS = readFileSync(here("fixtures/zeros.bin.zst"));
const LCG_AND_ZEROS = new Uint8Array(1_000_000);
for (let i = 0, x = 1; i < 1000; i++) {
  x = Number((BigInt(x) * 1103515245n + 12345n) % 2n ** 31n);
  LCG_AND_ZEROS[i] = x >> 23;
}

// `files`: URL → bytes (or an HTTP status); every fetch is counted by URL.
function serving(files, chunk) {
  const asked = new Map();
  globalThis.fetch = async (url) => {
    asked.set(url, (asked.get(url) ?? 0) + 1);
    const bytes = files[url];
    if (typeof bytes === "number") return new Response("", { status: bytes });
    const body = new ReadableStream({
      start(controller) {
        for (let at = 0; at < bytes.length; at += chunk) controller.enqueue(bytes.slice(at, at + chunk));
        controller.close();
      },
    });
    return new Response(body);
  };
  return asked;
}

const bytesOf = async (stream) => new Uint8Array(await new Response(stream).arrayBuffer());

for (const [chunk, decoder] of [[3, "plain"], [4096, "gzip"], [1 << 20, "plain"]]) {
  test(`a twin decodes to its file, in chunks of ${chunk} bytes, decoder ${decoder}`, async () => {
    const wasm = decoder === "gzip" ? gzipSync(DECODER) : DECODER;
    serving({ "/zstd.wasm.gz": wasm, "/pattern.bin.zst": TWIN }, chunk);
    const { decoded } = zstdTwins("/zstd.wasm.gz");
    assert.deepEqual(await bytesOf(await decoded("/pattern.bin.zst")), PATTERN);
  });
}

test("a twin that decodes to many times its size comes out whole", async () => {
  serving({ "/zstd.wasm.gz": DECODER, "/zeros.bin.zst": ZEROS }, 1000);
  const { decoded } = zstdTwins("/zstd.wasm.gz");
  assert.deepEqual(await bytesOf(await decoded("/zeros.bin.zst")), LCG_AND_ZEROS);
});

test("bytes the host decoded already pass as they came", async () => {
  serving({ "/zstd.wasm.gz": DECODER, "/pattern.bin.zst": PATTERN }, 1000);
  const { decoded } = zstdTwins("/zstd.wasm.gz");
  assert.deepEqual(await bytesOf(await decoded("/pattern.bin.zst")), PATTERN);
});

test("a file shorter than zstd's magic number passes as it came", async () => {
  serving({ "/zstd.wasm.gz": DECODER, "/short.zst": Uint8Array.of(0x28, 0xb5) }, 1);
  const { decoded } = zstdTwins("/zstd.wasm.gz");
  assert.deepEqual(await bytesOf(await decoded("/short.zst")), Uint8Array.of(0x28, 0xb5));
});

test("a corrupt twin fails with a clear error", async () => {
  const corrupt = Uint8Array.from(TWIN).fill(0xff, 4, 12); // the frame and first block headers
  serving({ "/zstd.wasm.gz": DECODER, "/pattern.bin.zst": corrupt }, 1000);
  const { decoded } = zstdTwins("/zstd.wasm.gz");
  await assert.rejects(bytesOf(await decoded("/pattern.bin.zst")), /a Zstandard file is corrupt/);
});

test("a twin cut short fails with a clear error", async () => {
  serving({ "/zstd.wasm.gz": DECODER, "/pattern.bin.zst": TWIN.subarray(0, TWIN.length >> 1) }, 1000);
  const { decoded } = zstdTwins("/zstd.wasm.gz");
  await assert.rejects(bytesOf(await decoded("/pattern.bin.zst")), /a Zstandard file ended early/);
});

test("an HTTP error names the file and the status", async () => {
  serving({ "/zstd.wasm.gz": DECODER, "/gone.zst": 404 }, 1000);
  const { decoded } = zstdTwins("/zstd.wasm.gz");
  await assert.rejects(decoded("/gone.zst"), /could not load \/gone\.zst: HTTP 404/);
});

test("a decoder that cannot be had fails the twin that needed it", async () => {
  serving({ "/zstd.wasm.gz": 500, "/pattern.bin.zst": TWIN }, 1000);
  const { decoded } = zstdTwins("/zstd.wasm.gz");
  await assert.rejects(decoded("/pattern.bin.zst"), /could not load \/zstd\.wasm\.gz: HTTP 500/);
});

test("the decoder is fetched once for all twins", async () => {
  const asked = serving({ "/zstd.wasm.gz": DECODER, "/a.zst": TWIN, "/b.zst": TWIN }, 1000);
  const { decoded } = zstdTwins("/zstd.wasm.gz");
  const [a, b] = await Promise.all([decoded("/a.zst"), decoded("/b.zst")]);
  assert.deepEqual(await bytesOf(a), PATTERN);
  assert.deepEqual(await bytesOf(b), PATTERN);
  assert.equal(asked.get("/zstd.wasm.gz"), 1);
});

test("watched hands a stream's error to its callback and still fails the stream", async () => {
  serving({ "/zstd.wasm.gz": DECODER, "/pattern.bin.zst": TWIN.subarray(0, 2000) }, 1000);
  const { decoded, watched } = zstdTwins("/zstd.wasm.gz");
  const seen = [];
  const stream = watched(await decoded("/pattern.bin.zst"), (error) => seen.push(error.message));
  await assert.rejects(bytesOf(stream), /ended early/);
  assert.deepEqual(seen, ["docs-panel: a Zstandard file ended early"]);
});

test("zstdTwins runs from its source alone, as the loader's wasm thread runs it", async () => {
  serving({ "/zstd.wasm.gz": DECODER, "/pattern.bin.zst": TWIN }, 1000);
  const standalone = new Function(`return (${zstdTwins})`)(); // global scope: no imports
  const { decoded } = standalone("/zstd.wasm.gz");
  assert.deepEqual(await bytesOf(await decoded("/pattern.bin.zst")), PATTERN);
});

test("a file that takes long leaves a sign of progress each second, not one per chunk", async () => {
  serving({ "/zstd.wasm.gz": DECODER, "/slow.bin.zst": TWIN }, 100);
  const chunks = Math.ceil(TWIN.length / 100);
  const { now } = performance;
  let clock = 0;
  performance.now = () => (clock += 300); // each look at the clock: 0.3 s later
  try {
    const { decoded } = zstdTwins("/zstd.wasm.gz");
    assert.deepEqual(await bytesOf(await decoded("/slow.bin.zst")), PATTERN);
  } finally {
    performance.now = now;
  }
  const signs = performance.getEntriesByName("docs-panel:arriving slow.bin.zst").length;
  assert.ok(signs > 1 && signs < chunks / 2, `${signs} signs for ${chunks} chunks`);
});

test("a file that comes at once leaves no sign of its own but its end", async () => {
  serving({ "/zstd.wasm.gz": DECODER, "/fast.bin.zst": TWIN }, 1000);
  const { decoded } = zstdTwins("/zstd.wasm.gz");
  assert.deepEqual(await bytesOf(await decoded("/fast.bin.zst")), PATTERN);
  assert.equal(performance.getEntriesByName("docs-panel:arriving fast.bin.zst").length, 0);
  assert.equal(performance.getEntriesByName("docs-panel:downloaded fast.bin.zst").length, 1);
});
