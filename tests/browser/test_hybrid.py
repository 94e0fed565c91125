"""Hybrid retrieval in the browser: the worker embeds the question at the
site's endpoint (here ``tests.fake_embeddings``, on another origin) and ranks the
candidate pages again by meaning; an endpoint that fails, hangs or answers with
the wrong dimension leaves the lexical ranking and one warning naming the cause."""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, expect

from docs_panel.build.cli import Embedding, build
from docs_panel.build.serve import make_server
from docs_panel.core.embedding_roles import Role
from tests.browser.conftest import Watch
from tests.browser.reader import READY_TIMEOUT_MS, ask, open_panel, wait_ready
from tests.fake_embeddings import MODEL, FakeEmbeddings

pytestmark = pytest.mark.browser

SITE = Path(__file__).parent.parent / "fixtures" / "hybrid"
QUESTION = "freeze the script for two seconds"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeEmbeddings]:
    server = FakeEmbeddings()
    yield server
    server.close()


@pytest.fixture(scope="module")
def hybrid_site(tmp_path_factory: pytest.TempPathFactory, fake: FakeEmbeddings) -> Iterator[str]:
    with _served(tmp_path_factory, fake, filler=0) as (url, _):
        yield url


@pytest.fixture(scope="module")
def large_hybrid_site(
    tmp_path_factory: pytest.TempPathFactory, fake: FakeEmbeddings
) -> Iterator[tuple[str, Path]]:
    """The same pages among 400 others: past SPLIT_BYTES, the index comes in parts."""
    with _served(tmp_path_factory, fake, filler=400) as served:
        yield served


