"""Reading every page of a site: in parallel across cores, each page read once per change.

``read_pages`` turns page files into ``PageContent`` in the order given. A page
read before, with the same address and bytes by the same extractor, comes from
a cache (SQLite, like the embeddings cache); the others are read in a process
pool when there are enough of them to pay for one. The cache key holds a digest
of the extractor's own source files and the parsers' versions, so a changed
rule reads every page again; rows of an older extractor are dropped when the
cache is opened. It never decides what a page holds (``page_sections``) nor
which pages the site keeps (``extract``).
"""

from __future__ import annotations

import codecs
import os
import pickle
import re
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version
from pathlib import Path

from lxml import etree

from docs_panel.build.runtime.node_cache import digest
from docs_panel.build.site.markdown_pages import render_markdown
from docs_panel.build.site.page_sections import PageContent, read_page
from docs_panel.portable.errors import DocsIndexError

#: The packages whose code decides what a page yields: the build's site readers and
#: the core they import (sections, addresses, text).
EXTRACTOR_FOLDERS = (Path(__file__).parent, Path(__file__).parents[2] / "core")
#: Pages left to read below which a process pool costs more than it saves.
POOL_LEAST = 64
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w.:-]+)""", re.IGNORECASE)


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "docs-panel" / "pages.sqlite3"


@cache
def extractor_key() -> str:
    """A digest of the extractor's source files and the parsers' versions."""
    paths = sorted(path for folder in EXTRACTOR_FOLDERS for path in folder.rglob("*.py"))
    parsers = (version("markdown-it-py"), version("lxml"), etree.LIBXML_VERSION)
    parts = [repr(parsers).encode()]
    for path in paths:
        parts += [path.name.encode(), path.read_bytes()]
    return digest(*parts)


@dataclass(frozen=True, slots=True)
class PageFile:
    address: str  # the page's address from the site root (a Markdown page's .html)
    path: Path

    @property
    def markdown(self) -> bool:
        return self.path.suffix.lower() == ".md"


def decode(path: Path, data: bytes) -> str:
    """A page's text: UTF-8, else the charset its ``<meta>`` declares."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        declared = _META_CHARSET.search(data[:4096])
        charset = declared.group(1).decode("ascii", "replace") if declared else ""
        try:
            if charset and codecs.lookup(charset).name != "utf-8":
                return data.decode(charset)
        except (LookupError, UnicodeDecodeError):
            pass
        raise DocsIndexError(
            f"cannot decode {path}: not valid UTF-8 (byte {err.start})"
            + (f" nor {charset}" if charset else "")
            + "; save it as UTF-8 or declare its encoding with <meta charset>"
        ) from err


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as err:
        raise DocsIndexError(f"cannot read {path}: {err.strerror or err}") from err


def _read_one(page: PageFile) -> PageContent:
    source = decode(page.path, read_bytes(page.path))
    if page.markdown:
        source = f"<html><body>{render_markdown(source).body}</body></html>"
    return read_page(page.address, source)


def _read_job(page: PageFile) -> bytes:
    # Pickled here so the parent stores the row without pickling it again.
    return pickle.dumps(_read_one(page), protocol=pickle.HIGHEST_PROTOCOL)


def _key(extractor: str, page: PageFile, data: bytes) -> str:
    return digest(extractor.encode(), page.address.encode(), b"md" if page.markdown else b"", data)


class PageCache:
    """Each page's ``PageContent``, pickled, by extractor, address and bytes."""

    def __init__(self, path: Path, extractor: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.extractor = extractor
        self.db = sqlite3.connect(path)
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS pages (key TEXT PRIMARY KEY, extractor TEXT, page BLOB)"
        )
        with self.db:
            self.db.execute("DELETE FROM pages WHERE extractor != ?", (extractor,))

    def get(self, key: str) -> bytes | None:
        row = self.db.execute("SELECT page FROM pages WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def put(self, rows: Sequence[tuple[str, bytes]]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO pages VALUES (?, ?, ?)",
                [(key, self.extractor, page) for key, page in rows],
            )

    def close(self) -> None:
        self.db.close()


def workers() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def read_pages(pages: Sequence[PageFile], cache_path: Path | None) -> list[PageContent]:
    """Each page's content, in the order of ``pages``; ``cache_path`` None reads every page."""
    extractor = extractor_key()
    store = PageCache(cache_path, extractor) if cache_path is not None else None
    try:
        found: list[bytes | None] = []
        missing: list[tuple[int, str, PageFile]] = []
        for at, page in enumerate(pages):
            key = _key(extractor, page, read_bytes(page.path)) if store else ""
            hit = store.get(key) if store else None
            found.append(hit)
            if hit is None:
                missing.append((at, key, page))
        jobs = [job for _, _, job in missing]
        if len(jobs) >= POOL_LEAST and workers() > 1:
            with ProcessPoolExecutor(workers()) as pool:
                made = list(pool.map(_read_job, jobs, chunksize=16))
        else:
            made = [_read_job(job) for job in jobs]
        rows = []
        for (at, key, _), page_bytes in zip(missing, made, strict=True):
            found[at] = page_bytes
            rows.append((key, page_bytes))
        if store is not None:
            store.put(rows)
        return [pickle.loads(page_bytes) for page_bytes in found if page_bytes is not None]
    finally:
        if store is not None:
            store.close()
