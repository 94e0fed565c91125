"""The reuse cache: a rebuild tokenizes only the sections and compresses only the
outputs that changed, and writes the bytes a full build writes."""

from __future__ import annotations

import functools
import shutil
from collections import Counter
from pathlib import Path

import pytest

from docs_panel.build import cli, reuse_cache
from docs_panel.build.index_build import section_fields, split_index
from docs_panel.build.reuse_cache import KEPT_BUILDS, ReuseCache
from docs_panel.build.runtime import bundle, twins
from docs_panel.core.analyzers import Analyzer, analyzer
from docs_panel.core.docs_index import Section
from tests.fixture_files import FIXTURES

FIXTURE = FIXTURES / "generators" / "sphinx-pydata" / "site"


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """What the build computed rather than reused: section titles tokenized, twins made;
    and the index split into small parts, so that one page's edit leaves most unchanged."""
    counts: Counter[str] = Counter()

    def tokenize(section: Section, analyzer: Analyzer) -> tuple[list[str], ...]:
        counts["sections"] += 1
        return section_fields(section, analyzer)

    def counted(kind: str, compress: twins.Compress, data: bytes) -> bytes:
        counts[kind] += 1
        return compress(data)

    monkeypatch.setattr(reuse_cache, "section_fields", tokenize)
    monkeypatch.setattr(
        cli, "zstd_compressed", functools.partial(counted, "zst", twins.zstd_compressed)
    )
    monkeypatch.setattr(cli, "gzipped", functools.partial(counted, "gz", twins.gzipped))
    small = functools.partial(split_index, part_bytes=256, split_bytes=1024)
    monkeypatch.setattr(bundle, "split_index", small)
    return counts


def files_of(folder: Path) -> dict[str, bytes]:
    files = (path for path in folder.rglob("*") if path.is_file())
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in files}


def test_a_rebuild_redoes_only_what_one_page_changed(tmp_path: Path, made: Counter[str]) -> None:
    site = tmp_path / "site"
    shutil.copytree(FIXTURE, site)
    cache = tmp_path / "pages.sqlite3"
    first = cli.build(site, out=tmp_path / "first", page_cache=cache)
    assert made["sections"] == first.sections
    parts = made["zst"]
    assert parts > 10  # the index came in parts
    made.clear()
    page = site / "glossary.html"
    page.write_text(page.read_text().replace("<p>", "<p>Zebra crossings explained. ", 1))
    cli.build(site, out=tmp_path / "incremental", page_cache=cache)
    assert made["sections"] == 1  # the edited section only
    # Some parts change (the new words' postings, and scores that move with the
    # site's average lengths); the others' twins are reused.
    assert 0 < made["zst"] < parts
    cli.build(site, out=tmp_path / "full", page_cache=None)
    assert files_of(tmp_path / "incremental") == files_of(tmp_path / "full")


def test_a_twin_is_kept_by_its_method_too(tmp_path: Path) -> None:
    cache = ReuseCache(tmp_path / "reuse.sqlite3")
    assert cache.twins("method one", lambda data: data + b"1")(b"x") == b"x1"
    assert cache.twins("method two", lambda data: data + b"2")(b"x") == b"x2"
    assert cache.twins("method one", lambda data: b"not called")(b"x") == b"x1"
    cache.close()


def test_a_section_is_tokenized_again_when_any_field_or_its_language_changes(
    tmp_path: Path,
) -> None:
    section = Section("/a.html", "Page", "Title", "Running tests.", breadcrumb=("Guide",))
    cache = ReuseCache(tmp_path / "reuse.sqlite3")
    english, german = analyzer("en"), analyzer("de")
    assert cache.section_terms(section, english) == section_fields(section, english)
    assert cache.section_terms(section, german) == section_fields(section, german)
    moved = Section("/a.html", "Page", "Title", "Running tests.", breadcrumb=("Reference",))
    assert cache.section_terms(moved, english) == section_fields(moved, english)
    cache.close()
    again = ReuseCache(tmp_path / "reuse.sqlite3")
    assert again.section_terms(section, english) == section_fields(section, english)
    assert len(again._used) == 1 and not again._made
    again.close()


def test_rows_no_recent_build_used_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "reuse.sqlite3"
    for build in range(KEPT_BUILDS + 1):
        cache = ReuseCache(path)
        cache.twins("m", lambda data: data)(b"every build")
        if build == 0:
            cache.twins("m", lambda data: data)(b"first build only")
        cache.close()
    cache = ReuseCache(path)
    keys = [row[0] for row in cache.db.execute("SELECT key FROM rows")]
    cache.close()
    assert len(keys) == 1
