"""The docs index: build, load, search, lookup, versions, malformed payloads; question terms."""

from __future__ import annotations

import copy
import gc
import json
from dataclasses import replace

import pytest

from docs_panel.build.index_build import TEXT_LIMIT, build_index, split_index
from docs_panel.core.docs_index import Section, load_index
from docs_panel.core.index_ranking import page_share
from docs_panel.core.packed import pack, unpack
from docs_panel.core.text import query_terms
from docs_panel.portable.errors import DocsIndexError
from tests.fixture_files import FIXTURES, fixture_cases

SITES = FIXTURES / "sites"
SECTIONS = [
    Section(address, page_title, title, text, tuple(breadcrumb))
    for address, page_title, title, breadcrumb, text in json.loads(
        (SITES / "search_sections.json").read_text(encoding="utf-8")
    )
]
INDEX = load_index(json.loads(json.dumps(build_index(SECTIONS))))


def _cases(name: str) -> list[tuple[str, str, str]]:
    """(description, input, expected), the blocks without their final newline."""
    return [
        (description, given.removesuffix("\n"), expected.removesuffix("\n"))
        for _, description, given, expected in fixture_cases(SITES / name)
    ]


@pytest.mark.parametrize(("description", "query", "expected"), _cases("search_cases.txt"))
def test_ranking_fixture_cases(description: str, query: str, expected: str) -> None:
    """Each fixture query ranks its expected section first."""
    hits = INDEX.search(query)
    assert hits, description
    assert hits[0].section.address == expected, description


@pytest.mark.parametrize(("description", "question", "expected"), _cases("query_cases.txt"))
def test_question_terms_fixture_cases(description: str, question: str, expected: str) -> None:
    """A question's terms, one a line: ``term → aliases (weight)``, weight shown unless 1."""
    lines = [
        term.term
        + (f" → {' '.join(term.aliases)}" if term.aliases else "")
        + (f" ({term.weight:g})" if term.weight != 1 else "")
        for term in query_terms(question)
    ]
    assert lines == expected.split("\n"), description


def test_an_alias_counts_less_than_the_readers_own_word() -> None:
    """Of two sections alike but for using the reader's word or its alias, the reader's wins."""
    index = load_index(
        build_index(
            [
                Section("/a.html", "A", "Directory tools", "Make a directory."),
                Section("/b.html", "B", "Folder tools", "Make a folder."),
            ]
        )
    )
    assert [hit.section.address for hit in index.search("folder")] == ["/b.html", "/a.html"]


def test_release_notes_rank_below_the_same_match_unless_asked_about_changes() -> None:
    """A changelog page loses a tie to a guide page, but not when the question is about changes."""
    text = "Retry a failed job with exponential backoff."
    index = load_index(
        build_index(
            [
                Section("/whatsnew/2.0.html", "Retries", "Retries", text),
                Section("/guide/retries.html", "Retries", "Retries", text),
            ]
        )
    )
    assert index.search("retry backoff")[0].section.page == "/guide/retries.html"
    assert index.search("what is new in retry backoff")[0].section.page == "/whatsnew/2.0.html"


def test_sections_other_pages_link_to_rank_first_among_equals() -> None:
    """Of two same-named entries, the one the docs cross-reference ranks first."""
    index = load_index(
        build_index(
            [
                Section("/a.html#round", "A", "round", "round(number) rounds a number."),
                Section("/b.html#round", "B", "round", "round(number) rounds a number.", links=5),
            ]
        )
    )
    assert [hit.section.address for hit in index.search("round")] == [
        "/b.html#round",
        "/a.html#round",
    ]


def test_prefix_keeps_only_that_scope() -> None:
    """A scope prefix filters results by address."""
    hits = INDEX.search("request", prefix="/api/")
    assert hits
    assert all(hit.section.address.startswith("/api/") for hit in hits)
    assert any(not hit.section.address.startswith("/api/") for hit in INDEX.search("request"))


