"""``pip install .`` from a fresh clone: the build backend (build_backend/) makes the
browser runtime into the wheel when the checkout has ``node_modules``, and refuses with
the commands to run when it has not; never a wheel that installs and cannot build."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from docs_panel.build.runtime.paths import NODE_MODULES, ROOT
from docs_panel.build.runtime.runtime_archive import runtime_archive
from docs_panel.build.runtime.runtime_cache import cached_runtime
from tests.wheel.install import SOURCE_DATE_EPOCH, offline, wheelhouse

pytestmark = pytest.mark.wheel

RUNTIME = "docs_panel/runtime.zip"


def fresh_clone(work: Path) -> Path:
    """This tree as ``git clone`` gives it: the files git tracks or would (not ignored),
    so no runtime.zip and no node_modules."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    clone = work / "clone"
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file() and not source.is_symlink():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            (clone / name).write_bytes(source.read_bytes())
    assert not (clone / RUNTIME).exists() and not (clone / "node_modules").exists()
    return clone


def pyproject_build(clone: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """``python -m build`` (isolated, as pip builds), offline from the pinned wheelhouse."""
    env = offline(wheelhouse()) | {"SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH}
    command = [sys.executable, "-m", "build", *flags, "--outdir", "dist", str(clone)]
    return subprocess.run(command, cwd=clone.parent, env=env, capture_output=True, text=True)


def test_without_node_modules_the_build_is_refused_with_the_commands(tmp_path: Path) -> None:
    done = pyproject_build(fresh_clone(tmp_path), "--wheel")
    assert done.returncode != 0
    said = " ".join((done.stdout + done.stderr).split())
    assert "the wheel carries the browser runtime (docs_panel/runtime.zip)" in said
    assert "run `npm ci` (needs Node.js and npm)" in said
    assert "`python build.py runtimes`" in said
    assert not list((tmp_path / "dist").glob("*.whl"))


def test_with_node_modules_the_wheel_carries_the_runtime(tmp_path: Path) -> None:
    """A clone after ``npm ci``: the wheel pip builds carries this checkout's runtime."""
    clone = fresh_clone(tmp_path)
    os.symlink(NODE_MODULES, clone / "node_modules")
    done = pyproject_build(clone, "--wheel")
    assert done.returncode == 0, done.stderr
    assert "docs-panel: making docs_panel/runtime.zip" in done.stderr
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read(RUNTIME) == runtime_archive(cached_runtime())


def test_an_sdist_carries_the_runtime_to_its_wheel(tmp_path: Path) -> None:
    """``python -m build``'s default: the sdist made in the checkout, then the wheel from
    the sdist alone (no node_modules there), which uses the runtime the sdist carries."""
    clone = fresh_clone(tmp_path)
    os.symlink(NODE_MODULES, clone / "node_modules")
    done = pyproject_build(clone)
    assert done.returncode == 0, done.stderr
    (sdist,) = (tmp_path / "dist").glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {RUNTIME, "build_backend/wheel_with_runtime.py"} <= names
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read(RUNTIME) == runtime_archive(cached_runtime())
