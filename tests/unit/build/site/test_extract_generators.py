"""Real generators' output: Sphinx (six themes), MkDocs (default, Material), Docusaurus,
VitePress, mdBook, Jekyll and Hugo, each built from the same small docs
(``tests/fixtures/generators/*/build.sh``, pinned versions). Each fixture's
``expected.json`` says what a reader reads on each page; the extractor must
give exactly that: titles, every tab panel, code, no theme text, one copy of
each page, each in its language, anchors that exist, and each page split into
the sections its ``split`` lists (title and anchor, in order).

``python -m tests.unit.build.site.test_extract_generators`` records every page's ``split`` from
today's extractor into the fixtures' ``expected.json``; read the diff before
committing it, since it is what the test then holds the extractor to."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import pytest

from docs_panel.build.site.extract import DUPLICATE_LEAST, Extracted, extract_site
from docs_panel.core.docs_index import Section
from tests.fixture_files import GENERATORS, generator_expected, generator_sites

SITES = generator_sites("expected.json")


@cache
def _site(name: str) -> tuple[dict[str, Any], Extracted]:
    expected = generator_expected(name, "expected.json")
    return expected, extract_site(GENERATORS / name / "site")


def _pages(extracted: Extracted) -> dict[str, list[Section]]:
    pages: dict[str, list[Section]] = {}
    for section in extracted.sections:
        pages.setdefault(section.page.lstrip("/"), []).append(section)
    return pages


def _split(sections: list[Section]) -> list[list[str]]:
    """A page's sections as its reader's table of contents: title and anchor, in order."""
    return [[section.title, section.address.partition("#")[2]] for section in sections]


def _read(section: Section) -> str:
    return "\n".join([section.title, section.text])


@pytest.mark.parametrize("name", SITES)
def test_every_content_page_reads_as_its_reader_reads_it(name: str) -> None:
    """Title, headings in order, the text of every tab panel and code block, the language."""
    expected, extracted = _site(name)
    pages = _pages(extracted)
    for path, page in expected["pages"].items():
        assert path in pages, f"{name}: {path} is not indexed"
        sections = pages[path]
        text = "\n".join(map(_read, sections))
        assert sections[0].page_title == page["title"], path
        # A heading without an anchor to link to stays in the section before it.
        titles = [section.title for section in sections]
        headed = [title for title in page["sections"] if title in titles]
        assert [title for title in titles if title in headed] == headed, path
        for title in page["sections"]:
            assert title in titles or title in text, f"{path}: {title!r}"
        for wanted in page["contains"]:
            assert " ".join(wanted.split()) in " ".join(text.split()), f"{path}: {wanted!r}"
        lines = {line.strip() for line in text.split("\n")}
        for label in page.get("tabs", []):
            assert label in lines, f"{path}: no line for the tab {label!r}"
        assert {section.language for section in sections} == {page["lang"]}, path


@pytest.mark.parametrize("name", SITES)
def test_every_page_splits_into_its_sections(name: str) -> None:
    """Each heading with an anchor starts a section of its own, in the page's order."""
    expected, extracted = _site(name)
    pages = _pages(extracted)
    assert sorted(pages) == sorted(expected["pages"]), name
    for path, page in expected["pages"].items():
        assert _split(pages[path]) == page["split"], f"{name}: {path}"


@pytest.mark.parametrize("name", SITES)
def test_no_theme_text_is_indexed(name: str) -> None:
    """Edit links, tables of contents, prev/next, bylines, skip links: in no section."""
    expected, extracted = _site(name)
    for section in extracted.sections:
        read = f"{section.page_title}\n{_read(section)}\n{' '.join(section.breadcrumb)}"
        for chrome in expected["theme_text"]:
            assert chrome not in read, f"{name}: {chrome!r} in {section.address}"
        assert not re.search("[\u200b\ufeff¶]", read), section.address


@pytest.mark.parametrize("name", SITES)
def test_pages_that_are_not_content_or_copies_are_left_out(name: str) -> None:
    """Search, 404, listings, redirects, partials and other versions' copies are not
    indexed (each counted in the report); the copy a site calls current is."""
    expected, extracted = _site(name)
    pages = _pages(extracted)
    for path in expected["not_content"]:
        assert path not in pages, f"{name}: {path} is not content"
    for copy, kept in expected.get("copies", {}).items():
        assert copy not in pages, f"{name}: {copy} is a copy"
        if kept != "*":
            assert kept in pages, f"{name}: {kept} should stay"
    assert sum(extracted.report.skipped.values()) >= len(expected["not_content"])


@pytest.mark.parametrize("name", SITES)
def test_sections_are_unique_and_their_anchors_exist(name: str) -> None:
    """No two sections share a long text; every anchor is an id on its page."""
    _, extracted = _site(name)
    texts = [s.text for s in extracted.sections if len(s.text) >= DUPLICATE_LEAST]
    assert len(texts) == len(set(texts))
    for section in extracted.sections:
        path, _, anchor = section.address.partition("#")
        if anchor:
            html = (GENERATORS / name / "site" / path.lstrip("/")).read_text(encoding="utf-8")
            assert re.search(rf"""id=["']?{re.escape(anchor)}["'\s>]""", html), section.address


def _record_splits() -> None:
    """Write each page's ``split`` as today's extractor makes it into every ``expected.json``."""
    for name in SITES:
        path = GENERATORS / name / "expected.json"
        expected, extracted = _site(name)
        for page_path, sections in _pages(extracted).items():
            expected["pages"][page_path]["split"] = _split(sections)
        path.write_text(json.dumps(expected, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    _record_splits()
