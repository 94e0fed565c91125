"""The Sphinx extension and the MkDocs plugin, as a site owner uses them: a real build
of a small project by the pinned generator, in the venv the wheel is installed in, with
no node on PATH; then the built site's panel answers in Chromium."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from docs_panel.build.serve import make_server
from docs_panel.core.docs_index import load_index
from tests.browser.conftest import Watch
from tests.browser.reader import READY_TIMEOUT_MS, ask, open_panel, wait_ready
from tests.wheel.install import Installed

pytestmark = pytest.mark.wheel


PROJECTS = Path(__file__).parent.parent / "fixtures" / "plugins"
# What each fixture project's config sets (idle_timeout, in snake_case, comes out camel).
CONFIG = {
    "chat": False,
    "scopes": [
        {"id": "all", "label": "All docs"},
        {"id": "api", "label": "API", "prefix": "/api/"},
    ],
    "idleTimeout": 45,
}
_CONFIG_TAG = re.compile(r"window\.docsPanel = (\{.*?\});\n</script>")
EMBED_TAG = '<script src="/docs-panel/embed.js" async></script>'


@dataclass(frozen=True)
class Generator:
    name: str
    config: str  # the project's config file
    pages: tuple[str, str]  # the addresses of the install and the API page
    bad_gate: tuple[str, str]  # a config edit that sets gate: 2

    def build(self, installed: Installed, project: Path, out: Path) -> tuple[int, str]:
        if self.name == "sphinx":
            args: tuple[str | Path, ...] = ("python", "-m", "sphinx", "-b", "html", project, out)
        else:
            args = ("mkdocs", "build", "-f", project / self.config, "-d", out)
        done = installed.run(*args, cwd=project)
        return done.returncode, done.stdout + done.stderr


GENERATORS = [
    Generator(
        "sphinx",
        "conf.py",
        ("/install.html", "/api/queue.html"),
        ('"chat": False,', '"chat": False, "gate": 2,'),
    ),
    Generator(
        "mkdocs",
        "mkdocs.yml",
        ("/install/index.html", "/api/queue/index.html"),
        ("chat: false", "chat: false\n        gate: 2"),
    ),
]


@pytest.fixture(scope="module", params=GENERATORS, ids=lambda g: g.name)
def built(
    request: pytest.FixtureRequest, installed: Installed, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Generator, Path]:
    generator: Generator = request.param
    work = tmp_path_factory.mktemp(generator.name)
    shutil.copytree(PROJECTS / generator.name, work / "project")
    kept = cached_pages(installed)
    status, output = generator.build(installed, work / "project", work / "site")
    assert status == 0, output
    assert "sections from 3 pages" in output  # the build's summary, in the generator's log
    # The next build re-reads only changed pages, as `docs-panel build` does.
    assert cached_pages(installed) > kept
    return generator, work / "site"


def cached_pages(installed: Installed) -> int:
    """How many pages' extractions the build's page cache keeps in the venv's home."""
    cache = installed.home / ".cache" / "docs-panel" / "pages.sqlite3"
    if not cache.exists():
        return 0
    with contextlib.closing(sqlite3.connect(cache)) as db:
        return int(db.execute("SELECT count(*) FROM pages").fetchone()[0])


def test_every_page_carries_the_panel_and_its_config(built: tuple[Generator, Path]) -> None:
    _, site = built
    pages = [p for p in site.rglob("*.html") if "docs-panel" not in p.parts]
    assert len(pages) >= 4
    for page in pages:
        html = page.read_text(encoding="utf-8")
        head = html.split("</head>")[0]
        assert head.count(EMBED_TAG) == 1, page
        (config,) = _CONFIG_TAG.findall(head)
        assert json.loads(config) == CONFIG, page


def test_the_index_holds_the_pages_sections(built: tuple[Generator, Path]) -> None:
    generator, site = built
    (index_file,) = (site / "docs-panel").glob("index.*.json")
    index = load_index(json.loads(index_file.read_bytes()))
    install, api = generator.pages
    assert index.lookup(f"{install}#starting-the-broker") is not None
    assert index.lookup(f"{api}#acknowledging-a-message") is not None


