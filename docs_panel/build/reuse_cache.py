"""What a rebuild reuses beside the pages: each section's terms and each output's twins.

A rebuild after one page changed reads that page again (``page_reading``); this
keeps the rest of the build's per-item work by its input's bytes, so it is done
again only for what changed: a section's terms per field (keyed by its fields'
text, its analyzer's record and the extractor's code) and an output file's
Zstandard and gzip twins (keyed by the bytes and ``bundle``'s method line). A hit
gives the bytes a fresh computation gives, so a rebuild's output equals a full
build's. Rows no build used in the last ``KEPT_BUILDS`` are dropped, so the file
stays about one site's size. It never decides what a term or a twin is.
"""

from __future__ import annotations

import json
import pickle
import sqlite3
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

from docs_panel.build.index_build import section_fields
from docs_panel.build.runtime.node_cache import digest
from docs_panel.build.runtime.twins import Compress
from docs_panel.build.site.page_reading import extractor_key
from docs_panel.core.analyzers import Analyzer, record
from docs_panel.core.docs_index import Section

#: Builds whose rows are kept: a few, so sites built in turn keep theirs too.
KEPT_BUILDS = 4


def cache_beside(page_cache: Path) -> Path:
    """Where the reuse cache of a build with ``page_cache`` lives: beside it."""
    return page_cache.with_name("reuse.sqlite3")


class ReuseCache:
    """A key → bytes store; each row says the last build that used it."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path)
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS rows (key TEXT PRIMARY KEY, build INTEGER, value BLOB)"
        )
        found = self.db.execute("SELECT max(build) FROM rows").fetchone()[0]
        self.build = (found or 0) + 1
        self._used: list[str] = []
        self._made: dict[str, bytes] = {}
        self._stamps: dict[int, str] = {}

    def get_or_make(self, key: str, make: Callable[[], bytes]) -> bytes:
        if key in self._made:
            return self._made[key]
        row = self.db.execute("SELECT value FROM rows WHERE key = ?", (key,)).fetchone()
        if row is not None:
            self._used.append(key)
            return bytes(row[0])
        value = self._made[key] = make()
        return value

    def twins(self, method: str, compress: Compress) -> Compress:
        """``compress`` (named in full by ``method``), each result kept by its input."""
        return lambda data: self.get_or_make(digest(method.encode(), data), lambda: compress(data))

    def section_terms(self, section: Section, analyzer: Analyzer) -> tuple[list[str], ...]:
        """``index_build.section_fields`` kept by the fields' text: a ``FieldReader``."""
        stamp = self._stamps.get(id(analyzer))
        if stamp is None:
            stamp = json.dumps([record(analyzer), extractor_key(), version("snowballstemmer")])
            self._stamps[id(analyzer)] = stamp
        key = digest(
            stamp.encode(),
            section.title.encode(),
            "\0".join(section.keywords).encode(),
            section.page_title.encode(),
            "\0".join(section.breadcrumb).encode(),
            section.text.encode(),
        )
        made = self.get_or_make(
            key,
            lambda: pickle.dumps(section_fields(section, analyzer), pickle.HIGHEST_PROTOCOL),
        )
        terms: tuple[list[str], ...] = pickle.loads(made)
        return terms

    def close(self) -> None:
        """Keep what this build made, mark what it used, drop what no recent build used."""
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO rows VALUES (?, ?, ?)",
                ((key, self.build, value) for key, value in self._made.items()),
            )
            self.db.executemany(
                "UPDATE rows SET build = ? WHERE key = ?", ((self.build, k) for k in self._used)
            )
            self.db.execute("DELETE FROM rows WHERE build <= ?", (self.build - KEPT_BUILDS,))
        self.db.close()
