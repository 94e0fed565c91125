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

Payload layout (``"format": 6``): columns, not rows, so that loading a large
index builds a few dozen Python objects per column instead of one per cell
(numbers are packed into strings, see ``packed``):

- ``pages``: ``{"path": [...], "title": [...]}``, lists of strings, and packed:
  ``language`` (each page's, a number into the payload's ``languages``, whose
  first is the site's main language), ``translation`` (the number of the
  main-language page each page translates, its own if none) and ``notes`` (1
  for release notes, ``index_build.release_notes``).
- ``sections``: ``{"page", "title_terms", "links"}`` packed, and ``{"anchor",
  "title", "breadcrumb", "text"}`` as lists of strings (a breadcrumb's titles
  joined by a tab); ``text`` is capped at ``index_build.TEXT_LIMIT``
  characters (the postings count all of it).
- ``terms``: for each term, its section postings, ``SEPARATOR``, its page
  postings. Section postings are pairs (the section number as the gap from
  the previous one, ``impact << 1 | in_title``); page postings are pairs
  (gap, impact). An impact is the term's saturated BM25F in that section or
  page, ``tf / (K1 + tf)`` (``index_build``), in ``IMPACT_LEVELS`` steps:
  worked out at build time, so a search only adds numbers. Only the question's terms are
  decoded, rarest first; a common one adds only to what the rarer ones found
  (``COMMON_SHARE``), so a search reads few sections even in a large index.
- ``analyzers``: for each of ``languages``, how its pages' words became terms
  (``analyzers.record``); a question is read by its reader's language's, and an
  index whose analyzer this code does not make the same way is refused.
- ``version``: a hash of the sections' full content, so it changes exactly
  when the indexed content does (not when only the ranking code changes).
- ``embeddings`` (built with ``--embeddings`` only): the ``model``, ``dimension``
  and ``codes`` form of the sections' vectors (``sections.vector``), the
  ``roles`` each side was asked on (``embedding_roles``, when set) and the pages'
  ``recall`` clusters (``dense_recall``).
- ``parts`` (a large site only; ``index_build.split_index``): what is shown of
  the sections (``SHOWN``: anchor, title, breadcrumb, text) and the ``terms`` are left
  out of the payload and come in files of their own, ``files`` (part key →
  file name, beside the index): ``text-N`` holds those columns for a run of
  sections (``parts.text``: the first section of each run, packed),
  ``terms-N`` the postings of a run of terms in sorted order (``parts.terms``:
  the first term of each run); with vectors, ``vectors-N`` the codes of a run of
  whole pages (``parts.vectors``, packed) and ``recall-N`` one recall cluster
  (``parts.recall``: how many; their place in ``embeddings.recall`` is null).
  Before a search, the shell
  adds the parts :meth:`DocsIndex.parts_needed` names, so a question fetches
  the few parts it reads instead of the whole index::

      while needed := index.parts_needed(query):
          for key in needed:
              index.add_part(key, fetch_json(index.part_file(key)))
      hits = index.search(query)
