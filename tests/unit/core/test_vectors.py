"""Hybrid retrieval: section vectors in the index, fused with lexical ranking.

The model is ``tests.fake_embeddings`` (deterministic "meaning" axes), so these
check the plumbing and the fusion's arithmetic, not a model's quality (that is
``bench/retrieval.py --embeddings``)."""

from __future__ import annotations

import io
import json
import re
import sqlite3
from dataclasses import replace
from operator import mul
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docs_panel.build.index_build import Embedded, build_index, split_index
from docs_panel.build.runtime.bundle import INDEX_PART
from docs_panel.build.runtime.twins import hashed_name
from docs_panel.build.site.embeddings import VectorCache, embed_sections, passage
from docs_panel.build.site.extract import extract_site
from docs_panel.core.docs_index import DocsIndex, Section, load_index
from docs_panel.core.embedding_roles import Role
from docs_panel.core.vectors import decode, encode, scorer
from docs_panel.portable.errors import DocsIndexError
from tests.fake_embeddings import DIMENSION, MODEL, vector
from tests.fixture_files import FIXTURES

SITE = FIXTURES / "hybrid"
QUESTION = "freeze the script for two seconds"


class FakeClient:
    model = MODEL
    role = Role()

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.texts += texts
        return [vector(text) for text in texts]


class MemoryCache:
    def __init__(self) -> None:
        self.rows: dict[str, list[float]] = {}

    key = staticmethod(lambda model, text, role: f"{model}|{role}|{text}")

    def get(self, keys: object) -> dict[str, list[float]]:
        return {key: self.rows[key] for key in keys if key in self.rows}  # type: ignore[attr-defined]

    def put(self, rows: dict[str, list[float]]) -> None:
        self.rows.update(rows)


def _embedded(sections: list[Section]) -> Embedded:
    return embed_sections(sections, FakeClient(), MemoryCache(), progress=io.StringIO())  # type: ignore[arg-type]


def _index(sections: list[Section]) -> DocsIndex:
    payload = build_index(sections, "en", _embedded(sections))
    return load_index(json.loads(json.dumps(payload)))


def test_meaning_lifts_the_page_words_alone_rank_second() -> None:
    """ "pause … seconds": datetime says "seconds" most, time.sleep means "pause"."""
    sections = extract_site(SITE).sections
    index = _index(sections)
    lexical = [hit.section.page for hit in index.search(QUESTION)]
    fused = [hit.section for hit in index.search(QUESTION, question_vector=vector(QUESTION))]
    assert lexical[0] == "/datetime.html"
    assert fused[0].address == "/time.html#time.sleep"  # the closest section leads its page
    assert {hit.section.page for hit in index.search(QUESTION)} <= {s.page for s in fused}


def test_a_rebuild_embeds_only_what_changed(tmp_path: Path) -> None:
    """The cache keeps every vector by model and passage: a rebuild sends only the
    sections whose text changed."""
    client, cache, quiet = FakeClient(), MemoryCache(), io.StringIO()
    sections = extract_site(SITE).sections
    first = embed_sections(sections, client, cache, progress=quiet)  # type: ignore[arg-type]
    assert len(client.texts) == len(sections)
    edited = [replace(sections[0], text="Suspend the thread."), *sections[1:]]
    again = embed_sections(edited, client, cache, progress=quiet)  # type: ignore[arg-type]
    assert client.texts[len(sections) :] == [passage(edited[0])]
    assert again.codes.keys() == first.codes.keys()
    assert "embedding sections 1/1 (100%)" in quiet.getvalue()
    assert "\r" not in quiet.getvalue()  # a log gets lines, a terminal one redrawn line


def test_the_cache_keeps_whole_vectors_and_drops_an_older_releases_codes(tmp_path: Path) -> None:
    """Vectors are cached as float32, so another code form needs no new embedding."""
    path = tmp_path / "cache.sqlite3"
    with sqlite3.connect(path) as old:
        old.execute("CREATE TABLE vectors (key TEXT PRIMARY KEY, code TEXT)")
    cache = VectorCache(path)
    cache.put({"a": [0.25, -0.5, 1 / 3]})
    assert cache.get(["a", "b"]) == {"a": [0.25, -0.5, pytest.approx(1 / 3)]}
    cache.close()
    with sqlite3.connect(path) as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert "vectors" not in tables


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 40).flatmap(
        lambda n: st.tuples(*[st.lists(st.floats(-1, 1), min_size=n, max_size=n)] * 2)
    )
)
def test_a_sign_code_scores_as_the_cosine_with_its_sign_vector(
    pair: tuple[list[float], list[float]],
) -> None:
    question, section = pair
    signs = decode(encode(section), len(section))
    assert [x >= 0 for x in section] == [x > 0 for x in signs]
    expected = sum(map(mul, question, signs))
    assert scorer(question)(encode(section)) == pytest.approx(expected, abs=1e-9)


def test_an_index_of_another_code_form_is_refused() -> None:
    payload = build_index(extract_site(SITE).sections, "en", _embedded(extract_site(SITE).sections))
    payload["embeddings"]["codes"] = "int8"  # type: ignore[index]
    with pytest.raises(DocsIndexError, match="'int8', not 'sign-bits'; rebuild"):
        load_index(payload)


def test_a_question_vector_of_another_dimension_is_refused() -> None:
    index = _index(extract_site(SITE).sections)
    with pytest.raises(DocsIndexError, match=f"has {DIMENSION}"):
        index.search(QUESTION, question_vector=[1.0, 0.0])


def test_a_lexical_index_has_no_trace_of_vectors() -> None:
    """A site built without --embeddings gets the same payload as before hybrid retrieval."""
    sections = extract_site(SITE).sections
    payload = build_index(sections, "en")
    assert "embeddings" not in payload and "vector" not in payload["sections"]  # type: ignore[operator]
    index = load_index(payload)
    assert index.embedding_model == "" and index.search(QUESTION, question_vector=[1.0] * 5)


def test_a_split_index_fetches_vectors_of_its_candidates_then_texts() -> None:
    """Postings first, then the closest recall clusters, then the vector parts of the
    candidate pages, then the hits' texts."""
    sections = [
        Section(f"/p{n}.html", f"P{n}", f"Page {n}", f"seconds {'pause ' * (n % 3)} x{n}")
        for n in range(60)
    ]
    codes = {s.address: encode(vector(s.text)) for s in sections}
    payload = build_index(sections, "en", Embedded(MODEL, DIMENSION, codes))
    head, parts = split_index(payload, part_bytes=512, split_bytes=0)
    assert any(key.startswith("vectors-") for key in parts)
    # every part's file fits the rule the loader answers parts by (it once left out vectors)
    assert all(re.fullmatch(INDEX_PART, hashed_name(f"index-{key}.json", b"")) for key in parts)
    head["parts"]["files"] = {key: key for key in parts}
    index = load_index(json.loads(json.dumps(head)))
    asked: list[list[str]] = []
    while needed := index.parts_needed(QUESTION, question_vector=vector(QUESTION)):
        asked.append(sorted({key.partition("-")[0] for key in needed}))
        for key in needed:
            index.add_part(key, json.loads(json.dumps(parts[key])))
    assert asked == [["terms"], ["recall"], ["vectors"], ["text"]]
    assert index.search(QUESTION, question_vector=vector(QUESTION))
