"""The docs site's navigation hook: a page mkdocs.yml does not list yet is added (a
decision record under Decisions, any other under More), and what it lists stays as it is."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from mkdocs.config import load_config

from docs_panel.build import docs_nav
from docs_panel.build.docs_site import CONFIG

DOCS = CONFIG.parent / "docs"


def nav_of(docs: Path) -> Any:
    config = load_config(str(CONFIG))
    config.docs_dir = str(docs)
    return docs_nav.on_config(config).nav


def test_every_page_of_the_docs_is_in_the_nav_of_the_site() -> None:
    pages = {page.relative_to(DOCS).as_posix() for page in DOCS.rglob("*.md")}
    assert docs_nav.listed(nav_of(DOCS)) == pages


def test_a_new_page_joins_the_nav_and_the_others_keep_their_place(tmp_path: Path) -> None:
    before = nav_of(DOCS)
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    (docs / "a-new-page.md").write_text("# A new page\n", encoding="utf-8")
    (docs / "decisions" / "9999-a-new-finding.md").write_text("# 9999\n", encoding="utf-8")

    after = nav_of(docs)

    (decisions,) = [item for item in before if isinstance(item, dict) and "Decisions" in item]
    decisions["Decisions"].append("decisions/9999-a-new-finding.md")
    assert after == [*before, {"More": ["a-new-page.md"]}]
