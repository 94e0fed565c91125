"""Roles for retrieval models: the passages are asked for on their side at build time,
the index records both sides, and questions go on the query side; a server that
must be told the side (``FakeEmbeddings(roles=True)``, as e5 is) refuses a text
that does not say it."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from docs_panel.build.cli import main
from docs_panel.build.index_build import build_index
from docs_panel.build.site.embeddings import (
    EmbeddingsClient,
    EmbeddingsError,
    VectorCache,
    embed_sections,
)
from docs_panel.build.site.extract import extract_site
from docs_panel.core.docs_index import load_index
from docs_panel.core.embedding_roles import Role
from docs_panel.core.question_embedding import mismatch, query_role, request_body, vector_from
from tests.fake_embeddings import MODEL, FakeEmbeddings
from tests.fixture_files import FIXTURES

SITE = FIXTURES / "hybrid"
QUESTION = "freeze the script for two seconds"
E5 = {"query": Role(prefix="query: "), "passage": Role(prefix="passage: ")}


@pytest.fixture(scope="module")
def roles() -> Iterator[FakeEmbeddings]:
    server = FakeEmbeddings(roles=True)
    yield server
    server.close()


def _payload(server: FakeEmbeddings, tmp_path: Path, **sides: Role) -> dict[str, object]:
    sections = extract_site(SITE).sections
    client = EmbeddingsClient(server.url, MODEL, sides.get("passage", Role()))
    cache = VectorCache(tmp_path / "vectors.sqlite3")
    try:
        made = embed_sections(
            sections, client, cache, progress=io.StringIO(), query=sides.get("query", Role())
        )
    finally:
        cache.close()
    return json.loads(json.dumps(build_index(sections, "en", made)))


def test_a_role_needing_server_refuses_a_build_that_does_not_say_the_side(
    roles: FakeEmbeddings, tmp_path: Path
) -> None:
    with pytest.raises(EmbeddingsError, match="HTTP 400: say each text's side"):
        _payload(roles, tmp_path)


def test_passages_and_questions_go_on_their_sides(roles: FakeEmbeddings, tmp_path: Path) -> None:
    roles.requests[:] = []
    index = load_index(_payload(roles, tmp_path, **E5))
    sent = [text for body in roles.requests for text in body["input"]]  # type: ignore[attr-defined]
    assert sent and all(text.startswith("passage: ") for text in sent)
    assert index.embedding_roles == E5
    role = query_role(None, index)
    assert role == E5["query"] and not mismatch(MODEL, role, index)
    body = request_body(MODEL, role, QUESTION)
    assert json.loads(body)["input"] == [f"query: {QUESTION}"]
    answer = roles.vectors([QUESTION])[1]
    vector, problem = vector_from(json.dumps(answer), roles.url, index.embedding_dimension)
    assert vector is not None, problem
    hits = index.search(QUESTION, question_vector=vector)
    assert hits[0].section.address == "/time.html#time.sleep"


def test_the_panels_query_side_wins_over_the_index(roles: FakeEmbeddings, tmp_path: Path) -> None:
    index = load_index(_payload(roles, tmp_path, **E5))
    configured = Role(input_type="query", model="e5-query")
    assert query_role(configured, index) == configured
    assert json.loads(request_body(MODEL, configured, "q")) == {
        "model": "e5-query",
        "input": ["q"],
        "input_type": "query",
    }


def test_passages_with_a_role_and_questions_without_fall_back_to_words(
    roles: FakeEmbeddings, tmp_path: Path
) -> None:
    payload = _payload(roles, tmp_path, passage=Role(input_type="passage"))
    index = load_index(payload)
    assert "query" not in index.embedding_roles
    problem = mismatch(MODEL, query_role(None, index), index)
    assert "set embeddings.query" in problem


def test_an_index_without_roles_writes_none(roles: FakeEmbeddings, tmp_path: Path) -> None:
    """Role-less vectors leave the index as it always was, and their cache rows too."""
    plain = FakeEmbeddings()
    try:
        payload = _payload(plain, tmp_path)
    finally:
        plain.close()
    assert "roles" not in payload["embeddings"]  # type: ignore[operator]
    assert VectorCache.key("m", "t") == hashlib.sha256(b"m\0t").hexdigest()
    assert VectorCache.key("m", "t", Role(prefix="passage: ")) != VectorCache.key("m", "t")
    assert VectorCache.key("m", "t", Role(input_type="passage")) != VectorCache.key("m", "t")


def test_a_malformed_role_in_the_index_is_refused(roles: FakeEmbeddings, tmp_path: Path) -> None:
    payload = _payload(roles, tmp_path, **E5)
    payload["embeddings"]["roles"]["query"] = {"prefix": 5}  # type: ignore[index]
    with pytest.raises(Exception, match=r"'embeddings\.roles' is malformed; rebuild"):
        load_index(payload)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--embeddings-query-prefix", "query: "], "need --embeddings"),
        (["--embeddings", "URL", "--embeddings-passage-prefix", "p: "], "needs the query side"),
        (["--embeddings", "URL", "--embeddings-query-input-type", " "], "-input-type: expected"),
        (["--embeddings", "URL", "--embeddings-query-prefix", "x" * 201], "at most 200"),
    ],
)
def test_the_builds_role_flags_are_checked(
    flags: list[str], message: str, roles: FakeEmbeddings, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["build", str(SITE), "--embeddings-model", MODEL]
    argv += [roles.url if flag == "URL" else flag for flag in flags]
    assert main(argv) == 1
    assert message in capsys.readouterr().err
