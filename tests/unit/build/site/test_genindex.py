"""Sphinx general index pages read as (target, words) entries."""

from __future__ import annotations

import pytest

from docs_panel.build.site.genindex import GENINDEX, index_entries


def test_nested_list_entries_carry_their_parents_words() -> None:
    """Sub-entries read "parent sub"; [n] links are more targets of the same entry."""
    html = """<ul><li>statement<ul>
      <li><a href="a.html#i1">global</a>, <a href="b.html#i2">[1]</a></li>
      <li><a href="c.html#i3">if</a></li></ul></li></ul>"""
    assert index_entries(html) == [
        ("a.html#i1", "statement global"),
        ("b.html#i2", "statement global"),
        ("c.html#i3", "statement if"),
    ]


def test_definition_list_layout_reads_like_the_nested_lists() -> None:
    """Older Sphinx: a <dd> holds the sub-entries of the <dt> before it."""
    html = """<dl><dt>operator</dt><dd><dl><dt><a href="x.html#a">walrus</a></dt></dl></dd>
      <dt><a href="y.html#zip">zip() (built-in function)</a></dt></dl>"""
    assert index_entries(html) == [("x.html#a", "operator walrus"), ("y.html#zip", "zip")]


def test_entries_without_links_or_words_give_nothing() -> None:
    """A heading, a jump bar anchor without text, stray markup: no entries."""
    assert index_entries("<h1>Index</h1><a href='#A'></a><li>lonely</li></ul></dd>") == []


@pytest.mark.parametrize(
    ("name", "matches"),
    [
        ("genindex.html", True),
        ("genindex-A.html", True),
        ("genindex-all.html", True),
        ("index.html", False),
        ("mygenindex.html", False),
    ],
)
def test_general_index_page_names(name: str, matches: bool) -> None:
    """The one page, its letter pages and the all-in-one page are general index pages."""
    assert bool(GENINDEX.fullmatch(name)) is matches
