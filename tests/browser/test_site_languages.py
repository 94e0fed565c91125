"""A site in two languages: the reader is answered from pages in the
language of the page they are on, and the links open pages in that language.

The site is the VitePress fixture (real VitePress 1.6.4 output, English with a
French home and install page), with the panel bundled into it as a site owner
would, its script tags added and VitePress's own scripts left out (the fixture
keeps no assets)."""

from __future__ import annotations

import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from docs_panel.build.cli import build
from docs_panel.build.serve import make_server
from docs_panel.portable.i18n import table
from tests.browser.conftest import Watch
from tests.browser.reader import READY_TIMEOUT_MS, ask, open_panel, wait_ready

pytestmark = pytest.mark.browser

VITEPRESS = Path(__file__).parent.parent / "fixtures" / "generators" / "vitepress" / "site"
PANEL = (
    "<script>window.docsPanel = {chat: false};</script>"
    '<script src="/docs-panel/embed.js" async></script></head>'
)
# VitePress's scripts, styles, preloads and icons: the fixture keeps only the HTML.
_ASSETS = re.compile(
    r'<script\b[^>]*>.*?</script>|<link\b[^>]*rel="[^"]*(?:style|load|icon)[^>]*>', re.S
)


@pytest.fixture(scope="module")
def bilingual(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("bilingual") / "site"
    shutil.copytree(VITEPRESS, root)
    for page in root.rglob("*.html"):
        html = _ASSETS.sub("", page.read_text(encoding="utf-8"))
        page.write_text(html.replace("</head>", PANEL, 1), encoding="utf-8")
    build(root)
    server = make_server(root, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


def _results(browser: Browser, watch: Watch, url: str, question: str, lang: str) -> list[str]:
    words = table(lang)
    context = browser.new_context()
    page = context.new_page()
    watch.origin = "/".join(url.split("/", 3)[:3])  # this site's, not the demo's
    watch.attach(page)
    page.goto(url)
    open_panel(page, words)
    wait_ready(page, words)
    ask(page, question, words)
    results = page.get_by_role("list", name=words["results"])
    expect(results).to_be_visible(timeout=READY_TIMEOUT_MS)
    links = [str(link.get_attribute("href")) for link in results.get_by_role("link").all()]
    first = results.get_by_role("link").first
    first.click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == lang
    watch.check(page)
    context.close()
    return links


def test_a_french_page_is_answered_from_french_pages(
    browser: Browser, bilingual: str, watch: Watch
) -> None:
    """The install question from the French install page finds the French page first,
    and no English page the French site has a translation of."""
    links = _results(
        browser,
        watch,
        bilingual + "fr/getting-started/install.html",
        "installer lumen avec conda",
        "fr",
    )
    assert links and "/fr/getting-started/install.html" in links[0], links
    translated = ("/getting-started/install.html", "/index.html")
    assert not [link for link in links if link.endswith(translated) and "/fr/" not in link]


def test_an_english_page_is_answered_from_english_pages(
    browser: Browser, bilingual: str, watch: Watch
) -> None:
    """The same question in English, from an English page: no French page in the results."""
    links = _results(
        browser, watch, bilingual + "getting-started/install.html", "install lumen with conda", "en"
    )
    assert links and "/getting-started/install.html" in links[0], links
    assert not [link for link in links if "/fr/" in link], links
