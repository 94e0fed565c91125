"""The shell's protocol types (``docs_panel/shell/records.pyi``) are generated from the
protocol: one class a record and one a reply, field for field, so mypy checks every
field the shell reads against what the worker sends. Rewrite the file with
``python -m tests.unit.test_shell_records``."""

from __future__ import annotations

import sys
from pathlib import Path

from docs_panel.portable.protocol import CALLS, RECORDS

RECORDS_STUB = Path(__file__).resolve().parents[2] / "docs_panel" / "shell" / "records.pyi"

HEADER = '''"""The protocol's records and replies as mypy reads them in the shell's annotations
(``turn: "Turn"``, ``started: "StartReply"``); MicroPython never reads this file.

Generated from ``docs_panel.portable.protocol`` (``RECORDS``, ``CALLS``) by
``python -m tests.unit.test_shell_records``; tests/unit/test_shell_records.py fails
when the two differ."""

from typing import Protocol
'''
SCALARS = {"str": "str", "int": "int", "bool": "bool"}


def reply_class(call: str) -> str:
    """``new_chat`` → ``NewChatReply``."""
    return "".join(word.capitalize() for word in call.split("_")) + "Reply"


def python_type(kind: str) -> str:
    """A protocol type (``"Source*"``, ``"str?"``) as a Python annotation."""
    if kind.endswith("*"):
        return f"list[{python_type(kind[:-1])}]"
    if kind.endswith("?"):
        return f"{python_type(kind[:-1])} | None"
    return SCALARS.get(kind, kind)


def records_stub() -> str:
    """The text ``records.pyi`` holds: every record, then every call's reply."""
    shapes = list(RECORDS.items()) + [(reply_class(n), c[1]) for n, c in CALLS.items()]
    classes = []
    for name, fields in shapes:
        lines = [f"    {field}: {python_type(kind)}" for field, kind in fields.items()]
        classes.append("\n".join([f"class {name}(Protocol):", "    kind: str", *lines]) + "\n")
    return HEADER + "\n" + "\n".join(classes)


def test_the_shell_records_are_the_protocols() -> None:
    assert RECORDS_STUB.read_text(encoding="utf-8") == records_stub(), (
        "docs_panel/shell/records.pyi is stale: python -m tests.unit.test_shell_records"
    )


if __name__ == "__main__":
    RECORDS_STUB.write_text(records_stub(), encoding="utf-8")
    sys.stdout.write(f"wrote {RECORDS_STUB}\n")
