"""Pages read in parallel and cached by their bytes: a rebuild reads only what changed,
and gives the bytes a full build gives."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from docs_panel.build import cli
from docs_panel.build.site import page_reading
from docs_panel.build.site.page_reading import PageFile, read_pages
from docs_panel.build.site.page_sections import PageContent, read_page
from docs_panel.portable.errors import DocsIndexError
from tests.fixture_files import GENERATORS

FIXTURE = GENERATORS / "sphinx-pydata" / "site"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The addresses of the pages actually read (not taken from the cache)."""
    seen: list[str] = []

    def counting(address: str, html: str) -> PageContent:
        seen.append(address)
        return read_page(address, html)

    monkeypatch.setattr(page_reading, "read_page", counting)
    return seen


def files_of(folder: Path) -> dict[str, bytes]:
    files = (path for path in folder.rglob("*") if path.is_file())
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in files}


def edit_one_page(site: Path) -> None:
    page = site / "glossary.html"
    page.write_text(page.read_text().replace("<p>", "<p>Zebra crossings explained. ", 1))


def test_rebuild_after_one_page_is_byte_identical_to_a_full_build(
    tmp_path: Path, reads: list[str]
) -> None:
    site = tmp_path / "site"
    shutil.copytree(FIXTURE, site)
    cache = tmp_path / "pages.sqlite3"
    cli.build(site, out=tmp_path / "first", page_cache=cache)
    assert len(reads) > 5
    reads.clear()
    edit_one_page(site)
    cli.build(site, out=tmp_path / "incremental", page_cache=cache)
    assert reads == ["/glossary.html"]
    cli.build(site, out=tmp_path / "full", page_cache=None)
    incremental = files_of(tmp_path / "incremental")
    assert incremental == files_of(tmp_path / "full")
    assert incremental != files_of(tmp_path / "first")  # the edit is in the index


def extractor_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "extractor"
    shutil.copytree(page_reading.EXTRACTOR_FOLDERS[0], folder)
    monkeypatch.setattr(page_reading, "EXTRACTOR_FOLDERS", (folder,))
    page_reading.extractor_key.cache_clear()
    monkeypatch.setattr(page_reading, "extractor_key", page_reading.extractor_key.__wrapped__)
    return folder


def site_pages(site: Path) -> list[PageFile]:
    return [
        PageFile("/" + path.relative_to(site).as_posix(), path)
        for path in sorted(site.rglob("*.html"))
    ]


def test_a_changed_extractor_source_reads_every_page_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads: list[str]
) -> None:
    extractor = extractor_copy(tmp_path, monkeypatch)
    pages = site_pages(FIXTURE)
    cache = tmp_path / "pages.sqlite3"
    first = read_pages(pages, cache)
    assert len(reads) == len(pages)
    reads.clear()
    assert read_pages(pages, cache) == first
    assert reads == []
    rule = extractor / "theme_rules.py"
    rule.write_text(rule.read_text() + "\n# a rule changed\n")
    assert read_pages(pages, cache) == first
    assert len(reads) == len(pages)


def test_the_pool_gives_the_pages_in_order_and_the_same_content(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pages = site_pages(FIXTURE)
    alone = read_pages(pages, None)
    monkeypatch.setattr(page_reading, "POOL_LEAST", 1)
    monkeypatch.setattr(page_reading, "workers", lambda: 2)
    assert read_pages(pages, None) == alone


def test_a_page_that_cannot_be_decoded_in_the_pool_says_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    shutil.copytree(FIXTURE, site)
    (site / "broken.html").write_bytes(b"<html><body><p>caf\xe9</p></body></html>")
    monkeypatch.setattr(page_reading, "POOL_LEAST", 1)
    monkeypatch.setattr(page_reading, "workers", lambda: 2)
    with pytest.raises(DocsIndexError, match=r"broken\.html: not valid UTF-8"):
        read_pages(site_pages(site), tmp_path / "pages.sqlite3")