"""

from __future__ import annotations

import gc
import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate, compress, repeat
from operator import add, and_, gt, mul, neg
from typing import Any

from docs_panel.core.addresses import page_key, same_language
from docs_panel.core.analyzers import Analyzer, from_record
from docs_panel.core.dense_recall import RECALL_PAGES, Recall
from docs_panel.core.embedding_roles import SIDES, Role, role_from_json
from docs_panel.core.packed import SEPARATOR, unpack
from docs_panel.core.snippets import snippet
from docs_panel.core.text import QueryTerm, Words, terms
from docs_panel.core.vectors import CODES, scorer
from docs_panel.portable.errors import DocsIndexError

FORMAT = 6
#: idf is raised to this power: a rare word still counts most, but one rare
#: word of the question that the answer does not use cannot sink it alone.
IDF_POWER = 0.75
#: Impacts (saturated term frequencies, in [0, 1)) are stored in this many steps:
#: with its title bit, a section's impact fits one byte of UTF-8 (see ``packed``).
IMPACT_LEVELS = 40
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
#: Hybrid retrieval (``search`` with a question vector): the best pages by words that
#: meaning may reorder, and how much a cosine above the last candidate's counts, in
#: units of the most a query could score (chosen on the dev sets, see bench/retrieval.py).
DENSE_PAGES = 10
DENSE_WEIGHT = 0.5
#: A breadcrumb's titles are joined by this in the payload (titles never hold one).
CRUMB = "\t"
#: The section columns only a shown section needs: a split payload has them in parts.
SHOWN = ("anchor", "title", "breadcrumb", "text")
#: A split payload's kinds of part (a part's key is its kind, "-" and its number): the
#: sections' texts, the terms' postings, the sections' vectors and the pages' vectors
#: of a recall cluster (``dense_recall``).
PART_KINDS = ("text", "terms", "vectors", "recall")


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
    if not (isinstance(version, str) and version):
        raise DocsIndexError(f"index.json has no version; {_REBUILD}")
    text_starts, term_starts, vector_starts, recall_parts, files = _parts(payload)
    pages = _table(
        payload, "pages", strings=("path", "title"), packed=("language", "translation", "notes")
    )
    languages = payload.get("languages")
    if not (
        isinstance(languages, list)
        and languages
        and set(map(type, languages)) <= {str}
        and max(pages["language"], default=0) < len(languages)
        and max(pages["translation"], default=0) < len(pages["path"])
    ):
        raise DocsIndexError(f"index.json: 'languages' does not fit the pages; {_REBUILD}")
    analyzers = _analyzers(payload, languages)
    sections = _table(
        payload,
        "sections",
        strings=() if text_starts else SHOWN,
        packed=("page", "title_terms", "links"),
    )
    if text_starts:
        sections |= {name: [None] * len(sections["page"]) for name in SHOWN}
        if text_starts[0] != 0 or text_starts[-1] >= len(sections["page"]):
            raise DocsIndexError(f"index.json: 'parts.text' does not fit the sections; {_REBUILD}")
        if any(map(gt, sections["page"], sections["page"][1:])):  # _page_parts bisects them
            raise DocsIndexError(f"index.json: a page's sections are not together; {_REBUILD}")
    postings = {} if term_starts else payload.get("terms")
    if not isinstance(postings, dict) or not set(map(type, postings.values())) <= {str}:
        raise DocsIndexError(f"index.json: 'terms' must map terms to strings; {_REBUILD}")
    paths: list[str] = pages["path"]
    page_of: list[int] = sections["page"]
    if max(page_of, default=-1) >= len(paths):
        raise DocsIndexError(f"index.json: 'sections' point past the pages; {_REBUILD}")
    model, dimension, codes, roles, recall = _embeddings(payload, len(page_of), len(paths))
    if vector_starts and (not model or vector_starts[-1] >= len(page_of)):
        raise DocsIndexError(f"index.json: 'parts.vectors' does not fit; {_REBUILD}")
    if recall_parts != (recall.clusters.count(None) if recall else 0):
        raise DocsIndexError(f"index.json: 'parts.recall' does not fit; {_REBUILD}")
    page_prior = [CHANGELOG_PRIOR if notes else 1.0 for notes in pages["notes"]]
    link_prior = _link_priors(sections["links"])
    index = DocsIndex(
        version=version,
        _page_titles=pages["title"],
        _columns=sections,
        _by_address={},
        _page_numbers={path: number for number, path in enumerate(paths)},
        _page_paths=paths,
        _page_of=page_of,
        _link_prior=link_prior,
        _prior=[page_prior[page] * link for page, link in zip(page_of, link_prior, strict=True)],
        _postings=postings,
        _page_share=_page_share(len(paths)),
        _languages=languages,
        _analyzers=analyzers,
        embedding_model=model,
        embedding_dimension=dimension,
        embedding_roles=roles,
        _vectors=codes,
        _recall=recall,
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


def _analyzers(payload: dict[str, Any], languages: list[str]) -> list[Analyzer]:
    """Each language's analyzer, as the index records it (``analyzers.record``)."""
    records = payload.get("analyzers")
    if not (isinstance(records, list) and len(records) == len(languages)):
        raise DocsIndexError(f"index.json does not say how its languages were read; {_REBUILD}")
    analyzers = []
    for language, value in zip(languages, records, strict=True):
        try:
            analyzers.append(from_record(value))
        except ValueError as err:
            raise DocsIndexError(
                f"index.json read {language or 'its'} pages with an analyzer this panel does not"
                f" have ({err}); {_REBUILD} from the same release as the panel"
            ) from None
    return analyzers