@pytest.mark.parametrize("generator", GENERATORS, ids=lambda g: g.name)
def test_a_bad_config_stops_the_build_naming_the_key(
    generator: Generator, installed: Installed, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECTS / generator.name, project)
    config = project / generator.config
    old, new = generator.bad_gate
    config.write_text(config.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    status, output = generator.build(installed, project, tmp_path / "site")
    assert status != 0
    assert "docsPanel.gate: expected a number from 0 to 1, got 2" in output
    assert not (tmp_path / "site" / "docs-panel").exists()


@pytest.mark.browser
def test_the_built_sites_panel_answers(built: tuple[Generator, Path], browser: Browser) -> None:
    """A reader on the API page asks how to start the broker: the answer (search
    results, as the config says) links the install page's section."""
    generator, site = built
    server = make_server(site, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    watch = Watch(origin=url)
    context = browser.new_context()
    try:
        page = context.new_page()
        watch.attach(page)
        page.goto(url + generator.pages[1])
        open_panel(page)
        wait_ready(page)
        ask(page, "How do I start the broker?")
        results = page.get_by_role("list", name="Search results")
        expect(results).to_be_visible(timeout=READY_TIMEOUT_MS)
        first = results.get_by_role("link").first
        expect(first).to_have_attribute("href", f"{generator.pages[0]}#starting-the-broker")
        watch.check(page)
    finally:
        context.close()
        server.shutdown()
        server.server_close()


@dataclass(frozen=True)
class Variant:
    """A fixture project built under a base path, by one of Sphinx's HTML builders."""

    name: str
    generator: str
    builder: str  # Sphinx's -b; MkDocs has one
    base: str  # the site's URL path: html_baseurl's or site_url's
    page: str  # where the reader asks, under base
    link: str  # the first result's address, under base

    def build(self, installed: Installed, project: Path, out: Path) -> tuple[int, str]:
        url = f"https://lanternfish.example.org{self.base}"
        if self.generator == "sphinx":
            with (project / "conf.py").open("a", encoding="utf-8") as conf:
                conf.write(f"html_baseurl = {url!r}\n")
            args: tuple[str | Path, ...] = ("python", "-m", "sphinx", "-b", self.builder)
            args += (project, out)
        else:
            config = project / "mkdocs.yml"
            config.write_text(f"site_url: {url}\n" + config.read_text(encoding="utf-8"))
            args = ("mkdocs", "build", "-f", config, "-d", out)
        done = installed.run(*args, cwd=project)
        return done.returncode, done.stdout + done.stderr


VARIANTS = [
    Variant("sphinx-html", "sphinx", "html", "/docs/", "api/queue.html", "install.html"),
    Variant("sphinx-dirhtml", "sphinx", "dirhtml", "/dir/", "api/queue/", "install/index.html"),
    Variant("sphinx-singlehtml", "sphinx", "singlehtml", "/one/", "", "index.html"),
    Variant("mkdocs", "mkdocs", "", "/mk/", "api/queue/", "install/index.html"),
]


@pytest.fixture(scope="module")
def under_paths(installed: Installed, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder served at /, each variant's site built into it at its base path."""
    work = tmp_path_factory.mktemp("under-paths")
    for variant in VARIANTS:
        project = work / "projects" / variant.name
        shutil.copytree(PROJECTS / variant.generator, project)
        status, output = variant.build(installed, project, work / "root" / variant.base[1:-1])
        assert status == 0, output
        assert "sections from" in output
    return work / "root"


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_each_builder_under_a_base_path_links_the_panel_there(
    variant: Variant, under_paths: Path
) -> None:
    site = under_paths / variant.base[1:-1]
    tag = f'<script src="{variant.base}docs-panel/embed.js" async></script>'
    pages = [p for p in site.rglob("*.html") if "docs-panel" not in p.parts]
    for page in pages:
        head = page.read_text(encoding="utf-8").split("</head>")[0]
        assert head.count(tag) == 1, page
    (index_file,) = (site / "docs-panel").glob("index.*.json")
    index = load_index(json.loads(index_file.read_bytes()))
    assert index.lookup(f"{variant.base}{variant.link}#starting-the-broker") is not None


@pytest.mark.browser
def test_the_panel_answers_under_each_base_path(under_paths: Path, browser: Browser) -> None:
    """Each variant's site, served under its base path: the panel loads from there and
    its first result links the install page's section there."""
    server = make_server(under_paths, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    watch = Watch(origin=url)
    context = browser.new_context()
    try:
        for variant in VARIANTS:
            page = context.new_page()
            watch.attach(page)
            page.goto(url + variant.base + variant.page)
            open_panel(page)
            wait_ready(page)
            ask(page, "How do I start the broker?")
            results = page.get_by_role("list", name="Search results")
            expect(results).to_be_visible(timeout=READY_TIMEOUT_MS)
            first = results.get_by_role("link").first
            address = f"{variant.base}{variant.link}#starting-the-broker"
            expect(first).to_have_attribute("href", address)
            watch.check(page)
            page.close()
    finally:
        context.close()
        server.shutdown()
        server.server_close()
