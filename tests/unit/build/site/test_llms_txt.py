"""``llms.txt`` and ``llms-full.txt`` from real generators' output and from the demo's
build: the llmstxt.org format, links that resolve to the site's pages, the same text
the index holds (no theme text, every tab panel), one pair per language, the same bytes
on each build, and a site's own ``llms.txt`` kept unless the owner says otherwise."""

from __future__ import annotations

import dataclasses
import re
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from docs_panel.build.cli import main
from docs_panel.build.site.extract import Extracted, extract_site
from docs_panel.build.site.llms_txt import WRITTEN_BY, llms_files, write_llms_files
from docs_panel.core.docs_index import Section
from tests.browser.conftest import Site
from tests.fixture_files import GENERATORS, generator_expected, generator_sites

SITES = generator_sites("expected.json")
LINK = re.compile(r"- \[(?P<title>(?:[^\]\\]|\\.)+)\]\((?P<url>[^)\s]+)\)(?:: (?P<about>.+))?")


@cache
def _site(name: str) -> tuple[dict[str, Any], Extracted, dict[str, str]]:
    expected = generator_expected(name, "expected.json")
    extracted = extract_site(GENERATORS / name / "site")
    files = llms_files(extracted.sections, main_language=extracted.report.main_language)
    return expected, extracted, files


def check_format(text: str) -> list[tuple[str, str]]:
    """The llmstxt.org layout: one H1 first, a blockquote summary, paragraphs, then H2
    sections holding only Markdown link lists. Returns the links (title, url)."""
    blocks = text.rstrip("\n").split("\n\n")
    assert re.fullmatch(r"# \S.*", blocks[0]), blocks[0]
    assert re.fullmatch(r"> \S[^\n]*", blocks[1]), blocks[1]
    assert text.count("\n# ") == 0 and not re.search(r"^#{3,} ", text, re.M)
    links: list[tuple[str, str]] = []
    in_section = False
    for block in blocks[2:]:
        if block.startswith("## "):
            assert "\n" not in block and len(block) > 3, block
            in_section = True
            continue
        if not in_section:
            assert not block.startswith(("#", "-", ">")), block  # a paragraph
            continue
        for line in block.split("\n"):
            found = LINK.fullmatch(line)
            assert found, f"not a link list item: {line!r}"
            links.append((found["title"], found["url"]))
    assert in_section and links
    return links


@pytest.mark.parametrize("name", SITES)
def test_llms_txt_follows_the_format_and_links_every_page_of_its_language(name: str) -> None:
    _, extracted, files = _site(name)
    site = GENERATORS / name / "site"
    pages_by_language: dict[str, set[str]] = {}
    for section in extracted.sections:
        language = section.language or extracted.report.main_language
        pages_by_language.setdefault(language, set()).add(section.page)
    indexes = {n: t for n, t in files.items() if n.endswith("llms.txt")}
    assert len(indexes) == len(pages_by_language)
    assert "llms.txt" in indexes
    linked: set[str] = set()
    for file_name, text in indexes.items():
        links = check_format(text)
        urls = [url for _, url in links]
        assert len(urls) == len(set(urls)), f"{file_name}: a page linked twice"
        for url in urls:
            assert (site / url.lstrip("/")).is_file(), f"{file_name}: {url} is no page"
        languages = [lang for lang, pages in pages_by_language.items() if set(urls) == pages]
        assert languages, f"{file_name}: not exactly one language's pages"
        folder = file_name.removesuffix("llms.txt")
        assert all(url.startswith("/" + folder) for url in urls), file_name
        linked |= set(urls)
    assert linked == {section.page for section in extracted.sections}


@pytest.mark.parametrize("name", SITES)
def test_llms_full_txt_is_the_indexed_text_with_every_tab_and_no_theme_text(name: str) -> None:
    expected, _, files = _site(name)
    full = "\n".join(text for n, text in files.items() if n.endswith("llms-full.txt"))
    lines = {line.strip() for line in full.split("\n")}
    flat = " ".join(full.split())
    for chrome in expected["theme_text"]:
        assert chrome not in full, f"{name}: theme text {chrome!r}"
    for path, page in expected["pages"].items():
        assert f"Source: /{path}\n" in full, f"{name}: {path} missing"
        for label in page.get("tabs", []):
            assert label in lines, f"{name}: {path}: no line for the tab {label!r}"
        for wanted in page["contains"]:
            assert " ".join(wanted.split()) in flat, f"{name}: {path}: {wanted!r}"


def test_each_language_has_its_files_in_its_folder() -> None:
    _, _, files = _site("sphinx-furo-dirhtml")
    assert sorted(files) == ["fr/llms-full.txt", "fr/llms.txt", "llms-full.txt", "llms.txt"]
    assert "> Lumen est un outil" in files["fr/llms.txt"]
    assert "/fr/" not in files["llms.txt"]


