"""Dense recall: the pages closest in meaning to a question become candidates even
when its words miss them (a paraphrase, another language).

At build time (``recall_payload``) each page gets one vector, the per-dimension
majority of its sections' sign bits, and the pages are grouped into clusters of
about ``CLUSTER_PAGES`` by k-means over those bits (Hamming distance, each
centroid the majority of its pages), deterministic. The index keeps each
centroid and, per cluster, its pages and their vectors; on a split index each
cluster is a part of its own (``recall-N``), so a question fetches the
``PROBES`` clusters whose centroids are closest and ranks only their pages
(``Recall.closest``). It decides which pages meaning adds to the candidates, never
how candidates are ranked (``index_fusion`` fuses them)::

    >>> from docs_panel.core.vectors import encode
    >>> codes = [encode(v) for v in ([1, 1, -1], [1, 0.5, -1], [-1, -1, 1])]
    >>> payload = recall_payload([0, 0, 1], codes, 3)
    >>> recall = Recall.load(payload, pages=2)
    >>> recall.closest([-1.0, -1.0, 1.0], 1, keep=lambda page: True)
    [1]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import groupby

from docs_panel.core.packed import pack, unpack
from docs_panel.core.vectors import decode_bits, encode_bits, scorer
from docs_panel.portable.errors import DocsIndexError

#: Pages per cluster: a question fetches ``PROBES`` clusters' page vectors, about
#: 8 KB of JSON each for 384 dimensions.
CLUSTER_PAGES = 128
#: How many clusters a question looks into.
PROBES = 3
#: How many pages meaning adds to the candidates the words found.
RECALL_PAGES = 5
#: k-means rounds: the assignment settles within a few on docs sites.
ROUNDS = 8
_REBUILD = "rebuild the index with build.py"


def recall_payload(
    page_of: Sequence[int], codes: Sequence[str], dimension: int
) -> dict[str, object]:
    """The index's ``embeddings.recall`` for sections on pages ``page_of`` (a page's
    sections together) with vector ``codes``: ``centroids`` (codes) and ``clusters``
    (per cluster, its page numbers packed and their codes)."""
    pages: list[int] = []
    page_bits: list[list[bool]] = []
    for page, numbers in groupby(range(len(codes)), key=page_of.__getitem__):
        pages.append(page)
        page_bits.append(_majority([decode_bits(codes[n], dimension) for n in numbers]))
    centroids, members = _kmeans(page_bits, max(1, math.ceil(len(pages) / CLUSTER_PAGES)))
    return {
        "centroids": [encode_bits(c) for c in centroids],
        "clusters": [
            [pack(pages[m] for m in group), [encode_bits(page_bits[m]) for m in group]]
            for group in members
        ],
    }


def _majority(bits: Sequence[Sequence[bool]]) -> list[bool]:
    half = len(bits) / 2
    return [sum(column) >= half for column in zip(*bits, strict=True)]


def _kmeans(vectors: list[list[bool]], count: int) -> tuple[list[list[bool]], list[list[int]]]:
    """``count`` centroids and each one's members (indices into ``vectors``)."""
    as_ints = [_to_int(v) for v in vectors]
    step = len(vectors) / count
    centroids = [vectors[int(k * step)] for k in range(count)]
    members: list[list[int]] = [list(range(len(vectors)))]
    for _ in range(ROUNDS if count > 1 else 0):
        centre_ints = [_to_int(c) for c in centroids]
        members = [[] for _ in centroids]
        for n, value in enumerate(as_ints):
            distances = [(value ^ centre).bit_count() for centre in centre_ints]
            members[distances.index(min(distances))].append(n)
        centroids = [
            _majority([vectors[n] for n in group]) if group else centre
            for group, centre in zip(members, centroids, strict=True)
        ]
    if count == 1:
        centroids = [_majority(vectors)] if vectors else []
    kept = [(c, m) for c, m in zip(centroids, members, strict=True) if m]
    return [c for c, _ in kept], [m for _, m in kept]


def _to_int(bits: Sequence[bool]) -> int:
    return sum(1 << n for n, bit in enumerate(bits) if bit)


@dataclass(slots=True)
class Recall:
    """The recall part of a loaded index: centroids always, clusters once added."""

    centroids: list[str]
    clusters: list[tuple[list[int], list[str]] | None]  # None: its part is not added yet
    pages: int  # how many pages the index has

    @classmethod
    def load(cls, payload: object, pages: int) -> Recall:
        """From the index's ``embeddings.recall`` (a split index's clusters are null)."""
        if not isinstance(payload, dict) or sorted(payload) != ["centroids", "clusters"]:
            raise DocsIndexError(f"index.json: 'embeddings.recall' is malformed; {_REBUILD}")
        centroids, clusters = payload["centroids"], payload["clusters"]
        if not (
            isinstance(centroids, list)
            and isinstance(clusters, list)
            and len(centroids) == len(clusters)
            and set(map(type, centroids)) <= {str}
        ):
            raise DocsIndexError(f"index.json: 'embeddings.recall' is malformed; {_REBUILD}")
        recall = cls(centroids, [None] * len(clusters), pages)
        for number, cluster in enumerate(clusters):
            if cluster is not None:
                recall.add(number, cluster)
        return recall

    def add(self, number: int, cluster: object) -> None:
        """Add cluster ``number``'s pages and vectors (a ``recall-N`` part)."""
        if not (
            isinstance(cluster, list)
            and len(cluster) == 2
            and isinstance(cluster[0], str)
            and isinstance(cluster[1], list)
            and set(map(type, cluster[1])) <= {str}
        ):
            raise DocsIndexError(f"index part recall-{number} does not fit; {_REBUILD}")
        pages = unpack(cluster[0])
        if (
            not pages
            or len(pages) != len(cluster[1])
            or not 0 <= min(pages) <= max(pages) < self.pages
        ):
            raise DocsIndexError(f"index part recall-{number} does not fit; {_REBUILD}")
        self.clusters[number] = (pages, cluster[1])

    def probed(self, question: Sequence[float]) -> list[int]:
        """The ``PROBES`` clusters whose centroids are closest to ``question``."""
        similarity = scorer(question)
        scores = [(-similarity(code), n) for n, code in enumerate(self.centroids)]
        return [n for _, n in sorted(scores)[:PROBES]]

    def closest(
        self, question: Sequence[float], count: int, keep: Callable[[int], bool]
    ) -> list[int]:
        """The ``count`` pages of the probed clusters closest to ``question`` among those
        ``keep`` lets through (shown to this reader, not already candidates)."""
        similarity = scorer(question)
        scored = []
        for n in self.probed(question):
            cluster = self.clusters[n]
            if cluster is None:
                raise DocsIndexError("a recall part was not added: see parts_needed")
            pages, codes = cluster
            scored += [(-similarity(c), p) for p, c in zip(pages, codes, strict=True)]
        return [page for _, page in sorted(scored) if keep(page)][:count]
