"""The page-worker protocol: replies checked both ways, and the shell read against it."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from docs_panel.portable.errors import ProtocolError
from docs_panel.portable.protocol import (
    CALLS,
    RECORDS,
    STORED,
    Message,
    arguments,
    decode_reply,
    encode_reply,
)
from tests.fixture_files import ROOT
from tests.unit.test_shell_records import reply_class

SHELL = ROOT / "docs_panel" / "shell"

TURN = {
    "key": "1714550400000",
    "question": "How do I retry?",
    "quote": "",
    "status": "done",
    "scope": "",
    "answer": "<p>Retry.</p>",
    "text": "Retry.",
    "sources": [{"address": "/a.html#b", "title": "B", "ref": 1}],
    "results": [],
    "feedback": {"vote": "", "reasons": [], "sentence": ""},
}


def test_a_reply_round_trips_into_messages() -> None:
    """Encoded then decoded, a reply reads as attributes, records nested as Messages."""
    wire = encode_reply("finish", {"turn": TURN, "session": "{}"})
    reply = decode_reply("finish", json.loads(wire))
    assert reply.turn.sources[0].address == "/a.html#b"  # type: ignore[attr-defined]
    assert reply.turn.sources[0].ref == 1  # type: ignore[attr-defined]
    assert isinstance(reply.turn, Message)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"session": "{}"}, "turn is missing"),
        ({"turn": TURN, "session": "{}", "extra": 1}, "undeclared extra"),
        ({"turn": {**TURN, "status": None}, "session": "{}"}, "status: expected str"),
        (
            {
                "turn": {**TURN, "sources": [{"address": "/", "title": "", "ref": True}]},
                "session": "",
            },
            "ref: expected int",
        ),
        ({"turn": {**TURN, "results": "none"}, "session": "{}"}, "results: expected a list"),
    ],
)
def test_the_worker_cannot_send_a_wrong_reply(fields: dict[str, object], problem: str) -> None:
    """A missing, undeclared or mistyped field fails at the boundary, named."""
    with pytest.raises(ProtocolError, match=problem):
        encode_reply("finish", fields)


def test_the_shell_cannot_send_wrong_arguments() -> None:
    """Arguments are checked by count and type before they cross."""
    assert arguments("save", (None, True)) == {"history": None, "checkpoint": True}
    with pytest.raises(ProtocolError, match="takes 2 arguments"):
        arguments("save", (None,))
    with pytest.raises(ProtocolError, match="save checkpoint: expected bool"):
        arguments("save", (None, 1))
    with pytest.raises(ProtocolError, match="no call named"):
        arguments("sav", ())


def test_a_received_reply_missing_a_field_fails() -> None:
    """Reading a reply that lacks a declared field fails, whatever sent it."""
    with pytest.raises(ProtocolError, match="regressed is missing"):
        decode_reply("check_regressed", {})


def test_a_reply_value_belongs_to_the_one_stored_argument() -> None:
    """A call replying ``value`` takes exactly one stored argument, a string: the worker
    keeps the value as that argument's (store.mjs may send it back as ``true``)."""
    for name, (args, reply) in CALLS.items():
        if "value" in reply:
            stored = [(field, kind) for field, kind in args if field in STORED]
            assert len(stored) == 1 and stored[0][1] in ("str", "str?"), name
            assert reply["value"] == "str?", name


def test_every_type_names_something_declared() -> None:
    """Each field's type is a scalar or a declared record, so no typo hides in the tables."""
    fields = [kind for record in RECORDS.values() for kind in record.values()]
    for args, reply in CALLS.values():
        fields += [kind for _, kind in args] + list(reply.values())
    for kind in fields:
        assert kind.rstrip("*?") in {"str", "int", "bool", *RECORDS}, kind


# --- The shell, read against the protocol -------------------------------------------


def reply_fields(kind: str) -> dict[str, str] | None:
    """The fields of a type written as a record name, ``Reply[call]`` or the shell's
    annotation of a reply (``StartReply``, see test_shell_records)."""
    if kind.startswith("Reply[") and kind.endswith("]"):
        return CALLS[kind[6:-1]][1]
    replies = {reply_class(name): call[1] for name, call in CALLS.items()}
    return replies.get(kind) or RECORDS.get(kind.rstrip("?"))