def test_the_same_pages_in_any_order_give_the_same_bytes_and_the_base_prefixes_links() -> None:
    _, extracted, files = _site("sphinx-furo-dirhtml")
    pages: dict[str, list[Section]] = {}
    for section in extracted.sections:
        pages.setdefault(section.page, []).append(section)
    shuffled = [section for page in reversed(pages.values()) for section in page]
    again = llms_files(shuffled, main_language=extracted.report.main_language)
    assert again == files
    based = [dataclasses.replace(s, address="/docs" + s.address) for s in extracted.sections]
    under = llms_files(based, main_language=extracted.report.main_language, base="/docs/")
    assert sorted(under) == sorted(files), "the files stay at the site folder's root"
    assert all(url.startswith("/docs/") for _, url in check_format(under["llms.txt"]))
    assert under["llms.txt"] == files["llms.txt"].replace("](/", "](/docs/")


def test_a_sites_own_llms_txt_is_kept_unless_the_owner_says_overwrite(tmp_path: Path) -> None:
    ours = {"llms.txt": f"# Ours\n\n> Ours.\n\n{WRITTEN_BY}\n", "llms-full.txt": "# Full\n"}
    (tmp_path / "llms.txt").write_text("# Theirs\n\n> Written by hand.\n")
    kept = write_llms_files(ours, tmp_path, "write")
    assert (tmp_path / "llms.txt").read_text() == "# Theirs\n\n> Written by hand.\n"
    assert kept.kept == ("llms.txt",) and kept.written == ("llms-full.txt",)
    assert "kept the site's own /llms.txt (--llms-txt overwrite" in kept.line()
    assert write_llms_files(ours, tmp_path, "skip").line().endswith("(--llms-txt skip)")
    replaced = write_llms_files(ours, tmp_path, "overwrite")
    assert replaced.written == ("llms-full.txt", "llms.txt")
    assert (tmp_path / "llms.txt").read_text() == ours["llms.txt"]
    newer = {"llms.txt": ours["llms.txt"].replace("Ours.", "Newer.")}
    assert write_llms_files(newer, tmp_path, "write").written == ("llms.txt",), "ours is ours"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["llms-full.txt", "llms.txt"]


def test_the_build_writes_the_demos_llms_txt_beside_its_pages(site: Site) -> None:
    links = check_format((site.root / "llms.txt").read_text(encoding="utf-8"))
    for _, url in links:
        assert (site.root / url.lstrip("/")).is_file(), url
    assert ("Jobs", "/api/jobs.html") in links
    full = (site.root / "llms-full.txt").read_text(encoding="utf-8")
    assert "Source: /api/jobs.html\n\n# Jobs\n" in full and "## Retry a job\n" in full


def test_the_build_command_writes_llms_txt_per_language_unless_told_to_skip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site"
    shutil.copytree(GENERATORS / "sphinx-furo-dirhtml" / "site", site)
    assert main(["build", str(site), "--llms-txt", "skip"]) == 0
    assert "llms.txt: none written (--llms-txt skip)" in capsys.readouterr().out
    assert not list(site.rglob("llms*.txt"))
    assert main(["build", str(site)]) == 0
    summary = capsys.readouterr().out
    assert "llms.txt: wrote /fr/llms-full.txt, /fr/llms.txt, /llms-full.txt, /llms.txt" in summary
    _, _, files = _site("sphinx-furo-dirhtml")
    assert (site / "fr" / "llms.txt").read_text(encoding="utf-8") == files["fr/llms.txt"]


def test_llms_md_writes_each_pages_markdown_beside_it_and_keeps_a_sites_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, extracted, _ = _site("sphinx-furo-dirhtml")
    site = tmp_path / "site"
    shutil.copytree(GENERATORS / "sphinx-furo-dirhtml" / "site", site)
    own = site / "glossary" / "index.html.md"
    own.write_text("# The glossary, by hand\n")
    assert main(["build", str(site), "--llms-md"]) == 0
    pages = {section.page for section in extracted.sections}
    summary = capsys.readouterr().out
    assert f"wrote {len(pages) - 1} pages' .md" in summary
    assert f"from {len(pages)} pages" in summary, "a page's .md is not a page"
    assert own.read_text() == "# The glossary, by hand\n"
    for page in pages - {"/glossary/index.html"}:
        text = (site / (page.lstrip("/") + ".md")).read_text(encoding="utf-8")
        title = next(s.page_title for s in extracted.sections if s.page == page)
        assert text.startswith(f"<!-- {WRITTEN_BY} -->\n\n# {title}\n"), page
    install = (site / "getting-started/install/index.html.md").read_text(encoding="utf-8")
    assert "pipx install lumen-sync" in install and "\n## Check the install\n" in install
