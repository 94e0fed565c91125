"""Dense recall: pages the words miss still become candidates when their meaning is
close, within the reader's scope and language, and a split index fetches only the
closest clusters' page vectors (``tests.fake_embeddings`` as the model)."""

from __future__ import annotations

import io
import json

import pytest

from docs_panel.build.index_build import Embedded, build_index, split_index
from docs_panel.build.site.embeddings import embed_sections
from docs_panel.build.site.extract import extract_site
from docs_panel.core import dense_recall
from docs_panel.core.docs_index import DocsIndex, Section, load_index
from docs_panel.core.vectors import encode
from docs_panel.portable.errors import DocsIndexError
from tests.fake_embeddings import DIMENSION, MODEL, vector
from tests.fixture_files import FIXTURES
from tests.unit.core.test_vectors import FakeClient, MemoryCache

SITE = FIXTURES / "hybrid"
UNSAID = "freeze"  # no page says it; time.sleep means it ("pause", "Suspend")


def _index() -> DocsIndex:
    sections = extract_site(SITE).sections
    made = embed_sections(sections, FakeClient(), MemoryCache(), progress=io.StringIO())  # type: ignore[arg-type]
    return load_index(json.loads(json.dumps(build_index(sections, "en", made))))


def test_a_page_the_words_miss_is_found_by_meaning() -> None:
    index = _index()
    assert index.search(UNSAID) == []
    hits = index.search(UNSAID, question_vector=vector(UNSAID))
    assert hits[0].section.address == "/time.html#time.sleep"


def test_recall_keeps_to_the_readers_scope() -> None:
    index = _index()
    hits = index.search(UNSAID, prefix="/threading", question_vector=vector(UNSAID))
    assert hits and {hit.section.page for hit in hits} == {"/threading.html"}


def test_a_split_index_fetches_only_the_closest_clusters(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages about six things, in clusters of about 16: a question reads PROBES
    clusters' page vectors, and recalls the page its words miss."""
    monkeypatch.setattr(dense_recall, "CLUSTER_PAGES", 16)
    words = ("threads", "retry", "hours")
    topics = [*words, *(f"{a} {b}" for a in words for b in words if a < b)]
    sections = [Section(f"/p{n}.html", f"P{n}", f"Page {n}", topics[n % 6]) for n in range(90)]
    sections.append(Section("/sleep.html", "Sleep", "Sleep", "suspend execution: pause"))
    codes = {s.address: encode(vector(s.text)) for s in sections}
    payload = build_index(sections, "en", Embedded(MODEL, DIMENSION, codes))
    head, parts = split_index(payload, part_bytes=512, split_bytes=0)
    clusters = [key for key in parts if key.startswith("recall-")]
    assert len(clusters) > dense_recall.PROBES
    head["parts"]["files"] = {key: key for key in parts}
    index = load_index(json.loads(json.dumps(head)))
    fetched: list[str] = []
    while needed := index.parts_needed(UNSAID, question_vector=vector(UNSAID)):
        fetched += needed
        for key in needed:
            index.add_part(key, json.loads(json.dumps(parts[key])))
    assert len([key for key in fetched if key.startswith("recall-")]) == dense_recall.PROBES
    hits = index.search(UNSAID, question_vector=vector(UNSAID))
    assert hits[0].section.address == "/sleep.html"


def test_a_recall_cluster_that_does_not_fit_is_refused() -> None:
    payload = json.loads(json.dumps(build_index(extract_site(SITE).sections, "en")))
    assert "embeddings" not in payload  # a lexical index has no recall either
    recall = dense_recall.Recall.load({"centroids": ["AA=="], "clusters": [None]}, pages=3)
    with pytest.raises(DocsIndexError, match="recall-0 does not fit"):
        recall.add(0, ["0", ["a", "b"]])  # two codes for one page
    with pytest.raises(DocsIndexError, match="recall-0 does not fit"):
        recall.add(0, ["3", ["a"]])  # page 3 of 3
    with pytest.raises(DocsIndexError, match="recall-0 does not fit"):
        recall.add(0, ["", []])  # no page
