"""The shell's sources ship without comments and docstrings, line for line: the code
MicroPython compiles is the repository's, and a traceback's line numbers still hold."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from docs_panel.build.runtime.lean_source import lean_source
from docs_panel.build.runtime.paths import PACKAGE
from docs_panel.build.runtime.python_sources import PORTABLE

SHIPPED = sorted((PACKAGE / "shell").glob("*.py")) + sorted(PORTABLE.rglob("*.py"))


class _LoneStrings(ast.NodeTransformer):
    """A lone string statement as ``lean_source`` leaves it: ``...``."""

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return ast.Expr(ast.Constant(...))
        return node


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_shipped_source_is_the_same_code_line_for_line(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    lean = lean_source(source)
    assert lean.count("\n") == source.count("\n")
    expected = ast.dump(_LoneStrings().visit(ast.parse(source)))
    assert ast.dump(ast.parse(lean)) == expected
    assert _statement_lines(lean) == _statement_lines(source)  # tracebacks still hold


def _statement_lines(source: str) -> list[tuple[str, int]]:
    return [
        (type(node).__name__, node.lineno)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.stmt)
    ]


def test_strings_that_are_values_stay() -> None:
    source = 'WORDS = {"a": "# not a comment"}\nx = ("one"\n     "two")  # joined\n'
    assert lean_source(source) == 'WORDS = {"a": "# not a comment"}\nx = ("one"\n     "two")\n'
