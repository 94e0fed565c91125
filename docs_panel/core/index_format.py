"""The docs index's payload format: its layout, and the checks that read it back.

Decides what ``index.json`` (and, on a large site, its parts) holds and how
``load_index`` refuses a payload it cannot read, with a message that says to
rebuild; never ranks (``index_ranking``) and never builds (``index_build``).

Payload layout (``"format": 7``): columns, not rows, so that loading a large
index builds a few dozen Python objects per column instead of one per cell
(numbers are packed into strings, see ``packed``):

- ``pages``: ``{"path": [...], "title": [...]}``, lists of strings, and packed:
  ``language`` (each page's, a number into the payload's ``languages``, whose
  first is the site's main language), ``translation`` (the number of the
  main-language page each page translates, its own if none), ``sections``
  (how many sections each page has: a page's sections come together, in the
  pages' order, so this says each section's page) and ``notes`` (1 for release
  notes, ``index_build.release_notes``).
- ``sections``: ``{"title_terms", "links"}`` packed, and ``{"anchor",
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
  sections (``parts.text``: the first section of each run, packed), and
  ``page_title``, the titles of the pages those sections are on (the head's
  ``pages`` then has no ``title``: a question reads the titles of the pages it
  shows, not a list of every page's),
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

from typing import Any

from docs_panel.core.analyzers import Analyzer, from_record
from docs_panel.core.dense_recall import Recall
from docs_panel.core.embedding_roles import SIDES, Role, role_from_json
from docs_panel.core.packed import SEPARATOR, unpack
from docs_panel.core.vectors import CODES
from docs_panel.portable.errors import DocsIndexError

FORMAT = 7
#: Impacts (saturated term frequencies, in [0, 1)) are stored in this many steps:
#: with its title bit, a section's impact fits one byte of UTF-8 (see ``packed``).
IMPACT_LEVELS = 40
#: A breadcrumb's titles are joined by this in the payload (titles never hold one).
CRUMB = "\t"
#: The section columns only a shown section needs: a split payload has them in parts.
SHOWN = ("anchor", "title", "breadcrumb", "text")
#: A split payload's text part's column of the titles of the pages its sections are on.
PAGE_TITLES = "page_title"
#: A split payload's kinds of part (a part's key is its kind, "-" and its number): the
#: sections' texts, the terms' postings, the sections' vectors and the pages' vectors
#: of a recall cluster (``dense_recall``).
PART_KINDS = ("text", "terms", "vectors", "recall")
#: The end of every refusal: what the site owner does about it.
REBUILD = "rebuild the index with build.py"


def read_analyzers(payload: dict[str, Any], languages: list[str]) -> list[Analyzer]:
    """Each language's analyzer, as the index records it (``analyzers.record``)."""
    records = payload.get("analyzers")
    if not (isinstance(records, list) and len(records) == len(languages)):
        raise DocsIndexError(f"index.json does not say how its languages were read; {REBUILD}")
    analyzers = []
    for language, value in zip(languages, records, strict=True):
        try:
            analyzers.append(from_record(value))
        except ValueError as err:
            raise DocsIndexError(
                f"index.json read {language or 'its'} pages with an analyzer this panel does not"
                f" have ({err}); {REBUILD} from the same release as the panel"
            ) from None
    return analyzers


def read_parts(
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
        raise DocsIndexError(f"index.json: 'parts' is malformed; {REBUILD}")
    return text_starts, term_starts, vector_starts, recall, files


def read_embeddings(
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
        raise DocsIndexError(f"index.json: 'embeddings' is malformed; {REBUILD}")
    if embeddings.get("codes") != CODES:
        raise DocsIndexError(
            f"index.json: section vectors as {embeddings.get('codes')!r}, not {CODES!r};"
            f" {REBUILD} from the same release as the panel"
        )
    codes = payload["sections"].get("vector", [None] * sections)
    if not (isinstance(codes, list) and len(codes) == sections):
        raise DocsIndexError(f"index.json: the section vectors do not fit; {REBUILD}")
    written = embeddings.get("roles", {})
    roles = (
        {side: role_from_json(role) for side, role in written.items()}
        if isinstance(written, dict)
        else None
    )
    if roles is None or not set(roles) <= set(SIDES) or None in roles.values():
        raise DocsIndexError(f"index.json: 'embeddings.roles' is malformed; {REBUILD}")
    recall = Recall.load(embeddings.get("recall"), pages)
    return model, dimension, codes, {side: role for side, role in roles.items() if role}, recall


def read_table(
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
            f" of equal length; {REBUILD}"
        )
    return columns


def postings_of(encoded: str, term: str) -> tuple[list[int], list[int]]:
    """A term's ``encoded`` section and page postings, unpacked (still as gaps)."""
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
        raise DocsIndexError(f"index.json: the postings of {term!r} are corrupt; {REBUILD}")
    return numbers, page_numbers
