"""The vote report a feedback endpoint accepts: exactly the shape the panel sends
(``docs_panel.core.feedback.report``, docs/votes.md), checked against an allow-list.

Every field is required and no other is taken; each has a type and a bound, and the
first one that fails names itself in the :class:`ReportError`. Nothing is trimmed or
guessed: a report is stored as it was sent (its reader's text passed through the
redactor again, since any client may post one), or refused, and an error never quotes
what the report says::

    >>> report = parse_report(b'{"id": "9f2c41d07ab3e815", "vote": "up", "reasons": [],'
    ...     b' "sentence": "", "question": "How many retries?", "quote": "",'
    ...     b' "answer": "Five [1].", "sources": [{"address": "/r.html", "title": "Retries"}],'
    ...     b' "scope": "all", "gate": {"top_score": 0.51, "threshold": 0.25},'
    ...     b' "retrieved": ["/r.html"], "page_url": "https://docs.example.org/",'
    ...     b' "voted_at": 1764750000000}')
    >>> report.id, report.vote, report.voted_at
    ('9f2c41d07ab3e815', 'up', 1764750000000)
    >>> parse_report(b'{"id": "x", "vote": 1}')
    Traceback (most recent call last):
    ...
    docs_panel.server.report_shape.ReportError: vote: expected "up", "down" or null, got a number
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from docs_panel.core.feedback import REASON_IDS
from docs_panel.core.redact import redact_text
from docs_panel.portable.caps import PAGE_URL_CHARS, QUOTE_CHARS, SENTENCE_CHARS
from docs_panel.portable.errors import WidgetError

MAX_REPORT_BYTES: Final = 128 * 1024
"""A report's body at most; the panel's are a few KB (its answer is most of it)."""
TEXT_LIMIT: Final = 32_000
"""Characters of a question or an answer."""
ADDRESS_LIMIT: Final = 2_048
"""Characters of a section address or a source title."""
LIST_LIMIT: Final = 100
"""Items in ``sources`` or ``retrieved``."""
SCOPE_LIMIT: Final = 64
ID_PATTERN: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A vote id: the panel's are 16 hex digits."""
MAX_MILLIS: Final = 2**53 - 1
"""``voted_at`` is a JavaScript number of epoch milliseconds."""


class ReportError(WidgetError):
    """A body that is not a vote report; the message names the field and what it needs."""


class ReportTooLarge(ReportError):
    """A body over ``MAX_REPORT_BYTES`` (the server answers 413)."""


@dataclass(frozen=True, slots=True)
class Report:
    """A checked report: what a store keys and orders by, and the report itself as
    compact JSON."""

    id: str
    vote: str | None
    voted_at: int
    body: str


def _text(limit: int) -> Callable[[object], bool]:
    return lambda value: isinstance(value, str) and len(value) <= limit


def _texts(limit: int) -> Callable[[object], bool]:
    return lambda value: (
        isinstance(value, list)
        and len(value) <= LIST_LIMIT
        and all(_text(limit)(item) for item in value)
    )


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _source(value: object) -> bool:
    return (
        isinstance(value, dict)
        and value.keys() == {"address", "title"}
        and _text(ADDRESS_LIMIT)(value["address"])
        and _text(ADDRESS_LIMIT)(value["title"])
    )


def _reasons(value: object) -> bool:
    return (
        isinstance(value, list)
        and all(isinstance(r, str) and r in REASON_IDS for r in value)
        and len(set(value)) == len(value)
    )


