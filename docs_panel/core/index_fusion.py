"""Dense fusion: how a question's vector reorders the words' best pages, and how
pages meaning recalls enter the candidates.

Decides the fused order of a lexical ranking's ``DENSE_PAGES`` best pages and the
``dense_recall`` pages (each page led by its section closest in meaning); never
ranks by words (``index_ranking``) and never fetches a part (the index's
``parts_needed`` names the vector parts these candidates need).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from docs_panel.core.dense_recall import RECALL_PAGES, Recall
from docs_panel.core.vectors import scorer
from docs_panel.portable.errors import DocsIndexError

#: Hybrid retrieval (``search`` with a question vector): the best pages by words that
#: meaning may reorder, and how much a cosine above the last candidate's counts, in
#: units of the most a query could score (chosen on the dev sets, see bench/retrieval.py).
DENSE_PAGES = 10
DENSE_WEIGHT = 0.5


@dataclass(frozen=True, slots=True)
class VectorTable:
    """What fusion reads: the model and dimension of the sections' vectors, each
    section's code (None until its part is added), each section's page, the recall."""

    model: str
    dimension: int
    codes: list[str | None]
    page_of: list[int]
    recall: Recall | None


def candidates(
    ranked: list[tuple[float, int]],
    vector: Sequence[float],
    shown: Callable[[int], bool],
    page_of: Sequence[int],
    recall: Recall | None,
) -> tuple[list[int], list[int]]:
    """The ``DENSE_PAGES`` best pages of a lexical ranking, and the ``RECALL_PAGES``
    pages closest in meaning among the others ``shown`` (``dense_recall``)."""
    pages: list[int] = []
    for _, number in ranked:
        page = page_of[number]
        if page not in pages:
            pages.append(page)
            if len(pages) == DENSE_PAGES:
                break
    if not recall:
        return pages, []
    lexical = set(pages)

    def keep(page: int) -> bool:
        return page not in lexical and shown(page)

    return pages, recall.closest(vector, RECALL_PAGES, keep)


def sections_of(pages: Iterable[int], page_of: Sequence[int]) -> list[int]:
    """The sections of ``pages``, which are consecutive by page."""
    return [
        number
        for page in pages
        for number in range(bisect_left(page_of, page), bisect_right(page_of, page))
    ]


def fused(
    ranked: list[tuple[float, int]],
    vector: Sequence[float],
    best_possible: float,
    shown: Callable[[int], bool],
    vectors: VectorTable,
) -> list[tuple[float, int]]:
    """``ranked`` with its ``DENSE_PAGES`` best pages, and the pages meaning recalls,
    ranked again by words and meaning.

    A candidate page scores its best section's lexical score (none for a page the
    words missed) plus ``DENSE_WEIGHT`` times how far its closest section's cosine
    rises above the floor: the least of the words' candidates (so a page only
    gains by meaning against them, and the gain is zero where meaning does not
    tell them apart), or of the recalled pages when the words found nothing. That
    closest section leads its page. Pages past the candidates keep their places
    below.
    """
    if len(vector) != vectors.dimension:
        raise DocsIndexError(
            f"the question's vector has {len(vector)} dimensions; the index's"
            f" {vectors.model} has {vectors.dimension}"
        )
    found, recalled = candidates(ranked, vector, shown, vectors.page_of, vectors.recall)
    numbers = sections_of(found + recalled, vectors.page_of)
    if not numbers:
        return ranked
    similarity = scorer(vector)
    cosine = {}
    for number in numbers:
        code = vectors.codes[number]
        if code is None:
            raise DocsIndexError("a section's vector part was not added: see parts_needed")
        cosine[number] = similarity(code)
    lexical = {number: -negated for negated, number in ranked}
    closest: dict[int, int] = {}  # page -> its section closest in meaning
    best_lexical: dict[int, float] = {}
    for number in numbers:
        page = vectors.page_of[number]
        if page not in closest or cosine[number] > cosine[closest[page]]:
            closest[page] = number
        best_lexical[page] = max(best_lexical.get(page, 0.0), lexical.get(number, 0.0))
    floor = min(cosine[closest[page]] for page in found or recalled)
    fused = []
    for page, number in closest.items():
        gain = DENSE_WEIGHT * best_possible * max(0.0, cosine[number] - floor)
        fused.append((-(best_lexical[page] + gain), number))
    leads = set(closest.values())
    rest = [(negated, number) for negated, number in ranked if number not in leads]
    return sorted(fused + rest)