def test_scores_are_normalized_and_the_best_comes_first() -> None:
    """Scores lie in [0, 1]; the first hit has the best score (the one the gate reads)."""
    for query in ("json", "os.path.join", "decoder json text", "request timeout seconds"):
        scores = [hit.score for hit in INDEX.search(query)]
        assert scores
        assert all(0.0 <= score <= 1.0 for score in scores)
        assert scores[0] == max(scores)


def test_words_the_docs_never_use_lower_the_score() -> None:
    """The score is relative to the whole question, so unknown words pull it down."""
    alone = INDEX.search("decoder")[0].score
    diluted = INDEX.search("decoder kubernetes ingress")[0].score
    assert diluted < alone / 2


@pytest.mark.parametrize("query", ["", "   ", "how do I do it", "?!"])
def test_empty_or_stopword_queries_find_nothing(query: str) -> None:
    """Nothing to search for gives no results."""
    assert INDEX.search(query) == []


def test_limit_and_one_section_per_page_first() -> None:
    """`limit` caps the list; a page's second section comes after other pages' best."""
    hits = INDEX.search("json decoder", limit=3)
    assert len(hits) == 3
    pages = [hit.section.page for hit in hits]
    assert pages[:2] == list(dict.fromkeys(pages))[:2]
    assert len(set(pages[:2])) == 2


def test_snippet_is_short_plain_text_around_the_match() -> None:
    """The snippet shows the matched words, is at most ~200 characters, marks cuts."""
    text = "Filler words here. " * 30 + "The retry budget is small. " + "More filler. " * 30
    index = load_index(build_index([Section("/p.html", "P", "P", text)]))
    snippet = index.search("retry budget")[0].snippet
    assert "retry budget" in snippet
    assert len(snippet) <= 202
    assert snippet.startswith("…")
    assert snippet.endswith("…")


def test_a_loaded_index_is_out_of_the_cyclic_collectors_reach() -> None:
    """Loading freezes the index's objects, so no collection during a search walks them."""
    gc.unfreeze()
    load_index(json.loads(json.dumps(build_index(SECTIONS))))
    assert gc.get_freeze_count() > 0


def test_lookup_and_has_page() -> None:
    """Sections are found by exact address; pages by path without anchor."""
    section = INDEX.lookup("/lib/json.html#decoders")
    assert section == SECTIONS[1]
    assert INDEX.lookup("/lib/json.html#nope") is None
    assert INDEX.has_page("/lib/json.html")
    assert not INDEX.has_page("/lib/json.html#decoders")
    assert not INDEX.has_page("/missing.html")


def test_payload_round_trips_through_json() -> None:
    """Every section comes back equal after build -> JSON -> load."""
    payload = build_index(SECTIONS)
    assert payload["format"] == 7
    loaded = load_index(json.loads(json.dumps(payload, ensure_ascii=False)))
    assert [loaded.lookup(section.address) for section in SECTIONS] == SECTIONS
    assert loaded.version == payload["version"]
    assert len(loaded) == len(SECTIONS)


def _split(part_bytes: int = 400) -> tuple[dict[str, object], dict[str, object]]:
    """The fixture's payload split into small parts, files named by key."""
    head, parts = split_index(build_index(SECTIONS), part_bytes, split_bytes=0)
    head["parts"]["files"] = {key: f"{key}.json" for key in parts}
    return head, parts


@pytest.mark.parametrize("query", ["json dumps indent", "decode a JSON document", "zzz"])
def test_a_split_index_searches_as_one_piece_once_its_parts_are_added(query: str) -> None:
    """Parts come in two rounds (postings, then the hits' texts); the hits are the same."""
    head, parts = _split()
    assert "terms" not in head and "text" not in head["sections"]  # type: ignore[operator]
    index = load_index(json.loads(json.dumps(head)))
    rounds = 0
    while needed := index.parts_needed(query, addresses=["/lib/json.html#decoders"]):
        assert len(needed) < len(parts)
        for key in needed:
            index.add_part(key, json.loads(json.dumps(parts[key])))
        rounds += 1
    assert rounds == 2
    assert index.search(query) == INDEX.search(query)
    assert index.lookup("/lib/json.html#decoders") == SECTIONS[1]


