"""The docs site cannot drift from the tree: the architecture page names every module
under docs_panel/ in its folder's list, and no module that is gone; the configuration
page has a row for every config key and the storage page for every storage key; the
README stays one screen that points to the docs and keeps the contributors' two
commands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docs_panel.core.config import _KEYS_BY_TYPE, DEFAULTS, STORAGE_NAMES, Config

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "docs_panel"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
README = ROOT / "README.md"
DOCS = ROOT / "docs"
# What counts as a module: code that runs somewhere (a package's __init__ only marks it).
MODULE_SUFFIXES = (".py", ".mjs", ".js", ".css")
# A list entry names one module or several: "- `name.py`: what it does".
ENTRY = re.compile(r"^- ((?:`[\w.-]+`(?:, )?)+):", re.M)


def folders() -> list[Path]:
    """Every folder of docs_panel/ that holds a module."""
    return sorted({path.parent for path in modules_under(PACKAGE)})


def modules_under(folder: Path) -> list[Path]:
    return [
        path
        for path in folder.rglob("*")
        if path.suffix in MODULE_SUFFIXES
        and path.name != "__init__.py"
        and "__pycache__" not in path.parts
    ]


def listed(folder: Path) -> set[str]:
    """The modules the architecture page lists under ``### `docs_panel/…/` ``."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    heading = f"### `{folder.relative_to(ROOT).as_posix()}/`\n"
    assert heading in text, f"docs/architecture.md has no list for {heading.strip()}"
    section = text.split(heading, 1)[1].split("\n#", 1)[0]
    return {name for entry in ENTRY.findall(section) for name in re.findall(r"`([^`]+)`", entry)}


@pytest.mark.parametrize("folder", folders(), ids=lambda f: f.relative_to(ROOT).as_posix())
def test_the_architecture_page_lists_every_module_of_each_folder(folder: Path) -> None:
    present = {path.name for path in folder.iterdir() if path in modules_under(folder)}
    names = listed(folder)
    assert not present - names, f"add to docs/architecture.md: {sorted(present - names)}"
    assert not names - present, f"gone from {folder.name}/, still listed: {sorted(names - present)}"


def first_cells(page: str) -> set[str]:
    """The first cell of every table row on ``docs/<page>``."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return {line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| `")}


def test_the_configuration_page_has_a_row_for_every_config_key() -> None:
    assert first_cells("configuration.md") == {f"`{key}`" for key in _KEYS_BY_TYPE[Config]}


def test_the_storage_page_has_a_row_for_every_storage_key() -> None:
    keys = {f"`{DEFAULTS.storage_key(name)}`" for name in STORAGE_NAMES}
    assert first_cells("storage.md") == keys


def test_the_readme_is_one_screen_that_points_to_the_docs() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.encode()) <= 8 * 1024
    assert "(docs/index.md)" in text
    assert "pip install docs-panel" in text and "docs-panel build" in text
    assert "\n./dev serve " in text and "\n./dev test " in text
