"""BM25F ranking: how a question's terms, once decoded, score sections and pages.

Decides the score of every matching section (its BM25F, its page's, its
heading match, its priors) and the order of the hits, each page's best section
first; never reads a payload (``index_format``) and never looks at vectors
(``index_fusion``). All of it is general: nothing knows a particular site or
question.

- The question's terms (``text.Words.query_terms``, read as the pages in the
  reader's language were): words of question phrasing count for less, and a few
  reader words also match the docs' word for them (an alias counts
  ``ALIAS_WEIGHT`` of the reader's own word, and a section scores by the better
  of the two, not both).
- BM25F over a section's fields: a term counts most in its heading, then in
  what the site's own index says the section is about (``Section.keywords``),
  its page title, its breadcrumb and its text. Length
  norms are sublinear, so a long reference section is not buried for being
  long; idf is softened (``IDF_POWER``) so one rare word the answer happens
  not to use does not sink it.
- The same over the whole page (title, all headings, all text), because a
  section is a better answer on a page that is about the question; the more
  pages a site has, the more this counts (``PAGE_SHARES``).
- How closely the heading itself matches the question.
- Two priors, each a factor of at most 1: release notes and changelogs
  (``CHANGELOG``) rarely answer a question unless it is about changes; and
  sections other pages link to are the ones the docs treat as canonical
  (``functions.html#round`` rather than ``decimal.ROUND_HALF_UP``).
- Each page's best section comes first; a page's other sections follow the
  best sections of all the other matching pages.

"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, compress, repeat
from operator import add, and_, mul, neg, sub, truediv

from docs_panel.core.index_format import IMPACT_LEVELS, REBUILD
from docs_panel.core.text import terms
from docs_panel.portable.errors import DocsIndexError

#: idf is raised to this power: a rare word still counts most, but one rare
#: word of the question that the answer does not use cannot sink it alone.
IDF_POWER = 0.75
#: Shares of the final score: the section's BM25F, its page's, its heading match.
#: The page's share grows with the site, from the first figure on a site of at
#: most ``SMALL_SITE`` pages to the second from ``LARGE_SITE`` pages on (on a log
#: scale): the more pages there are, the more of them have a section using the
#: question's words, and the more it tells that a page is about the question.
#: (Whole Python docs, dev sets: 0.5 → 0.6 lifted hit@1 from 75% to 77% and from
#: 48% to 56%; on the 19-page MkDocs site 0.6 cost a tenth of hit@1.)
PAGE_SHARES = (0.5, 0.6)
SMALL_SITE, LARGE_SITE = 50, 500
HEADING_SHARE = 0.1
#: A question term found in more than this share of all sections (a common
#: word: "get", "file") only adds to sections its rarer terms matched, which
#: keeps a search over a large index to the few thousand sections that can win.
#: (Lower, words such as "list", "loop" or "value" could not bring in a section
#: on their own, and questions over the whole Python docs found their page less
#: often; higher costs search time.)
COMMON_SHARE = 0.2
#: ... and in more than this many (a small site is quick to search in full).
COMMON_LEAST = 500
#: How much a docs word found for a reader's word (an alias) counts, relative to it.
ALIAS_WEIGHT = 0.7
#: Release notes and changelogs (``pages.notes``, see ``index_build.release_notes``)
#: mention everything once and rarely answer a question, so their sections score
#: this fraction of what they would, unless the question is about changes (has a
#: term of ``CHANGE_TERMS``).
CHANGELOG_PRIOR = 0.75
CHANGE_TERMS = frozenset(terms("new changes changelog release deprecated removed added version"))
#: Sections no other page links to score ``1 - LINK_WEIGHT`` of what they would;
#: the most linked-to section keeps its full score (see ``Section.links``).
LINK_WEIGHT = 0.2


@dataclass(frozen=True, slots=True)
class Priors:
    """Each section's priors, worked out for a search's candidates only (a site's
    every section at load would cost its size on every first question): the link
    prior, ``1 - LINK_WEIGHT`` unlinked up to 1 for the most linked, on a log scale,
    and that times its page's prior."""

    links: Sequence[int]  # per section, how many other pages link to it
    page_prior: Sequence[float]  # per page
    page_of: Sequence[int]
    most: float  # log1p of the most links any section has

    @classmethod
    def of(
        cls, links: Sequence[int], page_prior: Sequence[float], page_of: Sequence[int]
    ) -> Priors:
        return cls(links, page_prior, page_of, math.log1p(max(links, default=0)))

    def of_sections(self, numbers: list[int], about_changes: bool) -> list[float]:
        """The factor on each of ``numbers``' scores (the page's prior left out when
        the question is ``about_changes``), in C-level maps: a common word's search
        has thousands of candidates."""
        link: Iterable[float] = repeat(1.0, len(numbers))
        if self.most:
            ratio = map(
                truediv, map(math.log1p, map(self.links.__getitem__, numbers)), repeat(self.most)
            )
            link = map(
                sub, repeat(1.0), map(mul, repeat(LINK_WEIGHT), map(sub, repeat(1.0), ratio))
            )
        if about_changes:
            return list(link)
        pages = map(self.page_prior.__getitem__, map(self.page_of.__getitem__, numbers))
        return list(map(mul, pages, link))


