"""The docs index: built once by ``build.py``, loaded and searched in the worker.

``index_build.build_index`` turns sections into a JSON-able payload (written
as ``index.json``); ``load_index`` reads it back without re-tokenizing
anything; ``DocsIndex.search`` ranks sections for a question.

    >>> from docs_panel.build.index_build import build_index
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
Ranking is ``index_ranking``'s (BM25F over sections and pages, priors, each
page's best section first); a question vector reorders the best pages by
meaning (``index_fusion``); the payload's layout, its parts fetched on demand
on a large site, and the refusal of a payload this code cannot read are
``index_format``'s. This module is their public face: it decides which parts a
question needs and makes the sections it returns; it never ranks itself.
"""

from __future__ import annotations

import gc
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, count, repeat
from typing import Any

from docs_panel.core.addresses import page_key, same_language
from docs_panel.core.analyzers import Analyzer
from docs_panel.core.embedding_roles import Role
from docs_panel.core.index_format import (
    CRUMB,
    FORMAT,
    PAGE_TITLES,
    REBUILD,
    SHOWN,
    postings_of,
    read_analyzers,
    read_embeddings,
    read_parts,
    read_table,
)
from docs_panel.core.index_fusion import VectorTable, candidates, fused, sections_of
from docs_panel.core.index_ranking import (
    ALIAS_WEIGHT,
    CHANGE_TERMS,
    CHANGELOG_PRIOR,
    COMMON_LEAST,
    COMMON_SHARE,
    Priors,
    Ranking,
    SectionTable,
    Tally,
    crowded,
    idf,
    match,
    page_share,
    rank,
)
from docs_panel.core.packed import SEPARATOR
from docs_panel.core.snippets import snippet
from docs_panel.core.text import QueryTerm, Words
from docs_panel.portable.errors import DocsIndexError


