"""Extraction of built docs (Sphinx, MkDocs, plain HTML, Markdown) into sections."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from docs_panel.build.site.extract import extract_site
from docs_panel.build.site.page_sections import read_page
from docs_panel.core.docs_index import Section
from docs_panel.portable.errors import DocsIndexError
from tests.fixture_files import FIXTURES

SITES = FIXTURES / "sites"
EXPECTED = json.loads((SITES / "expected_sections.json").read_text(encoding="utf-8"))


def extract_sections(address: str, html: str) -> list[Section]:
    return read_page(address, html).sections


def _rows(root: Path) -> list[list[object]]:
    return [
        [s.address, s.page_title, s.title, list(s.breadcrumb), s.text]
        for s in extract_site(root).sections
    ]


@pytest.mark.parametrize("site", sorted(EXPECTED))
def test_fixture_sites_give_the_expected_sections(site: str) -> None:
    """Each sample site splits into exactly the recorded sections, in order."""
    assert _rows(SITES / site) == EXPECTED[site]


def test_anchors_come_from_heading_section_or_inner_anchor() -> None:
    """Anchors: the heading's id, Sphinx's <section id>, an <a name> in the heading."""
    addresses = {row[0] for rows in EXPECTED.values() for row in rows}
    assert "/index.html#quick-start" in addresses  # MkDocs: id on the heading
    assert "/library/json.html#basic-usage" in addresses  # Sphinx: id on <section>
    assert "/about.htm#history" in addresses  # plain: <a name> inside the heading
    assert "/library/json.html#json.dumps" in addresses  # Sphinx API entry with permalink


def test_page_top_is_the_bare_path_and_keeps_text_before_the_first_heading() -> None:
    """The first section has no anchor and starts with the text above the first heading."""
    top = extract_sections("/a.html", "<p>Lead.</p><h1 id='t'>Title</h1><p>Body.</p>")[0]
    assert (top.address, top.title, top.text) == ("/a.html", "Title", "Lead.\nBody.")


@pytest.mark.parametrize(
    "chrome",
    ["Navigation", "Table of Contents", "Footer", "Copyright", "¶", "doctools", "Demo home",
     "Edit", "Last update", "Next: Guide", "Contact", "Other page", "color: black", "Home"],
)  # fmt: skip
def test_navigation_and_chrome_are_not_indexed(chrome: str) -> None:
    """Nav, sidebars, headers, footers, scripts, styles, permalinks and toctrees stay out."""
    for rows in EXPECTED.values():
        for address, page_title, title, breadcrumb, text in rows:
            assert chrome not in f"{page_title} {title} {breadcrumb} {text}", address


def test_a_singlehtml_pages_child_pages_are_content_their_links_are_not() -> None:
    """Sphinx's list of child pages holds links in an html build (chrome), and the
    child pages' own sections in a singlehtml build (content)."""
    links = '<div class="toctree-wrapper compound"><ul><li><a href="install.html">Install</a>'
    page = f'<section id="top"><h1>Top</h1><p>Lead.</p>{links}</li></ul></div></section>'
    assert [s.title for s in extract_sections("/index.html", page)] == ["Top"]
    inlined = (
        '<section id="top"><h1>Top</h1><p>Lead.</p><div class="toctree-wrapper compound">'
        '<span id="document-install"></span><section id="install"><h1>Install</h1>'
        '<section id="start"><h2>Start</h2><p>Run it.</p></section></section></div></section>'
    )
    found = [(s.address, s.title, s.text) for s in extract_sections("/index.html", inlined)]
    assert found == [
        ("/index.html", "Top", "Lead."),
        ("/index.html#install", "Install", ""),
        ("/index.html#start", "Start", "Run it."),
    ]


@pytest.mark.parametrize(
    ("signature", "title"),
    [
        ('<em class="property">class </em><span class="sig-prename descclassname">gzip.</span>'
         '<span class="sig-name descname">GzipFile</span>(<em>mode</em>)', "gzip.GzipFile"),
        ('<span class="kt">int</span> <span class="sig-name descname"><span class="n">'
         "PyObject_IsInstance</span></span>(PyObject *inst)", "PyObject_IsInstance"),
        ("<code>zip</code>(*iterables)", "zip"),
    ],
)  # fmt: skip
def test_an_api_entry_is_titled_by_its_name_alone(signature: str, title: str) -> None:
    """A signature's "class", "coroutine" or C return type stay in its text, not its title."""
    html = f'<h1>M</h1><dl><dt id="x">{signature}<a class="headerlink">¶</a></dt><dd>Doc.</dd></dl>'
    entry = extract_sections("/m.html", html)[1]
    assert entry.title == title
    assert entry.text == re.sub("<[^>]+>", "", signature) + "\nDoc."


def test_code_blocks_are_kept() -> None:
    """Readers search for function names, so code stays in the text."""
    texts = " ".join(row[4] for row in EXPECTED["sphinx"])
    assert ">>> json.dumps([1])" in texts
    assert "pip install demo\ndemo --version" in " ".join(row[4] for row in EXPECTED["mkdocs"])


def test_markdown_pages_are_addressed_as_html_and_html_wins() -> None:
    """a/b.md is /a/b.html; a built index.html beats index.md; hidden folders are skipped."""
    addresses = [row[0] for row in EXPECTED["markdown"]]
    assert "/guide/usage.html#options" in addresses
    assert tuple(EXPECTED["markdown"][-1][:2]) == ("/index.html", "Also index")
    assert not any("secret" in address for address in addresses)


