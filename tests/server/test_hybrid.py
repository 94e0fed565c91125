"""Hybrid retrieval on the server install: the question is embedded at the site's
embeddings endpoint (``tests.fake_embeddings``) and ranked by meaning too, exactly as
the worker does; an endpoint that fails leaves the words' ranking and one log line."""

from __future__ import annotations

import json
import logging
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from starlette.testclient import TestClient

from docs_panel.build.cli import Embedding, build
from docs_panel.core.embedding_roles import Role
from docs_panel.core.server_wire import ServerStreamDecoder, SourcesDelta
from docs_panel.server.app import create_app
from docs_panel.server.settings import Settings
from tests.event_loops import on_own_loop
from tests.fake_embeddings import MODEL, FakeEmbeddings
from tests.server_install import running

SITE = Path(__file__).parent.parent / "fixtures" / "hybrid"
QUESTION = "freeze the script for two seconds"  # words say datetime; the meaning, time.sleep
EMBEDDINGS_KEY = "embeddings-key-0123456789"
UPSTREAM_KEY = "sk-upstream-key-never-sent-to-embeddings"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeEmbeddings]:
    server = FakeEmbeddings()
    yield server
    server.close()


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, fake: FakeEmbeddings) -> Path:
    root = tmp_path_factory.mktemp("hybrid") / "site"
    shutil.copytree(SITE, root)
    cache = tmp_path_factory.mktemp("cache") / "vectors.sqlite3"
    build(root, embedding=Embedding(fake.url, MODEL, cache))
    return root / "docs-panel"


def first_source(index: Path, tmp_path: Path, **values: Any) -> str:
    settings = Settings.from_environment(
        environ={
            "DOCS_PANEL_SIGNING_KEYS": "k1:" + "s" * 32,
            "DOCS_PANEL_UPSTREAM_KEY": UPSTREAM_KEY,
            "DOCS_PANEL_EMBEDDINGS_KEY": EMBEDDINGS_KEY,
        },
        index=index,
        upstream="http://127.0.0.1:9/v1/chat/completions",  # never reached: sources come first
        model="server-model",
        gate=1.0,  # no hit clears it, so the upstream is never asked
        database=str(tmp_path / "votes.sqlite3"),
        **values,
    )
    with TestClient(create_app(settings)) as client:
        response = client.post("/answer", json={"question": QUESTION})
    assert response.status_code == 200, response.text
    sources = [
        d for d in ServerStreamDecoder().feed(response.content) if isinstance(d, SourcesDelta)
    ]
    return sources[0].sources[0].address


def slowly(texts: list[str], seconds: float) -> tuple[int, object]:
    """The right vectors, ``seconds`` late."""
    time.sleep(seconds)
    return FakeEmbeddings.vectors(texts)


def test_the_server_ranks_by_meaning_with_the_index_model(
    index: Path, tmp_path: Path, fake: FakeEmbeddings
) -> None:
    fake.respond, fake.requests[:], fake.keys[:] = fake.vectors, [], []
    lexical = first_source(index, tmp_path)
    hybrid = first_source(index, tmp_path, embeddings=fake.url, embeddings_model=MODEL)
    assert lexical.startswith("/datetime.html"), lexical
    assert hybrid == "/time.html#time.sleep"
    assert fake.requests == [{"model": MODEL, "input": [QUESTION]}]
    assert fake.keys == [f"Bearer {EMBEDDINGS_KEY}"]  # its own key, never the model's


@pytest.mark.parametrize(
    ("respond", "model", "cause"),
    [
        (lambda texts: (500, {"error": {"message": "model not loaded"}}), MODEL, "HTTP 500"),
        (lambda texts: (200, {"data": [{"embedding": [0.6, 0.8]}]}), MODEL, "2 dimensions"),
        (lambda texts: (200, {"nothing": []}), MODEL, "OpenAI embeddings list"),
        (FakeEmbeddings.vectors, "another-model", "index was built with"),
        (lambda texts: slowly(texts, 3.0), MODEL, "no answer within 1.5 s"),
    ],
    ids=["error", "wrong-dimension", "not-a-list", "other-model", "slower-than-1.5-s"],
)
def test_a_failing_endpoint_leaves_the_words_ranking_and_one_log_line(
    index: Path,
    tmp_path: Path,
    fake: FakeEmbeddings,
    caplog: pytest.LogCaptureFixture,
    respond: Any,
    model: str,
    cause: str,
) -> None:
    fake.respond = respond
    with caplog.at_level(logging.WARNING, logger="docs_panel.server"):
        first = first_source(index, tmp_path, embeddings=fake.url, embeddings_model=model)
    fake.respond = fake.vectors
    assert first.startswith("/datetime.html"), first
    problems = [r for r in caplog.records if r.getMessage().startswith("lexical ranking only")]
    assert len(problems) == 1 and cause in problems[0].problem  # type: ignore[attr-defined]
    assert QUESTION not in json.dumps([r.__dict__ for r in problems], default=str)


def test_the_mcp_mount_ranks_by_meaning_as_the_panels_route_does(
    index: Path, tmp_path: Path, fake: FakeEmbeddings
) -> None:
    """The same question through search_docs over HTTP: meaning ranks it as for /answer."""
    fake.respond, fake.requests[:] = fake.vectors, []
    settings = Settings.from_environment(
        environ={"DOCS_PANEL_SIGNING_KEYS": "k1:" + "s" * 32},
        index=index,
        upstream="http://127.0.0.1:9/v1/chat/completions",  # never reached by an agent
        model="server-model",
        database=str(tmp_path / "votes.sqlite3"),
        embeddings=fake.url,
        embeddings_model=MODEL,
    )
    found: list[str] = []

    async def search(url: str) -> None:
        async with Client(url + "/mcp") as client:
            result = await client.call_tool("search_docs", {"query": QUESTION})
            assert result.structured_content is not None
            found.extend(hit["address"] for hit in result.structured_content["result"])

    with running(create_app(settings)) as url:
        on_own_loop(search(url))
    assert found[0] == "/time.html#time.sleep"
    assert fake.requests == [{"model": MODEL, "input": [QUESTION]}]


def test_the_server_asks_for_the_question_on_the_side_the_index_records(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """A model that must be told each text's side (as e5 is): the build sends the
    passages' side and records the questions'; the server sends that one."""
    roles = FakeEmbeddings(roles=True)
    try:
        root = tmp_path_factory.mktemp("roles") / "site"
        shutil.copytree(SITE, root)
        cache = tmp_path_factory.mktemp("cache") / "vectors.sqlite3"
        passage, query = Role(input_type="passage"), Role(prefix="query: ")
        build(root, embedding=Embedding(roles.url, MODEL, cache, passage=passage, query=query))
        assert {body.get("input_type") for body in roles.requests} == {"passage"}
        roles.requests[:] = []
        index = root / "docs-panel"
        hybrid = first_source(index, tmp_path, embeddings=roles.url, embeddings_model=MODEL)
        assert roles.requests == [{"model": MODEL, "input": [f"query: {QUESTION}"]}]
        assert hybrid == "/time.html#time.sleep"
    finally:
        roles.close()