@dataclass(frozen=True, slots=True)
class SectionTable:
    """What ranking reads of every section and page: each section's page, priors and
    heading length, each page's path, and the page's share (``page_share``)."""

    page_of: list[int]
    priors: Priors
    title_terms: list[int]
    page_paths: list[str]
    page_share: float


@dataclass(slots=True)
class Ranking:
    """A search's ``(score, section)`` hits, best first; its terms' weights (for
    snippets); the most the query could score."""

    hits: list[tuple[float, int]]
    weights: dict[str, float]
    best_possible: float
    ranked: list[tuple[float, int]]  # every match by lexical score: (-score, section)
    # The hits fused with each question vector asked with (see ``index_fusion.fused``).
    fused: dict[tuple[float, ...], list[tuple[float, int]]] = field(default_factory=dict)


class Tally:
    """What one search accumulates, per section and page, over the query's terms."""

    __slots__ = ("heading_hits", "heading_weight", "pages", "sections")

    def __init__(self) -> None:
        self.sections: dict[int, float] = {}  # section -> BM25F
        self.pages: dict[int, float] = {}  # page -> BM25F
        self.heading_weight: dict[int, float] = {}  # section -> weight of terms in its title
        self.heading_hits: dict[int, int] = {}  # section -> query terms in its title

    def add(
        self,
        sections: dict[int, float],
        pages: dict[int, float],
        titled: dict[int, float],
        *,
        common: bool,
    ) -> None:
        """Add one query term's matches; a ``common`` term's only to sections
        already matched (it cannot lift a section that matches nothing else)."""
        # In C-level maps: a common word has thousands of postings.
        for into, values in ((self.sections, sections), (self.pages, pages)):
            keys = (into.keys() & values.keys()) if common and into else values.keys()
            into.update(
                list(
                    zip(
                        keys,
                        map(add, map(into.get, keys, repeat(0.0)), map(values.__getitem__, keys)),
                        strict=True,
                    )
                )
            )
        for number, weight in titled.items():
            if number not in self.sections:
                continue
            self.heading_weight[number] = self.heading_weight.get(number, 0.0) + weight
            self.heading_hits[number] = self.heading_hits.get(number, 0) + 1


def page_share(pages: int) -> float:
    """The page's share of a section's score on a site of ``pages`` pages (PAGE_SHARES)."""
    small, large = PAGE_SHARES
    growth = math.log(max(pages, SMALL_SITE) / SMALL_SITE) / math.log(LARGE_SITE / SMALL_SITE)
    return small + (large - small) * min(1.0, growth)


def idf(count: int, sections: int) -> float:
    """BM25's inverse document frequency of a term in ``count`` of ``sections`` sections."""
    return math.pow(math.log(1 + (sections - count + 0.5) / (count + 0.5)), IDF_POWER)


