"""The build backend: setuptools, with the browser runtime made first.

The wheel carries ``docs_panel/runtime.zip`` (Pyodide, MicroPython and PyScript as the
panel ships them), which ``python build.py runtimes`` makes from the npm packages in
``node_modules`` with Node. In a checkout with ``node_modules``, building a wheel or an
sdist makes it first (so ``pip install .`` gives a wheel that builds sites); an
unpacked sdist uses the runtime it carries; anything else is refused with the commands
to run. It never downloads anything itself and never changes what setuptools packs.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from setuptools import build_meta
from setuptools.build_meta import (
    build_editable,
    get_requires_for_build_editable,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]

RUNTIME = Path("docs_panel") / "runtime.zip"
NODE_MODULES = Path("node_modules")
ConfigSettings = dict[str, str | list[str]] | None


def _checkout() -> bool:
    """A checkout whose npm packages are installed: the runtime can be made here."""
    return NODE_MODULES.is_dir() and Path("build.py").is_file()


def _runtime_requires() -> list[str]:
    """Making the runtime bundles the worker's Python packages: the project's own
    dependencies, as pyproject.toml pins them, in the isolated build environment too."""
    if not _checkout():
        return []
    project = tomllib.loads(Path("pyproject.toml").read_text(encoding="utf-8"))
    return list(project["project"]["dependencies"])


def _make_runtime() -> None:
    """``build.py runtimes`` in a checkout; the carried runtime in an sdist; else refuse."""
    if not _checkout():
        if RUNTIME.is_file():
            return
        raise SystemExit(
            f"docs-panel: the wheel carries the browser runtime ({RUNTIME}), made from the npm "
            f"packages, and this source tree has neither it nor {NODE_MODULES}/. In a checkout, "
            "run `npm ci` (needs Node.js and npm), then build again: the build runs "
            "`python build.py runtimes` itself."
        )
    if shutil.which("node") is None:
        raise SystemExit(
            "docs-panel: making the browser runtime (`python build.py runtimes`) needs "
            "Node.js: install `node`, then build again."
        )
    print(f"docs-panel: making {RUNTIME} (python build.py runtimes)", file=sys.stderr)
    made = subprocess.run(
        [sys.executable, "build.py", "runtimes"], capture_output=True, text=True, check=False
    )
    if made.returncode != 0:
        raise SystemExit(
            f"docs-panel: `python build.py runtimes` failed, so no wheel was built:\n"
            f"{made.stderr.strip()}"
        )


def get_requires_for_build_wheel(config_settings: ConfigSettings = None) -> list[str]:
    return [*build_meta.get_requires_for_build_wheel(config_settings), *_runtime_requires()]


def get_requires_for_build_sdist(config_settings: ConfigSettings = None) -> list[str]:
    return [*build_meta.get_requires_for_build_sdist(config_settings), *_runtime_requires()]


def build_wheel(
    wheel_directory: str,
    config_settings: ConfigSettings = None,
    metadata_directory: str | None = None,
) -> str:
    _make_runtime()
    return str(build_meta.build_wheel(wheel_directory, config_settings, metadata_directory))


def build_sdist(sdist_directory: str, config_settings: ConfigSettings = None) -> str:
    _make_runtime()
    return str(build_meta.build_sdist(sdist_directory, config_settings))
