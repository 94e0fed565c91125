"""Answer rendering: fixture cases, the XSS corpus, streaming and idempotence."""

import random
import re
from html.parser import HTMLParser

import pytest

from docs_panel.core.render import CLEANER, Cite, RenderUpdate, StreamingRenderer, render_answer
from docs_panel.portable.errors import ConfigError
from tests import fixture_files
from tests.fixture_files import fixture_cases

FIXTURES = fixture_files.FIXTURES / "render"
CASES = fixture_cases(FIXTURES / "cases.txt")
XSS = fixture_cases(FIXTURES / "xss.txt")
CLEANER_CASES = fixture_cases(FIXTURES / "cleaner.txt")
CITATION_CASES = fixture_cases(FIXTURES / "citations.txt")
SITE = "https://docs.example.org"
PAGES = frozenset(
    {"/", "/index.html", "/library/json.html", "/guide/%C3%A9.html", "/tutorial/intro.html"}
)

# The test's own allow-lists, written independently of the module's.
SAFE_TAGS = frozenset(
    {
        *("p", "br", "hr", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6"),
        *("em", "strong", "code", "pre", "a", "img", "ul", "ol", "li"),
        *("table", "thead", "tbody", "tr", "th", "td"),
    }
)
SAFE_ATTRIBUTES = frozenset({"href", "title", "rel", "target", "src", "alt", "class", "start"})
SAFE_HREF = re.compile(r"https?://[^/\\\s]|mailto:|/(?![/\\])")
SAME_SITE_SRC = re.compile(r"/(?![/\\])")
LANGUAGE_CLASS = re.compile(r"language-[a-z0-9+-]+")


# What citations.txt and the XSS checks cite: [1] a page in the index, [2] a page that
# is gone, [3] a root-relative path that tries to leave the site.
CITES = {1: "/library/json.html#basic", 2: "/gone.html#x", 3: "//evil.example/x"}


def render(markdown: str, cite: Cite | None = None) -> str:
    return render_answer(markdown, site_origin=SITE, page_exists=PAGES.__contains__, cite=cite)


def ids(cases: list[list[str]]) -> list[str]:
    return [f"{case[0]}-{case[1]}" for case in cases]


class _Elements(HTMLParser):
    """Collects every element with its attributes, and anything that is not plain markup."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.oddities: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_comment(self, data: str) -> None:
        self.oddities.append(f"comment {data!r}")

    def handle_decl(self, decl: str) -> None:
        self.oddities.append(f"declaration {decl!r}")

    def handle_pi(self, data: str) -> None:
        self.oddities.append(f"processing instruction {data!r}")

    def unknown_decl(self, data: str) -> None:
        self.oddities.append(f"declaration {data!r}")


def unsafe_parts(html: str) -> list[str]:
    """Everything in ``html`` that breaks the safety rules; empty when it is safe."""
    parser = _Elements()
    parser.feed(html)
    parser.close()
    problems = list(parser.oddities)
    if "<script" in html.lower():
        problems.append("a <script tag")
    for tag, attrs in parser.elements:
        if tag not in SAFE_TAGS:
            problems.append(f"tag <{tag}>")
        for name, value in attrs.items():
            text = value or ""
            if name not in SAFE_ATTRIBUTES:
                problems.append(f"attribute {name} on <{tag}>")
            elif name == "href" and not SAFE_HREF.match(text):
                problems.append(f"href {text!r}")
            elif name == "src" and not SAME_SITE_SRC.match(text):
                problems.append(f"src {text!r} off the site")
            elif name == "class" and not (
                LANGUAGE_CLASS.fullmatch(text) if tag == "code" else tag == "a" and text == "cite"
            ):
                problems.append(f"class {text!r} on <{tag}>")
        leaves_site = not SAME_SITE_SRC.match(attrs.get("href") or "/")
        if tag == "a" and leaves_site and attrs.get("target") != "_blank":
            problems.append(f"external link without target: {attrs}")
        if tag == "a" and leaves_site and attrs.get("rel") != "noopener noreferrer nofollow":
            problems.append(f"external link without rel: {attrs}")
    return problems


def pieces(text: str, seed: int) -> list[str]:
    """``text`` cut at random places into pieces of 1 to 8 characters."""
    rng = random.Random(seed)
    cuts: list[str] = []
    while text:
        size = rng.randint(1, 8)
        cuts.append(text[:size])
        text = text[size:]
    return cuts


def stream(text: str, seed: int) -> list[RenderUpdate]:
    renderer = StreamingRenderer(site_origin=SITE, page_exists=PAGES.__contains__)
    updates = [renderer.feed(piece) for piece in pieces(text, seed)]
    return [*updates, renderer.finish()]


def assembled(updates: list[RenderUpdate]) -> str:
    """What the shell shows at the end: every stable part, then the last tail."""
    return "".join(update.stable_html for update in updates) + updates[-1].tail_html


@pytest.mark.parametrize(("line", "title", "markdown", "expected"), CASES, ids=ids(CASES))
def test_case_renders_as_expected(line: int, title: str, markdown: str, expected: str) -> None:
    """Each Markdown case renders to exactly the expected HTML."""
    assert render(markdown) == expected


@pytest.mark.parametrize(("line", "title", "markdown", "expected"), XSS, ids=ids(XSS))
def test_xss_payload_renders_as_expected(
    line: int, title: str, markdown: str, expected: str
) -> None:
    """Each XSS payload renders to exactly the reviewed, harmless HTML."""
    assert render(markdown) == expected


def test_xss_corpus_is_large_enough() -> None:
    """The security corpus keeps at least 60 payloads."""
    assert len(XSS) >= 60


@pytest.mark.parametrize(("line", "title", "markdown", "expected"), XSS, ids=ids(XSS))
def test_xss_payload_output_is_safe(line: int, title: str, markdown: str, expected: str) -> None:
    """No payload yields a disallowed tag, attribute, link scheme or outside image."""
    assert unsafe_parts(render(markdown)) == []
    assert unsafe_parts(render(f"{markdown} [1] [3]", cite=CITES.get)) == []


@pytest.mark.parametrize(
    ("line", "title", "markdown", "expected"), CITATION_CASES, ids=ids(CITATION_CASES)
)
def test_citation_renders_as_expected(line: int, title: str, markdown: str, expected: str) -> None:
    """[n] links to the cited section only where it is a live, same-site page."""
    assert render(markdown, cite=CITES.get) == expected


def test_streamed_citations_match_whole_render() -> None:
    """Citations split across deltas link the same as in a whole render."""
    text = "".join(case[2] for case in CITATION_CASES)
    renderer = StreamingRenderer(site_origin=SITE, page_exists=PAGES.__contains__, cite=CITES.get)
    updates = [renderer.feed(piece) for piece in pieces(text, seed=7)]
    assert assembled([*updates, renderer.finish()]) == render(text, cite=CITES.get)


@pytest.mark.parametrize(("line", "title", "markdown", "expected"), XSS, ids=ids(XSS))
def test_streamed_xss_payload_is_safe_at_every_step(
    line: int, title: str, markdown: str, expected: str
) -> None:
    """Every stable part and every intermediate tail of a streamed payload is safe too."""
    for update in stream(markdown, seed=line):
        assert unsafe_parts(update.stable_html) == []
        assert unsafe_parts(update.tail_html) == []


@pytest.mark.parametrize(
    ("line", "title", "html", "expected"), CLEANER_CASES, ids=ids(CLEANER_CASES)
)
def test_cleaner_alone_removes_what_the_renderer_never_emits(
    line: int, title: str, html: str, expected: str
) -> None:
    """The bleach layer enforces the allow-lists by itself, as a backstop."""
    assert CLEANER.clean(html) == expected


def test_safety_check_catches_unsafe_html() -> None:
    """The structural check flags each kind of unsafe output it looks for."""
    problems = unsafe_parts(
        '<svg onload="x"></svg><img src="https://evil.example/"><p style="x" id="y"></p>'
        '<a href="https://python.org">b</a><code class="x y"></code><!-- c --><script>'
    )
    assert problems == [
        "comment ' c '",
        "a <script tag",
        "tag <svg>",
        "attribute onload on <svg>",
        "src 'https://evil.example/' off the site",
        "attribute style on <p>",
        "attribute id on <p>",
        "external link without target: {'href': 'https://python.org'}",
        "external link without rel: {'href': 'https://python.org'}",
        "class 'x y' on <code>",
        "tag <script>",
    ]
    assert unsafe_parts('<a href="java\tscript:x">a</a>') == [
        "href 'java\\tscript:x'",
        "external link without target: {'href': 'java\\tscript:x'}",
        "external link without rel: {'href': 'java\\tscript:x'}",
    ]


@pytest.mark.parametrize(
    ("line", "title", "markdown", "expected"), CASES + XSS, ids=ids(CASES + XSS)
)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_streaming_in_random_pieces_matches_whole_render(
    line: int, title: str, markdown: str, expected: str, seed: int
) -> None:
    """Stable parts plus the final tail equal the render of the whole text."""
    assert assembled(stream(markdown, seed)) == render(markdown)


@pytest.mark.parametrize(
    ("line", "title", "markdown", "expected"), CASES + XSS, ids=ids(CASES + XSS)
)
def test_cleaning_the_output_again_changes_nothing(
    line: int, title: str, markdown: str, expected: str
) -> None:
    """The cleaner is idempotent on every rendered fixture."""
    html = render(markdown)
    assert CLEANER.clean(html) == html


def test_closed_blocks_become_stable_before_the_answer_ends() -> None:
    """A finished block is handed out as stable while the answer still streams."""
    renderer = StreamingRenderer(site_origin=SITE, page_exists=PAGES.__contains__)
    first = renderer.feed("# Usage\n\nCall `dumps`")
    second = renderer.feed(" [1].\n\n```python\nx = 1\n\n")
    assert first == RenderUpdate("", "<h1>Usage</h1>\n<p>Call <code>dumps</code></p>\n")
    assert second.stable_html == "<h1>Usage</h1>\n<p>Call <code>dumps</code> [1].</p>\n"
    assert second.tail_html == '<pre><code class="language-python">x = 1\n\n</code></pre>\n'


def test_open_fence_and_list_are_not_split_at_blank_lines() -> None:
    """Blank lines inside an open fence or a list do not end the block."""
    renderer = StreamingRenderer(site_origin=SITE, page_exists=PAGES.__contains__)
    stable = renderer.feed("```\na\n\nb\n\n").stable_html
    stable += renderer.feed("```\n\n- one\n\n- two\n\n  more\n\n").stable_html
    assert stable == "<pre><code>a\n\nb\n\n</code></pre>\n"
    assert renderer.finish().stable_html == render("- one\n\n- two\n\n  more\n")


def test_tail_stays_small_over_a_long_answer() -> None:
    """Only the open block is re-rendered per delta, so the tail never grows with the answer."""
    answer = "".join(f"Paragraph {n} says something useful.\n\n" for n in range(100))
    updates = stream(answer, seed=7)
    assert max(len(update.tail_html) for update in updates) < 100
    assert assembled(updates) == render(answer)


def test_carriage_returns_split_across_deltas() -> None:
    """CRLF and CR line breaks stream like LF, even when a delta ends between \\r and \\n."""
    renderer = StreamingRenderer(site_origin=SITE, page_exists=PAGES.__contains__)
    deltas = ["# A\r", "\n\r", "\nb\rc\r\r", "\nd\r"]
    updates = [renderer.feed(delta) for delta in deltas] + [renderer.finish()]
    assert assembled(updates) == render("".join(deltas))
    assert updates[2].stable_html == "<h1>A</h1>\n"


def test_reference_definition_reaches_only_later_blocks_when_streaming() -> None:
    """A definition cannot relink a block already handed out; later blocks use it."""
    text = "Read [g].\n\nMore.\n\n[g]: /index.html\n\nAnd [g].\n"
    renderer = StreamingRenderer(site_origin=SITE, page_exists=PAGES.__contains__)
    updates = [renderer.feed(line) for line in text.splitlines(keepends=True)]
    assert assembled([*updates, renderer.finish()]) == (
        '<p>Read [g].</p>\n<p>More.</p>\n<p>And <a href="/index.html">g</a>.</p>\n'
    )


def test_reference_title_on_later_lines_is_not_cut_off() -> None:
    """A definition whose title continues on the next lines stays open until it is whole."""
    text = 'Intro.\n\n[r]: /index.html\n"a title\non two lines"\n\nSee [r].\n'
    renderer = StreamingRenderer(site_origin=SITE, page_exists=PAGES.__contains__)
    updates = [renderer.feed(line) for line in text.splitlines(keepends=True)]
    assert assembled([*updates, renderer.finish()]) == render(text)
    assert 'title="a title\non two lines"' in render(text)


def test_page_exists_gets_the_page_path_as_the_index_spells_it() -> None:
    """The docs index is asked about the path alone, percent-encoded as quote() does."""
    asked: list[str] = []

    def page_exists(path: str) -> bool:
        asked.append(path)
        return True

    markdown = "[a](/guide/é.html?x=1#top) [b](/guide/%c3%a9.html) [c](/api/f(x).html)"
    html = render_answer(markdown, site_origin=SITE, page_exists=page_exists)
    assert asked == ["/guide/%C3%A9.html", "/guide/%C3%A9.html", "/api/f%28x%29.html"]
    assert html == (
        '<p><a href="/guide/%C3%A9.html?x=1#top">a</a> <a href="/guide/%c3%a9.html">b</a>'
        ' <a href="/api/f(x).html">c</a></p>\n'
    )


@pytest.mark.parametrize(
    "origin", ["https://docs.example.org/", "HTTPS://Docs.Example.org:443", "http://[::1]:8000"]
)
def test_site_origin_spellings_are_accepted(origin: str) -> None:
    """A trailing slash, case, a default port and IPv6 hosts name the same site."""
    html = render_answer("[a](../x)", site_origin=origin, page_exists=lambda path: True)
    assert html == '<p><a href="/x">a</a></p>\n'


@pytest.mark.parametrize(
    "origin",
    [
        "docs.example.org",
        "https://docs.example.org/docs/",
        "https://docs.example.org?x",
        "https://user@docs.example.org",
        "https://docs.example.org:99999",
        "ftp://docs.example.org",
        "javascript:alert(1)",
        "",
    ],
)
def test_bad_site_origin_is_a_config_error(origin: str) -> None:
    """Anything but a bare http(s) origin is refused with a message naming site_origin."""
    with pytest.raises(ConfigError, match="site_origin"):
        render_answer("x", site_origin=origin, page_exists=PAGES.__contains__)
    with pytest.raises(ConfigError, match="site_origin"):
        StreamingRenderer(site_origin=origin, page_exists=PAGES.__contains__)
