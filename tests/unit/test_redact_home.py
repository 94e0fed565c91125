"""One rule, one home: docs_panel/core/redact.py (and redact_values.py, which judges the
values it finds) is the only place that knows a credential.

The shell (MicroPython, whose ``re`` has no lookbehind or conditionals) and the
page's JavaScript ask the worker's ``redact`` call instead of keeping a copy of
any pattern. A copy would drift from the table and mask differently, so none
may appear: no mask text and no vendor prefix of the rule table anywhere else
in what the panel ships.
"""

from __future__ import annotations

import ast
from pathlib import Path

from docs_panel.core import redact as redact_module

PACKAGE = Path(__file__).resolve().parent.parent.parent / "docs_panel"
HOME = {PACKAGE / "core" / "redact.py", PACKAGE / "core" / "redact_values.py"}
# The panel's own rooms: what runs in the browser or the server install, not the build.
SHIPPED = [
    path
    for room in ("portable", "core", "shell", "worker", "server", "assets")
    for pattern in ("*.py", "*.js", "*.mjs")
    for path in sorted((PACKAGE / room).rglob(pattern))
    if path not in HOME
]
# fixed text a vendor's token starts with (ghp_, sk-ant-, -----begin…): not a word, and
# not a dotted mid-token anchor (Authress' ".acc" is also in "uvicorn.access")
PREFIXES = sorted(
    {
        needle
        for rule in redact_module._RULES
        for needle in rule.needles
        if len(needle) >= 4 and not needle.isalpha() and not needle.startswith(".")
    }
)


def test_no_pattern_of_the_rule_table_is_kept_elsewhere() -> None:
    """Only the redactor holds a mask or a vendor prefix among the panel's own files."""
    assert len(SHIPPED) > 20 and len(PREFIXES) > 40  # the scan looks at something
    copies = [
        f"{path.relative_to(PACKAGE)}: {found}"
        for path in SHIPPED
        for text in [path.read_text(encoding="utf-8").lower()]
        for found in ("[redacted: ", *PREFIXES)
        if found in text
    ]
    assert copies == []


def test_the_shell_redacts_through_the_worker() -> None:
    """No shell module imports the redactor: it runs in the worker, in CPython's ``re``."""
    importers = [
        path.name
        for path in sorted((PACKAGE / "shell").glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("redact")
    ]
    assert importers == []
    persistence = (PACKAGE / "shell" / "persistence.py").read_text(encoding="utf-8")
    assert 'call("redact"' in persistence