def _parts(
    payload: dict[str, Any],
) -> tuple[list[int], list[str], list[int], int, dict[str, str]]:
    """A split payload's ``parts``: first sections of the text parts, first terms of the
    term parts, first sections of the vector parts, how many recall parts, and the
    files of all (all empty for a payload in one piece)."""
    parts = payload.get("parts", {})
    recall = parts.get("recall", 0) if isinstance(parts, dict) else None
    vectors = parts.get("vectors", "") if isinstance(parts, dict) else None
    vector_starts = unpack(vectors) if isinstance(vectors, str) else []
    text = parts.get("text", "") if isinstance(parts, dict) else None
    term_starts = parts.get("terms", []) if isinstance(parts, dict) else None
    files = parts.get("files", {}) if isinstance(parts, dict) else None
    text_starts = unpack(text) if isinstance(text, str) else []
    expected = [f"text-{n}" for n in range(len(text_starts))]
    expected += [f"terms-{n}" for n in range(len(term_starts or []))]
    expected += [f"vectors-{n}" for n in range(len(vector_starts))]
    expected += [f"recall-{n}" for n in range(recall if isinstance(recall, int) else 0)]
    if (
        not isinstance(recall, int)
        or isinstance(recall, bool)
        or recall < 0
        or not isinstance(vectors, str)
        or vector_starts != sorted(set(vector_starts))
        or vector_starts[:1] not in ([], [0])
        or not isinstance(text, str)
        or min(text_starts, default=0) < 0
        or text_starts != sorted(set(text_starts))
        or not isinstance(term_starts, list)
        or not set(map(type, term_starts)) <= {str}
        or term_starts != sorted(set(term_starts))
        or not isinstance(files, dict)
        or sorted(files) != sorted(expected)
        or not set(map(type, files.values())) <= {str}
    ):
        raise DocsIndexError(f"index.json: 'parts' is malformed; {_REBUILD}")
    return text_starts, term_starts, vector_starts, recall, files


def _embeddings(
    payload: dict[str, Any], sections: int, pages: int
) -> tuple[str, int, list[str | None], dict[str, Role], Recall | None]:
    """The model and dimension the sections were embedded with, their vector codes
    (None until their part is added), the sides' roles and the pages' recall
    clusters; ``("", 0, [], {}, None)`` for a lexical-only index."""
    embeddings = payload.get("embeddings")
    if embeddings is None:
        return "", 0, [], {}, None
    model = embeddings.get("model") if isinstance(embeddings, dict) else None
    dimension = embeddings.get("dimension") if isinstance(embeddings, dict) else None
    if not (isinstance(model, str) and model and isinstance(dimension, int) and dimension > 0):
        raise DocsIndexError(f"index.json: 'embeddings' is malformed; {_REBUILD}")
    if embeddings.get("codes") != CODES:
        raise DocsIndexError(
            f"index.json: section vectors as {embeddings.get('codes')!r}, not {CODES!r};"
            f" {_REBUILD} from the same release as the panel"
        )
    codes = payload["sections"].get("vector", [None] * sections)
    if not (isinstance(codes, list) and len(codes) == sections):
        raise DocsIndexError(f"index.json: the section vectors do not fit; {_REBUILD}")
    written = embeddings.get("roles", {})
    roles = (
        {side: role_from_json(role) for side, role in written.items()}
        if isinstance(written, dict)
        else None
    )
    if roles is None or not set(roles) <= set(SIDES) or None in roles.values():
        raise DocsIndexError(f"index.json: 'embeddings.roles' is malformed; {_REBUILD}")
    recall = Recall.load(embeddings.get("recall"), pages)
    return model, dimension, codes, {side: role for side, role in roles.items() if role}, recall


def _page_share(pages: int) -> float:
    """The page's share of a section's score on a site of ``pages`` pages (PAGE_SHARES)."""
    small, large = PAGE_SHARES
    growth = math.log(max(pages, SMALL_SITE) / SMALL_SITE) / math.log(LARGE_SITE / SMALL_SITE)
    return small + (large - small) * min(1.0, growth)


