"""The page API's calls are checked in the core (docs_panel/portable/page_api.py): every good
shape passes with its options filled in, every bad one is refused with what was
expected; events keep text out unless the site asked for it."""

from __future__ import annotations

import pytest

from docs_panel.portable.errors import PageApiError
from docs_panel.portable.page_api import conversation_id, event_detail, parse_call, unknown_scope

GOOD = [
    ("open", [], {"question": "", "submit": False, "scope": None}),
    ("open", [None], {"question": "", "submit": False, "scope": None}),
    ("open", [{"question": "q?"}], {"question": "q?", "submit": False, "scope": None}),
    (
        "open",
        [{"question": "q?", "submit": True, "scope": "api"}],
        {"question": "q?", "submit": True, "scope": "api"},
    ),
    ("close", [], {}),
    ("newChat", [], {}),
    ("ask", ["How do I retry?"], {"question": "How do I retry?"}),
]
BAD = [
    ("open", ["retry"], 'expected an object, got "retry"'),
    ("open", [{}, {}], "expected at most one object, got 2 arguments"),
    ("open", [{"colour": "red"}], 'unknown option "colour"'),
    ("open", [{"question": 3}], "question: expected a string, got 3"),
    ("open", [{"submit": "yes"}], 'submit: expected true or false, got "yes"'),
    ("open", [{"submit": True}], "with submit, question: expected a non-blank string, got null"),
    (
        "open",
        [{"submit": True, "question": "  "}],
        'question: expected a non-blank string, got "  "',
    ),
    ("open", [{"scope": ""}], 'scope: expected a scope id, got ""'),
    ("ask", [], "expected one question, got 0 arguments"),
    ("ask", ["a", "b"], "expected one question, got 2 arguments"),
    ("ask", [None], "expected a non-blank string, got null"),
    ("close", [True], "expected no arguments, got 1 arguments"),
    ("newChat", [{}], "expected no arguments, got 1 arguments"),
    ("toggle", [], "docsPanel.toggle: not a page API call"),
]


@pytest.mark.parametrize(("name", "args", "options"), GOOD)
def test_good_calls_pass_with_every_option_filled(
    name: str, args: list[object], options: dict[str, object]
) -> None:
    assert parse_call(name, args) == (name, options)


@pytest.mark.parametrize(("name", "args", "message"), BAD)
def test_bad_calls_say_what_was_expected(name: str, args: list[object], message: str) -> None:
    with pytest.raises(PageApiError) as raised:
        parse_call(name, args)
    assert message in str(raised.value)
    assert str(raised.value).startswith("docsPanel.")


def test_an_unknown_scope_lists_the_known_ones() -> None:
    assert str(unknown_scope("x", ["all", "api"])).endswith(
        'unknown scope "x" (known: "all", "api")'
    )
    assert str(unknown_scope("x", [])).endswith("(known: none configured)")


def test_events_carry_text_only_when_asked() -> None:
    figures, texts = {"turn": "1", "sources": 2}, {"question": "q", "answer": "a"}
    assert event_detail(figures, texts, with_text=False) == figures
    assert event_detail(figures, texts, with_text=True) == {**figures, **texts}


@pytest.mark.parametrize(
    ("session", "expected"),
    [
        ('{"id": "c1", "left": true}', "c1"),
        ('{"id": null}', None),
        ("[]", None),
        ("{", None),
        (None, None),
    ],
)
def test_the_conversation_id_comes_from_the_session_or_is_null(
    session: str | None, expected: str | None
) -> None:
    assert conversation_id(session) == expected
