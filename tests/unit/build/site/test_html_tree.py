"""html_tree: what libxml2 reads, as the tree the extractor's rules expect."""

from __future__ import annotations

import gc

from docs_panel.build.site.html_tree import Element, descendants, parse, text_of


def shape(element: Element) -> tuple[object, ...]:
    return (
        element.tag,
        element.attrs,
        [shape(c) if isinstance(c, Element) else c for c in element.children],
    )


def tags(html: str) -> list[str]:
    return [element.tag for element in descendants(parse(html))][1:]


def test_a_fragment_stays_a_fragment() -> None:
    # A template partial is told apart from a page by having no <html>.
    assert tags("{% for item in nav %}<li>{{ item }}") == ["li"]
    assert tags("<script>x()</script><p>text") == ["script", "p"]


def test_a_page_keeps_its_own_document_elements() -> None:
    html = "<!DOCTYPE html><html lang=fr><head><title>T</title></head><body><p>x</body></html>"
    assert tags(html) == ["html", "head", "title", "body", "p"]
    assert parse(html).children[0].attrs == {"lang": "fr"}  # type: ignore[union-attr]


def test_markup_after_the_end_of_the_page_stays_in_one_html() -> None:
    assert tags("<html><body><p>x</p></body></html>\n<p>after") == ["html", "body", "p", "p"]


def test_implied_end_tags() -> None:
    assert shape(parse("<h2>Title<p>one<p>two<ul><li>a<li>b</ul>")) == (
        "#document",
        {},
        [
            ("h2", {}, ["Title"]),
            ("p", {}, ["one"]),
            ("p", {}, ["two"]),
            ("ul", {}, [("li", {}, ["a"]), ("li", {}, ["b"])]),
        ],
    )


def test_text_is_one_string_between_tags_with_references_decoded() -> None:
    long = "word " * 20_000
    root = parse(f"<p>{long}&amp; &lt;b&gt; &#x41;&nbsp;</p>")
    assert root.children[0].children == [long + "& <b> A\xa0"]  # type: ignore[union-attr]


def test_comments_go_and_scripts_keep_their_text() -> None:
    root = parse("<div><!-- a note --><script>if (a < b) {}</script></div>")
    assert text_of(root) == "if (a < b) {}"


def test_broken_and_empty_markup_never_raises() -> None:
    assert parse("").children == []
    assert parse("   ").children == []
    assert text_of(parse("<div " + "<div>" * 5_000 + "deep")).endswith("deep")
    assert text_of(parse("<b><i>x</b>y</i>z")) == "xyz"


def test_a_dropped_tree_is_freed_without_the_cycle_collector() -> None:
    """lxml's parser and its target refer to each other: the tree must not hang on them,
    or every page read stays in memory until the cyclic collector runs."""
    gc.collect()
    was_on = gc.isenabled()
    gc.disable()
    try:
        parse("<main>" + "<div class='a b'><p>text <em>here</em></p></div>" * 300 + "</main>")
        left = gc.collect()
    finally:
        if was_on:
            gc.enable()
    assert left < 300  # the parser's own few objects, not the tree's thousands