@contextmanager
def _served(
    tmp_path_factory: pytest.TempPathFactory,
    fake: FakeEmbeddings,
    filler: int,
    query: dict[str, str] | None = None,
    sides: dict[str, Role] | None = None,
) -> Iterator[tuple[str, Path]]:
    """The fixture's pages (and ``filler`` others) built with vectors (asked for on
    ``sides``, if given) and served, the config's ``embeddings.query`` set to ``query``:
    the site's address and folder."""
    root = tmp_path_factory.mktemp("hybrid") / "site"
    shutil.copytree(SITE, root)
    for n in range(filler):  # three sections of 80 words no other section uses
        sections = "".join(
            f"<h2 id='s{s}'>Part {s}</h2><p>{' '.join(f'w{n}x{s}y{k}' for k in range(80))}</p>"
            for s in range(3)
        )
        (root / f"p{n}.html").write_text(
            f"<!doctype html><html lang='en'><head><title>Page {n}</title></head>"
            f"<body><main><h1>Page {n}</h1>{sections}</main></body></html>",
            encoding="utf-8",
        )
    embeddings = {"endpoint": fake.url, "model": MODEL, "query": query}
    config = json.dumps({"chat": False, "embeddings": embeddings})
    for page in root.glob("*.html"):
        head = (
            f"<script>window.docsPanel = {config};</script>"
            '<script src="/docs-panel/embed.js" async></script></head>'
        )
        page.write_text(page.read_text(encoding="utf-8").replace("</head>", head), encoding="utf-8")
    cache = tmp_path_factory.mktemp("cache") / "vectors.sqlite3"
    build(root, embedding=Embedding(fake.url, MODEL, cache, **(sides or {})))
    server = make_server(root, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/", root
    finally:
        server.shutdown()
        server.server_close()


def test_a_large_sites_vectors_come_in_parts_of_its_candidate_pages(
    browser: Browser, large_hybrid_site: tuple[str, Path], fake: FakeEmbeddings, watch: Watch
) -> None:
    """A split index carries its vectors in parts by page: a question fetches those of
    its candidates only, and meaning still lifts time.sleep."""
    url, root = large_hybrid_site
    fake.respond = fake.vectors
    first, warnings = _first_result(browser, watch, url)
    assert first.endswith("/time.html#time.sleep"), first
    assert warnings == []
    parts = list((root / "docs-panel").glob("index-vectors-*.zst"))
    fetched = [url for url in watch.requests if "/docs-panel/index-vectors-" in url]
    assert fetched and len(fetched) <= len(parts) // 2, (fetched, len(parts))


def _first_result(browser: Browser, watch: Watch, url: str) -> tuple[str, list[str]]:
    """The first result's link for QUESTION, asked on ``url``, and the warnings logged."""
    context = browser.new_context()
    page = context.new_page()
    watch.origin = url.rstrip("/")
    # The embeddings endpoint is the site owner's server on another origin, and the
    # failing ones fail on purpose (the browser logs a refused resource as an error).
    watch.expect_bad_request(r"^(off-site request|HTTP 500|failed): http://127\.0\.0\.1:\d+/v1/")
    watch.expect_console_error(
        r"^Failed to load resource: the server responded with a status of 500"
    )
    watch.attach(page)
    warnings: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "warning" and "docs-panel" in message.text:
            warnings.append(message.text)

    page.on("console", on_console)
    page.goto(url + "threading.html")
    open_panel(page)
    wait_ready(page)
    ask(page, QUESTION)
    results = page.get_by_role("list", name="Search results")
    expect(results).to_be_visible(timeout=READY_TIMEOUT_MS)
    first = str(results.get_by_role("link").first.get_attribute("href"))
    watch.check(page)
    context.close()
    return first, warnings


def test_meaning_finds_the_page_words_rank_second(
    browser: Browser, hybrid_site: str, fake: FakeEmbeddings, watch: Watch
) -> None:
    fake.respond = fake.vectors
    fake.requests.clear()
    first, warnings = _first_result(browser, watch, hybrid_site)
    assert first.endswith("/time.html#time.sleep"), first
    assert fake.requests == [{"model": MODEL, "input": [QUESTION]}]
    assert warnings == []


def _hang(texts: list[str]) -> tuple[int, object]:
    time.sleep(4)
    return FakeEmbeddings.vectors(texts)


@pytest.mark.parametrize(
    ("respond", "cause"),
    [
        (lambda texts: (500, {"error": {"message": "model not loaded"}}), "HTTP 500"),
        (_hang, "no answer within 1.5 s"),
        (
            lambda texts: (200, {"data": [{"index": 0, "embedding": [0.6, 0.8]}]}),
            "a vector of 2 dimensions",
        ),
    ],
    ids=["error", "hang", "wrong-dimension"],
)
def test_a_failing_endpoint_leaves_the_lexical_ranking_and_one_warning(
    browser: Browser,
    hybrid_site: str,
    fake: FakeEmbeddings,
    watch: Watch,
    respond: object,
    cause: str,
) -> None:
    fake.respond = respond  # type: ignore[assignment]
    first, warnings = _first_result(browser, watch, hybrid_site)
    fake.respond = fake.vectors
    assert first.endswith("/datetime.html#timedelta") or first.endswith("/datetime.html"), first
    assert len(warnings) == 1 and cause in warnings[0], warnings


def test_the_worker_asks_on_the_query_side_the_config_gives(
    browser: Browser, tmp_path_factory: pytest.TempPathFactory, watch: Watch
) -> None:
    """A model that must be told each text's side: passages went by input_type, the
    config says questions go with e5's prefix, and the worker sends that."""
    roles = FakeEmbeddings(roles=True)
    sides = {"passage": Role(input_type="passage"), "query": Role(input_type="query")}
    try:
        with _served(tmp_path_factory, roles, 0, {"prefix": "query: "}, sides) as (url, _):
            roles.requests.clear()
            first, warnings = _first_result(browser, watch, url)
        assert roles.requests == [{"model": MODEL, "input": [f"query: {QUESTION}"]}]
        assert first.endswith("/time.html#time.sleep"), first
        assert warnings == []
    finally:
        roles.close()
