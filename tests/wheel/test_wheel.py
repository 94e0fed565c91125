"""``pip install docs-panel`` then ``docs-panel build SITE``: no Node, the same bytes as
``python build.py --site``."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from docs_panel.build.cli import build
from docs_panel.build.runtime.runtime_archive import read_runtime, runtime_archive
from docs_panel.build.runtime.runtime_cache import cached_runtime
from tests.wheel.install import Installed, build_wheel, wheelhouse

pytestmark = pytest.mark.wheel


SITES = Path(__file__).parent.parent / "fixtures" / "sites"


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_docs_panel_build_with_no_node_is_build_py(installed: Installed, tmp_path: Path) -> None:
    """The installed command, with only the venv on PATH, writes exactly the files the
    repository's build.py writes for the same site."""
    assert shutil.which("node", path=installed.env["PATH"]) is None
    site = tmp_path / "site"
    shutil.copytree(SITES / "sphinx", site)
    done = installed.run("docs-panel", "build", site, "--out", tmp_path / "wheel", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "sections from" in done.stdout
    build(site, tmp_path / "checkout")
    wheel, checkout = _tree(tmp_path / "wheel"), _tree(tmp_path / "checkout")
    assert any(name.startswith("index.") for name in wheel)
    assert sorted(wheel) == sorted(checkout)
    assert [name for name in wheel if wheel[name] != checkout[name]] == []


def test_docs_panel_build_says_what_is_wrong(installed: Installed, tmp_path: Path) -> None:
    done = installed.run("docs-panel", "build", tmp_path / "nowhere", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("docs-panel: error: --site ")
    # The release steps need the checkout: the installed command offers only `build`.
    done = installed.run("docs-panel", "runtimes", cwd=tmp_path)
    assert done.returncode == 2
    assert "invalid choice: 'runtimes'" in done.stderr


def test_the_wheel_carries_this_checkouts_runtime(installed: Installed) -> None:
    """The runtime in the wheel is the one build.py bundles, and reads back unchanged."""
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
        carried = wheel.read("docs_panel/runtime.zip")
        entry_points = wheel.read("docs_panel-0.1.0.dist-info/entry_points.txt").decode()
    assert carried == runtime_archive(cached_runtime())
    assert runtime_archive(read_runtime(carried)) == carried
    assert {"docs_panel/sphinx.py", "docs_panel/mkdocs.py", "docs_panel/build/cli.py"} <= names
    assert "docs-panel = docs_panel.cli:main" in entry_points
    assert "docs-panel = docs_panel.mkdocs:DocsPanelPlugin" in entry_points


def test_building_the_wheel_again_gives_the_same_bytes(
    installed: Installed, tmp_path: Path
) -> None:
    assert build_wheel(tmp_path, wheelhouse()).read_bytes() == installed.wheel.read_bytes()