@dataclass(frozen=True, slots=True)
class Section:
    """One heading's part of a page: the unit the panel retrieves and cites.

    ``address`` is the page's site-root path plus the heading's anchor
    (``/library/json.html#basic-usage``; the page top has no anchor);
    ``breadcrumb`` holds the titles of the headings above this one, below the
    page title. ``links`` counts the other pages that link to this section
    (the extractor fills it in): docs cross-reference their canonical entries,
    so it tells ``functions.html#round`` from the many other entries named round.
    ``keywords`` are the site's own index entries pointing here ("walrus
    operator" for the paragraph on assignment expressions): indexed for
    search, not kept in the payload, so a loaded section has none.
    """

    address: str
    page_title: str
    title: str
    text: str
    breadcrumb: tuple[str, ...] = ()
    links: int = 0
    keywords: tuple[str, ...] = ()
    language: str = ""

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
    (at most about ``snippets.SNIPPET_LENGTH`` characters) around the best-matching words.
    """

    section: Section
    score: float
    snippet: str


# --- Loading --------------------------------------------------------------


def load_index(payload: object) -> DocsIndex:
    """Read a payload made by :func:`build_index` (already parsed from JSON)."""
    if not isinstance(payload, dict):
        raise DocsIndexError(f"index.json must hold a JSON object; {REBUILD}")
    if payload.get("format") != FORMAT:
        raise DocsIndexError(
            f"index.json has format {payload.get('format')!r} but this panel reads format"
            f" {FORMAT}; {REBUILD} from the same release as the panel"
        )
    version = payload.get("version")
    if not (isinstance(version, str) and version):
        raise DocsIndexError(f"index.json has no version; {REBUILD}")
    text_starts, term_starts, vector_starts, recall_parts, files = read_parts(payload)
    pages = read_table(
        payload,
        "pages",
        strings=("path",) if text_starts else ("path", "title"),
        packed=("language", "translation", "sections", "notes"),
    )
    languages = payload.get("languages")
    if not (
        isinstance(languages, list)
        and languages
        and set(map(type, languages)) <= {str}
        and max(pages["language"], default=0) < len(languages)
        and max(pages["translation"], default=0) < len(pages["path"])
    ):
        raise DocsIndexError(f"index.json: 'languages' does not fit the pages; {REBUILD}")
    analyzers = read_analyzers(payload, languages)
    sections = read_table(
        payload,
        "sections",
        strings=() if text_starts else SHOWN,
        packed=("title_terms", "links"),
    )
    # A page's sections come together, so the pages' counts say each section's page.
    page_of = list(chain.from_iterable(map(repeat, count(), pages["sections"])))
    if len(page_of) != len(sections["links"]):
        raise DocsIndexError(
            f"index.json: the pages' 'sections' do not add up to the sections; {REBUILD}"
        )
    if text_starts:
        sections |= {name: [None] * len(page_of) for name in SHOWN}
        if text_starts[0] != 0 or text_starts[-1] >= len(page_of):
            raise DocsIndexError(f"index.json: 'parts.text' does not fit the sections; {REBUILD}")
    postings = {} if term_starts else payload.get("terms")
    if not isinstance(postings, dict) or not set(map(type, postings.values())) <= {str}:
        raise DocsIndexError(f"index.json: 'terms' must map terms to strings; {REBUILD}")
    paths: list[str] = pages["path"]
    model, dimension, codes, roles, recall = read_embeddings(payload, len(page_of), len(paths))
    if vector_starts and (not model or vector_starts[-1] >= len(page_of)):
        raise DocsIndexError(f"index.json: 'parts.vectors' does not fit; {REBUILD}")
    if recall_parts != (recall.clusters.count(None) if recall else 0):
        raise DocsIndexError(f"index.json: 'parts.recall' does not fit; {REBUILD}")
    page_prior = [CHANGELOG_PRIOR if notes else 1.0 for notes in pages["notes"]]
    index = DocsIndex(
        version=version,
        _page_titles=pages.get("title") or [None] * len(paths),
        _columns=sections,
        _by_address={},
        _page_numbers={path: number for number, path in enumerate(paths)},
        _page_paths=paths,
        _page_of=page_of,
        _ranked_by=SectionTable(
            page_of=page_of,
            priors=Priors.of(sections["links"], page_prior, page_of),
            title_terms=sections["title_terms"],
            page_paths=paths,
            page_share=page_share(len(paths)),
        ),
        _postings=postings,
        _languages=languages,
        _analyzers=analyzers,
        embedding_model=model,
        embedding_dimension=dimension,
        embedding_roles=roles,
        _vectors=VectorTable(model, dimension, codes, page_of, recall),
        _vector_starts=vector_starts,
        _page_language=pages["language"],
        _translation=pages["translation"],
        _text_starts=text_starts,
        _term_starts=term_starts,
        _files=files,
    )
    if not text_starts:
        index._add_addresses(0, len(page_of))
    # The index lives as long as the worker: its objects are moved out of the
    # cyclic collector's reach, or a collection that happens to fall in a
    # search walks all of them (in Pyodide, a search then took 200+ ms). No
    # collection first: it walked the whole heap, 35 ms on a cold start and 100 on
    # a warm one (whose heap comes from the memory copy), to spare a few kilobytes.
    gc.freeze()
    return index


@dataclass(frozen=True, slots=True, eq=False)
class DocsIndex:
    """A loaded index: look sections up by address, or search them."""

    version: str
    embedding_model: str  # the model the sections' vectors are from; "" for none
    embedding_dimension: int
    # How each side was (passages) or is to be (questions) asked for; empty: as any text.
    embedding_roles: Mapping[str, Role]
    _page_titles: list[str | None] = field(repr=False)  # a split index's come with texts
    _columns: dict[str, list[Any]] = field(repr=False)  # the payload's section columns
    # Section numbers by address, of the sections whose anchors are in (all, unless split).
    _by_address: dict[str, int] = field(repr=False)
    _page_numbers: Mapping[str, int] = field(repr=False)
    _page_paths: list[str] = field(repr=False)
    _page_of: list[int] = field(repr=False)
    _ranked_by: SectionTable = field(repr=False)  # what ranking reads of every section
    _postings: dict[str, str] = field(repr=False)
    _languages: list[str] = field(repr=False)  # the main one first
    _analyzers: list[Analyzer] = field(repr=False)  # per language, how its pages were read
    _vectors: VectorTable = field(repr=False)  # per section, its vector code if in
    _vector_starts: list[int] = field(repr=False)  # first section of each vector part
    _page_language: list[int] = field(repr=False)  # per page, a number into _languages
    _translation: list[int] = field(repr=False)  # per page, its main-language copy's number
    # A split payload's parts (empty in one piece): see the module doc.
    _text_starts: list[int] = field(repr=False)
    _term_starts: list[str] = field(repr=False)
    _files: Mapping[str, str] = field(repr=False)
    _added: set[str] = field(default_factory=set, repr=False)
    # The last search's ranking, by its arguments: parts_needed ranks to know which
    # texts the hits need, and the search that follows does not rank again.
    _last: dict[tuple[str, str | None, int, str], Ranking] = field(default_factory=dict, repr=False)
    _visible: dict[str, frozenset[int] | None] = field(default_factory=dict, repr=False)
    # Each page by its page key (``addresses.page_key``): made on first need.
    _by_page_key: dict[str, int] = field(default_factory=dict, repr=False)

    def lookup(self, address: str) -> Section | None:
        """The section at ``address`` ("/page.html#anchor"), if the index has it (on a
        split index, once ``parts_needed(…, addresses=[address])`` parts are added)."""
        number = self._by_address.get(address)
        if number is None and self._page_parts(address) - self._added:
            raise DocsIndexError("a page's text parts were not added: see parts_needed")
        return None if number is None else self._section(number)

    def has_page(self, path: str) -> bool:
        """Whether the page ``path`` (an address without anchor) is in the index, however
        the site spells it (``/docs/install``, ``/docs/install/``, ``…/index.html``)."""
        return self._page_number(path) is not None

    def _page_number(self, path: str) -> int | None:
        """The number of the page ``path`` names, however the site spells it."""
        if path in self._page_numbers or "#" in path:
            return self._page_numbers.get(path)
        if not self._by_page_key:
            for number, other in enumerate(self._page_paths):
                self._by_page_key.setdefault(page_key(other), number)
        return self._by_page_key.get(page_key(path))

    def reader_language(self, declared: str, path: str) -> str:
        """The language a reader on the page ``path`` reads: the one its ``<html lang>``
        declared, else the one the build read that page in (a site whose languages are
        only folders), else "" (the site's main language)."""
        page = None if declared else self._page_number(path)
        if page is None:
            return declared
        language = self._page_language[page]
        return self._languages[language] if language else ""  # the main one is ""

    def __len__(self) -> int:
        return len(self._page_of)

    def pages(self) -> list[tuple[str, str]]:
        """Every page's ``(path, title)``, in the index's order (on a split index, once
        every text part is added: a server adds them all)."""
        titles = self._page_titles
        if None in titles:
            raise DocsIndexError("a split index's page titles come with its text parts: add them")
        return list(zip(self._page_paths, titles, strict=True))  # type: ignore[arg-type]

    def page_sections(self, address: str) -> list[Section]:
        """The sections of the page ``address`` is on, in reading order (none for a page
        the index lacks; on a split index, once that page's text parts are added)."""
        page = self._page_numbers.get(address.partition("#")[0])
        if page is None:
            return []
        first, end = bisect_left(self._page_of, page), bisect_right(self._page_of, page)
        return [self._section(number) for number in range(first, end)]

    def page_title(self, address: str) -> str | None:
        """The title of the page ``address`` is on, if the index has that page (on a split
        index, None until a text part of that page is added, see ``parts_needed``)."""
        page = self._page_numbers.get(address.partition("#")[0])
        return None if page is None else self._page_titles[page]

    def parts_needed(
        self,
        query: str,
        *,
        prefix: str | None = None,
        limit: int = 8,
        language: str = "",
        addresses: Iterable[str] = (),
        question_vector: Sequence[float] | None = None,
    ) -> list[str]:
        """The parts to add before ``search(query, prefix=…, limit=…)`` and ``lookup`` of
        each of ``addresses`` can run (none for a payload in one piece): the postings of
        the query's terms first; once those are in, with a ``question_vector``, the
        vectors of the candidate pages' sections (``DENSE_PAGES``); then the texts of
        the sections found."""
        missing = self._missing_terms(query, language)
        if missing or not self._text_starts:
            return missing
        if question_vector is not None and self._vector_starts and self._vectors.recall:
            keys = {f"recall-{n}" for n in self._vectors.recall.probed(question_vector)}
            if keys - self._added:
                return sorted(keys - self._added)
            lexical = self._ranking(query, prefix, limit, language)
            shown = self._shown(prefix, language)
            found, recalled = candidates(
                lexical.ranked, question_vector, shown, self._page_of, self._vectors.recall
            )
            keys = {
                f"vectors-{bisect_right(self._vector_starts, n) - 1}"
                for n in sections_of(found + recalled, self._page_of)
            }
            if keys - self._added:
                return sorted(keys - self._added)
        ranking = self._ranking(query, prefix, limit, language, question_vector)
        numbers = [number for _, number in ranking.hits]
        keys = {f"text-{bisect_right(self._text_starts, n) - 1}" for n in numbers}
        keys.update(key for address in addresses for key in self._page_parts(address))
        return sorted(keys - self._added)

    def _page_parts(self, address: str) -> set[str]:
        """The text parts that hold the anchors of the page ``address`` is on (its
        sections are consecutive); none for a payload in one piece or another site's page."""
        page = self._page_numbers.get(address.partition("#")[0])
        if page is None or not self._text_starts:
            return set()
        starts = self._text_starts
        first = bisect_right(starts, bisect_left(self._page_of, page)) - 1
        last = bisect_right(starts, bisect_right(self._page_of, page) - 1)
        return {f"text-{n}" for n in range(first, last)}

    def _add_addresses(self, start: int, end: int) -> None:
        """Index sections ``start``…``end - 1`` by address, now that their anchors are in."""
        paths, page_of, anchors = self._page_paths, self._page_of, self._columns["anchor"]
        for number in range(start, end):
            path = paths[page_of[number]]
            self._by_address[f"{path}#{anchors[number]}" if anchors[number] else path] = number

    def part_keys(self) -> tuple[str, ...]:
        """Every part of a split index (none for a whole one): a server adds them all."""
        return tuple(self._files)

    def part_file(self, key: str) -> str:
        """The file (beside the index) that holds part ``key``."""
        return self._files[key]

    def add_part(self, key: str, payload: object) -> None:
        """Add part ``key`` (a name :meth:`parts_needed` gave), parsed from its file."""
        kind, _, number = key.partition("-")
        if key not in self._files:
            raise DocsIndexError(f"index.json has no part {key!r}; {REBUILD}")
        n = int(number)
        if kind == "recall" and self._vectors.recall:
            self._vectors.recall.add(n, payload)
        elif kind == "vectors":
            start, end = [*self._vector_starts, len(self)][n : n + 2]
            if not (
                isinstance(payload, list)
                and len(payload) == end - start
                and set(map(type, payload)) <= {str}
            ):
                raise DocsIndexError(f"index part {key} does not fit the index; {REBUILD}")
            self._vectors.codes[start:end] = payload
        elif kind == "text":
            start, end = [*self._text_starts, len(self)][n : n + 2]
            first, last = self._page_of[start], self._page_of[end - 1] + 1
            lengths = dict.fromkeys(SHOWN, end - start) | {PAGE_TITLES: last - first}
            if not (
                isinstance(payload, dict)
                and sorted(payload) == sorted(lengths)
                and all(
                    isinstance(column, list)
                    and len(column) == lengths[name]
                    and set(map(type, column)) <= {str}
                    for name, column in payload.items()
                )
            ):
                raise DocsIndexError(f"index part {key} does not fit the index; {REBUILD}")
            for name in SHOWN:
                self._columns[name][start:end] = payload[name]
            self._page_titles[first:last] = payload[PAGE_TITLES]
            self._add_addresses(start, end)
        else:
            if not (
                isinstance(payload, dict)
                and set(map(type, payload.values())) <= {str}
                and {self._term_part(term) for term in payload} <= {n}
            ):
                raise DocsIndexError(f"index part {key} does not fit the index; {REBUILD}")
            self._postings.update(payload)
        self._added.add(key)

    def _missing_terms(self, query: str, language: str) -> list[str]:
        """The term parts not added yet that hold the postings of ``query``'s terms."""
        if not self._term_starts:
            return []
        asked = self._words_for(language).query_terms(query)
        words = {word for term in asked for word in (term.term, *term.aliases)}
        return sorted({f"terms-{self._term_part(word)}" for word in words} - self._added)

    def _term_part(self, term: str) -> int:
        return max(0, bisect_right(self._term_starts, term) - 1)

    def _section(self, number: int) -> Section:
        """Sections are made when asked for: most of a big index is never shown."""
        columns = self._columns
        crumbs = columns["breadcrumb"][number]
        text = columns["text"][number]
        if text is None:
            raise DocsIndexError("a section's text part was not added: see parts_needed")
        path, anchor = self._page_paths[self._page_of[number]], columns["anchor"][number]
        return Section(
            address=f"{path}#{anchor}" if anchor else path,
            page_title=self._page_titles[self._page_of[number]] or "",
            title=columns["title"][number],
            text=text,
            breadcrumb=tuple(crumbs.split(CRUMB)) if crumbs else (),
            links=columns["links"][number],
            language=self._languages[self._page_language[self._page_of[number]]],
        )

    def search(
        self,
        query: str,
        *,
        prefix: str | None = None,
        limit: int = 8,
        language: str = "",
        question_vector: Sequence[float] | None = None,
    ) -> list[Hit]:
        """The ``limit`` best sections for ``query``: each matching page's best
        section by score, then the pages' further sections (so the first hit
        has the top score, and a few results span several pages).

        Only sections whose address starts with ``prefix`` when given (a scope
        such as ``/api/``). On a site in several languages, only the pages a reader
        of ``language`` (a BCP 47 tag; "" for the main language) reads: those in
        it, and the main language's pages it has no translation of. With a
        ``question_vector`` (the question embedded by ``embedding_model``, unit
        length) on an index with vectors, the ``DENSE_PAGES`` best pages are ranked
        again by meaning too (``index_fusion.fused``). A query of only stopwords finds nothing.
        """
        ranking = self._ranking(query, prefix, limit, language, question_vector)
        words = self._words_for(language)
        hits = []
        for value, number in ranking.hits:
            section = self._section(number)
            score = min(1.0, value / ranking.best_possible)
            hits.append(Hit(section, score, snippet(section.text, ranking.weights, words)))
        return hits

    def _ranking(
        self,
        query: str,
        prefix: str | None,
        limit: int,
        language: str,
        question_vector: Sequence[float] | None = None,
    ) -> Ranking:
        """``search``'s hits, before their sections are made (see ``_last``); with a
        ``question_vector``, the lexical ranking's hits fused with it (each kept)."""
        key = (query, prefix, limit, language)
        ranking = self._last.get(key) or self._lexical(key)
        if question_vector is None or not self.embedding_model or not ranking.best_possible:
            return ranking
        vector = tuple(question_vector)
        if vector not in ranking.fused:
            shown = self._shown(prefix, language)
            reordered = fused(ranking.ranked, vector, ranking.best_possible, shown, self._vectors)
            ranking.fused[vector] = crowded(reordered, limit, self._page_of)
        return replace(ranking, hits=ranking.fused[vector])

    def _lexical(self, key: tuple[str, str | None, int, str]) -> Ranking:
        """The ranking by words for ``_ranking``'s arguments, kept as the last one."""
        query, prefix, limit, language = key
        if self._missing_terms(query, language):
            raise DocsIndexError("a search's term parts were not added: see parts_needed")
        asked = self._words_for(language).query_terms(query)
        ranking = Ranking([], {}, 0.0, [])
        if asked and limit > 0:
            tally = Tally()
            # Rarest first: the terms that pick the candidates; see COMMON_SHARE.
            for question_term in sorted(asked, key=lambda term: self._count(term.term)):
                ranking.best_possible += self._add_term(question_term, tally, ranking.weights)
            about_changes = not CHANGE_TERMS.isdisjoint(term.term for term in asked)
            ranked = rank(
                tally,
                ranking.best_possible,
                prefix,
                self._pages_for(language),
                about_changes,
                self._ranked_by,
            )
            ranking.ranked = ranked
            ranking.hits = crowded(ranked, limit, self._page_of)
        self._last.clear()
        self._last[key] = ranking
        return ranking

    def _add_term(self, question_term: QueryTerm, tally: Tally, weights: dict[str, float]) -> float:
        """Add a question term's best match (of it or an alias) to ``tally``; return its
        most possible weight."""
        best = 0.0
        found: list[tuple[dict[int, float], dict[int, float], dict[int, float]]] = []
        shares = (1.0,) + (ALIAS_WEIGHT,) * len(question_term.aliases)
        for term, share in zip((question_term.term, *question_term.aliases), shares, strict=True):
            sections, pages = postings_of(self._postings.get(term, ""), term)
            weight = idf(len(sections) // 2, len(self)) * question_term.weight * share
            weights[term] = max(weights.get(term, 0.0), weight)
            best = max(best, weight)
            found.append(match(sections, pages, weight, len(self), len(self._page_paths)))
        first, *others = found
        for other in others:  # dis-max: per section and page, the better of term and alias
            for mine, theirs in zip(first, other, strict=True):
                for key, value in theirs.items():
                    if value > mine.get(key, 0.0):
                        mine[key] = value
        common = self._count(question_term.term) > max(COMMON_SHARE * len(self), COMMON_LEAST)
        tally.add(*first, common=common)
        return best

    def _count(self, term: str) -> int:
        """How many sections have ``term`` (each posting takes two characters)."""
        return max(0, self._postings.get(term, "").find(SEPARATOR)) // 2

    def _words_for(self, language: str) -> Words:
        """How a question of a reader of ``language`` is read: as the index read the pages
        in it, or in the main language if it has none."""
        number = next(
            (n for n, name in enumerate(self._languages) if same_language(language, name)), 0
        )
        return self._analyzers[number].words

    def _shown(self, prefix: str | None, language: str) -> Callable[[int], bool]:
        """Whether a page is in the scope ``prefix`` and read in ``language`` (``search``)."""
        paths, visible = self._page_paths, self._pages_for(language)
        return lambda page: (
            (prefix is None or paths[page].startswith(prefix))
            and (visible is None or page in visible)
        )

    def _pages_for(self, language: str) -> frozenset[int] | None:
        """The pages a reader of ``language`` is shown (see ``search``); None for all."""
        if len(self._languages) < 2:
            return None
        if language not in self._visible:
            wanted = {n for n, name in enumerate(self._languages) if same_language(language, name)}
            wanted = wanted or {0}
            own = self._page_language
            translated = {self._translation[page] for page, n in enumerate(own) if n in wanted}
            self._visible[language] = frozenset(
                page
                for page, n in enumerate(own)
                if n in wanted or (n == 0 and page not in translated)
            )
        return self._visible[language]
