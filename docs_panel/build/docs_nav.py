"""The docs site's navigation (an MkDocs hook named in ``mkdocs.yml``): the sections
``mkdocs.yml`` lists in order, and every page it does not list yet added where a reader
finds it, so a new page under ``docs/`` needs only its file.

A new decision record goes under "Decisions", any other new page under "More", each by
its path; this hook never reorders, renames or drops what ``mkdocs.yml`` lists.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig

DECISIONS = "Decisions"
MORE = "More"


def listed(nav: Any) -> set[str]:
    """The page paths a nav (MkDocs' nested lists and one-key dicts) names."""
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, dict):
        return set().union(*(listed(value) for value in nav.values()))
    if isinstance(nav, list):
        return set().union(*(listed(item) for item in nav))
    return set()


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    nav: list[Any] = config.nav or []
    docs = Path(config.docs_dir)
    known = listed(nav)
    unlisted = sorted(
        page.relative_to(docs).as_posix()
        for page in docs.rglob("*.md")
        if page.relative_to(docs).as_posix() not in known
    )
    for path in unlisted:
        section = DECISIONS if path.startswith("decisions/") else MORE
        entries = next(
            (item[section] for item in nav if isinstance(item, dict) and section in item), None
        )
        if entries is None:
            entries = []
            nav.append({section: entries})
        entries.append(path)
    config.nav = nav
    return config
