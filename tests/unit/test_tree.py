"""Tests mirror the package: the test of ``docs_panel/a/b.py`` is ``tests/unit/a/test_b.py``
(or ``test_b_<what>.py`` when one module's tests are several files), so a module's test is
found by its name. The few files at the top of tests/unit check the whole project at once."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

from tests.fixture_files import ROOT

UNIT = ROOT / "tests" / "unit"
PACKAGE = ROOT / "docs_panel"
# Checks over the whole tree, not of one module: named for what they hold to the code.
PROJECT_WIDE = {
    "test_contract.py",
    "test_docs_pages.py",
    "test_micropython.py",
    "test_one_home.py",
    "test_redact_home.py",
    "test_rooms.py",
    "test_shell_constants.py",
    "test_shell_records.py",
    "test_tree.py",
}


def module_of(test: str, folder: str) -> bool:
    """Whether ``test`` (a file name) is named for a module of ``docs_panel/folder``."""
    stem = test.removeprefix("test_").removesuffix(".py")
    modules = {path.stem for path in (PACKAGE / folder).glob("*.py")} - {"__init__"}
    return any(stem == name or stem.startswith(name + "_") for name in modules)


@pytest.mark.parametrize(
    "test", sorted(UNIT.rglob("test_*.py")), ids=lambda path: path.relative_to(UNIT).as_posix()
)
def test_each_unit_test_is_named_for_the_module_it_tests(test: Path) -> None:
    folder = test.parent.relative_to(UNIT).as_posix()
    if folder == "." and test.name in PROJECT_WIDE:
        return
    folder = "" if folder == "." else folder
    assert (PACKAGE / folder).is_dir(), f"docs_panel/{folder} does not exist: move {test.name}"
    assert module_of(test.name, folder), f"no module docs_panel/{folder} for {test.name}"


def test_pytest_recurses_into_every_folder_of_tests(request: pytest.FixtureRequest) -> None:
    """No folder holding tests is skipped by ``norecursedirs`` (pytest's default skips any
    folder named ``build``, which tests/unit/build is)."""
    skipped = request.config.getini("norecursedirs")
    folders = {test.parent for test in (ROOT / "tests").rglob("test_*.py")}
    folders = {f for f in folders if "fixtures" not in f.relative_to(ROOT).parts}
    for folder in sorted(folders):
        for part in folder.relative_to(ROOT).parts:
            hit = [pattern for pattern in skipped if fnmatch.fnmatch(part, pattern)]
            assert not hit, f"pytest's norecursedirs {hit} leaves out {folder.relative_to(ROOT)}"
