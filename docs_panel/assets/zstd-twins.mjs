// Decoding Zstandard twins, for pyodide-loader.mjs: `zstdTwins(url of the decoder)`
// gives `decoded` (a twin's URL → the file's bytes as a stream) and `watched` (a stream
// whose error also reaches a callback). It names nothing outside itself, not even an
// import: the loader's wasm thread runs it from its source (`${zstdTwins}`).
// build.py inlines this module into the loader; tests/js/zstd-twins.test.mjs runs it.
export function zstdTwins(zstdUrl) {
  const ARRIVING_EVERY_MS = 1000;
  // Every file fetched here has a content-hashed or versioned name, so a copy in the
  // HTTP cache is the file: taken as it is, with no request. WebKit otherwise fetches
  // them again in full when the page is reloaded (no revalidation, not even a 304).
  const cached = (url) => fetch(url, { cache: "force-cache" });
  // Zstandard's decoder (build.py's zstd_wasm), from its gzip twin, which the browser
  // gunzips natively unless the host did already; fetched once a file needs it (a warm
  // start needs none).
  let decoder = null;
  const zstdDecoder = () => {
    decoder ??= (async () => {
      const response = await cached(zstdUrl);
      if (!response.ok) throw new Error(`docs-panel: could not load ${zstdUrl}: HTTP ${response.status}`);
      let bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
        const plain = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
        bytes = await new Response(plain).arrayBuffer();
      }
      const imports = { env: { emscripten_notify_memory_growth() {} } };
      return (await WebAssembly.instantiate(bytes, imports)).instance.exports;
    })();
    decoder.catch(() => {}); // a failure is reported by the file that needed it
    return decoder;
  };

  // Zstandard bytes in, the file out, through zstd's streaming API: ZSTD_decompressStream
  // reads a ZSTD_inBuffer and fills a ZSTD_outBuffer, each {pointer, size, position} as
  // three 32-bit words in the decoder's memory (read anew each time: it may grow).
  const unzstd = (zstd) => {
    const [inSize, outSize] = [zstd.ZSTD_DStreamInSize(), zstd.ZSTD_DStreamOutSize()];
    const context = zstd.ZSTD_createDCtx();
    const buffers = [inSize, outSize, 12, 12].map((size) => zstd.malloc(size));
    const [inBuffer, outBuffer, input, output] = buffers;
    const words = () => new Uint32Array(zstd.memory.buffer);
    let left = 0; // ZSTD_decompressStream's last answer: 0 once the file is whole
    return new TransformStream({
      transform(chunk, controller) {
        for (let offset = 0; offset < chunk.length; offset += inSize) {
          const piece = chunk.subarray(offset, offset + inSize);
          new Uint8Array(zstd.memory.buffer).set(piece, inBuffer);
          words().set([inBuffer, piece.length, 0], input / 4);
          let full = true; // a full output buffer may leave more to flush
          while (full || words()[input / 4 + 2] < piece.length) {
            words().set([outBuffer, outSize, 0], output / 4);
            left = zstd.ZSTD_decompressStream(context, output, input);
            if (left < 0) throw new Error(`docs-panel: a Zstandard file is corrupt (zstd error ${-left})`);
            const made = words()[output / 4 + 2];
            if (made) controller.enqueue(new Uint8Array(zstd.memory.buffer, outBuffer, made).slice());
            full = made === outSize;
          }
        }
      },
      flush() {
        zstd.ZSTD_freeDCtx(context);
        buffers.forEach((pointer) => zstd.free(pointer));
        if (left !== 0) throw new Error("docs-panel: a Zstandard file ended early");
      },
    });
  };

  // A Zstandard stream, decoded; or the bytes as they came, when the host labelled
  // the file Content-Encoding: zstd and the browser decoded it already.
  async function decoded(url) {
    const decoding = zstdDecoder(); // fetched beside the file
    const response = await cached(url);
    if (!response.ok) throw new Error(`docs-panel: could not load ${url}: HTTP ${response.status}`);
    const reader = response.body.getReader();
    const head = [];
    let size = 0;
    while (size < 4) {
      const part = await reader.read();
      if (part.done) break;
      head.push(part.value);
      size += part.value.length;
    }
    const start = new Uint8Array(size);
    head.reduce((offset, chunk) => (start.set(chunk, offset), offset + chunk.length), 0);
    const name = url.split("/").pop();
    let said = performance.now();
    const body = new ReadableStream({
      start: (controller) => controller.enqueue(start),
      async pull(controller) {
        const { done, value } = await reader.read();
        if (!done) {
          // A sign of progress every second while bytes arrive: the shell ends a start
          // that shows none for a while, and a file takes a minute on a slow phone.
          if (performance.now() - said >= ARRIVING_EVERY_MS) {
            said = performance.now();
            performance.mark(`docs-panel:arriving ${name}`);
          }
          return controller.enqueue(value);
        }
        controller.close();
        performance.mark(`docs-panel:downloaded ${name}`);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const compressed = start[0] === 0x28 && start[1] === 0xb5 && start[2] === 0x2f && start[3] === 0xfd;
    return compressed ? body.pipeThrough(unzstd(await decoding)) : body;
  }

  // `stream` as it comes, its error (a cut or corrupt twin) also handed to `failed`:
  // the start fails on it, and compileStreaming would only say it was aborted.
  const watched = (stream, failed) => {
    const reader = stream.getReader();
    return new ReadableStream({
      async pull(controller) {
        const { done, value } = await reader.read().catch((error) => {
          failed(error);
          throw error;
        });
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
  };

  return { decoded, watched };
}
