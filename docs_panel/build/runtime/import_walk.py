"""The modules a set of Python files reaches through their imports, read, not run:
what a cache key must cover, or what a bundle must ship.

    >>> here = Path(__file__).resolve()
    >>> [p.name for p in reachable([here], "docs_panel", here.parents[3])]
    ['import_walk.py']
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path


def reachable(start: Iterable[Path], package: str, root: Path) -> list[Path]:
    """``start`` and every module of ``package`` (a top-level package under ``root``)
    they import, however deep, with the ``__init__.py`` of the packages on the way.
    ``from a.b import c`` counts ``a/b/c.py`` too when it is a module."""
    found = list(dict.fromkeys(start))
    todo = list(found)
    while todo:
        for name in _imported(todo.pop()):
            if name != package and not name.startswith(package + "."):
                continue
            parts = name.split(".")
            packages = [root.joinpath(*parts[:n], "__init__.py") for n in range(1, len(parts))]
            module = root.joinpath(*parts[:-1], parts[-1] + ".py")
            inits = [p for p in [*packages, root.joinpath(*parts, "__init__.py")] if p.exists()]
            for path in [*inits, module]:
                if path.exists() and path not in found:
                    found.append(path)
                    todo.append(path)
    return found


def _imported(path: Path) -> Iterable[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
