"""Pagefind, the usual static-site search, as a baseline for ``bench/retrieval.py``.

Pagefind indexes a folder of built HTML with its own CLI and searches in the
browser with ``pagefind.js`` (WebAssembly), so the questions are asked in
Chromium, exactly as a reader's browser would run them. Pagefind comes from
npm and is never a dependency of the project; install it next to the bench::

    npm install --no-save --prefix /tmp/pagefind pagefind@1.6.0
    python3 bench/retrieval.py --pagefind /tmp/pagefind/node_modules/.bin/pagefind

Its results are pages (URL without ``index.html``, as Pagefind writes them),
read back as site-root paths so they compare with the panel's.
"""

from __future__ import annotations

import subprocess
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from docs_panel.build.serve import make_server
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS

#: Runs every question in the page; returns, per question, the result pages' URLs.
_SEARCH = """async ([questions, limit]) => {
  const pagefind = await import("/pagefind/pagefind.js");
  await pagefind.init();
  const answers = [];
  for (const question of questions) {
    const found = await pagefind.search(question);
    const data = await Promise.all(found.results.slice(0, limit).map((r) => r.data()));
    answers.push(data.map((d) => d.url));
  }
  return answers;
}"""


class Pagefind:
    """One Chromium for all sites; ``pages(site, questions)`` indexes and asks."""

    def __init__(self, binary: Path, page: Page) -> None:
        self.binary = binary
        self.page = page
        self.version = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, check=True
        ).stdout.strip()

    def pages(
        self,
        site: Path,
        questions: Sequence[str],
        limit: int = 8,
        languages: Sequence[str] = (),
    ) -> list[list[str]]:
        """Per question, the site-root paths of Pagefind's first ``limit`` results; each
        asked from a page in its language (``languages``, "" for none), since Pagefind
        searches the index of the page's ``lang``."""
        languages = list(languages) or [""] * len(questions)
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            subprocess.run(
                [str(self.binary), "--site", str(site), "--output-path", str(out / "pagefind")],
                capture_output=True,
                check=True,
            )
            urls: list[list[str]] = [[] for _ in questions]
            server = make_server(out, port=0)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            try:
                for language in sorted(set(languages)):
                    lang = f' lang="{language}"' if language else ""
                    blank = f"blank-{language}.html"
                    (out / blank).write_text(f"<!doctype html><html{lang}><title>pagefind</title>")
                    self.page.goto(f"http://127.0.0.1:{server.server_port}/{blank}")
                    numbers = [n for n, asked in enumerate(languages) if asked == language]
                    found = self.page.evaluate(_SEARCH, [[questions[n] for n in numbers], limit])
                    for n, pages in zip(numbers, found, strict=True):
                        urls[n] = pages
            finally:
                server.shutdown()
                server.server_close()
        return [[_site_path(url) for url in found] for found in urls]


def _site_path(url: str) -> str:
    return url + "index.html" if url.endswith("/") else url


@contextmanager
def pagefind(binary: Path | None) -> Iterator[Pagefind | None]:
    """A :class:`Pagefind` when ``binary`` is given, else None (the baseline is skipped)."""
    if binary is None:
        yield None
        return
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield Pagefind(binary, browser.new_page())
        finally:
            browser.close()
