"""The licenses of the third-party code a bundle carries, as one text file.

A site that serves ``docs-panel/`` hands its readers Pyodide, PyScript,
MicroPython, zstddec and the worker's Python packages; their licenses ask that
their notices go with them. ``notices`` lists each one with its version, its
license, where its source is, and the license texts its package ships (the npm
packages of Pyodide and MicroPython ship none: the entry says where they are)::

    >>> from docs_panel.build.runtime.paths import ZSTDDEC_DIR
    >>> text = notices([ZSTDDEC_DIR], ["mdurl"])
    >>> "zstddec 0.3.4 (MIT AND BSD-3-Clause)" in text, "mdurl 0.1.2 (MIT License)" in text
    (True, True)

The bundle writes it as ``THIRD-PARTY-NOTICES.txt``; the panel never fetches it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from docs_panel.portable.errors import ConfigError

ROOT = Path(__file__).resolve().parents[3]
LICENSE_FILE = re.compile(r"(?:^|/)(?:LICEN[CS]E|COPYING|NOTICE)[^/]*$", re.IGNORECASE)
RULE = "=" * 78


def notices(
    npm_packages: Iterable[Path], python_modules: Iterable[str], *, cpython: str | None = None
) -> str:
    """One text: a header, then an entry for each npm package folder, for the CPython
    version ``cpython`` if given (Pyodide's), and for each importable Python package (by
    module name)."""
    entries = [_npm_entry(folder) for folder in npm_packages]
    if cpython:
        title = f"CPython {cpython} and its standard library, in Pyodide (PSF-2.0)"
        entries.append(_entry(title, "https://github.com/python/cpython", []))
    distributions = metadata.packages_distributions()
    entries += [_python_entry(module, distributions.get(module, [])) for module in python_modules]
    header = (
        "The third-party software in this folder, and its licenses. The build trims and\n"
        "transforms some of it (minified, compressed, compiled to bytecode, unused parts\n"
        "taken out); each entry says where its source is."
    )
    return "\n\n".join([header, *entries]) + "\n"


def npm_package(folder: Path) -> dict[str, Any]:
    """The ``package.json`` of the npm package in ``folder``, or a ConfigError saying to
    install the pinned packages."""
    try:
        package: dict[str, Any] = json.loads((folder / "package.json").read_text("utf-8"))
        if not {"name", "version"} <= package.keys():
            raise ValueError("package.json names no name or version")
    except (OSError, ValueError, AttributeError) as err:
        raise ConfigError(
            f"{folder} is missing or unreadable ({err}); run `npm ci` in {ROOT} first"
        ) from err
    return package


def _entry(title: str, source: str, texts: list[tuple[str, str]]) -> str:
    lines = [RULE, title, f"Source: {_web_address(source)}", RULE]
    if not texts:
        lines.append("(The package ships no license text; its source has it.)")
    for name, text in texts:
        lines += [f"--- {name} ---", text.strip()]
    return "\n".join(lines)


def _web_address(source: str) -> str:
    """npm's ways of naming a repository, as an address a browser opens."""
    source = source.removeprefix("git+").removesuffix(".git")
    if source.startswith("github:"):
        return "https://github.com/" + source.removeprefix("github:")
    return source


def _npm_entry(folder: Path) -> str:
    package = npm_package(folder)
    name = package["name"]
    repository = package.get("repository") or {}
    if isinstance(repository, dict):
        repository = repository.get("url", "")
    source = str(repository or package.get("homepage") or f"https://www.npmjs.com/package/{name}")
    texts = [
        (path.name, path.read_text(encoding="utf-8", errors="replace"))
        for path in sorted(folder.iterdir())
        if path.is_file() and LICENSE_FILE.search(path.name)
    ]
    title = f"{name} {package['version']} ({package.get('license', 'license not stated')})"
    return _entry(title, source, texts)


def _python_entry(module: str, distribution_names: list[str]) -> str:
    try:
        (distribution_name,) = distribution_names
        distribution = metadata.distribution(distribution_name)
    except (ValueError, metadata.PackageNotFoundError) as err:
        raise ConfigError(
            f"Python package {module!r} is not installed; run `pip install .`"
        ) from err
    info = distribution.metadata.json
    stated = str(info.get("license_expression") or info.get("license") or "")
    license_name = stated if stated and "\n" not in stated else _classified(info)
    # A license's own files, vendored packages' included, from the package's metadata.
    texts = [
        (str(file), Path(str(distribution.locate_file(file))).read_text(encoding="utf-8"))
        for file in distribution.files or []
        if file.parts[0].endswith(".dist-info") and LICENSE_FILE.search(str(file))
    ]
    title = f"{info['name']} {distribution.version} ({license_name})"
    return _entry(title, _project_address(info), texts)


def _classified(info: dict[str, str | list[str]]) -> str:
    classifiers = info.get("classifier", [])
    names = [c.rpartition(" :: ")[2] for c in classifiers if c.startswith("License :: ")]
    return " AND ".join(names) or "license not stated"


def _project_address(info: dict[str, str | list[str]]) -> str:
    urls = dict(url.partition(", ")[::2] for url in info.get("project_url", []))
    for label in ("Source", "Code", "Repository", "Homepage"):
        if label in urls:
            return urls[label]
    return str(info.get("home_page") or f"https://pypi.org/project/{info['name']}")
