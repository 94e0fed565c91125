"""The demo docs site: its generator and the Tidewater pages it renders."""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from docs_panel.build.demo.pages import render_site, rewrite_links
from docs_panel.portable.errors import ConfigError
from tests.fixture_files import ROOT

SITE = ROOT / "site_demo"
DOCS = SITE / "docs"
SNIPPET = '<script>window.docsPanel = {"chat": false};</script><script src="/x/embed.js"></script>'


@dataclass
class ParsedPage:
    """What the tests need from one generated page."""

    ids: set[str] = field(default_factory=set)
    main_links: list[str] = field(default_factory=list)
    nav_links: list[str] = field(default_factory=list)
    current: list[str] = field(default_factory=list)
    stylesheets: list[str] = field(default_factory=list)
    header_links: list[str] = field(default_factory=list)
    lang: str | None = None
    main_h1: int = 0


class _PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.page = ParsedPage()
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag not in {"meta", "link", "br", "hr", "img", "input"}:
            self._open.append(tag)
        if attr.get("id"):
            self.page.ids.add(str(attr["id"]))
        if tag == "html":
            self.page.lang = attr.get("lang")
        if tag == "link" and attr.get("rel") == "stylesheet":
            self.page.stylesheets.append(str(attr["href"]))
        if tag == "h1" and "main" in self._open:
            self.page.main_h1 += 1
        if tag == "a" and attr.get("href") is not None:
            href = str(attr["href"])
            if "nav" in self._open:
                self.page.nav_links.append(href)
                if attr.get("aria-current") == "page":
                    self.page.current.append(href)
            elif "header" in self._open:
                self.page.header_links.append(href)
            elif "main" in self._open:
                self.page.main_links.append(href)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag) :]


def parse(path: Path) -> ParsedPage:
    parser = _PageParser()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.page


def resolve(page: str, href: str) -> tuple[str, str]:
    """Site-relative target page and fragment of a relative ``href`` on ``page``."""
    parts = urlsplit(href)
    if not parts.path:
        return page, parts.fragment
    return posixpath.normpath(posixpath.join(posixpath.dirname(page), parts.path)), parts.fragment


def is_internal(href: str) -> bool:
    return not urlsplit(href).scheme and not href.startswith("//")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    dest = tmp_path_factory.mktemp("demo")
    return dest, render_site(DOCS, dest, head_snippet=SNIPPET)


@pytest.fixture(scope="module")
def pages(built: tuple[Path, list[Path]]) -> dict[str, ParsedPage]:
    dest, _ = built
    return {p.relative_to(dest).as_posix(): parse(p) for p in sorted(dest.rglob("*.html"))}


def test_renders_every_markdown_page(pages: dict[str, ParsedPage]) -> None:
    """Every docs/**/*.md becomes the .html of the same path, and there are at least 25."""
    expected = {p.relative_to(DOCS).with_suffix(".html").as_posix() for p in DOCS.rglob("*.md")}
    assert set(pages) == expected
    assert len(pages) >= 25


def test_returns_exactly_the_written_files(built: tuple[Path, list[Path]]) -> None:
    """The returned list names every file in the output (pages and site.css), no more."""
    dest, written = built
    assert written == sorted(p for p in dest.rglob("*") if p.is_file())
    assert dest / "site.css" in written


def test_internal_links_resolve_to_pages_and_anchors(pages: dict[str, ParsedPage]) -> None:
    """Every local link in page content lands on a generated page and an existing id."""
    broken = []
    for name, page in pages.items():
        for href in filter(is_internal, page.main_links):
            target, fragment = resolve(name, href)
            if target not in pages or (fragment and fragment not in pages[target].ids):
                broken.append(f"{name}: {href}")
    assert broken == []


def test_content_links_between_pages(pages: dict[str, ParsedPage]) -> None:
    """Pages cross-link: most link to another page, and no link still points at a .md file."""
    linking = [
        name
        for name, page in pages.items()
        if any(resolve(name, h)[0] != name for h in page.main_links if is_internal(h))
    ]
    assert len(linking) == len(pages)
    assert [h for p in pages.values() for h in p.main_links if ".md" in h] == []


def test_nav_lists_every_page_and_marks_the_current_one(pages: dict[str, ParsedPage]) -> None:
    """Each sidebar links every page once and marks the page itself as current."""
    for name, page in pages.items():
        targets = [resolve(name, href)[0] for href in page.nav_links]
        assert sorted(targets) == sorted(pages), name
        assert [resolve(name, href)[0] for href in page.current] == [name]