def test_a_split_index_refuses_to_search_or_show_what_was_not_added() -> None:
    """A search or a section whose parts are missing is a clear error, not an empty result."""
    head, parts = _split()
    index = load_index(head)
    with pytest.raises(DocsIndexError, match="parts_needed"):
        index.search("json")
    for key in index.parts_needed("json"):
        index.add_part(key, parts[key])
    with pytest.raises(DocsIndexError, match="parts_needed"):
        index.search("json")
    with pytest.raises(DocsIndexError, match="page titles come with its text parts"):
        index.pages()
    address = "/lib/json.html#decoders"
    assert index.page_title(address) is None  # a page's title comes with its text part
    while needed := index.parts_needed("zzz", addresses=[address]):
        for key in needed:
            index.add_part(key, parts[key])
    assert index.page_title(address) == SECTIONS[1].page_title


def test_a_split_index_reads_a_pages_anchors_from_its_text_parts() -> None:
    """The head has no anchors; an address asks for its page's text parts, and only then
    is it found, or known to be gone."""
    head, parts = _split()
    assert "anchor" not in head["sections"]  # type: ignore[operator]
    index = load_index(head)
    address = "/lib/json.html#decoders"
    with pytest.raises(DocsIndexError, match="parts_needed"):
        index.lookup(address)
    texts = []
    while needed := index.parts_needed("zzz", addresses=[address, "/elsewhere.html"]):
        for key in needed:
            index.add_part(key, parts[key])
        texts += [key for key in needed if key.startswith("text")]
    assert 0 < len(texts) < len([key for key in parts if key.startswith("text")])
    assert index.lookup(address) == SECTIONS[1]
    assert index.lookup("/lib/json.html#gone") is None


def test_a_pages_sections_come_together_and_its_count_says_which() -> None:
    """build_index puts a page's sections together whatever order they came in; the
    pages' counts say each section's page, and counts that do not add up are refused."""
    shuffled = [SECTIONS[0], SECTIONS[-1], *SECTIONS[1:-1]]
    index = load_index(build_index(shuffled))
    for section in SECTIONS:
        assert section in index.page_sections(section.address)
    head, _ = _split()
    counts = unpack(head["pages"]["sections"])  # type: ignore[index]
    head["pages"]["sections"] = pack([*counts[:-1], counts[-1] + 1])  # type: ignore[index]
    with pytest.raises(DocsIndexError, match="add up"):
        load_index(head)


@pytest.mark.parametrize(
    ("key", "payload"),
    [
        ("text-0", ["too few"]),
        ("text-0", {"text": ["a"]}),
        ("terms-0", {"zzzz": "00/00"}),
        ("nope-1", []),
    ],
)
def test_a_part_that_does_not_fit_is_rejected(key: str, payload: object) -> None:
    """A part of the wrong length, kind or terms (a stale or damaged file) raises."""
    index = load_index(_split()[0])
    with pytest.raises(DocsIndexError, match="part"):
        index.add_part(key, payload)


def test_a_text_part_carries_the_titles_of_its_pages() -> None:
    """A text part without its pages' titles, or with one too many, raises."""
    head, parts = _split()
    text = dict(parts["text-0"])  # type: ignore[call-overload]
    titles = text.pop("page_title")
    for payload in (text, text | {"page_title": [*titles, "One too many"]}):
        with pytest.raises(DocsIndexError, match="text-0 does not fit"):
            load_index(head).add_part("text-0", payload)