def _table(
    payload: dict[str, Any], name: str, *, strings: tuple[str, ...], packed: tuple[str, ...]
) -> dict[str, list[Any]]:
    """The columns of ``payload[name]``, packed ones unpacked, all of one length."""
    table = payload.get(name)
    columns: dict[str, list[Any]] = {}
    if isinstance(table, dict):
        for key in strings:
            column = table.get(key)
            if isinstance(column, list) and set(map(type, column)) <= {str}:
                columns[key] = column
        for key in packed:
            column = table.get(key)
            if isinstance(column, str):
                numbers = unpack(column)
                if min(numbers, default=0) >= 0:
                    columns[key] = numbers
    if len(columns) < len(strings) + len(packed) or len({len(c) for c in columns.values()}) > 1:
        raise DocsIndexError(
            f"index.json: '{name}' must hold the columns {', '.join(strings + packed)}"
            f" of equal length; {_REBUILD}"
        )
    return columns


def _link_priors(links: Sequence[int]) -> list[float]:
    """Per section, ``1 - LINK_WEIGHT`` unlinked up to 1 for the most linked, on a log scale."""
    most = math.log1p(max(links, default=0))
    if not most:
        return [1.0] * len(links)
    return [1 - LINK_WEIGHT * (1 - math.log1p(count) / most) for count in links]


# --- Searching ------------------------------------------------------------


@dataclass(slots=True)
class _Ranking:
    """A search's ``(score, section)`` hits, best first; its terms' weights (for
    snippets); the most the query could score."""

    hits: list[tuple[float, int]]
    weights: dict[str, float]
    best_possible: float
    ranked: list[tuple[float, int]]  # every match by lexical score: (-score, section)
    # The hits fused with each question vector asked with (see ``DocsIndex._fused``).
    fused: dict[tuple[float, ...], list[tuple[float, int]]] = field(default_factory=dict)


class _Tally:
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