FIELDS: Final[dict[str, tuple[Callable[[object], bool], str]]] = {
    "id": (
        lambda v: isinstance(v, str) and ID_PATTERN.fullmatch(v) is not None,
        "1 to 64 letters, digits, '-' or '_'",
    ),
    "vote": (lambda v: v in ("up", "down", None), '"up", "down" or null'),
    "reasons": (_reasons, f"a list of distinct reasons from {sorted(REASON_IDS)}"),
    "sentence": (_text(SENTENCE_CHARS), f"a string of at most {SENTENCE_CHARS} characters"),
    "question": (_text(TEXT_LIMIT), f"a string of at most {TEXT_LIMIT} characters"),
    "quote": (_text(QUOTE_CHARS), f"a string of at most {QUOTE_CHARS} characters"),
    "answer": (_text(TEXT_LIMIT), f"a string of at most {TEXT_LIMIT} characters"),
    "sources": (
        lambda v: isinstance(v, list) and len(v) <= LIST_LIMIT and all(map(_source, v)),
        f'a list of at most {LIST_LIMIT} {{"address": string, "title": string}}',
    ),
    "scope": (lambda v: v is None or _text(SCOPE_LIMIT)(v), "a short string or null"),
    "gate": (
        lambda v: (
            v is None
            or (
                isinstance(v, dict)
                and v.keys() == {"top_score", "threshold"}
                and all(map(_number, v.values()))
            )
        ),
        'null or {"top_score": number, "threshold": number}',
    ),
    "retrieved": (_texts(ADDRESS_LIMIT), f"a list of at most {LIST_LIMIT} addresses"),
    "page_url": (_text(PAGE_URL_CHARS), f"a string of at most {PAGE_URL_CHARS} characters"),
    "voted_at": (
        lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_MILLIS,
        "epoch milliseconds (a whole number)",
    ),
}
"""The allow-list: every field of a report, its check, and what the check wants."""
READER_TEXT: Final = ("sentence", "question", "quote", "answer", "page_url")
"""The fields a reader wrote (or whose address may carry a token), redacted before a
report is stored."""


def validate_report(value: object) -> Report:
    """``value`` (parsed JSON) as a :class:`Report`, or ReportError naming the first
    field that is missing, unknown or wrong."""
    if not isinstance(value, dict):
        raise ReportError(f"expected a JSON object with the fields {list(FIELDS)}")
    unknown = sorted(set(value) - FIELDS.keys())
    if unknown:
        raise ReportError(f"{unknown[0]}: unknown field (a report has {list(FIELDS)})")
    for name, (check, wanted) in FIELDS.items():
        if name not in value:
            raise ReportError(f"{name}: missing (a report has {list(FIELDS)})")
        if not check(value[name]):
            raise ReportError(f"{name}: expected {wanted}, got {_shown(value[name])}")
    if value["vote"] != "down" and (value["reasons"] or value["sentence"]):
        raise ReportError('reasons, sentence: only a "down" vote carries them')
    value = value | {name: redact_text(value[name]) for name in READER_TEXT}
    body = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return Report(id=value["id"], vote=value["vote"], voted_at=value["voted_at"], body=body)


def parse_report(body: bytes) -> Report:
    """A request body as a :class:`Report`: UTF-8 JSON, one object, no repeated key,
    no NaN or Infinity, at most ``MAX_REPORT_BYTES``."""
    if len(body) > MAX_REPORT_BYTES:
        raise ReportTooLarge(f"a report is at most {MAX_REPORT_BYTES} bytes, got {len(body)}")
    try:
        value = json.loads(
            body.decode("utf-8"),
            object_pairs_hook=_unique_keys,
            parse_constant=_no_constant,
        )
    except UnicodeDecodeError:
        raise ReportError("expected UTF-8 JSON, got bytes that are not UTF-8") from None
    except RecursionError:
        raise ReportError("expected a report, got JSON nested too deeply") from None
    except ValueError as err:  # json.JSONDecodeError, and the hooks' refusals
        raise ReportError(f"expected a JSON object: {err}") from None
    return validate_report(value)


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        repeated = next(key for key in keys if keys.count(key) > 1)
        raise ValueError(f"the key {repeated!r} appears twice")
    return dict(pairs)


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def _shown(value: object) -> str:
    """What a value is, never what it says: an error may be logged, and a report carries
    the reader's question."""
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    if isinstance(value, dict):
        return f"an object of {len(value)} keys"
    return {bool: "a boolean", type(None): "null"}.get(type(value), "a number")