def test_long_text_is_capped_but_fully_searchable() -> None:
    """Stored text is capped; a word past the cap is still found."""
    text = "alpha " * (TEXT_LIMIT // 3) + "zebra"
    index = load_index(build_index([Section("/long.html", "Long", "Long", text)]))
    assert len(index.lookup("/long.html").text) <= TEXT_LIMIT + 2  # type: ignore[union-attr]
    assert index.search("zebra")[0].section.address == "/long.html"


def test_version_is_stable_and_tracks_content() -> None:
    """Same input gives the same bytes; one changed word changes the version."""
    first = json.dumps(build_index(SECTIONS), ensure_ascii=False)
    assert json.dumps(build_index(SECTIONS), ensure_ascii=False) == first
    last = replace(SECTIONS[-1], text=SECTIONS[-1].text.replace("first", "second"))
    changed = [*SECTIONS[:-1], last]
    assert build_index(changed)["version"] != build_index(SECTIONS)["version"]


def _broken(path: tuple[object, ...], value: object) -> dict[str, object]:
    payload = copy.deepcopy(build_index(SECTIONS))
    target: object = payload
    for key in path[:-1]:
        target = target[key]  # type: ignore[index]
    target[path[-1]] = value  # type: ignore[index]
    return payload


_COUNT = len(SECTIONS)
_PAGES = len({section.page for section in SECTIONS})


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ([], "JSON object"),
        ({"format": 2}, "format 2"),
        (_broken(("version",), ""), "no version"),
        (_broken(("pages",), ["/p.html"]), "'pages'"),
        (_broken(("pages", "title"), ["P"]), "'pages'"),
        (_broken(("sections", "title"), "T"), "'sections'"),
        (_broken(("sections", "text"), [1] * _COUNT), "'sections'"),
        (_broken(("sections", "anchor"), [""] * (_COUNT - 1)), "'sections'"),
        (_broken(("sections", "links"), " " * _COUNT), "'sections'"),
        (_broken(("pages", "sections"), pack([0] * _PAGES)), "add up"),
        (_broken(("terms",), ["json"]), "'terms'"),
        (_broken(("terms", "json"), 5), "'terms'"),
        (_broken(("parts",), {"text": "0", "terms": [], "files": {}}), "'parts'"),
        (_broken(("parts",), {"text": "", "terms": ["b", "a"], "files": {}}), "'parts'"),
        (_broken(("parts",), []), "'parts'"),
    ],
)
def test_malformed_payloads_are_rejected_on_load(payload: object, message: str) -> None:
    """Each kind of damage gives a DocsIndexError that says what is wrong."""
    with pytest.raises(DocsIndexError, match=message):
        load_index(payload)


@pytest.mark.parametrize(
    ("postings", "message"),
    [
        ("3", "corrupt"),
        ("12", "corrupt"),
        ("  /", "corrupt"),
        ("1" + pack([200]) + "/", "corrupt"),
        ("00/0" + pack([200]), "corrupt"),
        (pack([9999]) + "0/", "past the sections"),
        ("00/" + pack([999]) + "0", "past the pages"),
    ],
)
def test_corrupt_postings_fail_on_search(postings: str, message: str) -> None:
    """Postings are decoded lazily; damage is reported when a query reaches it."""
    index = load_index(_broken(("terms", "json"), postings))
    with pytest.raises(DocsIndexError, match=message):
        index.search("json")


def test_the_sites_own_index_words_find_a_section_and_are_not_stored() -> None:
    """Keywords (general index entries) make a section findable by words its
    text lacks; the loaded section comes back without them."""
    walrus = Section(
        "/ref.html#index-86",
        "Ref",
        "Assignment expressions",
        "x := 1 binds x.",
        keywords=("walrus operator",),
    )
    other = Section("/other.html", "Other", "Operators", "The operator module.")
    index = load_index(build_index([walrus, other]))
    assert index.search("walrus operator")[0].section == replace(walrus, keywords=())


def test_a_common_word_only_ranks_sections_a_rarer_word_found() -> None:
    """In a large index, a word in most sections adds to what the rare word
    matched and brings in nothing of its own; alone, it still finds them all."""
    sections = [Section(f"/p{n}.html", "P", f"Page {n}", "common words here") for n in range(600)]
    sections.append(Section("/rare.html", "R", "Rare", "a zebra among common words"))
    index = load_index(build_index(sections))
    assert [hit.section.page for hit in index.search("zebra common", limit=5)] == ["/rare.html"]
    assert len(index.search("common", limit=5)) == 5


