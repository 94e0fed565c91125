"""Every message between the shell (MicroPython, on the page) and the worker
(Pyodide), declared once.

A call has a name, its arguments in order, and the fields of its reply; records
are the shapes that replies nest (a turn, a source, a history row). Types are
written as short strings: ``"str"``, ``"int"``, ``"bool"``, a record's name, with
``"*"`` for a list of them and ``"?"`` for "or null". Field names are snake_case
throughout.

The wire is fixed: the shell calls the worker's one export, ``call(name, *args)``,
with the arguments as plain values (an archive string of a megabyte must never be
JSON-encoded in MicroPython, which takes seconds); every reply is a JSON object
with exactly the declared fields. Both sides check what they handle, so a field
that one side forgot or mistyped fails loudly at the boundary::

    >>> wire = encode_reply("new_chat", {"session": '{"id": null}'})
    >>> wire
    '{"session": "{\\\\"id\\\\": null}"}'
    >>> decode_reply("new_chat", json.loads(wire)).session
    '{"id": null}'
    >>> encode_reply("new_chat", {})
    Traceback (most recent call last):
    ...
    docs_panel.portable.errors.ProtocolError: new_chat reply: session is missing

Both runtimes import this module, so it is written in the Python MicroPython
has: no dataclasses, no ``typing`` at run time, no ``__future__`` (annotations
are only read by mypy), and ``True`` is not an ``int`` there.
"""

import json

from docs_panel.portable.errors import ProtocolError

try:
    from collections.abc import Callable

    _Convert = Callable[[str, str, object], object]
except ImportError:  # MicroPython: annotations are never evaluated there
    pass

RECORDS = {
    "Scope": {"id": "str", "label": "str"},
    "Feedback": {"vote": "str", "reasons": "str*", "sentence": "str"},  # vote: "up" | "down" | ""
    "Source": {"address": "str", "title": "str", "ref": "int"},
    "Result": {"address": "str", "title": "str", "page": "str", "snippet": "str"},
    "Turn": {
        "key": "str",  # names the turn in this tab's conversation (a vote's target)
        "question": "str",
        "quote": "str",
        "status": "str",  # "done" | "stopped" | "results"
        "scope": "str",
        "answer": "str",  # rendered and sanitized HTML
        "text": "str",  # the answer's Markdown as stored ("Copy answer")
        "sources": "Source*",
        "results": "Result*",
        "feedback": "Feedback",
    },
    "Conversation": {"id": "str", "turns": "Turn*", "docs_changed": "bool"},
    "Row": {"id": "str", "title": "str", "when_value": "int", "when_unit": "str"},
}
"""Records nested in replies, by name."""

# Replies that several calls share.
_ARCHIVE = {"value": "str?"}  # the archive to write; null: write nothing
_SESSION = {"session": "str"}  # this tab's value for the "conversation" key, as stored

