"""The shell (MicroPython) re-spells no rule it shares: a limit comes from
``docs_panel.portable``, and a name it shares with embed.js, the loader or panel.css is
held equal to that file's here. The shell imports ``js``, so it is read, not run."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "docs_panel"
SHELL = sorted((PACKAGE / "shell").glob("*.py"))
# Attributes that bound what a reader may type or pick: their values are the caps'.
LIMIT_ATTRIBUTES = ("maxlength", "minlength", "max", "min", "size")


def shell_constant(module: str, name: str) -> object:
    """The value of a module-level ``NAME = literal`` in ``docs_panel/shell/<module>.py``."""
    tree = ast.parse((PACKAGE / "shell" / f"{module}.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == [name]:
            return ast.literal_eval(node.value)
    raise AssertionError(f"shell/{module}.py has no {name} = ...")


def asset(name: str) -> str:
    return (PACKAGE / "assets" / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("path", SHELL, ids=lambda p: p.name)
def test_the_shell_spells_no_limit_of_its_own(path: Path) -> None:
    """A field's limit (``"maxlength": str(SENTENCE_CHARS)``) names a cap; a literal
    there would drift from what the worker and the server accept."""
    spelled = [
        f"{path.name}:{key.lineno}: {key.value}={ast.unparse(value)}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Dict)
        for key, value in zip(node.keys, node.values, strict=True)
        if isinstance(key, ast.Constant) and key.value in LIMIT_ATTRIBUTES
        if isinstance(value, ast.Constant)
    ]
    assert not spelled


def test_the_worker_is_started_under_the_name_the_shell_asks_for() -> None:
    name = shell_constant("client", "WORKER_NAME")
    assert f'name: "{name}"' in asset("embed.js")


def test_a_cold_start_is_asked_for_as_the_loader_reads_it() -> None:
    cold = shell_constant("client", "COLD")
    assert isinstance(cold, str) and cold.startswith("?")
    assert f'searchParams.has("{cold[1:]}")' in asset("pyodide-loader.mjs")


def test_the_phone_layout_is_the_stylesheet_s() -> None:
    """The shell's sheet (a dialog on phones) and panel.css switch at the same width."""
    phone = shell_constant("sheet", "PHONE")
    assert re.search(rf"@media {re.escape(str(phone))}[ ,{{]", asset("panel.css"))


def test_the_keys_the_shell_keeps_in_local_storage_are_the_contract_s() -> None:
    """Which key lives in localStorage (kept across visits) is the contract's table (§4)."""
    contract = (PACKAGE.parent / "docs" / "contract.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `docs-panel\.([\w.]+)` \| (\w+Storage) \|", contract, re.M)
    assert len(rows) >= 7
    local = {key for key, area in rows if area == "localStorage"}
    kept = shell_constant("persistence", "LOCAL_KEYS")
    assert isinstance(kept, tuple) and set(kept) == local