def test_generated_and_asset_pages_are_skipped() -> None:
    """genindex, search, py-modindex and Sphinx's _static/_sources are not content."""
    pages = {row[0].partition("#")[0] for row in EXPECTED["sphinx"]}
    assert pages == {"/index.html", "/library/json.html"}


@pytest.mark.parametrize(
    "html",
    [
        "",
        "<h2 id='x'>",
        "</div></p></h1>stray end tags",
        "<div>" * 5000 + "deep" + "</span>" * 10,
        "<h1>Title<script>never closed",
        "<p>text <h2 id='a'>A<h2 id='a'>again</h2><table><td>cell",
        "<![CDATA[x]]><!-- unclosed comment",
    ],
)
def test_broken_html_never_crashes(html: str) -> None:
    """Any markup gives at least the page-top section and no exception."""
    sections = extract_sections("/broken.html", html)
    assert sections[0].address == "/broken.html"


def test_no_pages_is_a_clear_error(tmp_path: Path) -> None:
    """A folder without content pages names itself and what was expected."""
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "x.html").write_text("<h1>asset</h1>")
    with pytest.raises(DocsIndexError, match=r"no pages found under .*\.md"):
        extract_site(tmp_path)


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    """A path that is not a folder is reported as such."""
    with pytest.raises(DocsIndexError, match="is not a folder"):
        extract_site(tmp_path / "nope")


def test_undecodable_page_names_the_file(tmp_path: Path) -> None:
    """A page that is neither UTF-8 nor its declared charset names the file."""
    (tmp_path / "bad.html").write_bytes(b"<h1>caf\xe9 \xff</h1>")
    with pytest.raises(DocsIndexError, match=r"bad\.html.*UTF-8"):
        extract_site(tmp_path)


def test_declared_charset_is_honoured(tmp_path: Path) -> None:
    """A legacy page decodes with the charset its <meta> declares."""
    (tmp_path / "old.html").write_bytes(b'<meta charset="latin-1"><h1>Caf\xe9</h1>')
    assert extract_site(tmp_path).sections[0].title == "Café"


def test_output_folder_is_excluded_and_order_is_deterministic(tmp_path: Path) -> None:
    """The panel's own output is not indexed; pages come in sorted path order."""
    for name in ("b.html", "a/z.html", "a.html", "docs-panel/panel.html"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"<h1>{name}</h1>")
    first = extract_site(tmp_path, exclude=tmp_path / "docs-panel").sections
    assert [s.address for s in first] == ["/a.html", "/a/z.html", "/b.html"]
    assert extract_site(tmp_path, exclude=tmp_path / "docs-panel").sections == first


def test_links_count_the_other_pages_that_link_to_each_section() -> None:
    """A link counts for the section holding its target id, once per linking page;
    a page's links to itself and links off the site do not count."""
    links = {s.address: s.links for s in extract_site(SITES / "sphinx").sections}
    assert links["/library/json.html#json.dumps"] == 1  # from index.html, not from json.html
    assert links["/library/json.html"] == 1  # via an id inside the page top
    assert sum(links.values()) == 2


def test_links_resolve_relative_folder_and_markdown_targets(tmp_path: Path) -> None:
    """Relative paths, folder URLs (index.html) and .md targets resolve to page addresses."""
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "index.md").write_text("# Guide\n\nSee [setup](../setup.md#install).\n")
    (tmp_path / "setup.md").write_text("# Setup\n\n## Install\n\nBack to [the guide](guide/).\n")
    (tmp_path / "other.html").write_text(
        "<h1>Other</h1><p><a href='guide/index.html'>a</a> <a href='./guide/'>b</a>"
        " <a href='setup.html#install'>c</a> <a href='mailto:x@example.org'>d</a></p>"
    )
    links = {s.address: s.links for s in extract_site(tmp_path).sections}
    assert links == {
        "/guide/index.html": 2,
        "/other.html": 0,
        "/setup.html": 0,
        "/setup.html#install": 2,
    }


def test_general_index_entries_become_keywords_of_the_sections_they_point_into() -> None:
    """Sphinx's genindex: an entry's words (qualifiers dropped, nested under their
    parent entry) go to the section holding each target; unknown targets are dropped."""
    keywords = {
        s.address: s.keywords for s in extract_site(SITES / "sphinx").sections if s.keywords
    }
    assert keywords == {
        "/library/json.html": ("module json",),
        "/library/json.html#basic-usage": ("serialize to a JSON string",),
        "/library/json.html#json.dumps": ("dumps", "serialize to a JSON string"),
    }


@pytest.mark.parametrize(
    "head",
    [
        '<meta http-equiv="refresh" content="0; url=../guide/install.html">',
        '<meta http-equiv="Refresh" content="0; url=new.html">',
        '<meta name="robots" content="noindex, nofollow">',
    ],
)
def test_redirect_stubs_and_noindex_pages_have_no_sections(head: str) -> None:
    """A page that only redirects, or asks not to be indexed, contributes nothing."""
    assert extract_sections("/old.html", f"<head>{head}</head><h1>Moved</h1>") == []


def test_a_redirect_stub_in_a_site_is_skipped() -> None:
    """MkDocs' stubs for moved pages are not pages of the site."""
    pages = {s.page for s in extract_site(SITES / "mkdocs").sections}
    assert "/old/install.html" not in pages
    assert "/guide/install.html" in pages
