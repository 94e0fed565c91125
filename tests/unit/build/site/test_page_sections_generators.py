"""Generators read at their own headings and members: DocBook XSL, Doxygen, Javadoc,
rustdoc, Asciidoctor, TypeDoc, Texinfo.

Each fixture under ``tests/fixtures/generators/NAME/`` holds real pages copied or
built by its ``build.sh`` (pinned versions) and a ``sections.json`` naming, per
page, every section in order as ``[title, anchor]``, so a page that stops
splitting fails; with the lines of theme text no section may hold, the pages
that are not content (by reason), members' first lines (their signature), and
the words and links a back-of-the-book index gives the sections its entries point at.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest

from docs_panel.build.site.extract import Extracted, extract_site
from docs_panel.build.site.html_tree import Element, descendants, parse
from docs_panel.build.site.page_sections import read_page
from docs_panel.core.docs_index import Section
from tests.fixture_files import GENERATORS, generator_expected, generator_sites

SITES = generator_sites("sections.json")


@cache
def _site(name: str) -> tuple[dict[str, Any], Extracted]:
    expected = generator_expected(name, "sections.json")
    return expected, extract_site(GENERATORS / name / "site")


def _sections_by_address(name: str) -> tuple[dict[str, Any], dict[str, Section]]:
    """The site's expected figures, and its sections by address without the leading /."""
    expected, extracted = _site(name)
    return expected, {section.address.lstrip("/"): section for section in extracted.sections}


@pytest.mark.parametrize("name", SITES)
def test_each_page_splits_at_the_generators_headings_and_members(name: str) -> None:
    expected, extracted = _site(name)
    got: dict[str, list[list[str]]] = {}
    titles: dict[str, str] = {}
    for section in extracted.sections:
        page = section.page.lstrip("/")
        got.setdefault(page, []).append([section.title, section.address.partition("#")[2]])
        titles[page] = section.page_title
    assert sorted(got) == sorted(expected["pages"])
    for page, want in expected["pages"].items():
        assert titles[page] == want["title"], page
        assert got[page] == want["sections"], page


@pytest.mark.parametrize("name", SITES)
def test_every_anchor_names_an_element_on_its_page(name: str) -> None:
    """An id, or the name of an ``<a>`` (older DocBook XSL), as a browser resolves it."""
    _, extracted = _site(name)
    named: dict[str, set[str]] = {}
    for section in extracted.sections:
        page, _, anchor = section.address.partition("#")
        if page not in named:
            html = (GENERATORS / name / "site" / page.lstrip("/")).read_text(encoding="utf-8")
            named[page] = {
                value
                for element in _elements(html)
                for key, value in element.attrs.items()
                if key == "id" or (key == "name" and element.tag == "a")
            }
        if anchor:
            assert anchor in named[page], section.address


def _elements(html: str) -> list[Element]:
    return list(descendants(parse(html)))


@pytest.mark.parametrize("name", SITES)
def test_no_section_holds_theme_text(name: str) -> None:
    expected, extracted = _site(name)
    chrome = set(expected["theme_text"])
    for section in extracted.sections:
        lines = {line.strip() for line in f"{section.title}\n{section.text}".split("\n")}
        assert not lines & chrome, f"{section.address}: {sorted(lines & chrome)}"
        assert not re.search("[\u200b\ufeff¶]", section.text), section.address


@pytest.mark.parametrize("name", SITES)
def test_pages_that_are_not_content_are_skipped_by_reason(name: str) -> None:
    expected, extracted = _site(name)
    for page, reason in expected["not_content"].items():
        html = (GENERATORS / name / "site" / page).read_text(encoding="utf-8")
        assert read_page(f"/{page}", html).skipped == reason, page
    assert sum(extracted.report.skipped.values()) == len(expected["not_content"])


@pytest.mark.parametrize("name", SITES)
def test_a_members_signature_opens_its_section(name: str) -> None:
    expected, by_address = _sections_by_address(name)
    for address, first_line in expected["signatures"].items():
        assert by_address[address].text.split("\n")[0] == first_line, address


@pytest.mark.parametrize(
    "name", [name for name in SITES if "keywords" in generator_expected(name, "sections.json")]
)
def test_a_book_index_gives_its_words_to_the_sections_it_points_at(name: str) -> None:
    expected, by_address = _sections_by_address(name)
    for address, words in expected["keywords"].items():
        assert sorted(by_address[address].keywords) == sorted(words), address


@pytest.mark.parametrize(
    "name", [name for name in SITES if "links" in generator_expected(name, "sections.json")]
)
def test_a_book_index_entry_counts_as_a_link_into_its_section(name: str) -> None:
    expected, by_address = _sections_by_address(name)
    for address, links in expected["links"].items():
        assert by_address[address].links == links, address
