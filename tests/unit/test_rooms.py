"""Each runtime's folder imports only what that runtime runs: the shell (MicroPython)
itself and ``docs_panel.portable``; the portable modules only each other; the core
(every CPython runtime) only itself and the portable modules; the worker (Pyodide) no
build or server code. An import across these lines would fail only where that
runtime runs (a reader's browser), so it fails here, read from the sources."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "docs_panel"

# A folder of docs_panel, and the folders its modules may import from.
ROOMS = {
    "portable": ("portable",),
    "shell": ("shell", "portable"),
    "core": ("core", "portable"),
    "worker": ("worker", "core", "portable"),
}


def docs_panel_imports(path: Path) -> set[str]:
    """The ``docs_panel`` modules a file imports, read, not run."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return {name for name in found if name.split(".")[0] == "docs_panel"}


@pytest.mark.parametrize(("room", "allowed"), ROOMS.items(), ids=list(ROOMS))
def test_a_room_imports_only_the_rooms_its_runtime_runs(
    room: str, allowed: tuple[str, ...]
) -> None:
    outside = sorted(
        f"{path.relative_to(PACKAGE).as_posix()}: {name}"
        for path in sorted((PACKAGE / room).rglob("*.py"))
        for name in docs_panel_imports(path)
        if name.partition(".")[2].partition(".")[0] not in allowed
    )
    assert not outside