class ShellReader(ast.NodeVisitor):
    """Finds every field the shell reads on a protocol message, and every call it makes.

    A message is typed where it comes from: ``await x.call("name", ...)`` (or
    ``x.write("name", ...)``, ``x.start(...)``), a parameter annotated with a record
    name, ``"list[Record]"`` or ``"Reply[name]"``, a field of a typed message, or a
    loop over a list field.
    """

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.types: dict[str, str] = {}
        self.where = ""

    def check(self, source: str, where: str) -> list[str]:
        self.where = where
        self.visit(ast.parse(source))
        return self.problems

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        outer = self.types
        self.types = dict(outer)
        for arg in node.args.args:
            annotation = arg.annotation
            if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
                kind = annotation.value.replace(" | None", "?")  # mypy's "X | None"
                # "list[Source]" is the protocol's "Source*"
                is_list = kind.startswith("list[") and kind.endswith("]")
                self.types[arg.arg] = kind[5:-1] + "*" if is_list else kind
        self.generic_visit(node)
        self.types = outer

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def type_of(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Await):
            return self.type_of(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if method == "start" and node.func.value.__class__ is ast.Attribute:
                return "Reply[start]" if ast.unparse(node.func.value).endswith("client") else None
            if method in ("call", "write") and node.args:
                name = node.args[0]
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    self.check_call(name.value, method, node)
                    return f"Reply[{name.value}]"
        if isinstance(node, ast.Name):
            return self.types.get(node.id)
        if isinstance(node, ast.Attribute):
            fields = reply_fields(self.type_of(node.value) or "")
            if fields is not None:
                return fields.get(node.attr)
        return None

    def check_call(self, name: str, method: str, node: ast.Call) -> None:
        if name not in CALLS:
            self.problems.append(f"{self.where}:{node.lineno}: no call {name!r}")
            return
        declared = {field for field, _ in CALLS[name][0]}
        given = {keyword.arg for keyword in node.keywords}
        if method == "write":  # the keeper passes the stored value itself: stored="..."
            stored = [k.value for k in node.keywords if k.arg == "stored"]
            name_of = stored[0].value if stored and isinstance(stored[0], ast.Constant) else None
            declared.discard(name_of or "history")
            given.discard("stored")
        if given != declared:
            self.problems.append(
                f"{self.where}:{node.lineno}: {name} takes {sorted(declared)}, got {sorted(given)}"  # type: ignore[type-var]
            )

    def visit_Assign(self, node: ast.Assign) -> None:
        kind = self.type_of(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name) and kind:
                self.types[target.id] = kind
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        kind = self.type_of(node.iter)
        if kind and kind.endswith("*") and isinstance(node.target, ast.Name):
            self.types[node.target.id] = kind[:-1]
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        fields = reply_fields(self.type_of(node.value) or "")
        if fields is not None and node.attr not in fields and node.attr != "kind":
            self.problems.append(
                f"{self.where}:{node.lineno}: {ast.unparse(node)} reads a field "
                f"{self.type_of(node.value)} does not declare"
            )
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.type_of(node)  # checks the call's name and arguments
        self.generic_visit(node)


@pytest.mark.parametrize("path", sorted(SHELL.glob("*.py")), ids=lambda p: p.name)
def test_the_shell_reads_only_fields_the_worker_sends(path: Path) -> None:
    """Every protocol field the shell reads is declared, and every call it makes exists."""
    assert ShellReader().check(path.read_text(encoding="utf-8"), path.name) == []


def test_the_shell_reader_catches_a_wrong_field() -> None:
    """The check above can fail: a misspelt field, call or argument is reported."""
    source = """
async def f(self, turn: "Turn"):
    asked = await self.client.call("ask", question="q", scope="", quote="", instruction="")
    asked.streming
    for source in turn.sources:
        source.adress

def g(results: "list[Result]"):
    for result in results:
        result.snippit
    await self.client.call("pul")
    await self.keeper.write("delete_conversation", ident="c1")
"""
    problems = ShellReader().check(source, "x.py")
    assert len(problems) == 5, problems
    assert "asked.streming" in problems[0] and "source.adress" in problems[1]


def test_the_shell_uses_every_call() -> None:
    """No call is declared that the shell never makes (dead protocol)."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in SHELL.glob("*.py"))
    unused = [name for name in CALLS if f'"{name}"' not in source and name != "start"]
    assert unused == []
