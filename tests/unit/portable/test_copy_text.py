"""Tests for docs_panel.portable.copy_text: what "Copy answer" puts on the clipboard."""

from __future__ import annotations

from markdown_it import MarkdownIt

from docs_panel.portable.copy_text import answer_markdown


def test_an_answer_without_sources_is_its_markdown() -> None:
    assert answer_markdown("  Call `retry()`.\n", [], "Sources") == "Call `retry()`."


def test_sources_are_markdown_links_that_survive_odd_titles_and_urls() -> None:
    text = answer_markdown(
        "See [1].",
        [("Retry [beta] \\ jobs\n", "https://d.org/a b(1).html#x", 1)],
        "Sources",
    )
    assert text.endswith("- [1] [Retry \\[beta\\] \\\\ jobs](https://d.org/a%20b%281%29.html#x)")
    html = MarkdownIt().render(text)
    assert '<a href="https://d.org/a%20b%281%29.html#x">Retry [beta] \\ jobs</a>' in html
