"""This repository's docs site (mkdocs.yml): ``mkdocs build --strict`` with the project's
own plugin, as ``./dev docs`` builds it, then its panel asked a question in Chromium:
the answer (search results, ``chat: false``) cites the page of these docs that holds it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page

from docs_panel.build.docs_site import build_docs_site
from docs_panel.build.serve import make_server
from tests.browser.conftest import Watch
from tests.browser.reader import ask, open_panel, result_links, wait_ready

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def docs_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("docs-site") / "site"
    build_docs_site(root)  # a ConfigError quoting MkDocs' log on any warning
    server = make_server(root, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


@pytest.fixture
def watch(docs_url: str) -> Watch:
    return Watch(origin=docs_url.rstrip("/"))


def test_the_docs_answer_a_question_about_themselves(page: Page, docs_url: str) -> None:
    page.goto(docs_url + "install/")
    open_panel(page)
    wait_ready(page)
    ask(page, "Which Content Security Policy directives does my page need for the panel?")
    cited = [urlsplit(link).path for link in result_links(page)]
    assert cited[0] == "/csp/index.html", cited