CALLS = {
    "start": (
        (
            ("config", "str"),
            ("index_url", "str"),
            ("page_url", "str"),
            ("page_language", "str"),
            ("consent", "str?"),  # the reader's stored choice (docs_panel.core.consent)
        ),
        {
            "errors": "str*",
            "record": "bool",
            "consent": "str",  # "", "pending", "granted", "denied" (docs_panel.core.consent)
            "forget": "str*",  # storage names to remove now (docs_panel.core.consent)
            "events_text": "bool",  # docs-panel:* events may carry the question's text
            "keep_in_flight": "bool",
            "scopes": "Scope*",
            "reasons": "str*",  # the ids of the reasons a "Not helpful" vote may tick
        },
    ),
    "restore": (
        # private: this tab's private conversation (sessionStorage), if any
        (("history", "str?"), ("session", "str?"), ("private", "str?")),
        {
            "adopted": "bool",
            "private": "bool",  # the conversation restored is a private one
            "conversation": "Conversation?",
            "session": "str",
            "rewrite": "bool",
            "persist": "bool",
        },
    ),
    "normalize": ((("history", "str?"),), _ARCHIVE),
    "redact": ((("text", "str"),), {"text": "str"}),
    "quote": ((("text", "str"),), {"text": "str"}),  # a passage selected on the page
    "ask": (
        (("question", "str"), ("scope", "str"), ("quote", "str"), ("instruction", "str")),
        {
            "streaming": "bool",
            "question": "str",  # as stored: credentials masked
            "turn": "Turn?",  # the finished turn when not streaming
            "in_flight": "str?",  # the turn record kept if the page leaves mid-answer
            "session": "str",
        },
    ),
    "pull": (
        (),
        {
            "stable": "str",  # HTML to append
            "tail": "str?",  # HTML that replaces the tail; null: unchanged
            "reasoning": "str",
            "text": "str",  # the raw Markdown that arrived
            "ended": "bool",
            "error": "str?",  # why the stream failed, when it ended so
            "retry_after": "int?",  # the endpoint throttles: seconds until asking again
        },
    ),
    "stop": ((), {}),
    "finish": ((("outcome", "str"),), {"turn": "Turn", "session": "str"}),
    "save": ((("history", "str?"), ("checkpoint", "bool")), _ARCHIVE),
    "evict": ((("history", "str"),), _ARCHIVE),
    # query: the reader's words in "Search conversations" ("": every row)
    "conversations": (
        (("history", "str?"), ("query", "str")),
        {"rows": "Row*", "current": "str?"},
    ),
    # As the reader types: the archive the list last read, filtered again (a megabyte
    # archive read and sent at each keystroke cost more than the filtering).
    "filter_conversations": ((("query", "str"),), {"rows": "Row*", "current": "str?"}),
    "export": (
        (("history", "str?"), ("id", "str")),  # id "": every conversation
        {"name": "str", "text": "str"},  # the file to download
    ),
    "import_file": (
        (("history", "str?"), ("text", "str")),
        # value: the archive to write (null: none); refused: "" or why the file was
        # refused ("other_site" | "newer" | "damaged"); changed: conversations merged in
        {"value": "str?", "changed": "int", "refused": "str"},
    ),
    # A new chat's conversation is private: never in the archive, kept in sessionStorage.
    "set_private": ((("on", "bool"),), {}),
    "private_copy": ((("checkpoint", "bool"),), {"copy": "str?"}),  # null: nothing to keep
    "open_conversation": (
        (("history", "str?"), ("id", "str")),
        {"conversation": "Conversation?", "session": "str"},
    ),
    "new_chat": ((), _SESSION),
    "delete_conversation": (
        (("history", "str?"), ("id", "str")),
        {"value": "str?", "on_screen": "bool", "session": "str"},
    ),
    "delete_all": ((), _SESSION),
    "vote": (
        (
            ("feedback", "str?"),  # the stored feedback log
            ("key", "str"),
            ("vote", "str"),  # "up" | "down" | "": taken back
            ("reasons", "str"),  # reason ids, comma-separated
            ("sentence", "str"),
        ),
        {"value": "str?", "feedback": "Feedback"},  # value: the log to write; null: none
    ),
    "drop_feedback": ((("feedback", "str?"), ("id", "str")), _ARCHIVE),
    "check_regressed": ((("history", "str?"),), {"regressed": "bool"}),
    # The reader chose in the notice or in Settings: whether to record now, and the
    # consent key's value to store (null: store nothing, for "Not now").
    "consent": (
        (("choice", "str"),),
        {"record": "bool", "keep_in_flight": "bool", "stored": "str?", "forget": "str*"},
    ),
}
"""Each call: its arguments as (name, type) in order, and its reply's fields."""

IMPORT_FILE_LIMIT = 8 * 1024 * 1024
"""Characters of an import file (``import_file``'s ``text``) read at most: four full
archives' worth. The shell reads no bigger file; the worker refuses a longer text."""