@dataclass(frozen=True, slots=True, eq=False)
class DocsIndex:
    """A loaded index: look sections up by address, or search them."""

    version: str
    embedding_model: str  # the model the sections' vectors are from; "" for none
    embedding_dimension: int
    # How each side was (passages) or is to be (questions) asked for; empty: as any text.
    embedding_roles: Mapping[str, Role]
    _page_titles: list[str] = field(repr=False)
    _columns: dict[str, list[Any]] = field(repr=False)  # the payload's section columns
    # Section numbers by address, of the sections whose anchors are in (all, unless split).
    _by_address: dict[str, int] = field(repr=False)
    _page_numbers: Mapping[str, int] = field(repr=False)
    _page_paths: list[str] = field(repr=False)
    _page_of: list[int] = field(repr=False)
    _link_prior: list[float] = field(repr=False)  # per section, a factor on its score
    _prior: list[float] = field(repr=False)  # per section, the same times its page's prior
    _postings: dict[str, str] = field(repr=False)
    _page_share: float = field(repr=False)  # see PAGE_SHARES
    _languages: list[str] = field(repr=False)  # the main one first
    _analyzers: list[Analyzer] = field(repr=False)  # per language, how its pages were read
    _vectors: list[str | None] = field(repr=False)  # per section, its vector code if in
    _vector_starts: list[int] = field(repr=False)  # first section of each vector part
    _recall: Recall | None = field(repr=False)  # the pages' vectors (dense_recall)
    _page_language: list[int] = field(repr=False)  # per page, a number into _languages
    _translation: list[int] = field(repr=False)  # per page, its main-language copy's number
    # A split payload's parts (empty in one piece): see the module doc.
    _text_starts: list[int] = field(repr=False)
    _term_starts: list[str] = field(repr=False)
    _files: Mapping[str, str] = field(repr=False)
    _added: set[str] = field(default_factory=set, repr=False)
    # The last search's ranking, by its arguments: parts_needed ranks to know which
    # texts the hits need, and the search that follows does not rank again.
    _last: dict[tuple[str, str | None, int, str], _Ranking] = field(
        default_factory=dict, repr=False
    )
    _visible: dict[str, frozenset[int] | None] = field(default_factory=dict, repr=False)
    _page_keys: set[str] = field(default_factory=set, repr=False)  # made on first need

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
        if path in self._page_numbers or "#" in path:
            return path in self._page_numbers
        if not self._page_keys:
            self._page_keys.update(map(page_key, self._page_paths))
        return page_key(path) in self._page_keys

    def __len__(self) -> int:
        return len(self._page_of)

    def pages(self) -> list[tuple[str, str]]:
        """Every page's ``(path, title)``, in the index's order."""
        return list(zip(self._page_paths, self._page_titles, strict=True))

    def page_sections(self, address: str) -> list[Section]:
        """The sections of the page ``address`` is on, in reading order (none for a page
        the index lacks; on a split index, once that page's text parts are added)."""
        page = self._page_numbers.get(address.partition("#")[0])
        if page is None:
            return []
        first, end = bisect_left(self._page_of, page), bisect_right(self._page_of, page)
        return [self._section(number) for number in range(first, end)]

    def page_title(self, address: str) -> str | None:
        """The title of the page ``address`` is on, if the index has that page."""
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
        if question_vector is not None and self._vector_starts and self._recall:
            keys = {f"recall-{n}" for n in self._recall.probed(question_vector)}
            if keys - self._added:
                return sorted(keys - self._added)
            lexical = self._ranking(query, prefix, limit, language)
            shown = self._shown(prefix, language)
            found, recalled = self._candidates(lexical.ranked, question_vector, shown)
            keys = {
                f"vectors-{bisect_right(self._vector_starts, n) - 1}"
                for n in self._sections_of(found + recalled)
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
            raise DocsIndexError(f"index.json has no part {key!r}; {_REBUILD}")
        n = int(number)
        if kind == "recall" and self._recall:
            self._recall.add(n, payload)
        elif kind == "vectors":
            start, end = [*self._vector_starts, len(self)][n : n + 2]
            if not (
                isinstance(payload, list)
                and len(payload) == end - start
                and set(map(type, payload)) <= {str}
            ):
                raise DocsIndexError(f"index part {key} does not fit the index; {_REBUILD}")
            self._vectors[start:end] = payload
        elif kind == "text":
            start, end = [*self._text_starts, len(self)][n : n + 2]
            if not (
                isinstance(payload, dict)
                and sorted(payload) == sorted(SHOWN)
                and all(
                    isinstance(column, list)
                    and len(column) == end - start
                    and set(map(type, column)) <= {str}
                    for column in payload.values()
                )
            ):
                raise DocsIndexError(f"index part {key} does not fit the index; {_REBUILD}")
            for name in SHOWN:
                self._columns[name][start:end] = payload[name]
            self._add_addresses(start, end)
        else:
            if not (
                isinstance(payload, dict)
                and set(map(type, payload.values())) <= {str}
                and {self._term_part(term) for term in payload} <= {n}
            ):
                raise DocsIndexError(f"index part {key} does not fit the index; {_REBUILD}")
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
            page_title=self._page_titles[self._page_of[number]],
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
        again by meaning too (``_fused``). A query of only stopwords finds nothing.
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
    ) -> _Ranking:
        """``search``'s hits, before their sections are made (see ``_last``); with a
        ``question_vector``, the lexical ranking's hits fused with it (each kept)."""
        key = (query, prefix, limit, language)
        ranking = self._last.get(key) or self._lexical(key)
        if question_vector is None or not self.embedding_model or not ranking.best_possible:
            return ranking
        vector = tuple(question_vector)
        if vector not in ranking.fused:
            shown = self._shown(prefix, language)
            fused = self._fused(ranking.ranked, vector, ranking.best_possible, shown)
            ranking.fused[vector] = self._crowded(fused, limit)
        return replace(ranking, hits=ranking.fused[vector])

    def _lexical(self, key: tuple[str, str | None, int, str]) -> _Ranking:
        """The ranking by words for ``_ranking``'s arguments, kept as the last one."""
        query, prefix, limit, language = key
        if self._missing_terms(query, language):
            raise DocsIndexError("a search's term parts were not added: see parts_needed")
        asked = self._words_for(language).query_terms(query)
        ranking = _Ranking([], {}, 0.0, [])
        if asked and limit > 0:
            tally = _Tally()
            # Rarest first: the terms that pick the candidates; see COMMON_SHARE.
            for question_term in sorted(asked, key=lambda term: self._count(term.term)):
                ranking.best_possible += self._add_term(question_term, tally, ranking.weights)
            about_changes = not CHANGE_TERMS.isdisjoint(term.term for term in asked)
            ranked = self._rank(
                tally, ranking.best_possible, prefix, self._pages_for(language), about_changes
            )
            ranking.ranked = ranked
            ranking.hits = self._crowded(ranked, limit)
        self._last.clear()
        self._last[key] = ranking
        return ranking

    def _add_term(
        self, question_term: QueryTerm, tally: _Tally, weights: dict[str, float]
    ) -> float:
        """Add a question term's best match (of it or an alias) to ``tally``; return its
        most possible weight."""
        best = 0.0
        found: list[tuple[dict[int, float], dict[int, float], dict[int, float]]] = []
        shares = (1.0,) + (ALIAS_WEIGHT,) * len(question_term.aliases)
        for term, share in zip((question_term.term, *question_term.aliases), shares, strict=True):
            sections, pages = self._decode(term)
            weight = self._idf(len(sections) // 2) * question_term.weight * share
            weights[term] = max(weights.get(term, 0.0), weight)
            best = max(best, weight)
            found.append(self._match(sections, pages, weight))
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

    def _idf(self, count: int) -> float:
        """BM25's inverse document frequency of a term in ``count`` sections."""
        return math.pow(math.log(1 + (len(self) - count + 0.5) / (count + 0.5)), IDF_POWER)

    def _decode(self, term: str) -> tuple[list[int], list[int]]:
        """A term's section and page postings, unpacked (still as gaps)."""
        encoded = self._postings.get(term, "")
        sections, _, pages = encoded.partition(SEPARATOR)
        numbers, page_numbers = unpack(sections), unpack(pages)
        if (
            len(numbers) % 2
            or len(page_numbers) % 2
            or min(numbers, default=0) < 0
            or min(page_numbers, default=0) < 0
            or max(numbers[1::2], default=0) >= 2 * IMPACT_LEVELS
            or max(page_numbers[1::2], default=0) >= IMPACT_LEVELS
            or bool(encoded) != (SEPARATOR in encoded)
        ):
            raise DocsIndexError(f"index.json: the postings of {term!r} are corrupt; {_REBUILD}")
        return numbers, page_numbers

    def _match(
        self, sections: list[int], pages: list[int], weight: float
    ) -> tuple[dict[int, float], dict[int, float], dict[int, float]]:
        """One term's scores: per section, per page, and per section whose title has it."""
        table = [weight * (code >> 1) / IMPACT_LEVELS for code in range(2 * IMPACT_LEVELS)]
        numbers = list(accumulate(sections[0::2]))
        codes = sections[1::2]
        if numbers and numbers[-1] >= len(self):
            raise DocsIndexError(f"index.json: postings point past the sections; {_REBUILD}")
        page_numbers = list(accumulate(pages[0::2]))
        if page_numbers and page_numbers[-1] >= len(self._page_titles):
            raise DocsIndexError(f"index.json: postings point past the pages; {_REBUILD}")
        page_table = table[0::2]
        return (
            dict(zip(numbers, map(table.__getitem__, codes), strict=True)),
            dict(zip(page_numbers, map(page_table.__getitem__, pages[1::2]), strict=True)),
            dict.fromkeys(compress(numbers, map(and_, codes, repeat(1))), weight),
        )

    def _rank(
        self,
        tally: _Tally,
        best_possible: float,
        prefix: str | None,
        pages_shown: frozenset[int] | None,
        about_changes: bool,
    ) -> list[tuple[float, int]]:
        """``(-score, section)`` of every match, best first; scores at most ``best_possible``.

        A section's score blends its BM25F, its page's and how closely its
        heading matches the question, times its priors (release notes only
        when the question is not ``about_changes``).
        """
        pages, page_of = tally.pages, self._page_of
        prior = self._link_prior if about_changes else self._prior
        page_share = self._page_share
        # ((1 - HEADING_SHARE - page_share) * section + page_share * page) * prior,
        # in C-level maps:
        # a common word's search has thousands of candidates.
        numbers = list(tally.sections)
        page_values = map(pages.get, map(page_of.__getitem__, numbers), repeat(0.0))
        blend = map(
            add,
            map(mul, tally.sections.values(), repeat(1 - HEADING_SHARE - page_share)),
            map(mul, page_values, repeat(page_share)),
        )
        scores = dict(zip(numbers, map(mul, blend, map(prior.__getitem__, numbers)), strict=True))
        title_terms = self._columns["title_terms"]
        heading_hits = tally.heading_hits
        for number, weight in tally.heading_weight.items():
            # F1 of "the heading covers the question" and "the heading is the question".
            covered = weight / best_possible
            if not covered:
                continue
            precise = min(1.0, heading_hits[number] / max(1, title_terms[number]))
            f1 = 2 * precise * covered / (precise + covered)
            scores[number] += HEADING_SHARE * best_possible * f1 * prior[number]
        if prefix is not None:  # a scope is a path prefix: "/api/"
            paths, page_of = self._page_paths, self._page_of
            scores = {n: s for n, s in scores.items() if paths[page_of[n]].startswith(prefix)}
        if pages_shown is not None:
            scores = {n: s for n, s in scores.items() if page_of[n] in pages_shown}
        # Ties go to the section that comes first in the site. Sorting negated
        # scores needs no key function: thousands of candidates sort in C.
        return sorted(zip(map(neg, scores.values()), scores, strict=True))

    def _candidates(
        self, ranked: list[tuple[float, int]], vector: Sequence[float], shown: Callable[[int], bool]
    ) -> tuple[list[int], list[int]]:
        """The ``DENSE_PAGES`` best pages of a lexical ranking, and the ``RECALL_PAGES``
        pages closest in meaning among the others ``shown`` (``dense_recall``)."""
        pages: list[int] = []
        for _, number in ranked:
            page = self._page_of[number]
            if page not in pages:
                pages.append(page)
                if len(pages) == DENSE_PAGES:
                    break
        if not self._recall:
            return pages, []
        lexical = set(pages)

        def keep(page: int) -> bool:
            return page not in lexical and shown(page)

        return pages, self._recall.closest(vector, RECALL_PAGES, keep)

    def _sections_of(self, pages: Iterable[int]) -> list[int]:
        """The sections of ``pages``, which are consecutive by page."""
        page_of = self._page_of
        return [
            number
            for page in pages
            for number in range(bisect_left(page_of, page), bisect_right(page_of, page))
        ]

    def _fused(
        self,
        ranked: list[tuple[float, int]],
        vector: Sequence[float],
        best_possible: float,
        shown: Callable[[int], bool],
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
        if len(vector) != self.embedding_dimension:
            raise DocsIndexError(
                f"the question's vector has {len(vector)} dimensions; the index's"
                f" {self.embedding_model} has {self.embedding_dimension}"
            )
        found, recalled = self._candidates(ranked, vector, shown)
        numbers = self._sections_of(found + recalled)
        if not numbers:
            return ranked
        similarity = scorer(vector)
        cosine = {}
        for number in numbers:
            code = self._vectors[number]
            if code is None:
                raise DocsIndexError("a section's vector part was not added: see parts_needed")
            cosine[number] = similarity(code)
        lexical = {number: -negated for negated, number in ranked}
        closest: dict[int, int] = {}  # page -> its section closest in meaning
        best_lexical: dict[int, float] = {}
        for number in numbers:
            page = self._page_of[number]
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

    def _crowded(self, ranked: list[tuple[float, int]], limit: int) -> list[tuple[float, int]]:
        """``(score, section)`` of the first ``limit`` of ``ranked`` (as ``_rank`` gives
        them), each page's best section before any page's second."""
        firsts: list[tuple[float, int]] = []
        others: list[tuple[float, int]] = []
        seen: set[int] = set()
        for negated, number in ranked:
            page = self._page_of[number]
            (others if page in seen else firsts).append((-negated, number))
            seen.add(page)
            if len(firsts) == limit:
                break
        return (firsts + others)[:limit]