def match(
    sections: list[int], pages: list[int], weight: float, section_count: int, page_count: int
) -> tuple[dict[int, float], dict[int, float], dict[int, float]]:
    """One term's scores: per section, per page, and per section whose title has it."""
    table = [weight * (code >> 1) / IMPACT_LEVELS for code in range(2 * IMPACT_LEVELS)]
    numbers = list(accumulate(sections[0::2]))
    codes = sections[1::2]
    if numbers and numbers[-1] >= section_count:
        raise DocsIndexError(f"index.json: postings point past the sections; {REBUILD}")
    page_numbers = list(accumulate(pages[0::2]))
    if page_numbers and page_numbers[-1] >= page_count:
        raise DocsIndexError(f"index.json: postings point past the pages; {REBUILD}")
    page_table = table[0::2]
    return (
        dict(zip(numbers, map(table.__getitem__, codes), strict=True)),
        dict(zip(page_numbers, map(page_table.__getitem__, pages[1::2]), strict=True)),
        dict.fromkeys(compress(numbers, map(and_, codes, repeat(1))), weight),
    )


def rank(
    tally: Tally,
    best_possible: float,
    prefix: str | None,
    pages_shown: frozenset[int] | None,
    about_changes: bool,
    table: SectionTable,
) -> list[tuple[float, int]]:
    """``(-score, section)`` of every match, best first; scores at most ``best_possible``.

    A section's score blends its BM25F, its page's and how closely its
    heading matches the question, times its priors (release notes only
    when the question is not ``about_changes``).
    """
    pages, page_of = tally.pages, table.page_of
    page_share = table.page_share
    # ((1 - HEADING_SHARE - page_share) * section + page_share * page) * prior,
    # in C-level maps:
    # a common word's search has thousands of candidates.
    numbers = list(tally.sections)
    priors = table.priors.of_sections(numbers, about_changes)
    page_values = map(pages.get, map(page_of.__getitem__, numbers), repeat(0.0))
    blend = map(
        add,
        map(mul, tally.sections.values(), repeat(1 - HEADING_SHARE - page_share)),
        map(mul, page_values, repeat(page_share)),
    )
    scores = dict(zip(numbers, map(mul, blend, priors), strict=True))
    title_terms = table.title_terms
    heading_hits = tally.heading_hits
    headed = list(tally.heading_weight)  # a few of the candidates: their priors again
    heading_priors = table.priors.of_sections(headed, about_changes)
    for number, weight, prior in zip(
        headed, tally.heading_weight.values(), heading_priors, strict=True
    ):
        # F1 of "the heading covers the question" and "the heading is the question".
        covered = weight / best_possible
        if not covered:
            continue
        precise = min(1.0, heading_hits[number] / max(1, title_terms[number]))
        f1 = 2 * precise * covered / (precise + covered)
        scores[number] += HEADING_SHARE * best_possible * f1 * prior
    if prefix is not None:  # a scope is a path prefix: "/api/"
        paths = table.page_paths
        scores = {n: s for n, s in scores.items() if paths[page_of[n]].startswith(prefix)}
    if pages_shown is not None:
        scores = {n: s for n, s in scores.items() if page_of[n] in pages_shown}
    # Ties go to the section that comes first in the site. Sorting negated
    # scores needs no key function: thousands of candidates sort in C.
    return sorted(zip(map(neg, scores.values()), scores, strict=True))


def crowded(
    ranked: list[tuple[float, int]], limit: int, page_of: Sequence[int]
) -> list[tuple[float, int]]:
    """``(score, section)`` of the first ``limit`` of ``ranked`` (as ``rank`` gives
    them), each page's best section before any page's second."""
    firsts: list[tuple[float, int]] = []
    others: list[tuple[float, int]] = []
    seen: set[int] = set()
    for negated, number in ranked:
        page = page_of[number]
        (others if page in seen else firsts).append((-negated, number))
        seen.add(page)
        if len(firsts) == limit:
            break
    return (firsts + others)[:limit]