def test_layout_hooks(pages: dict[str, ParsedPage]) -> None:
    """Each page: lang=en, the stylesheet, a header link home and one H1 inside <main>."""
    for name, page in pages.items():
        assert page.lang == "en"
        assert [resolve(name, href)[0] for href in page.stylesheets] == ["site.css"]
        assert [resolve(name, href)[0] for href in page.header_links] == ["index.html"]
        assert page.main_h1 == 1, name


def test_head_snippet_once_inside_head(built: tuple[Path, list[Path]]) -> None:
    """The head snippet appears exactly once per page, in <head>."""
    dest, _ = built
    for path in dest.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        assert text.count(SNIPPET) == 1, path
        assert text.index(SNIPPET) < text.index("</head>")


def test_output_is_deterministic(built: tuple[Path, list[Path]], tmp_path: Path) -> None:
    """A second render of the same input writes the same files with the same bytes."""
    dest, written = built
    again = render_site(DOCS, tmp_path, head_snippet=SNIPPET)
    assert [p.relative_to(tmp_path) for p in again] == [p.relative_to(dest) for p in written]
    for first, second in zip(written, again, strict=True):
        assert first.read_bytes() == second.read_bytes(), first


def test_dark_theme_hook(built: tuple[Path, list[Path]]) -> None:
    """?theme=dark sets data-theme on <html>, and site.css redefines every colour for it."""
    dest, _ = built
    for path in dest.rglob("*.html"):
        head = path.read_text(encoding="utf-8").partition("</head>")[0]
        assert 'get("theme") === "dark"' in head
        assert 'document.documentElement.dataset.theme = "dark"' in head
    css = (dest / "site.css").read_text(encoding="utf-8")
    light, _, rest = css.partition(":root {")[2].partition("}")
    dark = rest.partition('html[data-theme="dark"] {')[2].partition("}")[0]

    def names(block: str) -> set[str]:
        return {line.split(":")[0].strip() for line in block.splitlines() if "--" in line}

    assert names(light) and names(dark) == names(light)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('<a href="retries.md">', '<a href="retries.html">'),
        ('<a href="../guides/retries.md#jitter">', '<a href="../guides/retries.html#jitter">'),
        ('<a href="../index.md">', '<a href="../index.html">'),
        ('<a href="#jitter">', '<a href="#jitter">'),
        ('<a href="https://example.com/readme.md">', '<a href="https://example.com/readme.md">'),
        ('<a href="/guides/retries.md">', '<a href="/guides/retries.md">'),
        ('<a href="mailto:a@example.com">', '<a href="mailto:a@example.com">'),
        ('<a href="notes.mdx">', '<a href="notes.mdx">'),
    ],
)
def test_rewrite_links(body: str, expected: str) -> None:
    """Only relative links to .md pages change, to .html with the anchor kept."""
    assert rewrite_links(body) == expected


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_nav_order_follows_index_links(tmp_path: Path) -> None:
    """Sections and pages follow the order the index pages link them; unlinked pages go last."""
    write(
        tmp_path / "src",
        {
            "index.md": "# Product\n\n[B](b/index.md) then [A](a/x.md).\n",
            "a/x.md": "# X page\n",
            "b/index.md": "# B\n\n[2nd](second.md), [again](second.md), [1st](first.md#x).\n",
            "b/first.md": "# First\n",
            "b/second.md": "# Second\n",
            "b/another.md": "# Not linked\n",
        },
    )
    render_site(tmp_path / "src", tmp_path / "out", head_snippet="")
    page = parse(tmp_path / "out" / "index.html")
    assert page.nav_links == [
        "index.html",
        "b/index.html",
        "b/second.html",
        "b/first.html",
        "b/another.html",
        "a/x.html",
    ]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "no Markdown pages"),
        ({"index.md": "# Home\n", "a.md": "No heading here.\n"}, "no heading"),
        ({"guide.md": "# Guide\n"}, "no index.md"),
    ],
)
def test_unusable_input_raises_config_error(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    """An empty folder, a page without a heading or a missing home page is a clear ConfigError."""
    (tmp_path / "src").mkdir()
    write(tmp_path / "src", files)
    with pytest.raises(ConfigError, match=message):
        render_site(tmp_path / "src", tmp_path / "out", head_snippet="")


def test_questions_point_at_generated_pages(pages: dict[str, ParsedPage]) -> None:
    """Each demo question is distinct and expects a site-root address of a generated page."""
    questions = json.loads((SITE / "questions.json").read_text(encoding="utf-8"))
    assert len(questions) >= 25
    assert len({q["question"] for q in questions}) == len(questions)
    for q in questions:
        assert q["page"].startswith("/") and q["page"][1:] in pages, q
