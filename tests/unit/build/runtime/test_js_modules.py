"""The Node tests of the panel's pure JavaScript modules (``tests/js``, Node's own runner,
``node --test``), run here so ``./dev test`` includes them; and
``docs_panel.build.runtime.js_modules``, which writes those modules into the script that
imports them."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from docs_panel.build.runtime.js_modules import inlined
from docs_panel.portable.errors import ConfigError
from tests.fixture_files import ROOT

ASSETS = ROOT / "docs_panel" / "assets"
NODE_TESTS = sorted((ROOT / "tests" / "js").glob("*.test.mjs"))


@pytest.mark.parametrize("path", NODE_TESTS, ids=[p.name for p in NODE_TESTS])
def test_node_tests_pass(path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("needs Node (npm brings it)")
    run = subprocess.run(
        ["node", "--test", path], capture_output=True, text=True, cwd=ROOT, check=False
    )
    failed = [line for line in run.stdout.splitlines() if line.startswith("not ok")]
    assert run.returncode == 0, "\n".join(failed) + "\n" + run.stdout[-4000:] + run.stderr


def test_every_module_the_loader_imports_has_node_tests() -> None:
    source = (ASSETS / "pyodide-loader.mjs").read_text(encoding="utf-8")
    imported = re.findall(r'^import .* from "\./([\w-]+)\.mjs";$', source, re.M)
    assert imported
    assert {f"{name}.test.mjs" for name in imported} <= {path.name for path in NODE_TESTS}


def test_an_import_becomes_a_scope_that_returns_what_was_imported(tmp_path: Path) -> None:
    (tmp_path / "x.mjs").write_text(
        "const hidden = 1;\nexport const a = hidden;\nexport function b() {}\n"
        "export async function c() {}\nexport class D {}\n",
        encoding="utf-8",
    )
    out = inlined('import { a, c } from "./x.mjs";\nexport const y = a;\n', tmp_path, "s.mjs")
    assert out.startswith("const { a, c } = (() => {\nconst hidden = 1;\nconst a = hidden;\n")
    assert "function b() {}\nasync function c() {}\nclass D {}\n" in out
    assert out.endswith("return { a, c };\n})();\nexport const y = a;\n")
    assert "import" not in out


@pytest.mark.parametrize(
    ("script", "module", "error"),
    [
        ('import { a } from "./x.mjs";\n', "export default 1;\n", "only `export function"),
        ('import { a } from "./x.mjs";\n', "const a = 1;\nexport { a };\n", "only `export"),
        ('import { a } from "./x.mjs";\n', 'import { z } from "./z.mjs";\n', "only `export"),
        ('import { b } from "./x.mjs";\n', "export const a = 1;\n", "imports b from ./x.mjs"),
        (
            'import { a } from "./x.mjs";\nimport { b } from "./x.mjs";\n',
            "export const a = 1;\nexport const b = 2;\n",
            "imports ./x.mjs twice",
        ),
        ('import { a as b } from "./x.mjs";\n', "export const a = 1;\n", "cannot inline"),
        ('import {\n  a,\n} from "./x.mjs";\n', "export const a = 1;\n", "cannot inline"),
        ('import a from "./x.mjs";\n', "export const a = 1;\n", "cannot inline"),
    ],
)
def test_what_cannot_be_inlined_is_refused(
    tmp_path: Path, script: str, module: str, error: str
) -> None:
    (tmp_path / "x.mjs").write_text(module, encoding="utf-8")
    with pytest.raises(ConfigError, match=re.escape(error)):
        inlined(script, tmp_path, "s.mjs")


def test_import_meta_and_dynamic_imports_stay(tmp_path: Path) -> None:
    script = 'const u = import.meta.url;\nconst m = await import("./y.js");\n'
    assert inlined(script, tmp_path, "s.mjs") == script
