"""Sections to the docs index's payload (``index.json``), at build time.

Decides what each term's postings hold: its saturated BM25F in each section
and page, worked out here once so that a search in the worker only adds
numbers (the payload's layout is described in ``index_format``, the ranking in
``index_ranking``); and, for a large site, splits the payload
into a head and parts fetched on demand (``split_index``). Never runs in the
worker.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from operator import sub
from typing import Any

from docs_panel.core.addresses import translation_key
from docs_panel.core.analyzers import Analyzer, analyzer, record
from docs_panel.core.dense_recall import recall_payload
from docs_panel.core.docs_index import Section
from docs_panel.core.embedding_roles import Role, role_to_json
from docs_panel.core.index_format import CRUMB, FORMAT, IMPACT_LEVELS, PAGE_TITLES, SHOWN
from docs_panel.core.packed import SEPARATOR, pack, unpack
from docs_panel.core.vectors import CODES

#: Release notes and changelogs, wherever a site keeps them: by their path, or a
#: blog post (or news item) whose address or title names a version ("Prettier 3.1:
#: …" at ``/blog/2023/11/13/3.1.0/``). The ranking counts them for less.
RELEASE_NOTES = re.compile(
    r"(?:^|/)(?:whats-?new|changelog|changes|release-?notes|releases|news)(?:/|[.-]|$)",
    re.IGNORECASE,
)
_POSTS = re.compile(r"(?:^|/)(?:blog|posts?|news)/", re.IGNORECASE)
_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)?(?![\w.])")

#: Characters of a section's text kept in the payload (for snippets and prompts).
TEXT_LIMIT = 600
#: A site whose sections' texts, or whose postings, take more than ``SPLIT_BYTES``
#: of JSON gets them in parts of about ``PART_BYTES`` (``split_index``): a question
#: fetches the few parts it reads, where one file would make the reader wait for
#: all of the Python docs' 7.8 MB before the first answer. Below that, the round
#: trips for parts would cost more than the bytes they save. A question reads about
#: ten parts whatever their size (one per word, one per hit), so small parts cost
#: no more requests and send fewer bytes per question.
SPLIT_BYTES = 512 * 1024
PART_BYTES = 16 * 1024
#: A split index's section vectors come in runs of whole pages of about this many
#: bytes: a question fetches the vectors of its candidate pages only.
VECTOR_PART_BYTES = 4 * 1024

# BM25F: a term's counts in all fields, each scaled by the field's weight over
# its length norm, add up before saturating (k1), so a term in both heading and
# text is not counted twice at full strength.
K1 = 1.2
#: (weight, BM25's b) of a section's title, keywords, page title, breadcrumb
#: and text (the order of ``section_fields``).
SECTION_FIELDS = ((3.0, 0.3), (2.0, 0.3), (2.0, 0.3), (1.0, 0.3), (1.0, 0.75))
#: (weight, b) of a page's title, all its headings, all its text.
PAGE_FIELDS = ((2.0, 0.3), (1.0, 0.5), (1.0, 0.75))
#: Length norms use (length / average) ** LENGTH_POWER: sublinear, see above.
LENGTH_POWER = 0.5


#: How a build reads a section's terms per field: ``section_fields``, or a cache of
#: what it gave (``build.py`` keeps them by the section's text, so a rebuild
#: tokenizes only the sections that changed).
FieldReader = Callable[[Section, Analyzer], tuple[list[str], ...]]


def build_index(
    sections: Iterable[Section],
    main_language: str = "",
    vectors: Embedded | None = None,
    read_fields: FieldReader | None = None,
) -> dict[str, object]:
    """The ``index.json`` payload for ``sections`` (same input, same output); a page
    that does not say its language is in ``main_language`` (default: the most pages').
    With ``vectors`` (every section's code, see ``vectors``), the payload carries them
    and the model that made them, for hybrid retrieval. ``read_fields``: see
    ``FieldReader``."""
    sections = list(sections)
    order: dict[str, int] = {}
    for section in sections:
        order.setdefault(section.page, len(order))
    sections.sort(key=lambda section: order[section.page])  # a page's sections together
    page_numbers: dict[str, int] = {}
    page_titles: list[str] = []
    page_languages: list[str] = []
    page_of: list[int] = []
    # A page is read in its language (its first section's, as ``languages`` records).
    language_of = {section.page: section.language for section in reversed(sections)}
    main = _ordered(list(language_of.values()), main_language)[0]
    analyzers = {language: analyzer(language or main) for language in set(language_of.values())}
    read = read_fields or section_fields
    fields = [read(section, analyzers[language_of[section.page]]) for section in sections]
    for section in sections:
        page_of.append(page_numbers.setdefault(section.page, len(page_numbers)))
        if len(page_titles) < len(page_numbers):
            page_titles.append(section.page_title)
            page_languages.append(section.language)
    section_scales = _field_scales([[len(f) for f in row] for row in fields], SECTION_FIELDS)
    page_lengths = [[0, 0, 0] for _ in page_titles]
    for number, row in enumerate(fields):
        lengths = page_lengths[page_of[number]]
        lengths[0] = len(row[2])
        lengths[1] += len(row[0])
        lengths[2] += len(row[4])
    page_scales = _field_scales(page_lengths, PAGE_FIELDS)

    # Each term's postings as [number, impact, …]; a page's sections come together,
    # so its counts are added up in ``page_counts`` and posted when the next starts.
    section_postings: dict[str, list[int]] = {}
    page_postings: dict[str, list[int]] = {}
    page_counts: dict[str, float] = {}
    current_page = 0
    for number, row in enumerate(fields):
        page = page_of[number]
        if page != current_page:
            _post(page_postings, current_page, page_counts)
            page_counts = {}
            current_page = page
        tf: dict[str, float] = {}
        for scales, field_terms in zip(section_scales, row, strict=True):
            _add(tf, field_terms, scales[number])
        title = set(row[0])
        for term, value in tf.items():
            impact = _impact(value)
            postings = section_postings.get(term)
            if postings is None:
                section_postings[term] = [number, impact << 1 | (term in title)]
            else:
                postings += (number, impact << 1 | (term in title))
        _add(page_counts, row[4], page_scales[2][page])
        _add(page_counts, row[0], page_scales[1][page])
        if not number or page != page_of[number - 1]:  # a page's title is counted once
            _add(page_counts, row[2], page_scales[0][page])
    if fields:
        _post(page_postings, current_page, page_counts)
    sections_per_page = Counter(page_of)
    languages, own_language, translation = _languages(
        list(page_numbers), page_languages, main_language
    )
    payload: dict[str, object] = {
        "format": FORMAT,
        "version": _version(sections),
        "languages": languages,
        "analyzers": [record(analyzer(language)) for language in languages],
        "pages": {
            "path": list(page_numbers),
            "title": page_titles,
            "language": pack(own_language),
            "translation": pack(translation),
            "sections": pack(sections_per_page[page] for page in range(len(page_titles))),
            "notes": pack(
                int(release_notes(path, title))
                for path, title in zip(page_numbers, page_titles, strict=True)
            ),
        },
        "sections": {
            "anchor": [section.address.partition("#")[2] for section in sections],
            "title": [section.title for section in sections],
            "breadcrumb": [
                CRUMB.join(crumb.replace(CRUMB, " ") for crumb in section.breadcrumb)
                for section in sections
            ],
            "text": [_cap(section.text) for section in sections],
            "title_terms": pack(len(row[0]) for row in fields),
            "links": pack(section.links for section in sections),
        },
        "terms": {
            term: _gaps(section_postings[term]) + SEPARATOR + _gaps(page_postings.get(term, []))
            for term in sorted(section_postings)
        },
    }
    if vectors is not None:
        embeddings: dict[str, object] = {
            "model": vectors.model,
            "dimension": vectors.dimension,
            "codes": CODES,
        }
        roles = {side: role_to_json(role) for side, role in vectors.roles.items() if role}
        if roles:
            embeddings["roles"] = roles
        codes = [vectors.codes[section.address] for section in sections]
        embeddings["recall"] = recall_payload(page_of, codes, vectors.dimension)
        payload["embeddings"] = embeddings
        columns: dict[str, object] = payload["sections"]  # type: ignore[assignment]
        columns["vector"] = codes
    return payload


@dataclass(frozen=True, slots=True)
class Embedded:
    """Every section's vector code by address (``vectors.encode``), and the model and
    dimension they share (``docs_panel.build.site.embeddings`` makes them)."""

    model: str
    dimension: int
    codes: Mapping[str, str]
    roles: Mapping[str, Role] = field(default_factory=dict)
    """How each side (``embedding_roles.SIDES``) is asked for: the passages were, and
    the questions are to be unless the panel's config says otherwise."""


def release_notes(path: str, title: str) -> bool:
    """Whether the page at ``path`` titled ``title`` is release notes (``RELEASE_NOTES``)."""
    return bool(
        RELEASE_NOTES.search(path)
        or (_POSTS.search(path) and (_VERSION.search(path) or _VERSION.search(title)))
    )


def _languages(
    paths: list[str], languages: list[str], main: str
) -> tuple[list[str], list[int], list[int]]:
    """The site's languages (``main`` first if any page is in it, else the most pages'
    language; a page that does not say is in the first), each page's language as a
    number into them, and each page's ``translation``: the page number of its
    main-language copy, its own where there is none (see ``index_format``)."""
    ordered = _ordered(languages, main)
    main = ordered[0]
    numbers = {language: n for n, language in enumerate(ordered)}
    languages = [language or main for language in languages]
    own = [numbers[language] for language in languages]
    keys = [translation_key(p, language) for p, language in zip(paths, languages, strict=True)]
    mains = {key: page for page, key in enumerate(keys) if own[page] == 0}
    return ordered, own, [mains.get(key, page) for page, key in enumerate(keys)]


def _ordered(languages: list[str], main: str) -> list[str]:
    """The site's languages, its main one first (see ``_languages``)."""
    counts = Counter(language for language in languages if language)
    ordered = sorted(counts, key=lambda language: (language != main, -counts[language], language))
    return ordered or [main]


def split_index(
    payload: Mapping[str, Any], part_bytes: int = PART_BYTES, split_bytes: int = SPLIT_BYTES
) -> tuple[dict[str, Any], dict[str, object]]:
    """``build_index``'s payload as a head and its parts by key (see ``index_format``);
    the head's ``parts.files`` is left for the bundle, which names the files."""
    head = {**payload, "pages": dict(payload["pages"]), "sections": dict(payload["sections"])}
    parts: dict[str, object] = {}
    columns = {name: head["sections"].pop(name) for name in SHOWN}
    sizes = [sum(map(_json_size, row)) for row in zip(*columns.values(), strict=True)]
    text_starts = _runs(sizes, part_bytes, split_bytes)
    if len(text_starts) > 1:
        # Page titles are shown only with a section: each text part carries those of the
        # pages its sections are on, so the head does not list every page's.
        titles = head["pages"].pop("title")
        page_of = _page_of(head["pages"]["sections"])
        for n, (start, end) in enumerate(itertools.pairwise([*text_starts, len(sizes)])):
            parts[f"text-{n}"] = {name: column[start:end] for name, column in columns.items()} | {
                PAGE_TITLES: titles[page_of[start] : page_of[end - 1] + 1]
            }
    else:
        head["sections"] |= columns
        text_starts = []
    postings: Mapping[str, str] = payload["terms"]
    words = sorted(postings)
    term_sizes = [_json_size(word) + _json_size(postings[word]) for word in words]
    term_starts = _runs(term_sizes, part_bytes, split_bytes)
    if len(term_starts) > 1:
        del head["terms"]
        for n, (start, end) in enumerate(itertools.pairwise([*term_starts, len(words)])):
            parts[f"terms-{n}"] = {word: postings[word] for word in words[start:end]}
    else:
        term_starts = []
    vector_starts: list[int] = []
    clusters = 0
    if "vector" in head["sections"] and text_starts:
        codes = head["sections"].pop("vector")
        vector_starts = _page_runs(_page_of(head["pages"]["sections"]), codes, VECTOR_PART_BYTES)
        for n, (start, end) in enumerate(itertools.pairwise([*vector_starts, len(codes)])):
            parts[f"vectors-{n}"] = codes[start:end]
        recall = dict(head["embeddings"]["recall"])
        for n, cluster in enumerate(recall["clusters"]):
            parts[f"recall-{n}"] = cluster
        clusters = len(recall["clusters"])
        head["embeddings"] = {
            **head["embeddings"],
            "recall": recall | {"clusters": [None] * clusters},
        }
    head["parts"] = {
        **({"vectors": pack(vector_starts), "recall": clusters} if vector_starts else {}),
        "text": pack(text_starts),
        "terms": [words[start] for start in term_starts],
        "files": {},
    }
    return head, parts


def _page_of(counts: str) -> list[int]:
    """Each section's page number, from the pages' packed ``sections`` counts."""
    return [page for page, count in enumerate(unpack(counts)) for _ in range(count)]


def _page_runs(pages: Sequence[int], codes: Sequence[str], most: int) -> list[int]:
    """Where each run of whole pages' vector codes starts (``pages``: each section's
    page), each run about ``most`` bytes (a page larger than that is a run of its own)."""
    starts = [0]
    total = 0
    for number, code in enumerate(codes):
        new_page = number and pages[number] != pages[number - 1]
        if new_page and total >= most:
            starts.append(number)
            total = 0
        total += len(code) + 3
    return starts


def _runs(sizes: Sequence[int], most: int, split: int) -> list[int]:
    """Where each run of consecutive ``sizes`` starts, each run adding up to about
    ``most``; one run when all add up to at most ``split``."""
    if sum(sizes) <= split:
        return [0]
    starts = [0]
    total = 0
    for number, size in enumerate(sizes):
        if total and total + size > most:
            starts.append(number)
            total = 0
        total += size
    return starts


def _json_size(value: str) -> int:
    # What ``json.dumps(value, ensure_ascii=False)`` writes for a string, without its setup.
    return len(encode_basestring(value).encode("utf-8")) + 1


def section_fields(section: Section, analyzer: Analyzer) -> tuple[list[str], ...]:
    """A section's terms per field (read by its language's ``analyzer``), in the order
    of ``SECTION_FIELDS``."""
    words = analyzer.words
    return (
        words.terms(section.title),
        words.terms(" ".join(section.keywords)),
        words.terms(section.page_title),
        words.terms(" ".join(section.breadcrumb)),
        words.terms(section.text),
    )


def _add(counts: dict[str, float], terms: list[str], scale: float) -> None:
    """Each of ``terms`` adds ``scale`` to its count, one occurrence after another
    (the same float sums as one addition per occurrence)."""
    for term, times in Counter(terms).items():
        value = counts.get(term, 0.0)
        for _ in range(times):
            value += scale
        counts[term] = value


def _post(postings: dict[str, list[int]], page: int, counts: Mapping[str, float]) -> None:
    """``page``'s impact for each term it counts, after the term's earlier pages."""
    for term, value in counts.items():
        impact = _impact(value)
        found = postings.get(term)
        if found is None:
            postings[term] = [page, impact]
        else:
            found += (page, impact)


def _impact(tf: float) -> int:
    """A term frequency, saturated, in ``IMPACT_LEVELS`` steps."""
    return min(IMPACT_LEVELS - 1, round(IMPACT_LEVELS * tf / (K1 + tf)))


def _gaps(pairs: list[int]) -> str:
    """``[number, value, …]`` packed, each number as its gap from the one before."""
    numbers = pairs[::2]
    gaps = pairs[:]
    gaps[2::2] = map(sub, numbers[1:], numbers)
    return pack(gaps)


def _field_scales(
    lengths: Sequence[Sequence[int]], fields: tuple[tuple[float, float], ...]
) -> list[list[float]]:
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
    return scales


def _cap(text: str) -> str:
    if len(text) <= TEXT_LIMIT:
        return text
    cut = text.rfind(" ", 0, TEXT_LIMIT)
    return text[: cut if cut > TEXT_LIMIT // 2 else TEXT_LIMIT] + " …"


def _version(sections: list[Section]) -> str:
    canonical = json.dumps(
        [
            [s.address, s.page_title, s.title, list(s.breadcrumb), s.text, list(s.keywords)]
            for s in sections
        ],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:20]
