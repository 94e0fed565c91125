"""The docs index: built once by ``build.py``, loaded and searched in the worker.

``build_index`` turns sections into a JSON-able payload (written as
``index.json``); ``load_index`` reads it back without re-tokenizing anything;
``DocsIndex.search`` ranks sections for a question.

    >>> index = load_index(build_index([
    ...     Section("/json.html", "json", "json", "Encode and decode JSON."),
    ...     Section("/json.html#basic-usage", "json", "Basic usage",
    ...             "json.dumps(obj, indent=None) serializes obj to a str."),
    ...     Section("/csv.html", "csv", "csv", "Read and write CSV files."),
    ... ]))
    >>> [hit.section.address for hit in index.search("json.dumps indent")]
    ['/json.html#basic-usage', '/json.html']
    >>> index.lookup("/csv.html").title, index.has_page("/json.html")
    ('csv', True)

Ranking, all of it general (nothing knows a particular site or question):

- The question's terms (``text.query_terms``): words of question phrasing
  count for less, and a few reader words also match the docs' word for them
  (an alias counts ``ALIAS_WEIGHT`` of the reader's own word, and a section
  scores by the better of the two, not both).
- BM25F over a section's fields: a term counts most in its heading, then in
  its page title, then its breadcrumb and its text. Length norms are
  sublinear, so a long reference section is not buried for being long; idf
  is softened (``IDF_POWER``) so one rare word the answer happens not to use
  does not sink it.
- The same over the whole page (title, all headings, all text), because a
  section is a better answer on a page that is about the question.
- How closely the heading itself matches the question.
- Two priors, each a factor of at most 1: release notes and changelogs
  (``CHANGELOG``) rarely answer a question unless it is about changes; and
  sections other pages link to are the ones the docs treat as canonical
  (``functions.html#round`` rather than ``decimal.ROUND_HALF_UP``).
- Each page's best section comes first; a page's other sections follow the
  best sections of all the other matching pages.

Payload layout (``"format": 2``), in short keys to keep it small:

- ``pages``: ``[path, title, title_terms]`` per page.
- ``sections``: ``[page, anchor, title, breadcrumb, text, title_terms,
  breadcrumb_terms, body_terms, links]`` per section; ``text`` is capped at
  ``TEXT_LIMIT`` characters (the postings count all of it).
- ``terms``: for each term its postings as one string, two characters per
  section it is in: the section number as the gap from the previous one, and
  ``code`` = ``body_count << 3 | in_breadcrumb << 2 | in_page_title << 1 |
  in_title``. Each number ``n`` is the character ``chr(n + 48)`` (skipping the
  surrogate block), so most take one byte of UTF-8 and decoding is one
  ``map(ord, …)``: parsing one string is far cheaper than parsing a JSON list
  of numbers, and only the query's terms are ever decoded.
- ``version``: a hash of the sections' full content, so it changes exactly
  when the indexed content does (not when only the ranking code changes).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from widget.core.errors import DocsIndexError
from widget.core.text import WORD, query_terms, terms, word_terms

FORMAT = 2
#: Characters of a section's text kept in the payload (for snippets and prompts).
TEXT_LIMIT = 600
SNIPPET_LENGTH = 200

# BM25F: a term's counts in all fields, each scaled by the field's weight over
# its length norm, add up before saturating (k1), so a term in both heading and
# text is not counted twice at full strength.
K1 = 1.2
#: idf is raised to this power: a rare word still counts most, but one rare
#: word of the question that the answer does not use cannot sink it alone.
IDF_POWER = 0.75
#: (weight, BM25's b) of a section's title, page title, breadcrumb and text.
SECTION_FIELDS = ((3.0, 0.3), (2.0, 0.3), (1.0, 0.3), (1.0, 0.75))
#: (weight, b) of a page's title, all its headings, all its text.
PAGE_FIELDS = ((2.0, 0.3), (1.0, 0.5), (1.0, 0.75))
#: Length norms use (length / average) ** LENGTH_POWER: sublinear, see above.
LENGTH_POWER = 0.5
#: Shares of the final score: the section's BM25F, its page's, its heading match.
SECTION_SHARE, PAGE_SHARE, HEADING_SHARE = 0.4, 0.5, 0.1
#: How much a docs word found for a reader's word (an alias) counts, relative to it.
ALIAS_WEIGHT = 0.7
#: Release notes and changelogs mention everything once and rarely answer a
#: question, so their sections score this fraction of what they would, unless
#: the question is about changes (has a term of ``CHANGE_TERMS``).
CHANGELOG_PRIOR = 0.75
CHANGELOG = re.compile(
    r"(?:^|/)(?:whats-?new|changelog|changes|release-?notes|releases|news)(?:/|[.-]|$)",
    re.IGNORECASE,
)
CHANGE_TERMS = frozenset(terms("new changes changelog release deprecated removed added version"))
#: Sections no other page links to score ``1 - LINK_WEIGHT`` of what they would;
#: the most linked-to section keeps its full score (see ``Section.links``).
LINK_WEIGHT = 0.2
_TITLE, _PAGE, _CRUMBS, _BODY = range(4)
# Postings' characters: number n is chr(n + _ZERO), above the characters JSON
# must escape; numbers that would land in the surrogate block go past it.
_ZERO = 48
_SURROGATES = 0xD800 - _ZERO
#: A term's count in a section is kept up to this (saturation makes more moot).
MAX_COUNT = 1000


@dataclass(frozen=True, slots=True)
class Section:
    """One heading's part of a page: the unit the panel retrieves and cites.

    ``address`` is the page's site-root path plus the heading's anchor
    (``/library/json.html#basic-usage``; the page top has no anchor);
    ``breadcrumb`` holds the titles of the headings above this one, below the
    page title. ``links`` counts the other pages that link to this section
    (the extractor fills it in): docs cross-reference their canonical entries,
    so it tells ``functions.html#round`` from the many other entries named round.
    """

    address: str
    page_title: str
    title: str
    text: str
    breadcrumb: tuple[str, ...] = ()
    links: int = 0

    @property
    def page(self) -> str:
        """The address without its anchor."""
        return self.address.partition("#")[0]


@dataclass(frozen=True, slots=True)
class Hit:
    """A search result.

    ``score`` lies in [0, 1]: the section's ranking score divided by the most
    the query could score, as if every query term (including words the docs
    never use) were matched as strongly as saturation allows, times the
    section's priors (see the module doc; at most 1). Read it as "how
    much of the question's weight this section matches, and how strongly": a
    section answering every word of the question in its heading scores about
    0.8-1, every word once in its text about 0.4, and a question that shares
    only one of its rarer words with the docs about 0.3. The ``gate`` config
    compares the best hit's score to its threshold. ``snippet`` is plain text
    (at most about ``SNIPPET_LENGTH`` characters) around the best-matching words.
    """

    section: Section
    score: float
    snippet: str


def build_index(sections: Iterable[Section]) -> dict[str, object]:
    """The ``index.json`` payload for ``sections`` (same input, same output)."""
    sections = list(sections)
    pages: dict[str, int] = {}
    page_rows: list[list[object]] = []
    section_rows: list[list[object]] = []
    postings: dict[str, list[int]] = {}
    for number, section in enumerate(sections):
        path, _, anchor = section.address.partition("#")
        if path not in pages:
            pages[path] = len(page_rows)
            page_rows.append([path, section.page_title, len(terms(section.page_title))])
        fields = (
            terms(section.title),
            terms(section.page_title),
            terms(" ".join(section.breadcrumb)),
            terms(section.text),
        )
        counts: dict[str, int] = {}
        for term in fields[_BODY]:
            counts[term] = counts.get(term, 0) + 1
        flags: dict[str, int] = {}
        for bit, field_terms in enumerate(fields[:_BODY]):
            for term in field_terms:
                flags[term] = flags.get(term, 0) | 1 << bit
        for term in counts.keys() | flags.keys():
            postings.setdefault(term, []).append(number)
            count = min(counts.get(term, 0), MAX_COUNT)
            postings[term].append(count << 3 | flags.get(term, 0))
        section_rows.append(
            [
                pages[path],
                anchor,
                section.title,
                list(section.breadcrumb),
                _cap(section.text),
                len(fields[_TITLE]),
                len(fields[_CRUMBS]),
                len(fields[_BODY]),
                section.links,
            ]
        )
    return {
        "format": FORMAT,
        "version": _version(sections),
        "pages": page_rows,
        "sections": section_rows,
        "terms": {term: _encode(postings[term]) for term in sorted(postings)},
    }


def _cap(text: str) -> str:
    if len(text) <= TEXT_LIMIT:
        return text
    cut = text.rfind(" ", 0, TEXT_LIMIT)
    return text[: cut if cut > TEXT_LIMIT // 2 else TEXT_LIMIT] + " …"


def _encode(pairs: list[int]) -> str:
    """``[section, code, …]`` as one character per number, each section number
    as its gap from the last (see the payload layout above)."""
    gaps = pairs[:]
    for i in range(len(gaps) - 2, 0, -2):
        gaps[i] -= gaps[i - 2]
    return "".join(chr(n + _ZERO if n < _SURROGATES else n + _ZERO + 0x800) for n in gaps)


def _decode_numbers(encoded: str) -> list[int]:
    """The numbers :func:`_encode` wrote (``-1`` or less for a character it never writes)."""
    return [c - _ZERO if c < 0xD800 else c - _ZERO - 0x800 for c in map(ord, encoded)]


def _version(sections: list[Section]) -> str:
    canonical = json.dumps(
        [[s.address, s.page_title, s.title, list(s.breadcrumb), s.text] for s in sections],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:20]


class _Tally:
    """What one search accumulates: per section and page, the sum over query terms."""

    __slots__ = ("heading_hits", "heading_weight", "pages", "sections")

    def __init__(self) -> None:
        self.sections: dict[int, float] = {}  # section -> BM25F
        self.pages: dict[int, float] = {}  # page -> BM25F
        self.heading_weight: dict[int, float] = {}  # section -> weight of terms in its title
        self.heading_hits: dict[int, int] = {}  # section -> query terms in its title

    def add(self, match: _Match) -> None:
        """Add one query term's best matches (of the term or one of its aliases)."""
        for number, value in match.sections.items():
            self.sections[number] = self.sections.get(number, 0.0) + value
        for page, value in match.pages.items():
            self.pages[page] = self.pages.get(page, 0.0) + value
        for number, weight in match.headings.items():
            self.heading_weight[number] = self.heading_weight.get(number, 0.0) + weight
            self.heading_hits[number] = self.heading_hits.get(number, 0) + 1


class _Match:
    """One query term's scores; for a term with aliases, the best of each (dis-max)."""

    __slots__ = ("headings", "pages", "sections")

    def __init__(self) -> None:
        self.sections: dict[int, float] = {}  # section -> BM25F
        self.pages: dict[int, float] = {}  # page -> BM25F
        self.headings: dict[int, float] = {}  # section -> weight, if the term is in its title

    def keep_best(self, other: _Match) -> None:
        """Keep, per section and page, the higher of this match and ``other``."""
        for mine, theirs in (
            (self.sections, other.sections),
            (self.pages, other.pages),
            (self.headings, other.headings),
        ):
            for key, value in theirs.items():
                if value > mine.get(key, 0.0):
                    mine[key] = value


@dataclass(frozen=True, slots=True, eq=False)
class DocsIndex:
    """A loaded index: look sections up by address, or search them."""

    version: str
    _pages: list[list[Any]] = field(repr=False)
    _rows: list[list[Any]] = field(repr=False)  # the payload's section rows
    _addresses: list[str] = field(repr=False)
    _by_address: Mapping[str, int] = field(repr=False)
    _page_paths: frozenset[str] = field(repr=False)
    _page_of: list[int] = field(repr=False)
    _page_prior: list[float] = field(repr=False)  # per page, a factor on its sections' scores
    _link_prior: list[float] = field(repr=False)  # per section, the same
    _title_terms: list[int] = field(repr=False)
    _postings: Mapping[str, str] = field(repr=False)
    # Per field, per section (title, page title, breadcrumb, text) and per page
    # (title, headings, text): the field's weight over its length norm.
    _section_scales: tuple[list[float], ...] = field(repr=False)
    _page_scales: tuple[list[float], ...] = field(repr=False)

    def lookup(self, address: str) -> Section | None:
        """The section at ``address`` ("/page.html#anchor"), if the index has it."""
        number = self._by_address.get(address)
        return None if number is None else self._section(number)

    def has_page(self, path: str) -> bool:
        """Whether the page ``path`` (an address without anchor) is in the index."""
        return path in self._page_paths

    def __len__(self) -> int:
        return len(self._rows)

    def _section(self, number: int) -> Section:
        """Sections are made when asked for: most of a big index is never shown."""
        page, _, title, breadcrumb, text, *_, links = self._rows[number]
        return Section(
            address=self._addresses[number],
            page_title=self._pages[page][1],
            title=title,
            text=text,
            breadcrumb=tuple(breadcrumb),
            links=links,
        )

    def search(self, query: str, *, prefix: str | None = None, limit: int = 8) -> list[Hit]:
        """The ``limit`` best sections for ``query``: each matching page's best
        section by score, then the pages' further sections (so the first hit
        has the top score, and a few results span several pages).

        Only sections whose address starts with ``prefix`` when given (a scope
        such as ``/api/``). A query of only stopwords finds nothing.
        """
        asked = query_terms(query)
        if not asked or limit <= 0:
            return []
        tally = _Tally()
        weights: dict[str, float] = {}  # term -> weight, for the snippet
        best_possible = 0.0
        for question_term in asked:
            match: _Match | None = None
            best = 0.0
            shares = (1.0,) + (ALIAS_WEIGHT,) * len(question_term.aliases)
            for term, share in zip(
                (question_term.term, *question_term.aliases), shares, strict=True
            ):
                postings = self._decode(term)
                weight = self._idf(len(postings) // 2) * question_term.weight * share
                weights[term] = max(weights.get(term, 0.0), weight)
                best = max(best, weight)
                found = self._match(postings, weight)
                if match is None:
                    match = found
                else:
                    match.keep_best(found)
            if match is not None:
                tally.add(match)
            best_possible += best
        about_changes = not CHANGE_TERMS.isdisjoint(term.term for term in asked)
        scored = self._rank(tally, best_possible, prefix, about_changes)
        hits = []
        for negated, number in self._crowded(scored, limit):
            section = self._section(number)
            score = min(1.0, -negated / best_possible)
            hits.append(Hit(section, score, snippet(section.text, weights)))
        return hits

    def _idf(self, count: int) -> float:
        """BM25's inverse document frequency of a term in ``count`` sections (> 0)."""
        return math.pow(math.log(1 + (len(self._rows) - count + 0.5) / (count + 0.5)), IDF_POWER)

    def _decode(self, term: str) -> list[int]:
        numbers = _decode_numbers(self._postings.get(term, ""))
        if len(numbers) % 2 or (numbers and min(numbers) < 0):
            raise DocsIndexError(f"index.json: the postings of {term!r} are corrupt; {_REBUILD}")
        return numbers

    def _match(self, postings: list[int], weight: float) -> _Match:
        """One term's BM25F in the sections and pages its ``postings`` list."""
        title, page_title, crumbs, body = self._section_scales
        page_of = self._page_of
        match = _Match()
        per_page: dict[int, list[int]] = {}  # page -> [count in text, in headings, in title]
        number = 0
        try:
            for i in range(0, len(postings), 2):
                number += postings[i]
                code = postings[i + 1]
                count = code >> 3
                tf = count * body[number]
                if code & 1:
                    tf += title[number]
                    match.headings[number] = weight
                if code & 2:
                    tf += page_title[number]
                if code & 4:
                    tf += crumbs[number]
                match.sections[number] = weight * tf / (K1 + tf)
                totals = per_page.setdefault(page_of[number], [0, 0, 0])
                totals[0] += count
                totals[1] += code & 1
                totals[2] = code & 2
        except IndexError:
            raise DocsIndexError(
                f"index.json: postings point past the sections; {_REBUILD}"
            ) from None
        p_title, p_headings, p_body = self._page_scales
        for page, (count, headings, in_title) in per_page.items():
            tf = count * p_body[page] + headings * p_headings[page] + (in_title and p_title[page])
            match.pages[page] = weight * tf / (K1 + tf)
        return match

    def _rank(
        self, tally: _Tally, best_possible: float, prefix: str | None, about_changes: bool
    ) -> list[tuple[float, int]]:
        """``(-score, section)`` of every match, best first; scores at most ``best_possible``.

        A section's score blends its BM25F, its page's and how closely its
        heading matches the question, times its priors (release notes only
        when the question is not ``about_changes``).
        """
        pages = tally.pages
        heading_weight, heading_hits = tally.heading_weight, tally.heading_hits
        page_of, title_terms, addresses = self._page_of, self._title_terms, self._addresses
        prior = [1.0] * len(self._pages) if about_changes else self._page_prior
        link_prior = self._link_prior
        scored = []
        for number, value in tally.sections.items():
            if prefix is not None and not addresses[number].startswith(prefix):
                continue
            page = page_of[number]
            score = SECTION_SHARE * value + PAGE_SHARE * pages[page]
            covered = heading_weight.get(number, 0.0) / best_possible
            if covered:
                # F1 of "the heading covers the question" and "the heading is the question".
                precise = min(1.0, heading_hits[number] / max(1, title_terms[number]))
                score += HEADING_SHARE * best_possible * 2 * precise * covered / (precise + covered)
            scored.append((-score * prior[page] * link_prior[number], number))
        scored.sort()
        return scored

    def _crowded(self, scored: list[tuple[float, int]], limit: int) -> list[tuple[float, int]]:
        """The first ``limit`` of ``scored``, each page's best section before any page's second."""
        firsts: list[tuple[float, int]] = []
        others: list[tuple[float, int]] = []
        seen: set[int] = set()
        for item in scored:
            page = self._page_of[item[1]]
            (others if page in seen else firsts).append(item)
            seen.add(page)
            if len(firsts) == limit:
                break
        return (firsts + others)[:limit]


_REBUILD = "rebuild the index with build.py"


def load_index(payload: object) -> DocsIndex:
    """Read a payload made by :func:`build_index` (already parsed from JSON)."""
    if not isinstance(payload, dict):
        raise DocsIndexError(f"index.json must hold a JSON object; {_REBUILD}")
    if payload.get("format") != FORMAT:
        raise DocsIndexError(
            f"index.json has format {payload.get('format')!r} but this panel reads format"
            f" {FORMAT}; {_REBUILD} from the same release as the panel"
        )
    version = payload.get("version")
    pages = payload.get("pages")
    rows = payload.get("sections")
    postings = payload.get("terms")
    if not (isinstance(version, str) and version):
        raise DocsIndexError(f"index.json has no version; {_REBUILD}")
    # Checked a column at a time: a big index has tens of thousands of rows.
    page_columns = _columns(pages, (str, str, int)) if isinstance(pages, list) else None
    if not isinstance(pages, list) or page_columns is None:
        raise DocsIndexError(f"index.json: 'pages' must be [path, title, terms] rows; {_REBUILD}")
    columns = _columns(rows, _SECTION_KINDS) if isinstance(rows, list) else None
    if (
        not isinstance(rows, list)
        or columns is None
        or not _all_below(columns[0], len(pages))
        or not _all_strings(columns[3])
    ):
        raise DocsIndexError(
            "index.json: 'sections' must be [page, anchor, title, breadcrumb, text,"
            f" title_terms, breadcrumb_terms, body_terms, links] rows; {_REBUILD}"
        )
    if not isinstance(postings, dict) or not set(map(type, postings.values())) <= {str}:
        raise DocsIndexError(f"index.json: 'terms' must map terms to strings; {_REBUILD}")
    paths, _, page_terms = page_columns
    page_of, anchors, _, _, _, title_terms, crumb_terms, body_terms, links = columns
    addresses = [
        paths[page] + f"#{anchor}" if anchor else paths[page]
        for page, anchor in zip(page_of, anchors, strict=True)
    ]
    page_lengths = [[terms, 0, 0] for terms in page_terms]
    for page, title_length, body_length in zip(page_of, title_terms, body_terms, strict=True):
        page_lengths[page][1] += title_length
        page_lengths[page][2] += body_length
    section_lengths = zip(
        title_terms, (page_terms[page] for page in page_of), crumb_terms, body_terms, strict=True
    )
    return DocsIndex(
        version=version,
        _pages=pages,
        _rows=rows,
        _addresses=addresses,
        _by_address={address: number for number, address in enumerate(addresses)},
        _page_paths=frozenset(paths),
        _page_of=list(page_of),
        _page_prior=[CHANGELOG_PRIOR if CHANGELOG.search(path) else 1.0 for path in paths],
        _link_prior=_link_priors(links),
        _title_terms=list(title_terms),
        _postings=postings,
        _section_scales=_field_scales(list(section_lengths), SECTION_FIELDS),
        _page_scales=_field_scales(page_lengths, PAGE_FIELDS),
    )


def _link_priors(links: Sequence[int]) -> list[float]:
    """Per section, ``1 - LINK_WEIGHT`` unlinked up to 1 for the most linked, on a log scale."""
    most = math.log1p(max(links, default=0))
    if not most:
        return [1.0] * len(links)
    return [1 - LINK_WEIGHT * (1 - math.log1p(count) / most) for count in links]


#: The type of each value of a section row (see the payload layout).
_SECTION_KINDS = (int, str, str, list, str, int, int, int, int)


def _columns(rows: list[Any], kinds: tuple[type, ...]) -> list[tuple[Any, ...]] | None:
    """``rows`` as columns if each row has one value of each kind (an ``int``
    kind means a count: a non-negative int, not a bool); else None."""
    if any(type(row) is not list or len(row) != len(kinds) for row in rows):
        return None
    columns = list(zip(*rows, strict=True)) or [()] * len(kinds)
    for column, kind in zip(columns, kinds, strict=True):
        if not set(map(type, column)) <= {kind} or (kind is int and min(column, default=0) < 0):
            return None
    return columns


def _all_below(counts: tuple[int, ...], limit: int) -> bool:
    return max(counts, default=-1) < limit


def _all_strings(lists: tuple[list[object], ...]) -> bool:
    return set(map(type, chain.from_iterable(lists))) <= {str}


def _field_scales(
    lengths: Sequence[Sequence[int]], fields: tuple[tuple[float, float], ...]
) -> tuple[list[float], ...]:
    """Per field, each row's ``weight / (1 - b + b * (length / average) ** LENGTH_POWER)``."""
    scales = []
    for column_number, (weight, b) in enumerate(fields):
        column = [row[column_number] for row in lengths]
        average = sum(column) / len(column) if column else 0.0
        scales.append(
            [
                weight / (1 - b + b * (length / average) ** LENGTH_POWER) if average else weight
                for length in column
            ]
        )
    return tuple(scales)


def snippet(text: str, weights: Mapping[str, float], length: int = SNIPPET_LENGTH) -> str:
    """About ``length`` characters of ``text`` around its best run of weighted terms."""
    text = " ".join(text.split())
    if len(text) <= length:
        return text
    matches = []
    for match in WORD.finditer(text):
        found = [term for term in word_terms(match.group()) if term in weights]
        if found:
            matches.append((match.start(), max(found, key=weights.__getitem__)))
    start, best = 0, 0.0
    for i, (position, _) in enumerate(matches):
        window_start = max(0, position - length // 5)
        seen = {term for at, term in matches[i:] if at < window_start + length}
        value = sum(weights[term] for term in seen)
        if value > best:
            start, best = window_start, value
    if start:
        start = text.find(" ", start) + 1 or start
    end = min(len(text), start + length)
    if end < len(text):
        end = text.rfind(" ", start, end) if text.rfind(" ", start, end) > start else end
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")
