"""This checkout as a site owner gets it: a wheel built with the standard ``build``
frontend, installed offline into a fresh virtual environment, run with no ``node``.

The pinned dependencies (the wheel's own, its ``server`` extra's, the build backend, and
the Sphinx and MkDocs the plugins are tested with, all as ``pyproject.toml`` pins them)
are downloaded once
into a wheelhouse under ``~/.cache/docs-panel``, keyed by the pins; after that neither
the wheel's build nor its install reaches a package index (``PIP_NO_INDEX``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from docs_panel.build.cli import build_runtimes
from docs_panel.build.runtime.node_cache import digest
from docs_panel.build.runtime.paths import ROOT

# The generators whose plugins the wheel carries, pinned in the dev extra.
GENERATORS = ("sphinx", "mkdocs")
# The extra a site owner installs to run ``docs-panel server``.
SERVER_EXTRA = "server"
# What the wheel is built from (pyproject.toml lists the packages it takes).
SOURCES = ("pyproject.toml", "build_backend", "docs_panel")
SOURCE_DATE_EPOCH = (
    "1577836800"  # 2020-01-01, the date docs_panel.build.runtime.lean_code gives zips
)


def pins() -> list[str]:
    """The requirements the wheel's build, install, server and plugin tests need, as pinned."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = project["project"]["optional-dependencies"]
    generators = [pin for pin in extras["dev"] if pin.split("==")[0] in GENERATORS]
    if len(generators) != len(GENERATORS):
        raise AssertionError(f"pyproject.toml's dev extra should pin {GENERATORS}")
    return [
        *project["build-system"]["requires"],
        *project["project"]["dependencies"],
        *extras[SERVER_EXTRA],
        *generators,
    ]


def wheelhouse() -> Path:
    """A folder of wheels for ``pins()`` and all they depend on (downloaded once)."""
    wanted = pins()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "docs-panel"
    house = base / f"wheelhouse-{digest(*(pin.encode() for pin in wanted))}"
    if not house.is_dir():
        base.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=".wheelhouse-", dir=base))
        _run([sys.executable, "-m", "pip", "download", "-q", "-d", scratch, *wanted])
        scratch.rename(house)
    return house


def offline(house: Path) -> dict[str, str]:
    """The environment for pip with no package index, only ``house`` (and no PYTHONPATH,
    whose checkout would make ``python -m build`` run build.py)."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    return {**env, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(house)}


def build_wheel(work: Path, house: Path) -> Path:
    """The wheel of this checkout with its runtime (``build.py runtimes``), built offline."""
    source = work / "source"
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "runtime.zip")
            shutil.copytree(path, source / name, ignore=ignore)
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, source / name)
    build_runtimes(source / "docs_panel" / "runtime.zip")
    dist = work / "dist"
    # Run from `work`, and without PYTHONPATH: from the checkout, `python -m build` would
    # find build.py first.
    command: list[str | Path] = [sys.executable, "-m", "build", "--wheel", "--outdir", dist]
    command.append(source)
    env = {name: value for name, value in offline(house).items() if name != "PYTHONPATH"}
    # Zip entries dated by SOURCE_DATE_EPOCH, not by the files' mtimes: the same bytes.
    _run(command, cwd=work, env={**env, "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH})
    (wheel,) = dist.glob("docs_panel-*.whl")
    return wheel


@dataclass(frozen=True)
class Installed:
    """A virtual environment with the wheel (and the pinned generators) installed."""

    venv: Path
    wheel: Path
    home: Path

    @property
    def env(self) -> dict[str, str]:
        """Only the venv on PATH: no node, no npm; a home of its own (no caches)."""
        return {"PATH": str(self.venv / "bin"), "HOME": str(self.home), "LANG": "C.UTF-8"}

    def run(self, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
        """``args`` run in the venv; a failure is returned, not raised."""
        return subprocess.run(
            [str(arg) for arg in args], cwd=cwd, env=self.env, capture_output=True, text=True
        )


def install(work: Path) -> Installed:
    """The wheel, built here, and the pinned generators in a fresh venv."""
    house = wheelhouse()
    wheel = build_wheel(work, house)
    generators = [pin for pin in pins() if pin.split("==")[0] in GENERATORS]
    return install_into(work / "venv", wheel, [wheel, *generators])


def install_server(work: Path, wheel: Path) -> Installed:
    """``pip install 'docs-panel[server]'`` alone in a fresh venv: nothing the dev extra
    or the generators bring can stand in for a dependency the extra forgets."""
    return install_into(work / "venv", wheel, [f"docs-panel[{SERVER_EXTRA}]"])


def install_into(venv: Path, wheel: Path, requirements: list[str | Path]) -> Installed:
    house = wheelhouse()
    _run([sys.executable, "-m", "venv", venv])
    command: list[str | Path] = [venv / "bin" / "python", "-m", "pip", "install", "-q"]
    command += ["--no-index", "--find-links", wheel.parent, "--find-links", house]
    _run([*command, *requirements], env=offline(house))
    home = venv.parent / "home"
    home.mkdir()
    return Installed(venv, wheel, home)


def _run(
    command: list[str | Path], *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> None:
    done = subprocess.run(
        [str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, command))} failed:\n{done.stdout}{done.stderr}")