STORED = ("history", "feedback")
"""Arguments that carry a stored value (the archive, the feedback log); a call's reply
``value``, when there is one, is that argument's new value to store."""


class Message:
    """A reply or record as the shell reads it: one attribute per declared field."""

    def __init__(self, kind: str, fields: dict[str, object]) -> None:
        self.kind = kind
        for name in fields:
            setattr(self, name, fields[name])

    def __repr__(self) -> str:
        return "<" + self.kind + ">"


def arguments(name: str, values: tuple[object, ...]) -> dict[str, object]:
    """The call's arguments by name, checked; each side checks what it sends or gets."""
    declared = _call(name)[0]
    if len(values) != len(declared):
        raise ProtocolError(name + " takes " + str(len(declared)) + " arguments")
    checked = {}
    # MicroPython's zip has no strict=; the lengths were compared above.
    for (field, kind), value in zip(declared, values):  # noqa: B905
        checked[field] = _check(name + " " + field, kind, value)
    return checked


def encode_reply(name: str, fields: dict[str, object]) -> str:
    """The reply as it crosses: JSON with exactly the declared fields, checked."""
    return json.dumps(_record(name + " reply", _call(name)[1], fields, _check))


def decode_reply(name: str, parsed: object) -> Message:
    """A parsed reply (a dict, or the JS object from ``JSON.parse``) as a Message tree."""
    return Message(name, _record(name + " reply", _call(name)[1], parsed, _read))


def _call(name: str) -> tuple[tuple[tuple[str, str], ...], dict[str, str]]:
    if name not in CALLS:
        raise ProtocolError("no call named " + repr(name) + "; see CALLS in protocol.py")
    return CALLS[name]


def _record(
    where: str, declared: dict[str, str], value: object, convert: "_Convert"
) -> dict[str, object]:
    if isinstance(value, dict):
        extra = [field for field in value if field not in declared]
        if extra:
            raise ProtocolError(where + ": undeclared " + ", ".join(sorted(extra)))
    out = {}
    for field in declared:
        try:
            item = value[field]  # type: ignore[index]
        except (KeyError, TypeError):
            raise ProtocolError(where + ": " + field + " is missing") from None
        out[field] = convert(where + " " + field, declared[field], item)
    return out


def _check(where: str, kind: str, value: object) -> object:
    """``value`` if it has the declared type (records and lists checked inside)."""
    if kind.endswith("?"):
        return None if value is None else _check(where, kind[:-1], value)
    if kind.endswith("*"):
        if not isinstance(value, (list, tuple)):
            raise ProtocolError(where + ": expected a list, got " + _type_name(value))
        return [_check(where, kind[:-1], item) for item in value]
    if kind in RECORDS:
        if not isinstance(value, dict):
            raise ProtocolError(where + ": expected a " + kind + ", got " + _type_name(value))
        return _record(where, RECORDS[kind], value, _check)
    if not _is_scalar(kind, value):
        raise ProtocolError(where + ": expected " + kind + ", got " + _type_name(value))
    return value


def _read(where: str, kind: str, value: object) -> object:
    """The received ``value`` with records as Messages and lists as lists."""
    if kind.endswith("?"):
        return None if value is None else _read(where, kind[:-1], value)
    if kind.endswith("*"):
        try:
            return [_read(where, kind[:-1], item) for item in value]  # type: ignore[attr-defined]
        except TypeError:
            raise ProtocolError(where + ": expected a list") from None
    if kind in RECORDS:
        return Message(kind, _record(where, RECORDS[kind], value, _read))
    if not _is_scalar(kind, value):
        raise ProtocolError(where + ": expected " + kind + ", got " + _type_name(value))
    return value


def _is_scalar(kind: str, value: object) -> bool:
    if kind == "bool":
        return value is True or value is False
    if kind == "int":
        return type(value) is int
    return type(value) is str


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__