@pytest.mark.parametrize("numbers", [[], [0], [0, 1, 79, 80, 207, 208, 60000, 0xD800, 10**6]])
def test_packed_numbers_round_trip(numbers: list[int]) -> None:
    """Any numbers, one-byte, wide and past the surrogate block, come back as packed."""
    assert unpack(pack(numbers)) == numbers
    assert unpack(" ") == [-16]  # a character pack never writes reads as damage


@pytest.mark.parametrize(
    ("pages", "share"), [(1, 0.5), (50, 0.5), (158, 0.55), (500, 0.6), (20000, 0.6)]
)
def test_the_pages_share_grows_with_the_site(pages: int, share: float) -> None:
    """A page's evidence counts more on a large site, within PAGE_SHARES."""
    assert page_share(pages) == pytest.approx(share, abs=0.001)


def test_a_reader_gets_pages_in_their_language_else_the_main_ones() -> None:
    """A French reader gets the French page where there is one, the English page where
    there is none, and never another language's; an English reader only English pages."""
    sections = [
        Section("/guide/retry.html", "Retry", "Retry", "Jobs retry five times.", language="en"),
        Section("/fr/guide/retry.html", "Retry", "Retry", "Jobs retry cinq fois.", language="fr"),
        Section("/zh/guide/retry.html", "Retry", "Retry", "Jobs retry 五次.", language="zh"),
        Section("/guide/queues.html", "Queues", "Queues", "Jobs wait in queues.", language="en"),
    ]
    index = load_index(json.loads(json.dumps(build_index(sections, "en"))))

    def pages(language: str) -> set[str]:
        return {hit.section.page for hit in index.search("jobs", language=language)}

    assert pages("fr-CA") == {"/fr/guide/retry.html", "/guide/queues.html"}
    assert pages("en") == pages("") == pages("de") == {"/guide/retry.html", "/guide/queues.html"}
    assert pages("zh-hans") == {"/zh/guide/retry.html", "/guide/queues.html"}
    assert index.lookup("/fr/guide/retry.html").language == "fr"  # type: ignore[union-attr]


def test_a_reader_on_a_page_that_declares_no_language_reads_the_pages_language() -> None:
    """A page with no ``<html lang>`` on a site whose languages are folders: the reader
    reads the language the build read that page in, so a Chinese reader's question is
    cut and answered as Chinese."""
    sections = [
        Section("/en-US/apt.html", "APT", "APT", "Install packages with apt.", language="en-us"),
        Section("/zh-CN/apt.html", "APT", "APT", "使用 apt 安装软件包。", language="zh-cn"),
    ]
    index = load_index(json.loads(json.dumps(build_index(sections, "en-us"))))
    assert index.reader_language("", "/zh-CN/apt.html") == "zh-cn"
    assert index.reader_language("", "/en-US/apt.html") == ""  # the main language
    assert index.reader_language("fr", "/zh-CN/apt.html") == "fr"  # what the page declared
    assert index.reader_language("", "/elsewhere.html") == ""
    language = index.reader_language("", "/zh-CN/apt.html")
    assert [hit.section.page for hit in index.search("怎么安装软件包", language=language)] == [
        "/zh-CN/apt.html"
    ]


def test_release_notes_are_known_by_path_or_a_versioned_post() -> None:
    from docs_panel.build.index_build import release_notes

    assert release_notes("/blog/2023/11/13/3.1.0/index.html", "Prettier 3.1: ternaries")
    assert release_notes("/posts/launch.html", "Lumen 2.1.0 is out")
    assert release_notes("/whatsnew/3.12.html", "What's New In Python 3.12")
    assert not release_notes("/blog/2023/rationale/index.html", "Why we format")
    assert not release_notes("/guide/install.html", "Install 2.0 on Windows")


def test_a_page_is_known_however_the_site_spells_its_address() -> None:
    """A link to /docs/install or /docs/install/ in a restored answer stays a link when
    the index has /docs/install/index.html; a page the index lacks does not."""
    index = load_index(build_index([Section("/docs/install/index.html", "I", "I", "Install.")]))
    assert index.has_page("/docs/install/index.html")
    assert index.has_page("/docs/install") and index.has_page("/docs/install/")
    assert not index.has_page("/docs/upgrade/") and not index.has_page("/docs")
