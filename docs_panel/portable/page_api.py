"""The site owner's page API and events (docs/page-api.md): which calls are
valid and what each ``docs-panel:*`` event tells the page. It never touches the DOM.

embed.js puts ``open``, ``close``, ``newChat`` and ``ask`` on ``window.docsPanel``
and hands each call's arguments over as JSON; the shell checks them here, so a bad
call is refused with a message that says what was expected::

    >>> parse_call("open", [{"question": "How do I retry?", "submit": True}])
    ('open', {'question': 'How do I retry?', 'submit': True, 'scope': None})
    >>> parse_call("ask", [""])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    docs_panel.portable.errors.PageApiError: docsPanel.ask(question): expected a non-blank ...

Events carry ids and figures; the question's and answer's text only when the site's
config says ``events: {text: true}``::

    >>> event_detail({"outcome": "done", "sources": 2}, {"question": "secret?"}, False)
    {'outcome': 'done', 'sources': 2}

Both runtimes import this module (MicroPython has no dataclasses or ``typing``).
"""

import json

from docs_panel.portable.errors import PageApiError

EVENTS = ("open", "close", "ask", "answer", "source-click", "vote", "error")
"""The names after ``docs-panel:``, in docs/page-api.md's order."""
ERROR_KINDS = ("start", "search", "answer", "throttled")
"""An ``error`` event's ``kind``: the assistant could not start; a search failed; the
model failed mid-answer (the reader got search results); the endpoint throttles."""
OPEN_OPTIONS = ("question", "submit", "scope")
_SIGNATURES = {
    "open": "docsPanel.open({question, submit, scope})",
    "close": "docsPanel.close()",
    "newChat": "docsPanel.newChat()",
    "ask": "docsPanel.ask(question)",
}


def parse_call(name: str, args: list[object]) -> tuple[str, dict[str, object]]:
    """``(name, options)`` for a page API call with ``args`` (a list of JSON values),
    or PageApiError naming what was expected."""
    if name not in _SIGNATURES:
        raise PageApiError("docsPanel." + str(name) + ": not a page API call")
    signature = _SIGNATURES[name]
    if name == "open":
        return name, _open_options(args, signature)
    if name == "ask":
        if len(args) != 1:
            raise PageApiError(signature + ": expected one question, got " + _count(args))
        return name, {"question": _question(args[0], signature)}
    if args:
        raise PageApiError(signature + ": expected no arguments, got " + _count(args))
    return name, {}


def _open_options(args: list[object], signature: str) -> dict[str, object]:
    if len(args) > 1:
        raise PageApiError(signature + ": expected at most one object, got " + _count(args))
    options = args[0] if args else {}
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise PageApiError(signature + ": expected an object, got " + _show(options))
    for key in options:
        if key not in OPEN_OPTIONS:
            raise PageApiError(signature + ": unknown option " + _show(key))
    question = options.get("question")
    submit = options.get("submit", False)
    scope = options.get("scope")
    if question is not None and not isinstance(question, str):
        raise PageApiError(signature + ": question: expected a string, got " + _show(question))
    if submit is not True and submit is not False:
        raise PageApiError(signature + ": submit: expected true or false, got " + _show(submit))
    if submit:
        _question(question, signature + ": with submit, question")
    if scope is not None and not (isinstance(scope, str) and scope):
        raise PageApiError(signature + ": scope: expected a scope id, got " + _show(scope))
    return {"question": question or "", "submit": submit, "scope": scope}


def _question(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise PageApiError(where + ": expected a non-blank string, got " + _show(value))
    return value


def unknown_scope(scope: str, known: list[str]) -> PageApiError:
    """The error for an ``open`` whose scope is none of the site's (``known``: ids)."""
    listed = ", ".join(_show(k) for k in known) if known else "none configured"
    return PageApiError(
        _SIGNATURES["open"] + ": scope: unknown scope " + _show(scope) + " (known: " + listed + ")"
    )


def event_detail(
    figures: dict[str, object], texts: dict[str, object], with_text: bool
) -> dict[str, object]:
    """An event's detail: ``figures`` (ids, counts, outcomes), and ``texts`` (the
    question, the answer) only ``with_text`` (the config's ``events.text``)."""
    detail = dict(figures)
    if with_text:
        detail.update(texts)
    return detail


def conversation_id(session: str | None) -> str | None:
    """The conversation id in this tab's session value (the "conversation" key's JSON),
    None when there is none yet."""
    if not session:
        return None
    try:
        value = json.loads(session)
    except ValueError:
        return None
    found = value.get("id") if isinstance(value, dict) else None
    return found if isinstance(found, str) else None


def _count(args: list[object]) -> str:
    return str(len(args)) + " arguments"


def _show(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:59] + "…"
