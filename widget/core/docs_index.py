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

- BM25F over a section's fields: a term counts most in its heading, then in
  its page title, then its breadcrumb and its text. Length norms are
  sublinear, so a long reference section is not buried for being long.
- The same over the whole page (title, all headings, all text), because a
  section is a better answer on a page that is about the question.
- How closely the heading itself matches the question.
- Each page's best section comes first; a page's other sections follow the
  best sections of all the other matching pages.

Payload layout (``"format": 1``), in short keys to keep it small:

- ``pages``: ``[path, title, title_terms]`` per page.
- ``sections``: ``[page, anchor, title, breadcrumb, text, title_terms,
  breadcrumb_terms, body_terms]`` per section; ``text`` is capped at
  ``TEXT_LIMIT`` characters (the postings count all of it).
- ``terms``: for each term its postings as one string of numbers,
  ``"gap code gap code …"``: the section number as the gap from the previous
  one, and ``code`` = ``body_count << 3 | in_breadcrumb << 2 | in_page_title
  << 1 | in_title``. Strings, because parsing one string is far cheaper than
  parsing a JSON list of numbers, and only the query's terms are ever decoded.
- ``version``: a hash of the sections' full content, so it changes exactly
  when the indexed content does (not when only the ranking code changes).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from widget.core.errors import DocsIndexError
from widget.core.text import WORD, terms, word_terms

FORMAT = 1
#: Characters of a section's text kept in the payload (for snippets and prompts).
TEXT_LIMIT = 1500
SNIPPET_LENGTH = 200

# BM25F: a term's counts in all fields, each scaled by the field's weight over
# its length norm, add up before saturating (k1), so a term in both heading and
# text is not counted twice at full strength.
K1 = 1.2
#: (weight, BM25's b) of a section's title, page title, breadcrumb and text.
SECTION_FIELDS = ((3.0, 0.3), (2.0, 0.3), (1.0, 0.3), (1.0, 0.75))
#: (weight, b) of a page's title, all its headings, all its text.
PAGE_FIELDS = ((2.0, 0.3), (1.0, 0.5), (1.0, 0.75))
#: Length norms use (length / average) ** LENGTH_POWER: sublinear, see above.
LENGTH_POWER = 0.5
#: Shares of the final score: the section's BM25F, its page's, its heading match.
SECTION_SHARE, PAGE_SHARE, HEADING_SHARE = 0.4, 0.5, 0.1
_TITLE, _PAGE, _CRUMBS, _BODY = range(4)


@dataclass(frozen=True, slots=True)
class Section:
    """One heading's part of a page: the unit the panel retrieves and cites.

    ``address`` is the page's site-root path plus the heading's anchor
    (``/library/json.html#basic-usage``; the page top has no anchor);
    ``breadcrumb`` holds the titles of the headings above this one, below the
    page title.
    """

    address: str
    page_title: str
    title: str
    text: str
    breadcrumb: tuple[str, ...] = ()

    @property
    def page(self) -> str:
        """The address without its anchor."""
        return self.address.partition("#")[0]


