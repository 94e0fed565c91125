"""What a question reads from a split index, by the site's size: the parts and the page
titles it fetches grow with its terms and hits, not with the number of pages."""

from __future__ import annotations

import json
from typing import Any

import pytest

from docs_panel.build.index_build import build_index, split_index
from docs_panel.core.docs_index import Section, load_index

QUESTION = "How do I frobnicate a widget?"


def _site(pages: int) -> list[Section]:
    """A synthetic API reference: three sections a page, every page's words of its own,
    and the question's words on the same five pages whatever the size."""
    sections = []
    for page in range(pages):
        path = f"/api/module{page:05}.html"
        title = f"module{page:05}: the reference of the module{page:05} interfaces"
        about = "frobnicate widget" if page % (pages // 5) == 0 else f"gadget{page} gizmo{page}"
        sections += [
            Section(path, title, title, f"Overview of module{page:05}: {about} and more."),
            Section(f"{path}#usage", title, "Usage", f"Call module{page:05}.run() to {about}."),
            Section(f"{path}#api", title, "API", f"run(), stop() and reset() of module{page:05}."),
        ]
    return sections


def _question_reads(pages: int) -> dict[str, Any]:
    """The head's page titles, and the parts (count, bytes, page titles) one question
    fetches, as the worker adds them (``answers.plan_answer``'s loop)."""
    head, parts = split_index(build_index(_site(pages)), split_bytes=0)
    head["parts"]["files"] = {key: f"{key}.json" for key in parts}
    index = load_index(json.loads(json.dumps(head)))
    fetched: list[str] = []
    while needed := index.parts_needed(QUESTION):
        for key in needed:
            index.add_part(key, json.loads(json.dumps(parts[key])))
        fetched += needed
    assert {hit.section.page for hit in index.search(QUESTION)} == {
        f"/api/module{page:05}.html" for page in range(0, pages, pages // 5)
    }
    return {
        "head_titles": len(head["pages"].get("title", [])),
        "parts": len(fetched),
        "part_bytes": sum(len(json.dumps(parts[key]).encode()) for key in fetched),
        "part_titles": sum(len(parts[key].get("page_title", [])) for key in fetched),  # type: ignore[attr-defined]
    }


@pytest.fixture(scope="module")
def small_and_large() -> tuple[dict[str, Any], dict[str, Any]]:
    return _question_reads(300), _question_reads(2400)


def test_a_question_reads_the_titles_of_the_pages_it_shows_only(
    small_and_large: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """The head lists no page's title; the titles a question fetches come with the texts
    of its hits, about as many on 2,400 pages as on 300."""
    small, large = small_and_large
    assert small["head_titles"] == large["head_titles"] == 0
    assert 0 < large["part_titles"] <= 1.5 * small["part_titles"]


def test_a_questions_parts_do_not_grow_with_the_site(
    small_and_large: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """Eight times the pages: about as many parts, and about as many bytes, per question."""
    small, large = small_and_large
    assert large["parts"] <= small["parts"] + 2
    assert large["part_bytes"] <= 1.5 * small["part_bytes"]