@dataclass(frozen=True, slots=True)
class Hit:
    """A search result.

    ``score`` lies in [0, 1]: the section's ranking score divided by the most
    the query could score, as if every query term (including words the docs
    never use) were matched as strongly as saturation allows. Read it as "how
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
            postings[term].append(counts.get(term, 0) << 3 | flags.get(term, 0))
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
    """``[section, code, …]`` as a string, each section number as its gap from the last."""
    gaps = pairs[:]
    for i in range(len(gaps) - 2, 0, -2):
        gaps[i] -= gaps[i - 2]
    return " ".join(map(str, gaps))


def _version(sections: list[Section]) -> str:
    canonical = json.dumps(
        [[s.address, s.page_title, s.title, list(s.breadcrumb), s.text] for s in sections],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:20]


class _Tally:
    """What one search accumulates over the query's postings."""

    __slots__ = ("heading_hits", "heading_weight", "pages", "sections")

    def __init__(self) -> None:
        self.sections: dict[int, float] = {}  # section -> BM25F
        self.pages: dict[int, float] = {}  # page -> BM25F
        self.heading_weight: dict[int, float] = {}  # section -> idf of terms in its title
        self.heading_hits: dict[int, int] = {}  # section -> query terms in its title


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
        page, _, title, breadcrumb, text, *_ = self._rows[number]
        return Section(
            address=self._addresses[number],
            page_title=self._pages[page][1],
            title=title,
            text=text,
            breadcrumb=tuple(breadcrumb),
        )

    def search(self, query: str, *, prefix: str | None = None, limit: int = 8) -> list[Hit]:
        """The ``limit`` best sections for ``query``: each matching page's best
        section by score, then the pages' further sections (so the first hit
        has the top score, and a few results span several pages).

        Only sections whose address starts with ``prefix`` when given (a scope
        such as ``/api/``). A query of only stopwords finds nothing.
        """
        wanted = list(dict.fromkeys(terms(query)))
        if not wanted or limit <= 0:
            return []
        tally = _Tally()
        weights: dict[str, float] = {}
        for term in wanted:
            postings = self._decode(term)
            weights[term] = self._idf(len(postings) // 2)
            self._accumulate(postings, weights[term], tally)
        best_possible = sum(weights.values())
        scored = self._rank(tally, best_possible, prefix)
        hits = []
        for negated, number in self._crowded(scored, limit):
            section = self._section(number)
            score = min(1.0, -negated / best_possible)
            hits.append(Hit(section, score, snippet(section.text, weights)))
        return hits

    def _idf(self, count: int) -> float:
        """BM25's inverse document frequency of a term in ``count`` sections (> 0)."""
        return math.log(1 + (len(self._rows) - count + 0.5) / (count + 0.5))

    def _decode(self, term: str) -> list[int]:
        encoded = self._postings.get(term, "")
        try:
            numbers = list(map(int, encoded.split()))
        except ValueError:
            numbers = [-1]
        if len(numbers) % 2:
            raise DocsIndexError(f"index.json: the postings of {term!r} are corrupt; {_REBUILD}")
        return numbers

    def _accumulate(self, postings: list[int], idf: float, tally: _Tally) -> None:
        """Add one term's contributions to the sections and pages it is in."""
        title, page_title, crumbs, body = self._section_scales
        page_of = self._page_of
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
                    tally.heading_weight[number] = tally.heading_weight.get(number, 0.0) + idf
                    tally.heading_hits[number] = tally.heading_hits.get(number, 0) + 1
                if code & 2:
                    tf += page_title[number]
                if code & 4:
                    tf += crumbs[number]
                tally.sections[number] = tally.sections.get(number, 0.0) + idf * tf / (K1 + tf)
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
            tally.pages[page] = tally.pages.get(page, 0.0) + idf * tf / (K1 + tf)

    def _rank(
        self, tally: _Tally, best_possible: float, prefix: str | None
    ) -> list[tuple[float, int]]:
        """``(-score, section)`` of every match, best first; scores at most ``best_possible``.

        A section's score blends its BM25F, its page's and how closely its
        heading matches the question.
        """
        pages = tally.pages
        heading_weight, heading_hits = tally.heading_weight, tally.heading_hits
        page_of, title_terms, addresses = self._page_of, self._title_terms, self._addresses
        scored = []
        for number, value in tally.sections.items():
            if prefix is not None and not addresses[number].startswith(prefix):
                continue
            score = SECTION_SHARE * value + PAGE_SHARE * pages[page_of[number]]
            covered = heading_weight.get(number, 0.0) / best_possible
            if covered:
                # F1 of "the heading covers the question" and "the heading is the question".
                precise = min(1.0, heading_hits[number] / max(1, title_terms[number]))
                score += HEADING_SHARE * best_possible * 2 * precise * covered / (precise + covered)
            scored.append((-score, number))
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
    if not isinstance(pages, list) or not all(_is_page_row(row) for row in pages):
        raise DocsIndexError(f"index.json: 'pages' must be [path, title, terms] rows; {_REBUILD}")
    if not isinstance(rows, list) or not all(_is_section_row(row, len(pages)) for row in rows):
        raise DocsIndexError(
            "index.json: 'sections' must be [page, anchor, title, breadcrumb, text,"
            f" title_terms, breadcrumb_terms, body_terms] rows; {_REBUILD}"
        )
    if not isinstance(postings, dict) or not all(
        isinstance(term, str) and isinstance(encoded, str) for term, encoded in postings.items()
    ):
        raise DocsIndexError(f"index.json: 'terms' must map terms to strings; {_REBUILD}")
    page_of = [row[0] for row in rows]
    addresses = [pages[row[0]][0] + (f"#{row[1]}" if row[1] else "") for row in rows]
    by_address = {address: number for number, address in enumerate(addresses)}
    section_lengths = [(row[5], pages[row[0]][2], row[6], row[7]) for row in rows]
    page_lengths = [[row[2], 0, 0] for row in pages]
    for row in rows:
        page_lengths[row[0]][1] += row[5]
        page_lengths[row[0]][2] += row[7]
    return DocsIndex(
        version=version,
        _pages=pages,
        _rows=rows,
        _addresses=addresses,
        _by_address=by_address,
        _page_paths=frozenset(row[0] for row in pages),
        _page_of=page_of,
        _title_terms=[row[5] for row in rows],
        _postings=postings,
        _section_scales=_field_scales(section_lengths, SECTION_FIELDS),
        _page_scales=_field_scales(page_lengths, PAGE_FIELDS),
    )


def _is_page_row(row: object) -> bool:
    return (
        isinstance(row, list)
        and len(row) == 3
        and isinstance(row[0], str)
        and isinstance(row[1], str)
        and _is_count(row[2])
    )


def _is_section_row(row: object, page_count: int) -> bool:
    return (
        isinstance(row, list)
        and len(row) == 8
        and _is_count(row[0])
        and row[0] < page_count
        and isinstance(row[1], str)
        and isinstance(row[2], str)
        and isinstance(row[3], list)
        and all(isinstance(title, str) for title in row[3])
        and isinstance(row[4], str)
        and all(_is_count(count) for count in row[5:])
    )


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


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
